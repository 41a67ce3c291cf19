"""Kingdom composition for the outside generator: labels, square textures and domino pieces."""

from __future__ import annotations

import numpy as np

from benchmarks.outside.material import (
    BOX,
    LAND,
    board_grid,
    board_names,
    board_square,
    spetryk_paths,
    spetryk_square,
    square_index,
)

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
