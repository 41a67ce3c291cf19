"""The locator as one search: its settings, its attempts and path, its typed refusals, its unsure frames."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from benchmarks.scenes import generate_scene
from scanner.errors import KingdomNotFoundError
from scanner.locate import (
    ALL_ATTEMPTS,
    LocatorRefusal,
    LocatorSettings,
    NoGridFound,
    locate_kingdom,
)
from scanner.recognizer import FRAME_UNSURE_NOTE, KingdomScanner
from tests.support.scan_fakes import ColourClassifier

SIZE = (1600, 1200)


def _table(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shading = cv2.resize(rng.normal(0, 1, (6, 8)).astype(np.float32), (1600, 1200))
    image = np.array([60, 100, 150], np.float32) * (1 + 0.1 * shading[..., None])
    return np.clip(image + rng.normal(0, 4, image.shape), 0, 255).astype(np.uint8)


def test_settings_are_one_frozen_dataclass_passed_as_a_parameter() -> None:
    settings = LocatorSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.min_seam_support = 0.1  # type: ignore[misc]
    assert settings.attempts == ALL_ATTEMPTS


def test_an_empty_table_is_refused_with_a_typed_reason_and_the_attempts_it_ran() -> None:
    with pytest.raises(NoGridFound) as caught:
        locate_kingdom(_table(0))
    assert "no kingdom" in str(caught.value) and "\n" not in str(caught.value)
    assert caught.value.path and caught.value.path[0].startswith("fast=")
    assert caught.value.overlay is not None
    assert isinstance(caught.value, LocatorRefusal) and isinstance(caught.value, KingdomNotFoundError)


def test_the_search_stops_at_the_first_settled_frame_and_names_its_attempt() -> None:
    located = locate_kingdom(generate_scene(1, size=SIZE).image)
    assert located.path[-1] == f"{located.found_by}=accepted"
    assert not located.unsure and located.verdict is not None and located.verdict.accepted


def test_only_the_attempts_in_the_settings_run() -> None:
    image = generate_scene(1, size=SIZE).image
    located = locate_kingdom(image, settings=LocatorSettings(attempts=("whole",)))
    assert located.path == ["whole=accepted"] and located.found_by == "whole"


def test_a_spent_budget_starts_no_further_attempt() -> None:
    with pytest.raises(KingdomNotFoundError) as caught:
        locate_kingdom(_table(0), settings=LocatorSettings(budget_seconds=0.0))
    assert caught.value.path[-1] == "budget=spent" and len(caught.value.path) == 2


def test_the_scan_exposes_the_path_and_says_when_the_frame_is_unsure() -> None:
    scene = generate_scene(1, size=SIZE)
    scanner = KingdomScanner(ColourClassifier())
    result = scanner.scan(scene.image)
    assert result.path and result.path[-1].endswith("=accepted")
    assert FRAME_UNSURE_NOTE not in result.notes
    found = locate_kingdom(scene.image)
    scanner.locate = lambda *args, **kwargs: dataclasses.replace(found, unsure=True)
    assert FRAME_UNSURE_NOTE in scanner.scan(scene.image).notes
