"""The scene generator: deterministic, labels consistent with the picture, conventions respected."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.scenes import generate_scene, rotate_kingdom, scene_truth, with_reflections
from kingdomino.board import Kingdom, Terrain
from scanner.geometry import upright_rotation

SMALL = (800, 600)


def test_same_seed_same_scene_and_other_seed_other_scene() -> None:
    first = generate_scene(3, size=SMALL)
    again = generate_scene(3, size=SMALL)
    other = generate_scene(4, size=SMALL)
    assert np.array_equal(first.image, again.image)
    assert np.array_equal(first.corners, again.corners)
    assert first.kingdom == again.kingdom
    assert not np.array_equal(first.image, other.image)


def test_reflections_whiten_the_kingdom_only_and_are_the_same_each_run() -> None:
    scene = generate_scene(3, size=SMALL)
    glared = with_reflections(scene, 7)
    assert np.array_equal(glared, with_reflections(scene, 7))
    square = np.linalg.norm(scene.corners[1] - scene.corners[0]) / scene.kingdom.grid_size
    near = np.zeros(SMALL[::-1], np.uint8)
    cv2.fillPoly(near, [np.int32(scene.corners)], 1)
    near = cv2.dilate(near, np.ones((int(2 * square),) * 2, np.uint8))  # the kingdom and a square around it
    changed = np.abs(glared.astype(int) - scene.image).max(axis=2) > 0
    assert changed.any() and not (changed & (near == 0)).any()
    assert (glared.astype(int) >= scene.image).all()  # a reflection only adds light


@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_kingdom_is_inside_the_photo_at_the_requested_size(seed: int) -> None:
    scene = generate_scene(seed, size=SMALL, width_range=(0.3, 0.5), tilt_range=(0, 40))
    height, width = scene.image.shape[:2]
    assert (width, height) == SMALL and scene.image.dtype == np.uint8
    assert (
        (scene.corners >= 0).all()
        and (scene.corners[:, 0] <= width).all()
        and (scene.corners[:, 1] <= height).all()
    )
    # the kingdom's side (not its bounding box: it may be turned 45°) is the requested share of the width,
    # give or take the perspective foreshortening
    side = np.linalg.norm(scene.corners - np.roll(scene.corners, -1, axis=0), axis=1).mean()
    assert 0.3 * 0.75 <= side / width <= 0.5 * 1.25
    assert 0 <= scene.params["tilt"] <= 40
    # clockwise on screen (y down): the photo of a table is never mirrored
    a, b, c = scene.corners[:3]
    assert (b - a)[0] * (c - b)[1] - (b - a)[1] * (c - b)[0] > 0


def test_labels_are_a_valid_kingdom_with_one_castle() -> None:
    scene = generate_scene(11, size=SMALL)
    assert isinstance(scene.kingdom, Kingdom) and scene.kingdom.grid_size == 5
    castles = [cell for cell, square in scene.kingdom.cells() if square.terrain == Terrain.CASTLE]
    assert len(castles) == 1


def test_mighty_duel_scene_is_seven_by_seven_with_the_castle_in_the_middle() -> None:
    scene = generate_scene(2, size=SMALL, grid_size=7)
    assert scene.kingdom.grid_size == 7
    assert scene.kingdom[3, 3].terrain == Terrain.CASTLE


def test_upright_truth_follows_the_scanner_convention() -> None:
    scene = generate_scene(7, size=SMALL)
    kingdom, corners = scene.upright()
    assert upright_rotation(corners) == 0
    turns = upright_rotation(scene.corners)
    assert np.allclose(corners[0], scene.corners[turns])
    # the square at the new top-left corner is the one that sat at that corner before
    n = kingdom.grid_size
    old_corner_cells = [(0, 0), (0, n - 1), (n - 1, n - 1), (n - 1, 0)]
    assert kingdom[0, 0] == scene.kingdom[old_corner_cells[turns]]
    truth = scene_truth(scene)
    assert Kingdom.from_dict(truth) == kingdom and len(truth["corners"]) == 4


def test_rotating_four_times_gives_the_kingdom_back() -> None:
    kingdom = generate_scene(1, size=SMALL).kingdom
    turned = kingdom
    for _ in range(4):
        turned = rotate_kingdom(turned, 1)
    assert turned == kingdom
    assert rotate_kingdom(kingdom, 1) != kingdom
