"""Find the kingdom's lattice of squares in a photo and the homography that maps its frame.

How: the seams and outline of the tiles are straight lines in two directions. On a downscaled copy
(first a ~1000 px one; a 1600 px one when that finds nothing sure, e.g. for a small kingdom),
line segments (LSD) are grouped by direction, each group's vanishing point is fitted with RANSAC and
the two vanishing points rectify the table plane up to an axis scaling. In that plane the seams form a
regular comb on each axis: its pitch and phase give a lattice of cells. Each cell is scored by how much
of its four sides is covered by seam segments (tiles are closed by seams, the table is not); the N×N
window (5 or 7) with the most tile-like cells is the kingdom (a 5×5 one becomes the 7×7 around it when
the ring it adds is tiles on the same lattice too). Its frame lines are then refined on the image
gradients, and the content is checked (a chessboard is a lattice too, but not a colourful one; flat-colour
squares are, but without the pictures printed on tiles).

Orientation convention of the result: the grid is read upright as seen in the photo: its top edge
(top-left -> top-right corner) is the frame side whose direction is closest to the photo's
left-to-right axis (see ``upright_rotation``).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from kingdomino.board import GRID_SIZES
from scanner.errors import KingdomNotFoundError

WORK_SIDE = 1600  # longest side of the copy the lattice is searched on
#: The fast path first searches a copy reduced by an integer factor to at most this side (0: never);
#: its lattice is kept when its squares are at least COARSE_MIN_SQUARE_PX there (see _coarse_search).
COARSE_SIDE = 1000
COARSE_MIN_SQUARE_PX = 28
FINE_PASSES = 2  # refinement passes at FINE_CELL_PX on the photo after a fast-path find
MIN_SQUARE_PX = 20  # smaller squares (in the original photo) cannot be read reliably
REFINE_CELL_PX = 48  # rectified resolution used to refine the frame lines
FINE_CELL_PX = 96  # the same, for the last pass on the full-resolution photo
#: Share of the lattice's sides that must sit on a seam: ~0.7-0.9 for kingdoms on generated scenes,
#: under 0.4 for the table patterns and stray lattices that got this far.
MIN_SEAM_SUPPORT = 0.5
#: The same for a lattice found window by window, which sees part of the photo only (kingdoms found so
#: on generated scenes: >= 0.72; a flat-colour grid's wrong-pitch lattice over the table: 0.52).
MIN_WINDOW_SEAM_SUPPORT = 0.6
#: Squares seen from at most ~45° off overhead: the frame's shorter pair of sides is at least this share
#: of the longer pair (generated scenes, tilt up to 40°: >= 0.77). A lattice stretched along one axis is
#: a wrong pitch, not a kingdom.
MIN_ASPECT = 0.65
NOT_FOUND = (
    "no kingdom found in the photo: no grid of Kingdomino squares is visible "
    "(take the photo from above and in focus, from closer if the kingdom is small, with all of it in view)"
)

CUT_OFF = "the kingdom seems cut off by the edge of the photo: take the photo with the whole kingdom in view"


@dataclass
class Located:
    """Where the kingdom is: grid size, frame corners and the grid -> photo homography (original pixels)."""

    grid_size: int
    corners: np.ndarray  # (4, 2) TL, TR, BR, BL in original pixels
    homography: np.ndarray  # grid coordinates (col, row) in [0, N] -> original pixels
    square_px: float  # mean side of one square in the original photo, in pixels
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    deblurred: bool = False  # found only on a reduced or sharpened copy of a blurred photo (_locate_blurred)


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


def apply_homography(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    p = np.c_[points, np.ones(len(points))] @ np.asarray(matrix, dtype=float).T
    return p[:, :2] / p[:, 2:3]


# --- line segments and vanishing points -------------------------------------------------------------
def _segments(gray: np.ndarray) -> np.ndarray:
    """LSD segments (n, 4) x1 y1 x2 y2 longer than a few pixels."""
    # local contrast normalisation: dim, warm evening photos otherwise lose most seams
    equalised = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(gray)
    lines = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(equalised)[0]
    if lines is None:
        return np.zeros((0, 4))
    lines = lines.reshape(-1, 4).astype(np.float64)
    length = np.hypot(lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1])
    return lines[length >= max(6.0, 0.006 * max(gray.shape))]


#: Strongest segment directions paired in the lattice search, and in the search for a more central
#: kingdom beside an off-centre one (where the table's grain and the first kingdom's neighbours compete).
DIRECTION_PEAKS = 3
SECOND_SEARCH_PEAKS = 5


def _dominant_directions(angles: np.ndarray, weights: np.ndarray, count: int) -> list[tuple[float, float]]:
    """Pairs (radians mod pi, at least 30° apart) among the strongest segment directions, best first."""
    hist = np.bincount((np.degrees(angles).astype(int) % 180), weights=weights, minlength=180)
    kernel = np.exp(-0.5 * (np.arange(-8, 9) / 2.0) ** 2)
    smooth = np.convolve(np.r_[hist[-8:], hist, hist[:8]], kernel, mode="same")[8:-8]
    peaks: list[int] = []
    for t in np.argsort(-smooth):
        if smooth[t] <= 0.12 * smooth.max() or len(peaks) == count:
            break
        if all(abs((t - p + 90) % 180 - 90) >= 12 for p in peaks):
            peaks.append(int(t))
    pairs = []
    for i, a in enumerate(peaks):
        for b in peaks[i + 1 :]:
            if abs((a - b + 90) % 180 - 90) >= 30:
                pairs.append((math.radians(a), math.radians(b)))
    return pairs


def _vanishing_point(
    lines: np.ndarray, mids: np.ndarray, dirs: np.ndarray, weights: np.ndarray, threshold: np.ndarray, rng
) -> tuple:
    """RANSAC vanishing point (homogeneous) of a family of segments, and the inlier mask."""
    n = len(lines)
    pairs = rng.integers(0, n, size=(min(250, n * n), 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    candidates = np.cross(lines[pairs[:, 0]], lines[pairs[:, 1]])
    candidates = candidates[np.isfinite(candidates).all(axis=1) & (np.abs(candidates).max(axis=1) > 1e-12)]
    if len(candidates) == 0:
        return None, None
    # A segment is an inlier of a candidate when the sine of the angle between the segment and the
    # direction from its midpoint m to the candidate (X, Y, W) is under the threshold. That direction is
    # (X - W mx, Y - W my) (W = 0: a point at infinity), so the cross product and squared norm are sums of
    # per-candidate times per-segment terms: two small matrix products for every pair at once.
    x, y, w = candidates.T
    mx, my = mids.T
    cross = np.c_[y, -x, -w] @ np.array([dirs[:, 0], dirs[:, 1], dirs[:, 0] * my - dirs[:, 1] * mx])
    norm2 = np.c_[x * x + y * y, -2 * w * x, -2 * w * y, w * w] @ np.array(
        [np.ones(len(mids)), mx, my, mx * mx + my * my]
    )
    inliers = cross * cross < (threshold * threshold)[None, :] * norm2
    best = int(np.argmax(inliers @ weights))
    best_v, best_mask = candidates[best], inliers[best]
    for _ in range(2):  # least squares on the inliers, then re-select
        if best_mask.sum() < 2:
            return None, None
        a = lines[best_mask] * np.sqrt(weights[best_mask])[:, None]
        best_v = np.linalg.svd(a, full_matrices=False)[2][-1]
        best_mask = _consistent(best_v, mids, dirs) < threshold * 1.3
    return best_v, best_mask


def _consistent(v: np.ndarray, mids: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """|sin| of the angle between each segment and the direction from its midpoint to v."""
    if abs(v[2]) < 1e-9:
        to_v = np.broadcast_to(v[:2], mids.shape)
    else:
        to_v = v[:2] / v[2] - mids
        to_v = to_v * np.sign(v[2])
    norm = np.linalg.norm(to_v, axis=1) + 1e-12
    return np.abs(dirs[:, 0] * to_v[:, 1] - dirs[:, 1] * to_v[:, 0]) / norm


# --- lattice in the rectified plane ----------------------------------------------------------------
def _combs(
    values: np.ndarray, lo: np.ndarray, hi: np.ndarray, weights: np.ndarray, count: int = 3
) -> list[tuple[float, float]]:
    """Candidate (pitch, phase) of the comb of parallel seams on one axis.

    The pitch comes from the offsets between pairs of segments that run side by side (overlapping
    extents): neighbouring seams of one kingdom do, far-away clutter does not.
    """
    if len(values) < 3:
        return []
    if len(values) > 400:  # the longest segments carry the seams; bound the pair count
        keep = np.argsort(-(hi - lo))[:400]
        values, lo, hi, weights = values[keep], lo[keep], hi[keep], weights[keep]
    i, j = _pairs(len(values))
    overlap = np.minimum(hi[i], hi[j]) - np.maximum(lo[i], lo[j])
    keep = np.flatnonzero(overlap > 0)
    i, j, overlap = i[keep], j[keep], overlap[keep]
    diff = np.abs(values[i] - values[j])
    pair_weight = np.sqrt(weights[i] * weights[j]) * overlap
    # weighted histogram of the offsets, bins [0, 1), [1, 2) ... [449, 450]
    near = diff <= 450
    bins = np.minimum(diff[near], 449).astype(int)
    hist = np.bincount(bins, weights=pair_weight[near], minlength=450).astype(np.float64)
    hist = cv2.GaussianBlur(hist.reshape(1, -1).astype(np.float64), (0, 0), 2.0).ravel()
    middle = hist[15:449]
    maxima = (
        np.flatnonzero((middle >= hist[14:448]) & (middle >= hist[16:450]) & (middle > 0)) + 15
    ).tolist()
    peaks: list[int] = []
    for t in sorted(maxima, key=lambda t: -hist[t]):  # strongest first, one per ±12 % of pitch
        if len(peaks) < count and all(abs(t - p) > 0.12 * p for p in peaks):
            peaks.append(t)
    if peaks:  # blurred or same-terrain seams can hide every other line: also try a half and a third
        peaks += [
            peaks[0] // k
            for k in (2, 3)
            if peaks[0] // k >= 15 and all(abs(peaks[0] // k - p) > 2 for p in peaks)
        ]
    result = []
    for t in peaks:
        pitch = float(t)
        denom = hist[t - 1] - 2 * hist[t] + hist[t + 1]
        if t in maxima and denom < 0:  # sub-bin pitch: parabolic peak
            pitch = t + 0.5 * (hist[t - 1] - hist[t + 1]) / denom
        result.append((pitch, _phase(values, weights, pitch)))
    return result


@functools.lru_cache(maxsize=8)
def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices (i, j) of every pair i < j of n items (np.triu_indices, kept: the combs ask for it often)."""
    i, j = np.triu_indices(n, k=1)
    i.flags.writeable = j.flags.writeable = False
    return i, j


