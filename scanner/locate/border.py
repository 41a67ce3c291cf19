"""The table as the photo's border shows it: its colours, and which pixels are unlike all of them.

A player frames the kingdom with table around it, so the strips along the photo's edges show the table.
Colours are compared in Lab with the lightness weighed half (grain and shadows vary it), median-filtered,
on a ``table_side`` copy.
"""

from __future__ import annotations

import cv2
import numpy as np

from scanner.locate.settings import LocatorSettings


def table_lab(image: np.ndarray) -> np.ndarray:
    """The colours the table is compared in: Lab with the lightness weighed half, median-filtered."""
    lab = cv2.cvtColor(cv2.medianBlur(image, 5), cv2.COLOR_BGR2LAB).astype(np.float32)
    # the lightness halved in place: a product broadcast over a last axis of three is much slower
    lab[..., 0] *= np.float32(0.5)
    return lab


def nearest_distance(lab: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Each pixel's distance (table-Lab, float32, ``lab``'s shape without its channel axis) to the nearest
    of ``colours``: one colour at a time (a pixels × colours × channels array costs ten times as much)."""
    channels = [np.ascontiguousarray(lab[..., k]) for k in range(lab.shape[-1])]  # summed in channel order
    nearest = None
    for colour in np.asarray(colours, np.float32):
        squared = None
        for channel, level in zip(channels, colour, strict=True):
            step = channel - level
            step *= step
            squared = step if squared is None else np.add(squared, step, out=squared)
        nearest = squared if nearest is None else np.minimum(nearest, squared, out=nearest)
    return np.sqrt(nearest)


def table_copy(work: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """The copy the table's colours are taken on."""
    factor = settings.table_side / max(work.shape[:2])
    return cv2.resize(work, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)


def border_strips(image: np.ndarray, settings: LocatorSettings) -> list[np.ndarray]:
    """The strips along the four edges of a table copy: the table."""
    strip = max(4, round(settings.table_border * max(image.shape[:2])))
    return [image[:strip], image[-strip:], image[:, :strip].swapaxes(0, 1), image[:, -strip:].swapaxes(0, 1)]


def palette(
    pixels: np.ndarray, count: int, attempts: int = 1, iterations: int = 10, epsilon: float = 1.0
) -> np.ndarray:
    """(count, 3) k-means centres of (m, 3) table-Lab pixels: the colours of a table, a rim, a ring."""
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, iterations, epsilon)
    cv2.setRNGSeed(0)  # k-means++ seeds from OpenCV's generator: the same photo, the same colours
    pixels = np.ascontiguousarray(pixels, dtype=np.float32)
    _, _, colours = cv2.kmeans(pixels, count, None, criteria, attempts, cv2.KMEANS_PP_CENTERS)
    return colours


def table_colours(pixels: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """k-means centres of (m, 3) table-Lab pixels of the border (more rounds than a frame's ring: every
    later attempt compares against them)."""
    return palette(pixels, settings.table_colours, attempts=2, iterations=20, epsilon=0.5)


def border_colours(image: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """The table's colours, cheaply: only the border strips are reduced to the table copy's scale, each
    filtered on its own, and every 4th pixel clustered."""
    factor = settings.table_side / max(image.shape[:2])
    strip = round(max(4, round(settings.table_border * settings.table_side)) / factor)
    strips = [
        image[:strip],
        image[-strip:],
        image[:, :strip].swapaxes(0, 1),
        image[:, -strip:].swapaxes(0, 1),
    ]
    pixels = [
        table_lab(
            cv2.resize(np.ascontiguousarray(part), None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        ).reshape(-1, 3)
        for part in strips
    ]
    return table_colours(np.ascontiguousarray(np.concatenate(pixels)[::4]), settings)


def segments_on(mask: np.ndarray, segs: np.ndarray, factor: float) -> np.ndarray:
    """Which segments (image pixels) have their middle on the mask (of the image reduced by ``factor``)."""
    mids = np.clip(
        ((segs[:, :2] + segs[:, 2:]) / 2 * factor).astype(int), 0, [mask.shape[1] - 1, mask.shape[0] - 1]
    )
    return mask[mids[:, 1], mids[:, 0]] > 0


def unlike_pixels(work: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """The pixels of the ``table_side`` copy on or near colours unlike every colour of the photo's border
    (non-zero), whatever segments are asked about them."""
    lab = table_lab(table_copy(work, settings))
    pixels = np.concatenate([strip.reshape(-1, 3) for strip in border_strips(lab, settings)])
    colours = table_colours(pixels, settings)
    distance = cv2.blur(nearest_distance(lab, colours), (7, 7))
    _, unlike = cv2.threshold(
        np.clip(4 * distance, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU
    )
    reach = round(settings.table_reach * settings.table_side) | 1
    return cv2.dilate(unlike, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))


def colourful_patches(work: np.ndarray, settings: LocatorSettings, min_spread: float = 0.0) -> list:
    """Centres (x, y in 0-1 photo units) of the patches, about a small kingdom wide, whose colours vary
    the most: tiles of several terrains side by side against a table of one colour and texture. Only
    patches whose mean colour spread (Lab units, lightness weighed half) is at least ``min_spread``."""
    height, width = work.shape[:2]
    side = settings.patch_side
    factor = side / max(height, width)
    small = cv2.resize(work, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    square = 2 * round(0.04 * side) + 1  # about a square of a kingdom 20 % of the photo wide
    variance = np.zeros(small.shape[:2], np.float32)
    for channel, weight in ((0, 0.5), (1, 1.0), (2, 1.0)):  # colour counts more than brightness
        mean = cv2.blur(lab[..., channel], (square, square))
        variance += weight * (cv2.blur(lab[..., channel] ** 2, (square, square)) - mean * mean)
    kingdom = 2 * round(0.1 * side) + 1
    score = cv2.blur(np.sqrt(np.maximum(variance, 0)), (kingdom, kingdom))
    centres = []
    for _ in range(settings.patches):
        y, x = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[y, x] < min_spread:
            break
        centres.append(((x + 0.5) / small.shape[1], (y + 0.5) / small.shape[0]))
        cv2.circle(score, (int(x), int(y)), round(0.15 * side), 0.0, -1)  # the next patch elsewhere
    return centres
