"""Empty squares show the table: compare each square of a located kingdom with the table around it.

The square classifier sees one square at a time, and a plain cream or wooden table can look like wheat
to it (a blue one like a lake): on generated table scenes, nearly every misread square was an empty one
read so, often with high confidence. The photo itself holds the answer: the ring of cells just outside the
N×N frame shows the same table. A square whose mean colour and plain texture match that table (within
a few units of the nearest ring cell, or of the table's colour fitted across the ring, which follows a
lighting gradient) gets extra odds for *empty*, and a square far unlike it fewer (it cannot be a hole);
the classifier and the box rules still decide. The distance is CIE76 ΔE with the spread of lightness
inside the cell as a fourth coordinate: in a dark photo a lake square's mean colour can come within
3 ΔE of a dark table, its printed picture cannot.

Nothing is added when the ring cannot be trusted: the kingdom fills the photo (a cropped board), or
the ring does not agree on one colour (other kingdoms, the box or a hand around the frame).
"""

from __future__ import annotations

import cv2
import numpy as np
from scipy.ndimage import maximum_filter

from kingdomino.labels import EMPTY_LABEL
from scanner.geometry import apply_homography, moved_frame

#: Pixels per square of the small warp the colours are measured on (means only: no fine print needed).
CELL_PX = 40
#: Share of a cell trimmed on each side before its mean is taken: seams, gaps and overhanging
#: neighbours stay out.
CELL_MARGIN = 0.2
#: Ring cells within this CIE76 ΔE of the ring's median colour are taken as table.
TABLE_CONSENSUS = 20.0
#: At least this many ring cells, and half of those in the photo, must agree before the table is used.
MIN_TABLE_CELLS = 4
#: A square this close to the table gets the full evidence, none from UNLIKE_TABLE on, linear in
#: between; chosen on generated scenes (docs/experiments.md, "Comparing squares with the table").
SAME_AS_TABLE = 1.5
UNLIKE_TABLE = 8.0
#: Nats added to a table-like square's *empty* log-probability (odds × 3000): enough to overrule a
#: classifier that is fairly sure of wheat, and the box rules' cost of a domino left without its other
#: half, not a classifier that is sure of a forest.
TABLE_EVIDENCE = 8.0
#: The other way round: a square this unlike the table is not an empty square showing it, and loses
#: up to AGAINST_TABLE nats of *empty*, none at NOT_TABLE, all from SURELY_NOT_TABLE on, so that a plain
#: wheat square without a domino partner is not read as a hole (docs/experiments.md, "Evidence against
#: *empty* for squares far unlike the table").
NOT_TABLE = 20.0
SURELY_NOT_TABLE = 30.0
AGAINST_TABLE = 4.0


def cell_lab(image: np.ndarray, grid_to_image: np.ndarray, grid_size: int) -> np.ndarray:
    """(N+2, px, N+2, px, 3) CIE Lab of the trimmed centre of every cell of the frame and its ring (row,
    y, column, x), from a small warp of the photo: what both comparisons with the table read, made once
    per frame by a caller that runs both (``table_distances`` and ``pattern_likeness`` take it)."""
    ring_frame = moved_frame(grid_to_image, -1, -1)
    cells = grid_size + 2
    to_warp = np.diag([CELL_PX, CELL_PX, 1.0]) @ np.linalg.inv(ring_frame)
    warped = cv2.warpPerspective(image, to_warp, (cells * CELL_PX, cells * CELL_PX), flags=cv2.INTER_LINEAR)
    lab = cv2.cvtColor(warped.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)
    margin = int(round(CELL_MARGIN * CELL_PX))
    return lab.reshape(cells, CELL_PX, cells, CELL_PX, 3)[:, margin:-margin, :, margin:-margin]