def _phase(values: np.ndarray, weights: np.ndarray, pitch: float) -> float:
    """Offset of the comb of the given pitch that the most (weighted) lines agree with."""
    bins = max(8, int(round(pitch * 2)))
    index = np.floor((values % pitch) / pitch * bins).astype(int) % bins
    hist = np.bincount(index, weights=weights, minlength=bins).astype(np.float64)
    spread = 2.5 / pitch * bins  # ±2.5 plane units
    offsets = np.arange(-3 * int(spread + 1), 3 * int(spread + 1) + 1)
    kernel = np.exp(-0.5 * (offsets / max(spread, 0.5)) ** 2)
    reach = len(offsets) // 2
    padded = np.r_[hist[-reach:], hist, hist[:reach]] if reach else hist
    smooth = np.convolve(padded, kernel, mode="valid")[:bins]
    return (int(np.argmax(smooth)) + 0.5) * pitch / bins


def _side_coverage(
    along: np.ndarray,
    across_lo: np.ndarray,
    across_hi: np.ndarray,
    pitch_a: float,
    phase_a: float,
    pitch_b: float,
    phase_b: float,
    n_a: tuple[int, int],
    n_b: tuple[int, int],
    tolerance: float,
) -> np.ndarray:
    """Coverage (0-1) of each lattice side lying on the lines of one family, shape (lines, cells)."""
    index = np.round((along - phase_a) / pitch_a).astype(int)
    near = (np.abs(along - (phase_a + index * pitch_a)) < tolerance * pitch_a) & (
        (index >= n_a[0]) & (index <= n_a[1])
    )
    coverage = np.zeros((n_a[1] - n_a[0] + 1, n_b[1] - n_b[0]))
    if near.any():
        # each segment's extent in cell units, against every cell [c, c + 1): overlap clipped at 0
        lo = (across_lo[near] - phase_b) / pitch_b
        hi = (across_hi[near] - phase_b) / pitch_b
        starts = np.arange(n_b[0], n_b[1], dtype=float)
        overlap = np.minimum(hi[:, None], starts + 1) - np.maximum(lo[:, None], starts)
        line_of = np.zeros((len(lo), coverage.shape[0]))  # one-hot: which lattice line each segment is on
        line_of[np.arange(len(lo)), index[near] - n_a[0]] = 1.0
        coverage = line_of.T @ np.maximum(overlap, 0.0)  # summed per line (np.add.at is far slower)
    return np.minimum(coverage, 1.0)


# --- the search ------------------------------------------------------------------------------------
@dataclass
class _Trace:
    """What the search saw so far, drawn on the photo when no kingdom is found."""

    work: np.ndarray | None = None
    segments: np.ndarray | None = None
    candidate: tuple[np.ndarray, int] | None = None  # (grid -> work homography, N)


def locate_kingdom(image: np.ndarray, grid: int | str = "auto", grayscale: bool = False) -> Located:
    """Find the kingdom in a BGR photo. Raises KingdomNotFoundError with a reason a player understands.

    The error carries an ``overlay``: the segments and the best candidate lattice drawn on the photo.
    """
    trace = _Trace()
    try:
        located = _locate(image, grid, grayscale, trace)
    except KingdomNotFoundError as error:
        found = None
        if image is not None and image.ndim == 3:
            # a tablecloth's lattice outvoted the kingdom: first search the colours unlike the table
            if str(error) == TABLE_PATTERN:
                found = _locate_unlike_table(image, grid, grayscale) or _locate_zoomed(image, grid, grayscale)
            elif str(error) == NOT_FOUND:
                found = (
                    _locate_zoomed(image, grid, grayscale)
                    or _locate_unlike_table(image, grid, grayscale)
                    or _locate_blurred(image, grid, grayscale)
                )
        if found is not None:
            return found
        if error.overlay is None and trace.work is not None:
            from scanner.overlay import draw_search

            error.overlay = draw_search(trace.work, trace.segments, trace.candidate)
        raise
    return _central_instead(image, grid, grayscale, located)


def _central_instead(image: np.ndarray, grid: int | str, grayscale: bool, located: Located) -> Located:
    """``located``, or the kingdom at the photo's centre when ``located`` lies beside it: a kingdom in
    the middle that every search missed (faint, or small beside a larger one) may show in the central
    window enlarged. The central one is taken when it covers the photo's centre, has squares about as
    large and lies apart from ``located``."""
    first = _found(located)
    if _covers_centre(first, image.shape):
        return located
    central = _locate_zoomed(image, grid, grayscale, [(0.5, 0.5)])
    if central is None or not _covers_centre(_found(central), image.shape):
        return located
    if not _alike_squares(_found(central), first):  # a lattice in the table's pattern, say
        return located
    if _overlap(_found(central), first):  # the same kingdom framed anew, part of it and some table: no other
        return located
    central.notes = [TWO_KINGDOMS_NOTE]
    central.timings = {**located.timings, "locate.zoomed": central.timings["locate.zoomed"]}
    return central


#: A kingdom too small for the searches above (squares under about 35 px on the WORK_SIDE copy: a photo
#: of the whole table) is looked for again in windows ZOOM_HALF_SIDE of the photo's longest side around
#: the photo's most colourful patches (the most central first), each enlarged to WORK_SIDE (at most
#: MAX_ZOOM times). Only patches whose colours vary at least ZOOM_MIN_SPREAD: less is plain table, not
#: worth the search (small generated kingdoms, 8-15 % of the photo wide, 40 scenes: 9.5-40; the tests'
#: table textures 4.6-7).
ZOOM_HALF_SIDE = 0.2
MAX_ZOOM = 3.0
ZOOM_MIN_SPREAD = 8.0


#: The last search, when every other found no grid: a table with a strong grain (wood, stripes) outvotes
#: the kingdom's seams in the direction histogram even in windows. The photo's border shows the table, so
#: only the segments on or near (TABLE_REACH of the copy's longest side, about half a square of a kingdom
#: half the photo wide) pixels unlike every colour of the border are searched. The colours are compared on
#: a TABLE_SIDE copy, median-filtered, in Lab with the lightness weighed half (grain and shadows vary it).
TABLE_SIDE = 640
TABLE_BORDER = 0.04  # of the copy's longest side: the strip the table's colours are taken from
TABLE_COLOURS = 6
TABLE_REACH = 0.06


def _locate_unlike_table(image: np.ndarray, grid: int | str, grayscale: bool) -> Located | None:
    """The kingdom found among the segments unlike the table at the photo's border, or None."""
    if grayscale or not _colourful_patches(image, ZOOM_MIN_SPREAD):  # a plain table: nothing to find
        return None
    start = time.perf_counter()
    try:
        found = _locate(image, grid, grayscale, _Trace(), unlike_table=True)
    except KingdomNotFoundError:
        return None
    found.timings["locate.unlike_table"] = time.perf_counter() - start
    return found


#: The last tries when no search found a grid: blur (out of focus, a moving hand) smears the seams between
#: the squares under the segment detector's threshold. First the photo reduced to BLUR_REDUCE of its size
#: (the blur shrinks with it), then an unsharp-masked copy (SHARPEN_AMOUNT, a Gaussian of SHARPEN_SIGMA of
#: the photo's longest side), each searched as the photo was. A frame found on either is mapped back to the
#: photo, whose own pixels are read. Of the 13 photos of the outside check (seeds 0-299) that every other
#: search refused as showing no grid, 6 are read with the exact score this way (5 on the reduced copy), 3
#: are refused as unreliable (scanner.recognizer.BLURRED_MAX_FLAGGED) and none is read wrong.
BLUR_REDUCE = 0.5
SHARPEN_AMOUNT = 3.0
SHARPEN_SIGMA = 0.003


def _locate_blurred(image: np.ndarray, grid: int | str, grayscale: bool) -> Located | None:
    """The kingdom found on a reduced, then on a sharpened copy of a blurred photo (in the photo's pixels),
    or None."""
    start = time.perf_counter()

    def copies():
        yield (
            cv2.resize(image, None, fx=BLUR_REDUCE, fy=BLUR_REDUCE, interpolation=cv2.INTER_AREA),
            BLUR_REDUCE,
        )
        blurred = cv2.GaussianBlur(image, (0, 0), SHARPEN_SIGMA * max(image.shape[:2]))
        yield cv2.addWeighted(image, 1 + SHARPEN_AMOUNT, blurred, -SHARPEN_AMOUNT, 0), 1.0

    for copy, scale in copies():  # the sharpened copy only when the reduced one shows no kingdom
        if min(copy.shape[:2]) < 32:
            continue
        try:
            found = _locate(copy, grid, grayscale, _Trace())
        except KingdomNotFoundError:
            # (not the enlarged windows: those of the photo itself found nothing)
            found = _locate_unlike_table(copy, grid, grayscale)
        if found is None or found.square_px / scale < MIN_SQUARE_PX:
            continue
        found.deblurred = True
        return _in_photo(found, scale, (0, 0), {"locate.blurred": time.perf_counter() - start})
    return None


def _table_lab(image: np.ndarray) -> np.ndarray:
    """The colours the table is compared in: Lab with the lightness weighed half, median-filtered."""
    lab = cv2.cvtColor(cv2.medianBlur(image, 5), cv2.COLOR_BGR2LAB).astype(np.float32)
    return lab * np.float32([0.5, 1, 1])


