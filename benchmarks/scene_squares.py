"""Training material from whole scenes: squares cut from hard table photos of the TRAINING kingdoms.

The classifier learnt from cropped boards and single tiles; in a whole photo it also meets the cardboard
castle leaning over its neighbours, king meeples, strong cloths through the empty squares, warm, cold and
dim light and 40-400 px per square. This data step generates hard scenes (``benchmarks.hard_scenes``) of
the kingdoms the bench model learns from (never ``HELD_OUT_KINGDOMS``), on seeds of their own
(``SCENE_SEEDS``, apart from the bench's dev and held-out ranges), and cuts their squares as the scanner
does at run time: the photo decoded to the scanner's working size, the frame from the scene's truth
corners moved by a locator-sized error, then the scanner's own cut (``scanner.recognizer.kingdom_cut``:
brightened when dark, a small kingdom rectified from the photo decoded in full, a clear motion blur
undone, cut), normalised to the classifier's input size.

A second block (``TILED_SEEDS``) tiles its kingdoms from the spetryk single-square tiles instead
(``scenes.tiled_kingdom``): tiles of hundreds of phone photos, each with its own cast, under the scene's
one light, never a tile of a source photo any bench model holds out (``training_tiles``). Each of their
squares is grouped with its tile's source photo, as that tile's own rows are (``square_groups``).

It writes ``data/real/scene_squares/``: one JPEG per scene with its N×N squares side by side at the
classifier's input size (``model.features.SIDE``, a multiple of the JPEG block, so no square bleeds into
its neighbour) and ``labels.json`` (the truth of every square, the scene's kingdom, class and seed).
``model.training`` reads them as augmented rows grouped with their kingdom; the folder is committed, so
the project trains from a fresh clone without generating anything.

``python -m benchmarks.scene_squares [--count N] [--tiled N]`` regenerates it (same seeds, same squares).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from benchmarks.bench_model import DATA_DIR, HELD_OUT_KINGDOMS, held_out_source_photos
from benchmarks.hard import SPLITS
from benchmarks.hard_scenes import generate_hard_scene
from benchmarks.scenes import TilePool, board_names
from kingdomino.board import Terrain
from model.features import SIDE, normalise_crops
from model.training.dataset import SCENE_DIR, SCENE_LABELS, TILED_KINGDOM, photo_group
from scanner.geometry import frame_homography, upright_rotation
from scanner.imageio import load_photo
from scanner.recognizer import DECODE_MAX_SIDE, full_photo, kingdom_cut

#: Seeds of the training scenes: a range of their own, apart from every split of the hard bench.
SCENE_SEEDS = range(300_000, 301_000)
#: How far the frame is moved off the truth, in squares per corner: the locator's frames on the hard
#: bench's located photos are off by up to a quarter square, most by much less.
CORNER_JITTER = 0.08
JPEG_QUALITY = 92
#: Scenes from this index on always stand the castle on its square (the bench stands it on about half):
#: a castle of each player colour seen at every tilt is the material the classifier lacked most; a blue
#: castle read as a lake (docs/experiments.md, *Castles of every colour in training*).
CASTLE_SCENES_FROM = 144
#: How many scenes ``python -m benchmarks.scene_squares`` writes by default.
SCENE_COUNT = 432
#: Seeds of the scenes tiled from spetryk tiles (a range of their own, apart from SCENE_SEEDS and the
#: benches): kingdoms of hundreds of phone photos, each tile with its own cast, under one white
#: (docs/experiments.md, *Kingdoms tiled from phone tiles*).
TILED_SEEDS = range(301_000, 302_000)
#: How many tiled scenes are written by default (half 5×5, half 7×7; every condition class).
TILED_COUNT = 180


def training_tiles() -> TilePool:
    """The spetryk tiles no bench model holds out: every source photo any bench leaves out of training
    is left out here too, so no bench reads a tile its model learnt from a scene."""
    return TilePool.without(held_out_source_photos())


def tiled_grid_size(seed: int) -> int:
    """5×5 on even seeds, 7×7 on odd ones (the condition classes take turns by nine, so each class meets
    both sizes)."""
    return 7 if seed % 2 else 5


def training_boards(data_dir: Path = DATA_DIR) -> list[str]:
    """The boards of every kingdom the bench model learns from (all but ``HELD_OUT_KINGDOMS``)."""
    labels = json.loads((data_dir / "labels.json").read_text(encoding="utf-8"))["boards"]
    kingdoms = {board["kingdom_id"] for board in labels.values()} - set(HELD_OUT_KINGDOMS)
    return board_names(kingdoms)


def scanner_squares(scene, rng: np.random.Generator) -> tuple[np.ndarray, list]:
    """(N*N, SIDE, SIDE, 3) crops of the scene's squares cut as the scanner cuts them (kingdom_cut), and
    the upright truth of each square (row-major)."""
    kingdom, corners = scene.upright()
    n = kingdom.grid_size
    data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    photo = load_photo(data, max_side=DECODE_MAX_SIDE)
    on_image = corners / photo.to_original(np.ones((1, 2)))[0]
    side = float(np.linalg.norm(on_image - np.roll(on_image, -1, axis=0), axis=1).mean()) / n
    on_image = on_image + rng.uniform(-CORNER_JITTER, CORNER_JITTER, on_image.shape) * side
    homography = frame_homography(on_image, n)
    cut = kingdom_cut(photo.image, homography, n, full=full_photo(data, photo.scale))
    crops = normalise_crops(cut.crops)
    return crops, [square for _, square in kingdom.cells()]


def square_groups(scene) -> list[list[str]] | None:
    """The training group of each square of a tiled scene in the scanner's upright grid: its tile's source
    photo (``photo-<source photo>``, the group of the tile's own rows); an empty square takes the castle
    tile's. None for a scene of a board (its squares go with the kingdom)."""
    photos = scene.params.get("tile_photos")
    if photos is None:
        return None
    n = len(photos)
    cells = list(scene.kingdom.cells())
    castle = next(photos[r][c] for (r, c), square in cells if square.terrain == Terrain.CASTLE)
    grid = np.empty((n, n), dtype=object)
    for (r, c), square in cells:
        grid[r, c] = photo_group(castle if square.terrain == Terrain.EMPTY else photos[r][c])
    return np.rot90(grid, upright_rotation(scene.corners)).tolist()


def mosaic(crops: np.ndarray, n: int) -> np.ndarray:
    """The N*N crops as one N×N image, row by row."""
    return crops.reshape(n, n, SIDE, SIDE, 3).transpose(0, 2, 1, 3, 4).reshape(n * SIDE, n * SIDE, 3)


def _write_labels(out: Path, scenes: dict) -> None:
    description = (
        "Squares cut by the scanner's path from generated hard scenes of the training kingdoms "
        "(python -m benchmarks.scene_squares); each JPEG holds one scene's N×N squares at "
        f"{SIDE} px, row by row."
    )
    (out / SCENE_LABELS).write_text(
        json.dumps({"description": description, "side": SIDE, "scenes": scenes}, indent=1) + "\n",
        encoding="utf-8",
    )


def write_scene_squares(
    out: Path = SCENE_DIR, count: int = SCENE_COUNT, verbose: bool = True, tiled_count: int = TILED_COUNT
) -> Path:
    """Generate ``count`` scenes of the training kingdoms and ``tiled_count`` kingdoms tiled from the
    training tiles, and write their squares to ``out``."""
    seeds = list(SCENE_SEEDS)[:count]
    if set().union(*SPLITS.values()) & set(seeds + list(TILED_SEEDS)):
        raise ValueError("the training scenes' seeds overlap the hard bench's")
    boards = training_boards()
    labels_file = json.loads((DATA_DIR / "labels.json").read_text(encoding="utf-8"))["boards"]
    out.mkdir(parents=True, exist_ok=True)
    done = out / SCENE_LABELS
    scenes = json.loads(done.read_text(encoding="utf-8"))["scenes"] if done.is_file() else {}
    tiled = list(TILED_SEEDS)[:tiled_count]
    pool = training_tiles() if tiled else None
    for index, seed in enumerate(seeds + tiled):
        if f"scene-{seed}.jpg" in scenes:  # each scene depends on its seed alone: a stopped run goes on
            continue
        if seed in TILED_SEEDS:
            scene = generate_hard_scene(
                seed, boards=boards, grid_size=tiled_grid_size(seed), overrides={"castle": True}, tiles=pool
            )
            kingdom_id = TILED_KINGDOM
        else:
            overrides = {"castle": True} if index >= CASTLE_SCENES_FROM else None
            scene = generate_hard_scene(seed, boards=boards, overrides=overrides)
            kingdom_id = labels_file[scene.board]["kingdom_id"]
        if kingdom_id in HELD_OUT_KINGDOMS:
            raise ValueError(f"scene {seed} shows held-out kingdom {kingdom_id}")
        crops, truth = scanner_squares(scene, np.random.default_rng(seed))
        n = int(round(len(truth) ** 0.5))
        name = f"scene-{seed}.jpg"
        cv2.imwrite(str(out / name), mosaic(crops, n), [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        scenes[name] = {
            "seed": seed,
            "board": None if kingdom_id == TILED_KINGDOM else scene.board,
            "kingdom_id": kingdom_id,
            "condition": scene.params["condition"],
            "castle_model": scene.params["castle_model"],
            "tilt": scene.params["tilt"],
            "px_per_square": scene.params["px_per_square"],
            "light": scene.params["light"],
            "table": scene.params["table"],
            "grid": [[truth[r * n + c].to_dict() for c in range(n)] for r in range(n)],
        }
        groups = square_groups(scene)
        if groups is not None:
            scenes[name]["groups"] = groups
        _write_labels(out, scenes)  # after every scene: a run stopped early leaves usable material
        if verbose:
            shown = f"{n}×{n} tiled" if kingdom_id == TILED_KINGDOM else f"{scene.board} ({kingdom_id})"
            print(f"{name}: {shown}, {scene.params['condition']}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.scene_squares", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--count", type=int, default=SCENE_COUNT, help="scenes to generate (first seeds)")
    parser.add_argument("--tiled", type=int, default=TILED_COUNT, help="scenes tiled from spetryk tiles")
    parser.add_argument("--out", type=Path, default=SCENE_DIR)
    args = parser.parse_args(argv)
    if not 1 <= args.count <= len(SCENE_SEEDS):
        print(f"scene squares: --count must be 1 to {len(SCENE_SEEDS)}")
        return 2
    if not 0 <= args.tiled <= len(TILED_SEEDS):
        print(f"scene squares: --tiled must be 0 to {len(TILED_SEEDS)}")
        return 2
    print(f"wrote {write_scene_squares(args.out, args.count, tiled_count=args.tiled)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
