"""Rendering into the outside generator's photo: polygons, textures, tile prisms and a hand."""

from __future__ import annotations

import math

import cv2
import numpy as np

from benchmarks.outside.camera import apply_h, sat_separated

# ----------------------------------------------------------------------------------------------
# rendering into the photo (float32 BGR, full size)
# ----------------------------------------------------------------------------------------------


def poly_mask(shape, pts, x0, y0):
    """Anti-aliased filled convex polygon (float32 0..1) in the ROI starting at (x0, y0)."""
    mask = np.zeros(shape, np.uint8)
    p = np.round((np.asarray(pts) - [x0, y0]) * 16).astype(np.int32)
    cv2.fillConvexPoly(mask, p, 255, lineType=cv2.LINE_AA, shift=4)
    return mask.astype(np.float32) / 255


def roi_of(pts, W, H, pad=3):
    x0 = int(max(0, math.floor(pts[:, 0].min()) - pad))
    y0 = int(max(0, math.floor(pts[:, 1].min()) - pad))
    x1 = int(min(W, math.ceil(pts[:, 0].max()) + pad))
    y1 = int(min(H, math.ceil(pts[:, 1].max()) + pad))
    return x0, y0, x1, y1


def fill_poly(img, pts, colour, opacity=1.0):
    H, W = img.shape[:2]
    x0, y0, x1, y1 = roi_of(pts, W, H)
    if x1 <= x0 or y1 <= y0:
        return
    a = poly_mask((y1 - y0, x1 - x0), pts, x0, y0)[..., None] * opacity
    roi = img[y0:y1, x0:x1]
    roi *= 1 - a
    roi += a * np.asarray(colour, np.float32)


SHARPEN_UPSCALED = True