def _lab_stats(blocks: np.ndarray) -> np.ndarray:
    """(N+2, N+2, 4) mean CIE Lab (L 0-100) and the spread of L of the centre of every cell of the frame
    and its ring (``cell_lab``'s blocks). The spread tells a printed square from a plain table when a dark
    photo brings their mean colours close."""
    spread = blocks[..., 0].std(axis=(1, 3))
    return np.concatenate([blocks.mean(axis=(1, 3)), spread[..., None]], axis=-1)


def _ring_cells_in_photo(image_shape: tuple[int, ...], grid_to_image: np.ndarray, grid_size: int) -> list:
    """(row, col) in the (N+2)-frame of the ring cells lying wholly inside the photo."""
    height, width = image_shape[:2]
    last = grid_size + 1
    ring = [(r, c) for r in range(last + 1) for c in range(last + 1) if r in (0, last) or c in (0, last)]
    inside = []
    for row, col in ring:
        corners = [[col - 1, row - 1], [col, row - 1], [col, row], [col - 1, row]]
        points = apply_homography(grid_to_image, corners)
        if (points >= 0).all() and (points[:, 0] < width).all() and (points[:, 1] < height).all():
            inside.append((row, col))
    return inside


def table_in_view(image_shape: tuple[int, ...], grid_to_image: np.ndarray, grid_size: int) -> bool:
    """Whether enough of the frame's ring lies in the photo for either comparison with the table (a cropped
    board's does not)."""
    return len(_ring_cells_in_photo(image_shape, grid_to_image, grid_size)) >= MIN_TABLE_CELLS


def table_distances(
    image: np.ndarray, grid_to_image: np.ndarray, grid_size: int, lab: np.ndarray | None = None
) -> np.ndarray | None:
    """(N+2, N+2) distance of every cell of the frame and its ring from the table (NaN for a ring cell not
    wholly in the photo); None when no table is seen (too few ring cells in the photo, or they do not
    agree on one colour). ``lab``: the frame's ``cell_lab``, when already made."""
    ring = _ring_cells_in_photo(image.shape, grid_to_image, grid_size)
    if len(ring) < MIN_TABLE_CELLS:
        return None
    stats = _lab_stats(cell_lab(image, grid_to_image, grid_size) if lab is None else lab)
    rows, cols = np.array(ring).T
    ring_stats = stats[rows, cols]
    colours = ring_stats[:, :3]
    agree = np.linalg.norm(colours - np.median(colours, axis=0), axis=1) <= TABLE_CONSENSUS
    if agree.sum() < max(MIN_TABLE_CELLS, len(ring) / 2):
        return None
    table, table_rows, table_cols = ring_stats[agree], rows[agree], cols[agree]
    # the table's colour as a plane across the frame (a lighting gradient over the kingdom), its spread
    # the ring's median
    plane = np.linalg.lstsq(
        np.c_[np.ones(len(table_rows)), table_rows, table_cols], table[:, :3], rcond=None
    )[0]
    nearest = np.linalg.norm(stats[:, :, None, :] - table[None, None], axis=-1).min(axis=2)
    grid_rows, grid_cols = np.mgrid[0 : grid_size + 2, 0 : grid_size + 2]
    fitted = np.stack([np.ones_like(grid_rows), grid_rows, grid_cols], axis=-1) @ plane
    fitted = np.concatenate([fitted, np.full(fitted.shape[:2] + (1,), np.median(table[:, 3]))], axis=-1)
    distances = np.minimum(nearest, np.linalg.norm(stats - fitted, axis=-1))
    measured = np.zeros(distances.shape, dtype=bool)
    measured[1:-1, 1:-1] = True
    measured[rows, cols] = True
    distances[~measured] = np.nan
    return distances


