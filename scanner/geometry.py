"""Plane geometry the scanner shares: homographies between the kingdom's grid and the photo, frames.

A frame is an N×N grid seen through a grid -> image homography: grid coordinates (col, row) in [0, N]
map to image pixels. Corners are always listed TL, TR, BR, BL of the grid.
"""

from __future__ import annotations

import cv2
import numpy as np


def apply_homography(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``points`` (k, 2) mapped through the 3×3 ``matrix``: (k, 2)."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    p = np.hstack((points, np.ones((len(points), 1)))) @ np.asarray(matrix, dtype=float).T
    return p[:, :2] / p[:, 2:3]


def frame_corners(grid_to_image: np.ndarray, size: int) -> np.ndarray:
    """The N×N frame's outer corners (TL, TR, BR, BL of the grid) through a grid -> image homography."""
    return apply_homography(grid_to_image, [[0, 0], [size, 0], [size, size], [0, size]])


def frame_homography(corners: np.ndarray, size: int) -> np.ndarray:
    """The grid -> image homography that puts the N×N frame's corners (TL, TR, BR, BL) on ``corners``."""
    frame = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    return cv2.getPerspectiveTransform(frame, np.asarray(corners, np.float32)).astype(np.float64)


def moved_frame(grid_to_image: np.ndarray, rows: float, cols: float) -> np.ndarray:
    """The grid -> image homography of the same lattice with its origin moved by (rows, cols) squares."""
    return grid_to_image @ np.array([[1.0, 0, cols], [0, 1, rows], [0, 0, 1]])


def scaled_frame(grid_to_image: np.ndarray, scale: float, offset: tuple[float, float] = (0, 0)) -> np.ndarray:
    """A frame found on a copy of (part of) the photo scaled by ``scale``, whose origin lies at ``offset``
    in the photo, as a grid -> photo homography."""
    back = np.array([[1 / scale, 0, offset[0]], [0, 1 / scale, offset[1]], [0, 0, 1]])
    return back @ grid_to_image


def square_px(corners: np.ndarray, size: int) -> float:
    """Mean side of one square of the N×N frame with these corners, in their pixels."""
    return float(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).mean() / size)


def image_corners(shape: tuple[int, ...]) -> np.ndarray:
    """The corners (TL, TR, BR, BL) of an image of shape (height, width, ...)."""
    height, width = shape[:2]
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], float)


def image_centre(shape: tuple[int, ...]) -> tuple[float, float]:
    """The centre (x, y) of an image of shape (height, width, ...)."""
    return shape[1] / 2, shape[0] / 2


def covers(grid_to_image: np.ndarray, size: int, point: tuple[float, float]) -> bool:
    """Whether the point (image pixels) lies inside the N×N frame."""
    col, row = apply_homography(np.linalg.inv(grid_to_image), [point])[0]
    return bool(0 <= col <= size and 0 <= row <= size)


def frame_middle(grid_to_image: np.ndarray, size: int) -> tuple[float, float]:
    """The centre of the N×N frame in image pixels."""
    x, y = apply_homography(grid_to_image, [[size / 2, size / 2]])[0]
    return float(x), float(y)


def frames_overlap(one: tuple[np.ndarray, int], other: tuple[np.ndarray, int]) -> bool:
    """Whether either frame (grid -> image homography, N) covers the other's middle: the same kingdom
    framed anew (part of it and some table, say), not another one."""
    return covers(*one, frame_middle(*other)) or covers(*other, frame_middle(*one))


def upright_rotation(corners: np.ndarray) -> int:
    """Which corner (0-3 of TL, TR, BR, BL) becomes top-left when the grid is read upright in the photo.

    Convention: the grid's top edge (TL -> TR) is the frame side whose direction is closest to the
    photo's left-to-right axis, so rows run down the photo as a person would read the board.
    """
    corners = np.asarray(corners, dtype=float)
    best, best_cos = 0, -2.0
    for turns in range(4):
        top = corners[(turns + 1) % 4] - corners[turns]
        cos = top[0] / (np.linalg.norm(top) + 1e-12)
        if cos > best_cos + 1e-9:
            best, best_cos = turns, cos
    return best


def upright_corners(corners: np.ndarray) -> np.ndarray:
    """Corners clockwise on screen (y down), rolled so that the grid reads upright."""
    a, b, c = corners[0], corners[1], corners[2]
    if (b - a)[0] * (c - b)[1] - (b - a)[1] * (c - b)[0] < 0:
        corners = corners[[1, 0, 3, 2]]
    return np.roll(corners, -upright_rotation(corners), axis=0)
