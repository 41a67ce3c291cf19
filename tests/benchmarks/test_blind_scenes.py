"""The blind generator: a photo with a truth that agrees with itself, the same for the same seed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from benchmarks.blind import kingdoms, scene
from benchmarks.blind.run import classes
from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.dominoes import DOMINOES
from kingdomino.scoring import score_kingdom

pytestmark = pytest.mark.skipif(
    not kingdoms.has_held_out_art(), reason="no held-out board photos or tiles in data/real"
)


@pytest.mark.parametrize("side", [5, 7])
def test_played_kingdoms_are_legal_and_span_their_frame(side):
    rng = np.random.default_rng(side)
    played = kingdoms.play(rng, side)
    grid = played.kingdom
    assert grid.grid_size == side
    assert [s.terrain for _, s in grid.cells()].count(Terrain.CASTLE) == 1
    filled = [(r, c) for (r, c), s in grid.cells() if s.terrain != Terrain.EMPTY]
    assert {r for r, _ in filled} == set(range(side)) and {c for _, c in filled} == set(range(side))
    box = [sorted((d.first, d.second), key=str) for d in DOMINOES]
    for a, b in played.dominoes:
        assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
        assert sorted((grid[a], grid[b]), key=str) in box
    assert len({cell for pair in played.dominoes for cell in pair}) == 2 * len(played.dominoes)


def test_a_scene_is_a_phone_photo_with_consistent_truth():
    jpeg, truth = scene.generate(scene.SPLITS["dev"] + 7)
    photo = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    width, height = truth["conditions"]["size"]
    assert photo.shape[:2] == (height, width) and 7e6 < width * height < 13e6
    n = truth["grid_size"]
    kingdom = Kingdom.from_rows([[Square.from_dict(s) for s in row] for row in truth["grid"]])
    assert kingdom.grid_size == n and score_kingdom(kingdom).base == truth["base_score"]
    corners = np.array(truth["corners"])
    assert corners.shape == (4, 2)
    assert ((corners >= 0) & (corners < [width, height])).all()
    # the frame's corners go round the grid one way, its sides about n squares of the stated size
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    assert 0.4 < sides.mean() / (n * truth["conditions"]["px_per_square"]) < 1.6
    assert len(classes(truth["conditions"])) == 10
    again, same = scene.generate(scene.SPLITS["dev"] + 7)
    assert again == jpeg and same == truth
