"""Debug drawings, so a person can see what the scanner saw: the lattice on the photo and the labels."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from kingdomino.labels import SquareReading
from scanner.geometry import apply_homography

OVERLAY_MAX_SIDE = 1600
FRAME_COLOUR = (60, 220, 60)
SEAM_COLOUR = (0, 220, 255)
FLAG_COLOUR = (40, 40, 230)
SEGMENT_COLOUR = (255, 0, 200)
CANDIDATE_COLOUR = (40, 40, 230)


def draw_lattice(
    image: np.ndarray,
    grid_to_image: np.ndarray,
    grid_size: int,
    max_side: int = OVERLAY_MAX_SIDE,
    frame_colour: tuple[int, int, int] = FRAME_COLOUR,
) -> np.ndarray:
    """A display-sized copy of the photo with the N×N lattice and the corner names (TL, TR, BR, BL)."""
    canvas, scale = _display_copy(image, max_side)
    to_canvas = np.diag([scale, scale, 1.0]) @ np.asarray(grid_to_image, float)
    thick = max(2, round(max(canvas.shape[:2]) / 400))
    steps = np.linspace(0, grid_size, 8 * grid_size + 1)
    for k in range(grid_size + 1):
        colour = frame_colour if k in (0, grid_size) else SEAM_COLOUR
        width_px = thick + 1 if k in (0, grid_size) else max(1, thick - 1)
        for line in (np.c_[steps, np.full_like(steps, k)], np.c_[np.full_like(steps, k), steps]):
            points = np.round(apply_homography(to_canvas, line) * 4).astype(np.int32)
            cv2.polylines(canvas, [points], False, colour, width_px, cv2.LINE_AA, shift=2)
    corners = apply_homography(to_canvas, [[0, 0], [grid_size, 0], [grid_size, grid_size], [0, grid_size]])
    for name, point in zip(("TL", "TR", "BR", "BL"), corners, strict=True):
        x, y = (int(v) for v in np.round(point))
        cv2.circle(canvas, (x, y), thick * 3, frame_colour, -1, cv2.LINE_AA)
        _label(canvas, name, (x + thick * 4, y - thick * 2), 0.5 + thick * 0.2)
    return canvas


def draw_search(
    image: np.ndarray,
    segments: np.ndarray | None,
    candidates: Sequence[tuple[np.ndarray, int]] = (),
    max_side: int = OVERLAY_MAX_SIDE,
) -> np.ndarray:
    """Why no kingdom was found: the detected line segments (magenta) and the best candidate frames
    (red), each refused by the locator's judge. Coordinates are ``image`` pixels; candidates are
    (grid -> image homography, N)."""
    canvas, scale = _display_copy(image, max_side)
    if segments is not None and len(segments):
        ends = np.round(np.asarray(segments, float).reshape(-1, 2, 2) * scale * 4).astype(np.int32)
        cv2.polylines(canvas, list(ends), False, SEGMENT_COLOUR, 1, cv2.LINE_AA, shift=2)
    for grid_to_image, grid_size in candidates:
        to_canvas = np.diag([scale, scale, 1.0]) @ np.asarray(grid_to_image, float)
        canvas = draw_lattice(canvas, to_canvas, grid_size, max_side, CANDIDATE_COLOUR)
    return canvas


def draw_readings(
    rectified: np.ndarray, readings: Sequence[Sequence[SquareReading]], flagged: np.ndarray | None = None
) -> np.ndarray:
    """The rectified kingdom with each square's reading (e.g. ``G2 0.97``); flagged squares boxed in red."""
    canvas = rectified.copy()
    n = len(readings)
    square = canvas.shape[0] / n
    for r, row in enumerate(readings):
        for c, reading in enumerate(row):
            x0, y0 = int(c * square), int(r * square)
            token = reading.square.token
            if flagged is not None and flagged[r][c]:
                cv2.rectangle(
                    canvas, (x0 + 2, y0 + 2), (int(x0 + square) - 3, int(y0 + square) - 3), FLAG_COLOUR, 3
                )
            _label(canvas, token, (x0 + 6, y0 + int(square * 0.3)), square / 110)
            _label(canvas, f"{reading.confidence:.2f}", (x0 + 6, int(y0 + square) - 8), square / 220)
    for k in range(n + 1):
        p = int(round(k * square))
        cv2.line(canvas, (p, 0), (p, canvas.shape[0]), SEAM_COLOUR, 1)
        cv2.line(canvas, (0, p), (canvas.shape[1], p), SEAM_COLOUR, 1)
    return canvas


def _display_copy(image: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """A copy of the photo at most ``max_side`` pixels long (drawn on, never the original), and its scale."""
    scale = min(1.0, max_side / max(image.shape[:2]))
    if scale < 1:
        return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), scale
    return image.copy(), scale


def _label(canvas: np.ndarray, text: str, origin: tuple[int, int], scale: float) -> None:
    """White text with a dark outline, readable on any terrain."""
    thickness = max(1, round(scale * 2))
    cv2.putText(canvas, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thickness + 2, cv2.LINE_AA)
    cv2.putText(
        canvas, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), thickness, cv2.LINE_AA
    )
