"""Reading the squares something stands on or hides: the castle's neighbours read from the part its walls
leave visible, or read less surely; a square a piece stands on read from its whole crop and its free side.
Where the castle and the pieces stand, scanner.tall finds."""

from __future__ import annotations

import cv2
import numpy as np

from kingdomino.labels import CASTLE_LABEL, EMPTY_LABEL, LABELS


def hidden_neighbours(
    cover: np.ndarray, castle: tuple[int, int], least: float
) -> list[tuple[int, int, float]]:
    """(row, col, share) of the side neighbours of the castle square that the castle hides at least
    ``least`` of (``cover``: the castle's (N, N) cover)."""
    n = cover.shape[0]
    hidden = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = castle[0] + dr, castle[1] + dc
        if 0 <= r < n and 0 <= c < n and cover[r, c] >= least:
            hidden.append((r, c, float(cover[r, c])))
    return hidden


#: The part of a square the castle leaves visible is kept at least this share of the square wide.
MIN_VISIBLE = 0.35


def visible_part(crop: np.ndarray, away: tuple[int, int], share: float) -> np.ndarray:
    """The crop of a square hidden by ``share`` on its side towards the castle (``away``: the step from
    the castle square to it), made whole again by mirroring the part the castle leaves visible."""
    size = crop.shape[0] if away[0] else crop.shape[1]
    keep = max(int(round(size * max(1.0 - share, MIN_VISIBLE))), 1)
    axis = 0 if away[0] else 1
    far = away[0] + away[1] > 0  # the visible part is the side away from the castle
    strip = np.take(crop, range(size - keep, size) if far else range(keep), axis=axis)
    reps = int(np.ceil(size / keep)) + 1
    pieces = [strip if k % 2 == 0 else np.flip(strip, axis=axis) for k in range(reps)]
    whole = np.concatenate(pieces, axis=axis)
    whole = np.take(whole, range(size), axis=axis)
    return np.ascontiguousarray(whole)


