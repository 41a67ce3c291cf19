"""Accepting what the scanner returned for a photo: a reading, a failed reading, or a refused file.

The page scans (app.py, behind one function) and hands the result or the error here; nothing in this
module runs the scanner. The rules: a refused file changes nothing and says so; a photo in which no
kingdom was read becomes the player's photo with no kingdom (never an earlier or demo reading); a
reading replaces the board, which Undo can bring back.

``page_scan`` turns a ScanResult into what the page keeps of it (a ``PageScan``: the kingdom, the
readings and the two images as JPEG); the scan workers run it (``PoolSettings.finish``), so only that
small record crosses back to the page's server, which then needs none of the scanner's modules.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from kingdomino.board import GRID_SIZES, Kingdom
from page.drawing import encode_jpeg
from page.state import UNDO_NOTE, GridChoice, PageState, PlayerKingdom, keep_for_undo, snapshot
from scanner.errors import PhotoError, ScanError

#: Longest side of the photo kept for display and for placing the frame by hand.
PREVIEW_MAX_PX = 1000
#: Pixels per square of the kept top-down kingdom, as in data/real/boards.
RECTIFIED_SQUARE_PX = 100
DEMO_SOURCE = "demo: a sample kingdom"


@dataclass(frozen=True)
class PageScan:
    """What the page keeps of a reading: the scanner's answer and its images encoded once, at the
    sizes the page shows and stores (``rectified_jpeg`` top-down, ``preview_jpeg`` the photo with
    ``preview_scale`` of its pixels per original photo pixel)."""

    kingdom: Kingdom
    readings: tuple
    flagged: tuple
    corners: Any
    notes: list[str] = field(default_factory=list)
    rectified_jpeg: bytes = b""
    preview_jpeg: bytes | None = None
    preview_scale: float = 1.0


def page_scan(result: Any) -> PageScan:
    """A ScanResult (or anything with its fields) as the page keeps it; a PageScan as it is."""
    if isinstance(result, PageScan):
        return result
    size = result.kingdom.grid_size * RECTIFIED_SQUARE_PX
    rectified = cv2.resize(result.rectified, (size, size), interpolation=cv2.INTER_AREA)
    image = getattr(result, "image", None)
    preview, scale = (None, 1.0) if image is None else _preview(image, _image_per_original(result))
    return PageScan(
        kingdom=result.kingdom,
        readings=tuple(tuple(row) for row in result.readings),
        flagged=tuple(tuple(bool(v) for v in row) for row in result.flagged),
        corners=_corners(getattr(result, "corners", None)),
        notes=list(getattr(result, "notes", []) or []),
        rectified_jpeg=encode_jpeg(_bgr_to_rgb(rectified), 92),
        preview_jpeg=preview,
        preview_scale=scale,
    )


def accept_scan(
    player: PlayerKingdom,
    result: Any,
    photo: bytes,
    source: str,
    grid: GridChoice = "auto",
    photo_id: str | None = None,
    seconds: float | None = None,
) -> None:
    """The scanner read a kingdom (a PageScan, or a ScanResult or anything with its fields): it becomes
    the board."""
    scan = page_scan(result)
    previous = snapshot(player)
    keep_for_undo(player, previous)
    player.base = scan.kingdom
    player.from_scan, player.demo = True, False
    player.edits = []
    player.readings, player.flagged = scan.readings, scan.flagged
    player.photo, player.photo_id, player.source, player.grid_choice = photo, photo_id, source, grid
    player.message = ""
    player.scan_seconds = seconds
    player.notes = list(scan.notes)
    if previous.edits and not previous.demo:
        player.notes.append(UNDO_NOTE)
    player.rectified_jpeg = scan.rectified_jpeg
    player.corners = scan.corners
    if scan.preview_jpeg is not None:
        player.preview_jpeg, player.preview_scale = scan.preview_jpeg, scan.preview_scale


def accept_failure(
    state: PageState,
    error: ScanError,
    photo: bytes,
    source: str,
    grid: GridChoice = "auto",
    photo_id: str | None = None,
    seconds: float | None = None,
) -> bool:
    """The scanner gave up on a photo. Returns True when the photo was taken as the player's (no kingdom
    read in it), False when the file itself was refused and nothing changed (``state.notice`` says so)."""
    reason = _one_line(error) or "no kingdom found in this photo"
    player = state.player
    preview = None if isinstance(error, PhotoError) else _photo_preview(photo)
    if preview is None:
        state.notice = f"{source}: {reason}; your board is unchanged"
        return False
    keep_for_undo(player, snapshot(player))
    player.base, player.from_scan, player.demo = None, False, False
    player.edits, player.readings, player.flagged, player.rectified_jpeg = [], None, None, None
    player.photo, player.photo_id, player.source, player.grid_choice = photo, photo_id, source, grid
    player.message, player.notes, player.scan_seconds, player.corners = reason, [], seconds, None
    player.preview_jpeg, player.preview_scale = preview
    state.notice = ""
    return True


def refuse(state: PageState, source: str, reason: str) -> None:
    """A photo that could not be scanned at all (e.g. the scanner did not start): nothing changes."""
    state.notice = f"{source}: {reason}; your board is unchanged"


def accept_demo(player: PlayerKingdom, result: Any, photo: bytes, name: str) -> None:
    """The bundled sample on a fresh page, labelled as a demo and never ranked."""
    accept_scan(player, result, photo, f"{DEMO_SOURCE} ({name})", photo_id="demo")
    player.demo = True


def scan_hand_grid(grid: GridChoice) -> int:
    """The grid size a frame placed by hand is read with (5 unless 7 was chosen)."""
    return grid if grid in GRID_SIZES else 5


class Stopwatch:
    """Seconds since it was made (the page shows how long a reading took)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start


