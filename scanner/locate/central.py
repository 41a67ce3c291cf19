"""Two kingdoms in one photo: a second one looked for among the segments outside the first, and the more
central of the two kept (a player frames their own kingdom in the middle of the photo)."""

from __future__ import annotations

import numpy as np

from scanner.geometry import apply_homography, covers, frame_corners, frame_middle, image_centre, square_px
from scanner.locate.lattice import find_lattice
from scanner.locate.segments import CENTRAL


def most_central(segs: np.ndarray, shape: tuple, grid: int | str, lattice: tuple, settings) -> tuple:
    """Look for a second kingdom among the segments outside the first; keep the more central one.

    When the first does not cover the image's centre, the second is first looked for as the first was
    (segments weighed by their distance to the centre), pairing more directions: a complete kingdom off
    the centre can win the first search when it lies square to the table's grain and the central one is
    turned. Otherwise, or if that finds none, the segments outside the first all weigh alike.
    """
    grid_to_work, size, _ = lattice
    mids = apply_homography(np.linalg.inv(grid_to_work), (segs[:, :2] + segs[:, 2:]) / 2)
    outside = ~((mids > -0.6) & (mids < size + 0.6)).all(axis=1)
    if outside.sum() < 12:
        return lattice
    other = None
    if not covers(grid_to_work, size, image_centre(shape)):
        other = find_lattice(segs[outside], shape, grid, settings.second_search_peaks, CENTRAL)
    if other is None:
        other = find_lattice(segs[outside], shape, grid, settings.direction_peaks, None)
    return lattice if other is None else more_central_of(lattice, other, shape)


def alike_squares(one: tuple, other: tuple) -> bool:
    """Whether two frames (grid -> image homography, N, ...) have squares about as large (else one is
    no second kingdom but, say, a lattice in the table's pattern)."""
    ratio = square_px(frame_corners(one[0], one[1]), one[1]) / square_px(
        frame_corners(other[0], other[1]), other[1]
    )
    return 0.6 < ratio < 1.6


def off_centre(frame: tuple, shape: tuple[int, ...]) -> float:
    """Distance (pixels) from a frame's middle to the centre of its (height, width, ...) image."""
    return float(np.linalg.norm(np.subtract(frame_middle(frame[0], frame[1]), image_centre(shape))))


def more_central_of(lattice: tuple, other: tuple, shape: tuple) -> tuple:
    """Of two kingdoms found in one image (grid -> image homography, N, others), the one nearer its
    centre, with the other's centre among its others; ``lattice`` when their squares are not alike."""
    if not alike_squares(other, lattice):
        return lattice
    other_nearer = off_centre(other, shape) < off_centre(lattice, shape)
    chosen, apart = (other, lattice) if other_nearer else (lattice, other)
    to_chosen = np.linalg.inv(chosen[0])
    others = [chosen[2], apply_homography(to_chosen @ apart[0], [[apart[1] / 2, apart[1] / 2], *apart[2]])]
    return chosen[0], chosen[1], np.concatenate(others)
