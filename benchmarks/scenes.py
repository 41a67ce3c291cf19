"""Synthetic table photos of finished kingdoms, built from the real square crops in ``data/real``.

No labelled raw table photos exist, so the photo pipeline is tested and measured on scenes made here:
the real squares of a labelled board are laid out as separate dominoes (small gaps, per-domino
jitter, tile thickness, soft shadows, optional castle model, missing squares) on a textured table with
distractors (loose dominoes, kings, part of another kingdom), then projected through a perspective
camera (tilt 0-40°, any rotation) and degraded (light gradient, colour cast, noise, blur, JPEG).

Everything is drawn from ``numpy.random.default_rng(seed)``, so a seed always gives the same scene.
Labels: the kingdom as labelled (row 0 = top of the source board) and the true outer corners of the
N×N frame in image pixels, TL, TR, BR, BL of that labelled grid. ``Scene.upright()`` re-expresses both in
the scanner's orientation convention (see ``scanner.geometry.upright_rotation``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from kingdomino.board import EMPTY_SQUARE, Kingdom, Square, Terrain
from kingdomino.dominoes import DOMINOES
from scanner.geometry import upright_rotation

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "real"
SQUARE_PX = 100  # world units per square = pixel size of a square in data/real/boards
PHOTO_SIZES = ((4000, 3000), (3000, 4000), (4032, 3024), (2400, 1800), (1600, 1200), (1280, 960))
CASTLE_COLOURS = (
    (180, 110, 230),
    (60, 200, 240),
    (90, 170, 70),
    (200, 120, 40),
)  # pink yellow green blue (BGR)


@dataclass
class Scene:
    """One generated photo with its ground truth."""

    image: np.ndarray
    kingdom: Kingdom
    corners: np.ndarray  # (4, 2) float, TL TR BR BL of ``kingdom`` in image pixels
    seed: int
    board: str
    params: dict = field(default_factory=dict)

    def upright(self) -> tuple[Kingdom, np.ndarray]:
        """Kingdom and corners turned into the scanner's convention (grid as seen upright in the photo)."""
        turns = upright_rotation(self.corners)
        return rotate_kingdom(self.kingdom, turns), np.roll(self.corners, -turns, axis=0)


def rotate_kingdom(kingdom: Kingdom, turns: int) -> Kingdom:
    """The kingdom's grid re-indexed after moving corner ``turns`` (TR=1, BR=2, BL=3) to top-left."""
    grid = np.empty((kingdom.grid_size, kingdom.grid_size), dtype=object)
    for (r, c), square in kingdom.cells():
        grid[r, c] = square
    return Kingdom.from_rows(np.rot90(grid, turns).tolist())


@lru_cache(maxsize=1)
def _labels() -> dict:
    return json.loads((DATA_DIR / "labels.json").read_text())


def board_names(kingdom_ids: set[str] | None = None) -> list[str]:
    """Names of the labelled boards, optionally only those of the given kingdoms."""
    boards = _labels()["boards"]
    return sorted(n for n, b in boards.items() if kingdom_ids is None or b["kingdom_id"] in kingdom_ids)


@lru_cache(maxsize=128)
def _board_squares(name: str) -> tuple[np.ndarray, Kingdom]:
    """The 100 px square crops of one labelled board (N, N, 100, 100, 3) and its kingdom."""
    board = _labels()["boards"][name]
    image = cv2.imread(str(DATA_DIR / "boards" / name), cv2.IMREAD_COLOR)
    n = board["grid_size"]
    image = cv2.resize(image, (n * SQUARE_PX, n * SQUARE_PX), interpolation=cv2.INTER_AREA)
    squares = image.reshape(n, SQUARE_PX, n, SQUARE_PX, 3).transpose(0, 2, 1, 3, 4)
    kingdom = Kingdom.from_rows([[Square.from_dict(cell) for cell in row] for row in board["grid"]])
    return squares, kingdom


