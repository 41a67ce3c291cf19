"""Tall things on the kingdom: where a castle model or a meeple standing on a square shows in the photo.

The frame's homography (grid -> image) is the camera seeing the table plane. With square pixels and
the principal point at the photo's centre it fixes the focal length (two constraints, one unknown;
taken from the better conditioned one, a phone's default when the view is nearly overhead), then
the camera's rotation and position, so any point above the table can be projected. An object of
height h standing on a square shows its top where the ray to that top meets the table: the *lean*,
in grid units, of that square. A castle leans over the square (or squares) behind it as seen from
the camera, and the reading must know it: the castle is on its base, and the square it leans over
is read from what is left of it, or flagged. Which square is the base, the photo shows too: the castle's
silhouette is one colour on its base and over the squares behind, unlike their print (standing_evidence).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kingdomino.labels import CASTLE_LABEL, EMPTY_LABEL
from scanner.decode import PROBABILITY_FLOOR

#: The cardboard castle's height, in squares (the box's model is about 0.6-0.8 of a square high).
CASTLE_HEIGHT = 0.7
#: The tallest castle the silhouette looks for a base under: the box's tallest model, and a lean the
#: frame's camera underestimates (docs/experiments.md, "The castle's reach").
CASTLE_TALLEST = 0.8
#: Share of its square the castle's footprint leaves free on each side.
CASTLE_INSET = 0.12
#: A phone's focal length as a share of the photo's longer side, when the homography cannot tell it
#: (a photo taken nearly straight down fits any focal length).
DEFAULT_FOCAL = 0.9
#: Focal lengths outside this range (share of the longer side) are not a phone's: the default is used.
FOCAL_RANGE = (0.45, 2.5)
#: Pixels per square of the small raster the covered share of each neighbour is counted on.
RASTER = 24


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the table plane, in grid units (one square = 1, the table at z = 0)."""

    intrinsics: np.ndarray  # (3, 3) K
    rotation: np.ndarray  # (3, 3) world (grid x, grid y, up) -> camera
    translation: np.ndarray  # (3,)

    def project(self, points: np.ndarray) -> np.ndarray:
        """(k, 3) grid points (x, y, height) -> (k, 2) image pixels."""
        camera = np.asarray(points, float) @ self.rotation.T + self.translation
        pixels = camera @ self.intrinsics.T
        return pixels[:, :2] / pixels[:, 2:3]

    @property
    def centre(self) -> np.ndarray:
        """The camera's position in grid units (x, y, height above the table)."""
        return -self.rotation.T @ self.translation


def _focal(normalised: np.ndarray) -> float | None:
    """Focal length (pixels) from a homography whose principal point is already at the origin, None
    when neither constraint is well conditioned (a view from nearly straight above)."""
    a, b = normalised[:, 0], normalised[:, 1]
    candidates = []
    denominator = a[2] * b[2]
    if abs(denominator) > 1e-12:
        candidates.append((abs(denominator), -(a[0] * b[0] + a[1] * b[1]) / denominator))
    denominator = b[2] ** 2 - a[2] ** 2
    if abs(denominator) > 1e-12:
        value = (a[0] ** 2 + a[1] ** 2 - b[0] ** 2 - b[1] ** 2) / denominator
        candidates.append((abs(denominator), value))
    candidates = [(w, v) for w, v in candidates if v > 0]
    if not candidates:
        return None
    return float(np.sqrt(max(candidates)[1]))


def camera_from_homography(grid_to_image: np.ndarray, image_shape: tuple[int, ...]) -> Camera:
    """The camera seeing the grid plane through ``grid_to_image`` in a photo of ``image_shape``."""
    height, width = image_shape[:2]
    longer = max(height, width)
    centre = np.array([[1.0, 0, -width / 2], [0, 1, -height / 2], [0, 0, 1]])
    normalised = centre @ np.asarray(grid_to_image, float)
    normalised = normalised / np.linalg.norm(normalised[:, 0])
    focal = _focal(normalised)
    if focal is None or not FOCAL_RANGE[0] * longer <= focal <= FOCAL_RANGE[1] * longer:
        focal = DEFAULT_FOCAL * longer
    intrinsics = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1.0]])
    columns = np.diag([1 / focal, 1 / focal, 1.0]) @ normalised
    if (columns @ np.array([0.5, 0.5, 1.0]))[2] < 0:  # a square of the grid lies in front of the camera
        columns = -columns
    r1, r2 = columns[:, 0], columns[:, 1]
    scale = (np.linalg.norm(r1) + np.linalg.norm(r2)) / 2
    r1, r2, translation = r1 / np.linalg.norm(r1), r2 / np.linalg.norm(r2), columns[:, 2] / scale
    r3 = np.cross(r1, r2)
    if r3 @ translation > 0:  # "up" points to the camera's side of the table
        r3 = -r3
    rotation = np.stack([r1, r2, r3], axis=1)
    return Camera(intrinsics, rotation, translation)


