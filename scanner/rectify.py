"""Warp the located kingdom to a top-down image and cut it into square crops for the classifier."""

from __future__ import annotations

import cv2
import numpy as np

from scanner.geometry import apply_homography

#: Pixels per square of the rectified kingdom: the resolution of the labelled board crops the
#: classifier was trained on (data/real/boards: 100 px per square).
SQUARE_PX = 100
#: Margin policy: each crop is exactly its cell of the lattice (0.0), as in the training boards, whose
#: crops also hold a sliver of the seams. A positive value widens the crop by that fraction of a square
#: on each side, a negative one trims it.
CROP_MARGIN = 0.0


def rectify(
    image: np.ndarray, grid_to_image: np.ndarray, grid_size: int, square_px: int = SQUARE_PX
) -> np.ndarray:
    """Top-down image of the N×N frame, ``square_px`` pixels per square.

    A photo whose squares are much larger than ``square_px`` is first reduced by area averaging
    (around the kingdom only), so that the warp does not alias fine print and crowns.
    """
    frame = np.array([[0, 0], [grid_size, 0], [grid_size, grid_size], [0, grid_size]], float)
    corners = apply_homography(grid_to_image, frame)
    side = float(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).max()) / grid_size
    homography = np.asarray(grid_to_image, dtype=float)
    factor = 1.5 * square_px / side
    if factor < 1.0:
        height, width = image.shape[:2]
        x0, y0 = np.clip(np.floor(corners.min(0) - 0.2 * side), 0, None).astype(int)
        x1 = int(min(width, np.ceil(corners[:, 0].max() + 0.2 * side)))
        y1 = int(min(height, np.ceil(corners[:, 1].max() + 0.2 * side)))
        if x1 > x0 and y1 > y0:
            crop = image[y0:y1, x0:x1]
            size = (max(1, round((x1 - x0) * factor)), max(1, round((y1 - y0) * factor)))
            image = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
            to_small = np.array([[size[0] / (x1 - x0), 0, 0], [0, size[1] / (y1 - y0), 0], [0, 0, 1]])
            homography = to_small @ np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ homography
    to_rect = np.diag([square_px, square_px, 1.0]) @ np.linalg.inv(homography)
    out = grid_size * square_px
    return cv2.warpPerspective(
        image, to_rect, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def cut_squares(rectified: np.ndarray, grid_size: int, margin: float = CROP_MARGIN) -> list[np.ndarray]:
    """The N×N square crops, row by row, following the margin policy (clipped to the image)."""
    square = rectified.shape[0] / grid_size
    pad = int(round(margin * square))
    crops = []
    for row in range(grid_size):
        for col in range(grid_size):
            y0 = max(0, int(round(row * square)) - pad)
            x0 = max(0, int(round(col * square)) - pad)
            y1 = min(rectified.shape[0], int(round((row + 1) * square)) + pad)
            x1 = min(rectified.shape[1], int(round((col + 1) * square)) + pad)
            crops.append(rectified[y0:y1, x0:x1])
    return crops
