"""Table surfaces seen from straight above, drawn at ``scale`` pixels per kingdom square (BGR uint8).

A square of the game is about 4.4 cm, so a centimetre is ``CM`` of a square: the cutting mat's printed
grid (1 cm lines, a heavier line every 5 cm) is close to the kingdom's own lattice, as on a real mat.
"""

from __future__ import annotations

import cv2
import numpy as np

#: One centimetre in kingdom squares.
CM = 1 / 4.4

KINDS = ("wood", "cloth", "mat", "plain", "stone")


def _noise(rng: np.random.Generator, height: int, width: int, cell: float) -> np.ndarray:
    """Smooth value noise in [-1, 1] with features about ``cell`` pixels wide."""
    small = rng.standard_normal((max(2, int(height / cell) + 2), max(2, int(width / cell) + 2)))
    big = cv2.resize(small.astype(np.float32), (width, height), interpolation=cv2.INTER_CUBIC)
    return np.clip(big / 1.5, -1, 1)


def _mix(low: np.ndarray, high: np.ndarray, t: np.ndarray) -> np.ndarray:
    t = t[..., None]
    return low * (1 - t) + high * t


def _colour(*bgr) -> np.ndarray:
    return np.array(bgr, np.float32)


def wood(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """Planks with grain along them: light oak to dark walnut, seams between planks."""
    tones = [
        (_colour(120, 170, 210), _colour(70, 115, 160)),  # oak
        (_colour(60, 95, 140), _colour(30, 50, 85)),  # walnut
        (_colour(150, 190, 220), _colour(105, 145, 185)),  # birch
        (_colour(70, 80, 110), _colour(40, 45, 65)),  # dark stained
        (_colour(170, 180, 185), _colour(130, 140, 150)),  # white-washed
    ]
    light, dark = tones[int(rng.integers(len(tones)))]
    across = rng.random() < 0.5
    h, w = (width, height) if across else (height, width)
    plank = rng.uniform(2.0, 4.5) * scale
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    warp = _noise(rng, h, w, scale * 1.5) * scale * 0.25 + _noise(rng, h, w, scale * 6) * scale * 0.8
    period = scale * rng.uniform(0.04, 0.09)
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * (y + warp) / period + 0.3 * x / scale)
    streaks = _noise(rng, h, w, scale * 0.05)
    t = np.clip(
        0.55 * rings**3 + 0.25 * (streaks + 1) / 2 + 0.2 * (_noise(rng, h, w, scale * 3) + 1) / 2, 0, 1
    )
    image = _mix(light, dark, t)
    offsets = rng.uniform(0, plank, size=int(h / plank) + 3)
    seams = (y % plank) < max(1.0, scale * 0.015)
    image[np.broadcast_to(seams, (h, w))] *= 0.45
    for band, offset in enumerate(offsets):  # the plank ends, staggered
        top, bottom = int(band * plank), int((band + 1) * plank)
        for end in np.arange(offset * 7, w, rng.uniform(20, 40) * scale):
            image[top:bottom, int(end) : int(end + max(1, scale * 0.015))] *= 0.5
        image[top:bottom] *= rng.uniform(0.9, 1.1)
    if across:
        image = np.ascontiguousarray(image.transpose(1, 0, 2))
    return np.clip(image, 0, 255).astype(np.uint8)


