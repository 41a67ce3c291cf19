"""Things that stand on the table: the cardboard castle and the king meeples, as coloured 3D faces.

World coordinates are in kingdom squares with the table at z = 0 and height along -z (so x, y, z stay
right-handed with x and y the table texture's columns and rows). A face is (its 3D polygon, its colour).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: The four player colours of the castles and kings (BGR).
PLAYER_COLOURS = {
    "pink": (170, 110, 225),
    "yellow": (40, 200, 235),
    "green": (70, 160, 60),
    "blue": (190, 110, 40),
}


@dataclass
class Face:
    points: np.ndarray  # (k, 3) world points, in order around the face
    colour: np.ndarray  # BGR
    centre: np.ndarray  # a point inside the solid it bounds, to orient its normal outwards
    lines: int = 0  # courses of bricks printed on it
    decal: bool = False  # printed on another face: drawn after the solids when it faces the camera


def box(x0, y0, x1, y1, z0, z1, colour, lines: int = 0) -> list[Face]:
    """The six faces of an axis-aligned box (z0 below z1 in height, i.e. z1 more negative)."""
    c = np.asarray(colour, np.float32)
    p = np.array(
        [
            [x0, y0, z0],
            [x1, y0, z0],
            [x1, y1, z0],
            [x0, y1, z0],
            [x0, y0, z1],
            [x1, y0, z1],
            [x1, y1, z1],
            [x0, y1, z1],
        ],
        np.float32,
    )
    quads = [(4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7), (0, 3, 2, 1)]
    centre = p.mean(axis=0)
    return [Face(p[list(q)], c, centre, lines if k else 0) for k, q in enumerate(quads)]


def prism(cx, cy, r0, r1, z0, z1, colour, sides: int = 10) -> list[Face]:
    """A frustum standing on z0 (radius r0) up to z1 (radius r1), with its top cap."""
    a = np.linspace(0, 2 * np.pi, sides, endpoint=False)
    bottom = np.stack([cx + r0 * np.cos(a), cy + r0 * np.sin(a), np.full(sides, z0)], 1)
    top = np.stack([cx + r1 * np.cos(a), cy + r1 * np.sin(a), np.full(sides, z1)], 1)
    c = np.asarray(colour, np.float32)
    centre = np.array([cx, cy, (z0 + z1) / 2], np.float32)
    faces = [
        Face(
            np.array([bottom[i], bottom[(i + 1) % sides], top[(i + 1) % sides], top[i]], np.float32),
            c,
            centre,
        )
        for i in range(sides)
    ]
    faces.append(Face(top.astype(np.float32), c, centre))
    return faces


def castle(rng: np.random.Generator, cx: float, cy: float, base: float, colour) -> tuple[list[Face], float]:
    """Four walls with corner towers and battlements, open on top, standing on the square centred at
    (cx, cy) whose top is at height ``base`` (a negative z). Returns its faces and its height in squares."""
    half = rng.uniform(0.38, 0.45)
    tower = rng.uniform(0.1, 0.13)
    wall_h = rng.uniform(0.42, 0.55)
    tower_h = rng.uniform(0.6, 0.8)
    thick = 0.035
    turn = rng.uniform(-0.08, 0.08)
    faces: list[Face] = []
    x0, y0, x1, y1 = cx - half, cy - half, cx + half, cy + half
    top = base - wall_h
    dark = np.asarray(colour, np.float32) * 0.8
    faces += box(x0, y0, x1, y0 + thick, base, top, colour, 4)
    faces += box(x0, y1 - thick, x1, y1, base, top, colour, 4)
    faces += box(x0, y0, x0 + thick, y1, base, top, colour, 4)
    faces += box(x1 - thick, y0, x1, y1, base, top, colour, 4)
    for mx in np.linspace(x0 + tower * 1.5, x1 - tower * 1.5, 4):  # battlements on two walls
        for wy in (y0, y1 - thick):
            faces += box(mx - 0.03, wy, mx + 0.03, wy + thick, top, top - 0.06, colour)
    for my in np.linspace(y0 + tower * 1.5, y1 - tower * 1.5, 4):
        for wx in (x0, x1 - thick):
            faces += box(wx, my - 0.03, wx + thick, my + 0.03, top, top - 0.06, colour)
    for tx, ty in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
        faces += box(tx - tower, ty - tower, tx + tower, ty + tower, base, base - tower_h, colour, 6)
        faces += box(
            tx - tower, ty - tower, tx + tower, ty + tower, base - tower_h, base - tower_h - 0.05, dark
        )
    # door on one wall: a dark arch drawn as a face just outside it
    y = y1 + 0.002
    door = [
        [cx - 0.09, y, base],
        [cx + 0.09, y, base],
        [cx + 0.09, y, base - 0.22],
        [cx - 0.09, y, base - 0.22],
    ]
    inside = np.array([cx, cy, base - wall_h / 2], np.float32)
    faces.append(Face(np.array(door, np.float32), np.array((40, 40, 60), np.float32), inside, decal=True))
    for face in faces:  # the castle is not square to the grid: turned a little on its square
        face.points, face.centre = (
            _turned(face.points, cx, cy, turn),
            _turned(face.centre[None], cx, cy, turn)[0],
        )
    return faces, tower_h + 0.05


def meeple(cx: float, cy: float, base: float, colour, turn: float) -> list[Face]:
    """A wooden king: a flared body, arms, a head and a crown."""
    faces = prism(cx, cy, 0.15, 0.1, base, base - 0.28, colour)
    faces += box(cx - 0.17, cy - 0.05, cx + 0.17, cy + 0.05, base - 0.17, base - 0.25, colour)
    faces += prism(cx, cy, 0.085, 0.085, base - 0.28, base - 0.38, colour)
    faces += prism(
        cx, cy, 0.09, 0.1, base - 0.38, base - 0.45, np.asarray(colour, np.float32) * 0.85, sides=6
    )
    for face in faces:
        face.points, face.centre = (
            _turned(face.points, cx, cy, turn),
            _turned(face.centre[None], cx, cy, turn)[0],
        )
    return faces


def _turned(points: np.ndarray, cx: float, cy: float, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    out = points.copy()
    dx, dy = points[:, 0] - cx, points[:, 1] - cy
    out[:, 0], out[:, 1] = cx + c * dx - s * dy, cy + s * dx + c * dy
    return out


def _normal(points: np.ndarray) -> np.ndarray:
    n = np.cross(points[1] - points[0], points[2] - points[0])
    if np.linalg.norm(n) < 1e-9 and len(points) > 3:
        n = np.cross(points[2] - points[0], points[3] - points[0])
    return n / (np.linalg.norm(n) + 1e-12)


def draw(image: np.ndarray, faces: list[Face], camera, light: np.ndarray) -> None:
    """Paint the faces on ``image`` (float32 BGR, 0-255) far to near, lit by ``light`` (a unit vector
    towards the light), each face shaded by its angle to it; faces turned away from the camera are
    skipped."""
    items = []
    for face in faces:
        n = _normal(face.points)
        middle = face.points.mean(axis=0)
        if np.dot(n, middle - face.centre) < 0:
            n = -n
        if np.dot(n, camera.position - middle) <= 0:
            continue
        depth = float(camera.depth(middle[None])[0])
        items.append((depth + (-1e9 if face.decal else 0.0), face, n))
    items.sort(key=lambda item: -item[0])
    for _, face, n in items:
        lit = 0.45 + 0.65 * max(0.0, float(np.dot(n, light)))
        pixels = camera.project(face.points)
        colour = np.clip(face.colour * lit, 0, 255)
        polygon = np.round(pixels * 16).astype(np.int32)
        cv2.fillPoly(image, [polygon], colour.tolist(), cv2.LINE_AA, shift=4)
        for k in range(1, face.lines + 1):  # brick courses printed on the cardboard
            t = k / (face.lines + 1)
            a = face.points[0] * (1 - t) + face.points[3] * t
            b = face.points[1] * (1 - t) + face.points[2] * t
            ends = np.round(camera.project(np.stack([a, b])) * 16).astype(np.int32)
            cv2.line(image, tuple(ends[0]), tuple(ends[1]), (colour * 0.7).tolist(), 1, cv2.LINE_AA, shift=4)
