"""The hard tables of the outside check: the conditions players' own photos bring that the ordinary
outside scenes rarely do, each photo built around one named condition class.

generate(seed, **force) -> (jpeg_bytes, truth), like ``gen.generate`` (same truth keys), plus in
``truth["conditions"]``: ``hard_class`` (one of CLASSES), ``hard_tags`` (cross-cutting conditions such as
``castle_on_tilted``, ``7x7``, ``dim``, ``small``, ``patterned_table``), ``castle3d``, ``meeples``,
``edge_objects``, ``sheet`` and ``holdout``.

Condition classes (in turn: the photo's class is its seed modulo 1000, modulo the number of classes):
  castle_tilted    a cardboard castle on a camera tilted 20-50 degrees, or a close camera from almost overhead
  cutting_mat      a blue or green self-healing cutting mat under the kingdom: 1 cm grid lines, thicker every
                   5 cm, rulers with numbers along its edges, sometimes a crumpled cloth at one side
  printed_grid     a printed grid (graph paper, a play mat) whose cell is near a square's size
  patterned_cloth  strong coloured and patterned cloths (blue with yellow swirls, checks, gingham, flowers,
                   plain green, red, ochre) showing through the empty squares of an incomplete kingdom
  edge_neighbour   a neighbour's kingdom or loose dominoes cut by the photo edge, on one to three sides
  motion_blur      motion blur of 10-40 px
  steep_dim        the camera tilted 40-55 degrees in dim light
  light            strong warm (lamp), cold (shade, daylight LED) or dim light
  scale            small kingdoms (40-80 px per square) or close ones (250-400 px per square)
Across all classes: a 3-D cardboard castle in the player's colour on most photos (drawn with the camera's
perspective, so it leans over the squares away from the camera), king meeples on or beside the kingdom,
and 7x7 (Mighty Duel) kingdoms on two photos in five of every class.

The kingdom itself is built only from material a bench model can hold out of its training: the board
photos of HOLDOUT_KINGDOMS and the spetryk tiles of every fifth source photo (``holdout_source_photos``),
less the tiles whose label this project corrected. The shipped model learnt from them; a model fitted
without them measures generalisation on these photos. Distractors (neighbours, loose dominoes) may come
from any board.

The castle and meeples live in hard_objects, the sheets and cloths in hard_sheets (re-exported here).
"""

from __future__ import annotations

import functools
import json
import math

import cv2
import numpy as np

from benchmarks.outside import gen
from benchmarks.outside.hard_objects import Castle3D, Meeple
from benchmarks.outside.hard_sheets import (
    SQUARE_CM,
    STRONG,
    crumpled_cloth,
    cutting_mat_texture,
    printed_grid_texture,
    strong_cloth,
)

__all__ = [
    "CLASSES", "HOLDOUT_KINGDOMS", "PATTERNED_TABLES", "PLAYER_COLOURS", "SPLITS", "SQUARE_CM", "STRONG",
    "Castle3D", "HardScene", "Meeple", "crumpled_cloth", "cutting_mat_texture", "generate", "holdout_boards",
    "holdout_source_photos", "holdout_tiles", "printed_grid_texture", "strong_cloth",
]  # fmt: skip

CLASSES = (
    "castle_tilted",
    "cutting_mat",
    "printed_grid",
    "patterned_cloth",
    "edge_neighbour",
    "motion_blur",
    "steep_dim",
    "light",
    "scale",
)
#: First seed of each split (see benchmarks/outside/README.md); the held-out split is measured, never tuned on.
SPLITS = {"dev": 200_000, "heldout": 800_000}
#: Kingdoms (``kingdom_id`` in data/real/labels.json) whose board photos build the hard kingdoms.
HOLDOUT_KINGDOMS = ("K02", "K07", "K12", "K17", "K23", "K28", "K33")

PLAYER_COLOURS = {  # BGR of the cardboard castles and king meeples
    "pink": (165, 105, 235),
    "yellow": (40, 200, 240),
    "green": (70, 150, 55),
    "blue": (180, 105, 40),
}
PATTERNED_TABLES = ("checkered", "gingham", "striped")  # the ordinary generator's patterned tables


# ----------------------------------------------------------------------------------------------
# held-out material
# ----------------------------------------------------------------------------------------------


@functools.cache
def _labels() -> dict:
    return json.loads((gen.DATA / "labels.json").read_text())


