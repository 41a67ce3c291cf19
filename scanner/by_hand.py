"""A frame placed by hand: the four corners a player dragged onto the photo, checked and made a Located.

The page and ``KingdomScanner.scan(..., corners=...)`` read the squares in such a frame instead of the
locator's; a frame that is not four finite corners going round a four-sided shape is a clear ScanError.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.errors import ScanError
from scanner.locate import Located

HAND_FRAME_NOTE = "the squares were read in the frame placed by hand"


def given_corners(corners: np.ndarray, grid: int | str) -> np.ndarray:
    """The (4, 2) frame a caller placed, checked: a clear ScanError for anything else."""
    if grid not in (5, 7):
        raise ScanError("a frame placed by hand needs its grid size: 5 or 7")
    try:
        points = np.asarray(corners, dtype=float).reshape(4, 2)
    except (TypeError, ValueError):
        raise ScanError(
            "the frame needs four corners (x, y): top-left, top-right, bottom-right, bottom-left"
        ) from None
    if not np.isfinite(points).all():
        raise ScanError("the frame's corners must be finite numbers")
    edges = np.roll(points, -1, axis=0) - points
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    if not ((turns > 0).all() or (turns < 0).all()):
        raise ScanError("the frame's corners must go round a four-sided shape without crossing")
    return points


def located_by_hand(corners: np.ndarray, n: int, to_original) -> Located:
    """The frame a player placed (original photo pixels) on the decoded copy that ``to_original`` maps."""
    per_original = 1.0 if to_original is None else 1.0 / to_original(np.ones((1, 2)))[0]
    on_image = corners * per_original
    frame = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    homography = cv2.getPerspectiveTransform(frame, on_image.astype(np.float32)).astype(np.float64)
    side = float(np.linalg.norm(on_image - np.roll(on_image, -1, axis=0), axis=1).mean()) / n
    return Located(
        n, on_image, homography, side, notes=[HAND_FRAME_NOTE], path=["placed by hand"], found_by="hand"
    )
