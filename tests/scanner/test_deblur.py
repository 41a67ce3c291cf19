"""Motion blur (scanner.deblur): the smear's point spread, its estimates on a photo (the locator's) and on
a rectified kingdom (the reading's, reading.deblurred_kingdom), and Wiener deconvolution."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from benchmarks.scenes import generate_scene
from kingdomino.board import Square, Terrain
from kingdomino.labels import CASTLE_LABEL, LABEL_INDEX, LABELS
from model.classifier import SquareClassifier
from scanner.by_hand import located_by_hand
from scanner.deblur import (
    Smear,
    cepstrum_smears,
    line_psf,
    seam_widths,
    sharpness_along,
    spectrum_smear,
    wiener,
)
from scanner.decode import decode_kingdom
from scanner.locate import FrameUnreliable, Located
from scanner.reading import (
    DEFAULT_READING,
    REVIEW_RULES,
    ReadingDetails,
    ReadingSettings,
    any_reason,
    deblurred_kingdom,
    review_reasons,
)
from scanner.recognizer import BLURRED_NOTE, SMEARED_NOTE, KingdomScanner, kingdom_cut
from scanner.rectify import cut_squares, rectify
from scanner.tall import lean_castle
from tests.support.scan_fakes import ColourClassifier


def _sharp(seed: int = 3, size: int = 1024) -> np.ndarray:
    """A kingdom on a table, ``size`` px wide, in grey."""
    return cv2.cvtColor(generate_scene(seed, size=(size, size * 3 // 4)).image, cv2.COLOR_BGR2GRAY)


def _noisy(image: np.ndarray, sigma: float = 2.0) -> np.ndarray:
    noise = np.random.default_rng(0).normal(0, sigma, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _photo_smeared(image: np.ndarray, length: int, degrees: float) -> np.ndarray:
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
    photo = _noisy(_photo_smeared(_sharp(size=1024 * reduced), length, degrees))
    copy = cv2.resize(photo, None, fx=1 / reduced, fy=1 / reduced, interpolation=cv2.INTER_AREA)
    motion = spectrum_smear(copy, min_length=4, max_length=32)
    assert motion is not None
    off = abs((math.degrees(math.atan2(motion.dy, motion.dx)) - degrees + 90) % 180 - 90)
    assert off <= 4, motion
    assert abs(motion.length - length / reduced) <= max(1.0, 0.08 * length / reduced), motion


@pytest.mark.parametrize("sigma", [0, 1.5, 3, 5])
def test_a_sharp_or_defocused_image_shows_no_motion_blur(sigma: float) -> None:
    image = _sharp()
    if sigma:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    image = _noisy(image)
    assert spectrum_smear(image, min_length=4, max_length=32) is None


def test_the_smear_s_psf_is_a_line_of_its_length_summing_to_one() -> None:
    psf = line_psf(0, 10)
    assert psf.sum() == pytest.approx(1.0)
    rows, cols = np.nonzero(psf > 0.02)
    assert set(cols) == {psf.shape[1] // 2}  # vertical
    assert 9 <= rows.max() - rows.min() + 1 <= 11


def test_wiener_deconvolution_with_the_measured_smear_brings_the_seams_back() -> None:
    sharp = _sharp()
    smeared = _noisy(_photo_smeared(sharp, 12, 40), 1.0)
    motion = spectrum_smear(smeared, min_length=4, max_length=20)
    assert motion is not None
    restored = wiener(smeared, line_psf(motion.dx, motion.dy), 0.02)
    assert restored.shape == smeared.shape and restored.dtype == np.uint8

    def detail(image: np.ndarray) -> np.ndarray:
        """The seams' scale (a band of 1.5 to 4 px), inside the frame (its edge is guessed, not restored)."""
        image = image.astype(np.float32)
        band = cv2.GaussianBlur(image, (0, 0), 1.5) - cv2.GaussianBlur(image, (0, 0), 4)
        return band[40:-40, 40:-40].ravel()

    def likeness(image: np.ndarray) -> float:
        return float(np.corrcoef(detail(image), detail(sharp))[0, 1])

    assert likeness(restored) > likeness(smeared) + 0.1
    colour = wiener(cv2.cvtColor(smeared, cv2.COLOR_GRAY2BGR), line_psf(motion.dx, motion.dy), 0.02)
    assert colour.shape == (*smeared.shape, 3)


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
def test_the_cepstrum_finds_the_smear_of_a_blurred_kingdom(smear):
    gray = cv2.cvtColor(_smeared(_kingdom(), *smear), cv2.COLOR_BGR2GRAY)
    found = cepstrum_smears(gray, 6, 60)[0]
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
    assert _undone(sharp, DEFAULT_READING) is None
    blurred = _smeared(sharp, 14, 6)
    restored, smear = deblurred_kingdom(blurred, 5, DEFAULT_READING)
    assert smear is not None and abs(smear.length - np.hypot(14, 6)) < 3, smear
    inner = np.s_[30:-30, 30:-30]
    error = np.abs(restored.astype(int) - sharp)[inner].mean()
    assert error < 0.8 * np.abs(blurred.astype(int) - sharp)[inner].mean()
    assert _undone(blurred, ReadingSettings(deblur_clear=0)) is None  # switched off


