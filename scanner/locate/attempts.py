"""The locator: a flat list of attempts under a time budget, every frame judged alike, the path recorded.

Attempts, in order (``LocatorSettings.attempts``); each runs only when the rule beside it holds:
  fast          always: the lattice on a ~1000 px copy; decides alone when sure and central
  regions       nothing accepted, a colour photo: outlines of colour regions unlike the table (no seams
                needed to propose them: blur, dim light, small kingdoms); when an unsure fast frame waits
                for the whole search, only after it
  whole         not settled: the lattice on the work copy of the photo
  cropped       nothing accepted, no table pattern met: the photo as a cropped board's frame
  deblurred     nothing accepted, no table pattern met, a straight smear measured on the photo: the work
                copy deconvolved with it (before the windows: a smear spoils their seams as much as the
                whole photo's)
  unlike_table  nothing accepted, a colour photo with colourful patches: segments unlike the table
  windows       not settled, no table pattern met: half-photo and small windows
  zoomed        not settled: windows around the colourful patches (or the centre) enlarged
  reduced       nothing accepted, no table pattern met: a reduced copy (blur shrinks with it)
  sharpened     the same, on an unsharp-masked copy
"Settled": the chosen frame covers the photo's centre (a player frames their kingdom in the middle), or, on
the photo, a sure frame beside it (or an unsure one on its own lattice and seams) with nothing kingdom-like
nearer the centre (``settle_beside``); the search stops there. The chosen frame among the accepted ones is
the most central, when its squares are alike the first one's and it is not the same kingdom framed anew. An
unsure fast frame (small squares on its copy) counts only once the whole search has had its say, confirmed
on the photo. An outline's frame is rough: one that barely passed the judge settles nothing before the
lattices of the whole photo and of its windows have run, and a lattice frame of the same kingdom that the
judge scores at least as high takes its place. An unsure lattice frame likewise settles nothing before the
colour outlines have run, and a frame of the same kingdom the judge prefers (``search.preference``) takes
its place. Only an unsure frame on the table's lattice, below its seams or with no placement waits so: one
on the kingdom's own lattice and its own seams settles as a sure one does (``settle_unsure_own``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from scanner.deblur import Smear, line_psf, spectrum_smear, wiener
from scanner.errors import KingdomNotFoundError
from scanner.geometry import (
    apply_homography,
    covers,
    frame_corners,
    frame_homography,
    frame_middle,
    frames_overlap,
    image_centre,
    square_px,
    upright_corners,
)
from scanner.locate import search as generators
from scanner.locate.central import alike_squares
from scanner.locate.grow import grow_to_seven
from scanner.locate.judge import Verdict
from scanner.locate.placement import fit_outline, placed_frame, table_cells
from scanner.locate.refine import fit_frame
from scanner.locate.refit import fitted_again, last_fit_doubts
from scanner.locate.refusals import (
    LocatorRefusal,
    NoGridFound,
    OnlyTablePattern,
    PhotoTooSmall,
    TooSmall,
    most_telling,
)
from scanner.locate.search import Found, View, levelled, snap_to_image
from scanner.locate.settings import DEFAULT_SETTINGS, LocatorSettings
from scanner.overlay import draw_search

TWO_KINGDOMS_NOTE = "more than one kingdom was seen in the photo; the most central one was scanned"
#: What a search of a copy (an enlarged window, a reduced or sharpened photo) runs on it.
ZOOMED_STEPS = ("fast", "whole", "windows")
#: (A copy runs them in ``settings.attempts``' order, as the photo does.)
BLURRED_COPY_STEPS = ("fast", "whole", "cropped", "unlike_table", "windows")
#: Attempts whose frames are outlines, not lattices fitted to seams.
OUTLINE_ATTEMPTS = ("regions",)
SHOWN_CANDIDATES = 3  # refused candidates drawn on a refusal's overlay


@dataclass
class Located:
    """Where the kingdom is: grid size, frame corners and the grid -> photo homography (original pixels)."""

    grid_size: int
    corners: np.ndarray  # (4, 2) TL, TR, BR, BL in original pixels
    homography: np.ndarray  # grid coordinates (col, row) in [0, N] -> original pixels
    square_px: float  # mean side of one square in the original photo, in pixels
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    deblurred: bool = False  # found only on a reduced, sharpened or deconvolved copy of a blurred photo
    path: list[str] = field(default_factory=list)  # the attempts run, "name=outcome", in order
    found_by: str = ""  # the attempt whose frame was kept
    unsure: bool = False  # the frame barely passed the judge: it may be misplaced
    verdict: Verdict | None = None  # the judge's evidence on the kept frame
    gray: np.ndarray | None = None  # the photo's grey copy the search made (None: not made), for refits


@dataclass
class Candidate:
    """A frame proposed by an attempt, in the search's pixels."""

    homography: np.ndarray  # grid -> search view
    size: int
    others: np.ndarray  # (k, 2) centres of other kingdoms seen, search view pixels
    verdict: Verdict
    attempt: str
    origin: View  # the view it was found on (grown there)
    to_here: np.ndarray  # origin view pixels -> search view pixels
    pending: bool = False  # an unsure fast frame, not yet confirmed on the view
    deblurred: bool = False
    # its cells on the search view's colour as confirm described them (None: not described there)
    described: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


