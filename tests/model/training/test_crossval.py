"""Splits of the cross-validation: no kingdom, photo or photo set on both sides; the held-out card rows."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import model.training.crossval as crossval
from kingdomino.board import Square, Terrain
from kingdomino.labels import LABEL_INDEX
from model.classifier import MATCH_BELOW, RECHECK_BELOW
from model.evaluation.evaluate import (
    board_timing,
    held_out_section,
    most_frequent_errors,
    scene_lines,
    unsure_photos,
    unsure_square_timing,
)
from model.training.dataset import SCENE_SOURCE
from model.training.feature_table import BOARD_SOURCE, SYNTHETIC_SOURCE, TILE_SOURCE, FeatureTable

WHEAT = LABEL_INDEX[Square(Terrain.WHEAT, 0)]
WHEAT_1 = LABEL_INDEX[Square(Terrain.WHEAT, 1)]
SWAMP = LABEL_INDEX[Square(Terrain.SWAMP, 0)]


def small_table() -> FeatureTable:
    """Boards of 3 kingdoms, tiles of 4 photos and synthetic tables; one copy of each real square."""
    sources = [BOARD_SOURCE] * 6 + [TILE_SOURCE] * 8
    groups = ["k1", "k1", "k2", "k2", "k3", "k3"] + ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"]
    real = len(sources)
    sources = np.array(sources * 2 + [SYNTHETIC_SOURCE] * 2)
    groups = np.array(groups * 2 + ["synthetic-0", "synthetic-1"])
    n = len(sources)
    return FeatureTable(
        features=np.zeros((n, 3), np.float32),
        thumbs=np.zeros((n, 2, 2, 3), np.uint8),
        crown_maps=np.zeros((n, 1), np.float16),
        crown_peaks=np.zeros((n, 3, 1), np.float32),
        labels=np.full(n, WHEAT),
        groups=groups,
        sources=sources,
        original=np.r_[np.ones(real, bool), np.zeros(n - real, bool)],
        sample=np.r_[np.arange(real), np.arange(real), -1, -2],
        names=np.array([f"square-{i}" for i in range(n)]),
    )


def with_scene_rows(table: FeatureTable) -> FeatureTable:
    """The table and squares cut from whole-table scenes of two of its kingdoms (rows without originals)."""
    groups = np.array(["k1", "k1", "k3"])
    n = len(groups)

    def extend(values, extra):
        return np.concatenate([values, np.asarray(extra, dtype=values.dtype)])

    return FeatureTable(
        features=extend(table.features, np.zeros((n, 3))),
        thumbs=extend(table.thumbs, np.zeros((n, 2, 2, 3))),
        crown_maps=extend(table.crown_maps, np.zeros((n, 1))),
        crown_peaks=extend(table.crown_peaks, np.zeros((n, 3, 1))),
        labels=extend(table.labels, [WHEAT] * n),
        groups=np.concatenate([table.groups, groups]),
        sources=np.concatenate([table.sources, [SCENE_SOURCE] * n]),
        original=extend(table.original, [False] * n),
        sample=extend(table.sample, -10 - np.arange(n)),
        names=np.concatenate([table.names, [f"scene#{i}" for i in range(n)]]),
    )


def test_scene_squares_follow_the_fold_of_their_kingdom():
    table = with_scene_rows(small_table())
    folds = crossval.assign_folds(table, 2)
    for row in np.flatnonzero(table.sources == SCENE_SOURCE):
        boards = table.original & (table.groups == table.groups[row])
        assert (folds[boards] == folds[row]).all() and folds[row] >= 0


def test_squares_of_tiled_scenes_follow_the_fold_of_their_tiles_photo():
    table = with_scene_rows(small_table())
    table.groups[table.sources == SCENE_SOURCE] = ["p1", "p3", "p4"]
    folds = crossval.assign_folds(table, 2)
    for row in np.flatnonzero(table.sources == SCENE_SOURCE):
        tiles = table.original & (table.groups == table.groups[row])
        assert tiles.any() and (folds[tiles] == folds[row]).all() and folds[row] >= 0


def test_the_card_counts_scene_kingdoms_and_the_photos_of_tiled_scenes_apart():
    table = with_scene_rows(small_table())
    assert "of 2 of the board kingdoms (" in scene_lines(table)[0]
    table.groups[np.flatnonzero(table.sources == SCENE_SOURCE)[-1]] = "photo-p2"
    line = scene_lines(table)[0]
    assert "of 1 of the board kingdoms and of kingdoms tiled from the single tiles of 1 source photos" in line


def test_a_set_read_by_a_model_fitted_without_it_is_fitted_without_scenes_of_its_kingdoms(monkeypatch):
    table = with_scene_rows(small_table())
    fitted_on: list[np.ndarray] = []

    class Reader:
        codebook = crown_detector = None

        def predict_proba_features(self, features, crops=None, match=True, white_points=None):
            return np.full((len(features), len(LABEL_INDEX)), 1 / len(LABEL_INDEX))

    monkeypatch.setattr(
        crossval, "fit_classifier", lambda table, mask, *a: fitted_on.append(mask) or Reader()
    )
    monkeypatch.setattr(crossval, "with_learned", lambda features, *args: features)
    crossval.held_out_source(table, BOARD_SOURCE, None, None)
    assert not fitted_on[0][table.sources == SCENE_SOURCE].any()
    crossval.held_out_source(table, TILE_SOURCE, None, None)
    assert fitted_on[1][table.sources == SCENE_SOURCE].all()


def test_folds_keep_each_kingdom_and_photo_on_one_side():
    table = small_table()
    folds = crossval.assign_folds(table, 2)
    assert (folds[table.sources == SYNTHETIC_SOURCE] == -1).all()
    for group in set(table.groups[table.sources != SYNTHETIC_SOURCE]):
        assert len(set(folds[table.groups == group])) == 1, group


@pytest.mark.parametrize("held", [BOARD_SOURCE, TILE_SOURCE])
def test_held_out_source_never_fits_on_the_set_it_reads(monkeypatch, held):
    table = small_table()
    fitted_on: list[np.ndarray] = []

    class Reader:
        codebook = crown_detector = None

        def predict_proba_features(self, features, crops=None, match=True, white_points=None):
            return np.full((len(features), len(LABEL_INDEX)), 1 / len(LABEL_INDEX))

    def fake_fit(table, mask, *args):
        fitted_on.append(mask.copy())
        return Reader()

    monkeypatch.setattr(crossval, "fit_classifier", fake_fit)
    monkeypatch.setattr(crossval, "with_learned", lambda features, *args: features)
    rows, probabilities = crossval.held_out_source(table, held, None, None)
    (mask,) = fitted_on
    assert not (mask & (table.sources == held)).any()  # neither the originals nor their copies
    assert mask[table.sources == SYNTHETIC_SOURCE].all()
    assert (table.sources[rows] == held).all() and table.original[rows].all()
    assert len(rows) == (table.original & (table.sources == held)).sum() == probabilities.shape[1]


def test_held_out_section_reports_figures_and_confident_errors():
    table = small_table()
    board_rows = np.flatnonzero(table.original & (table.sources == BOARD_SOURCE))
    tile_rows = np.flatnonzero(table.original & (table.sources == TILE_SOURCE))
    table.labels[tile_rows[:2]] = WHEAT_1
    sure_swamp = np.full(len(LABEL_INDEX), 1e-6)
    sure_swamp[SWAMP] = 1.0
    board_raw = np.tile(np.eye(len(LABEL_INDEX))[WHEAT], (len(board_rows), 1))
    tile_raw = np.tile(np.eye(len(LABEL_INDEX))[WHEAT], (len(tile_rows), 1))
    tile_raw[:4] = sure_swamp  # two wheat-1 and two wheat squares read, sure, as swamp
    cv_unsure = {BOARD_SOURCE: "0/55 (…)", TILE_SOURCE: "14/195 (…)"}
    lines = held_out_section(
        table, {BOARD_SOURCE: (board_rows, board_raw), TILE_SOURCE: (tile_rows, tile_raw)}, 1.0, cv_unsure
    )
    boards_row = next(line for line in lines if line.startswith("| boards |"))
    tiles_row = next(line for line in lines if line.startswith("| tiles |"))
    assert "| tiles | 6 | 100.00% | 100.00% | 100.00% | 100% (100.0%) |" in boards_row
    assert "| boards | 8 | 50.00% | 75.00% | 50.00% | 100% (50.0%) |" in tiles_row
    assert "wheat1 → swamp ×2" in tiles_row and "wheat → swamp ×2" in tiles_row
    assert "0/0 (– wrong on them" in tiles_row  # 2 squares per photo: too few to judge a photo
    assert "boards 0/55 (…); tiles 14/195 (…)" in "".join(lines)


def test_photos_read_mostly_unsure_are_counted_with_their_error_rates():
    table = small_table()
    rows = np.flatnonzero(table.original & (table.sources == TILE_SOURCE))
    table.groups[rows] = ["p1"] * 5 + ["p2"] * 3  # p2 has too few squares to judge
    probabilities = np.tile(np.eye(len(LABEL_INDEX))[WHEAT], (len(rows), 1))
    probabilities[[0, 1]] = 0.5 * probabilities[[0, 1]] + 0.5 / len(LABEL_INDEX)  # 2 of 5 unsure
    probabilities[1] = np.eye(len(LABEL_INDEX))[SWAMP] * 0.55 + 0.45 / len(LABEL_INDEX)  # and wrong
    assert unsure_photos(table, rows, probabilities) == "1/1 (20.0% wrong on them, 0.0% on the rest)"


def test_most_frequent_errors_counts_only_misreadings():
    truth = np.array([WHEAT, WHEAT, WHEAT, SWAMP])
    read = np.array([SWAMP, SWAMP, WHEAT, SWAMP])
    assert most_frequent_errors(truth, read) == "wheat → swamp ×2"
    assert most_frequent_errors(truth, truth) == "none"


def test_board_timing_reads_on_one_opencv_thread_and_gives_the_pool_back():
    seen = []

    class Reader:
        def predict_proba(self, squares, photo=False):
            seen.append(cv2.getNumThreads())

    before = cv2.getNumThreads()
    cpu_ms, wall_ms = board_timing(Reader(), [np.zeros((8, 8, 3), np.uint8)], repeats=3)
    assert seen == [1] * 4 and cpu_ms >= 0 and wall_ms >= 0
    assert cv2.getNumThreads() == before


def test_unsure_square_timing_takes_every_square_through_both_extra_readings():
    seen = []

    class Reader:
        estimator = SimpleNamespace(classes_=np.arange(18))

        def recheck(self, crops, log_proba):
            seen.append(("recheck", len(crops), log_proba.max() < np.log(RECHECK_BELOW), cv2.getNumThreads()))
            return log_proba

        def matched(self, crops, log_proba):
            seen.append(("matched", len(crops), log_proba.max() < np.log(MATCH_BELOW), cv2.getNumThreads()))
            return log_proba

    before = cv2.getNumThreads()
    per_square = unsure_square_timing(Reader(), [np.zeros((8, 8, 3), np.uint8)] * 3, repeats=2)
    assert per_square >= 0
    assert seen == [("recheck", 3, True, 1), ("matched", 3, True, 1)] * 3
    assert cv2.getNumThreads() == before


def test_an_estimator_that_picks_columns_by_block_is_told_the_feature_configuration(monkeypatch):
    # a crown expert picks the crown detector's columns after the blocks that are on: fitted with an extra
    # block, it must be told so, or it reads the wrong columns
    class Picker:
        def __init__(self) -> None:
            self.feature_config = None

        def get_params(self, deep: bool = True) -> dict:
            return {"feature_config": self.feature_config}

        def set_params(self, **params) -> Picker:
            self.feature_config = params["feature_config"]
            return self

        def fit(self, features, labels) -> Picker:
            self.fitted_with, self.classes_ = self.feature_config, np.unique(labels)
            return self

    class Matcher:
        def fit(self, thumbs, labels) -> Matcher:
            return self

    monkeypatch.setattr(crossval, "fit_crown_detector", lambda table, mask, verbose: None)
    monkeypatch.setattr(crossval, "ArtworkMatcher", Matcher)
    monkeypatch.setattr(
        crossval, "training_rows", lambda table, mask, *a: (table.features[mask], table.labels[mask])
    )
    config = crossval.FeatureConfig(spots=True)
    table = small_table()
    picker = Picker()
    crossval.fit_classifier(table, np.ones(len(table.labels), bool), config, lambda: picker, codebook_words=0)
    assert picker.fitted_with == config.to_dict() and picker.fitted_with["spots"]
