"""The chosen frame's last fit: one homography fitted to every side's seam at once (``fit_frame``)."""

from __future__ import annotations

import cv2
import numpy as np

from scanner.geometry import frame_corners, frame_homography, moved_frame
from scanner.locate import Verdict, fit_frame
from scanner.locate.placement import table_cells, tile_cells
from scanner.locate.refine import (
    SMEAR_SPREAD,
    blur_spread,
    onto_drifted_seams,
    ridge_support,
    seam_drift,
    seam_support,
)
from scanner.locate.settings import DEFAULT_SETTINGS

SQUARE = 60  # pixels per square of the drawn kingdom, before the perspective


def _kingdom(n: int, jitter: float, seed: int = 3, mat_pitch: float | None = None) -> np.ndarray:
    """A drawn N×N kingdom seen from above, one square of table around it: squares of textured colour
    with dark seams, each tile moved by up to ``jitter`` px (as dominoes lie on a table); a mat's lines
    ``mat_pitch`` squares apart on the table when given."""
    rng = np.random.default_rng(seed)
    side = (n + 2) * SQUARE
    image = np.full((side, side, 3), (60, 110, 150), np.uint8)
    if mat_pitch:
        image[:] = (150, 95, 30)
        for position in np.arange(0.3, n + 2, mat_pitch) * SQUARE:
            at = int(position)
            image[:, at : at + 3] = 235
            image[at : at + 3] = 235
    for row in range(n):
        for col in range(n):
            colour = rng.integers(40, 220, 3)
            tile = np.clip(colour + rng.normal(0, 25, (SQUARE - 2, SQUARE - 2, 3)), 0, 255).astype(np.uint8)
            dx, dy = np.round(rng.uniform(-jitter, jitter, 2)).astype(int)
            top, left = (row + 1) * SQUARE + 1 + dy, (col + 1) * SQUARE + 1 + dx
            image[top - 1 : top + SQUARE - 1, left - 1 : left + SQUARE - 1] = 25  # the seam around it
            image[top : top + SQUARE - 2, left : left + SQUARE - 2] = tile
    return image