class Search:
    """The attempts on one view: the photo, or a copy of it (with its own, shorter list of steps)."""

    def __init__(self, view: View, steps: tuple[str, ...], deblurred: bool = False) -> None:
        self.view, self.steps, self.deblurred = view, steps, deblurred
        self.settings = view.settings
        self.candidates: list[Candidate] = []  # accepted or pending, in the order found
        self.refused: list[Candidate] = []
        self.refusals: list[LocatorRefusal] = []
        # refusals of lattices fitted to the photo's seams: what they met tells which attempts are worth it
        self.lattice_refusals: list[LocatorRefusal] = []
        self.path: list[str] = []
        self.ran: set[str] = set()
        self.position = 0  # the attempt whose turn it is, in ``settings.attempts``
        self.segments: np.ndarray | None = None  # the photo's work segments, for the debug drawing

    # --- the state the rules read
    def chosen(self) -> Candidate | None:
        """The most central accepted kingdom (see the module's docstring)."""
        chosen = None
        for candidate in list(self.candidates):  # a pending frame refused on confirmation leaves the list
            if candidate.pending and "whole" not in self.ran:
                continue
            # a rough outline stands in for its kingdom until a lattice fitted to its seams frames it, and a
            # frame on the table's lattice until one on the kingdom's own
            refits = chosen is not None and (
                _refits(candidate, chosen, self.settings)
                or self._truer(candidate, chosen)
                or self._preferred(candidate, chosen)
            )
            if chosen is not None and not refits:
                if _same_kingdom(candidate, chosen) or not alike_squares(_frame(candidate), _frame(chosen)):
                    continue
                if self._off_centre(candidate) >= self._off_centre(chosen):
                    continue
            if candidate.pending and not self._confirm(candidate):
                continue
            chosen = candidate
        if chosen is not None:  # every other accepted kingdom apart from it is another kingdom seen
            extra = [
                frame_middle(c.homography, c.size)
                for c in self.candidates
                if c is not chosen
                and not c.pending
                and not _same_kingdom(c, chosen)
                and alike_squares(_frame(c), _frame(chosen))
            ]
            if extra:
                chosen = _with_others(chosen, np.array(extra))
        return chosen

    def settled(self) -> bool:
        """The chosen frame covers the photo's centre, or is a sure one beside it (or unsure, on its own
        lattice and seams) with nothing kingdom-like nearer the centre (``_alone_beside``). An unsure central
        frame on the kingdom's own lattice and seams settles as a sure one (``_own_lattice_and_seams``); any
        other unsure one only once the generators of the other kind still to come ran: an outline's frame
        waits for the lattices of the whole view and of its windows (either may frame its kingdom on the
        seams), a lattice's frame for the colour outlines."""
        chosen = self.chosen()
        if chosen is None:
            return False
        if not covers(chosen.homography, chosen.size, image_centre(self.view.shape)):
            return self._alone_beside(chosen)
        if not chosen.verdict.unsure(self.settings) or _own_lattice_and_seams(chosen, self.settings):
            return True
        # an unsure frame waits for the generators of the other kind still to come: a lattice frame for the
        # colour outlines, an outline's frame for the lattices of the whole view and of its windows
        others = {"whole", "windows"} if chosen.attempt in OUTLINE_ATTEMPTS else set(OUTLINE_ATTEMPTS)
        if self.view.grayscale:
            others -= set(OUTLINE_ATTEMPTS)
        return others.intersection(self.steps, self.settings.attempts[self.position :]) <= self.ran

    def _alone_beside(self, chosen: Candidate) -> bool:
        """Whether a frame beside the photo's centre settles the search: on the kingdom's own lattice, not
        unsure (``search.preference``; or unsure, on its own seams: ``_own_lattice_and_seams``), with no other
        kingdom seen and no colourful patch outside it nearer the centre than it is (where a more central
        kingdom would be). Only on a colour photo (a grey one has no patches to tell) and only on the photo
        itself: a copy's search serves the photo's; a rough outline's frame only once the whole photo's
        lattice, which may frame its kingdom on the seams, has run."""
        settings, view = self.settings, self.view
        if not settings.settle_beside or view.photo is not None or view.grayscale:
            return False
        if chosen.attempt in OUTLINE_ATTEMPTS and "whole" not in self.ran:
            return False
        sure = all(generators.preference(chosen.verdict, settings)[:3])
        if not sure and not _own_lattice_and_seams(chosen, settings):
            return False
        centre = np.array(image_centre(view.shape))
        off = np.linalg.norm(np.subtract(frame_middle(chosen.homography, chosen.size), centre))
        height, width = view.shape[:2]
        patches = [(x * width, y * height) for x, y in view.patches()]
        to_grid = np.linalg.inv(chosen.homography)
        low, high = -settings.settle_margin, chosen.size + settings.settle_margin
        # a refused frame of squares alike the chosen one's, of another kingdom, is a kingdom the judge did
        # not take there: the windows and the zoomed window may frame it
        refused = [
            frame_middle(c.homography, c.size)
            for c in self.refused
            if alike_squares(_frame(c), _frame(chosen)) and not _same_kingdom(c, chosen)
        ]
        for point in [*chosen.others.reshape(-1, 2), *patches, *refused]:
            col, row = apply_homography(to_grid, [point])[0]
            inside = low <= col <= high and low <= row <= high
            if not inside and np.linalg.norm(np.subtract(point, centre)) < off:
                return False
        return True

    def met(self, refusal: type) -> bool:
        return any(isinstance(error, refusal) for error in self.lattice_refusals)

    # --- running
    def run(self) -> Candidate | None:
        for position, name in enumerate(self.settings.attempts):
            self.position = position
            if name not in self.steps or name in self.ran:  # a name listed twice runs once
                continue
            # the photo's first attempt always runs; a copy's attempts only within the budget
            if (self.ran or self.view.photo is not None) and self.view.over_budget():
                self.path.append("budget=spent")
                break
            rule, attempt = ATTEMPTS[name]
            if not rule(self):
                continue
            start = time.perf_counter()
            before = len(self.candidates)
            attempt(self)
            self.ran.add(name)
            key = f"locate.{name}"
            self.view.timings[key] = self.view.timings.get(key, 0.0) + time.perf_counter() - start
            added = self.candidates[before:]
            outcome = "accepted" if added else "none"
            if added and all(c.pending for c in added):
                outcome = "pending"
            self.path.append(f"{name}={outcome}")
            if self.settled():
                break
        return self.chosen()

    def offer(self, found: Found | None, attempt: str) -> bool:
        """Add a generator's frame: accepted ones join the candidates, refused ones give their reason."""
        if found is None:
            return False
        homography = found.homography  # generators frame on the search's own view
        candidate = Candidate(
            homography,
            found.size,
            apply_homography(homography, found.others) if len(found.others) else np.zeros((0, 2)),
            found.verdict,
            attempt,
            self.view,
            np.eye(3),
            deblurred=self.deblurred,
            described=found.described,
        )
        if found.size and found.verdict.accepted:
            small = square_px(frame_corners(homography, found.size), found.size) / self.view.photo_scale
            if small < self.settings.min_square_px:  # an enlarged window's squares, in the photo's pixels
                found.verdict.refusal = TooSmall(small, self.settings.min_square_px)
        if found.verdict.accepted and found.size:
            candidate.pending = not found.sure
            self.candidates.append(candidate)
            return True
        self.refusals.append(found.verdict.refusal or NoGridFound())
        if attempt not in OUTLINE_ATTEMPTS:  # a region's outline on a cloth says nothing of the lattices
            self.lattice_refusals.append(self.refusals[-1])
        if found.size:
            self.refused.append(candidate)
        return False

    def _confirm(self, candidate: Candidate) -> bool:
        found = generators.confirm(
            self.view, Found(candidate.homography, candidate.size, np.zeros((0, 2)), candidate.verdict)
        )
        candidate.pending = False
        candidate.homography, candidate.verdict = found.homography, found.verdict
        candidate.described = found.described
        if not found.verdict.accepted:
            self.candidates.remove(candidate)
            self.refusals.append(found.verdict.refusal)
            self.lattice_refusals.append(found.verdict.refusal)
            return False
        return True

    def _truer(self, candidate: Candidate, chosen: Candidate) -> bool:
        """Whether a frame of the same kingdom lies on the kingdom's lattice where the chosen one lies on
        the table's (tiles just outside it, or squares like the table around it), and the judge scores it
        at least as high (a neighbour's tiles beside a kingdom also lie just outside its frame)."""
        on_table = generators.table_lattice
        if not on_table(chosen.verdict, self.settings) or on_table(candidate.verdict, self.settings):
            return False
        return candidate.verdict.score >= chosen.verdict.score and _same_kingdom(candidate, chosen)

    def _preferred(self, candidate: Candidate, chosen: Candidate) -> bool:
        """Whether the judge prefers a frame of the same kingdom to an unsure chosen one
        (``search.preference``), whichever attempt proposed each: a lattice fitted on a mat's lines across
        the kingdom loses to the outline of the kingdom on the mat (docs/experiments.md, "One preference
        among frames of a kingdom"). A larger frame takes the place only when it is sure: a lattice of
        squares twice the kingdom's, fitted in its outline, loses to the kingdom's own 7×7 (docs/
        experiments.md, "A sure frame of the other size"), while the doubts and scores of two unsure frames
        of different sizes weigh different squares. A smaller one never does: a sure 5×5 window of a Mighty
        Duel kingdom would stand for it unnoted if it did not grow again."""
        settings = self.settings
        if not chosen.verdict.unsure(settings):
            return False
        ahead = generators.preference(candidate.verdict, settings) > generators.preference(
            chosen.verdict, settings
        )
        sure = candidate.verdict.accepted and not candidate.verdict.unsure(settings)
        larger = candidate.size > chosen.size and sure
        return ahead and (candidate.size == chosen.size or larger) and _same_kingdom(candidate, chosen)

    def _off_centre(self, candidate: Candidate) -> float:
        middle = frame_middle(candidate.homography, candidate.size)
        return float(np.linalg.norm(np.subtract(middle, image_centre(self.view.shape))))