def evidence_for_empty(distances: np.ndarray | None, grid_size: int) -> np.ndarray:
    """(N, N) nats to add to each square's *empty* log-probability from the frame's ``table_distances``:
    positive for a square that shows the table, negative for one far unlike it; all zero when no table
    is seen."""
    if distances is None:
        return np.zeros((grid_size, grid_size))
    squares = distances[1:-1, 1:-1]
    like = np.clip((UNLIKE_TABLE - squares) / (UNLIKE_TABLE - SAME_AS_TABLE), 0.0, 1.0)
    unlike = np.clip((squares - NOT_TABLE) / (SURELY_NOT_TABLE - NOT_TABLE), 0.0, 1.0)
    return TABLE_EVIDENCE * like - AGAINST_TABLE * unlike


def slide_for(distances: np.ndarray | None, grid_size: int) -> tuple[int, int]:
    """(rows, columns), each -1, 0 or 1, to move an N×N frame that sits one square off its kingdom, from
    the frame's ``table_distances`` ((0, 0) when no table is seen).

    A kingdom is at most N squares across, so a frame whose edge line shows the table while the line
    just outside its opposite edge is all tiles has slipped by one square (another kingdom beside it can
    pull the lattice search off by a square). At most one square of the edge line may be a tile (a
    corner of that other kingdom); every ring cell of the opposite line must lie in the photo and be
    unlike the table.
    """
    if distances is None:
        return (0, 0)
    with np.errstate(invalid="ignore"):  # NaN (a ring cell outside the photo) is neither
        table_like = distances <= UNLIKE_TABLE
        tile_like = distances > UNLIKE_TABLE
    return (
        _slide(table_like, tile_like, grid_size),
        _slide(table_like.T, tile_like.T, grid_size),
    )


def _slide(table_like: np.ndarray, tile_like: np.ndarray, grid_size: int) -> int:
    """slide_for along the first axis of the (N+2, N+2) maps: +1 moves the frame a row down."""
    inner = slice(1, grid_size + 1)
    if table_like[1, inner].sum() >= grid_size - 1 and tile_like[grid_size + 1, inner].all():
        return 1
    if table_like[grid_size, inner].sum() >= grid_size - 1 and tile_like[0, inner].all():
        return -1
    return 0


def weigh_empty(probabilities: np.ndarray, evidence: np.ndarray) -> np.ndarray:
    """(N, N, labels) probabilities with each square's *empty* odds multiplied by e^evidence."""
    weighed = np.array(probabilities, dtype=float)
    weighed[..., EMPTY_LABEL] *= np.exp(evidence)
    return weighed / weighed.sum(axis=-1, keepdims=True)


# --- the table's pattern ------------------------------------------------------------------------------
#: Size (CIE Lab units) of the colour bins a cell's colours are counted in; a and b are clipped to
#: +-A_B_RANGE. Each histogram is widened by one bin each way, as the light changes across the table.
COLOUR_BIN = 10.0
A_B_RANGE = 80.0
#: Ring cells whose colours overlap the ring's pooled colours less than this share of the median ring
#: cell's overlap are left out of the table (a tile, the box or a hand in the ring).
RING_AGREEMENT = 0.8
#: A square whose colour histogram overlaps the table's (pooled, or one ring cell's) by LIKE_PATTERN
#: shows the table's pattern (full evidence from SAME_PATTERN on); one under UNLIKE_PATTERN shows none
#: of it. Chosen between the overlaps of empty squares and of tiles on generated scenes and cloths: a
#: hole in a cloth shows only part of its print, and tiles rarely reach LIKE_PATTERN (docs/experiments.md,
#: "Empty means the table" and "Reading small kingdoms and holes in cloths").
LIKE_PATTERN = 0.8
SAME_PATTERN = 0.95
UNLIKE_PATTERN = 0.3
#: Extra nats for a square both comparisons call the table (its mean colour and its colours'
#: proportions): a classifier sure of a lake in a hole of a blue table is overruled, while a tile
#: matching the table both ways is far rarer than one matching either.
BOTH_BONUS = 4.0


