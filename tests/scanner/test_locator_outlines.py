"""The seam evidence under motion blur and the lattice fitted inside a colour outline (synthetic views)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from scanner.geometry import frame_corners, frame_homography
from scanner.locate import LocatorSettings, seam_support
from scanner.locate.border import border_colours
from scanner.locate.regions import (
    UnlikeTable,
    blob_outlines,
    lattice_in_outline,
    on_surfaces,
    table_repeat,
    unlike_table_mask,
)
from scanner.locate.search import View, regions

SQUARE = 60
ORIGIN = 150
SETTINGS = LocatorSettings()


def kingdom_view(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A grey 5×5 kingdom of textured squares with dark seams on a plain table, and its frame corners."""
    rng = np.random.default_rng(seed)
    image = np.full((600, 600), 170, np.float32)
    for row in range(5):
        for col in range(5):
            noise = cv2.GaussianBlur(rng.normal(0, 40, (SQUARE, SQUARE)).astype(np.float32), (0, 0), 1.5)
            top, left = ORIGIN + row * SQUARE, ORIGIN + col * SQUARE
            image[top : top + SQUARE, left : left + SQUARE] = rng.uniform(60, 200) + noise
    for k in range(6):  # the seams between the tiles and around them
        image[ORIGIN + k * SQUARE - 2 : ORIGIN + k * SQUARE + 2, ORIGIN : ORIGIN + 5 * SQUARE] = 20
        image[ORIGIN : ORIGIN + 5 * SQUARE, ORIGIN + k * SQUARE - 2 : ORIGIN + k * SQUARE + 2] = 20
    side = 5 * SQUARE
    corners = np.array([[0, 0], [side, 0], [side, side], [0, side]], float) + ORIGIN
    return np.clip(image, 0, 255).astype(np.uint8), corners


def motion_blurred(image: np.ndarray, length: int) -> np.ndarray:
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length  # a hand moving left and right
    return cv2.filter2D(image, -1, kernel)


def test_a_blurred_kingdom_keeps_its_seam_support_at_its_true_frame() -> None:
    image, corners = kingdom_view()
    frame = frame_homography(corners, 5)
    sharp = seam_support(image, frame, 5)
    blurred = seam_support(motion_blurred(image, 27), frame, 5)  # 0.45 square across the columns' lines
    assert sharp >= 0.9
    assert blurred >= 0.6  # the rows' lines keep their seams; the smeared columns weigh less


def test_a_frame_beside_the_kingdom_stays_off_its_seams_when_blurred() -> None:
    image, corners = kingdom_view()
    beside = frame_homography(corners + [SQUARE / 2, SQUARE / 2], 5)  # half a square off on both axes
    assert seam_support(motion_blurred(image, 27), beside, 5) < 0.5


def test_the_lattice_is_fitted_inside_a_rough_outline() -> None:
    image, corners = kingdom_view(1)
    for blur in (1, 27):
        view = motion_blurred(image, blur) if blur > 1 else image
        # an outline missing most of a column and reaching half a square beyond the top
        rough = corners + np.array([[0.0, -30], [-45, -30], [-45, 0], [0, 0]])
        found = frame_corners(lattice_in_outline(view, rough, 5), 5)
        assert np.abs(found - corners).max() < 0.25 * SQUARE, (blur, found)


