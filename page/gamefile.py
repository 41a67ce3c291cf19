"""The game as data: the downloadable game file (JSON, no photos) and the full record a game store
keeps (with the undo history, the frame, and the images as separate blobs)."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

from kingdomino.board import BoardFormatError, Square
from page.edits import (
    FileBoard,
    GameFileError,
    board_from_dict,
    game_file_dict,
    game_file_games,
    invalid_board,
    read_json,
)
from page.state import GRID_CHOICES, GameSession, PageState, PlayerKingdom, clamp_selection

#: The images of a full record: player attribute -> blob kind.
IMAGE_FIELDS = ("photo", "preview_jpeg", "rectified_jpeg")


def file_board(player: PlayerKingdom) -> FileBoard:
    """A player's board as the game file holds it."""
    return FileBoard(
        player.name,
        player.base,
        tuple(player.edits),
        player.from_scan,
        player.readings,
        player.flagged,
        player.source,
        player.message,
    )


def player_to_dict(player: PlayerKingdom) -> dict:
    """A player as the game file holds it."""
    return file_board(player).to_dict()


def _state_dict(state: PageState, player_dict) -> dict:
    games = [
        {
            "harmony": game.harmony,
            "middle_kingdom": game.middle_kingdom,
            "current_player": game.current_player,
            "players": [player_dict(p) for p in game.players],
        }
        for game in state.games
    ]
    return game_file_dict(state.edition, state.current_game, games)


def export_game(state: PageState) -> str:
    """The whole session (all games of the Dynasty) as JSON; photos and images are not included."""
    return json.dumps(_state_dict(state, player_to_dict), indent=1)


def import_game(text: str | bytes) -> PageState:
    """Read a game file written by export_game; raises GameFileError with a one-line reason."""
    return state_from_dict(read_json(text), {})


def state_from_dict(data: Any, blobs: dict[str, bytes]) -> PageState:
    """A page state from a game file's data or a full record (with its blobs)."""
    edition, games = game_file_games(data)
    state = PageState(games=[], edition=edition)
    try:
        for g, game_data in enumerate(games, start=1):
            players = [
                player_from_dict(p, f"game {g}, player {i}", blobs)
                for i, p in enumerate(game_data["players"], 1)
            ]
            game = GameSession(players, bool(game_data.get("harmony")), bool(game_data.get("middle_kingdom")))
            current = game_data.get("current_player", 0)
            game.current_player = current if isinstance(current, int) and 0 <= current < len(players) else 0
            state.games.append(game)
    except BoardFormatError as error:
        raise invalid_board(error) from None
    current = data.get("current_game", 0)
    state.current_game = current if isinstance(current, int) and 0 <= current < len(state.games) else 0
    clamp_selection(state)
    return state


def player_from_dict(data: Any, where: str, blobs: dict[str, bytes] | None = None) -> PlayerKingdom:
    board = board_from_dict(data, where)
    player = PlayerKingdom(board.name, board.base, board.from_scan, source=board.source)
    player.edits, player.message = list(board.edits), board.message
    player.readings, player.flagged = board.readings, board.flagged
    if "record" in data:
        _record_from(player, data["record"], where, blobs or {})
    return player


# --- the full record a game store keeps -------------------------------------------------------


def player_record(player: PlayerKingdom, blobs: dict[str, bytes]) -> dict:
    """A player with everything the page needs to carry on: the game-file fields, the undo history, the
    frame, and the images (added to ``blobs`` under their content hash, referenced by it)."""
    data = player_to_dict(player)
    images = {}
    for name in IMAGE_FIELDS:
        content = getattr(player, name)
        if content:
            digest = content_digest(content)
            blobs[digest] = content
            images[name] = digest
    data["record"] = {
        "demo": player.demo,
        "notes": list(player.notes),
        "scan_seconds": player.scan_seconds,
        "grid_choice": player.grid_choice,
        "photo_id": player.photo_id,
        "corners": [list(point) for point in player.corners] if player.corners is not None else None,
        "preview_scale": player.preview_scale,
        "images": images,
        "earlier": [player_record(earlier, blobs) for earlier in player.earlier],
    }
    return data


@lru_cache(maxsize=64)
def content_digest(content: bytes) -> str:
    """The blob name of an image (cached: the page is saved on every change, its photos rarely change)."""
    return hashlib.sha256(content).hexdigest()


def _record_from(player: PlayerKingdom, record: Any, where: str, blobs: dict[str, bytes]) -> None:
    if not isinstance(record, dict):
        raise GameFileError(f"{where}: unreadable record")
    try:
        player.demo = bool(record.get("demo", False))
        player.notes = [str(note) for note in record.get("notes", [])]
        seconds = record.get("scan_seconds")
        player.scan_seconds = float(seconds) if seconds is not None else None
        grid = record.get("grid_choice", "auto")
        player.grid_choice = grid if grid in GRID_CHOICES else "auto"
        photo_id = record.get("photo_id")
        player.photo_id = str(photo_id) if photo_id is not None else None
        corners = record.get("corners")
        player.corners = tuple((float(x), float(y)) for x, y in corners) if corners is not None else None
        if player.corners is not None and len(player.corners) != 4:
            raise ValueError("four corners")
        player.preview_scale = float(record.get("preview_scale", 1.0))
        for name, digest in dict(record.get("images", {})).items():
            if name in IMAGE_FIELDS:
                setattr(player, name, blobs[digest])
        player.earlier = [player_from_dict(e, f"{where} (earlier)", blobs) for e in record.get("earlier", [])]
    except (TypeError, ValueError, KeyError):
        raise GameFileError(f"{where}: unreadable record") from None


def state_record(state: PageState) -> tuple[dict, dict[str, bytes]]:
    """The full record of a page (JSON-able dict) and its images by content hash."""
    blobs: dict[str, bytes] = {}
    data = _state_dict(state, lambda player: player_record(player, blobs))
    data["page"] = {
        "selected": list(state.selected),
        "paint": state.paint,
        "brush": state.brush.to_dict(),
    }
    return data, blobs


def state_from_record(data: Any, blobs: dict[str, bytes]) -> PageState:
    """A page back from state_record's output; raises GameFileError with a one-line reason."""
    state = state_from_dict(data, blobs)
    page = data.get("page") if isinstance(data, dict) else None
    if isinstance(page, dict):
        try:
            state.selected = (int(page["selected"][0]), int(page["selected"][1]))
            state.paint = bool(page.get("paint", False))
            state.brush = Square.from_dict(page["brush"])
        except (TypeError, ValueError, KeyError, IndexError, BoardFormatError):
            raise GameFileError("the stored page settings are unreadable") from None
        clamp_selection(state)
    return state
