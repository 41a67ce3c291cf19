"""The one judge of a candidate frame: does it show a Kingdomino kingdom?

Every candidate, whichever attempt produced it, is judged on the same evidence:
- seams on the lattice: the share of the frame's sides lying on a seam (``seam_support``; less is needed
  when the placement shows artwork inside and table around), and few across the squares' middles;
- a view from above: the frame's shorter pair of sides against the longer (``aspect``);
- seen whole and large enough: the frame inside the photo, squares at least ``min_square_px``;
- printed artwork unlike the table: the share of squares whose middle is textured (not plain cells of a
  mat or a drawing) and whose colours the table around the kingdom lacks (not the table's own grain);
- terrain colours: saturated, varied squares (not a floor, a chessboard or a grey pattern);
- unlike the table: the share of squares that are checks of the table's own pattern (a cloth).
The verdict keeps every term it measured and the refusal of the first term that fails (cheap terms
first, so a refused candidate costs little). Its ``score`` ranks candidates for the debug drawing.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from kingdomino.board import GRID_SIZES
from scanner.geometry import frame_corners, moved_frame, square_px
from scanner.locate.border import border_colours, table_lab
from scanner.locate.placement import Placement
from scanner.locate.refine import seam_support
from scanner.locate.refusals import (
    CutOff,
    LocatorRefusal,
    NoGridFound,
    NotTerrainColours,
    OnlyTablePattern,
    PlainSquares,
    SquaresAlike,
    TooSmall,
)
from scanner.locate.settings import LocatorSettings

NEIGHBOURS = ((0, 1), (1, 0), (0, -1), (-1, 0))
CONTENT_CELL_PX = 24  # rectified side of a square when its content is judged


@dataclass
class Verdict:
    """The evidence measured on one candidate frame, and why it is refused (None: accepted)."""

    seam_support: float = 0.0
    min_support: float = 0.0
    aspect: float = 0.0
    square_px: float = 0.0
    textured: float | None = None
    artwork: float | None = None  # textured and unlike the table (None: no table seen, a cropped board)
    colourful: float | None = None
    varied: float | None = None
    table_checks: float | None = None
    placement: Placement | None = None  # artwork inside, table around (None: not judged, no table seen)
    outline_support: float | None = None  # the returned frame's outline sides on a seam (None: not measured)
    #: the returned frame's smeared family's sides on a ridge (``refine.ridge_support``; None: no real smear
    #: or not measured)
    ridge_support: float | None = None
    #: how far (squares) the returned frame's seams lie from its lines, the worse of its families no real
    #: smear spreads (``refine.seam_drift``; None: none such, or not measured)
    seam_drift: float | None = None
    refusal: LocatorRefusal | None = None

    @property
    def accepted(self) -> bool:
        return self.refusal is None

    @property
    def kingdom(self) -> float | None:
        """The placement score per square: 1 when every square is artwork unlike the table around the frame
        and the ring holds no tile; 0 or less for a frame on the table's own pattern."""
        if self.placement is None:
            return None
        return self.placement.score / self.placement.size**2

    @property
    def score(self) -> float:
        """One figure for ranking candidates: seams, artwork and colour, less the table's pattern."""
        artwork = self.textured if self.artwork is None else self.artwork
        terms = [
            self.seam_support,
            artwork or 0.0,
            self.colourful or 0.0,
            self.varied or 0.0,
            self.kingdom or 0.0,
        ]
        return float(sum(terms) - 2 * (self.table_checks or 0.0))

    def unsure(self, settings: LocatorSettings) -> bool:
        """Accepted, but the frame may be misplaced: its doubts together (``doubt``) reach one whole doubt."""
        return self.accepted and self.doubt(settings) > 1.0

    def doubt(self, settings: LocatorSettings) -> float:
        """The frame's doubts as one figure (docs/experiments.md, "One measure of a frame's doubts"). Each
        piece of evidence is measured against its threshold in units of its band (how near the threshold the
        closest correct frames lie): it adds 0 at the band's sure edge, 1 at the threshold and more past it,
        and a piece well clear of its band vouches for the frame, taking off at most ``doubt_comfort``. So a
        doubt well past its threshold makes the frame unsure alone, and several near theirs at once do too.
        The evidence: seams barely on the lattice; its outline mostly unseen (where the kingdom meets the
        table, a frame off by part of a square shows first); a family of lines a real smear spreads showing
        almost no ridge ("A smeared family without ridges"); one family's seams beside its lines ("Seams
        beside the lines"); another window of the lattice nearly as much a kingdom; tiles just outside it."""
        return float(sum(self.doubts(settings).values()))

    def doubts(self, settings: LocatorSettings) -> dict[str, float]:
        """Each piece of evidence's doubt, no less than ``-doubt_comfort`` (``doubt`` adds them up), by name,
        for the benches' records."""
        s = settings
        # (evidence, threshold, band): more evidence is surer (a drift and tiles outside count negatively)
        terms = {"seams": (self.seam_support, self.min_support + s.unsure_margin, s.seam_doubt_band)}
        if self.outline_support is not None:
            terms["outline"] = (self.outline_support, s.min_outline_support, s.outline_doubt_band)
        if self.ridge_support is not None:
            terms["ridges"] = (self.ridge_support, s.min_ridge_support, s.ridge_doubt_band)
        if self.seam_drift is not None:
            terms["drift"] = (-self.seam_drift, -s.max_seam_drift, s.drift_doubt_band)
        placement = self.placement
        if placement is not None:
            terms["rival"] = (placement.margin, s.unsure_placement_margin, s.rival_doubt_band)
            terms["outside"] = (-placement.artwork_outside, -s.unsure_artwork_outside, s.outside_doubt_band)
        return {
            name: max(-s.doubt_comfort, 1.0 - (value - threshold) / band)
            for name, (value, threshold, band) in terms.items()
        }

    def tiles_beside(self, settings: LocatorSettings) -> bool:
        """More tiles just outside the frame than a sure frame has: it may lie on the table's lattice beside
        the kingdom, or beside a neighbour's tiles."""
        placement = self.placement
        return placement is not None and placement.artwork_outside > settings.unsure_artwork_outside