def _photo(image: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(gray photo, true grid -> photo homography) of the drawn kingdom tilted in perspective."""
    side = image.shape[0]
    flat = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    seen = np.float32([[120, 80], [side + 60, 130], [side + 20, side + 90], [90, side + 40]])
    to_photo = cv2.getPerspectiveTransform(flat, seen).astype(np.float64)
    photo = cv2.warpPerspective(image, to_photo, (side + 200, side + 200), borderValue=(60, 110, 150))
    grid_to_drawn = np.array([[SQUARE, 0, SQUARE], [0, SQUARE, SQUARE], [0, 0, 1.0]])
    return cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), to_photo @ grid_to_drawn


def _error(homography: np.ndarray, truth: np.ndarray, n: int) -> float:
    """Largest corner distance, in squares of the true frame."""
    found, true = frame_corners(homography, n), frame_corners(truth, n)
    square = np.linalg.norm(true - np.roll(true, -1, axis=0), axis=1).mean() / n
    return float(np.linalg.norm(found - true, axis=1).max() / square)


def _off(truth: np.ndarray, n: int, squares: list) -> np.ndarray:
    """The true frame with its corners moved by ``squares`` (grid units), as a rough search leaves it."""
    corners = np.float64([[0, 0], [n, 0], [n, n], [0, n]]) + np.float64(squares)
    return truth @ frame_homography(corners, n)


def test_a_frame_a_quarter_square_off_at_one_corner_is_fitted_onto_the_seams() -> None:
    for n in (5, 7):
        gray, truth = _photo(_kingdom(n, jitter=0), n)
        rough = _off(truth, n, [[0.05, -0.05], [0, 0.1], [0.3, 0.2], [-0.1, 0]])
        assert _error(rough, truth, n) > 0.3
        assert _error(fit_frame(gray, rough, n), truth, n) < 0.06


def test_jittered_tiles_still_give_the_lattice_they_lie_on() -> None:
    n = 5
    gray, truth = _photo(_kingdom(n, jitter=3), n)
    rough = _off(truth, n, [[-0.2, 0.1], [0.1, 0.2], [0.0, -0.25], [0.2, 0.1]])
    assert _error(fit_frame(gray, rough, n), truth, n) < 0.1


def test_a_mats_lines_just_outside_the_kingdom_do_not_pull_its_outline() -> None:
    n = 5
    gray, truth = _photo(_kingdom(n, jitter=0, mat_pitch=0.85), n)
    assert _error(fit_frame(gray, truth, n), truth, n) < 0.06


def test_a_photo_without_seams_leaves_the_frame_where_it_was() -> None:
    n = 5
    gray = np.full((600, 600), 128, np.uint8)
    frame = frame_homography(np.float64([[100, 100], [500, 120], [480, 500], [90, 480]]), n)
    assert np.allclose(fit_frame(gray, frame, n), frame)


def _kingdom_with_holes(n: int, holes: set, mat_shift: float) -> np.ndarray:
    """A drawn N×N kingdom on a cutting mat whose lines run one square apart, ``mat_shift`` squares off the
    kingdom's seams; the squares in ``holes`` hold no tile, and show the mat."""
    rng = np.random.default_rng(3)
    side = (n + 2) * SQUARE
    image = np.full((side, side, 3), (150, 95, 30), np.uint8)
    for position in np.arange(mat_shift, n + 2) * SQUARE:
        at = int(position)
        image[:, at : at + 3] = 235
        image[at : at + 3] = 235
    for row in range(n):
        for col in range(n):
            if (row, col) in holes:
                continue
            colour = rng.integers(40, 220, 3)
            tile = np.clip(colour + rng.normal(0, 25, (SQUARE - 2, SQUARE - 2, 3)), 0, 255).astype(np.uint8)
            top, left = (row + 1) * SQUARE + 1, (col + 1) * SQUARE + 1
            image[top - 1 : top + SQUARE - 1, left - 1 : left + SQUARE - 1] = 25
            image[top : top + SQUARE - 2, left : left + SQUARE - 2] = tile
    return image


def test_a_mats_lines_in_the_kingdom_s_holes_do_not_pull_the_frame() -> None:
    # a whole empty row and two more holes show the mat's lines a fifth of a square off the kingdom's seams:
    # fitted on every side, the frame slides onto them (about a third of a square); the sides that border
    # the table on both sides give no seam, and the others look for theirs only a little into a hole
    n = 5
    holes = {(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (2, 1), (2, 3)}
    drawn = _kingdom_with_holes(n, holes, mat_shift=0.2)
    side = drawn.shape[0]
    flat = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    seen = np.float32([[120, 80], [side + 60, 130], [side + 20, side + 90], [90, side + 40]])
    to_photo = cv2.getPerspectiveTransform(flat, seen).astype(np.float64)
    photo = cv2.warpPerspective(drawn, to_photo, (side + 200, side + 200), borderValue=(150, 95, 30))
    truth = to_photo @ np.array([[SQUARE, 0, SQUARE], [0, SQUARE, SQUARE], [0, 0, 1.0]])
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    table = table_cells(photo, truth, n, DEFAULT_SETTINGS)
    assert table is not None and {tuple(cell) for cell in np.argwhere(table)} == holes
    rough = _off(truth, n, [[-0.2, 0.1], [0.1, 0.2], [0.0, -0.25], [0.2, 0.1]])
    for start in (truth, rough):
        assert _error(fit_frame(gray, start, n, DEFAULT_SETTINGS, table), truth, n) < 0.06


def _shaken(gray: np.ndarray, length: int, angle: float) -> np.ndarray:
    """The photo smeared by a straight camera shake of ``length`` px at ``angle`` (radians from x)."""
    kernel = np.zeros((length, length), np.float32)
    half = length / 2
    dx, dy = np.cos(angle) * half, np.sin(angle) * half
    cv2.line(kernel, (int(half - dx), int(half - dy)), (int(half + dx), int(half + dy)), 1.0, 1, cv2.LINE_AA)
    return cv2.filter2D(gray, -1, kernel / kernel.sum())


def _true_squares(gray: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """The 5×5 true frame's squares rectified at 96 px a square, half a square around them."""
    to_rect = np.array([[96, 0, 48], [0, 96, 48], [0, 0, 1.0]]) @ np.linalg.inv(truth)
    return cv2.warpPerspective(gray, to_rect, (576, 576), flags=cv2.INTER_LINEAR).astype(np.float32)


def test_seams_smeared_by_a_shake_are_fitted_as_ridges_as_wide_as_the_smear() -> None:
    n = 5
    gray, truth = _photo(_kingdom(n, jitter=0), n)
    shaken = _shaken(gray, 13, 1.3)  # mostly up and down: the rows' seams smeared into wide ridges
    rect = _true_squares(shaken, truth)
    across_rows, across_columns = blur_spread(rect, n, 96)
    assert across_rows > 3 * max(across_columns, 1.0)
    rough = _off(truth, n, [[0.05, -0.1], [0, 0.15], [0.1, 0.25], [-0.1, 0.1]])
    assert _error(rough, truth, n) > 0.25
    assert _error(fit_frame(shaken, rough, n), truth, n) < 0.2


def test_a_smeared_family_votes_against_the_gradient_beyond_its_ridge_not_on_its_flanks() -> None:
    # a smear a quarter of a square long makes each row seam a ridge whose flanks fill most of the span a
    # seam is looked for in: against its own flanks it stands out of nothing and the rows' lines stayed
    # where the search left them (docs/experiments.md, "A smeared seam's contrast beyond its flanks")
    n = 5
    gray, truth = _photo(_kingdom(n, jitter=0), n)
    shaken = _shaken(gray, 15, 1.4)
    for rows_off in ([[0, -0.2], [0, 0.1], [0, 0.2], [0, -0.1]], [[0, 0.2]] * 4):
        rough = _off(truth, n, rows_off)
        assert _error(rough, truth, n) > 0.2
        assert _error(fit_frame(shaken, rough, n), truth, n) < 0.1


def test_the_last_fit_reads_a_diagonal_smear_s_ridges_beyond_their_flanks() -> None:
    # a shake along a diagonal of the lattice spreads each family by less than a real smear's spread, yet its
    # seams are ridges whose flanks fill the span a seam is looked for in; the last fit (at the photo's fine
    # resolution) reads them against the gradient beyond the flanks, the search's fit as before (docs/
    # experiments.md, "Every smeared ridge beyond its flanks, in the last fit")
    n = 5
    gray, truth = _photo(_kingdom(n, jitter=3), n)
    shaken = _shaken(gray, 13, 0.8)
    rect = _true_squares(shaken, truth)
    assert max(blur_spread(rect, n, 96)) < SMEAR_SPREAD * 96
    rough = _off(truth, n, [[0, 0.15]] * 4)
    assert _error(fit_frame(shaken, rough, n, cell_px=96, last=False), truth, n) > 0.2  # the search's mode
    assert _error(fit_frame(shaken, rough, n), truth, n) < 0.15


def test_a_frame_off_a_smeared_family_s_ridges_is_unsure_however_sure_its_other_family() -> None:
    # the seam support excuses a family the smear blurs; its sides on the matched profile's ridges say
    # whether the frame's place across it rests on any seam (docs/experiments.md, "A smeared family
    # without ridges")
    n, settings = 5, DEFAULT_SETTINGS
    gray, truth = _photo(_kingdom(n, jitter=0), n)
    assert ridge_support(gray, truth, n) is None  # no smear: the seam support counts every family
    shaken = _shaken(gray, 15, 1.4)  # mostly up and down: the rows' seams smeared
    on = ridge_support(shaken, truth, n, cell=settings.fine_cell_px)
    across_rows = moved_frame(truth, 0.4, 0)
    off = ridge_support(shaken, across_rows, n, cell=settings.fine_cell_px)
    assert on is not None and off is not None
    assert on > 0.5 > settings.min_ridge_support > off
    # the sharp columns' lines lie on their seams either way: only the smeared family tells
    assert ridge_support(shaken, moved_frame(truth, 0, 0.4), n, cell=settings.fine_cell_px) > 0.5
    sure = Verdict(seam_support=0.9, min_support=0.5, outline_support=0.9, ridge_support=on)
    assert not sure.unsure(settings)
    assert Verdict(**{**sure.__dict__, "ridge_support": off}).unsure(settings)


def test_a_frame_stretched_off_one_family_s_seams_is_unsure_however_sure_its_other_family() -> None:
    # a frame whose columns' lines drift off their seams (stretched across them, as a blurred search may
    # leave it) keeps its support from the rows; the columns' gradient over a whole square of offsets says
    # where their seams lie (docs/experiments.md, "Seams beside the lines")
    n, settings = 5, DEFAULT_SETTINGS
    gray, truth = _photo(_kingdom(n, jitter=2), n)
    shaken = _shaken(gray, 9, 0.8)  # a diagonal smear: both families blurred a little
    stretched = _off(truth, n, [[0, 0], [0.7, 0], [0.7, 0], [0, 0]])  # the columns 0.14 square apart too far
    for photo in (gray, shaken):
        assert seam_drift(photo, truth, n, cell=settings.fine_cell_px) < 0.1
        assert seam_drift(photo, stretched, n, cell=settings.fine_cell_px) > settings.max_seam_drift
        assert seam_drift(photo, moved_frame(truth, 0, 0.4), n) > settings.max_seam_drift
    sure = Verdict(seam_support=0.9, min_support=0.5, outline_support=0.9, seam_drift=0.05)
    assert not sure.unsure(settings)
    assert Verdict(**{**sure.__dict__, "seam_drift": 0.4}).unsure(settings)


def test_a_frame_moved_or_stretched_off_one_family_s_seams_is_moved_onto_the_lattice_its_drift_finds() -> (
    None
):
    # beyond the last fit's reach (a third of a square) across one family, the lattice the drift is measured
    # against lies within it: moved there and fitted, the frame is on the kingdom
    n, settings = 5, DEFAULT_SETTINGS
    gray, truth = _photo(_kingdom(n, jitter=2), n)
    cell = settings.fine_cell_px
    moved = (moved_frame(truth, 0, 0.4), moved_frame(truth, 0.45, 0))
    stretched = _off(truth, n, [[0, 0], [0.7, 0], [0.7, 0], [0, 0]])
    for off in (*moved, stretched):
        assert seam_drift(gray, off, n, cell=cell) > settings.max_seam_drift
        onto = onto_drifted_seams(gray, off, n, cell=cell)
        assert seam_drift(gray, onto, n, cell=cell) < 0.1
        assert _error(fit_frame(gray, onto, n), truth, n) < 0.06
    for off in moved:  # out of the fit's reach alone
        assert _error(fit_frame(gray, off, n), truth, n) > 0.25
    assert onto_drifted_seams(gray, truth, 2, cell=cell) is truth  # no inner line to find a lattice by


def test_a_family_without_seams_leaves_the_frame_where_it_is_at_any_cell_size() -> None:
    # a featureless photo ties every lattice tried: the frame's own lines win the tie, so nothing is
    # noted for a drift no seam shows; an odd cell size is read as an even one is
    flat = np.full((700, 700), 128, np.uint8)
    frame = np.array([[100.0, 0, 50], [0, 100, 50], [0, 0, 1]])
    for n in (5, 7):
        for cell in (47, 48, 96):
            assert seam_drift(flat, frame, n, cell=cell) == 0.0


def test_a_mat_s_lattice_across_the_kingdom_has_no_seams_between_its_tiles() -> None:
    # a frame on a mat's lines, laid over the kingdom and the mat beside it at the mat's pitch, has its
    # sides on seams where they lie on the mat; counted only where they border a tile, it has few, while
    # the kingdom's own frame has them all (docs/experiments.md, "Seams between the tiles, not on the table")
    n, pitch, margin = 5, 0.8, 2
    kingdom = _kingdom(n, jitter=0, mat_pitch=pitch)[SQUARE:-SQUARE, SQUARE:-SQUARE]
    side = (n + 2 * margin) * SQUARE
    image = np.full((side, side, 3), (150, 95, 30), np.uint8)
    for position in np.arange(0.3, n + 2 * margin, pitch) * SQUARE:
        at = int(position)
        image[:, at : at + 3] = 235
        image[at : at + 3] = 235
    image[margin * SQUARE : -margin * SQUARE, margin * SQUARE : -margin * SQUARE] = kingdom
    flat = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    seen = np.float32([[120, 80], [side + 60, 130], [side + 20, side + 90], [90, side + 40]])
    to_photo = cv2.getPerspectiveTransform(flat, seen).astype(np.float64)
    colour = cv2.warpPerspective(image, to_photo, (side + 200, side + 200), borderValue=(150, 95, 30))
    gray = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
    settings = DEFAULT_SETTINGS
    true_frame = to_photo @ np.array(
        [[SQUARE, 0, margin * SQUARE], [0, SQUARE, margin * SQUARE], [0, 0, 1.0]]
    )
    cell, start = pitch * SQUARE, 0.3 * SQUARE + 1  # the mat's lines are 3 px wide
    for mat_n in (5, 7):
        on_mat = to_photo @ np.array([[cell, 0, start], [0, cell, start], [0, 0, 1.0]])
        tiles = tile_cells(colour, on_mat, mat_n, settings)
        assert tiles.sum() >= 4  # some of its cells hold the kingdom's artwork
        assert seam_support(gray, on_mat, mat_n) >= settings.min_seam_support  # the mat's lines are seams
        assert seam_support(gray, on_mat, mat_n, tiles=tiles) < settings.min_seam_support
    tiles = tile_cells(colour, true_frame, n, settings)
    assert tiles.all()
    assert seam_support(gray, true_frame, n, tiles=tiles) >= 0.8
