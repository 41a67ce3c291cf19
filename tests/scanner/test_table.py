"""The table around a kingdom tells its empty squares apart from wheat (scanner.table)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.scenes import generate_scene, rotate_kingdom
from benchmarks.whole_photos import corner_errors
from kingdomino.board import Square, Terrain
from kingdomino.labels import EMPTY_LABEL, LABEL_INDEX, LABELS
from scanner.geometry import frame_corners, moved_frame
from scanner.locate import locate_kingdom
from scanner.reading import ReadingSettings
from scanner.recognizer import SLID_FRAME_NOTE, KingdomScanner
from scanner.table import (
    AGAINST_TABLE,
    BOTH_BONUS,
    SHADED_LIKE,
    SHADED_SAME,
    TABLE_EVIDENCE,
    cell_lab,
    combined_evidence,
    evidence_for_empty,
    pattern_evidence,
    pattern_likeness,
    shade_free_evidence,
    shade_free_likeness,
    slide_for,
    table_distances,
    table_in_view,
    weigh_empty,
)

pytestmark = pytest.mark.model

BOARDS = Path(__file__).resolve().parents[2] / "data" / "real" / "boards"
WHEAT = LABEL_INDEX[Square(Terrain.WHEAT, 0)]
TAN_TABLE = (150, 200, 230)  # BGR: a light wooden table the classifier alone reads as wheat in a hole
TILE_COLOURS = [(40, 140, 60), (170, 90, 30), (30, 80, 40), (20, 200, 220), (60, 60, 60), (90, 130, 110)]
#: The kingdom's frame in the test photos: 100 px squares from (250, 250).
FRAME = np.array([[100.0, 0, 250], [0, 100, 250], [0, 0, 1]])


def table_evidence(photo: np.ndarray, frame: np.ndarray, n: int) -> np.ndarray:
    """The nats for *empty* the scanner adds to each square of ``frame`` in ``photo``."""
    return evidence_for_empty(table_distances(photo, frame, n), n)


def frame_slide(photo: np.ndarray, frame: np.ndarray, n: int) -> tuple[int, int]:
    """The move the scanner gives ``frame`` in ``photo`` before reading it."""
    return slide_for(table_distances(photo, frame, n), n)


def table_photo(colour=TAN_TABLE, size: int = 1000, gradient: float = 0.0, seed: int = 0) -> np.ndarray:
    """A textured table, lit more brightly towards the bottom right by ``gradient`` grey levels."""
    rng = np.random.default_rng(seed)
    ramp = np.add.outer(np.arange(size), np.arange(size))[..., None] * (gradient / (2 * size))
    photo = np.array(colour, np.float32) + ramp + rng.normal(0, 4, (size, size, 3))
    return np.clip(photo, 0, 255).astype(np.uint8)


def with_kingdom(photo: np.ndarray, holes: set[tuple[int, int]]) -> np.ndarray:
    """Paint a 5×5 kingdom of flat tiles in FRAME, leaving ``holes`` as table."""
    out = photo.copy()
    for row in range(5):
        for col in range(5):
            if (row, col) not in holes:
                y, x = 250 + 100 * row, 250 + 100 * col
                out[y + 2 : y + 98, x + 2 : x + 98] = TILE_COLOURS[(row * 5 + col) % len(TILE_COLOURS)]
    return out


def test_a_hole_showing_the_table_gets_the_evidence_and_tiles_unlike_the_table_lose_empty() -> None:
    evidence = table_evidence(with_kingdom(table_photo(), {(1, 3), (4, 0)}), FRAME, 5)
    assert evidence[1, 3] == pytest.approx(TABLE_EVIDENCE, rel=0.05)
    assert evidence[4, 0] == pytest.approx(TABLE_EVIDENCE, rel=0.05)
    evidence[1, 3] = evidence[4, 0] = -AGAINST_TABLE
    assert np.all(evidence == -AGAINST_TABLE)  # every flat tile colour lies far from the tan table


def test_only_squares_far_from_the_table_lose_empty() -> None:
    """A square between UNLIKE_TABLE and NOT_TABLE from the table gets no evidence either way."""
    photo = with_kingdom(table_photo(), set())
    photo[352:448, 652:748] = np.array(TAN_TABLE) + (0, 0, -35)  # square (1, 4), redder: about 14 ΔE away
    assert table_evidence(photo, FRAME, 5)[1, 4] == 0


def test_a_wheat_yellow_square_on_a_light_wooden_table_is_not_taken_for_the_table() -> None:
    photo = with_kingdom(table_photo(), set())
    photo[352:448, 652:748] = (40, 190, 225)  # wheat's saturated yellow, square (1, 4)
    assert table_evidence(photo, FRAME, 5)[1, 4] <= 0


def test_a_printed_square_as_dark_as_a_dark_table_on_average_is_not_taken_for_it() -> None:
    """In a dim photo a lake square's mean colour can match a dark table; its picture cannot."""
    table = (45, 30, 35)
    photo = with_kingdom(table_photo(colour=table), {(2, 2)})
    square = np.zeros((96, 96, 3), np.uint8)
    light = (np.add.outer(np.arange(96) // 8, np.arange(96) // 8) % 2).astype(bool)
    square[light], square[~light] = (75, 50, 55), (15, 10, 15)  # the table's colour on average
    photo[352:448, 552:648] = square
    evidence = table_evidence(photo, FRAME, 5)
    assert evidence[1, 3] == 0
    assert evidence[2, 2] == pytest.approx(TABLE_EVIDENCE, rel=0.05)


def test_a_lighting_gradient_across_the_table_is_followed() -> None:
    photo = with_kingdom(table_photo(gradient=60), {(2, 2)})
    assert table_evidence(photo, FRAME, 5)[2, 2] > 0.8 * TABLE_EVIDENCE


def test_no_evidence_when_the_kingdom_fills_the_photo() -> None:
    photo = with_kingdom(table_photo(), {(1, 3)})[250:750, 250:750]
    corner = np.array([[100.0, 0, 0], [0, 100, 0], [0, 0, 1]])
    assert not table_evidence(photo, corner, 5).any()


def test_no_evidence_when_the_ring_around_the_frame_is_not_one_table() -> None:
    photo = with_kingdom(table_photo(), {(1, 3)})
    rng = np.random.default_rng(1)
    for row in range(-1, 6):
        for col in range(-1, 6):
            if row in (-1, 5) or col in (-1, 5):  # other players' tiles all round
                y, x = 250 + 100 * row, 250 + 100 * col
                photo[y : y + 100, x : x + 100] = rng.integers(0, 256, 3)
    assert not table_evidence(photo, FRAME, 5).any()


def test_weighing_multiplies_the_empty_odds_and_keeps_probabilities() -> None:
    probabilities = np.full((2, 2, len(LABELS)), 0.01)
    probabilities[..., WHEAT] = 1 - 0.01 * (len(LABELS) - 1)
    evidence = np.array([[0.0, 3.0], [0.0, 0.0]])
    weighed = weigh_empty(probabilities, evidence)
    assert np.allclose(weighed.sum(axis=-1), 1)
    assert np.allclose(weighed[0, 0], probabilities[0, 0])
    odds = weighed[0, 1, EMPTY_LABEL] / weighed[0, 1, WHEAT]
    assert odds == pytest.approx(np.exp(3.0) * probabilities[0, 1, EMPTY_LABEL] / probabilities[0, 1, WHEAT])


@pytest.fixture(scope="module")
def scanner_() -> KingdomScanner:
    return KingdomScanner()


def board_on_table() -> np.ndarray:
    """Real board 1 (100 px squares) lying at (300, 300) on a light wooden table."""
    photo = table_photo(size=1100, seed=3)
    photo[300:800, 300:800] = cv2.imread(str(BOARDS / "1.jpg"))
    return photo


def test_a_real_kingdom_with_a_hole_on_a_wooden_table_reads_the_hole_empty(scanner_) -> None:
    """Board 1 on a light wooden table with square (1, 3) taken away: alone, the classifier doubts it."""
    photo = board_on_table()
    photo[400:500, 600:700] = table_photo(size=100, seed=4)
    result = scanner_.scan(photo)
    assert result.kingdom[1, 3] == Square(Terrain.EMPTY, 0) and not result.flagged[1, 3]
    alone = KingdomScanner(scanner_.classifier, compare_table=False).scan(photo)
    assert alone.kingdom[1, 3] != Square(Terrain.EMPTY, 0) or alone.flagged[1, 3]


@pytest.mark.parametrize("rows, cols", [(1, 0), (-1, 0), (0, 1), (0, -1)])
def test_a_frame_one_square_off_its_kingdom_slides_back(rows, cols) -> None:
    photo = with_kingdom(table_photo(), set())
    assert frame_slide(photo, FRAME, 5) == (0, 0)
    assert frame_slide(photo, moved_frame(FRAME, -rows, -cols), 5) == (rows, cols)


def test_a_frame_slides_past_a_corner_of_another_kingdom_in_its_edge_row() -> None:
    photo = with_kingdom(table_photo(), set())
    photo[152:248, 652:748] = TILE_COLOURS[0]  # a neighbour's tile just above the kingdom
    assert frame_slide(photo, moved_frame(FRAME, -1, 0), 5) == (1, 0)


def test_an_empty_edge_row_with_table_beyond_both_edges_does_not_slide() -> None:
    """A kingdom of four rows in its frame: either placement is the photo's; the castle rule decides."""
    photo = with_kingdom(table_photo(), {(0, col) for col in range(5)})
    assert frame_slide(photo, FRAME, 5) == (0, 0)


def test_no_slide_when_the_kingdom_fills_the_photo() -> None:
    photo = with_kingdom(table_photo(), set())[250:750, 250:750]
    corner = np.array([[100.0, 0, 0], [0, 100, 0], [0, 0, 1]])
    assert frame_slide(photo, corner, 5) == (0, 0)
    assert frame_slide(photo, moved_frame(corner, -1, 0), 5) == (0, 0)


def test_the_scanner_reads_the_kingdom_from_a_frame_that_slid_back(scanner_, monkeypatch) -> None:
    """Board 1 on a table, its frame located a row too high (as another kingdom beside it can pull the
    lattice search): the scan moves the frame back and reads the whole board."""
    photo = board_on_table()
    right = scanner_.scan(photo)
    assert SLID_FRAME_NOTE not in right.notes

    def one_row_high(image, **options):
        located = locate_kingdom(image, **options)
        homography = moved_frame(located.homography, -1, 0)
        return dataclasses.replace(located, homography=homography, corners=frame_corners(homography, 5))

    monkeypatch.setattr(scanner_, "locate", one_row_high)
    slid = scanner_.scan(photo)
    assert SLID_FRAME_NOTE in slid.notes
    assert slid.kingdom == right.kingdom
    # moved back a row and fitted again to the seams there: where the located frame was, to 1/100 square
    square = np.linalg.norm(right.corners[1] - right.corners[0]) / 5
    np.testing.assert_allclose(slid.corners, right.corners, atol=0.01 * square)


def test_plain_wheat_without_a_domino_partner_stays_wheat_when_the_table_is_in_view(scanner_) -> None:
    """Generated scene 10007: two plain wheat squares lost their domino partner (a hole beside each). The
    classifier gives them 10-26 % empty; the box rules alone then read them empty. They lie far from the
    table, so they are not holes."""
    scene = generate_scene(10007)
    photo = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    result = scanner_.scan(photo)
    truth, corners = scene.upright()
    turns = min(range(4), key=lambda k: corner_errors(result.corners, np.roll(corners, -k, axis=0), 5).max())
    truth = rotate_kingdom(truth, turns)
    assert result.kingdom[3, 4] == truth[3, 4] == Square(Terrain.WHEAT, 0)
    assert result.kingdom[4, 1] == truth[4, 1] == Square(Terrain.WHEAT, 0)
    assert result.kingdom == truth


def swirled_cloth(size: int = 1000, seed: int = 0) -> np.ndarray:
    """A blue tablecloth printed with large yellow swirls: no one mean colour around the frame."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    swirl = np.sin(xx / 37.0 + 2.5 * np.sin(yy / 53.0)) * np.cos(yy / 41.0 - 1.7 * np.sin(xx / 61.0))
    photo = np.where((swirl > 0.35)[..., None], np.float32([40, 200, 230]), np.float32([150, 70, 20]))
    photo = photo + rng.normal(0, 4, photo.shape)
    return np.clip(photo, 0, 255).astype(np.uint8)


def printed_tiles(photo: np.ndarray, holes: set[tuple[int, int]], seed: int = 0) -> np.ndarray:
    """A 5×5 kingdom in FRAME of tiles with a printed picture (dark strokes on the tile's colour)."""
    rng = np.random.default_rng(seed)
    out = photo.copy()
    for row in range(5):
        for col in range(5):
            if (row, col) not in holes:
                y, x = 250 + 100 * row, 250 + 100 * col
                tile = np.empty((96, 96, 3), np.uint8)
                tile[:] = TILE_COLOURS[(row * 5 + col) % len(TILE_COLOURS)]
                for _ in range(12):
                    a, b = rng.integers(0, 96, 2), rng.integers(0, 96, 2)
                    cv2.line(tile, tuple(int(v) for v in a), tuple(int(v) for v in b), (20, 30, 25), 2)
                out[y + 2 : y + 98, x + 2 : x + 98] = tile
    return out


def test_empty_squares_on_a_patterned_cloth_show_its_pattern_and_tiles_do_not() -> None:
    photo = printed_tiles(swirled_cloth(), {(0, 4), (4, 0)})
    assert table_distances(photo, FRAME, 5) is None  # no one mean colour: the colour comparison is silent
    likeness = pattern_likeness(photo, FRAME, 5)
    evidence = combined_evidence(table_evidence(photo, FRAME, 5), pattern_evidence(likeness, 5))
    assert evidence[0, 4] == pytest.approx(TABLE_EVIDENCE, rel=0.05)
    assert evidence[4, 0] == pytest.approx(TABLE_EVIDENCE, rel=0.05)
    evidence[0, 4] = evidence[4, 0] = 0.0
    assert np.all(evidence == 0.0)


def test_the_pattern_adds_nothing_when_the_ring_is_other_tiles_of_every_colour() -> None:
    photo = printed_tiles(swirled_cloth(), {(2, 2)})
    rng = np.random.default_rng(5)
    for row in range(-1, 6):
        for col in range(-1, 6):
            if row in (-1, 5) or col in (-1, 5):
                y, x = 250 + 100 * row, 250 + 100 * col
                photo[y : y + 100, x : x + 100] = rng.integers(0, 256, (100, 100, 3))
    likeness = pattern_likeness(photo, FRAME, 5)
    assert likeness is None or pattern_evidence(likeness, 5)[2, 2] <= 0


def test_a_plain_table_square_keeps_its_colour_evidence_with_the_pattern() -> None:
    photo = with_kingdom(table_photo(), {(1, 3)})
    colour = table_evidence(photo, FRAME, 5)
    combined = combined_evidence(colour, pattern_evidence(pattern_likeness(photo, FRAME, 5), 5))
    assert combined[1, 3] == pytest.approx(TABLE_EVIDENCE + BOTH_BONUS, rel=0.05)  # both say table
    assert (combined[colour < 0] < 0).all()  # the flat tiles stay unlike the table


def test_a_hole_showing_part_of_a_cloths_print_gets_part_of_the_evidence() -> None:
    """A hole in a patterned cloth shows only part of its print: its colours overlap the table's less than
    the whole ring's do, and it still gets evidence for *empty*, the more the more they overlap."""
    evidence = pattern_evidence(np.array([[0.7, 0.82, 0.87, 0.93, 0.99]]), 5)[0]
    assert evidence[0] == 0.0
    assert 0.0 < evidence[1] < evidence[2] < evidence[3] < evidence[4] == pytest.approx(TABLE_EVIDENCE)


def test_evidence_against_empty_needs_both_comparisons_and_adds_them_up() -> None:
    colour = np.array([[-AGAINST_TABLE, -AGAINST_TABLE, 0.0, -2.0]])
    pattern = np.array([[-AGAINST_TABLE, 0.0, -AGAINST_TABLE, -1.0]])
    combined = combined_evidence(colour, pattern)[0]
    assert combined[0] == pytest.approx(-(AGAINST_TABLE + BOTH_BONUS * AGAINST_TABLE / TABLE_EVIDENCE))
    assert combined[1] == 0.0 and combined[2] == 0.0  # one comparison alone says nothing against
    assert -2.0 - BOTH_BONUS / TABLE_EVIDENCE == pytest.approx(combined[3])
    assert combined[0] < combined[3] < -2.0  # more than the stronger comparison alone


def test_both_comparisons_read_the_frame_s_lab_cells_made_once_as_their_own() -> None:
    # the recognizer makes the frame's Lab cells once and hands them to both comparisons with the table
    for photo, plain in (
        (with_kingdom(table_photo(gradient=40.0), {(1, 3), (4, 4)}), True),
        (printed_tiles(swirled_cloth(), {(0, 4)}), False),  # the ring agrees on no one colour: None
    ):
        lab = cell_lab(photo, FRAME, 5)
        alone, given = table_distances(photo, FRAME, 5), table_distances(photo, FRAME, 5, lab)
        assert (alone is not None) is plain and (given is not None) is plain
        assert not plain or np.array_equal(alone, given, equal_nan=True)
        assert np.array_equal(pattern_likeness(photo, FRAME, 5), pattern_likeness(photo, FRAME, 5, lab))


def test_a_cropped_board_has_no_table_in_view_and_neither_comparison_runs() -> None:
    # the reader warps the frame's Lab cells only when a table can be compared: a frame filling the photo
    # (a cropped board) leaves its ring outside, and both comparisons say so as the reader's check does
    photo = with_kingdom(table_photo(gradient=40.0), {(1, 3)})
    cropped = np.array([[200.0, 0, 0], [0, 200, 0], [0, 0, 1]])  # a 5×5 of 200 px squares: the whole photo
    assert table_in_view(photo.shape, FRAME, 5)
    assert not table_in_view(photo.shape, cropped, 5)
    assert table_distances(photo, cropped, 5) is None and pattern_likeness(photo, cropped, 5) is None


def shaded(photo: np.ndarray, row: int, col: int, light: float) -> np.ndarray:
    """``photo`` with square (row, col) of FRAME in a uniform shade letting through ``light`` of the light."""
    out = photo.copy()
    y, x = 250 + 100 * row, 250 + 100 * col
    out[y : y + 100, x : x + 100] = (out[y : y + 100, x : x + 100] * light).astype(np.uint8)
    return out


def test_a_hole_in_the_shade_keeps_the_table_s_proportions_and_tiles_do_not_take_them() -> None:
    """A uniform shade over a hole makes it darker than the table, so its mean colour and its Lab colours
    no longer match the table's; its colours' proportions and its lightness relative to its own do."""
    photo = shaded(printed_tiles(table_photo(), {(1, 3), (4, 0)}), 1, 3, 0.4)
    shade_free = shade_free_likeness(photo, FRAME, 5)
    assert shade_free[1, 3] >= SHADED_SAME and shade_free[4, 0] >= SHADED_SAME  # shaded and lit alike
    assert pattern_likeness(photo, FRAME, 5)[1, 3] < SHADED_LIKE  # the Lab histogram is fooled
    assert table_evidence(photo, FRAME, 5)[1, 3] < 0  # and so is the mean colour
    shade_free[1, 3] = shade_free[4, 0] = 0.0
    assert (shade_free < SHADED_LIKE).all()  # no printed tile looks like the table in any shade


def test_shade_free_evidence_is_for_empty_only_on_a_ramp() -> None:
    evidence = shade_free_evidence(np.array([[0.0, SHADED_LIKE, 0.7, SHADED_SAME, 1.0]]), 5)[0]
    assert evidence[0] == evidence[1] == 0.0  # a tile unlike the table in any shade: nothing against
    assert evidence[2] == pytest.approx(TABLE_EVIDENCE / 2)
    assert evidence[3] == evidence[4] == pytest.approx(TABLE_EVIDENCE)
    assert not shade_free_evidence(None, 5).any()  # no table seen


def test_the_shade_free_comparison_counts_for_empty_in_a_shade_and_keeps_evidence_against() -> None:
    colour = np.array([[-AGAINST_TABLE, -AGAINST_TABLE, TABLE_EVIDENCE, -AGAINST_TABLE]])
    pattern = np.array([[-AGAINST_TABLE, -AGAINST_TABLE, 0.0, 2.0]])
    shade_free = np.array([[0.0, TABLE_EVIDENCE, TABLE_EVIDENCE, 6.0]])
    combined = combined_evidence(colour, pattern, shade_free)[0]
    assert combined[0] == pytest.approx(combined_evidence(colour, pattern)[0, 0])  # a tile: unchanged
    assert combined[0] < 0
    assert combined[1] == pytest.approx(TABLE_EVIDENCE)  # a hole in the shade: for empty, as the pattern
    # a square whose mean colour matches the table is in no shade: the pattern judges it, not the shade-free
    assert combined[2] == pytest.approx(combined_evidence(colour, pattern)[0, 2])
    assert combined[2] == pytest.approx(TABLE_EVIDENCE)
    assert combined[3] == pytest.approx(6.0)  # the stronger of the two histogram comparisons counts
    assert np.array_equal(combined_evidence(colour, None, shade_free), colour)  # no ring, no histograms


def test_a_real_kingdom_s_hole_in_the_shade_reads_empty_with_the_shade_free_comparison(scanner_) -> None:
    """Board 1 on a wooden table, the hole at (1, 3) in a shade letting through 0.45 of the light: unlike
    the table's mean colour and Lab colours, the decoder reads it as wheat without the third comparison."""
    photo = board_on_table()
    photo[400:500, 600:700] = (table_photo(size=100, seed=4) * 0.45).astype(np.uint8)
    result = scanner_.scan(photo)
    assert result.kingdom[1, 3] == Square(Terrain.EMPTY, 0) and not result.flagged[1, 3]
    without = KingdomScanner(scanner_.classifier, reading=ReadingSettings(table_shade=False)).scan(photo)
    assert without.kingdom[1, 3] != Square(Terrain.EMPTY, 0) and without.flagged[1, 3]
