"""SquareClassifier contract: shapes, probabilities, rotation invariance, sizes, load errors."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import cv2
import joblib
import numpy as np
import pytest
from sklearn.pipeline import Pipeline

from kingdomino.board import Terrain
from kingdomino.labels import LABELS
from model.classifier import (
    DEFAULT_MODEL_PATH,
    MATCH_BELOW,
    MATCH_WEIGHT,
    RECHECK_BELOW,
    RECHECK_DEGREES,
    SquareClassifier,
    with_learned,
)
from model.codebook import thumbnails
from model.crowns import N_FEATURES as CROWN_DETECTOR_FEATURES
from model.crowns import cell_maps
from model.ensemble import CROWN_DETECTOR, CrownExpert, block_columns
from model.features import (
    TEMPLATE_LEVELS,
    TEMPLATE_PEAKS,
    CropViews,
    FeatureConfig,
    block_sizes,
    extract_features,
    feature_size,
    normalise_crops,
    rotation_permutation,
    turned,
)
from model.matching import ArtworkMatcher
from model.training import augment
from model.training.dataset import DEFAULT_DATA_DIR, board_squares, load_boards
from model.training.estimators import make_estimator
from model.weights import drop_training_state, fold_scalers
from scanner.errors import ModelLoadError

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def classifier() -> SquareClassifier:
    return SquareClassifier.load()


@pytest.fixture(scope="module")
def board():
    photos = load_boards(DEFAULT_DATA_DIR)
    photo = next(p for p in photos if p.name == "1.jpg")
    return board_squares(photo), photo.labels


def test_packaged_model_is_small_and_loads():
    assert DEFAULT_MODEL_PATH.is_file()
    # every committed version stays in every clone: keep the file small
    assert DEFAULT_MODEL_PATH.stat().st_size <= 10 * 1000 * 1000
    SquareClassifier.load(DEFAULT_MODEL_PATH)


def test_packaged_model_carries_its_learned_stages(classifier, board):
    assert classifier.codebook is not None and classifier.crown_detector is not None
    assert classifier.matcher is not None and classifier.matcher.gallery_.shape[1] > 5000  # every real square
    squares, _ = board
    assert classifier.features(normalise_crops(squares)).shape[1] == len(classifier.turn_permutations[0])


def test_shared_intermediates_give_the_features_of_each_stage_alone(classifier, board):
    squares, _ = board
    crops = normalise_crops(squares)
    alone = with_learned(
        extract_features(crops, classifier.feature_config),
        thumbnails(crops),
        cell_maps(crops),
        classifier.codebook,
        classifier.crown_detector,
    )
    np.testing.assert_array_equal(classifier.features(crops), alone)


def test_probabilities_cover_the_18_labels_and_sum_to_one(classifier, board):
    squares, _ = board
    probabilities = classifier.predict_proba(squares)
    assert probabilities.shape == (25, len(LABELS))
    assert np.all(probabilities >= 0)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-6)


def test_reads_a_known_board(classifier, board):
    squares, labels = board
    predicted = classifier.predict_proba(squares).argmax(axis=1)
    assert np.mean(predicted == labels) >= 0.9


def test_prediction_does_not_depend_on_quarter_turns(classifier, board):
    squares, _ = board
    reference = classifier.predict_proba(squares[:8])
    for turns in (1, 2, 3):
        turned = classifier.predict_proba([augment.rotate90(square, turns) for square in squares[:8]])
        np.testing.assert_allclose(turned, reference, atol=0.02)
        assert np.array_equal(turned.argmax(axis=1), reference.argmax(axis=1))


def test_a_photos_squares_read_together_do_not_depend_on_quarter_turns_either(classifier, board):
    squares, labels = board
    reference = classifier.predict_proba(squares, photo=True)
    assert np.mean(reference.argmax(axis=1) == labels) >= 0.9
    for turns in (1, 2, 3):
        turned = classifier.predict_proba([augment.rotate90(square, turns) for square in squares], photo=True)
        np.testing.assert_allclose(turned, reference, atol=0.02)
        assert np.array_equal(turned.argmax(axis=1), reference.argmax(axis=1))


def test_a_few_squares_read_with_their_photo_as_context_read_as_in_one_batch(classifier, board):
    """The scanner reads again the part of a square the castle leaves visible: alone, the photo's other
    squares only setting its white point, as if the whole photo had been read with it."""
    squares, _ = board
    halves = [np.ascontiguousarray(np.flip(square, axis=0)) for square in squares[:3]]
    together = classifier.predict_proba(list(squares) + halves, photo=True)[len(squares) :]
    alone = classifier.predict_proba(halves, photo=True, context=squares)
    np.testing.assert_allclose(alone, together, atol=1e-6)


def test_the_packaged_model_reads_all_turns_as_the_turned_copies_read(classifier, board):
    squares, _ = board
    features = classifier.features(normalise_crops(squares))
    permutations = classifier.turn_permutations
    stacked = np.vstack([features[:, permutation] for permutation in permutations])
    expected = classifier.estimator.predict_proba(stacked).reshape(4, len(squares), -1)
    np.testing.assert_allclose(classifier._turned.read(features), expected, atol=1e-6)


def test_unsure_squares_are_read_again_turned_and_sure_ones_are_not(classifier, board):
    squares, _ = board
    crops = normalise_crops(squares[:6])
    log_proba = classifier.log_proba_features(classifier.features(crops))
    log_proba[0] = -np.log(log_proba.shape[1])  # as unsure as can be
    sure = log_proba.max(axis=1) >= np.log(RECHECK_BELOW)
    assert sure[1:].any()
    rechecked = classifier.recheck(crops, log_proba)
    np.testing.assert_array_equal(rechecked[sure], log_proba[sure])
    white = CropViews(crops[:1]).white_points  # a turned copy is read with the square's own photo white
    readings = [
        classifier.log_proba_features(classifier.features(turned(crops[:1], degrees), white))[0]
        for degrees in (RECHECK_DEGREES, -RECHECK_DEGREES)
    ]
    np.testing.assert_allclose(rechecked[0], (log_proba[0] + readings[0] + readings[1]) / 3)
    # another batch (5 squares, not 6): the float32 matrix products may round differently (seen: 7e-7)
    np.testing.assert_allclose(
        classifier.predict_proba(squares[1:6])[sure[1:]],
        classifier.calibrated(log_proba)[1:][sure[1:]],
        rtol=1e-5,
    )


def test_unsure_squares_are_matched_with_the_training_squares_and_sure_ones_are_not(classifier, board):
    squares, labels = board
    crops = normalise_crops(squares[:6])
    matcher = ArtworkMatcher().fit(thumbnails(normalise_crops(squares)), labels)
    reader = SquareClassifier(
        classifier.estimator,
        classifier.feature_config,
        classifier.temperature,
        codebook=classifier.codebook,
        crown_detector=classifier.crown_detector,
        matcher=matcher,
    )
    log_proba = reader.log_proba_features(reader.features(crops))
    log_proba[0] = -np.log(log_proba.shape[1])  # as unsure as can be
    sure = log_proba.max(axis=1) >= np.log(MATCH_BELOW)
    assert sure[1:].any()
    matched = reader.matched(crops, log_proba)
    np.testing.assert_array_equal(matched[sure], log_proba[sure])
    evidence = matcher.evidence(thumbnails(crops[:1]))[0, reader.estimator_labels]
    expected = log_proba[0] + MATCH_WEIGHT * evidence
    np.testing.assert_allclose(np.exp(matched[0]), np.exp(expected) / np.exp(expected).sum(), atol=1e-9)
    own = list(reader.estimator_labels).index(labels[0])  # the square it was shown: its label ranks first
    assert matched[0][own] == pytest.approx(matched[0].max())


def test_turned_crops_keep_their_shape_and_turn_about_the_centre(board):
    squares, _ = board
    crops = normalise_crops(squares[:3])
    np.testing.assert_array_equal(turned(crops, 0.0), crops)
    there_and_back = turned(turned(crops, 5.0), -5.0).astype(int)
    centre = slice(16, 48)
    assert np.abs(there_and_back[:, centre, centre] - crops[:, centre, centre]).mean() < 6


@pytest.mark.parametrize("config", [FeatureConfig(), FeatureConfig(spots=True)])
def test_rotated_features_are_a_column_permutation(config):
    rng = np.random.default_rng(0)
    crops = normalise_crops([rng.integers(0, 256, (64, 64, 3), dtype=np.uint8) for _ in range(4)])
    features = extract_features(crops, config)
    for turns in (1, 2, 3):
        turned = extract_features(np.stack([augment.rotate90(c, turns) for c in crops]), config)
        np.testing.assert_allclose(turned, features[:, rotation_permutation(config, turns)], atol=5e-3)


def test_feature_blocks_add_up():
    config = FeatureConfig()
    assert sum(width for _, width in block_sizes(config)) == feature_size(config)
    without = FeatureConfig(crown_tmpl=False)
    assert feature_size(config) - feature_size(without) == TEMPLATE_PEAKS + len(TEMPLATE_LEVELS)


def test_crown_template_counts_the_crowns_of_a_board(board):
    squares, labels = board
    only = FeatureConfig(**{name: name == "crown_tmpl" for name in FeatureConfig().to_dict()})
    level = TEMPLATE_LEVELS.index(0.55)
    counts = np.rint(extract_features(squares, only)[:, TEMPLATE_PEAKS + level] * 3).astype(int)
    truth = np.array([LABELS[label].crowns for label in labels])
    assert np.mean(counts == truth) >= 0.9
    turned = extract_features([augment.rotate90(square, 1) for square in squares], only)
    np.testing.assert_allclose(turned, extract_features(squares, only), atol=1e-4)


def test_crown_expert_multiplies_a_crown_model_in():
    rng = np.random.default_rng(1)
    features = rng.random((240, feature_size() + CROWN_DETECTOR_FEATURES)).astype(np.float32)
    labels = rng.integers(0, len(LABELS), 240)
    expert = make_estimator("mlp_crowns")
    assert isinstance(expert, CrownExpert)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 40 epochs on noise need not converge
        expert.fit(features, labels)
    assert not set(expert.joint_columns_) & set(block_columns(expert.crown_only_blocks))
    assert set(block_columns(("crown_tmpl", CROWN_DETECTOR))) <= set(expert.crown_columns_)
    assert set(block_columns((CROWN_DETECTOR,))) == set(range(feature_size(), features.shape[1]))
    probabilities = expert.predict_proba(features[:5])
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-6)
    assert expert.predict(features[:5]).shape == (5,)
    size = len(pickle.dumps(expert))
    drop_training_state(expert)
    assert len(pickle.dumps(expert)) < 0.7 * size
    np.testing.assert_allclose(expert.predict_proba(features[:5]), probabilities)
    folded = fold_scalers(expert)
    assert not isinstance(folded.joint_, Pipeline) and not isinstance(folded.crown_model_, Pipeline)
    np.testing.assert_allclose(folded.predict_proba(features[:5]), probabilities, atol=1e-5)


@pytest.mark.parametrize("side", [40, 63, 100, 300])
def test_any_crop_size_gives_the_same_reading(classifier, board, side):
    squares, _ = board
    reference = classifier.predict_proba(squares[:6]).argmax(axis=1)
    resized = [cv2.resize(square, (side, side), interpolation=cv2.INTER_AREA) for square in squares[:6]]
    agreement = np.mean(classifier.predict_proba(resized).argmax(axis=1) == reference)
    assert agreement >= 5 / 6


def test_a_crown_expert_told_of_an_extra_block_finds_the_crown_detectors_columns_after_it():
    config = FeatureConfig(spots=True)
    rng = np.random.default_rng(1)
    features = rng.random((240, feature_size(config) + CROWN_DETECTOR_FEATURES)).astype(np.float32)
    expert = make_estimator("mlp_crowns").set_params(feature_config=config.to_dict())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expert.fit(features, rng.integers(0, len(LABELS), 240))
    detector = set(range(feature_size(config), features.shape[1]))
    assert detector <= set(expert.crown_columns_) and detector <= set(expert.joint_columns_)
    assert not set(block_columns(("spots",), config)) & set(expert.crown_columns_)
    assert not set(block_columns(("crown_tmpl",), config)) & set(expert.joint_columns_)
    assert expert.predict_proba(features[:5]).shape[0] == 5
    del expert.feature_config  # as an expert pickled before the parameter existed
    assert expert.get_params(deep=False)["feature_config"] is None


def test_grey_and_alpha_crops_are_accepted(classifier, board):
    squares, _ = board
    grey = cv2.cvtColor(squares[0], cv2.COLOR_BGR2GRAY)
    alpha = cv2.cvtColor(squares[1], cv2.COLOR_BGR2BGRA)
    assert classifier.predict_proba([grey, alpha]).shape == (2, len(LABELS))


def test_plain_table_squares_read_as_empty(classifier):
    rng = np.random.default_rng(3)
    tables = [augment.synthetic_table(rng, 90) for _ in range(10)]
    readings = classifier.classify(tables)
    assert sum(reading.terrain == Terrain.EMPTY for reading in readings) >= 8


def test_classify_returns_readings_with_confidence(classifier, board):
    squares, _ = board
    readings = classifier.classify(squares[:3])
    assert len(readings) == 3
    assert all(0.0 <= reading.confidence <= 1.0 for reading in readings)


def test_no_squares_gives_an_empty_array(classifier):
    assert classifier.predict_proba([]).shape == (0, len(LABELS))


@pytest.mark.parametrize(
    "crop",
    [np.zeros((0, 0, 3), np.uint8), np.zeros((20, 20, 3), np.float64), np.zeros((20, 20, 2), np.uint8)],
)
def test_bad_crops_are_rejected_clearly(classifier, crop):
    with pytest.raises(ValueError, match="square 1"):
        classifier.predict_proba([np.zeros((20, 20, 3), np.uint8), crop])


def test_tiny_crops_are_read(classifier):
    assert classifier.predict_proba([np.full((3, 3, 3), 120, np.uint8)]).shape == (1, len(LABELS))


def test_missing_model_file(tmp_path: Path):
    with pytest.raises(ModelLoadError, match="not found"):
        SquareClassifier.load(tmp_path / "nothing.joblib")


def test_damaged_model_file(tmp_path: Path):
    path = tmp_path / "damaged.joblib"
    path.write_bytes(b"this is not a model" * 10)
    with pytest.raises(ModelLoadError, match="damaged"):
        SquareClassifier.load(path)


def test_model_from_another_sklearn_version(tmp_path: Path):
    payload = joblib.load(DEFAULT_MODEL_PATH)
    payload["sklearn_version"] = "0.24.2"
    path = tmp_path / "old.joblib"
    joblib.dump(payload, path)
    with pytest.raises(ModelLoadError, match="scikit-learn 0.24.2"):
        SquareClassifier.load(path)


def test_damaged_estimator_inside_a_valid_file(tmp_path: Path):
    payload = joblib.load(DEFAULT_MODEL_PATH)
    payload["estimator_pickle"] = pickle.dumps("x")[:-3]
    path = tmp_path / "cut.joblib"
    joblib.dump(payload, path)
    with pytest.raises(ModelLoadError, match="damaged"):
        SquareClassifier.load(path)


def test_augmentations_keep_crops_usable():
    rng = np.random.default_rng(5)
    photo = load_boards(DEFAULT_DATA_DIR)[0]
    for _ in range(5):
        crop = augment.board_crop(photo.image, 0, 4, 5, rng)
        assert crop.shape[0] == crop.shape[1] and crop.dtype == np.uint8
        degraded = augment.degrade(augment.relight(crop, rng), rng)
        assert 40 <= degraded.shape[0] <= 300 and degraded.shape[2] == 3
        assert augment.empty_in_board(photo.image, 5, rng).shape[2] == 3
    assert augment.synthetic_table(rng, 50).shape == (50, 50, 3)
