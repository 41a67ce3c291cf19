"""The feature table for training and cross-validation: real squares, augmented copies, synthetic tables.

Features are computed once per crop and cached under out/ (git-ignored), one file per feature block, because
augmentation and feature extraction dominate the run time: a new or changed block recomputes only itself
(the augmented crops are regenerated from the same seed). Quarter turns are free (a column permutation,
see features.py).
Every augmented copy keeps the id of its original, so cross-validation can keep both on one side.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs

from kingdomino.board import Terrain
from kingdomino.labels import CASTLE_LABEL, EMPTY_LABEL, LABELS
from model.codebook import thumbnails
from model.crowns import cell_maps
from model.features import (
    BLOCKS,
    SIDE,
    CropViews,
    FeatureConfig,
    block_sizes,
    crown_template_peaks,
    extract_features,
    normalise_crops,
    photo_white_point,
)
from model.training import augment
from model.training.dataset import (
    BOARD_SOURCE,
    CORRECTIONS_FILE,
    DEFAULT_DATA_DIR,
    TILE_SOURCE,
    BoardPhoto,
    SquareSet,
    load_board_squares,
    load_boards,
    load_scene_squares,
    load_tiles,
    scene_digest,
)

SYNTHETIC_SOURCE = "synthetic"
CACHE_DIR = Path(__file__).resolve().parents[2] / "out" / "cache"
TABLE_VERSION = 10  # bump when augmentation changes, to invalidate caches
BLOCK_VERSIONS: dict[str, int] = {}  # bump a block's version when its features change (default 1)
ROW_FIELDS = ("labels", "groups", "sources", "original", "sample", "names", "white_points")


OFF_BY_DEFAULT = ("white_error", "white_kept", "colour_swap")  # plan options left out of to_dict at 0


@dataclass(frozen=True)
class AugmentPlan:
    """How many extra copies each kind of sample gets."""

    board_copies: int = 3
    tile_copies: int = 2
    castle_hue_copies: int = 6
    empty_board_copies: int = 8
    synthetic_empties: int = 900
    seed: int = 7
    # how far a copy's crop is off: single-square crops from other photos are often cut sloppily (a
    # strip of the neighbour, the square turned by 10° or more), so their copies are moved further
    tile_shift: float = 0.12
    tile_degrees: float = 12.0
    board_shift: float = 0.10
    #: train on the squares cut from whole-table scenes of training kingdoms too (dataset.SCENE_FOLDER)
    scenes: bool = True
    #: how far off each copy's photo white is taken, in units of one real photo's colour cast against the
    #: average photo's (0: the copy's own photo's white); see docs/experiments.md, "A white that is off"
    white_error: float = 0.0
    #: the largest share of each copy's own photo cast its white leaves in (a share drawn uniformly up to
    #: it; 0: all taken out); see docs/experiments.md, "A white that is off"
    white_kept: float = 0.0
    #: how far extra copies of grassland and wheat squares move their cast-free colour towards the other
    #: class's mean (a share drawn in [half of it, it]; 0: no such copies), so only the artwork's texture
    #: tells them apart; see docs/experiments.md, "Grassland in wheat's colours"
    colour_swap: float = 0.0

    def to_dict(self) -> dict:
        out = dict(self.__dict__)
        for key in OFF_BY_DEFAULT:  # a plan without them keeps the key it had before
            if not out[key]:
                del out[key]
        return out


DEFAULT_FEATURES = FeatureConfig()
DEFAULT_PLAN = AugmentPlan()


@dataclass
class FeatureTable:
    """Rows of features; ``original`` marks unaugmented real crops, ``sample`` links copies to them.

    The inputs of the learned stages, which are fitted per training set: ``thumbs`` (the crops at 32×32)
    for the patch codebook; ``crown_maps`` (cell maps) and ``crown_peaks`` (crown-template peaks: scores,
    ys, xs) for the crown detector.
    """

    features: np.ndarray
    thumbs: np.ndarray
    crown_maps: np.ndarray
    crown_peaks: np.ndarray
    labels: np.ndarray
    groups: np.ndarray
    sources: np.ndarray
    original: np.ndarray
    sample: np.ndarray
    names: np.ndarray
    build_seconds: float = 0.0  # time it took to augment and extract everything (kept in the cache)
    #: (n, 3) each row's photo white level (features.photo_white_point); None: each row its own photo
    white_points: np.ndarray | None = None


def _rows_key(plan: AugmentPlan, data_dir: Path, corrected: bool = True) -> str:
    """Digest of what the rows (crops and labels) depend on: the label files, the plan, the table version.

    ``corrected=False`` names the table as it was before the label corrections (for older caches).
    """
    corrections = data_dir / CORRECTIONS_FILE
    label_bytes = (data_dir / "labels.json").read_bytes()
    if corrected and corrections.is_file():
        label_bytes += corrections.read_bytes()
    labels_digest = hashlib.sha256(label_bytes).hexdigest()[:12]
    parts = [TABLE_VERSION, plan.to_dict(), labels_digest]
    if plan.scenes:  # a plan without scenes keeps the key it had before they existed
        parts.append(scene_digest(data_dir))
    else:
        parts[1] = {key: value for key, value in plan.to_dict().items() if key != "scenes"}
    text = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _block_versions(config: FeatureConfig) -> dict[str, int]:
    return {name: BLOCK_VERSIONS.get(name, 1) for name in BLOCKS if getattr(config, name)}


def cache_key(config: FeatureConfig, plan: AugmentPlan, data_dir: Path, corrected: bool = True) -> str:
    """Digest of everything the table depends on (the rows and the version of every feature block used)."""
    text = json.dumps([_rows_key(plan, data_dir, corrected), _block_versions(config)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _tag(name: str) -> str:
    return f"{name}-v{BLOCK_VERSIONS.get(name, 1)}"


def _block_path(rows_key: str, name: str) -> Path:
    return CACHE_DIR / f"block-{rows_key}-{_tag(name)}.npy"


STAGE_INPUTS_VERSION = 1  # bump when a learned stage's input (thumbnails, cell maps, peaks) changes


def _stage_inputs_path(rows_key: str) -> Path:
    return CACHE_DIR / f"stage-inputs-{rows_key}-v{STAGE_INPUTS_VERSION}.npz"


def stage_inputs(crops: np.ndarray, batch: int = 1000) -> dict[str, np.ndarray]:
    """What the learned stages need of (n, SIDE, SIDE, 3) crops, computed in batches (label-free)."""
    parts: dict[str, list[np.ndarray]] = {"thumbs": [], "crown_maps": [], "crown_peaks": []}
    for start in range(0, len(crops), batch):
        chunk = CropViews(crops[start : start + batch])  # cell maps and peaks share the white balance
        parts["thumbs"].append(thumbnails(chunk.crops))
        parts["crown_maps"].append(cell_maps(chunk).astype(np.float16))
        parts["crown_peaks"].append(np.stack(crown_template_peaks(chunk), axis=1).astype(np.float32))
    return {name: np.concatenate(values) for name, values in parts.items()}


def _chunk_features(
    crops: np.ndarray, white_points: np.ndarray, config: FeatureConfig
) -> tuple[dict[str, np.ndarray], np.ndarray, float, float]:
    """Stage inputs and features of one chunk of crops, and the seconds each took (runs in a worker)."""
    started = time.perf_counter()
    inputs = stage_inputs(crops)
    inputs_done = time.perf_counter()
    features = (
        extract_features(CropViews(crops, white_points), config)
        if any(config.to_dict().values())
        else np.zeros((len(crops), 0), np.float32)
    )
    return inputs, features, inputs_done - started, time.perf_counter() - inputs_done


def _computed(
    crops: np.ndarray, white_points: np.ndarray, config: FeatureConfig
) -> tuple[dict[str, np.ndarray], np.ndarray, float, float]:
    """(stage inputs, features in ``config``'s blocks, wall seconds of each) of every crop, the crops
    split over the cores (every row is computed from its own crop alone, so the split changes nothing)."""
    started = time.perf_counter()
    chunks = np.array_split(np.arange(len(crops)), max(1, effective_n_jobs(-1)))
    parts = Parallel(n_jobs=len(chunks))(
        delayed(_chunk_features)(crops[chunk], white_points[chunk], config) for chunk in chunks if len(chunk)
    )
    inputs = {name: np.concatenate([part[0][name] for part in parts]) for name in parts[0][0]}
    features = np.concatenate([part[1] for part in parts])
    wall = time.perf_counter() - started
    stage_share = sum(part[2] for part in parts) / max(sum(part[2] + part[3] for part in parts), 1e-9)
    return inputs, features, wall * stage_share, wall * (1 - stage_share)


def _photo_white_points(squares: SquareSet) -> np.ndarray:
    """(n, 3) white level of each real square's photo: a board photo, or all tiles of one source photo."""
    crops = normalise_crops(squares.images)
    photos = np.array(
        [
            name.split("#")[0] if source == BOARD_SOURCE else group
            for name, source, group in zip(squares.names, squares.sources, squares.groups, strict=True)
        ]
    )
    white_points = np.zeros((len(crops), 3), np.float32)
    for photo in np.unique(photos):
        members = np.flatnonzero(photos == photo)
        white_points[members] = photo_white_point(crops[members])
    return white_points


def _moved_crop(
    image: np.ndarray, source: str, name: str, boards: dict, plan: AugmentPlan, rng: np.random.Generator
) -> np.ndarray:
    """A copy of one square cut off its place: again from its board photo, or a tile shifted and turned."""
    if source == BOARD_SOURCE:
        board_name, cell = name.split("#")
        row, col = (int(part) for part in cell.split(","))
        return augment.board_crop(boards[board_name], row, col, 5, rng, plan.board_shift)
    return augment.misalign(image, rng, plan.tile_shift, max_degrees=plan.tile_degrees)


def _augmented_crops(
    squares: SquareSet, boards: dict, plan: AugmentPlan, rng: np.random.Generator, white_points: np.ndarray
) -> tuple[list[np.ndarray], list[int], list[np.ndarray]]:
    """(crops, index of the original sample, photo white level) for every augmented copy: the copy's
    relighting moves its photo's white level as it moves its own pixels."""
    crops, origins, copy_white_points = [], [], []
    for index, (image, label, source, name) in enumerate(
        zip(squares.images, squares.labels, squares.sources, squares.names, strict=True)
    ):
        if source == BOARD_SOURCE:
            copies = plan.empty_board_copies if label == EMPTY_LABEL else plan.board_copies
        else:
            copies = plan.tile_copies
        if label == CASTLE_LABEL:
            copies += plan.castle_hue_copies
        for copy in range(copies):
            crop = _moved_crop(image, source, name, boards, plan, rng)
            if label == CASTLE_LABEL and copy < plan.castle_hue_copies:
                crop = augment.shift_hue(crop, rng.uniform(30, 330))
            crop, levels = augment.relight_with_levels(crop, rng)
            crop = augment.degrade(crop, rng)
            crops.append(augment.rotate90(crop, int(rng.integers(0, 4))))
            origins.append(index)
            copy_white_points.append(levels(white_points[index]))
    return crops, origins, copy_white_points


SWAPPED_TERRAINS = (Terrain.GRASSLAND, Terrain.WHEAT)  # the pair that colour alone confuses


def cast_free_log_colours(images: list[np.ndarray], white_points: np.ndarray) -> np.ndarray:
    """(n, 3) each image's mean BGR colour with its photo's white taken out, in logs."""
    means = np.array([image.reshape(-1, 3).mean(axis=0) for image in images], np.float64).reshape(-1, 3)
    return np.log(np.maximum(means, 1.0)) - np.log(np.maximum(white_points, 1.0))


def colour_swapped_copies(
    squares: SquareSet, boards: dict, plan: AugmentPlan, white_points: np.ndarray
) -> tuple[list[np.ndarray], list[int], list[np.ndarray]]:
    """One extra copy of every grassland and wheat square (returned as ``_augmented_crops`` returns its
    copies), its colour moved towards the other class's mean cast-free colour by a share of
    ``plan.colour_swap``: grassland from a warm photo stays yellow-green with its own white taken out, so only
    the artwork reads it (docs/experiments.md, "Grassland in wheat's colours"); wheat gets the same, so warmth
    does not become grassland's sign."""
    rng = np.random.default_rng(plan.seed + 5)
    terrains = np.array([LABELS[label].terrain for label in squares.labels])
    colours = cast_free_log_colours(squares.images, white_points)
    means = {terrain: colours[terrains == terrain].mean(axis=0) for terrain in SWAPPED_TERRAINS}
    crops, origins, copy_white_points = [], [], []
    for index in np.flatnonzero(np.isin(terrains, SWAPPED_TERRAINS)):
        own = terrains[index]
        other = SWAPPED_TERRAINS[1 - SWAPPED_TERRAINS.index(own)]
        crop = _moved_crop(
            squares.images[index], squares.sources[index], squares.names[index], boards, plan, rng
        )
        share = plan.colour_swap * rng.uniform(0.5, 1.0)
        crop = augment.recolour(crop, share * (means[other] - means[own]))
        crop, levels = augment.relight_with_levels(crop, rng)
        crops.append(augment.rotate90(augment.degrade(crop, rng), int(rng.integers(0, 4))))
        origins.append(int(index))
        copy_white_points.append(levels(white_points[index]))
    return crops, origins, copy_white_points


def _synthetic_empties(
    photos: list,
    squares: SquareSet,
    real_white_points: np.ndarray,
    plan: AugmentPlan,
    rng: np.random.Generator,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Synthetic *empty* squares (a table patch in a real board, or a table square alone) and their photo
    white levels. A table square lies in a kingdom's photo, whose white the tiles set (crown rims, castles),
    so one alone gets the white of a real photo drawn at random (by a generator of its own, so the crops
    stay those of the plan's seed)."""
    board_white = {
        name.split("#")[0]: white
        for name, source, white in zip(squares.names, squares.sources, real_white_points, strict=True)
        if source == BOARD_SOURCE
    }
    photo_whites = np.unique(real_white_points, axis=0)
    white_rng = np.random.default_rng(plan.seed + 1)
    images, whites = [], []
    for index in range(plan.synthetic_empties):
        if index % 2:
            images.append(augment.synthetic_table(rng))
            whites.append(photo_whites[int(white_rng.integers(len(photo_whites)))])
        else:
            photo = photos[int(rng.integers(len(photos)))]
            images.append(augment.empty_in_board(photo.image, 5, rng))
            whites.append(board_white[photo.name])
    out, out_whites = [], []
    for image, white in zip(images, whites, strict=True):
        relit, levels = augment.relight_with_levels(image, rng, 0.5)
        out.append(augment.degrade(relit, rng))
        out_whites.append(levels(white))
    return out, np.asarray(out_whites, np.float32).reshape(-1, 3)


def mistaken_whites(
    white_points: np.ndarray, copies: np.ndarray, photo_whites: np.ndarray, scale: float, seed: int
) -> np.ndarray:
    """``white_points`` with the rows in ``copies`` taken as a wrong estimate would take them: each channel
    times one real photo's colour cast (the chromaticity of one of ``photo_whites`` against their mean),
    drawn at random and raised to ``scale``. One white serves a whole scene, so a square lit
    otherwise (a lamp, a shadow, a cloth's reflection, a tile from another photo) keeps part of its cast;
    with exact whites only, the cast-free colours decide grassland against wheat alone."""
    log_photos = np.log(np.maximum(np.unique(photo_whites, axis=0), 1.0))
    chroma = log_photos - log_photos.mean(axis=1, keepdims=True)
    casts = chroma - chroma.mean(axis=0)
    rng = np.random.default_rng(seed)
    out = np.asarray(white_points, np.float32).copy()
    rows = np.flatnonzero(copies)
    out[rows] *= np.exp(scale * casts[rng.integers(len(casts), size=len(rows))]).astype(np.float32)
    return out


def partial_whites(white_points: np.ndarray, copies: np.ndarray, kept: float, seed: int) -> np.ndarray:
    """``white_points`` with the rows in ``copies`` moved towards grey by a share drawn uniformly in
    [0, ``kept``]: the photo's white then leaves that share of the row's own cast in, as one white for a
    whole scene does on a square lit otherwise (another photo's tile, a lamp, a shadow)."""
    out = np.asarray(white_points, np.float32).copy()
    rows = np.flatnonzero(copies)
    logs = np.log(np.maximum(out[rows], 1.0))
    chroma = logs - logs.mean(axis=1, keepdims=True)
    share = np.random.default_rng(seed).uniform(0.0, kept, size=(len(rows), 1))
    out[rows] = np.exp(logs - share * chroma).astype(np.float32)
    return out


def _scene_rows(
    plan: AugmentPlan, data_dir: Path, first_sample: int
) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    """The squares cut from whole-table scenes as extra rows, like augmented copies without an original:
    grouped with their kingdom (so a fold holds them with its boards), each scene one photo for the white
    level, every square turned by a random quarter (a generator of its own: the other rows stay as they
    were)."""
    squares, photos = load_scene_squares(data_dir) if plan.scenes else (SquareSet(), [])
    photos = np.asarray(photos, dtype=np.int64)
    crops = normalise_crops(squares.images) if len(squares) else np.zeros((0, SIDE, SIDE, 3), np.uint8)
    white_points = np.zeros((len(crops), 3), np.float32)
    for photo in np.unique(photos):
        white_points[photos == photo] = photo_white_point(crops[photos == photo])
    turns = np.random.default_rng(plan.seed + 2).integers(0, 4, len(crops))
    rows = {
        "labels": np.asarray(squares.labels, dtype=np.int64),
        "groups": np.asarray(squares.groups, dtype=str),
        "sources": np.asarray(squares.sources, dtype=str),
        "original": np.zeros(len(crops), bool),
        "sample": first_sample - np.arange(len(crops)),
        "names": np.asarray(squares.names, dtype=str),
        "white_points": white_points,
    }
    return [augment.rotate90(crop, int(turn)) for crop, turn in zip(crops, turns, strict=True)], rows


def _crops_and_rows(
    plan: AugmentPlan, data_dir: Path, verbose: bool
) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    """Every crop of the table (real squares, augmented copies, synthetic tables) and its row fields."""
    rng = np.random.default_rng(plan.seed)
    photos = load_boards(data_dir)
    squares = load_board_squares(photos)
    squares.extend(load_tiles(data_dir))
    if verbose:
        print(f"{len(squares)} real squares; augmenting", flush=True)
    boards = {photo.name: photo.image for photo in photos}
    real_white_points = _photo_white_points(squares)
    copies, origins, copy_white_points = _augmented_crops(squares, boards, plan, rng, real_white_points)
    if plan.colour_swap:  # a generator of its own: the other rows stay those of the plan's seed
        swapped = colour_swapped_copies(squares, boards, plan, real_white_points)
        copies, origins, copy_white_points = (
            old + new for old, new in zip((copies, origins, copy_white_points), swapped, strict=True)
        )
    synthetic, synthetic_white_points = _synthetic_empties(photos, squares, real_white_points, plan, rng)
    n_real, n_copies = len(squares), len(copies)
    origin_index = np.concatenate([np.arange(n_real), np.asarray(origins, dtype=np.int64)])
    groups = np.asarray(squares.groups)[origin_index]
    rows = {
        "labels": np.concatenate(
            [np.asarray(squares.labels)[origin_index], np.full(len(synthetic), EMPTY_LABEL)]
        ),
        "groups": np.concatenate([groups, [f"synthetic-{i}" for i in range(len(synthetic))]]),
        "sources": np.concatenate(
            [np.asarray(squares.sources)[origin_index], [SYNTHETIC_SOURCE] * len(synthetic)]
        ),
        "original": np.concatenate([np.ones(n_real, bool), np.zeros(n_copies + len(synthetic), bool)]),
        "sample": np.concatenate([origin_index, -1 - np.arange(len(synthetic))]),
        "names": np.concatenate([np.asarray(squares.names)[origin_index], [""] * len(synthetic)]),
        "white_points": np.concatenate(
            [
                real_white_points,
                np.asarray(copy_white_points, np.float32).reshape(-1, 3),
                synthetic_white_points,
            ]
        ).astype(np.float32),
    }
    scene_crops, scene_rows = _scene_rows(plan, data_dir, -1 - len(synthetic))
    if len(scene_crops):
        rows = {field: np.concatenate([rows[field], scene_rows[field]]) for field in rows}
        if verbose:
            print(f"{len(scene_crops)} squares of whole-table scenes", flush=True)
    if plan.white_error:  # the real squares keep their own photo's white (cross-validation reads them so)
        rows["white_points"] = mistaken_whites(
            rows["white_points"], ~rows["original"], real_white_points, plan.white_error, plan.seed + 3
        )
    if plan.white_kept:
        rows["white_points"] = partial_whites(
            rows["white_points"], ~rows["original"], plan.white_kept, plan.seed + 4
        )
    return squares.images + copies + synthetic + scene_crops, rows


def build_table(
    config: FeatureConfig = DEFAULT_FEATURES,
    plan: AugmentPlan = DEFAULT_PLAN,
    data_dir: Path = DEFAULT_DATA_DIR,
    use_cache: bool = True,
    verbose: bool = False,
) -> FeatureTable:
    """Features of every real square, its augmented copies and the synthetic tables (cached per block).

    ``build_seconds`` is the time augmentation and every used block took when they were computed.
    """
    rows_key = _rows_key(plan, data_dir)
    rows_path = CACHE_DIR / f"rows-{rows_key}.npz"
    names = [name for name in BLOCKS if getattr(config, name)]
    rows: dict[str, np.ndarray] | None = None
    seconds: dict[str, float] = {}
    blocks: dict[str, np.ndarray] = {}
    inputs: dict[str, np.ndarray] | None = None
    if use_cache and rows_path.exists():
        with np.load(rows_path, allow_pickle=False) as stored:
            rows = {field: stored[field] for field in ROW_FIELDS}
            seconds = json.loads(str(stored["seconds"]))
        for name in names:
            path = _block_path(rows_key, name)
            if path.exists() and _tag(name) in seconds:
                blocks[name] = np.load(path, allow_pickle=False)
        if _stage_inputs_path(rows_key).exists():
            with np.load(_stage_inputs_path(rows_key), allow_pickle=False) as stored:
                inputs = dict(stored)
    missing = [name for name in names if name not in blocks]
    if missing or rows is None or inputs is None:
        started = time.perf_counter()
        crops, rows = _crops_and_rows(plan, data_dir, verbose)
        seconds["augment"] = round(time.perf_counter() - started, 1)
        only = FeatureConfig(**{key: key in missing for key in config.to_dict()})
        inputs, features, stage_seconds, feature_seconds = _computed(
            normalise_crops(crops), rows["white_points"], only
        )
        seconds["stage-inputs"] = round(stage_seconds, 1)
        if use_cache:
            CACHE_DIR.mkdir(parents=True, exist_ok=True)
            np.savez(_stage_inputs_path(rows_key), **inputs)
        share, start = round(feature_seconds / max(len(missing), 1), 1), 0  # one pass for all
        for name, width in block_sizes(only):
            blocks[name], start = features[:, start : start + width], start + width
            seconds[_tag(name)] = share
            if use_cache:
                np.save(_block_path(rows_key, name), blocks[name], allow_pickle=False)
        if verbose:
            print(f"features of {len(missing)} blocks: {share * len(missing):.0f} s", flush=True)
        if use_cache:
            np.savez(rows_path, seconds=json.dumps(seconds), **rows)
    used = ["augment", "stage-inputs"] + [_tag(name) for name in names]
    return FeatureTable(
        features=np.hstack([blocks[name] for name in names]).astype(np.float32),
        **inputs,
        **rows,
        build_seconds=round(sum(seconds.get(key, 0.0) for key in used), 1),
    )


__all__ = ["FeatureTable", "AugmentPlan", "build_table", "SYNTHETIC_SOURCE", "TILE_SOURCE", "BOARD_SOURCE"]


def original_crops(table: FeatureTable, photos: list[BoardPhoto], data_dir: Path) -> np.ndarray:
    """Normalised crops of the table's original (real) squares, in row order, for the re-reading."""
    squares = load_board_squares(photos)
    squares.extend(load_tiles(data_dir))
    if list(squares.names) != list(table.names[table.original]):
        raise RuntimeError("the data directory no longer matches the cached feature table; rebuild it")
    return normalise_crops(squares.images)
