"""Candidate outlines from colour regions: the kingdom as a blob of colours the table lacks.

A generator that needs no sharp seam: on a small copy (where a shaking hand's blur is a few pixels) the
pixels unlike every colour of the table's border form blobs; the outline of a blob about a kingdom's
size, as a quadrilateral, is a candidate frame. The lattice inside it is then refined on the seams and
judged like every other candidate (scanner.locate.search).
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.locate.border import table_lab
from scanner.locate.settings import LocatorSettings


def unlike_table_mask(small: np.ndarray, table: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """uint8 mask of a small copy's pixels unlike every table colour, closed over seams and dark
    squares and with holes filled (a kingdom's blob is solid)."""
    lab = table_lab(small)
    distance = np.linalg.norm(lab.reshape(-1, 1, 3) - table[None], axis=2).min(axis=1)
    distance = cv2.blur(distance.reshape(lab.shape[:2]), (3, 3))
    scaled = np.clip(4 * distance, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # a plain table is all alike: Otsu would split its noise, so the threshold is never below a colour step
    mask = (scaled > max(otsu, 4 * settings.table_distance)).astype(np.uint8) * 255
    side = max(3, round(settings.region_closing * max(small.shape[:2])) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


def blob_outlines(mask: np.ndarray, min_side: float, count: int) -> list[np.ndarray]:
    """Up to ``count`` quadrilaterals (4, 2; TL, TR, BR, BL around their middle) of the mask's blobs at
    least ``min_side`` pixels across and not touching the copy's edge, the most central first."""
    height, width = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outlines = []
    for contour in contours:
        x, y, w, h = cv2.boundingRect(contour)
        if min(w, h) < min_side or x <= 0 or y <= 0 or x + w >= width or y + h >= height:
            continue  # too small to hold a readable kingdom, or cut by the photo's edge (a neighbour's)
        quad = quadrilateral(cv2.convexHull(contour).reshape(-1, 2).astype(np.float64))
        # a blob much less than its quadrilateral is no kingdom's outline (a cable, a hand, a shadow)
        if cv2.contourArea(contour) >= 0.6 * cv2.contourArea(np.float32(quad)):
            outlines.append(quad)
    middle = np.array([width / 2, height / 2])
    outlines.sort(key=lambda quad: float(np.linalg.norm(quad.mean(axis=0) - middle)))
    return outlines[:count]


def quadrilateral(hull: np.ndarray) -> np.ndarray:
    """The four corners of a convex hull (perspective keeps a square's outline a quadrilateral): the hull
    simplified to four points when it allows, else its minimum-area rectangle; in frame order."""
    perimeter = cv2.arcLength(np.float32(hull), True)
    corners = None
    for share in (0.02, 0.04, 0.06, 0.08, 0.1):
        approx = cv2.approxPolyDP(np.float32(hull), share * perimeter, True).reshape(-1, 2)
        if len(approx) == 4:
            corners = approx.astype(np.float64)
            break
        if len(approx) < 4:
            break
    if corners is None:
        corners = cv2.boxPoints(cv2.minAreaRect(np.float32(hull))).astype(np.float64)
    return frame_order(corners)


def frame_order(corners: np.ndarray) -> np.ndarray:
    """Corners around their middle clockwise on the image (y down), the top-left-most first."""
    middle = corners.mean(axis=0)
    angles = np.arctan2(corners[:, 1] - middle[1], corners[:, 0] - middle[0])
    ordered = corners[np.argsort(angles)]
    first = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -first, axis=0)
