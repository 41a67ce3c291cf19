"""Sizes a newcomer can read: no source file over 800 lines, no function on the run-time path over 80."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.architecture.layers import ROOT, module_name, part_of, source_files

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80
#: What a player's scan or page runs (training, evaluation and benchmarks are measured, not run by players).
RUNTIME_PARTS = ("kingdomino", "model", "scanner", "page", "app")


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


def test_no_source_file_over_800_lines():
    long = {
        str(path.relative_to(ROOT)): lines
        for path in source_files(ROOT)
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_FILE_LINES
    }
    assert long == {}


def test_no_function_on_the_runtime_path_over_80_lines():
    long = []
    for path in source_files(ROOT):
        if part_of(module_name(path, ROOT)) not in RUNTIME_PARTS:
            continue
        long += [
            f"{path.relative_to(ROOT)}:{line} {name} ({size} lines)"
            for name, line, size in _functions(path)
            if size > MAX_FUNCTION_LINES
        ]
    assert long == []