def holdout_boards() -> list[str]:
    boards = _labels()["boards"]
    return [name for name in gen.board_names() if boards[name]["kingdom_id"] in HOLDOUT_KINGDOMS]


def holdout_source_photos() -> list[str]:
    return sorted({tile["source_photo"] for tile in _labels()["tiles_spetryk"]})[2::5]


@functools.cache
def holdout_tiles() -> frozenset[str]:
    """Paths of the held-out spetryk tiles whose folder label is the photo's (corrected ones left out)."""
    photos = set(holdout_source_photos())
    corrections = json.loads((gen.DATA / "label_corrections.json").read_text())["tiles"]
    corrected = {fix["image"] for fix in corrections}
    return frozenset(
        str(gen.DATA / tile["image"])
        for tile in _labels()["tiles_spetryk"]
        if tile["source_photo"] in photos and tile["image"] not in corrected
    )


# ----------------------------------------------------------------------------------------------
# the hard scene: choices from the seed, hooks gen.generate calls
# ----------------------------------------------------------------------------------------------


def _log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


class HardScene:
    """Everything one hard photo decides from its seed, and the hooks ``gen.generate`` calls."""

    TABLES = ("swirl_cloth", "check_strong", "gingham_strong", "floral_cloth", "plain_strong")

    def __init__(self, seed: int, cls=None, size=None, tilt=None, px=None, grid_size=None, castle=None,
                 light=None):  # fmt: skip
        r = np.random.default_rng([seed, 3536])
        self.rng = r
        self.cls = cls or CLASSES[seed % 1000 % len(CLASSES)]
        cycle = seed % 1000 // len(CLASSES)
        self.grid_size = grid_size or (7 if cycle % 5 in (1, 3) else 5)
        if self.grid_size == 7:
            self.mode = "tiled7" if r.random() < 0.75 else "spetryk7"
        else:
            self.mode = ["board", "board_rot", "spetryk5"][r.choice(3, p=[0.4, 0.35, 0.25])]
        cls = self.cls
        # camera
        if cls == "castle_tilted":
            self.tilt = r.uniform(20, 50) if r.random() < 0.75 else r.uniform(2, 20)
            self.px = _log_uniform(r, 120, 400) if self.tilt >= 20 else _log_uniform(r, 220, 400)
        elif cls == "steep_dim":
            self.tilt, self.px = r.uniform(40, 55), _log_uniform(r, 90, 250)
        elif cls == "scale":
            self.tilt = r.uniform(0, 35)
            self.px = _log_uniform(r, 40, 80) if r.random() < 0.6 else _log_uniform(r, 250, 400)
        elif cls == "edge_neighbour":  # the kingdom large enough for its neighbours to be close to it
            self.tilt, self.px = r.uniform(0, 35), 0.0
        else:
            self.tilt = [r.uniform(0, 5), r.uniform(5, 20), r.uniform(20, 35)][
                r.choice(3, p=[0.25, 0.45, 0.3])
            ]
            self.px = _log_uniform(r, 70, 250)
        self.frac = r.uniform(0.35, 0.65)
        self.tilt = self.tilt if tilt is None else tilt
        self.px = self.px if px is None else px
        sizes = [(4032, 3024), (4000, 3000), (3264, 2448), (4032, 2268), (3000, 3000), (2592, 1944), (1920, 1440),
                 (1600, 1200)]  # fmt: skip
        self.size = size or sizes[r.choice(len(sizes), p=[0.3, 0.25, 0.1, 0.1, 0.05, 0.1, 0.05, 0.05])]
        if size is None and r.random() < 0.35:
            self.size = self.size[::-1]
        # table, sheet and objects
        patterned = list(self.TABLES) + ["checkered", "gingham"]
        if cls == "patterned_cloth":
            self.table_kind = patterned[r.integers(len(patterned))]
        else:
            self.table_kind = self.TABLES[r.integers(len(self.TABLES))] if r.random() < 0.25 else None
        self.sheet = {"cutting_mat": "cutting_mat", "printed_grid": "printed_grid"}.get(cls)
        self.cloth = cls == "cutting_mat" and r.random() < 0.6
        # the ordinary generator's mat under the kingdom would hide this class's own table
        self.ordinary_mat = cls not in ("cutting_mat", "printed_grid", "patterned_cloth")
        self.castle = (r.random() < 0.85) if castle is None else castle
        self.castle = self.castle or cls == "castle_tilted"
        self.colour = list(PLAYER_COLOURS)[r.integers(4)]
        self.castle_height = r.uniform(0.6, 0.8)
        self.meeples = int(r.integers(1, 3)) if r.random() < 0.45 else 0
        self.meeple_height = r.uniform(0.7, 0.95)
        sides = r.permutation(4)[: int(r.integers(1, 4))] if cls == "edge_neighbour" else []
        self.edges = [(int(s), "kingdom" if r.random() < 0.55 else "dominoes") for s in sides]
        self.blur_px = int(round(r.uniform(10, 40))) if cls == "motion_blur" else 0
        self.blur_angle = r.uniform(0, 180)
        if light is not None:
            self.light_class = light
        elif cls == "light":
            self.light_class = ["warm", "cold", "dim"][cycle % 3]
        elif cls == "steep_dim":
            self.light_class = "dim"
        else:
            self.light_class = None
        self.tall = max(
            self.castle_height if self.castle else 0.0, self.meeple_height if self.meeples else 0.0
        )
        self.edge_room = 0.1 if cls == "edge_neighbour" else 0.02
        self.record: dict = {"castle3d": None, "meeples": [], "edge_objects": [], "sheet": None}

    # -- hooks called by gen.generate
    def kingdom(self, rng):
        kingdom = gen.build_kingdom(rng, self.mode, boards=holdout_boards(), tiles=holdout_tiles())
        return self.mode, kingdom

    def incomplete(self, kingdom, rng):
        if self.cls != "patterned_cloth":
            return gen.make_incomplete(kingdom, rng) if self.rng.random() < 0.3 else None
        removed = []
        for _ in range(3):  # two or more squares of the cloth in view
            inc = gen.make_incomplete(kingdom, rng)
            if inc is None:
                break
            removed += inc["cells"]
            if len(removed) >= 2:
                break
        return {"kind": "cloth_gaps", "cells": removed} if removed else None

    def camera(self, W, H, n):
        W, H = self.size
        short = min(W, H)
        px = min(self.px or self.frac * short / n, 0.8 * short / n)
        self.px = px
        tilt_class = (
            "overhead"
            if self.tilt < 5
            else "mild"
            if self.tilt < 20
            else "strong"
            if self.tilt < 35
            else "steep"
        )
        return W, H, self.tilt, tilt_class, px * n / short

    def table_texture(self, kind, F, rng, px_world):
        return strong_cloth(kind, F, rng, px_world)

    def draw_sheet(self, table, F, rng, px_world, n):
        if self.sheet is None:
            return table, "none"
        if self.sheet == "cutting_mat":
            w, h = [(60, 45), (45, 30), (90, 60)][rng.integers(3)]
            w_sq, h_sq = w / SQUARE_CM, h / SQUARE_CM
            if w_sq < n + 1.5:
                w_sq, h_sq = 60 / SQUARE_CM, 45 / SQUARE_CM
        else:
            w_sq, h_sq = rng.uniform(n + 2, 3 * n + 6), rng.uniform(n + 2, 3 * n + 6)
        ppu = float(np.clip(1.5 / max(px_world, 1e-4), 16, 90))
        if self.sheet == "cutting_mat":
            tex, what = cutting_mat_texture(rng, w_sq, h_sq, ppu)
        else:
            tex, what = printed_grid_texture(rng, w_sq, h_sq, ppu)
        theta = rng.uniform(-0.14, 0.14) if rng.random() < 0.7 else rng.uniform(0, math.pi)
        if self.sheet == "printed_grid" and rng.random() < 0.4:
            theta = 0.0  # laid square to the kingdom
        c, s = math.cos(theta), math.sin(theta)
        # the kingdom on the sheet, anywhere but near its edge: its offset in the sheet's own axes
        reach = n / 2 * (abs(c) + abs(s))
        offset = rng.uniform(-0.8, 0.8, 2) * np.maximum(np.array([w_sq, h_sq]) / 2 - reach - 0.4, 0)
        centre = np.array([n / 2, n / 2]) - offset[0] * np.array([c, s]) - offset[1] * np.array([-s, c])
        lx = (F.X - centre[0]) * c + (F.Y - centre[1]) * s
        ly = -(F.X - centre[0]) * s + (F.Y - centre[1]) * c
        u = ((lx + w_sq / 2) * ppu - 0.5).astype(np.float32)
        v = ((h_sq / 2 - ly) * ppu - 0.5).astype(np.float32)
        sampled = cv2.remap(tex, u, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        sd = np.maximum(np.abs(lx) - w_sq / 2, np.abs(ly) - h_sq / 2)
        alpha = np.clip(0.5 - sd / max(px_world, 1e-4), 0, 1)
        shadow = np.clip(1 - 0.25 * np.exp(-np.maximum(sd, 0) / 0.08), 0, 1)
        table = table * shadow[..., None]
        table = table * (1 - alpha[..., None]) + sampled * alpha[..., None]
        if self.cloth:
            table = crumpled_cloth(table, F, rng, px_world, n)
        self.record["sheet"] = {
            "kind": self.sheet,
            "what": what,
            "size_sq": [round(w_sq, 1), round(h_sq, 1)],
            "angle_deg": round(math.degrees(theta), 1),
            "cloth": self.cloth,
        }
        return table.astype(np.float32), self.sheet

    def add_objects(self, ctx):
        if self.castle:
            self._castle(ctx)
        for k in range(self.meeples):
            self._meeple(ctx, on_kingdom=self.rng.random() < 0.5, index=k)
        for side, kind in self.edges:
            self._edge_object(ctx, side, kind)

    def light(self, wb, exposure, wb_name):
        r = self.rng
        if self.light_class == "warm":
            return (
                np.array([r.uniform(0.6, 0.72), r.uniform(0.86, 0.94), r.uniform(1.08, 1.18)], np.float32),
                r.uniform(0.75, 1.1),
                "warm_lamp",
            )
        if self.light_class == "cold":
            return (
                np.array([r.uniform(1.15, 1.28), r.uniform(1.0, 1.06), r.uniform(0.74, 0.84)], np.float32),
                r.uniform(0.8, 1.2),
                "cold",
            )
        if self.light_class == "dim":
            return wb, r.uniform(0.3, 0.52), wb_name
        if self.light_class == "neutral":
            return np.ones(3, np.float32), 1.0, "neutral"
        return wb, exposure, wb_name

    def blur_kernel(self):
        length = self.blur_px
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), self.blur_angle, 1)
        k = cv2.warpAffine(k, rot, (length, length))
        return k / k.sum()

    def conditions(self, cond) -> dict:
        tags = []
        castle = self.record["castle3d"]
        if castle:
            tags.append("castle")
            if cond["tilt"] >= 10 or castle["lean_squares"] >= 0.25:
                tags.append("castle_on_tilted")
        n = cond["grid_size"]
        tags.append(f"{n}x{n}")
        if cond["exposure"] < 0.6:
            tags.append("dim")
        if cond["px_per_square"] < 80:
            tags.append("small")
        if cond["px_per_square"] >= 250:
            tags.append("large")
        if cond["tilt"] >= 45:
            tags.append("tilt_45+")
        if cond["table"] in self.TABLES or cond["table"] in PATTERNED_TABLES:
            tags.append("patterned_table")
            if cond["empty_squares"]:
                tags.append("empty_on_pattern")
        if self.record["sheet"]:
            tags.append(self.record["sheet"]["kind"])
        if self.record["edge_objects"]:
            tags.append("edge_objects")
        if any(m.get("cell") for m in self.record["meeples"]):
            tags.append("meeple_on_kingdom")
        if self.blur_px >= 20:
            tags.append("motion_blur_20+")
        if cond["white_balance"] in ("warm_lamp", "cold"):
            tags.append(cond["white_balance"])
        return {
            "hard": True,
            "hard_class": self.cls,
            "hard_tags": tags,
            "px_target": round(self.px, 1),
            "light_class": self.light_class or "usual",
            "blur_px": self.blur_px,
            "holdout": {"kingdoms": list(HOLDOUT_KINGDOMS), "mode": self.mode},
            **self.record,
        }

    # -- objects
    def _castle(self, ctx):
        grid = ctx.kingdom["grid"]
        cells = [(r, c) for r in range(ctx.n) for c in range(ctx.n) if grid[r][c][0] == "castle"]
        if not cells:
            return
        r, c = cells[0]
        self._castle_on(ctx, ctx.G, r, c, self.colour, self.castle_height, record=True)

    def _castle_on(self, ctx, G, r, c, colour, height, record):
        rng = self.rng
        centre = gen.apply_h(G, [(c + 0.5, r + 0.5)])[0] + rng.uniform(-0.04, 0.04, 2)
        axis = gen.apply_h(G, [(c + 1.5, r + 0.5)])[0] - gen.apply_h(G, [(c + 0.5, r + 0.5)])[0]
        theta = math.atan2(axis[1], axis[0]) + math.radians(rng.uniform(-6, 6))
        size = rng.uniform(0.8, 0.9)
        castle = Castle3D(
            centre,
            theta,
            ctx.height,
            size,
            height,
            np.asarray(PLAYER_COLOURS[colour]) * rng.uniform(0.85, 1.1),
        )
        ctx.prisms.append(castle)
        if not record:
            return
        base_px, top_px = ctx.cam.project([(*centre, ctx.height), (*centre, ctx.height + height)])
        to_grid = np.linalg.inv(ctx.Hh)
        base_g, top_g = gen.apply_h(to_grid, [base_px, top_px])
        cam_g = gen.apply_h(np.linalg.inv(ctx.G), [ctx.cam.C[:2]])[0]
        lean_cell = [int(math.floor(top_g[1])), int(math.floor(top_g[0]))]
        ring = ctx.cam.project([(*corner, ctx.height + height) for corner in castle.quad])
        overhangs = {(int(math.floor(gy)), int(math.floor(gx))) for gx, gy in gen.apply_h(to_grid, ring)}
        overhangs = sorted(
            [list(cell) for cell in overhangs if cell != (r, c) and all(0 <= v < ctx.n for v in cell)]
        )
        self.record["castle3d"] = {
            "colour": colour,
            "height": round(height, 2),
            "cell": [r, c],
            "base_px": [round(float(v), 1) for v in base_px],
            "top_px": [round(float(v), 1) for v in top_px],
            "top_grid": [round(float(v), 2) for v in top_g],
            "camera_grid": [round(float(v), 2) for v in cam_g],
            "lean_cell": lean_cell,
            "lean_squares": round(float(np.linalg.norm(top_g - base_g)), 2),
            "overhangs": overhangs,  # squares of the kingdom under the castle's top
        }
        ctx.clutter.append("castle3d")

    def _meeple(self, ctx, on_kingdom, index):
        rng, n = self.rng, ctx.n
        colour = self.colour if index == 0 else list(PLAYER_COLOURS)[rng.integers(4)]
        paint = np.asarray(PLAYER_COLOURS[colour]) * rng.uniform(0.8, 1.05)
        if on_kingdom:
            cells = [
                (r, c)
                for r in range(n)
                for c in range(n)
                if ctx.kingdom["grid"][r][c][0] not in ("castle", "empty")
            ]
            r, c = cells[rng.integers(len(cells))]
            base = gen.apply_h(ctx.G, [(c + 0.5, r + 0.5) + rng.uniform(-0.15, 0.15, 2)])[0]
            ctx.prisms.append(Meeple(base, ctx.height, self.meeple_height, paint))
            self.record["meeples"].append({"colour": colour, "cell": [int(r), int(c)]})
            ctx.clutter.append("meeple")
            return
        for _ in range(20):
            side = int(rng.integers(4))
            along, out = rng.uniform(0.2, n - 0.2), rng.uniform(0.35, 0.9)
            gx, gy = [(along, -out), (n + out, along), (along, n + out), (-out, along)][side]
            base = gen.apply_h(ctx.G, [(gx, gy)])[0]
            meeple = Meeple(base, 0.0, self.meeple_height, paint)
            if all(gen.sat_separated(meeple.quad, o, 0.05) for o in ctx.occupied):
                ctx.prisms.append(meeple)
                ctx.occupied.append(meeple.quad)
                self.record["meeples"].append({"colour": colour, "beside": side})
                ctx.clutter.append("meeple")
                return

    def _edge_object(self, ctx, side, kind):
        """A neighbour's kingdom or two loose dominoes cut by photo edge `side` (0 top, 1 right, 2 bottom, 3 left)."""
        rng, cam, n = self.rng, ctx.cam, ctx.n
        centre = np.array([n / 2, n / 2])
        p0 = cam.project([(*centre, 0.0)])[0]
        directions = []
        for phi in np.linspace(0, 2 * math.pi, 144, endpoint=False):
            d = np.array([math.cos(phi), math.sin(phi)])
            p1 = cam.project([(*(centre + d * 0.5), 0.0)])[0]
            v = p1 - p0
            limits = [(-p0[1] / v[1]) if v[1] < 0 else np.inf, ((ctx.W - p0[0]) / v[0]) if v[0] > 0 else np.inf,
                      ((ctx.H - p0[1]) / v[1]) if v[1] > 0 else np.inf, (-p0[0] / v[0]) if v[0] < 0 else np.inf]  # fmt: skip
            if int(np.argmin(limits)) == side:
                directions.append(d)
        if not directions:
            return
        d = directions[
            len(directions) // 2 + int(rng.integers(-len(directions) // 4, len(directions) // 4 + 1))
        ]
        if kind == "kingdom":
            m = 7 if rng.random() < 0.3 else 5
            theta = (
                int(rng.integers(4)) * math.pi / 2 + rng.uniform(-0.08, 0.08)
                if rng.random() < 0.7
                else rng.uniform(0, 2 * math.pi)
            )
            target, gap = rng.uniform(0.12, 0.5), rng.uniform(0.2, 1.5)
        else:
            m = 0
            theta = int(rng.integers(4)) * math.pi / 2 + rng.uniform(-0.3, 0.3)
            target, gap = rng.uniform(0.3, 0.75), rng.uniform(0.3, 1.2)
        across = np.array([-d[1], d[0]]) * rng.uniform(-0.3, 0.3) * n

        def quad_at(t):
            c = centre + d * t + across
            if m:
                return gen.apply_h(
                    gen.grid_to_world_matrix(m, theta, c[0] - m / 2, c[1] - m / 2),
                    [(0, 0), (m, 0), (m, m), (0, m)],
                )
            return gen.rect_world(c[0], c[1], 2, 1, theta)

        placed = None
        for t in np.arange(n / 2, n / 2 + 40, 0.1):
            quad = quad_at(t)
            if not gen.sat_separated(quad, ctx.kingdom_world, gap):
                continue
            if not all(gen.sat_separated(quad, o, 0.2) for o in ctx.occupied[1:]):
                continue
            frac = ctx.inside_fraction(quad)
            if frac < 0.05:
                break
            if frac <= target:
                placed = (quad, frac, t)
                break
        if placed is None:
            return
        quad, frac, t = placed
        if m:
            other = gen.build_kingdom(rng, "board" if m == 5 else "tiled7", exclude=ctx.used_boards)
            G2 = gen.grid_to_world_matrix(m, theta, *(centre + d * t + across - m / 2))
            prisms, _ = gen.piece_prisms(
                other, G2, ctx.height, ctx.seam, ctx.jitter_px, ctx.px_sq, rng, ctx.side_colour
            )
            ctx.prisms.extend(prisms)
            grid = other["grid"]
            castles = [(r, c) for r in range(m) for c in range(m) if grid[r][c][0] == "castle"]
            if castles and rng.random() < 0.6:
                colour = [c for c in PLAYER_COLOURS if c != self.colour][rng.integers(3)]
                self._castle_on(ctx, G2, *castles[0], colour, rng.uniform(0.6, 0.8), record=False)
        else:
            name = gen.board_names()[rng.integers(len(gen.board_names()))]
            grid = gen.board_grid(name)
            squares = [
                (r, c)
                for r in range(5)
                for c in range(4)
                if "empty" not in (grid[r][c][0], grid[r][c + 1][0])
            ]
            r, c = squares[rng.integers(len(squares))]
            tex = np.hstack([gen.board_square(name, r, c), gen.board_square(name, r, c + 1)])
            tone = np.clip(ctx.side_colour * rng.uniform(0.85, 1.15), 0, 255)
            ctx.prisms.append(gen.Prism(quad, ctx.height, tex, tone, "loose"))
        ctx.occupied.append(quad)
        ctx.clutter.append("edge_" + kind)
        self.record["edge_objects"].append(
            {"side": ["top", "right", "bottom", "left"][side], "kind": kind, "visible": round(frac, 2)}
        )


def generate(seed: int, **force):
    """A hard photo and its truth; ``force`` fixes choices for tests (cls, size, tilt, px, grid_size,
    castle, light)."""
    return gen.generate(seed, scene=HardScene(seed, **force))
