"""Searching one view of the photo for candidate frames: the candidate generators.

A view is an image the lattice is looked for in: the photo itself, an enlarged window of it, or a reduced
or sharpened copy. On a view, these generators propose frames (the colour regions' outlines live in
scanner.locate.regions, and ``confirm`` judges an unsure fast frame again on the view):
- ``fast``: the lattice fit on a copy reduced by an integer factor to about ``coarse_side`` pixels;
- ``whole``: the lattice fit on the ``work_side`` copy (all segments, or those unlike the table);
- ``cropped``: the whole view as the frame of a cropped board, when its inner seams say so;
- ``windows``: the lattice fit on the segments of half-view windows, then of small windows around the
  centre and the colourful patches.
Each proposal is refined on the view's gradients and judged (scanner.locate.judge); the generators return
``Found`` frames (accepted or not) in the view's pixels.
"""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from kingdomino.board import GRID_SIZES
from scanner.geometry import (
    apply_homography,
    covers,
    frame_corners,
    frame_homography,
    image_corners,
    square_px,
)
from scanner.locate.border import border_colours, colourful_patches, segments_on, unlike_pixels
from scanner.locate.central import most_central
from scanner.locate.gate import first_test
from scanner.locate.judge import Verdict, judge_content, judge_geometry, needed_support, not_around_kingdom
from scanner.locate.lattice import NO_OTHERS, find_lattice
from scanner.locate.placement import describe_cells, place, placed_frame, table_cells, tile_cells
from scanner.locate.refine import fit_frame, refine, seam_support
from scanner.locate.refusals import NoGridFound, OnlyTablePattern, PlainSquares
from scanner.locate.regions import UnlikeTable, blob_outlines, lattice_in_outline, on_surfaces
from scanner.locate.segments import CENTRAL, Focus, find_segments, focus_on
from scanner.locate.settings import LocatorSettings


@dataclass
class Found:
    """A frame proposed on a view: grid -> view homography, N, the centres of other kingdoms seen
    (grid coordinates), the judge's verdict, and whether the fast generator was sure of it."""

    homography: np.ndarray
    size: int
    others: np.ndarray
    verdict: Verdict
    sure: bool = True
    cropped: bool = False  # the view's own outline is the frame (a cropped board)
    # the frame's cells on the view's colour (``placement.describe_cells``), when confirm described them
    described: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


