"""Motion blur: a straight smear's point spread, its estimate from an image's cepstrum and from the
widths of straight edges at known places, and Wiener deconvolution.

A camera that moves while the shutter is open smears every point into a short line (``line_psf``). Its
spectrum is a sinc along the smear, whose zeros repeat every 1/L; the log spectrum's own spectrum (the
cepstrum) then has a negative peak at the smear's vector (``motion_blur``). Straight edges repeating at
known places widen by the smear's extent across them (``seam_widths``). ``wiener`` undoes a known
smear, with a noise-to-signal ratio that keeps the zeros from blowing up, on a copy padded by reflection
and tapered to the mean so that the image's edges do not ring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from scipy import fft as sp_fft


@dataclass(frozen=True)
class Smear:
    """A straight motion blur: ``dx``, ``dy`` the smear's vector in pixels (its sign does not matter);
    ``strength`` how far the cepstrum's peak stands below its surroundings (robust z-score)."""

    dx: float
    dy: float
    strength: float

    @property
    def length(self) -> float:
        return math.hypot(self.dx, self.dy)


def line_psf(dx: float, dy: float) -> np.ndarray:
    """The point spread of a straight smear of vector (dx, dy) pixels: an anti-aliased line that sums to 1,
    on an odd square support centred on the middle pixel."""
    length = math.hypot(dx, dy)
    size = 2 * int(math.ceil(length / 2)) + 3
    half = size // 2
    kernel = np.zeros((size, size), np.float32)
    steps = max(2, int(math.ceil(4 * length)))
    t = np.linspace(-0.5, 0.5, steps)
    x, y = half + t * dx, half + t * dy
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = x - x0, y - y0
    corners = ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy))
    for ox, oy, weight in corners:  # each sample shared among its four pixels
        np.add.at(kernel, (y0 + oy, x0 + ox), weight)
    return kernel / kernel.sum()


def motion_blur(
    gray: np.ndarray, shortest: float = 3.0, longest: float = 40.0, count: int = 1
) -> list[Smear]:
    """The straight smears that best explain a grey image's cepstrum, most clearly first: its ``count``
    deepest negative peaks between ``shortest`` and ``longest`` pixels from the origin, each scored
    against the cepstrum at its own distance (the cepstrum's spread falls with the distance)."""
    image = gray.astype(np.float32)
    h, w = image.shape
    window = np.outer(np.hanning(h), np.hanning(w)).astype(np.float32)
    spectrum = np.abs(sp_fft.rfft2((image - image.mean()) * window))
    cepstrum = sp_fft.irfft2(np.log(spectrum + 1e-3 * spectrum.mean() + 1e-6), s=(h, w))
    reach = int(math.ceil(longest)) + 1
    rows, cols = np.arange(-reach, reach + 1) % h, np.arange(-reach, reach + 1) % w
    patch = cepstrum[np.ix_(rows, cols)]
    yy, xx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    radius = np.hypot(xx, yy)
    bins = np.rint(radius).astype(int)
    score = np.full(patch.shape, -np.inf)
    for r in range(int(math.ceil(shortest)), int(math.floor(longest)) + 1):
        annulus = bins == r
        values = patch[annulus]
        centre = np.median(values)
        spread = 1.4826 * np.median(np.abs(values - centre)) + 1e-12
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


def wiener(image: np.ndarray, psf: np.ndarray, noise: float) -> np.ndarray:
    """``image`` (H×W or H×W×C, uint8) with the blur ``psf`` (non-negative, summing to 1) undone by a Wiener
    filter of noise-to-signal ratio ``noise``; the image is padded by reflection and tapered to its mean so
    its edges do not ring."""
    k = psf.shape[0]
    pad = k + 8
    source = image.astype(np.float32).reshape(*image.shape[:2], -1)
    h, w = (sp_fft.next_fast_len(side + 2 * pad, real=True) for side in source.shape[:2])
    bottom, right = h - source.shape[0] - pad, w - source.shape[1] - pad
    padded = cv2.copyMakeBorder(source, pad, bottom, pad, right, cv2.BORDER_REFLECT).reshape(h, w, -1)
    mean = source.mean(axis=(0, 1), dtype=np.float64).astype(np.float32)
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