# --- the attempts ---------------------------------------------------------------------------------------
def _fast(search: Search) -> None:
    found = generators.fast(search.view)
    if found is None or not found.verdict.accepted:
        search.offer(found, "fast")
        return
    central = covers(found.homography, found.size, image_centre(search.view.shape))
    # decides alone once confirmed on the view itself; a frame with more tiles just outside it than a sure
    # frame has (on the table's lattice beside the kingdom) never does
    if central and found.sure and not found.verdict.tiles_beside(search.settings):
        search.offer(generators.confirm(search.view, found), "fast")
        return
    found.sure = False  # an unsure or off-centre frame: the whole search may overrule it
    search.offer(found, "fast")


def _whole(search: Search) -> None:
    search.offer(generators.whole(search.view), "whole")
    if search.segments is None:
        work, _, segs, scale = search.view.work()
        search.segments = segs / scale


def _cropped(search: Search) -> None:
    search.offer(generators.cropped(search.view), "cropped")


def _regions(search: Search) -> None:
    # the lattice of a blob's seams stands in for the lattice generators where they found none; beside a
    # lattice frame of the kingdom the outline only competes (docs/experiments.md, "The lattice of the seams
    # inside the artwork's blob")
    seams = all(candidate.attempt in OUTLINE_ATTEMPTS for candidate in search.candidates)
    for found in generators.regions(search.view, seams):
        search.offer(found, "regions")


