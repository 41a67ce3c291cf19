"""The hard bench runner's bookkeeping, with a stand-in scanner (no model is loaded)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from benchmarks.hard import frame_doubted, measure_photo, split_seeds, summarise
from benchmarks.hard_scenes import condition_for_seed, generate_hard_scene
from benchmarks.scenes import rotate_kingdom
from kingdomino.board import Square, Terrain
from kingdomino.scoring import score_kingdom
from scanner.errors import KingdomNotFoundError

SMALL = (640, 480)


class TruthScanner:
    """Answers a photo with its own truth, turned by ``turns`` quarter turns, optionally with one square
    changed (flagged or not) or the frame moved by ``shift`` squares."""

    def __init__(self, seed: int, turns: int = 0, misread: bool = False, flag: bool = False, shift=0.0):
        truth_kingdom, truth_corners = generate_hard_scene(seed, size=SMALL).upright()
        kingdom = rotate_kingdom(truth_kingdom, turns)
        corners = np.roll(truth_corners, -turns, axis=0)
        square = np.linalg.norm(corners[1] - corners[0]) / kingdom.grid_size
        corners = corners + shift * square
        flagged = np.zeros((kingdom.grid_size,) * 2, bool)
        if misread:
            rows = [list(row) for row in kingdom.squares]
            cell = rows[0][0]
            rows[0][0] = Square(Terrain.LAKE if cell.terrain != Terrain.LAKE else Terrain.FOREST, 0)
            kingdom = type(kingdom).from_rows(rows)
            flagged[0, 0] = flag
        self.result = SimpleNamespace(
            grid_size=kingdom.grid_size,
            corners=corners,
            kingdom=kingdom,
            flagged=flagged,
            score=score_kingdom(kingdom),
            notes=[],
        )

    def scan(self, data, name=None):
        return self.result


class RefusingScanner:
    def scan(self, data, name=None):
        raise KingdomNotFoundError("no kingdom found")


def test_the_truth_read_back_counts_as_located_and_exact_in_any_quarter_turn() -> None:
    for turns in range(4):
        row = measure_photo(TruthScanner(7, turns), 7, 5, SMALL)
        assert row["outcome"] == "located" and row["exact_score"] and row["misread"] == 0, turns


def test_a_misread_square_is_counted_and_flagged_or_not() -> None:
    unflagged = measure_photo(TruthScanner(7, misread=True), 7, 5, SMALL)
    flagged = measure_photo(TruthScanner(7, misread=True, flag=True), 7, 5, SMALL)
    assert unflagged["misread"] == unflagged["misread_unflagged"] == 1
    assert flagged["misread"] == 1 and flagged["misread_unflagged"] == 0 and flagged["flagged"] == 1


def test_a_frame_half_a_square_off_is_a_wrong_frame_and_a_refusal_is_a_refusal() -> None:
    wrong = measure_photo(TruthScanner(7, shift=0.5), 7, 5, SMALL)
    assert wrong["outcome"] == "wrong_frame" and not wrong["frame_doubted"]
    assert measure_photo(RefusingScanner(), 7, 5, SMALL)["outcome"] == "refused"


def test_the_truth_frame_is_handed_to_the_scanner_as_a_frame_placed_by_hand() -> None:
    class FrameScanner(TruthScanner):
        def scan(self, data, name=None, grid="auto", corners=None):
            self.given = (grid, corners)
            return self.result

    scanner = FrameScanner(7)
    row = measure_photo(scanner, 7, 5, SMALL, truth_frame=True)
    assert row["outcome"] == "located" and scanner.given[0] == 5
    assert np.allclose(scanner.given[1], generate_hard_scene(7, size=SMALL).upright()[1])


def test_the_scan_is_measured_with_numpy_blas_on_one_thread() -> None:
    from threadpoolctl import threadpool_info

    class ThreadsScanner(TruthScanner):
        def scan(self, data, name=None):
            self.threads = {info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"}
            return self.result

    scanner = ThreadsScanner(7)
    assert measure_photo(scanner, 7, 5, SMALL)["outcome"] == "located"
    assert scanner.threads == {1}  # numpy's BLAS found, and held to one thread


def test_only_a_note_about_the_frame_counts_as_doubting_it() -> None:
    assert frame_doubted(SimpleNamespace(notes=["the grid may be misplaced: check the corners"]))
    assert not frame_doubted(SimpleNamespace(notes=["many squares were read unsure: check every square"]))
    assert frame_doubted(SimpleNamespace(notes=[], frame_unsure=True))


def test_summary_figures() -> None:
    rows = [
        {
            "outcome": "located",
            "squares": 25,
            "misread": 2,
            "misread_unflagged": 1,
            "flagged": 3,
            "exact_score": False,
            "seconds": 1.0,
        },
        {
            "outcome": "located",
            "squares": 25,
            "misread": 0,
            "misread_unflagged": 0,
            "flagged": 0,
            "exact_score": True,
            "seconds": 2.0,
        },
        {"outcome": "wrong_frame", "frame_doubted": False, "seconds": 3.0},
        {"outcome": "refused", "seconds": 4.0, "cpu_seconds": 0.5},
    ]
    s = summarise(rows)
    assert (s["photos"], s["located"], s["refused"], s["wrong_frame_without_frame_note"]) == (4, 2, 1, 1)
    assert s["exact_score_pct"] == 50.0 and s["misread_unflagged_pct"] == 2.0 and s["flagged_pct"] == 6.0
    assert s["seconds_mean"] == 2.5 and s["seconds_max"] == 4.0 and s["cpu_seconds_max"] == 0.5


def test_the_splits_are_disjoint_and_every_class_has_its_share() -> None:
    dev, held = split_seeds("dev", None), split_seeds("heldout", None)
    assert not set(dev) & set(held)
    assert {condition_for_seed(s) for s in split_seeds("heldout", 18)} == {
        condition_for_seed(s) for s in held
    }
    assert all(condition_for_seed(s) == "mat" for s in split_seeds("dev", 5, ["mat"]))


def test_a_missing_model_file_is_one_line_and_exit_code_2(tmp_path, capsys) -> None:
    from benchmarks.hard import main

    assert main(["--model-file", str(tmp_path / "none.joblib"), "--count", "1"]) == 2
    assert "no model file" in capsys.readouterr().err


def test_the_reading_time_is_summarised_per_grid_size_read() -> None:
    located = {"outcome": "located", "squares": 25, "misread": 0, "misread_unflagged": 0, "flagged": 0}
    rows = [
        {**located, "exact_score": True, "seconds": 1.0, "reading_cpu_seconds": seconds, "read_grid": grid}
        for seconds, grid in ((0.1, 5), (0.2, 5), (0.3, 7))
    ]
    rows.append({"outcome": "refused", "seconds": 1.0})  # no reading: counts for no size
    by_grid = summarise(rows)["reading_cpu_by_grid"]
    assert set(by_grid) == {"5", "7"}
    assert by_grid["5"]["photos"] == 2 and by_grid["5"]["mean"] == 0.15 and by_grid["5"]["max"] == 0.2
    assert by_grid["7"] == {"photos": 1, "mean": 0.3, "p90": 0.3, "max": 0.3}