def _table_copy(work: np.ndarray) -> np.ndarray:
    """The TABLE_SIDE copy the table's colours are taken on."""
    factor = TABLE_SIDE / max(work.shape[:2])
    return cv2.resize(work, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)


def _border_strips(image: np.ndarray) -> list[np.ndarray]:
    """The strips along the four edges of a TABLE_SIDE copy, TABLE_BORDER wide: the table."""
    strip = max(4, round(TABLE_BORDER * max(image.shape[:2])))
    return [image[:strip], image[-strip:], image[:, :strip].swapaxes(0, 1), image[:, -strip:].swapaxes(0, 1)]


def _table_colours(pixels: np.ndarray) -> np.ndarray:
    """TABLE_COLOURS k-means centres of (m, 3) table-Lab pixels of the border."""
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(0)  # k-means++ seeds from OpenCV's generator: the same photo, the same colours
    _, _, colours = cv2.kmeans(pixels, TABLE_COLOURS, None, criteria, 2, cv2.KMEANS_PP_CENTERS)
    return colours


def _unlike_table(work: np.ndarray, segs: np.ndarray) -> np.ndarray:
    """Mask of the segments whose middle lies on or near pixels unlike every colour of the photo's border."""
    factor = TABLE_SIDE / max(work.shape[:2])
    lab = _table_lab(_table_copy(work))
    colours = _table_colours(np.concatenate([strip.reshape(-1, 3) for strip in _border_strips(lab)]))
    distance = np.linalg.norm(lab.reshape(-1, 1, 3) - colours[None], axis=2).min(axis=1)
    distance = cv2.blur(distance.reshape(lab.shape[:2]), (7, 7))
    _, unlike = cv2.threshold(
        np.clip(4 * distance, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU
    )
    reach = round(TABLE_REACH * TABLE_SIDE) | 1
    unlike = cv2.dilate(unlike, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
    mids = np.clip(
        ((segs[:, :2] + segs[:, 2:]) / 2 * factor).astype(int), 0, [lab.shape[1] - 1, lab.shape[0] - 1]
    )
    return unlike[mids[:, 1], mids[:, 0]] > 0


def _found(located: Located) -> tuple[np.ndarray, int]:
    """A located kingdom as the searches pass a found one: (grid -> image homography, N)."""
    return located.homography, located.grid_size


def _overlap(one: tuple, other: tuple) -> bool:
    """Whether either found kingdom's frame (grid -> image homography, N, ...) covers the other's middle."""
    return _covers(one[0], one[1], _middle(other)) or _covers(other[0], other[1], _middle(one))


def _locate_zoomed(
    image: np.ndarray, grid: int | str, grayscale: bool, centres: list[tuple[float, float]] | None = None
) -> Located | None:
    """The kingdom found in an enlarged window of the photo, in the photo's pixels; None when no window
    holds one. The windows lie around ``centres`` (0-1 photo units), by default the colourful patches,
    the most central first."""
    start = time.perf_counter()
    height, width = image.shape[:2]
    half = round(ZOOM_HALF_SIDE * max(height, width))
    zoom = min(MAX_ZOOM, WORK_SIDE / (2 * half))  # 2.5 times (or MAX_ZOOM) the whole photo's work copy
    if centres is None:
        centres = sorted(
            _colourful_patches(image, ZOOM_MIN_SPREAD),
            key=lambda xy: math.hypot((xy[0] - 0.5) * width, (xy[1] - 0.5) * height),
        )
    # a photo over 4000 px: the window is shrunk, but still searched finer than the whole photo was
    interpolation = cv2.INTER_AREA if zoom < 1 else cv2.INTER_LINEAR
    for x, y in centres:
        left = int(np.clip(x * width - half, 0, max(0, width - 2 * half)))
        top = int(np.clip(y * height - half, 0, max(0, height - 2 * half)))
        window = image[top : top + 2 * half, left : left + 2 * half]
        enlarged = cv2.resize(window, None, fx=zoom, fy=zoom, interpolation=interpolation)
        try:
            found = _locate(enlarged, grid, grayscale, _Trace())
        except KingdomNotFoundError:
            continue
        if found.square_px / zoom < MIN_SQUARE_PX:
            continue
        return _in_photo(found, zoom, (left, top), {"locate.zoomed": time.perf_counter() - start})
    return None


def _in_photo(found: Located, scale: float, offset: tuple[int, int], timings: dict[str, float]) -> Located:
    """``found`` on a copy of (part of) the photo scaled by ``scale`` whose origin lies at ``offset`` in the
    photo, mapped back to the photo's pixels, with ``timings`` added."""
    corners = found.corners / scale + offset
    size = found.grid_size
    return Located(
        size,
        corners,
        _grid_to(corners, size),
        found.square_px / scale,
        found.notes,
        {**found.timings, **timings},
        deblurred=found.deblurred,
    )


def _locate(
    image: np.ndarray, grid: int | str, grayscale: bool, trace: _Trace, unlike_table: bool = False
) -> Located:
    """``unlike_table``: no fast path; the full search and its windows on the segments unlike the table
    only (see _locate_unlike_table)."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    if image is None or image.ndim != 3 or min(image.shape[:2]) < 32:
        raise KingdomNotFoundError("the photo is too small to hold a kingdom")
    height, width = image.shape[:2]
    full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    coarse = None if unlike_table else _coarse_search(image, grid, grayscale, timings)
    # the fast path decides alone only on a kingdom at the photo's centre: on its small copy a dim or
    # turned kingdom in the middle can go unseen beside another one (the full search then compares both)
    central = coarse is not None and _covers_centre(coarse, image.shape)
    found = _confirm(full, *coarse, timings) if central and coarse[-1] else None
    if found is None:  # "locate.coarse": time lost on a refused, unsure or skipped fast path
        timings = {"locate.coarse": time.perf_counter() - start}
        try:
            found = _full_search(image, full, grid, grayscale, trace, timings, unlike_table)
        except KingdomNotFoundError:
            # the full search can miss what the fast path found with small squares: a second opinion
            found = _confirm(full, *coarse, timings) if coarse is not None else None
            if found is None:
                raise
        else:
            if coarse is not None:  # the fast path's unsure lattice may be another, more central kingdom
                found = _more_central(full, found, coarse, timings)
    grid_to_image, size, others = found
    others = apply_homography(grid_to_image, others)  # in the photo: the lattice may still grow
    if size == 5 and grid == "auto":
        t0 = time.perf_counter()
        grown = _grow_to_seven(image, full, grid_to_image, grayscale)
        if grown is not None:
            grid_to_image, size = grown, 7
        timings["locate.grow"] = time.perf_counter() - t0
    corners = _ordered(_snap_to_photo(frame_corners(grid_to_image, size), size, (height, width)))
    homography = _grid_to(corners, size)
    square_px = _square_px(corners, size)
    if not np.isfinite(corners).all():
        raise KingdomNotFoundError(NOT_FOUND)
    # another kingdom only if it lies outside this one (a 5×5 window's ring, once grown, is the kingdom)
    notes = [TWO_KINGDOMS_NOTE] if any(not _covers(homography, size, point) for point in others) else []
    return Located(size, corners, homography, square_px, notes, timings)


def _more_central(full: np.ndarray, found: tuple, coarse: tuple, timings: dict[str, float]) -> tuple:
    """The full search's kingdom, or the fast path's unsure one when that is another kingdom, nearer the
    photo's centre and confirmed on the photo (the most central kingdom is the one scanned)."""
    grid_to_image, size, others = found
    if _covers(grid_to_image, size, _middle(coarse)):
        return found  # the same kingdom
    if _off_centre(coarse, full.shape) >= _off_centre(found, full.shape) or not _alike_squares(coarse, found):
        return found
    spent: dict[str, float] = {}
    confirmed = _confirm(full, *coarse, spent)
    timings["locate.fine_refine"] = timings.get("locate.fine_refine", 0.0) + sum(spent.values())
    if confirmed is None:
        return found
    grid_to_other, other_size, other_others = confirmed
    apart = apply_homography(np.linalg.inv(grid_to_other), [_middle(found)])
    return grid_to_other, other_size, np.concatenate([other_others, apart])


def moved_frame(grid_to_image: np.ndarray, rows: float, cols: float) -> np.ndarray:
    """The grid -> image homography of the same lattice with its origin moved by (rows, cols) squares."""
    return grid_to_image @ np.array([[1.0, 0, cols], [0, 1, rows], [0, 0, 1]])


def frame_corners(grid_to_image: np.ndarray, size: int) -> np.ndarray:
    """The N×N frame's outer corners (TL, TR, BR, BL of the grid) through a grid -> image homography."""
    return apply_homography(grid_to_image, [[0, 0], [size, 0], [size, size], [0, size]])


def _grid_to(corners: np.ndarray, size: int) -> np.ndarray:
    """The grid -> image homography that puts the N×N frame's corners (TL, TR, BR, BL) on ``corners``."""
    frame = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    return cv2.getPerspectiveTransform(frame, np.asarray(corners, np.float32)).astype(np.float64)


def _photo_corners(shape: tuple[int, ...]) -> np.ndarray:
    height, width = shape[:2]
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], float)


def _beyond_photo(corners: np.ndarray, size: int, shape: tuple[int, ...]) -> bool:
    """True when the frame reaches more than half a square outside the photo (a kingdom not seen whole)."""
    height, width = shape[:2]
    return bool(np.maximum(-corners, corners - [width, height]).max() > 0.5 * _square_px(corners, size))


