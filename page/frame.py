"""Placing the frame by hand: the player moves the four corners of the squares grid on the photo.

Works with what Streamlit offers without a custom component: the photo reports a press and a release
(streamlit-image-coordinates with click_and_drag). A drag that starts on a corner moves it to where it
ends (a mouse); a tap near a corner selects it and the next tap away from the corners puts it there (a
phone, where a drag scrolls the page); a tap away from the corners with none selected moves the nearest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from page.state import Corners

#: A tap within this share of the photo's longer side from a corner is on that corner.
GRAB_SHARE = 0.06
#: A press and release closer than this share of the longer side are a tap, not a drag.
TAP_SHARE = 0.015


@dataclass
class FrameDraft:
    """The frame being placed: corners in original photo pixels, the grid size, the selected corner."""

    corners: Corners
    grid_size: int = 5
    selected: int | None = None


def default_corners(width: float, height: float) -> Corners:
    """A centred square covering most of a ``width``×``height`` photo, to start placing from."""
    side = 0.6 * min(width, height)
    x0, y0 = (width - side) / 2, (height - side) / 2
    return ((x0, y0), (x0 + side, y0), (x0 + side, y0 + side), (x0, y0 + side))


def start_draft(corners: Corners | None, grid_size: int, width: float, height: float) -> FrameDraft:
    """The draft for a photo: the frame the scanner used, or a default one when it found none."""
    return FrameDraft(corners if corners is not None else default_corners(width, height), grid_size)


def on_pointer(
    draft: FrameDraft, start: tuple[float, float], end: tuple[float, float], longest: float
) -> FrameDraft:
    """Apply one press/release on the photo (original pixels; ``longest`` is its longer side)."""
    points = np.asarray(draft.corners, dtype=float)
    start_xy, end_xy = np.asarray(start, float), np.asarray(end, float)
    grab, tap = GRAB_SHARE * longest, TAP_SHARE * longest
    near = np.linalg.norm(points - start_xy, axis=1)
    if np.linalg.norm(end_xy - start_xy) > tap:  # a drag: the corner it started on follows it
        index = int(np.argmin(near))
        if near[index] > grab:
            return draft
        return FrameDraft(_moved(draft.corners, index, end_xy), draft.grid_size, index)
    others = [i for i in range(4) if i != draft.selected and near[i] <= grab]
    if others:  # a tap on another corner selects it
        return FrameDraft(draft.corners, draft.grid_size, min(others, key=lambda i: near[i]))
    index = draft.selected if draft.selected is not None else int(np.argmin(near))
    return FrameDraft(_moved(draft.corners, index, end_xy), draft.grid_size, index)


def on_event(draft: FrameDraft, event: dict, preview_shape: tuple[int, ...], scale: float) -> FrameDraft:
    """Apply a press/release reported on the displayed preview (``event``: x1, y1, x2, y2 or x, y, and the
    displayed width); ``scale`` is preview pixels per original pixel."""
    per_display = preview_shape[1] / max(event["width"], 1) / scale  # original px per screen px
    start = (
        event.get("x1", event.get("x", 0)) * per_display,
        event.get("y1", event.get("y", 0)) * per_display,
    )
    end = (event.get("x2", event.get("x", 0)) * per_display, event.get("y2", event.get("y", 0)) * per_display)
    return on_pointer(draft, start, end, max(preview_shape[:2]) / scale)


def _moved(corners: Corners, index: int, point: np.ndarray) -> Corners:
    moved = list(corners)
    moved[index] = (round(float(point[0]), 1), round(float(point[1]), 1))
    return tuple(moved)


def display_to_photo(
    x: float, y: float, width: float, height: float, size: tuple[int, int]
) -> tuple[float, float]:
    """A point on the displayed preview (``width``×``height`` on screen) in the preview image's pixels."""
    return x * size[0] / max(width, 1e-9), y * size[1] / max(height, 1e-9)


def is_convex(corners: Corners) -> bool:
    """Whether the four corners go round a four-sided shape without crossing (a frame the scanner reads)."""
    points = np.asarray(corners, dtype=float)
    edges = np.roll(points, -1, axis=0) - points
    after = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * after[:, 1] - edges[:, 1] * after[:, 0]
    return bool((turns > 0).all() or (turns < 0).all())