def test_the_reading_leaves_a_smear_the_seams_disown():
    """The smear is undone only when the seams widen by it: with no slack for their disagreement it is not."""
    blurred = _smeared(_kingdom(), 14, 6)
    assert _undone(blurred, ReadingSettings(deblur_agree=0.0)) is None
    assert _undone(blurred, ReadingSettings(deblur_clear=100.0)) is None  # not clear enough
    gray = cv2.cvtColor(blurred, cv2.COLOR_BGR2GRAY)
    assert all(smear.length >= 19.5 for smear in cepstrum_smears(gray, 20.0, 60.0, count=3))  # too short


def test_a_long_smear_is_undone_though_its_seams_measure_short():
    sharp = _kingdom()
    for smear in ((40, 0), (0, 50), (30, 30)):
        blurred = _smeared(sharp, *smear)
        assert _undone(blurred, DEFAULT_READING) is not None, smear
        assert _undone(blurred, ReadingSettings(deblur_short_seams=0.0)) is None, smear


def test_a_uniform_or_one_channel_kingdom_is_left_alone():
    flat = np.full((500, 500, 3), 128, np.uint8)
    assert cepstrum_smears(flat[..., 0]) == []
    assert _undone(flat, DEFAULT_READING) is None
    one = _smeared(_kingdom(), 14, 6)[..., :1].copy()
    assert deblurred_kingdom(one, 5, DEFAULT_READING)[0].shape == one.shape


def _undone(kingdom: np.ndarray, settings: ReadingSettings):
    """The smear the reading undoes in a 5×5 kingdom (None: read as it is, and then the kingdom itself)."""
    restored, smear = deblurred_kingdom(kingdom, 5, settings)
    assert (restored is kingdom) == (smear is None)
    return smear


@pytest.mark.parametrize("noise", [0.0, -0.1, 1.0])
def test_wiener_refuses_a_noise_ratio_outside_0_1(noise):
    with pytest.raises(ValueError, match="noise"):
        wiener(_kingdom(), line_psf(14, 6), noise)


def test_a_smear_scales_with_its_copy():
    smear = Smear(12.0, -5.0, 3.0)
    half = smear.scaled(0.5)
    assert (half.dx, half.dy, half.strength) == (6.0, -2.5, 3.0) and half.length == pytest.approx(6.5)


class _Recording(ColourClassifier):
    """Reads like ColourClassifier, keeping how sharp the squares it was given are."""

    def __init__(self) -> None:
        self.sharpness: list[float] = []

    def predict_proba(self, images, photo: bool = False, context=()) -> np.ndarray:
        self.sharpness += [float(cv2.Laplacian(image, cv2.CV_32F).var()) for image in images]
        if getattr(self, "first", ()) is None:  # the squares of the first call, when asked to keep them
            self.first = list(images)
        return super().predict_proba(images, photo, context)


def test_the_scanner_reads_a_smeared_kingdom_s_squares_deconvolved():
    scene = generate_scene(6, size=(2400, 1800))
    _, corners = scene.upright()
    photo = cv2.filter2D(scene.image, -1, line_psf(24, 10), borderType=cv2.BORDER_REFLECT)
    sharpness, deblurred, noted = {}, {}, {}
    for clear in (DEFAULT_READING.deblur_clear, 0.0):
        classifier = _Recording()
        result = KingdomScanner(classifier, reading=ReadingSettings(deblur_clear=clear)).scan(
            photo, corners=corners, grid=5
        )
        sharpness[clear] = np.mean(classifier.sharpness)
        deblurred[clear] = result.details.deblurred
        noted[clear] = SMEARED_NOTE in result.notes
    assert sharpness[DEFAULT_READING.deblur_clear] > 1.5 * sharpness[0.0], sharpness
    # the reading knows it read a deconvolved kingdom
    assert deblurred == {DEFAULT_READING.deblur_clear: True, 0.0: False}
    # and the player is told why its squares may be marked
    assert noted == deblurred


