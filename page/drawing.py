"""Drawing for the page: the kingdom (tap to pick a square) and the photo with its frame (tap or drag
the corners). Images are RGB arrays; photos and kingdoms are kept as JPEG bytes and decoded here."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from kingdomino.board import Cell, Kingdom, Terrain
from kingdomino.scoring import Territory

#: Pixels per square of the kingdom drawn on the page (small enough to send quickly on every rerun).
CELL_PX = 80

#: RGB colour of each terrain on the drawn kingdom.
TERRAIN_RGB: dict[Terrain, tuple[int, int, int]] = {
    Terrain.WHEAT: (236, 200, 50),
    Terrain.FOREST: (34, 110, 44),
    Terrain.LAKE: (40, 110, 205),
    Terrain.GRASSLAND: (135, 205, 80),
    Terrain.SWAMP: (140, 118, 86),
    Terrain.MINE: (72, 72, 72),
    Terrain.CASTLE: (235, 235, 235),
    Terrain.EMPTY: (250, 250, 250),
}
REVIEW_RGB = (255, 120, 0)
CORRECTED_RGB = (0, 200, 255)
HIGHLIGHT_RGB = (255, 235, 0)
CROWN_RGB = (255, 215, 0)
#: Crowns sit on a dark pill so they show on every terrain colour, wheat's yellow included.
CROWN_BACK_RGB = (30, 30, 30)
FRAME_RGB = (255, 40, 200)
SEAM_RGB = (255, 255, 255)
HANDLE_RGB = (255, 235, 0)
CORNER_NAMES = ("TL", "TR", "BR", "BL")


def page_style() -> str:
    """The page's CSS: tighter than Streamlit's defaults so the score, the kingdom and the palette share a
    phone's screen, and the palette's terrain buttons in the terrains' colours."""
    terrains = "".join(
        f'[class*="st-key-t_{terrain.value}_"] button {{background: rgb{colour}; '
        f"color: {'#000' if sum(colour) > 380 else '#fff'}; border-color: #0004;}}"
        for terrain, colour in TERRAIN_RGB.items()
    )
    return (
        "<style>"
        'header[data-testid="stHeader"] {height: 2.4rem; background: transparent;}'
        ".block-container {padding-top: 2.6rem; padding-bottom: 2rem;}"
        '[data-testid="stVerticalBlock"] {gap: 0.6rem;}'
        '[data-testid="stMetricValue"] {font-size: 2.2rem; line-height: 1.1;}'
        ".st-key-palette button, .st-key-crowns button, .st-key-edit_actions button "
        "{padding: 0.1rem 0.55rem; min-height: 2.2rem;}"
        '.st-key-palette [data-testid="stBaseButton-primary"] {box-shadow: 0 0 0 3px #2b2118;}'
        # the kingdom fills its column; the element reporting taps on it takes no room
        ".st-key-kingdom_view {gap: 0;}"
        ".st-key-kingdom_view img {width: 100%; height: auto; display: block; cursor: pointer; "
        "touch-action: manipulation;}"
        f"{terrains}</style>"
    )


