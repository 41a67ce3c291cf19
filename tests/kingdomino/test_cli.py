"""``kingdomino score`` and ``kingdomino rank``: outputs, flags, and one-line errors with exit status 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kingdomino.board import Kingdom
from kingdomino.cli import rank_main, score_main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "samples" / "sample_board.txt"


def run(
    main: Callable[..., int], argv: list[str], capsys: pytest.CaptureFixture[str], stdin: bytes | None = None
) -> tuple[int, str, str]:
    """Call a sub-command in-process: (exit status, stdout, stderr)."""
    status = main(argv, stdin=io.BytesIO(stdin) if stdin is not None else None)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_score(
    argv: list[str], capsys: pytest.CaptureFixture[str], stdin: bytes | None = None
) -> tuple[int, str, str]:
    return run(score_main, argv, capsys, stdin)


def run_rank(
    argv: list[str], capsys: pytest.CaptureFixture[str], stdin: bytes | None = None
) -> tuple[int, str, str]:
    return run(rank_main, argv, capsys, stdin)


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return str(path)


# --- score ---------------------------------------------------------------------------------------
def test_score_json_of_the_sample_board(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_score([str(SAMPLE), "--json"], capsys)
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert out.count("\n") == 1  # one object on one line
    assert data["total"] == data["base"] == 39
    assert data["bonuses"] == {"harmony": 0, "middle_kingdom": 0}
    assert data["largest_territory"] == 7
    assert data["crowns"] == 9
    assert data["warnings"] == []
    assert data["grid_size"] == 5
    assert data["territories"][0] == {
        "terrain": "grassland",
        "squares": 5,
        "crowns": 3,
        "score": 15,
        "cells": [[1, 4], [2, 4], [3, 3], [3, 4], [4, 3]],
    }


def test_score_bonus_flags(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_score([str(SAMPLE), "--json", "--harmony", "--middle-kingdom"], capsys)
    data = json.loads(out)
    assert data["bonuses"] == {"harmony": 0, "middle_kingdom": 10}
    assert data["total"] == 49


def test_score_readable_breakdown(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_score([str(SAMPLE), "--harmony", "--middle-kingdom"], capsys)
    assert status == 0
    assert out.startswith("Score: 49 points (5×5 kingdom)")
    assert "territories:          39" in out
    assert "Harmony bonus:        +0 (1 empty square left)" in out
    assert "Middle Kingdom bonus: +10 (the castle is in the middle)" in out
    assert "grassland 5 squares × 3 crowns = 15" in out
    assert "(2,5) (3,5) (4,4) (4,5) (5,4)" in out
    assert "Warnings: none" in out


def test_score_reads_json_boards_and_stdin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kingdom = Kingdom.from_text(SAMPLE.read_text(encoding="utf-8"))
    path = write(tmp_path, "board.json", json.dumps(kingdom.to_dict()))
    assert json.loads(run_score([path, "--json"], capsys)[1])["total"] == 39
    status, out, _ = run_score(["-", "--json"], capsys, stdin=SAMPLE.read_bytes())
    assert status == 0 and json.loads(out)["total"] == 39


def test_warnings_appear_in_json_and_readable_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "odd.txt", "W1 W1 W1\nW1 W1 W1\nW1 M3 M3\n")
    data = json.loads(run_score([path, "--json"], capsys)[1])
    expected = [
        "7 wheat squares with 1 crown, but the box holds only 5",
        "2 mine squares with 3 crowns, but the box holds only 1",
        "no castle: every kingdom starts from one castle square",
    ]
    assert data["warnings"] == expected
    assert data["total"] == 7 * 7 + 2 * 6  # scored as given, never corrected
    _, out, _ = run_score([path], capsys)
    assert "Warnings (the score above counts the board as given; check these squares):" in out
    for warning in expected:
        assert f"  - {warning}" in out


def test_middle_kingdom_reason_in_readable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    off = write(tmp_path, "off.txt", "C W0 W0\nW0 W0 W0\nW0 W0 W0\n")
    assert "+0 (the castle is off-centre)" in run_score([off, "--middle-kingdom"], capsys)[1]
    none = write(tmp_path, "none.txt", "W0 W0\nW0 W0\n")
    assert "+0 (needs exactly one castle, found 0)" in run_score([none, "--middle-kingdom"], capsys)[1]


BAD_BOARDS: list[tuple[str, bytes, str]] = [
    ("unknown.txt", b"G0 X1\nG0 G0\n", "line 1: unknown square 'X1'"),
    ("ragged.txt", b"G0 G0\nG0\n", "line 2: ragged rows"),
    ("eight.txt", b"W0 W0 W0 W0 W0 W0 W0 W0\n", "line 1: 8 squares in a row; at most 7"),
    ("tall.txt", b"W0 W0 W0 W0 W0 W0 W0\n" * 8, "line 8: more than 7 rows"),
    ("crowns.txt", b"G0 W4\nG0 G0\n", "line 1: crowns out of range in 'W4'"),
    ("castle.txt", b"C2 W0\nG0 G0\n", "line 1: castle square 'C2' cannot carry crowns"),
    ("empty.txt", b"", "the board is empty"),
    ("blank.txt", b"\n  \n# nothing\n", "the board is empty"),
    ("broken.json", b'{"squares": [\n[{"terrain": "wheat"}\n', "line 3: invalid JSON"),
    (
        "lava.json",
        b'{"squares": [[{"terrain": "lava", "crowns": 0}]]}',
        "row 1, column 1: unknown terrain 'lava'",
    ),
    ("deep.json", b"[" * 100_000, "nested too deeply"),
    ("latin1.txt", "G0 G0\nG0 Gé\n".encode("latin-1"), "line 2: byte 0xe9 is not UTF-8"),
    ("garbage.bin", bytes(range(256)) * 4, "line 1: binary data"),
    ("huge.txt", b"W0 " * 200_000, "far too large"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_BOARDS, ids=[case[0] for case in BAD_BOARDS])
def test_bad_board_gives_one_line_error_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, message: str
) -> None:
    path = write(tmp_path, name, content)
    status, out, err = run_score([path], capsys)
    assert status == 2
    assert out == ""
    assert err.startswith(f"kingdomino score: {path}: ")
    assert message in err
    assert err.count("\n") == 1
    assert len(err) < 300


def test_missing_file_and_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nope.txt")
    assert run_score([missing], capsys)[::2] == (2, f"kingdomino score: {missing}: no such file\n")
    status, _, err = run_score([str(tmp_path)], capsys)
    assert status == 2 and "is a directory" in err


def test_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Permissions cannot be relied on (tests may run as root), so the refusal is simulated."""
    path = write(tmp_path, "secret.txt", "W0 C\nW0 W0\n")

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", refuse)
    status, _, err = run_score([path], capsys)
    assert status == 2
    assert err == f"kingdomino score: {path}: cannot read the file (Permission denied)\n"


