"""The reading-speed command runs end to end and prints one line per kingdom size."""

from __future__ import annotations

import pytest

from benchmarks.reading_speed import main


@pytest.mark.model
def test_one_scene_of_each_size_is_timed(capsys) -> None:
    assert main(["--count", "1", "--runs", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["5×5", "7×7"]
    assert all("median" in line and "ms" in line for line in lines)
