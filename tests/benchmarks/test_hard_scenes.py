"""The hard bench's scene generator: deterministic, every condition class draws, the castle model
stands in 3D, the cutting mat's grid is there. No model is loaded."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from benchmarks.bench_model import DATA_DIR, HELD_OUT_KINGDOMS, held_out_boards, held_out_by_rule
from benchmarks.hard_scenes import (
    CM,
    CONDITIONS,
    SQUARE_PX,
    condition_for_seed,
    cutting_mat,
    generate_hard_scene,
    project_points,
)
from benchmarks.scenes import domino_tiling
from kingdomino.board import Kingdom, Terrain
from kingdomino.labels import LABEL_INDEX, LABELS
from scanner.decode import decode_kingdom

SMALL = (640, 480)


def test_same_seed_same_scene_and_other_seed_other_scene() -> None:
    first = generate_hard_scene(100_003, size=SMALL)
    again = generate_hard_scene(100_003, size=SMALL)
    other = generate_hard_scene(100_012, size=SMALL)  # the same class, another seed
    assert np.array_equal(first.image, again.image)
    assert np.array_equal(first.corners, again.corners) and first.kingdom == again.kingdom
    assert first.params["condition"] == other.params["condition"]
    assert not np.array_equal(first.image, other.image)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_every_condition_class_generates_a_valid_scene(condition: str) -> None:
    scene = generate_hard_scene(100_000, condition=condition, size=SMALL)
    height, width = scene.image.shape[:2]
    assert (width, height) == SMALL and scene.image.dtype == np.uint8
    assert scene.params["condition"] == condition
    assert isinstance(scene.kingdom, Kingdom) and scene.kingdom.grid_size == 5
    assert sum(square.terrain == Terrain.CASTLE for _, square in scene.kingdom.cells()) == 1
    assert (scene.corners >= 0).all() and (scene.corners <= [width, height]).all()
    json.dumps({k: v for k, v in scene.params.items()})  # the runner writes them as they are


def test_classes_take_turns_along_the_seeds() -> None:
    assert [condition_for_seed(100_000 + k) for k in range(len(CONDITIONS))] != [CONDITIONS[0]] * len(
        CONDITIONS
    )
    assert sorted(condition_for_seed(900_000 + k) for k in range(len(CONDITIONS))) == sorted(CONDITIONS)


def test_class_conditions_are_drawn() -> None:
    assert generate_hard_scene(5, condition="castle", size=SMALL).params["castle_model"]
    assert generate_hard_scene(5, condition="mat", size=SMALL).params["table"] in ("mat", "grid")
    assert generate_hard_scene(5, condition="cloth", size=SMALL).params["empty_squares"] >= 2
    assert generate_hard_scene(5, condition="blur", size=SMALL).params["blur_px"] >= 15
    steep = generate_hard_scene(5, condition="steep_dim", size=SMALL).params
    assert steep["tilt"] >= 40 and steep["light"] == "dim"
    assert generate_hard_scene(5, condition="neighbour", size=(1600, 1200)).params["neighbour"] is not None


def test_mighty_duel_scene_is_seven_by_seven_with_the_castle_in_the_middle() -> None:
    scene = generate_hard_scene(100_000, condition="castle", size=SMALL, grid_size=7)
    assert scene.kingdom.grid_size == 7 and scene.kingdom[3, 3].terrain == Terrain.CASTLE


def test_mighty_duel_kingdom_is_laid_from_distinct_box_dominoes() -> None:
    """A player's 7×7 kingdom: every square but the castle is half of a distinct domino of the box, so the
    decoder, which knows the box, finds no square without its domino."""
    scene = generate_hard_scene(100_001, size=SMALL, grid_size=7, overrides={"missing": 0})
    kingdom = scene.kingdom
    probabilities = np.full((7, 7, len(LABELS)), 1e-3)
    for (r, c), square in kingdom.cells():
        probabilities[r, c, LABEL_INDEX[square]] = 1.0
    decoded = decode_kingdom(probabilities)
    assert decoded.kingdom == kingdom and not decoded.orphans.any()
    pairs = domino_tiling(np.random.default_rng(3), 7, (3, 3))
    cells = [cell for pair in pairs for cell in pair]
    assert len(pairs) == 24 and len(set(cells)) == 48 and (3, 3) not in cells
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in pairs)


def test_the_castle_model_leans_over_the_squares_beyond_it_on_a_tilted_camera() -> None:
    settings = {"tilt": 40.0, "px_per_square": 60.0, "meeples": 0, "blur_px": 0.0, "object_shadows": False}
    on = generate_hard_scene(11, condition="castle", size=(1600, 1200), jpeg=False, overrides=settings)
    off = generate_hard_scene(
        11, condition="castle", size=(1600, 1200), jpeg=False, overrides={**settings, "castle": False}
    )
    assert on.params["castle_model"] and not off.params["castle_model"]
    changed = np.abs(on.image.astype(int) - off.image.astype(int)).max(axis=2) > 40
    # the castle square's outline in the photo, from the truth corners of the labelled grid
    corners, n = on.corners, on.kingdom.grid_size
    (row, col), _ = next(cell for cell in on.kingdom.cells() if cell[1].terrain == Terrain.CASTLE)

    def at(u: float, v: float) -> np.ndarray:
        top = corners[0] + u * (corners[1] - corners[0])
        bottom = corners[3] + u * (corners[2] - corners[3])
        return top + v * (bottom - top)

    u0, u1, v0, v1 = col / n, (col + 1) / n, row / n, (row + 1) / n
    square = np.array([at(u0, v0), at(u1, v0), at(u1, v1), at(u0, v1)])
    inside = np.zeros(changed.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.int32(np.round(square)), 1)
    ys, xs = np.nonzero(changed)
    assert len(xs) > 100
    outside = changed & (inside == 0)
    assert outside.sum() > 0.2 * changed.sum()  # the walls show beyond the square they stand on
    # ... on the side away from the camera: where the top of a post on the square's centre projects
    projection = np.array(on.params["camera"]["projection"])
    base_world = np.linalg.lstsq(projection[:, [0, 1, 3]], np.r_[square.mean(0), 1.0], rcond=None)[0]
    base_world = base_world[:2] / base_world[2]
    base, top = project_points(projection, np.array([[*base_world, 0.0], [*base_world, 0.7 * SQUARE_PX]]))
    oy, ox = np.nonzero(outside)
    spill = np.array([ox.mean(), oy.mean()]) - base
    assert spill @ (top - base) > 0


def test_a_cutting_mat_has_its_centimetre_grid_and_rulers() -> None:
    px_per_cm = 12.0
    mat = cutting_mat(np.random.default_rng(1), px_per_cm).astype(float).mean(axis=2)
    height, width = mat.shape
    row = mat[height // 2]
    on_lines = [row[int(k * px_per_cm)] for k in range(5, int(width / px_per_cm) - 5)]
    between = [row[int((k + 0.5) * px_per_cm)] for k in range(5, int(width / px_per_cm) - 5)]
    assert np.median(on_lines) > np.median(between) + 30  # a line every centimetre
    assert mat[:, int(10 * px_per_cm)].mean() > mat[:, int(11 * px_per_cm)].mean()  # thicker every 5 cm
    assert mat[: int(1.5 * px_per_cm)].std() > mat[height // 3 : height // 3 + int(1.5 * px_per_cm)].std() / 2


def test_a_mat_scene_shows_the_grid_around_the_kingdom() -> None:
    settings = {"table": "mat", "px_per_square": 70.0, "meeples": 0, "castle": False, "tilt": 5.0}
    mat = generate_hard_scene(2, condition="mat", size=(1600, 1200), overrides=settings)
    plain = generate_hard_scene(
        2, condition="mat", size=(1600, 1200), overrides={**settings, "table": "plain"}
    )

    def centimetre_energy(scene) -> float:
        # the table just beyond the kingdom's top edge, seen from above at 2 px per world unit
        n = scene.kingdom.grid_size
        frame = np.float32([[0, 0], [n * 200, 0], [n * 200, n * 200], [0, n * 200]])
        to_photo = cv2.getPerspectiveTransform(frame, np.float32(scene.corners))
        shift = np.array([[1, 0, 0], [0, 1, -330], [0, 0, 1]], float)
        patch = cv2.warpPerspective(
            scene.image, to_photo @ shift, (256, 256), flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR
        )
        spectrum = np.abs(np.fft.fftshift(np.fft.fft2(patch.mean(axis=2) - patch.mean())))
        yy, xx = np.mgrid[-128:128, -128:128]
        radius = np.hypot(yy, xx)
        ring = 256 / (2 * CM)  # cycles per patch of a line every centimetre
        return spectrum[np.abs(radius - ring) < 1.5].max() / np.median(spectrum[(radius > 3) & (radius < 60)])

    assert centimetre_energy(mat) > 3 * centimetre_energy(plain)


def test_held_out_kingdoms_follow_the_documented_rule_and_give_the_bench_boards() -> None:
    boards = json.loads((DATA_DIR / "labels.json").read_text())["boards"]
    assert held_out_by_rule([b["kingdom_id"] for b in boards.values()]) == HELD_OUT_KINGDOMS
    names = held_out_boards()
    assert names and all(boards[name]["kingdom_id"] in HELD_OUT_KINGDOMS for name in names)
    assert generate_hard_scene(1, size=SMALL).board in names