def test_bad_board_on_stdin_is_named_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_score(["-"], capsys, stdin=b"W0 Z9\nW0 W0\n")
    assert status == 2
    assert err == "kingdomino score: stdin: line 1: unknown square 'Z9' (use W F L G S M + crowns, C or .)\n"


def test_bad_arguments_exit_2_and_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_score([], capsys)[0] == 2
    assert run_score([str(SAMPLE), "--bogus"], capsys)[0] == 2
    status, out, _ = run_score(["--help"], capsys)
    assert status == 0 and "--middle-kingdom" in out


# --- rank ----------------------------------------------------------------------------------------
BIG = "W1 W1 W1\nW1 C W1\nW1 W1 W1\n"  # 8 wheat × 8 crowns = 64
SMALL = "L1 L0 L0\nL0 C L0\nL0 L0 L0\n"  # 8 lake × 1 crown = 8
SMALL_WIDE = "L1 . .\nL0 C .\nL0 L0 L0\n"  # 5 lake × 1 crown = 5


def test_rank_names_players_by_name_or_file_stem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big, small = write(tmp_path, "big.txt", BIG), write(tmp_path, "small.txt", SMALL)
    status, out, err = run_rank([f"Alice={small}", big, "--json"], capsys)
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert [(s["name"], s["rank"], s["total"]) for s in data["standings"]] == [
        ("big", 1, 64),
        ("Alice", 2, 8),
    ]
    assert data["winners"] == ["big"]
    assert data["decided_by"] == "total"


