"""Score one kingdom exactly: territories, the two optional bonuses, and plausibility warnings.

Pure Python, shared by the CLI, the photo scanner and the Streamlit page, so that every place that
shows a score shows the same one. Warnings never change the score: a board that cannot exist with
the real box (too many squares of a kind, a crown count no tile carries, no castle) is scored as
given and the warning tells the player what to check.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kingdomino.board import LAND_TERRAINS, MAX_CROWNS, Cell, Kingdom, Square, Terrain
from kingdomino.dominoes import BOX_SQUARE_COUNTS, BOX_TERRAIN_COUNTS

HARMONY_BONUS = 5
MIDDLE_KINGDOM_BONUS = 10

#: Largest kingdom side each variant allows: the standard game builds 5×5, Mighty Duel 7×7.
STANDARD_SIDE = 5
MIGHTY_DUEL_SIDE = 7


@dataclass(frozen=True)
class Territory:
    """A 4-connected group of squares of one terrain; it scores squares × crowns."""

    terrain: Terrain
    cells: list[Cell]
    crowns: int

    @property
    def squares(self) -> int:
        return len(self.cells)

    @property
    def score(self) -> int:
        return self.squares * self.crowns

    def to_dict(self) -> dict:
        return {
            "terrain": self.terrain.value,
            "squares": self.squares,
            "crowns": self.crowns,
            "score": self.score,
            "cells": [[row, col] for row, col in self.cells],
        }


@dataclass(frozen=True)
class ScoreReport:
    """The score of one kingdom and how it was reached; ``to_dict`` is the ``score --json`` object."""

    total: int
    base: int
    bonuses: dict[str, int]
    territories: list[Territory]
    largest_territory: int
    crowns: int
    warnings: list[str]
    grid_size: int
    options: dict[str, bool] = field(default_factory=lambda: {"harmony": False, "middle_kingdom": False})

    def to_dict(self) -> dict:
        return {
            "total": self.total,
            "base": self.base,
            "bonuses": dict(self.bonuses),
            "options": dict(self.options),
            "territories": [territory.to_dict() for territory in self.territories],
            "largest_territory": self.largest_territory,
            "crowns": self.crowns,
            "warnings": list(self.warnings),
            "grid_size": self.grid_size,
        }


def territories(kingdom: Kingdom) -> list[Territory]:
    """Every territory of the kingdom, highest score first (then largest, then top-left first)."""
    size = kingdom.grid_size
    seen: set[Cell] = set()
    found: list[Territory] = []
    for start, square in kingdom.cells():
        if start in seen or not square.terrain.is_land:
            continue
        seen.add(start)
        stack, cells = [start], []
        while stack:
            row, col = stack.pop()
            cells.append((row, col))
            for neighbour in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                r, c = neighbour
                if 0 <= r < size and 0 <= c < size and neighbour not in seen:
                    if kingdom[neighbour].terrain is square.terrain:
                        seen.add(neighbour)
                        stack.append(neighbour)
        cells.sort()
        found.append(Territory(square.terrain, cells, sum(kingdom[cell].crowns for cell in cells)))
    found.sort(key=lambda t: (-t.score, -t.squares, t.cells[0]))
    return found


def occupied_extent(kingdom: Kingdom) -> tuple[int, int, int, int] | None:
    """Bounding box (top, bottom, left, right) of every non-empty square, castle included; None if none."""
    cells = [cell for cell, square in kingdom.cells() if square.terrain is not Terrain.EMPTY]
    if not cells:
        return None
    rows = [row for row, _ in cells]
    cols = [col for _, col in cells]
    return min(rows), max(rows), min(cols), max(cols)


def castle_cells(kingdom: Kingdom) -> list[Cell]:
    return [cell for cell, square in kingdom.cells() if square.terrain is Terrain.CASTLE]


def is_harmony(kingdom: Kingdom) -> bool:
    """Harmony: the whole N×N frame is filled, no empty square."""
    return all(square.terrain is not Terrain.EMPTY for _, square in kingdom.cells())


def is_middle_kingdom(kingdom: Kingdom) -> bool:
    """Middle Kingdom: the one castle has as many occupied rows above as below and columns left as right.

    Measured on the bounding box of the non-empty squares, not on the frame, so that an incomplete
    kingdom or one entered off-centre in a larger frame is judged by what was actually built.
    With no castle or two castles there is no middle to speak of, so the bonus is not given.
    """
    castles = castle_cells(kingdom)
    extent = occupied_extent(kingdom)
    if len(castles) != 1 or extent is None:
        return False
    (row, col), (top, bottom, left, right) = castles[0], extent
    return row - top == bottom - row and col - left == right - col


def _where(cell: Cell) -> str:
    """A cell in plain words, counted from 1 at the top left as a player would count."""
    return f"row {cell[0] + 1}, column {cell[1] + 1}"


def _crowns_phrase(crowns: int) -> str:
    return "no crown" if crowns == 0 else f"{crowns} crown" + ("s" if crowns > 1 else "")


def plausibility_warnings(kingdom: Kingdom) -> list[str]:
    """Everything about the board that the real box or the rules make impossible, in plain words."""
    warnings: list[str] = []
    warnings += _crown_limit_warnings(kingdom)
    warnings += _box_count_warnings(kingdom)
    warnings += _castle_warnings(kingdom)
    warnings += _frame_warnings(kingdom)
    return warnings


def _crown_limit_warnings(kingdom: Kingdom) -> list[str]:
    warnings = []
    for cell, square in kingdom.cells():
        limit = MAX_CROWNS[square.terrain]
        if square.crowns > limit:
            never = "never carry a crown" if limit == 0 else f"never carry more than {limit}"
            warnings.append(
                f"the {square.terrain.value} square at {_where(cell)} has {_crowns_phrase(square.crowns)}; "
                f"{square.terrain.value} squares {never}"
            )
    return warnings


def _box_count_warnings(kingdom: Kingdom) -> list[str]:
    warnings = []
    land = [square for _, square in kingdom.cells() if square.terrain.is_land]
    by_terrain = Counter(square.terrain for square in land)
    by_kind = Counter(land)
    for terrain in LAND_TERRAINS:
        if by_terrain[terrain] > BOX_TERRAIN_COUNTS[terrain]:
            warnings.append(
                f"{by_terrain[terrain]} {terrain.value} squares, but the box holds only "
                f"{BOX_TERRAIN_COUNTS[terrain]}"
            )
        for crowns in range(MAX_CROWNS[terrain] + 1):
            count, box = by_kind[Square(terrain, crowns)], BOX_SQUARE_COUNTS[Square(terrain, crowns)]
            if count > box:
                warnings.append(
                    f"{count} {terrain.value} squares with {_crowns_phrase(crowns)}, "
                    f"but the box holds only {box}"
                )
    return warnings


def _castle_warnings(kingdom: Kingdom) -> list[str]:
    castles = castle_cells(kingdom)
    if not castles:
        return ["no castle: every kingdom starts from one castle square"]
    if len(castles) > 1:
        places = "; ".join(_where(cell) for cell in castles)
        return [f"{len(castles)} castles ({places}): a kingdom has exactly one"]
    return []


def _frame_warnings(kingdom: Kingdom) -> list[str]:
    """The kingdom may span at most 5×5 (standard), or 7×7 when it is entered on a 7×7 frame (Mighty Duel)."""
    extent = occupied_extent(kingdom)
    if extent is None:
        return []
    top, bottom, left, right = extent
    rows, cols = bottom - top + 1, right - left + 1
    if kingdom.grid_size == MIGHTY_DUEL_SIDE or max(rows, cols) <= STANDARD_SIDE:
        return []
    return [
        f"the kingdom spans {rows}×{cols} squares, larger than the {STANDARD_SIDE}×{STANDARD_SIDE} "
        f"the standard game allows (only Mighty Duel builds {MIGHTY_DUEL_SIDE}×{MIGHTY_DUEL_SIDE}, "
        f"entered on a {MIGHTY_DUEL_SIDE}×{MIGHTY_DUEL_SIDE} board)"
    ]


def score_kingdom(kingdom: Kingdom, harmony: bool = False, middle_kingdom: bool = False) -> ScoreReport:
    """Score a kingdom; ``harmony`` and ``middle_kingdom`` switch on the optional bonus rules."""
    found = territories(kingdom)
    base = sum(territory.score for territory in found)
    bonuses = {
        "harmony": HARMONY_BONUS if harmony and is_harmony(kingdom) else 0,
        "middle_kingdom": MIDDLE_KINGDOM_BONUS if middle_kingdom and is_middle_kingdom(kingdom) else 0,
    }
    return ScoreReport(
        total=base + sum(bonuses.values()),
        base=base,
        bonuses=bonuses,
        territories=found,
        largest_territory=max((territory.squares for territory in found), default=0),
        crowns=sum(square.crowns for _, square in kingdom.cells() if square.terrain.is_land),
        warnings=plausibility_warnings(kingdom),
        grid_size=kingdom.grid_size,
        options={"harmony": harmony, "middle_kingdom": middle_kingdom},
    )
