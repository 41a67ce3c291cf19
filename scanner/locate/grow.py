"""Growing a 5×5 frame to the Mighty Duel 7×7 kingdom it may be the middle of.

The outer squares of a 7×7 kingdom can close fewer cells in the lattice fit (shadows, a castle model,
faint seams, motion blur) than its middle 5×5. The 5×5 is grown to the 7×7 around it on either of the two
kinds of evidence the judge weighs, and the 7×7 must then pass the judge:
- artwork and table: the placement on the 5×5's lattice (scanner.locate.placement) finds a 7×7 window
  around it more the kingdom, per square, than the 5×5 (its ring of 24 squares is artwork unlike the
  table, with the table around it);
- seams: the ring of 24 squares it adds is made of tiles (seams on the same lattice, squares closed on
  most sides) and does not look like the table around it.
A 7×7 grown by placement whose ring the seams would not have grown is returned unsure: a board or a cloth's
stripes beside a 5×5 kingdom can pass for a ring of artwork, but not for a ring of tiles. A ring whose cells
are one surface (far more alike one another than like the 5×5's squares: a board under the kingdom) is no
ring of tiles at all, and grows nothing by placement (docs/experiments.md, "a ring that is one surface").
A 7×7 kingdom continues its 5×5's own lattice. The seams growth screens its ring on that lattice before any
refit (its refit is not checked again). A 7×7 grown by placement whose refit moves the 5×5's squares
(``grow_max_drift``) must show its ring's seams on the 5×5's lattice as the screen does: else the refit has
fitted another lattice (a cloth's checks, loose dominoes beside the kingdom), the ring it closes is not the
kingdom's, and the growth by placement is refused (the seams growth is tried next; docs/experiments.md, "A
grown 7×7 keeps the 5×5 it grew from").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from kingdomino.board import GRID_SIZES
from scanner.geometry import frame_corners, moved_frame, square_px
from scanner.locate.judge import beyond_image, judge_content, judge_geometry
from scanner.locate.placement import REACH, describe_cells, place
from scanner.locate.refine import refine, seam_support, side_hits
from scanner.locate.settings import LocatorSettings


@dataclass(frozen=True)
class Grown:
    """A 5×5 frame grown to the 7×7 kingdom it lies in."""

    homography: np.ndarray  # grid -> work of the 7×7
    unsure: bool  # its ring holds fewer seams than the growth by seams asks: it may be the table beside a 5×5


def grow_to_seven(
    work: np.ndarray,
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    grayscale: bool,
    settings: LocatorSettings,
    table: np.ndarray | None = None,
    described: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> Grown | None:
    """The 7×7 kingdom a 5×5 frame lies in, or None if it is a 5×5 kingdom. ``table``: the table's
    colours, as the judge takes them (None: no table in view, seams alone tell); ``described``: the 5×5
    frame's ``placement.describe_cells`` on ``work``, when already made."""
    if table is not None and not grayscale:
        grown = _grown_by_placement(work, gray, grid_to_work, settings, table, described)
        if grown is not None:
            return grown
    grown = _grown_by_seams(work, gray, grid_to_work, grayscale, settings, table)
    return None if grown is None else Grown(grown, unsure=False)


def ring_sides(gray: np.ndarray, grown: np.ndarray, row: int, col: int) -> np.ndarray:
    """Sides on a seam (0-4) of each of the 24 squares a 7×7 frame adds around the 5×5 starting at its
    square (row, col)."""
    return _ring_sides(*side_hits(gray, grown, 7), row, col)


def growth_drift(five: np.ndarray, grown: np.ndarray, row: int, col: int) -> float:
    """How far (squares, the worst corner) a 7×7 frame's 5×5 starting at its square (row, col) lies from the
    5×5 frame it was grown from: a refit on the kingdom's own lattice leaves it in place."""
    before = frame_corners(five, 5)
    after = frame_corners(moved_frame(grown, row, col), 5)
    return float(np.linalg.norm(before - after, axis=1).max() / square_px(before, 5))


def _ring_sides(across: np.ndarray, along: np.ndarray, row: int, col: int) -> np.ndarray:
    """Sides on a seam per square of a 7×7 window whose inner 5×5 starts at (row, col)."""
    sides = across[:-1].astype(int) + across[1:] + along[:-1].T + along[1:].T
    ring = np.ones(sides.shape, bool)
    ring[row : row + 5, col : col + 5] = False
    return sides[ring]


def _ring_of_tiles(sides: np.ndarray, settings: LocatorSettings) -> bool:
    """Whether a ring's sides show tiles: most sides on a seam and enough squares closed on three or four."""
    return sides.mean() / 4 >= settings.grow_ring and (sides >= 3).sum() >= settings.grow_closed


