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

The tables are drawn by ``benchmarks.hard_tables``, the castle and the kings by ``benchmarks.hard_objects``;
this module draws the conditions, places the camera and assembles the photo.

Same seed, same arguments -> same scene, pixel for pixel. The truth is a ``benchmarks.scenes.Scene``
(kingdom as labelled, corners of the frame on the table plane) with the class and the drawn conditions
in ``params``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.hard_objects import _shadow_of, castle_faces, draw_objects, meeple_faces, project_points
from benchmarks.hard_tables import CM, STRONG_COLOURS, _hard_table, _noise, cutting_mat
from benchmarks.scenes import (
    SQUARE_PX,
    Scene,
    Sheet,
    TilePool,
    _board_squares,
    _is_mirrored,
    _place_kingdom,
    _project,
    box_kingdom,
    camera_projection,
    fits_photo,
    light_falloff,
    tiled_kingdom,
    world_canvas,
)
from kingdomino.board import EMPTY_SQUARE, Kingdom, Terrain

__all__ = [  # the tables and the objects live in their own modules; their public names stay importable here
    "CM",
    "CONDITIONS",
    "LIGHTS",
    "OPTION_NAMES",
    "PHOTO_SIZES",
    "SIDES",
    "SQUARE_PX",
    "STRONG_COLOURS",
    "TABLES",
    "castle_faces",
    "condition_for_seed",
    "cutting_mat",
    "draw_objects",
    "generate_hard_scene",
    "main",
    "meeple_faces",
    "plane_homography",
    "project_points",
]

CONDITIONS = ("castle", "mat", "cloth", "neighbour", "blur", "steep_dim", "light", "small", "mixed")
PHOTO_SIZES = ((4000, 3000), (3000, 4000), (4032, 3024), (3024, 4032))  # 12-megapixel phones
TABLES = ("plain", "mat", "grid", "gingham", "pattern")
LIGHTS = ("normal", "warm", "cold", "dim")


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
    """(3×4 projection world -> image, normalised, camera centre): the scenes' camera, kept whole so that
    tall objects project with it too."""
    projection, centre = camera_projection(rng, width, height, kingdom_width, fraction, tilt_deg)
    return projection / projection[2, 3], centre


def plane_homography(projection: np.ndarray) -> np.ndarray:
    """The table plane's (z = 0) homography of a 3×4 projection."""
    return projection[:, [0, 1, 3]]


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
    gain = light_falloff(rng, h, w)
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
    tiles: TilePool | None = None,
) -> Scene:
    """One hard table photo of class ``condition`` (by default the seed's class), built from ``boards``
    (by default the boards of the kingdoms held out of the bench model's training).

    ``overrides`` replaces drawn conditions (keys of ``OPTION_NAMES``, e.g. ``{"castle": False}``) and
    leaves every other draw as it was, so two scenes that differ by one condition can be compared.
    ``tiles`` tiles the kingdom from that pool's single-square tiles (``scenes.tiled_kingdom``; 5×5 or
    ``grid_size``) instead of a board; ``params["tile_photos"]`` then names each square's source photo.
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
    tile_photos = None
    if tiles is not None:
        squares, kingdom, tile_photos = tiled_kingdom(rng, tiles, grid_size)
    elif grid_size == 5:
        squares, kingdom = _board_squares(board)
    else:
        squares, kingdom = box_kingdom(rng, names, grid_size)
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
        inside = fits_photo(corners, width, height)
        if inside and not _is_mirrored(corners):
            break
        if inside:  # mirrored: flip the camera's x axis
            projection = np.array([[-1.0, 0, width], [0, 1, 0], [0, 0, 1]]) @ projection
            break
        fraction *= 0.93
    homography = plane_homography(projection)
    corners = _project(homography, frame)

    inverse = np.linalg.inv(homography)
    lo, scale, cw, ch = world_canvas(homography, width, height, frame_width)
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
    sheet = Sheet(canvas, shadow, pitch, side_shift, shadow_shift, scale)
    objects: list[dict] = []

    others = [b for b in (names if len(names) > 1 else [board]) if b != board] or [board]
    neighbour_side = None
    if options["neighbour"] is not None:
        neighbour_side = _place_neighbour(
            rng,
            options["neighbour"],
            others,
            sheet,
            to_canvas,
            homography,
            inverse,
            (width, height),
            half,
            objects,
        )

    start = to_canvas @ np.array([[1, 0, gap / 2 - half], [0, 1, gap / 2 - half], [0, 0, 1]], float)
    _place_kingdom(rng, sheet, squares, present, castle, start, rng.uniform(0.5, 3.0))

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
    if tile_photos is not None:
        params["tile_photos"] = tile_photos
    return Scene(image, labelled, corners.astype(np.float64), seed, board, params)


SIDES = ("top", "right", "bottom", "left")


def _place_neighbour(
    rng,
    kind,
    others,
    sheet: Sheet,
    to_canvas,
    homography,
    inverse,
    photo,
    half,
    objects,
) -> str | None:
    """Another kingdom, or two to four loose dominoes, lying across an edge of the photo and clear of the
    kingdom. Returns the side of the photo it is cut by (None if no place was found)."""
    width, height = photo
    pitch = sheet.pitch
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
        _place_kingdom(rng, sheet, other_squares, present, None, to_canvas @ place, 2.0)
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
            _place_kingdom(rng, sheet, other_squares, present, None, to_canvas @ place, 0.0)
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
