"""Motion blur: a straight smear's point spread, its estimate from an image, and Wiener deconvolution.

A camera that moves while the shutter is open smears every point into a short line (``line_psf``). Its
spectrum is a sinc along the smear, whose zeros repeat every 1/L across it. Two estimates read that, each
where its evidence is:
- ``spectrum_smear``, on a whole photo before any frame is known (the locator): the log power spectrum,
  averaged over windowed tiles, dips at the first zero along the motion; a defocus or a textured table dips
  alike in every direction, so the dip must be clearly deeper along one direction than across it
  (the classic estimate: Gennery 1973, Cannon 1976).
- ``cepstrum_smears``, on a rectified kingdom (the reading): the log spectrum's own spectrum (the cepstrum)
  has a negative peak at the smear's vector; the lattice's seams (``seam_widths``), straight edges at known
  places, confirm it, since they widen by the smear's extent across them, and so does the image's sharpness
  along the smear against across it (``sharpness_along``), which a defocus leaves alike.
``wiener`` undoes a known smear, with a noise-to-signal ratio that keeps the zeros from blowing up, on a copy
padded by reflection and tapered to the mean so that the image's edges do not ring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from scipy import fft as sp_fft
from scipy import ndimage


@dataclass(frozen=True)
class Smear:
    """A straight motion blur: ``dx``, ``dy`` the smear's vector in pixels, the extent a point is spread
    over (a box of L pixels: its spectrum's zeros 1/L apart; the sign does not matter); ``strength`` how
    clearly the estimate saw it (``cepstrum_smears``: the peak's robust z-score below its surroundings;
    ``spectrum_smear``: the deepest dip of the zeros along it, log power)."""

    dx: float
    dy: float
    strength: float

    @property
    def length(self) -> float:
        return math.hypot(self.dx, self.dy)

    def scaled(self, factor: float) -> Smear:
        """The same smear on a copy ``factor`` times the size (the camera's motion scales with it)."""
        return Smear(self.dx * factor, self.dy * factor, self.strength)


def line_psf(dx: float, dy: float) -> np.ndarray:
    """The point spread of a straight smear of vector (dx, dy) pixels: an anti-aliased line that sums to 1,
    on an odd square support centred on the middle pixel, spreading a point over that extent (samples at
    the middles of equal steps along it: its first zero at 1/length)."""
    length = math.hypot(dx, dy)
    size = 2 * int(math.ceil(length / 2)) + 3
    half = size // 2
    kernel = np.zeros((size, size), np.float32)
    steps = max(2, int(math.ceil(4 * length)))
    t = (np.arange(steps) + 0.5) / steps - 0.5
    x, y = half + t * dx, half + t * dy
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    corners = ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy))
    for ox, oy, weight in corners:  # each sample shared among its four pixels
        np.add.at(kernel, (y0 + oy, x0 + ox), weight)
    return kernel / kernel.sum()


def spectrum_smear(
    gray: np.ndarray,
    min_length: float = 3.0,
    max_length: float = 40.0,
    min_prominence: float = 0.2,
    min_contrast: float = 0.1,
    tile: int = 256,
    angle_step: float = 2.0,
) -> Smear | None:
    """The straight smear of a grey image (its length in [min_length, max_length] pixels), or None when it
    shows none or the image is too small for it (under two tiles across: a few tiles' noise dips too).

    The image's power spectrum, averaged over Hann-windowed tiles (Welch), is the sharp image's times the
    smear's sinc²: zero on lines across the motion, 1/L apart. Its logarithm averaged along such lines
    (a Radon projection) gives a profile along each direction; along the motion it dips at 1/L below the
    first side lobe after it. Blur is there when that dip is at least ``min_prominence`` (log power) deep,
    at a length in [min_length, max_length], and ``min_contrast`` deeper than the deepest dip across it."""
    image = np.asarray(gray, np.float32)
    height, width = image.shape[:2]
    if min(height, width) < 2 * tile:
        return None
    window = np.outer(np.hanning(tile), np.hanning(tile)).astype(np.float32)
    power = np.zeros((tile, tile), np.float64)
    step = tile // 2
    for top in range(0, height - tile + 1, step):
        for left in range(0, width - tile + 1, step):
            patch = image[top : top + tile, left : left + tile]
            power += np.abs(sp_fft.fft2((patch - patch.mean()) * window)) ** 2
    spectrum = np.log(sp_fft.fftshift(power) + 1e-6)
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
    length = tile / radius  # the first zero at 1/L: a box L pixels long (line_psf's extent)
    return Smear(length * math.cos(angles[best]), length * math.sin(angles[best]), float(prominence))


