"""The batched shortcuts in the feature extraction give the numbers of the direct computation."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from model.crowns import BINS as DETECTOR_BINS
from model.crowns import CELL as DETECTOR_CELL
from model.features import (
    _HOG_DIRECTIONS,
    FINE_CELL,
    HOG_BINS,
    HOG_CELLS,
    SIDE,
    CropViews,
    FeatureConfig,
    _half_turn_remainder,
    _orientation_histograms,
    _white_patch,
    block_means,
    crown_template_peaks,
    extract_features,
    normalise_crops,
    photo_white_point,
)
from model.training.dataset import DEFAULT_DATA_DIR, board_squares, load_boards


@pytest.fixture(scope="module")
def crops() -> np.ndarray:
    """25 real board squares and 7 synthetic ones (flat, noise, extreme gradients)."""
    photo = load_boards(DEFAULT_DATA_DIR)[0]
    real = normalise_crops(board_squares(photo))
    rng = np.random.default_rng(0)
    synthetic = np.zeros((7, SIDE, SIDE, 3), dtype=np.uint8)
    synthetic[1] = 255
    synthetic[2] = rng.integers(0, 256, (SIDE, SIDE, 3))
    synthetic[3, :, ::2] = 255  # steps of ±255 in x
    synthetic[4, ::2] = 255  # and in y
    synthetic[5] = rng.integers(0, 2, (SIDE, SIDE, 1)) * 255
    synthetic[6] = (np.arange(SIDE)[:, None, None] * 4).astype(np.uint8)
    return np.concatenate([real, synthetic])


def test_orientation_bins_from_the_table_equal_the_computed_ones(crops):
    views = CropViews(crops)
    direction = views.gradients[1]
    hog = (np.mod(direction, np.pi) * HOG_BINS / np.pi + 1e-4).astype(np.int64) % HOG_BINS
    detector = np.floor(direction * (DETECTOR_BINS / np.pi) + 1e-4).astype(np.int32) & (DETECTOR_BINS - 1)
    assert np.array_equal(views.direction_bins(_HOG_DIRECTIONS), hog)
    # the crown detector was trained on its own binning; it now reads the same table's bins
    assert np.array_equal(views.direction_bins(_HOG_DIRECTIONS), detector)


def test_gradient_histograms_summed_from_the_fine_cells_equal_binning_the_pixels(crops):
    views = CropViews(crops)
    bins = views.direction_bins(_HOG_DIRECTIONS)
    assert DETECTOR_CELL == FINE_CELL and DETECTOR_BINS == HOG_BINS
    assert np.array_equal(
        views.cell_histograms, _orientation_histograms(views.gradients[0], bins, HOG_BINS, FINE_CELL)
    )
    for cell in HOG_CELLS:
        cells, per_cell = SIDE // cell, cell // FINE_CELL
        summed = views.cell_histograms.reshape(len(crops), cells, per_cell, cells, per_cell, HOG_BINS)
        direct = _orientation_histograms(views.gradients[0], bins, HOG_BINS, cell)
        assert np.array_equal(summed.sum(axis=(2, 4)), direct)


def test_gradients_are_the_central_differences_of_the_grey_crop(crops):
    views = CropViews(crops)
    gray = views.gray.astype(np.float32)
    step_x = np.zeros_like(gray)
    step_y = np.zeros_like(gray)
    step_x[:, :, 1:-1] = gray[:, :, 2:] - gray[:, :, :-2]
    step_y[:, 1:-1, :] = gray[:, 2:, :] - gray[:, :-2, :]
    magnitude, direction = views.gradients
    assert np.array_equal(magnitude, np.hypot(step_x, step_y))
    assert np.array_equal(direction, np.arctan2(step_y, step_x))


def test_half_turn_remainder_is_np_mod_bit_for_bit():
    rng = np.random.default_rng(1)
    edges = [np.pi, -np.pi, 0.0, -0.0, np.nextafter(np.pi, 0), np.nextafter(-np.pi, 0)]
    edges += [np.nextafter(np.pi, 4), np.nextafter(-np.pi, -4), 1e-300, -1e-300, 2 * np.pi - 1e-9]
    angles = np.concatenate([rng.uniform(-2 * np.pi, 2 * np.pi, 200_000), edges, np.negative(edges)])
    expected = np.mod(angles, np.pi)
    got = _half_turn_remainder(angles)
    assert np.array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("side", [32, 16, 8])
def test_block_means_of_a_batch_equal_one_resize_per_image(crops, side):
    for images in (crops, crops.astype(np.float32) / 255.0):
        each = np.stack([cv2.resize(image, (side, side), interpolation=cv2.INTER_AREA) for image in images])
        assert np.array_equal(block_means(images, side), each)
    assert block_means(crops[:0], side).shape == (0, side, side, 3)


def test_white_patch_sets_each_channels_99th_percentile_to_white(crops):
    balanced = _white_patch(crops)
    for crop, out in zip(crops, balanced, strict=True):
        for channel in range(3):
            top = int(np.percentile(crop[..., channel], 99, method="inverted_cdf"))
            gain = min(max(255.0 / max(top, 1), 0.8), 3.0)
            lut = np.minimum(np.arange(256, dtype=np.float32) * gain, 255.0).astype(np.uint8)
            assert np.array_equal(out[..., channel], lut[crop[..., channel]])
    assert _white_patch(crops[:0]).shape == (0, SIDE, SIDE, 3)


def test_template_peaks_of_a_batch_equal_those_of_each_crop_alone(crops):
    scores, ys, xs = crown_template_peaks(crops)
    for index in range(len(crops)):
        alone = crown_template_peaks(crops[index : index + 1])
        assert np.array_equal(scores[index], alone[0][0])
        assert np.array_equal(ys[index], alone[1][0]) and np.array_equal(xs[index], alone[2][0])
    assert crown_template_peaks(crops[:0])[0].shape == (0, scores.shape[1])


def test_a_photos_white_point_is_each_channels_99th_percentile_over_all_its_squares(crops):
    board = crops[:25]
    expected = [np.percentile(board[..., channel], 99, method="lower") for channel in range(3)]
    np.testing.assert_allclose(photo_white_point(board), expected, atol=1)
    assert CropViews(board).white_points.shape == (25, 3)  # by default each square is its own photo
    np.testing.assert_array_equal(CropViews(board[:1]).white_points[0], photo_white_point(board[:1]))


def test_the_photo_colour_block_takes_out_a_cast_the_whole_photo_shares(crops):
    board = crops[:25]
    only = FeatureConfig(**{name: name == "photo_colour" for name in FeatureConfig().to_dict()})
    warm = np.clip(board * np.float32([0.8, 1.0, 1.15]), 0, 255).astype(np.uint8)  # a yellow lamp (BGR)

    def as_photo(squares: np.ndarray) -> np.ndarray:
        white = np.tile(photo_white_point(squares), (len(squares), 1))
        return extract_features(CropViews(squares, white), only)

    def as_squares(squares: np.ndarray) -> np.ndarray:
        return extract_features(squares, only)

    # read as one photo, the cast moves the block far less than read square by square, or than it
    # moves the plain colour histograms
    plain = FeatureConfig(**{name: name == "colour" for name in FeatureConfig().to_dict()})
    cast_moved = np.abs(as_photo(warm) - as_photo(board)).sum(axis=1).mean()
    assert (
        cast_moved
        < 0.5 * np.abs(extract_features(warm, plain) - extract_features(board, plain)).sum(axis=1).mean()
    )
    assert cast_moved < np.abs(as_squares(warm) - as_squares(board)).sum(axis=1).mean()


def test_relighting_moves_a_white_level_as_it_moves_the_pixels(crops):
    from model.training.augment import relight_with_levels

    board = np.ascontiguousarray(crops[:25].reshape(-1, SIDE, 3))
    for seed in range(5):
        relit, levels = relight_with_levels(board, np.random.default_rng(seed))
        np.testing.assert_allclose(
            photo_white_point(relit.reshape(-1, SIDE, SIDE, 3)),
            levels(photo_white_point(crops[:25])),
            atol=1.5,
        )


def _spotted(surface, spot, centres) -> np.ndarray:
    """A flat SIDE×SIDE square of ``surface`` colour (BGR) with 2-px-radius discs of ``spot`` colour."""
    square = np.full((SIDE, SIDE, 3), surface, dtype=np.uint8)
    for y, x in centres:
        cv2.circle(square, (x, y), 2, spot, -1)
    return square


def test_the_spots_block_counts_sheep_and_birds_under_a_warm_dim_light():
    only = FeatureConfig(**{name: False for name in FeatureConfig().to_dict()}, spots=True)
    centres = [(14 + 9 * (i // 4), 14 + 10 * (i % 4)) for i in range(16)][:13]
    grassland = _spotted((40, 170, 90), (235, 240, 240), centres)  # white sheep on green
    wheat = _spotted((30, 190, 220), (20, 40, 60), centres[:5])  # dark birds on yellow
    plain = np.full((SIDE, SIDE, 3), (40, 170, 90), dtype=np.uint8)
    squares = np.stack([grassland, wheat, plain])
    warm_dim = np.clip(squares * np.float32([0.35, 0.6, 0.8]), 0, 255).astype(np.uint8)
    for lit in (squares, warm_dim):
        features = extract_features(lit, only)
        bright, dark = np.expm1(features[:, :2]).round(), np.expm1(features[:, 5:7]).round()
        np.testing.assert_array_equal(bright[:, 0], [13, 0, 0])  # the sheep, at the lower level
        np.testing.assert_array_equal(dark[:, 0], [0, 5, 0])  # the birds
    assert "spots" not in FeatureConfig().to_dict()  # off by default: the cached models keep their keys
