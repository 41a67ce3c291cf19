"""``kingdomino scan PHOTO [PHOTO ...] [--grid 5|7|auto] [--json] [--debug-dir DIR] [--jobs N]``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from scanner.errors import ModelLoadError, ScanError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kingdomino scan",
        description="Find the kingdom in each photo, read every square, and score it.",
    )
    parser.add_argument("photos", nargs="+", metavar="PHOTO", help="JPEG, PNG or HEIC photo of one kingdom")
    parser.add_argument(
        "--grid", choices=["5", "7", "auto"], default="auto", help="5×5, 7×7 (Mighty Duel) or auto"
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per photo, in input order")
    parser.add_argument(
        "--debug-dir", type=Path, help="write the lattice on the photo and the labelled squares here"
    )
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="scan N photos at once in worker processes (0: one per core); output stays in input order",
    )
    return parser


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 (one per core) or more")
    return value


def scan_main(argv: Sequence[str]) -> int:
    """Scan every photo; a photo that fails gets its reason and the others are still scanned (exit 1)."""
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    grid = args.grid if args.grid == "auto" else int(args.grid)
    problem = _debug_folder_problem(args.debug_dir) if args.debug_dir is not None else ""
    if problem:  # said before any photo is scanned, not as a traceback after the first
        print(f"kingdomino scan: --debug-dir {args.debug_dir}: {problem}", file=sys.stderr)
        return 2
    refused = _refused_unread(args.photos)  # a missing or unusable file is said before the model loads
    readable = [photo for photo in args.photos if photo not in refused]
    if not readable:
        return _report_all((refused[photo] for photo in args.photos), args)
    try:
        pool, scanner = None, None
        if args.jobs == 1 or len(readable) == 1:
            from scanner.recognizer import KingdomScanner

            scanner = KingdomScanner()
        else:
            from scanner.workers import PoolSettings, ScanPool

            pool = ScanPool(PoolSettings(workers=args.jobs or None))
    except ModelLoadError as error:
        print(f"kingdomino scan: {error}", file=sys.stderr)
        return 1
    try:
        if pool is not None:
            scanned = pool.scan_many(readable, grid=grid, names=readable)
        else:
            scanned = (_scan_or_error(scanner, photo, grid) for photo in readable)
        return _report_all(_in_input_order(args.photos, refused, scanned), args)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the interpreter's final flush quiet
        return 1
    finally:
        if pool is not None:
            pool.close()


def _debug_folder_problem(directory: Path) -> str:
    """Why the debug images cannot be written in ``directory`` ('' when they can); it is made if missing."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        return "a file of that name is in the way; give a folder"
    except OSError as error:
        return f"the folder cannot be made ({error.strerror or 'input/output error'})"
    if not os.access(directory, os.W_OK | os.X_OK):
        return "the folder cannot be written to (permission denied)"
    return ""


def _refused_unread(photos: Sequence[str]) -> dict[str, ScanError]:
    """The photos whose file alone says they cannot be read (missing, a folder, empty, not a photo...)."""
    from scanner.imageio import check_photo

    refused = {}
    for photo in photos:
        try:
            check_photo(photo)
        except ScanError as error:
            refused[photo] = error
    return refused


def _in_input_order(photos: Sequence[str], refused: dict[str, ScanError], scanned):
    scanned = iter(scanned)
    for photo in photos:
        yield refused[photo] if photo in refused else next(scanned)


def _scan_or_error(scanner, photo: str, grid: int | str):
    try:
        return scanner.scan(photo, grid=grid, name=photo)
    except ScanError as error:
        return error


def _report_all(outcomes, args: argparse.Namespace) -> int:
    """Print each photo's result or reason, in input order; 1 when any photo failed."""
    failed = False
    for index, (photo, result) in enumerate(zip(args.photos, outcomes, strict=True)):
        if isinstance(result, ScanError):
            error = result
            failed = True
            reason = str(error).splitlines()[0] if str(error) else "no kingdom found in this photo"
            if args.json:
                print(json.dumps({"photo": photo, "error": reason}), flush=True)
            else:
                print(f"{photo}: {reason}", file=sys.stderr, flush=True)
            overlay = getattr(error, "overlay", None)
            if args.debug_dir is not None and overlay is not None:
                _write_image(args.debug_dir, f"{index:02d}_{Path(photo).stem}_not_found.jpg", overlay)
            continue
        if args.debug_dir is not None:
            _write_debug(args.debug_dir, photo, index, result)
        if args.json:
            print(json.dumps(result.to_json_dict()), flush=True)
        else:
            print(_text(result), flush=True)
    return 1 if failed else 0


def _text(result) -> str:
    from kingdomino.report import format_report

    lines = [f"{result.photo}: {result.grid_size}×{result.grid_size} kingdom"]
    lines += [f"note: {note}" for note in result.notes]
    flagged = int(result.flagged.sum())
    if flagged:
        lines.append(f"{flagged} square(s) to check, marked ? below")
    lines.append(_marked_grid(result.kingdom, result.flagged))
    lines.append(format_report(result.score, result.kingdom).rstrip())
    return "\n".join(lines) + "\n"


def _marked_grid(kingdom, flagged) -> str:
    """The kingdom as board text with ``?`` after each square to check (``kingdomino score`` reads it)."""
    rows = []
    for r, row in enumerate(kingdom.squares):
        tokens = [square.token + ("?" if flagged[r][c] else "") for c, square in enumerate(row)]
        rows.append(" ".join(token.ljust(3) for token in tokens).rstrip())
    return "\n".join(rows)


def _write_debug(directory: Path, photo: str, index: int, result) -> None:
    stem = f"{index:02d}_{Path(photo).stem}"
    _write_image(directory, f"{stem}_lattice.jpg", result.overlay)
    _write_image(directory, f"{stem}_squares.jpg", result.readings_overlay())


def _write_image(directory: Path, name: str, image) -> None:
    import cv2

    directory.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(directory / name), image, [cv2.IMWRITE_JPEG_QUALITY, 88])
