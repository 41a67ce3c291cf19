"""Scene squares for training: training kingdoms only, seeds apart from the bench, the scanner's cut."""

from __future__ import annotations

import json

import numpy as np
import pytest

import benchmarks.scene_squares as scene_squares
from benchmarks.bench_model import DATA_DIR, HELD_OUT_KINGDOMS
from benchmarks.hard import SPLITS
from benchmarks.hard_scenes import generate_hard_scene
from benchmarks.scene_squares import (
    CASTLE_SCENES_FROM,
    SCENE_SEEDS,
    mosaic,
    scanner_squares,
    training_boards,
)
from model.features import SIDE, normalise_crops
from model.training.dataset import SCENE_DIR, SCENE_LABELS, load_scene_squares


def test_training_scenes_never_show_a_held_out_kingdom_nor_use_a_bench_seed():
    boards = json.loads((DATA_DIR / "labels.json").read_text(encoding="utf-8"))["boards"]
    names = training_boards()
    assert names and not any(boards[name]["kingdom_id"] in HELD_OUT_KINGDOMS for name in names)
    assert not set(SCENE_SEEDS) & set().union(*SPLITS.values())


@pytest.mark.skipif(not (SCENE_DIR / SCENE_LABELS).is_file(), reason="no scene squares in this data")
def test_the_shipped_scene_squares_are_of_training_kingdoms_and_seeds_only():
    scenes = json.loads((SCENE_DIR / SCENE_LABELS).read_text(encoding="utf-8"))["scenes"]
    assert scenes and all(entry["kingdom_id"] not in HELD_OUT_KINGDOMS for entry in scenes.values())
    assert {entry["seed"] for entry in scenes.values()} <= set(SCENE_SEEDS)
    squares, _ = load_scene_squares(SCENE_DIR.parent)
    assert len(squares) == sum(len(entry["grid"]) ** 2 for entry in scenes.values())


@pytest.mark.skipif(not (SCENE_DIR / SCENE_LABELS).is_file(), reason="no scene squares in this data")
def test_the_later_scenes_all_stand_the_castle_in_every_condition_class():
    scenes = json.loads((SCENE_DIR / SCENE_LABELS).read_text(encoding="utf-8"))["scenes"]
    later = [entry for entry in scenes.values() if entry["seed"] >= SCENE_SEEDS[CASTLE_SCENES_FROM]]
    with_castle = [
        entry for entry in later if any(cell["terrain"] == "castle" for row in entry["grid"] for cell in row)
    ]
    assert with_castle and all(entry["castle_model"] for entry in with_castle)
    assert {entry["condition"] for entry in with_castle} == {entry["condition"] for entry in scenes.values()}


def test_a_scene_is_cut_as_the_scanner_cuts_it_and_its_mosaic_keeps_the_squares_apart():
    scene = generate_hard_scene(SCENE_SEEDS[0], boards=training_boards(), size=(1200, 900), jpeg=False)
    crops, truth = scanner_squares(scene, np.random.default_rng(0))
    n = scene.kingdom.grid_size
    assert crops.shape == (n * n, SIDE, SIDE, 3) and len(truth) == n * n
    assert truth == [square for _, square in scene.upright()[0].cells()]
    whole = mosaic(crops, n)
    assert whole.shape == (n * SIDE, n * SIDE, 3)
    assert (whole[SIDE : 2 * SIDE, 2 * SIDE : 3 * SIDE] == crops[n + 2]).all()


def test_a_scene_s_squares_go_through_the_scanner_s_own_cut(monkeypatch):
    """scanner_squares cuts with scanner.recognizer.kingdom_cut (a smear undone, a small kingdom from the
    photo in full), so the training squares follow the scanner's reading."""
    cuts = []

    def spy(*args, **kwargs):
        cuts.append((args, kwargs, scene_squares_cut(*args, **kwargs)))
        return cuts[-1][2]

    scene_squares_cut = scene_squares.kingdom_cut
    monkeypatch.setattr(scene_squares, "kingdom_cut", spy)
    scene = generate_hard_scene(SCENE_SEEDS[0], boards=training_boards(), size=(1200, 900), jpeg=False)
    crops, _ = scanner_squares(scene, np.random.default_rng(0))
    assert len(cuts) == 1 and np.array_equal(crops, normalise_crops(cuts[0][2].crops))
    assert cuts[0][1]["full"] is None  # a photo under the scanner's decoding size is not decoded again
