"""The outside generator's pinhole camera over the table plane, and plane geometry helpers."""

from __future__ import annotations

import math

import numpy as np

# ----------------------------------------------------------------------------------------------
# camera
# ----------------------------------------------------------------------------------------------


class Camera:
    def __init__(self, W, H, f, tilt, azim, roll, target, dist, dx, dy):
        self.W, self.H = W, H
        d = np.array([math.sin(tilt) * math.cos(azim), math.sin(tilt) * math.sin(azim), math.cos(tilt)])
        self.C = np.asarray(target, float) + dist * d
        zc = -d
        xc0 = np.array([-math.sin(azim), math.cos(azim), 0.0])
        yc0 = np.cross(zc, xc0)
        xc = math.cos(roll) * xc0 + math.sin(roll) * yc0
        yc = -math.sin(roll) * xc0 + math.cos(roll) * yc0
        self.R = np.stack([xc, yc, zc])
        self.K = np.array([[f, 0, W / 2 + dx], [0, f, H / 2 + dy], [0, 0, 1.0]])

    def plane(self, z):
        """Homography world (X, Y, 1) on plane height z -> image."""
        M = np.column_stack([[1, 0, 0], [0, 1, 0], np.array([0, 0, z]) - self.C])
        return self.K @ self.R @ M

    def project(self, pts3):
        pts3 = np.asarray(pts3, float).reshape(-1, 3)
        cam = (self.R @ (pts3 - self.C).T).T
        uv = (self.K @ cam.T).T
        return uv[:, :2] / uv[:, 2:3]


def apply_h(H, pts):
    pts = np.asarray(pts, float).reshape(-1, 2)
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return p[:, :2] / p[:, 2:3]


# ----------------------------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------------------------


def sat_separated(a, b, margin=0.0):
    """Convex polygons a, b (k x 2): True when separated by at least `margin` along some edge normal."""
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            nrm = np.array([-e[1], e[0]])
            nrm = nrm / (np.linalg.norm(nrm) + 1e-12)
            pa, pb = a @ nrm, b @ nrm
            if pa.max() + margin <= pb.min() or pb.max() + margin <= pa.min():
                return True
    return False


def rect_world(cx, cy, w, h, theta):
    c, s = math.cos(theta), math.sin(theta)
    # TL, TR, BR, BL of a texture seen from above (world Y points "up" in the texture)
    local = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
    return local @ np.array([[c, s], [-s, c]]) + [cx, cy]


def grid_to_world_matrix(n, theta=0.0, tx=0.0, ty=0.0):
    """3x3: grid (gx right, gy down; 1 unit = 1 square) -> world XY (right-handed, not mirrored).
    theta rotates about the grid centre, then (tx, ty) moves the centre."""
    flip = np.array([[1, 0, -n / 2], [0, -1, n / 2], [0, 0, 1.0]])  # centre at origin, y flipped
    c, s = math.cos(theta), math.sin(theta)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    move = np.array([[1, 0, n / 2 + tx], [0, 1, n / 2 + ty], [0, 0, 1.0]])
    return move @ rot @ flip