def _folds(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """Shading of a cloth's creases and folds, around 1."""
    folds = _noise(rng, height, width, scale * rng.uniform(2, 5))
    ridges = np.abs(_noise(rng, height, width, scale * 3))
    return (1 + 0.12 * folds - 0.12 * (ridges < 0.08)).astype(np.float32)


def cloth(rng: np.random.Generator, height: int, width: int, scale: float) -> tuple[np.ndarray, str]:
    """A tablecloth of strong colours: gingham, stripes, dots, flowers, swirls or plain, woven and folded."""
    palette = [
        _colour(150, 60, 30),  # blue
        _colour(50, 130, 40),  # green
        _colour(40, 40, 180),  # red
        _colour(40, 150, 205),  # ochre
        _colour(225, 230, 235),  # white
        _colour(120, 50, 110),  # purple
        _colour(90, 90, 90),  # grey
        _colour(40, 200, 230),  # yellow
    ]
    picks = rng.choice(len(palette), size=3, replace=False)
    base, ink, third = (palette[i] for i in picks)
    pattern = str(rng.choice(["gingham", "stripes", "dots", "flowers", "swirls", "plain"]))
    y = np.arange(height, dtype=np.float32)[:, None]
    x = np.arange(width, dtype=np.float32)[None, :]
    image = np.broadcast_to(base, (height, width, 3)).copy()
    if pattern == "gingham":
        pitch = scale * rng.uniform(0.3, 1.3)
        a = ((x // (pitch / 2)) % 2 == 0).astype(np.float32)
        b = ((y // (pitch / 2)) % 2 == 0).astype(np.float32)
        image = _mix(image, ink, 0.5 * a + 0.5 * b)
    elif pattern == "stripes":
        pitch = scale * rng.uniform(0.25, 1.5)
        angle = rng.uniform(0, np.pi)
        u = x * np.cos(angle) + y * np.sin(angle)
        image = _mix(image, ink, ((u % pitch) < pitch * rng.uniform(0.2, 0.5)).astype(np.float32))
    elif pattern in ("dots", "flowers"):
        count = int(height * width / (scale * rng.uniform(0.4, 1.0)) ** 2)
        for _ in range(count):
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            radius = scale * rng.uniform(0.05, 0.18)
            if pattern == "dots":
                cv2.circle(image, (int(cx), int(cy)), max(1, int(radius)), ink.tolist(), -1, cv2.LINE_AA)
                continue
            for petal in range(5):
                a = petal * 2 * np.pi / 5 + rng.uniform(0, 1)
                centre = (int(cx + np.cos(a) * radius), int(cy + np.sin(a) * radius))
                cv2.circle(image, centre, max(1, int(radius * 0.7)), ink.tolist(), -1, cv2.LINE_AA)
            cv2.circle(image, (int(cx), int(cy)), max(1, int(radius * 0.5)), third.tolist(), -1, cv2.LINE_AA)
            leaf = (int(cx + radius * 2), int(cy + radius))
            cv2.ellipse(image, leaf, (int(radius), max(1, int(radius * 0.4))), 30, 0, 360, (40, 120, 30), -1)
    elif pattern == "swirls":
        for _ in range(int(height * width / (scale * 2.0) ** 2) + 3):
            cx, cy = rng.uniform(0, width), rng.uniform(0, height)
            turns = np.linspace(0, rng.uniform(2, 4) * np.pi, 60)
            radius = scale * rng.uniform(0.08, 0.2) * (1 + turns)
            points = np.stack([cx + radius * np.cos(turns), cy + radius * np.sin(turns)], 1).astype(np.int32)
            thick = max(1, int(scale * rng.uniform(0.04, 0.1)))
            cv2.polylines(image, [points], False, ink.tolist(), thick, cv2.LINE_AA)
    weave = 1 + 0.06 * np.sin(x * 2 * np.pi / max(2.0, scale * 0.03)) * np.sin(
        y * 2 * np.pi / max(2.0, scale * 0.03)
    )
    fibre = 1 + 0.05 * _noise(rng, height, width, max(1.5, scale * 0.02))
    image = image * (weave * fibre * _folds(rng, height, width, scale))[..., None]
    return np.clip(image, 0, 255).astype(np.uint8), pattern


def mat(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """A self-healing cutting mat: 1 cm grid, heavier 5 cm lines, angle lines, rulers with numbers."""
    bases = [_colour(110, 80, 20), _colour(60, 110, 30), _colour(40, 40, 40), _colour(140, 110, 70)]
    base = bases[int(rng.integers(len(bases)))]
    line = _colour(235, 240, 240) if rng.random() < 0.8 else _colour(60, 200, 230)
    image = np.broadcast_to(base, (height, width, 3)).copy()
    image *= (1 + 0.04 * _noise(rng, height, width, max(1.5, scale * 0.05)))[..., None]
    image = np.clip(image, 0, 255).astype(np.uint8)  # OpenCV writes text on 8-bit pictures only
    cm = CM * scale * (2.54 if rng.random() < 0.2 else 1.0)  # some mats are ruled in inches
    x0, y0 = rng.uniform(0, cm * 5), rng.uniform(0, cm * 5)
    thin, thick = max(1, int(round(scale * 0.006))), max(1, int(round(scale * 0.016)))
    colour = line.tolist()
    for index, x in enumerate(np.arange(x0, width, cm)):
        cv2.line(image, (int(x), 0), (int(x), height), colour, thick if index % 5 == 0 else thin, cv2.LINE_AA)
    for index, y in enumerate(np.arange(y0, height, cm)):
        cv2.line(image, (0, int(y)), (width, int(y)), colour, thick if index % 5 == 0 else thin, cv2.LINE_AA)
    for angle in (30, 45, 60) if rng.random() < 0.6 else ():
        slope = np.tan(np.radians(angle))
        for start in np.arange(-height, width, cm * 10):
            end = (int(start + height / slope), height)
            cv2.line(image, (int(start), 0), end, colour, thin, cv2.LINE_AA)
    font = cv2.FONT_HERSHEY_SIMPLEX
    size = max(0.3, cm * 0.018)
    margin = int(cm * 1.2)
    for index, x in enumerate(np.arange(x0, width, cm)):
        tick = int(cm * (0.5 if index % 5 == 0 else 0.25))
        cv2.line(image, (int(x), margin), (int(x), margin + tick), colour, thin, cv2.LINE_AA)
        if index % 5 == 0:
            cv2.putText(image, str(index), (int(x) + 2, margin - 4), font, size, colour, thin, cv2.LINE_AA)
    for index, y in enumerate(np.arange(y0, height, cm)):
        tick = int(cm * (0.5 if index % 5 == 0 else 0.25))
        cv2.line(image, (margin, int(y)), (margin + tick, int(y)), colour, thin, cv2.LINE_AA)
        if index % 5 == 0:
            cv2.putText(image, str(index), (4, int(y) - 2), font, size, colour, thin, cv2.LINE_AA)
    return image


def plain(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """A painted or laminate top of one strong colour, slightly uneven."""
    colours = [(40, 40, 170), (150, 80, 30), (60, 130, 60), (50, 140, 200), (230, 230, 230), (35, 35, 35)]
    base = _colour(*colours[int(rng.integers(len(colours)))])
    shade = 1 + 0.05 * _noise(rng, height, width, scale * 4) + 0.02 * _noise(rng, height, width, scale * 0.05)
    return np.clip(base * shade[..., None], 0, 255).astype(np.uint8)


def stone(rng: np.random.Generator, height: int, width: int, scale: float) -> np.ndarray:
    """A granite or terrazzo top: speckles of several tones over a mottled ground."""
    ground = _colour(*rng.uniform(60, 200, size=3)) * rng.uniform(0.6, 1.0)
    image = ground * (1 + 0.1 * _noise(rng, height, width, scale * 0.6))[..., None]
    speckle = _noise(rng, height, width, max(1.2, scale * 0.03))
    image[speckle > 0.55] *= 0.45
    image[speckle < -0.6] = image[speckle < -0.6] * 0.3 + 170
    return np.clip(image, 0, 255).astype(np.uint8)


def surface(
    rng: np.random.Generator, kind: str, height: int, width: int, scale: float
) -> tuple[np.ndarray, str]:
    """(the table of ``kind`` seen from above, the name of its look)."""
    if kind == "cloth":
        image, pattern = cloth(rng, height, width, scale)
        return image, f"cloth-{pattern}"
    if kind == "mat":
        under = wood(rng, height, width, scale)
        top = mat(rng, height, width, scale)
        # the mat covers most of the view, its edge on one side with the wood beside
        edge = rng.uniform(0.65, 0.95)
        side = int(rng.integers(4))
        mask = np.ones((height, width), bool)
        if side == 0:
            mask[:, int(width * edge) :] = False
        elif side == 1:
            mask[:, : int(width * (1 - edge))] = False
        elif side == 2:
            mask[int(height * edge) :] = False
        else:
            mask[: int(height * (1 - edge))] = False
        under[mask] = top[mask]
        return under, "mat"
    drawn = {"wood": wood, "plain": plain, "stone": stone}[kind](rng, height, width, scale)
    return drawn, kind
