"""``kingdomino score`` and ``kingdomino rank``: score boards typed or saved as text or JSON.

Bad input is a player's typo, not a crash: every reading problem ends as one line on stderr that
names the file, line and token, with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from kingdomino.board import BoardFormatError, Kingdom
from kingdomino.ranking import DYNASTY_GAMES, EDITIONS, dynasty, rank_game
from kingdomino.report import format_ranking, format_report
from kingdomino.scoring import score_kingdom

#: No board is anywhere near this big; the cap keeps ``/dev/zero`` or a photo given by mistake from hanging.
MAX_BOARD_BYTES = 256 * 1024
STDIN = "-"
EXIT_BAD_INPUT = 2


class BoardInputError(Exception):
    """A board that cannot be read; str is the one-line message for the player."""


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def decode_board_bytes(data: bytes) -> str:
    """Bytes to text, refusing binary data and non-UTF-8 with the line where it starts."""
    if not data.strip():
        raise BoardInputError("the board is empty (no squares found)")
    if b"\x00" in data:
        offset = data.index(b"\x00")
        raise BoardInputError(
            f"line {_line_of(data, offset)}: binary data (NUL byte), not a text or JSON board"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad = data[error.start : error.start + 1]
        raise BoardInputError(
            f"line {_line_of(data, error.start)}: byte 0x{bad.hex()} is not UTF-8 text; "
            "save the board as UTF-8"
        ) from None


def _read_bytes(source: str, stdin: BinaryIO | None) -> bytes:
    if source == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        return stream.read(MAX_BOARD_BYTES + 1)
    path = Path(source)
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_BOARD_BYTES + 1)
    except FileNotFoundError:
        raise BoardInputError("no such file") from None
    except IsADirectoryError:
        raise BoardInputError("is a directory, not a board file") from None
    except OSError as error:
        raise BoardInputError(f"cannot read the file ({error.strerror or error})") from None


def read_board(source: str, stdin: BinaryIO | None = None) -> Kingdom:
    """Read a text or JSON board from a path, or from stdin when ``source`` is ``-``."""
    data = _read_bytes(source, stdin)
    if len(data) > MAX_BOARD_BYTES:
        raise BoardInputError(f"more than {MAX_BOARD_BYTES // 1024} KiB: far too large to be a board")
    text = decode_board_bytes(data)
    try:
        return Kingdom.parse(text)
    except BoardFormatError as error:
        raise BoardInputError(str(error)) from None


def _source_name(source: str) -> str:
    return "stdin" if source == STDIN else source


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _fail(command: str, message: str) -> int:
    print(f"kingdomino {command}: {_one_line(message)}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _parse_args(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace | int:
    """argparse, but returning its exit status instead of raising SystemExit out of main()."""
    try:
        return parser.parse_args(list(argv))
    except SystemExit as stop:
        return int(stop.code or 0)


def _add_bonus_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--harmony", action="store_true", help="+5 when the whole frame is filled (no empty square)"
    )
    parser.add_argument(
        "--middle-kingdom", action="store_true", help="+10 when the castle is in the middle of the kingdom"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a readable breakdown"
    )


#: The board formats, as ``kingdomino score --help`` and ``rank --help`` show them.
BOARD_FORMAT = """board formats:
  text: one row per line, squares separated by spaces, # starts a comment.
        A square is a terrain letter and its crowns: W wheat, F forest, L lake,
        G grassland, S swamp, M mine (e.g. G2 = grassland with 2 crowns);
        C is the castle, . an empty square; a trailing ? (a square kingdomino scan
        asks you to check) is ignored. 5 rows of 5 (or 7 of 7, Mighty Duel):
          G0 L0 F0 F0 F0
          G0 F0 F1 F1 G0
          G1 S2 C  F0 G0
          .  S0 L0 G2 G1
          F0 L1 L0 G0 W0
  JSON: {"grid_size": 5, "squares": [[{"terrain": "grassland", "crowns": 0}, ...], ...]}
        as written by kingdomino scan --json (row 0 at the top)."""


# --- score -------------------------------------------------------------------------------------
def score_main(argv: Sequence[str], stdin: BinaryIO | None = None) -> int:
    """``kingdomino score BOARD [--harmony] [--middle-kingdom] [--json]``."""
    parser = argparse.ArgumentParser(
        prog="kingdomino score",
        description="Score one Kingdomino board given as text or JSON.",
        epilog=BOARD_FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("board", help="board file (text or JSON), or - to read standard input")
    _add_bonus_flags(parser)
    args = _parse_args(parser, argv)
    if isinstance(args, int):
        return args
    try:
        kingdom = read_board(args.board, stdin)
    except BoardInputError as error:
        return _fail("score", f"{_source_name(args.board)}: {error}")
    report = score_kingdom(kingdom, harmony=args.harmony, middle_kingdom=args.middle_kingdom)
    print(json.dumps(report.to_dict()) if args.json else format_report(report, kingdom))
    return 0


# --- rank --------------------------------------------------------------------------------------
def _player_and_source(argument: str) -> tuple[str, str]:
    """``NAME=PATH`` or a bare path (the name is then the file stem, ``stdin`` for ``-``)."""
    name, separator, source = argument.partition("=")
    if separator and name and source and not Path(argument).exists():
        return name, source
    return ("stdin" if argument == STDIN else Path(argument).stem or argument), argument


def _group_boards(
    arguments: Sequence[str], is_dynasty: bool, read: Callable[[str], Kingdom]
) -> list[dict[str, Kingdom]]:
    """One {player: kingdom} per game; a Dynasty lists each player once per game, in game order."""
    boards: dict[str, list[Kingdom]] = {}
    if sum(1 for argument in arguments if _player_and_source(argument)[1] == STDIN) > 1:
        raise BoardInputError("standard input (-) can hold only one board")
    for argument in arguments:
        name, source = _player_and_source(argument)
        if name in boards and not is_dynasty:
            raise BoardInputError(
                f"player {name!r} is given twice; name players NAME=PATH (or use --dynasty for several games)"
            )
        try:
            boards.setdefault(name, []).append(read(source))
        except BoardInputError as error:
            raise BoardInputError(f"{_source_name(source)}: {error}") from None
    counts = {len(kingdoms) for kingdoms in boards.values()}
    if len(counts) > 1:
        per_player = ", ".join(f"{name} {len(kingdoms)}" for name, kingdoms in boards.items())
        raise BoardInputError(f"every player needs the same number of games ({per_player})")
    return [{name: kingdoms[game] for name, kingdoms in boards.items()} for game in range(counts.pop())]


def rank_main(argv: Sequence[str], stdin: BinaryIO | None = None) -> int:
    """``kingdomino rank [NAME=]BOARD ... [--edition E] [--dynasty] [bonus flags] [--json]``."""
    parser = argparse.ArgumentParser(
        prog="kingdomino rank",
        description="Rank a game: one board per player. Name players NAME=PATH, or the file stem is used.",
        epilog=BOARD_FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("boards", nargs="+", metavar="[NAME=]BOARD", help="one board per player (- = stdin)")
    parser.add_argument(
        "--edition",
        choices=EDITIONS,
        default="second",
        help="tie-break rules: second (tied players share the victory) or nordic (most crowns wins)",
    )
    parser.add_argument(
        "--dynasty",
        action="store_true",
        help=f"several games ({DYNASTY_GAMES} in the rules): give NAME=BOARD once per game, totals added",
    )
    _add_bonus_flags(parser)
    args = _parse_args(parser, argv)
    if isinstance(args, int):
        return args
    try:
        games = _group_boards(args.boards, args.dynasty, lambda source: read_board(source, stdin))
    except BoardInputError as error:
        return _fail("rank", str(error))
    options = {"edition": args.edition, "harmony": args.harmony, "middle_kingdom": args.middle_kingdom}
    ranking = dynasty(games, **options) if args.dynasty else rank_game(games[0], **options)
    print(json.dumps(ranking.to_dict()) if args.json else format_ranking(ranking))
    return 0