def leans(camera: Camera, grid_size: int, height: float = CASTLE_HEIGHT) -> np.ndarray:
    """(N, N, 2) grid displacement (x = columns, y = rows) from each square's centre to the table point
    under the top of an object ``height`` squares tall standing there, as the camera sees it."""
    rows, cols = np.mgrid[0:grid_size, 0:grid_size] + 0.5
    base = np.stack([cols.ravel(), rows.ravel(), np.zeros(rows.size)], axis=1)
    top = base + [0.0, 0.0, height]
    centre = camera.centre
    # the ray from the camera through the top meets the table where height reaches zero
    along = centre[2] / max(centre[2] - height, 1e-6)
    hit = centre[None, :2] + (top[:, :2] - centre[None, :2]) * along
    if centre[2] <= height:  # a camera lower than the object: no sensible lean
        hit = base[:, :2]
    return (hit - base[:, :2]).reshape(grid_size, grid_size, 2)


def covered_shares(lean: np.ndarray, inset: float = CASTLE_INSET) -> np.ndarray:
    """(3, 3) share of each square around a base square (centre = the base) that a box standing on the
    base, its footprint inset by ``inset``, hides from the camera when its top shows ``lean`` (x, y)
    grid units away: the convex hull of the footprint and the footprint moved by the lean."""
    return _covered_shares(np.asarray(lean, float).reshape(1, 2), inset)[0]


def _covered_shares(leans: np.ndarray, inset: float) -> np.ndarray:
    """(k, 3, 3) covered_shares of each of the (k, 2) ``leans``: their outlines made at once, the same
    numbers as silhouette's one at a time, then each rastered on its own (a frame's squares one by one
    cost the castle's reading more in numpy's overheads than in drawing)."""
    import cv2

    footprint = _outlines(np.zeros(2), (1, 1), inset, [(0.0, 0.0)])[:, :4]  # (1, 4, 2)
    moved = footprint + np.clip(leans, -1.5, 1.5)[:, None, :]
    outlines = np.concatenate([np.broadcast_to(footprint, moved.shape), moved], axis=1)
    points = np.round(outlines * RASTER * 4).astype(np.int32)  # as silhouette's, in quarter pixels
    masks = np.zeros((len(leans), 3 * RASTER, 3 * RASTER), np.uint8)
    for mask, corners in zip(masks, points, strict=True):
        cv2.fillConvexPoly(mask, cv2.convexHull(corners), 1, lineType=cv2.LINE_8, shift=2)
    return masks.reshape(len(leans), 3, RASTER, 3, RASTER).mean(axis=(2, 4))


def castle_cover(camera: Camera, grid_size: int, height: float = CASTLE_HEIGHT) -> np.ndarray:
    """(N, N, N, N): share of square (r2, c2) hidden by a castle standing on square (r, c)."""
    return _cover(leans(camera, grid_size, height))


def _cover(lean: np.ndarray) -> np.ndarray:
    """``castle_cover`` from the squares' ``leans``."""
    n = lean.shape[0]
    cover = np.zeros((n, n, n, n))
    every = _covered_shares(lean.reshape(-1, 2), CASTLE_INSET).reshape(n, n, 3, 3)
    for row in range(n):
        for col in range(n):
            shares = every[row, col]
            r0, c0 = max(row - 1, 0), max(col - 1, 0)
            r1, c1 = min(row + 2, n), min(col + 2, n)
            cover[row, col, r0:r1, c0:c1] = shares[r0 - row + 1 : r1 - row + 1, c0 - col + 1 : c1 - col + 1]
    return cover


#: A square hidden this much (share of its area) by a castle standing on a neighbour may show the castle
#: instead of its own print: the castle read there may belong to the neighbour.
LEAN_COVER = 0.25
#: A base the classifier reads this sure of one terrain is no castle base; one read this unsure or less
#: is fully plausible (linear in between).
SURE_TERRAIN = 0.97
UNSURE_TERRAIN = 0.6


#: A castle read on a square moves to a neighbour whose silhouette the photo shows better as one upright
#: object (standing_evidence) when that neighbour's castle would hide at least this share of the square:
#: lower than LEAN_COVER, as the silhouettes themselves tell where the castle stands.
STANDING_COVER = 0.15
#: The neighbour's standing evidence must beat the square's by this much for any of the castle to move,
#: and by this much more for all of it (docs/experiments.md, "The castle's silhouette").
STANDING_MARGIN = 0.15
STANDING_SPAN = 0.2
#: ... and be this much one colour itself: a castle seen from nearly above shows its floor inside its
#: walls, and a forest domino in front of it is as much one colour as that.
STANDING_SURE = 0.4
#: Squares read as the castle with at least this probability are the ones whose bases are looked at (an
#: unsure classifier spreads a few hundredths over every label: no reading of a castle to move).
STANDING_SEEN = 0.03


