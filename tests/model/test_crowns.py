"""The crown detector: turn-exact cell maps and features, peaks, template seeds, learning from counts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

from kingdomino.labels import LABELS
from model.classifier import SquareClassifier, feature_permutation, with_learned
from model.crowns import (
    BINS,
    EDGE,
    GRID,
    N_FEATURES,
    POSITIONS,
    TURNS,
    WIDTH,
    CrownDetector,
    cell_maps,
    dense_windows,
    local_peaks,
    template_seeds,
)
from model.features import FeatureConfig, crown_template_peaks, extract_features, normalise_crops
from model.training import augment
from model.training.dataset import DEFAULT_DATA_DIR, board_squares, load_boards

pytestmark = pytest.mark.model

CROWNS = np.array([label.crowns for label in LABELS])


@pytest.fixture(scope="module")
def boards():
    photos = {photo.name: photo for photo in load_boards(DEFAULT_DATA_DIR)}
    return {
        name: (normalise_crops(board_squares(photos[name])), CROWNS[np.asarray(photos[name].labels)])
        for name in ("1.jpg", "2.jpg", "9.jpg", "17.jpg", "26.jpg", "33.jpg", "41.jpg", "56.jpg")
    }


@pytest.fixture(scope="module")
def detector(boards) -> CrownDetector:
    """A detector learned from the crown counts of seven boards of other kingdoms than 1.jpg's."""
    crops = np.concatenate([crops for name, (crops, _) in boards.items() if name != "1.jpg"])
    counts = np.concatenate([counts for name, (_, counts) in boards.items() if name != "1.jpg"])
    seeds = template_seeds(*crown_template_peaks(crops), counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a short fit on few squares need not converge
        return CrownDetector(rounds=1).fit(cell_maps(crops), counts, seeds)


def test_cell_maps_turn_with_the_crop(boards):
    crops, _ = boards["1.jpg"]
    maps = cell_maps(crops)
    assert maps.shape == (25, GRID, GRID, BINS + 5) and maps.dtype == np.float32
    for turns in (1, 2, 3):
        turned = cell_maps(np.stack([augment.rotate90(crop, turns) for crop in crops]))
        expected = np.rot90(maps, turns, axes=(1, 2)).copy()
        if turns % 2:  # a quarter turn moves every gradient by half of the 180° orientation range
            expected[..., :BINS] = np.roll(expected[..., :BINS], BINS // 2, axis=3)
        np.testing.assert_allclose(turned, expected, atol=1e-6)


def test_local_peaks_are_separate_maxima_best_first():
    heat = np.zeros((1, POSITIONS, POSITIONS), np.float32)
    heat[0, 3, 3], heat[0, 3, 4], heat[0, 10, 12] = 0.9, 0.8, 0.7
    ys, xs, values = local_peaks(heat, 2)
    assert (ys[0].tolist(), xs[0].tolist()) == ([3, 10], [3, 12])  # (3, 4) is beside a higher peak
    np.testing.assert_allclose(values[0], [0.9, 0.7])


def test_template_seeds_only_trust_squares_where_the_template_agrees_with_the_count():
    scores = np.array([[0.9, 0.8, 0.3], [0.9, 0.6, 0.3], [0.5, 0.2, 0.1], [0.9, 0.3, 0.1]], np.float32)
    ys = np.array([[10, 40, 5], [10, 40, 5], [10, 40, 5], [30, 5, 5]])
    xs = np.array([[20, 20, 5], [20, 20, 5], [20, 20, 5], [60, 5, 5]])
    rows, seed_ys, seed_xs = template_seeds(scores, ys, xs, np.array([2, 1, 1, 1]))
    # row 1: the second peak (0.6) is too close to a crown for a 1-crown square; row 2: too weak a match
    assert rows.tolist() == [0, 0, 3]
    assert seed_ys.tolist() == [2, 10, 7] and seed_xs.tolist() == [5, 5, 15]


def test_features_are_the_same_for_a_turned_crop(boards, detector):
    crops, _ = boards["1.jpg"]
    features = detector.transform(cell_maps(crops))
    assert features.shape == (25, N_FEATURES)
    for turns in (1, 2, 3):
        turned = detector.transform(cell_maps(np.stack([augment.rotate90(crop, turns) for crop in crops])))
        np.testing.assert_allclose(turned, features, atol=1e-5)
    assert detector.transform(cell_maps(crops[:0])).shape == (0, N_FEATURES)


def test_verifying_turned_windows_equals_the_verifier_on_turned_copies(boards, detector):
    windows = dense_windows(cell_maps(boards["1.jpg"][0][:3])).reshape(-1, WIDTH)
    edge = np.broadcast_to(EDGE, (3, POSITIONS, POSITIONS)).ravel()
    copies = [np.hstack([windows[:, turn], edge[:, None]]).astype(np.float32) for turn in TURNS]
    expected = np.mean([detector.verifier_.predict_proba(copy)[:, 1] for copy in copies], axis=0)
    np.testing.assert_allclose(detector._verify(windows, edge), expected, atol=1e-5)


def test_learned_from_counts_it_counts_the_crowns_of_an_unseen_board(boards, detector):
    crops, counts = boards["1.jpg"]
    found = detector.transform(cell_maps(crops))[:, -1]
    assert np.mean(found == counts) >= 0.8


def test_a_classifier_with_a_crown_detector_round_trips(boards, detector, tmp_path):
    crops, counts = boards["1.jpg"]
    config = FeatureConfig()
    features = with_learned(extract_features(crops, config), None, cell_maps(crops), None, detector)
    assert features.shape[1] == extract_features(crops[:1], config).shape[1] + N_FEATURES
    rows = np.vstack([features[:, feature_permutation(config, None, detector, turns)] for turns in range(4)])
    estimator = KNeighborsClassifier(n_neighbors=1).fit(rows, np.tile(np.arange(25) % len(LABELS), 4))
    classifier = SquareClassifier(estimator, config, crown_detector=detector)
    loaded = SquareClassifier.load(classifier.save(tmp_path / "model.joblib"))
    assert loaded.crown_detector is not None
    np.testing.assert_allclose(loaded.predict_proba(list(crops)), classifier.predict_proba(list(crops)))