def paste_texture(img, tex, dst):
    """Warp BGR texture (its corners TL,TR,BR,BL) onto the image quad dst (4 x 2)."""
    H, W = img.shape[:2]
    x0, y0, x1, y1 = roi_of(dst, W, H)
    if x1 <= x0 or y1 <= y0:
        return
    th, tw = tex.shape[:2]
    side = max(
        np.linalg.norm(dst[1] - dst[0]),
        np.linalg.norm(dst[2] - dst[1]),
        np.linalg.norm(dst[3] - dst[2]),
        np.linalg.norm(dst[0] - dst[3]),
    )
    scale = side / max(th, tw)
    if scale < 0.7:
        f = max(scale * 1.3, 4 / max(th, tw))
        tex = cv2.resize(tex, (max(2, round(tw * f)), max(2, round(th * f))), interpolation=cv2.INTER_AREA)
        th, tw = tex.shape[:2]
    src = np.float32([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]])
    M = cv2.getPerspectiveTransform(src, np.float32(dst - [x0, y0]))
    upscale = scale * max(th, tw) / max(tex.shape[:2]) if scale >= 0.7 else 1.0
    warped = cv2.warpPerspective(
        tex.astype(np.float32),
        M,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_CUBIC if upscale > 1.3 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if SHARPEN_UPSCALED and upscale > 1.3:
        # a 100 px source square blown up 1.3-5x is softer than a real phone photo at that size:
        # an unsharp mask at the scale of the blow-up restores crisp tile edges and art lines
        blur = cv2.GaussianBlur(warped, (0, 0), 0.5 * upscale)
        warped = np.clip(warped + 0.9 * (warped - blur), 0, 255)
    a = poly_mask((y1 - y0, x1 - x0), dst, x0, y0)[..., None]
    roi = img[y0:y1, x0:x1]
    roi *= 1 - a
    roi += a * warped


class Prism:
    """A flat box: top face quad (world XY, TL,TR,BR,BL of its texture), height, texture, side colour."""

    def __init__(self, quad, height, tex, side_colour, kind):
        self.quad = np.asarray(quad, float)
        self.height = height
        self.tex = tex
        self.side_colour = np.asarray(side_colour, np.float32)
        self.kind = kind

    def draw_shadow(self, mask, cam, light_xy, strength):
        base = np.column_stack([self.quad, np.zeros(4)])
        moved = np.column_stack([self.quad + light_xy * self.height, np.zeros(4)])
        pts = cam.project(np.vstack([base, moved]))
        hull = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
        H, W = mask.shape
        x0, y0, x1, y1 = roi_of(hull, W, H)
        if x1 <= x0 or y1 <= y0:
            return
        m = poly_mask((y1 - y0, x1 - x0), hull, x0, y0) * strength
        np.maximum(mask[y0:y1, x0:x1], m, out=mask[y0:y1, x0:x1])

    def draw(self, img, cam, light_xy):
        top = np.column_stack([self.quad, np.full(4, self.height)])
        bot = np.column_stack([self.quad, np.zeros(4)])
        centre = self.quad.mean(0)
        ptop, pbot = cam.project(top), cam.project(bot)
        for i in range(4):
            j = (i + 1) % 4
            mid = (self.quad[i] + self.quad[j]) / 2
            e = self.quad[j] - self.quad[i]
            nrm = np.array([e[1], -e[0]])
            if nrm @ (mid - centre) < 0:
                nrm = -nrm
            nrm /= np.linalg.norm(nrm) + 1e-12
            towards_cam = cam.C[:2] - mid
            if nrm @ towards_cam <= 0:
                continue
            lit = 0.55 + 0.45 * max(0.0, float(-nrm @ light_xy / (np.linalg.norm(light_xy) + 1e-9)))
            fill_poly(img, np.array([ptop[i], ptop[j], pbot[j], pbot[i]]), self.side_colour * lit)
        paste_texture(img, self.tex, ptop)


def piece_prisms(kingdom, G, height, seam, jitter_px, px_sq, rng, side_colour):
    """Prisms of one kingdom's pieces; G maps grid -> world XY."""
    prisms = []
    jit = []
    for piece in kingdom["pieces"]:
        rows = [r for r, _ in piece]
        cols = [c for _, c in piece]
        r0, c0 = min(rows), min(cols)
        nr, nc = max(rows) - r0 + 1, max(cols) - c0 + 1
        tex = np.zeros((nr * 100, nc * 100, 3), np.uint8)
        for r, c in piece:
            tex[(r - r0) * 100 : (r - r0 + 1) * 100, (c - c0) * 100 : (c - c0 + 1) * 100] = kingdom["tex"][r][
                c
            ]
        g = seam / 2
        corners = np.array(
            [[c0 + g, r0 + g], [c0 + nc - g, r0 + g], [c0 + nc - g, r0 + nr - g], [c0 + g, r0 + nr - g]]
        )
        if jitter_px > 0:
            ang = math.radians(rng.uniform(-1.0, 1.0) if rng.random() < 0.85 else rng.uniform(-2.0, 2.0))
            shift = rng.uniform(-1, 1, 2)
            shift = shift / (np.linalg.norm(shift) + 1e-9) * rng.uniform(0.3, 1.0) * jitter_px / px_sq
            ctr = corners.mean(0)
            rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
            corners = (corners - ctr) @ rot.T + ctr + shift
            jit.append(math.degrees(ang))
        world = apply_h(G, corners)
        tone = np.clip(side_colour * rng.uniform(0.85, 1.15), 0, 255)
        prisms.append(Prism(world, height, tex, tone, "tile"))
    return prisms, jit


def draw_hand(img, rng, px_sq, kingdom_poly):
    H, W = img.shape[:2]
    skin = [
        np.array([150, 175, 225]),
        np.array([115, 145, 195]),
        np.array([70, 95, 135]),
        np.array([130, 160, 215]),
    ][rng.integers(4)] * rng.uniform(0.85, 1.1)
    palm_w = rng.uniform(1.8, 2.4) * px_sq
    for _ in range(10):
        edge = int(rng.integers(4))
        t = rng.uniform(0.15, 0.85)
        out = rng.uniform(0.1, 0.5) * palm_w
        if edge == 0:
            c, inward = np.array([t * W, -out]), np.array([0, 1.0])
        elif edge == 1:
            c, inward = np.array([W + out, t * H]), np.array([-1.0, 0])
        elif edge == 2:
            c, inward = np.array([t * W, H + out]), np.array([0, -1.0])
        else:
            c, inward = np.array([-out, t * H]), np.array([1.0, 0])
        ang = rng.uniform(-0.5, 0.5)
        rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        inward = rot @ inward
        across = np.array([-inward[1], inward[0]])
        parts = [(c, palm_w * 0.55, palm_w * 0.62, inward)]
        flen = palm_w * rng.uniform(0.7, 0.95)
        for i, off in enumerate((-0.36, -0.12, 0.12, 0.36)):
            base = c + inward * palm_w * 0.45 + across * off * palm_w
            fl = flen * (0.8 if i in (0, 3) else 1.0)
            d = inward + across * off * 0.3
            d /= np.linalg.norm(d)
            parts.append((base + d * fl * 0.5, palm_w * 0.1, fl * 0.55, d))
        thumb_d = across * (1 if rng.random() < 0.5 else -1) * 0.8 + inward * 0.6
        thumb_d /= np.linalg.norm(thumb_d)
        parts.append((c + thumb_d * palm_w * 0.7, palm_w * 0.12, palm_w * 0.45, thumb_d))
        allpts = []
        for ctr, a, b, d in parts:
            ang_d = math.degrees(math.atan2(d[1], d[0]))
            poly = cv2.ellipse2Poly((int(ctr[0]), int(ctr[1])), (int(b), int(a)), int(ang_d), 0, 360, 10)
            allpts.append(poly)
        pts = np.vstack(allpts).astype(np.float32)
        hull = cv2.convexHull(pts).reshape(-1, 2)
        if sat_separated(hull, kingdom_poly, 0.2 * px_sq):
            break
    else:
        return False
    x0, y0, x1, y1 = roi_of(np.vstack([pts, pts + [0.3 * px_sq, 0.3 * px_sq]]), W, H, pad=int(0.5 * px_sq))
    if x1 <= x0 or y1 <= y0:
        return False
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for poly in allpts:
        cv2.fillPoly(mask, [poly - [x0, y0]], 255, lineType=cv2.LINE_AA)
    m = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), max(1.0, 0.03 * px_sq))
    sh = cv2.GaussianBlur(np.roll(m, (int(0.15 * px_sq), int(0.1 * px_sq)), (0, 1)), (0, 0), 0.2 * px_sq)
    roi = img[y0:y1, x0:x1]
    roi *= (1 - 0.35 * sh)[..., None]
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    shade = 0.8 + 0.25 * np.clip(((xx - c[0]) * inward[0] + (yy - c[1]) * inward[1]) / (2 * palm_w), 0, 1)
    col = skin[None, None] * shade[..., None]
    roi *= (1 - m)[..., None]
    roi += m[..., None] * col
    return True