def kingdom_on_mat(seed: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A small colour copy: a wooden table, a green cutting mat with white lines on it, and a 5×5 kingdom
    of textured squares in other colours on the mat; (copy, the mat's corners, the kingdom's corners)."""
    rng = np.random.default_rng(seed)
    image = np.empty((480, 480, 3), np.float32)
    image[:] = (60, 95, 150)  # wood
    image[100:380, 90:390] = (70, 140, 40)  # the mat
    for k in range(95, 390, 20):
        image[100:380, k - 1 : k + 1] = (225, 230, 225)
    for k in range(105, 380, 20):
        image[k - 1 : k + 1, 90:390] = (225, 230, 225)
    terrains = [(170, 90, 30), (40, 200, 230), (40, 70, 40), (120, 120, 130), (90, 160, 200), (30, 40, 90)]
    square, origin = 22, (185, 180)
    for row in range(5):
        for col in range(5):
            top, left = origin[0] + row * square, origin[1] + col * square
            noise = rng.normal(0, 25, (square, square, 3))
            image[top : top + square, left : left + square] = np.array(terrains[rng.integers(6)]) + noise
    image = np.clip(cv2.GaussianBlur(image, (3, 3), 0), 0, 255).astype(np.uint8)
    mat = np.float64([[90, 100], [390, 100], [390, 380], [90, 380]])
    top, left = origin
    kingdom = np.float64([[left, top], [left + 5 * square, top], [left + 5 * square, top + 5 * square]])
    kingdom = np.vstack([kingdom, [left, top + 5 * square]])
    return image, mat, kingdom


def test_a_kingdom_on_a_mat_is_the_region_unlike_the_mat_and_the_table() -> None:
    image, mat, kingdom = kingdom_on_mat()
    table = border_colours(image, SETTINGS)
    mask = unlike_table_mask(image, table, SETTINGS)
    # against the photo's border alone, the mat and the kingdom are one region: the mat's outline
    (outline,) = blob_outlines(mask, 50, 1)[:1]
    assert np.abs(outline - mat).max() < 10
    inner = on_surfaces(image, mask, table, 50, 1, SETTINGS)
    outline = blob_outlines(inner, 50, 1)[0]
    assert np.abs(outline - kingdom).max() < 22 / 2  # within half a square of the kingdom's outline


def test_a_crumb_nearer_the_middle_than_the_mat_is_no_surface() -> None:
    image, _, kingdom = kingdom_on_mat()
    canvas = np.empty((480, 720, 3), np.uint8)
    canvas[:] = image[0, 0]  # more wood on the left: the mat lies right of the photo's middle
    canvas[:, 240:] = image
    canvas[230:250, 272:292] = (200, 40, 40)  # a blue crumb on the wood, nearer the middle than the mat
    table = border_colours(canvas, SETTINGS)
    mask = unlike_table_mask(canvas, table, SETTINGS)
    inner = on_surfaces(canvas, mask, table, 50, 1, SETTINGS)
    outline = blob_outlines(inner, 50, 1)[0]
    assert np.abs(outline - (kingdom + [240, 0])).max() < 22 / 2


def kingdom_on_gingham(seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """A small colour copy: a black-and-white gingham cloth lit unevenly (darker towards the bottom right),
    and a 5×5 kingdom of textured squares on it, its middle column and two more dark forests as dark as
    the cloth's black checks; (copy, the kingdom's corners)."""
    rng = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:480, 0:480]
    checks = ((ys // 12) % 2) + ((xs // 12) % 2)  # 0 white, 1 grey, 2 black
    image = np.stack([np.choose(checks, [225.0, 130.0, 35.0])] * 3, axis=-1)
    colourful = [(170, 90, 30), (40, 200, 230), (90, 160, 200), (60, 150, 60), (150, 60, 160)]
    dark = {(row, 2) for row in range(5)} | {(1, 4), (3, 0)}
    square, origin = 20, (185, 180)
    for row in range(5):
        for col in range(5):
            top, left = origin[0] + row * square, origin[1] + col * square
            colour = (35, 45, 35) if (row, col) in dark else colourful[rng.integers(len(colourful))]
            noise = rng.normal(0, 12, (square, square, 3))
            image[top : top + square, left : left + square] = np.array(colour) + noise
    light = 1.0 - 0.35 * (ys + xs) / (2 * 480)  # the light falls off across the photo
    image = np.clip(cv2.GaussianBlur(image * light[..., None], (3, 3), 0), 0, 255).astype(np.uint8)
    top, left = origin
    kingdom = np.float64([[left, top], [left + 5 * square, top], [left + 5 * square, top + 5 * square]])
    return image, np.vstack([kingdom, [left, top + 5 * square]])


def test_a_kingdom_whose_dark_squares_share_the_cloths_colours_is_one_region() -> None:
    # the dark squares are no colour the cloth lacks: the kingdom's blob is closed over them (docs/
    # experiments.md, "Colour regions closed over a dark square")
    image, kingdom = kingdom_on_gingham()
    table = border_colours(image, SETTINGS)
    # closed over the seams only, the dark middle column splits the kingdom into two halves too narrow
    # to hold one
    assert not blob_outlines(unlike_table_mask(image, table, SETTINGS), 50, 1)
    mask = unlike_table_mask(image, table, SETTINGS, SETTINGS.region_square_closing)
    outline = blob_outlines(mask, 50, 1)[0]
    assert np.abs(outline - kingdom).max() < 20 / 2  # within half a square of the kingdom's outline


def yellow_gingham() -> tuple[np.ndarray, tuple]:
    """A 480×640 yellow-and-light-blue gingham, float (checks 12 px: it repeats every 24 px), and its three
    colours (BGR: light blue, pale yellow, yellow)."""
    ys, xs = np.mgrid[0:480, 0:640]
    checks = ((ys // 12) % 2) + ((xs // 12) % 2)
    cloth = ((230.0, 200.0, 150.0), (150.0, 215.0, 225.0), (40.0, 195.0, 215.0))
    return np.stack([np.choose(checks, [colour[k] for colour in cloth]) for k in range(3)], axis=-1), cloth


def kingdom_on_yellow_gingham(seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """A small colour copy: a yellow-and-light-blue gingham (checks 12 px: it repeats every 24 px) with a
    shadow's edge across it and the kingdom, and a 5×5 kingdom of textured squares, a fifth of them wheat
    fields in the cloth's own yellow; (copy, the kingdom's corners)."""
    rng = np.random.default_rng(seed)
    image, cloth = yellow_gingham()
    ys, xs = np.mgrid[0:480, 0:640]
    # no two squares side by side of one colour; the cloth's yellow among them
    colours = [cloth[2], (170, 90, 30), (60, 150, 60), (40, 60, 40), (150, 60, 160)]
    square, origin = 22, (170, 250)
    for row in range(5):
        for col in range(5):
            top, left = origin[0] + row * square, origin[1] + col * square
            texture = cv2.GaussianBlur(rng.normal(0, 40, (square, square, 3)).astype(np.float32), (0, 0), 2)
            colour = np.array(colours[(2 * row + col) % len(colours)], np.float32)
            image[top : top + square, left : left + square] = colour + texture
    shade = np.where(ys > 0.6 * xs + 40, 0.6, 1.0)  # a shadow's edge across the cloth and the kingdom
    image = np.clip(cv2.GaussianBlur(image * shade[..., None], (3, 3), 0), 0, 255).astype(np.uint8)
    top, left = origin
    side = 5 * square
    return image, np.float64([[left, top], [left + side, top], [left + side, top + side], [left, top + side]])


def test_a_repeating_table_is_told_from_the_kingdom_by_its_periods() -> None:
    # a check cloth is the same one period away, in its light and its shade alike; the kingdom's squares,
    # some in the cloth's own yellow, are not (docs/experiments.md, "The cloth's own period")
    image, kingdom = kingdom_on_yellow_gingham()
    repeat = table_repeat(image, SETTINGS)
    assert len(repeat)
    assert np.all(np.abs(repeat / 24 - np.round(repeat / 24)) < 0.1)  # whole periods of the checks
    table = border_colours(image, SETTINGS)
    outline = blob_outlines(unlike_table_mask(image, table, SETTINGS, repeat=repeat), 50, 1)[0]
    assert np.abs(outline[0] - kingdom).max() < 22 / 2  # within half a square of the kingdom's outline


def kingdom_a_period_wide(seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The yellow gingham of ``kingdom_on_yellow_gingham`` (it repeats every 24 px) without its shadow, and a
    5×5 kingdom whose squares are as wide as that period: a dark, almost plain domino at each corner along
    the top and bottom edges (forests in dim light), each square beside a like square one period away on
    one side; (copy, the kingdom's corners)."""
    rng = np.random.default_rng(seed)
    image, _ = yellow_gingham()
    colours = [(170, 90, 30), (60, 150, 60), (150, 60, 160), (30, 120, 200)]
    dark = {(row, col) for row in (0, 4) for col in (0, 1, 3, 4)}
    square, (top, left) = 24, (168, 264)
    for row in range(5):
        for col in range(5):
            cell = (
                slice(top + row * square, top + (row + 1) * square),
                slice(left + col * square, left + (col + 1) * square),
            )
            if (row, col) in dark:
                image[cell] = np.float32((35, 50, 35)) + rng.normal(0, 2, (square, square, 3))
            else:
                texture = cv2.GaussianBlur(
                    rng.normal(0, 40, (square, square, 3)).astype(np.float32), (0, 0), 2
                )
                image[cell] = np.float32(colours[(2 * row + col) % len(colours)]) + texture
    image = np.clip(cv2.GaussianBlur(image, (3, 3), 0), 0, 255).astype(np.uint8)
    side = 5 * square
    return image, np.float64([[left, top], [left + side, top], [left + side, top + side], [left, top + side]])