@dataclass(frozen=True)
class Leaning:
    """What the castle's lean did to a frame's probabilities."""

    probabilities: np.ndarray  # (N, N, labels) with the castle moved to plausible bases
    moved: np.ndarray  # (N, N) castle probability given to each square by a square it leans over
    hidden: np.ndarray  # (N, N) largest share of each square a plausible castle on a neighbour hides
    taken: np.ndarray | None = None  # (N, N) castle probability moved off each square to its base


def standing_candidates(probabilities: np.ndarray, cover: np.ndarray, castle: int) -> list[tuple[int, int]]:
    """The squares read as the castle (at least STANDING_SEEN) and the neighbours a castle could stand on
    to lean over them (cover at least STANDING_COVER): the squares standing_evidence is asked about."""
    cells: set[tuple[int, int]] = set()
    for square in zip(*np.nonzero(probabilities[..., castle] >= STANDING_SEEN), strict=True):
        square = (int(square[0]), int(square[1]))
        bases = [
            (int(r), int(c))
            for r, c in zip(*np.nonzero(cover[:, :, square[0], square[1]] >= STANDING_COVER), strict=True)
        ]
        if any(base != square for base in bases):
            cells.update(bases)
            cells.add(square)
    return sorted(cells)


def lean_castle(
    probabilities: np.ndarray,
    cover: np.ndarray,
    castle: int,
    standing: dict | None = None,
    reach: np.ndarray | None = None,
) -> Leaning:
    """Move the castle read on a square to the neighbour it would stand on, when the camera sees a castle
    on that neighbour leaning over the square and either the neighbour reads as no sure terrain or the
    photo shows the castle's silhouette standing there better than on the square itself.

    ``probabilities`` (N, N, labels) from the classifier, ``cover`` from castle_cover, ``castle`` the
    castle label's index, ``standing`` the standing_evidence of some squares (none: the reading alone).
    By the reading alone the castle probability of the leaned-over square is shared with the base in
    proportion to how plausible the base is, so a sure terrain behind a real castle keeps it: a castle
    model hides its base's print, but so does nothing else (docs/experiments.md). The silhouette shows
    more than the base's own reading: a base whose silhouette is one colour (STANDING_SURE) and wins by
    STANDING_MARGIN + STANDING_SPAN takes all of the castle read on the square it leans over, whatever
    it reads as. ``reach``: the cover of the tallest castle the camera may show (castle_cover at
    CASTLE_TALLEST; ``cover`` by default), where the silhouette looks for the base: the lean found from
    the frame is uncertain, and the silhouette, not the cover, tells where the castle stands.
    """
    n = probabilities.shape[0]
    weighed = np.array(probabilities, dtype=float)
    seen = weighed[..., castle].copy()
    terrain = np.delete(weighed, castle, axis=-1).max(axis=-1)
    plausible = np.clip((SURE_TERRAIN - terrain) / (SURE_TERRAIN - UNSURE_TERRAIN), 0.0, 1.0)
    standing = standing or {}
    moved = np.zeros((n, n))
    kept = np.ones((n, n))
    reach = cover if reach is None else np.maximum(reach, cover)
    for base in np.ndindex(n, n):
        for square in zip(*np.nonzero(reach[base] >= min(LEAN_COVER, STANDING_COVER)), strict=True):
            if square == base:
                continue
            share = 0.0
            if cover[base][square] >= LEAN_COVER:
                share = plausible[base] * min(1.0, cover[base][square] / (2 * LEAN_COVER))
            if (
                reach[base][square] >= STANDING_COVER
                and standing.get(base, 0.0) >= STANDING_SURE
                and square in standing
            ):
                lead = standing[base] - standing[square] - STANDING_MARGIN
                share = max(share, float(np.clip(lead / STANDING_SPAN, 0.0, 1.0)))
            moved[base] = max(moved[base], seen[square] * share)
            kept[square] = min(kept[square], 1.0 - share)
    weighed[..., castle] = np.maximum(seen * kept, moved)
    weighed /= weighed.sum(axis=-1, keepdims=True)
    belief = weighed[..., castle]
    return Leaning(weighed, moved, _hidden(belief, cover), np.clip(seen - belief, 0.0, None))


def _hidden(belief: np.ndarray, cover: np.ndarray) -> np.ndarray:
    """(N, N) largest share of each square that a castle on a neighbour with some ``belief`` (castle
    probability, N×N) hides (``cover``: castle_cover)."""
    n = belief.shape[0]
    hidden = np.zeros((n, n))
    for base in np.ndindex(n, n):
        if belief[base] >= 0.05:
            shares = cover[base].copy()
            shares[base] = 0.0
            hidden = np.maximum(hidden, shares)
    return hidden


