"""Real photos cropped by other people: the labelled boards and students' crops of the same table photos.

A cropped board's outline is the photo's edge: no seam marks it, so the frame must be the photo and must not
be 'refined' onto a crown or a tree inside the outer squares.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.locate import locate_kingdom

REAL = Path(__file__).resolve().parents[2] / "data" / "real"


def worst_corner_error(found: np.ndarray, width: int, height: int, grid_size: int) -> float:
    """Worst distance of a found corner to the photo's corners, in squares."""
    photo = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    square = (width + height) / 2 / grid_size
    return float(max(np.linalg.norm(photo - corner, axis=1).min() for corner in found) / square)


@pytest.mark.parametrize(
    "name",
    [
        "boards/22.jpg",  # boards 22 and 39 used to be refused
        "boards/39.jpg",
        "boards/8.jpg",
        "alt_crops/mahm09/1268.OP.jpg",  # these three students' crops were refused or placed 0.4 square off
        "alt_crops/nieeeb/5.jpg",
        "alt_crops/nieeeb/unknown3.jpg",
    ],
)
def test_cropped_real_photo_is_located_as_the_whole_photo(name: str) -> None:
    photo = cv2.imread(str(REAL / name))
    height, width = photo.shape[:2]
    located = locate_kingdom(photo)
    assert located.grid_size == 5
    assert worst_corner_error(located.corners, width, height, 5) < 0.1
