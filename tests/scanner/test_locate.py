"""Locating the lattice: generated table photos, cropped boards, and things that are not kingdoms."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.scenes import generate_scene
from scanner.errors import KingdomNotFoundError
from scanner.geometry import frame_homography, frames_overlap, upright_rotation
from scanner.imageio import load_photo
from scanner.locate import (
    ALL_ATTEMPTS,
    DEFAULT_SETTINGS,
    TWO_KINGDOMS_NOTE,
    LocatorSettings,
    OnlyTablePattern,
    judge_content,
    levelled,
    locate_kingdom,
)
from scanner.recognizer import DECODE_MAX_SIDE

pytestmark = pytest.mark.slow

BOARDS = Path(__file__).resolve().parents[2] / "data" / "real" / "boards"
TEST_DATA = Path(__file__).resolve().parents[1] / "data"
SIZE = (1600, 1200)


def corner_error(found: np.ndarray, truth: np.ndarray, grid_size: int) -> float:
    """Worst corner distance, in squares of the true frame."""
    square = np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1).mean() / grid_size
    return float(np.linalg.norm(found - truth, axis=1).max() / square)


def test_upright_rotation_picks_the_side_closest_to_left_to_right() -> None:
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    assert upright_rotation(square) == 0
    for turns in range(4):
        assert upright_rotation(np.roll(square, turns, axis=0)) == turns  # TL now sits at index `turns`
    tilted = np.array([[0, 0], [10, 3], [7, 13], [-3, 10]], float)  # turned 17° clockwise
    assert upright_rotation(tilted) == 0


@pytest.mark.parametrize("seed", [1, 4, 16])
def test_generated_table_photo_is_located_within_a_quarter_square(seed: int) -> None:
    scene = generate_scene(seed, size=SIZE)
    truth_kingdom, truth_corners = scene.upright()
    located = locate_kingdom(scene.image)
    assert located.grid_size == truth_kingdom.grid_size
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25
    assert set(located.timings) >= {"locate.segments", "locate.lattice", "locate.refine"}


@pytest.mark.parametrize("seed", [1, 16])
def test_a_dim_photo_of_a_kingdom_is_located_as_the_same_photo_in_usual_light(seed: int) -> None:
    # a fifth of the light: every colour lies within a few Lab units of a black table's, and the artwork's
    # texture is a fifth as strong; judged on absolute levels, its squares were refused as plain
    scene = generate_scene(seed, size=SIZE)
    truth_kingdom, truth_corners = scene.upright()
    located = locate_kingdom(cv2.convertScaleAbs(scene.image, alpha=0.2))
    assert located.grid_size == truth_kingdom.grid_size
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25


def test_only_a_dim_photo_is_brightened_for_the_judge() -> None:
    usual = cv2.imread(str(BOARDS / "1.jpg"))  # a player's photo in usual light
    assert levelled(usual, DEFAULT_SETTINGS) is usual  # judged as it is
    dim = cv2.convertScaleAbs(usual, alpha=0.2)
    light = np.percentile(cv2.cvtColor(levelled(dim, DEFAULT_SETTINGS), cv2.COLOR_BGR2GRAY), 99)
    assert abs(light - DEFAULT_SETTINGS.light_reference) < 10


@pytest.mark.parametrize(
    ("seed", "width_range"),
    [
        (20052, (0.15, 0.7)),  # dim photo, noisy dark table: the whole-photo search alone finds no lattice
        # small kingdom (squares ~37 px) on wood grain: even the half-photo windows see too few closed
        # cells; a small window at the photo's centre finds it
        (41023, (0.15, 0.25)),
    ],
)
def test_kingdom_missed_by_the_whole_photo_search_is_found_window_by_window(
    seed: int, width_range: tuple[float, float]
) -> None:
    scene = generate_scene(seed, width_range=width_range)
    _, truth_corners = scene.upright()
    photo = cv2.imdecode(
        cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1], cv2.IMREAD_COLOR
    )
    # the windows on their own (the colour regions and the segments unlike the table, tried before them, may
    # find such a kingdom first)
    before = ("regions", "unlike_table")
    windows_only = replace(DEFAULT_SETTINGS, attempts=tuple(a for a in ALL_ATTEMPTS if a not in before))
    located = locate_kingdom(photo, settings=windows_only)
    assert located.found_by == "windows", located.path
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25
    located = locate_kingdom(photo)
    assert located.found_by in ("regions", "unlike_table", "windows"), located.path
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25


@pytest.mark.parametrize(
    "seed",
    [
        30023,  # the whole-photo search first fits another kingdom, cut off by the photo's edge
        60047,  # a complete kingdom off the centre, square to the table's grain; the central one is turned
        70091,  # the fast path's small copy sees only a kingdom cut off by the photo's edge, not the dim one
        60081,  # the central kingdom's holes keep the whole photo's segments from closing its lattice
        60044,  # no search sees the faint central kingdom beside another; the central window enlarged does
    ],
)
def test_the_central_kingdom_is_found_beside_one_the_search_fits_first(seed: int) -> None:
    """As the scanner decodes the photo (JPEG, at most DECODE_MAX_SIDE pixels)."""
    scene = generate_scene(seed)
    _, truth_corners = scene.upright()
    data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    photo = load_photo(data, max_side=DECODE_MAX_SIDE).image
    located = locate_kingdom(photo)
    scale = photo.shape[1] / scene.image.shape[1]
    assert corner_error(located.corners / scale, truth_corners, located.grid_size) < 0.25


def test_a_frame_over_part_of_the_kingdom_found_is_no_other_kingdom() -> None:
    def frame(left: float, top: float) -> tuple[np.ndarray, int]:  # a 5×5 frame of 100 px squares
        corners = np.array([[left, top], [left + 500, top], [left + 500, top + 500], [left, top + 500]])
        return frame_homography(corners, 5), 5

    assert frames_overlap(frame(0, 0), frame(150, 150))  # one and a half squares off: the same kingdom
    assert not frames_overlap(frame(0, 0), frame(520, 40))  # beside it


def test_mighty_duel_kingdom_is_found_as_seven_by_seven_and_can_be_forced() -> None:
    scene = generate_scene(2, size=SIZE, grid_size=7)
    _, truth_corners = scene.upright()
    located = locate_kingdom(scene.image, grid="auto")
    assert located.grid_size == 7
    assert corner_error(located.corners, truth_corners, 7) < 0.25
    assert locate_kingdom(scene.image, grid=7).grid_size == 7


def test_cropped_board_photo_is_the_whole_image_in_any_quarter_turn() -> None:
    board = cv2.imread(str(BOARDS / "1.jpg"))
    height, width = board.shape[:2]
    photo = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    for turns in range(2):
        image = np.ascontiguousarray(np.rot90(board, turns))
        located = locate_kingdom(image)
        assert located.grid_size == 5
        assert corner_error(located.corners, photo, 5) < 0.25


def test_every_real_cropped_board_is_found_as_the_whole_photo() -> None:
    """The labelled boards fill their photo: outline = photo edge (no seam there), faint same-terrain
    seams inside; each one must still be found as the whole 5×5 photo."""
    missed = []
    for path in sorted(BOARDS.glob("*.jpg")):
        board = cv2.imread(str(path))
        height, width = board.shape[:2]
        photo = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
        try:
            located = locate_kingdom(board)
        except KingdomNotFoundError:
            missed.append(path.name)
            continue
        if located.grid_size != 5 or corner_error(located.corners, photo, 5) > 0.25:
            missed.append(path.name)
    assert not missed


def _table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shading = cv2.resize(rng.normal(0, 1, (6, 8)).astype(np.float32), (1600, 1200))
    image = np.array([60, 100, 150], np.float32) * (1 + 0.1 * shading[..., None])
    return np.clip(image + rng.normal(0, 4, image.shape), 0, 255).astype(np.uint8)


def test_empty_table_is_not_a_kingdom() -> None:
    with pytest.raises(KingdomNotFoundError, match="no kingdom") as caught:
        locate_kingdom(_table(0))
    assert caught.value.overlay.shape == (1200, 1600, 3)  # what the search saw, for the page and --debug-dir


def test_a_kingdom_too_small_for_the_whole_photo_is_found_in_an_enlarged_window() -> None:
    # a kingdom 8 % of the photo wide (squares of about 25 px): no lattice on the whole photo's work copy
    # nor in its windows; the window around its most central colourful patch, enlarged 2.5 times, holds it
    scene = generate_scene(3, size=SIZE, width_range=(0.075, 0.085))
    _, truth_corners = scene.upright()
    located = locate_kingdom(scene.image)
    assert located.found_by == "zoomed", located.path
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25
    assert located.square_px < 30  # in the photo's own pixels, not the enlarged window's


def test_a_plain_table_is_not_searched_again_enlarged_nor_for_colours_unlike_it() -> None:
    with pytest.raises(KingdomNotFoundError) as caught:
        locate_kingdom(_table(0))
    steps = [step.split("=")[0] for step in caught.value.path]
    assert "whole" in steps and "zoomed" not in steps and "unlike_table" not in steps


def test_the_path_names_the_attempts_run_and_a_plain_table_runs_no_enlarged_or_unlike_table_search() -> None:
    scene = generate_scene(1, size=SIZE)
    located = locate_kingdom(scene.image)
    assert located.path and located.path[-1] == f"{located.found_by}=accepted"
    assert all(step.split("=")[0].split(".")[0] in ALL_ATTEMPTS for step in located.path)


@pytest.mark.parametrize("photo_name", ["kingdom_on_wood_grain", "kingdom_on_checkered_cloth"])
def test_a_kingdom_on_a_strong_table_pattern_is_found_not_the_pattern(photo_name: str) -> None:
    # wood grain: its segments outvote the kingdom's seams in the whole photo, its windows and the enlarged
    # ones; checkered cloth: its checks are a lattice of about the kingdom's pitch. The kingdom is found by
    # what sets it apart from the table (the colours the border lacks, or a window on the lattice moved onto
    # the squares unlike the ring around them); which attempt gets there first is not the point.
    truth = json.loads((TEST_DATA / f"{photo_name}.json").read_text())
    photo = load_photo(TEST_DATA / f"{photo_name}.jpg", max_side=DECODE_MAX_SIDE).image
    located = locate_kingdom(photo)
    # (fast: its lattice refitted without the table's long lines and colours)
    assert located.found_by in ("fast", "regions", "unlike_table", "windows"), located.path
    assert located.grid_size == truth["grid_size"]
    corners = np.array(truth["corners"])
    assert min(corner_error(located.corners, np.roll(corners, turns, axis=0), 5) for turns in range(4)) < 0.25


def _on_checkered_cloth(board: np.ndarray, pitch: int, at: tuple[int, int]) -> np.ndarray:
    """A blue and white checkered cloth (checks ``pitch`` wide) with ``board`` laid on it at (x, y) ``at``."""
    rng = np.random.default_rng(3)
    checks = (np.indices((1200, 1600)) // pitch).sum(axis=0) % 2 == 1
    cloth = np.where(checks[..., None], np.uint8([200, 90, 40]), np.uint8([235, 238, 240]))
    cloth = np.clip(cloth + rng.normal(0, 3, cloth.shape), 0, 255).astype(np.uint8)
    x, y = at
    cloth[y : y + board.shape[0], x : x + board.shape[1]] = board
    return cloth


def test_a_frame_mostly_on_the_checks_of_a_cloth_is_refused_as_the_tables_pattern() -> None:
    board = cv2.imread(str(BOARDS / "1.jpg"))
    pitch = board.shape[0] // 5
    photo = _on_checkered_cloth(board, pitch, (4 * pitch, 2 * pitch))
    # a 7×7 frame on the cloth's lattice holding 3×5 of the kingdom's squares, and the kingdom's own frame
    settings = LocatorSettings()
    on_cloth = frame_homography(np.float64([[6, 1], [13, 1], [13, 8], [6, 8]]) * pitch, 7)
    verdict = judge_content(photo, on_cloth, 7, False, settings)
    assert isinstance(verdict.refusal, OnlyTablePattern)
    assert verdict.table_checks >= settings.max_table_pattern
    kingdom = frame_homography(np.float64([[4, 2], [9, 2], [9, 7], [4, 7]]) * pitch, 5)
    assert judge_content(photo, kingdom, 5, False, settings).accepted


def test_chessboard_is_a_lattice_but_not_a_kingdom() -> None:
    board = np.kron((np.indices((8, 8)).sum(0) % 2).astype(np.uint8), np.ones((70, 70), np.uint8))
    board = cv2.cvtColor(np.where(board == 1, 30, 220).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    source = np.float32([[0, 0], [560, 0], [560, 560], [0, 560]])
    target = np.float32([[500, 260], [1100, 320], [1150, 950], [450, 880]])
    warp = cv2.getPerspectiveTransform(source, target)
    mask = cv2.warpPerspective(np.full((560, 560), 255, np.uint8), warp, SIZE)
    photo = np.where(mask[..., None] > 0, cv2.warpPerspective(board, warp, SIZE), _table(1))
    with pytest.raises(KingdomNotFoundError) as caught:
        locate_kingdom(photo)
    assert str(caught.value) and "\n" not in str(caught.value)
    # the refused candidate lattice is drawn in red on the overlay
    overlay = caught.value.overlay
    red = (overlay[..., 2] > 200) & (overlay[..., 1] < 80) & (overlay[..., 0] < 80)
    assert red.sum() > 500


def test_kingdom_with_tiny_squares_gets_a_clear_reason() -> None:
    scene = generate_scene(5, size=SIZE, width_range=(0.05, 0.05), tilt_range=(0, 5), distractors=False)
    with pytest.raises(KingdomNotFoundError) as caught:
        locate_kingdom(scene.image)
    assert "closer" in str(caught.value)


def test_cropped_board_is_taken_as_the_whole_photo_without_the_segment_search() -> None:
    only_cropped = LocatorSettings(attempts=("cropped",))  # no lattice fit on segments at all
    board = cv2.imread(str(BOARDS / "1.jpg"))
    height, width = board.shape[:2]
    photo = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
    located = locate_kingdom(board, settings=only_cropped)
    assert located.grid_size == 5 and located.path == ["cropped=accepted"]
    assert corner_error(located.corners, photo, 5) < 0.1
    with pytest.raises(KingdomNotFoundError):  # the same attempt does not make a kingdom of a table
        locate_kingdom(_table(0)[:1000, :1000], settings=only_cropped)


@pytest.mark.parametrize(
    ("seed", "first_seen_as_five"), [(20000, False), (50011, False), (50032, False), (20021, True)]
)
def test_mighty_duel_kingdom_first_seen_as_five_by_five_is_grown_to_seven_by_seven(
    seed: int, first_seen_as_five: bool
) -> None:
    # dev scenes whose lattice search scores (20021) or once scored a 5×5 window of the 7×7 kingdom best
    # (20000, 50011 and 50032 are now found as a 7×7 at once: 50011 since the refit of a lattice on the
    # table's lines, 50032 since a cell's artwork is its share of colours the table lacks); the ring of
    # tiles around the window makes it a 7×7
    scene = generate_scene(seed, grid_size=7)
    _, truth_corners = scene.upright()
    photo = cv2.imdecode(
        cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1], cv2.IMREAD_COLOR
    )
    # the lattices on their own (the colour outline, looked at before the whole lattice, sees 50011 as a
    # 7×7 at once)
    lattices_only = replace(DEFAULT_SETTINGS, attempts=tuple(a for a in ALL_ATTEMPTS if a != "regions"))
    located = locate_kingdom(photo, settings=lattices_only)
    # "locate.grow": the search's own choice was a 5×5 window
    assert ("locate.grow" in located.timings) == first_seen_as_five
    assert located.grid_size == 7
    assert corner_error(located.corners, truth_corners, 7) < 0.25
    located = locate_kingdom(photo)
    assert located.grid_size == 7
    assert corner_error(located.corners, truth_corners, 7) < 0.25


@pytest.mark.parametrize(
    ("seed", "another_kingdom"),
    [
        # the search for a second kingdom, outside a 5×5 window, finds the ring of squares that growing
        # adds: that "other kingdom" is the scanned 7×7 itself
        (20021, False),
        (20001, True),  # another player's kingdom lies beside the grown 7×7
    ],
)
def test_grown_mighty_duel_kingdom_says_two_kingdoms_only_when_another_lies_outside_it(
    seed: int, another_kingdom: bool
) -> None:
    scene = generate_scene(seed, grid_size=7)
    _, truth_corners = scene.upright()
    data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    photo = load_photo(data, max_side=DECODE_MAX_SIDE)  # what the scanner searches
    located = locate_kingdom(photo.image)
    assert "locate.grow" in located.timings and located.grid_size == 7
    assert corner_error(photo.to_original(located.corners), truth_corners, 7) < 0.25
    assert (TWO_KINGDOMS_NOTE in located.notes) == another_kingdom, located.notes


def test_the_more_central_of_two_kingdoms_is_scanned_when_only_the_fast_path_saw_it() -> None:
    # dev scene 30009: two whole kingdoms; the fast path finds the central one but its squares are too small
    # there to be sure, and the full search settles on the other one
    scene = generate_scene(30009)
    _, truth_corners = scene.upright()
    data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    photo = load_photo(data, max_side=DECODE_MAX_SIDE)
    located = locate_kingdom(photo.image)
    assert "fast=pending" in located.path  # the fast attempt's lattice was not kept as it was
    assert corner_error(photo.to_original(located.corners), truth_corners, 5) < 0.25
    assert TWO_KINGDOMS_NOTE in located.notes


def _motion_blurred(image: np.ndarray, length: int) -> np.ndarray:
    """``image`` blurred by a camera moving ``length`` pixels sideways."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length
    return cv2.filter2D(image, -1, kernel)