def _one_surface(descriptors: np.ndarray, rows: int, cols: int, settings: LocatorSettings) -> bool:
    """Whether the ring a 7×7 window (its top-left square at (rows, cols) from the 5×5's) adds around the 5×5
    is one surface: its cells (``describe_cells`` of the 5×5) far more alike one another than like the 5×5's
    squares. A board under a 5×5 kingdom, unlike the table farther out, passes for a ring of artwork; a
    Mighty Duel kingdom's outer squares differ from one another as much as from its middle (docs/
    experiments.md, "a ring that is one surface")."""
    block = descriptors[REACH + rows : REACH + rows + 7, REACH + cols : REACH + cols + 7]
    ring = np.ones((7, 7), bool)
    ring[-rows : 5 - rows, -cols : 5 - cols] = False
    cells = block[ring]
    middle = descriptors[REACH : REACH + 5, REACH : REACH + 5].reshape(-1, block.shape[-1])
    among = np.linalg.norm(cells[:, None] - cells, axis=2)[~np.eye(len(cells), dtype=bool)]
    across = np.linalg.norm(cells[:, None] - middle, axis=2)
    return bool(np.median(among) < settings.grow_ring_spread * np.median(across))


def _grown_by_placement(
    work: np.ndarray,
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    settings: LocatorSettings,
    table: np.ndarray,
    described: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> Grown | None:
    """The 7×7 window around the 5×5 that its lattice's placement prefers, refitted and judged; None when
    the placement keeps a 5×5, the refit moves the 5×5 off a ring without seams on its lattice, or the 7×7
    fails the judge. Unsure when its ring is no ring of tiles by the seams' own measure (docs/experiments.md,
    "A grown ring without seams is a doubt")."""
    described = describe_cells(work, grid_to_work, 5, settings) if described is None else described
    placement = place(work, grid_to_work, 5, GRID_SIZES, settings, described)
    if placement is None or placement.size != 7:
        return None
    if _one_surface(described[0], placement.rows, placement.cols, settings):
        return None
    window = moved_frame(grid_to_work, placement.rows, placement.cols)
    grown = window
    for cell in (settings.refine_cell_px, settings.fine_cell_px):
        grown = refine(gray, grown, 7, cell)
    # a refit that moves the 5×5 mends it only when the ring's seams lie on the 5×5's lattice already
    if growth_drift(grid_to_work, grown, -placement.rows, -placement.cols) > settings.grow_max_drift:
        if ring_sides(gray, window, -placement.rows, -placement.cols).mean() / 4 < settings.grow_screen:
            return None
    again = place(work, grown, 7, (7,), replace(settings, max_shift=0))  # the refit's own evidence
    if again is None:
        return None
    verdict = judge_geometry(gray, grown, 7, 1.0, settings, settings.min_seam_support, placement=again)
    if verdict.accepted:
        judge_content(work, grown, 7, False, settings, verdict, table)
    if not verdict.accepted:
        return None
    sure = _ring_of_tiles(ring_sides(gray, grown, -placement.rows, -placement.cols), settings)
    return Grown(grown, unsure=not sure)


def _grown_by_seams(
    work: np.ndarray,
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    grayscale: bool,
    settings: LocatorSettings,
    table: np.ndarray | None,
) -> np.ndarray | None:
    """The 7×7 around the 5×5 whose ring of squares is closed by seams on the same lattice, or None."""
    across, along = side_hits(gray, moved_frame(grid_to_work, -2, -2), 9)  # the 9×9 around the 5×5
    options = []
    for top in range(3):
        for left in range(3):
            window = (across[top : top + 8, left : left + 7], along[left : left + 8, top : top + 7])
            options.append((_ring_sides(*window, 2 - top, 2 - left).mean() / 4, top, left))
    screen, top, left = max(options)
    if screen < settings.grow_screen:
        return None
    grown = moved_frame(grid_to_work, top - 2, left - 2)
    if beyond_image(frame_corners(grown, 7), 7, gray.shape):
        return None  # not a kingdom seen whole
    for cell in (settings.refine_cell_px, settings.fine_cell_px):
        grown = refine(gray, grown, 7, cell)
    if not _ring_of_tiles(ring_sides(gray, grown, 2 - top, 2 - left), settings):
        return None
    if seam_support(gray, grown, 7) < settings.min_seam_support:
        return None
    if not judge_content(work, grown, 7, grayscale, settings, table=table).accepted:
        return None
    # seams around a 5×5 on a printed mat: the ring it adds must not look like the table around it
    ring = None if grayscale else place(work, grown, 7, (7,), replace(settings, max_shift=0))
    if ring is not None and ring.table_share >= settings.max_table_share:
        return None
    return grown
