"""The motion blur's primitives (scanner.deblur) and the reading's use of them (reading.deblurred_kingdom)."""

import cv2
import numpy as np
import pytest

from scanner.deblur import line_psf, motion_blur, seam_widths, wiener
from scanner.reading import DEFAULT_READING, ReadingSettings, deblurred_kingdom


def _kingdom(seed: int = 3, n: int = 5, square: int = 100) -> np.ndarray:
    """A synthetic rectified kingdom: each square its own colour and texture, the squares abutting (the gap
    between real tiles is under a pixel of the rectified kingdom)."""
    rng = np.random.default_rng(seed)
    side = n * square
    image = np.zeros((side, side, 3), np.float32)
    for row in range(n):
        for col in range(n):
            texture = cv2.GaussianBlur(rng.normal(0, 40, (square, square)).astype(np.float32), (0, 0), 1.5)
            colour = rng.uniform(60, 200, 3).astype(np.float32)
            image[row * square : (row + 1) * square, col * square : (col + 1) * square] = (
                colour + texture[..., None]
            )
    return np.clip(image, 0, 255).astype(np.uint8)


def _smeared(image: np.ndarray, dx: float, dy: float) -> np.ndarray:
    return cv2.filter2D(image, -1, line_psf(dx, dy), borderType=cv2.BORDER_REFLECT)


def test_line_psf_is_a_centred_line_that_sums_to_one():
    psf = line_psf(12, 5)
    assert psf.shape[0] == psf.shape[1] and psf.shape[0] % 2 == 1
    assert psf.sum() == pytest.approx(1.0, abs=1e-5)
    assert np.allclose(psf, psf[::-1, ::-1], atol=1e-6)  # point-symmetric about the middle pixel
    ys, xs = np.nonzero(psf > 1e-4)
    assert xs.max() - xs.min() == pytest.approx(12, abs=2) and ys.max() - ys.min() == pytest.approx(5, abs=2)


@pytest.mark.parametrize("smear", [(12, 5), (0, 18), (-20, 9)])
def test_motion_blur_finds_the_smear_of_a_blurred_kingdom(smear):
    gray = cv2.cvtColor(_smeared(_kingdom(), *smear), cv2.COLOR_BGR2GRAY)
    found = motion_blur(gray, 6, 60)[0]
    # the cepstrum cannot tell a smear from its reverse
    sign = 1 if found.dx * smear[0] + found.dy * smear[1] >= 0 else -1
    assert abs(sign * found.dx - smear[0]) <= 1.5 and abs(sign * found.dy - smear[1]) <= 1.5
    assert found.strength > DEFAULT_READING.deblur_clear


def test_seams_widen_by_the_smear_across_each_direction():
    sharp_x, sharp_y = seam_widths(cv2.cvtColor(_kingdom(), cv2.COLOR_BGR2GRAY), 100)
    wide_x, wide_y = seam_widths(cv2.cvtColor(_smeared(_kingdom(), 20, 0), cv2.COLOR_BGR2GRAY), 100)
    assert wide_x - sharp_x > 12 and abs(wide_y - sharp_y) < 3


def test_wiener_brings_a_smeared_image_closer_to_the_sharp_one():
    sharp = _kingdom()
    blurred = _smeared(sharp, 14, 6)
    restored = wiener(blurred, line_psf(14, 6), 0.01)
    assert restored.shape == sharp.shape and restored.dtype == np.uint8
    inner = np.s_[30:-30, 30:-30]
    error = np.abs(restored.astype(int) - sharp)[inner].mean()
    assert error < 0.7 * np.abs(blurred.astype(int) - sharp)[inner].mean()
    gray = wiener(cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY), line_psf(14, 6), 0.01)
    assert gray.shape == sharp.shape[:2]


def test_the_reading_deblurs_a_smeared_kingdom_and_leaves_a_sharp_one_alone():
    sharp = _kingdom()
    assert deblurred_kingdom(sharp, 5, DEFAULT_READING) is sharp
    blurred = _smeared(sharp, 14, 6)
    restored = deblurred_kingdom(blurred, 5, DEFAULT_READING)
    inner = np.s_[30:-30, 30:-30]
    error = np.abs(restored.astype(int) - sharp)[inner].mean()
    assert error < 0.8 * np.abs(blurred.astype(int) - sharp)[inner].mean()
    assert deblurred_kingdom(blurred, 5, ReadingSettings(deblur_clear=0)) is blurred  # switched off


def test_the_reading_leaves_a_smear_the_seams_disown():
    """The smear is undone only when the seams widen by it: with no slack for their disagreement it is not."""
    blurred = _smeared(_kingdom(), 14, 6)
    assert deblurred_kingdom(blurred, 5, ReadingSettings(deblur_agree=0.0)) is blurred
    assert deblurred_kingdom(blurred, 5, ReadingSettings(deblur_clear=100.0)) is blurred  # not clear enough
    assert deblurred_kingdom(blurred, 5, ReadingSettings(deblur_shortest=20.0)) is blurred  # too short