def test_rank_readable_output_with_shared_victory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small = write(tmp_path, "small.txt", SMALL)
    status, out, _ = run_rank([f"Ann={small}", f"Bob={small}"], capsys)
    assert status == 0
    assert out.splitlines() == [
        "Game ranking (second edition rules, 1 game)",
        "  1=  Ann     8 points  largest territory  8  crowns  1",
        "  1=  Bob     8 points  largest territory  8  crowns  1",
        "Shared victory: Ann, Bob (tied on every tie-break)",
    ]


def test_rank_edition_and_bonus_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small, wide = write(tmp_path, "small.txt", SMALL), write(tmp_path, "wide.txt", SMALL_WIDE)
    # With both bonuses: small 8 + 5 + 10 = 23; wide 5 + 0 + 10 = 15 (bounding box 3×3).
    _, out, _ = run_rank(
        [small, wide, "--harmony", "--middle-kingdom", "--edition", "nordic", "--json"], capsys
    )
    data = json.loads(out)
    assert data["edition"] == "nordic"
    assert [(s["name"], s["total"]) for s in data["standings"]] == [("small", 23), ("wide", 15)]
    assert data["standings"][0]["reports"][0]["bonuses"] == {"harmony": 5, "middle_kingdom": 10}


def test_rank_dynasty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big, small = write(tmp_path, "big.txt", BIG), write(tmp_path, "small.txt", SMALL)
    argv = [
        "--dynasty",
        f"Ann={big}",
        f"Bob={small}",
        f"Ann={small}",
        f"Bob={big}",
        f"Ann={small}",
        f"Bob={small}",
    ]
    status, out, _ = run_rank(argv, capsys)
    assert status == 0
    assert out.splitlines()[:3] == [
        "Dynasty ranking (second edition rules, 3 games)",
        "  1=  Ann    80 points  largest territory 24  crowns 10  games 64 + 8 + 8",
        "  1=  Bob    80 points  largest territory 24  crowns 10  games 8 + 64 + 8",
    ]


def test_rank_warnings_are_shown_per_player(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_castle = write(tmp_path, "nocastle.txt", "W0 W0\nW0 W0\n")
    _, out, _ = run_rank([no_castle], capsys)
    assert "Warning for nocastle: no castle: every kingdom starts from one castle square" in out


@pytest.mark.parametrize(
    ("argv_names", "message"),
    [
        (["a.txt", "a.txt"], "player 'a' is given twice"),
        (["-", "-"], "standard input (-) can hold only one board"),
        (["--dynasty", "Ann=a.txt", "Ann=a.txt", "Bob=a.txt"], "every player needs the same number of games"),
        (["bad.txt"], "bad.txt: line 1: unknown square 'Q'"),
        (["Ann=missing.txt"], "missing.txt: no such file"),
    ],
)
def test_rank_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv_names: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "a.txt", SMALL)
    write(tmp_path, "bad.txt", "Q W0\nW0 W0\n")
    status, out, err = run_rank(argv_names, capsys, stdin=SMALL.encode())
    assert status == 2 and out == ""
    assert err.startswith("kingdomino rank: ")
    assert message in err
    assert err.count("\n") == 1


def test_rank_reads_one_board_from_stdin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = write(tmp_path, "big.txt", BIG)
    _, out, _ = run_rank(["Sam=-", big, "--json"], capsys, stdin=SMALL.encode())
    assert [s["name"] for s in json.loads(out)["standings"]] == ["big", "Sam"]


# --- the installed command, end to end -----------------------------------------------------------
def test_console_command_scores_and_fails_cleanly(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "scanner"]
    good = subprocess.run(
        [*command, "score", str(SAMPLE), "--json"], capture_output=True, text=True, timeout=60
    )
    assert good.returncode == 0 and json.loads(good.stdout)["total"] == 39
    bad_path = write(tmp_path, "bad.txt", b"\xff\xfe\x00garbage")
    bad = subprocess.run([*command, "score", bad_path], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1
    piped = subprocess.run(
        [*command, "score", "-"],
        input=SAMPLE.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert piped.returncode == 0 and piped.stdout.startswith("Score: 39 points")