def test_a_kingdom_square_beside_a_like_square_one_period_away_is_not_the_table() -> None:
    # a pixel of the cloth matches its copies one period away on every side, a dark square beside a like one
    # on that side only: matched by one copy, the corner dominoes joined the table and the blob's hull cut
    # the kingdom's corners (docs/experiments.md, "The cloth's period matched on two sides")
    image, kingdom = kingdom_a_period_wide()
    repeat = table_repeat(image, SETTINGS)
    assert np.all(np.abs(repeat / 24 - np.round(repeat / 24)) < 0.1)
    table = border_colours(image, SETTINGS)
    two = SETTINGS.repeat_matches
    outlines = blob_outlines(unlike_table_mask(image, table, SETTINGS, repeat=repeat, matches=two), 50, 1)[0]
    assert all(np.abs(outline - kingdom).max() < 24 / 2 for outline in outlines)
    hull = blob_outlines(unlike_table_mask(image, table, SETTINGS, repeat=repeat), 50, 1)[0][0]
    assert np.abs(hull - kingdom).max() > 24  # matched by the nearest copy alone


def test_the_regions_last_look_runs_when_no_other_look_accepted_a_frame() -> None:
    # the synthetic kingdom's plain squares pass no judge, so no look accepts a frame: the search asks the
    # cloth's copies to match on two sides last, and that look's blob outlines the kingdom (one match is the
    # period look already made: nothing more is looked at)
    image, kingdom = kingdom_a_period_wide()
    once = dataclasses.replace(SETTINGS, repeat_matches=1)
    before = regions(View(image, "auto", False, once))
    found = regions(View(image, "auto", False, SETTINGS))
    assert not any(f.verdict.accepted for f in found)
    assert len(found) == len(before) + 1
    last = found[-1]
    assert np.abs(frame_corners(last.homography, last.size) - kingdom).max() < 24 / 2


