"""The feature table for training and cross-validation: real squares, augmented copies, synthetic tables.

Features are computed once per crop and cached under out/ (git-ignored), because augmentation and feature
extraction dominate the run time; quarter turns are free (a column permutation, see features.py).
Every augmented copy keeps the id of its original, so cross-validation can keep both on one side.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model import augment
from model.dataset import (
    BOARD_SOURCE,
    DEFAULT_DATA_DIR,
    TILE_SOURCE,
    SquareSet,
    load_board_squares,
    load_boards,
    load_tiles,
)
from model.features import FeatureConfig, extract_features
from scanner.kingdom import Square, Terrain
from scanner.reading import LABEL_INDEX

SYNTHETIC_SOURCE = "synthetic"
EMPTY_LABEL = LABEL_INDEX[Square(Terrain.EMPTY, 0)]
CASTLE_LABEL = LABEL_INDEX[Square(Terrain.CASTLE, 0)]
CACHE_DIR = Path(__file__).resolve().parent.parent / "out" / "cache"
TABLE_VERSION = 7  # bump when augmentation changes, to invalidate caches


@dataclass(frozen=True)
class AugmentPlan:
    """How many extra copies each kind of sample gets."""

    board_copies: int = 3
    tile_copies: int = 2
    castle_hue_copies: int = 6
    empty_board_copies: int = 8
    synthetic_empties: int = 900
    seed: int = 7

    def to_dict(self) -> dict:
        return dict(self.__dict__)


DEFAULT_FEATURES = FeatureConfig()
DEFAULT_PLAN = AugmentPlan()


@dataclass
class FeatureTable:
    """Rows of features; ``original`` marks unaugmented real crops, ``sample`` links copies to them."""

    features: np.ndarray
    labels: np.ndarray
    groups: np.ndarray
    sources: np.ndarray
    original: np.ndarray
    sample: np.ndarray
    names: np.ndarray
    build_seconds: float = 0.0  # time it took to augment and extract everything (kept in the cache)


def cache_key(config: FeatureConfig, plan: AugmentPlan, data_dir: Path) -> str:
    """Digest of everything the table depends on (the label file, the configs, the table version)."""
    labels_digest = hashlib.sha256((data_dir / "labels.json").read_bytes()).hexdigest()[:12]
    text = json.dumps([TABLE_VERSION, config.to_dict(), plan.to_dict(), labels_digest], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _augmented_crops(
    squares: SquareSet, boards: dict, plan: AugmentPlan, rng: np.random.Generator
) -> tuple[list[np.ndarray], list[int]]:
    """(crops, index of the original sample) for every augmented copy."""
    crops, origins = [], []
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
            if source == BOARD_SOURCE:
                board_name, cell = name.split("#")
                row, col = (int(part) for part in cell.split(","))
                crop = augment.board_crop(boards[board_name], row, col, 5, rng)
            else:
                crop = augment.misalign(image, rng)
            if label == CASTLE_LABEL and copy < plan.castle_hue_copies:
                crop = augment.shift_hue(crop, rng.uniform(30, 330))
            crop = augment.degrade(augment.relight(crop, rng), rng)
            crops.append(augment.rotate90(crop, int(rng.integers(0, 4))))
            origins.append(index)
    return crops, origins


def build_table(
    config: FeatureConfig = DEFAULT_FEATURES,
    plan: AugmentPlan = DEFAULT_PLAN,
    data_dir: Path = DEFAULT_DATA_DIR,
    use_cache: bool = True,
    verbose: bool = False,
) -> FeatureTable:
    """Features of every real square, its augmented copies and the synthetic tables (cached)."""
    cache = CACHE_DIR / f"table-{cache_key(config, plan, data_dir)}.npz"
    if use_cache and cache.exists():
        with np.load(cache, allow_pickle=False) as stored:
            fields = {field: stored[field] for field in FeatureTable.__dataclass_fields__ if field in stored}
            return FeatureTable(**fields | {"build_seconds": float(fields.get("build_seconds", 0.0))})
    started = time.perf_counter()
    rng = np.random.default_rng(plan.seed)
    photos = load_boards(data_dir)
    squares = load_board_squares(photos)
    squares.extend(load_tiles(data_dir))
    if verbose:
        print(f"{len(squares)} real squares; augmenting", flush=True)
    boards = {photo.name: photo.image for photo in photos}
    copies, origins = _augmented_crops(squares, boards, plan, rng)
    board_images = [photo.image for photo in photos]
    synthetic = [
        augment.synthetic_table(rng)
        if index % 2
        else augment.empty_in_board(board_images[int(rng.integers(len(board_images)))], 5, rng)
        for index in range(plan.synthetic_empties)
    ]
    synthetic = [augment.degrade(augment.relight(image, rng, 0.5), rng) for image in synthetic]
    n_real, n_copies = len(squares), len(copies)
    features = extract_features(squares.images + copies + synthetic, config)
    origin_index = np.concatenate([np.arange(n_real), np.asarray(origins, dtype=np.int64)])
    groups = np.asarray(squares.groups)[origin_index]
    table = FeatureTable(
        features=features,
        labels=np.concatenate(
            [np.asarray(squares.labels)[origin_index], np.full(len(synthetic), EMPTY_LABEL)]
        ),
        groups=np.concatenate([groups, [f"synthetic-{i}" for i in range(len(synthetic))]]),
        sources=np.concatenate(
            [np.asarray(squares.sources)[origin_index], [SYNTHETIC_SOURCE] * len(synthetic)]
        ),
        original=np.concatenate([np.ones(n_real, bool), np.zeros(n_copies + len(synthetic), bool)]),
        sample=np.concatenate([origin_index, -1 - np.arange(len(synthetic))]),
        names=np.concatenate([np.asarray(squares.names)[origin_index], [""] * len(synthetic)]),
        build_seconds=round(time.perf_counter() - started, 1),
    )
    if use_cache:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, **{field: getattr(table, field) for field in FeatureTable.__dataclass_fields__})
    return table


__all__ = ["FeatureTable", "AugmentPlan", "build_table", "SYNTHETIC_SOURCE", "TILE_SOURCE", "BOARD_SOURCE"]
