"""Line segments of a photo and the directions they share: the raw evidence of the kingdom's seams.

Segments come from OpenCV's LSD on a contrast-equalised grey copy; the lattice fit (scanner.locate.lattice)
groups them by direction and fits each group's vanishing point (RANSAC) or common direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from scanner.geometry import apply_homography


def find_segments(gray: np.ndarray) -> np.ndarray:
    """LSD segments (n, 4) x1 y1 x2 y2 longer than a few pixels."""
    # local contrast normalisation: dim, warm evening photos otherwise lose most seams
    equalised = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(gray)
    lines = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD).detect(equalised)[0]
    if lines is None:
        return np.zeros((0, 4))
    lines = lines.reshape(-1, 4).astype(np.float64)
    length = np.hypot(lines[:, 2] - lines[:, 0], lines[:, 3] - lines[:, 1])
    return lines[length >= max(6.0, 0.006 * max(gray.shape))]


def dominant_directions(angles: np.ndarray, weights: np.ndarray, count: int) -> list[tuple[float, float]]:
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


def vanishing_point(
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
    # in place: the (candidates, segments) products are the search's largest arrays
    np.multiply(cross, cross, out=cross)
    np.multiply(norm2, threshold * threshold, out=norm2)
    inliers = cross < norm2
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


@dataclass
class Segments:
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


def focus_on(x: float, y: float, reach: float, shape: tuple[int, int]) -> Focus:
    """The focus on the point (x, y) of an image of ``shape`` (pixels), its spread 0.7 of ``reach`` pixels:
    a window or a blob around that point weighs most."""
    height, width = shape[:2]
    norm = float(max(height, width))
    return ((x - width / 2) / norm, (y - height / 2) / norm, 0.7 * reach / norm)


def prepare(segs: np.ndarray, to_norm: np.ndarray, norm: float, focus: Focus = CENTRAL) -> Segments:
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
    return Segments(p1, p2, mids, dirs, lines, length * central, angles, tolerance, length)


def parallel_direction(seg: Segments, member: np.ndarray, direction: float) -> tuple:
    """Best common direction (a vanishing point at infinity) of a family, and its inliers."""
    thetas = direction + np.radians(np.arange(-4, 4.01, 0.1))
    dirs = seg.dirs[member]
    # |sin| of the angle between every segment and every candidate direction, (candidates, segments)
    sines = np.abs(np.outer(np.sin(thetas), dirs[:, 0]) - np.outer(np.cos(thetas), dirs[:, 1]))
    masks = sines < seg.tolerance[member]
    best = int(np.argmax(masks @ seg.weights[member]))
    return np.array([math.cos(thetas[best]), math.sin(thetas[best]), 0.0]), masks[best]