def painted_castles(
    leaning: Leaning, cover: np.ndarray, cells: list[tuple[int, int]], nats: float
) -> Leaning:
    """``leaning`` with the castle's odds on each of ``cells`` (squares the photo shows a castle model
    standing on: standing_castles) raised by ``nats``, and the squares a castle there would hide counted
    as hidden (``cover``: castle_cover). A castle model in a colour the classifier reads as a lake or a
    wheat field hides the printed castle; the photo still shows it standing (docs/experiments.md, "A
    castle painted in a player's colour")."""
    if not cells or nats <= 0:
        return leaning
    weighed = np.array(leaning.probabilities, dtype=float)
    for cell in cells:
        rest = 1.0 - weighed[cell + (CASTLE_LABEL,)]
        # the odds raised from the decoder's floor: a castle read nowhere on the square gains them too
        castle = max(weighed[cell + (CASTLE_LABEL,)], PROBABILITY_FLOOR) * np.exp(nats)
        raised = castle / (castle + rest)
        weighed[cell] *= (1.0 - raised) / max(rest, 1e-12)
        weighed[cell + (CASTLE_LABEL,)] = raised
    seen = np.zeros(weighed.shape[:2])
    seen[tuple(np.array(cells).T)] = 1.0  # the model stands there, whatever the decoder makes of it
    hidden = np.maximum(leaning.hidden, _hidden(seen, cover))
    return Leaning(weighed, leaning.moved, hidden, leaning.taken)


#: Pixels per square of the small copy of the rectified frame a castle's silhouette is looked for on.
STANDING_PX = 24
#: Lightness counts this much against the colour (a, b) when pixels are compared: the castle's walls
#: are one colour but unevenly lit (the walls facing the light, the inside of the far walls).
STANDING_LIGHTNESS = 0.4
#: Two pixels are of one colour within this Lab distance (uint8 Lab units, lightness weighed down).
STANDING_TOLERANCE = 14.0


def _outlines(lean: np.ndarray, cell: tuple[int, int], inset: float, shifts) -> np.ndarray:
    """(k, 8, 2) grid points (x, y) whose hull is the silhouette of a box standing on ``cell``, its footprint
    moved by each of ``shifts`` ((k, 2): x, y grid units) from the square's middle."""
    shifts = np.asarray(shifts, float).reshape(-1, 2)
    col, row = cell[1] + shifts[:, 0], cell[0] + shifts[:, 1]
    lo_x, lo_y, hi_x, hi_y = col + inset, row + inset, col + 1 - inset, row + 1 - inset
    corners = ((lo_x, lo_y), (hi_x, lo_y), (hi_x, hi_y), (lo_x, hi_y))
    footprint = np.stack([np.stack(corner, axis=1) for corner in corners], 1)
    return np.concatenate([footprint, footprint + np.clip(np.asarray(lean, float), -1.5, 1.5)], axis=1)


def silhouette(
    lean: np.ndarray,
    cell: tuple[int, int],
    grid_size: int,
    px: int,
    inset: float = CASTLE_INSET,
    window: tuple[int, int, int, int] | None = None,
    shift: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """uint8 mask, in the rectified frame at ``px`` pixels per square, of where a box standing on ``cell``
    (footprint inset by ``inset``) shows when its top is seen ``lean`` (x, y) grid units away: the hull
    of its footprint and the footprint moved by the lean, as covered_shares counts it. ``window``: (first
    row, first column, rows, columns) of squares the mask covers; the whole frame by default; ``shift``:
    the footprint moved (x, y) grid units from the square's middle."""
    import cv2

    row0, col0, rows, cols = window or (0, 0, grid_size, grid_size)
    points = (_outlines(lean, cell, inset, [shift])[0] - [col0, row0]) * px * 4
    hull = cv2.convexHull(np.round(points).astype(np.int32))
    mask = np.zeros((rows * px, cols * px), np.uint8)
    cv2.fillConvexPoly(mask, hull, 1, lineType=cv2.LINE_8, shift=2)
    return mask


def walls_mask(
    lean: np.ndarray, base: tuple[int, int], cell: tuple[int, int], shape: tuple, grow: float
) -> np.ndarray:
    """uint8 mask (255 where hidden) over the crop of square ``cell`` (``shape``: its height, width) of the
    silhouette of a castle standing on ``base`` whose top shows ``lean`` (x, y) grid units away, grown by
    ``grow`` of the square on every side: the part of the square the castle's walls may hide."""
    import cv2

    height, width = shape[:2]
    points = _outlines(lean, base, CASTLE_INSET, [(0.0, 0.0)])[0] - [cell[1], cell[0]]
    pixels = np.round(points * [width, height] * 4).astype(np.int32)
    mask = np.zeros((height, width), np.uint8)
    cv2.fillConvexPoly(mask, cv2.convexHull(pixels), 255, lineType=cv2.LINE_8, shift=2)
    reach = max(int(round(grow * width)), 1)
    return cv2.dilate(mask, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))


