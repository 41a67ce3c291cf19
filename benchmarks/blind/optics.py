"""The phone: a pinhole camera over the table, then what its lens, sensor and JPEG do to the picture."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Camera:
    """A pinhole camera: ``rotation`` rows are the image's right, down and forward axes in the world."""

    position: np.ndarray
    rotation: np.ndarray
    focal: float
    width: int
    height: int

    @classmethod
    def looking_at(
        cls, target, tilt: float, azimuth: float, distance: float, roll: float, focal, width, height
    ):
        """A camera ``distance`` squares from ``target``, ``tilt`` radians from straight above, on the
        side ``azimuth`` of it, turned ``roll`` radians about its view axis."""
        side = np.array([np.cos(azimuth), np.sin(azimuth), 0.0])
        position = np.asarray(target, float) + distance * (
            np.sin(tilt) * side + np.array([0, 0, -np.cos(tilt)])
        )
        forward = (np.asarray(target, float) - position) / distance
        down = side - np.dot(side, forward) * forward
        down /= np.linalg.norm(down)
        right = np.cross(down, forward)
        c, s = np.cos(roll), np.sin(roll)
        right, down = c * right + s * down, -s * right + c * down
        return cls(position, np.stack([right, down, forward]), float(focal), int(width), int(height))

    def camera_points(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, float) - self.position) @ self.rotation.T

    def depth(self, points: np.ndarray) -> np.ndarray:
        return self.camera_points(points)[:, 2]

    def project(self, points: np.ndarray) -> np.ndarray:
        """World points (k, 3) -> pixels (k, 2) of the ideal (undistorted) image."""
        p = self.camera_points(points)
        return np.stack(
            [
                self.focal * p[:, 0] / p[:, 2] + self.width / 2,
                self.focal * p[:, 1] / p[:, 2] + self.height / 2,
            ],
            1,
        )

    def plane_homography(self, to_world: np.ndarray, z: float) -> np.ndarray:
        """The homography from a texture's pixels to image pixels, for a texture lying flat at height z
        whose pixel (u, v, 1) is the table point ``to_world @ (u, v, 1)`` (a 3×3 affine in x, y)."""
        k = np.array([[self.focal, 0, self.width / 2], [0, self.focal, self.height / 2], [0, 0, 1]])
        world = np.array([[to_world[0, 0], to_world[0, 1], to_world[0, 2]],
                          [to_world[1, 0], to_world[1, 1], to_world[1, 2]],
                          [0, 0, z]])  # fmt: skip
        # camera point = R (P - C) = R P - R C; P = world @ (u, v, 1)
        m = self.rotation @ world
        m[:, 2] -= self.rotation @ self.position
        h = k @ m
        return h / h[2, 2]

    def ground_point(self, pixel, z: float = 0.0) -> np.ndarray | None:
        """Where the ray through an image pixel meets the table plane at height z (None: above horizon)."""
        ray = np.array(
            [(pixel[0] - self.width / 2) / self.focal, (pixel[1] - self.height / 2) / self.focal, 1.0]
        )
        world_ray = self.rotation.T @ ray
        if world_ray[2] <= 1e-6:
            return None
        t = (z - self.position[2]) / world_ray[2]
        return self.position + t * world_ray if t > 0 else None


def distorted(points: np.ndarray, k1: float, focal: float, width: int, height: int) -> np.ndarray:
    """Where ideal image points land in the photo under radial distortion ``k1``: the photo's pixel p_d
    shows the ideal point p_u = p_d (1 + k1 |p_d|^2), radii in focal lengths from the centre."""
    centre = np.array([width / 2, height / 2])
    u = (np.asarray(points, float) - centre) / focal
    d = u.copy()
    for _ in range(30):
        d = u / (1 + k1 * (d**2).sum(axis=1, keepdims=True))
    return d * focal + centre


def distort(image: np.ndarray, k1: float, focal: float) -> np.ndarray:
    """The photo through a lens with radial distortion ``k1`` (the model of ``distorted``)."""
    height, width = image.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    x, y = (xs - width / 2) / focal, (ys - height / 2) / focal
    factor = 1 + k1 * (x * x + y * y)
    return cv2.remap(image, x * factor * focal + width / 2, y * factor * focal + height / 2, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REFLECT)  # fmt: skip


