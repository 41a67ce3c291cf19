"""Sheets under the kingdom on the hard tables (cutting mat, printed grid) and the strong cloths."""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.outside import gen

SQUARE_CM = 2.25  # a Kingdomino square is about 2.25 cm: sets the cutting mat's centimetre grid

STRONG = {  # BGR of the strong cloth colours
    "blue": (150, 72, 22),
    "green": (45, 125, 40),
    "red": (40, 38, 175),
    "ochre": (35, 135, 200),
    "yellow": (40, 205, 235),
    "white": (232, 236, 238),
    "dark": (32, 30, 34),
    "brown": (30, 62, 110),
}


# ----------------------------------------------------------------------------------------------
# sheets under the kingdom (cutting mat, printed grid) and the strong cloths
# ----------------------------------------------------------------------------------------------


def _lines(coord, spacing, width, pixel):
    """Coverage (0..1) of lines of `width` every `spacing` along `coord`, anti-aliased for `pixel`."""
    d = np.abs((coord + spacing / 2) % spacing - spacing / 2)
    sigma = max(width, pixel) / 2
    return min(1.0, width / pixel) * np.exp(-((d / sigma) ** 2))


def cutting_mat_texture(rng, w_sq, h_sq, ppu):
    """(texture uint8 BGR, colour name): a self-healing mat, centimetre grid, rulers and numbers."""
    colour_name = "green" if rng.random() < 0.45 else "blue"
    base = np.array((55, 108, 42) if colour_name == "green" else (150, 88, 26), np.float32)
    base *= rng.uniform(0.8, 1.15)
    tw, th = max(8, round(w_sq * ppu)), max(8, round(h_sq * ppu))
    ppcm = ppu / SQUARE_CM
    ys, xs = np.mgrid[0:th, 0:tw].astype(np.float32) / ppcm  # centimetres
    rim = 1.6  # ruler band
    inside = (xs > rim) & (xs < tw / ppcm - rim) & (ys > rim) & (ys < th / ppcm - rim)
    gx, gy = xs - rim, ys - rim
    pixel = 1 / ppcm
    lines = np.maximum(_lines(gx, 1.0, 0.035, pixel), _lines(gy, 1.0, 0.035, pixel))
    lines = np.maximum(lines, np.maximum(_lines(gx, 5.0, 0.08, pixel), _lines(gy, 5.0, 0.08, pixel)))
    if rng.random() < 0.4:  # 45-degree guide lines
        lines = np.maximum(lines, 0.7 * _lines(gx + gy, 5.0 * math.sqrt(2), 0.03, pixel))
    lines *= inside
    tex = np.empty((th, tw, 3), np.float32)
    tex[:] = base
    tex *= (1 + 0.05 * (rng.standard_normal((th, tw)) * 0.3))[..., None]
    white = np.array((228, 232, 230), np.float32) * rng.uniform(0.85, 1.0)
    tex = tex * (1 - 0.85 * lines[..., None]) + white * 0.85 * lines[..., None]
    canvas = np.clip(tex, 0, 255).astype(np.uint8)
    ink = tuple(int(v) for v in white)
    font_scale = max(0.2, 0.28 * ppcm / 22)
    thickness = max(1, round(ppcm / 25))
    for axis in (0, 1):  # rulers along the top and left edges, and their numbers
        length = (tw if axis == 0 else th) / ppcm - 2 * rim
        for k in range(int(length * 2) + 1):
            cm = k / 2
            tick = 0.6 if k % 10 == 0 else 0.4 if k % 2 == 0 else 0.2
            p = (rim + cm) * ppcm
            a, b = (p, rim * ppcm), (p, (rim - tick) * ppcm)
            if axis == 1:
                a, b = a[::-1], b[::-1]
            cv2.line(canvas, tuple(map(round, a)), tuple(map(round, b)), ink, thickness, cv2.LINE_AA)
            if k % 2 == 0 and k > 0:
                text = str(int(cm))
                org = (
                    (round(p - 0.15 * ppcm), round(0.55 * ppcm))
                    if axis == 0
                    else (round(0.1 * ppcm), round(p))
                )
                cv2.putText(
                    canvas, text, org, cv2.FONT_HERSHEY_SIMPLEX, font_scale, ink, thickness, cv2.LINE_AA
                )
    return canvas, colour_name