def _coarse_search(
    image: np.ndarray, grid: int | str, grayscale: bool, timings: dict[str, float]
) -> tuple[np.ndarray, int, np.ndarray, bool, bool] | None:
    """The fast path: the lattice found on a copy about COARSE_SIDE pixels wide.

    Returns (grid -> image homography, N, others, cropped, sure) when the whole search (every refusal
    check) passes on that copy; ``sure`` when its squares are at least COARSE_MIN_SQUARE_PX there
    (smaller squares: seams a pixel wide, the full search on the WORK_SIDE copy decides first).
    """
    height, width = image.shape[:2]
    factor = math.ceil(max(height, width) / COARSE_SIDE) if COARSE_SIDE else 0
    if factor < 2:
        return None  # no coarse copy worth the name: the full search is just as fast
    t0 = time.perf_counter()
    # an integer reduction of a crop to a multiple of it: area averaging then costs almost nothing
    kept = image[: height - height % factor, : width - width % factor]
    small = cv2.resize(kept, (kept.shape[1] // factor, kept.shape[0] // factor), interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    timings["locate.downscale"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    segs = _segments(gray)
    timings["locate.segments"] = time.perf_counter() - t0
    try:
        grid_to_small, size, others = _search(
            small, gray, segs, grid, grayscale, 1 / factor, CENTRAL, timings
        )
    except KingdomNotFoundError:
        return None
    sure = _square_px(frame_corners(grid_to_small, size), size) >= COARSE_MIN_SQUARE_PX
    cropped = _photo_frame(grid_to_small, size, gray.shape) is not None
    return np.diag([factor, factor, 1.0]) @ grid_to_small, size, others, cropped, sure


def _confirm(
    full: np.ndarray,
    grid_to_image: np.ndarray,
    size: int,
    others: np.ndarray,
    cropped: bool,
    sure: bool,
    timings: dict[str, float],
) -> tuple[np.ndarray, int, np.ndarray] | None:
    """A fast-path lattice refined on the photo itself, if it still sits on seams there (else None)."""
    if cropped:  # a cropped board: the photo's frame, nothing to refine
        return grid_to_image, size, others
    t0 = time.perf_counter()
    grid_to_image = _refine(full, grid_to_image, size)
    supported = seam_support(full, grid_to_image, size) >= MIN_SEAM_SUPPORT
    if supported:
        for _ in range(FINE_PASSES):
            grid_to_image = _refine(full, grid_to_image, size, FINE_CELL_PX)
    timings["locate.fine_refine"] = time.perf_counter() - t0
    return (grid_to_image, size, others) if supported else None


def _full_search(
    image: np.ndarray,
    full: np.ndarray,
    grid: int | str,
    grayscale: bool,
    trace: _Trace,
    timings: dict,
    unlike_table: bool = False,
) -> tuple[np.ndarray, int, np.ndarray]:
    """The lattice searched on the WORK_SIDE copy (then window by window), refined on the photo.

    ``unlike_table``: on the segments unlike the table only (the windows too).
    """
    start = time.perf_counter()
    height, width = image.shape[:2]
    scale = min(1.0, WORK_SIDE / max(height, width))
    # the segments are found on the grey copy, reduced with area averaging; the colour copy only serves the
    # content check and the colourful patches (squares many pixels wide): a plain bilinear reduction is
    # enough there and several times faster on three channels
    gray = cv2.resize(full, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else full
    work = cv2.resize(image, gray.shape[::-1], interpolation=cv2.INTER_LINEAR) if scale < 1 else image
    trace.work = work
    timings["locate.downscale"] = time.perf_counter() - start
    t0 = time.perf_counter()
    segs = _segments(gray)
    if unlike_table:
        segs = segs[_unlike_table(work, segs)]
    trace.segments = segs
    timings["locate.segments"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        grid_to_work, size, others = _search(
            work,
            gray,
            segs,
            grid,
            grayscale,
            scale,
            CENTRAL,
            timings,
            trace,
            min_support=MIN_WINDOW_SEAM_SUPPORT if unlike_table else MIN_SEAM_SUPPORT,
        )
    except KingdomNotFoundError as refusal:
        if str(refusal) == TABLE_PATTERN and not unlike_table:
            raise  # its windows would find more of the cloth: search the colours unlike the table instead
        # A cropped board whose seams are too faint for the segment search may still be the whole
        # photo; a small kingdom on a busy table (wood grain, dim light) is outvoted in the whole-photo
        # direction histogram: look again, window by window, before giving up.
        found, refusals = _photo_as_frame(work, gray, grid, grayscale, scale), []
        if found is None:
            found, refusals = _search_windows(work, gray, segs, grid, grayscale, scale)
        timings["locate.windows"] = time.perf_counter() - t0
        if found is None:  # a tablecloth's lattice, else the first reason more precise than "no grid"
            reasons = [refusal, *refusals]
            raise next(
                (error for error in reasons if str(error) == TABLE_PATTERN),
                next((error for error in reasons if str(error) != NOT_FOUND), refusal),
            ) from None
        grid_to_work, size, others = found
    else:
        if not _covers_centre((grid_to_work, size), gray.shape):
            # a kingdom off the photo's centre: the windows, the most central first, can hold another one
            # whose lattice the whole photo's segments do not close (holes, faint seams beside a sharper one)
            t1 = time.perf_counter()
            nearer, _ = _search_windows(work, gray, segs, grid, grayscale, scale)
            timings["locate.windows"] = time.perf_counter() - t1
            if nearer is not None and not _covers(grid_to_work, size, _middle(nearer)):
                grid_to_work, size, others = _more_central_of(
                    (grid_to_work, size, others), nearer, gray.shape
                )
    # last pass on the photo itself (not the reduced copy), finer: the frame lines to a pixel or so
    t0 = time.perf_counter()
    to_work = np.diag([scale, scale, 1.0])
    grid_to_image = np.linalg.inv(to_work) @ grid_to_work
    if _photo_frame(grid_to_work, size, gray.shape) is None:  # a cropped board keeps the photo's frame
        grid_to_image = _refine(full, grid_to_image, size, FINE_CELL_PX)
    timings["locate.fine_refine"] = time.perf_counter() - t0
    return grid_to_image, size, others


def _search(
    work: np.ndarray,
    gray: np.ndarray,
    segs: np.ndarray,
    grid: int | str,
    grayscale: bool,
    scale: float,
    focus: Focus,
    timings: dict[str, float] | None = None,
    trace: _Trace | None = None,
    min_support: float = MIN_SEAM_SUPPORT,
    tiles: float = 1.0,
) -> tuple[np.ndarray, int, np.ndarray]:
    """Find, refine and check one lattice: (grid -> work homography, N, others); raises if refused.

    ``others``: (k, 2) grid coordinates (col, row) of the centres of other kingdoms seen in the photo.
    """
    timings = {} if timings is None else timings
    t0 = time.perf_counter()
    lattice = _find_lattice(segs, gray.shape, grid, focus, tiles)
    if lattice is None:
        raise KingdomNotFoundError(NOT_FOUND)
    if focus == CENTRAL:
        lattice = _most_central(segs, gray.shape, grid, lattice)
    grid_to_work, size, others = lattice
    timings["locate.lattice"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cropped = _photo_frame(grid_to_work, size, gray.shape)
    for _ in range(2):
        if trace is not None:
            trace.candidate = (grid_to_work, size)
        grid_to_work = _refine(gray, grid_to_work, size)
    if trace is not None:
        trace.candidate = (grid_to_work, size)
    timings["locate.refine"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if seam_support(gray, grid_to_work, size) < min_support:
        # A cropped board's outline is the photo's edge, with no seam to refine on or to count:
        # its frame is the photo's, and only its inner lines must sit on seams.
        if cropped is None or seam_support(gray, cropped, size, inner_only=True) < min_support:
            raise KingdomNotFoundError(NOT_FOUND)
        grid_to_work = cropped
    corners_work = frame_corners(grid_to_work, size)
    sides = np.linalg.norm(corners_work - np.roll(corners_work, -1, axis=0), axis=1)
    pairs = (sides[0] + sides[2], sides[1] + sides[3])
    if min(pairs) < MIN_ASPECT * max(pairs):
        raise KingdomNotFoundError(NOT_FOUND)
    if _beyond_photo(corners_work, size, gray.shape):
        raise KingdomNotFoundError(CUT_OFF)
    square_px = _square_px(corners_work / scale, size)
    if square_px < MIN_SQUARE_PX:
        raise KingdomNotFoundError(
            f"the kingdom is too small in the photo (squares are about {square_px:.0f} px, at least "
            f"{MIN_SQUARE_PX} px are needed): take the photo from closer"
        )
    _check_content(work, grid_to_work, size, grayscale)
    timings["locate.check"] = time.perf_counter() - t0
    return grid_to_work, size, others


#: A 5×5 window can be the middle of a Mighty Duel kingdom whose outer squares closed fewer cells in the
#: lattice search (shadows, a castle model, faint seams): the 5×5 is grown to the 7×7 window around it
#: when the ring of 24 squares it adds is made of tiles too. Share of the ring's sides on a seam, first
#: on the 5×5's lattice extended as it is (a quick screen), then on the refined 7×7 lattice, and ring
#: squares closed on at least 3 sides. Generated scenes: Mighty Duel kingdoms read as 5×5 >= 0.57 / 0.72 /
#: 16; 5×5 kingdoms (with loose dominoes or another kingdom nearby) <= 0.31 / 0.29 / 3.
GROW_SCREEN = 0.4
GROW_RING = 0.5
GROW_CLOSED = 10


def _grow_to_seven(
    work: np.ndarray, gray: np.ndarray, grid_to_work: np.ndarray, grayscale: bool
) -> np.ndarray | None:
    """The grid -> work homography of the 7×7 kingdom a 5×5 window lies in, or None if it is a 5×5 kingdom."""

    def ring_sides(across: np.ndarray, along: np.ndarray, row: int, col: int) -> np.ndarray:
        """Sides on a seam per square of a 7×7 window whose inner 5×5 starts at (row, col)."""
        sides = across[:-1].astype(int) + across[1:] + along[:-1].T + along[1:].T
        ring = np.ones(sides.shape, bool)
        ring[row : row + 5, col : col + 5] = False
        return sides[ring]

    across, along = _side_hits(gray, moved_frame(grid_to_work, -2, -2), 9)  # the 9×9 around the 5×5
    options = []
    for top in range(3):
        for left in range(3):
            window = (across[top : top + 8, left : left + 7], along[left : left + 8, top : top + 7])
            options.append((ring_sides(*window, 2 - top, 2 - left).mean() / 4, top, left))
    screen, top, left = max(options)
    if screen < GROW_SCREEN:
        return None
    grown = moved_frame(grid_to_work, top - 2, left - 2)
    if _beyond_photo(frame_corners(grown, 7), 7, gray.shape):
        return None  # not a kingdom seen whole
    for cell in (REFINE_CELL_PX, FINE_CELL_PX):
        grown = _refine(gray, grown, 7, cell)
    sides = ring_sides(*_side_hits(gray, grown, 7), 2 - top, 2 - left)
    if sides.mean() / 4 < GROW_RING or (sides >= 3).sum() < GROW_CLOSED:
        return None
    if seam_support(gray, grown, 7) < MIN_SEAM_SUPPORT:
        return None
    try:
        _check_content(work, grown, 7, grayscale)
    except KingdomNotFoundError:
        return None
    return grown


def _square_px(corners: np.ndarray, size: int) -> float:
    return float(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).mean() / size)


CROPPED_ASPECT = (0.8, 1.25)  # width / height of a photo that may be a cropped board


def _photo_as_frame(
    work: np.ndarray, gray: np.ndarray, grid: int | str, grayscale: bool, scale: float
) -> tuple[np.ndarray, int, np.ndarray] | None:
    """The photo itself as the frame of a cropped board, when its inner seams and squares say so."""
    height, width = gray.shape
    if not CROPPED_ASPECT[0] <= width / height <= CROPPED_ASPECT[1]:
        return None
    best: tuple[float, np.ndarray, int] | None = None
    for size in GRID_SIZES if grid == "auto" else (int(grid),):
        if min(height, width) / scale / size < MIN_SQUARE_PX:
            continue
        grid_to_work = _grid_to(_photo_corners(gray.shape), size)
        for _ in range(2):
            grid_to_work = _refine(gray, grid_to_work, size, keep_outline=True)
        support = seam_support(gray, grid_to_work, size, inner_only=True)
        if support >= MIN_SEAM_SUPPORT and (best is None or support > best[0]):
            try:
                _check_content(work, grid_to_work, size, grayscale)
            except KingdomNotFoundError:
                continue
            best = (support, grid_to_work, size)
    return None if best is None else (best[1], best[2], NO_OTHERS)


WINDOW_SIDE = 0.5  # of the photo's width and height
WINDOW_STRIDE = 0.25


def _search_windows(
    work: np.ndarray, gray: np.ndarray, segs: np.ndarray, grid: int | str, grayscale: bool, scale: float
) -> tuple[tuple[np.ndarray, int, np.ndarray] | None, list[KingdomNotFoundError]]:
    """The lattice found in the most central window of the photo that holds an accepted kingdom.

    Windows are half the photo on each axis, a quarter apart, so a kingdom up to a quarter of the
    photo wide lies whole in one of them; each window's segments are searched on their own. When none
    holds a kingdom, smaller windows (SMALL_WINDOWS) are tried around the photo's centre and the most
    colourful patches in the middle half of the photo, the more central first: a small kingdom on a
    busy table is outvoted by the wood grain even in a window half the photo wide. A kingdom found in
    a small window must cover its centre.
    Returns (the lattice or None, why the windows before it were refused).
    """
    height, width = gray.shape
    norm = float(max(height, width))
    starts = np.arange(0, 1 - WINDOW_SIDE + 1e-9, WINDOW_STRIDE)
    windows = [(x + WINDOW_SIDE / 2, y + WINDOW_SIDE / 2) for y in starts for x in starts]
    windows.sort(key=lambda xy: abs(xy[0] - 0.5) + abs(xy[1] - 0.5))
    half_x, half_y = WINDOW_SIDE / 2 * width, WINDOW_SIDE / 2 * height
    windows = [(x * width, y * height, half_x, half_y, 1.0) for x, y in windows]
    # a player frames the kingdom roughly in the middle: the patches of the middle half only (a small
    # window at the photo's edge would find another player's kingdom as readily)
    patches = [(x, y) for x, y in _colourful_patches(work) if max(abs(x - 0.5), abs(y - 0.5)) <= 0.25]
    centres = [(0.5, 0.5)] + sorted(
        patches, key=lambda xy: math.hypot((xy[0] - 0.5) * width, (xy[1] - 0.5) * height)
    )
    windows += [
        (x * width, y * height, half * norm, half * norm, SMALL_WINDOW_TILES)
        for x, y in centres
        for half in SMALL_WINDOWS
    ]
    refusals: list[KingdomNotFoundError] = []
    mids = (segs[:, :2] + segs[:, 2:]) / 2
    for x, y, half_x, half_y, tiles in windows:
        inside = (np.abs(mids[:, 0] - x) <= half_x) & (np.abs(mids[:, 1] - y) <= half_y)
        focus = ((x - width / 2) / norm, (y - height / 2) / norm, 0.7 * max(half_x, half_y) / norm)
        try:
            found = _search(
                work,
                gray,
                segs[inside],
                grid,
                grayscale,
                scale,
                focus,
                min_support=MIN_WINDOW_SEAM_SUPPORT,
                tiles=tiles,
            )
            if tiles == 1.0 or _covers(found[0], found[1], (x, y)):
                return found, refusals
            refusals.append(KingdomNotFoundError(NOT_FOUND))  # a kingdom beside the point looked at
        except KingdomNotFoundError as refusal:
            refusals.append(refusal)
    return None, refusals


def _covers(grid_to_work: np.ndarray, size: int, point: tuple[float, float]) -> bool:
    """Whether the point (work pixels) lies inside the N×N frame."""
    col, row = apply_homography(np.linalg.inv(grid_to_work), [point])[0]
    return bool(0 <= col <= size and 0 <= row <= size)


def _image_centre(shape: tuple[int, ...]) -> tuple[float, float]:
    """The centre (x, y) of an image of shape (height, width, ...)."""
    return shape[1] / 2, shape[0] / 2


def _covers_centre(found: tuple, shape: tuple[int, ...]) -> bool:
    """Whether a found kingdom's frame (grid -> image homography, N, ...) covers its image's centre."""
    return _covers(found[0], found[1], _image_centre(shape))


#: Half-sides (in the photo's longest side) of the windows searched around the centre and the
#: colourful patches: a kingdom 15-25 % of the photo wide, then its middle only.
SMALL_WINDOWS = (0.15, 0.1)
#: Share of the closed cells a kingdom window needs (_needed_tiles) in those small windows: their few
#: segments close fewer cells; the seam support and content checks on the refined lattice still apply.
SMALL_WINDOW_TILES = 0.7


PATCH_SIDE = 256  # longest side of the copy the colourful patches are looked for on
PATCHES = 3


def _colourful_patches(work: np.ndarray, min_spread: float = 0.0) -> list[tuple[float, float]]:
    """Centres (0-1 photo units) of the PATCHES patches, about a small kingdom wide, whose colours vary
    the most: tiles of several terrains side by side against a table of one colour and texture. Only
    patches whose mean colour spread (Lab units, lightness weighed half) is at least ``min_spread``."""
    height, width = work.shape[:2]
    factor = PATCH_SIDE / max(height, width)
    small = cv2.resize(work, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    square = 2 * round(0.04 * PATCH_SIDE) + 1  # about a square of a kingdom 20 % of the photo wide
    variance = np.zeros(small.shape[:2], np.float32)
    for channel, weight in ((0, 0.5), (1, 1.0), (2, 1.0)):  # colour counts more than brightness
        mean = cv2.blur(lab[..., channel], (square, square))
        variance += weight * (cv2.blur(lab[..., channel] ** 2, (square, square)) - mean * mean)
    kingdom = 2 * round(0.1 * PATCH_SIDE) + 1
    score = cv2.blur(np.sqrt(np.maximum(variance, 0)), (kingdom, kingdom))
    centres = []
    for _ in range(PATCHES):
        y, x = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[y, x] < min_spread:
            break
        centres.append(((x + 0.5) / small.shape[1], (y + 0.5) / small.shape[0]))
        cv2.circle(score, (int(x), int(y)), round(0.15 * PATCH_SIDE), 0.0, -1)  # the next patch elsewhere
    return centres


TWO_KINGDOMS_NOTE = "more than one kingdom was seen in the photo; the most central one was scanned"
NO_OTHERS = np.zeros((0, 2))  # centres of the other kingdoms seen (grid coordinates): none


def _most_central(segs: np.ndarray, shape: tuple[int, int], grid: int | str, lattice: tuple) -> tuple:
    """Look for a second kingdom among the segments outside the first; keep the more central one.

    When the first does not cover the photo's centre, the second is first looked for as the first was
    (segments weighed by their distance to the centre), pairing more directions: a complete kingdom off
    the centre can win the first search when it lies square to the table's grain and the central one is
    turned. Otherwise, or if that finds none, the segments outside the first all weigh alike.
    """
    grid_to_work, size, _ = lattice
    to_grid = np.linalg.inv(grid_to_work)
    mids = apply_homography(to_grid, (segs[:, :2] + segs[:, 2:]) / 2)
    outside = ~((mids > -0.6) & (mids < size + 0.6)).all(axis=1)
    if outside.sum() < 12:
        return lattice
    other = None
    if not _covers_centre(lattice, shape):
        other = _find_lattice(segs[outside], shape, grid, focus=CENTRAL, peaks=SECOND_SEARCH_PEAKS)
    if other is None:
        other = _find_lattice(segs[outside], shape, grid, focus=None)
    return lattice if other is None else _more_central_of(lattice, other, shape)


def _middle(found: tuple) -> tuple[float, float]:
    """The centre of a found kingdom's frame (grid -> image homography, N, ...) in image pixels."""
    x, y = apply_homography(found[0], [[found[1] / 2, found[1] / 2]])[0]
    return float(x), float(y)


def _off_centre(found: tuple, shape: tuple[int, ...]) -> float:
    """Distance (pixels) from a found kingdom's centre to the centre of its (height, width, ...) image."""
    return float(np.linalg.norm(np.subtract(_middle(found), _image_centre(shape))))


def _alike_squares(other: tuple, found: tuple) -> bool:
    """Whether ``other``'s squares are about as large as ``found``'s (else it is no second kingdom but,
    say, a lattice in the table's pattern)."""
    ratio = _square_px(frame_corners(other[0], other[1]), other[1]) / _square_px(
        frame_corners(found[0], found[1]), found[1]
    )
    return 0.6 < ratio < 1.6


def _more_central_of(lattice: tuple, other: tuple, shape: tuple[int, int]) -> tuple:
    """Of two kingdoms found in one image (grid -> image homography, N, others), the one nearer its
    centre, with the other's centre among its others; ``lattice`` when their squares are not alike."""
    if not _alike_squares(other, lattice):
        return lattice
    other_nearer = _off_centre(other, shape) < _off_centre(lattice, shape)
    chosen, apart = (other, lattice) if other_nearer else (lattice, other)
    to_chosen = np.linalg.inv(chosen[0])
    others = [chosen[2], apply_homography(to_chosen @ apart[0], [[apart[1] / 2, apart[1] / 2], *apart[2]])]
    return chosen[0], chosen[1], np.concatenate(others)


def _photo_frame(grid_to_work: np.ndarray, size: int, shape: tuple[int, int]) -> np.ndarray | None:
    """The grid -> photo homography of the whole photo when the lattice fills it (a cropped board)."""
    corners = frame_corners(grid_to_work, size)
    snapped = _snap_to_photo(corners, size, shape)
    if snapped is corners:
        return None
    return _grid_to(snapped, size)


def _snap_to_photo(corners: np.ndarray, size: int, shape: tuple[int, int]) -> np.ndarray:
    """A cropped board fills the photo: when every frame corner is near a photo corner, use those.

    Its outline has no table around it, so the outer lines cannot be refined on seams.
    """
    photo = _photo_corners(shape)
    square = _square_px(corners, size)
    nearest = np.array([photo[np.argmin(np.linalg.norm(photo - corner, axis=1))] for corner in corners])
    if (
        len({tuple(p) for p in nearest}) == 4
        and (np.linalg.norm(nearest - corners, axis=1) < 0.4 * square).all()
    ):
        return nearest
    return corners


def _ordered(corners: np.ndarray) -> np.ndarray:
    """Corners clockwise on screen (y down), rolled so that the grid reads upright."""
    a, b, c = corners[0], corners[1], corners[2]
    if (b - a)[0] * (c - b)[1] - (b - a)[1] * (c - b)[0] < 0:
        corners = corners[[1, 0, 3, 2]]
    return np.roll(corners, -upright_rotation(corners), axis=0)


@dataclass
class _Segments:
    """Segments in normalised coordinates (centre 0, longest side 1) with what the fits need."""

    p1: np.ndarray
    p2: np.ndarray
    mids: np.ndarray
    dirs: np.ndarray
    lines: np.ndarray
    weights: np.ndarray
    angles: np.ndarray
    tolerance: np.ndarray
    lengths: np.ndarray


#: Where the search looks first: (x, y, spread) in normalised coordinates (photo centre 0, longest
#: side 1); segments are weighted by a Gaussian of that spread around the point. None weighs all alike.
Focus = tuple[float, float, float] | None
CENTRAL: Focus = (0.0, 0.0, 0.35)


def _prepare(segs: np.ndarray, to_norm: np.ndarray, norm: float, focus: Focus = CENTRAL) -> _Segments:
    p1 = apply_homography(to_norm, segs[:, :2])
    p2 = apply_homography(to_norm, segs[:, 2:])
    vec = p2 - p1
    length = np.linalg.norm(vec, axis=1)
    dirs = vec / length[:, None]
    mids = (p1 + p2) / 2
    lines = np.cross(np.c_[p1, np.ones(len(p1))], np.c_[p2, np.ones(len(p2))])
    lines /= np.linalg.norm(lines[:, :2], axis=1, keepdims=True)
    # the most central kingdom wins (a search for a second kingdom weighs the whole photo alike)
    central = (
        np.exp(-0.5 * (np.linalg.norm(mids - focus[:2], axis=1) / focus[2]) ** 2)
        if focus is not None
        else np.ones(len(mids))
    )
    angles = np.arctan2(dirs[:, 1], dirs[:, 0]) % math.pi
    # angular tolerance: 1.5° or what a 1.2 px endpoint error allows on a short segment
    tolerance = np.maximum(math.sin(math.radians(1.5)), 1.2 / (length * norm))
    return _Segments(p1, p2, mids, dirs, lines, length * central, angles, tolerance, length)


def _parallel_direction(seg: _Segments, member: np.ndarray, direction: float) -> tuple:
    """Best common direction (a vanishing point at infinity) of a family, and its inliers."""
    thetas = direction + np.radians(np.arange(-4, 4.01, 0.1))
    dirs = seg.dirs[member]
    # |sin| of the angle between every segment and every candidate direction, (candidates, segments)
    sines = np.abs(np.outer(np.sin(thetas), dirs[:, 0]) - np.outer(np.cos(thetas), dirs[:, 1]))
    masks = sines < seg.tolerance[member]
    best = int(np.argmax(masks @ seg.weights[member]))
    return np.array([math.cos(thetas[best]), math.sin(thetas[best]), 0.0]), masks[best]


def _find_lattice(
    segs: np.ndarray,
    shape: tuple[int, int],
    grid: int | str,
    focus: Focus = CENTRAL,
    tiles: float = 1.0,
    peaks: int = DIRECTION_PEAKS,
):
    """Lattice of the most central kingdom: (grid -> work-image homography, N, others) or None.

    Two rectifications are tried, from fitted vanishing points and from parallel directions (better
    when the kingdom is small and perspective within it is weak); the better-scoring lattice wins.
    """
    if len(segs) < 12:
        return None
    height, width = shape
    norm = float(max(height, width))
    to_norm = np.array([[1 / norm, 0, -width / 2 / norm], [0, 1 / norm, -height / 2 / norm], [0, 0, 1]])
    seg = _prepare(segs, to_norm, norm, focus)
    # Direction pairs from two weightings: plain length, and favouring long straight segments (seams;
    # wood grain and printed art give many short ones). Each is rectified two ways; the best lattice wins.
    long_weights = seg.weights * np.minimum(seg.lengths * norm / 40.0, 3.0)
    pairs = list(
        dict.fromkeys(
            _dominant_directions(seg.angles, seg.weights, peaks)
            + _dominant_directions(seg.angles, long_weights, peaks)
        )
    )
    rng = np.random.default_rng(0)
    results = []
    for directions in pairs:
        members = []
        for direction in directions:
            diff = np.abs((seg.angles - direction + math.pi / 2) % math.pi - math.pi / 2)
            members.append(np.flatnonzero(diff < math.radians(20)))
        if min(len(member) for member in members) < 4:
            continue
        for mode in ("projective", "parallel"):
            families = []
            for direction, member in zip(directions, members, strict=True):
                if mode == "projective":
                    v, mask = _vanishing_point(
                        seg.lines[member],
                        seg.mids[member],
                        seg.dirs[member],
                        seg.weights[member],
                        seg.tolerance[member],
                        rng,
                    )
                else:
                    v, mask = _parallel_direction(seg, member, direction)
                if v is None:
                    break
                families.append((v, member[mask]))
            if len(families) == 2:
                found = _lattice(seg, families, to_norm, (height, width), grid, tiles)
                if found is not None:
                    results.append(found)
    if not results:
        return None
    return max(results, key=lambda found: found[0])[1:]


def _lattice(
    seg: _Segments, families: list, to_norm: np.ndarray, shape: tuple[int, int], grid: int | str, tiles: float
):
    """Score the best N×N window of the lattice defined by two segment families: (score, H, N, others)."""
    height, width = shape
    (va, ia), (vb, ib) = families
    if len(ia) < 3 or len(ib) < 3:
        return None
    horizon = np.cross(va, vb)
    if abs(horizon[2]) < 1e-9 or not np.isfinite(horizon).all():
        return None
    projective = np.array([[1, 0, 0], [0, 1, 0], horizon / horizon[2]])
    # the horizon must not cross the kingdom: all inlier midpoints on the same side
    w = np.c_[seg.mids[np.r_[ia, ib]], np.ones(len(ia) + len(ib))] @ projective[2]
    if (w <= 0).mean() > 0.02:
        return None
    da = (projective @ va)[:2]
    db = (projective @ vb)[:2]
    basis = np.c_[da / np.linalg.norm(da), db / np.linalg.norm(db)]
    if abs(np.linalg.det(basis)) < 0.3:
        return None
    affine = np.eye(3)
    affine[:2, :2] = np.linalg.inv(basis)
    to_plane = affine @ projective  # normalised coordinates -> rectified plane (A lines horizontal)
    qa1, qa2 = apply_homography(to_plane, seg.p1[ia]), apply_homography(to_plane, seg.p2[ia])
    qb1, qb2 = apply_homography(to_plane, seg.p1[ib]), apply_homography(to_plane, seg.p2[ib])
    ya = (qa1[:, 1] + qa2[:, 1]) / 2
    xb = (qb1[:, 0] + qb2[:, 0]) / 2
    wa, wb = seg.weights[ia], seg.weights[ib]
    # scale the plane so the segment cloud spans ~600 units on each axis
    spread_y = abs(np.subtract(*np.percentile(ya, [90, 10]))) or 1.0
    spread_x = abs(np.subtract(*np.percentile(xb, [90, 10]))) or 1.0
    sx, sy = 600 / spread_x, 600 / spread_y
    to_plane = np.diag([sx, sy, 1]) @ to_plane @ to_norm  # work pixels -> plane
    ya, xb = ya * sy, xb * sx
    xa_lo, xa_hi = np.minimum(qa1[:, 0], qa2[:, 0]) * sx, np.maximum(qa1[:, 0], qa2[:, 0]) * sx
    yb_lo, yb_hi = np.minimum(qb1[:, 1], qb2[:, 1]) * sy, np.maximum(qb1[:, 1], qb2[:, 1]) * sy
    best = None
    lines = (ya, xa_lo, xa_hi, xb, yb_lo, yb_hi)
    extent = (*np.percentile(ya, [1, 99]), *np.percentile(xb, [1, 99]))
    combs_x = _combs(xb, yb_lo, yb_hi, wb / wb.mean())
    for py, fy in _combs(ya, xa_lo, xa_hi, wa / wa.mean()):
        for px, fx in combs_x:
            found = _windows(lines, extent, (py, fy, px, fx), to_plane, shape, grid, tiles)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
    return best


def _windows(
    lines: tuple,
    extent: tuple,
    comb: tuple,
    to_plane: np.ndarray,
    shape: tuple[int, int],
    grid: int | str,
    tiles: float = 1.0,
):
    """Best N×N window of one lattice, by seam coverage of the cells' sides: (score, H, N, others).

    ``others``: centres (col, row in the chosen window's grid) of the other windows that score nearly as
    well and lie apart from it (another kingdom on the same lattice).

    ``extent`` is (ylo, yhi, xlo, xhi) of the segment cloud in the plane (1st-99th percentiles);
    ``tiles`` scales the closed cells a window needs (see _needed_tiles).
    """
    height, width = shape
    ya, xa_lo, xa_hi, xb, yb_lo, yb_hi = lines
    py, fy, px, fx = comb
    ylo, yhi, xlo, xhi = extent
    rows = (int(math.floor((ylo - fy) / py)) - 2, int(math.ceil((yhi - fy) / py)) + 2)
    cols = (int(math.floor((xlo - fx) / px)) - 2, int(math.ceil((xhi - fx) / px)) + 2)
    if not (3 <= rows[1] - rows[0] <= 60 and 3 <= cols[1] - cols[0] <= 60):
        return None
    sizes = (5, 7) if grid == "auto" else (int(grid),)
    needed = min(_needed_tiles(n, tiles) for n in sizes)
    horizontal = _side_coverage(ya, xa_lo, xa_hi, py, fy, px, fx, rows, cols, 0.15)  # (rows+1, cols)
    across = horizontal[:-1] + horizontal[1:]  # (rows, cols): coverage of each cell's top + bottom
    if (across >= 0.6).sum() < needed:  # a closed cell (score >= 2 below) has across >= 2/3: none here
        return None
    vertical = _side_coverage(xb, yb_lo, yb_hi, px, fx, py, fy, cols, rows, 0.15)  # (cols+1, rows)
    along = vertical[:-1].T + vertical[1:].T  # left + right
    # a tile is closed on both axes; parallel plank joints or wood grain cover only one
    score = np.minimum(across, 2 * along) + np.minimum(along, 2 * across)
    if (score >= 2.0).sum() < needed:
        return None  # too few closed cells in the whole lattice for any window to be a kingdom
    from_plane = np.linalg.inv(to_plane)
    # cell centres in the photo: the plane -> work homography applied to the separable grid
    cx = fx + (np.arange(cols[0], cols[1]) + 0.5) * px
    cy = fy + (np.arange(rows[0], rows[1]) + 0.5) * py
    m = from_plane
    den = m[2, 0] * cx[None, :] + m[2, 1] * cy[:, None] + m[2, 2]
    centre_x = (m[0, 0] * cx[None, :] + m[0, 1] * cy[:, None] + m[0, 2]) / den
    centre_y = (m[1, 0] * cx[None, :] + m[1, 1] * cy[:, None] + m[1, 2]) / den
    inside = (
        (centre_x > -0.02 * width)
        & (centre_x < 1.02 * width)
        & (centre_y > -0.02 * height)
        & (centre_y < 1.02 * height)
    )
    if min(score.shape) < min(sizes):
        return None
    # integral images once; every window size reads its box sums from them
    sum_gain = _integral(score - 1.6)
    sum_tiles = _integral((score >= 2.0).astype(float))
    sum_outside = _integral((~inside).astype(float))
    best = None  # (total, n, totals, valid) of the best window size
    for n in sizes:
        if min(score.shape) < n:
            continue
        totals = _box(sum_gain, n)
        closed = _box(sum_tiles, n)
        valid = (_box(sum_outside, n) < 0.5) & (
            closed >= _needed_tiles(n, tiles) - 1e-6
        )  # all inside the photo
        if valid.any():
            total = float(totals[valid].max())
            if best is None or total > best[0]:
                best = (total, n, totals, valid)
    if best is None:
        return None
    total, n, totals, valid = best
    r, c = np.unravel_index(np.argmax(np.where(valid, totals, -np.inf)), totals.shape)
    others = NO_OTHERS
    rr, cc = np.nonzero(valid & (totals >= 0.6 * total))
    apart = (np.abs(rr - r) >= n) | (np.abs(cc - c) >= n)
    if apart.any():  # another kingdom on the same lattice: keep the most central window
        options = [(r, c)] + list(zip(rr[apart], cc[apart], strict=True))
        middles = [
            (centre_x[a : a + n, b : b + n].mean(), centre_y[a : a + n, b : b + n].mean()) for a, b in options
        ]
        r, c = options.pop(int(np.argmin([math.hypot(x - width / 2, y - height / 2) for x, y in middles])))
        others = np.array([(b - c + n / 2, a - r + n / 2) for a, b in options], float)
    x0, y0 = fx + (cols[0] + c) * px, fy + (rows[0] + r) * py
    grid_to_plane = np.array([[px, 0, x0], [0, py, y0], [0, 0, 1]])
    return total, from_plane @ grid_to_plane, n, others


def _needed_tiles(n: int, share: float = 1.0) -> int:
    """Closed tiles an N×N window needs: a kingdom is mostly tiles (a 7×7 frame even more, so that a
    5×5 kingdom with clutter around it does not pass as Mighty Duel); ``share`` scales the count."""
    return math.ceil(share * (0.4 if n == 5 else 0.5) * n * n)


def _integral(values: np.ndarray) -> np.ndarray:
    """Integral image with a leading row and column of zeros."""
    integral = np.zeros((values.shape[0] + 1, values.shape[1] + 1))
    np.cumsum(np.cumsum(values, axis=0), axis=1, out=integral[1:, 1:])
    return integral


def _box(integral: np.ndarray, n: int) -> np.ndarray:
    """Sum of every n×n window, read from an integral image."""
    return integral[n:, n:] - integral[:-n, n:] - integral[n:, :-n] + integral[:-n, :-n]


def _refine(
    gray: np.ndarray, grid_to_work: np.ndarray, n: int, cell: int = REFINE_CELL_PX, keep_outline: bool = False
) -> np.ndarray:
    """Move each frame line onto the strongest nearby seam, then refit the homography.

    ``keep_outline``: the outer lines stay where they are (a cropped board's outline is the photo's edge).
    """
    side = (n + 1) * cell
    to_rect = np.array([[cell, 0, cell / 2], [0, cell, cell / 2], [0, 0, 1]])  # grid -> rectified px
    warp = to_rect @ np.linalg.inv(grid_to_work)
    rect = cv2.warpPerspective(
        gray, warp, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    rect = rect.astype(np.float32)
    gy = np.abs(cv2.Sobel(rect, cv2.CV_32F, 0, 1, ksize=3))
    gx = np.abs(cv2.Sobel(rect, cv2.CV_32F, 1, 0, ksize=3))
    reach = int(0.3 * cell)
    offsets = np.arange(-reach, reach + 1)
    bases = np.round(cell / 2 + np.arange(n + 1) * cell).astype(int)
    fitted_h = _fit_lines(gy, bases, offsets, n, cell)
    fitted_v = _fit_lines(gx.T, bases, offsets, n, cell)[:, [1, 0, 2]]  # fitted as rows, then transposed
    if keep_outline:
        outer = [0, n]
        fitted_h[outer] = np.c_[[0.0, 0.0], [1.0, 1.0], -bases[outer]]
        fitted_v[outer] = np.c_[[1.0, 1.0], [0.0, 0.0], -bases[outer]]
    points = np.cross(fitted_h[:, None, :], fitted_v[None, :, :])  # (k, j, 3): line k meets line j
    kk, jj = np.mgrid[0 : n + 1, 0 : n + 1]
    meet = np.abs(points[..., 2]) >= 1e-9
    if meet.sum() < 4:
        return grid_to_work
    src = np.c_[jj[meet], kk[meet]]
    dst = points[meet][:, :2] / points[meet][:, 2:3]
    fitted, _ = cv2.findHomography(np.float32(src), np.float32(dst), 0)
    if fitted is None:
        return grid_to_work
    return grid_to_work @ np.linalg.inv(to_rect) @ fitted


def seam_support(gray: np.ndarray, grid_to_work: np.ndarray, n: int, inner_only: bool = False) -> float:
    """Share of the lattice's sides (one per cell and line) that lie on a visible seam or edge.

    ``inner_only``: count the inner lines only (a cropped board's outline is the photo's edge).
    """
    lines = np.arange(1, n) if inner_only else np.arange(n + 1)
    across, along = _side_hits(gray, grid_to_work, n, lines)
    return int(across.sum() + along.sum()) / (2 * n * len(lines))


def _side_hits(
    gray: np.ndarray, grid_to_work: np.ndarray, n: int, lines: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Which sides of the lattice lie on a seam: (rows' lines × columns, columns' lines × rows) booleans.

    Entry [k, j] of the first array: horizontal line ``lines[k]`` over column j; of the second: vertical
    line ``lines[k]`` over row j (``lines``: all n + 1 by default).
    """
    cell = REFINE_CELL_PX
    side = (n + 1) * cell
    to_rect = np.array([[cell, 0, cell / 2], [0, cell, cell / 2], [0, 0, 1]])
    rect = cv2.warpPerspective(
        gray, to_rect @ np.linalg.inv(grid_to_work), (side, side), borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    reach = int(0.3 * cell)
    offsets = np.arange(-reach, reach + 1)
    lines = np.arange(n + 1) if lines is None else lines
    bases = np.round(cell / 2 + lines * cell).astype(int)
    hits = []
    for grad in (
        np.abs(cv2.Sobel(rect, cv2.CV_32F, 0, 1, ksize=3)),
        np.abs(cv2.Sobel(rect, cv2.CV_32F, 1, 0, ksize=3)).T,
    ):
        profiles = _cell_profiles(grad, bases, offsets, n, cell)  # (lines, offsets, n)
        best = np.argmax(profiles, axis=1)
        peak = np.take_along_axis(profiles, best[:, None, :], axis=1)[:, 0]
        hits.append((np.abs(best - reach) <= 3) & (peak >= 1.6 * (np.median(profiles, axis=1) + 1e-6)))
    return hits[0], hits[1]


def _cell_profiles(grad: np.ndarray, bases: np.ndarray, offsets: np.ndarray, n: int, cell: int) -> np.ndarray:
    """Mean gradient along rows ``bases + offsets`` over the middle 80 % of each cell: (lines, offsets, n)."""
    rows = np.clip(np.asarray(bases).reshape(-1, 1) + offsets, 0, grad.shape[0] - 1)
    sums = np.zeros(rows.shape + (grad.shape[1] + 1,), np.float64)
    np.cumsum(grad[rows], axis=2, out=sums[:, :, 1:])
    starts, ends = _cell_spans(n, cell)
    return (sums[:, :, ends] - sums[:, :, starts]) / (ends - starts)


def _cell_spans(n: int, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """First and past-the-end pixel of the middle 80 % of each cell along a rectified line."""
    starts = (cell / 2 + (np.arange(n) + 0.1) * cell).astype(int)
    return starts, (cell / 2 + (np.arange(n) + 0.9) * cell).astype(int)


def _fit_lines(grad: np.ndarray, bases: np.ndarray, offsets: np.ndarray, n: int, cell: int) -> np.ndarray:
    """Homogeneous lines (rectified px), one through the seam nearest to each row ``bases[k]``: (lines, 3).

    Each cell votes for the strongest gradient row near the line (if it stands out of its profile);
    a weighted least-squares line through the votes drops the far ones twice; too few votes keep the
    nominal line.
    """
    profiles = _cell_profiles(grad, bases, offsets, n, cell)
    padded = np.pad(profiles, ((0, 0), (1, 1), (0, 0)))
    profiles = 0.25 * padded[:, :-2] + 0.5 * padded[:, 1:-1] + 0.25 * padded[:, 2:]  # [1/4, 1/2, 1/4]
    best = np.argmax(profiles, axis=1)  # (lines, n)
    peak = np.take_along_axis(profiles, best[:, None, :], axis=1)[:, 0]
    contrast = peak / (np.median(profiles, axis=1) + 1e-6)
    votes = (contrast >= 1.6) & (best > 0) & (best < len(offsets) - 1)
    starts, ends = _cell_spans(n, cell)
    x = np.broadcast_to((starts + ends) / 2, best.shape)
    y = np.asarray(bases).reshape(-1, 1) + offsets[best]
    enough = votes.sum(axis=1) >= max(2, n // 2)
    active = enough.copy()
    for _ in range(2):  # weighted least squares y = a x + b, drop points far from the fit
        a, b = _weighted_lines(x, y, contrast, votes)
        kept = votes & (np.abs(y - (a[:, None] * x + b[:, None])) < max(2.0, 0.05 * cell))
        active &= kept.sum(axis=1) >= 2
        votes = np.where(active[:, None], kept, votes)
    a, b = _weighted_lines(x, y, contrast, votes)
    lines = np.c_[-a, np.ones(len(a)), -b]
    lines[~enough] = np.c_[np.zeros((~enough).sum()), np.ones((~enough).sum()), -np.asarray(bases)[~enough]]
    return lines


def _weighted_lines(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, mask: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per row: (a, b) of y = a x + b minimising sum((w (y - a x - b))^2) over the masked points,
    as np.polyfit(x, y, 1, w=w) would; (0, mean y) when the points do not spread along x."""
    w2 = np.where(mask, w * w, 0.0)
    total = np.maximum(w2.sum(axis=1), 1e-12)
    mean_x = (w2 * x).sum(axis=1) / total
    mean_y = (w2 * y).sum(axis=1) / total
    dx = x - mean_x[:, None]
    spread = (w2 * dx * dx).sum(axis=1)
    a = np.where(
        spread > 1e-12, (w2 * dx * (y - mean_y[:, None])).sum(axis=1) / np.maximum(spread, 1e-12), 0.0
    )
    return a, mean_y - a * mean_x


#: Printed tiles have pictures (trees, waves, wheat, houses): in at least MIN_TEXTURED of the squares,
#: the median grey-level gradient in the middle of the square exceeds TEXTURE_GRADIENT (generated scenes:
#: >= 44 % of the squares, real boards: >= 64 %). Squares of flat colour (a drawing, a paint chart, a
#: mosaic) stay under 1 (noise); a median is not raised by a seam crossing a wrongly placed cell.
TEXTURE_GRADIENT = 1.5
MIN_TEXTURED = 0.2


#: A checkered or gingham tablecloth is a lattice too, its checks about a square wide: a frame on it holds
#: squares of plain colour (median gradient at most PLAIN_GRADIENT), in the table's colours (TABLE_ALIKE
#: of their pixels within TABLE_DISTANCE of a colour of the photo's border) and alike in a 2×2 repeat (mean
#: colour within REPEAT_DISTANCE of the median of the frame's squares at the same row and column parity), each
#: unlike the squares beside it (by more than CHECK_CONTRAST). Outside check (300 generated photos), without
#: the last condition: the cloth's 7×7 frames 0.45-0.78 of such squares, the frames of kingdoms located right
#: at most 0.12. The last condition keeps a dark photo's kingdom, its colours close together, from counting.
PLAIN_GRADIENT = 3.0
TABLE_DISTANCE = 10.0
TABLE_ALIKE = 0.8
REPEAT_DISTANCE = 8.0
CHECK_CONTRAST = 15.0
MAX_TABLE_PATTERN = 0.3
NEIGHBOURS = ((0, 1), (1, 0), (0, -1), (-1, 0))
TABLE_PATTERN = "a grid was found, but it is the table's pattern (a checkered cloth?), not a kingdom"
PLAIN_SQUARES = (
    "a grid was found, but its squares are plain colour, without the pictures printed on "
    "Kingdomino tiles (a drawing or a pattern?), not a kingdom"
)


def _is_table_pattern(work: np.ndarray, rect: np.ndarray, gradient_medians: np.ndarray, n: int) -> bool:
    """Whether MAX_TABLE_PATTERN or more of the frame's squares look like the checks of a tablecloth.

    The table's colours (a k-means of the photo's border) are taken only when enough squares pass the
    other three conditions: a kingdom's frame almost never does, so a scan seldom pays for them.
    """
    cell = rect.shape[0] // n
    lab = _table_lab(rect).reshape(n, cell, n, cell, 3).transpose(0, 2, 1, 3, 4)[:, :, 4:-4, 4:-4]
    pixels = lab.reshape(n, n, -1, 3)
    means = pixels.mean(axis=2)
    rows, cols = np.indices((n, n))
    parity = (rows % 2) * 2 + cols % 2
    medians = np.array([np.median(means[parity == k], axis=0) for k in range(4)])
    repeated = np.linalg.norm(means - medians[parity], axis=2) < REPEAT_DISTANCE
    plain = gradient_medians.reshape(n, n) <= PLAIN_GRADIENT
    # a check differs from the four around it (a dark or faded photo brings a kingdom's squares together)
    padded = np.pad(means, ((1, 1), (1, 1), (0, 0)), constant_values=np.inf)
    contrast = np.min(
        [
            np.linalg.norm(padded[1 + dr : 1 + dr + n, 1 + dc : 1 + dc + n] - means, axis=2)
            for dr, dc in NEIGHBOURS
        ],
        axis=0,
    )
    checks = plain & repeated & (contrast > CHECK_CONTRAST)
    if checks.mean() < MAX_TABLE_PATTERN:
        return False
    # each strip filtered on its own and every 4th pixel clustered: about half the cost of _unlike_table's
    strips = [
        _table_lab(np.ascontiguousarray(strip)).reshape(-1, 3) for strip in _border_strips(_table_copy(work))
    ]
    colours = _table_colours(np.ascontiguousarray(np.concatenate(strips)[::4]))
    distance = np.linalg.norm(pixels[:, :, :, None] - colours, axis=4).min(axis=3)
    like_table = (distance < TABLE_DISTANCE).mean(axis=2) > TABLE_ALIKE
    return bool((checks & like_table).mean() >= MAX_TABLE_PATTERN)


def _check_content(work: np.ndarray, grid_to_work: np.ndarray, n: int, grayscale: bool) -> None:
    """Reject lattices whose squares do not look like Kingdomino terrain (a chessboard, a tiled floor)."""
    cell = 24
    to_rect = np.array([[cell, 0, 0], [0, cell, 0], [0, 0, 1]])
    rect = cv2.warpPerspective(work, to_rect @ np.linalg.inv(grid_to_work), (n * cell, n * cell))
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gradient = (
        np.hypot(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)) / 8
    )
    middles = gradient.reshape(n, cell, n, cell).transpose(0, 2, 1, 3)[:, :, 4:-4, 4:-4].reshape(n * n, -1)
    gradient_medians = np.median(middles, axis=1)
    if (gradient_medians > TEXTURE_GRADIENT).mean() < MIN_TEXTURED:
        # a frame on a cloth holding little of the kingdom is plain too: say which, as that one is searched on
        cloth = not grayscale and _is_table_pattern(work, rect, gradient_medians, n)
        raise KingdomNotFoundError(TABLE_PATTERN if cloth else PLAIN_SQUARES)
    if grayscale:
        return
    hsv = cv2.cvtColor(rect, cv2.COLOR_BGR2HSV)
    saturation = hsv[..., 1].reshape(n, cell, n, cell).transpose(0, 2, 1, 3).reshape(n * n, -1)
    colourful = (np.median(saturation, axis=1) >= 70).mean()
    lab = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB).astype(np.float32)
    means = lab.reshape(n, cell, n, cell, 3).mean(axis=(1, 3)).reshape(-1, 3)
    varied = (np.linalg.norm(means - np.median(means, axis=0), axis=1) > 12).mean()
    if varied < 0.25:
        raise KingdomNotFoundError(
            "a grid was found, but its squares all look alike (a table or floor pattern?), not like a kingdom"
        )
    if colourful < 0.4:
        raise KingdomNotFoundError(
            "a grid was found, but its squares do not look like Kingdomino terrain "
            "(too few colourful squares): is this a kingdom?"
        )
    if _is_table_pattern(work, rect, gradient_medians, n):
        raise KingdomNotFoundError(TABLE_PATTERN)
