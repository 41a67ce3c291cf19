"""One phone photo of a kingdom on a table, from a seed: ``generate(seed) -> (jpeg bytes, truth)``.

The world is measured in kingdom squares (about 4.4 cm) with the table at z = 0 and heights along -z.
The kingdom is a legal game (``kingdoms.play``) painted with held-out squares, its dominoes laid by hand
(a little off the lattice, thin gaps), a few millimetres thick, the cardboard castle standing on its
square and kings standing about. A pinhole camera of a phone's field of view looks at it from 0-55°;
the lens distorts, the light is uneven, the hand shakes, the sensor is noisy and the phone writes a JPEG.

The truth: the grid (terrain and crowns by row and column), the base score from the scoring engine, the
four corners of the grid (top face of the tiles; TL, TR, BR, BL for row 0 / column 0 first, in photo
pixels after the lens) and the conditions the photo was taken in.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from benchmarks.blind import kingdoms, optics, solids, surfaces
from kingdomino.board import EMPTY_SQUARE, Terrain
from kingdomino.dominoes import DOMINOES
from kingdomino.scoring import score_kingdom

#: First seed of each split: dev is looked at, held-out is measured once and never tuned on.
SPLITS = {"dev": 300000, "heldout": 700000}

#: Photo sizes of phones (8 to 12 megapixels), landscape.
SENSORS = ((4000, 3000), (4032, 3024), (3264, 2448), (4000, 2250), (3840, 2160))
#: Tile thickness in squares (about 3 mm).
THICKNESS = 0.065
#: The dark cardboard of the tiles' sides (BGR).
EDGE_COLOUR = (48, 55, 62)
#: Largest side of the table's texture in pixels.
MAX_TEXTURE = 3072


@dataclass
class Layer:
    """A flat picture of dominoes seen from above: ``scale`` px per square, alpha ``mask``, and the
    texture pixel of the frame's top-left corner ``origin``."""

    image: np.ndarray
    mask: np.ndarray
    scale: float
    origin: float


def _pick(rng: np.random.Generator, weights: dict):
    names = list(weights)
    p = np.array([weights[n] for n in names], float)
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def draw_conditions(rng: np.random.Generator) -> dict:
    """The photo's conditions, drawn first so that each is independent of how the scene turns out."""
    tilt_class = _pick(rng, {"0-15": 0.35, "15-35": 0.35, "35-55": 0.3})
    low, high = (float(v) for v in tilt_class.split("-"))
    light = _pick(rng, {"normal": 0.4, "warm": 0.2, "cold": 0.15, "dim": 0.25})
    blur = _pick(rng, {"none": 0.62, "motion": 0.28, "focus": 0.1})
    width, height = SENSORS[int(rng.integers(len(SENSORS)))]
    portrait = bool(rng.random() < 0.35)
    return {
        "grid": 7 if rng.random() < 0.3 else 5,
        "holes": int(rng.integers(1, 4)) if rng.random() < 0.35 else 0,
        "table_kind": _pick(rng, {"wood": 0.25, "cloth": 0.3, "mat": 0.2, "plain": 0.15, "stone": 0.1}),
        "tilt_class": tilt_class,
        "tilt": round(float(rng.uniform(low, high)), 1),
        "target_px": round(float(np.exp(rng.uniform(np.log(40), np.log(400)))), 1),
        "light": light,
        "dim_warm": bool(light == "dim" and rng.random() < 0.5),
        "blur": blur,
        "blur_px": round(
            float(rng.uniform(6, 40) if blur == "motion" else rng.uniform(1.5, 5) if blur == "focus" else 0),
            1,
        ),
        "castle": bool(rng.random() < 0.85),
        "castle_colour": str(rng.choice(list(solids.PLAYER_COLOURS))),
        "kings": int(rng.choice([0, 1, 1, 2])),
        "neighbour": bool(rng.random() < 0.45),
        "loose": int(rng.integers(1, 6)) if rng.random() < 0.5 else 0,
        "paper": bool(rng.random() < 0.2),
        "k1": round(float(rng.uniform(-0.06, 0.04)), 3),
        "jpeg_quality": int(rng.integers(75, 94)),
        "size": [height, width] if portrait else [width, height],
    }