def judge_geometry(
    gray: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    scale: float,
    settings: LocatorSettings,
    min_support: float,
    support: float | None = None,
    placement: Placement | None = None,
) -> Verdict:
    """The cheap terms: seams, aspect, inside the image, square size (``scale``: work px per photo px).

    ``support``: the seam support when the caller measured it already (a cropped board's inner lines);
    ``placement``: the frame's placement on its lattice, whose evidence stands in for faint seams."""
    support = seam_support(gray, grid_to_work, n) if support is None else support
    verdict = Verdict(seam_support=support, min_support=min_support, placement=placement)
    corners = frame_corners(grid_to_work, n)
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    pairs = (sides[0] + sides[2], sides[1] + sides[3])
    verdict.aspect = float(min(pairs) / max(max(pairs), 1e-9))
    verdict.square_px = square_px(corners / scale, n)
    if support < needed_support(min_support, placement, settings) or verdict.aspect < settings.min_aspect:
        verdict.refusal = NoGridFound()
    elif middle_seams(gray, grid_to_work, n) > settings.max_middle_seams * support:
        verdict.refusal = NoGridFound()  # seams across the squares: a finer lattice, or half a square off
    elif not_around_kingdom(placement, settings):
        verdict.refusal = NoGridFound()
    elif beyond_image(corners, n, gray.shape):
        verdict.refusal = CutOff()
    elif verdict.square_px < settings.min_square_px:
        verdict.refusal = TooSmall(verdict.square_px, settings.min_square_px)
    return verdict


