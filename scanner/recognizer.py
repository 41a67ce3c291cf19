"""KingdomScanner: one object that loads the model once and turns photos into scored kingdoms.

Pipeline per photo: load (EXIF-upright, reduced copy) -> locate the lattice -> compare the frame with
the table around it (scanner.table: its colour and its pattern; a frame one square off its kingdom slides
back) -> rectify to a top-down image (a small kingdom's from the photo decoded in full) -> cut the N×N
squares -> classify (SquareClassifier) -> weigh *empty* by the table comparison -> account for the castle
model leaning over its neighbours as the camera sees it (scanner.tall) -> joint decoding under the box rules
(scanner.decode), the squares the castle hides read again from what it leaves visible -> flags for the
player -> score. Every stage is timed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache, cached_property, partial
from pathlib import Path

import cv2
import numpy as np

from kingdomino.board import Kingdom, Terrain
from kingdomino.labels import CASTLE_LABEL, LABELS, SquareReading
from kingdomino.scoring import ScoreReport, score_kingdom
from scanner.by_hand import given_corners, located_by_hand
from scanner.covered import (
    filled_in,
    hidden_neighbours,
    inpainted,
    keep_castle,
    piece_blob,
    piece_reading,
    printed_look,
    soften_hidden,
    visible_part,
    with_pieces,
)
from scanner.deblur import Smear
from scanner.decode import solve_kingdom, with_margins
from scanner.errors import PhotoError, ScanError
from scanner.geometry import frame_corners, moved_frame, square_px
from scanner.imageio import DECODE_MAX_SIDE, array_photo, load_photo
from scanner.locate import (
    DEFAULT_SETTINGS,
    FrameUnreliable,
    Located,
    LocatorRefusal,
    LocatorSettings,
    TooSmall,
    fit_frame,
    for_the_photo,
    locate_kingdom,
)
from scanner.overlay import draw_lattice, draw_readings
from scanner.reading import (
    DEFAULT_READING,
    ReadingDetails,
    ReadingSettings,
    any_reason,
    castle_square,
    deblurred_kingdom,
    doubtful_squares,
    glare_squares,
    looks_unfamiliar,
    review_reasons,
)
from scanner.rectify import cut_squares, rectify
from scanner.table import (
    cell_lab,
    combined_evidence,
    evidence_for_empty,
    pattern_evidence,
    pattern_likeness,
    shade_free_evidence,
    shade_free_likeness,
    slide_for,
    table_distances,
    table_in_view,
    weigh_empty,
)
from scanner.tall import (
    PIECE_LIGHTNESS,
    Leaning,
    camera_from_homography,
    castle_leaning,
    leans,
    pieces_on_tiles,
    walls_mask,
)

MOVED_FRAME_NOTE = (
    "a whole edge row or column is empty: the frame was placed with the castle as central as possible"
)
SLID_FRAME_NOTE = (
    "the frame was moved by one square onto the kingdom: its edge showed the table and tiles lay just "
    "beyond the opposite edge"
)
#: A kingdom found only on a reduced or sharpened copy of a blurred photo (the locator's blur attempts)
#: is kept when at most BLURRED_MAX_FLAGGED of its squares are flagged or doubtful (doubtful_squares): a
#: frame a square off the kingdom breaks the dominoes and the table comparison: on blurred photos that every
#: other search refused, frames on the kingdom had few such squares and frames a square off many
#: (docs/experiments.md, "Flags calibrated on whole photos", blurred photos; on smeared photos no other
#: count tells them apart: "Calibrating the deconvolved squares and the smeared photo's note"). The count
#: follows the decoder's flag margin (decode.FLAG_MARGIN): a higher margin refuses more blurred frames.
BLURRED_MAX_FLAGGED = 0.1
BLURRED_NOTE = (
    "the photo is blurred: the kingdom was found on a smaller or sharpened copy; check the frame and squares"
)
#: A frame that barely passed the locator's judge (or came from a blurred copy) is said to be unsure.
FRAME_UNSURE_NOTE = "the grid may be misplaced: check the corners"
GRAYSCALE_NOTE = "the photo is black and white: terrains were read from texture alone; check every square"
UNFAMILIAR_NOTE = (
    "many squares were read unsure: the light, colours or camera may be unlike the photos the model "
    "learnt from; check every square"
)
DIM_NOTE = "the photo is dark: terrains are harder to tell apart; check the marked squares or add light"
GLARE_NOTE = "a reflection washes out part of {count} square(s): check them, or photograph without the glare"
PIECE_NOTE = "a piece stands on {count} square(s): they were read around it; check them"
#: The squares of a kingdom whose motion blur was undone (reading.deblurred_kingdom) are misread more often
#: than a sharp kingdom's, so more of them are flagged: say why (docs/experiments.md, "Calibrating the
#: deconvolved squares and the smeared photo's note", "One flag margin for both generators' whole photos").
SMEARED_NOTE = (
    "the photo is smeared (camera moved): its squares were sharpened before reading; "
    "check any marked squares, or hold the phone still"
)


@dataclass
class ScanResult:
    """Everything the scanner read from one photo (the page and ``kingdomino scan --json`` use it)."""

    photo: str
    grid_size: int
    readings: list[list[SquareReading]]
    kingdom: Kingdom
    corners: np.ndarray  # (4, 2) TL, TR, BR, BL of the squares grid, in the original photo's pixels
    score: ScoreReport
    flagged: np.ndarray  # (N, N) bool: squares to confirm
    rectified: np.ndarray
    image: np.ndarray = field(repr=False)  # the decoded photo the lattice was found on
    grid_to_image: np.ndarray = field(repr=False)  # homography: grid units -> `image` pixels
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    #: the locator's attempts, "name=outcome" in order (see scanner.locate.attempts), for the benchmarks
    path: list[str] = field(default_factory=list)
    #: (N, N, 18) classifier output, weighed with the table around the kingdom, before decoding
    probabilities: np.ndarray | None = None
    #: the classifier's own probabilities, the decoder's margins and the castle's geometry
    details: ReadingDetails | None = field(default=None, repr=False)
    #: why squares are flagged: rule name -> (N, N) bool, ``flagged`` is their union
    flag_reasons: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    #: Lab lightness (uint8) of the kingdom's brightest pixels, before any brightening
    lightness: float | None = None
    #: the locator judge's doubt of the frame it kept, by evidence (their sum over one makes the frame note;
    #: ``Verdict.doubts``); empty for a frame placed by hand. For the benches' records.
    frame_doubts: dict[str, float] = field(default_factory=dict)

    def to_json_dict(self) -> dict:
        """The ``kingdomino scan --json`` line of this photo."""
        data = {
            "photo": self.photo,
            "grid_size": self.grid_size,
            "squares": [[reading.to_dict() for reading in row] for row in self.readings],
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "score": self.score.to_dict(),
        }
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    @cached_property
    def overlay(self) -> np.ndarray:
        """A display-sized copy of the photo with the lattice drawn: made only when shown or written,
        so ``kingdomino scan --json`` and the benchmark do not pay for it."""
        return draw_lattice(self.image, self.grid_to_image, self.grid_size)

    def readings_overlay(self) -> np.ndarray:
        """The rectified kingdom with the label and confidence of every square."""
        return draw_readings(self.rectified, self.readings, self.flagged)


@dataclass
class _Frame:
    """What was read in one frame of the photo, as the scan's stages hand it on."""

    kingdom: Kingdom
    readings: list[list[SquareReading]]
    flagged: np.ndarray
    rectified: np.ndarray
    probabilities: np.ndarray
    details: ReadingDetails | None
    homography: np.ndarray
    notes: list[str]
    lightness: float
    reasons: dict[str, np.ndarray] = field(default_factory=dict)


