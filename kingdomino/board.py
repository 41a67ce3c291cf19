"""The kingdom model: terrains, squares, the N×N frame, and the two board formats.

Pure Python on purpose: the scoring engine, the CLI, the page and the photo scanner all meet here,
so this module knows the rules of the board and nothing about images.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Terrain(StrEnum):
    """What a square shows. CASTLE is the starting square; EMPTY is a gap where the table shows."""

    WHEAT = "wheat"
    FOREST = "forest"
    LAKE = "lake"
    GRASSLAND = "grassland"
    SWAMP = "swamp"
    MINE = "mine"
    CASTLE = "castle"
    EMPTY = "empty"

    @property
    def is_land(self) -> bool:
        """True for the six terrains that form territories (not castle, not empty)."""
        return self not in (Terrain.CASTLE, Terrain.EMPTY)


LAND_TERRAINS: tuple[Terrain, ...] = tuple(t for t in Terrain if t.is_land)

#: Most crowns a square of each terrain ever carries in the box.
MAX_CROWNS: dict[Terrain, int] = {
    Terrain.WHEAT: 1,
    Terrain.FOREST: 1,
    Terrain.LAKE: 1,
    Terrain.GRASSLAND: 2,
    Terrain.SWAMP: 2,
    Terrain.MINE: 3,
    Terrain.CASTLE: 0,
    Terrain.EMPTY: 0,
}

#: Board-text letter of each terrain (castle and empty have no crown digit).
TERRAIN_LETTERS: dict[Terrain, str] = {
    Terrain.WHEAT: "W",
    Terrain.FOREST: "F",
    Terrain.LAKE: "L",
    Terrain.GRASSLAND: "G",
    Terrain.SWAMP: "S",
    Terrain.MINE: "M",
    Terrain.CASTLE: "C",
    Terrain.EMPTY: ".",
}
_LETTER_TERRAINS = {letter: terrain for terrain, letter in TERRAIN_LETTERS.items()}

#: Grid sizes of the two variants: standard and Mighty Duel.
GRID_SIZES: tuple[int, ...] = (5, 7)
MAX_GRID_SIZE = max(GRID_SIZES)
MAX_CROWN_DIGIT = 3


def shown_token(token: str, limit: int = 12) -> str:
    """A token quoted for an error message: escaped (one line, even for control characters) and cut short."""
    return repr(token if len(token) <= limit else token[:limit] + "…")


def shown_value(value: object, limit: int = 24) -> str:
    """A JSON value for an error message, one line and cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


class BoardFormatError(ValueError):
    """A board text or JSON that cannot be read. The message names the line and token."""

    def __init__(self, message: str, line: int | None = None, token: str | None = None) -> None:
        self.line = line
        self.token = token
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{message}")