def not_around_kingdom(placement: Placement | None, settings: LocatorSettings) -> bool:
    """Whether the best window of a frame's lattice shows no kingdom with the table around it: tiles all
    around a window of the largest kingdom (a lattice laid across more artwork, a mat's cells beside the
    kingdom; a smaller window with tiles around may be part of a Mighty Duel kingdom, which growth
    decides), no more artwork squares than squares like the table and tiles outside together, or another
    window of the lattice as much the kingdom (a kingdom's window moved by a square loses artwork to the
    table; a window inside a mat's or a cloth's even pattern does not)."""
    if placement is None:
        return False
    surrounded = placement.size == max(GRID_SIZES) and placement.artwork_outside > settings.max_tiles_around
    alike = placement.score - placement.runner_up <= settings.min_kingdom_margin * placement.size**2
    return surrounded or alike or placement.score <= settings.min_kingdom_score


def middle_seams(gray: np.ndarray, grid_to_work: np.ndarray, n: int) -> float:
    """The seam support of the lines through the squares' middles: a tile shows no straight seam across its
    middle, while a frame half a square off the kingdom, or over a mat's finer lattice, does."""
    return seam_support(gray, moved_frame(grid_to_work, 0.5, 0.5), n - 1)


def needed_support(min_support: float, placement: Placement | None, settings: LocatorSettings) -> float:
    """The seam support a frame needs: less when its squares are artwork unlike the table around it and no
    tile lies just outside (dark tiles of one terrain side by side show faint seams; a mat's cells do not
    pass as artwork). A frame accepted on that credit is below ``min_support`` and so said to be unsure."""
    if placement is None or placement.artwork_outside > settings.max_artwork_outside:
        return min_support
    kingdom = min(max(placement.score / placement.size**2, 0.0), 1.0)
    return min_support - settings.placement_seam_credit * kingdom


def beyond_image(corners: np.ndarray, size: int, shape: tuple[int, ...]) -> bool:
    """True when the frame reaches more than half a square outside the image (a kingdom not seen whole)."""
    height, width = shape[:2]
    return bool(np.maximum(-corners, corners - [width, height]).max() > 0.5 * square_px(corners, size))


def judge_content(
    work: np.ndarray,
    grid_to_work: np.ndarray,
    n: int,
    grayscale: bool,
    settings: LocatorSettings,
    verdict: Verdict | None = None,
    table: np.ndarray | None = None,
) -> Verdict:
    """The content terms on the frame's squares, added to ``verdict`` (a new one when None). ``table``: the
    table's colours (scanner.locate.border.border_colours of the photo); None when the frame fills the
    photo (a cropped board: no table in view)."""
    verdict = Verdict() if verdict is None else verdict
    cell = CONTENT_CELL_PX
    to_rect = np.array([[cell, 0, 0], [0, cell, 0], [0, 0, 1]])
    rect = cv2.warpPerspective(work, to_rect @ np.linalg.inv(grid_to_work), (n * cell, n * cell))
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gradient = (
        np.hypot(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)) / 8
    )
    middles = gradient.reshape(n, cell, n, cell).transpose(0, 2, 1, 3)[:, :, 4:-4, 4:-4].reshape(n * n, -1)
    # a median is not raised by a seam crossing a wrongly placed cell
    gradient_medians = np.median(middles, axis=1)
    verdict.textured = float((gradient_medians > settings.texture_gradient).mean())
    if verdict.textured < settings.min_textured:
        # a frame on a cloth holding little of the kingdom is plain too: say which, as that one is searched on
        cloth = not grayscale and _table_checks(work, rect, gradient_medians, n, settings, verdict, table)
        verdict.refusal = OnlyTablePattern() if cloth else PlainSquares()
        return verdict
    if table is not None and not grayscale:
        # the textured squares of a frame half on the table are the table's grain, not printed tiles
        unlike = (_table_distance(rect, n, table) < settings.table_distance).mean(axis=2) <= 0.5
        verdict.artwork = float(
            ((gradient_medians.reshape(n, n) > settings.texture_gradient) & unlike).mean()
        )
        if verdict.artwork < settings.min_artwork:
            verdict.refusal = PlainSquares()
            return verdict
    if verdict.placement is not None and verdict.placement.table_share >= settings.max_table_share:
        verdict.refusal = OnlyTablePattern()  # many squares look like the table around the frame
        return verdict
    if grayscale:
        return verdict
    hsv = cv2.cvtColor(rect, cv2.COLOR_BGR2HSV)
    saturation = hsv[..., 1].reshape(n, cell, n, cell).transpose(0, 2, 1, 3).reshape(n * n, -1)
    verdict.colourful = float((np.median(saturation, axis=1) >= 70).mean())
    lab = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB).astype(np.float32)
    means = lab.reshape(n, cell, n, cell, 3).mean(axis=(1, 3)).reshape(-1, 3)
    verdict.varied = float((np.linalg.norm(means - np.median(means, axis=0), axis=1) > 12).mean())
    if verdict.varied < settings.min_varied:
        verdict.refusal = SquaresAlike()
    elif verdict.colourful < settings.min_colourful:
        verdict.refusal = NotTerrainColours()
    elif _table_checks(work, rect, gradient_medians, n, settings, verdict, table):
        verdict.refusal = OnlyTablePattern()
    return verdict