def _windows(search: Search, unlike: bool = False) -> None:
    for found in generators.windows(search.view, unlike):
        search.offer(found, "unlike_table" if unlike else "windows")


def _unlike_table(search: Search) -> None:
    if search.offer(generators.whole(search.view, unlike=True), "unlike_table"):
        return
    _windows(search, unlike=True)


def _zoomed(search: Search) -> None:
    """Enlarged windows around the colourful patches, the most central first (around the photo's centre
    when a kingdom beside it was accepted): a kingdom too small for the work copy shows there."""
    view, settings = search.view, search.settings
    height, width = view.shape[:2]
    half = round(settings.zoom_half_side * max(height, width))
    zoom = min(settings.max_zoom, settings.work_side / (2 * half))
    if search.chosen() is not None:
        centres = [(0.5, 0.5)]
    else:
        centres = sorted(
            view.patches(),
            key=lambda xy: np.hypot((xy[0] - 0.5) * width, (xy[1] - 0.5) * height),
        )
    # a photo over 4000 px: the window is shrunk, but still searched finer than the whole photo was
    interpolation = cv2.INTER_AREA if zoom < 1 else cv2.INTER_LINEAR
    for x, y in centres:
        left = int(np.clip(x * width - half, 0, max(0, width - 2 * half)))
        top = int(np.clip(y * height - half, 0, max(0, height - 2 * half)))
        box = (slice(top, top + 2 * half), slice(left, left + 2 * half))
        enlarged = cv2.resize(view.image[box], None, fx=zoom, fy=zoom, interpolation=interpolation)
        colour = None
        if view.content is not None:
            colour = cv2.resize(view.content[box], None, fx=zoom, fy=zoom, interpolation=interpolation)
        to_photo = np.array([[1 / zoom, 0, left], [0, 1 / zoom, top], [0, 0, 1]])
        found = _search_copy(
            search, "zoomed", enlarged, to_photo, ZOOMED_STEPS, zoom, whole_photo=False, content=colour
        )
        if found:
            return
        if view.over_budget():
            return