def _photo(source: str | Path | bytes | np.ndarray, name: str | None) -> tuple:
    """(image, grayscale, label, to_original, scale) of a photo file, its bytes or a BGR array; ``scale``:
    pixels of the decoded image per pixel of the original photo."""
    if isinstance(source, np.ndarray):
        return array_photo(source), False, name or "<image>", None, 1.0
    photo = load_photo(source, max_side=DECODE_MAX_SIDE, name=name)
    return photo.image, photo.grayscale, name or photo.source, photo.to_original, photo.scale


class KingdomScanner:
    """Loads the square classifier once; ``scan`` reads one photo (path, bytes or BGR array)."""

    def __init__(
        self,
        classifier=None,
        compare_table: bool = True,
        reading: ReadingSettings = DEFAULT_READING,
        locator: LocatorSettings = DEFAULT_SETTINGS,
        locate: Callable[..., Located] = locate_kingdom,
    ) -> None:
        """``compare_table=False`` reads squares without the table around the kingdom (for measuring it);
        ``reading`` sets how squares are read and flagged; ``locator``: the locator's settings; ``locate``:
        the function that finds the kingdom (a test may hand in another)."""
        if classifier is None:
            from model.classifier import SquareClassifier  # raises ModelLoadError with a clear reason

            classifier = SquareClassifier.load()
        self.classifier = classifier
        self.compare_table = compare_table
        self.reading = reading
        self.locator = locator
        self.locate = locate

    def scan(
        self,
        source: str | Path | bytes | np.ndarray,
        grid: int | str = "auto",
        name: str | None = None,
        corners: np.ndarray | None = None,
    ) -> ScanResult:
        """Read the kingdom in a photo. Raises a ScanError subclass with a one-line reason.

        ``corners`` (4×2: TL, TR, BR, BL of the squares grid, in the original photo's pixels) reads the
        kingdom in that frame instead of searching for it, as the page does when a player places the
        frame by hand; ``grid`` must then be 5 or 7.
        """
        if grid not in ("auto", 5, 7, "5", "7"):
            raise ScanError(f"grid must be 5, 7 or auto, not {grid!r}")
        grid = grid if grid == "auto" else int(grid)
        by_hand = corners is not None
        if by_hand:
            corners = given_corners(corners, grid)
        timings: dict[str, float] = {}
        start = time.perf_counter()
        image, grayscale, label, to_original, scale = _photo(source, name)
        timings["decode"] = time.perf_counter() - start

        t0 = time.perf_counter()
        doubts: dict[str, float] = {}  # a frame placed by hand has none
        if not by_hand:
            settings = locator_for(self.locator, scale)
            try:
                located = self.locate(image, grid=grid, grayscale=grayscale, settings=settings)
            except TooSmall as refusal:  # the sizes the player can act on are the photo's, not the copy's
                raise refusal.in_photo(scale) from None
            except LocatorRefusal as refusal:  # said as the photo's light or colours explain it
                raise for_the_photo(refusal, grayscale, float(np.percentile(image[::8, ::8], 99))) from None
            if located.verdict is not None:
                doubts = located.verdict.doubts(settings)
        else:
            located = located_by_hand(corners, int(grid), to_original)
        timings["locate"] = time.perf_counter() - t0

        cpu = time.process_time()  # the reading stages' processor time: steadier than the clock
        full = full_photo(source, scale, name)  # None for an array (scale 1)
        frame = self._read_frame(image, located, by_hand, timings, full)
        self._review(frame, located, grayscale)
        t0 = time.perf_counter()
        report = score_kingdom(frame.kingdom)
        timings["decode_score"] += time.perf_counter() - t0
        timings["reading_cpu"] = time.process_time() - cpu

        n = located.grid_size
        corners = located.corners
        if frame.homography is not located.homography:
            corners = frame_corners(frame.homography, n)
        corners = corners if to_original is None else to_original(corners)
        timings["total"] = time.perf_counter() - start
        timings.update({key: value for key, value in located.timings.items()})
        return ScanResult(
            photo=label,
            grid_size=n,
            readings=frame.readings,
            kingdom=frame.kingdom,
            corners=np.asarray(corners, dtype=float),
            score=report,
            flagged=frame.flagged,
            rectified=frame.rectified,
            image=image,
            grid_to_image=frame.homography,
            notes=frame.notes,
            timings=timings,
            path=list(located.path),
            probabilities=frame.probabilities,
            details=frame.details,
            flag_reasons=frame.reasons,
            lightness=frame.lightness,
            frame_doubts=doubts,
        )

    def _read_frame(
        self, image: np.ndarray, located: Located, by_hand: bool, timings: dict, full: Callable | None = None
    ) -> _Frame:
        """The squares of the located frame, read against the table; the frame slid off a strip of table
        or moved to put the castle central when the reading says so (never a frame placed by hand).
        ``full``: decodes the photo at full resolution (None for an array), for a small kingdom's squares."""
        n, homography, notes = located.grid_size, located.homography, list(located.notes)
        t0 = time.perf_counter()
        rectified = rectify(image, homography, n)
        lightness = _lightness(rectified)
        seen = brightened(image, homography, n, lightness)  # the photo as the table and classifier see it
        table = self._table_cells(seen, homography, n)  # for the slide and the reading
        slide = slide_for(table[0], n) if not by_hand else (0, 0)
        gray = located.gray  # the locator's grey copy of this photo: a moved frame is refitted on it
        if slide != (0, 0):
            gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if gray is None else gray
            homography = self._moved(gray, homography, n, slide)
            notes.append(SLID_FRAME_NOTE)
            table = self._table_cells(seen, homography, n)
        timings["table"] = time.perf_counter() - t0
        t0 = time.perf_counter()  # the kingdom rectified for its lightness is read, unless brightened or slid
        known = rectified if seen is image and slide == (0, 0) else None
        cut = kingdom_cut(image, homography, n, self.reading, full, lightness, known, seen=seen)
        timings["rectify"] = time.perf_counter() - t0  # with the photo decoded again for a small kingdom
        read = self._read(cut, homography, n, timings, table)
        shift = castle_shift(read[0]) if not by_hand else (0, 0)
        if shift != (0, 0):  # an empty edge row or column: place the frame with the castle central
            gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if gray is None else gray
            moved = self._moved(gray, homography, n, shift)
            moved_cut = kingdom_cut(image, moved, n, self.reading, like=cut)
            again = self._read(moved_cut, moved, n, {}, self._table_cells(seen, moved, n))
            castle = castle_square(read[0])
            expected = (castle[0] - shift[0], castle[1] - shift[1])
            if castle_square(again[0]) == expected and _tiles(again[0]) >= _tiles(read[0]):  # no tile lost
                read, homography = again, moved
                notes.append(MOVED_FRAME_NOTE)
        return _Frame(*read, homography=homography, notes=notes, lightness=lightness)

    def _moved(self, gray: np.ndarray, homography: np.ndarray, n: int, squares: tuple) -> np.ndarray:
        """The frame moved by whole squares, fitted again to the seams where it now lies (its lines there
        were fitted on the other squares); ``gray``: the photo's grey copy."""
        return fit_frame(gray, moved_frame(homography, *squares), n, self.locator)

    def _review(self, frame: _Frame, located: Located, grayscale: bool) -> None:
        """The squares to check and the notes that say why; a frame found on a blurred copy whose
        squares read too unsure is refused."""
        n = located.grid_size
        reasons = frame.reasons
        reasons["read"] = frame.flagged.copy()
        if frame.details is not None:  # the decoder's margin and each review rule apart, for the flag reports
            reasons["margin"] = frame.details.margins < self.reading.flag_margin
            reasons.update({f"review_{name}": flags for name, flags in (frame.details.review or {}).items()})
        pieces = (frame.details.review or {}).get("piece") if frame.details is not None else None
        if pieces is not None and pieces.any():
            frame.notes.append(PIECE_NOTE.format(count=int(pieces.sum())))
        if frame.details is not None and frame.details.deblurred and not located.deblurred:
            frame.notes.append(SMEARED_NOTE)  # a frame found on a blurred copy says it in BLURRED_NOTE
        glare = glare_squares(frame.rectified, frame.kingdom)
        if glare.any():
            frame.notes.append(GLARE_NOTE.format(count=int(glare.sum())))
            reasons["glare"] = glare
        if grayscale:
            frame.notes.append(GRAYSCALE_NOTE)
            reasons["grayscale"] = np.ones_like(frame.flagged, dtype=bool)
        elif looks_unfamiliar(frame.probabilities):
            frame.notes.append(UNFAMILIAR_NOTE)
        if not grayscale and frame.lightness < self.reading.dim_below:
            frame.notes.append(DIM_NOTE)
        for flags in reasons.values():
            frame.flagged = frame.flagged | flags
        if located.deblurred:
            if (frame.flagged | doubtful_squares(frame.details)).sum() > BLURRED_MAX_FLAGGED * n * n:
                raise FrameUnreliable()
            frame.notes.append(BLURRED_NOTE)
        elif located.unsure:
            frame.notes.append(FRAME_UNSURE_NOTE)

    def _table_cells(
        self, image: np.ndarray, homography: np.ndarray, n: int
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The frame's ``table_distances`` (None when no table is seen) and its cells in CIE Lab
        (``table.cell_lab``, made once for both comparisons with the table); (None, None) when switched off
        or when too little of the frame's ring is in the photo (a cropped board)."""
        if not self.compare_table or not table_in_view(image.shape, homography, n):
            return None, None  # no table to compare with: no warp for it
        lab = cell_lab(image, homography, n)
        return table_distances(image, homography, n, lab), lab

    def _read(
        self, cut: KingdomCut, homography: np.ndarray, n: int, timings: dict[str, float], table: tuple
    ) -> tuple:
        """Classify the ``cut`` squares, weigh *empty* by the frame's ``_table_cells``, account for the castle
        leaning over its neighbours and decode the N×N frame: (kingdom, readings, flagged, rectified,
        probs, details)."""
        image, rectified, crops = cut.seen, cut.rectified, cut.crops
        t0 = time.perf_counter()
        try:
            raw = np.asarray(self.classifier.predict_proba(crops, photo=True), dtype=float)
            raw = raw.reshape(n, n, len(LABELS))
        except Exception as error:  # a model that does not match its feature code must not crash a scan
            raise ScanError(f"the square classifier failed ({type(error).__name__}: {error})") from error
        timings["classify"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        settings = self.reading
        distances, lab = table
        evidence = evidence_for_empty(distances, n)  # None when the table is not compared
        likeness = None if lab is None else pattern_likeness(image, homography, n, lab)
        if likeness is not None:  # the table's pattern too: a patterned cloth has no one mean colour
            shade = shade_free_likeness(image, homography, n, lab) if settings.table_shade else None
            pattern = pattern_evidence(likeness, n)
            evidence = combined_evidence(evidence, pattern, shade_free_evidence(shade, n))
        timings["table"] = timings.get("table", 0.0) + time.perf_counter() - t0

        t0 = time.perf_counter()  # the castle's lean and pieces are part of reading the squares
        whole = weigh_empty(raw, evidence)  # the castle's place is read without the pieces
        heights = settings.castle_height, settings.castle_tallest
        cover, leaning = castle_leaning(
            whole, rectified, homography, image.shape, *heights, settings.castle_painted
        )
        raw, occluded = self._pieces(crops, raw, whole, rectified, homography, image.shape)
        on_piece = occluded > 0  # read from both readings, keeping the castle's probability
        weighed = with_pieces(leaning.probabilities, weigh_empty(raw, evidence), on_piece)
        covered = np.maximum(leaning.hidden, occluded)  # by the castle or a piece
        weighed = soften_hidden(weighed, covered, settings.hidden_share, settings.hidden_soften, on_piece)
        timings["classify"] += time.perf_counter() - t0

        t0 = time.perf_counter()
        solved = solve_kingdom(weighed)  # the labels first: the castle's place decides what is read again
        timings["decode_score"] = time.perf_counter() - t0
        castle = castle_square(solved.kingdom)
        hidden = hidden_neighbours(cover[castle], castle, settings.hidden_flag_share) if castle else []
        hidden = [(r, c, share) for r, c, share in hidden if not on_piece[r, c]]  # a piece's: read already
        if hidden:  # read what the castle leaves visible of the squares it leans over, and decode again
            raw, weighed, solved = self._decode_visible(
                crops, raw, evidence, replace(leaning, hidden=covered), hidden, castle, timings, on_piece
            )
        t0 = time.perf_counter()
        decoded = with_margins(solved, settings.flag_margin)
        kingdom, readings = decoded.kingdom, [list(row) for row in decoded.readings]
        timings["decode_score"] += time.perf_counter() - t0
        t0 = time.perf_counter()  # the walls' check classifies squares again: part of reading them
        unseen = self._walls_unseen(crops, homography, image.shape, cover, kingdom, decoded.margins, on_piece)
        timings["classify"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        details = ReadingDetails(
            raw=raw,
            evidence=evidence,
            likeness=likeness,
            margins=np.asarray(decoded.margins),
            cover=cover,
            leaning=leaning,
            changed=np.asarray(decoded.changed, dtype=bool),
            orphans=np.asarray(decoded.orphans, dtype=bool),
            pieces=on_piece,
            deblurred=cut.smear is not None,
            unseen=unseen,
        )
        details = replace(details, review=review_reasons(kingdom, details, settings))
        flagged = np.asarray(decoded.flagged, dtype=bool) | any_reason(details.review)
        timings["decode_score"] += time.perf_counter() - t0
        return kingdom, readings, flagged, rectified, weighed, details

    def _decode_visible(
        self,
        crops: list,
        raw: np.ndarray,
        evidence: np.ndarray,
        leaning: Leaning,
        hidden: list,
        castle: tuple[int, int],
        timings: dict[str, float],
        pieces: np.ndarray,  # (N, N) bool: squares a piece stands on, which keep their castle probability
    ) -> tuple:
        """(raw, weighed, solved) again with the squares the castle hides read from what it leaves visible."""
        t0 = time.perf_counter()
        away = [(r, c, share, (r - castle[0], c - castle[1])) for r, c, share in hidden]
        raw = self._read_visible(crops, raw, away)
        probabilities = keep_castle(weigh_empty(raw, evidence), leaning.probabilities, pieces)  # as in _read
        probabilities[castle + (CASTLE_LABEL,)] = max(
            probabilities[castle + (CASTLE_LABEL,)], leaning.probabilities[castle + (CASTLE_LABEL,)]
        )
        probabilities /= probabilities.sum(axis=-1, keepdims=True)
        weighed = soften_hidden(
            probabilities, leaning.hidden, self.reading.hidden_share, self.reading.hidden_soften, pieces
        )
        timings["classify"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        solved = solve_kingdom(weighed)
        timings["decode_score"] += time.perf_counter() - t0
        return raw, weighed, solved

    def _walls_unseen(
        self, crops: list, homography, shape, cover, kingdom: Kingdom, margins, pieces
    ) -> np.ndarray:
        """(N, N) bool: the squares the decoded castle hides hidden_flag_share of, read sure (their margin at
        least hidden_margin), whose reading with the walls' silhouette painted out (tall.walls_mask,
        covered.filled_in) is another label than the decoded one: what the walls hide may be what the
        reading missed (a crown under them, the print the walls' colour took for another terrain)."""
        settings, n = self.reading, kingdom.grid_size
        unseen = np.zeros((n, n), dtype=bool)
        castle = castle_square(kingdom)
        if castle is None or not settings.castle_walls:
            return unseen
        hidden = cover[castle].copy()
        hidden[castle] = 0.0
        cells = np.argwhere(
            (hidden >= settings.hidden_flag_share) & (np.asarray(margins) >= settings.hidden_margin)
        )
        cells = [(int(r), int(c)) for r, c in cells if not pieces[r, c]]
        if not cells:
            return unseen
        lean = leans(camera_from_homography(homography, shape), n, settings.castle_height)[castle]
        grow, side = settings.castle_walls_grow, settings.castle_walls_side
        painted = [
            filled_in(crops[r * n + c], walls_mask(lean, castle, (r, c), crops[r * n + c].shape, grow), side)
            for r, c in cells
        ]
        for (r, c), reread in zip(cells, self._classify_again(crops, painted), strict=True):
            unseen[r, c] = LABELS[int(np.argmax(reread))] != kingdom[r, c]
        return unseen

    def _pieces(self, crops: list, raw: np.ndarray, whole, rectified, homography, shape) -> tuple:
        """(``raw`` with the squares a piece stands on (pieces_on_tiles of ``whole``) read with the piece
        painted out (piece_blob, inpainted) where its blob looks painted (printed_look), or from both the
        whole square and the side the piece leaves visible (piece_reading), the share of each square it
        hides)."""
        occluded = np.zeros(raw.shape[:2])
        settings = self.reading
        pieces = pieces_on_tiles(rectified, homography, shape, whole) if settings.pieces else {}
        for cell, piece in pieces.items():
            occluded[cell] = piece.share
        n, painted, free = raw.shape[0], {}, []
        for (r, c), p in pieces.items():
            if settings.piece_painted_out:
                paint = (PIECE_LIGHTNESS, settings.piece_tolerance, settings.piece_paint_side)
                small, blob = piece_blob(crops[r * n + c], p.colour, *paint, p.footprint)
                if printed_look(small, blob) <= settings.piece_printed_most:
                    painted[r, c] = inpainted(small, blob)
                    continue
            if settings.piece_visible:
                free.append((r, c, p.share, p.away))
        if painted:
            kept = np.zeros(raw.shape[:2], bool)
            kept[tuple(np.array(list(painted)).T)] = True
            # its castle probability stays the whole square's: a piece says nothing of where the castle is
            raw = keep_castle(self._read_again(crops, raw, list(painted), list(painted.values())), raw, kept)
        if free:
            pooled = np.zeros(raw.shape[:2], bool)
            pooled[tuple(np.array([(r, c) for r, c, _, _ in free]).T)] = True
            raw = piece_reading(raw, self._read_visible(crops, raw, free), pooled)
        return raw, occluded

    def _read_visible(self, crops: list, raw: np.ndarray, hidden: list) -> np.ndarray:
        """``raw`` with squares read again from their visible part: ``hidden`` holds (row, column, share
        hidden, step away from what hides it) of the castle's neighbours or of squares a piece stands on."""
        n = raw.shape[0]
        visible = [visible_part(crops[r * n + c], away, share) for r, c, share, away in hidden]
        return self._read_again(crops, raw, [(r, c) for r, c, _, _ in hidden], visible)

    def _read_again(self, crops: list, raw: np.ndarray, cells: list, images: list) -> np.ndarray:
        """``raw`` with the ``cells`` read again from ``images`` (what is left of each square once what
        stands on it or hides it is taken away), castle probability off."""
        raw = raw.copy()
        for (r, c), reread in zip(cells, self._classify_again(crops, images), strict=True):
            raw[r, c] = reread
        return raw

    def _classify_again(self, crops: list, images: list) -> np.ndarray:
        """(len(images), labels) probabilities of ``images`` (squares with what stands on them or hides them
        taken away), castle probability off and the rest renormalised."""
        try:  # the other squares light the photo as they did when first read
            again = np.asarray(self.classifier.predict_proba(images, photo=True, context=crops), dtype=float)
        except Exception as error:
            raise ScanError(f"the square classifier failed ({type(error).__name__}: {error})") from error
        again[:, CASTLE_LABEL] = 0.0  # the castle stands beside it (a piece is never found on it)
        return again / again.sum(axis=1, keepdims=True)


#: A kingdom darker than every training photo is brightened before it is compared with the table and
#: its squares are read: when the brightest 1 % of its pixels are under DARK_BELOW in Lab lightness
#: (uint8; the training photos are all brighter), the photo is scaled
#: so they reach BRIGHTEN_TO, at most MAX_BRIGHTEN times. In such a photo the classifier takes dark forests
#: for lakes, and the table comparison dark squares for a dark table; a photo within the range is untouched.
DARK_BELOW = 150.0
BRIGHTEN_TO = 190.0
MAX_BRIGHTEN = 3.0


def brightened(image: np.ndarray, homography: np.ndarray, n: int, top: float | None = None) -> np.ndarray:
    """The BGR photo, brightened when the kingdom in its N×N frame (grid -> image ``homography``) is darker
    than any photo the classifier learnt from (see DARK_BELOW); otherwise the same array. ``top``: the
    frame's kingdom_lightness, when already measured."""
    top = kingdom_lightness(image, homography, n) if top is None else top
    if top >= DARK_BELOW:
        return image
    return cv2.convertScaleAbs(image, alpha=min(MAX_BRIGHTEN, BRIGHTEN_TO / max(top, 1.0)))


def locator_for(settings: LocatorSettings, scale: float) -> LocatorSettings:
    """The locator's settings for a copy decoded at ``scale`` of the photo: the smallest readable square is
    one of the photo taken, since a small kingdom's squares are cut from the photo decoded in full."""
    if scale >= 1.0:
        return settings
    return replace(settings, min_square_px=settings.min_square_px * scale)


#: The photo is decoded again in full for a small kingdom only when that gives this many times the pixels
#: per square of the reduced copy.
FULL_RESOLUTION_GAIN = 1.2


def full_photo(
    source: str | Path | bytes, scale: float, name: str | None = None
) -> Callable[[], np.ndarray] | None:
    """What decodes the photo in full, once, for a small kingdom's squares (detail_source), when the copy
    the scanner reads was decoded at ``scale`` of it; None when that gains too little
    (FULL_RESOLUTION_GAIN)."""
    if scale * FULL_RESOLUTION_GAIN > 1.0:
        return None
    return cache(partial(_full_photo, source, name))


def _full_photo(source: str | Path | bytes, name: str | None) -> np.ndarray:
    return load_photo(source, name=name).image


def detail_source(
    image: np.ndarray,
    homography: np.ndarray,
    n: int,
    full: Callable[[], np.ndarray] | None,
    lightness: float,
    below: float,
) -> tuple[np.ndarray, np.ndarray] | None:
    """(part of the photo at full resolution, map from ``image``'s pixels to it) to cut the squares of a
    kingdom from when they are under ``below`` pixels in the reduced ``image`` and the photo was reduced;
    else None. The part holds the frame and half the grid around it (the frame may still move by that
    much), brightened like ``image`` (``lightness``: the frame's kingdom_lightness)."""
    if full is None or square_px(frame_corners(homography, n), n) >= below:
        return None
    try:
        photo = full()
    except PhotoError:  # e.g. refused in full where the reduced copy was allowed: read the copy
        return None
    factors = np.array([photo.shape[1] / image.shape[1], photo.shape[0] / image.shape[0]])
    if factors.min() < FULL_RESOLUTION_GAIN:  # the copy was not reduced, or hardly
        return None
    to_full = np.diag([factors[0], factors[1], 1.0])
    corners = frame_corners(to_full @ homography, n)
    reach = (n // 2 + 1) * square_px(corners, n)
    x0, y0 = np.clip(np.floor(corners.min(axis=0) - reach), 0, None).astype(int)
    x1 = int(min(photo.shape[1], np.ceil(corners[:, 0].max() + reach)))
    y1 = int(min(photo.shape[0], np.ceil(corners[:, 1].max() + reach)))
    if x1 <= x0 or y1 <= y0:
        return None
    to_part = np.array([[1.0, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ to_full
    part = brightened(photo[y0:y1, x0:x1], to_part @ homography, n, lightness)
    return part, to_part


@dataclass(frozen=True)
class KingdomCut:
    """The N×N kingdom of one frame as the classifier reads it (kingdom_cut)."""

    seen: np.ndarray  # the photo brightened when dark: the table is compared on it
    rectified: np.ndarray  # the kingdom as taken: the castle, pieces and glare are looked for on it
    crops: list  # the N*N squares the classifier reads, row by row: cut with a clear motion blur undone
    smear: Smear | None  # the smear undone (reading.deblurred_kingdom), or None
    detail: tuple | None = None  # (full-resolution part, map from the photo's pixels) cut from, or None


def kingdom_cut(
    image: np.ndarray,
    homography: np.ndarray,
    n: int,
    settings: ReadingSettings = DEFAULT_READING,
    full: Callable[[], np.ndarray] | None = None,
    lightness: float | None = None,
    rectified: np.ndarray | None = None,
    like: KingdomCut | None = None,
    seen: np.ndarray | None = None,
) -> KingdomCut:
    """The squares of the N×N frame (grid -> ``image`` ``homography``) as the scanner reads them: the photo
    brightened when dark, the kingdom rectified from the photo decoded in full when small (``full``, see
    detail_source; None for an array), a clear straight motion blur undone, the squares cut. The one path
    of the scanner and of the training squares cut from whole scenes (benchmarks.scene_squares).
    ``lightness``: the frame's kingdom_lightness, ``rectified``: the frame rectified from ``image``, when
    known; ``like``: an earlier cut of this photo whose brightened copy and full-resolution part serve this
    frame too (the frame moved by a square: one decision on the resolution for both readings compared);
    ``seen``: ``image`` brightened for ``lightness`` already (brightened), when known."""
    if like is not None:
        seen, detail = like.seen, like.detail
        rectified = None
    else:
        if lightness is None:
            rectified = rectify(image, homography, n) if rectified is None else rectified
            lightness = _lightness(rectified)
        seen = brightened(image, homography, n, lightness) if seen is None else seen
        detail = detail_source(image, homography, n, full, lightness, settings.full_resolution_below)
    if detail is not None:
        rectified = rectify(detail[0], detail[1] @ homography, n)
    elif seen is not image or rectified is None:
        rectified = rectify(seen, homography, n)
    restored, smear = deblurred_kingdom(rectified, n, settings)  # undone for the classifier only
    return KingdomCut(seen, rectified, cut_squares(restored, n), smear, detail)


def kingdom_lightness(image: np.ndarray, homography: np.ndarray, n: int) -> float:
    """Lab lightness (uint8) of the brightest 1 % of the kingdom's pixels in the N×N frame."""
    return _lightness(rectify(image, homography, n))


def _lightness(kingdom: np.ndarray) -> float:
    """Lab lightness (uint8) of the brightest 1 % of a rectified kingdom's pixels."""
    return float(np.percentile(cv2.cvtColor(kingdom, cv2.COLOR_BGR2LAB)[..., 0], 99))


def castle_shift(kingdom: Kingdom) -> tuple[int, int]:
    """(rows, columns) to move the N×N frame by so the castle sits as central as the kingdom allows.

    A kingdom with a whole edge row or column missing fits its frame two ways; the photo cannot tell
    them apart, but the rules can: the castle is placed first, so the frame moves only across rows or
    columns that are entirely empty, towards the centre (the Middle Kingdom bonus depends on it).
    """
    castle = castle_square(kingdom)
    if castle is None:
        return (0, 0)
    n = kingdom.grid_size
    middle = n // 2
    empty = np.array([[kingdom[r, c].terrain == Terrain.EMPTY for c in range(n)] for r in range(n)])
    shift = []
    for position, lines in ((castle[0], empty.all(axis=1)), (castle[1], empty.all(axis=0))):
        leading = int(np.argmin(lines)) if not lines.all() else n
        trailing = int(np.argmin(lines[::-1])) if not lines.all() else n
        if position > middle:
            shift.append(min(position - middle, leading))
        elif position < middle:
            shift.append(-min(middle - position, trailing))
        else:
            shift.append(0)
    return shift[0], shift[1]


def _tiles(kingdom: Kingdom) -> int:
    return sum(square.terrain != Terrain.EMPTY for _, square in kingdom.cells())
