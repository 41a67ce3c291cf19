"""How the squares of one frame are read, and which of them the player is asked to check.

The reading's settings (``ReadingSettings``: the castle's height, the pieces, the table's and the castle's
review rules), what one reading knew besides its final probabilities (``ReadingDetails``), and the review
rules that flag squares beyond the decoder's margin (``review_reasons``), the glare and the unfamiliar photo.
``scanner.recognizer`` runs the reading; docs/how-it-works.md, "Reading the kingdom as a whole", says why
each rule is there.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from kingdomino.board import Kingdom, Terrain
from kingdomino.labels import CASTLE_LABEL, EMPTY_LABEL, LABELS
from kingdomino.scoring import castle_cells
from scanner.deblur import Smear, cepstrum_smears, line_psf, seam_widths, sharpness_along, wiener
from scanner.decode import FLAG_MARGIN
from scanner.rectify import cut_squares
from scanner.tall import CASTLE_HEIGHT, CASTLE_TALLEST, LEAN_COVER, Leaning

#: A photo on which at least UNFAMILIAR_SHARE of the squares read under UNSURE_BELOW looks unlike the
#: training photos: on a camera and light it never saw the classifier is often wrong yet sure, so the scan
#: says so (model/MODEL.md, "Another camera"); its squares are flagged by their margin like any other's.
UNSURE_BELOW = 0.9
UNFAMILIAR_SHARE = 0.2
#: A lamp's reflection on the glossy tiles washes part of a square out to white, and the classifier may
#: then read it sure and wrong (a forest as wheat, a white blob as a crown). A tile on which one
#: connected patch of pixels with every channel at GLARE_LEVEL or more covers GLARE_SHARE of the square
#: is flagged (docs/experiments.md, "Lamps' reflections on the tiles").
GLARE_LEVEL = 225
GLARE_SHARE = 0.1


@dataclass(frozen=True)
class ReadingSettings:
    """How squares are read and which ones the player is asked to check."""

    #: the castle model's height in squares (scanner.tall)
    castle_height: float = CASTLE_HEIGHT
    #: the tallest castle whose base the silhouette looks for (docs/experiments.md, "The castle's reach")
    castle_tallest: float = CASTLE_TALLEST
    #: nats of castle odds on a square the photo shows a castle model standing on (tall.standing_castles):
    #: one read as its colour's terrain (docs/experiments.md, "A castle painted in a player's colour")
    castle_painted: float = 6.0
    #: a square a plausible castle may hide this share of has its readings softened (its log
    #: probabilities scaled down by up to HIDDEN_SOFTEN), so the dominoes around it can decide
    hidden_share: float = LEAN_COVER
    hidden_soften: float = 0.5
    #: the decoder's margin (nats: the log-odds that the square's reading is right) under which it is
    #: flagged; the one threshold for every photo, chosen on whole development photos (scanner.decode)
    flag_margin: float = FLAG_MARGIN
    #: a square the decoded castle hides this share of is flagged unless its margin reaches hidden_margin
    hidden_flag_share: float = 0.3
    hidden_margin: float = 6.0
    #: so is a square that lost this much castle probability to a neighbour the castle stands on
    castle_taken: float = 0.5
    #: the decoded castle square is flagged when a square it leans over, or one it could stand on to lean
    #: over it, was read as castle with at least this much
    castle_elsewhere: float = 0.2
    #: a square the decoded castle hides hidden_flag_share of, read sure, is read again with the walls'
    #: silhouette painted out (at most castle_walls_side px wide, the silhouette grown by castle_walls_grow of
    #: a square) and flagged when that reading's label is not the decoded one (docs/experiments.md, "The
    #: walls painted out of the squares they lean over")
    castle_walls: bool = True
    castle_walls_side: int = 128
    castle_walls_grow: float = 0.05
    #: a king found by its silhouette (tall.standing_pieces), flagged, read from the whole square where sure,
    #: its free side where not; no castle probability moved (docs/experiments.md, "The piece's square read")
    pieces: bool = True
    piece_visible: bool = True
    #: a piece's square is read with the piece painted out (covered.piece_blob, inpainted: the pixels within
    #: piece_tolerance of its colour filled in from the print around them) instead of from its free side
    #: pooled with the whole square (docs/experiments.md, "The piece painted out of its square")
    piece_painted_out: bool = True
    piece_tolerance: float = 21.0
    #: the side (pixels) a piece's square is painted out at
    piece_paint_side: int = 128
    #: ... only where its blob looks painted (covered.printed_look at most this): a printed object taken for
    #: a piece is read from its free side as above (docs/experiments.md, "A piece's paint told from printed
    #: art")
    piece_printed_most: float = 0.4
    #: a square read as the table against the classifier is flagged unless the table comparisons add
    #: this many nats for *empty* (its mean colour and its colours' proportions both match the table)
    sure_table: float = 11.0
    #: a square read as the table is flagged, when the table is seen around the kingdom, if neither
    #: comparison calls it the table: its mean colour adds no more than this for *empty* and its colours
    #: overlap the table's less than table_like (a plain dark lake, a blurred tile the classifier calls
    #: empty, do not look like the table they would show)
    table_unconfirmed: float = 0.0
    #: a photo whose kingdom's brightest pixels stay under this Lab lightness (uint8) is dim: the scan
    #: says so (its squares are flagged by the same margin as any other photo's)
    dim_below: float = 80.0
    #: a square read as a tile whose colours overlap the table's this much (scanner.table
    #: pattern_likeness) may be a hole in a patterned cloth: flagged under table_like_margin
    table_like: float = 0.6
    table_like_margin: float = 6.0
    #: the third comparison with the table, by colour proportions and lightness relative to the square's own
    #: (scanner.table shade_free_likeness): evidence for *empty* in a hole a shade falls on
    table_shade: bool = True
    #: a kingdom whose squares are under this many pixels in the reduced copy the scanner decodes has its
    #: squares cut from the photo decoded in full (the reduced copy halves a small kingdom's detail; on
    #: larger squares the full photo changed readings of blurred photos only, as often for the worse)
    full_resolution_below: float = 40.0
    #: a kingdom whose cepstrum shows a straight smear this clearly (robust z-score, scanner.deblur) has it
    #: undone before its squares are cut; 0: never (docs/experiments.md, "Reading a motion-blurred kingdom")
    deblur_clear: float = 5.0
    #: the cepstrum's smears are looked for from this long on (pixels of the rectified kingdom, a square
    #: being 100; rounded to whole pixels of distance, so a little shorter ones count)
    deblur_shortest: float = 6.0
    #: the longest smear looked for, rectified pixels (well under the lattice's period)
    deblur_longest: float = 60.0
    #: the Wiener filter's noise-to-signal ratio: lower undoes more and rings more
    deblur_noise: float = 0.05
    #: the seams must agree with the cepstrum's smear (a textured sharp kingdom's cepstrum may peak too):
    #: their widths across x and y exceed |dx| and |dy| by the same, within this share of the longer side
    deblur_agree: float = 0.5
    #: the seams' widths are measured short for a long smear (their peak is one bin of a noisy profile): the
    #: seams' own widths may sum to as little as minus this share of the smear's longer side
    deblur_short_seams: float = 0.25
    #: and the kingdom is this much less sharp along the smear than across it (mean squared gradients): a
    #: defocus or a small kingdom enlarged widens the seams alike every way (docs/experiments.md, "At the
    #: merge: deblur, blurread and the reviews")
    deblur_anisotropy: float = 0.75


#: The settings a scanner reads with when none are given.
DEFAULT_READING = ReadingSettings()


@dataclass(frozen=True)
class ReadingDetails:
    """What the reading of one frame knew besides its final probabilities (for flags and measurement)."""

    raw: np.ndarray  # (N, N, labels) the classifier's probabilities
    evidence: np.ndarray  # (N, N) nats added to *empty* by the table comparison
    likeness: np.ndarray | None  # (N, N) overlap of each square's colours with the table's, if seen
    margins: np.ndarray  # (N, N) the decoder's margin of each square, nats
    cover: np.ndarray  # (N, N, N, N) share of square 2 a castle on square 1 hides
    leaning: Leaning
    changed: np.ndarray | None = None  # (N, N) bool: the decoder overruled the weighed reading
    orphans: np.ndarray | None = None  # (N, N) bool: the square fits no box domino
    review: dict[str, np.ndarray] | None = None  # review_reasons: rule name -> (N, N) bool
    pieces: np.ndarray | None = None  # (N, N) bool: a piece stands on the square (scanner.tall)
    deblurred: bool = False  # the squares were read from the kingdom with a motion blur undone
    unseen: np.ndarray | None = None  # (N, N) bool: read otherwise with the castle's walls painted out


#: The rules of review_reasons, by name.
REVIEW_RULES = (
    "into_table",
    "out_of_table",
    "table_unconfirmed",
    "table_like",
    "castle_hidden",
    "castle_taken",
    "castle_leaned",
    "castle_behind",
    "castle_unseen",
    "piece",
)


def review_reasons(
    kingdom: Kingdom, details: ReadingDetails, settings: ReadingSettings
) -> dict[str, np.ndarray]:
    """(N, N) squares to check beyond the decoder's margin, by rule: squares turned into the table or out of
    it against the classifier, or read as it without looking like it; tiles that look like the table;
    squares the decoded castle hides; a castle that may stand on another square than the one it was read
    on; squares a piece stands on. The castle square itself is flagged by its margin, the exact cost of moving
    the one castle; a deconvolved kingdom's squares by the margin like any other's (docs/experiments.md, "One
    flag margin for both generators' whole photos")."""
    n = kingdom.grid_size
    labels = np.array([[LABELS.index(kingdom[r, c]) for c in range(n)] for r in range(n)])
    raw_empty = details.raw.argmax(axis=-1) == EMPTY_LABEL
    read_empty = labels == EMPTY_LABEL
    none = np.zeros((n, n), dtype=bool)
    reasons = {
        # into the table against the classifier: flagged unless both table comparisons are sure of it
        "into_table": read_empty & ~raw_empty & (details.evidence < settings.sure_table),
        "out_of_table": raw_empty & ~read_empty,
        "table_unconfirmed": none,
        "table_like": none,
    }
    if details.likeness is not None:
        # read as the table, but it looks like the table seen around the kingdom neither way
        reasons["table_unconfirmed"] = (
            read_empty
            & (details.evidence <= settings.table_unconfirmed)
            & (details.likeness < settings.table_like)
        )
        reasons["table_like"] = (
            (details.likeness >= settings.table_like)
            & ~read_empty
            & (details.margins < settings.table_like_margin)
        )
    reasons.update(_castle_reasons(kingdom, details, settings))
    reasons["piece"] = none if details.pieces is None else details.pieces & ~read_empty
    return reasons


def _castle_reasons(
    kingdom: Kingdom, details: ReadingDetails, settings: ReadingSettings
) -> dict[str, np.ndarray]:
    """The castle's rules of review_reasons: the squares it hides, a castle read on a square it would lean
    over, and the squares it may stand on instead (seen as castle, or fitting no domino, as a castle base
    read as terrain does)."""
    n = kingdom.grid_size
    castle = castle_square(kingdom)
    hidden_flags, taken_flags, leaned_flags, behind_flags = (np.zeros((n, n), dtype=bool) for _ in range(4))
    if castle is not None:
        hidden = details.cover[castle].copy()
        hidden[castle] = 0.0
        unsure = details.margins < settings.hidden_margin
        hidden_flags = (hidden >= settings.hidden_flag_share) & unsure
        # a square the castle read on it was moved off (to the base the castle leans from) is read from
        # what the walls over it leave: as doubtful as a square the castle hides
        if details.leaning.taken is not None:
            taken_flags = (details.leaning.taken >= settings.castle_taken) & unsure
        seen = details.raw[..., CASTLE_LABEL]
        leaned_flags = (hidden >= LEAN_COVER) & (seen >= settings.castle_elsewhere)
        # the squares a castle would stand on to lean over the one it was read on
        behind = details.cover[:, :, castle[0], castle[1]] >= LEAN_COVER
        behind[castle] = False
        orphans = details.orphans if details.orphans is not None else np.zeros((n, n), dtype=bool)
        behind_flags = behind & ((seen >= settings.castle_elsewhere) | orphans)
        if leaned_flags.any() or behind_flags.any():
            leaned_flags[castle] = True
    unseen = details.unseen if details.unseen is not None else np.zeros((n, n), dtype=bool)
    flags = (hidden_flags, taken_flags, leaned_flags, behind_flags, unseen)
    names = ("castle_hidden", "castle_taken", "castle_leaned", "castle_behind", "castle_unseen")
    return dict(zip(names, flags, strict=True))


def review_flags(kingdom: Kingdom, details: ReadingDetails, settings: ReadingSettings) -> np.ndarray:
    """(N, N) squares to check beyond the decoder's own flags: the union of review_reasons."""
    return any_reason(review_reasons(kingdom, details, settings))


def castle_square(kingdom: Kingdom) -> tuple[int, int] | None:
    """The kingdom's castle square (row, column), or None when none is read."""
    return next(iter(castle_cells(kingdom)), None)


def any_reason(reasons: dict[str, np.ndarray]) -> np.ndarray:
    """(N, N) squares some rule of ``review_reasons`` flags."""
    return np.logical_or.reduce(list(reasons.values()))


#: The decoder's margin under which a square counts as doubtful for judging a blurred photo's frame.
DOUBT_MARGIN = 3.5


def doubtful_squares(details: ReadingDetails) -> np.ndarray:
    """(N, N) squares that fit the rules badly: changed by the decoder, in no box domino, or read under
    DOUBT_MARGIN. Many of them mean a frame off its kingdom, whatever the squares the player is asked to
    check."""
    return details.changed | details.orphans | (details.margins < DOUBT_MARGIN)


def glare_squares(rectified: np.ndarray, kingdom: Kingdom) -> np.ndarray:
    """(N, N) bool: the tiles of the rectified N×N kingdom that a reflection washes out (see GLARE_SHARE).
    Squares read as empty show the table, which may be white all over."""
    n = kingdom.grid_size
    # the smallest channel pairwise: numpy's reduction over a last axis of three is much slower
    smallest = np.minimum(np.minimum(rectified[..., 0], rectified[..., 1]), rectified[..., 2])
    white = (smallest >= GLARE_LEVEL).astype(np.uint8)
    glare = np.zeros((n, n), dtype=bool)
    for ((row, col), cell), patch in zip(kingdom.cells(), cut_squares(white, n), strict=True):
        if cell.terrain == Terrain.EMPTY or np.count_nonzero(patch) < GLARE_SHARE * patch.size:
            continue  # (too few white pixels for a washed-out patch that large)
        count, _, stats, _ = cv2.connectedComponentsWithStats(patch, connectivity=8)
        glare[row, col] = count > 1 and stats[1:, cv2.CC_STAT_AREA].max() >= GLARE_SHARE * patch.size
    return glare


def looks_unfamiliar(probabilities: np.ndarray) -> bool:
    """Whether a photo's squares ((..., labels) classifier probabilities) read unsure often enough that
    the photo is flagged whole (see UNFAMILIAR_SHARE)."""
    return bool(np.mean(probabilities.max(axis=-1) < UNSURE_BELOW) >= UNFAMILIAR_SHARE)


def deblurred_kingdom(
    rectified: np.ndarray, grid_size: int, settings: ReadingSettings
) -> tuple[np.ndarray, Smear | None]:
    """(the rectified N×N kingdom with a clear straight motion blur undone (scanner.deblur), the smear undone)
    or (the kingdom itself, None): the cepstrum's clearest smear that is long enough, that the seams between
    squares agree with, and along which the kingdom is clearly less sharp than across it."""
    if settings.deblur_clear <= 0:
        return rectified, None
    if rectified.ndim == 2 or rectified.shape[2] == 1:
        gray = rectified.reshape(rectified.shape[:2])
    else:
        gray = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY)
    smear = next(iter(cepstrum_smears(gray, settings.deblur_shortest, settings.deblur_longest)), None)
    if smear is None or smear.strength < settings.deblur_clear:
        return rectified, None
    # the seams are the smear's projections on x and y over one width of their own, the same across both
    across_x, across_y = seam_widths(gray, round(rectified.shape[0] / grid_size))
    own_x, own_y = across_x - abs(smear.dx), across_y - abs(smear.dy)
    side = max(abs(smear.dx), abs(smear.dy))
    too_narrow = own_x + own_y < -settings.deblur_short_seams * side
    if too_narrow or abs(own_x - own_y) > settings.deblur_agree * side:
        return rectified, None
    if sharpness_along(gray, smear.dx, smear.dy) > settings.deblur_anisotropy:
        return rectified, None
    return wiener(rectified, line_psf(smear.dx, smear.dy), settings.deblur_noise), smear
