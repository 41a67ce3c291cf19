"""The patch codebook: turned crops permute its features exactly, and it survives a model file round trip."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

from kingdomino.labels import LABELS
from model.classifier import SquareClassifier, feature_permutation, with_learned
from model.codebook import PatchCodebook, thumbnails
from model.features import FeatureConfig, extract_features, normalise_crops
from model.training import augment
from model.training.dataset import DEFAULT_DATA_DIR, board_squares, load_boards

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def board():
    photo = next(p for p in load_boards(DEFAULT_DATA_DIR) if p.name == "1.jpg")
    return normalise_crops(board_squares(photo)), np.asarray(photo.labels).ravel()


@pytest.fixture(scope="module")
def codebook(board) -> PatchCodebook:
    crops, _ = board
    return PatchCodebook(words=8).fit(thumbnails(crops))


def test_turned_crops_permute_the_codebook_features(board, codebook):
    thumbs = thumbnails(board[0])
    features = codebook.transform(thumbs)
    assert features.shape == (25, codebook.n_features)
    assert features.std(axis=0).max() > 0  # the codewords fire differently on different squares
    for turns in (1, 2, 3):
        turned = codebook.transform(np.stack([augment.rotate90(thumb, turns) for thumb in thumbs]))
        np.testing.assert_allclose(turned, features[:, codebook.permutation(turns)], atol=1e-4)


def test_patch_positions_must_split_into_quarters():
    with pytest.raises(ValueError, match="quarters"):
        PatchCodebook(patch=5, stride=2)


def test_a_classifier_with_a_codebook_round_trips_and_ignores_turns(board, codebook, tmp_path):
    crops, labels = board
    config = FeatureConfig()
    features = with_learned(extract_features(crops, config), thumbnails(crops), None, codebook, None)
    rows = np.vstack([features[:, feature_permutation(config, codebook, None, turns)] for turns in range(4)])
    estimator = KNeighborsClassifier(n_neighbors=3).fit(rows, np.tile(labels, 4))
    classifier = SquareClassifier(estimator, config, codebook=codebook)
    path = classifier.save(tmp_path / "model.joblib")
    loaded = SquareClassifier.load(path)
    assert loaded.codebook is not None and loaded.codebook.words == codebook.words
    squares = list(crops)
    reference = classifier.predict_proba(squares)
    np.testing.assert_allclose(loaded.predict_proba(squares), reference, atol=1e-9)
    turned = loaded.predict_proba([augment.rotate90(square, 1) for square in squares])
    np.testing.assert_allclose(turned, reference, atol=1e-4)
    assert reference.shape == (25, len(LABELS))
