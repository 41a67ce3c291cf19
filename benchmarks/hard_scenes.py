"""Hard table photos: the conditions players' real tables show and our default scenes are gentle on.

Each scene belongs to one *condition class* (``CONDITIONS``), so that results can be reported per class;
the class is chosen by the seed (``condition_for_seed``) unless given. On top of a baseline that every
class shares (a 12-megapixel phone photo, an ordinary table, sometimes the castle model and the kings),
the class adds its condition:

- ``castle``: the cardboard castle (four walls with corner towers, open top, in a player's colour,
  0.6-0.8 of a square high) modelled in 3D and drawn through the camera's own projection, so it leans
  over the squares beyond it; a close, tilted camera; king meeples standing on squares.
- ``mat``: a self-healing cutting mat (1 cm grid, thicker lines every 5 cm, rulers and numbers along its
  edges) under the kingdom, or a printed grid whose cell is close to a square's size.
- ``cloth``: a checkered (gingham) or printed (swirls, flowers) cloth of a strong colour, showing
  through the empty squares of an incomplete kingdom.
- ``neighbour``: another player's kingdom or loose dominoes cut by an edge of the photo, on any side.
- ``blur``: camera shake, a motion blur of up to 40 px.
- ``steep_dim``: a camera tilted 40-55 degrees in dim light.
- ``light``: warm, cold or dim light.
- ``small``: 40-80 px per square.
- ``mixed``: every condition above drawn independently, so they also come together.

Same seed, same arguments -> same scene, pixel for pixel. The truth is a ``benchmarks.scenes.Scene``
(kingdom as labelled, corners of the frame on the table plane) with the class and the drawn conditions
in ``params``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.scenes import (
    CASTLE_COLOURS,
    SQUARE_PX,
    Scene,
    _board_squares,
    _is_mirrored,
    _mixed_kingdom,
    _place_kingdom,
    _project,
    _table,
)
from kingdomino.board import EMPTY_SQUARE, Kingdom, Terrain

CONDITIONS = ("castle", "mat", "cloth", "neighbour", "blur", "steep_dim", "light", "small", "mixed")
PHOTO_SIZES = ((4000, 3000), (3000, 4000), (4032, 3024), (3024, 4032))  # 12-megapixel phones
TABLES = ("plain", "mat", "grid", "gingham", "pattern")
LIGHTS = ("normal", "warm", "cold", "dim")
CM = SQUARE_PX / 4.4  # world units per centimetre: a Kingdomino square is about 4.4 cm wide
STRONG_COLOURS = {  # BGR cloths of strong colours
    "blue": (150, 80, 30),
    "green": (60, 130, 40),
    "red": (40, 40, 175),
    "ochre": (40, 140, 200),
}


OPTION_NAMES = (
    "castle",
    "meeples",
    "meeples_on_squares",
    "table",
    "tilt",
    "px_per_square",
    "light",
    "blur_px",
    "neighbour",
    "missing",
    "object_shadows",
)


def condition_for_seed(seed: int) -> str:
    """The condition class a seed belongs to (the classes take turns, so any seed range is balanced)."""
    return CONDITIONS[seed % len(CONDITIONS)]


# --- what a scene shows ----------------------------------------------------------------------------
def _options(rng: np.random.Generator, condition: str) -> dict:
    """The drawn conditions of one scene: a shared baseline, then the class's own condition."""
    options = {
        "castle": bool(rng.random() < 0.5),
        "meeples": int(rng.integers(0, 3)),
        "meeples_on_squares": bool(rng.random() < 0.4),
        "table": "plain",
        "tilt": float(rng.uniform(0, 35)),
        "px_per_square": float(rng.uniform(60, 250)),
        "light": "normal",
        "blur_px": 0.0,
        "neighbour": None,
        "missing": int(rng.integers(1, 4)) if rng.random() < 0.3 else 0,
        "object_shadows": True,
    }
    draws = {  # drawn every time, whatever the class, so that classes do not shift each other's seeds
        "table_mat": "mat" if rng.random() < 0.7 else "grid",
        "table_cloth": "gingham" if rng.random() < 0.5 else "pattern",
        "neighbour": "kingdom" if rng.random() < 0.6 else "dominoes",
        "blur": float(rng.uniform(15, 40)),
        "steep": float(rng.uniform(40, 55)),
        "close": float(rng.uniform(120, 400)),
        "castle_tilt": float(rng.uniform(2, 40)),
        "small": float(rng.uniform(40, 80)),
        "light": LIGHTS[1 + int(rng.integers(3))],
        "missing": int(rng.integers(2, 6)),
        "mixed": rng.random(8),
        "mixed_table": TABLES[int(rng.integers(len(TABLES)))],
        "mixed_light": LIGHTS[int(rng.integers(len(LIGHTS)))],
        "mixed_px": float(math.exp(rng.uniform(math.log(40), math.log(400)))),
        "mixed_tilt": float(rng.uniform(0, 55)),
        "mixed_blur": float(rng.uniform(5, 40)),
    }
    if condition == "castle":
        options.update(castle=True, tilt=draws["castle_tilt"], px_per_square=draws["close"])
        options.update(meeples=max(1, options["meeples"]), meeples_on_squares=True)
    elif condition == "mat":
        options["table"] = draws["table_mat"]
    elif condition == "cloth":
        options.update(table=draws["table_cloth"], missing=draws["missing"])
    elif condition == "neighbour":
        options.update(neighbour=draws["neighbour"], px_per_square=min(options["px_per_square"], 180))
    elif condition == "blur":
        options["blur_px"] = draws["blur"]
    elif condition == "steep_dim":
        options.update(tilt=draws["steep"], light="dim")
    elif condition == "light":
        options["light"] = draws["light"]
    elif condition == "small":
        options["px_per_square"] = draws["small"]
    elif condition == "mixed":
        on = draws["mixed"] < np.array([0.6, 0.6, 0.35, 0.3, 0.5, 0.5, 0.5, 0.3])
        options["castle"] = bool(on[0])
        options["table"] = draws["mixed_table"] if on[1] else "plain"
        options["neighbour"] = draws["neighbour"] if on[2] else None
        options["blur_px"] = draws["mixed_blur"] if on[3] else 0.0
        options["light"] = draws["mixed_light"] if on[4] else "normal"
        options["px_per_square"] = draws["mixed_px"] if on[5] else options["px_per_square"]
        options["tilt"] = draws["mixed_tilt"] if on[6] else options["tilt"]
        options["missing"] = draws["missing"] if on[7] else options["missing"]
    elif condition not in CONDITIONS:
        raise ValueError(f"unknown condition class {condition!r} (one of {', '.join(CONDITIONS)})")
    return options