def _one_line(error: Exception) -> str:
    text = str(error)
    return text.splitlines()[0] if text else ""


def _corners(corners: Any) -> tuple[tuple[float, float], ...] | None:
    if corners is None:
        return None
    points = np.asarray(corners, dtype=float).reshape(4, 2)
    return tuple((round(float(x), 1), round(float(y), 1)) for x, y in points)


def _image_per_original(result: Any) -> float:
    """Pixels of the scanned (reduced) copy per original photo pixel, from the frame in both."""
    homography, corners = getattr(result, "grid_to_image", None), getattr(result, "corners", None)
    if homography is None or corners is None:
        return 1.0
    from scanner.geometry import frame_corners

    on_image = frame_corners(homography, result.grid_size)
    original = np.asarray(corners, dtype=float)
    ratio = _perimeter(on_image) / max(_perimeter(original), 1e-9)
    return ratio if np.isfinite(ratio) and ratio > 0 else 1.0


def _perimeter(points: np.ndarray) -> float:
    return float(np.linalg.norm(points - np.roll(points, -1, axis=0), axis=1).sum())


def _preview(image_bgr: np.ndarray, per_original: float) -> tuple[bytes, float]:
    """The photo reduced for display (RGB JPEG) and its pixels per original photo pixel."""
    height, width = image_bgr.shape[:2]
    scale = min(1.0, PREVIEW_MAX_PX / max(height, width))
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image_bgr = cv2.resize(image_bgr, size, interpolation=cv2.INTER_AREA)
    return encode_jpeg(_bgr_to_rgb(image_bgr), 85), per_original * scale


def _photo_preview(photo: bytes) -> tuple[bytes, float] | None:
    """The photo reduced for display, or None when it cannot be decoded at all."""
    from scanner.imageio import load_photo

    try:
        loaded = load_photo(photo, max_side=PREVIEW_MAX_PX)
    except Exception:  # noqa: BLE001 - a file that cannot be decoded is refused, whatever the reason
        return None
    return _preview(loaded.image, loaded.scale)


def _bgr_to_rgb(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    return cv2.cvtColor(image[:, :, :3], cv2.COLOR_BGR2RGB)