def test_the_scanner_s_cut_undoes_a_smear_and_leaves_a_sharp_kingdom_alone():
    """kingdom_cut, the one path from a photo and a frame to the squares the classifier reads (the scanner's
    and the training scenes'): a smeared kingdom's squares are deconvolved, a sharp one's cut as taken."""
    scene = generate_scene(6, size=(2400, 1800))
    _, corners = scene.upright()
    homography = located_by_hand(corners, 5, None).homography
    smeared = cv2.filter2D(scene.image, -1, line_psf(24, 10), borderType=cv2.BORDER_REFLECT)
    sharp_cut, smeared_cut = kingdom_cut(scene.image, homography, 5), kingdom_cut(smeared, homography, 5)
    assert sharp_cut.smear is None and smeared_cut.smear is not None
    assert len(sharp_cut.crops) == len(smeared_cut.crops) == 25

    def sharpness(crops) -> float:
        return float(np.mean([cv2.Laplacian(crop, cv2.CV_32F).var() for crop in crops]))

    assert sharpness(smeared_cut.crops) > 1.5 * sharpness(cut_squares(smeared_cut.rectified, 5))
    assert np.array_equal(cut_squares(sharp_cut.rectified, 5)[7], sharp_cut.crops[7])  # as taken
    # and the scanner's classifier reads exactly these squares
    classifier = _Recording()
    classifier.first = None
    KingdomScanner(classifier).scan(smeared, corners=corners, grid=5)
    assert all(np.array_equal(a, b) for a, b in zip(classifier.first, smeared_cut.crops, strict=True))


def test_a_cut_like_an_earlier_one_reuses_its_brightened_copy_and_full_resolution_part():
    """A frame moved by a square is read from the same brightened copy and the same full-resolution part
    as the frame it moved from, so the two readings compared differ only by where the frame lies."""
    scene = generate_scene(6, size=(2400, 1800))
    _, corners = scene.upright()
    homography = located_by_hand(corners, 5, None).homography
    reduced = cv2.resize(scene.image, (300, 225), interpolation=cv2.INTER_AREA)
    small = np.diag([0.125, 0.125, 1.0]) @ homography
    first = kingdom_cut(reduced, small, 5, full=lambda: scene.image)
    assert first.detail is not None  # a kingdom this small is cut from the photo in full
    moved = small @ np.array([[1.0, 0, 1], [0, 1, 0], [0, 0, 1]])
    again = kingdom_cut(reduced, moved, 5, like=first, full=lambda: pytest.fail("decoded again"))
    assert again.seen is first.seen and again.detail is first.detail
    assert np.array_equal(again.rectified, rectify(first.detail[0], first.detail[1] @ moved, 5))


@pytest.mark.model
def test_a_frame_found_on_a_blurred_copy_is_judged_by_its_squares_as_read_deconvolved():
    """The refusal of a frame found on a blurred copy counts the squares the reading flags, the deconvolved
    ones included (docs/experiments.md, "Calibrating the deconvolved squares")."""
    scene = generate_scene(6, size=(2400, 1800))
    truth, corners = scene.upright()
    photo = cv2.filter2D(scene.image, -1, line_psf(24, 10), borderType=cv2.BORDER_REFLECT)
    hand = located_by_hand(corners, truth.grid_size, None)
    found = Located(truth.grid_size, hand.corners, hand.homography, hand.square_px, deblurred=True)
    classifier = SquareClassifier.load()  # the packaged model: the stand-in flags too many squares
    result = KingdomScanner(classifier, locate=lambda *args, **kwargs: found).scan(photo)
    assert result.details.deblurred and str(result.kingdom) == str(truth)
    assert BLURRED_NOTE in result.notes and SMEARED_NOTE not in result.notes  # one note says it
    # every deconvolved square flagged: the frame no longer passes
    every = ReadingSettings(flag_margin=50.0)
    with pytest.raises(FrameUnreliable):
        KingdomScanner(classifier, reading=every, locate=lambda *args, **kwargs: found).scan(photo)


