"""The 48-domino table adds up to exactly the squares the physical box holds."""

from __future__ import annotations

from collections import Counter

from kingdomino.board import LAND_TERRAINS, MAX_CROWNS, Square, Terrain
from kingdomino.dominoes import BOX_SQUARE_COUNTS, BOX_TERRAIN_COUNTS, DOMINOES

T = Terrain


def test_forty_eight_dominoes_numbered_one_to_forty_eight() -> None:
    assert [domino.number for domino in DOMINOES] == list(range(1, 49))


def test_terrain_square_counts_match_the_box() -> None:
    assert dict(BOX_TERRAIN_COUNTS) == {
        T.WHEAT: 26,
        T.FOREST: 22,
        T.LAKE: 18,
        T.GRASSLAND: 14,
        T.SWAMP: 10,
        T.MINE: 6,
    }
    assert sum(BOX_TERRAIN_COUNTS.values()) == 96


def test_crowned_square_counts_match_the_box() -> None:
    crowned = {square: count for square, count in BOX_SQUARE_COUNTS.items() if square.crowns}
    assert crowned == {
        Square(T.WHEAT, 1): 5,
        Square(T.FOREST, 1): 6,
        Square(T.LAKE, 1): 6,
        Square(T.GRASSLAND, 1): 2,
        Square(T.GRASSLAND, 2): 2,
        Square(T.SWAMP, 1): 2,
        Square(T.SWAMP, 2): 2,
        Square(T.MINE, 1): 1,
        Square(T.MINE, 2): 3,
        Square(T.MINE, 3): 1,
    }


def test_no_domino_half_exceeds_its_terrains_crown_limit_or_is_castle_or_empty() -> None:
    for domino in DOMINOES:
        for half in domino.halves:
            assert half.terrain in LAND_TERRAINS
            assert half.crowns <= MAX_CROWNS[half.terrain]


def test_crowns_grow_with_the_domino_number() -> None:
    """The box is numbered by value: dominoes 1-18 have no crown, every crowned one is 19 or higher."""
    assert all(domino.crowns == 0 for domino in DOMINOES[:18])
    assert all(domino.crowns >= 1 for domino in DOMINOES[18:])
    assert Counter(domino.crowns for domino in DOMINOES) == Counter({0: 18, 1: 22, 2: 7, 3: 1})
