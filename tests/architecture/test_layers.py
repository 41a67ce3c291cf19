"""Arrows go one way: every import in the tree against the layers of docs/architecture.md."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.architecture.layers import ROOT, cycles, import_graph, violations


def test_every_import_follows_the_layers():
    assert [str(v) for v in violations()] == []


def test_no_import_cycle_between_modules():
    assert cycles(import_graph()) == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def test_the_check_fails_when_an_import_goes_against_the_layers(tmp_path: Path):
    root = _tree(
        tmp_path,
        {
            "kingdomino/__init__.py": "",
            "kingdomino/board.py": "import numpy\n",
            "model/__init__.py": "",
            "model/classifier.py": "def load():\n    from scanner.errors import ScanError\n",
            "model/training/__init__.py": "",
            "model/training/train.py": "from model import classifier\n",
            "scanner/__init__.py": "",
            "scanner/errors.py": "from ..model.training import train\n",
            "scanner/cli.py": "import importlib\nCOMMANDS = {'train': ('model.training.train', 'main')}\n"
            "def run(name):\n    return importlib.import_module(COMMANDS[name][0])\n",
        },
    )
    found = {(v.module, v.imported) for v in violations(root)}
    assert ("kingdomino.board", "numpy") in found  # the game package is standard library only
    assert ("model.classifier", "scanner.errors") in found  # a runtime import inside a function counts
    assert ("scanner.errors", "model.training") in found  # relative imports are resolved
    assert ("scanner.cli", "model.training.train") in found  # so is a module imported by its name
    assert not any(module == "model.training.train" for module, _ in found)  # training may use the model


def test_the_check_finds_a_cycle(tmp_path: Path):
    root = _tree(
        tmp_path,
        {
            "scanner/__init__.py": "",
            "scanner/a.py": "from scanner.b import x\n",
            "scanner/b.py": "def f():\n    import scanner.a\n",
        },
    )
    assert cycles(import_graph(root)) == [["scanner.a", "scanner.b"]]


def _modules_after(code: str) -> set[str]:
    script = code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    return set(out.stdout.split())


def test_scoring_a_board_imports_no_image_or_learning_library(tmp_path: Path):
    board = tmp_path / "board.txt"
    board.write_text((ROOT / "data/samples/sample_board.txt").read_text())
    loaded = _modules_after(
        f"from scanner.cli import main\nimport contextlib, io\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['score', {str(board)!r}]) == 0"
    )
    heavy = {"numpy", "cv2", "sklearn", "scipy", "PIL", "joblib", "skimage", "streamlit"}
    assert not heavy & {name.split(".")[0] for name in loaded}


@pytest.mark.model
def test_scanning_a_photo_imports_no_training_or_evaluation_module():
    photo = ROOT / "data/samples/sample_table.jpg"
    loaded = _modules_after(
        f"from scanner.cli import main\nimport contextlib, io\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['scan', {str(photo)!r}]) == 0"
    )
    assert not {name for name in loaded if name.startswith(("model.training", "model.evaluation"))}
    assert not {name for name in loaded if name.startswith("benchmarks")}
