"""A doubted frame fitted again from where its seams show, after the locator's last fit (docs/experiments.md,
"A doubted frame fitted again where its seams show"): from the lattice of seams its drift was measured
against, then, on a photo showing a straight smear, with the smear undone. Each new frame is kept only when
the photo doubts it no more than the frame before. Runs once per scan, after the search and its budget."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from scanner.deblur import Smear, line_psf, wiener
from scanner.geometry import frame_corners, frame_homography, scaled_frame, upright_corners
from scanner.locate.judge import Verdict
from scanner.locate.refine import fit_frame, onto_drifted_seams, seam_support, smear_doubts
from scanner.locate.search import View


def fitted_again(
    view: View,
    homography: np.ndarray,
    size: int,
    verdict: Verdict,
    table: np.ndarray | None,
    smear: Callable[[], Smear | None],
) -> tuple[np.ndarray, Verdict]:
    """A doubted frame fitted to its seams again from where they may be read better: first from the lattice
    of seams its drift was measured against (``onto_drifted_seams``: a frame stretched or moved off one
    family's seams, when its drift is a doubt), when that puts more of its sides on a seam; then, while still
    doubted, on a photo showing a straight smear (``smear``: the photo's, in its pixels, measured when first
    asked), on a grey copy at most ``unsmeared_side`` long with the smear undone (``wiener``: a smeared seam
    is a line again), up to ``unsmeared_fits`` fits while each puts more of its sides on a seam there. Each
    new frame is kept only when the photo itself doubts it no more than the frame before
    (``_no_more_doubted``): a smear measured wrong undoes into seams not there. The same ``homography``
    object comes back when the frame does not move."""
    settings = view.settings
    drifted = verdict.seam_drift is not None and verdict.seam_drift > settings.max_seam_drift
    if settings.refit_drifted and drifted:
        start = time.perf_counter()
        moved = onto_drifted_seams(view.gray, homography, size, settings.fine_cell_px)
        moved = fit_frame(view.gray, moved, size, settings, table)
        if seam_support(view.gray, moved, size) > seam_support(view.gray, homography, size):
            homography, verdict = _no_more_doubted(view, homography, verdict, moved, size)
        view.timings["locate.refit"] = time.perf_counter() - start
    found = smear() if settings.unsmeared_fits and verdict.unsure(settings) else None
    if found is not None:
        start = time.perf_counter()
        scale = min(1.0, settings.unsmeared_side / max(view.gray.shape))
        # cv2.resize at a scale of one copies: the photo's own grey is never written to
        gray = cv2.resize(view.gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        on_copy = found.scaled(scale)
        sharp = wiener(gray, line_psf(on_copy.dx, on_copy.dy), settings.deblur_noise)
        start_frame = moved = scaled_frame(homography, 1 / scale)  # grid -> the copy
        support = seam_support(sharp, moved, size)
        for _ in range(settings.unsmeared_fits):
            fitted = fit_frame(sharp, moved, size, settings, table)
            gained = seam_support(sharp, fitted, size)
            if gained <= support:
                break
            moved, support = fitted, gained
        if moved is not start_frame:
            back = scaled_frame(moved, scale)  # grid -> the photo
            homography, verdict = _no_more_doubted(view, homography, verdict, back, size)
        view.timings["locate.unsmeared"] = time.perf_counter() - start
    return homography, verdict


def last_fit_doubts(view: View, homography: np.ndarray, size: int, verdict: Verdict) -> Verdict:
    """The verdict with the last fit's doubts (the outline, a smeared family's ridges, the seams' drift)
    measured on the photo for this frame; its other doubts (seams, rival, outside) stay the search's. A
    family whose ridges no longer show a smear has no ridge doubt: ``Verdict.doubt`` sums what is there."""
    outline = seam_support(view.gray, homography, size, lines="outline")
    ridges, drift = smear_doubts(view.gray, homography, size, cell=view.settings.fine_cell_px)
    return replace(verdict, outline_support=outline, ridge_support=ridges, seam_drift=drift)


def _no_more_doubted(
    view: View, homography: np.ndarray, verdict: Verdict, moved: np.ndarray, size: int
) -> tuple[np.ndarray, Verdict]:
    """The moved frame (upright) and its verdict, when the photo doubts it no more than the frame before
    (``last_fit_doubts``; the search's doubts carried over alike); else the frame before and its verdict."""
    moved = frame_homography(upright_corners(frame_corners(moved, size)), size)
    if not np.isfinite(moved).all():
        return homography, verdict
    judged = last_fit_doubts(view, moved, size, verdict)
    if judged.doubt(view.settings) <= verdict.doubt(view.settings):
        return moved, judged
    return homography, verdict
