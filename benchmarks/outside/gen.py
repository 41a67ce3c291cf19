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

CLI:  python -m benchmarks.outside.photos SEED [SEED ...] [--out DIR] [--draw] [--hard]   writes DIR/SEED.jpg,
DIR/SEED.json (benchmarks/outside/photos.py)

This module assembles the scene; its parts live beside it (material, kingdoms, camera, textures, render,
photo) and are re-exported here under their old names.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import cv2
import numpy as np

from benchmarks.outside import render
from benchmarks.outside.camera import Camera, apply_h, grid_to_world_matrix, rect_world, sat_separated
from benchmarks.outside.kingdoms import (
    base_score,
    box_tiling,
    build_kingdom,
    make_incomplete,
    random_domino_tiling,
)
from benchmarks.outside.material import (
    BOX,
    DATA,
    LAND,
    board_grid,
    board_image,
    board_names,
    board_square,
    labels,
    spetryk_index,
    spetryk_paths,
    spetryk_square,
    square_index,
)
from benchmarks.outside.photo import light_and_camera
from benchmarks.outside.render import (
    Prism,
    draw_hand,
    fill_poly,
    paste_texture,
    piece_prisms,
    poly_mask,
    roi_of,
)
from benchmarks.outside.textures import (
    Field,
    blobs_on,
    cloth_weave,
    random_colour,
    smoothstep,
    table_texture,
    wood_texture,
)

# Names the scene, the hard tables and the tests reach through this module, from the modules that hold them.
__all__ = [
    "BOX", "DATA", "LAND", "SIZES", "TABLES", "TALL", "Camera", "Field", "Prism", "apply_h", "base_score",
    "blobs_on", "board_grid", "board_image", "board_names", "board_square", "box_tiling", "build_kingdom",
    "choose", "cloth_weave", "draw_hand", "draw_truth", "fill_poly", "generate", "grid_to_world_matrix",
    "labels", "make_incomplete", "paste_texture", "piece_prisms", "poly_mask", "random_colour",
    "random_domino_tiling", "rect_world", "roi_of", "sat_separated", "smoothstep", "spetryk_index",
    "spetryk_paths", "spetryk_square", "square_index", "table_texture", "wood_texture",
]  # fmt: skip


SIZES = [
    (4032, 3024), (4000, 3000), (3264, 2448), (4032, 2268), (3000, 3000), (2592, 1944),
    (2048, 1536), (1920, 1440), (1920, 1080), (1600, 1200), (1280, 960), (1200, 900),
]  # fmt: skip


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
    render.SHARPEN_UPSCALED = ov.get("sharpen", True)  # paste_texture reads it in its own module
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
    out = light_and_camera(img, rng, ov, scene, cond, truth_corners, side_px, px_sq)
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
