"""Light and camera effects of the outside generator, applied in photo space after the scene is drawn."""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.outside.render import roi_of


def light_and_camera(img, rng, ov, scene, cond, truth_corners, side_px, px_sq):
    """The light and camera effects on the rendered photo (float32 BGR, changed in place where it can):
    shadows, vignette, gradient, highlights, white balance and exposure, blur and sensor noise. Records
    them in ``cond`` and returns the 8-bit photo."""
    H, W = img.shape[:2]
    light = []
    # soft shadow across part of the kingdom (person / phone)
    if ov.get("shadow", rng.random() < 0.3):
        ctr = truth_corners.mean(0) + rng.uniform(-0.3, 0.3, 2) * side_px
        ang = rng.uniform(0, 2 * math.pi)
        nrm = np.array([math.cos(ang), math.sin(ang)])
        soft = rng.uniform(0.02, 0.2) * side_px
        dark = rng.uniform(0.45, 0.8)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        t = ((xx - ctr[0]) * nrm[0] + (yy - ctr[1]) * nrm[1]) / soft
        m = 1 / (1 + np.exp(-np.clip(t, -30, 30)))
        factor = 1 - (1 - dark) * m
        img *= factor[..., None]
        img[..., 0] *= 1 + 0.06 * m  # shade is bluer
        del yy, xx, t, m, factor
        light.append("part_shadow")
        cond["shadow_darkness"] = round(dark, 2)
    if rng.random() < 0.5:
        strength = rng.uniform(0.1, 0.45)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        r2 = ((xx - W / 2) / (W / 2)) ** 2 + ((yy - H / 2) / (H / 2)) ** 2
        img *= (1 - strength * np.clip(r2 / 2, 0, 1))[..., None]
        light.append("vignette")
        del yy, xx, r2
    if rng.random() < 0.4:
        amp = rng.uniform(0.1, 0.35)
        ang = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        t = ((xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)) / (max(W, H) / 2)
        img *= (1 + amp * t)[..., None]
        light.append("gradient")
        del yy, xx, t
    if ov.get("specular", rng.random() < 0.15):
        for _ in range(int(rng.integers(1, 3))):
            u, v = rng.uniform(0.1, 0.9, 2)
            q = truth_corners
            pt = q[0] * (1 - u) * (1 - v) + q[1] * u * (1 - v) + q[2] * u * v + q[3] * (1 - u) * v
            rad = rng.uniform(0.12, 0.45) * px_sq
            x0, y0, x1, y1 = roi_of(np.array([pt - 4 * rad, pt + 4 * rad]), W, H)
            yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
            g = np.exp(-(((xx - pt[0]) ** 2 + (yy - pt[1]) ** 2 * rng.uniform(0.3, 1)) / (2 * rad * rad)))
            a = rng.uniform(0.7, 1.0) * g
            roi = img[y0:y1, x0:x1]
            roi += a[..., None] * (255 - roi)
        light.append("specular")
    # white balance & exposure
    temp = rng.uniform(-1, 1)
    wb = np.array([1 - 0.18 * temp, 1 + rng.uniform(-0.04, 0.04), 1 + 0.18 * temp], np.float32)
    exposure = math.exp(rng.uniform(math.log(0.5), math.log(1.6)))
    exposure = ov.get("exposure", exposure)
    wb_name = "warm" if temp > 0.35 else "cool" if temp < -0.35 else "neutral"
    if scene is not None:
        wb, exposure, wb_name = scene.light(wb, exposure, wb_name)
    img *= wb * exposure
    cond["white_balance"] = wb_name
    cond["exposure"] = round(exposure, 2)
    cond["exposure_class"] = "dark" if exposure < 0.65 else "bright" if exposure > 1.2 else "normal"
    # blur
    res = max(W, H) / 2000
    blur = "none"
    r = rng.random()
    if scene is not None and scene.blur_px:
        r = 1.0  # the scene's own motion blur replaces the usual one
        img = cv2.filter2D(img, -1, scene.blur_kernel())
        blur = f"motion:{scene.blur_px}"
    if r < 0.25:
        sigma = rng.uniform(0.6, 2.2) * res
        if not ov.get("noblur"):
            img = cv2.GaussianBlur(img, (0, 0), sigma)
        blur = f"defocus:{sigma:.1f}"
    elif r < 0.38:
        length = int(round(rng.uniform(3, 11) * res))
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (length, length))
        k /= k.sum()
        if not ov.get("noblur"):
            img = cv2.filter2D(img, -1, k)
        blur = f"motion:{length}"
    cond["blur"] = blur
    # sensor noise (more in the dark)
    sigma_n = rng.uniform(1, 6) * (1.6 if exposure < 0.65 else 1.0)
    noise = rng.standard_normal((H, W), dtype=np.float32) * sigma_n
    img += noise[..., None]
    noise = rng.standard_normal((H, W, 3), dtype=np.float32) * (sigma_n * 0.4)
    img += noise
    del noise
    cond["noise_sigma"] = round(sigma_n, 1)
    cond["light"] = light or ["plain"]
    return np.clip(img, 0, 255).astype(np.uint8)
