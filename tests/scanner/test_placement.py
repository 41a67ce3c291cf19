"""Where on its lattice the kingdom lies: artwork inside the frame, the table (a printed mat) around it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.geometry import frame_corners, frame_homography, moved_frame
from scanner.locate import LocatorSettings, Verdict, locate_kingdom
from scanner.locate.border import border_colours
from scanner.locate.grow import grow_to_seven, growth_drift, ring_sides
from scanner.locate.judge import middle_seams, needed_support, not_around_kingdom
from scanner.locate.placement import Placement, describe_cells, enclosed, fit_outline, place, placed_frame
from scanner.locate.refine import seam_support
from scanner.locate.refusals import NoGridFound
from scanner.locate.search import Found, judged_best, on_lattice, preference, table_lines

pytestmark = pytest.mark.slow

BOARDS = Path(__file__).resolve().parents[2] / "data" / "real" / "boards"
SETTINGS = LocatorSettings()


def _on_cutting_mat(board: np.ndarray, pitch: int, at: tuple[int, int]) -> np.ndarray:
    """A blue cutting mat with white lines ``pitch`` apart (thicker every fifth) with ``board`` laid on its
    lattice at (x, y) ``at``: every empty mat cell is closed by seams as a tile is."""
    rng = np.random.default_rng(5)
    mat = np.empty((1200, 1600, 3), np.uint8)
    mat[:] = (150, 95, 30)
    for k, position in enumerate(range(0, 1600, pitch)):
        mat[:, max(position - 2, 0) : position + (4 if k % 5 == 0 else 2)] = (235, 235, 235)
    for k, position in enumerate(range(0, 1200, pitch)):
        mat[max(position - 2, 0) : position + (4 if k % 5 == 0 else 2)] = (235, 235, 235)
    mat = np.clip(mat + rng.normal(0, 3, mat.shape), 0, 255).astype(np.uint8)
    x, y = at
    mat[y : y + board.shape[0], x : x + board.shape[1]] = board
    return mat


@pytest.fixture(scope="module")
def on_mat() -> tuple[np.ndarray, int]:
    board = cv2.imread(str(BOARDS / "1.jpg"))
    pitch = 120
    board = cv2.resize(board, (5 * pitch, 5 * pitch), interpolation=cv2.INTER_AREA)
    return _on_cutting_mat(board, pitch, (5 * pitch, 3 * pitch)), pitch


def _frame(left: int, top: int, size: int, pitch: int) -> np.ndarray:
    return frame_homography(
        np.float64([[left, top], [left + size, top], [left + size, top + size], [left, top + size]]) * pitch,
        size,
    )


def test_a_seven_by_seven_frame_over_the_mat_around_a_five_by_five_kingdom_shrinks_to_it(on_mat) -> None:
    photo, pitch = on_mat
    placement = place(photo, _frame(4, 2, 7, pitch), 7, (5, 7), SETTINGS)
    assert (placement.size, placement.rows, placement.cols) == (5, 1, 1)
    assert placement.table_share == 0.0
    # the mat's cells look like the table around the 7×7: it is scored far under the kingdom
    assert placement.runner_up < placement.score - 10


def test_a_frame_one_square_onto_the_mat_moves_back_onto_the_kingdom(on_mat) -> None:
    photo, pitch = on_mat
    placement = place(photo, _frame(6, 3, 5, pitch), 5, (5, 7), SETTINGS)
    assert (placement.size, placement.rows, placement.cols) == (5, 0, -1)


def test_a_frame_on_the_empty_mat_is_no_kingdom(on_mat) -> None:
    photo, pitch = on_mat
    placement = place(photo, _frame(1, 1, 5, pitch), 5, (5,), SETTINGS)
    # the best window within reach reaches a corner of the kingdom, and still holds mostly mat
    assert placement.score < 0.3 * placement.size**2


def test_a_frame_with_no_kingdom_and_table_around_it_is_no_kingdom(on_mat) -> None:
    photo, pitch = on_mat
    exactly = replace(SETTINGS, max_shift=0)
    assert not not_around_kingdom(place(photo, _frame(5, 3, 5, pitch), 5, (5,), exactly), SETTINGS)
    # the empty mat's cells look like the mat around them: no more artwork than table
    assert not_around_kingdom(place(photo, _frame(1, 1, 5, pitch), 5, (5,), exactly), SETTINGS)
    # tiles all around a frame: a lattice laid across more artwork than it frames
    kingdom = Placement(0, 0, 7, 20.0, 0.1, 5.0, SETTINGS.max_tiles_around)
    assert not not_around_kingdom(kingdom, SETTINGS)
    across = Placement(0, 0, 7, 20.0, 0.1, 5.0, SETTINGS.max_tiles_around + 1)
    assert not_around_kingdom(across, SETTINGS)
    # a 5x5 window with tiles all around may be the middle of a Mighty Duel kingdom: growth decides
    middle = Placement(0, 0, 5, 20.0, 0.1, 5.0, SETTINGS.max_tiles_around + 1)
    assert not not_around_kingdom(middle, SETTINGS)
    assert not not_around_kingdom(None, SETTINGS)  # nothing judged (a cropped board): no say


def test_the_kingdom_on_a_printed_mat_is_framed_not_the_mats_grid(on_mat) -> None:
    photo, pitch = on_mat
    located = locate_kingdom(photo)
    assert located.grid_size == 5, located.path
    truth = np.float64([[5, 3], [10, 3], [10, 8], [5, 8]]) * pitch
    assert np.abs(located.corners - truth).max() < 0.25 * pitch


def test_a_frame_with_a_window_nearly_as_good_beside_it_is_unsure() -> None:
    sure = Verdict(seam_support=0.9, min_support=0.5)
    sure.placement = Placement(0, 0, 5, 23.0, 0.0, 10.0, 0)
    assert not sure.unsure(SETTINGS)
    close = Verdict(seam_support=0.9, min_support=0.5)
    close.placement = Placement(0, 0, 5, 23.0, 0.0, 22.5, 0)
    assert close.unsure(SETTINGS)
    tiles_outside = Verdict(seam_support=0.9, min_support=0.5)
    # a few tiles past the threshold are a doubt alone (one past it is, beside another doubt: below)
    tiles_outside.placement = Placement(0, 0, 5, 23.0, 0.0, 10.0, SETTINGS.unsure_artwork_outside + 4)
    assert tiles_outside.unsure(SETTINGS)


def test_doubts_each_at_its_threshold_together_make_a_frame_unsure() -> None:
    # a frame one row off a complete kingdom (the independent generator's dev photo 200216): its outline, its
    # runner-up window and the tiles just outside it each pass their own test at its edge; together they are
    # more than one whole doubt, while a frame clear of every band is vouched for by each piece of evidence
    s = SETTINGS
    size = 5
    runner_up = 23.0 - s.unsure_placement_margin * size
    edge = Verdict(seam_support=0.9, min_support=0.5, outline_support=s.min_outline_support)
    edge.placement = Placement(0, 0, size, 23.0, 0.0, runner_up, s.unsure_artwork_outside - 1)
    assert edge.doubt(s) > 1.0 and edge.unsure(s)
    clear = Verdict(seam_support=0.9, min_support=0.5, outline_support=0.95, seam_drift=0.0)
    clear.placement = Placement(0, 0, size, 23.0, 0.0, float("-inf"), 0)
    assert clear.doubt(s) < 0.0 and not clear.unsure(s)
    # one doubt at its edge alone is not enough, one well past it is, however clear the others
    assert not replace(clear, outline_support=s.min_outline_support).unsure(s)
    assert replace(clear, outline_support=s.min_outline_support - 2 * s.outline_doubt_band).unsure(s)
    assert replace(clear, seam_drift=s.max_seam_drift + 2 * s.drift_doubt_band).unsure(s)
    # just past it beside another doubt at its edge
    near = replace(clear, seam_support=0.5 + s.unsure_margin)
    assert not near.unsure(s)
    assert replace(near, outline_support=s.min_outline_support - 0.01).unsure(s)
    assert not replace(edge, refusal=NoGridFound()).unsure(s)  # a refused frame is not said unsure


def test_a_frame_whose_outline_shows_no_seam_may_be_misplaced(on_mat) -> None:
    # where the kingdom meets the table a frame part of a square off shows first: its outline runs through
    # the tiles' and the mat's cells, off every seam, while its inner lines may still find some
    photo, pitch = on_mat
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    on = seam_support(gray, _frame(5, 3, 5, pitch), 5, lines="outline")
    moved = frame_homography(np.float64([[5.4, 3.4], [10.4, 3.4], [10.4, 8.4], [5.4, 8.4]]) * pitch, 5)
    off = seam_support(gray, moved, 5, lines="outline")
    assert on >= SETTINGS.min_outline_support > off
    seen = Verdict(seam_support=0.9, min_support=0.5, outline_support=on)
    assert not seen.unsure(SETTINGS)
    assert replace(seen, outline_support=off).unsure(SETTINGS)


def test_a_frame_larger_than_the_kingdom_shrinks_onto_the_edge_of_its_artwork(on_mat) -> None:
    photo, pitch = on_mat
    # a fit that took the mat's lines for the kingdom's outline: every side a third of a square out
    loose = frame_homography(np.float64([[4.7, 2.7], [10.3, 2.7], [10.3, 8.3], [4.7, 8.3]]) * pitch, 5)
    fitted = frame_corners(fit_outline(photo, loose, 5, SETTINGS), 5)
    truth = np.float64([[5, 3], [10, 3], [10, 8], [5, 8]]) * pitch
    assert np.abs(fitted - truth).max() < 0.1 * pitch


def _turned_on_mat(side: int, degrees: float) -> tuple[np.ndarray, np.ndarray]:
    """(photo, true corners) of a board ``side`` pixels wide turned ``degrees`` in the middle of a mat
    whose cells are 50 pixels."""
    board = cv2.resize(cv2.imread(str(BOARDS / "1.jpg")), (side, side), interpolation=cv2.INTER_AREA)
    photo = _on_cutting_mat(np.zeros((0, 0, 3), np.uint8), 50, (0, 0))
    turn = cv2.getRotationMatrix2D((side / 2, side / 2), degrees, 1.0)
    turn[:, 2] += (800 - side / 2, 600 - side / 2)
    cv2.warpAffine(board, turn, photo.shape[1::-1], photo, borderMode=cv2.BORDER_TRANSPARENT)
    square = np.float64([[0, 0], [side, 0], [side, side], [0, side]])
    return photo, cv2.transform(square[None], turn)[0]


def test_a_kingdom_turned_on_a_mat_is_framed_not_the_mats_lattice() -> None:
    side = 500
    photo, truth = _turned_on_mat(side, 25)
    located = locate_kingdom(photo)
    # the whole photo's lattice is the mat's: searched again without the mat's lines, it is the kingdom's
    # (no window of the photo needed)
    assert located.grid_size == 5 and located.found_by in ("fast", "whole"), located.path
    errors = [np.abs(np.roll(located.corners, -k, axis=0) - truth).max() for k in range(4)]
    assert min(errors) < 0.25 * side / 5, located.path


def test_segments_along_a_lattice_are_told_from_those_across_it() -> None:
    grid_to_work = frame_homography(np.float64([[100, 100], [600, 100], [600, 600], [100, 600]]), 5)
    along = [[100, 300, 900, 300], [250, 0, 250, 700]]  # on its rows and columns, beyond the frame too
    turned = [[100, 100, 500, 300]]  # a kingdom turned on the mat
    assert on_lattice(np.float64(along + turned), grid_to_work, SETTINGS.lattice_angle).tolist() == [
        True,
        True,
        False,
    ]


def test_segments_on_lines_longer_than_any_kingdom_are_the_tables() -> None:
    square = 50.0
    mat_line = [[0, 100, 150, 102], [400, 108, 700, 114]]  # broken by the kingdom, straight, 14 squares
    seams = [[200, 150, 450, 150], [200, 153, 450, 153], [200, 150, 200, 400]]  # a kingdom's: 5 squares
    chance = [[900, 153, 950, 153]]  # a short segment far along a seam's line: under half of it drawn
    lines = table_lines(np.float64(mat_line + seams + chance), square, SETTINGS)
    assert lines.tolist() == [True, True, False, False, False, False]


def test_a_kingdom_turned_a_little_at_nearly_the_mats_pitch_is_framed() -> None:
    side = 5 * 56  # squares a little larger than the mat's cells, turned just past the old 3° tolerance
    photo, truth = _turned_on_mat(side, 4)
    located = locate_kingdom(photo)
    assert located.grid_size == 5, located.path
    errors = [np.abs(np.roll(located.corners, -k, axis=0) - truth).max() for k in range(4)]
    assert min(errors) < 0.25 * side / 5, located.path


def test_artwork_inside_and_table_around_stand_in_for_faint_seams() -> None:
    clean = Placement(0, 0, 5, 20.0, 0.0, 5.0, 0)
    assert needed_support(0.5, clean, SETTINGS) < 0.5
    assert needed_support(0.5, None, SETTINGS) == 0.5
    tiles_outside = Placement(0, 0, 5, 20.0, 0.0, 5.0, SETTINGS.max_artwork_outside + 1)
    assert needed_support(0.5, tiles_outside, SETTINGS) == 0.5
    # a frame accepted on that credit is said to be unsure
    faint = Verdict(seam_support=0.45, min_support=0.5, placement=clean)
    assert faint.unsure(SETTINGS)


def test_seams_across_the_squares_middles_tell_a_frame_half_a_square_off(on_mat) -> None:
    photo, pitch = on_mat
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    on_kingdom = _frame(5, 3, 5, pitch)
    assert middle_seams(gray, on_kingdom, 5) < SETTINGS.max_middle_seams * seam_support(gray, on_kingdom, 5)
    half_off = frame_homography(np.float64([[5.5, 3.5], [10.5, 3.5], [10.5, 8.5], [5.5, 8.5]]) * pitch, 5)
    assert middle_seams(gray, half_off, 5) > SETTINGS.max_middle_seams * seam_support(gray, half_off, 5)


def _squares(name: str, pitch: int) -> list[np.ndarray]:
    """The 25 squares of a real board, ``pitch`` pixels each, row by row."""
    board = cv2.resize(cv2.imread(str(BOARDS / name)), (5 * pitch, 5 * pitch), interpolation=cv2.INTER_AREA)
    return [
        board[r * pitch : (r + 1) * pitch, c * pitch : (c + 1) * pitch] for r in range(5) for c in range(5)
    ]


@pytest.fixture(scope="module")
def seven_on_mat() -> tuple[np.ndarray, int]:
    """A Mighty Duel 7×7 kingdom of real squares on a cutting mat's lattice, its corner at cell (4, 2)."""
    pitch = 100
    squares = _squares("1.jpg", pitch) + _squares("2.jpg", pitch)
    kingdom = np.vstack([np.hstack(squares[row * 7 : row * 7 + 7]) for row in range(7)])
    return _on_cutting_mat(kingdom, pitch, (4 * pitch, 2 * pitch)), pitch


