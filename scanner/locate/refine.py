"""Refining a candidate frame on the image gradients, and how much of it lies on seams.

Both work in the frame's own rectified view: the photo warped so the lattice is axis-aligned with
``cell`` pixels per square; each lattice line then looks for the strongest gradient row near it.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.locate.settings import DEFAULT_SETTINGS

REFINE_CELL_PX = DEFAULT_SETTINGS.refine_cell_px


def refine(
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
    across, along = side_hits(gray, grid_to_work, n, lines)
    return int(across.sum() + along.sum()) / (2 * n * len(lines))


def side_hits(
    gray: np.ndarray, grid_to_work: np.ndarray, n: int, lines: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Which sides of the lattice lie on a seam: (rows' lines × columns, columns' lines × rows) booleans.

    Entry [k, j] of the first array: horizontal line ``lines[k]`` over column j; of the second: vertical
    line ``lines[k]`` over row j (``lines``: all n + 1 by default).
    """
    cell = REFINE_CELL_PX  # the seams are looked for at the resolution the frame was refined at
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