@dataclass(frozen=True, slots=True)
class Square:
    """One square of a kingdom: its terrain and the crowns printed on it."""

    terrain: Terrain
    crowns: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.terrain, Terrain):
            object.__setattr__(self, "terrain", Terrain(self.terrain))
        if not isinstance(self.crowns, int) or isinstance(self.crowns, bool):
            raise BoardFormatError(f"crowns must be a whole number, got {shown_value(self.crowns)}")
        if not 0 <= self.crowns <= MAX_CROWN_DIGIT:
            raise BoardFormatError(f"crowns must be 0-{MAX_CROWN_DIGIT}, got {self.crowns}")

    @property
    def token(self) -> str:
        """The square in the board-text format, e.g. ``G2``, ``C`` or ``.``."""
        letter = TERRAIN_LETTERS[self.terrain]
        return letter if not self.terrain.is_land else f"{letter}{self.crowns}"

    def to_dict(self) -> dict:
        return {"terrain": self.terrain.value, "crowns": self.crowns}

    @classmethod
    def from_token(cls, token: str, line: int | None = None) -> Square:
        """Parse one board-text token: a terrain letter and a crown digit, ``C`` or ``.``. A trailing ``?``
        (a square ``kingdomino scan`` asks you to check) is allowed and ignored."""
        shown = shown_token(token)
        token = token[:-1] if token.endswith("?") and len(token) > 1 else token
        letter, digits = token[:1].upper(), token[1:]
        terrain = _LETTER_TERRAINS.get(letter)
        if terrain is None or not token:
            raise BoardFormatError(f"unknown square {shown} (use W F L G S M + crowns, C or .)", line, token)
        if not terrain.is_land:
            if digits and digits != "0":
                raise BoardFormatError(f"{terrain.value} square {shown} cannot carry crowns", line, token)
            return cls(terrain, 0)
        if not digits:
            return cls(terrain, 0)
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 1:
            raise BoardFormatError(f"bad crown count in {shown} (expected one digit 0-3)", line, token)
        crowns = int(digits)
        if crowns > MAX_CROWN_DIGIT:
            raise BoardFormatError(f"crowns out of range in {shown} (0-3)", line, token)
        return cls(terrain, crowns)

    @classmethod
    def from_dict(cls, data: object, where: str = "") -> Square:
        if not isinstance(data, dict):
            raise BoardFormatError(
                f"{where}square must be an object with terrain and crowns, got {shown_value(data)}"
            )
        terrain_name = data.get("terrain")
        try:
            terrain = Terrain(str(terrain_name).lower())
        except ValueError:
            raise BoardFormatError(
                f"{where}unknown terrain {shown_token(str(terrain_name))}", token=str(terrain_name)
            ) from None
        crowns = data.get("crowns", 0)
        if not isinstance(crowns, int) or isinstance(crowns, bool) or not 0 <= crowns <= MAX_CROWN_DIGIT:
            raise BoardFormatError(f"{where}crowns must be a whole number 0-3, got {shown_value(crowns)}")
        if not terrain.is_land and crowns:
            raise BoardFormatError(f"{where}{terrain.value} square cannot carry crowns")
        return cls(terrain, crowns)


EMPTY_SQUARE = Square(Terrain.EMPTY, 0)
CASTLE_SQUARE = Square(Terrain.CASTLE, 0)

Cell = tuple[int, int]