def standing_evidence(
    rectified: np.ndarray, lean: np.ndarray, cells: list[tuple[int, int]], px: int = STANDING_PX
) -> dict[tuple[int, int], float]:
    """How well the rectified frame (BGR, N×N squares) shows one upright object standing on each of
    ``cells`` (``lean``: (N, N, 2) from ``leans``), from 0 to 1.

    A castle model standing on a square is one colour over its whole silhouette, on its own square and
    where its walls lean over the squares behind alike. Artwork keeps to its tile: the silhouette of a
    square that bears only print changes colour where it crosses into the square behind, and the
    silhouette of the square a castle leans over holds the castle's top on its own square but the print
    of the square behind beyond it; and an object is unlike the print of the squares it leans over, where
    it leaves them visible. The evidence is the smallest of the two parts' (on the square, beyond it)
    shares of pixels near the whole silhouette's median colour and of the share of those squares' rest
    away from it; the share on the square alone where the silhouette does not leave it (a camera
    straight above, or walls leaning out of the frame)."""

    n = lean.shape[0]
    lab = _small_lab(rectified, n, px).astype(np.float32)
    lab[..., 0] *= STANDING_LIGHTNESS
    evidence = {}
    for cell in cells:
        row0, col0 = max(cell[0] - 2, 0), max(cell[1] - 2, 0)  # a lean is at most 1.5 squares
        rows, cols = min(cell[0] + 3, n) - row0, min(cell[1] + 3, n) - col0
        inside = silhouette(lean[cell], cell, n, px, window=(row0, col0, rows, cols)).astype(bool)
        own = np.zeros_like(inside)
        r, c = (cell[0] - row0) * px, (cell[1] - col0) * px
        own[r : r + px, c : c + px] = True
        window = lab[row0 * px : (row0 + rows) * px, col0 * px : (col0 + cols) * px]
        parts = [part for part in (window[inside & own], window[inside & ~own]) if len(part) >= px]
        if not parts:
            evidence[cell] = 0.0
            continue
        colour = np.median(np.concatenate(parts), axis=0)
        near = [np.mean(np.linalg.norm(part - colour, axis=1) < STANDING_TOLERANCE) for part in parts]
        # the squares the walls lean over, where the walls leave them, show their own print
        entered = inside.reshape(rows, px, cols, px).sum(axis=(1, 3)) >= px
        entered[cell[0] - row0, cell[1] - col0] = False
        rest = window[np.repeat(np.repeat(entered, px, axis=0), px, axis=1) & ~inside]
        if len(rest) >= px:
            near.append(1.0 - np.mean(np.linalg.norm(rest - colour, axis=1) < STANDING_TOLERANCE))
        evidence[cell] = float(min(near))
    return evidence


def castle_leaning(
    probabilities: np.ndarray,
    rectified: np.ndarray,
    homography: np.ndarray,
    image_shape: tuple,
    height: float = CASTLE_HEIGHT,
    tallest: float = CASTLE_TALLEST,
    painted: float = 0.0,
) -> tuple[np.ndarray, Leaning]:
    """The castle's cover of every square (``castle_cover``) and ``lean_castle`` of the frame's weighed
    ``probabilities``, told where the photo shows the castle standing by its silhouette (``standing_evidence``
    on the ``rectified`` frame) when a square is read as a castle a neighbour could lean over, were the
    castle as tall as ``tallest`` (the lean from the frame is uncertain: docs/experiments.md, "The castle's
    reach"). ``painted``: the nats of castle odds a castle model the photo shows standing on a square adds
    to it (standing_castles, painted_castles; none at 0)."""
    camera = camera_from_homography(homography, image_shape)
    lean = leans(camera, probabilities.shape[0], height)
    cover = _cover(lean)
    reach = _cover(leans(camera, probabilities.shape[0], tallest)) if tallest > height else cover
    candidates = standing_candidates(probabilities, reach, CASTLE_LABEL)
    standing = standing_evidence(rectified, lean, candidates) if candidates else None
    leaning = lean_castle(probabilities, cover, CASTLE_LABEL, standing, reach)
    if painted > 0:
        cells = list(np.ndindex(lean.shape[:2]))
        leaning = painted_castles(leaning, cover, standing_castles(rectified, lean, cells), painted)
    return cover, leaning


#: A piece a player stands on a square (the king meeple) is about this many squares tall: lower than any
#: king, so its silhouette stays inside the piece (docs/experiments.md, "A piece standing on a square").
PIECE_HEIGHT = 0.6
#: Its footprint leaves this share of its square free on each side: a piece is under half a square wide.
PIECE_INSET = 0.32
#: It stands anywhere about the square's middle: footprints moved by these (x, y) grid units are tried.
PIECE_SHIFTS = tuple((dx / 10, dy / 10) for dx in range(-2, 3) for dy in range(-2, 3))
#: A piece is one colour shaded round its body: its lightness varies more than its hue.
PIECE_LIGHTNESS = 0.15
#: A piece stands on a square when its silhouette is this much one colour (on the square and beyond) ...
PIECE_SURE = 0.5
#: ... and the rest of its square and of the squares it leans over is this much unlike that colour:
#: printed artwork repeats its colours around its objects, a piece's paint is nowhere else.
PIECE_APART = 0.95
#: No player's piece is painted red, orange or brown (pink, yellow, green and blue are): Lab hue angles
#: in this band (degrees) are printed roofs and rocks.
PIECE_UNPAINTED_HUES = (20.0, 65.0)