def _domino_patch(art_a: np.ndarray, art_b: np.ndarray | None, scale: int, step) -> np.ndarray:
    """The picture of one domino (or the castle tile when ``art_b`` is None), halves in the order of
    ``step`` (right or down), with the slightly darker printed rim of a real tile."""
    a = cv2.resize(art_a, (scale, scale), interpolation=cv2.INTER_CUBIC).astype(np.float32)
    if art_b is None:
        patch = a
    else:
        b = cv2.resize(art_b, (scale, scale), interpolation=cv2.INTER_CUBIC).astype(np.float32)
        patch = np.concatenate([a, b], axis=1 if step == (0, 1) else 0)
    rim = max(1, scale // 60)
    for sl in (np.s_[:rim], np.s_[-rim:]):
        patch[sl] *= 0.7
        patch[:, sl] *= 0.7
    return patch


def kingdom_layer(
    rng: np.random.Generator, played: kingdoms.Played, art, scale: int, margin: float = 0.6
) -> Layer:
    """The dominoes of a kingdom laid by hand: each a little shifted and turned, with hairline gaps."""
    n = played.size
    origin = margin * scale
    size = int(np.ceil((n + 2 * margin) * scale))
    image = np.zeros((size, size, 3), np.float32)
    mask = np.zeros((size, size), np.float32)
    pieces = [(a, b) for a, b in played.dominoes] + [(played.castle, None)]
    for a, b in pieces:
        if b is not None and (b[0] < a[0] or b[1] < a[1]):
            a, b = b, a
        step = None if b is None else (b[0] - a[0], b[1] - a[1])
        patch = _domino_patch(art[a[0]][a[1]], None if b is None else art[b[0]][b[1]], scale, step)
        ph, pw = patch.shape[:2]
        gap = rng.uniform(0.985, 0.995)
        angle = rng.normal(0, 0.6)
        shift = rng.normal(0, 0.015, size=2) * scale
        centre_x = origin + (a[1] + pw / scale / 2) * scale + shift[0]
        centre_y = origin + (a[0] + ph / scale / 2) * scale + shift[1]
        m = cv2.getRotationMatrix2D((pw / 2, ph / 2), angle, gap)
        m[:, 2] += (centre_x - pw / 2, centre_y - ph / 2)
        box = _box(m, pw, ph, size, size)
        _paste(image, mask, patch, np.ones((ph, pw), np.float32), m, box)
    return Layer(image, mask, scale, origin)


def _box(m: np.ndarray, w: int, h: int, width: int, height: int) -> tuple[int, int, int, int]:
    """The pixels (x0, y0, x1, y1) of a width × height picture that an affine ``m`` of a w × h one covers."""
    ends = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float) @ m.T
    x0, y0 = np.clip(np.floor(ends.min(axis=0)) - 2, 0, None).astype(int)
    x1, y1 = int(min(width, np.ceil(ends[:, 0].max()) + 2)), int(min(height, np.ceil(ends[:, 1].max()) + 2))
    return x0, y0, max(x0, x1), max(y0, y1)