def test_a_blurred_photo_is_found_on_a_reduced_or_sharpened_copy() -> None:
    scene = generate_scene(8, size=SIZE)
    truth_kingdom, truth_corners = scene.upright()
    photo = _motion_blurred(scene.image, 18)  # the seams smear out: no lattice search of the photo finds them
    located = locate_kingdom(photo)  # the colour regions' outline may, on one processor's arithmetic and not
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25  # another's: not asserted
    # without it, the straight smear measured and undone finds it first (test_locator_attempts.py)
    lattices = tuple(name for name in ALL_ATTEMPTS if name != "regions")
    located = locate_kingdom(photo, settings=LocatorSettings(attempts=lattices))
    assert located.deblurred and located.found_by == "deblurred" and located.unsure
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25
    # ... and without it the reduced or sharpened copy, within the default budget (without the colour regions
    # and the zoomed windows, which find nothing here and would take the copies near the budget's end:
    # docs/experiments.md, "The colour regions attempt's time")
    copies = tuple(name for name in ALL_ATTEMPTS if name not in ("deblurred", "regions", "zoomed"))
    located = locate_kingdom(photo, settings=LocatorSettings(attempts=copies))
    assert located.deblurred and located.found_by in ("reduced", "sharpened") and located.unsure
    assert located.grid_size == truth_kingdom.grid_size
    assert corner_error(located.corners, truth_corners, located.grid_size) < 0.25
    without_copies = tuple(name for name in lattices if name not in ("reduced", "sharpened", "deblurred"))
    with pytest.raises(KingdomNotFoundError):
        locate_kingdom(photo, settings=LocatorSettings(attempts=without_copies))


def test_a_sharp_photo_is_not_marked_deblurred() -> None:
    assert not locate_kingdom(generate_scene(1, size=SIZE).image).deblurred