def _first_zero(profile: np.ndarray, low: float, high: float) -> tuple[float, float]:
    """(prominence, radius) of the sinc²'s first zero in a profile (index i is radius i + 1), looked for at
    radii in [low, high]: a local minimum's prominence is how far the highest point after it, up to 1.6
    times its radius (the first side lobe, at 1.43), rises above it. The zeros k/L all dip alike, but the
    window's leakage fills the first ones of a long smear: the radius of the first dip at least half as
    prominent as the most prominent is taken, with the most prominent's depth. A smear longer than
    ``tile / low`` may be measured at half its length (its second zero taken for the first)."""
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


def cepstrum_smears(
    gray: np.ndarray, shortest: float = 3.0, longest: float = 40.0, count: int = 1
) -> list[Smear]:
    """The straight smears that best explain a grey image's cepstrum, most clearly first: its ``count``
    deepest negative peaks between ``shortest`` and ``longest`` pixels from the origin, each scored
    against the cepstrum at its own distance (the cepstrum's spread falls with the distance)."""
    image = gray.astype(np.float32)
    h, w = image.shape
    window = _hanning(h, w)
    spectrum = np.abs(sp_fft.rfft2((image - image.mean()) * window))
    cepstrum = sp_fft.irfft2(np.log(spectrum + 1e-3 * spectrum.mean() + 1e-6), s=(h, w))
    reach = int(math.ceil(longest)) + 1
    rows, cols = np.arange(-reach, reach + 1) % h, np.arange(-reach, reach + 1) % w
    patch = cepstrum[np.ix_(rows, cols)]
    yy, xx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    radius = np.hypot(xx, yy)
    bins = np.rint(radius).astype(int)
    score = np.full(patch.shape, -np.inf)
    floor = 1e-6 * (float(np.abs(patch).max()) + 1e-12)  # float32 rounding, relative to the cepstrum's scale
    for r in range(int(math.ceil(shortest)), int(math.floor(longest)) + 1):
        annulus = bins == r
        values = patch[annulus]
        centre = np.median(values)
        spread = 1.4826 * np.median(np.abs(values - centre))
        if spread > floor:  # a flat annulus (a uniform image) has no peak to score
            score[annulus] = (centre - values) / spread
    # the cepstrum of a real image is symmetric: keep one half, and peaks only (no neighbour above them)
    score[(yy < 0) | ((yy == 0) & (xx < 0))] = -np.inf
    peaks = score >= cv2.dilate(score.astype(np.float32), np.ones((3, 3), np.uint8))
    order = np.argsort(-np.where(peaks, score, -np.inf), axis=None)[:count]
    return [
        Smear(dx=float(xx.flat[i]), dy=float(yy.flat[i]), strength=float(score.flat[i]))
        for i in order
        if np.isfinite(score.flat[i])
    ]


@lru_cache(maxsize=4)
def _hanning(height: int, width: int) -> np.ndarray:
    """The (height, width) float32 Hann window that cepstrum_smears tapers a kingdom with, made once per
    frame size (its outer product was a large share of the transforms' time); read only."""
    window = np.outer(np.hanning(height), np.hanning(width)).astype(np.float32)
    window.flags.writeable = False
    return window


