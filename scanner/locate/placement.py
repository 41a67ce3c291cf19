"""Where on its lattice the kingdom lies, and how large it is: artwork inside, the table around it.

A lattice fit finds seams, and a printed mat, a checkered cloth or a neighbour's kingdom has seams too:
the window of seams it picks may sit on the mat's empty cells beside the kingdom, or be a 7×7 laid over
the mat around a 5×5 kingdom. What the seams cannot tell, the cells can. The table repeats itself around
the kingdom (a mat's cells, a cloth's checks, a plain wood all look like each other), while a kingdom's
squares are printed artwork unlike that. So each cell of the frame and of the rings around it is described
by its colour and the spread of its lightness, and a cell is *table-like* for a window when it looks like
several of the cells of that window's own ring (the table around it). A window's placement score is its
cells unlike its ring, less those like it: the kingdom is the N×N window of the lattice, 5×5 or 7×7,
with artwork on its squares and the table just around them. Windows of the two sizes compete per square:
a 7×7 is the kingdom only when the ring of 24 squares it adds to a 5×5 is as much artwork as the 5×5 is
(a Mighty Duel kingdom's outer squares), not a neighbour's dominoes or a cloth's checks beside it.

Finer than a square, the same contrast places the frame's outline: each side moves onto the edge where
the artwork stops and the table begins (``fit_outline``). The same measure serves the judge (a frame
whose squares are mostly like its surroundings is the table's own pattern) and the frame's honesty (a
runner-up window nearly as good, or artwork just outside the frame, means the frame may be misplaced).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from kingdomino.board import GRID_SIZES
from scanner.geometry import apply_homography, frame_homography, moved_frame
from scanner.locate.border import nearest_distance, palette, table_lab
from scanner.locate.refine import SMEARED, frame_sharpness, refine
from scanner.locate.settings import LocatorSettings

CELL_PX = 24  # rectified side of a cell when it is described
MARGIN_PX = 4  # trimmed off each side of a cell: seams and gaps stay out of its description
REACH = 3  # rings of cells described around the frame: a window moved by 2 squares keeps its own ring


@dataclass(frozen=True)
class Placement:
    """The best window found on a frame's lattice, and how sure that is."""

    rows: int  # offset of the window, in squares, from the frame it was looked for around (or moved from)
    cols: int
    size: int
    score: float  # artwork squares unlike the window's ring, less squares like it (not holes), tiles outside
    table_share: float  # share of the window's squares like its ring, holes aside (the table's own pattern)
    runner_up: float  # best score of a rival window, per square times this one's squares (-inf: none)
    artwork_outside: int  # ring cells unlike the ring's consensus lying just outside the window
    #: the frame's own ``tile_cells`` when the window is the frame itself (not moved, its size), else None:
    #: the judge's seam count reuses them instead of describing the same frame again
    tiles: np.ndarray | None = field(default=None, compare=False)

    @property
    def moved(self) -> bool:
        return (self.rows, self.cols) != (0, 0)

    @property
    def margin(self) -> float:
        """How much more the window scores than the runner-up window of the lattice, per side."""
        return (self.score - self.runner_up) / self.size

    def runner_up_close(self, settings: LocatorSettings) -> bool:
        """Whether another window of the lattice scores within ``unsure_placement_margin`` per side."""
        return self.margin < settings.unsure_placement_margin