def _blurred_copy(search: Search, name: str) -> None:
    """The photo reduced (the blur shrinks with it) or sharpened, searched as the photo was: blur (out of
    focus, a moving hand) smears the seams under the segment detector's threshold."""
    image, settings = search.view.image, search.settings
    content = search.view.content
    if name == "reduced":
        scale = settings.blur_reduce
        copy = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if content is not None:
            content = cv2.resize(content, copy.shape[1::-1], interpolation=cv2.INTER_AREA)
    else:
        scale = 1.0
        blurred = cv2.GaussianBlur(image, (0, 0), settings.sharpen_sigma * max(image.shape[:2]))
        copy = cv2.addWeighted(image, 1 + settings.sharpen_amount, blurred, -settings.sharpen_amount, 0)
        content = search.view.colour  # sharpening makes texture of noise: squares are judged on the photo's
    if min(copy.shape[:2]) >= 32:
        to_photo = np.diag([1 / scale, 1 / scale, 1.0])
        _search_copy(search, name, copy, to_photo, BLURRED_COPY_STEPS, scale, deblurred=True, content=content)


def _smear(search: Search) -> Smear | None:
    """The photo's straight smear (scanner.deblur.spectrum_smear), measured once on a grey copy
    ``deblur_side`` long; in the photo's pixels."""
    if "smear" not in search.view.memo:
        start = time.perf_counter()  # measured in the attempt's rule: timed apart
        settings, gray = search.settings, search.view.gray
        scale = min(1.0, settings.deblur_side / max(gray.shape))
        small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        low, high = settings.deblur_lengths
        smear = spectrum_smear(small, low, high, settings.deblur_prominence, settings.deblur_contrast)
        search.view.memo["smear"] = None if smear is None else smear.scaled(1 / scale)
        search.view.timings["locate.smear"] = time.perf_counter() - start
    return search.view.memo["smear"]


def _deblurred(search: Search) -> None:
    """The work copy deconvolved (Wiener) with the smear measured on the photo; the squares are judged on
    the photo's colours (deconvolution makes texture of the noise)."""
    image, settings = search.view.image, search.settings
    scale = min(1.0, settings.work_side / max(image.shape[:2]))
    copy = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    content = cv2.resize(search.view.colour, copy.shape[1::-1], interpolation=cv2.INTER_AREA)
    smear = _smear(search).scaled(scale)
    copy = wiener(copy, line_psf(smear.dx, smear.dy), settings.deblur_noise)
    to_photo = np.diag([1 / scale, 1 / scale, 1.0])
    _search_copy(
        search, "deblurred", copy, to_photo, BLURRED_COPY_STEPS, scale, deblurred=True, content=content
    )