def _missing_squares(
    rng: np.random.Generator, present: np.ndarray, castle: tuple[int, int] | None, count: int
) -> np.ndarray:
    """Take ``count`` squares away, corners first half the time, never a whole edge row or column."""
    n = present.shape[0]
    corners = [(0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1)]
    for _ in range(count * 4):
        if (~present).sum() >= count:
            break
        if rng.random() < 0.5:
            r, c = corners[int(rng.integers(4))]
        else:
            r, c = (int(v) for v in rng.integers(n, size=2))
        trial = present.copy()
        trial[r, c] = False
        if (r, c) != castle and trial.any(0).all() and trial.any(1).all():
            present = trial
    return present


# --- camera ----------------------------------------------------------------------------------------
def _camera(
    rng: np.random.Generator, width: int, height: int, kingdom_width: float, fraction: float, tilt_deg: float
) -> tuple[np.ndarray, np.ndarray]:
    """(3×4 projection world (x, y, z up) -> image, camera centre in the world) of a phone looking down at
    the kingdom centred at the origin. Its first, second and last columns are the table plane's homography."""
    focal = width * rng.uniform(0.75, 1.25)
    tilt = math.radians(tilt_deg)
    azimuth = rng.uniform(0, 2 * math.pi)
    roll = rng.uniform(0, 2 * math.pi)
    distance = focal * kingdom_width / (fraction * width)
    target = np.r_[rng.uniform(-0.08, 0.08, 2) * kingdom_width, 0]
    centre = target + distance * np.array(
        [math.sin(tilt) * math.cos(azimuth), math.sin(tilt) * math.sin(azimuth), math.cos(tilt)]
    )
    forward = (target - centre) / np.linalg.norm(target - centre)
    ref = np.array([math.cos(azimuth + math.pi / 2), math.sin(azimuth + math.pi / 2), 0.0])
    right = np.cross(forward, np.cross(ref, forward))
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    cr, sr = math.cos(roll), math.sin(roll)
    right, down = cr * right + sr * down, -sr * right + cr * down
    rotation = np.stack([right, down, forward])
    k = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
    projection = k @ np.c_[rotation, -rotation @ centre]
    return projection / projection[2, 3], centre


def plane_homography(projection: np.ndarray) -> np.ndarray:
    """The table plane's (z = 0) homography of a 3×4 projection."""
    return projection[:, [0, 1, 3]]


