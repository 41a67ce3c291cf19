"""The tall objects of a hard scene, modelled in 3D and drawn through the camera's own projection: the
cardboard castle, the king meeples and the shadows they cast on the table."""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.scenes import CASTLE_COLOURS, SQUARE_PX


def project_points(projection: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Image pixels of (n, 3) world points."""
    p = np.c_[points, np.ones(len(points))] @ projection.T
    return p[:, :2] / p[:, 2:3]


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
