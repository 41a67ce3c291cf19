"""The cheap first test of a candidate frame (scanner.locate.gate): a refined frame far off the seams is
refused before it is described, fitted and placed; one on its seams goes on to the full judgement."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from scanner.locate.gate import first_test, least_support
from scanner.locate.refusals import NoGridFound
from scanner.locate.settings import DEFAULT_SETTINGS

SQUARE = 50  # pixels per drawn square


def _kingdom(n: int) -> tuple[np.ndarray, np.ndarray]:
    """A grey N×N kingdom of textured squares with dark seams on a plain table, one square around it, and
    its frame (grid -> image homography)."""
    rng = np.random.default_rng(5)
    side = (n + 2) * SQUARE
    gray = np.full((side, side), 150, np.uint8)
    for row in range(n):
        for col in range(n):
            top, left = (row + 1) * SQUARE, (col + 1) * SQUARE
            gray[top : top + SQUARE, left : left + SQUARE] = 20  # the seam around it
            level = rng.integers(60, 230)
            tile = np.clip(level + rng.normal(0, 20, (SQUARE - 4, SQUARE - 4)), 0, 255)
            gray[top + 2 : top + SQUARE - 2, left + 2 : left + SQUARE - 2] = tile.astype(np.uint8)
    frame = np.array([[SQUARE, 0, SQUARE], [0, SQUARE, SQUARE], [0, 0, 1.0]])
    return gray, frame


def test_the_least_support_is_a_share_of_what_an_accepted_frame_needs_at_least() -> None:
    settings = replace(DEFAULT_SETTINGS, gate_share=0.5)
    least = settings.min_seam_support - settings.placement_seam_credit
    assert least_support(settings.min_seam_support, settings) == 0.5 * least
    assert least_support(settings.min_window_seam_support, settings) > 0.5 * least  # a window needs more
    assert least_support(0.0, settings) == 0.0  # never below nothing


def test_a_frame_on_its_seams_is_judged_in_full_and_one_beside_them_is_refused() -> None:
    n = 5
    gray, frame = _kingdom(n)
    settings = replace(DEFAULT_SETTINGS, gate_share=1.0)
    assert first_test(gray, frame, n, settings.min_seam_support, settings) is None
    # a quarter of a square off on both axes: its lines cross the squares, not one seam
    beside = frame @ np.array([[1, 0, 0.25], [0, 1, 0.25], [0, 0, 1.0]])
    refused = first_test(gray, beside, n, settings.min_seam_support, settings)
    assert refused is not None and isinstance(refused.refusal, NoGridFound) and not refused.accepted
    assert refused.seam_support < least_support(settings.min_seam_support, settings)
    assert refused.min_support == settings.min_seam_support
    # on the plain table: no seam at all
    table = np.full_like(gray, 150)
    assert first_test(table, frame, n, settings.min_seam_support, settings) is not None


def test_no_share_judges_every_frame_in_full() -> None:
    n = 5
    gray, frame = _kingdom(n)
    settings = replace(DEFAULT_SETTINGS, gate_share=0.0)
    beside = frame @ np.array([[1, 0, 0.25], [0, 1, 0.25], [0, 0, 1.0]])
    assert first_test(gray, beside, n, settings.min_seam_support, settings) is None


def test_an_outline_lattice_off_the_seams_is_refused_after_one_refinement(monkeypatch) -> None:
    # gate_refinements: the test comes after the first of the two refinements, the second spared
    import cv2

    from scanner.locate import search

    n = 5
    gray, frame = _kingdom(n)
    table = np.full_like(gray, 150)  # the same frame on the plain table: no seam at all
    calls = []
    refine = search.refine
    monkeypatch.setattr(search, "refine", lambda *args, **kw: calls.append(1) or refine(*args, **kw))
    for refinements in (1, 2):
        settings = replace(DEFAULT_SETTINGS, gate_refinements=refinements)
        view = search.View(cv2.cvtColor(table, cv2.COLOR_GRAY2BGR), "auto", False, settings)
        calls.clear()
        found = search.judged(view.colour, table, frame, n, np.zeros((0, 2)), view, 1.0, 0.5, True)
        assert not found.verdict.accepted and isinstance(found.verdict.refusal, NoGridFound)
        assert len(calls) == refinements