def _table_checks(
    work: np.ndarray,
    rect: np.ndarray,
    gradient_medians: np.ndarray,
    n: int,
    settings: LocatorSettings,
    verdict: Verdict,
    table: np.ndarray | None,
) -> bool:
    """Whether ``max_table_pattern`` or more of the frame's squares look like the checks of a tablecloth:
    plain, alike in a 2×2 repeat, unlike the squares beside them, and in the table's colours.

    The table's colours (a k-means of the photo's border) are taken only when enough squares pass the
    other three conditions: a kingdom's frame almost never does, so a scan seldom pays for them.
    """
    cell = rect.shape[0] // n
    lab = table_lab(rect).reshape(n, cell, n, cell, 3).transpose(0, 2, 1, 3, 4)[:, :, 4:-4, 4:-4]
    pixels = lab.reshape(n, n, -1, 3)
    means = pixels.mean(axis=2)
    rows, cols = np.indices((n, n))
    parity = (rows % 2) * 2 + cols % 2
    medians = np.array([np.median(means[parity == k], axis=0) for k in range(4)])
    repeated = np.linalg.norm(means - medians[parity], axis=2) < settings.repeat_distance
    plain = gradient_medians.reshape(n, n) <= settings.plain_gradient
    # a check differs from the four around it (a dark or faded photo brings a kingdom's squares together)
    padded = np.pad(means, ((1, 1), (1, 1), (0, 0)), constant_values=np.inf)
    contrast = np.min(
        [
            np.linalg.norm(padded[1 + dr : 1 + dr + n, 1 + dc : 1 + dc + n] - means, axis=2)
            for dr, dc in NEIGHBOURS
        ],
        axis=0,
    )
    checks = plain & repeated & (contrast > settings.check_contrast)
    verdict.table_checks = float(checks.mean())
    if checks.mean() < settings.max_table_pattern:
        return False
    colours = border_colours(work, settings) if table is None else table
    distance = np.linalg.norm(pixels[:, :, :, None] - colours, axis=4).min(axis=3)
    like_table = (distance < settings.table_distance).mean(axis=2) > settings.table_alike
    verdict.table_checks = float((checks & like_table).mean())
    return bool(verdict.table_checks >= settings.max_table_pattern)


def _table_distance(rect: np.ndarray, n: int, table: np.ndarray) -> np.ndarray:
    """(n, n, pixels): each square's middle pixels' distance to the nearest of the table's colours."""
    cell = rect.shape[0] // n
    lab = table_lab(rect).reshape(n, cell, n, cell, 3).transpose(0, 2, 1, 3, 4)[:, :, 4:-4, 4:-4]
    return np.linalg.norm(lab.reshape(n, n, -1, 1, 3) - table, axis=4).min(axis=3)
