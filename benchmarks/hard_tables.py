"""The tables under a hard scene's kingdom, drawn flat on the world canvas: an ordinary table, a
self-healing cutting mat, a printed grid, a checkered (gingham) or printed cloth of a strong colour."""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.scenes import SQUARE_PX, _table

CM = SQUARE_PX / 4.4  # world units per centimetre: a Kingdomino square is about 4.4 cm wide
STRONG_COLOURS = {  # BGR cloths of strong colours
    "blue": (150, 80, 30),
    "green": (60, 130, 40),
    "red": (40, 40, 175),
    "ochre": (40, 140, 200),
}


def _wrinkles(rng: np.random.Generator, height: int, width: int, strength: float) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, height // 150), max(2, width // 150))).astype(np.float32)
    return 1 + strength * cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)


def _noise(rng: np.random.Generator, shape: tuple, sigma: float) -> np.ndarray:
    """Gaussian noise drawn by OpenCV (several times faster than numpy on a 12-megapixel photo), seeded
    from ``rng`` so that the scene stays the same each run."""
    noise = np.empty(shape, np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31 - 1)))
    cv2.randn(noise, 0.0, float(sigma))
    return noise


def _finish(image: np.ndarray, rng: np.random.Generator, wrinkles: float, noise: float) -> np.ndarray:
    """A float picture of a cloth or print, shaded by its folds, with a little noise, as 8-bit."""
    image *= _wrinkles(rng, image.shape[0], image.shape[1], wrinkles)[..., None]
    image += _noise(rng, image.shape, noise)
    return np.clip(image, 0, 255, out=image).astype(np.uint8)


