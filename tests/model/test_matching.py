"""The artwork matcher: a square is matched to the training squares it shows, whatever its turn or crop."""

from __future__ import annotations

import numpy as np
import pytest

from kingdomino.board import Square, Terrain
from kingdomino.labels import LABEL_INDEX
from model.codebook import thumbnails
from model.features import normalise_crops
from model.matching import NEUTRAL, ArtworkMatcher
from model.training.dataset import DEFAULT_DATA_DIR, BoardPhoto, board_squares, load_boards


def _photo(name: str) -> BoardPhoto:
    return next(p for p in load_boards(DEFAULT_DATA_DIR) if p.name == name)


def _thumbs(squares: list[np.ndarray]) -> np.ndarray:
    return thumbnails(normalise_crops(squares))


@pytest.fixture(scope="module")
def board() -> tuple[np.ndarray, np.ndarray]:
    photo = _photo("1.jpg")
    return _thumbs(board_squares(photo)), np.asarray(photo.labels)


@pytest.fixture(scope="module")
def matcher(board) -> ArtworkMatcher:
    return ArtworkMatcher().fit(*board)


def _shifted_squares(photo: BoardPhoto, fraction: float) -> list[np.ndarray]:
    """The inner 3×3 squares of a board, each cut ``fraction`` of a square down and to the right."""
    side = photo.image.shape[0] // 5
    offset = int(round(fraction * side))
    return [
        photo.image[r * side + offset : (r + 1) * side + offset, c * side + offset : (c + 1) * side + offset]
        for r in range(1, 4)
        for c in range(1, 4)
    ]


def test_a_training_square_matches_itself(board, matcher):
    thumbs, labels = board
    similarities = matcher.similarities(thumbs)
    own = similarities[np.arange(len(labels)), labels]
    artwork = ~NEUTRAL[labels]
    assert (own[artwork] > 0.99).all()
    assert (matcher.evidence(thumbs)[np.arange(len(labels)), labels][artwork] == 0).all()


def test_another_photo_of_the_same_kingdom_is_matched_square_by_square(matcher):
    other = _photo("5.jpg")  # kingdom K01 again, photographed anew
    assert other.kingdom_id == _photo("1.jpg").kingdom_id
    labels = np.asarray(other.labels)
    best = matcher.similarities(_thumbs(board_squares(other))).argmax(axis=1)
    artwork = ~NEUTRAL[labels]
    assert np.mean(best[artwork] == labels[artwork]) >= 0.9


def test_a_crop_well_off_the_square_still_matches(matcher):
    photo = _photo("1.jpg")
    labels = np.asarray(photo.labels).reshape(5, 5)[1:4, 1:4].ravel()
    best = matcher.similarities(_thumbs(_shifted_squares(photo, 0.15))).argmax(axis=1)
    artwork = ~NEUTRAL[labels]
    assert np.mean(best[artwork] == labels[artwork]) >= 0.85


def test_quarter_turns_give_the_same_evidence(board, matcher):
    thumbs, _ = board
    evidence = matcher.evidence(thumbs)
    for turns in (1, 2, 3):
        turned = np.ascontiguousarray(np.rot90(thumbs, turns, axes=(1, 2)))
        np.testing.assert_allclose(matcher.evidence(turned), evidence, atol=1e-6)


def test_the_turned_bases_score_like_the_windows_of_every_turned_square(board, matcher):
    """Each square's windows are cut once and projected on 4 turned bases; that must be what comparing the
    windows of the square in each of its quarter turns gives."""
    thumbs, _ = board
    images = thumbs[:6].astype(np.float32)
    images /= images.mean(axis=(1, 2), keepdims=True) + 1.0
    side, last = matcher.window, 32 - matcher.window
    best = np.full((len(images), matcher.gallery_.shape[1]), -np.inf)
    for turns in range(4):
        turned = np.rot90(images, turns, axes=(1, 2))
        for y in range(0, last + 1, matcher.stride):
            for x in range(0, last + 1, matcher.stride):
                window = turned[:, y : y + side, x : x + side].reshape(len(images), -1)
                window = window - window.mean(axis=1, keepdims=True)
                window /= np.linalg.norm(window, axis=1, keepdims=True) + 1e-6
                projected = (window - matcher.mean_) @ matcher.basis_
                projected /= np.linalg.norm(projected, axis=1, keepdims=True) + 1e-6
                best = np.maximum(best, projected @ matcher.gallery_)
    expected = np.maximum.reduceat(best, matcher.starts_, axis=1)
    np.testing.assert_allclose(matcher.similarities(thumbs[:6])[:, matcher.labels_], expected, atol=1e-5)


def test_no_opinion_on_empty_squares_or_labels_never_seen(board, matcher):
    thumbs, labels = board
    evidence = matcher.evidence(thumbs)
    assert evidence.shape == (len(thumbs), len(LABEL_INDEX))
    assert (evidence <= 0).all() and np.allclose(evidence.max(axis=1), 0)
    unseen = np.setdiff1d(np.arange(len(LABEL_INDEX)), labels)
    assert unseen.size and (evidence[:, unseen] == 0).all()
    assert (evidence[:, LABEL_INDEX[Square(Terrain.EMPTY, 0)]] == 0).all()


def test_an_empty_batch_reads_as_nothing(matcher):
    assert matcher.evidence(np.zeros((0, 32, 32, 3), np.uint8)).shape == (0, len(LABEL_INDEX))


def test_shifts_must_be_symmetric_about_the_centre():
    with pytest.raises(ValueError, match="symmetric"):
        ArtworkMatcher(window=18, stride=4)


def test_fewer_shifts_score_a_square_cut_on_its_seams_as_every_shift_does(board, matcher):
    thumbs, labels = board
    near = matcher.similarities(thumbs, shift=1)
    every = matcher.similarities(thumbs)
    artwork = ~NEUTRAL[labels]
    assert (near <= every + 1e-6).all()  # fewer windows: never a better match
    own = near[np.arange(len(labels)), labels]
    assert (own[artwork] > 0.99).all()  # the training square itself still sits at the centre
    assert (near.argmax(axis=1)[artwork] == labels[artwork]).all()