def _paste(image, mask, picture, alpha, m, box, flags=cv2.INTER_LINEAR) -> np.ndarray | None:
    """Lay ``picture`` (with its ``alpha``) on ``image`` through the affine ``m``, only within ``box``;
    ``mask`` (or None) keeps the union of the alphas. Returns the warped alpha of the box."""
    x0, y0, x1, y1 = box
    if x1 <= x0 or y1 <= y0:
        return None
    local = m.copy()
    local[:, 2] -= (x0, y0)
    warped = cv2.warpAffine(picture, local, (x1 - x0, y1 - y0), flags=flags, borderValue=0)
    cover = cv2.warpAffine(alpha, local, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    _blend(image[y0:y1, x0:x1], warped, cover)
    if mask is not None:
        np.maximum(mask[y0:y1, x0:x1], cover, out=mask[y0:y1, x0:x1])
    return cover


def _frame_to_world(centre, angle: float, n: int) -> np.ndarray:
    """3×3 affine: kingdom-frame squares (column, row, 1) -> table (x, y, 1), frame centred at ``centre``."""
    c, s = np.cos(angle), np.sin(angle)
    rot = np.array([[c, -s], [s, c]])
    out = np.eye(3)
    out[:2, :2] = rot
    out[:2, 2] = np.asarray(centre[:2]) - rot @ np.array([n / 2, n / 2])
    return out


def _layer_to_world(layer: Layer, frame_to_world: np.ndarray) -> np.ndarray:
    """3×3 affine: layer pixels -> table (x, y, 1)."""
    to_frame = np.array(
        [
            [1 / layer.scale, 0, -layer.origin / layer.scale],
            [0, 1 / layer.scale, -layer.origin / layer.scale],
            [0, 0, 1],
        ]
    )
    return frame_to_world @ to_frame


def _blend(image: np.ndarray, picture: np.ndarray, alpha: np.ndarray) -> None:
    image *= 1 - alpha[..., None]
    image += picture * alpha[..., None]


def _random_kingdom(rng: np.random.Generator, side: int):
    played = kingdoms.play(rng, side)
    return played, kingdoms.paint(rng, played.kingdom, kingdoms.held_out_art())


def _place_camera(rng, cond: dict, n: int, frame_to_world: np.ndarray):
    """A camera that sees the whole kingdom (and the castle's top) at about the wanted px per square."""
    width, height = cond["size"]
    focal = max(width, height) * rng.uniform(0.72, 0.9)
    azimuth, roll = rng.uniform(0, 2 * np.pi), rng.normal(0, 0.05)
    corners = np.array([[0, 0, 1], [n, 0, 1], [n, n, 1], [0, n, 1]], float) @ frame_to_world.T
    top = np.concatenate([corners[:, :2], np.full((4, 1), -THICKNESS)], 1)
    tall = np.concatenate([corners[:, :2], np.full((4, 1), -0.9)], 1)
    pixels = min(cond["target_px"], 0.8 * min(width, height) / n)
    offset = rng.uniform(-0.25, 0.25, size=2) * n
    for _ in range(40):
        target = np.array([offset[0], offset[1], 0.0])
        camera = optics.Camera.looking_at(
            target, np.radians(cond["tilt"]), azimuth, focal / pixels, roll, focal, width, height
        )
        seen = camera.project(np.concatenate([top, tall]))
        inside = (
            (seen[:, 0] > 0.03 * width)
            & (seen[:, 0] < 0.97 * width)
            & (seen[:, 1] > 0.03 * height)
            & (seen[:, 1] < 0.97 * height)
        )
        if inside.all() and (camera.depth(np.concatenate([top, tall])) > 0).all():
            return camera, focal
        offset *= 0.8
        pixels *= 0.93
    raise RuntimeError("no camera sees the whole kingdom")


def _table_texture(rng, cond: dict, camera, px_per_square: float):
    """The table around the kingdom (centred at the table's origin) as a texture, its pixel -> table
    affine and the name of its look. The table is 1.2-3.5 m across and ends where it ends: the room
    beyond is the photo's background. Its texture is as fine as the kingdom's surroundings need, within
    ``MAX_TEXTURE`` pixels a side."""
    half = rng.uniform(14, 40)
    view = [
        camera.ground_point(p)
        for p in ((0, 0), (camera.width, 0), (camera.width, camera.height), (0, camera.height))
    ]
    seen = max((float(np.abs(g[:2]).max()) for g in view if g is not None), default=half)
    half = min(half, seen + 2) if all(g is not None for g in view) else half
    scale = float(np.clip(min(px_per_square * 1.2, MAX_TEXTURE / (2 * half)), 12, 140))
    side = int(2 * half * scale)
    texture, look = surfaces.surface(rng, cond["table_kind"], side, side, scale)
    shift = rng.uniform(-0.3, 0.3, size=2) * half
    to_world = np.array([[1 / scale, 0, -half + shift[0]], [0, 1 / scale, -half + shift[1]], [0, 0, 1]])
    return texture.astype(np.float32), to_world, look, scale


def _stamp(
    texture: np.ndarray, to_world: np.ndarray, layer: Layer, layer_world: np.ndarray, shadow: float
) -> None:
    """Lay a flat layer (a neighbour's kingdom, a loose domino) on the table texture with a dark edge."""
    m = (np.linalg.inv(to_world) @ layer_world)[:2]
    h, w = layer.mask.shape
    blur = max(0.8, layer.scale * shadow * abs(m[0, 0]))
    x0, y0, x1, y1 = _box(m, w, h, texture.shape[1], texture.shape[0])
    pad = int(3 * blur) + 2
    box = (
        max(0, x0 - pad),
        max(0, y0 - pad),
        min(texture.shape[1], x1 + pad),
        min(texture.shape[0], y1 + pad),
    )
    if box[2] <= box[0] or box[3] <= box[1]:
        return
    local = m.copy()
    local[:, 2] -= box[:2]
    size = (box[2] - box[0], box[3] - box[1])
    alpha = cv2.warpAffine(layer.mask, local, size, flags=cv2.INTER_LINEAR)
    edge = cv2.GaussianBlur(alpha, (0, 0), blur)
    part = texture[box[1] : box[3], box[0] : box[2]]
    part *= (1 - 0.5 * np.clip(edge - alpha, 0, 1) * 2)[..., None]
    _paste(texture, None, layer.image, layer.mask, m, box, cv2.INTER_AREA)


def _loose_layer(rng, scale: int) -> Layer:
    domino = DOMINOES[int(rng.integers(len(DOMINOES)))]
    pools = kingdoms.held_out_art()
    arts = []
    for half in domino.halves:
        choices = next(
            p.squares[kingdoms.LABEL_INDEX[half]] for p in pools if p.squares.get(kingdoms.LABEL_INDEX[half])
        )
        arts.append(np.rot90(choices[int(rng.integers(len(choices)))], int(rng.integers(4))))
    patch = _domino_patch(arts[0], arts[1], scale, (0, 1))
    return Layer(patch, np.ones(patch.shape[:2], np.float32), scale, 0.0)


def _paper(rng, scale: int) -> Layer:
    """A score pad: a white sheet with ruled lines and some pencilled numbers."""
    w, h = int(3 * scale), int(4 * scale)
    sheet = np.full((h, w, 3), 238, np.uint8)
    for y in np.arange(scale * 0.5, h, scale * 0.2):
        cv2.line(sheet, (0, int(y)), (w, int(y)), (200, 170, 150), max(1, scale // 80))
    for y in np.arange(scale * 0.65, h, scale * 0.4):
        text = str(int(rng.integers(10, 99)))
        cv2.putText(
            sheet,
            text,
            (int(scale * 0.3), int(y)),
            cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
            scale / 80,
            (70, 60, 60),
            max(1, scale // 50),
        )
    return Layer(sheet.astype(np.float32), np.ones((h, w), np.float32), scale, 0.0)


def _clear_of(point, centre, radius: float) -> bool:
    return float(np.hypot(point[0] - centre[0], point[1] - centre[1])) > radius


def _dress_table(rng, cond: dict, texture, to_world, camera, n: int, scale: int) -> dict:
    """Lay the neighbour's kingdom (cut by the photo's edge), loose dominoes and a score pad."""
    done = {"neighbour_seen": False, "loose_seen": 0}
    keep_out = n * 0.75 + 0.8
    width, height = camera.width, camera.height
    if cond["neighbour"]:
        side = int(rng.choice([5, 5, 7]))
        played, art = _random_kingdom(rng, side)
        layer = kingdom_layer(rng, played, art, scale, margin=0.2)
        edge = int(rng.choice(4, p=[0.4, 0.25, 0.1, 0.25]))  # mostly across the table or beside
        along = rng.uniform(0.2, 0.8)
        pixel = [(along * width, 0), (width, along * height), (along * width, height), (0, along * height)][
            edge
        ]
        ground = camera.ground_point(pixel)
        if ground is not None:
            outward = ground[:2] / (np.linalg.norm(ground[:2]) + 1e-9)
            spot = ground[:2] + outward * rng.uniform(-0.1, 0.3) * side
            while not _clear_of(spot, (0, 0), keep_out + side * 0.72):
                spot = spot + outward * 0.5
            world = _layer_to_world(layer, _frame_to_world(spot, rng.uniform(0, 2 * np.pi), side))
            _stamp(texture, to_world, layer, world, 0.04)
            on_table = np.linalg.inv(to_world) @ np.array([*spot, 1.0])
            inside = 0 <= on_table[0] < texture.shape[1] and 0 <= on_table[1] < texture.shape[0]
            seen = camera.project(np.array([[*spot, 0.0]]))[0]
            done["neighbour_seen"] = bool(
                inside and -0.3 * width < seen[0] < 1.3 * width and -0.3 * height < seen[1] < 1.3 * height
            )
    for _ in range(cond["loose"]):
        pixel = (rng.uniform(0.05, 0.95) * width, rng.uniform(0.05, 0.95) * height)
        ground = camera.ground_point(pixel)
        if ground is None or not _clear_of(ground, (0, 0), keep_out + 1.2):
            continue
        layer = _loose_layer(rng, scale)
        to_frame = np.array([[1 / scale, 0, 0], [0, 1 / scale, 0], [0, 0, 1]])
        world = (
            _frame_to_world(ground, rng.uniform(0, 2 * np.pi), 1)
            @ np.array([[1, 0, -0.5], [0, 1, 0], [0, 0, 1]])
            @ to_frame
        )
        _stamp(texture, to_world, layer, world, 0.04)
        done["loose_seen"] += 1
    if cond["paper"]:
        for _ in range(10):
            ground = camera.ground_point((rng.uniform(0.05, 0.95) * width, rng.uniform(0.05, 0.95) * height))
            if ground is not None and _clear_of(ground, (0, 0), keep_out + 2.6):
                layer = _paper(rng, scale)
                to_frame = np.array([[1 / scale, 0, -1.5], [0, 1 / scale, -2], [0, 0, 1]])
                _stamp(
                    texture,
                    to_world,
                    layer,
                    _frame_to_world(ground, rng.uniform(0, 2 * np.pi), 0) @ to_frame,
                    0.02,
                )
                break
    return done


def _shadow_polygon(points: np.ndarray, light: np.ndarray, z: float) -> np.ndarray:
    """The outline (convex hull, x and y) of 3D points' shadow on the plane at height z."""
    t = (points[:, 2] - z) / light[2]
    ground = points[:, :2] - t[:, None] * light[:2]
    return cv2.convexHull(ground.astype(np.float32)).reshape(-1, 2)


def _tiles_shadows(
    played: kingdoms.Played, frame_to_world: np.ndarray, light: np.ndarray
) -> list[np.ndarray]:
    """The shadows on the table (table coordinates) of the kingdom's laid squares, each a slab THICKNESS
    high."""
    polygons = []
    for (r, c), square in played.kingdom.cells():
        if square.terrain == Terrain.EMPTY:
            continue
        corners = np.array([[c, r, 1], [c + 1, r, 1], [c + 1, r + 1, 1], [c, r + 1, 1]], float)
        on_table = corners @ frame_to_world.T
        on_table = on_table[:, :2] / on_table[:, 2:]
        top = np.concatenate([on_table, np.full((4, 1), -THICKNESS)], 1)
        bottom = np.concatenate([on_table, np.zeros((4, 1))], 1)
        polygons.append(_shadow_polygon(np.concatenate([top, bottom]), light, 0.0))
    return polygons


def _darken(layer: Layer, to_world: np.ndarray, polygons: list[np.ndarray], strength: float) -> None:
    """Soft shadows on a layer, polygons given in table coordinates."""
    if not polygons:
        return
    to_pixels = np.linalg.inv(to_world)
    shade = np.zeros(layer.mask.shape, np.float32)
    for polygon in polygons:
        pixels = np.concatenate([polygon, np.ones((len(polygon), 1))], 1) @ to_pixels.T
        cv2.fillPoly(shade, [np.round(pixels[:, :2] * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    shade = cv2.GaussianBlur(shade, (0, 0), max(1.0, layer.scale * 0.03))
    layer.image *= (1 - strength * shade)[..., None]


def _solids(rng, cond, played, frame_to_world, light):
    """The castle on its square and the kings: faces, and where each casts its shadow (on the kingdom
    layer or on the table)."""
    faces, on_kingdom, on_table, kings_on = [], [], [], []
    castle_centre = frame_to_world @ np.array([played.castle[1] + 0.5, played.castle[0] + 0.5, 1])
    castle_centre[:2] += rng.normal(0, 0.03, size=2)
    if cond["castle"]:
        colour = solids.PLAYER_COLOURS[cond["castle_colour"]]
        castle, tall = solids.castle(rng, castle_centre[0], castle_centre[1], -THICKNESS, colour)
        faces += castle
        on_kingdom.append(_shadow_polygon(np.concatenate([f.points for f in castle]), light, -THICKNESS))
    n = played.size
    cells = [
        (r, c)
        for r in range(n)
        for c in range(n)
        if played.kingdom[r, c].terrain not in (Terrain.CASTLE, Terrain.EMPTY)
    ]
    for _ in range(cond["kings"]):
        colour = solids.PLAYER_COLOURS[str(rng.choice(list(solids.PLAYER_COLOURS)))]
        if rng.random() < 0.5 and cells:
            r, c = cells[int(rng.integers(len(cells)))]
            spot = frame_to_world @ np.array([c + rng.uniform(0.3, 0.7), r + rng.uniform(0.3, 0.7), 1])
            king = solids.meeple(spot[0], spot[1], -THICKNESS, colour, rng.uniform(0, np.pi))
            kings_on.append([int(r), int(c)])
            on_kingdom.append(_shadow_polygon(np.concatenate([f.points for f in king]), light, -THICKNESS))
        else:
            side = int(rng.integers(4))
            along, out = rng.uniform(0, n), rng.uniform(0.3, 1.2)
            local = [(along, -out), (n + out, along), (along, n + out), (-out, along)][side]
            spot = frame_to_world @ np.array([local[0], local[1], 1])
            king = solids.meeple(spot[0], spot[1], 0.0, colour, rng.uniform(0, np.pi))
            on_table.append(_shadow_polygon(np.concatenate([f.points for f in king]), light, 0.0))
        faces += king
    return faces, on_kingdom, on_table, castle_centre, kings_on


def generate(seed: int) -> tuple[bytes, dict]:
    """The JPEG bytes of one photo and its truth."""
    rng = np.random.default_rng(seed)
    cond = draw_conditions(rng)
    n = cond["grid"]
    played = kingdoms.play(rng, n)
    if cond["holes"]:
        played = kingdoms.take_away(rng, played, cond["holes"] + (n == 7))
    art = kingdoms.paint(rng, played.kingdom, kingdoms.held_out_art())
    angle = rng.uniform(-0.05, 0.05) if rng.random() < 0.5 else rng.uniform(-np.pi, np.pi)
    frame_to_world = _frame_to_world((0.0, 0.0), angle, n)
    camera, focal = _place_camera(rng, cond, n, frame_to_world)
    width, height = camera.width, camera.height

    frame = np.array([[0, 0, 1], [n, 0, 1], [n, n, 1], [0, n, 1]], float) @ frame_to_world.T
    top = np.concatenate([frame[:, :2], np.full((4, 1), -THICKNESS)], 1)
    ideal = camera.project(top)
    px_per_square = float(np.mean(np.linalg.norm(ideal - np.roll(ideal, -1, axis=0), axis=1))) / n
    near = float(np.max(np.linalg.norm(ideal - np.roll(ideal, -1, axis=0), axis=1))) / n

    # light: a lamp or window, towards which the unit vector points (height is -z)
    elevation, heading = rng.uniform(np.radians(35), np.radians(75)), rng.uniform(0, 2 * np.pi)
    light = np.array(
        [np.cos(elevation) * np.cos(heading), np.cos(elevation) * np.sin(heading), -np.sin(elevation)]
    )
    shadow_strength = rng.uniform(0.25, 0.55)

    # the room beyond the table, then the table with what lies on it
    image = np.empty((height, width, 3), np.float32)
    image[:] = rng.uniform(30, 90, size=3)
    image *= cv2.resize(rng.uniform(0.6, 1.2, size=(6, 8)).astype(np.float32), (width, height))[..., None]
    texture, table_world, look, table_scale = _table_texture(rng, cond, camera, px_per_square)
    dressed = _dress_table(rng, cond, texture, table_world, camera, n, max(12, int(round(table_scale))))

    faces, on_kingdom, on_table, castle_centre, kings_on = _solids(rng, cond, played, frame_to_world, light)
    scale = int(np.clip(near * 1.15, 60, 320))
    layer = kingdom_layer(rng, played, art, scale)
    layer_world = _layer_to_world(layer, frame_to_world)
    _darken(layer, layer_world, on_kingdom, shadow_strength)
    # the kingdom's own shadow on the table: each laid square's outline pushed away from the light by its
    # thickness (a hole is lit but near the edge of the tile on the light's side)
    on_table.extend(_tiles_shadows(played, frame_to_world, light))
    table_layer = Layer(texture, np.ones(texture.shape[:2], np.float32), table_scale, 0.0)
    _darken(table_layer, table_world, on_table, shadow_strength)

    h_table = camera.plane_homography(table_world, 0.0)
    warp = dict(dsize=(width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    _blend(
        image,
        cv2.warpPerspective(texture, h_table, **warp),
        cv2.warpPerspective(table_layer.mask, h_table, **warp),
    )
    del texture, table_layer
    h_side, h_top = (
        camera.plane_homography(layer_world, 0.0),
        camera.plane_homography(layer_world, -THICKNESS),
    )
    side = cv2.warpPerspective(layer.mask, h_side, **warp)
    _blend(image, np.broadcast_to(np.array(EDGE_COLOUR, np.float32), image.shape), side)
    _blend(
        image, cv2.warpPerspective(layer.image, h_top, **warp), cv2.warpPerspective(layer.mask, h_top, **warp)
    )
    solids.draw(image, faces, camera, -light if light[2] > 0 else light)

    # light on the scene, then the lens, the hand and the sensor
    dim = cond["light"] == "dim"
    image *= optics.light_field(
        rng, width, height, rng.uniform(0.15, 0.45), rng.uniform(0.05, 0.35), bool(rng.random() < 0.3)
    )[..., None]
    image = optics.distort(image, cond["k1"], focal)
    if cond["blur"] == "motion":
        image = optics.motion_blur(image, cond["blur_px"], rng.uniform(0, np.pi))
    elif cond["blur"] == "focus":
        image = cv2.GaussianBlur(image, (0, 0), cond["blur_px"])
    whites = {
        "normal": (1.0, 1.0, 1.0),
        "warm": (0.62, 0.84, 1.08),
        "cold": (1.12, 1.0, 0.8),
        "dim": (1.0, 1.0, 1.0),
    }
    white = np.array(whites[cond["light"]], np.float32) * rng.uniform(0.95, 1.05, size=3).astype(np.float32)
    if cond["dim_warm"]:
        white *= np.array((0.62, 0.84, 1.08), np.float32)
    exposure = rng.uniform(0.2, 0.4) if dim else rng.uniform(0.8, 1.15)
    iso, smoothing = (rng.uniform(3, 6), rng.uniform(1.1, 1.6)) if dim else (rng.uniform(0.5, 2), 0.8)
    photo = optics.sensor(rng, image, exposure, white, iso, smoothing)
    ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, cond["jpeg_quality"]])
    if not ok:
        raise RuntimeError("JPEG encoding failed")

    corners = optics.distorted(ideal, cond["k1"], focal, width, height)
    base_point = np.array([[castle_centre[0], castle_centre[1], -THICKNESS]])
    raised = np.array([[castle_centre[0], castle_centre[1], -THICKNESS - 0.7]])
    # where the castle's top stands over the grid as the photo shows it, in squares (columns, rows)
    to_grid = np.linalg.inv(camera.plane_homography(frame_to_world, -THICKNESS))
    seen = (
        np.concatenate([camera.project(np.concatenate([base_point, raised])), np.ones((2, 1))], 1) @ to_grid.T
    )
    lean_to = seen[1, :2] / seen[1, 2] - seen[0, :2] / seen[0, 2]
    lean = float(np.linalg.norm(lean_to))
    empty = sum(square == EMPTY_SQUARE for _, square in played.kingdom.cells())
    cond.update(
        table=look,
        px_per_square=round(px_per_square, 1),
        empty_squares=int(empty),
        castle_lean=round(lean if cond["castle"] else 0.0, 2),
        castle_lean_to=[round(float(lean_to[1]), 2), round(float(lean_to[0]), 2)],  # rows, columns
        castle_cell=list(played.castle),
        kings_on=kings_on,
        neighbour_seen=dressed["neighbour_seen"],
        loose_seen=dressed["loose_seen"],
    )
    truth = {
        "seed": seed,
        "grid_size": n,
        "grid": [[square.to_dict() for square in row] for row in played.kingdom.squares],
        "base_score": score_kingdom(played.kingdom).base,
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
        "conditions": cond,
    }
    return jpeg.tobytes(), truth
