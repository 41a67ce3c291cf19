"""Augmentations that imitate real table photos, and synthetic table squares for the "empty" class.

A square cut from a phone photo is never pixel-exact, lit like the training photos, or at 100 px:
training on jittered, re-lit, blurred, noisy, re-compressed and re-sized copies is what lets the model
read other cameras. Empty squares show whatever table the kingdom lies on, so synthetic tables
(wood, cloth, plain, noisy, random colours) teach "empty" more than the 20 wood squares of the boards.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def rotate90(image: np.ndarray, quarter_turns: int) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(image, quarter_turns % 4))


def misalign(
    image: np.ndarray,
    rng: np.random.Generator,
    max_shift: float = 0.06,
    max_scale: float = 0.08,
    max_degrees: float = 4.0,
) -> np.ndarray:
    """Shift, scale and slightly turn the crop, as a grid found in a photo would (edges reflect)."""
    height, width = image.shape[:2]
    scale = 1.0 + rng.uniform(-max_scale, max_scale)
    angle = rng.uniform(-max_degrees, max_degrees)
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, scale)
    matrix[:, 2] += rng.uniform(-max_shift, max_shift, size=2) * (width, height)
    return cv2.warpAffine(
        image, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )


def board_crop(
    board: np.ndarray,
    row: int,
    col: int,
    grid: int,
    rng: np.random.Generator,
    max_shift: float = 0.07,
    table: np.ndarray | None = None,
) -> np.ndarray:
    """A jittered crop of one square from the whole board photo, so real neighbours show at the edges.

    Beyond the board's edge the crop shows ``table`` (a synthetic table texture by default), as a
    slightly misplaced grid would in a photo.
    """
    height, width = board.shape[:2]
    square_h, square_w = height / grid, width / grid
    scale = 1.0 + rng.uniform(-0.08, 0.08)
    center_y = (row + 0.5 + rng.uniform(-max_shift, max_shift)) * square_h
    center_x = (col + 0.5 + rng.uniform(-max_shift, max_shift)) * square_w
    half = 0.5 * scale * square_w
    pad = int(square_w)
    if table is None:
        table = synthetic_table(rng, 128)  # drawn small and stretched: only slivers of it show
    padded = cv2.resize(table, (width + 2 * pad, height + 2 * pad), interpolation=cv2.INTER_LINEAR)
    padded[pad : pad + height, pad : pad + width] = board
    y0, x0 = int(round(center_y - half)) + pad, int(round(center_x - half)) + pad
    side = int(round(2 * half))
    crop = padded[y0 : y0 + side, x0 : x0 + side]
    angle = rng.uniform(-3.0, 3.0)
    matrix = cv2.getRotationMatrix2D((side / 2, side / 2), angle, 1.0)
    return cv2.warpAffine(crop, matrix, (side, side), borderMode=cv2.BORDER_REFLECT)


def empty_in_board(board: np.ndarray, grid: int, rng: np.random.Generator) -> np.ndarray:
    """An empty square inside a real kingdom: a table patch pasted into a random cell, cut with jitter."""
    height, width = board.shape[:2]
    row, col = (int(v) for v in rng.integers(0, grid, size=2))
    ys = np.linspace(0, height, grid + 1).round().astype(int)
    xs = np.linspace(0, width, grid + 1).round().astype(int)
    table = synthetic_table(rng, 160)
    holed = board.copy()
    holed[ys[row] : ys[row + 1], xs[col] : xs[col + 1]] = cv2.resize(
        table, (xs[col + 1] - xs[col], ys[row + 1] - ys[row])
    )
    return board_crop(holed, row, col, grid, rng, table=table)


def shift_hue(image: np.ndarray, degrees: float) -> np.ndarray:
    """Turn the hue (castles come in four colours; the boards show only some of them)."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(round(degrees / 2))) % 180).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def recolour(image: np.ndarray, log_gains: np.ndarray) -> np.ndarray:
    """``image`` with each BGR channel scaled by exp(``log_gains``) (their mean taken out, so the brightness
    stays): the colour moves, the artwork's texture stays."""
    gains = np.exp(np.asarray(log_gains, np.float32) - np.mean(log_gains))
    return np.clip(image.astype(np.float32) * gains + 0.5, 0, 255).astype(np.uint8)