def _search_copy(
    search: Search,
    name: str,
    copy: np.ndarray,
    to_photo: np.ndarray,
    steps: tuple[str, ...],
    scale: float,
    deblurred: bool = False,
    whole_photo: bool = True,
    content: np.ndarray | None = None,
) -> bool:
    """Search a copy of (part of) the view with ``steps``; its kingdom joins the view's candidates."""
    photo_scale = scale * search.view.photo_scale
    view = View(
        copy,
        search.view.grid,
        search.view.grayscale,
        search.settings,
        search.view.timings,
        photo_scale,
        search.view.photo or search.view,
        whole_photo,
        content,
        search.view.deadline,
        search.view.memo,
    )
    inner = Search(view, steps, deblurred)
    chosen = inner.run()
    search.path.extend(f"{name}.{step}" for step in inner.path)
    search.refusals.extend(inner.refusals)
    search.lattice_refusals.extend(inner.lattice_refusals)
    if chosen is None:
        return False
    candidate = Candidate(
        to_photo @ chosen.homography,
        chosen.size,
        apply_homography(to_photo, chosen.others) if len(chosen.others) else chosen.others,
        chosen.verdict,
        name,
        chosen.origin,
        to_photo @ chosen.to_here,
        deblurred=deblurred,
    )
    search.candidates.append(candidate)
    return True


def _always(search: Search) -> bool:
    return True


def _not_settled(search: Search) -> bool:
    return not search.settled()


def _nothing_yet(search: Search) -> bool:
    return search.chosen() is None and not search.met(OnlyTablePattern)


def _smeared(search: Search) -> bool:
    """Nothing accepted, and a straight smear measured on the photo."""
    return _nothing_yet(search) and search.view.photo is None and _smear(search) is not None


def _not_settled_nor_table_pattern(search: Search) -> bool:
    """Windows of a photo whose lattice is the table's pattern would find more of it; with a kingdom
    accepted beside the centre, they look for a more central one. The segments unlike the table run before
    the windows: a lattice of theirs refused as the table's pattern (the table's edges left out, and still
    only its pattern) keeps the windows, on every segment, from running too."""
    return not search.settled() and (search.chosen() is not None or not search.met(OnlyTablePattern))


def _worth_zooming(search: Search) -> bool:
    """A kingdom beside the centre (look at the centre), or colourful patches (a plain table: no)."""
    return not search.settled() and (search.chosen() is not None or bool(search.view.patches()))


def _worth_regions(search: Search) -> bool:
    """Nothing accepted, in a colour photo: the kingdom's colours may still stand out. Before the whole
    lattice only when no fast frame waits for it to be confirmed (the whole search has its say first).
    After an unsure frame too: the judge may prefer an outline's frame of the same kingdom."""
    chosen = search.chosen()
    if search.view.grayscale or (chosen is not None and not chosen.verdict.unsure(search.settings)):
        return False
    return "whole" in search.ran or not any(candidate.pending for candidate in search.candidates)


def _worth_unlike_table(search: Search) -> bool:
    return search.chosen() is None and not search.view.grayscale and bool(search.view.patches())


#: name -> (when it runs, what it does); the order they are tried in is ``LocatorSettings.attempts``.
ATTEMPTS: dict[str, tuple[Callable[[Search], bool], Callable[[Search], None]]] = {
    "fast": (_always, _fast),
    "whole": (_not_settled, _whole),
    "cropped": (_nothing_yet, _cropped),
    "regions": (_worth_regions, _regions),
    "windows": (_not_settled_nor_table_pattern, _windows),
    "zoomed": (_worth_zooming, _zoomed),
    "unlike_table": (_worth_unlike_table, _unlike_table),
    "reduced": (_nothing_yet, lambda search: _blurred_copy(search, "reduced")),
    "sharpened": (_nothing_yet, lambda search: _blurred_copy(search, "sharpened")),
    "deblurred": (_smeared, _deblurred),
}