@dataclass(frozen=True)
class Kingdom:
    """A square frame of squares, rows top to bottom. Gaps are EMPTY squares.

    The frame is N×N with N from 1 to 7; the variant checks (5×5 standard, 7×7 Mighty Duel, one
    castle) are plausibility warnings of the scoring engine, not parse errors, so that a player can
    always enter and fix any board.
    """

    squares: tuple[tuple[Square, ...], ...]

    def __post_init__(self) -> None:
        rows = tuple(tuple(row) for row in self.squares)
        object.__setattr__(self, "squares", rows)
        size = len(rows)
        if size == 0:
            raise BoardFormatError("the board has no squares")
        if size > MAX_GRID_SIZE:
            raise BoardFormatError(
                f"the board has {size} rows; at most {MAX_GRID_SIZE}×{MAX_GRID_SIZE} is allowed"
            )
        for index, row in enumerate(rows, start=1):
            if len(row) != size:
                raise BoardFormatError(
                    f"row {index} has {len(row)} squares; a {size}×{size} board needs {size}"
                )

    @property
    def grid_size(self) -> int:
        return len(self.squares)

    def __getitem__(self, cell: Cell) -> Square:
        row, col = cell
        return self.squares[row][col]

    def cells(self) -> Iterable[tuple[Cell, Square]]:
        """Every (row, col) with its square, row by row."""
        for r, row in enumerate(self.squares):
            for c, square in enumerate(row):
                yield (r, c), square

    def replace(self, cell: Cell, square: Square) -> Kingdom:
        """A copy with one square changed (kingdoms are immutable so that undo is trivial)."""
        row, col = cell
        rows = [list(r) for r in self.squares]
        rows[row][col] = square
        return Kingdom(tuple(tuple(r) for r in rows))

    @classmethod
    def empty(cls, grid_size: int = 5) -> Kingdom:
        """An N×N frame with only the castle in the middle: the start of a board entered by hand."""
        rows = [[EMPTY_SQUARE] * grid_size for _ in range(grid_size)]
        rows[grid_size // 2][grid_size // 2] = CASTLE_SQUARE
        return cls(tuple(tuple(r) for r in rows))

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[Square]]) -> Kingdom:
        return cls(tuple(tuple(r) for r in rows))

    # --- text format -------------------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str) -> Kingdom:
        """Parse the board-text format: one row per line, tokens separated by spaces, ``#`` comments."""
        rows: list[tuple[Square, ...]] = []
        width: int | None = None
        last_row_line = 0
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            tokens = line.split()
            row = tuple(Square.from_token(token, number) for token in tokens)
            if width is None:
                width = len(row)
                if width > MAX_GRID_SIZE:
                    raise BoardFormatError(
                        f"{width} squares in a row; at most {MAX_GRID_SIZE} are allowed", number, tokens[-1]
                    )
            elif len(row) != width:
                raise BoardFormatError(
                    f"ragged rows: this row has {len(row)} square{'s' if len(row) != 1 else ''}, "
                    f"the first has {width}",
                    number,
                    line,
                )
            rows.append(row)
            last_row_line = number
            if len(rows) > MAX_GRID_SIZE:
                raise BoardFormatError(f"more than {MAX_GRID_SIZE} rows", number, line)
        if not rows:
            raise BoardFormatError("the board is empty (no squares found)")
        if len(rows) != width:
            raise BoardFormatError(
                f"the board has {len(rows)} rows of {width} squares; it must be square ({width} rows)",
                last_row_line,
            )
        return cls(tuple(rows))

    def to_text(self) -> str:
        width = 2
        return (
            "\n".join(" ".join(sq.token.ljust(width) for sq in row).rstrip() for row in self.squares) + "\n"
        )

    # --- JSON format -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: object) -> Kingdom:
        """Read ``{"grid_size": N, "squares": [[{"terrain": ..., "crowns": n}, ...], ...]}``."""
        if not isinstance(data, dict) or "squares" not in data:
            raise BoardFormatError('JSON board must be an object with "squares" (rows of squares)')
        squares = data["squares"]
        if not isinstance(squares, list) or not all(isinstance(row, list) for row in squares):
            raise BoardFormatError('"squares" must be a list of rows, each a list of squares')
        if len(squares) > MAX_GRID_SIZE:
            raise BoardFormatError(f"the board has {len(squares)} rows; at most {MAX_GRID_SIZE} are allowed")
        rows = [
            tuple(Square.from_dict(sq, f"row {r + 1}, column {c + 1}: ") for c, sq in enumerate(row))
            for r, row in enumerate(squares)
        ]
        kingdom = cls(tuple(rows))
        declared = data.get("grid_size", kingdom.grid_size)
        if declared != kingdom.grid_size:
            raise BoardFormatError(
                f"grid_size says {shown_value(declared)} but the squares form {kingdom.grid_size} rows"
            )
        return kingdom

    def to_dict(self) -> dict:
        return {
            "grid_size": self.grid_size,
            "squares": [[sq.to_dict() for sq in row] for row in self.squares],
        }

    @classmethod
    def parse(cls, text: str) -> Kingdom:
        """Read either format: JSON when the text starts with ``{`` or ``[``, board text otherwise."""
        text = text.removeprefix("\ufeff")  # line numbers in errors count from the real first line
        if text.lstrip().startswith(("{", "[")):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as error:
                raise BoardFormatError(
                    f"invalid JSON: {error.msg} (column {error.colno})", error.lineno
                ) from None
            except RecursionError:
                raise BoardFormatError("invalid JSON: nested too deeply to be a board") from None
            except ValueError:  # the one other refusal of json.loads: a number of thousands of digits
                raise BoardFormatError("invalid JSON: a number far too long to be a board's") from None
            return cls.from_dict(data)
        return cls.from_text(text)
