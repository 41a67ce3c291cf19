"""Refining a candidate frame on the image gradients, and how much of it lies on seams.

Both work in the frame's own rectified view: the photo warped so the lattice is axis-aligned with
``cell`` pixels per square; each lattice line then looks for the strongest gradient row near it.
"""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np

from scanner.locate.settings import DEFAULT_SETTINGS, LocatorSettings

REFINE_CELL_PX = DEFAULT_SETTINGS.refine_cell_px
Lines = Literal["all", "inner", "outline"]  # which of a frame's lines ``seam_support`` counts
SMEAR_SLACK = 0.06  # squares: correlation lengths of sharp artwork differ by up to this between the axes
SMEAR_SPAN = 0.1  # squares of excess beyond the slack over which a family's weight falls to its least
SMEARED = 0.5  # a family of lines this little sharp is not refined (nothing to move onto)
SEAM_CONTRAST = 1.6  # a seam: its gradient row this many times the median of the rows near the line
MIN_SHARPNESS = 0.25  # the least weight of a family of lines: its seams still count, a quarter as much


def refine(
    gray: np.ndarray, grid_to_work: np.ndarray, n: int, cell: int = REFINE_CELL_PX, keep_outline: bool = False
) -> np.ndarray:
    """Move each frame line onto the strongest nearby seam, then refit the homography.

    ``keep_outline``: the outer lines stay where they are (a cropped board's outline is the photo's edge).
    """
    to_rect = _to_rect(cell)
    rect = _rectified(gray, grid_to_work, n, cell)
    across_rows, across_cols = _family_gradients(rect)
    _, offsets = _side_offsets(cell)
    bases = _line_bases(np.arange(n + 1), cell)
    fitted_h = _fit_lines(across_rows, bases, offsets, n, cell)
    fitted_v = _fit_lines(across_cols, bases, offsets, n, cell)[:, [1, 0, 2]]  # fitted as rows, turned back
    # a family of lines whose seams the blur smeared away has nothing to move onto: it stays
    sharp_h, sharp_v = axis_sharpness(rect, n, cell)
    if sharp_h < SMEARED:
        fitted_h = np.c_[np.zeros(n + 1), np.ones(n + 1), -bases]
    if sharp_v < SMEARED:
        fitted_v = np.c_[np.ones(n + 1), np.zeros(n + 1), -bases]
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


def seam_support(
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    lines: Lines = "all",
    rectified: tuple[np.ndarray, tuple[float, float]] | None = None,
    tiles: np.ndarray | None = None,
) -> float:
    """Share of the lattice's sides (one per cell and line) that lie on a visible seam or edge, each
    family of lines weighed by how sharp the frame's squares are across it (``axis_sharpness``): a
    shaking hand smears the seams across its motion away, and those sides cannot be asked to show one.

    ``lines``: "all" of them; "inner" lines only (a cropped board's outline is the photo's edge);
    "outline": the outline's lines only (where the kingdom meets the table). ``rectified``: the frame's
    ``_rectified`` view and its ``axis_sharpness``, when made already. ``tiles``: (n, n) booleans, the
    frame's squares of printed artwork: the share is then the lesser of all the sides' and of the sides
    bordering a tile (a lattice of a cloth's checks or a printed grid across the kingdom has its seams on
    the table, none between the tiles; a frame half on a plain table has too few seams at all).
    """
    counted = {"all": np.arange(n + 1), "inner": np.arange(1, n), "outline": np.array([0, n])}[lines]
    if rectified is None:
        rect = _rectified(gray, grid_to_work, n)
        rectified = rect, axis_sharpness(rect, n)
    rect, (weight_across, weight_along) = rectified
    across, along = side_hits(gray, grid_to_work, n, counted, rect)
    hits = weight_across * across.mean() + weight_along * along.mean()
    support = float(hits / (weight_across + weight_along))
    if tiles is not None:
        padded = np.pad(np.asarray(tiles, bool), 1)  # the cells beyond the frame are not its tiles
        # a row line k over column j borders cells (k - 1, j) and (k, j); a column line k over row j
        # borders cells (j, k - 1) and (j, k)
        rows = (padded[:-1, 1:-1] | padded[1:, 1:-1])[counted]
        cols = (padded[1:-1, :-1] | padded[1:-1, 1:]).T[counted]
        if rows.any() or cols.any():
            hits = weight_across * across[rows].sum() + weight_along * along[cols].sum()
            support = min(support, float(hits / (weight_across * rows.sum() + weight_along * cols.sum())))
    return support


