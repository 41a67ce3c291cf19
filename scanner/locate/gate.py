"""A cheap first test of a candidate frame, before the judge's costly steps (docs/experiments.md, "A cheap
first test before a candidate frame is judged in full").

A proposed lattice is refined on the seams, then described, fitted as a whole, placed on its lattice and
judged: the description, the joint fit and the placement cost most of a candidate's time, and most
candidates are refused, nearly all for seams their frame does not sit on. Their seam support right after
the refinement already says much of it: a frame the judge accepts sits on at least ``min_support`` less the
placement's credit (``placement_seam_credit``) of its sides once judged. The joint fit and the placement
may move a frame by up to a square, onto seams it missed, so only a frame whose refined support is well
below that (a share, ``gate_share``, of it) is refused there, with what was measured; after the first of
the two refinements (``gate_refinements``), which separates as well and spares the second. The test is put to
the lattices drawn in a colour region's outline (``search._in_outline``), proposed on the colours' contrast
with no seam asked: many of them are refused there. A lattice fitted to segments sits on them
by construction and is seldom refused for it (the test would cost it more than it saves); a central one's
placement also tells whether it is the table's own lattice (``search.lattice_search``).
"""

from __future__ import annotations

import numpy as np

from scanner.locate.judge import Verdict
from scanner.locate.refine import seam_support
from scanner.locate.refusals import NoGridFound
from scanner.locate.settings import LocatorSettings


def least_support(min_support: float, settings: LocatorSettings) -> float:
    """The seam support below which a refined frame is refused before it is described and placed: a share
    (``gate_share``) of the least any accepted frame may show (``min_support`` less the placement's whole
    credit)."""
    return settings.gate_share * max(min_support - settings.placement_seam_credit, 0.0)


def first_test(
    gray: np.ndarray, grid_to_work: np.ndarray, size: int, min_support: float, settings: LocatorSettings
) -> Verdict | None:
    """The refusal of a refined frame (grid -> ``gray`` homography) whose seam support is below
    ``least_support``; None when it is worth judging in full."""
    if settings.gate_share <= 0:
        return None
    support = seam_support(gray, grid_to_work, size)
    if support >= least_support(min_support, settings):
        return None
    return Verdict(seam_support=support, min_support=min_support, refusal=NoGridFound())