def test_a_five_by_five_window_of_a_mighty_duel_kingdom_places_as_the_seven_by_seven(seven_on_mat) -> None:
    photo, pitch = seven_on_mat
    # the ring the 7×7 adds is artwork as much as the window is, with the mat around it
    placement = place(photo, _frame(5, 3, 5, pitch), 5, (5, 7), SETTINGS)
    assert (placement.size, placement.rows, placement.cols) == (7, -1, -1)
    grown = grow_to_seven(
        photo,
        cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY),
        _frame(5, 3, 5, pitch),
        False,
        SETTINGS,
        border_colours(photo, SETTINGS),
    )
    assert grown is not None and not grown.unsure  # its ring is tiles, closed by seams
    truth = np.float64([[4, 2], [11, 2], [11, 9], [4, 9]]) * pitch
    assert np.abs(frame_corners(grown.homography, 7) - truth).max() < 0.25 * pitch


def test_a_frame_s_cells_described_once_place_and_grow_it_as_described_anew(seven_on_mat) -> None:
    # confirm hands the cells it described to the last placement and the growth of the same frame
    photo, pitch = seven_on_mat
    gray, table, frame = (
        cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY),
        border_colours(photo, SETTINGS),
        _frame(5, 3, 5, pitch),
    )
    described = describe_cells(photo, frame, 5, SETTINGS)
    anew, given = (
        placed_frame(photo, gray, frame, 5, "auto", SETTINGS),
        placed_frame(photo, gray, frame, 5, "auto", SETTINGS, described),
    )
    assert np.array_equal(anew[0], given[0]) and anew[1:] == given[1:]
    anew, given = (
        grow_to_seven(photo, gray, frame, False, SETTINGS, table),
        grow_to_seven(photo, gray, frame, False, SETTINGS, table, described),
    )
    assert np.array_equal(anew.homography, given.homography) and anew.unsure == given.unsure
    # and the handed cells are what the placement reads: cells said to hold no artwork place another window
    blank = (described[0], np.zeros_like(described[1]), described[2])
    handed, bare = (
        place(photo, frame, 5, (5,), SETTINGS, described),
        place(photo, frame, 5, (5,), SETTINGS, blank),
    )
    assert handed is not None and (bare is None or bare.score != handed.score)


