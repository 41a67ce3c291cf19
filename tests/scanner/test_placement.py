"""Where on its lattice the kingdom lies: artwork inside the frame, the table (a printed mat) around it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.geometry import frame_homography
from scanner.locate import LocatorSettings, Verdict, locate_kingdom
from scanner.locate.placement import Placement, place

pytestmark = pytest.mark.slow

BOARDS = Path(__file__).resolve().parents[2] / "data" / "real" / "boards"
SETTINGS = LocatorSettings()


def _on_cutting_mat(board: np.ndarray, pitch: int, at: tuple[int, int]) -> np.ndarray:
    """A blue cutting mat with white lines ``pitch`` apart (thicker every fifth) with ``board`` laid on its
    lattice at (x, y) ``at``: every empty mat cell is closed by seams as a tile is."""
    rng = np.random.default_rng(5)
    mat = np.empty((1200, 1600, 3), np.uint8)
    mat[:] = (150, 95, 30)
    for k, position in enumerate(range(0, 1600, pitch)):
        mat[:, max(position - 2, 0) : position + (4 if k % 5 == 0 else 2)] = (235, 235, 235)
    for k, position in enumerate(range(0, 1200, pitch)):
        mat[max(position - 2, 0) : position + (4 if k % 5 == 0 else 2)] = (235, 235, 235)
    mat = np.clip(mat + rng.normal(0, 3, mat.shape), 0, 255).astype(np.uint8)
    x, y = at
    mat[y : y + board.shape[0], x : x + board.shape[1]] = board
    return mat


@pytest.fixture(scope="module")
def on_mat() -> tuple[np.ndarray, int]:
    board = cv2.imread(str(BOARDS / "1.jpg"))
    pitch = 120
    board = cv2.resize(board, (5 * pitch, 5 * pitch), interpolation=cv2.INTER_AREA)
    return _on_cutting_mat(board, pitch, (5 * pitch, 3 * pitch)), pitch


def _frame(left: int, top: int, size: int, pitch: int) -> np.ndarray:
    return frame_homography(
        np.float64([[left, top], [left + size, top], [left + size, top + size], [left, top + size]]) * pitch,
        size,
    )


def test_a_seven_by_seven_frame_over_the_mat_around_a_five_by_five_kingdom_shrinks_to_it(on_mat) -> None:
    photo, pitch = on_mat
    placement = place(photo, _frame(4, 2, 7, pitch), 7, (5, 7), SETTINGS)
    assert (placement.size, placement.rows, placement.cols) == (5, 1, 1)
    assert placement.table_share == 0.0
    # the mat's cells look like the table around the 7×7: it is scored far under the kingdom
    assert placement.runner_up < placement.score - 10


def test_a_frame_one_square_onto_the_mat_moves_back_onto_the_kingdom(on_mat) -> None:
    photo, pitch = on_mat
    placement = place(photo, _frame(6, 3, 5, pitch), 5, (5, 7), SETTINGS)
    assert (placement.size, placement.rows, placement.cols) == (5, 0, -1)


def test_a_frame_on_the_empty_mat_is_no_kingdom(on_mat) -> None:
    photo, pitch = on_mat
    placement = place(photo, _frame(1, 1, 5, pitch), 5, (5,), SETTINGS)
    # the best window within reach reaches a corner of the kingdom, and still holds mostly mat
    assert placement.score < 0.3 * placement.size**2


def test_the_kingdom_on_a_printed_mat_is_framed_not_the_mats_grid(on_mat) -> None:
    photo, pitch = on_mat
    located = locate_kingdom(photo)
    assert located.grid_size == 5, located.path
    truth = np.float64([[5, 3], [10, 3], [10, 8], [5, 8]]) * pitch
    assert np.abs(located.corners - truth).max() < 0.25 * pitch


def test_a_frame_with_a_window_nearly_as_good_beside_it_is_unsure() -> None:
    sure = Verdict(seam_support=0.9, min_support=0.5)
    sure.placement = Placement(0, 0, 5, 23.0, 0.0, 10.0, 0)
    assert not sure.unsure(SETTINGS)
    close = Verdict(seam_support=0.9, min_support=0.5)
    close.placement = Placement(0, 0, 5, 23.0, 0.0, 21.0, 0)
    assert close.unsure(SETTINGS)
    tiles_outside = Verdict(seam_support=0.9, min_support=0.5)
    tiles_outside.placement = Placement(0, 0, 5, 23.0, 0.0, 10.0, SETTINGS.max_artwork_outside + 1)
    assert tiles_outside.unsure(SETTINGS)