def _laid_squares(names) -> Iterator[tuple[np.ndarray, Square]]:
    """(image, square) of every square laid on the boards ``names`` (castles included, empty ones not), in
    board order, then reading order."""
    for name in names:
        board_squares, board = _board_squares(str(name))
        for (r, c), square in board.cells():
            if square.terrain != Terrain.EMPTY:
                yield board_squares[r, c], square


def _mixed_kingdom(rng: np.random.Generator, names: list[str], size: int) -> tuple[np.ndarray, Kingdom]:
    """A size×size kingdom of squares drawn from several boards, castle in the middle: not laid from box
    dominoes (the basic scenes' Mighty Duel kingdoms, which the locator's tests pin; the hard bench lays
    its kingdoms from the box, ``box_kingdom``)."""
    pool, castles = [], []
    for image, square in _laid_squares(rng.permutation(names)[:4]):
        (castles if square.terrain == Terrain.CASTLE else pool).append((image, square))
    chosen = [pool[i] for i in rng.permutation(len(pool))[: size * size - 1]]
    middle = (size * size) // 2
    chosen.insert(middle, castles[0])
    squares = np.stack([image for image, _ in chosen]).reshape(size, size, SQUARE_PX, SQUARE_PX, 3)
    kingdom = Kingdom.from_rows([[chosen[r * size + c][1] for c in range(size)] for r in range(size)])
    return squares, kingdom


def domino_tiling(rng: np.random.Generator, size: int, hole: tuple[int, int]) -> list[tuple[tuple, tuple]]:
    """A random tiling of the size×size grid but ``hole`` by dominoes (pairs of neighbouring cells): the
    first free cell in reading order pairs with its right or lower neighbour, in a random order, backing
    off when the rest cannot be tiled."""
    free = np.ones((size, size), dtype=bool)
    free[hole] = False
    pairs: list[tuple[tuple, tuple]] = []

    def lay() -> bool:
        cells = np.argwhere(free)
        if not len(cells):
            return True
        r, c = (int(v) for v in cells[0])
        for mate in rng.permutation([(r, c + 1), (r + 1, c)]).tolist():
            mate = tuple(mate)
            if mate[0] < size and mate[1] < size and free[mate]:
                free[r, c] = free[mate] = False
                pairs.append(((r, c), mate))
                if lay():
                    return True
                pairs.pop()
                free[r, c] = free[mate] = True
        return False

    if not lay():
        raise ValueError(f"a {size}×{size} grid without {hole} cannot be tiled by dominoes")
    return pairs


