"""The labelled real data and the tile label corrections."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

import model.evaluation.evaluate as evaluate
from kingdomino.board import Square, Terrain
from kingdomino.labels import LABEL_INDEX
from model.features import CropViews, FeatureConfig, extract_features, normalise_crops, photo_white_point
from model.training.augment import recolour
from model.training.dataset import (
    CORRECTIONS_FILE,
    DEFAULT_DATA_DIR,
    SCENE_FOLDER,
    SCENE_LABELS,
    SCENE_SOURCE,
    TILE_SOURCE,
    LabelCorrectionError,
    SquareSet,
    board_squares,
    load_boards,
    load_scene_squares,
    load_tiles,
    tile_label_corrections,
)
from model.training.feature_table import (
    DEFAULT_PLAN,
    FeatureTable,
    _computed,
    _rows_key,
    cache_key,
    cast_free_log_colours,
    colour_swapped_copies,
    mistaken_whites,
    partial_whites,
    stage_inputs,
)
from model.training.train import main as train_main

SWAMP, SWAMP1, MINE2 = (
    LABEL_INDEX[Square(t, c)] for t, c in ((Terrain.SWAMP, 0), (Terrain.SWAMP, 1), (Terrain.MINE, 2))
)


def _data_dir(tmp_path: Path, corrections: list[dict] | None) -> Path:
    """Two tiles of the shipped data, with their labels and (optionally) a corrections file."""
    names = ["tiles_spetryk/swamp_0/IMG_4054_20.jpg", "tiles_spetryk/mine_2/IMG_4085_2.jpg"]
    shipped = json.loads((DEFAULT_DATA_DIR / "labels.json").read_text(encoding="utf-8"))
    entries = [entry for entry in shipped["tiles_spetryk"] if entry["image"] in names]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DEFAULT_DATA_DIR / name, tmp_path / name)
    (tmp_path / "labels.json").write_text(json.dumps({"boards": {}, "tiles_spetryk": entries}))
    if corrections is not None:
        (tmp_path / CORRECTIONS_FILE).write_text(json.dumps({"tiles": corrections}))
    return tmp_path


ONE_CROWN = {
    "image": "tiles_spetryk/swamp_0/IMG_4054_20.jpg",
    "terrain": "swamp",
    "crowns": 1,
    "labelled": {"terrain": "swamp", "crowns": 0},
    "why": "one crown in full view",
}


def test_corrections_replace_the_shipped_label_of_their_tile_only(tmp_path: Path):
    tiles = load_tiles(_data_dir(tmp_path, [ONE_CROWN]))
    assert dict(zip(tiles.names, tiles.labels, strict=True)) == {
        "tiles_spetryk/swamp_0/IMG_4054_20.jpg": SWAMP1,
        "tiles_spetryk/mine_2/IMG_4085_2.jpg": MINE2,
    }


def test_without_a_corrections_file_the_labels_are_as_shipped(tmp_path: Path):
    data_dir = _data_dir(tmp_path, None)
    assert tile_label_corrections(data_dir) == {}
    assert sorted(load_tiles(data_dir).labels) == sorted([SWAMP, MINE2])


def test_a_correction_of_a_label_the_tile_does_not_have_is_refused(tmp_path: Path):
    stale = dict(ONE_CROWN, labelled={"terrain": "swamp", "crowns": 2})
    with pytest.raises(LabelCorrectionError, match="IMG_4054_20.jpg is swamp 0 in labels.json, not swamp 2"):
        tile_label_corrections(_data_dir(tmp_path, [stale]))


@pytest.mark.parametrize(
    "corrections, reason",
    [
        ([dict(ONE_CROWN, image="tiles_spetryk/swamp_0/nowhere.jpg")], "nowhere.jpg is not a tile"),
        ([dict(ONE_CROWN, terrain="desert")], "desert"),
        ([{"image": ONE_CROWN["image"]}], "labelled"),
        ("not a list", "cannot be read"),
    ],
)
def test_a_correction_that_cannot_be_applied_gets_one_line_from_train(tmp_path, capsys, corrections, reason):
    data_dir = _data_dir(tmp_path, [])
    (data_dir / CORRECTIONS_FILE).write_text(json.dumps({"tiles": corrections}))
    with pytest.raises(LabelCorrectionError, match=reason):
        tile_label_corrections(data_dir)
    assert train_main(["--data", str(data_dir), "--out", str(tmp_path / "model.joblib")]) == 2
    message = capsys.readouterr().out
    assert message.startswith("python -m model.training: label_corrections.json") and message.count("\n") == 1
    assert not (tmp_path / "model.joblib").exists()


def test_the_corrections_change_the_cache_key_of_the_rows(tmp_path: Path):
    data_dir = _data_dir(tmp_path, [ONE_CROWN])
    assert _rows_key(DEFAULT_PLAN, data_dir) != _rows_key(DEFAULT_PLAN, data_dir, corrected=False)
    (data_dir / CORRECTIONS_FILE).unlink()
    assert _rows_key(DEFAULT_PLAN, data_dir) == _rows_key(DEFAULT_PLAN, data_dir, corrected=False)


def test_shipped_labels_undo_the_corrections_on_originals_and_copies(tmp_path: Path):
    data_dir = _data_dir(tmp_path, [ONE_CROWN])
    names = np.array(["tiles_spetryk/swamp_0/IMG_4054_20.jpg"] * 2 + ["tiles_spetryk/mine_2/IMG_4085_2.jpg"])
    empty = np.zeros(3)
    table = FeatureTable(
        features=empty,
        thumbs=empty,
        crown_maps=empty,
        crown_peaks=empty,
        labels=np.array([SWAMP1, SWAMP1, MINE2]),
        groups=empty,
        sources=empty,
        original=np.array([True, False, True]),
        sample=empty,
        names=names,
    )
    assert evaluate.shipped_labels(table, tile_label_corrections(data_dir)).tolist() == [SWAMP, SWAMP, MINE2]


def test_every_shipped_correction_names_a_tile_and_gives_a_reason():
    corrections = json.loads((DEFAULT_DATA_DIR / CORRECTIONS_FILE).read_text(encoding="utf-8"))["tiles"]
    assert len(tile_label_corrections()) == len(corrections) > 0
    for fix in corrections:
        assert (DEFAULT_DATA_DIR / fix["image"]).is_file()
        assert fix["why"] and (fix["terrain"], fix["crowns"]) != tuple(fix["labelled"].values())


def test_the_estimator_comparison_scores_every_cached_fit_against_both_labels(tmp_path: Path, monkeypatch):
    names = [f"1.jpg#{cell // 5},{cell % 5}" for cell in range(25)] + ["tile-a", "tile-b"]
    n = len(names)
    labels = np.r_[np.full(25, MINE2), SWAMP1, SWAMP]  # tile-a corrected from SWAMP to SWAMP1
    table = FeatureTable(
        features=np.zeros(n),
        thumbs=np.zeros(n),
        crown_maps=np.zeros(n),
        crown_peaks=np.zeros(n),
        labels=labels,
        groups=np.zeros(n),
        sources=np.array(["board"] * 25 + ["tile"] * 2),
        original=np.ones(n, bool),
        sample=np.arange(n),
        names=np.array(names),
    )
    shipped = labels.copy()
    shipped[25] = SWAMP
    rows = np.arange(n)
    monkeypatch.setattr(evaluate, "CACHE_DIR", tmp_path)
    for key, tile_a in (("new", SWAMP1), ("old", SWAMP)):
        raw = np.eye(len(LABEL_INDEX))[np.r_[labels[:25], tile_a, SWAMP]]
        np.savez(tmp_path / f"oof-{key}-mlp-5-recheck0.99-5.0.npz", rows=rows, raw=raw)
    lines = evaluate.compared_estimators(
        table, [("new", "corrected labels"), ("old", "labels as shipped")], shipped, 5
    )
    rows_of = {line.split(" | ")[1]: line for line in lines if line.startswith("| `mlp`, re-read")}
    figures = "| 100.00% | 100.00% | 1/1 | 100.00% |"
    assert rows_of["corrected labels"].endswith(f"{figures} 100.00% | 100.00% | 50.00% |")
    assert rows_of["labels as shipped"].endswith(f"{figures} 50.00% | 100.00% | 100.00% |")
    np.savez(tmp_path / "oof-new-mlp-5-recheck0.99-5.0.npz", rows=rows, raw=raw, unmatched=raw[::-1])
    lines = evaluate.compared_estimators(table, [("new", "corrected labels")], shipped, 5)
    names = [line.split(" | ")[0] for line in lines if line.startswith("| `mlp`")]
    assert names == ["| `mlp`, re-read, matched", "| `mlp`, re-read"]  # and the same folds without it


def test_the_table_computed_on_all_cores_is_the_table_computed_in_one_pass():
    crops = normalise_crops(board_squares(load_boards(DEFAULT_DATA_DIR)[0]))
    config = FeatureConfig(hog=False)
    white_points = np.tile(photo_white_point(crops), (len(crops), 1))  # the board's squares as one photo
    inputs, features, stage_seconds, feature_seconds = _computed(crops, white_points, config)
    np.testing.assert_array_equal(features, extract_features(CropViews(crops, white_points), config))
    for name, expected in stage_inputs(crops).items():
        np.testing.assert_array_equal(inputs[name], expected)
    assert stage_seconds > 0 and feature_seconds > 0


def _scene_folder(data_dir: Path) -> Path:
    """One 2×2 scene mosaic of 64 px squares (four flat colours) and its labels."""
    folder = data_dir / SCENE_FOLDER
    folder.mkdir(parents=True)
    colours = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (255, 255, 255)]
    mosaic = np.zeros((128, 128, 3), np.uint8)
    for index, colour in enumerate(colours):
        mosaic[64 * (index // 2) : 64 * (index // 2 + 1), 64 * (index % 2) : 64 * (index % 2 + 1)] = colour
    cv2.imwrite(str(folder / "scene-1.png"), mosaic)
    grid = [[{"terrain": "swamp", "crowns": 1}, {"terrain": "mine", "crowns": 2}]] * 2
    labels = {"scenes": {"scene-1.png": {"kingdom_id": "K01", "grid": grid}}}
    (folder / SCENE_LABELS).write_text(json.dumps(labels), encoding="utf-8")
    return folder


def test_scene_squares_are_cut_from_their_mosaic_and_grouped_with_their_kingdom(tmp_path: Path):
    _scene_folder(tmp_path)
    squares, photos = load_scene_squares(tmp_path)
    assert len(squares) == 4 and photos == [0, 0, 0, 0]
    assert squares.labels == [SWAMP1, MINE2, SWAMP1, MINE2]
    assert set(squares.groups) == {"kingdom-K01"} and set(squares.sources) == {SCENE_SOURCE}
    assert [tuple(image[32, 32]) for image in squares.images] == [
        (0, 0, 255),
        (0, 255, 0),
        (255, 0, 0),
        (255,) * 3,
    ]
    assert squares.names[1] == "scene-1.png#0,1"


def test_the_squares_of_a_tiled_scene_take_the_groups_its_labels_name(tmp_path: Path):
    folder = _scene_folder(tmp_path)
    labels = json.loads((folder / SCENE_LABELS).read_text(encoding="utf-8"))
    labels["scenes"]["scene-1.png"]["kingdom_id"] = "tiled"
    labels["scenes"]["scene-1.png"]["groups"] = [["photo-a", "photo-b"], ["photo-c", "photo-a"]]
    (folder / SCENE_LABELS).write_text(json.dumps(labels), encoding="utf-8")
    squares, photos = load_scene_squares(tmp_path)
    assert squares.groups == ["photo-a", "photo-b", "photo-c", "photo-a"] and photos == [0, 0, 0, 0]


def test_a_tiled_scene_without_its_squares_groups_is_refused(tmp_path: Path):
    """A tiled scene's squares belong to their tiles' photos: without those groups they would fall in no
    fold (always trained, a leak), so the labels are refused instead."""
    folder = _scene_folder(tmp_path)
    labels = json.loads((folder / SCENE_LABELS).read_text(encoding="utf-8"))
    labels["scenes"]["scene-1.png"]["kingdom_id"] = "tiled"
    (folder / SCENE_LABELS).write_text(json.dumps(labels), encoding="utf-8")
    with pytest.raises(ValueError, match="without its squares' groups"):
        load_scene_squares(tmp_path)


def test_the_scene_squares_change_the_cache_key_of_the_rows(tmp_path: Path):
    data_dir = _data_dir(tmp_path, None)
    without = _rows_key(DEFAULT_PLAN, data_dir)
    folder = _scene_folder(data_dir)
    assert _rows_key(DEFAULT_PLAN, data_dir) != without
    assert len(load_scene_squares(tmp_path / "nowhere")[0]) == 0
    # squares cut again under the same labels (a change in the scanner's cut) are other material
    with_scenes = _rows_key(DEFAULT_PLAN, data_dir)
    mosaic = cv2.imread(str(folder / "scene-1.png"))
    cv2.imwrite(str(folder / "scene-1.png"), 255 - mosaic)
    assert _rows_key(DEFAULT_PLAN, data_dir) not in (with_scenes, without)


#: the default plan's fields, as the shipped model's card lists them: an option off by default adds none
SHIPPED_PLAN_FIELDS = {
    "board_copies", "tile_copies", "castle_hue_copies", "empty_board_copies", "synthetic_empties", "seed",
    "tile_shift", "tile_degrees", "board_shift", "scenes",
}  # fmt: skip


@pytest.mark.parametrize("option", ["white_error", "white_kept", "colour_swap"])
def test_an_option_off_by_default_keeps_the_plan_s_cache_key_and_on_has_its_own(tmp_path: Path, option: str):
    data_dir = _data_dir(tmp_path, None)
    assert set(DEFAULT_PLAN.to_dict()) == SHIPPED_PLAN_FIELDS
    assert set(replace(DEFAULT_PLAN, **{option: 0.0}).to_dict()) == SHIPPED_PLAN_FIELDS
    on = replace(DEFAULT_PLAN, **{option: 1.0})
    assert cache_key(FeatureConfig(), on, data_dir) != cache_key(FeatureConfig(), DEFAULT_PLAN, data_dir)


def test_recolour_moves_the_colour_and_keeps_the_pattern_and_the_brightness():
    pattern = np.random.default_rng(0).uniform(60, 160, (32, 32, 1))
    image = (pattern * np.array([0.6, 1.2, 0.8])).astype(np.uint8)  # green, textured
    gains = np.array([-0.1, 0.4, 0.6])  # brighter on the whole: recolour takes that out
    out = recolour(image, gains)
    logs = np.log(out.reshape(-1, 3).mean(axis=0)) - np.log(image.reshape(-1, 3).mean(axis=0))
    assert np.allclose(logs - logs.mean(), gains - gains.mean(), atol=0.02)
    assert abs(logs.mean()) < 0.02
    for channel in range(3):
        assert np.corrcoef(out[..., channel].ravel(), image[..., channel].ravel())[0, 1] > 0.99


def _textured_squares(colours: dict[int, tuple[int, int, int]], count: int) -> SquareSet:
    rng = np.random.default_rng(1)
    squares = SquareSet()
    for label, colour in colours.items():
        for index in range(count):
            texture = rng.uniform(0.7, 1.0, (64, 64, 1))
            squares.extend(
                SquareSet(
                    [(texture * np.array(colour)).astype(np.uint8)],
                    [label],
                    [f"tile-{label}-{index}"],
                    [TILE_SOURCE],
                    [f"t{label}-{index}"],
                )
            )
    return squares


def test_colour_swapped_copies_give_grassland_wheat_s_colour_and_wheat_grassland_s():
    grass, wheat, swamp = (
        LABEL_INDEX[Square(terrain, 0)] for terrain in (Terrain.GRASSLAND, Terrain.WHEAT, Terrain.SWAMP)
    )
    squares = _textured_squares({grass: (70, 170, 90), wheat: (50, 190, 210), swamp: (90, 110, 100)}, 6)
    whites = np.full((len(squares), 3), 230.0, np.float32)
    crops, origins, copy_whites = colour_swapped_copies(
        squares, {}, replace(DEFAULT_PLAN, colour_swap=1.0), whites
    )
    labels = np.asarray(squares.labels)[origins]
    assert sorted(set(labels)) == sorted({grass, wheat}) and len(crops) == 12  # one copy each, no swamp
    before = cast_free_log_colours(squares.images, whites)
    after = cast_free_log_colours(crops, np.asarray(copy_whites))
    red_blue = lambda colours: colours[:, 2] - colours[:, 0]  # noqa: E731
    grass_before, wheat_before = red_blue(before[:6]), red_blue(before[6:12])
    grass_after, wheat_after = red_blue(after[labels == grass]), red_blue(after[labels == wheat])
    middle = (grass_before.mean() + wheat_before.mean()) / 2  # a relit copy's own cast blurs single copies
    assert (grass_after > grass_before.max()).all() and grass_after.mean() > middle
    assert (wheat_after < wheat_before.min()).all() and wheat_after.mean() < middle


def test_mistaken_whites_move_only_the_copies_and_only_by_the_photos_casts():
    photos = np.array([[200, 220, 250], [250, 220, 200], [230, 230, 230]], np.float32)  # warm, cold, grey
    whites = np.repeat(photos, 4, axis=0)
    copies = np.arange(len(whites)) % 2 == 1
    moved = mistaken_whites(whites, copies, photos, 1.0, seed=0)
    assert np.array_equal(moved[~copies], whites[~copies])

    def chroma(white):
        logs = np.log(white)
        return logs - logs.mean(axis=-1, keepdims=True)

    casts = chroma(photos) - chroma(photos).mean(axis=0)
    shift = chroma(moved[copies]) - chroma(whites[copies])
    assert all(np.abs(casts - row).max(axis=1).min() < 1e-5 for row in shift)  # one photo's cast each
    assert np.abs(shift).max() > 0.05
    half = mistaken_whites(whites, copies, photos, 0.5, seed=0)
    assert np.allclose(chroma(half[copies]) - chroma(whites[copies]), shift / 2, atol=1e-5)


def test_partial_whites_leave_up_to_the_kept_share_of_each_copy_s_own_cast():
    whites = np.array([[150, 200, 250], [250, 200, 150], [200, 200, 200]] * 30, np.float32)
    copies = np.arange(len(whites)) >= 3
    moved = partial_whites(whites, copies, kept=1.0, seed=0)
    assert np.array_equal(moved[~copies], whites[~copies])
    logs, new = np.log(whites), np.log(moved)
    chroma = logs - logs.mean(axis=1, keepdims=True)
    left = new - new.mean(axis=1, keepdims=True)
    share = 1 - left[copies, 0] / np.where(chroma[copies, 0] == 0, 1, chroma[copies, 0])
    tinted = chroma[copies, 0] != 0
    assert (share[tinted] >= -1e-5).all() and (share[tinted] <= 1 + 1e-5).all()
    assert share[tinted].max() > 0.8 and share[tinted].min() < 0.2
    assert np.allclose(moved[copies][~tinted], whites[copies][~tinted])  # a grey white stays grey
    assert np.allclose(new.mean(axis=1), logs.mean(axis=1), atol=1e-5)  # brightness kept
