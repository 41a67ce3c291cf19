"""Linear motion blur: measured on the image itself, and undone by Wiener deconvolution with its line PSF.

A straight smear of L pixels multiplies the image's spectrum by a sinc² that is zero on lines across the
motion, 1/L apart (the classic estimate: Gennery 1973, Cannon 1976). The image's own spectrum falls
smoothly, a defocus's too, alike in every direction; so a dip of the log spectrum below the side lobe after
it, along one direction only, tells the smear's direction and length. The spectrum is averaged over
Hann-windowed tiles (the frame's edges add no cross) and along the lines across each direction. Generic:
the locator searches a deconvolved copy of a smeared photo; the reading could read one.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy import fft, ndimage


@dataclass(frozen=True)
class Motion:
    """A straight smear: its direction (radians, in [0, pi), image x right and y down) and length (px)."""

    angle: float
    length: float
    prominence: float  # how far the log spectrum's first zero along the motion dips below its first side lobe
    across: float  # the deepest such dip across the motion (a defocus or a pattern dips alike there)


def motion_blur(
    gray: np.ndarray,
    min_length: float = 3.0,
    max_length: float = 40.0,
    min_prominence: float = 0.2,
    min_contrast: float = 0.1,
    tile: int = 256,
    angle_step: float = 2.0,
) -> Motion | None:
    """The motion blur of a grey image, or None when it shows none.

    The image's power spectrum, averaged over Hann-windowed tiles (Welch), is the sharp image's times the
    smear's sinc²: zero on lines across the motion, 1/L apart. Its logarithm averaged along such lines
    (a Radon projection) gives a profile along each direction; along the motion it dips at 1/L below the
    first side lobe after it. Blur is there when that dip is at least ``min_prominence`` (log power) deep,
    at a length in [min_length, max_length], and ``min_contrast`` deeper than the deepest dip across it."""
    image = np.asarray(gray, np.float32)
    height, width = image.shape[:2]
    if min(height, width) < tile:
        return None
    window = np.outer(np.hanning(tile), np.hanning(tile)).astype(np.float32)
    power = np.zeros((tile, tile), np.float64)
    step = tile // 2
    for top in range(0, height - tile + 1, step):
        for left in range(0, width - tile + 1, step):
            patch = image[top : top + tile, left : left + tile]
            power += np.abs(np.fft.fft2((patch - patch.mean()) * window)) ** 2
    spectrum = np.log(np.fft.fftshift(power) + 1e-6)
    half = tile // 2
    angles = np.deg2rad(np.arange(0.0, 180.0, angle_step))
    radii = np.arange(1, half, dtype=np.float32)
    across_line = np.arange(-half + 1, half, 2, dtype=np.float32)
    profiles = np.empty((len(angles), len(radii)))
    for k, angle in enumerate(angles):
        cos, sin = np.cos(angle), np.sin(angle)
        xs = half + radii[:, None] * cos - across_line[None, :] * sin
        ys = half + radii[:, None] * sin + across_line[None, :] * cos
        inside = (radii[:, None] ** 2 + across_line[None, :] ** 2) < (half - 1) ** 2
        values = ndimage.map_coordinates(spectrum, [ys, xs], order=1)
        profiles[k] = (values * inside).sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
    dips = [_first_zero(profile, tile / max_length, tile / min_length) for profile in profiles]
    best = int(np.argmax([prominence for prominence, _ in dips]))
    prominence, radius = dips[best]
    across = dips[(best + len(angles) // 2) % len(angles)][0]
    if prominence < min_prominence or prominence - across < min_contrast:
        return None
    return Motion(float(angles[best]), float(tile / radius), float(prominence), float(across))


def _first_zero(profile: np.ndarray, low: float, high: float) -> tuple[float, float]:
    """(prominence, radius) of the sinc²'s first zero in a profile (index i is radius i + 1), looked for at
    radii in [low, high]: a local minimum's prominence is how far the highest point after it, up to 1.6
    times its radius (the first side lobe, at 1.43), rises above it. The zeros k/L all dip alike, but the
    window's leakage fills the first ones of a long smear: the first dip at least half as prominent as the
    most prominent is taken."""
    dips = []
    for i in range(max(1, int(np.floor(low)) - 1), min(len(profile) - 1, int(np.ceil(high)))):
        if not (profile[i] <= profile[i - 1] and profile[i] <= profile[i + 1]):
            continue
        radius = i + 1
        after = profile[i + 1 : min(len(profile), int(1.6 * radius))]
        if len(after):
            # the zero between samples: the vertex of the parabola through the three about it
            a, b, c = profile[i - 1], profile[i], profile[i + 1]
            offset = 0.5 * (a - c) / (a - 2 * b + c) if a - 2 * b + c > 0 else 0.0
            dips.append((float(after.max() - profile[i]), radius + float(offset)))
    if not dips:
        return 0.0, 0.0
    strongest = max(prominence for prominence, _ in dips)
    _, radius = next(dip for dip in dips if dip[0] >= 0.5 * strongest)
    return strongest, radius


def line_psf(length: float, angle: float) -> np.ndarray:
    """A straight smear ``length`` pixels long along ``angle`` (radians): a segment of that length swept
    by a pixel-wide box, drawn by splatting points along it bilinearly; normalised to sum 1, odd-sized."""
    size = (int(np.ceil(length)) | 1) + 2
    kernel = np.zeros((size, size), np.float64)
    half = (size - 1) / 2
    # a pixel-wide box swept over length - 1 between the end pixels' centres covers length pixels
    steps = np.linspace(-0.5, 0.5, max(2, int(np.ceil(length * 8))) + 1) * max(length - 1, 0.0)
    xs, ys = half + steps * np.cos(angle), half + steps * np.sin(angle)
    left, top = np.floor(xs).astype(int), np.floor(ys).astype(int)
    fx, fy = xs - left, ys - top
    for dx, dy, weight in (
        (0, 0, (1 - fx) * (1 - fy)),
        (1, 0, fx * (1 - fy)),
        (0, 1, (1 - fx) * fy),
        (1, 1, fx * fy),
    ):
        np.add.at(kernel, (top + dy, left + dx), weight)
    return (kernel / kernel.sum()).astype(np.float32)


def wiener(image: np.ndarray, psf: np.ndarray, noise: float) -> np.ndarray:
    """``image`` (grey or colour, uint8) deconvolved with ``psf``; ``noise`` is the noise-to-signal power
    ratio that keeps the inverse finite at the PSF's zeros. The image is padded by reflection, to a size
    the FFT is fast at, and its pad faded to its mean, so that the FFT's wrap-around adds no seam at the
    frame's edges."""
    pad = max(psf.shape) * 2
    data = np.asarray(image, np.float32)
    data = data[..., None] if data.ndim == 2 else data
    rows, cols = data.shape[:2]
    height, width = _fast_length(rows + 2 * pad), _fast_length(cols + 2 * pad)
    below, right = height - rows - pad, width - cols - pad
    padded = cv2.copyMakeBorder(data, pad, below, pad, right, cv2.BORDER_REFLECT_101).reshape(
        height, width, -1
    )
    fade_rows = np.clip(np.minimum(np.arange(height), np.arange(height)[::-1]) / pad, 0, 1)
    fade_cols = np.clip(np.minimum(np.arange(width), np.arange(width)[::-1]) / pad, 0, 1)
    fade = np.outer(fade_rows, fade_cols).astype(np.float32)[..., None]
    mean = data.reshape(-1, data.shape[2]).mean(axis=0)
    padded = padded * fade + mean * (1 - fade)
    kernel = np.zeros((height, width), np.float32)
    kh, kw = psf.shape
    kernel[:kh, :kw] = psf
    kernel = np.roll(kernel, (-(kh // 2), -(kw // 2)), axis=(0, 1))  # centred at the origin
    transfer = fft.rfft2(kernel)
    inverse = (np.conj(transfer) / (np.abs(transfer) ** 2 + noise)).astype(np.complex64)
    spectra = fft.rfft2(padded, axes=(0, 1)) * inverse[..., None]
    out = fft.irfft2(spectra, (height, width), axes=(0, 1))[pad : pad + rows, pad : pad + cols]
    out = out[..., 0] if np.ndim(image) == 2 else out
    return np.clip(out, 0, 255).astype(np.uint8)


def _fast_length(n: int) -> int:
    return cv2.getOptimalDFTSize(n)
