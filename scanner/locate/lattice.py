"""The lattice fit: from two families of segments to the N×N window of squares most like a kingdom.

The two families' vanishing points rectify the table plane up to an axis scaling. In that plane the seams
form a regular comb on each axis: its pitch and phase give a lattice of cells. Each cell is scored by how
much of its four sides is covered by seam segments (tiles are closed by seams, the table is not); the
N×N window (5 or 7) with the most tile-like cells is the candidate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.geometry import apply_homography
from scanner.locate.segments import (
    CENTRAL,
    Focus,
    Segments,
    dominant_directions,
    parallel_direction,
    prepare,
    vanishing_point,
)

NO_OTHERS = np.zeros((0, 2))  # centres of the other kingdoms seen (grid coordinates): none
SEAM_TOLERANCE = 0.15  # of a pitch: a segment this near a comb's line lies on it


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
    # every pair i < j that overlaps, in the order of np.triu_indices: outer products gather nothing
    overlaps = np.minimum.outer(hi, hi)
    overlaps -= np.maximum.outer(lo, lo)
    i, j = np.nonzero(np.triu(overlaps > 0, 1))
    overlap = overlaps[i, j]
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


def _phase(values: np.ndarray, weights: np.ndarray, pitch: float) -> float:
    """Offset of the comb of the given pitch that the most (weighted) lines agree with."""
    bins = max(8, int(round(pitch * 2)))
    index = np.floor((values % pitch) / pitch * bins).astype(int) % bins
    hist = np.bincount(index, weights=weights, minlength=bins).astype(np.float64)
    spread = 2.5 / pitch * bins  # ±2.5 plane units
    offsets = np.arange(-3 * int(spread + 1), 3 * int(spread + 1) + 1)
    kernel = np.exp(-0.5 * (offsets / max(spread, 0.5)) ** 2)
    reach = len(offsets) // 2
    padded = np.concatenate((hist[-reach:], hist, hist[:reach])) if reach else hist
    smooth = np.convolve(padded, kernel, mode="valid")[:bins]
    return (int(np.argmax(smooth)) + 0.5) * pitch / bins


@dataclass(frozen=True)
class _OnComb:
    """A family's segments that lie on the lines ``span[0]..span[1]`` of one comb: each one's line (one-hot,
    segments × lines) and its extent along the lines (plane units). Made once per comb, used with every
    comb of the other family."""

    span: tuple[int, int]
    line_of: np.ndarray
    lo: np.ndarray
    hi: np.ndarray


def _on_comb(
    along: np.ndarray, lo: np.ndarray, hi: np.ndarray, pitch: float, phase: float, span: tuple[int, int]
) -> _OnComb:
    """The segments (offset ``along`` the comb's axis, extent ``lo``-``hi``) within ``SEAM_TOLERANCE`` of a
    pitch of one of the comb's lines in ``span``."""
    index = np.round((along - phase) / pitch).astype(int)
    near = (np.abs(along - (phase + index * pitch)) < SEAM_TOLERANCE * pitch) & (
        (index >= span[0]) & (index <= span[1])
    )
    line_of = np.zeros((int(near.sum()), span[1] - span[0] + 1))
    line_of[np.arange(len(line_of)), index[near] - span[0]] = 1.0
    return _OnComb(span, line_of, lo[near], hi[near])


def _side_coverage(on: _OnComb, pitch: float, phase: float, cells: tuple[int, int]) -> np.ndarray:
    """Coverage (0-1) of each lattice side on the comb's lines by its segments, shape (lines, cells) for
    the cells ``cells[0]..cells[1] - 1`` of the other comb (``pitch``, ``phase``)."""
    if not len(on.lo):
        return np.zeros((on.span[1] - on.span[0] + 1, cells[1] - cells[0]))
    # each segment's extent in cell units, against every cell [c, c + 1): overlap clipped at 0
    lo = (on.lo - phase) / pitch
    hi = (on.hi - phase) / pitch
    starts = np.arange(cells[0], cells[1], dtype=float)
    overlap = np.minimum(hi[:, None], starts + 1) - np.maximum(lo[:, None], starts)
    coverage = on.line_of.T @ np.maximum(overlap, 0.0)  # summed per line (np.add.at is far slower)
    return np.minimum(coverage, 1.0)


def _span(lo: float, hi: float, pitch: float, phase: float) -> tuple[int, int] | None:
    """The comb's cells over the segment cloud's extent ``lo``-``hi`` and two more on each side; None when
    too few or too many for a kingdom's lattice."""
    span = (int(math.floor((lo - phase) / pitch)) - 2, int(math.ceil((hi - phase) / pitch)) + 2)
    return span if 3 <= span[1] - span[0] <= 60 else None


def find_lattice(
    segs: np.ndarray,
    shape: tuple[int, int],
    grid: int | str,
    peaks: int,
    focus: Focus = CENTRAL,
    tiles: float = 1.0,
):
    """Lattice of the most central kingdom: (grid -> work-image homography, N, others) or None.

    ``peaks``: strongest segment directions paired; ``focus``: where segments weigh most (None: alike);
    ``tiles``: share of the closed cells a window needs (see needed_tiles).

    Two rectifications are tried, from fitted vanishing points and from parallel directions (better
    when the kingdom is small and perspective within it is weak); the better-scoring lattice wins.
    """
    if len(segs) < 12:
        return None
    height, width = shape
    norm = float(max(height, width))
    to_norm = np.array([[1 / norm, 0, -width / 2 / norm], [0, 1 / norm, -height / 2 / norm], [0, 0, 1]])
    seg = prepare(segs, to_norm, norm, focus)
    # Direction pairs from two weightings: plain length, and favouring long straight segments (seams;
    # wood grain and printed art give many short ones). Each is rectified two ways; the best lattice wins.
    long_weights = seg.weights * np.minimum(seg.lengths * norm / 40.0, 3.0)
    pairs = list(
        dict.fromkeys(
            dominant_directions(seg.angles, seg.weights, peaks)
            + dominant_directions(seg.angles, long_weights, peaks)
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
                    v, mask = vanishing_point(
                        seg.lines[member],
                        seg.mids[member],
                        seg.dirs[member],
                        seg.weights[member],
                        seg.tolerance[member],
                        rng,
                    )
                else:
                    v, mask = parallel_direction(seg, member, direction)
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
    seg: Segments, families: list, to_norm: np.ndarray, shape: tuple[int, int], grid: int | str, tiles: float
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
    # the order statistics behind the spread (90th - 10th percentile) and the extent (1st - 99th, once
    # scaled): one partial sort per axis instead of np.percentile twice, to the same values
    stats_y, stats_x = _order_stats(ya, SPREAD_EXTENT), _order_stats(xb, SPREAD_EXTENT)
    spread_y = abs(np.subtract(*_lerp(*stats_y, 1.0)[:2])) or 1.0
    spread_x = abs(np.subtract(*_lerp(*stats_x, 1.0)[:2])) or 1.0
    sx, sy = 600 / spread_x, 600 / spread_y
    to_plane = np.diag([sx, sy, 1]) @ to_plane @ to_norm  # work pixels -> plane
    ya, xb = ya * sy, xb * sx
    xa_lo, xa_hi = np.minimum(qa1[:, 0], qa2[:, 0]) * sx, np.maximum(qa1[:, 0], qa2[:, 0]) * sx
    yb_lo, yb_hi = np.minimum(qb1[:, 1], qb2[:, 1]) * sy, np.maximum(qb1[:, 1], qb2[:, 1]) * sy
    best = None
    ylo, yhi, xlo, xhi = (*_lerp(*stats_y, sy)[2:], *_lerp(*stats_x, sx)[2:])
    from_plane = np.linalg.inv(to_plane)
    columns = []  # each comb of the B lines, with its segments on it, made once for every comb of the A lines
    for px, fx in _combs(xb, yb_lo, yb_hi, wb / wb.mean()):
        cols = _span(xlo, xhi, px, fx)
        if cols is not None:
            columns.append((px, fx, _on_comb(xb, yb_lo, yb_hi, px, fx, cols)))
    for py, fy in _combs(ya, xa_lo, xa_hi, wa / wa.mean()):
        rows = _span(ylo, yhi, py, fy)
        if rows is None:
            continue
        on_rows = _on_comb(ya, xa_lo, xa_hi, py, fy, rows)
        for px, fx, on_cols in columns:
            found = _windows(on_rows, on_cols, (py, fy, px, fx), from_plane, shape, grid, tiles)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
    return best


SPREAD_EXTENT = (90.0, 10.0, 1.0, 99.0)  # percentiles of a family's offsets: its spread, then its extent


def _order_stats(values: np.ndarray, percents: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value below, value above, weight) of each percentile, as np.percentile's linear method takes them."""
    virtual = (len(values) - 1) * (np.asarray(percents) / 100)
    below = np.floor(virtual).astype(int)
    above = np.minimum(below + 1, len(values) - 1)
    part = np.partition(values, np.unique(np.r_[below, above]))
    return part[below], part[above], virtual - below


def _lerp(below: np.ndarray, above: np.ndarray, weight: np.ndarray, scale: float) -> np.ndarray:
    """The percentiles of ``values * scale`` from ``_order_stats``, interpolated as np.percentile does."""
    below, above = below * scale, above * scale
    diff = above - below
    return np.where(weight >= 0.5, above - diff * (1 - weight), below + diff * weight)


def _cell_centres(from_plane: np.ndarray, comb: tuple, rows: tuple, cols: tuple) -> tuple:
    """Cell centres in the photo (x, y arrays): the plane -> work homography on the separable grid."""
    py, fy, px, fx = comb
    cx = fx + (np.arange(cols[0], cols[1]) + 0.5) * px
    cy = fy + (np.arange(rows[0], rows[1]) + 0.5) * py
    m = from_plane
    den = m[2, 0] * cx[None, :] + m[2, 1] * cy[:, None] + m[2, 2]
    centre_x = (m[0, 0] * cx[None, :] + m[0, 1] * cy[:, None] + m[0, 2]) / den
    centre_y = (m[1, 0] * cx[None, :] + m[1, 1] * cy[:, None] + m[1, 2]) / den
    return centre_x, centre_y


def _windows(
    on_rows: _OnComb,
    on_cols: _OnComb,
    comb: tuple,
    from_plane: np.ndarray,
    shape: tuple[int, int],
    grid: int | str,
    tiles: float = 1.0,
):
    """Best N×N window of one lattice, by seam coverage of the cells' sides: (score, H, N, others).

    ``on_rows``, ``on_cols``: the segments on the lattice's row lines and column lines (``_on_comb``);
    ``comb``: (row pitch, row phase, column pitch, column phase) in the plane; ``from_plane``: plane -> work.
    ``others``: centres (col, row in the chosen window's grid) of the other windows that score nearly as
    well and lie apart from it (another kingdom on the same lattice). ``tiles`` scales the closed cells a
    window needs (see needed_tiles).
    """
    height, width = shape
    py, fy, px, fx = comb
    rows, cols = on_rows.span, on_cols.span
    sizes = (5, 7) if grid == "auto" else (int(grid),)
    needed = min(needed_tiles(n, tiles) for n in sizes)
    horizontal = _side_coverage(on_rows, px, fx, cols)  # (rows+1, cols)
    across = horizontal[:-1] + horizontal[1:]  # (rows, cols): coverage of each cell's top + bottom
    if (across >= 0.6).sum() < needed:  # a closed cell (score >= 2 below) has across >= 2/3: none here
        return None
    vertical = _side_coverage(on_cols, py, fy, rows)  # (cols+1, rows)
    along = vertical[:-1].T + vertical[1:].T  # left + right
    # a tile is closed on both axes; parallel plank joints or wood grain cover only one
    score = np.minimum(across, 2 * along) + np.minimum(along, 2 * across)
    if (score >= 2.0).sum() < needed or min(score.shape) < min(sizes):
        return None  # too few closed cells in the whole lattice for any window to be a kingdom
    centre_x, centre_y = _cell_centres(from_plane, comb, rows, cols)
    inside = (np.abs(centre_x / width - 0.5) < 0.52) & (np.abs(centre_y / height - 0.5) < 0.52)
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
            closed >= needed_tiles(n, tiles) - 1e-6
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


def needed_tiles(n: int, share: float = 1.0) -> int:
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
