"""``kingdomino scan PHOTO [PHOTO ...] [--grid 5|7|auto] [--json] [--debug-dir DIR]``."""

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
    return parser


def scan_main(argv: Sequence[str]) -> int:
    """Scan every photo; a photo that fails gets its reason and the others are still scanned (exit 1)."""
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    from scanner.recognizer import KingdomScanner

    try:
        scanner = KingdomScanner()
    except ModelLoadError as error:
        print(f"kingdomino scan: {error}", file=sys.stderr)
        return 1
    grid = args.grid if args.grid == "auto" else int(args.grid)
    try:
        return _scan_all(scanner, args, grid)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the interpreter's final flush quiet
        return 1


def _scan_all(scanner, args: argparse.Namespace, grid: int | str) -> int:
    failed = False
    for index, photo in enumerate(args.photos):
        try:
            result = scanner.scan(photo, grid=grid, name=photo)
        except ScanError as error:
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
        lines.append(f"{flagged} square(s) read with low confidence: check them")
    lines.append(result.kingdom.to_text().rstrip())
    lines.append(format_report(result.score, result.kingdom).rstrip())
    return "\n".join(lines) + "\n"


def _write_debug(directory: Path, photo: str, index: int, result) -> None:
    stem = f"{index:02d}_{Path(photo).stem}"
    _write_image(directory, f"{stem}_lattice.jpg", result.overlay)
    _write_image(directory, f"{stem}_squares.jpg", result.readings_overlay())


def _write_image(directory: Path, name: str, image) -> None:
    import cv2

    directory.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(directory / name), image, [cv2.IMWRITE_JPEG_QUALITY, 88])
