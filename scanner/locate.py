"""Find the kingdom's lattice of squares in a photo."""

from __future__ import annotations

import numpy as np


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