def describe_cells(
    image: np.ndarray, grid_to_image: np.ndarray, n: int, settings: LocatorSettings
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cells, cells, 4) descriptors of the frame and ``REACH`` rings around it (lightness weighed half, a,
    b, spread of lightness), and (cells, cells) how much each is artwork (the share of its pixels unlike the
    table, ``artwork_cells``; none for a plain cell) and whether it lies wholly inside the photo."""
    cells = n + 2 * REACH
    around = moved_frame(grid_to_image, -REACH, -REACH)
    to_rect = np.diag([CELL_PX, CELL_PX, 1.0]) @ np.linalg.inv(around)
    rect = cv2.warpPerspective(image, to_rect, (cells * CELL_PX, cells * CELL_PX), flags=cv2.INTER_AREA)
    lab = table_lab(rect).reshape(cells, CELL_PX, cells, CELL_PX, 3)
    middle = lab[:, MARGIN_PX:-MARGIN_PX, :, MARGIN_PX:-MARGIN_PX].transpose(0, 2, 1, 3, 4)
    middle = middle.reshape(cells, cells, -1, 3)
    spread = middle[..., 0].std(axis=2) * 2  # table_lab halves lightness: its spread is in full units
    descriptors = np.concatenate([_cell_means(middle), spread[..., None]], axis=2)
    height, width = image.shape[:2]
    grid = np.stack(np.meshgrid(np.arange(cells + 1), np.arange(cells + 1)), axis=-1).reshape(-1, 2)
    points = apply_homography(around, grid.astype(float)).reshape(cells + 1, cells + 1, 2)
    ok = (
        (points[..., 0] >= 0) & (points[..., 0] <= width) & (points[..., 1] >= 0) & (points[..., 1] <= height)
    )
    ok &= np.isfinite(points).all(axis=2)
    inside = ok[:-1, :-1] & ok[1:, :-1] & ok[:-1, 1:] & ok[1:, 1:]
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gradient = np.hypot(
        cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    )
    cut = gradient.reshape(cells, CELL_PX, cells, CELL_PX)[:, MARGIN_PX:-MARGIN_PX, :, MARGIN_PX:-MARGIN_PX]
    # printed artwork is textured all over a square's middle: a plain cell is no artwork (a placemat or a
    # plain cloth around the kingdom, in colours the table farther out lacks)
    textured = (
        np.median(cut.transpose(0, 2, 1, 3).reshape(cells, cells, -1), axis=2) / 8 > settings.texture_gradient
    )
    unlike = artwork_cells(middle, inside, settings)
    return descriptors, np.where(textured, unlike, 0.0), inside


def _cell_means(middle: np.ndarray) -> np.ndarray:
    """``middle.mean(axis=2)`` of the cells' table-Lab pixels, to the bit, a channel at a time: numpy's mean
    over an inner axis with three channels after it is much slower. The pixels are halves and whole
    numbers under 256, so every sum of a cell's pixels is exact in float32 whatever the order; the
    division is numpy's (in float64, then rounded to float32)."""
    sums = np.stack([middle[..., k].sum(axis=2) for k in range(middle.shape[-1])], axis=-1)
    return (sums.astype(np.float64) / middle.shape[2]).astype(middle.dtype)


