"""Find the kingdom's lattice of squares in a photo and the homography that maps its frame.

One locator: candidate frames come from several generators (scanner.locate.search, and colour regions in
scanner.locate.regions) run as a flat list of
attempts under a time budget (scanner.locate.attempts), and every candidate is judged on the same
evidence of what a kingdom is (scanner.locate.judge). A photo without an accepted frame is refused with
a typed reason (scanner.locate.refusals). Settings: ``LocatorSettings``.

Orientation convention of the result: the grid is read upright as seen in the photo: its top edge
(top-left -> top-right corner) is the frame side whose direction is closest to the photo's
left-to-right axis (see ``scanner.geometry.upright_rotation``).
"""

from scanner.locate.attempts import TWO_KINGDOMS_NOTE, Located, locate_kingdom, one_blas_thread
from scanner.locate.judge import Verdict, judge_content
from scanner.locate.refine import fit_frame, seam_support
from scanner.locate.refusals import (
    BlackAndWhite,
    CutOff,
    FrameUnreliable,
    LocatorRefusal,
    NoGridFound,
    NotTerrainColours,
    OnlyTablePattern,
    PhotoTooSmall,
    PlainSquares,
    SquaresAlike,
    TooDark,
    TooSmall,
    for_the_photo,
)
from scanner.locate.search import levelled
from scanner.locate.settings import ALL_ATTEMPTS, DEFAULT_SETTINGS, LocatorSettings

__all__ = [
    "ALL_ATTEMPTS",
    "DEFAULT_SETTINGS",
    "TWO_KINGDOMS_NOTE",
    "BlackAndWhite",
    "CutOff",
    "FrameUnreliable",
    "Located",
    "LocatorRefusal",
    "LocatorSettings",
    "NoGridFound",
    "NotTerrainColours",
    "OnlyTablePattern",
    "PhotoTooSmall",
    "PlainSquares",
    "SquaresAlike",
    "TooDark",
    "TooSmall",
    "Verdict",
    "fit_frame",
    "for_the_photo",
    "judge_content",
    "levelled",
    "locate_kingdom",
    "one_blas_thread",
    "seam_support",
]
