"""KingdomScanner: one object that loads the model once and turns photos into scored kingdoms.

Pipeline per photo: load (EXIF-upright, reduced copy) -> locate the lattice -> compare the frame with
the table around it (scanner.table; a frame one square off its kingdom slides back) -> rectify to a
top-down image -> cut the N×N squares -> classify (SquareClassifier) -> weigh *empty* by the table
comparison -> joint decoding under the box rules (scanner.decode, if available; plain argmax otherwise)
-> score. Every stage is timed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from kingdomino.board import Kingdom, Terrain
from kingdomino.labels import LABELS, SquareReading
from kingdomino.scoring import ScoreReport, castle_cells, score_kingdom
from scanner.errors import ScanError
from scanner.geometry import frame_corners, moved_frame
from scanner.imageio import load_photo
from scanner.locate import DEFAULT_SETTINGS, FrameUnreliable, Located, LocatorSettings, locate_kingdom
from scanner.overlay import draw_lattice, draw_readings
from scanner.rectify import cut_squares, rectify
from scanner.table import evidence_for_empty, slide_for, table_distances, weigh_empty

#: Longest side of the copy a photo is decoded to: ~60 px per square on a kingdom 15 % of the photo wide,
#: and a 12-megapixel JPEG (4000 px) then decodes at half scale, about three times faster than in full.
DECODE_MAX_SIDE = 2000
MOVED_FRAME_NOTE = (
    "a whole edge row or column is empty: the frame was placed with the castle as central as possible"
)
SLID_FRAME_NOTE = (
    "the frame was moved by one square onto the kingdom: its edge showed the table and tiles lay just "
    "beyond the opposite edge"
)
#: A kingdom found only on a reduced or sharpened copy of a blurred photo (the locator's blur attempts)
#: is kept when at most BLURRED_MAX_FLAGGED of its squares are flagged: a frame a square off the kingdom
#: breaks the dominoes and the table comparison, so many squares are flagged. On the outside check's
#: blurred photos that every other search refused, the frames on the kingdom had 0-2 flagged squares of
#: 25, those a square or more off 6-25 (and one 0.1 square off with a misread square, 5).
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
#: A photo on which at least UNFAMILIAR_SHARE of the squares read under UNSURE_BELOW is flagged whole. On a
#: camera and light it never saw (fitted on the boards alone, reading the tiles), the classifier is wrong on
#: one square in four yet often sure; the rule marks 182 of those 195 tile photos (29 % of their squares
#: wrong), none of the 55 cross-validated boards, and 14 cross-validated tile photos (10 % wrong against
#: 1.4 % on the others). model/MODEL.md ("Another camera") has the current figures.
UNSURE_BELOW = 0.9
UNFAMILIAR_SHARE = 0.2
#: A lamp's reflection on the glossy tiles washes part of a square out to white, and the classifier may
#: then read it sure and wrong (a forest as wheat, a white blob as a crown). A tile on which one
#: connected patch of pixels with every channel at GLARE_LEVEL or more covers GLARE_SHARE of the square
#: is flagged. None of the 1375 board squares has such a patch; 74 of the 4149 tiles from other phone
#: photos have one, nearly all of them washed out by glare.
GLARE_LEVEL = 225
GLARE_SHARE = 0.1
GLARE_NOTE = "a reflection washes out part of {count} square(s): check them, or photograph without the glare"


def glare_squares(rectified: np.ndarray, kingdom: Kingdom) -> np.ndarray:
    """(N, N) bool: the tiles of the rectified N×N kingdom that a reflection washes out (see GLARE_SHARE).
    Squares read as empty show the table, which may be white all over."""
    n = kingdom.grid_size
    white = (rectified.min(axis=2) >= GLARE_LEVEL).astype(np.uint8)
    glare = np.zeros((n, n), dtype=bool)
    for ((row, col), cell), patch in zip(kingdom.cells(), cut_squares(white, n), strict=True):
        if cell.terrain == Terrain.EMPTY:
            continue
        count, _, stats, _ = cv2.connectedComponentsWithStats(patch, connectivity=8)
        glare[row, col] = count > 1 and stats[1:, cv2.CC_STAT_AREA].max() >= GLARE_SHARE * patch.size
    return glare


def looks_unfamiliar(probabilities: np.ndarray) -> bool:
    """Whether a photo's squares ((..., labels) classifier probabilities) read unsure often enough that
    the photo is flagged whole (see UNFAMILIAR_SHARE)."""
    return bool(np.mean(probabilities.max(axis=-1) < UNSURE_BELOW) >= UNFAMILIAR_SHARE)


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


class KingdomScanner:
    """Loads the square classifier once; ``scan`` reads one photo (path, bytes or BGR array)."""

    def __init__(
        self,
        classifier=None,
        compare_table: bool = True,
        locator: LocatorSettings = DEFAULT_SETTINGS,
        locate: Callable[..., Located] = locate_kingdom,
    ) -> None:
        """``compare_table=False`` reads squares without the table around the kingdom (for measuring it);
        ``locator``: the locator's settings; ``locate``: the function that finds the kingdom (a test may
        hand in another)."""
        if classifier is None:
            from model.classifier import SquareClassifier  # raises ModelLoadError with a clear reason

            classifier = SquareClassifier.load()
        self.classifier = classifier
        self.compare_table = compare_table
        self.locator = locator
        self.locate = locate

    def scan(
        self, source: str | Path | bytes | np.ndarray, grid: int | str = "auto", name: str | None = None
    ) -> ScanResult:
        """Read the kingdom in a photo. Raises a ScanError subclass with a one-line reason."""
        if grid not in ("auto", 5, 7, "5", "7"):
            raise ScanError(f"grid must be 5, 7 or auto, not {grid!r}")
        grid = grid if grid == "auto" else int(grid)
        timings: dict[str, float] = {}
        start = time.perf_counter()
        if isinstance(source, np.ndarray):
            image, grayscale, label, to_original = _array_photo(source), False, name or "<image>", None
        else:
            photo = load_photo(source, max_side=DECODE_MAX_SIDE, name=name)
            image, grayscale, label, to_original = (
                photo.image,
                photo.grayscale,
                name or photo.source,
                photo.to_original,
            )
        timings["decode"] = time.perf_counter() - start

        t0 = time.perf_counter()
        located = self.locate(image, grid=grid, grayscale=grayscale, settings=self.locator)
        timings["locate"] = time.perf_counter() - t0
        n = located.grid_size

        homography = located.homography
        notes = list(located.notes)
        t0 = time.perf_counter()
        seen = brightened(image, homography, n)  # the photo as the table comparison and classifier see it
        distances = self._table_distances(seen, homography, n)  # for the slide and the reading
        slide = slide_for(distances, n)
        if slide != (0, 0):
            homography = moved_frame(homography, *slide)
            notes.append(SLID_FRAME_NOTE)
            distances = self._table_distances(seen, homography, n)
        timings["table"] = time.perf_counter() - t0
        kingdom, readings, flagged, rectified, probabilities = self._read(
            seen, homography, n, timings, distances
        )
        shift = castle_shift(kingdom)
        if shift != (0, 0):  # an empty edge row or column: place the frame with the castle central
            moved = moved_frame(homography, *shift)
            again = self._read(seen, moved, n, {}, self._table_distances(seen, moved, n))
            castle = _castle(kingdom)
            expected = (castle[0] - shift[0], castle[1] - shift[1])
            if _castle(again[0]) == expected and _tiles(again[0]) >= _tiles(kingdom):  # no tile lost
                kingdom, readings, flagged, rectified, probabilities = again
                homography = moved
                notes.append(MOVED_FRAME_NOTE)
        glare = glare_squares(rectified, kingdom)
        if glare.any():
            notes.append(GLARE_NOTE.format(count=int(glare.sum())))
            flagged = flagged | glare
        if grayscale:
            notes.append(GRAYSCALE_NOTE)
            flagged = np.ones_like(flagged, dtype=bool)
        elif looks_unfamiliar(probabilities):
            notes.append(UNFAMILIAR_NOTE)
            flagged = np.ones_like(flagged, dtype=bool)
        if located.deblurred:
            if flagged.sum() > BLURRED_MAX_FLAGGED * n * n:
                raise FrameUnreliable()
            notes.append(BLURRED_NOTE)
        elif located.unsure:
            notes.append(FRAME_UNSURE_NOTE)
        t0 = time.perf_counter()
        report = score_kingdom(kingdom)
        timings["decode_score"] += time.perf_counter() - t0

        corners = located.corners
        if homography is not located.homography:
            corners = frame_corners(homography, n)
        corners = corners if to_original is None else to_original(corners)
        timings["total"] = time.perf_counter() - start
        timings.update({key: value for key, value in located.timings.items()})
        return ScanResult(
            photo=label,
            grid_size=n,
            readings=readings,
            kingdom=kingdom,
            corners=np.asarray(corners, dtype=float),
            score=report,
            flagged=flagged,
            rectified=rectified,
            image=image,
            grid_to_image=homography,
            notes=notes,
            timings=timings,
            path=list(located.path),
            probabilities=probabilities,
        )

    def _table_distances(self, image: np.ndarray, homography: np.ndarray, n: int) -> np.ndarray | None:
        """The frame's table comparison (scanner.table), None when switched off or no table is seen."""
        return table_distances(image, homography, n) if self.compare_table else None

    def _read(
        self,
        image: np.ndarray,
        homography: np.ndarray,
        n: int,
        timings: dict[str, float],
        distances: np.ndarray | None,
    ) -> tuple:
        """Rectify, cut, classify, weigh *empty* by the frame's ``_table_distances`` and decode the N×N
        frame: (kingdom, readings, flagged, rectified, probs)."""
        t0 = time.perf_counter()
        rectified = rectify(image, homography, n)
        crops = cut_squares(rectified, n)
        timings["rectify"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        try:
            probabilities = np.asarray(self.classifier.predict_proba(crops, photo=True), dtype=float)
            probabilities = probabilities.reshape(n, n, len(LABELS))
        except Exception as error:  # a model that does not match its feature code must not crash a scan
            raise ScanError(f"the square classifier failed ({type(error).__name__}: {error})") from error
        timings["classify"] = time.perf_counter() - t0

        if self.compare_table:
            probabilities = weigh_empty(probabilities, evidence_for_empty(distances, n))

        t0 = time.perf_counter()
        kingdom, readings, flagged = _decode(probabilities)
        timings["decode_score"] = time.perf_counter() - t0
        return kingdom, readings, flagged, rectified, probabilities


#: A kingdom darker than every training photo is brightened before it is compared with the table and
#: its squares are read: when the brightest 1 % of its pixels are under DARK_BELOW in Lab lightness
#: (uint8; the 55 boards and the tile photos of 5 or more tiles reach 155 and more), the photo is scaled
#: so they reach BRIGHTEN_TO, at most MAX_BRIGHTEN times. In such a photo the classifier takes dark forests
#: for lakes, and the table comparison dark squares for a dark table; a photo within the range is untouched.
DARK_BELOW = 150.0
BRIGHTEN_TO = 190.0
MAX_BRIGHTEN = 3.0


def brightened(image: np.ndarray, homography: np.ndarray, n: int) -> np.ndarray:
    """The BGR photo, brightened when the kingdom in its N×N frame (grid -> image ``homography``) is darker
    than any photo the classifier learnt from (see DARK_BELOW); otherwise the same array."""
    kingdom = rectify(image, homography, n)
    top = float(np.percentile(cv2.cvtColor(kingdom, cv2.COLOR_BGR2LAB)[..., 0], 99))
    if top >= DARK_BELOW:
        return image
    return cv2.convertScaleAbs(image, alpha=min(MAX_BRIGHTEN, BRIGHTEN_TO / max(top, 1.0)))


def castle_shift(kingdom: Kingdom) -> tuple[int, int]:
    """(rows, columns) to move the N×N frame by so the castle sits as central as the kingdom allows.

    A kingdom with a whole edge row or column missing fits its frame two ways; the photo cannot tell
    them apart, but the rules can: the castle is placed first, so the frame moves only across rows or
    columns that are entirely empty, towards the centre (the Middle Kingdom bonus depends on it).
    """
    castle = _castle(kingdom)
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


def _castle(kingdom: Kingdom) -> tuple[int, int] | None:
    return next(iter(castle_cells(kingdom)), None)


def _tiles(kingdom: Kingdom) -> int:
    return sum(square.terrain != Terrain.EMPTY for _, square in kingdom.cells())


def _array_photo(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] < 3 or image.dtype != np.uint8:
        raise ScanError("the image must be an 8-bit colour (BGR) array")
    return np.ascontiguousarray(image[:, :, :3])


def _decode(probabilities: np.ndarray) -> tuple[Kingdom, list[list[SquareReading]], np.ndarray]:
    """Joint decoding under the box rules when the decoder is available, else each square's argmax."""
    try:
        from scanner.decode import decode_kingdom
    except ImportError:
        decode_kingdom = None
    if decode_kingdom is not None:
        decoded = decode_kingdom(probabilities)
        readings = [list(row) for row in decoded.readings]
        return decoded.kingdom, readings, np.asarray(decoded.flagged, dtype=bool)
    n = probabilities.shape[0]
    readings = []
    for row in probabilities:
        readings.append([])
        for vector in row:
            label = LABELS[int(np.argmax(vector))]
            readings[-1].append(SquareReading(Terrain(label.terrain), label.crowns, float(vector.max())))
    kingdom = Kingdom.from_rows([[reading.square for reading in row] for row in readings])
    flagged = np.array([[reading.confidence < 0.6 for reading in row] for row in readings]).reshape(n, n)
    return kingdom, readings, flagged