def piece_blob(
    crop: np.ndarray,
    colour: tuple[float, float, float],
    lightness: float,
    tolerance: float,
    side: int,
    footprint: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(the BGR ``crop`` of a square a piece stands on, at most ``side`` pixels wide; uint8 mask of the
    piece on it): the pixels within ``tolerance`` of its ``colour`` (Lab, lightness scaled by ``lightness``,
    as tall.standing_pieces measures it) in the blobs that touch its ``footprint`` (a bool map of the
    square, any size; None: anywhere). A crown or an object in the piece's colour apart from it is no part
    of it."""
    if crop.shape[0] > side or crop.shape[1] > side:
        crop = cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= lightness
    near = (np.linalg.norm(lab - np.asarray(colour, np.float32), axis=-1) < tolerance).astype(np.uint8)
    if footprint is not None:  # only the blobs of that colour the piece's silhouette touches
        size = (crop.shape[1], crop.shape[0])
        under = cv2.resize(footprint.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
        _, blobs = cv2.connectedComponents(near, connectivity=8)
        touched = np.unique(blobs[under & (near > 0)])
        near = np.isin(blobs, touched[touched > 0]).astype(np.uint8)
    return crop, near


def inpainted(crop: np.ndarray, blob: np.ndarray) -> np.ndarray:
    """The BGR ``crop`` with the uint8 mask ``blob`` (piece_blob) widened by a twentieth of the square and
    filled in from the print around it (cv2.inpaint, Telea): a piece painted out of its square, the rest of
    the square keeping its print, so a crown or an object in the piece's colour apart from it stays
    (docs/experiments.md, "The piece painted out of its square")."""
    width = max(3, crop.shape[0] // 20) | 1
    mask = cv2.dilate(blob, np.ones((width, width), np.uint8))
    if not mask.any():
        return crop
    return cv2.inpaint(crop, mask * 255, width, cv2.INPAINT_TELEA)


def printed_look(crop: np.ndarray, blob: np.ndarray) -> float:
    """How much a piece's blob (uint8 mask of the BGR ``crop``, piece_blob) looks printed rather than
    painted on a standing piece, 0 for a flat convex blot: the colour's change inside the blob (its Lab
    gradient, a thirty-second of the square in from its outline) as a share of its change across the
    outline, plus the share of the blob's convex hull it leaves unfilled. A piece is one colour shaded over
    a rounded body: its colour changes across its outline, little inside it. Printed art is drawn with
    outlines and texture inside its shapes, and its shapes are cut into (docs/experiments.md, "A piece's
    paint told from printed art"). 1.0 when the blob is too small to tell."""
    inside = cv2.erode(blob, np.ones((3, 3), np.uint8), iterations=max(1, round(crop.shape[0] / 32)))
    outline = cv2.dilate(blob, np.ones((3, 3), np.uint8)) - cv2.erode(blob, np.ones((3, 3), np.uint8))
    if np.count_nonzero(inside) < 5 or np.count_nonzero(outline) < 5:
        return 1.0
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    gradient = np.sqrt(
        np.sum(cv2.Sobel(lab, cv2.CV_32F, 1, 0) ** 2 + cv2.Sobel(lab, cv2.CV_32F, 0, 1) ** 2, axis=-1)
    )
    across = float(gradient[outline > 0].mean())
    within = float(gradient[inside > 0].mean()) / max(across, 1e-3)
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = np.zeros_like(blob)
    cv2.fillConvexPoly(hull, cv2.convexHull(np.vstack(contours)), 1)
    return within + 1.0 - np.count_nonzero(blob) / max(np.count_nonzero(hull), 1)


def filled_in(crop: np.ndarray, mask: np.ndarray, side: int) -> np.ndarray:
    """``crop`` with the pixels of ``mask`` (uint8, non-zero where hidden) filled in from the rest of the
    square (cv2.inpaint, Telea, on a copy at most ``side`` pixels wide); the other pixels as they were."""
    if not mask.any():
        return crop
    height, width = crop.shape[:2]
    scale = min(1.0, side / max(height, width))
    small = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else crop
    small_mask = cv2.resize(mask, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    filled = cv2.inpaint(np.ascontiguousarray(small), small_mask, 5, cv2.INPAINT_TELEA)
    if scale < 1:
        filled = cv2.resize(filled, (width, height), interpolation=cv2.INTER_LINEAR)
    painted = crop.copy()
    painted[mask > 0] = filled[mask > 0]
    return painted


def soften_hidden(
    probabilities: np.ndarray,
    hidden: np.ndarray,
    share: float,
    soften: float,
    pieces: np.ndarray | None = None,
) -> np.ndarray:
    """(N, N, labels) with the squares a castle may hide (``hidden`` >= ``share``) read less surely: their
    probabilities raised to a power under 1 (by ``soften`` at most), the lower the more may be hidden.
    ``pieces`` (N, N) bool: squares a piece stands on, which keep their castle probability (keep_castle)."""
    power = 1.0 - soften * np.clip(hidden, 0.0, 1.0) * (hidden >= share)
    softened = np.maximum(probabilities, 1e-12) ** power[..., None]
    softened /= softened.sum(axis=-1, keepdims=True)
    return softened if pieces is None else keep_castle(softened, probabilities, pieces)


def piece_reading(whole: np.ndarray, free: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """(N, N, labels) ``whole`` (the classifier's reading of each whole square) with the squares a piece
    stands on (``pieces``, N×N bool) read from both it and ``free`` (their free side's reading), one question
    at a time: the terrain, then the crowns on each terrain, each a linear pool weighed by how sure the whole
    square is of it (_pool). The whole square's answer stays where it is sure (a crown the piece hides from
    the free side, a piece the classifier has learnt) and the free side decides what it leaves open (a piece
    read as another terrain; crowns the whole square hesitates between, which the free side counts whatever
    terrain it reads); the castle's probability is the whole square's (a piece is found on a tile: it says
    nothing of where the castle is)."""
    whole = np.asarray(whole, dtype=float)
    free = keep_castle(free, whole, pieces)
    read = whole.copy()
    for cell in zip(*np.nonzero(pieces), strict=True):
        read[cell] = _piece_square(whole[cell], free[cell])
    return read


#: Each label's terrain (an index of _TERRAINS) and crowns: a piece's square is read one question at a time.
_TERRAINS = tuple(dict.fromkeys(label.terrain for label in LABELS))
_TERRAIN_OF = np.array([_TERRAINS.index(label.terrain) for label in LABELS])
_CROWNS_OF = np.array([label.crowns for label in LABELS])
_TILE = ~np.isin(np.arange(len(LABELS)), [CASTLE_LABEL, EMPTY_LABEL])  # the labels of a tile's squares


def _pool(whole: np.ndarray, free: np.ndarray) -> np.ndarray:
    """``whole``'s distribution where it is sure, ``free``'s where it is not: s·whole + (1−s)·free, with s
    whole's largest probability."""
    sure = whole.max()
    return sure * whole + (1.0 - sure) * free


def _piece_square(whole: np.ndarray, free: np.ndarray) -> np.ndarray:
    """piece_reading of one square (labels): the terrains pooled, then each terrain's crowns."""
    whole_terrain = np.bincount(_TERRAIN_OF, whole, len(_TERRAINS))
    free_terrain = np.bincount(_TERRAIN_OF, free, len(_TERRAINS))
    terrain = _pool(whole_terrain, free_terrain)
    # the crowns the free side shows on a tile, whatever terrain it reads (the castle's and the table's
    # zero crowns are no count of a tile's)
    shown = np.bincount(_CROWNS_OF, np.where(_TILE, free, 0.0), minlength=_CROWNS_OF.max() + 1)
    read = np.zeros_like(whole)
    for index in range(len(_TERRAINS)):
        labels = _TERRAIN_OF == index
        if whole_terrain[index] > 1e-3:
            own = whole[labels] / whole_terrain[index]
            # the free side's count weighs as much as this terrain can have it: two crowns shown say nothing
            # of a forest's one or none, whose own reading stands for the rest
            possible = shown[_CROWNS_OF[labels]]
            share = possible.sum() / max(shown.sum(), 1e-12)
            free_crowns = possible / possible.sum() if possible.sum() > 1e-9 else own
            crowns = _pool(own, share * free_crowns + (1.0 - share) * own)
        elif free_terrain[index] > 1e-9:  # a terrain only the free side reads: its crowns as it reads them
            crowns = free[labels] / free_terrain[index]
        else:
            crowns = np.full(labels.sum(), 1.0 / labels.sum())
        read[labels] = terrain[index] * crowns
    return read / read.sum()


def with_pieces(castle_read: np.ndarray, pooled: np.ndarray, pieces: np.ndarray) -> np.ndarray:
    """(N, N, labels) ``castle_read`` (the squares read with the castle's lean) with the squares a piece
    stands on (``pieces``) read as ``pooled`` (piece_reading, weighed) but for their castle probability."""
    return np.where(pieces[..., None], keep_castle(pooled, castle_read, pieces), castle_read)


def keep_castle(probabilities: np.ndarray, source: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """(N, N, labels) ``probabilities`` with the squares ``kept`` (N, N bool) given ``source``'s castle
    probability, their other labels scaled to the rest: a piece found on a square moves no castle probability
    to it or from it, whatever it does to the square's terrain (docs/experiments.md, "The piece's square read
    from both its readings")."""
    kept_probabilities = np.array(probabilities, dtype=float)
    castle = source[kept, CASTLE_LABEL]
    others = kept_probabilities[kept].sum(axis=-1) - kept_probabilities[kept, CASTLE_LABEL]
    kept_probabilities[kept] *= ((1.0 - castle) / np.maximum(others, 1e-12))[:, None]
    kept_probabilities[kept, CASTLE_LABEL] = castle
    return kept_probabilities
