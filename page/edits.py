"""Corrections as replayable edits, and a player's board as the game file holds it.

The one copy of these rules, shared by the page (page.state, page.gamefile) and the game store
(page.store): replaying corrections on a reading, and reading or writing a board in the game file with
its checks. Imports nothing of the page, so both can build on it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from kingdomino.board import GRID_SIZES, MAX_GRID_SIZE, BoardFormatError, Cell, Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from kingdomino.ranking import EDITIONS

#: The game file written by the page's "save game" (and read back by its "load game", or the store).
GAME_FORMAT = "kingdomino-scanner/game"
GAME_FORMAT_VERSION = 1
#: Games of a Dynasty.
MAX_GAMES = 3

Readings = tuple[tuple[SquareReading, ...], ...]
Flags = tuple[tuple[bool, ...], ...]


class GameFileError(ValueError):
    """A game file or stored game that cannot be read; the message is one line for the player."""


def shown(value: Any, limit: int = 40) -> str:
    """A value quoted in a message, cut short so a hostile file cannot flood the page."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Edit:
    """One undoable step: set a square, go back to the scan, or change the frame size."""

    kind: Literal["set", "reset", "resize"]
    cell: Cell = (0, 0)
    square: Square | None = None
    grid_size: int = 0

    def to_dict(self) -> dict:
        """The correction as the game file writes it."""
        if self.kind == "set":
            assert self.square is not None
            return {"kind": "set", "row": self.cell[0], "col": self.cell[1], **self.square.to_dict()}
        if self.kind == "resize":
            return {"kind": "resize", "grid_size": self.grid_size}
        return {"kind": "reset"}

    @classmethod
    def from_dict(cls, data: Any) -> Edit:
        if not isinstance(data, dict) or data.get("kind") not in ("set", "reset", "resize"):
            raise GameFileError(f"unknown correction {shown(data)}")
        if data["kind"] == "set":
            cell = (check_index(data.get("row")), check_index(data.get("col")))
            return cls("set", cell, Square.from_dict(data))
        if data["kind"] == "resize":
            if data.get("grid_size") not in GRID_SIZES:
                raise GameFileError(f"grid size must be 5 or 7, got {shown(data.get('grid_size'))}")
            return cls("resize", grid_size=data["grid_size"])
        return cls("reset")


def check_index(value: Any) -> int:
    """A row or column a correction names, checked."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_GRID_SIZE:
        raise GameFileError(f"a correction names an invalid row or column {shown(value)}")
    return value


def resize_kingdom(kingdom: Kingdom, grid_size: int) -> Kingdom:
    """The same kingdom in a larger or smaller frame, centred, so the castle stays in the middle."""
    offset = (grid_size - kingdom.grid_size) // 2
    rows = []
    for r in range(grid_size):
        row = []
        for c in range(grid_size):
            source = (r - offset, c - offset)
            inside = all(0 <= i < kingdom.grid_size for i in source)
            row.append(kingdom[source] if inside else Square(Terrain.EMPTY))
        rows.append(row)
    return Kingdom.from_rows(rows)


def apply_edits(base: Kingdom, edits: Sequence[Edit]) -> Kingdom:
    """Replay the corrections on a reading (cheap: a few dozen tiny immutable copies); the last edit of
    a square wins."""
    kingdom = base
    for edit in edits:
        if edit.kind == "reset":
            kingdom = base
        elif edit.kind == "resize":
            kingdom = resize_kingdom(kingdom, edit.grid_size)
        elif edit.square is not None and all(0 <= i < kingdom.grid_size for i in edit.cell):
            kingdom = kingdom.replace(edit.cell, edit.square)
    return kingdom


# --- a player's board in the game file ------------------------------------------------------------


@dataclass(frozen=True)
class FileBoard:
    """What the game file holds for one player: the name, the reading, the corrections."""

    name: str
    base: Kingdom | None = None
    edits: tuple[Edit, ...] = ()
    from_scan: bool = False
    readings: Readings | None = None
    flagged: Flags | None = None
    source: str = ""
    message: str = ""

    @property
    def kingdom(self) -> Kingdom | None:
        return None if self.base is None else apply_edits(self.base, self.edits)

    def to_dict(self) -> dict:
        """The player as the game file writes it."""
        kingdom = self.kingdom
        return {
            "name": self.name,
            "source": self.source,
            "from_scan": self.from_scan,
            "scanned": self.base.to_dict() if self.base is not None else None,
            "corrections": [edit.to_dict() for edit in self.edits],
            "kingdom": kingdom.to_dict() if kingdom is not None else None,
            "readings": [[r.to_dict() for r in row] for row in self.readings] if self.readings else None,
            "flagged": [list(row) for row in self.flagged] if self.flagged else None,
            "message": self.message,
        }


def board_from_dict(data: Any, where: str, edit_type: type[Edit] = Edit) -> FileBoard:
    """A player of a game file, checked: a name, corrections that lead to the saved kingdom, square
    readings the size of the board. Raises GameFileError (or BoardFormatError for a bad board)."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"].strip():
        raise GameFileError(f"{where}: each player needs a name")
    edits_data = data.get("corrections", [])
    if not isinstance(edits_data, list):
        raise GameFileError(f"{where}: corrections must be a list")
    edits = tuple(edit_type.from_dict(edit) for edit in edits_data)
    base = Kingdom.from_dict(data["scanned"]) if data.get("scanned") is not None else None
    readings, flagged = _readings_from(data, base, where)
    board = FileBoard(
        data["name"].strip(),
        base,
        edits,
        bool(data.get("from_scan", False)),
        readings,
        flagged,
        str(data.get("source", "")),
        str(data.get("message", "")),
    )
    saved = data.get("kingdom")
    if saved is not None and board.kingdom != Kingdom.from_dict(saved):
        raise GameFileError(f"{where}: the corrections do not lead to the saved kingdom")
    return board


