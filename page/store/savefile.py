"""The page's game file (JSON, no photos): a stored game written as one, and one read back. The format and
its checks are page.edits', the same as the page's own save and load.

The store keeps the rule options game-wide; a file written by the per-round page gives its first game's.
"""

from __future__ import annotations

import json

from kingdomino.board import BoardFormatError
from page.edits import (
    GAME_FORMAT,
    GAME_FORMAT_VERSION,
    FileBoard,
    GameFileError,
    board_from_dict,
    game_file_dict,
    game_file_games,
    invalid_board,
    read_json,
)
from page.store.errors import StoreError
from page.store.records import Reading, StoredEdit, StoredGame, StoredPlayer

__all__ = ["GAME_FORMAT", "GAME_FORMAT_VERSION", "game_to_json", "parse_game_file"]

ParsedPlayer = tuple[str, Reading | None, list[StoredEdit]]


def game_to_json(game: StoredGame) -> str:
    """The game as the page's game file (format kingdomino-scanner/game, version 1); no images."""
    rounds = [
        {
            "harmony": game.harmony,
            "middle_kingdom": game.middle_kingdom,
            "current_player": 0,
            "players": [file_board(p).to_dict() for p in game.round_players(number)],
        }
        for number in range(1, game.rounds + 1)
    ]
    return json.dumps(game_file_dict(game.edition, game.rounds - 1, rounds), indent=1)


def file_board(player: StoredPlayer) -> FileBoard:
    """A stored player as the game file holds it."""
    board = player.board
    if board is None:
        return FileBoard(player.name)
    reading = board.reading
    return FileBoard(
        player.name,
        reading.base,
        board.edits,
        reading.from_scan,
        reading.readings,
        reading.flagged,
        reading.source,
        reading.message,
    )


def parse_game_file(text: str | bytes) -> tuple[str, bool, bool, list[list[ParsedPlayer]]]:
    """Read the page's game file: (edition, harmony, middle kingdom, rounds of (name, reading, edits)).

    Raises StoreError with a one-line reason; the checks are those of the page's own import.
    """
    try:
        data = read_json(text)
        edition, games = game_file_games(data)
        rounds = [
            [_parsed(p, f"game {g}, player {i}") for i, p in enumerate(game["players"], 1)]
            for g, game in enumerate(games, start=1)
        ]
    except GameFileError as error:
        raise StoreError(str(error)) from None
    except BoardFormatError as error:
        raise StoreError(str(invalid_board(error))) from None
    first = games[0]
    return edition, bool(first.get("harmony")), bool(first.get("middle_kingdom")), rounds


def _parsed(data: object, where: str) -> ParsedPlayer:
    board = board_from_dict(data, where, StoredEdit)
    reading = None
    if board.base is not None:
        reading = Reading(
            board.base,
            board.from_scan,
            board.readings,
            board.flagged,
            source=board.source,
            message=board.message,
        )
    return board.name, reading, list(board.edits)  # type: ignore[arg-type]