def project_points(projection: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Image pixels of (n, 3) world points."""
    p = np.c_[points, np.ones(len(points))] @ projection.T
    return p[:, :2] / p[:, 2:3]


# --- tables ----------------------------------------------------------------------------------------
def _wrinkles(rng: np.random.Generator, height: int, width: int, strength: float) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, height // 150), max(2, width // 150))).astype(np.float32)
    return 1 + strength * cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)


def _noise(rng: np.random.Generator, shape: tuple, sigma: float) -> np.ndarray:
    """Gaussian noise drawn by OpenCV (several times faster than numpy on a 12-megapixel photo), seeded
    from ``rng`` so that the scene stays the same each run."""
    noise = np.empty(shape, np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31 - 1)))
    cv2.randn(noise, 0.0, float(sigma))
    return noise


def _finish(image: np.ndarray, rng: np.random.Generator, wrinkles: float, noise: float) -> np.ndarray:
    """A float picture of a cloth or print, shaded by its folds, with a little noise, as 8-bit."""
    image *= _wrinkles(rng, image.shape[0], image.shape[1], wrinkles)[..., None]
    image += _noise(rng, image.shape, noise)
    return np.clip(image, 0, 255, out=image).astype(np.uint8)


def _plain_table(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """An ordinary table (``benchmarks.scenes``' wood, cloth, laminate or felt), drawn at half size."""
    small = _table(rng, height // 2 + 1, width // 2 + 1)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def _rotated_coordinates(height: int, width: int, angle: float) -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(width, dtype=np.float32)[None, :]
    y = np.arange(height, dtype=np.float32)[:, None]
    c, s = np.float32(math.cos(angle)), np.float32(math.sin(angle))
    return x * c + y * s, y * c - x * s


def cutting_mat(rng: np.random.Generator, px_per_cm: float) -> np.ndarray:
    """A self-healing cutting mat (A2 or A1) drawn flat: 1 cm grid, thicker lines every 5 cm, rulers
    and numbers along the edges."""
    w_cm, h_cm = (60, 45) if rng.random() < 0.6 else (90, 60)
    w, h = int(w_cm * px_per_cm), int(h_cm * px_per_cm)
    colour = [(140, 90, 25), (70, 125, 35), (45, 45, 45)][int(rng.choice(3, p=[0.5, 0.35, 0.15]))]
    mat = np.empty((h, w, 3), np.float32)
    mat[:] = np.array(colour, np.float32) * rng.uniform(0.85, 1.15)
    line = np.array((235, 240, 240) if rng.random() < 0.8 else (80, 220, 240), np.float32)
    layer = np.zeros((h, w), np.uint8)
    margin = 2.0  # cm of plain mat and rulers around the grid
    thin = max(1, int(round(0.03 * px_per_cm)))
    for k in range(int(margin), int(w_cm - margin) + 1):
        x = int(k * px_per_cm)
        cv2.line(
            layer,
            (x, int(margin * px_per_cm)),
            (x, int((h_cm - margin) * px_per_cm)),
            255,
            thin * (3 if k % 5 == 0 else 1),
            cv2.LINE_AA,
        )
    for k in range(int(margin), int(h_cm - margin) + 1):
        y = int(k * px_per_cm)
        cv2.line(
            layer,
            (int(margin * px_per_cm), y),
            (int((w_cm - margin) * px_per_cm), y),
            255,
            thin * (3 if k % 5 == 0 else 1),
            cv2.LINE_AA,
        )
    if rng.random() < 0.5:  # the 45-degree guide lines some mats print
        cv2.line(layer, (int(margin * px_per_cm),) * 2, (int((h_cm - margin) * px_per_cm),) * 2, 255, thin)
    font_scale = 0.028 * px_per_cm
    for k in range(0, int(w_cm) + 1):  # rulers: ticks every centimetre, numbers every one or two
        x = int(k * px_per_cm)
        for y0, sign in ((0, 1), (h - 1, -1)):
            length = (0.9 if k % 5 == 0 else 0.5) * px_per_cm
            cv2.line(layer, (x, y0), (x, int(y0 + sign * length)), 255, thin, cv2.LINE_AA)
        if k % 2 == 0 and 0 < k < w_cm:
            cv2.putText(
                layer,
                str(k),
                (x + 2, int(1.6 * px_per_cm)),
                cv2.FONT_HERSHEY_SIMPLEX,
                font_scale,
                255,
                max(1, thin),
                cv2.LINE_AA,
            )
    for k in range(0, int(h_cm) + 1):
        y = int(k * px_per_cm)
        for x0, sign in ((0, 1), (w - 1, -1)):
            length = (0.9 if k % 5 == 0 else 0.5) * px_per_cm
            cv2.line(layer, (x0, y), (int(x0 + sign * length), y), 255, thin, cv2.LINE_AA)
        if k % 2 == 0 and 0 < k < h_cm:
            cv2.putText(
                layer,
                str(k),
                (int(1.0 * px_per_cm), y - 2),
                cv2.FONT_HERSHEY_SIMPLEX,
                font_scale,
                255,
                max(1, thin),
                cv2.LINE_AA,
            )
    alpha = rng.uniform(0.55, 0.85) * (layer.astype(np.float32) / 255)[..., None]
    mat = mat * (1 - alpha) + line * alpha
    return _finish(mat.astype(np.float32), rng, 0.03, 4)


def _printed_grid(
    rng: np.random.Generator, height: int, width: int, cell_px: float, angle: float
) -> np.ndarray:
    """A printed grid (game mat, graph-paper cloth) with cells close to a square's size."""
    u, v = _rotated_coordinates(height, width, angle)
    half_line = max(0.8, cell_px * rng.uniform(0.015, 0.05))
    on_line = (np.abs((u + cell_px / 2) % cell_px - cell_px / 2) < half_line) | (
        np.abs((v + cell_px / 2) % cell_px - cell_px / 2) < half_line
    )
    background = [(225, 230, 232), (200, 215, 230), (150, 80, 30), (60, 130, 40)][int(rng.integers(4))]
    ink = [(60, 60, 60), (150, 110, 40), (240, 240, 240), (40, 40, 160)][int(rng.integers(4))]
    image = np.array([background, ink], np.float32)[on_line.astype(np.uint8)]
    return _finish(image, rng, 0.05, 3)


def _gingham(rng: np.random.Generator, height: int, width: int, cell_px: float, angle: float) -> np.ndarray:
    """A checkered cloth: stripes of a strong colour crossing on white, three tones, a little crumpled."""
    colour = list(STRONG_COLOURS.values())[int(rng.integers(len(STRONG_COLOURS)))]
    u, v = _rotated_coordinates(height, width, angle)
    warp = (_wrinkles(rng, height, width, 1.0) - 1) * np.float32(0.2 * cell_px)
    tones = (np.floor((u + warp) / cell_px).astype(np.int32) & 1) + (
        np.floor((v + warp) / cell_px).astype(np.int32) & 1
    )
    white = np.array((235, 238, 240), np.float32)
    palette = np.stack([white, (white + colour) / 2, np.array(colour, np.float32)])  # white, mixed, full
    return _finish(palette[tones.astype(np.uint8)], rng, 0.08, 3)


def _patterned_cloth(rng: np.random.Generator, height: int, width: int, motif_px: float) -> np.ndarray:
    """A cloth of a strong colour printed with swirls or flowers of a contrasting colour."""
    colour = list(STRONG_COLOURS.values())[int(rng.integers(len(STRONG_COLOURS)))]
    image = np.empty((height, width, 3), np.uint8)
    image[:] = colour
    ink = [(60, 210, 240), (235, 235, 235), (40, 40, 180), (40, 170, 230)][int(rng.integers(4))]
    flowers = rng.random() < 0.5
    step = motif_px * rng.uniform(0.9, 1.6)
    thickness = max(1, int(motif_px * 0.05))
    for y in np.arange(0, height + step, step):
        for x in np.arange(0, width + step, step):
            cx, cy = x + rng.uniform(-0.3, 0.3) * step, y + rng.uniform(-0.3, 0.3) * step
            size = motif_px * rng.uniform(0.25, 0.45)
            if flowers:
                for k in range(5):
                    a = 2 * math.pi * k / 5 + rng.uniform(0, 0.3)
                    centre = (int(cx + 0.6 * size * math.cos(a)), int(cy + 0.6 * size * math.sin(a)))
                    axes = (max(1, int(0.45 * size)), max(1, int(0.22 * size)))
                    cv2.ellipse(image, centre, axes, math.degrees(a), 0, 360, ink, -1, cv2.LINE_AA)
                cv2.circle(image, (int(cx), int(cy)), max(1, int(0.25 * size)), (30, 30, 30), -1, cv2.LINE_AA)
            else:
                turns = rng.uniform(1.5, 2.5)
                t = np.linspace(0, turns * 2 * math.pi, 40)
                r = size * t / t[-1]
                start = rng.uniform(0, 2 * math.pi)
                points = np.c_[cx + r * np.cos(t + start), cy + r * np.sin(t + start)]
                cv2.polylines(image, [np.int32(points)], False, ink, thickness, cv2.LINE_AA)
    return _finish(image.astype(np.float32), rng, 0.08, 3)


def _hard_table(
    rng: np.random.Generator, kind: str, height: int, width: int, scale: float, lo: np.ndarray, pitch: float
) -> np.ndarray:
    """The table under the kingdom, on the world canvas (world units × ``scale``, offset ``lo``)."""
    if kind == "plain":
        return _plain_table(rng, height, width)
    angle = rng.uniform(0, math.pi)
    if kind == "grid":
        return _printed_grid(rng, height, width, pitch * rng.uniform(0.8, 1.25) * scale, angle)
    if kind == "gingham":
        return _gingham(rng, height, width, pitch * rng.uniform(0.2, 1.2) * scale, angle)
    if kind == "pattern":
        return _patterned_cloth(rng, height, width, pitch * rng.uniform(0.6, 1.5) * scale)
    # a cutting mat on an ordinary table, under the kingdom, turned a little and off-centre
    canvas = _plain_table(rng, height, width)
    mat = cutting_mat(rng, CM * scale)
    mh, mw = mat.shape[:2]
    turn = rng.uniform(-25, 25)
    world_centre = rng.uniform(-0.15, 0.15, 2) * np.array([mw, mh]) / scale
    centre = (world_centre - lo) * scale
    matrix = cv2.getRotationMatrix2D((mw / 2, mh / 2), turn, 1.0)
    matrix[:, 2] += centre - np.array([mw / 2, mh / 2])
    warped = cv2.warpAffine(mat, matrix, (width, height), flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(np.full((mh, mw), 255, np.uint8), matrix, (width, height))
    alpha = (mask.astype(np.float32) / 255)[..., None]
    if rng.random() < 0.4:  # a crumpled cloth along one side of the photo's table
        side = int(rng.integers(4))
        band = int(0.2 * (width if side % 2 else height))
        rows = slice(None) if side % 2 else (slice(0, band) if side == 0 else slice(height - band, height))
        cols = slice(None) if side % 2 == 0 else (slice(width - band, width) if side == 1 else slice(0, band))
        part = canvas[rows, cols]
        part[:] = _gingham(rng, part.shape[0], part.shape[1], 25 * scale, rng.uniform(0, math.pi))
    return (warped * alpha + canvas * (1 - alpha)).astype(np.uint8)


# --- 3D objects: the castle model and the kings ----------------------------------------------------
def _prism(
    centre: np.ndarray, radius_bottom: float, radius_top: float, z0: float, z1: float, sides: int, turn: float
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Faces (3D polygon, outward normal) of a closed prism or frustum around a vertical axis."""
    angles = turn + 2 * math.pi * (np.arange(sides) + 0.5) / sides
    ring = np.c_[np.cos(angles), np.sin(angles)]
    bottom = np.c_[centre + radius_bottom * ring, np.full(sides, z0)]
    top = np.c_[centre + radius_top * ring, np.full(sides, z1)]
    faces = []
    for k in range(sides):
        j = (k + 1) % sides
        quad = np.array([bottom[k], bottom[j], top[j], top[k]])
        mid = (angles[k] + angles[j]) / 2 + (math.pi if j == 0 else 0)
        normal = np.array([math.cos(mid), math.sin(mid), (radius_bottom - radius_top) / max(z1 - z0, 1e-6)])
        faces.append((quad, normal / np.linalg.norm(normal)))
    faces.append((top, np.array([0.0, 0.0, 1.0])))
    return faces


def _box_faces(centre: np.ndarray, length: float, depth: float, z0: float, z1: float, turn: float):
    along = np.array([math.cos(turn), math.sin(turn)])
    across = np.array([-along[1], along[0]])
    corners2 = [
        centre - along * length / 2 - across * depth / 2,
        centre + along * length / 2 - across * depth / 2,
        centre + along * length / 2 + across * depth / 2,
        centre - along * length / 2 + across * depth / 2,
    ]
    bottom = [np.r_[c, z0] for c in corners2]
    top = [np.r_[c, z1] for c in corners2]
    normals2 = [-across, along, across, -along]
    for k in range(4):
        j = (k + 1) % 4
        yield np.array([bottom[k], bottom[j], top[j], top[k]]), np.r_[normals2[k], 0.0]
    yield np.array(top), np.array([0.0, 0.0, 1.0])


def castle_faces(rng: np.random.Generator, centre: np.ndarray) -> tuple[list[dict], float]:
    """The faces of a castle model standing on ``centre`` (world units) and its height."""
    colour = np.array(CASTLE_COLOURS[int(rng.integers(len(CASTLE_COLOURS)))], np.float64)
    colour = np.clip(colour * rng.uniform(0.85, 1.1, 3), 0, 255)
    side = rng.uniform(0.7, 0.85) * SQUARE_PX
    height = rng.uniform(0.6, 0.8) * SQUARE_PX
    turn = math.radians(rng.uniform(-8, 8))
    centre = centre + rng.uniform(-0.04, 0.04, 2) * SQUARE_PX
    thickness = 0.05 * SQUARE_PX
    along = np.array([math.cos(turn), math.sin(turn)])
    across = np.array([-along[1], along[0]])
    faces: list[dict] = []

    def add(parts, shade: float = 1.0, courses: bool = False) -> None:
        for polygon, normal in parts:
            lines = []
            if courses and abs(normal[2]) < 0.5:  # stone courses on the walls
                z0, z1 = polygon[:, 2].min(), polygon[:, 2].max()
                low = polygon[polygon[:, 2] <= z0 + 1e-6]
                for level in np.linspace(z0, z1, 6)[1:-1]:
                    lines.append((np.r_[low[0][:2], level], np.r_[low[-1][:2], level]))
            faces.append({"polygon": polygon, "normal": normal, "colour": colour * shade, "lines": lines})

    for sign_a, sign_b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):  # corner towers
        foot = centre + (sign_a * along + sign_b * across) * side / 2
        add(_prism(foot, 0.11 * SQUARE_PX, 0.11 * SQUARE_PX, 0, height * 1.15, 8, turn), 0.95, True)
    for k in range(4):  # walls between the towers, a few merlons on each
        direction = turn + k * math.pi / 2
        out = np.array([math.cos(direction - math.pi / 2), math.sin(direction - math.pi / 2)])
        mid = centre + out * (side / 2 - thickness / 2)
        add(_box_faces(mid, side, thickness, 0, height, direction), 1.0, True)
        w_along = np.array([math.cos(direction), math.sin(direction)])
        for offset in (-0.22, 0.0, 0.22):
            add(
                _box_faces(
                    mid + w_along * offset * side,
                    0.09 * SQUARE_PX,
                    thickness,
                    height,
                    height + 0.07 * SQUARE_PX,
                    direction,
                )
            )
        if k == int(rng.integers(4)):  # a door: a dark panel just outside one wall
            door = mid + out * (thickness / 2 + 0.3)
            a, b = door - w_along * 0.1 * SQUARE_PX, door + w_along * 0.1 * SQUARE_PX
            polygon = np.array([np.r_[a, 0], np.r_[b, 0], np.r_[b, 0.3 * height], np.r_[a, 0.3 * height]])
            faces.append(
                {"polygon": polygon, "normal": np.r_[out, 0.0], "colour": colour * 0.35, "lines": []}
            )
    return faces, height * 1.15


def meeple_faces(rng: np.random.Generator, centre: np.ndarray) -> tuple[list[dict], float]:
    """A king meeple: a body widening to the foot, a head and a crown, in a player's colour."""
    colour = np.array(CASTLE_COLOURS[int(rng.integers(len(CASTLE_COLOURS)))], np.float64)
    size = rng.uniform(0.85, 1.15) * SQUARE_PX
    turn = rng.uniform(0, math.pi)
    faces = []
    for parts, shade in (
        (_prism(centre, 0.16 * size, 0.09 * size, 0, 0.3 * size, 8, turn), 1.0),
        (_prism(centre, 0.08 * size, 0.08 * size, 0.3 * size, 0.4 * size, 8, turn), 1.05),
        (_prism(centre, 0.09 * size, 0.1 * size, 0.4 * size, 0.47 * size, 6, turn), 0.8),
    ):
        for polygon, normal in parts:
            faces.append({"polygon": polygon, "normal": normal, "colour": colour * shade, "lines": []})
    return faces, 0.47 * size


def draw_objects(
    image: np.ndarray, projection: np.ndarray, camera: np.ndarray, faces: list[dict], light: np.ndarray
) -> None:
    """Draw 3D faces on the photo, far ones first, faces turned away from the camera skipped, lit by a
    lamp in direction ``light`` (unit vector towards it)."""
    visible = []
    for face in faces:
        polygon = face["polygon"]
        middle = polygon.mean(0)
        if float(face["normal"] @ (camera - middle)) <= 0:
            continue
        visible.append((float(np.linalg.norm(camera - middle)), face))
    visible.sort(key=lambda item: -item[0])
    for _, face in visible:
        lit = 0.55 + 0.45 * max(0.0, float(face["normal"] @ light))
        colour = np.clip(face["colour"] * lit, 0, 255).tolist()
        points = project_points(projection, face["polygon"])
        cv2.fillConvexPoly(image, np.round(points * 4).astype(np.int32), colour, cv2.LINE_AA, 2)
        side = float(np.linalg.norm(points.max(0) - points.min(0)))
        for a, b in face["lines"]:
            ends = project_points(projection, np.array([a, b]))
            thickness = max(1, int(side / 60))
            dark = (np.array(colour) * 0.7).tolist()
            cv2.line(image, tuple(np.int32(ends[0])), tuple(np.int32(ends[1])), dark, thickness, cv2.LINE_AA)


def _shadow_of(
    shadow: np.ndarray, footprint: np.ndarray, height: float, towards: np.ndarray, reach: float, to_px
) -> None:
    """Darken the canvas shadow mask where an object of ``height`` over ``footprint`` casts its shadow."""
    cast = np.vstack([footprint, footprint + towards * height * reach])
    hull = cv2.convexHull(np.float32(to_px(cast)))
    cv2.fillConvexPoly(shadow, np.round(hull.reshape(-1, 2) * 4).astype(np.int32), 1.0, cv2.LINE_AA, 2)


# --- photo -----------------------------------------------------------------------------------------
def _motion_blur(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    """Camera shake: a straight smear of ``length`` pixels (computed on a half-size copy when long)."""
    if length < 1.5:
        return image
    factor = 2 if length > 12 else 1
    small = (
        cv2.resize(image, None, fx=1 / factor, fy=1 / factor, interpolation=cv2.INTER_AREA)
        if factor > 1
        else image
    )
    size = int(math.ceil(length / factor)) | 1
    kernel = np.zeros((size, size), np.float32)
    half = size / 2
    dx, dy = math.cos(angle) * (length / factor) / 2, math.sin(angle) * (length / factor) / 2
    cv2.line(kernel, (int(half - dx), int(half - dy)), (int(half + dx), int(half + dy)), 1.0, 1, cv2.LINE_AA)
    kernel /= kernel.sum()
    smeared = cv2.filter2D(small, -1, kernel, borderType=cv2.BORDER_REFLECT)
    if factor > 1:
        smeared = cv2.resize(smeared, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_LINEAR)
    return smeared


def _light_and_noise(rng: np.random.Generator, image: np.ndarray, light: str) -> np.ndarray:
    """Lamp colour, exposure, gradient and sensor noise of the photo."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xx / w - 0.5) * math.cos(angle) + (yy / h - 0.5) * math.sin(angle)
    radial = (xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2
    gain = 1 + rng.uniform(0, 0.5) * ramp - rng.uniform(0, 0.6) * radial
    casts = {
        "normal": ((0.85, 1.05), (0.95, 1.05), (0.95, 1.1), (0.8, 1.1), (1, 5)),
        "warm": ((0.55, 0.72), (0.82, 0.95), (1.05, 1.2), (0.75, 1.05), (2, 6)),
        "cold": ((1.08, 1.25), (0.97, 1.05), (0.7, 0.88), (0.8, 1.05), (2, 6)),
        "dim": ((0.8, 1.0), (0.85, 1.0), (0.9, 1.1), (0.4, 0.65), (5, 12)),
    }
    b, g, r, exposure, noise = casts[light]
    gain = cv2.resize(gain * rng.uniform(*exposure), (w, h))
    cast = np.array([rng.uniform(*b), rng.uniform(*g), rng.uniform(*r)], np.float32)
    out = image.astype(np.float32)
    out *= gain[..., None] * cast
    sigma = rng.uniform(0, 1.2) * max(w, h) / 2000
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    level = rng.uniform(*noise)
    out += _noise(rng, out.shape, level)
    if light == "dim":  # chroma noise in blotches, as a phone's denoiser leaves it in the dark
        out += cv2.resize(_noise(rng, (h // 6, w // 6, 3), level), (w, h))
    return np.clip(out, 0, 255, out=out).astype(np.uint8)


# --- the scene -------------------------------------------------------------------------------------
def generate_hard_scene(
    seed: int,
    condition: str | None = None,
    boards: list[str] | None = None,
    grid_size: int = 5,
    size: tuple[int, int] | None = None,
    jpeg: bool = True,
    overrides: dict | None = None,
) -> Scene:
    """One hard table photo of class ``condition`` (by default the seed's class), built from ``boards``
    (by default the boards of the kingdoms held out of the bench model's training).

    ``overrides`` replaces drawn conditions (keys of ``OPTION_NAMES``, e.g. ``{"castle": False}``) and
    leaves every other draw as it was, so two scenes that differ by one condition can be compared.
    ``params["camera"]`` holds the 3×4 projection (world units, z up) and the camera's centre."""
    from benchmarks.bench_model import held_out_boards

    condition = condition or condition_for_seed(seed)
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition class {condition!r} (one of {', '.join(CONDITIONS)})")
    rng = np.random.default_rng(seed)
    options = _options(rng, condition)
    unknown = set(overrides or {}) - set(OPTION_NAMES)
    if unknown:
        raise ValueError(f"unknown scene options {sorted(unknown)} (known: {', '.join(OPTION_NAMES)})")
    options.update(overrides or {})
    names = boards if boards is not None else held_out_boards()
    board = names[int(rng.integers(len(names)))]
    width, height = size if size is not None else PHOTO_SIZES[int(rng.integers(len(PHOTO_SIZES)))]
    squares, kingdom = _board_squares(board) if grid_size == 5 else _mixed_kingdom(rng, names, grid_size)
    n = kingdom.grid_size
    present = np.array([[kingdom[r, c].terrain != Terrain.EMPTY for c in range(n)] for r in range(n)])
    castle = next(((r, c) for (r, c), sq in kingdom.cells() if sq.terrain == Terrain.CASTLE), None)
    present = _missing_squares(rng, present, castle, options["missing"])
    labelled = Kingdom.from_rows(
        [[kingdom[r, c] if present[r, c] else EMPTY_SQUARE for c in range(n)] for r in range(n)]
    )

    gap = rng.uniform(1.0, 5.0)
    pitch = SQUARE_PX + gap
    frame_width = n * pitch
    half = frame_width / 2
    frame = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    fraction = min(0.9, options["px_per_square"] * n / width)
    for _ in range(60):
        projection, camera = _camera(rng, width, height, frame_width, fraction, options["tilt"])
        corners = _project(plane_homography(projection), frame)
        inside = (corners.min(0) > 0.02 * width).all() and (
            corners.max(0) < np.array([width, height]) * 0.98
        ).all()
        if inside and not _is_mirrored(corners):
            break
        if inside:  # mirrored: flip the camera's x axis
            projection = np.array([[-1.0, 0, width], [0, 1, 0], [0, 0, 1]]) @ projection
            break
        fraction *= 0.93
    homography = plane_homography(projection)
    corners = _project(homography, frame)

    inverse = np.linalg.inv(homography)
    seen = _project(inverse, np.array([[0, 0], [width, 0], [width, height], [0, height]], float))
    limit = 8 * frame_width
    lo = np.clip(seen.min(0), -limit, limit) - 20
    hi = np.clip(seen.max(0), -limit, limit) + 20
    scale = min(1.0, 4200 / float((hi - lo).max()))
    cw, ch = (np.ceil((hi - lo) * scale)).astype(int)
    canvas = _hard_table(rng, options["table"], ch, cw, scale, lo, pitch)
    shadow = np.zeros((ch, cw), np.float32)
    to_canvas = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]], float)

    def to_px(points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, float) - lo) * scale

    towards_camera = camera[:2] / (np.linalg.norm(camera[:2]) + 1e-9)
    azimuth, elevation = rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(35, 70))
    shadow_dir = np.array([math.cos(azimuth), math.sin(azimuth)])
    light = np.r_[-shadow_dir * math.cos(elevation), math.sin(elevation)]
    thickness = rng.uniform(2.0, 5.0) * math.sin(math.radians(options["tilt"]) + 0.1)
    side_shift = towards_camera * thickness
    shadow_shift = shadow_dir * rng.uniform(2, 8)
    objects: list[dict] = []

    others = [b for b in (names if len(names) > 1 else [board]) if b != board] or [board]
    neighbour_side = None
    if options["neighbour"] is not None:
        neighbour_side = _place_neighbour(
            rng,
            options["neighbour"],
            others,
            canvas,
            shadow,
            to_canvas,
            homography,
            inverse,
            (width, height),
            half,
            pitch,
            side_shift,
            shadow_shift,
            scale,
            objects,
        )

    start = to_canvas @ np.array([[1, 0, gap / 2 - half], [0, 1, gap / 2 - half], [0, 0, 1]], float)
    _place_kingdom(
        rng,
        canvas,
        shadow,
        squares,
        present,
        castle,
        start,
        pitch,
        side_shift,
        shadow_shift,
        scale,
        rng.uniform(0.5, 3.0),
    )

    reach = 1 / math.tan(elevation)
    if castle is not None:  # drawn either way, so that turning the castle off changes nothing else
        centre = np.array([castle[1], castle[0]]) * pitch + SQUARE_PX / 2 + gap / 2 - half
        faces, tall = castle_faces(rng, centre)
        if options["castle"]:
            objects.extend(faces)
            footprint = centre + 0.42 * SQUARE_PX * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
            if options["object_shadows"]:
                _shadow_of(shadow, footprint, tall, shadow_dir, reach, to_px)
    on_squares = []
    for index in range(options["meeples"]):
        if options["meeples_on_squares"] and index == 0 or rng.random() < 0.3:
            r, c = (int(v) for v in rng.integers(n, size=2))
            spot = np.array([c, r]) * pitch + SQUARE_PX / 2 + gap / 2 - half + rng.uniform(-20, 20, 2)
            on_squares.append([r, c])
        else:
            angle = rng.uniform(0, 2 * math.pi)
            spot = rng.uniform(1.6, 2.1) * half * np.array([math.cos(angle), math.sin(angle)])
        faces, tall = meeple_faces(rng, spot)
        objects.extend(faces)
        if options["object_shadows"]:
            foot = spot + 0.15 * SQUARE_PX * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
            _shadow_of(shadow, foot, tall, shadow_dir, reach, to_px)

    softness = int(rng.uniform(3, 9) * scale) * 2 + 1
    shadow = cv2.GaussianBlur(shadow, (softness, softness), 0)
    canvas = (
        canvas.astype(np.float32) * (1 - rng.uniform(0.25, 0.5) * np.clip(shadow, 0, 1)[..., None] * 0.6)
    ).astype(np.uint8)
    world_to_image = homography @ np.linalg.inv(np.diag([scale, scale, 1.0]) @ to_canvas)
    image = cv2.warpPerspective(
        canvas, world_to_image, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    draw_objects(image, projection, camera, objects, light)
    blur_angle = rng.uniform(0, math.pi)
    image = _motion_blur(image, options["blur_px"], blur_angle)
    image = _light_and_noise(rng, image, options["light"])
    if jpeg:
        quality = int(rng.uniform(70, 95))
        image = cv2.imdecode(
            cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR
        )
    side = float(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).mean())
    params = {
        "condition": condition,
        "tilt": round(options["tilt"], 1),
        "px_per_square": round(side / n, 1),
        "fraction": round(float(np.ptp(corners[:, 0]) / width), 3),
        "table": options["table"],
        "light": options["light"],
        "blur_px": round(options["blur_px"], 1),
        "castle_model": bool(options["castle"] and castle is not None),
        "meeples": options["meeples"],
        "meeples_on": on_squares,
        "neighbour": None if neighbour_side is None else f"{options['neighbour']}:{neighbour_side}",
        "empty_squares": int((~present).sum()),
        "gap": round(gap, 2),
        "camera": {"projection": projection.tolist(), "centre": camera.tolist()},
    }
    return Scene(image, labelled, corners.astype(np.float64), seed, board, params)


SIDES = ("top", "right", "bottom", "left")


def _place_neighbour(
    rng,
    kind,
    others,
    canvas,
    shadow,
    to_canvas,
    homography,
    inverse,
    photo,
    half,
    pitch,
    side_shift,
    shadow_shift,
    scale,
    objects,
) -> str | None:
    """Another kingdom, or two to four loose dominoes, lying across an edge of the photo and clear of the
    kingdom. Returns the side of the photo it is cut by (None if no place was found)."""
    width, height = photo
    other_squares, other = _board_squares(others[int(rng.integers(len(others)))])
    m = other.grid_size
    extent = m * pitch / 2 if kind == "kingdom" else 1.2 * pitch
    for _ in range(30):
        side = int(rng.integers(4))
        t = rng.uniform(0.15, 0.85)
        edge = [(t * width, 0), (width, t * height), (t * width, height), (0, t * height)][side]
        spot = _project(inverse, np.array([edge], float))[0]
        inward = (-0.6, 0.1) if kind == "dominoes" else (-0.3, 0.3)  # dominoes mostly inside the photo
        spot = spot + rng.uniform(*inward) * extent * spot / (np.linalg.norm(spot) + 1e-9)
        clear = np.abs(spot).max() - 1.42 * extent - half  # Chebyshev gap between the two kingdoms
        if clear < 0.3 * pitch:
            spot = spot * (1 + (0.3 * pitch - clear) / max(np.abs(spot).max(), 1.0))
        outline = spot + 1.42 * extent * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
        seen = _project(homography, outline)
        inside = (seen[:, 0] > 0) & (seen[:, 0] < width) & (seen[:, 1] > 0) & (seen[:, 1] < height)
        visible = _project(homography, spot[None])[0]
        if inside.any() and not inside.all() and 0 < visible[0] < width and 0 < visible[1] < height:
            break
    else:
        return None
    turn = rng.uniform(-math.pi, math.pi)
    rotation = np.array(
        [[math.cos(turn), -math.sin(turn), 0], [math.sin(turn), math.cos(turn), 0], [0, 0, 1]]
    )
    if kind == "kingdom":
        present = np.array([[other[r, c].terrain != Terrain.EMPTY for c in range(m)] for r in range(m)])
        local = np.array([[1, 0, -m * pitch / 2], [0, 1, -m * pitch / 2], [0, 0, 1]])
        place = np.array([[1, 0, spot[0]], [0, 1, spot[1]], [0, 0, 1]]) @ rotation @ local
        _place_kingdom(
            rng,
            canvas,
            shadow,
            other_squares,
            present,
            None,
            to_canvas @ place,
            pitch,
            side_shift,
            shadow_shift,
            scale,
            2.0,
        )
        castle = next(((r, c) for (r, c), sq in other.cells() if sq.terrain == Terrain.CASTLE), None)
        if castle is not None and rng.random() < 0.5:
            centre = (
                place @ np.array([castle[1] * pitch + SQUARE_PX / 2, castle[0] * pitch + SQUARE_PX / 2, 1])
            )[:2]
            objects.extend(castle_faces(rng, centre)[0])
    else:
        for _ in range(int(rng.integers(2, 5))):
            r0, c0 = (int(v) for v in rng.integers(0, m - 1, size=2))
            cells = [(r0, c0), (r0, c0 + 1)] if rng.random() < 0.5 else [(r0, c0), (r0 + 1, c0)]
            present = np.zeros((m, m), bool)
            for cell in cells:
                present[cell] = True
            piece_turn = rng.uniform(-math.pi, math.pi)
            turn_m = np.array(
                [
                    [math.cos(piece_turn), -math.sin(piece_turn), 0],
                    [math.sin(piece_turn), math.cos(piece_turn), 0],
                    [0, 0, 1],
                ]
            )
            middle = np.array(
                [(c0 + 0.5 + (cells[1][1] - c0) / 2) * pitch, (r0 + 0.5 + (cells[1][0] - r0) / 2) * pitch]
            )
            local = np.array([[1, 0, -middle[0]], [0, 1, -middle[1]], [0, 0, 1]])
            offset = spot + rng.uniform(-0.5, 0.5, 2) * pitch
            place = np.array([[1, 0, offset[0]], [0, 1, offset[1]], [0, 0, 1]]) @ turn_m @ local
            _place_kingdom(
                rng,
                canvas,
                shadow,
                other_squares,
                present,
                None,
                to_canvas @ place,
                pitch,
                side_shift,
                shadow_shift,
                scale,
                0.0,
            )
    return SIDES[side]


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.hard_scenes --seed S --out photo.jpg``: one hard photo and its truth."""
    import argparse
    import json
    from pathlib import Path

    from benchmarks.scenes import scene_truth

    parser = argparse.ArgumentParser(prog="python -m benchmarks.hard_scenes", description=main.__doc__)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--condition", choices=CONDITIONS, help="default: the seed's own class")
    parser.add_argument("--grid-size", type=int, choices=(5, 7), default=5)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    scene = generate_hard_scene(args.seed, condition=args.condition, grid_size=args.grid_size)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.out), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    args.out.with_suffix(".json").write_text(json.dumps(scene_truth(scene), indent=1) + "\n")
    print(f"{args.out}: board {scene.board}, {scene.params['condition']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
