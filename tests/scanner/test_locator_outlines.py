"""The seam evidence under motion blur and the lattice fitted inside a colour outline (synthetic views)."""

from __future__ import annotations

import cv2
import numpy as np

from scanner.geometry import frame_corners, frame_homography
from scanner.locate import seam_support
from scanner.locate.regions import lattice_in_outline

SQUARE = 60
ORIGIN = 150


def kingdom_view(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A grey 5×5 kingdom of textured squares with dark seams on a plain table, and its frame corners."""
    rng = np.random.default_rng(seed)
    image = np.full((600, 600), 170, np.float32)
    for row in range(5):
        for col in range(5):
            noise = cv2.GaussianBlur(rng.normal(0, 40, (SQUARE, SQUARE)).astype(np.float32), (0, 0), 1.5)
            top, left = ORIGIN + row * SQUARE, ORIGIN + col * SQUARE
            image[top : top + SQUARE, left : left + SQUARE] = rng.uniform(60, 200) + noise
    for k in range(6):  # the seams between the tiles and around them
        image[ORIGIN + k * SQUARE - 2 : ORIGIN + k * SQUARE + 2, ORIGIN : ORIGIN + 5 * SQUARE] = 20
        image[ORIGIN : ORIGIN + 5 * SQUARE, ORIGIN + k * SQUARE - 2 : ORIGIN + k * SQUARE + 2] = 20
    side = 5 * SQUARE
    corners = np.array([[0, 0], [side, 0], [side, side], [0, side]], float) + ORIGIN
    return np.clip(image, 0, 255).astype(np.uint8), corners


def motion_blurred(image: np.ndarray, length: int) -> np.ndarray:
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length  # a hand moving left and right
    return cv2.filter2D(image, -1, kernel)


def test_a_blurred_kingdom_keeps_its_seam_support_at_its_true_frame() -> None:
    image, corners = kingdom_view()
    frame = frame_homography(corners, 5)
    sharp = seam_support(image, frame, 5)
    blurred = seam_support(motion_blurred(image, 27), frame, 5)  # 0.45 square across the columns' lines
    assert sharp >= 0.9
    assert blurred >= 0.6  # the rows' lines keep their seams; the smeared columns weigh less


def test_a_frame_beside_the_kingdom_stays_off_its_seams_when_blurred() -> None:
    image, corners = kingdom_view()
    beside = frame_homography(corners + [SQUARE / 2, SQUARE / 2], 5)  # half a square off on both axes
    assert seam_support(motion_blurred(image, 27), beside, 5) < 0.5


def test_the_lattice_is_fitted_inside_a_rough_outline() -> None:
    image, corners = kingdom_view(1)
    for blur in (1, 27):
        view = motion_blurred(image, blur) if blur > 1 else image
        # an outline missing most of a column and reaching half a square beyond the top
        rough = corners + np.array([[0.0, -30], [-45, -30], [-45, 0], [0, 0]])
        found = frame_corners(lattice_in_outline(view, rough, 5), 5)
        assert np.abs(found - corners).max() < 0.25 * SQUARE, (blur, found)