@dataclass(frozen=True)
class Piece:
    """A piece the photo shows standing on a square, and the side of the square it leaves visible."""

    evidence: float  # the smaller of its silhouette's shares one colour
    away: tuple[int, int]  # (rows, columns) step from the piece towards the square's widest free side
    share: float  # the share of the square, from the other side, the free side does not reach
    colour: tuple[float, float, float] = (0.0, 0.0, 0.0)  # its silhouette's median, Lab weighed (_WEIGHTS)
    #: (px, px) bool: where its silhouette covers its square (None: anywhere)
    footprint: np.ndarray | None = field(default=None, repr=False, compare=False)


def standing_pieces(
    rectified: np.ndarray, lean: np.ndarray, cells: list[tuple[int, int]], px: int = STANDING_PX
) -> dict[tuple[int, int], Piece]:
    """The ``cells`` of the rectified N×N frame on which the photo shows a piece standing (``lean``: (N, N,
    2) from ``leans`` at PIECE_HEIGHT): a silhouette of one colour about the square's middle, on the
    square and where it leans over the squares behind, unlike all the rest of those squares, in a colour
    a piece is painted in."""

    n = lean.shape[0]
    lab = _small_lab(rectified, n, px)
    pieces = {}
    for cell in cells:
        found = _piece_view(lab, np.clip(lean[cell], -0.9, 0.9), cell, n, px)
        if found is None:
            continue
        on, beyond, rest = found.shares
        coherent = min(share for share in (on, beyond) if share is not None)
        if coherent < PIECE_SURE or rest is None or rest < PIECE_APART or not _painted(found.colour):
            continue
        rows, cols = np.nonzero(found.on_square)
        if not len(rows):
            continue
        free = {
            (-1, 0): rows.min(),
            (1, 0): px - 1 - rows.max(),
            (0, -1): cols.min(),
            (0, 1): px - 1 - cols.max(),
        }
        away = max(free, key=free.get)
        colour = tuple(float(v) for v in found.colour)
        pieces[cell] = Piece(float(coherent), away, float(1.0 - free[away] / px), colour, found.on_square)
    return pieces


def pieces_on_tiles(
    rectified: np.ndarray, homography: np.ndarray, image_shape: tuple, probabilities: np.ndarray
) -> dict[tuple[int, int], Piece]:
    """standing_pieces of the squares ``probabilities`` (N, N, labels) read as a tile (not the castle, not
    the table), in the rectified frame seen through ``homography`` (grid -> image) in a photo of
    ``image_shape``."""
    n = probabilities.shape[0]
    tiles = ~np.isin(probabilities.argmax(axis=-1), (EMPTY_LABEL, CASTLE_LABEL))
    cells = [(int(r), int(c)) for r, c in zip(*np.nonzero(tiles), strict=True)]
    if not cells:
        return {}
    return standing_pieces(
        rectified, leans(camera_from_homography(homography, image_shape), n, PIECE_HEIGHT), cells
    )


#: A castle model standing on a square is as much one colour as a piece (PIECE_SURE) and this much unlike
#: the rest of the squares it leans over: less than a piece, as its walls cover most of its square and leave
#: the floor between them (docs/experiments.md, "A castle painted in a player's colour").
CASTLE_APART = 0.8
_CASTLE = (CASTLE_INSET, ((0.0, 0.0),), CASTLE_APART)  # its footprint about the square's middle


def standing_castles(
    rectified: np.ndarray, lean: np.ndarray, cells: list[tuple[int, int]], px: int = STANDING_PX
) -> list[tuple[int, int]]:
    """The ``cells`` of the rectified N×N frame on which the photo shows a castle model standing (``lean``:
    (N, N, 2) from ``leans`` at CASTLE_HEIGHT): standing_pieces' test with the castle's footprint
    (CASTLE_INSET, about the square's middle) and CASTLE_APART, whose silhouette leaves its square: one
    colour on the square and beyond it, unlike the rest of the squares it leans over, in a colour a piece
    is painted in. A camera straight above shows no lean to tell a castle's walls from a square's print."""

    n = lean.shape[0]
    lab = _small_lab(rectified, n, px)
    found = []
    # a castle whose lean stays within its footprint's inset shows nothing beyond its square
    for cell in [cell for cell in cells if np.abs(lean[cell]).max() > CASTLE_INSET]:
        seen = _piece_view(lab, np.clip(lean[cell], -0.9, 0.9), cell, n, px, _CASTLE)
        if seen is None or any(share is None for share in seen.shares):
            continue
        on, beyond, rest = seen.shares
        if min(on, beyond) >= PIECE_SURE and rest >= CASTLE_APART and _painted(seen.colour):
            found.append(cell)
    return found