@pytest.mark.parametrize("length", [4.0, 12.0, 20.0])
def test_the_psf_s_first_zero_is_at_one_over_its_length(length):
    spectrum = np.abs(np.fft.rfft(line_psf(length, 0).sum(axis=0), 4096))
    first = np.argmax(np.diff(spectrum) > 0)  # where the falling main lobe turns up again
    assert 4096 / first == pytest.approx(length, rel=0.03)


def test_a_smear_measured_on_a_reduced_copy_scales_to_the_photo():
    """The locator measures on a copy 1024 px long and deconvolves a 1600 px one: the extent scales."""
    photo = _noisy(_photo_smeared(_sharp(size=2048), 16, 30))
    copy = cv2.resize(photo, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    measured = spectrum_smear(copy, min_length=4, max_length=14)
    assert measured is not None
    assert measured.scaled(2.0).length == pytest.approx(16, rel=0.1)
    assert measured.scaled(1600 / 1024).length == pytest.approx(16 * 1600 / 2048, rel=0.1)


def test_a_photo_under_two_tiles_across_shows_no_smear():
    noise = np.random.default_rng(1).normal(128, 30, (300, 300)).clip(0, 255).astype(np.uint8)
    assert spectrum_smear(noise, min_length=4, max_length=14) is None


def test_a_deconvolved_kingdom_s_squares_have_no_review_rule_of_their_own_beyond_the_one_margin():
    """No review rule of its own: on both generators' whole photos the one flag margin catches what the
    deconvolved kingdom's higher margin caught (docs/experiments.md, "One flag margin for both generators'
    whole photos")."""
    probabilities = np.full((5, 5, len(LABELS)), 1e-4)
    probabilities[..., LABEL_INDEX[Square(Terrain.GRASSLAND, 0)]] = 1.0
    probabilities[2, 2] = 1e-4
    probabilities[2, 2, CASTLE_LABEL] = 1.0
    decoded = decode_kingdom(probabilities)
    leaning = lean_castle(probabilities, np.zeros((5, 5, 5, 5)), CASTLE_LABEL)
    margins = np.full((5, 5), 9.0)
    margins[0, 0] = DEFAULT_READING.flag_margin - 0.1
    margins[0, 1] = DEFAULT_READING.flag_margin + 0.1
    reasons = {}
    for deblurred in (True, False):
        details = ReadingDetails(
            probabilities,
            np.zeros((5, 5)),
            None,
            margins,
            np.zeros((5, 5, 5, 5)),
            leaning,
            deblurred=deblurred,
        )
        reasons[deblurred] = review_reasons(decoded.kingdom, details, DEFAULT_READING)
    assert "deblurred" not in REVIEW_RULES and set(reasons[True]) == set(REVIEW_RULES)
    assert all(np.array_equal(reasons[True][rule], reasons[False][rule]) for rule in REVIEW_RULES)
    assert not any_reason(reasons[True]).any()  # the margin alone flags [0, 0], in the scanner


def test_a_smear_leaves_the_kingdom_sharp_across_it_only():
    gray = cv2.cvtColor(_kingdom(), cv2.COLOR_BGR2GRAY)
    smeared = cv2.filter2D(gray, -1, line_psf(16, 8), borderType=cv2.BORDER_REFLECT)
    assert sharpness_along(smeared, 16, 8) < 0.5 * sharpness_along(smeared, -8, 16)
    defocused = cv2.GaussianBlur(gray, (0, 0), 4)
    for direction in ((5, 4), (9, 6), (12, 0)):
        assert 0.8 < sharpness_along(defocused, *direction) < 1.25


def test_a_defocused_kingdom_is_not_deconvolved_whatever_its_seams_say():
    """Wide seams alike in x and y pass the seams' check for a short diagonal smear; the sharpness along it
    does not."""
    defocused = cv2.GaussianBlur(_kingdom(), (0, 0), 4)
    loose = ReadingSettings(deblur_clear=0.1, deblur_agree=10.0, deblur_short_seams=10.0)
    assert _undone(defocused, loose) is None
    assert _undone(defocused, replace(loose, deblur_anisotropy=2.0)) is not None