def _colour_histograms(lab: np.ndarray) -> np.ndarray:
    """(N+2, N+2, bins) widened colour histogram of the trimmed centre of every cell of the frame and
    its ring (``cell_lab``'s blocks), each summing to 1."""
    cells = lab.shape[0]
    blocks = lab.transpose(0, 2, 1, 3, 4)
    l_levels = int(np.ceil(100 / COLOUR_BIN)) + 1
    ab_levels = int(np.ceil(2 * A_B_RANGE / COLOUR_BIN)) + 1
    l_bin = np.clip(blocks[..., 0] / COLOUR_BIN, 0, l_levels - 1).astype(np.int32)
    a_bin = np.clip((blocks[..., 1] + A_B_RANGE) / COLOUR_BIN, 0, ab_levels - 1).astype(np.int32)
    b_bin = np.clip((blocks[..., 2] + A_B_RANGE) / COLOUR_BIN, 0, ab_levels - 1).astype(np.int32)
    bins = l_levels * ab_levels * ab_levels
    flat = ((l_bin * ab_levels + a_bin) * ab_levels + b_bin).reshape(cells * cells, -1)
    offsets = np.arange(cells * cells)[:, None] * bins
    counts = np.bincount((flat + offsets).ravel(), minlength=cells * cells * bins).astype(np.float32)
    counts = counts.reshape(cells, cells, l_levels, ab_levels, ab_levels)
    widened = maximum_filter(counts, size=(1, 1, 3, 3, 3)).reshape(cells, cells, bins)
    return widened / widened.sum(axis=-1, keepdims=True)


def pattern_likeness(
    image: np.ndarray, grid_to_image: np.ndarray, grid_size: int, lab: np.ndarray | None = None
) -> np.ndarray | None:
    """(N, N) overlap of each square's colour histogram with the table's (the pooled ring, or the ring
    cell it matches best): the same colours in the same proportions, a patterned cloth included.
    None when too few ring cells lie in the photo. ``lab``: the frame's ``cell_lab``, when already made."""
    ring = _ring_cells_in_photo(image.shape, grid_to_image, grid_size)
    if len(ring) < MIN_TABLE_CELLS:
        return None
    histograms = _colour_histograms(cell_lab(image, grid_to_image, grid_size) if lab is None else lab)
    return _likeness_to_ring(histograms, ring)


def _squares_and_table(histograms: np.ndarray, ring: list) -> tuple[np.ndarray, np.ndarray]:
    """The (N, N, bins) histograms of the squares and the (cells, bins) ones of the ``ring`` cells that
    agree with the ring's pooled histogram (the table), of the (N+2, N+2, bins) ``histograms``."""
    rows, cols = np.array(ring).T
    ring_histograms = histograms[rows, cols]
    overlap = np.minimum(ring_histograms, ring_histograms.mean(axis=0)).sum(axis=-1)
    return histograms[1:-1, 1:-1], ring_histograms[overlap >= RING_AGREEMENT * np.median(overlap)]


def _likeness_to_ring(histograms: np.ndarray, ring: list) -> np.ndarray:
    """(N, N) overlap of each square's histogram (of the (N+2, N+2, bins) ``histograms``) with the table's:
    the pooled histogram of the ``ring`` cells that agree with it, or the one of them it matches best."""
    squares, table = _squares_and_table(histograms, ring)
    pooled = np.minimum(squares, table.mean(axis=0)).sum(axis=-1)
    best = np.minimum(squares[:, :, None], table[None, None]).sum(axis=-1).max(axis=-1)
    return np.maximum(pooled, best)


def pattern_evidence(likeness: np.ndarray | None, grid_size: int) -> np.ndarray:
    """(N, N) nats for *empty* from ``pattern_likeness``: up to TABLE_EVIDENCE for a square in the
    table's colours, down to -AGAINST_TABLE for one with hardly any of them."""
    if likeness is None:
        return np.zeros((grid_size, grid_size))
    like = np.clip((likeness - LIKE_PATTERN) / (SAME_PATTERN - LIKE_PATTERN), 0.0, 1.0)
    unlike = np.clip((UNLIKE_PATTERN - likeness) / UNLIKE_PATTERN, 0.0, 1.0)
    return TABLE_EVIDENCE * like - AGAINST_TABLE * unlike


