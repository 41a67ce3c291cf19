"""Tall things on the kingdom: the camera from the frame's homography, where a castle leans, and the
reading that puts the castle on its base (scanner.tall, scanner.recognizer)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from benchmarks.scenes import generate_scene, upright_rotation
from kingdomino.board import Square, Terrain
from kingdomino.labels import CASTLE_LABEL, EMPTY_LABEL, LABEL_INDEX, LABELS
from kingdomino.scoring import castle_cells
from scanner.covered import (
    filled_in,
    inpainted,
    piece_blob,
    piece_reading,
    printed_look,
    soften_hidden,
    with_pieces,
)
from scanner.decode import decode_kingdom
from scanner.reading import ReadingDetails, ReadingSettings, review_flags, review_reasons
from scanner.recognizer import PIECE_NOTE, KingdomScanner
from scanner.tall import (
    CASTLE_HEIGHT,
    CASTLE_TALLEST,
    PIECE_LIGHTNESS,
    RASTER,
    camera_from_homography,
    castle_cover,
    covered_shares,
    lean_castle,
    leans,
    painted_castles,
    silhouette,
    standing_candidates,
    standing_castles,
    standing_evidence,
    standing_pieces,
    walls_mask,
)
from tests.support.castle_scenes import with_castle, with_king

WIDTH, HEIGHT = 2000, 1500


def pinhole(focal: float, tilt: float, azimuth: float, distance: float = 12.0):
    """(grid -> image homography, K, R, t) of a camera looking at the centre of a 5×5 grid."""
    target = np.array([2.5, 2.5, 0.0])
    t = math.radians(tilt)
    centre = target + distance * np.array(
        [math.sin(t) * math.cos(azimuth), math.sin(t) * math.sin(azimuth), math.cos(t)]
    )
    forward = (target - centre) / np.linalg.norm(target - centre)
    ref = np.array([math.cos(azimuth + math.pi / 2), math.sin(azimuth + math.pi / 2), 0.0])
    right = np.cross(forward, np.cross(ref, forward))
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.stack([right, down, forward])
    translation = -rotation @ centre
    k = np.array([[focal, 0, WIDTH / 2], [0, focal, HEIGHT / 2], [0, 0, 1.0]])
    homography = k @ np.c_[rotation[:, 0], rotation[:, 1], translation]
    return homography / homography[2, 2], k, rotation, translation, centre


@pytest.mark.parametrize("tilt", [8.0, 25.0, 40.0])
def test_the_camera_is_recovered_from_the_frame_and_projects_points_above_the_table(tilt) -> None:
    homography, k, rotation, translation, centre = pinhole(1700.0, tilt, 0.7)
    camera = camera_from_homography(homography, (HEIGHT, WIDTH))
    assert camera.intrinsics[0, 0] == pytest.approx(1700.0, rel=1e-3)
    assert np.allclose(camera.centre, centre, atol=1e-3)
    top = np.array([1.5, 3.5, 0.7])
    truth = k @ (rotation @ top + translation)
    assert np.allclose(camera.project(top[None])[0], truth[:2] / truth[2], atol=1e-3)


def test_a_view_from_straight_above_gets_the_default_focal_and_no_lean_at_the_centre() -> None:
    homography = np.array([[100.0, 0, 750], [0, 100, 500], [0, 0, 1]])  # 5×5 centred in the photo
    camera = camera_from_homography(homography, (HEIGHT, WIDTH))
    lean = leans(camera, 5)
    assert np.allclose(lean[2, 2], 0.0, atol=1e-6)
    # squares off the centre lean outwards, away from the point under the camera
    assert lean[0, 0, 0] < 0 and lean[0, 0, 1] < 0 and lean[4, 4, 0] > 0


def test_a_castle_leans_away_from_a_tilted_camera_over_the_square_behind() -> None:
    homography, *_ = pinhole(1700.0, 35.0, math.pi / 2)  # camera on the grid's +y side (rows below)
    camera = camera_from_homography(homography, (HEIGHT, WIDTH))
    lean = leans(camera, 5)[2, 2]
    assert lean[1] < -0.3 and abs(lean[0]) < 0.05  # towards row 1, away from the camera
    cover = castle_cover(camera, 5)
    assert cover[2, 2, 1, 2] >= 0.3 and cover[2, 2, 3, 2] == 0.0
    assert cover[2, 2, 2, 2] > 0.5


def test_covered_shares_follow_the_lean() -> None:
    assert covered_shares(np.zeros(2))[1, 1] > 0.5 and covered_shares(np.zeros(2)).sum() < 0.9
    shares = covered_shares(np.array([0.0, 0.6]))
    assert shares[2, 1] > 0.3 and shares[0, 1] == 0.0 and shares[1, 0] == 0.0


def test_every_square_s_cover_is_its_silhouette_s_share_of_each_neighbour() -> None:
    homography, *_ = pinhole(1500.0, 30.0, 0.7)
    camera = camera_from_homography(homography, (HEIGHT, WIDTH))
    lean, cover = leans(camera, 5), castle_cover(camera, 5)  # all squares' outlines made at once
    for row, col in [(0, 0), (2, 2), (4, 1), (3, 4)]:
        drawn = silhouette(lean[row, col], (1, 1), 3, RASTER).reshape(3, RASTER, 3, RASTER).mean(axis=(1, 3))
        assert np.array_equal(covered_shares(lean[row, col]), drawn)
        r0, c0 = max(row - 1, 0), max(col - 1, 0)
        shown = drawn[r0 - row + 1 : min(row + 2, 5) - row + 1, c0 - col + 1 : min(col + 2, 5) - col + 1]
        assert np.array_equal(cover[row, col, r0 : row + 2, c0 : col + 2], shown)
        assert cover[row, col].sum() == pytest.approx(shown.sum())  # nothing beyond the neighbours


GRASSLAND = Square(Terrain.GRASSLAND, 0)


def probabilities_with(readings: dict) -> np.ndarray:
    """5×5 probabilities: every square sure of grassland except the given (cell -> {label: p})."""
    probabilities = np.full((5, 5, len(LABELS)), 1e-4)
    probabilities[..., LABEL_INDEX[GRASSLAND]] = 1.0
    for cell, spread in readings.items():
        probabilities[cell] = 1e-4
        for square, p in spread.items():
            probabilities[cell][LABEL_INDEX[square]] = p
    return probabilities / probabilities.sum(axis=-1, keepdims=True)


def leaning_cover() -> np.ndarray:
    """A castle on (2, 2) leans over (1, 2): the camera stands on the rows-below side."""
    cover = np.zeros((5, 5, 5, 5))
    for r in range(5):
        for c in range(5):
            cover[r, c, r, c] = 0.6
            if r > 0:
                cover[r, c, r - 1, c] = 0.45
    return cover


SWAMP, WHEAT = Square(Terrain.SWAMP, 0), Square(Terrain.WHEAT, 0)
CASTLE = Square(Terrain.CASTLE, 0)


def test_a_castle_read_on_the_square_it_leans_over_moves_to_an_unsure_base() -> None:
    probabilities = probabilities_with({(1, 2): {CASTLE: 0.9, WHEAT: 0.1}, (2, 2): {SWAMP: 0.6, WHEAT: 0.4}})
    assert decode_kingdom(probabilities).kingdom[1, 2] == CASTLE  # read alone, the castle is misplaced
    leaning = lean_castle(probabilities, leaning_cover(), CASTLE_LABEL)
    decoded = decode_kingdom(leaning.probabilities)
    assert decoded.kingdom[2, 2] == CASTLE
    assert leaning.hidden[1, 2] >= 0.4


def test_a_castle_stays_where_read_when_the_square_in_front_is_a_sure_terrain() -> None:
    probabilities = probabilities_with({(1, 2): {CASTLE: 0.95, WHEAT: 0.05}, (2, 2): {WHEAT: 0.999}})
    leaning = lean_castle(probabilities, leaning_cover(), CASTLE_LABEL)
    assert decode_kingdom(leaning.probabilities).kingdom[1, 2] == CASTLE


LAKE = Square(Terrain.LAKE, 0)


def test_a_castle_read_on_the_square_it_leans_over_moves_to_the_base_its_silhouette_stands_on() -> None:
    # a blue castle read as a sure lake on its base, and as the castle on the square its walls lean over
    probabilities = probabilities_with({(1, 2): {CASTLE: 0.99, WHEAT: 0.01}, (2, 2): {LAKE: 0.999}})
    assert (
        decode_kingdom(lean_castle(probabilities, leaning_cover(), CASTLE_LABEL).probabilities).kingdom[1, 2]
        == CASTLE
    )  # the reading alone keeps it where it was read
    standing = {(2, 2): 0.9, (1, 2): 0.3}  # the photo shows one object standing on (2, 2)
    leaning = lean_castle(probabilities, leaning_cover(), CASTLE_LABEL, standing)
    assert decode_kingdom(leaning.probabilities).kingdom[2, 2] == CASTLE
    assert leaning.taken[1, 2] > 0.9 and leaning.hidden[1, 2] >= 0.4
    # the silhouette standing on the square it was read on keeps it there
    leaning = lean_castle(probabilities, leaning_cover(), CASTLE_LABEL, {(2, 2): 0.3, (1, 2): 0.9})
    assert decode_kingdom(leaning.probabilities).kingdom[1, 2] == CASTLE


def test_the_square_a_castle_reading_was_taken_from_is_flagged_for_its_own_reason() -> None:
    probabilities = probabilities_with({(1, 2): {CASTLE: 0.99, WHEAT: 0.01}, (2, 2): {LAKE: 0.999}})
    leaning = lean_castle(probabilities, leaning_cover(), CASTLE_LABEL, {(2, 2): 0.9, (1, 2): 0.3})
    decoded = decode_kingdom(leaning.probabilities)
    details = ReadingDetails(probabilities, np.zeros((5, 5)), None, decoded.margins, leaning_cover(), leaning)
    reasons = review_reasons(decoded.kingdom, details, ReadingSettings())
    # the square the walls lean over, read as wheat only from what the castle leaves of it, is checked
    assert reasons["castle_taken"][1, 2] and reasons["castle_taken"].sum() == 1


def leaning_by(share: float) -> np.ndarray:
    """leaning_cover with the castle hiding ``share`` of the square behind its base."""
    cover = leaning_cover()
    cover[cover == 0.45] = share
    return cover


def test_the_silhouette_looks_for_the_base_as_far_as_the_tallest_castle_would_lean() -> None:
    # the castle read on the square its walls lean over, which the lean found from the frame hides too
    # little of for a castle on the base behind: a taller castle (the reach) would hide enough
    probabilities = probabilities_with({(1, 2): {CASTLE: 0.99, WHEAT: 0.01}, (2, 2): {LAKE: 0.999}})
    short, reach = leaning_by(0.12), leaning_by(0.2)
    assert standing_candidates(probabilities, short, CASTLE_LABEL) == []
    assert standing_candidates(probabilities, reach, CASTLE_LABEL) == [(1, 2), (2, 2)]
    standing = {(2, 2): 0.9, (1, 2): 0.3}  # the photo shows one object standing on (2, 2)
    leaning = lean_castle(probabilities, short, CASTLE_LABEL, standing)
    assert decode_kingdom(leaning.probabilities).kingdom[1, 2] == CASTLE
    leaning = lean_castle(probabilities, short, CASTLE_LABEL, standing, reach)
    assert decode_kingdom(leaning.probabilities).kingdom[2, 2] == CASTLE
    # without the silhouette, the reach moves nothing: a sure terrain behind keeps it as before
    leaning = lean_castle(probabilities, short, CASTLE_LABEL, None, leaning_by(0.45))
    assert decode_kingdom(leaning.probabilities).kingdom[1, 2] == CASTLE


def test_a_taller_castle_reaches_further_over_the_square_behind() -> None:
    homography, *_ = pinhole(1700.0, 35.0, math.pi / 2)
    camera = camera_from_homography(homography, (HEIGHT, WIDTH))
    assert castle_cover(camera, 5, CASTLE_TALLEST)[2, 2, 1, 2] > castle_cover(camera, 5)[2, 2, 1, 2]
    assert CASTLE_TALLEST > CASTLE_HEIGHT == ReadingSettings().castle_height


def test_only_squares_read_as_the_castle_and_the_bases_behind_them_are_looked_at() -> None:
    probabilities = probabilities_with({(1, 2): {CASTLE: 0.9, WHEAT: 0.1}})
    assert standing_candidates(probabilities, leaning_cover(), CASTLE_LABEL) == [(1, 2), (2, 2)]
    assert standing_candidates(probabilities_with({}), leaning_cover(), CASTLE_LABEL) == []
    assert standing_candidates(probabilities, np.zeros((5, 5, 5, 5)), CASTLE_LABEL) == []


def test_the_silhouette_of_one_coloured_object_is_evidence_of_it_standing_on_its_base() -> None:
    px, lean = 24, np.zeros((5, 5, 2))
    lean[..., 1] = -0.6  # every top is seen 0.6 squares towards the rows above
    rng = np.random.default_rng(3)
    frame = np.zeros((5 * px, 5 * px, 3), np.uint8)
    for r in range(5):
        for c in range(5):  # artwork: every square its own colour
            frame[r * px : (r + 1) * px, c * px : (c + 1) * px] = rng.integers(0, 256, 3)
    frame[silhouette(lean[2, 2], (2, 2), 5, px).astype(bool)] = (200, 60, 20)  # a blue castle on (2, 2)
    evidence = standing_evidence(frame, lean, [(1, 2), (2, 2), (3, 2)], px)
    assert evidence[(2, 2)] > 0.9 and evidence[(1, 2)] < 0.5 and evidence[(3, 2)] < 0.5
    # an object no different from the print of the square its walls lean over shows nothing standing
    frame[1 * px : 2 * px, 2 * px : 3 * px] = (200, 60, 20)
    assert standing_evidence(frame, lean, [(2, 2)], px)[(2, 2)] < 0.1
    # walls leaning out of the frame: the square's own part is the evidence
    assert standing_evidence(frame, lean, [(0, 2)], px)[(0, 2)] == 1.0


def test_the_castle_square_and_the_square_it_leans_over_are_flagged_when_either_could_be_it() -> None:
    probabilities = probabilities_with({(1, 2): {CASTLE: 0.9, WHEAT: 0.1}, (2, 2): {SWAMP: 0.6, WHEAT: 0.4}})
    cover = leaning_cover()
    leaning = lean_castle(probabilities, cover, CASTLE_LABEL)
    decoded = decode_kingdom(leaning.probabilities)
    details = ReadingDetails(probabilities, np.zeros((5, 5)), None, decoded.margins, cover, leaning)
    flags = review_flags(decoded.kingdom, details, ReadingSettings())
    assert flags[2, 2] and flags[1, 2] and flags.sum() == 2


@pytest.mark.model
def test_a_box_castle_on_a_tilted_photo_leaves_no_misread_square_unflagged() -> None:
    scanner = KingdomScanner()
    for seed, tilt in ((110, 31.0), (104, 24.0)):
        scene = generate_scene(seed, tilt_range=(tilt, tilt), width_range=(0.25, 0.6), distractors=False)
        result = scanner.scan(with_castle(scene, colour=seed % 4))
        truth = scene.upright()[0]
        wrong = [cell for cell, square in truth.cells() if result.kingdom[cell] != square]
        assert all(result.flagged[cell] for cell in wrong), (seed, wrong)
        assert result.kingdom[truth.grid_size // 2, truth.grid_size // 2].terrain == Terrain.CASTLE


def test_a_tile_whose_colours_are_the_table_s_is_flagged_unless_read_surely() -> None:
    probabilities = probabilities_with({(2, 2): {CASTLE: 1.0}})
    decoded = decode_kingdom(probabilities)
    likeness = np.zeros((5, 5))
    likeness[0, 0] = 0.7
    margins = decoded.margins.copy()
    margins[0, 0] = 4.0
    leaning = lean_castle(probabilities, np.zeros((5, 5, 5, 5)), CASTLE_LABEL)
    details = ReadingDetails(
        probabilities, np.zeros((5, 5)), likeness, margins, np.zeros((5, 5, 5, 5)), leaning
    )
    assert review_flags(decoded.kingdom, details, ReadingSettings())[0, 0]
    margins[0, 0] = 9.0
    details = ReadingDetails(
        probabilities, np.zeros((5, 5)), likeness, margins, np.zeros((5, 5, 5, 5)), leaning
    )
    assert not review_flags(decoded.kingdom, details, ReadingSettings()).any()


def test_a_square_read_as_the_table_without_looking_like_it_is_flagged() -> None:
    empty = Square(Terrain.EMPTY, 0)
    probabilities = probabilities_with({(2, 2): {CASTLE: 1.0}, (0, 0): {empty: 1.0}, (4, 4): {empty: 1.0}})
    decoded = decode_kingdom(probabilities)
    assert decoded.kingdom[0, 0] == empty and decoded.kingdom[4, 4] == empty
    likeness = np.zeros((5, 5))
    likeness[4, 4] = 0.9  # (4, 4) shows the table's colours, (0, 0) neither its colours nor its mean
    margins = np.full((5, 5), 12.0)
    no_cover = np.zeros((5, 5, 5, 5))
    leaning = lean_castle(probabilities, no_cover, CASTLE_LABEL)
    details = ReadingDetails(probabilities, np.zeros((5, 5)), likeness, margins, no_cover, leaning)
    flags = review_flags(decoded.kingdom, details, ReadingSettings())
    assert flags[0, 0] and flags.sum() == 1
    evidence = np.zeros((5, 5))
    evidence[0, 0] = 3.0  # its mean colour is the table's
    details = ReadingDetails(probabilities, evidence, likeness, margins, no_cover, leaning)
    assert not review_flags(decoded.kingdom, details, ReadingSettings()).any()
    details = ReadingDetails(probabilities, np.zeros((5, 5)), None, margins, no_cover, leaning)
    assert not review_flags(decoded.kingdom, details, ReadingSettings()).any()  # no table seen


def printed_kingdom(px: int, seed: int = 5) -> np.ndarray:
    """A rectified 5×5 frame of artwork: every square its own colour, with a printed texture."""
    rng = np.random.default_rng(seed)
    frame = np.zeros((5 * px, 5 * px, 3), np.uint8)
    for r in range(5):
        for c in range(5):
            colour = rng.integers(60, 200, 3)
            noise = rng.integers(-12, 13, (px, px, 3))
            frame[r * px : (r + 1) * px, c * px : (c + 1) * px] = np.clip(colour + noise, 0, 255)
    return frame


def test_an_upright_piece_in_a_player_s_colour_is_found_on_its_square_with_the_side_it_leaves_visible() -> (
    None
):
    px, lean = 24, np.zeros((5, 5, 2))
    lean[..., 1] = -0.6  # every top is seen 0.6 squares towards the rows above
    frame = printed_kingdom(px)
    king = silhouette(lean[2, 2], (2, 2), 5, px, inset=0.3, shift=(0.1, 0.0)).astype(bool)
    frame[king] = (180, 80, 230)  # a pink king on (2, 2), a little right of the middle, leaning over (1, 2)
    cells = [(r, c) for r in range(5) for c in range(5)]
    pieces = standing_pieces(frame, lean, cells, px)
    assert list(pieces) == [(2, 2)]
    # the king covers the middle and leans over the rows above: its left side is the widest free one
    assert pieces[(2, 2)].away == (0, -1) and 0.5 < pieces[(2, 2)].share < 0.7
    # its colour, as the silhouette is measured (Lab, lightness weighed), to paint it out of its square
    assert np.allclose(pieces[(2, 2)].colour, weighed_lab((180, 80, 230)), atol=2.0)


def weighed_lab(bgr: tuple[int, int, int]) -> np.ndarray:
    lab = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    return lab * [PIECE_LIGHTNESS, 1.0, 1.0]


def test_a_piece_is_painted_out_of_its_square_and_the_rest_of_the_print_kept() -> None:
    rng = np.random.default_rng(3)
    side = 200
    crop = np.clip(np.array([60, 150, 70]) + rng.integers(-15, 16, (side, side, 3)), 0, 255).astype(np.uint8)
    crop[10:40, 150:190] = (40, 210, 235)  # a yellow crown in a corner
    pink = (180, 80, 230)
    crop[160:185, 15:40] = pink  # a printed object in the piece's colour, apart from it
    cv2.ellipse(crop, (100, 110), (40, 30), 0, 0, 360, pink, -1)  # a pink king seen from above
    footprint = np.zeros((24, 24), bool)
    footprint[9:16, 9:16] = True  # where the silhouette covers the square
    colour = tuple(weighed_lab(pink))
    out = inpainted(*piece_blob(crop, colour, PIECE_LIGHTNESS, 21.0, 128, footprint))
    assert out.shape == (128, 128, 3)

    def pink_pixels(image: np.ndarray) -> np.ndarray:
        lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(float) * [PIECE_LIGHTNESS, 1.0, 1.0]
        return np.linalg.norm(lab - weighed_lab(pink), axis=-1) < 21.0

    assert not pink_pixels(out)[40:100, 30:100].any()  # the king is gone
    middle = out[60:80, 56:72].reshape(-1, 3).mean(axis=0)
    assert np.abs(middle - [60, 150, 70]).max() < 25  # filled in from the green print around it
    small = cv2.resize(crop, (128, 128), interpolation=cv2.INTER_AREA)
    assert np.array_equal(out[8:24, 98:120], small[8:24, 98:120])  # the crown is untouched
    assert np.array_equal(out[104:117, 11:24], small[104:117, 11:24])  # and the object apart from the king
    # without a footprint every pixel of its colour goes; with none of its colour the square is as it was
    assert not pink_pixels(inpainted(*piece_blob(crop, colour, PIECE_LIGHTNESS, 21.0, 128))).any()
    unchanged = inpainted(
        *piece_blob(small, tuple(weighed_lab((250, 0, 0))), PIECE_LIGHTNESS, 21.0, 128, footprint)
    )
    assert np.array_equal(unchanged, small)


def test_a_standing_piece_s_paint_looks_painted_and_an_outlined_printed_object_does_not() -> None:
    side, yellow = 100, (40, 200, 230)
    rng = np.random.default_rng(4)

    def printed_grass() -> np.ndarray:
        grass = np.array([60, 150, 70]) + rng.integers(-15, 16, (side, side, 3))
        return np.clip(grass, 0, 255).astype(np.uint8)

    rows, cols = np.mgrid[:side, :side]
    # a yellow king seen from above: one colour, lit from the upper left, shading smoothly over its body
    king = printed_grass()
    body = (cols - 50) ** 2 / 22**2 + (rows - 52) ** 2 / 26**2 <= 1
    shade = 1.0 - 0.25 * np.clip((cols + rows - 102) / 40, -1, 1)
    king[body] = np.clip(np.multiply.outer(shade[body], yellow), 0, 255).astype(np.uint8)
    # a yellow fish printed on the tile: outlined in dark brown, its tail cut into its shape, its paint
    # brushed in fine strokes
    fish = printed_grass()
    outline = np.array(
        [[20, 50], [35, 34], [60, 36], [72, 48], [86, 32], [84, 68], [72, 54], [60, 66], [35, 66]]
    )
    shape = cv2.fillPoly(np.zeros((side, side), np.uint8), [outline.astype(np.int32)], 1) > 0
    strokes = cv2.GaussianBlur(rng.normal(0.0, 1.0, (side, side)), (0, 0), 1.2)
    strokes = 1.0 + 0.2 * strokes / strokes.std()
    fish[shape] = np.clip(np.multiply.outer(strokes[shape], yellow), 0, 255).astype(np.uint8)
    cv2.polylines(fish, [outline.astype(np.int32)], True, (20, 40, 70), 2)
    footprint = np.zeros((24, 24), bool)
    footprint[8:16, 8:16] = True  # where the silhouette covers the square
    most = ReadingSettings().piece_printed_most
    looks = []
    for crop in (king, fish):
        small, blob = piece_blob(
            cv2.GaussianBlur(crop, (3, 3), 0),
            tuple(weighed_lab(yellow)),
            PIECE_LIGHTNESS,
            21.0,
            128,
            footprint,
        )
        assert np.count_nonzero(blob) > 0.1 * side * side  # both are found as the piece's blob
        looks.append(printed_look(small, blob))
    assert looks[0] <= most / 2 and looks[1] > most
    # a blob too small to tell looks printed: the piece is read from its free side
    tiny = np.zeros((side, side), np.uint8)
    tiny[50:52, 50:52] = 1
    assert printed_look(king, tiny) > most


def test_artwork_keeps_to_its_tile_and_a_colour_the_square_repeats_is_no_piece() -> None:
    px, lean = 24, np.zeros((5, 5, 2))
    lean[..., 1] = -0.6
    frame = printed_kingdom(px)
    # a printed object of one colour in the middle of (2, 2): it stops at the square's edge
    frame[2 * px + 8 : 2 * px + 16, 2 * px + 8 : 2 * px + 16] = (180, 80, 230)
    # a one-coloured upright shape on (3, 3) in the colour its square and the square behind are printed in
    frame[3 * px : 4 * px, 3 * px : 4 * px] = (200, 120, 40)
    frame[2 * px : 3 * px, 3 * px : 4 * px] = (200, 120, 40)
    frame[silhouette(lean[3, 3], (3, 3), 5, px, inset=0.3).astype(bool)] = (205, 118, 45)
    # a castle filling (1, 1) and leaning over (0, 1): the middle of a square that is all one colour
    frame[silhouette(lean[1, 1], (1, 1), 5, px).astype(bool)] = (40, 200, 220)
    # a red roof, the colour of no player's piece, even when it looks upright
    frame[silhouette(lean[3, 1], (3, 1), 5, px, inset=0.34).astype(bool)] = (30, 40, 190)
    assert standing_pieces(frame, lean, [(2, 2), (3, 3), (1, 1), (3, 1)], px) == {}
    frame[silhouette(lean[3, 1], (3, 1), 5, px, inset=0.34).astype(bool)] = (190, 60, 30)  # a blue king
    assert list(standing_pieces(frame, lean, [(2, 2), (3, 3), (1, 1), (3, 1)], px)) == [(3, 1)]


def test_a_castle_model_is_found_where_its_walls_stand_on_its_square_and_lean_over_the_next() -> None:
    px, lean = 24, np.zeros((5, 5, 2))
    lean[..., 1] = -0.6  # every top is seen 0.6 squares towards the rows above
    frame = printed_kingdom(px)
    # a blue castle model on (3, 1), leaning over (2, 1), and a pink king on (1, 3)
    frame[silhouette(lean[3, 1], (3, 1), 5, px).astype(bool)] = (200, 90, 30)
    frame[silhouette(lean[1, 3], (1, 3), 5, px, inset=0.3).astype(bool)] = (180, 80, 230)
    cells = [(r, c) for r in range(5) for c in range(5)]
    assert standing_castles(frame, lean, cells, px) == [(3, 1)]
    # seen from straight above the walls keep to their square, like a one-coloured print: nothing to tell
    assert standing_castles(frame, np.zeros((5, 5, 2)), cells, px) == []
    # a red roof, the colour of no player's castle
    frame[silhouette(lean[3, 1], (3, 1), 5, px).astype(bool)] = (30, 40, 190)
    assert standing_castles(frame, lean, cells, px) == []


def test_a_castle_model_read_as_its_colour_s_terrain_takes_the_castle_odds_and_hides_what_it_leans_over() -> (
    None
):
    lake = Square(Terrain.LAKE, 1)
    probabilities = probabilities_with({(3, 1): {lake: 1.0}})  # castle read nowhere, (3, 1) a sure lake
    cover = leaning_cover()
    leaning = lean_castle(probabilities, cover, CASTLE_LABEL)
    assert castle_cells(decode_kingdom(leaning.probabilities).kingdom) == [(2, 2)]  # the centre's prior
    painted = painted_castles(leaning, cover, [(3, 1)], 6.0)
    odds = painted.probabilities[3, 1, CASTLE_LABEL] / (1.0 - painted.probabilities[3, 1, CASTLE_LABEL])
    castle = probabilities[3, 1, CASTLE_LABEL]  # under the decoder's floor: raised from the floor
    assert odds == pytest.approx(1e-4 * math.exp(6.0) / (1.0 - castle))
    # the rest of the square's reading keeps its proportions; no other square changes
    rest = np.delete(painted.probabilities[3, 1], CASTLE_LABEL) / np.delete(probabilities[3, 1], CASTLE_LABEL)
    assert np.allclose(rest, rest[0])
    unchanged = np.ones((5, 5), dtype=bool)
    unchanged[3, 1] = False
    assert np.allclose(painted.probabilities[unchanged], leaning.probabilities[unchanged])
    assert painted.hidden[2, 1] == pytest.approx(0.45) and leaning.hidden[2, 1] == 0.0
    assert castle_cells(decode_kingdom(painted.probabilities).kingdom) == [(3, 1)]
    # no castle seen: the reading as it was
    assert painted_castles(leaning, cover, [], 6.0) is leaning


def test_a_square_a_piece_stands_on_is_flagged_for_its_own_reason_unless_read_as_the_table() -> None:
    probabilities = probabilities_with({(2, 2): {CASTLE: 1.0}})
    decoded = decode_kingdom(probabilities)
    leaning = lean_castle(probabilities, np.zeros((5, 5, 5, 5)), CASTLE_LABEL)
    pieces = np.zeros((5, 5), bool)
    pieces[0, 0] = pieces[4, 4] = True
    details = ReadingDetails(
        probabilities, np.zeros((5, 5)), None, decoded.margins, np.zeros((5, 5, 5, 5)), leaning, pieces=pieces
    )
    kingdom = decoded.kingdom
    reasons = review_reasons(kingdom, details, ReadingSettings())
    expected = pieces & np.array(
        [[kingdom[r, c].terrain != Terrain.EMPTY for c in range(5)] for r in range(5)]
    )
    assert (reasons["piece"] == expected).all() and expected.any()


def test_a_piece_s_square_keeps_its_whole_reading_where_sure_and_the_free_side_decides_where_not() -> None:
    crowned, plain, forest = Square(Terrain.GRASSLAND, 1), GRASSLAND, Square(Terrain.FOREST, 1)
    one_mine, two_mines = Square(Terrain.MINE, 1), Square(Terrain.MINE, 2)
    whole = probabilities_with(
        {
            (0, 0): {crowned: 0.93, plain: 0.05},
            (0, 1): {forest: 0.55, plain: 0.4},
            (0, 2): {one_mine: 0.46, two_mines: 0.52},
        }
    )
    # the free side does not show the crown under the piece, nor the forest the piece was taken for; on
    # (0, 2) it reads another terrain, but one crown
    free = probabilities_with(
        {
            (0, 0): {plain: 0.97},
            (0, 1): {plain: 0.97},
            (0, 2): {Square(Terrain.SWAMP, 1): 0.99},
            (4, 4): {LAKE: 1.0},
        }
    )
    pieces = np.zeros((5, 5), bool)
    pieces[0, :3] = True
    read = piece_reading(whole, free, pieces)
    assert LABELS[read[0, 0].argmax()] == crowned  # sure: the whole square's crown stays
    assert LABELS[read[0, 1].argmax()] == plain  # unsure of the terrain: the free side decides
    assert (
        LABELS[read[0, 2].argmax()] == one_mine
    )  # sure of the terrain, not of its crowns: the free side counts
    assert np.allclose(read[~pieces], whole[~pieces])  # no piece: the whole reading, whatever else is read
    assert np.allclose(read.sum(axis=-1), 1.0)


def test_crowns_the_free_side_shows_that_a_terrain_cannot_have_leave_its_own_count_standing() -> None:
    # the whole square hesitates between a forest with one crown and one without; the free side reads a swamp
    # with two, a count no forest has: it says nothing of the forest's crowns (nor do its castle's or the
    # table's zero crowns)
    one, none = Square(Terrain.FOREST, 1), Square(Terrain.FOREST, 0)
    for castle in (0.0, 0.05):
        whole = probabilities_with({(0, 0): {one: 0.5, none: 0.45, Square(Terrain.CASTLE, 0): castle}})
        free = probabilities_with({(0, 0): {Square(Terrain.SWAMP, 2): 0.99}})
        pieces = np.zeros((5, 5), bool)
        pieces[0, 0] = True
        read = piece_reading(whole, free, pieces)
        assert LABELS[read[0, 0].argmax()] == one
        assert read[0, 0, LABEL_INDEX[one]] / read[0, 0, LABEL_INDEX[none]] > 1.05


def test_a_piece_moves_no_castle_probability_to_its_square_or_from_it() -> None:
    whole = probabilities_with(
        {(2, 2): {CASTLE: 0.6, LAKE: 0.4}, (3, 2): {CASTLE: 0.01, LAKE: 0.6, GRASSLAND: 0.39}}
    )
    free = probabilities_with({(3, 2): {LAKE: 0.5, GRASSLAND: 0.5}})
    free[3, 2, CASTLE_LABEL] = 0.0  # the free side is read with the castle's label off
    pieces = np.zeros((5, 5), bool)
    pieces[3, 2] = True
    read = piece_reading(whole, free, pieces)
    assert read[3, 2, CASTLE_LABEL] == pytest.approx(whole[3, 2, CASTLE_LABEL])
    hidden = np.where(pieces, 0.6, 0.0)
    softened = soften_hidden(read, hidden, 0.25, 0.5, pieces)
    assert softened[3, 2, CASTLE_LABEL] == pytest.approx(whole[3, 2, CASTLE_LABEL])
    assert softened[3, 2].max() < read[3, 2].max()  # its terrain read less surely, for the box to decide
    # without the piece's rule the softening alone would lift the castle there
    assert soften_hidden(read, hidden, 0.25, 0.5)[3, 2, CASTLE_LABEL] > 3 * whole[3, 2, CASTLE_LABEL]
    leaning = probabilities_with({(2, 2): {CASTLE: 0.9, LAKE: 0.1}})
    combined = with_pieces(leaning, read, pieces)
    assert np.allclose(combined[~pieces], leaning[~pieces])
    assert combined[3, 2, CASTLE_LABEL] == pytest.approx(leaning[3, 2, CASTLE_LABEL])
    assert combined[3, 2].sum() == pytest.approx(1.0)


def test_a_king_beside_the_castle_is_flagged_and_leaves_the_castle_and_its_square_read_right() -> None:
    scanner = KingdomScanner(reading=ReadingSettings(pieces=True))
    scene = generate_scene(104, tilt_range=(25.0, 25.0), width_range=(0.35, 0.6), distractors=False)
    truth, n = scene.upright()[0], scene.kingdom.grid_size
    castle = next(cell for cell, square in scene.kingdom.cells() if square.terrain == Terrain.CASTLE)
    where = np.rot90(np.arange(n * n).reshape(n, n), upright_rotation(scene.corners))  # generated -> upright
    upright = {
        (r, c): tuple(int(v) for v in np.argwhere(where == r * n + c)[0]) for r in range(n) for c in range(n)
    }
    for cell in ((castle[0] + 1, castle[1]), (castle[0], castle[1] - 1)):  # below it, left of it
        result = scanner.scan(with_king(scene, cell, colour=0, image=with_castle(scene, colour=1)))
        assert result.kingdom[upright[castle]].terrain == Terrain.CASTLE
        pieces = result.flag_reasons["review_piece"]
        assert pieces[upright[cell]] and pieces.sum() == 1 and PIECE_NOTE.format(count=1) in result.notes
        assert result.kingdom[upright[cell]] == truth[upright[cell]]
        wrong = [square for square, label in truth.cells() if result.kingdom[square] != label]
        assert all(result.flagged[square] for square in wrong), (cell, wrong)


class CastleSeenOn:
    """The shipped classifier, but reading ``share`` of the castle on the whole square ``cell`` (upright row,
    column) of an N×N frame, as when the top of a castle leaning over it shows there, and the rest as the
    artwork it reads there (its tiles' share, whatever the model makes of the piece standing on it); it
    counts the squares read again from their visible part (the calls with the frame as ``context``)."""

    def __init__(self, classifier, cell: tuple[int, int], n: int, share: float) -> None:
        self.classifier, self.index, self.share = classifier, cell[0] * n + cell[1], share
        self.read_again: list[int] = []

    def predict_proba(self, images, photo: bool = False, context=()) -> np.ndarray:
        read = np.asarray(self.classifier.predict_proba(images, photo=photo, context=context), dtype=float)
        if len(context):
            self.read_again.append(len(images))
        elif len(images) > self.index:  # the whole squares of the frame
            square = read[self.index]
            square[[CASTLE_LABEL, EMPTY_LABEL]] = 0.0
            square *= (1.0 - self.share) / square.sum()
            square[CASTLE_LABEL] = self.share
        return read


def test_a_king_on_a_square_the_castle_leans_over_keeps_the_lean_when_its_neighbours_are_read_again() -> None:
    # a steep view from a corner: the castle leans over two of its side neighbours, one beyond the share that
    # has it read again from its visible part (the second decoding) and one, with a king on it, less
    scene = generate_scene(184, tilt_range=(48.0, 48.0), width_range=(0.35, 0.6), distractors=False)
    truth, n = scene.upright()[0], scene.kingdom.grid_size
    where = np.rot90(np.arange(n * n).reshape(n, n), upright_rotation(scene.corners))  # generated -> upright
    upright = {
        (r, c): tuple(int(v) for v in np.argwhere(where == r * n + c)[0]) for r in range(n) for c in range(n)
    }
    generated = {cell: square for square, cell in upright.items()}
    castle = upright[next(cell for cell, square in scene.kingdom.cells() if square.terrain == Terrain.CASTLE)]
    king = (castle[0], castle[1] + 1)
    settings = ReadingSettings(pieces=True)
    classifier = CastleSeenOn(KingdomScanner().classifier, king, n, share=0.2)
    photo = with_king(scene, generated[king], colour=0, image=with_castle(scene, colour=1))
    result = KingdomScanner(classifier=classifier, reading=settings).scan(photo)
    details = result.details
    # the castle leans over the king's square and over another, read again: the kingdom was decoded twice
    cover = details.cover[castle]
    others = [(castle[0] + dr, castle[1] + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1))]
    again = [
        cell
        for cell in others
        if min(cell) >= 0 and max(cell) < n and cover[cell] >= settings.hidden_flag_share
    ]
    assert 0.1 < cover[king] < settings.hidden_flag_share and again and len(classifier.read_again) >= 2
    assert details.pieces[king] and details.pieces.sum() == 1
    # the lean took the castle off the king's square, and the second decoding does not give it back
    assert details.raw[king][CASTLE_LABEL] > 0.1 > details.leaning.probabilities[king][CASTLE_LABEL]
    assert result.probabilities[king][CASTLE_LABEL] < 0.02
    # what a player needs: the castle on its square, the king's square asked about, every misread flagged
    assert result.kingdom[castle].terrain == Terrain.CASTLE
    pieces = result.flag_reasons["review_piece"]
    assert pieces[king] and pieces.sum() == 1 and PIECE_NOTE.format(count=1) in result.notes
    wrong = [square for square, label in truth.cells() if result.kingdom[square] != label]
    assert all(result.flagged[square] for square in wrong), wrong


def test_the_castle_s_walls_are_painted_out_of_the_square_they_lean_over() -> None:
    px = 96
    rng = np.random.default_rng(3)
    crop = np.clip(rng.integers(70, 110, (px, px, 3)) + [0, 60, 0], 0, 255).astype(np.uint8)  # a green print
    lean = np.array([0.0, -0.6])  # a castle on (2, 2) seen leaning 0.6 squares over (1, 2)
    mask = walls_mask(lean, (2, 2), (1, 2), crop.shape, 0.05)
    # the near side of (1, 2), within the walls' inset from its sides
    assert mask[-1, px // 2] and not mask[-1, 0] and not mask[: px // 3].any()
    assert not walls_mask(lean, (2, 2), (3, 2), crop.shape, 0.05).any()  # the square in front: nothing
    walled = crop.copy()
    walls = walls_mask(lean, (2, 2), (1, 2), crop.shape, 0.0) > 0
    walled[walls] = (190, 60, 30)  # blue walls
    filled = filled_in(walled, mask, 64)
    blue = (filled[..., 0].astype(int) - filled[..., 1]) > 60
    assert not blue.any()  # no wall left
    assert np.array_equal(filled[: px // 3], walled[: px // 3])  # the far side as it was
    assert filled_in(crop, np.zeros((px, px), np.uint8), 64) is crop


def test_a_sure_square_the_castle_hides_is_flagged_when_read_otherwise_with_the_walls_painted_out() -> None:
    probabilities = probabilities_with({(2, 2): {CASTLE: 1.0}})
    decoded = decode_kingdom(probabilities)
    cover = leaning_cover()
    leaning = lean_castle(probabilities, cover, CASTLE_LABEL)
    margins = np.full((5, 5), 12.0)  # every square read sure: the castle's hidden rule flags none
    details = ReadingDetails(probabilities, np.zeros((5, 5)), None, margins, cover, leaning)
    assert not review_flags(decoded.kingdom, details, ReadingSettings()).any()
    unseen = np.zeros((5, 5), dtype=bool)
    unseen[1, 2] = True  # (1, 2), behind the castle, read otherwise without the walls
    details = ReadingDetails(probabilities, np.zeros((5, 5)), None, margins, cover, leaning, unseen=unseen)
    reasons = review_reasons(decoded.kingdom, details, ReadingSettings())
    assert (
        reasons["castle_unseen"][1, 2]
        and review_flags(decoded.kingdom, details, ReadingSettings()).sum() == 1
    )