def _plain_table(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """An ordinary table (``benchmarks.scenes``' wood, cloth, laminate or felt), drawn at half size."""
    small = _table(rng, height // 2 + 1, width // 2 + 1)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def _rotated_coordinates(height: int, width: int, angle: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(width, dtype=np.float32)[None, :]
    y = np.arange(height, dtype=np.float32)[:, None]
    c, s = np.float32(math.cos(angle)), np.float32(math.sin(angle))
    return x * c + y * s, y * c - x * s


def cutting_mat(rng: np.random.Generator, px_per_cm: float) -> np.ndarray:
    """A self-healing cutting mat (A2 or A1) drawn flat: 1 cm grid, thicker lines every 5 cm, rulers
    and numbers along the edges."""
    w_cm, h_cm = (60, 45) if rng.random() < 0.6 else (90, 60)
    w, h = int(w_cm * px_per_cm), int(h_cm * px_per_cm)
    colour = [(140, 90, 25), (70, 125, 35), (45, 45, 45)][int(rng.choice(3, p=[0.5, 0.35, 0.15]))]
    mat = np.empty((h, w, 3), np.float32)
    mat[:] = np.array(colour, np.float32) * rng.uniform(0.85, 1.15)
    line = np.array((235, 240, 240) if rng.random() < 0.8 else (80, 220, 240), np.float32)
    layer = np.zeros((h, w), np.uint8)
    margin = 2.0  # cm of plain mat and rulers around the grid
    thin = max(1, int(round(0.03 * px_per_cm)))
    for k in range(int(margin), int(w_cm - margin) + 1):
        x = int(k * px_per_cm)
        cv2.line(
            layer,
            (x, int(margin * px_per_cm)),
            (x, int((h_cm - margin) * px_per_cm)),
            255,
            thin * (3 if k % 5 == 0 else 1),
            cv2.LINE_AA,
        )
    for k in range(int(margin), int(h_cm - margin) + 1):
        y = int(k * px_per_cm)
        cv2.line(
            layer,
            (int(margin * px_per_cm), y),
            (int((w_cm - margin) * px_per_cm), y),
            255,
            thin * (3 if k % 5 == 0 else 1),
            cv2.LINE_AA,
        )
    if rng.random() < 0.5:  # the 45-degree guide lines some mats print
        cv2.line(layer, (int(margin * px_per_cm),) * 2, (int((h_cm - margin) * px_per_cm),) * 2, 255, thin)
    font_scale = 0.028 * px_per_cm
    for k in range(0, int(w_cm) + 1):  # rulers: ticks every centimetre, numbers every one or two
        x = int(k * px_per_cm)
        for y0, sign in ((0, 1), (h - 1, -1)):
            length = (0.9 if k % 5 == 0 else 0.5) * px_per_cm
            cv2.line(layer, (x, y0), (x, int(y0 + sign * length)), 255, thin, cv2.LINE_AA)
        if k % 2 == 0 and 0 < k < w_cm:
            cv2.putText(
                layer,
                str(k),
                (x + 2, int(1.6 * px_per_cm)),
                cv2.FONT_HERSHEY_SIMPLEX,
                font_scale,
                255,
                max(1, thin),
                cv2.LINE_AA,
            )
    for k in range(0, int(h_cm) + 1):
        y = int(k * px_per_cm)
        for x0, sign in ((0, 1), (w - 1, -1)):
            length = (0.9 if k % 5 == 0 else 0.5) * px_per_cm
            cv2.line(layer, (x0, y), (int(x0 + sign * length), y), 255, thin, cv2.LINE_AA)
        if k % 2 == 0 and 0 < k < h_cm:
            cv2.putText(
                layer,
                str(k),
                (int(1.0 * px_per_cm), y - 2),
                cv2.FONT_HERSHEY_SIMPLEX,
                font_scale,
                255,
                max(1, thin),
                cv2.LINE_AA,
            )
    alpha = rng.uniform(0.55, 0.85) * (layer.astype(np.float32) / 255)[..., None]
    mat = mat * (1 - alpha) + line * alpha
    return _finish(mat.astype(np.float32), rng, 0.03, 4)


def _printed_grid(
    rng: np.random.Generator, height: int, width: int, cell_px: float, angle: float
) -> np.ndarray:
    """A printed grid (game mat, graph-paper cloth) with cells close to a square's size."""
    u, v = _rotated_coordinates(height, width, angle)
    half_line = max(0.8, cell_px * rng.uniform(0.015, 0.05))
    on_line = (np.abs((u + cell_px / 2) % cell_px - cell_px / 2) < half_line) | (
        np.abs((v + cell_px / 2) % cell_px - cell_px / 2) < half_line
    )
    background = [(225, 230, 232), (200, 215, 230), (150, 80, 30), (60, 130, 40)][int(rng.integers(4))]
    ink = [(60, 60, 60), (150, 110, 40), (240, 240, 240), (40, 40, 160)][int(rng.integers(4))]
    image = np.array([background, ink], np.float32)[on_line.astype(np.uint8)]
    return _finish(image, rng, 0.05, 3)


def _gingham(rng: np.random.Generator, height: int, width: int, cell_px: float, angle: float) -> np.ndarray:
    """A checkered cloth: stripes of a strong colour crossing on white, three tones, a little crumpled."""
    colour = list(STRONG_COLOURS.values())[int(rng.integers(len(STRONG_COLOURS)))]
    u, v = _rotated_coordinates(height, width, angle)
    warp = (_wrinkles(rng, height, width, 1.0) - 1) * np.float32(0.2 * cell_px)
    tones = (np.floor((u + warp) / cell_px).astype(np.int32) & 1) + (
        np.floor((v + warp) / cell_px).astype(np.int32) & 1
    )
    white = np.array((235, 238, 240), np.float32)
    palette = np.stack([white, (white + colour) / 2, np.array(colour, np.float32)])  # white, mixed, full
    return _finish(palette[tones.astype(np.uint8)], rng, 0.08, 3)


def _patterned_cloth(rng: np.random.Generator, height: int, width: int, motif_px: float) -> np.ndarray:
    """A cloth of a strong colour printed with swirls or flowers of a contrasting colour."""
    colour = list(STRONG_COLOURS.values())[int(rng.integers(len(STRONG_COLOURS)))]
    image = np.empty((height, width, 3), np.uint8)
    image[:] = colour
    ink = [(60, 210, 240), (235, 235, 235), (40, 40, 180), (40, 170, 230)][int(rng.integers(4))]
    flowers = rng.random() < 0.5
    step = motif_px * rng.uniform(0.9, 1.6)
    thickness = max(1, int(motif_px * 0.05))
    for y in np.arange(0, height + step, step):
        for x in np.arange(0, width + step, step):
            cx, cy = x + rng.uniform(-0.3, 0.3) * step, y + rng.uniform(-0.3, 0.3) * step
            size = motif_px * rng.uniform(0.25, 0.45)
            if flowers:
                for k in range(5):
                    a = 2 * math.pi * k / 5 + rng.uniform(0, 0.3)
                    centre = (int(cx + 0.6 * size * math.cos(a)), int(cy + 0.6 * size * math.sin(a)))
                    axes = (max(1, int(0.45 * size)), max(1, int(0.22 * size)))
                    cv2.ellipse(image, centre, axes, math.degrees(a), 0, 360, ink, -1, cv2.LINE_AA)
                cv2.circle(image, (int(cx), int(cy)), max(1, int(0.25 * size)), (30, 30, 30), -1, cv2.LINE_AA)
            else:
                turns = rng.uniform(1.5, 2.5)
                t = np.linspace(0, turns * 2 * math.pi, 40)
                r = size * t / t[-1]
                start = rng.uniform(0, 2 * math.pi)
                points = np.c_[cx + r * np.cos(t + start), cy + r * np.sin(t + start)]
                cv2.polylines(image, [np.int32(points)], False, ink, thickness, cv2.LINE_AA)
    return _finish(image.astype(np.float32), rng, 0.08, 3)


def _hard_table(
    rng: np.random.Generator, kind: str, height: int, width: int, scale: float, lo: np.ndarray, pitch: float
) -> np.ndarray:
    """The table under the kingdom, on the world canvas (world units × ``scale``, offset ``lo``)."""
    if kind == "plain":
        return _plain_table(rng, height, width)
    angle = rng.uniform(0, math.pi)
    if kind == "grid":
        return _printed_grid(rng, height, width, pitch * rng.uniform(0.8, 1.25) * scale, angle)
    if kind == "gingham":
        return _gingham(rng, height, width, pitch * rng.uniform(0.2, 1.2) * scale, angle)
    if kind == "pattern":
        return _patterned_cloth(rng, height, width, pitch * rng.uniform(0.6, 1.5) * scale)
    # a cutting mat on an ordinary table, under the kingdom, turned a little and off-centre
    canvas = _plain_table(rng, height, width)
    mat = cutting_mat(rng, CM * scale)
    mh, mw = mat.shape[:2]
    turn = rng.uniform(-25, 25)
    world_centre = rng.uniform(-0.15, 0.15, 2) * np.array([mw, mh]) / scale
    centre = (world_centre - lo) * scale
    matrix = cv2.getRotationMatrix2D((mw / 2, mh / 2), turn, 1.0)
    matrix[:, 2] += centre - np.array([mw / 2, mh / 2])
    warped = cv2.warpAffine(mat, matrix, (width, height), flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(np.full((mh, mw), 255, np.uint8), matrix, (width, height))
    alpha = (mask.astype(np.float32) / 255)[..., None]
    if rng.random() < 0.4:  # a crumpled cloth along one side of the photo's table
        side = int(rng.integers(4))
        band = int(0.2 * (width if side % 2 else height))
        rows = slice(None) if side % 2 else (slice(0, band) if side == 0 else slice(height - band, height))
        cols = slice(None) if side % 2 == 0 else (slice(width - band, width) if side == 1 else slice(0, band))
        part = canvas[rows, cols]
        part[:] = _gingham(rng, part.shape[0], part.shape[1], 25 * scale, rng.uniform(0, math.pi))
    return (warped * alpha + canvas * (1 - alpha)).astype(np.uint8)
