"""The outside check's generator (benchmarks/outside): deterministic scenes with a truth that fits them."""

from __future__ import annotations

import cv2
import numpy as np

from benchmarks.outside import gen
from kingdomino.board import Kingdom, Square
from kingdomino.scoring import score_kingdom


def test_a_seed_gives_the_same_photo_and_truth_every_time() -> None:
    first, truth = gen.generate(38)
    again, truth_again = gen.generate(38)
    assert first == again and truth == truth_again


def test_the_truth_frame_lies_in_the_photo_and_scores_its_grid() -> None:
    jpeg, truth = gen.generate(37)
    photo = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    height, width = photo.shape[:2]
    corners = np.array(truth["corners"])
    assert truth["grid_size"] in (5, 7) and len(truth["grid"]) == truth["grid_size"]
    assert ((corners >= 0) & (corners <= [width, height])).all()
    kingdom = Kingdom.from_rows([[Square.from_dict(square) for square in row] for row in truth["grid"]])
    assert truth["base_score"] == score_kingdom(kingdom).base  # the generator's truth, our scoring engine