def test_a_five_by_five_kingdom_on_a_wooden_board_is_not_grown_over_it() -> None:
    # a 5×5 of real squares on a grained board a little larger than a 7×7 around it, on a plain cloth: the
    # board's cells are artwork unlike the cloth, so the placement prefers a 7×7 over them, but the ring it
    # would add holds no seams but the kingdom's own edge (outside dev 200274: a board on gingham) and its
    # cells are one surface, alike one another and unlike the kingdom's squares (outside dev 200042: docs/
    # experiments.md, "a ring that is one surface"): no 7×7 grows
    pitch = 100
    rng = np.random.default_rng(3)
    photo = np.clip(np.full((1200, 1600, 3), (200, 205, 210)) + rng.normal(0, 3, (1200, 1600, 3)), 0, 255)
    side = int(7.8 * pitch)
    grain = np.sin(np.arange(side)[:, None] / 3.0 + rng.normal(0, 0.3, (side, 1))) * 18
    grain = grain + rng.normal(0, 6, (side, side))
    top, left = int(1.6 * pitch), int(3.6 * pitch)
    photo[top : top + side, left : left + side] = np.stack([40 + grain, 90 + grain, 150 + grain], axis=-1)
    squares = _squares("1.jpg", pitch)
    photo[3 * pitch : 8 * pitch, 5 * pitch : 10 * pitch] = np.vstack(
        [np.hstack(squares[row * 5 : row * 5 + 5]) for row in range(5)]
    )
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    placement = place(photo, _frame(5, 3, 5, pitch), 5, (5, 7), SETTINGS)
    assert (placement.size, placement.rows, placement.cols) == (7, -1, -1)
    grown = grow_to_seven(
        photo, gray, _frame(5, 3, 5, pitch), False, SETTINGS, border_colours(photo, SETTINGS)
    )
    assert grown is None
    assert ring_sides(gray, moved_frame(_frame(5, 3, 5, pitch), -1, -1), 1, 1).mean() / 4 < SETTINGS.grow_ring