def artwork_cells(middle: np.ndarray, inside: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """How much each described cell (its middle's Lab pixels, (cells, cells, pixels, 3)) is printed artwork:
    the share of its pixels in colours the table lacks (a tile: most of them). The table's colours are
    those of the outermost ring described, beyond every window looked at. A mat's cells with their lines,
    a checkered cloth's checks cut across by the lattice at another pitch: each mixes the table's own
    colours, and none is a tile, however textured or unlike its neighbours; a tile's artwork is in colours
    of its own."""
    outer = np.zeros(inside.shape, bool)
    outer[[0, -1], :] = outer[:, [0, -1]] = True
    outer &= inside
    if outer.sum() < settings.min_ring_cells:  # too little table in view to say: every cell may be a tile
        return np.ones(inside.shape)
    colours = palette(middle[outer].reshape(-1, 3), settings.table_palette)
    return (nearest_distance(middle, colours) > settings.table_distance).mean(axis=2)


def cell_distances(descriptors: np.ndarray) -> np.ndarray:
    """Distance between the descriptors of every two described cells, (cells², cells²) in row-major order."""
    flat = descriptors.reshape(-1, descriptors.shape[-1])
    # ``np.linalg.norm(flat[:, None] - flat, axis=2)`` to the bit (the squares summed in the same order), a
    # descriptor at a time: numpy's sum over a last axis of four is much slower
    squared = None
    for k in range(flat.shape[1]):
        step = flat[:, None, k] - flat[None, :, k]
        step *= step
        squared = step if squared is None else np.add(squared, step, out=squared)
    return np.sqrt(squared)


def alike_cells(descriptors: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """Which two described cells look alike (``cell_distances`` under ``ring_distance``), 1.0 or 0.0, so that
    a window's counts of look-alikes in its ring are one product (exact: small whole numbers)."""
    return (cell_distances(descriptors) < settings.ring_distance).astype(np.float64)


def table_like(
    descriptors: np.ndarray,
    artwork: np.ndarray,
    inside: np.ndarray,
    window: tuple,
    settings: LocatorSettings,
    alike: np.ndarray | None = None,
):
    """For a window (top, left, size) of the described cells: which of its cells look like its ring (the
    table around it), and which of its ring cells are artwork and unlike the ring's consensus (tiles);
    None when too little of the ring is in the photo to say. ``alike``: ``alike_cells`` if made."""
    top, left, size = window
    cells = descriptors.shape[0]
    ring = np.zeros((cells, cells), bool)
    ring[max(top - 1, 0) : top + size + 1, max(left - 1, 0) : left + size + 1] = True
    ring[top : top + size, left : left + size] = False
    ring &= inside
    count = int(ring.sum())
    if count < settings.min_ring_cells:
        return None
    alike = alike_cells(descriptors, settings) if alike is None else alike
    needed = max(2, int(np.ceil(settings.ring_consensus * count)))
    block = (np.arange(top, top + size)[:, None] * cells + np.arange(left, left + size)).ravel()
    in_ring = ring.ravel().astype(np.float64)
    like = (alike[block] @ in_ring >= needed).reshape(size, size)
    # a ring cell few others resemble: a tile, not the table
    lone = alike[ring.ravel()] @ in_ring - 1 < needed
    return like, lone & (artwork[ring] > settings.artwork_unlike)


def table_cells(
    image: np.ndarray,
    grid_to_image: np.ndarray,
    n: int,
    settings: LocatorSettings,
    described: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> np.ndarray | None:
    """Which of the frame's squares show the table ((n, n) booleans: they look like its ring, as
    ``table_like`` says: a hole in the kingdom); None when too little of the ring is in the photo to say.
    ``described``: the frame's ``describe_cells``, when already made."""
    if described is None:
        described = describe_cells(image, grid_to_image, n, settings)
    descriptors, artwork, inside = described
    judged = table_like(descriptors, artwork, inside, (REACH, REACH, n), settings)
    return None if judged is None else judged[0]


def tile_cells(image: np.ndarray, grid_to_image: np.ndarray, n: int, settings: LocatorSettings) -> np.ndarray:
    """Which of the frame's squares are printed artwork ((n, n) booleans: textured, most of their pixels
    in colours the table around the frame lacks, as ``describe_cells`` says): the squares whose sides
    are the kingdom's seams."""
    _, artwork, _ = describe_cells(image, grid_to_image, n, settings)
    return _own_tiles(artwork, n, settings)


def _own_tiles(artwork: np.ndarray, n: int, settings: LocatorSettings) -> np.ndarray:
    """The artwork cells among the frame's own (n, n) squares, out of the described cells' ring around it."""
    return artwork[REACH : REACH + n, REACH : REACH + n] > settings.artwork_unlike


def place(
    image: np.ndarray,
    grid_to_image: np.ndarray,
    n: int,
    sizes: tuple[int, ...],
    settings: LocatorSettings,
    described: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> Placement | None:
    """The best window of ``sizes`` on the frame's lattice within ``settings.max_shift`` squares of it
    (None when no window can be judged: too little table in view, a cropped board). ``described``: the
    frame's ``describe_cells``, when already made (it does not depend on ``max_shift``)."""
    if described is None:
        described = describe_cells(image, grid_to_image, n, settings)
    descriptors, artwork_cell, inside = described
    cells = descriptors.shape[0]
    alike = alike_cells(descriptors, settings)  # once: every window's ring is among these cells
    tiles = artwork_cell > settings.artwork_unlike  # cells of printed artwork, whichever window holds them
    scored = []
    for size in sizes:
        for top in range(cells - size + 1):
            for left in range(cells - size + 1):
                rows, cols = top - REACH, left - REACH
                if max(abs(rows), abs(cols), abs(rows + size - n), abs(cols + size - n)) > settings.max_shift:
                    continue
                if min(top, left) < 1 or max(top, left) + size >= cells:
                    continue  # its ring is not all described
                if not inside[top : top + size, left : left + size].all():
                    continue
                judged = table_like(descriptors, artwork_cell, inside, (top, left, size), settings, alike)
                if judged is None:
                    continue
                like, lone = judged
                block = (slice(top, top + size), slice(left, left + size))
                # a square like the ring with the window's tiles on all four sides of it on the lattice is a
                # hole in the kingdom (a lifted domino, a dark square in the table's colours), not the table
                hole = like & (enclosed(~like & tiles[block]) if settings.enclosed_holes else False)
                # a square wholly in colours the table lacks counts 1, a mat's or a cloth's cell about 0, a
                # cell of the table's pattern -1 and a hole nothing
                artwork = np.where(like, np.where(hole, 0.0, -1.0), artwork_cell[block])
                score = float(artwork.sum() - lone.sum())
                held = np.zeros_like(tiles)  # its tiles: artwork cells unlike its ring
                held[block] = ~like & tiles[block]
                share = float((like & ~hole).mean())
                scored.append((score, rows, cols, size, share, int(lone.sum()), held))
    if not scored:
        return None
    # windows of both sizes compete per square: a 7×7 wins over the 5×5 inside it only when the ring it
    # adds is as much the kingdom's artwork as the 5×5 is (not the neighbour's tiles and the table's checks)
    best = max(scored, key=lambda s: (s[0] / s[3] ** 2, -abs(s[1]) - abs(s[2]), s[3] == n))
    score, rows, cols, size, share, outside, held = best
    # a window holding the same tiles is the same kingdom with its empty edge row or column on the other
    # side, no rival, when the tiles fill the window but for that row or column: the reading places it
    # (docs/experiments.md); tiles spanning less are a frame larger than the kingdom, a lattice not its own
    same = _short_by_one_edge(held, size)
    # a window of its size holding only some of its tiles is the same kingdom cut by its edge, no rival: a
    # rival holds artwork this window leaves out (docs/experiments.md, "A rival window holds artwork the
    # chosen one leaves out"); a window of the other size stays one (whether the ring is kingdom is open)
    others = [
        s[0] / s[3] ** 2
        for s in scored
        if s is not best
        and (s[3] != size or (s[6] & ~held).any() or (not same and np.array_equal(s[6], held)))
    ]
    runner_up = max(others, default=-np.inf) * size**2  # in the best window's units
    own = _own_tiles(artwork_cell, n, settings) if (rows, cols, size) == (0, 0, n) else None
    return Placement(rows, cols, size, score, share, runner_up, outside, own)


def enclosed(tiles: np.ndarray) -> np.ndarray:
    """Which cells of a window have one of its tiles (booleans) to their left and to their right in their
    row, and above and below in their column: a gap a kingdom's tiles close in on every side."""
    left = np.logical_or.accumulate(tiles, axis=1)
    right = np.logical_or.accumulate(tiles[:, ::-1], axis=1)[:, ::-1]
    above = np.logical_or.accumulate(tiles, axis=0)
    below = np.logical_or.accumulate(tiles[::-1], axis=0)[::-1]
    return left & right & above & below & ~tiles


def _short_by_one_edge(held: np.ndarray, size: int) -> bool:
    """Whether tiles (a boolean map of cells) span ``size`` cells one way, ``size`` or one less the other."""
    rows, cols = np.flatnonzero(held.any(axis=1)), np.flatnonzero(held.any(axis=0))
    if not len(rows):
        return False
    spans = sorted((rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1))
    return spans[1] == size and spans[0] >= size - 1


def placed_frame(
    work: np.ndarray,
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    grid: int | str,
    settings: LocatorSettings,
    described: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, int, Placement | None]:
    """The frame moved and sized onto the best window of its lattice (see ``place``) and refitted to the
    seams there: (grid -> work homography, N, the placement; None when it could not be judged). A refit
    that slides a whole square (onto a mat's lines beside the kingdom) is placed once more, unrefined.
    ``described``: the frame's ``describe_cells`` on ``work``, when already made."""
    # a frame shrinks or moves here; growing a 5×5 to 7×7 also needs the ring's seams (scanner.locate.grow)
    sizes = tuple(size for size in GRID_SIZES if size <= n) if grid == "auto" else (int(grid),)
    placement = place(work, grid_to_work, n, sizes, settings, described)
    if placement is None or (not placement.moved and placement.size == n):
        return grid_to_work, n, placement
    moved = moved_frame(grid_to_work, placement.rows, placement.cols)
    refitted = moved
    for _ in range(2):
        refitted = refine(gray, refitted, placement.size, settings.refine_cell_px)
    again = place(work, refitted, placement.size, sizes, settings)
    if again is None:
        return moved, placement.size, placement
    if again.moved or again.size != placement.size:
        return moved_frame(refitted, again.rows, again.cols), again.size, again
    return refitted, again.size, again


def fit_outline(
    image: np.ndarray,
    grid_to_image: np.ndarray,
    n: int,
    settings: LocatorSettings,
    gray: np.ndarray | None = None,
) -> np.ndarray:
    """The frame's four sides moved (less than half a square) onto the edge where the artwork stops and the
    table begins: a mat's or a cloth's lines beside the kingdom pull the seam fit out of phase with it.

    Each side's profile across it is the share of pixels unlike the table (the colours of the outer half of
    the ring around the frame); a side moves to the sharpest step of that profile, and only when the step
    is clear (``outline_step``). A family of sides that motion blur smears (``refine.frame_sharpness``, as
    the frame fit skips it) stays where its seams put it. ``gray``: the photo's grey copy, if made."""
    cell = CELL_PX
    side = (n + 2) * cell
    to_rect = np.array([[cell, 0, cell], [0, cell, cell], [0, 0, 1.0]]) @ np.linalg.inv(grid_to_image)
    rect = cv2.warpPerspective(
        image, to_rect, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT
    )
    lab = table_lab(rect)
    band = np.ones((side, side), bool)
    band[cell // 2 : -cell // 2, cell // 2 : -cell // 2] = False  # the outer half of the ring
    colours = palette(lab[band], settings.ring_palette)
    unlike = nearest_distance(lab, colours) > settings.ring_distance
    reach = int(settings.outline_reach * cell)
    width = max(2, cell // 3)
    span = slice(cell + cell // 2, side - cell - cell // 2)  # along the side, its corners left out
    # profiles from outside in: top, left, bottom, right
    profiles = [
        unlike[:, span].mean(axis=1),
        unlike[span, :].mean(axis=0),
        unlike[::-1, span].mean(axis=1),
        unlike[span, ::-1].mean(axis=0),
    ]
    moves = []
    for profile in profiles:
        best, move = settings.outline_step, 0
        for shift in range(-reach, reach + 1):
            at = cell + shift  # the side's line, from the outside
            step = profile[at : at + width].mean() - profile[at - width : at].mean()
            if step > best + 1e-9 or (abs(step - best) < 1e-9 and abs(shift) < abs(move)):
                best, move = step, shift
        moves.append(move / cell)
    top, left, bottom, right = moves
    # motion blur spreads the artwork's colours along its motion: the sides across it keep their seams' place
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if gray is None else gray
    sharp_rows, sharp_cols = frame_sharpness(gray, grid_to_image, n)
    if sharp_rows < SMEARED:
        top = bottom = 0.0
    if sharp_cols < SMEARED:
        left = right = 0.0
    corners = [[left, top], [n - right, top], [n - right, n - bottom], [left, n - bottom]]
    return grid_to_image @ frame_homography(np.array(corners), n)