def relight(image: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Colour temperature, tint, brightness, contrast and gamma of another lamp and camera."""
    return relight_with_levels(image, rng, strength)[0]


def relight_with_levels(
    image: np.ndarray, rng: np.random.Generator, strength: float = 1.0
) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """``relight``'s image, and what it does to (..., 3) BGR levels: the same for every pixel and
    increasing in each channel, so it moves a photo's white level (a percentile) exactly as the photo's."""
    pixels = image.astype(np.float32) / 255.0
    temperature = rng.uniform(-0.25, 0.25) * strength
    tint = rng.uniform(-0.08, 0.08) * strength
    gains = np.array([1.0 - temperature, 1.0 + tint, 1.0 + temperature], dtype=np.float32)  # B, G, R
    pixels = pixels * gains
    brightness = np.exp(rng.uniform(-0.45, 0.35) * strength)
    contrast = np.exp(rng.uniform(-0.3, 0.25) * strength)
    mean = pixels.mean()
    gamma = np.exp(rng.uniform(-0.25, 0.25) * strength)

    def levels(values: np.ndarray) -> np.ndarray:
        scaled = np.asarray(values, dtype=np.float32) / 255.0 * gains
        scaled = np.clip(((scaled - mean) * contrast + mean) * brightness, 0.0, 1.0)
        return np.power(scaled, gamma) * 255.0

    return (levels(image) + 0.5).astype(np.uint8), levels


def degrade(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Resolution (40-300 px per square), blur, sensor noise and JPEG artefacts."""
    side = int(rng.choice([rng.integers(40, 64), rng.integers(64, 120), rng.integers(120, 300)]))
    interpolation = cv2.INTER_AREA if side < image.shape[0] else cv2.INTER_LINEAR
    out = cv2.resize(image, (side, side), interpolation=interpolation)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.2) * side / 64)
    if rng.random() < 0.5:
        noise = rng.normal(0.0, rng.uniform(2.0, 9.0), out.shape)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        quality = int(rng.integers(30, 95))
        ok, encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            out = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    return out


#: OpenCV hue ranges (0-180) of wheat, grassland and lake: plain tables in these colours stay desaturated.
TERRAIN_HUES = ((15, 50), (95, 120))


def _random_table_colour(rng: np.random.Generator) -> np.ndarray:
    """Mostly woods, greys, whites and blacks; sometimes any colour (BGR float 0-255)."""
    kind = rng.random()
    if kind < 0.45:
        hue, saturation, value = rng.uniform(8, 22), rng.uniform(0.3, 0.8), rng.uniform(0.25, 0.9)
    elif kind < 0.75:
        hue, saturation, value = rng.uniform(0, 180), rng.uniform(0.0, 0.15), rng.uniform(0.05, 0.98)
    else:
        hue, saturation, value = rng.uniform(0, 180), rng.uniform(0.15, 0.9), rng.uniform(0.1, 0.95)
        terrain_like = any(low <= hue <= high for low, high in TERRAIN_HUES)
        if terrain_like and saturation > 0.4:  # a saturated plain yellow/green/blue reads as blurred terrain
            saturation = rng.uniform(0.15, 0.4)
    hsv = np.uint8([[[hue, saturation * 255, value * 255]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def synthetic_table(rng: np.random.Generator, side: int = 96) -> np.ndarray:
    """A square of table surface: wood grain, cloth, plain, noisy or two-tone, with a random colour."""
    base = _random_table_colour(rng)
    ys, xs = np.mgrid[0:side, 0:side].astype(np.float32) / side
    kind = rng.integers(0, 5)
    if kind == 0:  # wood grain: wavy stripes along one direction
        angle = rng.uniform(0, np.pi)
        u = xs * np.cos(angle) + ys * np.sin(angle)
        v = -xs * np.sin(angle) + ys * np.cos(angle)
        wave = np.sin(
            2 * np.pi * (u * rng.uniform(4, 25) + 0.3 * np.sin(2 * np.pi * v * rng.uniform(0.5, 3)))
        )
        pattern = 0.12 * wave + 0.05 * rng.standard_normal((side, side))
    elif kind == 1:  # cloth / felt: blurred noise
        pattern = cv2.GaussianBlur(
            rng.standard_normal((side, side)).astype(np.float32), (0, 0), rng.uniform(0.5, 3)
        )
        pattern *= rng.uniform(0.05, 0.3)
    elif kind == 2:  # plain with a slight light gradient
        pattern = (xs - 0.5) * rng.uniform(-0.2, 0.2) + (ys - 0.5) * rng.uniform(-0.2, 0.2)
    elif kind == 3:  # noisy (laminate, granite)
        pattern = rng.uniform(0.03, 0.2) * rng.standard_normal((side, side))
    else:  # two tones: a seam or table edge crossing the square
        angle = rng.uniform(0, np.pi)
        u = (xs - 0.5) * np.cos(angle) + (ys - 0.5) * np.sin(angle)
        pattern = np.where(u > rng.uniform(-0.4, 0.4), rng.uniform(-0.35, 0.35), 0.0)
        pattern += 0.04 * rng.standard_normal((side, side))
    image = base[None, None, :] * (1.0 + pattern[..., None].astype(np.float32))
    return np.clip(image, 0, 255).astype(np.uint8)