def frame_sharpness(gray: np.ndarray, grid_to_work: np.ndarray, n: int) -> tuple[float, float]:
    """``axis_sharpness`` of a frame on the grey image: (rows' lines, columns' lines)."""
    return axis_sharpness(_rectified(gray, grid_to_work, n), n)


def axis_sharpness(rect: np.ndarray, n: int, cell: int = REFINE_CELL_PX) -> tuple[float, float]:
    """How sharply the frame's squares show across its rows' lines and across its columns' lines (1:
    sharp), on the frame's rectified view (``cell`` pixels per square, half a square around). Printed
    artwork is alike in every direction, and motion blur lengthens its autocorrelation along the motion:
    the excess of one axis's correlation length over the other's, in squares, beyond what artwork varies
    by (``SMEAR_SLACK``), lowers that axis's weight, to at least ``MIN_SHARPNESS``."""
    step = max(1, cell // REFINE_CELL_PX)  # a finer view is measured at the usual resolution
    squares = rect[cell // 2 : cell // 2 + n * cell : step, cell // 2 : cell // 2 + n * cell : step]
    cell //= step
    detail = squares - _colours(squares, cell / 4)  # the artwork's texture, not its colours
    down, across = _correlation_length(detail.T), _correlation_length(detail)  # along y, along x

    def weight(excess: float) -> float:
        return float(np.clip(1 - (excess / cell - SMEAR_SLACK) / SMEAR_SPAN, MIN_SHARPNESS, 1.0))

    # rows' lines are seen by gradients along y: a length along y (blur up and down) hides them
    return weight(down - across), weight(across - down)


def blur_spread(rect: np.ndarray, n: int, cell: int = REFINE_CELL_PX) -> tuple[float, float]:
    """How far a motion blur spreads the frame's seams across its rows' lines and across its columns'
    lines: the standard deviations (rectified pixels) the smear adds along y and along x. Motion blur
    widens the central lobe of the artwork's autocorrelation along the motion; the lobe's second moments,
    less the narrowest (the artwork's own, alike in every direction), are the blur's, in any direction
    of the motion, a diagonal one too (docs/experiments.md, "Smeared seams as wide ridges")."""
    step = max(1, cell // REFINE_CELL_PX)  # measured at the usual resolution, as ``axis_sharpness``
    squares = rect[cell // 2 : cell // 2 + n * cell : step, cell // 2 : cell // 2 + n * cell : step]
    small = cell // step
    detail = squares - _colours(squares, small / 4)
    detail = detail - detail.mean()
    height, width = detail.shape
    reach = small // 2
    # Padded by the largest lag read, not doubled: the lags within ``reach`` do not wrap around.
    padded = (cv2.getOptimalDFTSize(height + reach + 1), cv2.getOptimalDFTSize(width + reach + 1))
    spectrum = np.fft.rfft2(detail, s=padded)
    circular = np.fft.irfft2(spectrum * np.conj(spectrum), s=padded)
    lags = np.arange(-reach, reach + 1)
    lobe = circular[np.ix_(lags % padded[0], lags % padded[1])]
    lobe = lobe / max(float(lobe[reach, reach]), 1e-9)
    _, labels = cv2.connectedComponents((lobe >= 0.5).astype(np.uint8))
    weight = np.where(labels == labels[reach, reach], lobe, 0.0)
    yy, xx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    total = max(float(weight.sum()), 1e-9)
    xy = float((weight * xx * yy).sum()) / total
    moments = np.array(
        [[float((weight * xx * xx).sum()) / total, xy], [xy, float((weight * yy * yy).sum()) / total]]
    )
    least = float(np.linalg.eigvalsh(moments)[0])
    along_y, along_x = max(moments[1, 1] - least, 0.0), max(moments[0, 0] - least, 0.0)
    return float(np.sqrt(along_y)) * step, float(np.sqrt(along_x)) * step


def _colours(image: np.ndarray, sigma: float) -> np.ndarray:
    """A Gaussian blur of ``sigma`` pixels done at half size (a quarter of the work of the wide kernel): the
    colour fields it leaves vary far more slowly than the half-size grid."""
    height, width = image.shape
    half = cv2.resize(
        image[: height - height % 2, : width - width % 2],
        (width // 2, height // 2),
        interpolation=cv2.INTER_AREA,
    )
    return cv2.resize(
        cv2.GaussianBlur(half, (0, 0), sigma / 2), (width, height), interpolation=cv2.INTER_LINEAR
    )


def _correlation_length(image: np.ndarray) -> float:
    """Lag (pixels along the rows, interpolated) at which the image's autocorrelation falls to a half."""
    image = image - image.mean()
    width = image.shape[1]
    energy = float((image * image).mean()) + 1e-6
    previous = 1.0
    for lag in range(1, width // 4):
        value = _mean(image[:, : width - lag] * image[:, lag:]) / energy
        if value < 0.5:
            return lag - 1 + (previous - 0.5) / max(previous - value, 1e-6)
        previous = value
    return float(width // 4)


def _mean(values: np.ndarray) -> float:
    """``float(values.mean())`` of a float array, to the bit, without numpy's wrapper around it (called
    thousands of times a photo): numpy sums in the array's type, then divides in float64 and rounds back."""
    return float(values.dtype.type(float(np.add.reduce(values, axis=None)) / values.size))


def _to_rect(cell: int) -> np.ndarray:
    """Grid units -> rectified pixels, ``cell`` pixels per square and half a square of margin."""
    return np.array([[cell, 0, cell / 2], [0, cell, cell / 2], [0, 0, 1]])


def _side_offsets(cell: int) -> tuple[int, np.ndarray]:
    """How far across its line a side's seam is looked for (rectified px), and the offsets looked at."""
    reach = int(0.3 * cell)
    return reach, np.arange(-reach, reach + 1)


def _line_bases(lines: np.ndarray, cell: int) -> np.ndarray:
    """Where the frame's ``lines`` lie on the rectified frame (``_rectified``: half a square around it)."""
    return np.round(cell / 2 + lines * cell).astype(int)


def _family_gradients(rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gradient magnitude across the rows' lines, and across the columns' lines transposed, so that
    both families' lines run along the first axis."""
    return (
        np.abs(cv2.Sobel(rect, cv2.CV_32F, 0, 1, ksize=3)),
        np.abs(cv2.Sobel(rect, cv2.CV_32F, 1, 0, ksize=3)).T,
    )


def _rectified(gray: np.ndarray, grid_to_work: np.ndarray, n: int, cell: int = REFINE_CELL_PX) -> np.ndarray:
    """The frame and half a square around it, ``cell`` pixels per square (float32); by default the
    resolution the frame was refined at, where the seams are counted."""
    side = (n + 1) * cell
    return cv2.warpPerspective(
        gray,
        _to_rect(cell) @ np.linalg.inv(grid_to_work),
        (side, side),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)


def side_hits(
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    lines: np.ndarray | None = None,
    rect: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Which sides of the lattice lie on a seam: (rows' lines × columns, columns' lines × rows) booleans.

    Entry [k, j] of the first array: horizontal line ``lines[k]`` over column j; of the second: vertical
    line ``lines[k]`` over row j (``lines``: all n + 1 by default; ``rect``: ``_rectified`` if made already).
    """
    cell = REFINE_CELL_PX
    rect = _rectified(gray, grid_to_work, n) if rect is None else rect
    reach, offsets = _side_offsets(cell)
    bases = _line_bases(np.arange(n + 1) if lines is None else lines, cell)
    hits = []
    for grad in _family_gradients(rect):
        profiles = _cell_profiles(grad, bases, offsets, n, cell)  # (lines, offsets, n)
        best = np.argmax(profiles, axis=1)
        peak = np.take_along_axis(profiles, best[:, None, :], axis=1)[:, 0]
        hits.append(
            (np.abs(best - reach) <= 3) & (peak >= SEAM_CONTRAST * (np.median(profiles, axis=1) + 1e-6))
        )
    return hits[0], hits[1]


def _cell_profiles(grad: np.ndarray, bases: np.ndarray, offsets: np.ndarray, n: int, cell: int) -> np.ndarray:
    """Mean gradient along rows ``bases + offsets`` over the middle 80 % of each cell: (lines, offsets, n)."""
    rows = np.clip(np.asarray(bases).reshape(-1, 1) + offsets, 0, grad.shape[0] - 1)
    starts, ends = _cell_spans(n, cell)
    width = min(int(ends.max()), grad.shape[1])  # the running sums past the last span are never read
    block = grad[rows, :width]
    if np.array_equal(block, np.trunc(block)):
        # whole numbers (a Sobel of grey levels, not smoothed by a smear): every sum is exact in any order,
        # so each span summed alone gives the running sums' differences to the bit, at a fraction of the cost
        spans = [block[:, :, a:b].sum(axis=2, dtype=np.float64) for a, b in zip(starts, ends, strict=True)]
        return np.stack(spans, axis=2) / (ends - starts)
    sums = np.zeros(rows.shape + (width + 1,), np.float64)
    np.cumsum(block, axis=2, out=sums[:, :, 1:])
    return (sums[:, :, ends] - sums[:, :, starts]) / (ends - starts)


def _smoothed_profiles(
    grad: np.ndarray, bases: np.ndarray, offsets: np.ndarray, n: int, cell: int
) -> np.ndarray:
    """``_cell_profiles`` smoothed across the offsets by [1/4, 1/2, 1/4] (zero beyond the reach)."""
    padded = np.pad(_cell_profiles(grad, bases, offsets, n, cell), ((0, 0), (1, 1), (0, 0)))
    return 0.25 * padded[:, :-2] + 0.5 * padded[:, 1:-1] + 0.25 * padded[:, 2:]


def table_reach(offsets: np.ndarray, n: int, cell: int, table: np.ndarray) -> np.ndarray:
    """Which offsets from each side of the frame's rows' lines a seam is looked for at: (lines, offsets,
    n) booleans. The table's own pattern is no seam (a mat's printed lines, a cloth's checks): beyond the
    outline, and into any cell of the frame that shows the table (``table``, (n, n) booleans: a hole in
    the kingdom), a side's seam is looked for only a little (``OUTWARD_SQUARES``), where the artwork's
    edge may lie; a side with the table on both sides has no seam of the kingdom to show (docs/
    experiments.md, "Seams only where they border artwork"). For the columns' lines, pass ``table.T``."""
    around = np.pad(np.asarray(table, bool), 1, constant_values=True)  # the ring outside: the table
    before, after = around[: n + 1, 1 : n + 1], around[1:, 1 : n + 1]  # the cells above and below a side
    outward = OUTWARD_SQUARES * cell
    shift = np.asarray(offsets)[None, :, None]
    allowed = ~((before[:, None, :] & (shift < -outward)) | (after[:, None, :] & (shift > outward)))
    return allowed & ~(before & after)[:, None, :]


def _peaks(
    profiles: np.ndarray, allowed: np.ndarray, reference: np.ndarray | None = None
) -> tuple[np.ndarray, ...]:
    """Per side of ``profiles`` (lines, offsets, n), among the ``allowed`` offsets: the strongest offset's
    index, its value, its contrast to the side's median, and whether it is a peak inside the allowed
    span (not at its end, where the strongest row may lie beyond it); a side with no offset allowed has
    none. ``reference``: the offsets the median is taken over (the allowed ones when None)."""
    masked = np.where(allowed, profiles, -np.inf)
    best = np.argmax(masked, axis=1)  # (lines, n)
    peak = np.take_along_axis(profiles, best[:, None, :], axis=1)[:, 0]
    reference = allowed if reference is None else reference
    if reference.all():
        median = np.median(profiles, axis=1)
    else:  # a side with nothing allowed keeps its whole profile here (it has no peak anyway)
        kept = reference | ~reference.any(axis=1, keepdims=True)
        median = _kept_median(profiles, kept)
    contrast = peak / (median + 1e-6)
    first = np.argmax(allowed, axis=1)
    last = allowed.shape[1] - 1 - np.argmax(allowed[:, ::-1], axis=1)
    inside = allowed.any(axis=1) & (best > first) & (best < last)
    return best, peak, contrast, inside


def _kept_median(profiles: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The median over axis 1 of the ``kept`` entries of finite ``profiles`` (at least one kept per side),
    as ``np.nanmedian`` of the others set to NaN gives it (the mean of the two middle values), without its
    masked arrays: sorted with the others last."""
    ordered = np.sort(np.where(kept, profiles, np.inf), axis=1)
    count = kept.sum(axis=1, keepdims=True)
    high = count // 2
    low = np.where(count % 2 == 1, high, high - 1)
    pair = np.take_along_axis(ordered, low, axis=1) + np.take_along_axis(ordered, high, axis=1)
    return pair[:, 0] / 2.0


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
    profiles = _smoothed_profiles(grad, bases, offsets, n, cell)
    best, peak, contrast, inside = _peaks(profiles, np.ones(profiles.shape, bool))
    votes = (contrast >= SEAM_CONTRAST) & inside
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


# --- the frame fitted jointly to every seam -----------------------------------------------------------
PRIOR_WEIGHT = 0.05  # weight of each frame corner staying put, against a side's seam vote of weight 1
ROBUST_SQUARES = 0.1  # squares: votes farther than this from the fit count less and less (Tukey), ...
ROBUST_PASSES = 3  # ... refitted this many times
OUTWARD_SQUARES = 0.1  # squares: how far outward of the frame the outline's edge is looked for
MATCHED_SPREAD_PX = 1.0  # rectified px: a blur spreading seams less than this leaves the gradient as it is
RIDGE_FLANKS = 2.0  # spreads: how far past the offsets looked at a smeared seam's ridge still reaches
SMEAR_SPREAD = 0.06  # squares: unblurred artwork's own spread stays under this; a real smear's goes beyond
DRIFT_STRETCHES = 20  # stretches of a family's lattice tried each way when its seams are found (seam_drift)


def fit_frame(
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    settings: LocatorSettings = DEFAULT_SETTINGS,
    table: np.ndarray | None = None,
    cell_px: int | None = None,
    *,
    last: bool = True,
) -> np.ndarray:
    """The frame's homography fitted at once to every side's seam: each side of the lattice that shows a
    seam near it votes for where its line passes there, and one homography is fitted to all the votes
    (robustly, held lightly where it was), not each line alone and then the lines' crossings. A frame whose
    seams are faint (fewer sides on one than the judge asks: accepted on its artwork's evidence) keeps
    its place when the fit would leave still fewer: blur smeared along a diagonal of the lattice keeps
    both families' weight, and their votes follow the smear (docs/experiments.md, "The judge chooses in
    a blob"). A family of seams the photo's motion blur smears (``blur_spread``) is fitted on its gradient
    smoothed across the seams by the smear's own spread: a smeared seam is a ridge as wide as the smear,
    whose middle is where the seam lies, not either of its flanks (docs/experiments.md, "Smeared seams as
    wide ridges"); when the spread is beyond what unblurred artwork measures of its own (``SMEAR_SPREAD``),
    it stands out against the gradient beyond its flanks, not against them (docs/experiments.md, "A
    smeared seam's contrast beyond its flanks"); in the last fits (``last``, the default whatever
    ``cell_px``: on the photo at the returned frame's resolution; the search's own fit passes ``last=False``)
    every matched family does (a diagonal smear spreads each family less: "Every smeared ridge beyond its
    flanks, in the last fit"). ``table``: the frame's cells that show the table, when known
    (``table_reach``); ``cell_px``: the rectified square it fits at (``settings.fine_cell_px`` when None)."""
    table = np.zeros((n, n), bool) if table is None else table
    cell = settings.fine_cell_px if cell_px is None else cell_px
    # the last fits: every matched ridge against the gradient beyond its flanks (docs/experiments.md,
    # "Every smeared ridge beyond its flanks, in the last fit")
    beyond_from = MATCHED_SPREAD_PX if last else SMEAR_SPREAD * cell
    rect = _rectified(gray, grid_to_work, n, cell)
    first = rect, axis_sharpness(rect, n, cell)  # the first pass's view; the support's too at its resolution
    spreads = blur_spread(rect, n, cell)  # the photo's smear: the same for every pass of the fit
    fitted = grid_to_work
    for index in range(settings.frame_fit_passes):
        fitted = _fit_pass(gray, fitted, n, cell, table, spreads, first if index == 0 else None, beyond_from)
    before = seam_support(gray, grid_to_work, n, rectified=first if cell == REFINE_CELL_PX else None)
    if before >= settings.min_seam_support or seam_support(gray, fitted, n) >= before:
        return fitted
    return grid_to_work


def _fit_pass(
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    cell: int,
    table: np.ndarray,
    spreads: tuple[float, float],
    rectified: tuple[np.ndarray, tuple[float, float]] | None = None,
    beyond_from: float | None = None,
) -> np.ndarray:
    if rectified is None:
        rect = _rectified(gray, grid_to_work, n, cell)
        rectified = rect, axis_sharpness(rect, n, cell)
    rect, (sharp_rows, sharp_cols) = rectified
    spread_rows, spread_cols = spreads
    reach, offsets = _side_offsets(cell)
    bases = _line_bases(np.arange(n + 1), cell)
    across_rows, across_cols = _family_gradients(rect)
    votes = []
    for grad, sharp, spread, column, cells in (
        (across_rows, sharp_rows, spread_rows, False, table),
        (across_cols, sharp_cols, spread_cols, True, table.T),
    ):
        if sharp < SMEARED and spread < MATCHED_SPREAD_PX:
            continue  # the blur smeared these seams away, and by no measured spread: nothing to place them
        grad, beyond = _matched(grad, spread, cell, reach, beyond_from)
        along, across, line, weight = _side_votes(grad, bases, offsets, n, cell, cells, beyond)
        u, v = along / cell - 0.5, across / cell - 0.5  # the vote in the frame's grid units
        votes.append((v, u, line, weight * sharp, True) if column else (u, v, line, weight * sharp, False))
    solved = _solve_frame(votes, n)
    return grid_to_work if solved is None else grid_to_work @ np.linalg.inv(solved)


def _matched(
    grad: np.ndarray, spread: float, cell: int, reach: int, beyond_from: float | None = None
) -> tuple[np.ndarray, int]:
    """A family's gradient (rows' lines along y) as the fit reads it, and how far past ``reach`` its
    profile's median looks: smoothed across the lines by the blur's ``spread`` (a smeared seam is a ridge
    as wide as the smear), and for a real smear (``SMEAR_SPREAD``, or ``beyond_from`` rectified px when given)
    measured against the gradient beyond the ridge's flanks (``RIDGE_FLANKS``); as it is for a spread under
    ``MATCHED_SPREAD_PX``."""
    beyond_from = SMEAR_SPREAD * cell if beyond_from is None else beyond_from
    beyond = 0
    if spread >= MATCHED_SPREAD_PX:  # a smeared seam is a ridge as wide as the smear: the matched profile
        grad = cv2.GaussianBlur(np.ascontiguousarray(grad), (1, 0), sigmaX=0.1, sigmaY=spread)
    if spread >= max(beyond_from, MATCHED_SPREAD_PX):  # a real smear's ridge stands out beyond its flanks
        beyond = int(min(cell // 2 - reach, round(RIDGE_FLANKS * spread)))
    return grad, beyond


def ridge_support(
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    table: np.ndarray | None = None,
    cell: int = REFINE_CELL_PX,
) -> float | None:
    """The least share, over the families of lines a real smear spreads (``blur_spread`` of at least
    ``SMEAR_SPREAD``), of the family's sides whose seam stands out as a ridge near its line: the sides
    ``fit_frame`` can place, by the same test. None when no family is so smeared. ``seam_support`` excuses
    a family the smear blurs (``axis_sharpness``); a frame whose smeared family shows almost no ridge has
    its place across that family from the search's frame alone, however sure its other family (docs/
    experiments.md, "A smeared family without ridges"). ``table``: as for ``fit_frame``."""
    rect = _rectified(gray, grid_to_work, n, cell)
    return _ridge_support(rect, blur_spread(rect, n, cell), n, table, cell)


def smear_doubts(
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    table: np.ndarray | None = None,
    cell: int = REFINE_CELL_PX,
) -> tuple[float | None, float | None]:
    """``ridge_support`` and ``seam_drift`` of one frame, from one rectified copy and one blur measure."""
    rect = _rectified(gray, grid_to_work, n, cell)
    spreads = blur_spread(rect, n, cell)
    return _ridge_support(rect, spreads, n, table, cell), _seam_drift(rect, spreads, n, cell)


def _ridge_support(
    rect: np.ndarray, spreads: tuple[float, float], n: int, table: np.ndarray | None, cell: int
) -> float | None:
    table = np.zeros((n, n), bool) if table is None else np.asarray(table, bool)
    if max(spreads) < SMEAR_SPREAD * cell:
        return None  # seams this little spread are counted by ``seam_support``
    reach, offsets = _side_offsets(cell)
    bases = _line_bases(np.arange(n + 1), cell)
    shares = []
    for gradient, spread, cells in zip(_family_gradients(rect), spreads, (table, table.T), strict=True):
        if spread < SMEAR_SPREAD * cell:
            continue  # a seam this little spread is counted by ``seam_support``
        grad, beyond = _matched(gradient, spread, cell, reach)
        along, *_ = _side_votes(grad, bases, offsets, n, cell, cells, beyond)
        sides = int(table_reach(offsets, n, cell, cells).any(axis=1).sum())
        shares.append(len(along) / max(sides, 1))
    return min(shares) if shares else None


def seam_drift(
    gray: np.ndarray, grid_to_work: np.ndarray, n: int, cell: int = REFINE_CELL_PX
) -> float | None:
    """How far (squares) the frame's lines lie from the kingdom's seams, the larger over the families of
    lines no real smear spreads (``SMEAR_SPREAD``; None: both are, ``ridge_support`` judges them) and
    their inner lines. Per family, the lattice of seams near its lines is fitted over a whole square of
    offsets (shifted and stretched, every inner line moved by at most half a square), on the gradient
    averaged along each inner line, smoothed across them by the photo's smear as the fit reads it; the
    drift is the farthest any of the frame's inner lines lies from it. The seam support and the fit look
    for a seam within a third of a square of each line: a frame stretched or moved by more than that
    across one family keeps its support from the other (docs/experiments.md, "Seams beside the lines")."""
    rect = _rectified(gray, grid_to_work, n, cell)
    return _seam_drift(rect, blur_spread(rect, n, cell), n, cell)


def _seam_drift(rect: np.ndarray, spreads: tuple[float, float], n: int, cell: int) -> float | None:
    drifts = [drift for drift, _, _ in _drifted_lattices(rect, spreads, n, cell) if drift is not None]
    return max(drifts, default=None)


def onto_drifted_seams(
    gray: np.ndarray, grid_to_work: np.ndarray, n: int, cell: int = REFINE_CELL_PX
) -> np.ndarray:
    """The frame moved onto the lattice of seams ``seam_drift`` finds near its lines: each family no real
    smear spreads shifted and stretched about the frame's middle as that lattice is (a family a smear
    spreads stays). A frame stretched or moved by more than a third of a square across one family is out
    of the last fit's reach there; from the lattice the drift was measured against, it is within it."""
    if n < 3:
        return grid_to_work
    rect = _rectified(gray, grid_to_work, n, cell)
    (_, rows_stretch, rows_shift), (_, cols_stretch, cols_shift) = _drifted_lattices(
        rect, blur_spread(rect, n, cell), n, cell
    )
    # line k of a family lies at k (1 + stretch) + shift - stretch n / 2 of the frame's grid
    moved = np.array(
        [
            [1 + cols_stretch, 0, cols_shift - cols_stretch * n / 2],
            [0, 1 + rows_stretch, rows_shift - rows_stretch * n / 2],
            [0, 0, 1],
        ]
    )
    return grid_to_work @ moved


def _drifted_lattices(
    rect: np.ndarray, spreads: tuple[float, float], n: int, cell: int
) -> list[tuple[float | None, float, float]]:
    """Per family (rows' lines, columns' lines): how far (squares) its inner lines lie from the lattice of
    seams fitted near them, and that lattice's stretch about the middle and shift (squares); (None, 0, 0)
    for a family a real smear spreads or a frame with no inner line to stretch about."""
    if n < 3:
        return [(None, 0.0, 0.0), (None, 0.0, 0.0)]
    lines = np.arange(1, n)
    middle = lines - n / 2  # each inner line's place from the frame's middle, in squares
    shifts = np.arange(-(cell // 2), cell // 2 + 1)  # px: also the offsets each line is read at
    stretches = np.linspace(-0.5, 0.5, 2 * DRIFT_STRETCHES + 1) / np.abs(middle).max()
    # (stretches, shifts, lines): each inner line's offset (px) in each candidate lattice
    moved = np.round(shifts[None, :, None] + stretches[:, None, None] * middle * cell).astype(int)
    beside = np.abs(moved).max(axis=2) > cell // 2  # no line is moved onto the next seam
    picked = (np.arange(len(lines)), np.clip(moved + cell // 2, 0, len(shifts) - 1))
    starts, ends = _cell_spans(n, cell)
    along = np.zeros(int(ends.max()))  # the middle of each cell along a line, weighed
    for start, end in zip(starts, ends, strict=True):
        along[start:end] = 1 / ((end - start) * n)
    lattices = []
    for gradient, spread in zip(_family_gradients(rect), spreads, strict=True):
        if spread >= SMEAR_SPREAD * cell:
            # a real smear's wide ridges place a family too loosely: ``ridge_support`` judges it
            lattices.append((None, 0.0, 0.0))
            continue
        grad, _ = _matched(gradient, spread, cell, 0)
        profiles = (grad[:, : len(along)] @ along)[_line_bases(lines, cell)[:, None] + shifts]
        scores = np.where(beside, -np.inf, profiles[picked].sum(axis=2))  # (stretches, shifts)
        # equal scores (a family without seams) keep the frame's own lines, not the first lattice tried
        best = np.unravel_index(np.argmax(scores - np.abs(moved).max(axis=2) * 1e-9), scores.shape)
        drift = float(np.abs(moved[best]).max()) / cell
        lattices.append((drift, float(stretches[best[0]]), float(shifts[best[1]]) / cell))
    return lattices


def _side_votes(
    grad: np.ndarray,
    bases: np.ndarray,
    offsets: np.ndarray,
    n: int,
    cell: int,
    table: np.ndarray,
    beyond: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where each side of the lines ``bases`` shows its seam: (along, across, line, weight) of the sides
    whose strongest gradient row near the line stands out of its profile (rectified px, sub-pixel);
    ``table``: the frame's cells that show the table (``table_reach``); ``beyond``: pixels past the
    offsets, both ways, that the profile's median also covers (a wide ridge's flanks are no background)."""
    wide = np.arange(offsets[0] - beyond, offsets[-1] + beyond + 1)
    profiles = _smoothed_profiles(grad, bases, wide, n, cell)
    allowed = table_reach(wide, n, cell, table) & (np.abs(wide) <= offsets[-1])[None, :, None]
    best, peak, contrast, inside = _peaks(profiles, allowed, None if beyond == 0 else np.ones_like(allowed))
    offsets = wide
    voted = (contrast >= SEAM_CONTRAST) & inside
    inner = np.clip(best, 1, len(offsets) - 2)
    before = np.take_along_axis(profiles, (inner - 1)[:, None, :], axis=1)[:, 0]
    after = np.take_along_axis(profiles, (inner + 1)[:, None, :], axis=1)[:, 0]
    curve = before - 2 * peak + after
    vertex = np.where(curve < -1e-9, 0.5 * (before - after) / np.where(curve < -1e-9, curve, -1.0), 0.0)
    starts, ends = _cell_spans(n, cell)
    along = np.broadcast_to((starts + ends) / 2, best.shape)
    across = np.asarray(bases).reshape(-1, 1) + offsets[best] + np.clip(vertex, -0.5, 0.5)
    line = np.broadcast_to(np.arange(len(bases)).reshape(-1, 1), best.shape)
    weight = np.minimum(contrast, 4.0) - 1.0  # a clear seam counts more, a table's edge not without end
    return along[voted], across[voted], line[voted], weight[voted]


def _solve_frame(votes: list, n: int) -> np.ndarray | None:
    """The homography (rectified grid units -> grid) that puts every vote on its line, least squares,
    reweighted (Tukey) against votes far from the fit; held lightly at the frame's corners."""
    rows, rhs, weights = [], [], []
    for u, v, line, weight, column in votes:
        zero = np.zeros_like(u)
        one = np.ones_like(u)
        # column line j: (a u + b v + c) / (g u + h v + 1) = j; row line k: (d u + e v + f) / (...) = k
        own = [u, v, one]
        other = [zero, zero, zero]
        block = (own + other) if column else (other + own)
        rows.append(np.stack(block + [-line * u, -line * v], axis=1))
        rhs.append(line)
        weights.append(weight)
    if not rows or sum(len(r) for r in rhs) < 8:
        return None
    corners = np.array([[0, 0], [n, 0], [n, n], [0, n]], float)
    for u, v in corners:  # the frame as it was: each corner's column and row stay, lightly
        rows.append(np.array([[u, v, 1, 0, 0, 0, -u * u, -u * v], [0, 0, 0, u, v, 1, -v * u, -v * v]]))
        rhs.append(np.array([u, v]))
        weights.append(np.full(2, -1.0))  # marked: prior
    a = np.concatenate(rows)
    b = np.concatenate(rhs)
    base = np.concatenate(weights)
    prior = base < 0
    scale = np.median(base[~prior]) if (~prior).any() else 1.0
    base = np.where(prior, PRIOR_WEIGHT * scale, base)
    weight = base.copy()
    params = None
    for _ in range(ROBUST_PASSES + 1):
        root = np.sqrt(weight)
        params, *_ = np.linalg.lstsq(a * root[:, None], b * root, rcond=None)
        residual = a @ params - b
        tukey = np.clip(1 - (residual / ROBUST_SQUARES) ** 2, 0, None) ** 2
        weight = np.where(prior, base, base * tukey)
    if params is None or not np.isfinite(params).all():
        return None
    return np.append(params, 1.0).reshape(3, 3)
