"""Independent synthetic "phone photo of a Kingdomino kingdom on a table" generator.

generate(seed) -> (jpeg_bytes, truth)   (deterministic in the seed)

truth = {
  "seed", "grid_size", "grid": [[{"terrain","crowns"}]*N]*N,
  "corners": [[x,y]*4]  TL, TR, BR, BL of the N x N grid (grid's own orientation), photo pixels,
  "base_score", "width", "height", "conditions": {...}
}

The scene is rendered with a pinhole camera over a 3-D table: the table plane is z=0, tiles are
prisms of height h (tops at z=h, cardboard sides drawn where they face the camera), each domino is
placed with its own seam/jitter, objects cast short soft shadows, then light and camera effects are
applied in photo space and the result is JPEG-encoded.

CLI:  python -m benchmarks.outside.gen SEED [SEED ...] [--out DIR] [--draw] [--hard]   writes DIR/SEED.jpg, DIR/SEED.json
(--draw: also DIR/SEED_truth.png, a downscaled copy with the truth corners drawn; --hard: the hard tables
of benchmarks/outside/hard.py)
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
from pathlib import Path
from types import SimpleNamespace

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

SIZES = [
    (4032, 3024), (4000, 3000), (3264, 2448), (4032, 2268), (3000, 3000), (2592, 1944),
    (2048, 1536), (1920, 1440), (1920, 1080), (1600, 1200), (1280, 960), (1200, 900),
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


# ----------------------------------------------------------------------------------------------
# kingdom composition (labels, square textures, domino pieces)
# ----------------------------------------------------------------------------------------------


def _pair_key(a, b):
    return tuple(sorted([a, b]))


BOX_PAIRS: dict = {}
for _a, _b in BOX:
    BOX_PAIRS[_pair_key(_a, _b)] = BOX_PAIRS.get(_pair_key(_a, _b), 0) + 1


def box_tiling(grid, rng, attempts=30):
    """Pieces (list of cell lists) covering the land squares of a labelled grid with box dominoes.
    Castle = single piece, empties not covered. Falls back to a random greedy pairing."""
    n = len(grid)
    cells = [(r, c) for r in range(n) for c in range(n) if grid[r][c][0] in LAND]
    best = None
    for _ in range(attempts):
        order = list(cells)
        used: dict = {}
        assign: dict = {}
        budget = [20000]

        def solve(i):
            budget[0] -= 1
            if budget[0] < 0:
                return False
            while i < len(order) and order[i] in assign:
                i += 1
            if i == len(order):
                return True
            r, c = order[i]
            nbrs = [(r, c + 1), (r + 1, c)]
            rng.shuffle(nbrs)
            for rr, cc in nbrs:
                if (rr, cc) not in assign and (rr, cc) in cellset:
                    key = _pair_key(grid[r][c], grid[rr][cc])
                    if used.get(key, 0) < BOX_PAIRS.get(key, 0):
                        used[key] = used.get(key, 0) + 1
                        assign[(r, c)] = (rr, cc)
                        assign[(rr, cc)] = (r, c)
                        if solve(i + 1):
                            return True
                        used[key] -= 1
                        del assign[(r, c)], assign[(rr, cc)]
            return False

        cellset = set(cells)
        if solve(0):
            best = assign
            break
    pieces = []
    if best is None:  # random greedy pairing
        assign = {}
        order = list(cells)
        rng.shuffle(order)
        for r, c in order:
            if (r, c) in assign:
                continue
            nbrs = [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))]
            nbrs = [p for p in nbrs if p in set(cells) and p not in assign]
            if nbrs:
                p = nbrs[rng.integers(len(nbrs))]
                assign[(r, c)], assign[p] = p, (r, c)
            else:
                assign[(r, c)] = None
        best = assign
    seen = set()
    for cell in sorted(best):
        if cell in seen:
            continue
        other = best[cell]
        if other is None:
            pieces.append([cell])
            seen.add(cell)
        else:
            pieces.append(sorted([cell, other]))
            seen.update([cell, other])
    for r in range(n):
        for c in range(n):
            if grid[r][c][0] == "castle":
                pieces.append([(r, c)])
    return pieces, best is not None


def random_domino_tiling(n, castle, rng):
    """Random tiling of the n x n grid minus the castle cell by dominoes (castle parity even)."""
    filled = np.zeros((n, n), bool)
    filled[castle] = True
    pieces = []

    def solve():
        free = np.argwhere(~filled)
        if len(free) == 0:
            return True
        r, c = free[0]
        opts = [(r, c + 1), (r + 1, c)]
        rng.shuffle(opts)
        for rr, cc in opts:
            if rr < n and cc < n and not filled[rr, cc]:
                filled[r, c] = filled[rr, cc] = True
                pieces.append([(int(r), int(c)), (int(rr), int(cc))])
                if solve():
                    return True
                pieces.pop()
                filled[r, c] = filled[rr, cc] = False
        return False

    assert solve()
    return pieces


def build_kingdom(rng, mode, exclude=(), boards=None, tiles=None):
    """Returns dict(n, grid labels, tex (n x n of 100px BGR or None), pieces, info).
    ``boards`` / ``tiles`` restrict the board images / spetryk tile paths drawn from."""
    names = [b for b in (board_names() if boards is None else boards) if b not in exclude]
    info = {"mode": mode}
    if mode in ("board", "board_rot"):
        name = names[rng.integers(len(names))]
        grid = board_grid(name)
        texs = [[board_square(name, r, c) for c in range(5)] for r in range(5)]
        k = int(rng.integers(1, 4)) if mode == "board_rot" else 0
        if k:
            g = np.empty((5, 5), dtype=object)
            t = np.empty((5, 5), dtype=object)
            for r in range(5):
                for c in range(5):
                    g[r, c] = grid[r][c]
                    t[r, c] = np.ascontiguousarray(np.rot90(texs[r][c], k))
            grid = np.rot90(g, k).tolist()
            texs = np.rot90(t, k).tolist()
        info.update(boards=[name], rot90=k)
        n = 5
        for r in range(n):
            for c in range(n):
                if grid[r][c][0] == "empty":
                    texs[r][c] = None
        pieces, legal = box_tiling(grid, rng)
        info["box_tiling"] = legal
    else:  # tiled from box dominoes: "tiled7" (board squares) or "spetryk5"/"spetryk7" (other-phone tiles)
        n = 7 if mode in ("tiled7", "spetryk7") else 5
        if n == 7:
            castle = [(2, 2), (2, 4), (3, 3), (3, 3), (3, 3), (4, 2), (4, 4)][rng.integers(7)]
        else:
            castle = (2, 2)
        pieces = random_domino_tiling(n, castle, rng)
        dominoes = rng.permutation(len(BOX))[: len(pieces)]
        grid = [[("empty", 0)] * n for _ in range(n)]
        texs = [[None] * n for _ in range(n)]
        grid[castle[0]][castle[1]] = ("castle", 0)
        sources = set()
        if mode == "tiled7":
            favour = list(rng.choice(names, size=3, replace=False))  # most squares from 3 boards (light)
        for piece, d in zip(pieces, dominoes, strict=False):
            halves = list(BOX[d])
            if rng.random() < 0.5:
                halves.reverse()
            k = int(rng.integers(4))
            for (r, c), label in zip(piece, halves, strict=False):
                grid[r][c] = label
                if mode == "tiled7":
                    options = [o for o in square_index()[label] if o[0] in names] or square_index()[label]
                    pref = [o for o in options if o[0] in favour]
                    pick = (pref or options)[rng.integers(len(pref or options))]
                    sources.add(pick[0])
                    texs[r][c] = np.ascontiguousarray(np.rot90(board_square(*pick), k))
                else:
                    paths = spetryk_paths(label, tiles)
                    texs[r][c] = np.ascontiguousarray(
                        np.rot90(spetryk_square(paths[rng.integers(len(paths))]), k)
                    )
        if mode == "tiled7":
            options = [o for o in square_index()[("castle", 0)] if o[0] in names] or square_index()[
                ("castle", 0)
            ]
            pick = options[rng.integers(len(options))]
            texs[castle[0]][castle[1]] = board_square(*pick)
        else:
            paths = spetryk_paths(("castle", 0), tiles)
            texs[castle[0]][castle[1]] = spetryk_square(paths[rng.integers(len(paths))])
        pieces.append([castle])
        info.update(boards=sorted(sources), castle=list(castle))
    return {"n": n, "grid": grid, "tex": texs, "pieces": pieces, "info": info}


def make_incomplete(kingdom, rng):
    """Remove 1-4 squares or a whole domino (table shows; truth empty). Never a whole edge line."""
    n, grid, pieces = kingdom["n"], kingdom["grid"], kingdom["pieces"]
    how = "domino" if rng.random() < 0.45 else "squares"
    for _ in range(40):
        removed = []
        if how == "domino":
            doms = [p for p in pieces if len(p) == 2]
            if not doms:
                how = "squares"
                continue
            # prefer dominoes touching the border (the last ones placed in a game)
            edge = [p for p in doms if any(r in (0, n - 1) or c in (0, n - 1) for r, c in p)]
            pool = edge if (edge and rng.random() < 0.7) else doms
            removed = list(pool[rng.integers(len(pool))])
        else:
            land = [(r, c) for r in range(n) for c in range(n) if grid[r][c][0] in LAND]
            k = int(rng.integers(1, 5))
            edge = [p for p in land if p[0] in (0, n - 1) or p[1] in (0, n - 1)]
            pool = edge if rng.random() < 0.7 else land
            idx = rng.choice(len(pool), size=min(k, len(pool)), replace=False)
            removed = [pool[i] for i in idx]
        empty = np.array(
            [[grid[r][c][0] == "empty" or (r, c) in removed for c in range(n)] for r in range(n)]
        )
        if empty[0].all() or empty[-1].all() or empty[:, 0].all() or empty[:, -1].all():
            continue
        break
    else:
        return None
    for r, c in removed:
        grid[r][c] = ("empty", 0)
        kingdom["tex"][r][c] = None
    new_pieces = []
    for p in pieces:
        keep = [cell for cell in p if cell not in removed]
        if keep:
            new_pieces.append(keep)
    kingdom["pieces"] = new_pieces
    return {"kind": how, "cells": [list(map(int, x)) for x in removed]}


def base_score(grid) -> int:
    n = len(grid)
    seen = set()
    total = 0
    for r in range(n):
        for c in range(n):
            t = grid[r][c][0]
            if (r, c) in seen or t not in LAND:
                continue
            stack, cells, crowns = [(r, c)], 0, 0
            seen.add((r, c))
            while stack:
                a, b = stack.pop()
                cells += 1
                crowns += grid[a][b][1]
                for aa, bb in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1)):
                    if 0 <= aa < n and 0 <= bb < n and (aa, bb) not in seen and grid[aa][bb][0] == t:
                        seen.add((aa, bb))
                        stack.append((aa, bb))
            total += cells * crowns
    return total


# ----------------------------------------------------------------------------------------------
# camera
# ----------------------------------------------------------------------------------------------


class Camera:
    def __init__(self, W, H, f, tilt, azim, roll, target, dist, dx, dy):
        self.W, self.H = W, H
        d = np.array([math.sin(tilt) * math.cos(azim), math.sin(tilt) * math.sin(azim), math.cos(tilt)])
        self.C = np.asarray(target, float) + dist * d
        zc = -d
        xc0 = np.array([-math.sin(azim), math.cos(azim), 0.0])
        yc0 = np.cross(zc, xc0)
        xc = math.cos(roll) * xc0 + math.sin(roll) * yc0
        yc = -math.sin(roll) * xc0 + math.cos(roll) * yc0
        self.R = np.stack([xc, yc, zc])
        self.K = np.array([[f, 0, W / 2 + dx], [0, f, H / 2 + dy], [0, 0, 1.0]])

    def plane(self, z):
        """Homography world (X, Y, 1) on plane height z -> image."""
        M = np.column_stack([[1, 0, 0], [0, 1, 0], np.array([0, 0, z]) - self.C])
        return self.K @ self.R @ M

    def project(self, pts3):
        pts3 = np.asarray(pts3, float).reshape(-1, 3)
        cam = (self.R @ (pts3 - self.C).T).T
        uv = (self.K @ cam.T).T
        return uv[:, :2] / uv[:, 2:3]


def apply_h(H, pts):
    pts = np.asarray(pts, float).reshape(-1, 2)
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return p[:, :2] / p[:, 2:3]


# ----------------------------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------------------------


def sat_separated(a, b, margin=0.0):
    """Convex polygons a, b (k x 2): True when separated by at least `margin` along some edge normal."""
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            nrm = np.array([-e[1], e[0]])
            nrm = nrm / (np.linalg.norm(nrm) + 1e-12)
            pa, pb = a @ nrm, b @ nrm
            if pa.max() + margin <= pb.min() or pb.max() + margin <= pa.min():
                return True
    return False


def rect_world(cx, cy, w, h, theta):
    c, s = math.cos(theta), math.sin(theta)
    # TL, TR, BR, BL of a texture seen from above (world Y points "up" in the texture)
    local = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
    return local @ np.array([[c, s], [-s, c]]) + [cx, cy]


def grid_to_world_matrix(n, theta=0.0, tx=0.0, ty=0.0):
    """3x3: grid (gx right, gy down; 1 unit = 1 square) -> world XY (right-handed, not mirrored).
    theta rotates about the grid centre, then (tx, ty) moves the centre."""
    flip = np.array([[1, 0, -n / 2], [0, -1, n / 2], [0, 0, 1.0]])  # centre at origin, y flipped
    c, s = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    move = np.array([[1, 0, n / 2 + tx], [0, 1, n / 2 + ty], [0, 0, 1.0]])
    return move @ rot @ flip


# ----------------------------------------------------------------------------------------------
# procedural table textures (evaluated at world coordinates of every (reduced) photo pixel)
# ----------------------------------------------------------------------------------------------


class Field:
    def __init__(self, X, Y, rng):
        self.X, self.Y, self.rng = X, Y, rng

    def rot(self, angle):
        c, s = math.cos(angle), math.sin(angle)
        return self.X * c + self.Y * s, -self.X * s + self.Y * c

    def noise(self, sa, sb=None, angle=0.0, octaves=1, gain=0.5):
        sb = sa if sb is None else sb
        a, b = self.rot(angle)
        total = np.zeros_like(a)
        amp, norm = 1.0, 0.0
        for _ in range(octaves):
            amin, amax, bmin, bmax = a.min(), a.max(), b.min(), b.max()
            sa_, sb_ = max(sa, (amax - amin) / 3000), max(sb, (bmax - bmin) / 3000)
            na, nb = int((amax - amin) / sa_) + 5, int((bmax - bmin) / sb_) + 5
            g = self.rng.standard_normal((nb, na)).astype(np.float32)
            mx = ((a - amin) / sa_ + 1).astype(np.float32)
            my = ((b - bmin) / sb_ + 1).astype(np.float32)
            total += amp * cv2.remap(g, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
            norm += amp * amp
            amp *= gain
            sa, sb = sa / 2, sb / 2
        out = total / math.sqrt(norm)
        return out / (out.std() + 1e-6)


def smoothstep(x):
    x = np.clip(x, 0, 1)
    return x * x * (3 - 2 * x)


def wood_texture(F, rng, dark, px_world):
    th = rng.uniform(0, math.pi)
    a, b = F.rot(th)
    pw = rng.uniform(1.2, 4.0)
    tones = rng.normal(0, 1, 4096)
    k = np.floor(b / pw).astype(np.int64) % 4096
    plank = tones[k].astype(np.float32)
    warp = F.noise(rng.uniform(2, 6), rng.uniform(0.3, 0.8), th, octaves=3)
    freq = rng.uniform(2.5, 7)
    t = b * freq + warp * rng.uniform(0.8, 2.2) + plank * 3
    grain = (0.5 + 0.5 * np.sin(2 * math.pi * t)) ** rng.uniform(2, 5)
    fine = F.noise(rng.uniform(0.8, 2.5), rng.uniform(0.01, 0.03), th, octaves=2)
    if dark:
        base = np.array([rng.uniform(18, 45), rng.uniform(32, 70), rng.uniform(50, 105)])
    else:
        base = np.array([rng.uniform(85, 150), rng.uniform(135, 185), rng.uniform(175, 230)])
    shade = (1 + 0.10 * plank) * (1 - rng.uniform(0.15, 0.32) * grain) * (1 + 0.06 * fine)
    d = np.mod(b, pw)
    d = np.minimum(d, pw - d)
    seam = 1 - 0.55 * np.exp(-((d / max(0.02, 1.2 * px_world)) ** 2))
    return base[None, None, :] * (shade * seam)[..., None]


def cloth_weave(F, rng, px_world):
    th = rng.uniform(0, math.pi)
    a, b = F.rot(th)
    p = rng.uniform(0.02, 0.06)
    weave = 0.03 * np.sin(2 * math.pi * a / p) * np.sin(2 * math.pi * b / p)
    wrinkles = F.noise(rng.uniform(2, 6), octaves=2)
    return 1 + weave + rng.uniform(0.03, 0.08) * wrinkles


def random_colour(rng, s_range=(0.3, 0.85), v_range=(0.35, 0.9)):
    h = rng.uniform(0, 180)
    s = rng.uniform(*s_range) * 255
    v = rng.uniform(*v_range) * 255
    hsv = np.uint8([[[h, s, v]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def table_texture(kind, F, rng, px_world):
    shape = F.X.shape
    if kind in ("wood_light", "wood_dark"):
        img = wood_texture(F, rng, kind == "wood_dark", px_world)
    elif kind == "felt":
        col = [
            np.array([40, 105, 35]),
            np.array([110, 60, 20]),
            np.array([35, 35, 120]),
            np.array([80, 80, 80]),
            np.array([40, 30, 90]),
            np.array([60, 90, 20]),
        ][rng.integers(6)]
        col = col * rng.uniform(0.7, 1.3)
        mottle = 1 + 0.06 * F.noise(rng.uniform(0.5, 2.5), octaves=3) + 0.05 * F.noise(0.05, octaves=1)
        img = col[None, None, :] * mottle[..., None]
    elif kind == "white":
        col = np.array([235, 238, 240]) + rng.normal(0, 6, 3)
        img = col[None, None, :] * (1 + 0.025 * F.noise(3, octaves=2))[..., None]
    elif kind == "black":
        col = np.array([28, 28, 30]) + rng.normal(0, 4, 3)
        img = col[None, None, :] * (1 + 0.08 * F.noise(2, octaves=3))[..., None]
    elif kind == "coloured":
        col = random_colour(rng)
        img = col[None, None, :] * (1 + 0.04 * F.noise(3, octaves=2))[..., None]
    elif kind in ("checkered", "gingham"):
        th = rng.uniform(0, math.pi / 2) if rng.random() < 0.7 else 0.0
        a, b = F.rot(th)
        p = rng.uniform(0.3, 1.5)
        c1 = np.array([235, 238, 240]) * rng.uniform(0.9, 1.0)
        c2 = [
            np.array([40, 40, 200]),
            np.array([170, 90, 30]),
            np.array([50, 130, 40]),
            np.array([30, 30, 30]),
            np.array([40, 190, 220]),
        ][rng.integers(5)]
        w = max(px_world, 1e-3) / p
        sa = smoothstep(0.5 + np.sin(math.pi * a / p) * 0.5 / max(w * 3, 0.02))
        sb = smoothstep(0.5 + np.sin(math.pi * b / p) * 0.5 / max(w * 3, 0.02))
        if kind == "checkered":
            m = sa * sb + (1 - sa) * (1 - sb)
        else:
            m = (sa + sb) / 2  # gingham: 0, 0.5, 1
        img = c1[None, None, :] * (1 - m[..., None]) + c2[None, None, :] * m[..., None]
        img = img * cloth_weave(F, rng, px_world)[..., None]
    elif kind == "striped":
        th = rng.uniform(0, math.pi)
        a, b = F.rot(th)
        cols = [np.array([235, 235, 235]), random_colour(rng), random_colour(rng)]
        widths = rng.uniform(0.15, 1.0, size=3)
        period = widths.sum()
        phase = np.mod(b, period)
        idx = np.zeros(shape, np.int64)
        idx[phase > widths[0]] = 1
        idx[phase > widths[0] + widths[1]] = 2
        img = np.stack(cols)[idx]
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.8)
        img = img * cloth_weave(F, rng, px_world)[..., None]
    elif kind == "marble":
        th = rng.uniform(0, math.pi)
        a, b = F.rot(th)
        turb = F.noise(rng.uniform(1.5, 4), octaves=5)
        v = np.abs(np.sin(2 * math.pi * (a * rng.uniform(0.1, 0.4) + rng.uniform(0.6, 1.5) * turb)))
        vein = (1 - v) ** rng.uniform(6, 20)
        base = np.array([228, 230, 232]) * rng.uniform(0.85, 1.0)
        vc = np.array([120, 125, 125]) if rng.random() < 0.7 else np.array([70, 110, 90])
        cloud = 1 + 0.04 * F.noise(2, octaves=3)
        img = (base[None, None, :] * (1 - vein[..., None]) + vc[None, None, :] * vein[..., None]) * cloud[
            ..., None
        ]
    elif kind == "photo_blur":
        k = int(rng.integers(3, 6))
        cols = np.stack([random_colour(rng, (0.1, 0.7), (0.2, 0.95)) for _ in range(k)])
        fields = np.stack([F.noise(rng.uniform(2, 8), octaves=3) for _ in range(k)], -1) * 3
        w = np.exp(fields - fields.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        img = (w[..., None] * cols[None, None]).sum(-2)
    else:
        raise ValueError(kind)
    return img.astype(np.float32)


def blobs_on(img, rng, count, avoid_poly, scale):
    """Blurred ellipses and rectangles (out-of-focus objects on the table), reduced-res image."""
    h, w = img.shape[:2]
    for _ in range(count):
        col = random_colour(rng, (0.0, 0.8), (0.1, 1.0))
        mask = np.zeros((h, w), np.uint8)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ax = rng.uniform(0.05, 0.3) * w
        if rng.random() < 0.5:
            cv2.ellipse(
                mask,
                (int(cx), int(cy)),
                (int(ax), int(ax * rng.uniform(0.3, 1))),
                rng.uniform(0, 180),
                0,
                360,
                255,
                -1,
            )
        else:
            box = cv2.boxPoints(((cx, cy), (ax, ax * rng.uniform(0.3, 1.5)), rng.uniform(0, 90)))
            cv2.fillConvexPoly(mask, box.astype(np.int32), 255)
        m = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), max(1.0, 0.01 * scale))
        img[:] = img * (1 - m[..., None]) + col[None, None] * m[..., None]


# ----------------------------------------------------------------------------------------------
# rendering into the photo (float32 BGR, full size)
# ----------------------------------------------------------------------------------------------


def poly_mask(shape, pts, x0, y0):
    """Anti-aliased filled convex polygon (float32 0..1) in the ROI starting at (x0, y0)."""
    mask = np.zeros(shape, np.uint8)
    p = np.round((np.asarray(pts) - [x0, y0]) * 16).astype(np.int32)
    cv2.fillConvexPoly(mask, p, 255, lineType=cv2.LINE_AA, shift=4)
    return mask.astype(np.float32) / 255


def roi_of(pts, W, H, pad=3):
    x0 = int(max(0, math.floor(pts[:, 0].min()) - pad))
    y0 = int(max(0, math.floor(pts[:, 1].min()) - pad))
    x1 = int(min(W, math.ceil(pts[:, 0].max()) + pad))
    y1 = int(min(H, math.ceil(pts[:, 1].max()) + pad))
    return x0, y0, x1, y1


def fill_poly(img, pts, colour, opacity=1.0):
    H, W = img.shape[:2]
    x0, y0, x1, y1 = roi_of(pts, W, H)
    if x1 <= x0 or y1 <= y0:
        return
    a = poly_mask((y1 - y0, x1 - x0), pts, x0, y0)[..., None] * opacity
    roi = img[y0:y1, x0:x1]
    roi *= 1 - a
    roi += a * np.asarray(colour, np.float32)


SHARPEN_UPSCALED = True


def paste_texture(img, tex, dst):
    """Warp BGR texture (its corners TL,TR,BR,BL) onto the image quad dst (4 x 2)."""
    H, W = img.shape[:2]
    x0, y0, x1, y1 = roi_of(dst, W, H)
    if x1 <= x0 or y1 <= y0:
        return
    th, tw = tex.shape[:2]
    side = max(
        np.linalg.norm(dst[1] - dst[0]),
        np.linalg.norm(dst[2] - dst[1]),
        np.linalg.norm(dst[3] - dst[2]),
        np.linalg.norm(dst[0] - dst[3]),
    )
    scale = side / max(th, tw)
    if scale < 0.7:
        f = max(scale * 1.3, 4 / max(th, tw))
        tex = cv2.resize(tex, (max(2, round(tw * f)), max(2, round(th * f))), interpolation=cv2.INTER_AREA)
        th, tw = tex.shape[:2]
    src = np.float32([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]])
    M = cv2.getPerspectiveTransform(src, np.float32(dst - [x0, y0]))
    upscale = scale * max(th, tw) / max(tex.shape[:2]) if scale >= 0.7 else 1.0
    warped = cv2.warpPerspective(
        tex.astype(np.float32),
        M,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_CUBIC if upscale > 1.3 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if SHARPEN_UPSCALED and upscale > 1.3:
        # a 100 px source square blown up 1.3-5x is softer than a real phone photo at that size:
        # an unsharp mask at the scale of the blow-up restores crisp tile edges and art lines
        blur = cv2.GaussianBlur(warped, (0, 0), 0.5 * upscale)
        warped = np.clip(warped + 0.9 * (warped - blur), 0, 255)
    a = poly_mask((y1 - y0, x1 - x0), dst, x0, y0)[..., None]
    roi = img[y0:y1, x0:x1]
    roi *= 1 - a
    roi += a * warped


class Prism:
    """A flat box: top face quad (world XY, TL,TR,BR,BL of its texture), height, texture, side colour."""

    def __init__(self, quad, height, tex, side_colour, kind):
        self.quad = np.asarray(quad, float)
        self.height = height
        self.tex = tex
        self.side_colour = np.asarray(side_colour, np.float32)
        self.kind = kind

    def draw_shadow(self, mask, cam, light_xy, strength):
        base = np.column_stack([self.quad, np.zeros(4)])
        moved = np.column_stack([self.quad + light_xy * self.height, np.zeros(4)])
        pts = cam.project(np.vstack([base, moved]))
        hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
        H, W = mask.shape
        x0, y0, x1, y1 = roi_of(hull, W, H)
        if x1 <= x0 or y1 <= y0:
            return
        m = poly_mask((y1 - y0, x1 - x0), hull, x0, y0) * strength
        np.maximum(mask[y0:y1, x0:x1], m, out=mask[y0:y1, x0:x1])

    def draw(self, img, cam, light_xy):
        top = np.column_stack([self.quad, np.full(4, self.height)])
        bot = np.column_stack([self.quad, np.zeros(4)])
        centre = self.quad.mean(0)
        ptop, pbot = cam.project(top), cam.project(bot)
        for i in range(4):
            j = (i + 1) % 4
            mid = (self.quad[i] + self.quad[j]) / 2
            e = self.quad[j] - self.quad[i]
            nrm = np.array([e[1], -e[0]])
            if nrm @ (mid - centre) < 0:
                nrm = -nrm
            nrm /= np.linalg.norm(nrm) + 1e-12
            towards_cam = cam.C[:2] - mid
            if nrm @ towards_cam <= 0:
                continue
            lit = 0.55 + 0.45 * max(0.0, float(-nrm @ light_xy / (np.linalg.norm(light_xy) + 1e-9)))
            fill_poly(img, np.array([ptop[i], ptop[j], pbot[j], pbot[i]]), self.side_colour * lit)
        paste_texture(img, self.tex, ptop)


def piece_prisms(kingdom, G, height, seam, jitter_px, px_sq, rng, side_colour):
    """Prisms of one kingdom's pieces; G maps grid -> world XY."""
    prisms = []
    jit = []
    for piece in kingdom["pieces"]:
        rows = [r for r, _ in piece]
        cols = [c for _, c in piece]
        r0, c0 = min(rows), min(cols)
        nr, nc = max(rows) - r0 + 1, max(cols) - c0 + 1
        tex = np.zeros((nr * 100, nc * 100, 3), np.uint8)
        for r, c in piece:
            tex[(r - r0) * 100 : (r - r0 + 1) * 100, (c - c0) * 100 : (c - c0 + 1) * 100] = kingdom["tex"][r][
                c
            ]
        g = seam / 2
        corners = np.array(
            [[c0 + g, r0 + g], [c0 + nc - g, r0 + g], [c0 + nc - g, r0 + nr - g], [c0 + g, r0 + nr - g]]
        )
        if jitter_px > 0:
            ang = math.radians(rng.uniform(-1.0, 1.0) if rng.random() < 0.85 else rng.uniform(-2.0, 2.0))
            shift = rng.uniform(-1, 1, 2)
            shift = shift / (np.linalg.norm(shift) + 1e-9) * rng.uniform(0.3, 1.0) * jitter_px / px_sq
            ctr = corners.mean(0)
            rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
            corners = (corners - ctr) @ rot.T + ctr + shift
            jit.append(math.degrees(ang))
        world = apply_h(G, corners)
        tone = np.clip(side_colour * rng.uniform(0.85, 1.15), 0, 255)
        prisms.append(Prism(world, height, tex, tone, "tile"))
    return prisms, jit


