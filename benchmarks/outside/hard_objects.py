"""Tall objects of the outside check's hard tables: the cardboard castle and the king meeples."""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.outside import gen

# ----------------------------------------------------------------------------------------------
# tall objects: the cardboard castle and the king meeples
# ----------------------------------------------------------------------------------------------


def _brick_texture(colour, tower: bool) -> np.ndarray:
    tex = np.empty((64, 64, 3), np.float32)
    tex[:] = colour
    for row in range(0, 64, 8):  # printed stone courses
        tex[row : row + 1] *= 0.72
        for x in range((row // 8) % 2 * 8, 64, 16):
            tex[row : row + 8, x : x + 1] *= 0.78
    if tower:  # a dark window slit high on the tower
        tex[12:30, 28:36] = np.asarray(colour, np.float32) * 0.3
    return tex


class Castle3D(gen.Prism):
    """Four walls with corner towers and an open top, standing on the castle square: boxes drawn far to near."""

    def __init__(self, centre, theta, base_z, size, height, colour):
        ex = np.array([math.cos(theta), math.sin(theta)])
        ey = np.array([-math.sin(theta), math.cos(theta)])
        h = size / 2
        quad = [centre + a * h * ex + b * h * ey for a, b in ((-1, 1), (1, 1), (1, -1), (-1, -1))]
        super().__init__(quad, base_z + height, None, colour, "castle")
        self.centre, self.ex, self.ey = np.asarray(centre, float), ex, ey
        self.base_z, self.size, self.tall = base_z, size, height
        self.colour = np.asarray(colour, np.float32)

    def boxes(self):
        s, height = self.size, self.tall
        h, t, w, wall = s / 2, 0.24 * s, 0.06, 0.8 * height
        out = []
        for su in (-1, 1):
            for sv in (-1, 1):
                cu, cv = su * (h - t / 2), sv * (h - t / 2)
                out.append((cu - t / 2, cu + t / 2, cv - t / 2, cv + t / 2, height, True))
        inner = h - t
        for side in (-1, 1):  # each wall in two halves, so that far-to-near order holds between boxes
            a0, a1 = sorted((side * (h - w), side * h))
            for b0, b1 in ((-inner, 0.0), (0.0, inner)):
                out.append((b0, b1, a0, a1, wall, False))
                out.append((a0, a1, b0, b1, wall, False))
        return out

    def _world(self, u, v, z):
        xy = self.centre + u * self.ex + v * self.ey
        return np.array([xy[0], xy[1], self.base_z + z])

    def draw(self, img, cam, light_xy):
        light = np.array([-light_xy[0], -light_xy[1], 1.3])
        light /= np.linalg.norm(light)
        boxes = []
        for u0, u1, v0, v1, z1, tower in self.boxes():
            centre = self._world((u0 + u1) / 2, (v0 + v1) / 2, z1 / 2)
            boxes.append((-np.linalg.norm(centre - cam.C), u0, u1, v0, v1, z1, tower))
        boxes.sort(key=lambda b: b[0])
        textures = {flag: _brick_texture(self.colour, flag) for flag in (False, True)}
        ex3, ey3 = np.append(self.ex, 0), np.append(self.ey, 0)
        for _, u0, u1, v0, v1, z1, tower in boxes:
            faces = [
                ([(u0, v0, z1), (u1, v0, z1), (u1, v1, z1), (u0, v1, z1)], np.array([0.0, 0, 1])),
                ([(u0, v0, z1), (u1, v0, z1), (u1, v0, 0), (u0, v0, 0)], -ey3),
                ([(u1, v1, z1), (u0, v1, z1), (u0, v1, 0), (u1, v1, 0)], ey3),
                ([(u0, v1, z1), (u0, v0, z1), (u0, v0, 0), (u0, v1, 0)], -ex3),
                ([(u1, v0, z1), (u1, v1, z1), (u1, v1, 0), (u1, v0, 0)], ex3),
            ]
            for corners, normal in faces:
                world = np.array([self._world(*p) for p in corners])
                if normal @ (cam.C - world.mean(0)) <= 0:
                    continue
                shade = 0.45 + 0.55 * max(0.0, float(normal @ light))
                projected = cam.project(world)
                if normal[2] > 0:
                    gen.fill_poly(img, projected, self.colour * min(1.0, shade * 1.05))
                else:
                    gen.paste_texture(img, textures[tower] * shade, projected)


#: A king meeple's outline: (across, up) in units of its width and height.
KING_OUTLINE = [
    (-0.5, 0.0), (0.5, 0.0), (0.42, 0.1), (0.3, 0.45), (0.46, 0.55), (0.3, 0.63), (0.16, 0.7),
    (0.23, 0.78), (0.2, 0.86), (0.25, 1.0), (0.12, 0.93), (0.0, 1.0), (-0.12, 0.93), (-0.25, 1.0),
    (-0.2, 0.86), (-0.23, 0.78), (-0.16, 0.7), (-0.3, 0.63), (-0.46, 0.55), (-0.3, 0.45), (-0.42, 0.1),
]  # fmt: skip


class Meeple(gen.Prism):
    """A wooden king meeple: its outline stood upright facing the camera, shaded like a rounded body."""

    def __init__(self, base, base_z, height, colour):
        r = 0.18 * height
        quad = [base + d for d in ((-r, r), (r, r), (r, -r), (-r, -r))]
        super().__init__(quad, base_z + height, None, colour, "meeple")
        self.base = np.array([base[0], base[1], base_z])
        self.tall, self.colour = height, np.asarray(colour, np.float32)

    def draw(self, img, cam, light_xy):
        view = self.base - cam.C
        across = np.cross(view, [0.0, 0, 1])
        across /= np.linalg.norm(across) + 1e-12
        width = 0.55 * self.tall
        pts3 = [self.base + a * width * across + [0, 0, b * self.tall] for a, b in KING_OUTLINE]
        pts = cam.project(pts3)
        axis = cam.project([self.base, self.base + width / 2 * across])
        H, W = img.shape[:2]
        x0, y0, x1, y1 = gen.roi_of(pts, W, H)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(mask, [np.round((pts - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        alpha = mask.astype(np.float32)[..., None] / 255
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        half = axis[1] - axis[0]
        u = ((xx - axis[0][0]) * half[0] + (yy - axis[0][1]) * half[1]) / (half @ half + 1e-9)
        lit = 1 if float(np.cross([0, 0, 1.0], across)[:2] @ light_xy) < 0 else -1
        shade = 0.62 + 0.38 * np.sqrt(np.clip(1 - u * u, 0, 1)) + 0.12 * lit * np.clip(u, -1, 1)
        roi = img[y0:y1, x0:x1]
        roi *= 1 - alpha
        roi += alpha * (self.colour * shade[..., None])
        # its round body seen from above: cross-sections from the base up to the crown
        ring = np.linspace(0, 2 * math.pi, 20, endpoint=False)
        for up, radius, tone in (
            (0.08, 0.5, 0.8),
            (0.45, 0.32, 0.9),
            (0.56, 0.44, 0.95),
            (0.8, 0.22, 1.05),
            (0.97, 0.24, 1.1),
        ):
            disc = [
                self.base + [width * radius * math.cos(a), width * radius * math.sin(a), up * self.tall]
                for a in ring
            ]
            gen.fill_poly(img, cam.project(disc), np.clip(self.colour * tone, 0, 255))
