"""The locator's faster numerics give numpy's plain forms to the bit (docs/experiments.md, "The locator's
time, cut without changing a frame"): a frame found is the same frame whichever form computed it."""

from __future__ import annotations

import cv2
import numpy as np

from scanner.geometry import frame_homography, moved_frame
from scanner.locate import LocatorSettings
from scanner.locate.border import table_lab
from scanner.locate.placement import (
    CELL_PX,
    MARGIN_PX,
    REACH,
    cell_distances,
    describe_cells,
    table_cells,
)

SETTINGS = LocatorSettings()


def _photo(seed: int = 3, shape: tuple[int, int] = (480, 640)) -> np.ndarray:
    """Coloured blotches with texture: every colour, lightness and spread a table or a tile may have."""
    rng = np.random.default_rng(seed)
    blotches = cv2.resize(rng.integers(0, 256, (12, 16, 3), dtype=np.uint8), shape[::-1])
    noise = rng.normal(0, 25, (*shape, 3))
    return np.clip(blotches + noise, 0, 255).astype(np.uint8)


def _frame(photo: np.ndarray, n: int = 5) -> np.ndarray:
    height, width = photo.shape[:2]
    corners = np.float64([[0.3, 0.28], [0.68, 0.3], [0.7, 0.71], [0.29, 0.69]]) * [width, height]
    return frame_homography(corners, n)


def test_table_lab_is_the_median_filtered_lab_with_its_lightness_halved() -> None:
    photo = _photo()
    plain = cv2.cvtColor(cv2.medianBlur(photo, 5), cv2.COLOR_BGR2LAB).astype(np.float32)
    expected = plain * np.float32([0.5, 1, 1])
    got = table_lab(photo)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_cell_distances_are_numpy_s_norm_of_every_two_descriptors() -> None:
    rng = np.random.default_rng(0)
    for scale in (1.0, 40.0, 300.0):
        descriptors = (rng.random((13, 13, 4)) * scale).astype(np.float32)
        flat = descriptors.reshape(-1, 4)
        expected = np.linalg.norm(flat[:, None] - flat, axis=2)
        got = cell_distances(descriptors)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
    described, _, _ = describe_cells(_photo(), _frame(_photo()), 5, SETTINGS)
    flat = described.reshape(-1, described.shape[-1])
    assert np.array_equal(cell_distances(described), np.linalg.norm(flat[:, None] - flat, axis=2))


def test_described_colours_are_the_mean_table_lab_of_each_cell_s_middle() -> None:
    photo, n = _photo(7), 5
    homography = _frame(photo, n)
    cells = n + 2 * REACH
    to_rect = np.diag([CELL_PX, CELL_PX, 1.0]) @ np.linalg.inv(moved_frame(homography, -REACH, -REACH))
    rect = cv2.warpPerspective(photo, to_rect, (cells * CELL_PX, cells * CELL_PX), flags=cv2.INTER_AREA)
    lab = table_lab(rect).reshape(cells, CELL_PX, cells, CELL_PX, 3)
    middle = lab[:, MARGIN_PX:-MARGIN_PX, :, MARGIN_PX:-MARGIN_PX].transpose(0, 2, 1, 3, 4)
    expected = middle.reshape(cells, cells, -1, 3).mean(axis=2)
    descriptors, _, _ = describe_cells(photo, homography, n, SETTINGS)
    assert np.array_equal(descriptors[..., :3], expected)


def test_a_frame_s_table_cells_from_its_description_are_those_described_anew() -> None:
    photo = _photo(11)
    for n in (5, 7):
        homography = _frame(photo, n)
        described = describe_cells(photo, homography, n, SETTINGS)
        anew = table_cells(photo, homography, n, SETTINGS)
        given = table_cells(photo, homography, n, SETTINGS, described)
        assert (anew is None) == (given is None)
        assert anew is None or np.array_equal(anew, given)