def _small_lab(rectified: np.ndarray, n: int, px: int) -> np.ndarray:
    """The rectified N×N frame at ``px`` pixels per square in uint8 Lab: silhouettes are looked at on it."""
    import cv2

    small = cv2.resize(rectified, (n * px, n * px), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2LAB)


def _painted(colour: np.ndarray) -> bool:
    """Whether a silhouette's median colour (weighed Lab) is one a player's piece is painted in: not in the
    band of PIECE_UNPAINTED_HUES."""
    hue = _hue(colour)
    return not PIECE_UNPAINTED_HUES[0] <= hue <= PIECE_UNPAINTED_HUES[1]


@dataclass(frozen=True)
class _Seen:
    """The silhouette of a piece's best footprint as the rectified frame shows it (see _piece_view)."""

    shares: list[float | None]  # near its colour on the square, beyond it; the rest away from it
    colour: np.ndarray  # its median colour (weighed Lab)
    on_square: np.ndarray  # (px, px) bool: where it covers its own square


def _piece_view(
    lab: np.ndarray, lean: np.ndarray, cell: tuple[int, int], n: int, px: int, kind: tuple | None = None
) -> _Seen | None:
    """standing_evidence's shares for a piece on ``cell`` (``lab``: the frame at ``px`` per square, uint8
    Lab), every footprint of PIECE_SHIFTS at once (``kind``: another object's inset, shifts and PIECE_APART,
    _CASTLE): the silhouette's part on the square and beyond it near
    its colour, and the rest of the square and of the squares it enters away from it; the footprint whose
    smallest share is largest. Its colour is the silhouette's median (lightness weighed). None when no
    footprint shows enough of itself to tell, or none can pass standing_pieces' tests (_may_stand). Only
    the square and its neighbours towards the lean are looked at: no footprint enters any other."""
    rows_at = sorted({cell[0], min(max(cell[0] + int(np.sign(lean[1])), 0), n - 1)})
    cols_at = sorted({cell[1], min(max(cell[1] + int(np.sign(lean[0])), 0), n - 1)})
    row0, col0, rows, cols = rows_at[0], cols_at[0], len(rows_at), len(cols_at)
    values = lab[row0 * px : (row0 + rows) * px, col0 * px : (col0 + cols) * px].reshape(-1, 3)
    inset, shifts, apart = kind or (PIECE_INSET, PIECE_SHIFTS, PIECE_APART)
    inside = _footprints(lean, cell, px, (row0, col0, rows, cols), inset, shifts)
    square_of = ((np.arange(rows * px) // px)[:, None] * cols + np.arange(cols * px) // px).ravel()
    at = (cell[0] - row0) * cols + cell[1] - col0  # the piece's own square among the window's
    own = square_of == at
    which, pixel = np.nonzero(inside)
    per_square = np.bincount(which * rows * cols + square_of[pixel], minlength=inside.size // (px * px))
    per_square = per_square.reshape(len(inside), rows * cols)  # each footprint's pixels on each square
    colour = _medians(values, which, pixel, len(inside))
    pixels = _WEIGHTS[np.arange(3), values]
    if not _may_stand(pixels[own], inside[:, own], colour, per_square, at, px, apart):
        return None
    near = _near_all(pixels, (pixels**2).sum(axis=1), colour)
    # the squares it enters beside the silhouette, its own among them
    entered = per_square >= px
    entered[:, at] = True
    rest = entered[:, square_of] & ~inside
    shares = [_share(near, inside & own, px), _share(near, inside & ~own, px), _share(~near, rest, px)]
    table = np.array([[np.inf if v is None else v for v in column] for column in shares])  # (3, shifts)
    table[:, np.isinf(table[:2]).all(axis=0)] = -np.inf  # nothing of the silhouette to tell
    best = int(np.argmax(table.min(axis=0)))
    if not np.isfinite(table[:, best].min()) or table[:2, best].min() == np.inf:
        return None
    on_square = inside[best, own].reshape(px, px)
    return _Seen([column[best] for column in shares], colour[best], on_square)


#: uint8 Lab -> the weighed Lab pieces are compared in (lightness weighed by PIECE_LIGHTNESS), per channel.
_WEIGHTS = np.stack(
    [np.arange(256, dtype=np.float32) * PIECE_LIGHTNESS] + [np.arange(256, dtype=np.float32)] * 2
)


def _footprints(
    lean: np.ndarray, cell: tuple[int, int], px: int, window: tuple[int, int, int, int], inset: float, shifts
) -> np.ndarray:
    """(shifts, P) bool: ``silhouette`` of a piece on ``cell`` at each of PIECE_SHIFTS, in ``window``."""
    import cv2

    row0, col0, rows, cols = window
    outlines = _outlines(lean, cell, inset, shifts)
    points = np.round((outlines - [col0, row0]) * px * 4).astype(np.int32)  # as silhouette's, all at once
    masks = np.zeros((len(outlines), rows * px, cols * px), np.uint8)
    for mask, corners in zip(masks, points, strict=True):
        cv2.fillConvexPoly(mask, cv2.convexHull(corners), 1, lineType=cv2.LINE_8, shift=2)
    return masks.reshape(len(outlines), -1).astype(bool)


def _medians(values: np.ndarray, which: np.ndarray, pixel: np.ndarray, k: int) -> np.ndarray:
    """(k, 3) float32: per mask (pixel ``pixel[i]`` of the uint8 ``values`` (P, 3) in mask ``which[i]``, in
    the order of ``which``), the median of its pixels in the weighed Lab of _WEIGHTS, as np.median of the
    weighed pixels (the mean of the two middle ones when even), zero for an empty mask."""
    colour = np.zeros((k, 3), np.float32)
    if not len(which):
        return colour
    counts = np.bincount(which, minlength=k)
    starts = np.cumsum(counts) - counts
    keys = (which.astype(np.uint16) << 8) | values[pixel].T  # (3, pixels): mask, then value
    keys.sort(axis=1, kind="stable")  # a radix sort of 16-bit keys
    last = len(which) - 1
    low = keys[:, np.minimum(starts + np.maximum(counts - 1, 0) // 2, last)] & 255
    high = keys[:, np.minimum(starts + counts // 2, last)] & 255
    colour[:] = ((_WEIGHTS[np.arange(3)[:, None], low] + _WEIGHTS[np.arange(3)[:, None], high]) / 2).T
    colour[counts == 0] = 0.0
    return colour


def _may_stand(
    square: np.ndarray,
    on: np.ndarray,
    colour: np.ndarray,
    per_square: np.ndarray,
    at: int,
    px: int,
    apart: float = PIECE_APART,
) -> bool:
    """False when no footprint can pass standing_pieces' tests, told from the piece's square alone
    (``square``: its weighed pixels; ``on``: (shifts, px²) where each footprint covers it; ``colour``: their
    medians; ``per_square``: their pixels on each square of the window, ``at`` the piece's): its colour is
    unpainted, or under PIECE_SURE of its part on the square is near that colour, or the rest of the
    square alone holds more of that colour than ``apart`` allows in the rest of all the squares it
    enters. Bounds with a margin for rounding: it drops no piece standing_pieces would find."""
    hue = _hue(colour)
    hope = (hue < PIECE_UNPAINTED_HUES[0] + 0.01) | (hue > PIECE_UNPAINTED_HUES[1] - 0.01)
    if not hope.any():
        return False
    on, colour, per_square = on[hope], colour[hope], per_square[hope]
    entered = per_square >= px
    entered[:, at] = True
    rest = (entered * (px * px - per_square)).sum(axis=1)
    held = per_square[:, at]
    distance = _distances(square, (square**2).sum(axis=1), colour)
    near_on = np.count_nonzero(on & (distance < STANDING_TOLERANCE**2 + 1.0), axis=1)
    near_rest = np.count_nonzero(~on & (distance < STANDING_TOLERANCE**2 - 1.0), axis=1)
    sure = (held < px) | (near_on >= PIECE_SURE * held)
    unlike = (rest >= px) & ((rest - near_rest) / np.maximum(rest, 1) >= apart)
    return bool((sure & unlike).any())


def _hue(colour: np.ndarray) -> np.ndarray:
    """Lab hue angle in degrees (0–360) of uint8-centred Lab colours (..., 3)."""
    return np.degrees(np.arctan2(colour[..., 2] - 128.0, colour[..., 1] - 128.0)) % 360.0


def _distances(pixels: np.ndarray, norms: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """(k, P) squared distances of each of the k ``colours`` to each pixel (``norms``: their squared
    lengths)."""
    return norms[None] - 2 * colours @ pixels.T + (colours**2).sum(axis=1)[:, None]


def _near_all(pixels: np.ndarray, norms: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """(k, P) bool: each of the k ``colours`` against each pixel, within STANDING_TOLERANCE."""
    return _distances(pixels, norms, colours) < STANDING_TOLERANCE**2


def _share(near: np.ndarray, part: np.ndarray, px: int) -> list[float | None]:
    """Per footprint (rows), the share of ``part``'s pixels that are ``near``; None under ``px`` pixels."""
    counts = np.count_nonzero(part, axis=1)
    hits = np.count_nonzero(near & part, axis=1)
    return [float(h / k) if k >= px else None for h, k in zip(hits, counts, strict=True)]