# ----------------------------------------------------------------------------------------------
# the scene
# ----------------------------------------------------------------------------------------------

TALL = ("castle", "meeple")
TABLES = [
    "wood_light",
    "wood_dark",
    "felt",
    "white",
    "black",
    "coloured",
    "checkered",
    "gingham",
    "striped",
    "marble",
    "photo_blur",
]


def choose(rng, options, p=None):
    return options[rng.choice(len(options), p=p)]


def generate(seed: int, overrides: dict | None = None, scene=None):
    """One photo and its truth. ``scene`` (benchmarks.outside.hard.HardScene) takes over the choices it
    names (kingdom, camera, table, light, blur) and adds its objects; without it the photo is the one
    this seed has always given."""
    rng = np.random.default_rng(seed + 7_000_003)
    ov = overrides or {}
    global SHARPEN_UPSCALED
    SHARPEN_UPSCALED = ov.get("sharpen", True)
    cond: dict = {"seed": seed}

    # ---- kingdom
    mode = ov.get("mode") or choose(rng, ["board", "board_rot", "tiled7", "spetryk5"], [0.45, 0.25, 0.2, 0.1])
    if scene is None:
        kingdom = build_kingdom(rng, mode)
    else:
        mode, kingdom = scene.kingdom(rng)
    n = kingdom["n"]
    cond["source"] = mode
    cond["grid_size"] = n
    cond["kingdom"] = kingdom["info"]
    inc = None
    if scene is not None:
        inc = scene.incomplete(kingdom, rng)
    elif ov.get("incomplete", rng.random() < 0.3):
        inc = make_incomplete(kingdom, rng)
    cond["incomplete"] = inc["kind"] if inc else "none"
    cond["removed_cells"] = inc["cells"] if inc else []
    cond["empty_squares"] = sum(kingdom["grid"][r][c][0] == "empty" for r in range(n) for c in range(n))

    # ---- photo & camera
    W, H = SIZES[rng.integers(len(SIZES))]
    if ov.get("size"):
        W, H = ov["size"]
    if rng.random() < 0.35:
        W, H = H, W
    short = min(W, H)
    tilt_class = choose(rng, ["overhead", "mild", "strong"], [0.3, 0.4, 0.3])
    tilt = {"overhead": rng.uniform(0, 5), "mild": rng.uniform(5, 20), "strong": rng.uniform(20, 35)}[
        tilt_class
    ]
    tilt = ov.get("tilt", tilt)
    azim = rng.uniform(0, 360)
    roll = ov.get("roll", rng.uniform(0, 360))
    frac = ov.get("frac", rng.uniform(0.25, 0.80))
    f = rng.uniform(0.7, 0.95) * max(W, H)
    off = rng.uniform(-0.15, 0.15, 2) * [W, H]
    height = rng.uniform(0.05, 0.10)  # tile thickness in squares (~2.5-4.5 mm)
    tall, edge_room = 0.0, 0.02
    if scene is not None:
        W, H, tilt, tilt_class, frac = scene.camera(W, H, n)
        short = min(W, H)
        f = rng.uniform(0.7, 0.95) * max(W, H)
        tall, edge_room = scene.tall, scene.edge_room
    for attempt in range(60):
        dist = f * n / (frac * short)
        cam = Camera(
            W,
            H,
            f,
            math.radians(tilt),
            math.radians(azim),
            math.radians(roll),
            (n / 2, n / 2, 0),
            dist,
            off[0],
            off[1],
        )
        corners3 = [(0, 0), (n, 0), (n, n), (0, n)]
        levels = (0, height) if tall == 0 else (0, height, height + tall)
        pts = cam.project([(x, y, z) for x, y in corners3 for z in levels])
        margin = edge_room * short
        if (
            pts[:, 0].min() > margin
            and pts[:, 1].min() > margin
            and pts[:, 0].max() < W - margin
            and pts[:, 1].max() < H - margin
        ):
            break
        if attempt % 2:
            frac *= 0.96
        else:
            off *= 0.85
    G = grid_to_world_matrix(n)
    Hh = cam.plane(height) @ G
    truth_corners = apply_h(Hh, [(0, 0), (n, 0), (n, n), (0, n)])
    side_px = np.mean([np.linalg.norm(truth_corners[i] - truth_corners[(i + 1) % 4]) for i in range(4)])
    px_sq = side_px / n
    cond.update(
        width=W,
        height=H,
        megapixels=round(W * H / 1e6, 1),
        orientation="portrait" if H > W else "landscape",
        tilt=round(tilt, 1),
        tilt_class=tilt_class,
        azimuth=round(azim, 1),
        roll=round(roll, 1),
        kingdom_frac=round(side_px / short, 3),
        px_per_square=round(px_sq, 1),
        focal=round(f / max(W, H), 2),
        offset=[round(off[0] / W, 3), round(off[1] / H, 3)],
        tile_height=round(height, 3),
        edge_margin_sq=round(
            float(
                min(
                    truth_corners[:, 0].min(),
                    truth_corners[:, 1].min(),
                    W - truth_corners[:, 0].max(),
                    H - truth_corners[:, 1].max(),
                )
                / px_sq
            ),
            2,
        ),
        source_upscale=round(px_sq * min(1.0, 2000 / max(W, H)) / 100, 2),
    )

    # ---- tiles
    seam_px = rng.uniform(1, 4) if rng.random() < 0.75 else 0.0
    jitter_px = rng.uniform(1, 3) if rng.random() < 0.8 else 0.0
    side_colour = np.array([rng.uniform(40, 90)] * 3) + rng.normal(0, 8, 3)
    prisms, jit = piece_prisms(kingdom, G, height, seam_px / px_sq, jitter_px, px_sq, rng, side_colour)
    cond.update(
        seam_px=round(seam_px, 1),
        jitter_px=round(jitter_px, 1),
        max_jitter_deg=round(max([abs(j) for j in jit], default=0), 2),
    )
    kingdom_world = apply_h(G, [(0, 0), (n, 0), (n, n), (0, n)])
    occupied = [kingdom_world]
    clutter = []
    used_boards = set(kingdom["info"].get("boards", []))

    def image_quad_of(world_quad, z):
        return cam.project(np.column_stack([world_quad, np.full(len(world_quad), z)]))

    kingdom_img_poly = cam.project(np.column_stack([np.vstack([kingdom_world] * 2), [0] * 4 + [height] * 4]))
    kingdom_img_poly = cv2.convexHull(kingdom_img_poly.astype(np.float32)).reshape(-1, 2)

    def inside_fraction(world_quad, z=0.0):
        u = np.linspace(0.02, 0.98, 12)
        a, b = np.meshgrid(u, u)
        q = world_quad
        p = (
            q[0] * ((1 - a) * (1 - b))[..., None]
            + q[1] * (a * (1 - b))[..., None]
            + q[2] * (a * b)[..., None]
            + q[3] * ((1 - a) * b)[..., None]
        ).reshape(-1, 2)
        img = cam.project(np.column_stack([p, np.full(len(p), z)]))
        return float(np.mean((img[:, 0] >= 0) & (img[:, 0] < W) & (img[:, 1] >= 0) & (img[:, 1] < H)))

    # loose dominoes
    if ov.get("loose", rng.random() < 0.35):
        count = int(rng.integers(1, 5))
        placed = 0
        for _ in range(count * 15):
            if placed == count:
                break
            name = choose(rng, [b for b in board_names() if b not in used_boards])
            grid = board_grid(name)
            horiz = rng.random() < 0.5
            r, c = int(rng.integers(0, 5 if horiz else 4)), int(rng.integers(0, 4 if horiz else 5))
            r2, c2 = (r, c + 1) if horiz else (r + 1, c)
            if "empty" in (grid[r][c][0], grid[r2][c2][0]):
                continue
            if horiz:
                tex = np.hstack([board_square(name, r, c), board_square(name, r2, c2)])
            else:  # a vertical pair, turned to lie 2 wide
                tex = np.ascontiguousarray(
                    np.rot90(np.vstack([board_square(name, r, c), board_square(name, r2, c2)]), 1)
                )
            aligned = rng.random() < 0.5
            theta = (int(rng.integers(4)) * math.pi / 2) if aligned else rng.uniform(0, 2 * math.pi)
            # position: along a random side of the kingdom, gap 0.3 .. 2.5 squares
            side = int(rng.integers(4))
            gap = rng.uniform(0.3, 2.5)
            along = rng.uniform(-1, n + 1)
            if side == 0:
                cx, cy = along, -gap - 1.0
            elif side == 1:
                cx, cy = n + gap + 1.0, along
            elif side == 2:
                cx, cy = along, n + gap + 1.0
            else:
                cx, cy = -gap - 1.0, along
            quad = rect_world(cx, cy, 2, 1, theta)
            grown = [kingdom_world] + occupied[1:]
            if not all(sat_separated(quad, o, 0.3) for o in grown):
                continue
            if inside_fraction(quad) < 0.6:
                continue
            prisms.append(
                Prism(quad, height, tex, np.clip(side_colour * rng.uniform(0.85, 1.15), 0, 255), "loose")
            )
            occupied.append(quad)
            placed += 1
        if placed:
            clutter.append("loose_dominoes")
            cond["loose_dominoes"] = placed

    # second kingdom partly in view at the photo edge
    if ov.get("second", rng.random() < 0.12):
        other = build_kingdom(rng, "board", exclude=used_boards)
        theta = rng.uniform(0, 2 * math.pi) if rng.random() < 0.5 else rng.uniform(-0.2, 0.2)
        direction = rng.uniform(0, 2 * math.pi)
        ok = False
        for d in np.arange(6.0, 30.0, 0.5):
            tx, ty = d * math.cos(direction), d * math.sin(direction)
            G2 = grid_to_world_matrix(5, theta, tx, ty)
            quad = apply_h(G2, [(0, 0), (5, 0), (5, 5), (0, 5)])
            if not all(sat_separated(quad, o, 1.0) for o in occupied):
                continue
            frac_in = inside_fraction(quad)
            if 0.1 <= frac_in <= 0.55:
                ok = True
                break
            if frac_in < 0.1:
                break
        if ok:
            p2, _ = piece_prisms(other, G2, height, seam_px / px_sq, jitter_px, px_sq, rng, side_colour)
            prisms.extend(p2)
            occupied.append(quad)
            clutter.append("second_kingdom")
            cond["second_kingdom_visible"] = round(frac_in, 2)

    # game box edge
    if ov.get("box", rng.random() < 0.12):
        bw, bh = rng.uniform(4.2, 4.8), rng.uniform(4.2, 4.8)
        box_h = rng.uniform(1.2, 1.6)
        direction = rng.uniform(0, 2 * math.pi)
        theta = rng.uniform(0, 2 * math.pi)
        ok = False
        for d in np.arange(5.0, 40.0, 0.5):
            cx, cy = n / 2 + d * math.cos(direction), n / 2 + d * math.sin(direction)
            quad = rect_world(cx, cy, bw, bh, theta)
            if not all(sat_separated(quad, o, 0.8) for o in occupied):
                continue
            img_pts = cam.project(np.column_stack([np.vstack([quad, quad]), [0] * 4 + [box_h] * 4]))
            hull = cv2.convexHull(img_pts.astype(np.float32)).reshape(-1, 2)
            if not sat_separated(hull, kingdom_img_poly, 0.3 * px_sq):
                continue
            frac_in = inside_fraction(quad, box_h)
            if 0.05 <= frac_in <= 0.45:
                ok = True
                break
            if frac_in < 0.05:
                break
        if ok:
            art = np.zeros((256, 256, 3), np.float32)
            base = [np.array([120, 60, 20]), np.array([40, 120, 200]), np.array([90, 40, 40])][
                rng.integers(3)
            ]
            yy, xx = np.mgrid[0:256, 0:256] / 256.0
            art[:] = base * (0.8 + 0.4 * yy[..., None])
            for _ in range(6):
                cv2.circle(
                    art,
                    (int(rng.integers(256)), int(rng.integers(256))),
                    int(rng.integers(10, 60)),
                    random_colour(rng).tolist(),
                    -1,
                )
            art = np.clip(art, 0, 255).astype(np.uint8)
            cv2.putText(art, "KINGDOMINO", (10, 140), cv2.FONT_HERSHEY_DUPLEX, 1.2, (40, 200, 240), 3)
            art = cv2.GaussianBlur(art, (0, 0), 1.5)
            prisms.append(Prism(quad, box_h, art.astype(np.uint8), base * 0.7, "box"))
            occupied.append(quad)
            clutter.append("game_box")

    if scene is not None:  # the scene's own objects: edge neighbours, the 3-D castle, meeples
        scene.add_objects(
            SimpleNamespace(
                rng=rng, cam=cam, W=W, H=H, n=n, G=G, Hh=Hh, height=height, seam=seam_px / px_sq,
                jitter_px=jitter_px, px_sq=px_sq, side_colour=side_colour, kingdom=kingdom,
                kingdom_world=kingdom_world, kingdom_img_poly=kingdom_img_poly, prisms=prisms,
                occupied=occupied, clutter=clutter, used_boards=used_boards, cond=cond,
                inside_fraction=inside_fraction,
            )
        )  # fmt: skip

    # ---- table
    sr = min(1.0, 2000 / max(W, H))
    wr, hr = max(2, round(W * sr)), max(2, round(H * sr))
    ys, xs = np.mgrid[0:hr, 0:wr].astype(np.float32)
    xs = (xs + 0.5) / sr - 0.5
    ys = (ys + 0.5) / sr - 0.5
    Hinv = np.linalg.inv(cam.plane(0.0))
    den = Hinv[2, 0] * xs + Hinv[2, 1] * ys + Hinv[2, 2]
    X = (Hinv[0, 0] * xs + Hinv[0, 1] * ys + Hinv[0, 2]) / den
    Y = (Hinv[1, 0] * xs + Hinv[1, 1] * ys + Hinv[1, 2]) / den
    X = np.clip(X, -60, 60).astype(np.float32)
    Y = np.clip(Y, -60, 60).astype(np.float32)
    field = Field(X, Y, rng)
    px_world = 1.0 / px_sq / sr  # world units per reduced pixel near the kingdom
    table_kind = ov.get("table") or choose(rng, TABLES)
    if scene is not None:
        table_kind = scene.table_kind or table_kind
    if scene is not None and table_kind in scene.TABLES:
        table = scene.table_texture(table_kind, field, rng, px_world)
    else:
        table = table_texture(table_kind, field, rng, px_world)
    cond["table"] = table_kind
    if table_kind == "photo_blur":
        blobs_on(table, rng, int(rng.integers(3, 9)), None, max(wr, hr))
        table = cv2.GaussianBlur(table, (0, 0), rng.uniform(3, 10) * max(wr, hr) / 1000)
    # mat / cutting board under the kingdom
    mat = "none"
    if scene is not None and not scene.ordinary_mat:
        table, mat = scene.draw_sheet(table, field, rng, px_world, n)
    elif ov.get("mat", rng.random() < 0.22):
        mat = choose(rng, ["cutting_board", "placemat"])
        margin = rng.uniform(0.3, 1.5)
        mt = rng.uniform(-0.15, 0.15) if rng.random() < 0.6 else rng.uniform(0, math.pi)
        mc = np.array([n / 2, n / 2]) + rng.uniform(-0.3, 0.3, 2)
        hw, hh = n / 2 + margin + rng.uniform(0, 0.8), n / 2 + margin + rng.uniform(0, 0.8)
        rad = rng.uniform(0.1, 0.8)
        c, s = math.cos(mt), math.sin(mt)
        lx = (X - mc[0]) * c + (Y - mc[1]) * s
        ly = -(X - mc[0]) * s + (Y - mc[1]) * c
        qx, qy = np.abs(lx) - (hw - rad), np.abs(ly) - (hh - rad)
        sd = (
            np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2) + np.minimum(np.maximum(qx, qy), 0) - rad
        )
        alpha = np.clip(0.5 - sd / max(px_world, 1e-4), 0, 1)
        if mat == "cutting_board":
            mtex = wood_texture(field, rng, rng.random() < 0.25, px_world)
            rim = np.clip(1 - np.exp(-np.maximum(-sd, 0) / 0.06), 0.6, 1)  # darker bevel at the edge
            mtex = mtex * rim[..., None]
        else:
            col = random_colour(rng, (0.05, 0.8), (0.2, 0.95))
            mtex = col[None, None] * cloth_weave(field, rng, px_world)[..., None]
        # soft contact shadow around the mat
        shadow = np.clip(1 - 0.25 * np.exp(-np.maximum(sd, 0) / 0.08), 0, 1)
        table = table * shadow[..., None]
        table = table * (1 - alpha[..., None]) + mtex * alpha[..., None]
    cond["mat"] = mat
    # gentle uneven light on the table
    table *= (1 + 0.04 * field.noise(8, octaves=2))[..., None]
    img = cv2.resize(table, (W, H), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    del table, X, Y, xs, ys, den, field

    # ---- shadows of objects, then objects (far to near)
    light_dir = rng.uniform(0, 2 * math.pi)
    light_len = rng.uniform(0.3, 1.2)
    light_xy = np.array([math.cos(light_dir), math.sin(light_dir)]) * light_len
    smask = np.zeros((H, W), np.float32)
    for p in prisms:
        p.draw_shadow(smask, cam, light_xy, rng.uniform(0.25, 0.45) if p.kind != "box" else 0.4)
    smask = cv2.GaussianBlur(smask, (0, 0), max(1.0, 0.04 * px_sq))
    img *= (1 - smask)[..., None]
    del smask
    # far to near; tall scene objects (castle, meeples) after the flat ones they may lean over
    prisms.sort(key=lambda p: (p.kind in TALL, -np.linalg.norm(np.append(p.quad.mean(0), 0) - cam.C)))
    for p in prisms:
        p.draw(img, cam, light_xy)

    # ---- hand at an edge
    if ov.get("hand", rng.random() < 0.1):
        if draw_hand(img, rng, px_sq, kingdom_img_poly):
            clutter.append("hand")
    cond["clutter"] = clutter or ["none"]

    # ---- light & camera
    light = []
    # soft shadow across part of the kingdom (person / phone)
    if ov.get("shadow", rng.random() < 0.3):
        ctr = truth_corners.mean(0) + rng.uniform(-0.3, 0.3, 2) * side_px
        ang = rng.uniform(0, 2 * math.pi)
        nrm = np.array([math.cos(ang), math.sin(ang)])
        soft = rng.uniform(0.02, 0.2) * side_px
        dark = rng.uniform(0.45, 0.8)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        t = ((xx - ctr[0]) * nrm[0] + (yy - ctr[1]) * nrm[1]) / soft
        m = 1 / (1 + np.exp(-np.clip(t, -30, 30)))
        factor = 1 - (1 - dark) * m
        img *= factor[..., None]
        img[..., 0] *= 1 + 0.06 * m  # shade is bluer
        del yy, xx, t, m, factor
        light.append("part_shadow")
        cond["shadow_darkness"] = round(dark, 2)
    if rng.random() < 0.5:
        strength = rng.uniform(0.1, 0.45)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        r2 = ((xx - W / 2) / (W / 2)) ** 2 + ((yy - H / 2) / (H / 2)) ** 2
        img *= (1 - strength * np.clip(r2 / 2, 0, 1))[..., None]
        light.append("vignette")
        del yy, xx, r2
    if rng.random() < 0.4:
        amp = rng.uniform(0.1, 0.35)
        ang = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        t = ((xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)) / (max(W, H) / 2)
        img *= (1 + amp * t)[..., None]
        light.append("gradient")
        del yy, xx, t
    if ov.get("specular", rng.random() < 0.15):
        for _ in range(int(rng.integers(1, 3))):
            u, v = rng.uniform(0.1, 0.9, 2)
            q = truth_corners
            pt = q[0] * (1 - u) * (1 - v) + q[1] * u * (1 - v) + q[2] * u * v + q[3] * (1 - u) * v
            rad = rng.uniform(0.12, 0.45) * px_sq
            x0, y0, x1, y1 = roi_of(np.array([pt - 4 * rad, pt + 4 * rad]), W, H)
            yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
            g = np.exp(-(((xx - pt[0]) ** 2 + (yy - pt[1]) ** 2 * rng.uniform(0.3, 1)) / (2 * rad * rad)))
            a = rng.uniform(0.7, 1.0) * g
            roi = img[y0:y1, x0:x1]
            roi += a[..., None] * (255 - roi)
        light.append("specular")
    # white balance & exposure
    temp = rng.uniform(-1, 1)
    wb = np.array([1 - 0.18 * temp, 1 + rng.uniform(-0.04, 0.04), 1 + 0.18 * temp], np.float32)
    exposure = math.exp(rng.uniform(math.log(0.5), math.log(1.6)))
    exposure = ov.get("exposure", exposure)
    wb_name = "warm" if temp > 0.35 else "cool" if temp < -0.35 else "neutral"
    if scene is not None:
        wb, exposure, wb_name = scene.light(wb, exposure, wb_name)
    img *= wb * exposure
    cond["white_balance"] = wb_name
    cond["exposure"] = round(exposure, 2)
    cond["exposure_class"] = "dark" if exposure < 0.65 else "bright" if exposure > 1.2 else "normal"
    # blur
    res = max(W, H) / 2000
    blur = "none"
    r = rng.random()
    if scene is not None and scene.blur_px:
        r = 1.0  # the scene's own motion blur replaces the usual one
        img = cv2.filter2D(img, -1, scene.blur_kernel())
        blur = f"motion:{scene.blur_px}"
    if r < 0.25:
        sigma = rng.uniform(0.6, 2.2) * res
        if not ov.get("noblur"):
            img = cv2.GaussianBlur(img, (0, 0), sigma)
        blur = f"defocus:{sigma:.1f}"
    elif r < 0.38:
        length = int(round(rng.uniform(3, 11) * res))
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (length, length))
        k /= k.sum()
        if not ov.get("noblur"):
            img = cv2.filter2D(img, -1, k)
        blur = f"motion:{length}"
    cond["blur"] = blur
    # sensor noise (more in the dark)
    sigma_n = rng.uniform(1, 6) * (1.6 if exposure < 0.65 else 1.0)
    noise = rng.standard_normal((H, W), dtype=np.float32) * sigma_n
    img += noise[..., None]
    noise = rng.standard_normal((H, W, 3), dtype=np.float32) * (sigma_n * 0.4)
    img += noise
    del noise
    cond["noise_sigma"] = round(sigma_n, 1)
    cond["light"] = light or ["plain"]
    out = np.clip(img, 0, 255).astype(np.uint8)
    del img
    if scene is not None:
        cond.update(scene.conditions(cond))
    q = int(ov.get("jpeg", rng.integers(55, 96)))
    cond["jpeg_quality"] = q
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    grid = kingdom["grid"]
    truth = {
        "seed": seed,
        "grid_size": n,
        "grid": [[{"terrain": t, "crowns": int(c)} for t, c in row] for row in grid],
        "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in truth_corners],
        "base_score": base_score(grid),
        "width": W,
        "height": H,
        "conditions": cond,
    }
    return data.tobytes(), truth


