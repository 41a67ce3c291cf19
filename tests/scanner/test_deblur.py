"""Motion blur measured on the image itself, and undone by Wiener deconvolution (scanner.deblur)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from benchmarks.scenes import generate_scene
from scanner.deblur import line_psf, motion_blur, wiener


def _sharp(seed: int = 3, size: int = 1024) -> np.ndarray:
    """A kingdom on a table, ``size`` px wide, in grey."""
    return cv2.cvtColor(generate_scene(seed, size=(size, size * 3 // 4)).image, cv2.COLOR_BGR2GRAY)


def _noisy(image: np.ndarray, sigma: float = 2.0) -> np.ndarray:
    noise = np.random.default_rng(0).normal(0, sigma, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _smeared(image: np.ndarray, length: int, degrees: float) -> np.ndarray:
    """A camera moving ``length`` px along ``degrees`` (image x right, y down): a row of ``length`` ones
    turned about its middle, as the independent generator draws it."""
    size = length + 2
    kernel = np.zeros((size, size), np.float32)
    kernel[size // 2, 1 : 1 + length] = 1
    # OpenCV turns counter-clockwise on the screen, that is towards -y
    turn = cv2.getRotationMatrix2D(((size - 1) / 2, size // 2), -degrees, 1)
    kernel = cv2.warpAffine(kernel, turn, (size, size))
    return cv2.filter2D(image, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REFLECT)


@pytest.mark.parametrize(
    ("length", "degrees", "reduced"),
    [(5, 0, 1), (8, 30, 1), (12, 75, 1), (20, 120, 1), (30, 160, 1), (40, 95, 2), (40, 10, 2)],
)
def test_a_straight_smear_is_measured_in_direction_and_length(
    length: int, degrees: float, reduced: int
) -> None:
    # a long smear is measured as the locator does, on a reduced copy of the photo (it shrinks with it)
    photo = _noisy(_smeared(_sharp(size=1024 * reduced), length, degrees))
    copy = cv2.resize(photo, None, fx=1 / reduced, fy=1 / reduced, interpolation=cv2.INTER_AREA)
    motion = motion_blur(copy, min_length=4, max_length=32)
    assert motion is not None
    off = abs((math.degrees(motion.angle) - degrees + 90) % 180 - 90)
    assert off <= 4, motion
    assert abs(motion.length - length / reduced) <= max(1.0, 0.08 * length / reduced), motion


@pytest.mark.parametrize("sigma", [0, 1.5, 3, 5])
def test_a_sharp_or_defocused_image_shows_no_motion_blur(sigma: float) -> None:
    image = _sharp()
    if sigma:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    image = _noisy(image)
    assert motion_blur(image, min_length=4, max_length=32) is None


def test_the_smear_s_psf_is_a_line_of_its_length_summing_to_one() -> None:
    psf = line_psf(10, math.radians(90))
    assert psf.sum() == pytest.approx(1.0)
    rows, cols = np.nonzero(psf > 0.02)
    assert set(cols) == {psf.shape[1] // 2}  # vertical
    assert 9 <= rows.max() - rows.min() + 1 <= 11


def test_wiener_deconvolution_with_the_measured_smear_brings_the_seams_back() -> None:
    sharp = _sharp()
    smeared = _noisy(_smeared(sharp, 12, 40), 1.0)
    motion = motion_blur(smeared, min_length=4, max_length=20)
    assert motion is not None
    restored = wiener(smeared, line_psf(motion.length, motion.angle), 0.02)
    assert restored.shape == smeared.shape and restored.dtype == np.uint8

    def detail(image: np.ndarray) -> np.ndarray:
        """The seams' scale (a band of 1.5 to 4 px), inside the frame (its edge is guessed, not restored)."""
        image = image.astype(np.float32)
        band = cv2.GaussianBlur(image, (0, 0), 1.5) - cv2.GaussianBlur(image, (0, 0), 4)
        return band[40:-40, 40:-40].ravel()

    def likeness(image: np.ndarray) -> float:
        return float(np.corrcoef(detail(image), detail(sharp))[0, 1])

    assert likeness(restored) > likeness(smeared) + 0.1
    colour = wiener(cv2.cvtColor(smeared, cv2.COLOR_GRAY2BGR), line_psf(motion.length, motion.angle), 0.02)
    assert colour.shape == (*smeared.shape, 3)