# --- the public entry -----------------------------------------------------------------------------------
def locate_kingdom(
    image: np.ndarray,
    grid: int | str = "auto",
    grayscale: bool = False,
    settings: LocatorSettings = DEFAULT_SETTINGS,
) -> Located:
    """Find the kingdom in a BGR photo. Raises a KingdomNotFoundError subclass (scanner.locate.refusals)
    with a reason a player understands; its ``overlay`` draws the segments and the best refused frames."""
    with one_blas_thread():
        return _locate(image, grid, grayscale, settings)


def one_blas_thread():
    """A context in which numpy's BLAS runs on the calling thread alone. The locator's products are small
    (a lattice's seam coverage, a few hundred segments by a few dozen cells) and run by the thousand: a
    second BLAS thread only hands them over and waits, which costs the search more processor time than
    the products themselves (docs/experiments.md)."""
    return _blas_libraries().limit(limits=1, user_api="blas")


@functools.cache
def _blas_libraries() -> ThreadpoolController:
    """The loaded BLAS libraries, looked up once (at the first search), not at every photo."""
    return ThreadpoolController()


def _locate(image: np.ndarray, grid: int | str, grayscale: bool, settings: LocatorSettings) -> Located:
    started = time.thread_time()
    if image is None or image.ndim != 3 or min(image.shape[:2]) < 32:
        raise PhotoTooSmall()
    colour = levelled(image, settings)
    content = None if colour is image else colour
    view = View(image, grid, grayscale, settings, content=content, deadline=started + settings.budget_seconds)
    search = Search(view, tuple(ATTEMPTS))
    chosen = search.run()
    if chosen is None:
        raise _refusal(search)
    return _finish(search, chosen)


def _finish(search: Search, chosen: Candidate) -> Located:
    """The chosen frame grown to 7×7 when it is the middle of one, snapped to a cropped photo's corners."""
    view, settings = search.view, search.settings
    size, homography, verdict = chosen.size, chosen.homography, chosen.verdict
    doubtful_growth = False  # a 7×7 grown from the chosen 5×5 over a ring without seams
    moved = False  # the frame moved by a refit after the last fit (fitted_again)
    # the chosen frame's cells as confirm described them on this view: read again while the frame is that one
    described = chosen.described if chosen.origin is view else None
    if not view.grayscale:  # the last look at where on its lattice the kingdom lies, on the photo itself
        placed, placed_size, placement = placed_frame(
            view.colour, view.gray, homography, size, view.grid, settings, described
        )
        # a window of the same size that the photo's placement barely prefers does not overrule a frame the
        # search judged sure, nor one on its own seams (a board or a cloth's stripes beside the kingdom pass
        # for tiles there; docs/experiments.md, "... an unsure last look that keeps a sure frame", "A sure
        # frame of the other size"): only a frame below its seams (accepted on the placement's credit) moves
        kept = not verdict.unsure(settings) or verdict.seam_support >= verdict.min_support
        close = placement is not None and placement.runner_up_close(settings)
        if placed_size != size or placed is homography or not (kept and close):
            homography, size = placed, placed_size
            verdict = Verdict(**{**verdict.__dict__, "placement": placement or verdict.placement})
    if size == 5 and view.grid == "auto":
        start = time.perf_counter()
        # a window cannot show the ring a 7×7 adds beyond it: a frame found in one grows on the photo
        origin, to_here = (chosen.origin, chosen.to_here) if chosen.origin.whole_photo else (view, np.eye(3))
        on_origin = np.linalg.inv(to_here) @ homography
        table = None if origin.grayscale else origin.table_colours()
        described = described if homography is chosen.homography else None
        grown = grow_to_seven(
            origin.colour, origin.gray, on_origin, origin.grayscale, settings, table, described
        )
        if grown is not None:
            homography, size, doubtful_growth = to_here @ grown.homography, 7, grown.unsure
        view.timings["locate.grow"] = time.perf_counter() - start
    placement = verdict.placement
    grown_or_alone = placement is not None and (
        size > placement.size or placement.artwork_outside <= settings.max_artwork_outside
    )
    if grown_or_alone:
        # table all around the kingdom (a 5×5 grown to 7×7 had its ring of tiles): sides on the artwork's edge
        homography = fit_outline(view.colour, homography, size, settings, view.gray)
    corners = frame_corners(homography, size)
    snapped = snap_to_image(corners, size, view.shape)
    on_seams = snapped is corners  # a cropped board's outline is the photo's edge: no seam to fit it to
    if on_seams:
        start = time.perf_counter()
        # a hole in the kingdom shows the table's pattern, no seam of it (docs/experiments.md, "Seams only
        # where they border artwork")
        table = None if view.grayscale else table_cells(view.colour, homography, size, settings)
        homography = fit_frame(view.gray, homography, size, settings, table)
        snapped = frame_corners(homography, size)
        view.timings["locate.fit_frame"] = time.perf_counter() - start
    corners = upright_corners(snapped)
    if not np.isfinite(corners).all():
        raise _refusal(search)
    homography = frame_homography(corners, size)
    if on_seams:  # the outline, and a smeared family's ridges, judged where the frame is returned
        verdict = last_fit_doubts(view, homography, size, verdict)
        if verdict.unsure(settings):  # a doubted frame: fitted again where its seams may be read better
            refitted, verdict = fitted_again(view, homography, size, verdict, table, lambda: _smear(search))
            # a refit repairs a doubted frame: its own doubts do not judge the kingdom, so the note stays
            moved = refitted is not homography
            if moved:
                homography, corners = refitted, frame_corners(refitted, size)
    # another kingdom only if it lies outside this one (a 5×5 window's ring, once grown, is the kingdom)
    notes = [TWO_KINGDOMS_NOTE] if any(not covers(homography, size, p) for p in chosen.others) else []
    return Located(
        size,
        corners,
        homography,
        square_px(corners, size),
        notes,
        dict(view.timings),
        deblurred=chosen.deblurred,
        path=search.path,
        found_by=chosen.attempt,
        unsure=chosen.deblurred or verdict.unsure(settings) or doubtful_growth or moved,
        verdict=verdict,
        gray=view.gray,
    )


