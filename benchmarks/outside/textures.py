"""Procedural table textures of the outside generator, evaluated at the world coordinates of photo pixels."""

from __future__ import annotations

import math

import cv2
import numpy as np

# ----------------------------------------------------------------------------------------------
# procedural table textures (evaluated at world coordinates of every (reduced) photo pixel)
# ----------------------------------------------------------------------------------------------


class Field:
    def __init__(self, X, Y, rng):
        self.X, self.Y, self.rng = X, Y, rng

    def rot(self, angle):
        c, s = math.cos(angle), math.sin(angle)
        return self.X * c + self.Y * s, -self.X * s + self.Y * c

    def noise(self, sa, sb=None, angle=0.0, octaves=1, gain=0.5):
        sb = sa if sb is None else sb
        a, b = self.rot(angle)
        total = np.zeros_like(a)
        amp, norm = 1.0, 0.0
        for _ in range(octaves):
            amin, amax, bmin, bmax = a.min(), a.max(), b.min(), b.max()
            sa_, sb_ = max(sa, (amax - amin) / 3000), max(sb, (bmax - bmin) / 3000)
            na, nb = int((amax - amin) / sa_) + 5, int((bmax - bmin) / sb_) + 5
            g = self.rng.standard_normal((nb, na)).astype(np.float32)
            mx = ((a - amin) / sa_ + 1).astype(np.float32)
            my = ((b - bmin) / sb_ + 1).astype(np.float32)
            total += amp * cv2.remap(g, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
            norm += amp * amp
            amp *= gain
            sa, sb = sa / 2, sb / 2
        out = total / math.sqrt(norm)
        return out / (out.std() + 1e-6)


def smoothstep(x):
    x = np.clip(x, 0, 1)
    return x * x * (3 - 2 * x)


def wood_texture(F, rng, dark, px_world):
    th = rng.uniform(0, math.pi)
    a, b = F.rot(th)
    pw = rng.uniform(1.2, 4.0)
    tones = rng.normal(0, 1, 4096)
    k = np.floor(b / pw).astype(np.int64) % 4096
    plank = tones[k].astype(np.float32)
    warp = F.noise(rng.uniform(2, 6), rng.uniform(0.3, 0.8), th, octaves=3)
    freq = rng.uniform(2.5, 7)
    t = b * freq + warp * rng.uniform(0.8, 2.2) + plank * 3
    grain = (0.5 + 0.5 * np.sin(2 * math.pi * t)) ** rng.uniform(2, 5)
    fine = F.noise(rng.uniform(0.8, 2.5), rng.uniform(0.01, 0.03), th, octaves=2)
    if dark:
        base = np.array([rng.uniform(18, 45), rng.uniform(32, 70), rng.uniform(50, 105)])
    else:
        base = np.array([rng.uniform(85, 150), rng.uniform(135, 185), rng.uniform(175, 230)])
    shade = (1 + 0.10 * plank) * (1 - rng.uniform(0.15, 0.32) * grain) * (1 + 0.06 * fine)
    d = np.mod(b, pw)
    d = np.minimum(d, pw - d)
    seam = 1 - 0.55 * np.exp(-((d / max(0.02, 1.2 * px_world)) ** 2))
    return base[None, None, :] * (shade * seam)[..., None]


def cloth_weave(F, rng, px_world):
    th = rng.uniform(0, math.pi)
    a, b = F.rot(th)
    p = rng.uniform(0.02, 0.06)
    weave = 0.03 * np.sin(2 * math.pi * a / p) * np.sin(2 * math.pi * b / p)
    wrinkles = F.noise(rng.uniform(2, 6), octaves=2)
    return 1 + weave + rng.uniform(0.03, 0.08) * wrinkles


def random_colour(rng, s_range=(0.3, 0.85), v_range=(0.35, 0.9)):
    h = rng.uniform(0, 180)
    s = rng.uniform(*s_range) * 255
    v = rng.uniform(*v_range) * 255
    hsv = np.uint8([[[h, s, v]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def table_texture(kind, F, rng, px_world):
    shape = F.X.shape
    if kind in ("wood_light", "wood_dark"):
        img = wood_texture(F, rng, kind == "wood_dark", px_world)
    elif kind == "felt":
        col = [
            np.array([40, 105, 35]),
            np.array([110, 60, 20]),
            np.array([35, 35, 120]),
            np.array([80, 80, 80]),
            np.array([40, 30, 90]),
            np.array([60, 90, 20]),
        ][rng.integers(6)]
        col = col * rng.uniform(0.7, 1.3)
        mottle = 1 + 0.06 * F.noise(rng.uniform(0.5, 2.5), octaves=3) + 0.05 * F.noise(0.05, octaves=1)
        img = col[None, None, :] * mottle[..., None]
    elif kind == "white":
        col = np.array([235, 238, 240]) + rng.normal(0, 6, 3)
        img = col[None, None, :] * (1 + 0.025 * F.noise(3, octaves=2))[..., None]
    elif kind == "black":
        col = np.array([28, 28, 30]) + rng.normal(0, 4, 3)
        img = col[None, None, :] * (1 + 0.08 * F.noise(2, octaves=3))[..., None]
    elif kind == "coloured":
        col = random_colour(rng)
        img = col[None, None, :] * (1 + 0.04 * F.noise(3, octaves=2))[..., None]
    elif kind in ("checkered", "gingham"):
        th = rng.uniform(0, math.pi / 2) if rng.random() < 0.7 else 0.0
        a, b = F.rot(th)
        p = rng.uniform(0.3, 1.5)
        c1 = np.array([235, 238, 240]) * rng.uniform(0.9, 1.0)
        c2 = [
            np.array([40, 40, 200]),
            np.array([170, 90, 30]),
            np.array([50, 130, 40]),
            np.array([30, 30, 30]),
            np.array([40, 190, 220]),
        ][rng.integers(5)]
        w = max(px_world, 1e-3) / p
        sa = smoothstep(0.5 + np.sin(math.pi * a / p) * 0.5 / max(w * 3, 0.02))
        sb = smoothstep(0.5 + np.sin(math.pi * b / p) * 0.5 / max(w * 3, 0.02))
        if kind == "checkered":
            m = sa * sb + (1 - sa) * (1 - sb)
        else:
            m = (sa + sb) / 2  # gingham: 0, 0.5, 1
        img = c1[None, None, :] * (1 - m[..., None]) + c2[None, None, :] * m[..., None]
        img = img * cloth_weave(F, rng, px_world)[..., None]
    elif kind == "striped":
        th = rng.uniform(0, math.pi)
        a, b = F.rot(th)
        cols = [np.array([235, 235, 235]), random_colour(rng), random_colour(rng)]
        widths = rng.uniform(0.15, 1.0, size=3)
        period = widths.sum()
        phase = np.mod(b, period)
        idx = np.zeros(shape, np.int64)
        idx[phase > widths[0]] = 1
        idx[phase > widths[0] + widths[1]] = 2
        img = np.stack(cols)[idx]
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.8)
        img = img * cloth_weave(F, rng, px_world)[..., None]
    elif kind == "marble":
        th = rng.uniform(0, math.pi)
        a, b = F.rot(th)
        turb = F.noise(rng.uniform(1.5, 4), octaves=5)
        v = np.abs(np.sin(2 * math.pi * (a * rng.uniform(0.1, 0.4) + rng.uniform(0.6, 1.5) * turb)))
        vein = (1 - v) ** rng.uniform(6, 20)
        base = np.array([228, 230, 232]) * rng.uniform(0.85, 1.0)
        vc = np.array([120, 125, 125]) if rng.random() < 0.7 else np.array([70, 110, 90])
        cloud = 1 + 0.04 * F.noise(2, octaves=3)
        img = (base[None, None, :] * (1 - vein[..., None]) + vc[None, None, :] * vein[..., None]) * cloud[
            ..., None
        ]
    elif kind == "photo_blur":
        k = int(rng.integers(3, 6))
        cols = np.stack([random_colour(rng, (0.1, 0.7), (0.2, 0.95)) for _ in range(k)])
        fields = np.stack([F.noise(rng.uniform(2, 8), octaves=3) for _ in range(k)], -1) * 3
        w = np.exp(fields - fields.max(-1, keepdims=True))
        w /= w.sum(-1, keepdims=True)
        img = (w[..., None] * cols[None, None]).sum(-2)
    else:
        raise ValueError(kind)
    return img.astype(np.float32)


def blobs_on(img, rng, count, avoid_poly, scale):
    """Blurred ellipses and rectangles (out-of-focus objects on the table), reduced-res image."""
    h, w = img.shape[:2]
    for _ in range(count):
        col = random_colour(rng, (0.0, 0.8), (0.1, 1.0))
        mask = np.zeros((h, w), np.uint8)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ax = rng.uniform(0.05, 0.3) * w
        if rng.random() < 0.5:
            cv2.ellipse(
                mask,
                (int(cx), int(cy)),
                (int(ax), int(ax * rng.uniform(0.3, 1))),
                rng.uniform(0, 180),
                0,
                360,
                255,
                -1,
            )
        else:
            box = cv2.boxPoints(((cx, cy), (ax, ax * rng.uniform(0.3, 1.5)), rng.uniform(0, 90)))
            cv2.fillConvexPoly(mask, box.astype(np.int32), 255)
        m = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), max(1.0, 0.01 * scale))
        img[:] = img * (1 - m[..., None]) + col[None, None] * m[..., None]