def draw_hand(img, rng, px_sq, kingdom_poly):
    H, W = img.shape[:2]
    skin = [
        np.array([150, 175, 225]),
        np.array([115, 145, 195]),
        np.array([70, 95, 135]),
        np.array([130, 160, 215]),
    ][rng.integers(4)] * rng.uniform(0.85, 1.1)
    palm_w = rng.uniform(1.8, 2.4) * px_sq
    for _ in range(10):
        edge = int(rng.integers(4))
        t = rng.uniform(0.15, 0.85)
        out = rng.uniform(0.1, 0.5) * palm_w
        if edge == 0:
            c, inward = np.array([t * W, -out]), np.array([0, 1.0])
        elif edge == 1:
            c, inward = np.array([W + out, t * H]), np.array([-1.0, 0])
        elif edge == 2:
            c, inward = np.array([t * W, H + out]), np.array([0, -1.0])
        else:
            c, inward = np.array([-out, t * H]), np.array([1.0, 0])
        ang = rng.uniform(-0.5, 0.5)
        rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        inward = rot @ inward
        across = np.array([-inward[1], inward[0]])
        parts = [(c, palm_w * 0.55, palm_w * 0.62, inward)]
        flen = palm_w * rng.uniform(0.7, 0.95)
        for i, off in enumerate((-0.36, -0.12, 0.12, 0.36)):
            base = c + inward * palm_w * 0.45 + across * off * palm_w
            fl = flen * (0.8 if i in (0, 3) else 1.0)
            d = inward + across * off * 0.3
            d /= np.linalg.norm(d)
            parts.append((base + d * fl * 0.5, palm_w * 0.1, fl * 0.55, d))
        thumb_d = across * (1 if rng.random() < 0.5 else -1) * 0.8 + inward * 0.6
        thumb_d /= np.linalg.norm(thumb_d)
        parts.append((c + thumb_d * palm_w * 0.7, palm_w * 0.12, palm_w * 0.45, thumb_d))
        allpts = []
        for ctr, a, b, d in parts:
            ang_d = math.degrees(math.atan2(d[1], d[0]))
            poly = cv2.ellipse2Poly((int(ctr[0]), int(ctr[1])), (int(b), int(a)), int(ang_d), 0, 360, 10)
            allpts.append(poly)
        pts = np.vstack(allpts).astype(np.float32)
        hull = cv2.convexHull(pts).reshape(-1, 2)
        if sat_separated(hull, kingdom_poly, 0.2 * px_sq):
            break
    else:
        return False
    x0, y0, x1, y1 = roi_of(np.vstack([pts, pts + [0.3 * px_sq, 0.3 * px_sq]]), W, H, pad=int(0.5 * px_sq))
    if x1 <= x0 or y1 <= y0:
        return False
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for poly in allpts:
        cv2.fillPoly(mask, [poly - [x0, y0]], 255, lineType=cv2.LINE_AA)
    m = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), max(1.0, 0.03 * px_sq))
    sh = cv2.GaussianBlur(np.roll(m, (int(0.15 * px_sq), int(0.1 * px_sq)), (0, 1)), (0, 0), 0.2 * px_sq)
    roi = img[y0:y1, x0:x1]
    roi *= (1 - 0.35 * sh)[..., None]
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    shade = 0.8 + 0.25 * np.clip(((xx - c[0]) * inward[0] + (yy - c[1]) * inward[1]) / (2 * palm_w), 0, 1)
    col = skin[None, None] * shade[..., None]
    roi *= (1 - m)[..., None]
    roi += m[..., None] * col
    return True


