"""``kingdomino classify``: read single-square images with the shipped classifier.

It treats each image as one square. A file that cannot be read gets a one-line error for that
file (a JSON line with "error" under --json, so outputs stay in input order); the others are answered.
Exit status: 0 all answered, 1 some file failed, 2 the model could not be loaded or bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_SOME_FAILED = 1
EXIT_NO_MODEL = 2


def _crown_words(crowns: int) -> str:
    return "no crown" if crowns == 0 else f"{crowns} crown" + ("s" if crowns > 1 else "")


def classify_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="kingdomino classify", description="Classify single-square images.")
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="one square per image")
    parser.add_argument("--json", action="store_true", help="one JSON line per image, in input order")
    parser.add_argument("--model", type=Path, default=None, help="model file (default: the packaged one)")
    args = parser.parse_args(argv)

    from model.classifier import SquareClassifier
    from scanner.errors import ModelLoadError, PhotoError
    from scanner.imageio import load_photo

    try:
        classifier = SquareClassifier.load(args.model)
    except ModelLoadError as error:
        print(f"kingdomino classify: {error}", file=sys.stderr)
        return EXIT_NO_MODEL
    status = 0
    for source in args.images:
        try:
            image = load_photo(source).image
            reading = classifier.classify([image])[0]
        except (PhotoError, ValueError) as error:
            status = EXIT_SOME_FAILED
            if args.json:
                print(json.dumps({"image": source, "error": str(error)}), flush=True)
            print(f"kingdomino classify: {source}: {error}", file=sys.stderr, flush=True)
            continue
        if args.json:
            print(json.dumps({"image": source, **reading.to_dict()}), flush=True)
        else:
            words = f"{reading.terrain.value}, {_crown_words(reading.crowns)}"
            print(f"{source}: {words} ({reading.confidence:.0%})")
    return status
