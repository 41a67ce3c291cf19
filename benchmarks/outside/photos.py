"""``python -m benchmarks.outside.photos SEED [SEED ...] [--out DIR] [--draw] [--hard]``: write photos and truths.

Writes DIR/SEED.jpg and DIR/SEED.json (--draw: also DIR/SEED_truth.png, a downscaled copy with the truth
corners drawn; --hard: the hard tables of benchmarks/outside/hard.py). Kept apart from gen.py, which the
hard tables build on, so that no module of the generator imports another in a circle.
"""

import argparse
import json
import os
from pathlib import Path

import cv2

from benchmarks.outside import gen, hard


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seeds", nargs="+", type=int)
    ap.add_argument("--out", default="out/outside/samples")
    ap.add_argument("--draw", action="store_true")
    ap.add_argument(
        "--hard", action="store_true", help="the hard tables and conditions (benchmarks.outside.hard)"
    )
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for seed in args.seeds:
        jpeg, truth = hard.generate(seed) if args.hard else gen.generate(seed)
        Path(args.out, f"{seed}.jpg").write_bytes(jpeg)
        Path(args.out, f"{seed}.json").write_text(json.dumps(truth, indent=1))
        if args.draw:
            cv2.imwrite(str(Path(args.out, f"{seed}_truth.png")), gen.draw_truth(jpeg, truth))
        c = truth["conditions"]
        print(
            seed,
            c["source"],
            c["table"],
            c["width"],
            c["height"],
            c["tilt"],
            c["kingdom_frac"],
            c["clutter"],
            c["light"],
            c["incomplete"],
            "score",
            truth["base_score"],
        )


if __name__ == "__main__":
    main()