# --- the table's pattern in any shade ----------------------------------------------------------------
#: The third comparison counts each cell's pixels by their colour's proportions r = R/(R+G+B) and
#: g = G/(R+G+B) in bins of PROPORTION_BIN, and by their log lightness less the cell's own mean in bins
#: of SHADE_BIN clipped to +-SHADE_RANGE: a hole in the shade of its kingdom, a lamp or the photographer
#: keeps these as the lit table has them, as it keeps neither its mean colour nor its Lab histogram.
PROPORTION_BIN = 0.02
SHADE_BIN = 0.1
SHADE_RANGE = 1.0
#: A square whose shade-free histogram overlaps the table's by SHADED_LIKE gets evidence for *empty*,
#: TABLE_EVIDENCE from SHADED_SAME on, linear in between; never any against (a tile in the table's
#: colours is left to the other two comparisons). docs/experiments.md, "A third comparison with the
#: table, by colour proportions".
SHADED_LIKE = 0.6
SHADED_SAME = 0.8


def _shade_free_histograms(lab: np.ndarray) -> np.ndarray:
    """(N+2, N+2, bins) widened histogram of every cell's colour proportions and relative log lightness
    (``cell_lab``'s blocks), each summing to 1, over the bins some cell fills only: a photo's pixels spread
    over many of the bins, one cell's over few, so the histograms are made from each cell's filled bins."""
    cells, side = lab.shape[0], lab.shape[1]
    blocks = np.ascontiguousarray(lab.transpose(0, 2, 1, 3, 4), dtype=np.float32)
    bgr = cv2.cvtColor(blocks.reshape(-1, side, 3), cv2.COLOR_Lab2BGR).reshape(cells * cells, -1, 3)
    bgr = np.maximum(bgr, 0.0) + 1.0 / 255  # a black pixel has some colour and lightness
    total = bgr.sum(axis=-1)
    red = (bgr[..., 2] / total / PROPORTION_BIN).astype(np.int64)
    green = (bgr[..., 1] / total / PROPORTION_BIN).astype(np.int64)
    shade = np.log(total)
    shade = np.clip((shade - shade.mean(axis=-1, keepdims=True) + SHADE_RANGE) / SHADE_BIN, 0, None)
    levels = int(round(2 * SHADE_RANGE / SHADE_BIN))
    shade = np.minimum(shade.astype(np.int64), levels - 1)
    # bins in a box one bin wider than the filled one each way, so that every neighbour has a number
    red, green, shade = red - red.min() + 1, green - green.min() + 1, shade + 1
    greens, depth = int(green.max()) + 2, levels + 2
    bins = (int(red.max()) + 2) * greens * depth
    cell = np.arange(cells * cells)[:, None]
    filled, counts = np.unique(
        (cell * bins + (red * greens + green) * depth + shade).ravel(), return_counts=True
    )
    offsets = np.array([(dr, dg, ds) for dr in (-1, 0, 1) for dg in (-1, 0, 1) for ds in (-1, 0, 1)])
    steps = (offsets[:, 0] * greens + offsets[:, 1]) * depth + offsets[:, 2]
    lightness = filled[:, None] % depth + offsets[:, 2]
    inside = (lightness >= 1) & (lightness <= levels)  # the lightness axis ends where its bins do
    keys = (filled[:, None] + steps)[inside]
    # each bin keeps the largest count among its neighbours: the last of its run, sorted by bin and count
    width = int(counts.max()).bit_length()
    coded = np.sort((keys << width) + np.broadcast_to(counts[:, None], inside.shape)[inside])
    keys = coded >> width
    last = np.r_[keys[1:] != keys[:-1], True]
    dense = np.zeros(cells * cells * bins, np.float32)
    dense[keys[last]] = coded[last] & ((1 << width) - 1)
    dense = dense.reshape(cells * cells, bins)
    widened = dense[:, dense.any(axis=0)]
    return (widened / widened.sum(axis=-1, keepdims=True)).reshape(cells, cells, -1)


