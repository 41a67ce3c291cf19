"""The 48 dominoes of the Kingdomino box, by their printed numbers.

Used by the scoring engine's plausibility warnings (no kingdom holds more of a kind of square than
the box) and by the joint decoder (every non-castle square is half of a distinct domino).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kingdomino.board import Square, Terrain

W, F, L, G, S, M = (
    Terrain.WHEAT,
    Terrain.FOREST,
    Terrain.LAKE,
    Terrain.GRASSLAND,
    Terrain.SWAMP,
    Terrain.MINE,
)


@dataclass(frozen=True, slots=True)
class Domino:
    """A domino: its number (1-48, printed on the back) and its two halves."""

    number: int
    first: Square
    second: Square

    @property
    def halves(self) -> tuple[Square, Square]:
        return (self.first, self.second)

    @property
    def crowns(self) -> int:
        return self.first.crowns + self.second.crowns


def _d(number: int, first: Terrain, first_crowns: int, second: Terrain, second_crowns: int) -> Domino:
    return Domino(number, Square(first, first_crowns), Square(second, second_crowns))


#: The box, in number order. Higher numbers are rarer terrains and more crowns.
DOMINOES: tuple[Domino, ...] = (
    _d(1, W, 0, W, 0), _d(2, W, 0, W, 0), _d(3, F, 0, F, 0), _d(4, F, 0, F, 0),
    _d(5, F, 0, F, 0), _d(6, F, 0, F, 0), _d(7, L, 0, L, 0), _d(8, L, 0, L, 0),
    _d(9, L, 0, L, 0), _d(10, G, 0, G, 0), _d(11, G, 0, G, 0), _d(12, S, 0, S, 0),
    _d(13, W, 0, F, 0), _d(14, W, 0, L, 0), _d(15, W, 0, G, 0), _d(16, W, 0, S, 0),
    _d(17, F, 0, L, 0), _d(18, F, 0, G, 0), _d(19, W, 1, F, 0), _d(20, W, 1, L, 0),
    _d(21, W, 1, G, 0), _d(22, W, 1, S, 0), _d(23, W, 1, M, 0), _d(24, F, 1, W, 0),
    _d(25, F, 1, W, 0), _d(26, F, 1, W, 0), _d(27, F, 1, W, 0), _d(28, F, 1, L, 0),
    _d(29, F, 1, G, 0), _d(30, L, 1, W, 0), _d(31, L, 1, W, 0), _d(32, L, 1, F, 0),
    _d(33, L, 1, F, 0), _d(34, L, 1, F, 0), _d(35, L, 1, F, 0), _d(36, W, 0, G, 1),
    _d(37, L, 0, G, 1), _d(38, W, 0, S, 1), _d(39, G, 0, S, 1), _d(40, M, 1, W, 0),
    _d(41, W, 0, G, 2), _d(42, L, 0, G, 2), _d(43, W, 0, S, 2), _d(44, G, 0, S, 2),
    _d(45, M, 2, W, 0), _d(46, S, 0, M, 2), _d(47, S, 0, M, 2), _d(48, W, 0, M, 3),
)  # fmt: skip

#: How many squares of each (terrain, crowns) kind the box holds.
BOX_SQUARE_COUNTS: Counter[Square] = Counter(half for domino in DOMINOES for half in domino.halves)

#: How many squares of each terrain the box holds, whatever their crowns.
BOX_TERRAIN_COUNTS: Counter[Terrain] = Counter(square.terrain for square in BOX_SQUARE_COUNTS.elements())