def printed_grid_texture(rng, w_sq, h_sq, ppu):
    """(texture uint8 BGR, description): graph paper or a play mat with cells near a square's size."""
    cell = rng.uniform(0.75, 1.3)
    width = rng.uniform(0.015, 0.06)
    background = [
        (236, 240, 242), (205, 230, 240), (215, 235, 215), (240, 225, 205), (60, 120, 60), (200, 200, 200),
    ][rng.integers(6)]  # fmt: skip
    ink = [(40, 40, 40), (140, 70, 30), (40, 40, 150), (90, 90, 90), (235, 235, 235)][rng.integers(5)]
    tw, th = max(8, round(w_sq * ppu)), max(8, round(h_sq * ppu))
    ys, xs = np.mgrid[0:th, 0:tw].astype(np.float32) / ppu
    pixel = 1 / ppu
    lines = np.maximum(_lines(xs, cell, width, pixel), _lines(ys, cell, width, pixel))
    bold = rng.random() < 0.4
    if bold:
        lines = np.maximum(
            lines,
            np.maximum(_lines(xs, 5 * cell, 2.5 * width, pixel), _lines(ys, 5 * cell, 2.5 * width, pixel)),
        )
    tex = np.empty((th, tw, 3), np.float32)
    tex[:] = np.asarray(background, np.float32) * rng.uniform(0.85, 1.05)
    tinted = rng.random() < 0.25
    if tinted:  # alternate cells a shade darker, like a printed board
        parity = (np.floor(xs / cell) + np.floor(ys / cell)) % 2
        tex *= (1 - 0.12 * parity)[..., None]
    tex = tex * (1 - lines[..., None]) + np.asarray(ink, np.float32) * lines[..., None]
    canvas = np.clip(tex, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # coordinates along the edges
        scale, thick = max(0.2, 0.25 * ppu * cell / 40), max(1, round(ppu / 60))
        for k in range(int(w_sq / cell)):
            org = (round((k + 0.3) * cell * ppu), round(0.35 * cell * ppu))
            cv2.putText(
                canvas, chr(65 + k % 26), org, cv2.FONT_HERSHEY_SIMPLEX, scale, ink, thick, cv2.LINE_AA
            )
        for k in range(1, int(h_sq / cell)):
            org = (round(0.1 * cell * ppu), round((k + 0.6) * cell * ppu))
            cv2.putText(canvas, str(k), org, cv2.FONT_HERSHEY_SIMPLEX, scale, ink, thick, cv2.LINE_AA)
    return canvas, f"cell {cell:.2f} sq{', bold every 5' if bold else ''}{', tinted' if tinted else ''}"


def crumpled_cloth(table, F, rng, px_world, n):
    """A crumpled cloth lying at one side of the kingdom: a wavy-edged patch with long shaded folds."""
    phi = rng.uniform(0, 2 * math.pi)
    radius = rng.uniform(3.0, 6.0)
    centre = np.array([n / 2, n / 2]) + (n / 2 + rng.uniform(1.0, 2.5) + radius) * np.array(
        [math.cos(phi), math.sin(phi)]
    )
    dist = np.hypot((F.X - centre[0]) / 1.3, F.Y - centre[1])
    edge = radius + 0.5 * F.noise(rng.uniform(1.2, 2.5), octaves=1) - dist
    alpha = np.clip(0.5 + edge / max(px_world, 1e-4), 0, 1)
    angle = rng.uniform(0, math.pi)
    folds = F.noise(rng.uniform(1.5, 3.5), rng.uniform(0.3, 0.7), angle, octaves=2)
    shade = 1 - 0.3 * np.abs(folds) + 0.08 * F.noise(1.0, octaves=1)
    colours = [STRONG["white"], (180, 180, 180), (150, 190, 215), STRONG["red"], (90, 50, 30)]
    cloth = (
        np.asarray(colours[rng.integers(len(colours))], np.float32) * np.clip(shade, 0.45, 1.15)[..., None]
    )
    shadow = np.clip(1 - 0.3 * np.exp(-np.maximum(-edge, 0) / 0.15), 0, 1)
    table = table * shadow[..., None]
    return table * (1 - alpha[..., None]) + cloth * alpha[..., None]


def strong_cloth(kind, F, rng, px_world):
    """The strong coloured and patterned cloths (float32 BGR at the table field's pixels)."""
    weave = gen.cloth_weave(F, rng, px_world)[..., None]
    names = ["blue", "green", "red", "ochre"]
    if kind == "swirl_cloth":
        base = np.asarray(STRONG["blue" if rng.random() < 0.6 else names[rng.integers(4)]], np.float32)
        swirl = np.asarray(STRONG["yellow" if rng.random() < 0.7 else "white"], np.float32)
        s = F.noise(rng.uniform(0.5, 1.1), octaves=2)
        w = rng.uniform(0.12, 0.25)
        m = np.exp(-((np.sin(math.pi * s * rng.uniform(2.0, 3.5)) / w) ** 2))
        dots = F.noise(0.25, octaves=1) > 2.2
        m = np.maximum(m, dots.astype(np.float32))
        img = base * (1 - m[..., None]) + swirl * m[..., None]
    elif kind in ("check_strong", "gingham_strong"):
        c1, c2 = [("red", "white"), ("green", "white"), ("ochre", "brown"), ("blue", "yellow"), ("red", "dark"),
                  ("blue", "white"), ("green", "yellow")][rng.integers(7)]  # fmt: skip
        th = rng.uniform(0, math.pi / 2) if rng.random() < 0.6 else 0.0
        a, b = F.rot(th)
        p = rng.uniform(0.35, 1.3)
        edge = max(px_world, 1e-3) / p
        sa = gen.smoothstep(0.5 + np.sin(math.pi * a / p) * 0.5 / max(edge * 3, 0.02))
        sb = gen.smoothstep(0.5 + np.sin(math.pi * b / p) * 0.5 / max(edge * 3, 0.02))
        m = sa * sb + (1 - sa) * (1 - sb) if kind == "check_strong" else (sa + sb) / 2
        img = np.asarray(STRONG[c1], np.float32) * m[..., None] + np.asarray(STRONG[c2], np.float32) * (
            1 - m[..., None]
        )
    elif kind == "floral_cloth":
        base = np.asarray(STRONG[names[rng.integers(4)]], np.float32)
        petal = np.asarray(STRONG[["yellow", "white", "red", "blue"][rng.integers(4)]], np.float32)
        th = rng.uniform(0, math.pi)
        a, b = F.rot(th)
        p = rng.uniform(0.6, 1.6)
        la, lb = (a / p) % 1 - 0.5, (b / p) % 1 - 0.5
        r = np.sqrt(la * la + lb * lb)
        ang = np.arctan2(lb, la)
        flower = (r < 0.32 * (0.55 + 0.45 * np.abs(np.cos(2.5 * ang)))).astype(np.float32)
        centre = (r < 0.07).astype(np.float32)
        img = base * (1 - flower[..., None]) + petal * flower[..., None]
        img = img * (1 - centre[..., None]) + np.asarray(STRONG["ochre"], np.float32) * centre[..., None]
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.7)
    elif kind == "plain_strong":
        img = np.empty(F.X.shape + (3,), np.float32)
        img[:] = np.asarray(STRONG[names[rng.integers(4)]], np.float32) * rng.uniform(0.85, 1.15)
    else:
        raise ValueError(kind)
    return (img * weave).astype(np.float32)