def box_kingdom(rng: np.random.Generator, names: list[str], size: int) -> tuple[np.ndarray, Kingdom]:
    """A size×size kingdom laid from distinct dominoes of the box around the castle in the middle, as a
    player lays a Mighty Duel kingdom; each half shows a square of that kind cut from the boards ``names``
    (dominoes with a half none of them shows are left in the box)."""
    pool: dict[Square, list[np.ndarray]] = {}
    castles = []
    for image, square in _laid_squares(names):
        if square.terrain == Terrain.CASTLE:
            castles.append(image)
        else:
            pool.setdefault(square, []).append(image)
    middle = (size // 2, size // 2)
    pairs = domino_tiling(rng, size, middle)
    dominoes = [DOMINOES[i] for i in rng.permutation(len(DOMINOES))]
    dominoes = [domino for domino in dominoes if all(half in pool for half in domino.halves)][: len(pairs)]
    if len(dominoes) < len(pairs):
        raise ValueError(f"the boards show the halves of only {len(dominoes)} box dominoes")
    grid: list[list] = [[None] * size for _ in range(size)]
    images = np.zeros((size, size, SQUARE_PX, SQUARE_PX, 3), np.uint8)
    grid[middle[0]][middle[1]] = Square(Terrain.CASTLE, 0)
    images[middle] = castles[int(rng.integers(len(castles)))]
    for cells, domino in zip(pairs, dominoes, strict=True):
        halves = domino.halves if rng.random() < 0.5 else domino.halves[::-1]
        for cell, half in zip(cells, halves, strict=True):
            grid[cell[0]][cell[1]] = half
            images[cell] = pool[half][int(rng.integers(len(pool[half])))]
    return images, Kingdom.from_rows(grid)


@dataclass(frozen=True)
class TilePool:
    """Single-square spetryk tiles (other phones, other tables, each photo with its own cast) to tile a
    kingdom from: per terrain, (image path, square, source photo). Tiles of ``excluded`` source photos
    and tiles whose folder label was corrected are left out."""

    tiles: dict
    excluded: frozenset

    @classmethod
    def without(cls, excluded_photos) -> TilePool:
        corrections = DATA_DIR / "label_corrections.json"
        corrected = {fix["image"] for fix in json.loads(corrections.read_text())["tiles"]}
        excluded = frozenset(excluded_photos)
        tiles: dict[str, list] = {}
        for entry in _labels()["tiles_spetryk"]:
            if entry["source_photo"] in excluded or entry["image"] in corrected:
                continue
            square = Square(Terrain(entry["terrain"]), int(entry["crowns"]))
            tiles.setdefault(entry["terrain"], []).append((entry["image"], square, entry["source_photo"]))
        return cls({terrain: sorted(found) for terrain, found in sorted(tiles.items())}, excluded)


@lru_cache(maxsize=4096)
def _tile_image(path: str) -> np.ndarray:
    image = cv2.imread(str(DATA_DIR / path), cv2.IMREAD_COLOR)
    return cv2.resize(image, (SQUARE_PX, SQUARE_PX), interpolation=cv2.INTER_CUBIC)


def tiled_kingdom(
    rng: np.random.Generator, pool: TilePool, size: int
) -> tuple[np.ndarray, Kingdom, list[list[str]]]:
    """A size×size kingdom tiled from the pool's tiles, castle tile in the middle: each square a terrain
    drawn evenly, then one tile of it, turned a random quarter. Returns the squares, the kingdom and the
    source photo of every square (row-major grid)."""
    terrains = [t for t in pool.tiles if t != Terrain.CASTLE.value]
    middle = size // 2
    chosen = []
    for r in range(size):
        for c in range(size):
            drawn = terrains[rng.integers(len(terrains))]
            terrain = Terrain.CASTLE.value if (r, c) == (middle, middle) else drawn
            path, square, photo = pool.tiles[terrain][rng.integers(len(pool.tiles[terrain]))]
            chosen.append((np.rot90(_tile_image(path), int(rng.integers(4))), square, photo))
    squares = np.stack([image for image, _, _ in chosen]).reshape(size, size, SQUARE_PX, SQUARE_PX, 3)
    kingdom = Kingdom.from_rows([[chosen[r * size + c][1] for c in range(size)] for r in range(size)])
    photos = [[chosen[r * size + c][2] for c in range(size)] for r in range(size)]
    return np.ascontiguousarray(squares), kingdom, photos


# --- table textures --------------------------------------------------------------------------------
def _table(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """A table surface: wood, cloth, laminate or dark felt, with low-contrast texture."""
    kind = rng.choice(["wood", "wood", "cloth", "laminate", "felt"])
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    noise = cv2.resize(
        rng.normal(0, 1, (max(2, height // 40), max(2, width // 40))).astype(np.float32), (width, height)
    )
    fine = rng.normal(0, 1, (height, width)).astype(np.float32)
    if kind == "wood":
        base = np.array([rng.uniform(40, 90), rng.uniform(80, 130), rng.uniform(120, 190)], np.float32)
        angle = rng.uniform(0, math.pi)
        u = xx * math.cos(angle) + yy * math.sin(angle)
        grain = np.sin(u / rng.uniform(6, 18) + 3 * noise) * rng.uniform(0.06, 0.14)
        shade = 1 + grain + 0.03 * fine
        # planks: long boards with a thin dark joint every ~400-900 px across the grain
        v = -xx * math.sin(angle) + yy * math.cos(angle)
        plank = rng.uniform(400, 900)
        shade *= 1 - 0.35 * (np.abs(((v / plank) % 1) - 0.5) > 0.497)
    elif kind == "cloth":
        base = rng.uniform(40, 200, 3).astype(np.float32)
        shade = 1 + 0.05 * fine + 0.05 * noise
    elif kind == "laminate":
        base = np.full(3, rng.uniform(170, 235), np.float32) + rng.uniform(-15, 15, 3).astype(np.float32)
        shade = 1 + 0.02 * fine + 0.03 * noise
    else:
        base = rng.uniform(15, 60, 3).astype(np.float32)
        shade = 1 + 0.08 * fine + 0.05 * noise
    return np.clip(shade[..., None] * base, 0, 255).astype(np.uint8)


# --- world layout ----------------------------------------------------------------------------------
def _pair_dominoes(
    rng: np.random.Generator, present: np.ndarray, castle: tuple[int, int] | None
) -> list[list]:
    """Group the present squares into dominoes (pairs of neighbours) and single pieces."""
    n = present.shape[0]
    free = present.copy()
    pieces: list[list] = []
    if castle is not None:
        free[castle] = False
        pieces.append([castle])
    for r, c in rng.permutation([(r, c) for r in range(n) for c in range(n)]).tolist():
        if not free[r, c]:
            continue
        free[r, c] = False
        options = [(r + dr, c + dc) for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))]
        options = [(a, b) for a, b in options if 0 <= a < n and 0 <= b < n and free[a, b]]
        if options:
            mate = options[rng.integers(len(options))]
            free[mate] = False
            pieces.append([(r, c), mate])
        else:
            pieces.append([(r, c)])
    return pieces


def _piece_polygon(cells: list, pitch: float, offset: np.ndarray) -> np.ndarray:
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    x0, y0 = min(cols) * pitch, min(rows) * pitch
    x1 = max(cols) * pitch + SQUARE_PX
    y1 = max(rows) * pitch + SQUARE_PX
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32) + offset


@dataclass
class Sheet:
    """The table drawn flat before the camera sees it: its colours, the tiles' shadow mask, the pitch of
    the squares, the offsets of a tile's visible side and of its shadow, and the drawing scale."""

    canvas: np.ndarray
    shadow: np.ndarray
    pitch: float
    side_shift: np.ndarray
    shadow_shift: np.ndarray
    scale: float


def _paste_piece(sheet: Sheet, squares: np.ndarray, cells: list, transform: np.ndarray) -> None:
    """Draw one domino: its side (thickness), shadow mask and printed face, through ``transform``."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    face = np.zeros(
        ((max(rows) - min(rows) + 1) * SQUARE_PX, (max(cols) - min(cols) + 1) * SQUARE_PX, 3), np.uint8
    )
    for r, c in cells:
        y, x = (r - min(rows)) * SQUARE_PX, (c - min(cols)) * SQUARE_PX
        face[y : y + SQUARE_PX, x : x + SQUARE_PX] = squares[r, c]
    local = np.array(
        [[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]], np.float32
    )
    canvas, scale = sheet.canvas, sheet.scale
    world = _piece_polygon(cells, sheet.pitch, np.zeros(2))
    world = (np.c_[world, np.ones(4)] @ transform.T)[:, :2] * scale
    sides = ((sheet.shadow_shift, None, sheet.shadow), (sheet.side_shift, (45, 80, 110), canvas))
    for shift, colour, target in sides:
        poly = np.round((world + shift * scale) * 4).astype(np.int32)
        if colour is None:
            cv2.fillConvexPoly(target, poly, 1.0, lineType=cv2.LINE_AA, shift=2)
        else:
            cv2.fillConvexPoly(target, poly, colour, lineType=cv2.LINE_AA, shift=2)
    matrix = cv2.getPerspectiveTransform(local, world.astype(np.float32))
    h, w = canvas.shape[:2]
    x0, y0 = np.floor(world.min(0)).astype(int) - 2
    x1, y1 = np.ceil(world.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    shift_m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    warped = cv2.warpPerspective(face, shift_m @ matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full(face.shape[:2], 255, np.uint8), shift_m @ matrix, (x1 - x0, y1 - y0))
    alpha = (mask.astype(np.float32) / 255)[..., None]
    region = canvas[y0:y1, x0:x1]
    region[:] = (alpha * warped + (1 - alpha) * region).astype(np.uint8)


def _rigid(rng: np.random.Generator, max_shift: float, max_degrees: float, centre: np.ndarray) -> np.ndarray:
    angle = math.radians(rng.uniform(-max_degrees, max_degrees))
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    shift = rng.uniform(-max_shift, max_shift, 2)
    matrix = np.eye(3)
    matrix[:2, :2] = rot
    matrix[:2, 2] = centre - rot @ centre + shift
    return matrix


def _place_kingdom(
    rng: np.random.Generator,
    sheet: Sheet,
    squares: np.ndarray,
    present: np.ndarray,
    castle: tuple[int, int] | None,
    placement: np.ndarray,
    jitter: float,
) -> None:
    for cells in _pair_dominoes(rng, present, castle):
        centre = _piece_polygon(cells, sheet.pitch, np.zeros(2)).mean(0)
        transform = placement @ _rigid(rng, jitter, jitter * 0.4, centre)
        _paste_piece(sheet, squares, cells, transform)


def _draw_castle_model(
    rng: np.random.Generator, canvas: np.ndarray, centre: np.ndarray, lean: np.ndarray, scale: float
) -> None:
    """The top of a 3D castle model, leaning away from the camera over the neighbouring square.

    The castle square's own crop already shows the model from above (the boards were photographed
    with it), so only the part that a tilted camera sees beyond the castle square is drawn.
    """
    colour = np.array(CASTLE_COLOURS[rng.integers(len(CASTLE_COLOURS))], np.float64)
    height = rng.uniform(0.15, 0.45) * SQUARE_PX
    across = np.array([-lean[1], lean[0]])
    edge = centre + lean * 0.45 * SQUARE_PX
    for offset in (-0.18, 0.18):
        foot = edge + across * offset * SQUARE_PX
        tower = np.array(
            [
                foot - across * 9,
                foot + across * 9,
                foot + across * 9 + lean * height,
                foot - across * 9 + lean * height,
            ]
        )
        cv2.fillConvexPoly(
            canvas, np.round(tower * scale * 4).astype(np.int32), colour.tolist(), cv2.LINE_AA, 2
        )
        top = tuple(np.round((foot + lean * height) * scale).astype(int))
        cv2.circle(canvas, top, max(1, int(10 * scale)), (colour * 0.6).tolist(), -1, cv2.LINE_AA)


def _draw_king(rng: np.random.Generator, canvas: np.ndarray, centre: np.ndarray, scale: float) -> None:
    colour = CASTLE_COLOURS[rng.integers(len(CASTLE_COLOURS))]
    radius = int(rng.uniform(14, 22) * scale)
    c = tuple(np.round(centre * scale).astype(int))
    cv2.circle(canvas, (c[0] + 4, c[1] + 4), radius, (20, 20, 20), -1, cv2.LINE_AA)
    cv2.circle(canvas, c, radius, colour, -1, cv2.LINE_AA)
    cv2.circle(canvas, c, max(1, radius // 2), tuple(int(v * 0.7) for v in colour), -1, cv2.LINE_AA)


# --- camera ----------------------------------------------------------------------------------------
def camera_projection(
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
    return projection, centre


def _camera(
    rng: np.random.Generator, width: int, height: int, kingdom_width: float, fraction: float, tilt_deg: float
) -> tuple[np.ndarray, np.ndarray]:
    """Homography world plane (z=0, kingdom centred at 0) -> image, for a pinhole camera looking down."""
    projection, centre = camera_projection(rng, width, height, kingdom_width, fraction, tilt_deg)
    homography = projection[:, [0, 1, 3]]
    return homography / homography[2, 2], centre[:2]


def _project(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.c_[points, np.ones(len(points))] @ homography.T
    return p[:, :2] / p[:, 2:3]


def fits_photo(corners: np.ndarray, width: int, height: int) -> bool:
    """Whether the projected frame lies inside the photo with a 2 % margin on every side."""
    return bool(
        (corners.min(0) > 0.02 * width).all() and (corners.max(0) < np.array([width, height]) * 0.98).all()
    )


def world_canvas(
    homography: np.ndarray, width: int, height: int, frame_width: float
) -> tuple[np.ndarray, float, int, int]:
    """The part of the table the camera sees, drawn at up to 1 px per world unit: its world origin, the
    scale, and the canvas width and height in pixels (far parts of a steep view clipped at 8 frames)."""
    inverse = np.linalg.inv(homography)
    seen = _project(inverse, np.array([[0, 0], [width, 0], [width, height], [0, height]], float))
    limit = 8 * frame_width
    lo = np.clip(seen.min(0), -limit, limit) - 20
    hi = np.clip(seen.max(0), -limit, limit) + 20
    scale = min(1.0, 4200 / float((hi - lo).max()))
    cw, ch = (np.ceil((hi - lo) * scale)).astype(int)
    return lo, scale, int(cw), int(ch)


def _is_mirrored(points: np.ndarray) -> bool:
    a, b, c = points[0], points[1], points[2]
    (ux, uy), (vx, vy) = b - a, c - b
    return float(ux * vy - uy * vx) < 0


# --- the scene -------------------------------------------------------------------------------------
def generate_scene(
    seed: int,
    size: tuple[int, int] | None = None,
    boards: list[str] | None = None,
    tilt_range: tuple[float, float] = (0.0, 40.0),
    width_range: tuple[float, float] = (0.15, 0.70),
    distractors: bool = True,
    jpeg: bool = True,
    grid_size: int = 5,
) -> Scene:
    """Generate one table photo of a kingdom. Same seed and arguments -> same scene, pixel for pixel.

    ``grid_size=7`` builds a Mighty Duel kingdom from the squares of several labelled boards.
    """
    rng = np.random.default_rng(seed)
    names = boards if boards is not None else board_names()
    board = names[rng.integers(len(names))]
    width, height = size if size is not None else PHOTO_SIZES[rng.integers(len(PHOTO_SIZES))]
    squares, kingdom = _board_squares(board) if grid_size == 5 else _mixed_kingdom(rng, names, grid_size)
    n = kingdom.grid_size
    present = np.array([[kingdom[r, c].terrain != Terrain.EMPTY for c in range(n)] for r in range(n)])
    castle = next(((r, c) for (r, c), sq in kingdom.cells() if sq.terrain == Terrain.CASTLE), None)
    if rng.random() < 0.3:  # a few squares missing (never a whole edge row or column: the frame stays N×N)
        for _ in range(rng.integers(1, 4)):
            r, c = rng.integers(n, size=2)
            trial = present.copy()
            trial[r, c] = False
            if (r, c) != castle and trial.any(0).all() and trial.any(1).all():
                present = trial
    labelled = Kingdom.from_rows(
        [[kingdom[r, c] if present[r, c] else EMPTY_SQUARE for c in range(n)] for r in range(n)]
    )

    gap = rng.uniform(1.0, 5.0)
    pitch = SQUARE_PX + gap
    frame_width = n * pitch
    fraction = rng.uniform(*width_range)
    tilt = rng.uniform(*tilt_range)
    for _ in range(50):
        homography, camera_ground = _camera(rng, width, height, frame_width, fraction, tilt)
        half = frame_width / 2
        frame = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        corners = _project(homography, frame)
        inside = fits_photo(corners, width, height)
        if inside and not _is_mirrored(corners):
            break
        if inside:  # mirrored: flip the camera's x axis
            homography = np.diag([-1.0, 1.0, 1.0]) @ homography
            homography = np.array([[1, 0, width], [0, 1, 0], [0, 0, 1]]) @ homography
            break
        fraction *= 0.93
    corners = _project(homography, frame)

    lo, scale, cw, ch = world_canvas(homography, width, height, frame_width)
    canvas = _table(rng, ch, cw)
    shadow = np.zeros((ch, cw), np.float32)
    to_canvas = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]], float)  # world -> canvas (before scale)

    # Directions in the world plane: towards the camera's ground point (visible tile sides) and the light.
    towards_camera = camera_ground / (np.linalg.norm(camera_ground) + 1e-9)
    light = rng.uniform(0, 2 * math.pi)
    shadow_dir = np.array([math.cos(light), math.sin(light)])
    thickness = rng.uniform(2.0, 5.0) * math.sin(math.radians(tilt) + 0.1)
    side_shift = towards_camera * thickness
    shadow_shift = shadow_dir * rng.uniform(2, 8)
    sheet = Sheet(canvas, shadow, pitch, side_shift, shadow_shift, scale)

    start = to_canvas @ np.array(
        [[1, 0, gap / 2 - half], [0, 1, gap / 2 - half], [0, 0, 1]], float
    )  # frame centred on the tiles
    if distractors:
        others = [b for b in board_names() if b != board]
        for _ in range(rng.integers(0, 5)):  # loose dominoes somewhere on the table, outside the kingdom
            other_squares, _ = _board_squares(others[rng.integers(len(others))])
            angle = rng.uniform(0, 2 * math.pi)
            radius = rng.uniform(0.72, 1.6) * frame_width
            spot = radius * np.array([math.cos(angle), math.sin(angle)])
            r0, c0 = rng.integers(0, other_squares.shape[0] - 1, size=2)
            cells = [(r0, c0), (r0, c0 + 1)] if rng.random() < 0.5 else [(r0, c0), (r0 + 1, c0)]
            centre = _piece_polygon(cells, pitch, np.zeros(2)).mean(0)
            move = np.array([[1, 0, spot[0] - centre[0]], [0, 1, spot[1] - centre[1]], [0, 0, 1]])
            place = to_canvas @ move @ _rigid(rng, 0, 180, centre)
            _paste_piece(sheet, other_squares, cells, place)
        if rng.random() < 0.3:  # part of another player's kingdom
            other_squares, other = _board_squares(others[rng.integers(len(others))])
            angle = rng.uniform(0, 2 * math.pi)
            spot = rng.uniform(1.25, 1.5) * frame_width * np.array([math.cos(angle), math.sin(angle)])
            size_other = other.grid_size
            other_present = np.array(
                [[other[r, c].terrain != Terrain.EMPTY for c in range(size_other)] for r in range(size_other)]
            )
            centre = np.full(2, size_other * pitch / 2)
            place = np.array([[1, 0, spot[0] - centre[0]], [0, 1, spot[1] - centre[1]], [0, 0, 1]]) @ _rigid(
                rng, 0, 180, centre
            )
            _place_kingdom(rng, sheet, other_squares, other_present, None, to_canvas @ place, 2.0)

    _place_kingdom(rng, sheet, squares, present, castle, start, rng.uniform(0.5, 3.0))
    if castle is not None and rng.random() < 0.5:
        centre = np.array([castle[1], castle[0]]) * pitch + SQUARE_PX / 2 + gap / 2 - half - lo
        _draw_castle_model(rng, canvas, centre, -towards_camera, scale)
    if distractors:
        for _ in range(rng.integers(0, 5)):
            angle = rng.uniform(0, 2 * math.pi)
            spot = rng.uniform(0.75, 1.3) * frame_width * np.array([math.cos(angle), math.sin(angle)])
            _draw_king(rng, canvas, spot - lo, scale)

    softness = int(rng.uniform(3, 9) * scale) * 2 + 1
    shadow = cv2.GaussianBlur(shadow, (softness, softness), 0)
    # shadows fall on the table only where no tile face was drawn later; darkening everything slightly is fine
    canvas = (canvas.astype(np.float32) * (1 - rng.uniform(0.25, 0.5) * shadow[..., None] * 0.6)).astype(
        np.uint8
    )

    world_to_image = homography @ np.linalg.inv(np.diag([scale, scale, 1.0]) @ to_canvas)
    image = cv2.warpPerspective(
        canvas, world_to_image, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    image = _photo_effects(rng, image)
    if jpeg:
        quality = int(rng.uniform(60, 95))
        image = cv2.imdecode(
            cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR
        )
    params = {
        "tilt": round(tilt, 1),
        "fraction": round(float(np.ptp(corners[:, 0]) / width), 3),
        "gap": round(gap, 2),
    }
    return Scene(image, labelled, corners.astype(np.float64), seed, board, params)


def light_falloff(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A lamp's gain over an h × w photo, on a grid of every 8th pixel: a linear ramp in a random
    direction and a darkening towards the corners."""
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xx / w - 0.5) * math.cos(angle) + (yy / h - 0.5) * math.sin(angle)
    radial = (xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2
    return 1 + rng.uniform(0, 0.5) * ramp - rng.uniform(0, 0.6) * radial


def _photo_effects(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """Lighting gradient, colour cast, sensor noise and blur, as a phone would add them."""
    h, w = image.shape[:2]
    gain = light_falloff(rng, h, w)
    gain = cv2.resize(gain * rng.uniform(0.65, 1.15), (w, h))
    cast = np.array([rng.uniform(0.7, 1.05), rng.uniform(0.9, 1.05), rng.uniform(0.95, 1.2)], np.float32)
    out = image.astype(np.float32) * gain[..., None] * cast
    sigma = rng.uniform(0, 1.6) * max(w, h) / 2000
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0, rng.uniform(1, 7), out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def with_reflections(scene: Scene, seed: int) -> np.ndarray:
    """The scene's photo with 1-3 reflections of a lamp on the glossy tiles: soft, nearly white ellipses
    up to about a square long, anywhere on the kingdom (``evaluate_scenes --glare``; the seed makes them
    the same each run without changing the scene itself)."""
    rng = np.random.default_rng(seed)
    image = scene.image.astype(np.float32)
    corners = scene.corners
    n = scene.kingdom.grid_size
    square = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1))) / n
    for _ in range(int(rng.integers(1, 4))):
        u, v = rng.uniform(0.1, 0.9, size=2)
        top, bottom = corners[0] + u * (corners[1] - corners[0]), corners[3] + u * (corners[2] - corners[3])
        centre = top + v * (bottom - top)
        long_axis = rng.uniform(0.3, 1.0) * square
        axes = (int(long_axis), max(1, int(long_axis * rng.uniform(0.35, 1.0))))
        mask = np.zeros(image.shape[:2], np.float32)
        cv2.ellipse(mask, (int(centre[0]), int(centre[1])), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        mask = rng.uniform(0.7, 0.95) * np.clip(1.5 * cv2.GaussianBlur(mask, (0, 0), axes[1] / 2 + 1), 0, 1)
        image = image * (1 - mask[..., None]) + 250.0 * mask[..., None]
    return (image + 0.5).astype(np.uint8)


def scene_truth(scene: Scene) -> dict:
    """The JSON ground truth of a scene, in the scanner's convention (grid as seen upright)."""
    kingdom, corners = scene.upright()
    return {
        "grid_size": kingdom.grid_size,
        "squares": [[square.to_dict() for square in row] for row in kingdom.squares],
        "corners": np.round(corners, 1).tolist(),
        "generated_from": {"board": f"data/real/boards/{scene.board}", "seed": scene.seed, **scene.params},
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.scenes --seed S --out photo.jpg``: one scene and its truth (photo.json)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.scenes", description=main.__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--size", default="2400x1800", help="WIDTHxHEIGHT of the photo")
    parser.add_argument("--quality", type=int, default=88, help="JPEG quality of the written file")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    scene = generate_scene(args.seed, size=(width, height))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(args.out), scene.image, [cv2.IMWRITE_JPEG_QUALITY, args.quality])
    args.out.with_suffix(".json").write_text(json.dumps(scene_truth(scene), indent=1) + "\n")
    print(f"{args.out}: board {scene.board}, {scene.params}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