def motion_blur(image: np.ndarray, length: float, angle: float) -> np.ndarray:
    """A straight shake of ``length`` pixels at ``angle`` radians."""
    size = int(np.ceil(length)) | 1
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = np.cos(angle) * length / 2, np.sin(angle) * length / 2
    cv2.line(
        kernel,
        (int(round(c - dx)), int(round(c - dy))),
        (int(round(c + dx)), int(round(c + dy))),
        1.0,
        1,
        cv2.LINE_AA,
    )
    return cv2.filter2D(image, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REFLECT)


def light_field(
    rng: np.random.Generator, width: int, height: int, vignette: float, uneven: float, person: bool
) -> np.ndarray:
    """The light falling on each pixel, around 1: a lamp off to one side, the lens's vignetting and,
    sometimes, the soft shadow of the photographer or their phone over part of the table."""
    small_w, small_h = 160, int(160 * height / width)
    ys, xs = np.mgrid[0:small_h, 0:small_w].astype(np.float32)
    xs, ys = xs / small_w - 0.5, ys / small_h * (small_h / small_w) - 0.5 * small_h / small_w
    angle = rng.uniform(0, 2 * np.pi)
    field = 1 + uneven * (np.cos(angle) * xs + np.sin(angle) * ys) * 1.6
    lx, ly = rng.uniform(-0.8, 0.8, size=2)
    field += uneven * 0.8 * np.exp(-((xs - lx) ** 2 + (ys - ly) ** 2) / 0.15)
    field *= 1 - vignette * ((xs**2 + ys**2) / 0.31)
    if person:
        shadow = np.zeros((small_h, small_w), np.float32)
        cx, cy = rng.uniform(0.1, 0.9) * small_w, rng.choice([-0.1, 1.1]) * small_h
        axes = (int(small_w * rng.uniform(0.25, 0.45)), int(small_h * rng.uniform(0.35, 0.6)))
        cv2.ellipse(shadow, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        shadow = cv2.GaussianBlur(shadow, (0, 0), small_w * 0.04)
        field *= 1 - rng.uniform(0.25, 0.45) * shadow
    field = np.clip(field / np.percentile(field, 90), 0.05, 1.4)
    return cv2.resize(field, (width, height), interpolation=cv2.INTER_LINEAR)


def sensor(
    rng: np.random.Generator,
    image: np.ndarray,
    exposure: float,
    white: np.ndarray,
    iso_noise: float,
    smoothing: float,
) -> np.ndarray:
    """Exposure and white balance, then shot and read noise (stronger in dim light), the phone's noise
    smoothing (``smoothing`` px, stronger in the dark, as night modes smear detail) and sharpening; uint8
    BGR out. At ``iso_noise`` 1 a mid-grey keeps a signal-to-noise ratio of about 25 before smoothing."""
    linear = (np.clip(image, 0, 255) / 255.0) ** 2.2 * exposure * white  # filters leave rounding below 0
    # shot noise grows with the signal's root, read noise is flat; both in the linear signal
    sigma = np.sqrt(np.clip(linear, 0, None) * iso_noise * 0.002 + (iso_noise * 0.002) ** 2)
    noise = rng.standard_normal(linear.shape[:2], dtype=np.float32)[..., None] * 0.7
    noise = noise + rng.standard_normal(linear.shape, dtype=np.float32) * 0.5  # chroma noise
    linear = np.clip(linear + noise * sigma, 0, 1)
    # the phone's tone curve lifts dark photos part way back
    gain = min(2.2, 0.5 / max(1e-3, float(np.percentile(linear[::7, ::7], 95))))
    out = np.clip(linear * max(1.0, gain * 0.8), 0, 1) ** (1 / 2.2) * 255
    out = cv2.GaussianBlur(out, (0, 0), smoothing)
    sharp = cv2.addWeighted(out, 1.6, cv2.GaussianBlur(out, (0, 0), 2.0), -0.6, 0)
    return np.clip(sharp, 0, 255).astype(np.uint8)