def test_a_seven_by_seven_on_the_five_by_five_s_lattice_keeps_it_one_on_another_lattice_moves_it() -> None:
    # the growth's refit must leave the 5×5 it grew from in place: a 7×7 of the same lattice does, a 7×7
    # slid a third of a square (onto a cloth's checks beside the kingdom) or at another pitch does not
    pitch = 100
    five = _frame(5, 3, 5, pitch)
    assert growth_drift(five, _frame(4, 2, 7, pitch), 1, 1) < 1e-9
    assert growth_drift(five, _frame(5, 3, 7, pitch), 0, 0) < 1e-9
    beside = _frame(3, 3, 7, pitch)  # the 5×5 in the 7×7's top rows, two columns in: rows and columns apart
    assert growth_drift(five, beside, 0, 2) < 1e-9
    assert growth_drift(five, beside, 2, 0) > SETTINGS.grow_max_drift
    slid = np.array([[1, 0, 0.3 * pitch], [0, 1, 0], [0, 0, 1.0]]) @ _frame(4, 2, 7, pitch)
    assert abs(growth_drift(five, slid, 1, 1) - 0.3) < 1e-6
    wider = _frame(4, 2, 7, pitch) @ np.diag([1.1, 1.1, 1.0])
    assert growth_drift(five, wider, 1, 1) > SETTINGS.grow_max_drift