@dataclass
class View:
    """An image searched for the kingdom, with its grey copy and the copies made of it on demand."""

    image: np.ndarray
    grid: int | str
    grayscale: bool
    settings: LocatorSettings
    timings: dict[str, float] = field(default_factory=dict)
    photo_scale: float = 1.0  # view pixels per photo pixel
    photo: View | None = None  # the photo this view is a copy of (None: the photo itself)
    whole_photo: bool = True  # the whole photo (a copy of it), not a window: its edge may be a board's
    content: np.ndarray | None = None  # the colour pixels squares are judged on (None: ``image``)
    deadline: float = math.inf  # thread processor time after which a generator tries nothing more
    # segments and lattices already found, by their input's bytes, shared by the photo's copies: the reduced
    # copy's pixels are the fast attempt's coarse copy (docs/experiments.md)
    memo: dict = field(default_factory=dict)

    def over_budget(self) -> bool:
        # processor time of this thread: other programs on a busy machine do not spend the budget
        return time.thread_time() > self.deadline

    def __post_init__(self) -> None:
        self.gray = cv2.cvtColor(self.image, cv2.COLOR_BGR2GRAY)
        self._work: tuple | None = None
        self._unlike: np.ndarray | None = None
        self._patches: list | None = None
        self._table: np.ndarray | None = None
        self._coarse: tuple | None = None
        self._unlike_pixels: list[tuple[np.ndarray, np.ndarray]] = []  # (copy, its pixels unlike the table)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.image.shape

    @property
    def colour(self) -> np.ndarray:
        """The colour pixels the squares are judged on."""
        return self.image if self.content is None else self.content

    def work(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """(colour copy, grey copy, segments, scale) at most ``work_side`` pixels long, made once."""
        if self._work is None:
            start = time.perf_counter()
            height, width = self.shape[:2]
            scale = min(1.0, self.settings.work_side / max(height, width))
            # segments on the grey copy reduced by area averaging; the colour copy only serves the content
            # judge and the colourful patches, for which a bilinear reduction is enough and much faster
            colour = self.colour
            if scale < 1:
                gray = cv2.resize(self.gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
                work = cv2.resize(colour, gray.shape[::-1], interpolation=cv2.INTER_LINEAR)
            else:
                gray, work = self.gray, colour
            self._add("locate.downscale", start)
            start = time.perf_counter()
            self._work = (work, gray, self.segments(gray), scale)
            self._add("locate.segments", start)
        return self._work

    def coarse(self) -> tuple[np.ndarray, np.ndarray, int] | None:
        """(colour copy, grey copy, factor): the view reduced by an integer factor to at most
        ``coarse_side`` pixels, made once; None when the view is too small for a factor of 2."""
        if self._coarse is None:
            height, width = self.shape[:2]
            side = self.settings.coarse_side
            factor = math.ceil(max(height, width) / side) if side else 0
            if factor < 2:
                self._coarse = ()
                return None
            start = time.perf_counter()
            # an integer reduction of a crop to a multiple of it: area averaging then costs almost nothing
            kept = self.image[: height - height % factor, : width - width % factor]
            size = (kept.shape[1] // factor, kept.shape[0] // factor)
            small = cv2.resize(kept, size, interpolation=cv2.INTER_AREA)
            gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
            if self.content is not None:  # the squares are judged on the photo's own pixels
                kept = self.content[: height - height % factor, : width - width % factor]
                small = cv2.resize(kept, size, interpolation=cv2.INTER_AREA)
            self._coarse = (small, gray, factor)
            self._add("locate.downscale", start)
        return self._coarse or None

    def segments(self, gray: np.ndarray) -> np.ndarray:
        """``find_segments`` of a grey copy, once for the same pixels."""
        return self.remembered(("segments", _digest(gray)), lambda: find_segments(gray))

    def lattice(self, segs: np.ndarray, shape: tuple, peaks: int, focus: Focus, tiles: float, central: bool):
        """``find_lattice`` of segments (then ``most_central`` when ``central``), once for the same ones."""

        def fit():
            lattice = find_lattice(segs, shape, self.grid, peaks, focus, tiles)
            if lattice is not None and central:
                lattice = most_central(segs, shape, self.grid, lattice, self.settings)
            return lattice

        return self.remembered(("lattice", _digest(segs), shape, peaks, focus, tiles, central), fit)

    def remembered(self, key: tuple, compute):
        """The value of ``compute()`` kept under ``key`` (with the grid asked for) for the photo's views."""
        key = (*key, self.grid)
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def unlike_mask(self) -> np.ndarray:
        """Which work segments lie on or near colours the photo's border (the table) lacks."""
        if self._unlike is None:
            work, _, segs, _ = self.work()
            self._unlike = self.unlike_table(work, segs)
        return self._unlike

    def unlike_table(self, copy: np.ndarray, segs: np.ndarray) -> np.ndarray:
        """Which segments of a copy of the view (its work or coarse copy) lie on or near colours the photo's
        border lacks; the copy's pixels unlike the table are found once per copy."""
        mask = next((mask for image, mask in self._unlike_pixels if image is copy), None)
        if mask is None:
            mask = unlike_pixels(copy, self.settings)
            self._unlike_pixels.append((copy, mask))
        return segments_on(mask, segs, self.settings.table_side / max(copy.shape[:2]))

    def patches(self) -> list[tuple[float, float]]:
        """The colourful patches (0-1 view units) worth an enlarged or unlike-the-table search: colours
        varying at least ``zoom_min_spread`` (less is plain table)."""
        if self._patches is None:
            self._patches = colourful_patches(self.colour, self.settings, self.settings.zoom_min_spread)
        return self._patches

    def table_colours(self) -> np.ndarray:
        """The table's colours along the photo's border (the photo's, for a copy of part of it)."""
        if self.photo is not None:
            return self.photo.table_colours()
        if self._table is None:
            start = time.perf_counter()
            self._table = border_colours(self.colour, self.settings)
            self._add("locate.table", start)
        return self._table

    def _add(self, name: str, start: float) -> None:
        self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - start


def _digest(array: np.ndarray) -> tuple:
    """A key for an array's contents: its shape, type and a hash of its bytes."""
    data = np.ascontiguousarray(array)
    return array.shape, array.dtype.str, hashlib.blake2b(data, digest_size=16).digest()


def levelled(image: np.ndarray, settings: LocatorSettings) -> np.ndarray:
    """The photo's colours as the squares are judged on: a dim photo brightened until its light
    (``light_percentile`` of its grey levels) reaches ``light_reference``. The judge's terms (texture,
    colour distances, saturation, the placement's likeness) are levels of a usual exposure: a dim photo's
    artwork is artwork all the same. Seams and segments, measured against their surroundings, are found
    on the photo as it is."""
    sample = cv2.cvtColor(np.ascontiguousarray(image[::4, ::4]), cv2.COLOR_BGR2GRAY)
    light = float(np.percentile(sample, settings.light_percentile))
    gain = min(settings.max_light_gain, settings.light_reference / max(light, 1.0))
    return cv2.convertScaleAbs(image, alpha=gain) if gain > 1.0 else image


# --- the generators -------------------------------------------------------------------------------------
def fast(view: View) -> Found | None:
    """The lattice on a copy about ``coarse_side`` pixels long, in the view's pixels (None when the view
    is too small for such a copy, or nothing passes there). ``sure`` when its squares are large there;
    an accepted frame is confirmed on the view itself (see ``confirm``) before it counts."""
    coarse = view.coarse()
    if coarse is None:
        return None  # no coarse copy worth the name: the whole search is just as fast
    small, gray, factor = coarse
    start = time.perf_counter()
    segs = view.segments(gray)
    view._add("locate.segments", start)
    found = lattice_search(small, gray, segs, view, 1 / factor, CENTRAL)
    if not found.size:
        return found
    found.sure = square_px(frame_corners(found.homography, found.size), found.size) >= (
        view.settings.coarse_min_square_px
    )
    found.cropped = photo_frame(found.homography, found.size, gray.shape) is not None
    found.homography = np.diag([factor, factor, 1.0]) @ found.homography
    return found


def confirm(view: View, found: Found) -> Found:
    """A fast frame refined on the view itself; refused when it no longer sits on seams there."""
    if found.cropped or not found.verdict.accepted:  # a cropped board: the photo's frame, nothing to refine
        return found
    start = time.perf_counter()
    settings = view.settings
    homography = refine(view.gray, found.homography, found.size, settings.refine_cell_px)
    support = seam_support(view.gray, homography, found.size)
    verdict = Verdict(**{**found.verdict.__dict__, "seam_support": support})
    cells = None  # the refitted frame's cells, handed on: the last look and the growth read the same frame
    if support < needed_support(settings.min_seam_support, verdict.placement, settings):
        verdict.refusal = NoGridFound()
    else:
        for _ in range(settings.fine_passes):
            homography = refine(view.gray, homography, found.size, settings.fine_cell_px)
        # the refit may slide onto a mat's lines: what lies around the frame is looked at again, on the view
        here = replace(settings, max_shift=0)
        cells = None if view.grayscale else describe_cells(view.colour, homography, found.size, settings)
        around = (
            None if cells is None else place(view.colour, homography, found.size, (found.size,), here, cells)
        )
        if not_around_kingdom(around, settings):
            verdict.refusal = NoGridFound()
        elif around is not None:
            # judged where it now lies: the coarse copy's placement was of the frame before it slid, and a
            # refit onto a mat's lines across the kingdom leaves windows beside it nearly as good (unsure)
            sizes = (found.size,)
            verdict.placement = place(view.colour, homography, found.size, sizes, settings, cells)
    view._add("locate.fine_refine", start)
    return Found(homography, found.size, found.others, verdict, found.sure, described=cells)


def whole(view: View, unlike: bool = False) -> Found:
    """The lattice on the work copy (``unlike``: its segments unlike the table only), refined on the view."""
    work, gray, segs, scale = view.work()
    settings = view.settings
    if unlike:
        segs = segs[view.unlike_mask()]
    support = settings.min_window_seam_support if unlike else settings.min_seam_support
    found = lattice_search(work, gray, segs, view, scale, CENTRAL, min_support=support)
    return _on_view(view, found, scale)


def cropped(view: View) -> Found | None:
    """The view itself as the frame of a cropped board, when its inner seams and squares say so."""
    work, gray, _, scale = view.work()
    settings = view.settings
    height, width = gray.shape
    if not settings.cropped_aspect[0] <= width / height <= settings.cropped_aspect[1]:
        return None
    best: Found | None = None
    for size in GRID_SIZES if view.grid == "auto" else (int(view.grid),):
        if min(height, width) / scale / size < settings.min_square_px:
            continue
        grid_to_work = frame_homography(image_corners(gray.shape), size)
        for _ in range(2):
            grid_to_work = refine(gray, grid_to_work, size, settings.refine_cell_px, keep_outline=True)
        support = seam_support(gray, grid_to_work, size, lines="inner")
        verdict = Verdict(seam_support=support, min_support=settings.min_seam_support, aspect=1.0)
        if support >= settings.min_seam_support:
            judge_content(work, grid_to_work, size, view.grayscale, settings, verdict)
        else:
            verdict.refusal = NoGridFound()
        candidate = Found(grid_to_work, size, NO_OTHERS, verdict, cropped=True)
        if best is None or (verdict.accepted, support) > (best.verdict.accepted, best.verdict.seam_support):
            best = candidate
    return None if best is None else _on_view(view, best, scale)


def windows(view: View, unlike: bool = False) -> list[Found]:
    """Frames found window by window, the most central window first; the list ends at the first accepted
    one. Windows are half the view on each axis, a quarter apart, so a kingdom up to a quarter of the view
    wide lies whole in one of them; then smaller windows around the view's centre and the most colourful
    patches in its middle half (a small kingdom on a busy table is outvoted even in a half-view window),
    whose kingdom must cover the window's centre."""
    work, gray, segs, scale = view.work()
    settings = view.settings
    if unlike:
        segs = segs[view.unlike_mask()]
    height, width = gray.shape
    norm = float(max(height, width))
    starts = np.arange(0, 1 - settings.window_side + 1e-9, settings.window_stride)
    halves = [(x + settings.window_side / 2, y + settings.window_side / 2) for y in starts for x in starts]
    halves.sort(key=lambda xy: abs(xy[0] - 0.5) + abs(xy[1] - 0.5))
    half_x, half_y = settings.window_side / 2 * width, settings.window_side / 2 * height
    boxes = [(x * width, y * height, half_x, half_y, 1.0) for x, y in halves]
    # a player frames the kingdom roughly in the middle: the patches of the middle half only (a small
    # window at the photo's edge would find another player's kingdom as readily)
    patches = [
        (x, y) for x, y in colourful_patches(work, settings) if max(abs(x - 0.5), abs(y - 0.5)) <= 0.25
    ]
    centres = [(0.5, 0.5)] + sorted(
        patches, key=lambda xy: math.hypot((xy[0] - 0.5) * width, (xy[1] - 0.5) * height)
    )
    boxes += [
        (x * width, y * height, half * norm, half * norm, settings.small_window_tiles)
        for x, y in centres
        for half in settings.small_windows
    ]
    results = []
    mids = (segs[:, :2] + segs[:, 2:]) / 2
    for x, y, half_x, half_y, tiles in boxes:
        if results and view.over_budget():
            break
        inside = (np.abs(mids[:, 0] - x) <= half_x) & (np.abs(mids[:, 1] - y) <= half_y)
        focus = focus_on(x, y, max(half_x, half_y), gray.shape)
        found = lattice_search(
            work, gray, segs[inside], view, scale, focus, settings.min_window_seam_support, tiles
        )
        if found.verdict.accepted and tiles != 1.0 and not covers(found.homography, found.size, (x, y)):
            found.verdict.refusal = NoGridFound()  # a kingdom beside the point looked at
        results.append(found)
        if found.verdict.accepted:
            return [_on_view(view, found, scale)]
    return results


def regions(view: View, seams: bool = True) -> list[Found]:
    """Frames from the outlines of colour regions unlike the table (scanner.locate.regions), the most
    central blob first; the list ends at the first blob with an accepted frame on the kingdom's own
    lattice (a blob framed on the table's lattice is a mat's cells, not the kingdom's outline). In each of
    a blob's two outlines the lattice of every grid size is fitted (regions.lattice_in_outline), refined
    on the seams and judged, on the coarse copy when its squares are large enough there
    (``coarse_min_square_px``), else on the view itself; on the photo's own regions a sure frame on the
    kingdom's lattice ends an outline's sizes. The judge chooses among the blob's frames
    (``judged_best``): a sure frame ends the blob's search, an unsure one is compared with the next. When
    no blob of the photo's own regions gives such a frame, or one is framed on the table's lattice (then
    before any less central blob), the blobs on the surfaces those regions may be (a mat, a cloth:
    scanner.locate.regions.on_surfaces) are tried, both shapes of each judged; when neither gives an
    accepted frame, both again with the blobs closed over a whole square (a kingdom's dark squares in the
    table's colours break its blob). On a table that repeats (a check cloth), when the photo's own regions
    give no accepted frame, the blobs unlike it by its periods come before the surfaces, and when no look
    gives one, the blobs unlike it by its periods matched on two sides or more (``repeat_matches``: a
    kingdom's square as wide as a period matches a like square beside it). ``seams``: when a
    blob's outlines give no sure frame, the lattice of the seams inside it is judged too (``_in_blob``)."""
    settings = view.settings
    if view.grayscale:
        return []
    coarse = view.coarse()  # shared with the fast attempt; a view too small for one is used as it is
    colour = view.colour
    work, gray, scale = (coarse[0], coarse[1], 1 / coarse[2]) if coarse else (colour, view.gray, 1.0)
    start = time.perf_counter()
    factor = min(1.0, settings.region_side / max(work.shape[:2]))
    small = cv2.resize(work, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    masks = UnlikeTable(small, view.table_colours(), settings)
    min_side = min(GRID_SIZES) * settings.min_square_px * scale / view.photo_scale * factor
    view._add("locate.regions", start)
    results: list[Found] = []
    sizes = GRID_SIZES if view.grid == "auto" else (int(view.grid),)
    # the looks in the docstring's order (docs/experiments.md, "The mat under the kingdom is a region too",
    # "Colour regions closed over a dark square", "The cloth's own period", "... matched on two sides")
    seam, square = settings.region_closing, settings.region_square_closing
    looks = [(seam, False, 0), (seam, False, 1), (seam, True, 0)]  # closing, surfaces, copies to match
    looks += [(square, False, 0), (square, True, 0), (seam, False, settings.repeat_matches)]
    for closing, surfaces, periods in looks:
        if (closing == square or periods) and any(found.verdict.accepted for found in results):
            continue
        start = time.perf_counter()
        blobs = mask = masks.unlike_table(closing, periods)
        if mask is None:  # the table does not repeat, or the look's mask was looked into already
            continue
        if surfaces:
            blobs = on_surfaces(small, mask, masks.table, min_side, settings.regions, settings, closing)
        outlines_of_blobs = blob_outlines(blobs, min_side, settings.regions)
        view._add("locate.regions", start)
        for outlines in outlines_of_blobs:
            if results and view.over_budget():  # the search's time is spent: the frames judged so far
                return results
            scales, copy = (factor, scale), (work, gray)
            best, at = _judged_blob(view, outlines, blobs, sizes, scales, copy, surfaces, seams)
            results.append(_on_view(view, best, at))
            # a blob framed on the table's lattice (a mat's cells) is no outline of the kingdom: the
            # surfaces are looked into before any less central blob (a neighbour's kingdom beside the mat),
            # and a frame there on the kingdom's own lattice takes its place
            if best.verdict.accepted and not table_lattice(best.verdict, settings):
                return [f for f in results if not (f.verdict.accepted and table_lattice(f.verdict, settings))]
            if best.verdict.accepted and not surfaces:
                break
    return results


def _judged_blob(
    view: View,
    outlines: list[np.ndarray],
    blobs: np.ndarray,
    sizes: tuple,
    scales: tuple[float, float],
    copy: tuple[np.ndarray, np.ndarray],
    surfaces: bool,
    seams: bool,
) -> tuple[Found, float]:
    """The frame the judge prefers in one blob: the lattice of every grid size in each of its outlines
    (a sure frame on the kingdom's lattice ends the search but on a surface, whose lines beside the
    kingdom let a rough outline's frame pass too: both shapes are judged there), then, when no sure frame
    came, the lattice of the seams inside it (``seams``)."""
    settings = view.settings
    (factor, scale), (work, gray) = scales, copy
    tried: list[tuple[Found, float]] = []
    for quad in outlines:
        tried.extend(_in_outline(view, quad, sizes, factor, scale, work, gray, not surfaces))
        best, at = judged_best(tried, settings)
        if not surfaces and best.verdict.accepted and not best.verdict.unsure(settings):
            break
    if seams and not (best.verdict.accepted and not best.verdict.unsure(settings)):
        # the seams inside the blob: the table's lines around it left out (docs/experiments.md,
        # "The lattice of the seams inside the artwork's blob")
        tried.extend(_in_blob(view, blobs, outlines[0], factor * scale))
        best, at = judged_best(tried, settings)
    return best, at


def _in_outline(
    view: View,
    quad: np.ndarray,
    sizes: tuple,
    factor: float,
    scale: float,
    work: np.ndarray,
    gray: np.ndarray,
    sure_ends: bool = False,
) -> list[tuple[Found, float]]:
    """The lattice of every grid size fitted in a blob's outline (small copy pixels) and judged, on the
    coarse copy, or on the view itself when its squares would be too small there; with the scale judged at.
    ``sure_ends``: a sure frame on the kingdom's own lattice (not the table's) ends the outline's
    search (the other sizes' lattices are not judged: docs/experiments.md, "A sure frame ends an
    outline's search")."""
    settings = view.settings
    corners = quad / factor / scale  # view pixels: the lattice is fitted in it at full resolution
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).mean()
    small_squares = sides * scale / max(sizes) < settings.coarse_min_square_px
    image, grey, at = (view.colour, view.gray, 1.0) if small_squares else (work, gray, scale)
    tried = []
    for size in sizes:
        lattice = np.diag([at, at, 1.0]) @ lattice_in_outline(view.gray, corners, size)
        found = judged(image, grey, lattice, size, NO_OTHERS, view, at, settings.min_seam_support, True)
        tried.append((found, at))
        # only a frame first on the judge's first three preferences (accepted, on the kingdom's own
        # lattice, sure) ends it: no other size could be preferred to it on those
        if sure_ends and preference(found.verdict, settings)[:3] == (True, True, True):
            break
    return tried


def _in_blob(
    view: View, blobs: np.ndarray, quad: np.ndarray, small_per_view: float
) -> list[tuple[Found, float]]:
    """The lattice fitted on the work copy's segments inside a blob of colours the table lacks (``blobs``, a
    mask of the small copy; ``quad`` its outline there), judged on the work copy: a check cloth's or a
    printed grid's lines around the kingdom outvote its seams in the whole photo, not inside its blob."""
    settings = view.settings
    work, gray, segs, scale = view.work()
    if not len(segs):
        return []
    side = max(3, round(settings.blob_reach * max(blobs.shape[:2])) | 1)
    near = cv2.dilate(blobs, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
    middle = quad.mean(axis=0)
    hull = np.zeros_like(near)
    cv2.fillConvexPoly(hull, np.int32(np.round(middle + (quad - middle) * (1 + settings.blob_margin))), 255)
    near &= hull
    to_small = small_per_view / scale
    inside = segments_on(near, segs[:, [0, 1, 0, 1]], to_small) & segments_on(
        near, segs[:, [2, 3, 2, 3]], to_small
    )
    centre = middle / to_small
    reach = np.linalg.norm(quad - middle, axis=1).max() / to_small
    focus = focus_on(centre[0], centre[1], reach, gray.shape)
    lattice = find_lattice(segs[inside], gray.shape, view.grid, settings.direction_peaks, focus)
    if lattice is None:
        return []
    return [(judged(work, gray, *lattice, view, scale, settings.min_seam_support), scale)]


def judged_best(tried: list[tuple[Found, float]], settings: LocatorSettings) -> tuple[Found, float]:
    """The frame the judge prefers among frames of one kingdom (``preference``). The seam support alone
    prefers a lattice across the kingdom's seams and a neighbouring window of it alike (docs/experiments.md,
    "The judge chooses in a blob")."""
    return max(tried, key=lambda item: preference(item[0].verdict, settings))


def preference(
    verdict: Verdict, settings: LocatorSettings
) -> tuple[bool, bool, bool, bool, float, float, float]:
    """How much the judge prefers a frame to other frames of the same kingdom, whatever proposed them:
    accepted, then on the kingdom's own lattice (not the table's: tiles just outside it, squares like the
    table around it), then sure (an unsure frame may be misplaced: seams barely there, another window of
    its lattice nearly as much the kingdom, tiles beside it), then on its seams alone (not only on the
    placement's credit: docs/experiments.md, "The lattice of the seams inside the artwork's blob"), then,
    between two unsure frames, the one more on its seams (the placement's doubts of an outline's frame are
    of the very contrast its outline was drawn on, and a board or a blurred table beside the kingdom passes
    for tiles: docs/experiments.md, "A sure frame of the other size"), then the less doubted (docs/
    experiments.md, "The less doubted of two unsure frames"), then the higher score."""
    accepted = verdict.accepted
    sure = accepted and not verdict.unsure(settings)
    return (
        accepted,
        accepted and not table_lattice(verdict, settings),
        sure,
        accepted and verdict.seam_support >= verdict.min_support,
        0.0 if sure or not accepted else verdict.seam_support,
        0.0 if sure or not accepted else -verdict.doubt(settings),
        verdict.score,
    )


def _on_view(view: View, found: Found, scale: float) -> Found:
    """A frame on the work copy as a frame on the view, refined there at the finest resolution (an accepted
    one; a cropped board keeps the view's outline)."""
    found.homography = np.diag([1 / scale, 1 / scale, 1.0]) @ found.homography
    if found.size and photo_frame(found.homography, found.size, view.shape) is not None:
        found.cropped = True  # the lattice fills the view: its outline is the view's edge
    if found.verdict.accepted and not found.cropped:
        start = time.perf_counter()
        found.homography = refine(view.gray, found.homography, found.size, view.settings.fine_cell_px)
        view._add("locate.fine_refine", start)
    return found


# --- one lattice search: fit, second kingdom, refine, judge ---------------------------------------------
def lattice_search(
    work: np.ndarray,
    gray: np.ndarray,
    segs: np.ndarray,
    view: View,
    scale: float,
    focus: Focus,
    min_support: float | None = None,
    tiles: float = 1.0,
) -> Found:
    """Fit, refine and judge one lattice among ``segs`` (work pixels; ``scale``: work px per view px)."""
    settings = view.settings
    min_support = settings.min_seam_support if min_support is None else min_support
    start = time.perf_counter()
    lattice = view.lattice(segs, gray.shape, settings.direction_peaks, focus, tiles, focus == CENTRAL)
    view._add("locate.lattice", start)
    if lattice is None:
        return Found(np.eye(3), 0, NO_OTHERS, Verdict(refusal=NoGridFound()))  # size 0: no lattice
    grid_to_work, size, others = lattice
    found = judged(work, gray, grid_to_work, size, others, view, scale, min_support)
    if focus != CENTRAL or not table_lattice(found.verdict, settings):
        return found
    # the lattice is the table's own (a mat, a printed grid): the kingdom's is looked for without the
    # table's segments, told two ways: along that lattice's directions, or on the table's long straight
    # lines and in the border's colours (a kingdom turned a little from the mat, or at its pitch)
    # the table's lines measured in the table's squares as fitted, not in a window the placement moved to
    square = square_px(frame_corners(grid_to_work, size), size)
    kept = np.ones(len(segs), bool) if view.grayscale else view.unlike_table(work, segs)
    for table in (
        on_lattice(segs, found.homography, settings.lattice_angle),
        ~kept | table_lines(segs, square, settings, kept),
    ):
        start = time.perf_counter()
        lattice = view.lattice(segs[~table], gray.shape, settings.direction_peaks, focus, tiles, False)
        view._add("locate.lattice", start)
        if lattice is not None:
            other = judged(work, gray, *lattice, view, scale, min_support)
            found = (
                other if preference(other.verdict, settings) > preference(found.verdict, settings) else found
            )
    return found


def table_lattice(verdict: Verdict, settings: LocatorSettings) -> bool:
    """Whether a judged frame lies on the table's lattice rather than the kingdom's: its squares are the
    table's (plain, or its pattern), or the placement sees tiles just outside every window of it, or
    squares like the table around it in the best one."""
    if isinstance(verdict.refusal, (OnlyTablePattern, PlainSquares)):
        return True
    placement = verdict.placement
    return placement is not None and (
        placement.artwork_outside > settings.max_artwork_outside
        or placement.table_share >= settings.table_lattice_share
    )


def table_lines(
    segs: np.ndarray, square: float, settings: LocatorSettings, seeds: np.ndarray | None = None
) -> np.ndarray:
    """Which segments (work pixels) lie on a straight line of the photo that segments cover, gaps aside,
    over more than ``table_line_squares`` squares (``square``: pixels), more than half of it drawn. A
    printed mat's, a grid's or a cloth's lines cross the table; a kingdom's seams stop at its edge, whatever
    its turn against the table's (perspective keeps a line straight). ``square`` is the table lattice's
    cell, so a kingdom whose squares are over 1.5 of those cells may lose its seams here too: the refit
    that drops them is only kept when it judges better. ``seeds``: boolean mask of the segments whose lines
    are looked at (all when None), the longest first."""
    lines = np.zeros(len(segs), bool)
    if not len(segs):
        return lines
    start, end = segs[:, :2], segs[:, 2:]
    direction = end - start
    length = np.hypot(direction[:, 0], direction[:, 1])
    tolerance = settings.table_line_width * square
    cos_turn = math.cos(math.radians(settings.lattice_angle))
    order = np.argsort(-length)
    if seeds is not None:
        order = order[seeds[order]]
    for k in order[: settings.table_line_seeds]:
        if lines[k] or length[k] < 1e-6:
            continue
        unit = direction[k] / length[k]
        normal = np.array([-unit[1], unit[0]])
        # the members: along the seed (within the lattice angle) with both ends on its line
        along = np.flatnonzero(np.abs(direction @ unit) >= cos_turn * length)
        first, last = start[along] - start[k], end[along] - start[k]
        on_line = np.maximum(np.abs(first @ normal), np.abs(last @ normal)) < tolerance
        member = along[on_line]
        ends = np.sort(np.column_stack((first[on_line] @ unit, last[on_line] @ unit)), axis=1)
        span = ends[:, 1].max() - ends[:, 0].min()
        if span > settings.table_line_squares * square and _drawn(ends) > span / 2:
            lines[member] = True
    return lines


def _drawn(intervals: np.ndarray) -> float:
    """The length the union of (k, 2) sorted intervals covers."""
    total, reach = 0.0, -math.inf
    for lo, hi in intervals[np.argsort(intervals[:, 0])]:
        if hi > reach:
            total += hi - max(lo, reach)
            reach = hi
    return total


def on_lattice(segs: np.ndarray, grid_to_work: np.ndarray, degrees: float) -> np.ndarray:
    """Which segments (work pixels) run along one of a lattice's two directions, within ``degrees``, in
    the lattice's own plane (the homography extends the frame's lattice over the whole table)."""
    to_grid = np.linalg.inv(grid_to_work)
    ends = apply_homography(to_grid, np.r_[segs[:, :2], segs[:, 2:]])
    delta = ends[len(segs) :] - ends[: len(segs)]
    angle = np.degrees(np.arctan2(np.abs(delta[:, 1]), np.abs(delta[:, 0])))
    aligned = np.minimum(angle, 90 - angle) < degrees
    return aligned & np.isfinite(angle)


def judged(
    work: np.ndarray,
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    size: int,
    others: np.ndarray,
    view: View,
    scale: float,
    min_support: float,
    tested: bool = False,
) -> Found:
    """A proposed lattice (work pixels) refined on the seams and judged; ``tested``: gate.first_test first."""
    settings = view.settings
    start = time.perf_counter()
    outline = photo_frame(grid_to_work, size, gray.shape)
    for refined in range(1, 3):
        grid_to_work = refine(gray, grid_to_work, size, settings.refine_cell_px)
        # far off the seams: not worth refining again or judging in full (docs/experiments.md, "The first
        # test after one refinement")
        tested_now = tested and outline is None and refined == min(settings.gate_refinements, 2)
        if tested_now and (gated := first_test(gray, grid_to_work, size, min_support, settings)):
            view._add("locate.refine", start)
            return Found(grid_to_work, size, others, gated)
    cells = None  # the frame's described cells (``describe_cells``), kept while the frame is that one
    if outline is None:
        # then all sides at once, none from the table's pattern beside them (a mat's lines in a hole or
        # around the kingdom), which lines fitted one by one follow (docs/experiments.md, "Seams only where
        # they border artwork"); a frame filling the photo may have the photo's edge for its outline
        cells = None if view.grayscale else describe_cells(work, grid_to_work, size, settings)
        table = None if cells is None else table_cells(work, grid_to_work, size, settings, cells)
        cell = settings.refine_cell_px  # not the last fit: the photo's own resolution comes after
        fitted = fit_frame(gray, grid_to_work, size, settings, table, cell, last=False)
        cells, grid_to_work = (cells if np.array_equal(fitted, grid_to_work) else None), fitted
    placement = None
    if outline is None and not view.grayscale:  # the window of the lattice with artwork in, table around
        grid_to_work, size, placement = placed_frame(
            work, gray, grid_to_work, size, view.grid, settings, cells
        )
        if placement is not None and len(others):
            others = others - [placement.cols, placement.rows]  # grid coordinates of the moved frame
    view._add("locate.refine", start)
    start = time.perf_counter()
    # the seams where the frame borders its artwork: a lattice of a cloth's checks or a printed grid laid
    # across the kingdom has its lines on the table and none between the tiles (docs/experiments.md,
    # "Seams between the tiles, not on the table")
    tiles = None
    if outline is None and not view.grayscale:
        known = None if placement is None else placement.tiles  # the frame as placed, described already
        tiles = tile_cells(work, grid_to_work, size, settings) if known is None else known
    support = seam_support(gray, grid_to_work, size, tiles=tiles)
    is_cropped = False
    if support < min_support and outline is not None:
        # A cropped board's outline is the photo's edge, with no seam to refine on or to count:
        # its frame is the photo's, and only its inner lines must sit on seams.
        inner = seam_support(gray, outline, size, lines="inner")
        if inner >= min_support:
            grid_to_work, support, is_cropped = outline, inner, True
    verdict = judge_geometry(gray, grid_to_work, size, scale, settings, min_support, support, placement)
    if verdict.accepted:
        fills = view.whole_photo and (is_cropped or photo_frame(grid_to_work, size, gray.shape) is not None)
        table = None if fills or view.grayscale else view.table_colours()
        judge_content(work, grid_to_work, size, view.grayscale, settings, verdict, table)
    view._add("locate.check", start)
    return Found(grid_to_work, size, others, verdict, cropped=is_cropped)


def photo_frame(grid_to_work: np.ndarray, size: int, shape: tuple) -> np.ndarray | None:
    """The grid -> image homography of the whole image when the lattice fills it (a cropped board)."""
    corners = frame_corners(grid_to_work, size)
    snapped = snap_to_image(corners, size, shape)
    return None if snapped is corners else frame_homography(snapped, size)


def snap_to_image(corners: np.ndarray, size: int, shape: tuple) -> np.ndarray:
    """A cropped board fills the photo: when every frame corner is near a photo corner, use those.

    Its outline has no table around it, so the outer lines cannot be refined on seams.
    """
    photo = image_corners(shape)
    square = square_px(corners, size)
    nearest = np.array([photo[np.argmin(np.linalg.norm(photo - corner, axis=1))] for corner in corners])
    if (
        len({tuple(p) for p in nearest}) == 4
        and (np.linalg.norm(nearest - corners, axis=1) < 0.4 * square).all()
    ):
        return nearest
    return corners