def shade_free_likeness(
    image: np.ndarray, grid_to_image: np.ndarray, grid_size: int, lab: np.ndarray | None = None
) -> np.ndarray | None:
    """(N, N) overlap of each square's histogram of colour proportions and relative lightness with the
    table's, as ``pattern_likeness`` does with colours: a uniform shade over a square changes neither.
    None when too few ring cells lie in the photo. ``lab``: the frame's ``cell_lab``, when already made."""
    ring = _ring_cells_in_photo(image.shape, grid_to_image, grid_size)
    if len(ring) < MIN_TABLE_CELLS:
        return None
    lab = cell_lab(image, grid_to_image, grid_size) if lab is None else lab
    squares, table = _squares_and_table(_shade_free_histograms(lab), ring)
    likeness = np.minimum(squares, table.mean(axis=0)).sum(axis=-1)  # the pooled table
    for row, col in np.ndindex(grid_size, grid_size):  # the ring cell it matches best, over its own bins
        filled = np.flatnonzero(squares[row, col])
        best = np.minimum(squares[row, col, filled], table[:, filled]).sum(axis=-1).max()
        likeness[row, col] = max(likeness[row, col], best)
    return likeness


def shade_free_evidence(likeness: np.ndarray | None, grid_size: int) -> np.ndarray:
    """(N, N) nats for *empty* from ``shade_free_likeness``: none under SHADED_LIKE, up to TABLE_EVIDENCE
    from SHADED_SAME on; never negative."""
    if likeness is None:
        return np.zeros((grid_size, grid_size))
    return TABLE_EVIDENCE * np.clip((likeness - SHADED_LIKE) / (SHADED_SAME - SHADED_LIKE), 0.0, 1.0)


def _added(one: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Two comparisons' evidence (nats, the same sign) added up: the stronger, and BOTH_BONUS for the
    weaker in proportion to full evidence."""
    return np.maximum(one, other) + BOTH_BONUS * np.minimum(one, other) / TABLE_EVIDENCE


def combined_evidence(
    colour: np.ndarray, pattern: np.ndarray | None, shade_free: np.ndarray | None = None
) -> np.ndarray:
    """(N, N) nats for *empty* from the table's mean colour (evidence_for_empty), its pattern and its
    pattern in any shade (shade_free_evidence, never negative): for empty when any says the square shows
    the table, against only when the first two both say it does not, the two adding up either way (the
    pattern alone, on a cloth whose colours do not agree on one mean, only ever adds). The two histogram
    comparisons see the same colours, so only the stronger of them counts."""
    if pattern is None:  # no ring to compare with: neither histogram comparison was made
        return colour
    if shade_free is not None:
        # only where the mean colour does not call the square the table: a shade fools both it and the
        # pattern, while a lit square is judged better by the pattern, which keeps its lightness (a
        # blurred wheat tile on a white table has the table's proportions); the pattern's own evidence
        # against stays where the shade adds none
        shaded = (colour <= 0.0) & (shade_free > np.maximum(pattern, 0.0))
        pattern = np.where(shaded, shade_free, pattern)
    if not colour.any():
        return np.maximum(pattern, 0.0)
    positive = _added(np.maximum(colour, 0.0), np.maximum(pattern, 0.0))
    # against empty only when both say not the table; then, as for, the two add up: a square unlike
    # the table's mean colour and its colours alike is a tile more surely than one unlike either
    colour_against, pattern_against = np.maximum(-colour, 0.0), np.maximum(-pattern, 0.0)
    both_against = (colour_against > 0) & (pattern_against > 0)
    negative = np.where(both_against, -_added(colour_against, pattern_against), 0.0)
    return np.where(positive > 0, positive, negative)
