"""``kingdomino scan``: JSON lines in input order, one error line per bad photo, exit status, debug images."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from benchmarks.scenes import generate_scene
from model.classifier import SquareClassifier
from scanner.cli import main
from tests.support.scan_fakes import ColourClassifier


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scan_cli")
    scene = generate_scene(16, size=(1600, 1200))
    cv2.imwrite(str(folder / "table.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    (folder / "notes.jpg").write_text("not a photo at all\n")
    return folder


@pytest.fixture(autouse=True)
def stand_in_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's plumbing is tested here; the trained model end to end in test_recognizer."""
    monkeypatch.setattr(SquareClassifier, "load", classmethod(lambda cls, path=None: ColourClassifier()))


def test_json_lines_in_input_order_with_errors_and_exit_status_1(photos: Path, capsys) -> None:
    paths = [
        str(photos / "table.jpg"),
        str(photos / "notes.jpg"),
        str(photos / "missing.jpg"),
        str(photos / "table.jpg"),
    ]
    status = main(["scan", "--json", *paths])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert [line["photo"] for line in lines] == paths
    assert lines[0]["grid_size"] == 5 and len(lines[0]["squares"]) == 5 and len(lines[0]["corners"]) == 4
    assert "total" in lines[0]["score"]
    for line in lines[1:3]:
        assert set(line) == {"photo", "error"} and line["error"] and "\n" not in line["error"]
    assert lines[3] == lines[0]


def test_all_good_photos_exit_0_and_text_output_shows_board_and_score(photos: Path, capsys) -> None:
    status = main(["scan", str(photos / "table.jpg"), "--grid", "5"])
    out = capsys.readouterr().out
    assert status == 0
    assert "5×5 kingdom" in out and "Score:" in out
    assert sum(1 for line in out.splitlines() if len(line.split()) == 5) >= 5  # the board rows


def test_debug_dir_gets_the_lattice_and_the_labelled_squares(photos: Path, tmp_path: Path, capsys) -> None:
    assert main(["scan", "--json", "--debug-dir", str(tmp_path), str(photos / "table.jpg")]) == 0
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == ["00_table_lattice.jpg", "00_table_squares.jpg"]
    assert all(cv2.imread(str(tmp_path / name)) is not None for name in written)


def test_a_debug_dir_that_cannot_be_a_folder_is_said_in_one_line_before_scanning(
    photos: Path, tmp_path: Path, capsys
) -> None:
    in_the_way = tmp_path / "debug"
    in_the_way.write_text("a file, not a folder\n")
    for debug in (in_the_way, in_the_way / "below"):
        assert main(["scan", "--debug-dir", str(debug), str(photos / "table.jpg")]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and "Traceback" not in captured.err
        assert captured.err.startswith(f"kingdomino scan: --debug-dir {debug}: ")
        assert captured.err.count("\n") == 1
    assert in_the_way.read_text() == "a file, not a folder\n"


def test_bad_grid_option_is_a_usage_error(photos: Path, capsys) -> None:
    assert main(["scan", "--grid", "6", str(photos / "table.jpg")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_debug_dir_shows_what_was_seen_when_no_kingdom_is_found(tmp_path: Path, capsys) -> None:
    photo = tmp_path / "table_only.jpg"
    image = cv2.resize(generate_scene(16, size=(1600, 1200)).image[:200, :200], (800, 600))
    cv2.imwrite(str(photo), image)
    debug = tmp_path / "debug"
    assert main(["scan", "--debug-dir", str(debug), str(photo)]) == 1
    assert [path.name for path in debug.iterdir()] == ["00_table_only_not_found.jpg"]
    assert cv2.imread(str(debug / "00_table_only_not_found.jpg")).shape[:2] == (600, 800)


def test_files_that_cannot_be_photos_are_answered_before_the_model_loads(
    photos: Path, monkeypatch, capsys
) -> None:
    def no_model(cls, path=None):
        raise AssertionError("the model was loaded for files that are no photos")

    monkeypatch.setattr(SquareClassifier, "load", classmethod(no_model))
    status = main(["scan", str(photos / "missing.jpg"), str(photos / "notes.jpg"), str(photos)])
    err = capsys.readouterr().err.splitlines()
    assert status == 1 and len(err) == 3
    assert "missing.jpg: no such file" in err[0] and "notes.jpg" in err[1] and "folder" in err[2]


def test_the_text_grid_marks_the_squares_to_check_and_score_reads_it_back(
    photos: Path, tmp_path: Path, capsys
) -> None:
    from tests.support.scan_fakes import UnsureColourClassifier

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(
        SquareClassifier, "load", classmethod(lambda cls, path=None: UnsureColourClassifier())
    )
    try:
        assert main(["scan", str(photos / "table.jpg")]) == 0
    finally:
        monkeypatch.undo()
    out = capsys.readouterr().out.splitlines()
    grid = [line for line in out if len(line.split()) == 5 and all(len(t) <= 3 for t in line.split())]
    assert len(grid) == 5 and any("?" in line for line in grid)
    assert any("marked ? below" in line for line in out)
    board = tmp_path / "board.txt"
    board.write_text("\n".join(grid) + "\n")
    assert main(["score", str(board)]) == 0
    assert "Score:" in capsys.readouterr().out
