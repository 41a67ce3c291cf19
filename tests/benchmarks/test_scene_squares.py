"""Scene squares for training: training kingdoms only, seeds apart from the bench, the scanner's cut."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

import benchmarks.scene_squares as scene_squares
from benchmarks.bench_model import DATA_DIR, HELD_OUT_KINGDOMS, held_out_source_photos, outside_held_out
from benchmarks.hard import SPLITS
from benchmarks.hard_scenes import CONDITIONS, generate_hard_scene
from benchmarks.scene_squares import (
    CASTLE_SCENES_FROM,
    SCENE_SEEDS,
    TILED_SEEDS,
    mosaic,
    scanner_squares,
    square_groups,
    tiled_grid_size,
    training_boards,
    training_tiles,
)
from kingdomino.board import Terrain
from model.features import SIDE, normalise_crops
from model.training.dataset import SCENE_DIR, SCENE_LABELS, load_scene_squares
from scanner.geometry import upright_rotation


def test_training_scenes_never_show_a_held_out_kingdom_nor_use_a_bench_seed():
    boards = json.loads((DATA_DIR / "labels.json").read_text(encoding="utf-8"))["boards"]
    names = training_boards()
    assert names and not any(boards[name]["kingdom_id"] in HELD_OUT_KINGDOMS for name in names)
    assert not set(SCENE_SEEDS) & set().union(*SPLITS.values())
    assert not set(TILED_SEEDS) & set().union(*SPLITS.values()) and not set(TILED_SEEDS) & set(SCENE_SEEDS)


@pytest.mark.skipif(not (SCENE_DIR / SCENE_LABELS).is_file(), reason="no scene squares in this data")
def test_the_shipped_scene_squares_are_of_training_kingdoms_and_seeds_only():
    scenes = json.loads((SCENE_DIR / SCENE_LABELS).read_text(encoding="utf-8"))["scenes"]
    assert scenes and all(entry["kingdom_id"] not in HELD_OUT_KINGDOMS for entry in scenes.values())
    assert {entry["seed"] for entry in scenes.values()} <= set(SCENE_SEEDS) | set(TILED_SEEDS)
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


def test_the_training_tiles_leave_out_every_source_photo_a_bench_holds_out():
    pool = training_tiles()
    held = set(held_out_source_photos())
    assert held >= set(outside_held_out().source_photos) and held
    used = {photo for tiles in pool.tiles.values() for _, _, photo in tiles}
    assert used and not used & held and pool.excluded == frozenset(held)
    assert set(pool.tiles) == {terrain.value for terrain in Terrain if terrain != Terrain.EMPTY}


@pytest.mark.parametrize("seed", [TILED_SEEDS[0], TILED_SEEDS[1]])
def test_a_tiled_scene_groups_each_square_with_its_tiles_source_photo(seed):
    pool = training_tiles()
    scene = generate_hard_scene(
        seed,
        boards=training_boards(),
        grid_size=tiled_grid_size(seed),
        size=(1200, 900),
        jpeg=False,
        overrides={"castle": True},
        tiles=pool,
    )
    n = scene.kingdom.grid_size
    assert n == tiled_grid_size(seed) and scene.kingdom[n // 2, n // 2].terrain == Terrain.CASTLE
    photos = scene.params["tile_photos"]
    held = set(held_out_source_photos())
    assert len(photos) == n and not {photo for row in photos for photo in row} & held
    groups = square_groups(scene)
    upright, _ = scene.upright()
    turns = upright_rotation(scene.corners)
    expected = np.rot90(np.array([[f"photo-{p}" for p in row] for row in photos], dtype=object), turns)
    for (r, c), square in upright.cells():
        assert groups[r][c].startswith("photo-") and groups[r][c][6:] not in held
        if square.terrain != Terrain.EMPTY:
            assert groups[r][c] == expected[r, c]


def test_a_board_scene_has_no_square_groups_of_its_own():
    scene = generate_hard_scene(SCENE_SEEDS[0], boards=training_boards(), size=(1200, 900), jpeg=False)
    assert square_groups(scene) is None


@pytest.mark.skipif(not (SCENE_DIR / SCENE_LABELS).is_file(), reason="no scene squares in this data")
def test_the_shipped_tiled_scenes_use_training_tiles_in_both_sizes_and_every_condition_class():
    scenes = json.loads((SCENE_DIR / SCENE_LABELS).read_text(encoding="utf-8"))["scenes"]
    tiled = [entry for entry in scenes.values() if entry["seed"] in TILED_SEEDS]
    held = {f"photo-{photo}" for photo in held_out_source_photos()}
    assert tiled and all(entry["kingdom_id"] == "tiled" and entry["castle_model"] for entry in tiled)
    assert {len(entry["grid"]) for entry in tiled} == {5, 7}
    assert {entry["condition"] for entry in tiled} == set(CONDITIONS)
    groups = {group for entry in tiled for row in entry["groups"] for group in row}
    assert groups and not groups & held and all(group.startswith("photo-") for group in groups)


@pytest.mark.slow
def test_the_shipped_scene_squares_are_what_the_scanner_s_cut_makes_of_their_scenes_today(tmp_path):
    """The committed squares drift from the scanner when its cut changes (a deconvolution, the full-resolution
    part) and nobody regenerates them: three scenes generated again (a smeared one, a small one, a tiled
    one) must give the committed squares."""
    names = ("scene-300019.jpg", "scene-300004.jpg", "scene-301003.jpg")
    labels = json.loads((SCENE_DIR / SCENE_LABELS).read_text(encoding="utf-8"))
    others = {name: entry for name, entry in labels["scenes"].items() if name not in names}
    (tmp_path / SCENE_LABELS).write_text(json.dumps({"scenes": others}), encoding="utf-8")
    scene_squares.write_scene_squares(tmp_path, verbose=False)  # only the scenes its labels lack
    again = json.loads((tmp_path / SCENE_LABELS).read_text(encoding="utf-8"))["scenes"]
    for name in names:
        assert again[name] == labels["scenes"][name]
        made = cv2.imread(str(tmp_path / name), cv2.IMREAD_COLOR).astype(float)
        shipped = cv2.imread(str(SCENE_DIR / name), cv2.IMREAD_COLOR).astype(float)
        assert np.abs(made - shipped).mean() < 1.0, name