def draw_truth(jpeg: bytes, truth: dict, max_side=1200) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    s = max_side / max(image.shape[:2])
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    q = np.array(truth["corners"]) * s
    cv2.polylines(small, [np.round(q).astype(np.int32)], True, (0, 255, 0), 1, cv2.LINE_AA)
    for i, (x, y) in enumerate(q):
        cv2.circle(
            small, (int(x), int(y)), 4, [(0, 0, 255), (0, 255, 255), (255, 0, 0), (255, 0, 255)][i], -1
        )
    return small


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seeds", nargs="+", type=int)
    ap.add_argument("--out", default="out/outside/samples")
    ap.add_argument("--draw", action="store_true")
    ap.add_argument(
        "--hard", action="store_true", help="the hard tables and conditions (benchmarks.outside.hard)"
    )
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for seed in args.seeds:
        if args.hard:
            from benchmarks.outside import hard  # imports this module: loaded only when asked for

            jpeg, truth = hard.generate(seed)
        else:
            jpeg, truth = generate(seed)
        Path(args.out, f"{seed}.jpg").write_bytes(jpeg)
        Path(args.out, f"{seed}.json").write_text(json.dumps(truth, indent=1))
        if args.draw:
            cv2.imwrite(str(Path(args.out, f"{seed}_truth.png")), draw_truth(jpeg, truth))
        c = truth["conditions"]
        print(
            seed,
            c["source"],
            c["table"],
            c["width"],
            c["height"],
            c["tilt"],
            c["kingdom_frac"],
            c["clutter"],
            c["light"],
            c["incomplete"],
            "score",
            truth["base_score"],
        )


if __name__ == "__main__":
    main()