def test_a_domino_beside_a_five_by_five_kingdom_does_not_make_it_a_seven_by_seven(on_mat) -> None:
    photo, pitch = on_mat
    photo = photo.copy()
    squares = _squares("2.jpg", pitch)
    for row, square in ((3, squares[0]), (4, squares[1])):  # a loose domino against the kingdom's right side
        photo[row * pitch : (row + 1) * pitch, 10 * pitch : 11 * pitch] = square
    placement = place(photo, _frame(5, 3, 5, pitch), 5, (5, 7), SETTINGS)
    assert (placement.size, placement.rows, placement.cols) == (5, 0, 0)
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    assert (
        grow_to_seven(photo, gray, _frame(5, 3, 5, pitch), False, SETTINGS, border_colours(photo, SETTINGS))
        is None
    )


def test_sides_smeared_by_motion_blur_stay_where_their_seams_put_them() -> None:
    square, n = 60, 5
    rng = np.random.default_rng(4)
    photo = np.full(((n + 4) * square, (n + 4) * square, 3), (60, 110, 150), np.uint8)
    for row in range(n):
        for col in range(n):
            colour = rng.integers(40, 220, 3)
            tile = np.clip(colour + rng.normal(0, 25, (square - 2, square - 2, 3)), 0, 255)
            top, left = (row + 2) * square + 1, (col + 2) * square + 1
            photo[top : top + square - 2, left : left + square - 2] = tile.astype(np.uint8)
    # a hand moving sideways: a third of a square of blur along x
    blurred = cv2.filter2D(photo, -1, np.full((1, square // 3), 1.0 / (square // 3)))
    truth = _frame(2, 2, n, square)
    fitted = fit_outline(blurred, truth, n, SETTINGS)
    moved = np.abs(frame_corners(fitted, n) - frame_corners(truth, n)) / square
    assert moved[:, 0].max() < 0.05  # the left and right sides, across the motion, are not pushed outward


def test_the_judge_not_the_seams_alone_chooses_among_the_frames_of_one_outline() -> None:
    def found(seams: float, score: float, runner_up: float, outside: int = 0, accepted: bool = True) -> Found:
        placement = Placement(0, 0, 5, score, 0.0, runner_up, outside)
        verdict = Verdict(
            seam_support=seams, min_support=0.5, placement=placement, artwork=0.8, colourful=1.0
        )
        if not accepted:
            verdict.refusal = NoGridFound()
        return Found(np.eye(3), 5, np.zeros((0, 2)), verdict)

    kingdom = found(0.66, 21, 8)  # a window far ahead of the next, the table around it
    beside = found(0.70, 18, 16, outside=4)  # a square off: more seams, the next window nearly as good
    assert judged_best([(beside, 1.0), (kingdom, 1.0)], SETTINGS)[0] is kingdom
    # among frames alike sure, the judge's score; a refused frame never wins
    faint = found(0.52, 20, 8)
    fainter = found(0.51, 17, 12)
    refused = found(0.9, 25, 0, accepted=False)
    assert judged_best([(refused, 1.0), (fainter, 1.0), (faint, 1.0)], SETTINGS)[0] is faint


def _on_checkered_cloth(board: np.ndarray, check: int, at: tuple[int, int]) -> np.ndarray:
    """A two-colour checkered cloth with checks ``check`` pixels wide and ``board`` laid on it at ``at``."""
    rows, cols = np.indices((1200, 1600)) // check
    cloth = np.where(((rows + cols) % 2 == 0)[..., None], (40, 190, 230), (235, 240, 245)).astype(np.uint8)
    rng = np.random.default_rng(7)
    cloth = np.clip(cloth + rng.normal(0, 3, cloth.shape), 0, 255).astype(np.uint8)
    x, y = at
    cloth[y : y + board.shape[0], x : x + board.shape[1]] = board
    return cloth


def test_checks_cut_across_by_the_lattice_are_table_not_tiles() -> None:
    # checks at 0.7 of a square: each cell around the kingdom mixes the cloth's two colours (textured, and
    # unlike the cells beside it), yet holds no colour the cloth lacks
    pitch = 100
    board = cv2.imread(str(BOARDS / "1.jpg"))
    board = cv2.resize(board, (5 * pitch, 5 * pitch), interpolation=cv2.INTER_AREA)
    photo = _on_checkered_cloth(board, 70, (5 * pitch, 3 * pitch))
    _, artwork, inside = describe_cells(photo, _frame(5, 3, 5, pitch), 5, SETTINGS)
    kingdom = np.zeros(artwork.shape, bool)
    kingdom[3:8, 3:8] = True
    assert inside.all()
    assert artwork[~kingdom].max() < SETTINGS.artwork_unlike < np.median(artwork[kingdom])
    placement = place(photo, _frame(5, 3, 5, pitch), 5, (5,), SETTINGS)
    assert (placement.rows, placement.cols, placement.artwork_outside) == (0, 0, 0)
    assert not not_around_kingdom(placement, SETTINGS)


def test_a_window_no_more_the_kingdom_than_the_one_beside_it_is_no_kingdom() -> None:
    # inside a mat's or a cloth's even pattern the lattice's windows all score alike; a kingdom's stands out
    alike = Placement(0, 0, 5, 12.0, 0.1, 12.0, 0)
    assert not_around_kingdom(alike, SETTINGS)
    apart = Placement(0, 0, 5, 12.0, 0.1, 12.0 - 1 - SETTINGS.min_kingdom_margin * 25, 0)
    assert not not_around_kingdom(apart, SETTINGS)
    alone = Placement(0, 0, 5, 12.0, 0.1, -np.inf, 0)  # the only window looked at
    assert not not_around_kingdom(alone, SETTINGS)


def _incomplete_kingdom() -> np.ndarray:
    """A real board with its top row taken away, on a plain noisy table (100 px squares): a 4×5 kingdom."""
    board = cv2.imread(str(BOARDS / "1.jpg"))
    rng = np.random.default_rng(3)
    photo = np.array([70, 110, 150], np.float32) + rng.normal(0, 6, (1000, 1000, 3))
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    photo[250:650, 250:750] = board[100:]
    return photo


def test_windows_holding_the_same_artwork_are_one_kingdom_not_rivals() -> None:
    # a 4×5 kingdom in a 5×5 frame: its empty row above or below holds the same tiles, and scores the same
    photo = _incomplete_kingdom()
    below = frame_homography(np.float64([[250, 250], [750, 250], [750, 750], [250, 750]]), 5)
    placement = place(photo, below, 5, (5,), SETTINGS)
    assert placement.runner_up < placement.score - 5
    assert not not_around_kingdom(placement, SETTINGS)


def test_a_window_holding_only_some_of_the_kingdom_s_tiles_is_no_rival() -> None:
    # a kingdom whose last column holds one tile: the window one square over keeps all but that tile and
    # scores nearly as well, yet explains no artwork the kingdom's own window leaves out
    board = cv2.imread(str(BOARDS / "1.jpg"))
    photo = _on_checkered_cloth(np.zeros((0, 0, 3), np.uint8), 70, (0, 0))
    photo[300:800, 500:900] = board[:, :400]
    photo[700:800, 900:1000] = board[100:200, 0:100]  # the one tile of the last column
    own = _frame(5, 3, 5, 100)
    placement = place(photo, own, 5, (5,), replace(SETTINGS, max_shift=1))
    assert (placement.rows, placement.cols) == (0, 0)
    assert placement.score - placement.runner_up >= SETTINGS.unsure_placement_margin * placement.size


def test_an_incomplete_kingdom_on_a_plain_table_is_found_by_an_early_attempt() -> None:
    located = locate_kingdom(_incomplete_kingdom())
    assert located.grid_size == 5
    assert not any(step.startswith(("zoomed", "reduced", "sharpened")) for step in located.path), located.path
    top_row = np.float64([[250, 150], [750, 150], [750, 650], [250, 650]])
    below = top_row + [0, 100]
    assert min(np.abs(located.corners - truth).max() for truth in (top_row, below)) < 25


def test_a_window_larger_than_its_kingdom_keeps_its_rivals_holding_the_same_tiles() -> None:
    # a 5×5 kingdom in 7×7 windows (a lattice coarser or larger than the kingdom's): the same tiles lie in
    # several windows, and which one frames them is no reading's business: the tie stands
    board = cv2.imread(str(BOARDS / "1.jpg"))
    rng = np.random.default_rng(3)
    photo = np.array([70, 110, 150], np.float32) + rng.normal(0, 6, (1300, 1300, 3))
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    photo[400:900, 400:900] = board
    around = frame_homography(np.float64([[300, 300], [1000, 300], [1000, 1000], [300, 1000]]), 7)
    placement = place(photo, around, 7, (7,), SETTINGS)
    assert placement.runner_up >= placement.score - 1e-9
    assert not_around_kingdom(placement, SETTINGS)


def test_one_preference_puts_the_kingdom_s_own_lattice_then_a_sure_frame_before_the_score() -> None:
    def verdict(seams: float, score: float, runner_up: float, outside: int = 0) -> Verdict:
        placement = Placement(0, 0, 5, score, 0.0, runner_up, outside)
        return Verdict(seam_support=seams, min_support=0.5, placement=placement, artwork=0.8, colourful=1.0)

    on_table = verdict(0.9, 24, 10, outside=SETTINGS.max_artwork_outside + 1)  # tiles just outside it
    unsure = verdict(0.55, 22, 10)  # its seams barely there
    sure = verdict(0.7, 15, 5)
    assert unsure.unsure(SETTINGS) and not sure.unsure(SETTINGS)
    assert on_table.score > unsure.score > sure.score  # the score alone would choose the other way
    assert preference(sure, SETTINGS) > preference(unsure, SETTINGS) > preference(on_table, SETTINGS)
    refused = verdict(0.9, 25, 0)
    refused.refusal = NoGridFound()
    assert preference(on_table, SETTINGS) > preference(refused, SETTINGS)


def test_of_two_unsure_frames_the_less_doubted_is_preferred_whatever_the_score() -> None:
    # two unsure frames of one kingdom (a 5×5 and a 7×7 in its outline, say): their doubts, not the score,
    # say which is more likely the kingdom (docs/experiments.md, "The less doubted of two unsure frames")
    def verdict(seams: float, outline: float, score: float) -> Verdict:
        placement = Placement(0, 0, 5, score, 0.0, 0.0, 0)
        return Verdict(
            seam_support=seams, min_support=0.5, outline_support=outline, placement=placement, artwork=0.8
        )

    barely = verdict(0.56, 0.5, 20)  # its seams barely there, its outline mostly unseen
    doubted = verdict(0.56, 0.9, 15)  # its seams barely there
    assert barely.unsure(SETTINGS) and doubted.unsure(SETTINGS)
    assert barely.doubt(SETTINGS) > doubted.doubt(SETTINGS) and barely.score > doubted.score
    assert preference(doubted, SETTINGS) > preference(barely, SETTINGS)
    sure = verdict(0.9, 0.9, 10)  # a sure frame still comes first, and among sure frames the score decides
    assert preference(sure, SETTINGS) > preference(doubted, SETTINGS)
    assert preference(verdict(0.9, 0.9, 12), SETTINGS) > preference(sure, SETTINGS)


def test_of_two_unsure_frames_the_one_more_on_its_seams_is_preferred_before_the_doubt() -> None:
    # an outline's frame over a row of a board beside the kingdom (its placement doubts little: the board's
    # cells pass for tiles) against a lattice frame on the kingdom's seams (docs/experiments.md, "A sure
    # frame of the other size")
    def verdict(seams: float, score: float, runner_up: float, outside: int) -> Verdict:
        placement = Placement(0, 0, 5, score, 0.0, runner_up, outside)
        return Verdict(seam_support=seams, min_support=0.5, placement=placement, artwork=0.8)

    outline = verdict(0.62, 20, 15, 3)
    seams = verdict(0.83, 18, 15, 7)
    assert outline.unsure(SETTINGS) and seams.unsure(SETTINGS)
    assert outline.doubt(SETTINGS) < seams.doubt(SETTINGS)
    assert preference(seams, SETTINGS) > preference(outline, SETTINGS)


def test_a_gap_tiles_close_in_on_along_its_row_and_column_is_enclosed() -> None:
    tiles = np.ones((5, 5), bool)
    tiles[2, 1:3] = False  # a domino lifted from the middle
    tiles[0, 3] = False  # a notch in the top edge: no tile above it
    enclosed_cells = enclosed(tiles)
    assert enclosed_cells[2, 1] and enclosed_cells[2, 2]
    assert not enclosed_cells[0, 3]
    assert not enclosed_cells[tiles].any()  # a tile is no gap
    # a strip of table between two kingdoms in one window has no tile above or below it
    apart = np.ones((5, 5), bool)
    apart[:, 2] = False
    assert not enclosed(apart).any()


def test_a_lifted_domino_in_the_kingdom_counts_neither_as_artwork_nor_as_the_table(on_mat) -> None:
    photo, pitch = on_mat
    empty = _on_cutting_mat(np.zeros((0, 0, 3), np.uint8), pitch, (0, 0))
    holed = photo.copy()
    # the domino of the middle row's second and third squares lifted: the mat shows through the kingdom
    rows, cols = slice(5 * pitch, 6 * pitch), slice(6 * pitch, 8 * pitch)
    holed[rows, cols] = empty[rows, cols]
    exactly = replace(SETTINGS, max_shift=0)
    own = _frame(5, 3, 5, pitch)
    whole, placed = place(photo, own, 5, (5,), exactly), place(holed, own, 5, (5,), exactly)
    assert placed.table_share == 0.0  # the hole is the kingdom's, no sign of the table's lattice
    assert whole.score - 2.5 <= placed.score < whole.score
    counted = place(holed, own, 5, (5,), replace(exactly, enclosed_holes=False))
    assert counted.table_share == pytest.approx(2 / 25)
    assert counted.score <= placed.score - 2
    # the hole does not make the frame one square over (onto the mat) a rival
    moved = place(holed, own, 5, (5,), SETTINGS)
    assert (moved.rows, moved.cols) == (0, 0)
