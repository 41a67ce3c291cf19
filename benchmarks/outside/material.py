"""Source material of the outside generator: the real board photos and spetryk tiles, their labels, and
the game's box of dominoes."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import cv2
import numpy as np

DATA = Path(__file__).resolve().parents[2] / "data" / "real"  # the project's copy of the shared data
LAND = ("wheat", "forest", "lake", "grassland", "swamp", "mine")

# The 48 dominoes of the box (game fact): (terrain, crowns), (terrain, crowns)
_W, _F, _L, _G, _S, _M = LAND
BOX = [
    ((_W, 0), (_W, 0)), ((_W, 0), (_W, 0)), ((_F, 0), (_F, 0)), ((_F, 0), (_F, 0)),
    ((_F, 0), (_F, 0)), ((_F, 0), (_F, 0)), ((_L, 0), (_L, 0)), ((_L, 0), (_L, 0)),
    ((_L, 0), (_L, 0)), ((_G, 0), (_G, 0)), ((_G, 0), (_G, 0)), ((_S, 0), (_S, 0)),
    ((_W, 0), (_F, 0)), ((_W, 0), (_L, 0)), ((_W, 0), (_G, 0)), ((_W, 0), (_S, 0)),
    ((_F, 0), (_L, 0)), ((_F, 0), (_G, 0)), ((_W, 1), (_F, 0)), ((_W, 1), (_L, 0)),
    ((_W, 1), (_G, 0)), ((_W, 1), (_S, 0)), ((_W, 1), (_M, 0)), ((_F, 1), (_W, 0)),
    ((_F, 1), (_W, 0)), ((_F, 1), (_W, 0)), ((_F, 1), (_W, 0)), ((_F, 1), (_L, 0)),
    ((_F, 1), (_G, 0)), ((_L, 1), (_W, 0)), ((_L, 1), (_W, 0)), ((_L, 1), (_F, 0)),
    ((_L, 1), (_F, 0)), ((_L, 1), (_F, 0)), ((_L, 1), (_F, 0)), ((_W, 0), (_G, 1)),
    ((_L, 0), (_G, 1)), ((_W, 0), (_S, 1)), ((_G, 0), (_S, 1)), ((_M, 1), (_W, 0)),
    ((_W, 0), (_G, 2)), ((_L, 0), (_G, 2)), ((_W, 0), (_S, 2)), ((_G, 0), (_S, 2)),
    ((_M, 2), (_W, 0)), ((_S, 0), (_M, 2)), ((_S, 0), (_M, 2)), ((_W, 0), (_M, 3)),
]  # fmt: skip

# ----------------------------------------------------------------------------------------------
# source material
# ----------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def labels() -> dict:
    return json.loads((DATA / "labels.json").read_text())["boards"]


@functools.cache
def board_image(name: str) -> np.ndarray:
    image = cv2.imread(str(DATA / "boards" / name), cv2.IMREAD_COLOR)
    if image.shape[:2] != (500, 500):
        image = cv2.resize(image, (500, 500), interpolation=cv2.INTER_AREA)
    return image


def board_names() -> list[str]:
    return sorted(labels(), key=lambda n: int(n.split(".")[0]))


def board_grid(name: str) -> list[list[tuple[str, int]]]:
    return [[(s["terrain"], int(s["crowns"])) for s in row] for row in labels()[name]["grid"]]


@functools.lru_cache(maxsize=1)
def square_index() -> dict:
    """(terrain, crowns) -> list of (board, row, col)."""
    index: dict = {}
    for name in board_names():
        for r, row in enumerate(board_grid(name)):
            for c, label in enumerate(row):
                index.setdefault(label, []).append((name, r, c))
    return index


@functools.lru_cache(maxsize=1)
def spetryk_index() -> dict:
    index = {}
    for folder in sorted((DATA / "tiles_spetryk").iterdir()):
        terrain, crowns = folder.name.rsplit("_", 1)
        index[(terrain, int(crowns))] = sorted(str(p) for p in folder.iterdir())
    return index


def spetryk_paths(label, allowed=None) -> list[str]:
    paths = spetryk_index()[label]
    return paths if allowed is None else [p for p in paths if p in allowed] or paths


def board_square(name: str, r: int, c: int) -> np.ndarray:
    return board_image(name)[r * 100 : (r + 1) * 100, c * 100 : (c + 1) * 100].copy()


def spetryk_square(path: str) -> np.ndarray:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    return cv2.resize(image, (100, 100), interpolation=cv2.INTER_CUBIC)