def _readings_from(data: dict, base: Kingdom | None, where: str) -> tuple[Readings | None, Flags | None]:
    raw = data.get("readings")
    if raw is None or base is None:
        return None, None
    try:
        readings = tuple(
            tuple(SquareReading(Terrain(r["terrain"]), int(r["crowns"]), float(r["confidence"])) for r in row)
            for row in raw
        )
        raw_flags = data.get("flagged") or [[False] * len(row) for row in raw]
        flagged = tuple(tuple(bool(v) for v in row) for row in raw_flags)
    except (TypeError, KeyError, ValueError):
        raise GameFileError(f"{where}: unreadable square readings") from None
    if any(len(row) != base.grid_size for row in (*readings, *flagged)) or not (
        len(readings) == len(flagged) == base.grid_size
    ):
        raise GameFileError(f"{where}: square readings do not match the board size")
    return readings, flagged


# --- the game file as a whole ---------------------------------------------------------------------


def game_file_dict(edition: str, current_game: int, games: Sequence[dict]) -> dict:
    """The game file's outer dict around its games (each: harmony, middle_kingdom, current_player,
    players)."""
    return {
        "format": GAME_FORMAT,
        "version": GAME_FORMAT_VERSION,
        "edition": edition,
        "current_game": current_game,
        "games": list(games),
    }


def read_json(text: str | bytes) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise GameFileError(f"not a game file (invalid JSON: {getattr(error, 'msg', error)})") from None
    except RecursionError:
        raise GameFileError("not a game file (invalid JSON: nested too deeply)") from None
    except ValueError:  # the one other refusal of json.loads: a number of thousands of digits
        raise GameFileError("not a game file (invalid JSON: a number far too long)") from None


def game_file_games(data: Any) -> tuple[str, list[dict]]:
    """The edition and the games of a game file's data, checked: the format, its version, 1 to 3 games
    each with a list of players."""
    if not isinstance(data, dict) or data.get("format") != GAME_FORMAT:
        raise GameFileError("not a game file of this page (format field missing)")
    if data.get("version") != GAME_FORMAT_VERSION:
        raise GameFileError(f"unsupported game file version {shown(data.get('version'))}")
    games = data.get("games")
    if not isinstance(games, list) or not 1 <= len(games) <= MAX_GAMES:
        raise GameFileError(f"a game file holds 1 to {MAX_GAMES} games")
    for g, game in enumerate(games, start=1):
        if not isinstance(game, dict) or not isinstance(game.get("players"), list):
            raise GameFileError(f"game {g}: players missing")
        if not game["players"]:
            raise GameFileError(f"game {g} has no players")
    return (data.get("edition") if data.get("edition") in EDITIONS else "second"), games


def invalid_board(error: BoardFormatError) -> GameFileError:
    return GameFileError(f"a board in the game file is invalid: {error}")
