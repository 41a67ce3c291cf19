"""``kingdomino classify``: output and bad input; ``python -m model.training``, ``evaluation``: arguments."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import cv2
import pytest

from model.training.dataset import DEFAULT_DATA_DIR
from scanner.cli import main


@pytest.fixture
def square_files(tmp_path: Path) -> list[str]:
    board = cv2.imread(str(DEFAULT_DATA_DIR / "boards" / "1.jpg"))
    paths = []
    for index, (row, col) in enumerate([(0, 1), (3, 3)]):
        path = tmp_path / f"square{index}.png"
        cv2.imwrite(str(path), board[row * 100 : (row + 1) * 100, col * 100 : (col + 1) * 100])
        paths.append(str(path))
    return paths


def test_classify_json_one_line_per_image_in_order(square_files, capsys):
    assert main(["classify", *square_files, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == square_files
    for line in lines:
        assert set(line) == {"image", "terrain", "crowns", "confidence"}
        assert 0.0 <= line["confidence"] <= 1.0
    assert lines[0]["terrain"] == "lake"


def test_classify_answers_the_good_files_when_some_are_bad(square_files, tmp_path: Path, capsys):
    not_an_image = tmp_path / "notes.jpg"
    not_an_image.write_text("hello")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    sources = [square_files[0], str(not_an_image), str(tmp_path / "missing.png"), str(empty), square_files[1]]
    assert main(["classify", *sources, "--json"]) == 1
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["image"] for line in lines] == sources
    assert "terrain" in lines[0] and "terrain" in lines[4]
    assert all("error" in line for line in lines[1:4])
    assert "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 3


def test_classify_plain_text(square_files, capsys):
    assert main(["classify", square_files[0]]) == 0
    assert capsys.readouterr().out.startswith(f"{square_files[0]}: lake")


def test_classify_with_a_missing_model_says_so(square_files, tmp_path: Path, capsys):
    assert main(["classify", square_files[0], "--model", str(tmp_path / "none.joblib")]) == 2
    err = capsys.readouterr().err
    assert "model file not found" in err and len(err.strip().splitlines()) == 1


def test_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["classify", "--help"])
    assert exit_info.value.code == 0


@pytest.mark.parametrize("module", ["model.training.train", "model.evaluation.evaluate"])
def test_help_of_the_clone_commands(module, capsys):
    with pytest.raises(SystemExit) as exit_info:
        importlib.import_module(module).main(["--help"])
    assert exit_info.value.code == 0


def test_train_without_data_is_a_clear_error(tmp_path: Path, capsys):
    from model.training.train import main as train_main

    assert train_main(["--data", str(tmp_path)]) == 2
    assert "labels.json" in capsys.readouterr().out


def test_the_installed_command_leaves_training_to_a_clone(capsys):
    assert main(["train"]) == 2
    assert "python -m model.training" in capsys.readouterr().err