def encode_jpeg(image_rgb: np.ndarray, quality: int = 85) -> bytes:
    ok, encoded = cv2.imencode(
        ".jpg", cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    return encoded.tobytes() if ok else b""


@lru_cache(maxsize=32)
def decode_jpeg(data: bytes) -> np.ndarray:
    """An RGB array of JPEG bytes (cached: the same kingdom is redrawn on every rerun). Read-only."""
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("the stored image cannot be decoded")
    rgb = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    rgb.setflags(write=False)
    return rgb


def readable_jpeg(data: bytes) -> np.ndarray | None:
    """``decode_jpeg``, or None when the bytes cannot be decoded (a damaged or empty stored image)."""
    try:
        return decode_jpeg(data) if data else None
    except (ValueError, cv2.error):
        return None


@lru_cache(maxsize=64)
def kingdom_jpeg(
    kingdom: Kingdom,
    rectified_jpeg: bytes | None = None,
    review: frozenset[Cell] = frozenset(),
    corrected: frozenset[Cell] = frozenset(),
    highlight: Territory | None = None,
    selected: Cell | None = None,
    quality: int = 85,
) -> bytes:
    """The drawn kingdom as JPEG bytes, cached by what is drawn: a rerun that changes nothing on the
    kingdom neither draws nor encodes it again, and a board shown before (undo, switching players) is
    reused."""
    return encode_jpeg(draw_kingdom(kingdom, rectified_jpeg, review, corrected, highlight, selected), quality)


@lru_cache(maxsize=16)
def photo_canvas(rectified_jpeg: bytes, canvas_px: int) -> np.ndarray:
    """The kingdom's photo at the drawn size (cached: every correction redraws the squares on the same
    photo). Read-only."""
    canvas = cv2.resize(decode_jpeg(rectified_jpeg), (canvas_px, canvas_px), interpolation=cv2.INTER_AREA)
    canvas.setflags(write=False)
    return canvas


def draw_kingdom(
    kingdom: Kingdom,
    rectified_jpeg: bytes | None = None,
    review: set[Cell] | frozenset[Cell] = frozenset(),
    corrected: set[Cell] | frozenset[Cell] = frozenset(),
    highlight: Territory | None = None,
    selected: Cell | None = None,
    cell_px: int = CELL_PX,
) -> np.ndarray:
    """The kingdom as the page shows it (RGB): photo squares (or flat colours when entered by hand),
    each with a label strip in its terrain colour and its crowns; squares to check framed in orange with
    a '?', corrected squares in blue; a highlighted territory outlined in yellow with the rest dimmed."""
    size = kingdom.grid_size
    canvas_px = size * cell_px
    photo = _readable_photo(rectified_jpeg, canvas_px)
    if photo is not None:
        canvas = photo.copy()
    else:
        canvas = np.zeros((canvas_px, canvas_px, 3), np.uint8)
        for (r, c), square in kingdom.cells():
            canvas[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px] = TERRAIN_RGB[
                square.terrain
            ]
    if highlight is not None:
        mask = np.zeros((canvas_px, canvas_px), bool)
        for r, c in highlight.cells:
            mask[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px] = True
        canvas[~mask] = (canvas[~mask] * 0.35).astype(np.uint8)
    strip = max(14, cell_px // 4)
    for (r, c), square in kingdom.cells():
        x0, y0 = c * cell_px, r * cell_px
        cv2.rectangle(canvas, (x0, y0), (x0 + cell_px - 1, y0 + cell_px - 1), (20, 20, 20), 1)
        colour = TERRAIN_RGB[square.terrain]
        cv2.rectangle(
            canvas, (x0 + 1, y0 + cell_px - strip), (x0 + cell_px - 2, y0 + cell_px - 2), colour, -1
        )
        ink = (0, 0, 0) if sum(colour) > 380 else (255, 255, 255)
        label = square.token.strip() if square.terrain is not Terrain.EMPTY else "-"
        cv2.putText(
            canvas,
            label,
            (x0 + 4, y0 + cell_px - 5),
            cv2.FONT_HERSHEY_SIMPLEX,
            strip / 32,
            ink,
            1,
            cv2.LINE_AA,
        )
        _crowns(canvas, square.crowns, x0 + cell_px - 3, y0 + cell_px - strip // 2 - 1)
        if (r, c) in review:
            cv2.rectangle(canvas, (x0 + 2, y0 + 2), (x0 + cell_px - 3, y0 + cell_px - 3), REVIEW_RGB, 3)
            cv2.circle(canvas, (x0 + cell_px - 12, y0 + 12), 9, REVIEW_RGB, -1, cv2.LINE_AA)
            cv2.putText(
                canvas, "?", (x0 + cell_px - 17, y0 + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 2
            )
        elif (r, c) in corrected:
            cv2.rectangle(canvas, (x0 + 2, y0 + 2), (x0 + cell_px - 3, y0 + cell_px - 3), CORRECTED_RGB, 3)
    if highlight is not None:
        _outline(canvas, set(highlight.cells), cell_px)
    if selected is not None and all(0 <= i < size for i in selected):
        r, c = selected
        corner_a, corner_b = (c * cell_px, r * cell_px), ((c + 1) * cell_px - 1, (r + 1) * cell_px - 1)
        cv2.rectangle(canvas, corner_a, corner_b, (0, 0, 0), 5)
        cv2.rectangle(canvas, corner_a, corner_b, (255, 255, 255), 2)
    return canvas


def _readable_photo(rectified_jpeg: bytes | None, canvas_px: int) -> np.ndarray | None:
    """The kingdom's photo at the drawn size; None without one, or when its stored copy cannot be decoded
    (a damaged record: the board is drawn in its terrain colours, still usable, rather than lost)."""
    if not rectified_jpeg:
        return None
    try:
        return photo_canvas(rectified_jpeg, canvas_px)
    except (ValueError, cv2.error):
        return None


def _crowns(canvas: np.ndarray, count: int, right: int, middle: int) -> None:
    """``count`` gold dots right-aligned at (right, middle), on a dark pill."""
    if count <= 0:
        return
    step, radius = 11, 4
    left = right - count * step
    cv2.rectangle(canvas, (left, middle - radius - 2), (right, middle + radius + 2), CROWN_BACK_RGB, -1)
    for k in range(count):
        centre = (right - step // 2 - 1 - k * step, middle)
        cv2.circle(canvas, centre, radius, CROWN_RGB, -1, cv2.LINE_AA)


def _outline(canvas: np.ndarray, cells: set[Cell], cell_px: int) -> None:
    for r, c in cells:
        x0, y0, x1, y1 = c * cell_px, r * cell_px, (c + 1) * cell_px - 1, (r + 1) * cell_px - 1
        edges = {(-1, 0): ((x0, y0), (x1, y0)), (1, 0): ((x0, y1), (x1, y1))}
        edges |= {(0, -1): ((x0, y0), (x0, y1)), (0, 1): ((x1, y0), (x1, y1))}
        for (dr, dc), (p, q) in edges.items():
            if (r + dr, c + dc) not in cells:
                cv2.line(canvas, p, q, HIGHLIGHT_RGB, 4)


def draw_frame(
    photo_rgb: np.ndarray, corners: np.ndarray, grid_size: int, selected: int | None = None
) -> np.ndarray:
    """The photo with the N×N frame on it (corners: TL, TR, BR, BL in the photo's pixels), drawn thick
    enough to see on a phone: a dark-edged outline, the seams, and numbered corner handles."""
    canvas = np.ascontiguousarray(photo_rgb).copy()
    corners = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    unit = max(2, round(max(canvas.shape[:2]) / 200))  # about 1.5 screen px on a phone
    frame = np.float32([[0, 0], [grid_size, 0], [grid_size, grid_size], [0, grid_size]])
    to_photo = cv2.getPerspectiveTransform(frame, corners)
    steps = np.linspace(0, grid_size, 4 * grid_size + 1, dtype=np.float32)
    for k in range(1, grid_size):
        for line in (np.c_[steps, np.full_like(steps, k)], np.c_[np.full_like(steps, k), steps]):
            points = cv2.perspectiveTransform(line.reshape(-1, 1, 2), to_photo).reshape(-1, 2)
            cv2.polylines(
                canvas,
                [np.round(points * 4).astype(np.int32)],
                False,
                SEAM_RGB,
                unit // 2 + 1,
                cv2.LINE_AA,
                shift=2,
            )
    outline = np.round(corners * 4).astype(np.int32)
    cv2.polylines(canvas, [outline], True, (0, 0, 0), 2 * unit + 2, cv2.LINE_AA, shift=2)
    cv2.polylines(canvas, [outline], True, FRAME_RGB, 2 * unit, cv2.LINE_AA, shift=2)
    middle = corners.mean(axis=0)
    for index, (name, point) in enumerate(zip(CORNER_NAMES, corners, strict=True)):
        # a ring round the corner (the photo stays visible inside it) and its name outside the frame
        centre = (int(round(point[0])), int(round(point[1])))
        colour = HANDLE_RGB if index == selected else FRAME_RGB
        radius = 9 * unit if index == selected else 7 * unit
        cv2.circle(canvas, centre, radius, (0, 0, 0), 2 * unit, cv2.LINE_AA)
        cv2.circle(canvas, centre, radius, colour, unit + 1, cv2.LINE_AA)
        cv2.circle(canvas, centre, max(2, unit // 2), colour, -1, cv2.LINE_AA)
        scale, weight = unit * 0.45, max(2, unit // 2)
        (width, height), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, scale, weight)
        away = point - middle
        away = away / max(float(np.linalg.norm(away)), 1e-9) * (radius + 3 * unit + max(width, height) / 2)
        x = min(max(point[0] + away[0] - width / 2, 0), canvas.shape[1] - width)  # kept inside the photo
        y = min(max(point[1] + away[1] + height / 2, height), canvas.shape[0] - 1)
        origin = (int(x), int(y))
        cv2.putText(
            canvas, name, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), weight + 2 * unit, cv2.LINE_AA
        )
        cv2.putText(canvas, name, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, weight, cv2.LINE_AA)
    return canvas
