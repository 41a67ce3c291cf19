"""Test material: a generated scene with a 3D box castle drawn on its castle square in the camera's
perspective (four walls and corner towers in a player's colour, open top), independent of the scanner.

The camera is recovered from the scene's exact frame corners by its own search (the focal length that
makes the homography's two columns orthonormal; the generator's camera has square pixels and its
principal point at the photo's centre), not by the scanner's code under test.
"""

from __future__ import annotations

import cv2
import numpy as np

from benchmarks.scenes import CASTLE_COLOURS, Scene
from kingdomino.board import Terrain


def _camera(grid_to_image: np.ndarray, shape: tuple[int, ...]):
    height, width = shape[:2]
    shift = np.array([[1.0, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]])
    normalised = shift @ grid_to_image
    best = None
    for focal in np.geomspace(0.3, 4.0, 400) * max(width, height):
        columns = np.diag([1 / focal, 1 / focal, 1.0]) @ normalised
        a, b = columns[:, 0], columns[:, 1]
        error = abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)) + abs(
            np.linalg.norm(a) / np.linalg.norm(b) - 1
        )
        if best is None or error < best[0]:
            best = (error, focal, columns)
    _, focal, columns = best
    if (columns @ [0.5, 0.5, 1.0])[2] < 0:
        columns = -columns
    scale = (np.linalg.norm(columns[:, 0]) + np.linalg.norm(columns[:, 1])) / 2
    r1 = columns[:, 0] / np.linalg.norm(columns[:, 0])
    r2 = columns[:, 1] / np.linalg.norm(columns[:, 1])
    t = columns[:, 2] / scale
    r3 = np.cross(r1, r2)
    if r3 @ t > 0:
        r3 = -r3
    k = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1.0]])
    rotation = np.stack([r1, r2, r3], axis=1)
    return k, rotation, t


def _box(x0: float, x1: float, y0: float, y1: float, top: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Faces (4 corners in grid x, y, z) and outward normals of a closed upright box on the table."""
    sides = (
        ([[x0, y0], [x0, y1]], [-1, 0, 0]),
        ([[x1, y0], [x1, y1]], [1, 0, 0]),
        ([[x0, y0], [x1, y0]], [0, -1, 0]),
        ([[x0, y1], [x1, y1]], [0, 1, 0]),
    )
    faces = [
        (np.array([[*a, 0], [*b, 0], [*b, top], [*a, top]], float), np.array(normal, float))
        for (a, b), normal in sides
    ]
    lid = np.array([[x0, y0, top], [x1, y0, top], [x1, y1, top], [x0, y1, top]], float)
    return [*faces, (lid, np.array([0, 0, 1.0]))]


def _boxes(row: int, col: int, height: float, inset: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Faces of the box castle on the square: four walls as thin boxes, four corner towers a little taller."""
    x0, x1, y0, y1 = col + inset, col + 1 - inset, row + inset, row + 1 - inset
    wall, tower = 0.06, 0.16
    faces = [
        *_box(x0, x1, y0, y0 + wall, height),
        *_box(x0, x1, y1 - wall, y1, height),
        *_box(x0, x0 + wall, y0, y1, height),
        *_box(x1 - wall, x1, y0, y1, height),
    ]
    for tx, ty in ((x0, y0), (x1 - tower, y0), (x0, y1 - tower), (x1 - tower, y1 - tower)):
        faces += _box(tx, tx + tower, ty, ty + tower, height * 1.15)
    return faces


def _block(row: int, col: int, height: float, inset: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Faces of a closed upright block on the square (a king)."""
    return _box(col + inset, col + 1 - inset, row + inset, row + 1 - inset, height)


def with_castle(
    scene: Scene, colour: int = 0, height: float = 0.7, inset: float = 0.12, image: np.ndarray | None = None
) -> np.ndarray:
    """The scene's photo with a 3D box castle on its castle square (``colour`` indexes CASTLE_COLOURS)."""
    castle = next(((r, c) for (r, c), sq in scene.kingdom.cells() if sq.terrain == Terrain.CASTLE), None)
    photo = (scene.image if image is None else image).copy()
    if castle is None:
        return photo
    return _drawn(scene, photo, _boxes(castle[0], castle[1], height, inset), colour)


def with_king(
    scene: Scene,
    cell: tuple[int, int],
    colour: int = 0,
    height: float = 0.75,
    inset: float = 0.33,
    image: np.ndarray | None = None,
) -> np.ndarray:
    """The scene's photo with an upright block in a player's colour standing on ``cell`` (row, column of
    the scene's kingdom as generated): a king meeple, narrower than half a square and taller than wide."""
    photo = (scene.image if image is None else image).copy()
    return _drawn(scene, photo, _block(cell[0], cell[1], height, inset), colour)


def _drawn(scene: Scene, photo: np.ndarray, boxes: list, colour: int) -> np.ndarray:
    """``photo`` with the faces ``boxes`` drawn in the camera's perspective, far ones first, shaded."""
    n = scene.kingdom.grid_size
    frame = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
    grid_to_image = cv2.getPerspectiveTransform(frame, scene.corners.astype(np.float32)).astype(float)
    k, rotation, t = _camera(grid_to_image, photo.shape)
    camera_centre = -rotation.T @ t
    base = np.array(CASTLE_COLOURS[colour], float)
    light = np.array([0.3, -0.5, 0.8])
    light /= np.linalg.norm(light)
    faces = []
    for quad, normal in boxes:
        centre = quad.mean(0)
        facing = (camera_centre - centre) @ normal
        if facing <= 0:  # back face: seen only as the inside of an open wall, drawn darker
            shade = 0.45
        else:
            shade = 0.6 + 0.4 * abs(normal @ light)
        faces.append((np.linalg.norm(camera_centre - centre), quad, shade))
    for _, quad, shade in sorted(faces, key=lambda face: -face[0]):
        camera_points = quad @ rotation.T + t
        pixels = camera_points @ k.T
        pixels = pixels[:, :2] / pixels[:, 2:3]
        colour_value = np.clip(base * shade, 0, 255).tolist()
        cv2.fillConvexPoly(photo, np.round(pixels * 4).astype(np.int32), colour_value, cv2.LINE_AA, 2)
    return photo