def seam_widths(gray: np.ndarray, period: int, reach: int | None = None) -> tuple[float, float]:
    """How wide the edges across lines repeating every ``period`` pixels are, across x (vertical lines)
    and across y (horizontal lines): the equivalent width (area over peak, above the floor) of the mean
    absolute gradient profile around the lines. A smear of vector (dx, dy) widens them by |dx| and |dy|."""
    reach = period // 2 if reach is None else reach
    image = gray.astype(np.float32)
    widths = []
    for view in (image, image.T):
        lines = range(period, view.shape[1] - reach, period)
        if not lines:
            widths.append(0.0)
            continue
        gradient = np.abs(np.diff(view, axis=1))
        profile = np.mean([gradient[:, x - reach : x + reach].mean(axis=0) for x in lines], axis=0)
        floor = np.percentile(profile, 20)
        peak = profile[reach - 4 : reach + 3].max()
        widths.append(float((profile - floor).clip(0).sum() / max(peak - floor, 1e-6)))
    return widths[0], widths[1]


def sharpness_along(gray: np.ndarray, dx: float, dy: float) -> float:
    """How sharp a grey image is along the direction (dx, dy) against across it: the mean squared gradient
    along it over the mean squared gradient across it (the structure tensor's two quadratic forms). A
    smear along that direction takes the gradients along it away and leaves those across it; a sharp or
    defocused image is about as sharp every way (about 1)."""
    image = gray.astype(np.float32)
    gx, gy = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=3)
    xx, xy, yy = float((gx * gx).mean()), float((gx * gy).mean()), float((gy * gy).mean())
    length = math.hypot(dx, dy)
    if length == 0:
        return 1.0
    ux, uy = dx / length, dy / length
    along = ux * ux * xx + 2 * ux * uy * xy + uy * uy * yy
    across = uy * uy * xx - 2 * ux * uy * xy + ux * ux * yy
    return along / across if across > 0 else 1.0


def wiener(image: np.ndarray, psf: np.ndarray, noise: float) -> np.ndarray:
    """``image`` (H×W or H×W×C, uint8) with the blur ``psf`` (non-negative, summing to 1) undone by a Wiener
    filter of noise-to-signal ratio ``noise``; the image is padded by reflection and tapered to its mean so
    its edges do not ring."""
    if not 0 < noise < 1:
        raise ValueError(f"the Wiener filter's noise-to-signal ratio must be in (0, 1), not {noise}")
    k = psf.shape[0]
    pad = k + 8
    source = image.astype(np.float32).reshape(*image.shape[:2], -1)
    h, w = (sp_fft.next_fast_len(side + 2 * pad, real=True) for side in source.shape[:2])
    bottom, right = h - source.shape[0] - pad, w - source.shape[1] - pad
    padded = cv2.copyMakeBorder(source, pad, bottom, pad, right, cv2.BORDER_REFLECT).reshape(h, w, -1)
    # each channel's sum in double, exact for whole pixel values as numpy's mean is, without its slow
    # reduction over the first two axes
    mean = (np.asarray(cv2.sumElems(source)[: source.shape[2]]) / (image.shape[0] * image.shape[1])).astype(
        np.float32
    )
    ramp = (0.5 - 0.5 * np.cos(np.linspace(0, np.pi, pad))).astype(np.float32)[:, None, None]
    for strips in ((padded[:pad], padded[h - pad :][::-1]), (padded[:, :pad], padded[:, w - pad :][:, ::-1])):
        for strip in strips:  # fall to the mean over the pad at every edge (the corners twice: a product)
            ramp_here = ramp if strip.shape[0] == pad else ramp.reshape(1, pad, 1)
            strip[...] = mean + (strip - mean) * ramp_here
    kernel = np.zeros((h, w), np.float32)
    kernel[:k, :k] = psf
    kernel = np.roll(kernel, (-(k // 2), -(k // 2)), axis=(0, 1))
    transfer = sp_fft.rfft2(kernel)
    # the noise term weighted by what the smear took away: what it left alone (the mean, the slow
    # changes along it) passes unchanged, instead of the plain Wiener filter's 1/(1 + noise) everywhere
    power = np.abs(transfer) ** 2
    gain = (np.conj(transfer) / (power + noise * (1.0 - power))).astype(np.complex64)
    spectra = sp_fft.rfft2(padded, axes=(0, 1))
    restored = sp_fft.irfft2(spectra * gain[..., None], s=(h, w), axes=(0, 1))
    restored = restored[pad : pad + image.shape[0], pad : pad + image.shape[1]]
    return np.clip(np.rint(restored), 0, 255).astype(np.uint8).reshape(image.shape)
