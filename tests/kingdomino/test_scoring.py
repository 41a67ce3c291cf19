"""Scoring rules with hand-computed examples: territories, both bonuses, every warning, the JSON shape."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from kingdomino.board import CASTLE_SQUARE, EMPTY_SQUARE, Kingdom, Square, Terrain
from kingdomino.scoring import (
    is_middle_kingdom,
    occupied_extent,
    plausibility_warnings,
    score_kingdom,
    territories,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOARD = ROOT / "data" / "samples" / "sample_board.txt"
LABELS = ROOT / "data" / "real" / "labels.json"

#: Full 5×5, castle in the middle, every count within the box.
FULL_5X5 = """\
W1 W0 W0 F0 F1
W0 W0 L0 F0 F0
G2 G0 C  L1 L0
S0 S1 M2 L0 L0
S0 M0 M2 M1 L0
"""


def board(text: str) -> Kingdom:
    return Kingdom.from_text(text)


def summary(kingdom: Kingdom) -> list[tuple[str, int, int, int]]:
    """(terrain, squares, crowns, score) of every territory, in report order."""
    return [(t.terrain.value, t.squares, t.crowns, t.score) for t in territories(kingdom)]


# --- territories and base score ------------------------------------------------------------------
def test_sample_board_from_the_brief() -> None:
    kingdom = Kingdom.parse(SAMPLE_BOARD.read_text(encoding="utf-8"))
    report = score_kingdom(kingdom)
    # grassland (1,4)(2,4)(3,3)(3,4)(4,3): 5 squares × 3 crowns; forest: 7 × 2; swamp: 2 × 2;
    # grassland (0,0)(1,0)(2,0): 3 × 1; lake (3,2)(4,1)(4,2): 3 × 1; three single squares without crowns.
    assert summary(kingdom) == [
        ("grassland", 5, 3, 15),
        ("forest", 7, 2, 14),
        ("swamp", 2, 2, 4),
        ("grassland", 3, 1, 3),
        ("lake", 3, 1, 3),
        ("lake", 1, 0, 0),
        ("forest", 1, 0, 0),
        ("wheat", 1, 0, 0),
    ]
    assert report.base == report.total == 39
    assert report.crowns == 9
    assert report.largest_territory == 7
    assert report.warnings == []
    assert report.grid_size == 5


def test_sample_board_with_both_bonuses() -> None:
    report = score_kingdom(
        Kingdom.parse(SAMPLE_BOARD.read_text(encoding="utf-8")), harmony=True, middle_kingdom=True
    )
    assert report.bonuses == {"harmony": 0, "middle_kingdom": 10}  # one empty square: no Harmony
    assert report.total == 49


def test_full_kingdom_hand_computed() -> None:
    kingdom = board(FULL_5X5)
    assert summary(kingdom) == [
        ("mine", 4, 5, 20),  # (3,2)(4,1)(4,2)(4,3)
        ("wheat", 5, 1, 5),
        ("lake", 5, 1, 5),  # (2,3)(2,4)(3,3)(3,4)(4,4)
        ("forest", 4, 1, 4),
        ("grassland", 2, 2, 4),
        ("swamp", 3, 1, 3),
        ("lake", 1, 0, 0),  # (1,2) touches the other lake only through the castle's corner
    ]
    report = score_kingdom(kingdom, harmony=True, middle_kingdom=True)
    assert report.base == 41
    assert report.bonuses == {"harmony": 5, "middle_kingdom": 10}
    assert report.total == 56
    assert report.crowns == 11
    assert report.largest_territory == 5
    assert report.warnings == []


def test_diagonal_squares_are_separate_territories() -> None:
    kingdom = board("W1 F0\nF0 W1\n")
    assert sorted(summary(kingdom)) == [
        ("forest", 1, 0, 0),
        ("forest", 1, 0, 0),
        ("wheat", 1, 1, 1),
        ("wheat", 1, 1, 1),
    ]
    assert score_kingdom(kingdom).base == 2


def test_castle_and_empty_squares_split_territories_and_belong_to_none() -> None:
    kingdom = board("L1 C  L1\nL0 .  L0\nL0 L0 L0\n")
    # One lake territory wraps around the castle and the gap: 7 squares × 2 crowns.
    assert summary(kingdom) == [("lake", 7, 2, 14)]
    assert all(cell not in {(0, 1), (1, 1)} for t in territories(kingdom) for cell in t.cells)
    assert board("L1 C L1\n. . .\n. . .\n").grid_size == 3
    assert summary(board("L1 C L1\n. . .\n. . .\n")) == [("lake", 1, 1, 1), ("lake", 1, 1, 1)]


def test_a_territory_without_crowns_scores_nothing_but_counts_as_largest() -> None:
    report = score_kingdom(board("F0 F0 F0\nF0 C  W1\n.  .  .\n"))
    assert report.base == 1
    assert report.largest_territory == 4


def test_empty_frame_scores_zero() -> None:
    report = score_kingdom(Kingdom.empty(5), harmony=True, middle_kingdom=True)
    assert (report.base, report.territories, report.largest_territory, report.crowns) == (0, [], 0, 0)
    assert report.bonuses == {"harmony": 0, "middle_kingdom": 10}  # the castle alone is its own middle


# --- Harmony -------------------------------------------------------------------------------------
def test_harmony_needs_every_square_of_the_frame_filled() -> None:
    full = board(FULL_5X5)
    assert score_kingdom(full, harmony=True).bonuses["harmony"] == 5
    gap = full.replace((4, 4), EMPTY_SQUARE)
    assert score_kingdom(gap, harmony=True).bonuses["harmony"] == 0


def test_bonuses_are_off_by_default() -> None:
    report = score_kingdom(board(FULL_5X5))
    assert report.bonuses == {"harmony": 0, "middle_kingdom": 0}
    assert report.total == report.base == 41


def test_harmony_on_seven_by_seven() -> None:
    full = Kingdom.from_rows([[Square(Terrain.FOREST, 0)] * 7 for _ in range(7)]).replace(
        (3, 3), CASTLE_SQUARE
    )
    assert score_kingdom(full, harmony=True).bonuses["harmony"] == 5
    # A 5×5 kingdom entered on a 7×7 frame leaves the border empty: no Harmony on that frame.
    assert score_kingdom(_in_seven(board(FULL_5X5), 1, 1), harmony=True).bonuses["harmony"] == 0


# --- Middle Kingdom ------------------------------------------------------------------------------
def _in_seven(kingdom: Kingdom, top: int, left: int) -> Kingdom:
    """Place a kingdom inside an empty 7×7 frame with its top-left square at (top, left)."""
    rows = [[EMPTY_SQUARE] * 7 for _ in range(7)]
    for (row, col), square in kingdom.cells():
        rows[top + row][left + col] = square
    return Kingdom.from_rows(rows)


def test_middle_kingdom_on_full_five_by_five() -> None:
    full = board(FULL_5X5)
    assert score_kingdom(full, middle_kingdom=True).bonuses["middle_kingdom"] == 10
    moved = full.replace((2, 2), Square(Terrain.LAKE, 0)).replace((2, 1), CASTLE_SQUARE)
    assert score_kingdom(moved, middle_kingdom=True).bonuses["middle_kingdom"] == 0


def test_middle_kingdom_on_seven_by_seven() -> None:
    full = Kingdom.from_rows([[Square(Terrain.LAKE, 1)] * 7 for _ in range(7)])
    assert (
        score_kingdom(full.replace((3, 3), CASTLE_SQUARE), middle_kingdom=True).bonuses["middle_kingdom"]
        == 10
    )
    assert (
        score_kingdom(full.replace((3, 2), CASTLE_SQUARE), middle_kingdom=True).bonuses["middle_kingdom"] == 0
    )
    # A 5×5 kingdom in the corner of a 7×7 frame: judged on what was built, the castle is in its middle.
    corner = _in_seven(board(FULL_5X5), 0, 0)
    assert occupied_extent(corner) == (0, 4, 0, 4)
    assert score_kingdom(corner, middle_kingdom=True).bonuses["middle_kingdom"] == 10


def test_middle_kingdom_on_incomplete_kingdoms_uses_the_bounding_box() -> None:
    # Built 3×3 around a castle that is not in the frame's middle: the kingdom is still centred.
    centred = board(". W0 W0 W0 .\n. W0 C  W0 .\n. W0 W0 W1 .\n. . . . .\n. . . . .\n")
    assert occupied_extent(centred) == (0, 2, 1, 3)
    assert is_middle_kingdom(centred)
    # Castle in the frame's middle, but everything built above it: 2 rows above, 0 below.
    lopsided = board(". . W0 . .\n. . W0 . .\n. . C . .\n. . . . .\n. . . . .\n")
    assert not is_middle_kingdom(lopsided)
    # One square more on the left than on the right.
    wide = board(". . . . .\n. . . . .\nW0 W0 C W0 .\n. . . . .\n. . . . .\n")
    assert not is_middle_kingdom(wide)
    assert score_kingdom(wide, middle_kingdom=True).bonuses["middle_kingdom"] == 0


def test_middle_kingdom_needs_exactly_one_castle() -> None:
    no_castle = board("W0 W0 W0\nW0 W1 W0\nW0 W0 W0\n")
    assert score_kingdom(no_castle, middle_kingdom=True).bonuses["middle_kingdom"] == 0
    two = board("C W0 W0\nW0 C W0\nW0 W0 W0\n")
    assert score_kingdom(two, middle_kingdom=True).bonuses["middle_kingdom"] == 0


# --- warnings ------------------------------------------------------------------------------------
def _seven(token: str) -> str:
    return "\n".join([" ".join([token] * 7)] * 7)


def test_more_squares_of_a_terrain_than_the_box_holds() -> None:
    # 7×7 of wheat with the castle: 48 wheat squares, all without crowns.
    kingdom = board(_seven("W0")).replace((3, 3), CASTLE_SQUARE)
    assert plausibility_warnings(kingdom) == [
        "48 wheat squares, but the box holds only 26",
        "48 wheat squares with no crown, but the box holds only 21",
    ]


def test_more_crowned_squares_of_a_kind_than_the_box_holds() -> None:
    kingdom = board("W1 W1 W1 W1 W1\nW1 M3 M3 . .\n. . C . .\n. . . . .\n. . . . .\n")
    assert plausibility_warnings(kingdom) == [
        "6 wheat squares with 1 crown, but the box holds only 5",
        "2 mine squares with 3 crowns, but the box holds only 1",
    ]


def test_terrain_count_warning_without_any_crowned_excess() -> None:
    # 11 swamp squares (box: 10): 6 without crowns, 2 with one, 2 with two and one more with two.
    kingdom = board("S0 S0 S0 S0 S0\nS0 S1 S1 S2 S2\nS2 . C . .\n. . . . .\n. . . . .\n")
    assert plausibility_warnings(kingdom) == [
        "11 swamp squares, but the box holds only 10",
        "3 swamp squares with 2 crowns, but the box holds only 2",
    ]


AT = "the {0} square at row 1, column 1 has {1}; {0} squares never carry "


@pytest.mark.parametrize(
    ("square", "message"),
    [
        (Square(Terrain.WHEAT, 2), AT.format("wheat", "2 crowns") + "more than 1"),
        (Square(Terrain.FOREST, 3), AT.format("forest", "3 crowns") + "more than 1"),
        (Square(Terrain.LAKE, 2), AT.format("lake", "2 crowns") + "more than 1"),
        (Square(Terrain.GRASSLAND, 3), AT.format("grassland", "3 crowns") + "more than 2"),
        (Square(Terrain.SWAMP, 3), AT.format("swamp", "3 crowns") + "more than 2"),
        (Square(Terrain.CASTLE, 1), AT.format("castle", "1 crown") + "a crown"),
        (Square(Terrain.EMPTY, 2), AT.format("empty", "2 crowns") + "a crown"),
    ],
)
def test_crown_count_a_terrain_never_carries(square: Square, message: str) -> None:
    kingdom = Kingdom.empty(3).replace((0, 0), square)
    if square.terrain is Terrain.CASTLE:
        kingdom = kingdom.replace((1, 1), EMPTY_SQUARE)
    assert plausibility_warnings(kingdom) == [message]


def test_highest_legal_crowns_give_no_warning() -> None:
    kingdom = board("W1 F1 L1\nG2 C S2\nM3 . .\n")
    assert plausibility_warnings(kingdom) == []


def test_castle_crown_is_not_counted_in_the_score() -> None:
    kingdom = Kingdom.empty(3).replace((1, 1), Square(Terrain.CASTLE, 1))
    report = score_kingdom(kingdom)
    assert (report.total, report.crowns) == (0, 0)
    assert len(report.warnings) == 1


def test_no_castle_warning() -> None:
    assert plausibility_warnings(board("W0 W0\nW0 W0\n")) == [
        "no castle: every kingdom starts from one castle square"
    ]


def test_two_castles_warning() -> None:
    assert plausibility_warnings(board("C W0\nW0 C\n")) == [
        "2 castles (row 1, column 1; row 2, column 2): a kingdom has exactly one"
    ]


def test_kingdom_larger_than_the_standard_game_allows() -> None:
    six = board("\n".join(["W0 F0 L0 G0 S0 W0"] * 6)).replace((2, 2), CASTLE_SQUARE)
    assert plausibility_warnings(six) == [
        "the kingdom spans 6×6 squares, larger than the 5×5 the standard game allows "
        "(only Mighty Duel builds 7×7, entered on a 7×7 board)"
    ]
    wide = board("\n".join(["W0 F0 L0 G0 S0 W0", ". . C . . .", *([". . . . . ."] * 4)]))
    assert plausibility_warnings(wide) == [
        "the kingdom spans 2×6 squares, larger than the 5×5 the standard game allows "
        "(only Mighty Duel builds 7×7, entered on a 7×7 board)"
    ]


def test_frame_within_the_variant_gives_no_warning() -> None:
    # A 5×5 kingdom on a spare 6×6 frame, a full 5×5, and a full Mighty Duel 7×7 frame.
    spare = board("\n".join([row + " ." for row in FULL_5X5.splitlines()] + [". . . . . ."]))
    assert plausibility_warnings(spare) == []
    assert plausibility_warnings(board(FULL_5X5)) == []
    duel = board("\n".join(["W0 F0 L0 G0 W0 F0 W0"] * 7)).replace((3, 3), CASTLE_SQUARE)
    assert plausibility_warnings(duel) == []


def test_warnings_never_change_the_score() -> None:
    kingdom = board("W1 W1 W1\nW1 W1 W1\nW1 W1 W1\n")  # 9 crowned wheat, no castle
    report = score_kingdom(kingdom, harmony=True, middle_kingdom=True)
    assert report.base == 81
    assert report.bonuses == {"harmony": 5, "middle_kingdom": 0}
    assert len(report.warnings) == 2


# --- the JSON object -----------------------------------------------------------------------------
def test_to_dict_is_the_documented_json_object() -> None:
    report = score_kingdom(board("W1 C\n. W0\n"), harmony=True, middle_kingdom=True)
    data = json.loads(json.dumps(report.to_dict()))
    assert data == {
        "total": 1,
        "base": 1,
        "bonuses": {"harmony": 0, "middle_kingdom": 0},
        "options": {"harmony": True, "middle_kingdom": True},
        "territories": [
            {"terrain": "wheat", "squares": 1, "crowns": 1, "score": 1, "cells": [[0, 0]]},
            {"terrain": "wheat", "squares": 1, "crowns": 0, "score": 0, "cells": [[1, 1]]},
        ],
        "largest_territory": 1,
        "crowns": 1,
        "warnings": [],
        "grid_size": 2,
    }


# --- the real labelled boards ----------------------------------------------------------------------
@functools.cache
def _labelled_boards() -> dict[str, dict]:
    return json.loads(LABELS.read_text(encoding="utf-8"))["boards"]


@pytest.mark.parametrize("name", sorted(_labelled_boards(), key=lambda n: int(n.split(".")[0])))
def test_real_board_scores_match_the_dataset_references(name: str) -> None:
    entry = _labelled_boards()[name]
    kingdom = Kingdom.from_dict({"grid_size": entry["grid_size"], "squares": entry["grid"]})
    expected = entry["score"]
    report = score_kingdom(kingdom, harmony=True, middle_kingdom=True)
    assert report.base == expected["base"]
    assert (report.bonuses["middle_kingdom"] == 10) is expected["middle_kingdom"]
    assert (report.bonuses["harmony"] == 5) is expected["harmony"]
    assert report.total == expected["with_bonuses"]
    assert report.warnings == []
