"""The scan pool: results and typed errors come back from worker processes, and a worker that crashes,
hangs or grows is replaced without costing any other scan."""

from __future__ import annotations

import pickle
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.errors import KingdomNotFoundError, ModelLoadError, PhotoError, ScanError
from scanner.recognizer import KingdomScanner
from scanner.workers import PoolSettings, ScanPool, WorkerCrashedError, for_display, pool_size
from tests.support.scan_fakes import ColourClassifier
from tests.support.worker_fakes import misbehaving_scanner, missing_model

SAMPLE = Path(__file__).resolve().parents[2] / "data/samples/sample_table.jpg"


@pytest.fixture(scope="module")
def pool():
    with ScanPool(PoolSettings(workers=1), scanner_factory=misbehaving_scanner) as pool:
        yield pool


@pytest.fixture(scope="module")
def local():
    return KingdomScanner(classifier=ColourClassifier())


def one_line(error: BaseException) -> str:
    message = str(error)
    assert message and "\n" not in message and "Traceback" not in message
    return message


def test_result_comes_back_with_a_display_copy_that_draws_the_same_overlay(pool, local) -> None:
    data = SAMPLE.read_bytes()
    result = pool.scan(data, name="table.jpg")
    here = local.scan(data, name="table.jpg")
    assert result.photo == "table.jpg" and result.kingdom == here.kingdom and result.score == here.score
    assert np.allclose(result.corners, here.corners) and np.array_equal(result.flagged, here.flagged)
    assert max(result.image.shape[:2]) == 1600 < max(here.image.shape[:2])
    assert np.array_equal(result.overlay, here.overlay)  # the page's photo with the grid, pixel for pixel
    assert np.array_equal(result.readings_overlay(), here.readings_overlay())


def test_typed_errors_survive_the_trip(pool) -> None:
    with pytest.raises(PhotoError) as caught:
        pool.scan(b"just some text, not a photo")
    assert "text file" in one_line(caught.value)
    with pytest.raises(KingdomNotFoundError) as caught:
        pool.scan(np.zeros((480, 640, 3), np.uint8))
    one_line(caught.value)
    assert caught.value.overlay is not None and caught.value.overlay.shape[2] == 3
    with pytest.raises(ScanError, match="grid must be"):
        pool.scan(SAMPLE, grid=6)


def test_a_crashed_worker_gives_a_clear_error_and_a_fresh_worker(pool) -> None:
    before = pool.worker_pids()
    with pytest.raises(WorkerCrashedError) as caught:
        pool.scan("crash")
    assert "restarted" in one_line(caught.value)
    assert pool.scan(SAMPLE).grid_size == 5  # waits for the replacement
    assert pool.worker_pids() != before and pool.crashes >= 1


def test_callers_waiting_for_a_busy_worker_are_served_in_the_order_they_came(pool) -> None:
    import threading
    import time

    order: dict[int, int] = {}  # caller -> the worker's count of the call that served it

    def call(source: str, label: int) -> None:
        with pytest.raises(ScanError) as caught:
            pool.scan(source)
        order[label] = int(str(caught.value).split()[-1]) if source == "count" else 0

    busy = threading.Thread(target=call, args=("pause", -1))
    busy.start()
    deadline = time.monotonic() + 5
    while pool._idle and time.monotonic() < deadline:  # until the pause has the only worker
        time.sleep(0.01)
    threads = [threading.Thread(target=call, args=("count", label)) for label in range(5)]
    for number, thread in enumerate(threads, start=1):
        thread.start()
        deadline = time.monotonic() + 5
        while len(pool._line) < number and time.monotonic() < deadline:  # in line before the next comes
            time.sleep(0.01)
    for thread in [busy, *threads]:
        thread.join()
    served = [order[label] for label in range(5)]
    assert served == sorted(served) and len(set(served)) == 5, served


def test_workers_run_with_few_malloc_arenas_and_one_thread(pool) -> None:
    with pytest.raises(ScanError) as caught:
        pool.scan("environment")
    assert one_line(caught.value).split()[1:] == ["2", "1"]


