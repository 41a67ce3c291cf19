"""Candidate outlines from colour regions: the kingdom as a blob of colours the table lacks.

A generator that needs no sharp seam: on a small copy (where a shaking hand's blur is a few pixels) the
pixels unlike every colour of the table's border form blobs; the outline of a blob about a kingdom's
size, as a quadrilateral, is a candidate frame. The lattice inside it is then refined on the seams and
judged like every other candidate (scanner.locate.search).

The table around a kingdom is not always the photo's border: a cutting mat, a printed grid or a cloth
laid on the table is a blob unlike the border too, with the kingdom inside it. Such a blob is a surface:
its own colours are those along its rim, and the kingdom is the blob of colours unlike the border's and
the rim's together (``on_surfaces``).

The blobs are closed over the seams; when that outlines no kingdom, over a whole square: a kingdom's dark
squares (forests, a lake in dim light) may share a cloth's colours and break its blob into pieces.

A table that repeats itself along the border (a check cloth, gingham: ``table_repeat``) is the same one
period away everywhere, in its light and its shade alike, while a kingdom's squares are not: on such a
table a pixel is unlike the table by its distance to the copies shifted by the table's periods, not to the
border's colours (a kingdom's yellow squares share a yellow gingham's colour, a shadow band does not). The
table matches its copies on every side; a kingdom's square as wide as a period may match a like square
beside it, on that side only, so a last look asks a pixel of the table to match ``repeat_matches`` of them.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.locate.border import nearest_distance, palette, table_lab
from scanner.locate.settings import LocatorSettings

OUTLINE_PX = 160  # rectified side of a blob's outline when the lattice is fitted in it
OUTLINE_MARGIN = 0.3  # of the outline's side, looked at around it (a blob misses dark squares)
COMB_PITCH = (0.75, 1.35)  # pitches tried, of the outline's side over N (the blob may miss a row)


def without_light(lab: np.ndarray, side: int, settings: LocatorSettings) -> np.ndarray:
    """``lab`` with the light's slow changes taken out: less its Gaussian blur over ``repeat_light_sigma`` of
    ``side`` (the copy's longest side), so that a table repeats in its light and its shade alike."""
    return lab - cv2.GaussianBlur(lab, (0, 0), settings.repeat_light_sigma * side)


def table_repeat(small: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """(k, 2) shifts (x, y; the copy's pixels) under which the table along the copy's border repeats: the
    two shortest periods of a check cloth or a gingham, each both ways, from the autocorrelation of the
    colours of the border strips, ``repeat_border`` of the side wide (the light's slow changes taken out).
    A period is a peak inside the shifts looked at (one on their edge may still be rising) that reaches
    ``min_repeat_correlation``: the strongest, and the strongest across it. Empty when none does."""
    strip = max(settings.min_repeat_strip, round(settings.repeat_border * max(small.shape[:2])))
    reach = min(strip, *small.shape[:2]) // 2  # a thin photo's strips are thinner than ``strip``
    total = np.zeros((2 * reach + 1, 2 * reach + 1), np.float64)
    for part in (small[:strip], small[-strip:], small[:, :strip], small[:, -strip:]):
        lab = without_light(table_lab(np.ascontiguousarray(part)), max(small.shape[:2]), settings)
        height, width = part.shape[:2]
        size = (cv2.getOptimalDFTSize(2 * height), cv2.getOptimalDFTSize(2 * width))
        power = 0  # the colours the distance is measured in (two checks of one grey differ): summed
        for channel in range(3):
            power = power + np.abs(np.fft.rfft2(lab[..., channel] - lab[..., channel].mean(), s=size)) ** 2
        correlation = np.fft.fftshift(np.fft.irfft2(power, s=size))
        middle = (size[0] // 2, size[1] // 2)
        total += correlation[
            middle[0] - reach : middle[0] + reach + 1, middle[1] - reach : middle[1] + reach + 1
        ]
    total = (total / max(total[reach, reach], 1e-9)).astype(np.float32)  # compared with its own dilation
    dy, dx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    inside = (np.abs(dx) < reach) & (np.abs(dy) < reach)
    peaks = (total >= cv2.dilate(total, np.ones((3, 3), np.uint8))) & inside
    peaks &= np.hypot(dx, dy) >= settings.min_repeat_px
    peaks &= (dy > 0) | ((dy == 0) & (dx > 0))  # each shift once: its opposite is the same period
    strength = np.where(peaks, total, -np.inf).ravel()
    order = np.argsort(-strength)
    if not np.isfinite(strength[order[0]]) or strength[order[0]] < settings.min_repeat_correlation:
        return np.zeros((0, 2))
    shifts = np.stack([dx.ravel()[order], dy.ravel()[order]], axis=1).astype(np.float64)
    first = shifts[0]
    periods = [first]
    strong = int((strength >= settings.min_repeat_correlation).sum())
    across = settings.repeat_across * np.linalg.norm(first)
    for shift in shifts[1:strong]:  # the strongest period across the first
        if abs(np.dot(first, shift)) < across * np.linalg.norm(shift):
            periods.append(shift)
            break
    return np.concatenate([np.array(periods), -np.array(periods)])


def repeat_distance(lab: np.ndarray, shifts: np.ndarray, matches: int = 1) -> np.ndarray:
    """Each pixel's distance (table-Lab) to the ``matches``-th nearest of the copy's pixels ``shifts`` away
    (at most all of them): on a table that repeats by them, the table's own colour there whatever the
    light. A pixel of the table matches its copies on every side but where a shadow's edge or the photo's
    edge lies between them; a kingdom's square whose neighbour one period away is a like square (a square
    about a period wide) matches on that side only."""
    height, width = lab.shape[:2]
    distances = []
    for dx, dy in shifts:
        moved = cv2.warpAffine(
            lab, np.float32([[1, 0, -dx], [0, 1, -dy]]), (width, height), borderMode=cv2.BORDER_REFLECT
        )
        distances.append(np.sqrt(np.sum((lab - moved) ** 2, axis=2)))
    rank = min(max(1, matches), len(distances)) - 1
    return np.partition(np.stack(distances), rank, axis=0)[rank]


def unlike_table_mask(
    small: np.ndarray,
    table: np.ndarray,
    settings: LocatorSettings,
    closing: float | None = None,
    repeat: np.ndarray | None = None,
    matches: int = 1,
) -> np.ndarray:
    """uint8 mask of a small copy's pixels unlike every table colour, closed over ``closing`` (the share of
    the copy's longest side: ``region_closing``, over seams, when None; a whole square on the second look)
    and with holes filled (a kingdom's blob is solid). ``repeat``: the shifts the table repeats by
    (``table_repeat``); when there are any, a pixel is unlike the table by its ``repeat_distance`` to the
    ``matches``-th nearest of its copies. With more than one, the light's slow changes are taken out first,
    as when the periods were measured: the nearest copy lies on a pixel's own side of a shadow's edge, but
    the second may lie across it (a band a period wide along the edge, not a narrow line)."""
    lab = table_lab(small)
    if repeat is not None and len(repeat):
        if matches > 1:
            lab = without_light(lab, max(small.shape[:2]), settings)
        distance = cv2.blur(repeat_distance(lab, repeat, matches), (3, 3))
    else:
        distance = cv2.blur(nearest_distance(lab, table), (3, 3))
    scaled = np.clip(4 * distance, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # a plain table is all alike: Otsu would split its noise, so the threshold is never below a colour step
    mask = (scaled > max(otsu, 4 * settings.table_distance)).astype(np.uint8) * 255
    closing = settings.region_closing if closing is None else closing
    side = max(3, round(closing * max(small.shape[:2])) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


class UnlikeTable:
    """A small copy's masks of pixels unlike the table (the colour regions attempt's looks), each made once
    per closing and number of period-shifted copies to match (0: by the table's colours alone); the table's
    periods are measured only when a look asks for them: a photo the border's colours settle never needs
    them."""

    def __init__(self, small: np.ndarray, table: np.ndarray, settings: LocatorSettings):
        self.small, self.table, self.settings = small, table, settings
        self.masks = {(settings.region_closing, 0): unlike_table_mask(small, table, settings)}
        self.repeat: np.ndarray | None = None

    def unlike_table(self, closing: int, periods: int) -> np.ndarray | None:
        """The mask of a look, or None when the table does not repeat (a look by periods) or when a look by
        periods asks again for a mask already looked into."""
        key = (closing, periods)
        if periods:
            if self.repeat is None:
                self.repeat = table_repeat(self.small, self.settings)
            if not len(self.repeat) or key in self.masks:
                return None
            self.masks[key] = unlike_table_mask(
                self.small, self.table, self.settings, closing, self.repeat, periods
            )
        elif key not in self.masks:
            self.masks[key] = unlike_table_mask(self.small, self.table, self.settings, closing)
        return self.masks[key]


def on_surfaces(
    small: np.ndarray,
    mask: np.ndarray,
    table: np.ndarray,
    min_side: float,
    count: int,
    settings: LocatorSettings,
    closing: float | None = None,
) -> np.ndarray:
    """uint8 mask of what lies on the surfaces the mask's most central ``count`` blobs at least
    ``min_side`` pixels across may be (a mat, a cloth under the kingdom; a smaller blob holds no readable
    kingdom): inside each blob, the pixels unlike the table's colours and the colours along the blob's own
    rim (``table_palette`` of them). A kingdom's own blob gives its inner artwork unlike its outer
    squares, which the judge refuses as it refuses any rough outline. ``closing``: as in
    ``unlike_table_mask``."""
    side = max(3, round(settings.surface_rim * max(small.shape[:2])) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contours = [c for c in contours if min(cv2.boundingRect(c)[2:]) >= min_side]
    middle = np.array([small.shape[1] / 2, small.shape[0] / 2])
    contours.sort(key=lambda c: float(np.linalg.norm(c.reshape(-1, 2).mean(axis=0) - middle)))
    lab = table_lab(small)
    found = np.zeros_like(mask)
    for contour in contours[:count]:
        blob = np.zeros_like(mask)
        cv2.drawContours(blob, [contour], -1, 255, -1)
        inner = cv2.erode(blob, kernel)
        rim = lab[(blob > 0) & (inner == 0)]
        if len(rim) < settings.table_palette * settings.rim_pixels_per_colour:
            continue
        colours = palette(rim, settings.table_palette)
        unlike = unlike_table_mask(small, np.concatenate([table, colours]), settings, closing)
        found |= unlike & blob
    return found


def blob_outlines(mask: np.ndarray, min_side: float, count: int) -> list[list[np.ndarray]]:
    """Quadrilaterals (4, 2; TL, TR, BR, BL around their middle) of up to ``count`` of the mask's blobs at
    least ``min_side`` pixels across and not touching the copy's edge, the most central blob first. Each
    blob gives two, in one list: its hull simplified to four corners (right under perspective) and its
    minimum-area rectangle (right when the blob misses a corner of the kingdom: a dark square, the
    castle)."""
    height, width = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    blobs = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if min(w, h) < min_side or x <= 0 or y <= 0 or x + w >= width or y + h >= height:
            continue  # too small to hold a readable kingdom, or cut by the photo's edge (a neighbour's)
        hull = cv2.convexHull(contour).reshape(-1, 2).astype(np.float64)
        quad = quadrilateral(hull)
        # a blob much less than its quadrilateral is no kingdom's outline (a cable, a hand, a shadow)
        if cv2.contourArea(contour) >= 0.6 * cv2.contourArea(np.float32(quad)):
            box = frame_order(cv2.boxPoints(cv2.minAreaRect(np.float32(hull))).astype(np.float64))
            blobs.append([quad, box])
    middle = np.array([width / 2, height / 2])
    blobs.sort(key=lambda shapes: float(np.linalg.norm(shapes[0].mean(axis=0) - middle)))
    return blobs[:count]


def quadrilateral(hull: np.ndarray) -> np.ndarray:
    """The four corners of a convex hull (perspective keeps a square's outline a quadrilateral): the hull
    simplified to four points when it allows, else its minimum-area rectangle; in frame order."""
    perimeter = cv2.arcLength(np.float32(hull), True)
    corners = None
    for share in (0.02, 0.04, 0.06, 0.08, 0.1):
        approx = cv2.approxPolyDP(np.float32(hull), share * perimeter, True).reshape(-1, 2)
        if len(approx) == 4:
            corners = approx.astype(np.float64)
            break
        if len(approx) < 4:
            break
    if corners is None:
        corners = cv2.boxPoints(cv2.minAreaRect(np.float32(hull))).astype(np.float64)
    return frame_order(corners)


def frame_order(corners: np.ndarray) -> np.ndarray:
    """Corners around their middle clockwise on the image (y down), the top-left-most first."""
    middle = corners.mean(axis=0)
    angles = np.arctan2(corners[:, 1] - middle[1], corners[:, 0] - middle[0])
    ordered = corners[np.argsort(angles)]
    first = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -first, axis=0)


def lattice_in_outline(gray: np.ndarray, outline: np.ndarray, size: int) -> np.ndarray:
    """The grid -> image homography of the N×N lattice a blob's outline (4, 2; image pixels) holds.

    A blob's outline is only roughly the kingdom's (dark squares join the table, a small copy is coarse),
    so the lattice is fitted inside it: the outline and a margin around it rectified, the gradients across
    each axis summed along it into a profile, and on each axis the comb of N + 1 lines (pitch and phase)
    whose lines sit on the profile's peaks more than its cells' middles do. Blur spares the kingdom's
    outer edges (a smeared step still peaks where it was), so a comb fits an axis whose inner seams are
    gone too."""
    side = OUTLINE_PX
    margin = OUTLINE_MARGIN * side
    to_rect = cv2.getPerspectiveTransform(
        np.float32(outline),
        np.float32(
            [
                [margin, margin],
                [margin + side, margin],
                [margin + side, margin + side],
                [margin, margin + side],
            ]
        ),
    )
    extent = round(side + 2 * margin)
    rect = cv2.warpPerspective(gray, to_rect, (extent, extent), borderMode=cv2.BORDER_REPLICATE)
    rect = rect.astype(np.float32)
    inner = slice(round(margin), round(margin + side))
    rows = np.abs(cv2.Sobel(rect, cv2.CV_32F, 0, 1, ksize=3))[:, inner].mean(axis=1)
    cols = np.abs(cv2.Sobel(rect, cv2.CV_32F, 1, 0, ksize=3))[inner, :].mean(axis=0)
    pitch_y, phase_y = _comb(cv2.GaussianBlur(rows.reshape(-1, 1), (1, 0), 1.5).ravel(), size, side)
    pitch_x, phase_x = _comb(cv2.GaussianBlur(cols.reshape(-1, 1), (1, 0), 1.5).ravel(), size, side)
    grid_to_rect = np.array([[pitch_x, 0, phase_x], [0, pitch_y, phase_y], [0, 0, 1.0]])
    return np.linalg.inv(to_rect) @ grid_to_rect


def _comb(profile: np.ndarray, size: int, side: float) -> tuple[float, float]:
    """(pitch, phase) of the N + 1 evenly spaced lines on a profile's peaks: the most contrast between
    the profile at the lines and at the middles between them, lines within the profile."""
    pitches = np.arange(COMB_PITCH[0] * side / size, COMB_PITCH[1] * side / size, 0.5)
    spans = pitches * size
    best = (-np.inf, side / size, 0.0)
    positions = np.arange(len(profile), dtype=float)
    for pitch, span in zip(pitches, spans, strict=True):
        phases = np.arange(0.0, len(profile) - 1 - span, 1.0)
        if not len(phases):
            continue
        lines = phases[:, None] + pitch * np.arange(size + 1)
        middles = phases[:, None] + pitch * (np.arange(size) + 0.5)
        score = np.interp(lines, positions, profile).mean(axis=1) - np.interp(
            middles, positions, profile
        ).mean(axis=1)
        k = int(np.argmax(score))
        if score[k] > best[0]:
            best = (float(score[k]), float(pitch), float(phases[k]))
    return best[1], best[2]
