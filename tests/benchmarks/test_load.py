"""A small run of the load test: 4 users uploading 2 photos each through the page's own protocol."""

from __future__ import annotations

import pytest

from benchmarks.load import LoadSettings, format_report, run, tagged


@pytest.mark.slow
@pytest.mark.model
def test_four_users_two_photos_each_all_scored_on_their_own_page(tmp_path) -> None:
    settings = LoadSettings(users=4, rounds=1, photos=2, settle_s=1.0, timeout_s=90.0)
    report = run(settings)
    print(format_report(report))
    assert report.uploads == 8 and report.failed == 0, report.problems
    assert 0 < report.latency_median_s <= report.latency_p90_s <= report.latency_max_s
    assert report.scans_per_second > 0 and report.cores_used_mean > 0
    assert 0 < report.memory_idle_mb <= report.memory_peak_mb and report.memory_after_mb > 0


def test_tagged_photos_are_new_bytes_with_the_same_pixels() -> None:
    import cv2
    import numpy as np

    image = np.random.default_rng(1).integers(0, 256, (60, 80, 3), np.uint8)
    jpeg = cv2.imencode(".jpg", image)[1].tobytes()
    copy = tagged(jpeg, "u1-r2-p3.jpg")
    assert copy != jpeg
    decoded = [cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) for data in (jpeg, copy)]
    assert np.array_equal(*decoded)