def test_the_masks_unlike_the_table_are_made_once_and_by_periods_only_on_a_repeating_table() -> None:
    image, _ = kingdom_a_period_wide()
    seam, two = SETTINGS.region_closing, SETTINGS.repeat_matches
    masks = UnlikeTable(image, border_colours(image, SETTINGS), SETTINGS)
    assert masks.unlike_table(seam, 0) is masks.unlike_table(seam, 0)
    by_two = masks.unlike_table(seam, two)
    assert by_two is not None and by_two.shape == masks.unlike_table(seam, 0).shape
    assert masks.unlike_table(seam, two) is None  # a look by periods is looked into once
    plain = np.full_like(image, 128)
    assert UnlikeTable(plain, border_colours(plain, SETTINGS), SETTINGS).unlike_table(seam, 1) is None


def test_a_shadows_edge_is_no_kingdom_when_two_copies_must_match() -> None:
    # across a shadow's edge a pixel's second copy may lie in the shade: compared with the light taken out,
    # the edge does not join the kingdom's blob
    image, kingdom = kingdom_on_yellow_gingham()
    repeat = table_repeat(image, SETTINGS)
    table = border_colours(image, SETTINGS)
    mask = unlike_table_mask(image, table, SETTINGS, repeat=repeat, matches=SETTINGS.repeat_matches)
    assert all(np.abs(outline - kingdom).max() < 22 / 2 for outline in blob_outlines(mask, 50, 1)[0])


def test_a_plain_or_grained_table_does_not_repeat() -> None:
    rng = np.random.default_rng(0)
    plain = np.clip(rng.normal(150, 6, (360, 480, 3)), 0, 255).astype(np.uint8)
    assert not len(table_repeat(plain, SETTINGS))
    image, _ = kingdom_view()  # a kingdom's seams in the middle: the border is plain table
    assert not len(table_repeat(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), SETTINGS))


def test_noisy_stripes_repeat_by_their_period_however_the_peak_rounds() -> None:
    # the peak is compared with its own dilation in one precision: a true period is never lost to rounding
    x = np.arange(480)
    for seed in range(6):
        rng = np.random.default_rng(seed)
        for period in (12, 16, 24):
            stripes = np.where((x // (period // 2)) % 2 == 0, 190, 70).astype(float)
            image = np.repeat(np.repeat(stripes[None, :, None], 360, axis=0), 3, axis=2)
            image = np.clip(image + rng.normal(0, 20, image.shape), 0, 255).astype(np.uint8)
            repeat = table_repeat(image, SETTINGS)
            assert len(repeat) and np.all(np.abs(repeat[0] - [period, 0]) < 1), (seed, period, repeat)


def test_a_period_beyond_the_shifts_looked_at_is_none() -> None:
    # stripes whose period is longer than the strips allow: the correlation still rises at the window's edge
    x = np.arange(480)
    stripes = np.where((x // 40) % 2 == 0, 200, 60).astype(np.uint8)
    image = np.repeat(np.repeat(stripes[None, :, None], 360, axis=0), 3, axis=2)
    reach = min(round(SETTINGS.repeat_border * 480), 360) // 2
    assert all(np.abs(shift).max() < reach for shift in table_repeat(image, SETTINGS))


def test_a_thin_or_tiny_photo_has_no_period_and_no_error() -> None:
    rng = np.random.default_rng(1)
    for shape in ((20, 480, 3), (480, 12, 3), (1, 1, 3), (3, 200, 3)):
        image = rng.integers(0, 255, shape, dtype=np.uint8)
        assert table_repeat(image, SETTINGS).shape[1] == 2


def test_a_thin_colour_photo_is_refused_not_an_error() -> None:
    from scanner.errors import KingdomNotFoundError
    from scanner.locate import locate_kingdom

    image = np.random.default_rng(0).integers(0, 255, (40, 1200, 3), dtype=np.uint8)
    try:
        locate_kingdom(image)
    except KingdomNotFoundError:
        return
    raise AssertionError("a thin photo of noise was located")
