"""The outside check's hard tables (benchmarks/outside/hard.py): every condition class is deterministic,
its truth fits the photo, and the cardboard castle stands on its square and leans away from the camera."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
import pytest

from benchmarks.outside import hard
from kingdomino.board import Kingdom, Square
from kingdomino.scoring import score_kingdom

SMALL = {"size": (800, 600), "px": 70}  # small photos keep every class to a fraction of a second


def photo(jpeg: bytes) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)


@pytest.mark.parametrize("cls", hard.CLASSES)
def test_every_condition_class_is_the_same_photo_and_truth_every_time(cls: str) -> None:
    seed = hard.SPLITS["dev"] + hard.CLASSES.index(cls)
    first, truth = hard.generate(seed, **SMALL)
    again, truth_again = hard.generate(seed, **SMALL)
    assert hashlib.sha256(first).digest() == hashlib.sha256(again).digest() and truth == truth_again
    conditions = truth["conditions"]
    assert conditions["hard"] and conditions["hard_class"] == cls
    assert f"{truth['grid_size']}x{truth['grid_size']}" in conditions["hard_tags"]
    kingdom = Kingdom.from_rows([[Square.from_dict(square) for square in row] for row in truth["grid"]])
    assert truth["base_score"] == score_kingdom(kingdom).base
    height, width = photo(first).shape[:2]
    corners = np.array(truth["corners"])
    assert ((corners >= 0) & (corners <= [width, height])).all()


def test_the_class_of_a_seed_decides_its_condition() -> None:
    mat = hard.generate(hard.SPLITS["dev"] + hard.CLASSES.index("cutting_mat"), **SMALL)[1]["conditions"]
    assert mat["mat"] == "cutting_mat" and mat["sheet"]["kind"] == "cutting_mat"
    grid = hard.generate(hard.SPLITS["dev"] + hard.CLASSES.index("printed_grid"), **SMALL)[1]["conditions"]
    assert grid["sheet"]["kind"] == "printed_grid"
    cloth = hard.generate(hard.SPLITS["dev"] + hard.CLASSES.index("patterned_cloth"), **SMALL)[1]
    assert cloth["conditions"]["empty_squares"] >= 2 and "patterned_table" in cloth["conditions"]["hard_tags"]
    blur = hard.generate(hard.SPLITS["dev"] + hard.CLASSES.index("motion_blur"), **SMALL)[1]["conditions"]
    assert 10 <= blur["blur_px"] <= 40 and blur["blur"] == f"motion:{blur['blur_px']}"
    edge = hard.generate(hard.SPLITS["dev"] + hard.CLASSES.index("edge_neighbour"), size=(1200, 900))[1]
    assert edge["conditions"]["edge_objects"]
    assert all(0 < thing["visible"] < 1 for thing in edge["conditions"]["edge_objects"])  # cut by the edge


def test_seven_by_seven_kingdoms_come_in_every_class() -> None:
    for cls in hard.CLASSES:
        sizes = {
            hard.HardScene(hard.SPLITS["dev"] + hard.CLASSES.index(cls) + 9 * k).grid_size for k in range(5)
        }
        assert sizes == {5, 7}, cls


def test_hard_kingdoms_are_built_from_the_held_out_kingdoms_only() -> None:
    boards, tiles = set(hard.holdout_boards()), hard.holdout_tiles()
    assert len(boards) == 15 and tiles
    for seed in range(hard.SPLITS["dev"], hard.SPLITS["dev"] + 18):
        scene = hard.HardScene(seed)
        mode, kingdom = scene.kingdom(np.random.default_rng(seed))
        assert set(kingdom["info"].get("boards", [])) <= boards, mode
        assert kingdom["n"] == scene.grid_size


def test_the_castle_stands_on_its_square_and_leans_away_from_the_camera() -> None:
    seed = hard.SPLITS["dev"]
    jpeg, truth = hard.generate(
        seed,
        cls="castle_tilted",
        size=(1200, 900),
        tilt=40.0,
        px=120,
        grid_size=5,
        castle=True,
        light="neutral",
    )
    castle = truth["conditions"]["castle3d"]
    row, col = castle["cell"]
    assert truth["grid"][row][col]["terrain"] == "castle"
    assert "castle_on_tilted" in truth["conditions"]["hard_tags"]
    base = np.array([col + 0.5, row + 0.5])
    top, camera = np.array(castle["top_grid"]), np.array(castle["camera_grid"])
    assert castle["lean_squares"] > 0.4  # a tall castle seen at 40 degrees covers part of the next square
    assert (top - base) @ (base - camera) > 0  # away from the camera, not towards it
    away = base - camera
    step = (0, int(np.sign(away[0]))) if abs(away[0]) > abs(away[1]) else (int(np.sign(away[1])), 0)
    assert [row + step[0], col + step[1]] in castle["overhangs"]  # over the next square away from the camera
    image = photo(jpeg)
    x, y = np.round(castle["top_px"]).astype(int)
    patch = image[y - 2 : y + 3, x - 2 : x + 3].reshape(-1, 3).mean(0)
    base_x, base_y = np.round(castle["base_px"]).astype(int)
    assert abs(y - base_y) + abs(x - base_x) > 20  # the top is drawn well away from the base
    hue = cv2.cvtColor(np.uint8([[patch]]), cv2.COLOR_BGR2HSV)[0, 0, 0]
    painted = cv2.cvtColor(np.uint8([[hard.PLAYER_COLOURS[castle["colour"]]]]), cv2.COLOR_BGR2HSV)[0, 0, 0]
    assert min(abs(int(hue) - int(painted)), 180 - abs(int(hue) - int(painted))) <= 12  # the castle's paint


def test_a_castle_seen_from_overhead_stays_on_its_square() -> None:
    truth = hard.generate(
        hard.SPLITS["dev"], cls="castle_tilted", size=(1200, 900), tilt=0.0, px=60, castle=True
    )[1]
    castle = truth["conditions"]["castle3d"]
    assert castle["lean_cell"] == castle["cell"] and not castle["overhangs"]


def test_a_note_on_the_frame_counts_as_a_frame_note_and_unsure_squares_do_not() -> None:
    from benchmarks.outside.run import frame_noted

    class Result:
        pass

    assert frame_noted(Result(), ["the grid may be misplaced: check the corners"])
    assert frame_noted(
        Result(), ["more than one kingdom was seen in the photo; the most central one was scanned"]
    )
    assert not frame_noted(Result(), ["many squares were read unsure: check every square"])
    typed = Result()
    typed.frame_unsure = True
    assert frame_noted(typed, [])


def test_the_hard_figures_count_frames_refusals_and_squares() -> None:
    from benchmarks.outside.summarize import hard_figures

    def row(outcome, **fields):
        base = {"outcome": outcome, "located": outcome in ("ok", "misread"), "exact_score": outcome == "ok",
                "truth_grid_size": 5, "scan_seconds": 1.0, "scan_cpu_seconds": 0.5}  # fmt: skip
        return {**base, **fields}

    rows = [
        row("ok", squares_wrong=0, wrong_unflagged=0, flagged_total=1, path="fast"),
        row("misread", squares_wrong=2, wrong_unflagged=1, flagged_total=3, path="fast"),
        row("not_located", frame_note=False),
        row("wrong_grid_size", frame_note=True),
        row("error"),
    ]
    figures = hard_figures(rows)
    assert (
        figures["photos"],
        figures["located"],
        figures["wrong_frame"],
        figures["wrong_frame_unnoted"],
    ) == (5, 2, 2, 1)
    assert figures["refused"] == 1 and figures["exact_among_located"] == 1
    assert (figures["misread"], figures["misread_unflagged"], figures["squares_located"]) == (2, 1, 50)
    assert figures["flagged_pct"] == 8.0 and figures["paths"] == {"fast": 2}


def test_misread_squares_are_put_down_to_what_stands_on_them_in_the_scans_frame() -> None:
    from benchmarks.outside.summarize import cause_figures, misread_causes

    def wrong(cell, truth, read, flagged=True):
        return {"cell": cell, "truth": truth, "read": read, "flagged": flagged}

    conditions = {
        "meeples": [{"colour": "blue", "cell": [0, 1]}, {"colour": "pink", "beside": 2}],
        "castle3d": {"cell": [2, 2], "overhangs": [[1, 2]]},
    }
    # the scan's frame is the generated one turned once (np.rot90): generated (0, 1) is scanned at (3, 0)
    photo = {
        "located": True,
        "exact_score": False,
        "grid_size": 5,
        "turns": 1,
        "conditions": conditions,
        "wrong_squares": [
            wrong([3, 0], "grassland:0", "wheat:0", flagged=False),  # under the meeple
            wrong([2, 2], "castle:0", "lake:0", flagged=False),  # the castle's square
            wrong([2, 1], "forest:0", "castle:0"),  # read as the castle (under its top too)
            wrong([4, 4], "empty:0", "wheat:0"),
            wrong([0, 4], "mine:3", "mine:2"),
            wrong([4, 0], "grassland:0", "wheat:0"),
        ],
    }
    causes = [c["cause"] for c in misread_causes(photo)]
    assert causes == [
        "meeple on the square",
        "the castle's square",
        "read as the castle",
        "table",
        "crowns",
        "terrain",
    ]
    # generated (1, 2), under the castle's top, is scanned at (2, 1)
    under = {**photo, "wrong_squares": [wrong([2, 1], "forest:0", "forest:1")]}
    assert [c["cause"] for c in misread_causes(under)] == ["under the castle's top"]
    alone = {**photo, "wrong_squares": [wrong([3, 0], "grassland:0", "wheat:0", flagged=False)]}
    figures = cause_figures([photo, alone, {"located": False}])
    assert figures["meeple on the square"] == {"squares": 2, "unflagged": 2, "photos": 2, "lost_alone": 1}
    assert figures["the castle's square"]["unflagged"] == 1 and figures["crowns"]["lost_alone"] == 0