def _refusal(search: Search) -> KingdomNotFoundError:
    """The most telling refusal met, with the segments and the best refused frames drawn on the photo."""
    refusal = most_telling(search.refusals)
    refusal.path = search.path
    best = sorted(search.refused, key=lambda c: -c.verdict.score)[:SHOWN_CANDIDATES]
    refusal.overlay = draw_search(search.view.image, search.segments, [(c.homography, c.size) for c in best])
    return refusal


def _frame(candidate: Candidate) -> tuple[np.ndarray, int]:
    return candidate.homography, candidate.size


def _same_kingdom(one: Candidate, other: Candidate) -> bool:
    return frames_overlap(_frame(one), _frame(other))


def _refits(candidate: Candidate, chosen: Candidate, settings: LocatorSettings) -> bool:
    """Whether a lattice frame takes the place of an outline's frame of the same kingdom: of the same grid
    size (a window of a Mighty Duel kingdom's lattice never stands in for its whole outline), and preferred
    at least as much by the judge (``search.preference``: a lattice of the table's checks across the
    kingdom, or an unsure one beside a sure outline, is no refit of it; on a tie the seams' frame wins)."""
    outline = chosen.attempt in OUTLINE_ATTEMPTS and candidate.attempt not in OUTLINE_ATTEMPTS
    return (
        outline
        and candidate.size == chosen.size
        and generators.preference(candidate.verdict, settings)
        >= generators.preference(chosen.verdict, settings)
        and _same_kingdom(candidate, chosen)
    )


def _own_lattice_and_seams(candidate: Candidate, settings: LocatorSettings) -> bool:
    """Whether an unsure frame settles the search as a sure one does (``settle_unsure_own``): the placement
    found it on the kingdom's own lattice (no tiles just outside it, no squares like the table around it:
    ``search.preference``'s second) and its seams carry it without the placement's credit (its fourth). Its
    doubts are then of degree, and the generators of the other kind only frame the same kingdom anew; one on
    the table's lattice, below its seams, or with no placement to tell (a lattice filling the photo) waits
    for them (docs/experiments.md, "An unsure frame on the kingdom's own lattice settles the search")."""
    accepted, own, _, on_seams = generators.preference(candidate.verdict, settings)[:4]
    placed = candidate.verdict.placement is not None
    return settings.settle_unsure_own and placed and accepted and own and on_seams


def _with_others(candidate: Candidate, points: np.ndarray) -> Candidate:
    others = np.concatenate([candidate.others.reshape(-1, 2), points])
    return Candidate(**{**candidate.__dict__, "others": others})
