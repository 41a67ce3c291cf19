"""The page's game file (JSON, no photos): a stored game written as one, and one read back.

The store keeps the rule options game-wide; a file written by the per-round page gives its first game's.
"""

from __future__ import annotations

import json
from typing import Any

from kingdomino.board import BoardFormatError, Kingdom, Terrain
from kingdomino.labels import SquareReading
from kingdomino.ranking import EDITIONS
from page.store.errors import StoreError, shown
from page.store.records import MAX_ROUNDS, Reading, StoredEdit, StoredGame, StoredPlayer, apply_edits

#: The game file written by the page's "save game" (and read back by its "load game").
GAME_FORMAT = "kingdomino-scanner/game"
GAME_FORMAT_VERSION = 1

ParsedPlayer = tuple[str, Reading | None, list[StoredEdit]]


def game_to_json(game: StoredGame) -> str:
    """The game as the page's game file (format kingdomino-scanner/game, version 1); no images."""
    rounds = [
        {
            "harmony": game.harmony,
            "middle_kingdom": game.middle_kingdom,
            "current_player": 0,
            "players": [player_to_dict(p) for p in game.round_players(number)],
        }
        for number in range(1, game.rounds + 1)
    ]
    data = {
        "format": GAME_FORMAT,
        "version": GAME_FORMAT_VERSION,
        "edition": game.edition,
        "current_game": game.rounds - 1,
        "games": rounds,
    }
    return json.dumps(data, indent=1)


def player_to_dict(player: StoredPlayer) -> dict:
    """A player as the page's game file writes it."""
    board = player.board
    reading = board.reading if board is not None else None
    return {
        "name": player.name,
        "source": reading.source if reading else "",
        "from_scan": reading.from_scan if reading else False,
        "scanned": reading.base.to_dict() if reading else None,
        "corrections": [edit.to_dict() for edit in board.edits] if board else [],
        "kingdom": board.kingdom.to_dict() if board else None,
        "readings": [[r.to_dict() for r in row] for row in reading.readings]
        if reading and reading.readings
        else None,
        "flagged": [list(row) for row in reading.flagged] if reading and reading.flagged else None,
        "message": reading.message if reading else "",
    }


def parse_game_file(text: str | bytes) -> tuple[str, bool, bool, list[list[ParsedPlayer]]]:
    """Read the page's game file: (edition, harmony, middle kingdom, rounds of (name, reading, edits)).

    Raises StoreError with a one-line reason; the checks are those of the page's own import.
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise StoreError(f"not a game file (invalid JSON: {getattr(error, 'msg', error)})") from None
    if not isinstance(data, dict) or data.get("format") != GAME_FORMAT:
        raise StoreError("not a game file of this page (format field missing)")
    if data.get("version") != GAME_FORMAT_VERSION:
        raise StoreError(f"unsupported game file version {shown(data.get('version'))}")
    games = data.get("games")
    if not isinstance(games, list) or not 1 <= len(games) <= MAX_ROUNDS:
        raise StoreError(f"a game file holds 1 to {MAX_ROUNDS} games")
    edition = data.get("edition") if data.get("edition") in EDITIONS else "second"
    rounds: list[list[ParsedPlayer]] = []
    try:
        for g, game in enumerate(games, start=1):
            if not isinstance(game, dict) or not isinstance(game.get("players"), list):
                raise StoreError(f"game {g}: players missing")
            players = [_parse_player(p, f"game {g}, player {i}") for i, p in enumerate(game["players"], 1)]
            if not players:
                raise StoreError(f"game {g} has no players")
            rounds.append(players)
    except BoardFormatError as error:
        raise StoreError(f"a board in the game file is invalid: {error}") from None
    # The store keeps the rule options game-wide; a file from the per-round page gives its first game's.
    first = games[0]
    return edition, bool(first.get("harmony")), bool(first.get("middle_kingdom")), rounds


def _parse_player(data: Any, where: str) -> ParsedPlayer:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"].strip():
        raise StoreError(f"{where}: each player needs a name")
    edits_data = data.get("corrections", [])
    if not isinstance(edits_data, list):
        raise StoreError(f"{where}: corrections must be a list")
    edits = [StoredEdit.from_dict(edit) for edit in edits_data]
    reading = None
    if data.get("scanned") is not None:
        base = Kingdom.from_dict(data["scanned"])
        readings = flagged = None
        if data.get("readings") is not None:
            try:
                readings = tuple(
                    tuple(
                        SquareReading(Terrain(r["terrain"]), int(r["crowns"]), float(r["confidence"]))
                        for r in row
                    )
                    for row in data["readings"]
                )
                raw_flags = data.get("flagged") or [[False] * len(row) for row in data["readings"]]
                flagged = tuple(tuple(bool(v) for v in row) for row in raw_flags)
            except (TypeError, KeyError, ValueError):
                raise StoreError(f"{where}: unreadable square readings") from None
            if any(len(row) != base.grid_size for row in (*readings, *flagged)) or not (
                len(readings) == len(flagged) == base.grid_size
            ):
                raise StoreError(f"{where}: square readings do not match the board size")
        reading = Reading(
            base,
            bool(data.get("from_scan", False)),
            readings,
            flagged,
            source=str(data.get("source", "")),
            message=str(data.get("message", "")),
        )
    saved = data.get("kingdom")
    if saved is not None:
        kingdom = apply_edits(reading.base, edits) if reading is not None else None
        if kingdom != Kingdom.from_dict(saved):
            raise StoreError(f"{where}: the corrections do not lead to the saved kingdom")
    return data["name"].strip(), reading, edits