def test_what_the_header_refuses_is_answered_without_waiting_for_a_busy_worker() -> None:
    import threading
    import time

    from benchmarks.load import flat_png

    with ScanPool(PoolSettings(workers=1, scan_timeout_s=10), scanner_factory=misbehaving_scanner) as pool:
        busy = threading.Thread(target=lambda: pytest.raises(ScanError, pool.scan, "hang"))
        busy.start()
        bomb = flat_png()  # 59 MP of one colour
        time.sleep(0.5)
        start = time.monotonic()
        with pytest.raises(PhotoError) as caught:
            pool.scan(bomb)
        assert "unpack" in one_line(caught.value) and time.monotonic() - start < 2
        busy.join()


def test_many_photos_come_back_in_input_order(pool) -> None:
    sources = [SAMPLE, b"not a photo at all", str(SAMPLE)]
    results = list(pool.scan_many(sources, names=["a", "b", "c"]))
    assert [type(r).__name__ for r in results] == ["ScanResult", "PhotoError", "ScanResult"]
    assert [results[0].photo, results[2].photo] == ["a", "c"]


def test_a_hung_scan_is_stopped_and_its_worker_replaced() -> None:
    with ScanPool(PoolSettings(workers=1, scan_timeout_s=2), scanner_factory=misbehaving_scanner) as pool:
        with pytest.raises(ScanError) as caught:
            pool.scan("hang")
        assert "took more than 2 s" in one_line(caught.value)
        with pytest.raises(PhotoError, match="no such file"):  # the fresh worker answers
            pool.scan("/nonexistent/photo.jpg")
        assert pool.crashes == 1


def test_workers_retire_after_their_share_of_scans() -> None:
    settings = PoolSettings(workers=1, max_tasks_per_worker=2)
    with ScanPool(settings, scanner_factory=misbehaving_scanner) as pool:
        first = pool.worker_pids()
        for _ in range(2):  # a path is read in the worker (bytes may be refused before it)
            with pytest.raises(PhotoError, match="no such file"):
                pool.scan("/nonexistent/photo.jpg")
        with pytest.raises(PhotoError, match="no such file"):
            pool.scan("/nonexistent/photo.jpg")  # served by the fresh worker
        assert pool.retired == 1 and pool.crashes == 0 and pool.worker_pids() != first


def test_a_model_that_cannot_load_is_reported_at_start() -> None:
    with pytest.raises(ModelLoadError, match="model/square_classifier.joblib is missing"):
        ScanPool(PoolSettings(workers=1), scanner_factory=missing_model)


def test_pool_size_follows_settings_cores_and_memory() -> None:
    assert pool_size(PoolSettings(workers=3)) == 3
    assert 1 <= pool_size() <= (len(__import__("os").sched_getaffinity(0)))
    assert pool_size(PoolSettings(memory_per_worker_mb=10**9)) == 1


def test_results_and_errors_pickle(local) -> None:
    result = for_display(local.scan(SAMPLE), 800)
    again = pickle.loads(pickle.dumps(result))
    assert max(again.image.shape[:2]) == 800 and again.kingdom == result.kingdom
    assert np.array_equal(again.overlay, result.overlay)
    error = pickle.loads(pickle.dumps(KingdomNotFoundError("none", overlay=np.zeros((4, 4, 3), np.uint8))))
    assert (
        isinstance(error, KingdomNotFoundError) and str(error) == "none" and error.overlay.shape == (4, 4, 3)
    )
    assert cv2.imencode(".png", again.overlay)[0]


@pytest.mark.model
def test_scan_command_with_jobs_prints_the_same_lines_in_input_order(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    (tmp_path / "notes.jpg").write_text("not a photo at all\n")
    paths = [str(SAMPLE), str(tmp_path / "notes.jpg"), str(tmp_path / "missing.jpg"), str(SAMPLE)]
    outputs = []
    for jobs in ("1", "2"):
        command = [sys.executable, "-m", "scanner", "scan", "--json", "--jobs", jobs, *paths]
        done = subprocess.run(command, capture_output=True, text=True, timeout=240)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        outputs.append([json.loads(line) for line in done.stdout.splitlines()])
    assert outputs[0] == outputs[1]
    assert [line["photo"] for line in outputs[1]] == paths and "error" in outputs[1][1]
