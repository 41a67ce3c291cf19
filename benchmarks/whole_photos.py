"""Measure the whole photo pipeline on generated table scenes (``python -m benchmarks.whole_photos``).

Reports: photos located (all four corners within a quarter square of the truth), median corner error
in squares, per-square terrain / crowns accuracy, boards with every square right, boards with the exact
score, and seconds per photo with the time per stage. The seeds default to 10 000+, far from the few
small seeds the unit tests use, and nothing in the scanner is tuned on them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict

import cv2
import numpy as np

from benchmarks.scenes import generate_scene, rotate_kingdom, with_reflections
from kingdomino.scoring import score_kingdom
from scanner.errors import ScanError
from scanner.recognizer import KingdomScanner

LOCATED_TOLERANCE = 0.25  # squares
GLARE_SEED = 500_000  # added to the scene's seed for its reflections (--glare)


def corner_errors(found: np.ndarray, truth: np.ndarray, grid_size: int) -> np.ndarray:
    """Distance of each corner to the truth, in squares of the true frame."""
    square = np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1).mean() / grid_size
    return np.linalg.norm(np.asarray(found) - truth, axis=1) / square


def evaluate(
    count: int,
    seed: int,
    size: tuple[int, int] | None = None,
    verbose: bool = False,
    grid_size: int = 5,
    compare_table: bool = True,
    width_range: tuple[float, float] | None = None,
    glare: bool = False,
) -> dict:
    """The figures above for ``count`` scenes from ``seed``; ``width_range``: the kingdom's share of the
    photo's width (the generator's default when None); ``glare``: lamps' reflections on the tiles."""
    widths = {} if width_range is None else {"width_range": width_range}
    scanner = KingdomScanner(compare_table=compare_table)
    located = 0
    errors, per_photo, failures = [], [], []
    terrain_ok = crowns_ok = squares = boards_right = boards_score = misread = misread_unflagged = 0
    flagged = 0
    stages: dict[str, list[float]] = defaultdict(list)
    for index in range(count):
        scene = generate_scene(seed + index, size=size, grid_size=grid_size, **widths)
        truth_kingdom, truth_corners = scene.upright()
        image = with_reflections(scene, GLARE_SEED + seed + index) if glare else scene.image
        data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
        try:
            result = scanner.scan(data, name=f"scene-{seed + index}")
        except ScanError as error:
            failures.append((seed + index, str(error)))
            if verbose:
                print(f"scene {seed + index}: FAILED {error} {scene.params}", file=sys.stderr)
            continue
        for stage, seconds in result.timings.items():
            stages[stage].append(seconds)
        n = truth_kingdom.grid_size
        if result.grid_size != n:
            failures.append((seed + index, f"grid {result.grid_size} instead of {truth_kingdom.grid_size}"))
            continue
        # A kingdom turned ~45° has two sides about equally close to the photo's x axis: the upright
        # convention may then start at the neighbouring corner. Compare with the truth read that way.
        turns = min(
            range(4),
            key=lambda k: corner_errors(result.corners, np.roll(truth_corners, -k, axis=0), n).max(),
        )
        truth_corners = np.roll(truth_corners, -turns, axis=0)
        truth_kingdom = rotate_kingdom(truth_kingdom, turns)
        error = corner_errors(result.corners, truth_corners, n)
        errors.extend(error.tolist())
        ok = bool((error <= LOCATED_TOLERANCE).all())
        located += ok
        if not ok:
            failures.append((seed + index, f"corners off by up to {error.max():.2f} squares"))
            if verbose:
                print(
                    f"scene {seed + index}: corners off {np.round(error, 2)} {scene.params}", file=sys.stderr
                )
            continue
        wrong = 0
        for (r, c), square in truth_kingdom.cells():
            read = result.kingdom[r, c]
            terrain_ok += read.terrain == square.terrain
            crowns_ok += read.crowns == square.crowns
            wrong += read != square
            misread_unflagged += read != square and not result.flagged[r, c]
            flagged += bool(result.flagged[r, c])
            squares += 1
        misread += wrong
        boards_right += wrong == 0
        boards_score += score_kingdom(result.kingdom).total == score_kingdom(truth_kingdom).total
        per_photo.append(float(error.mean()))
        if verbose:
            print(
                f"scene {seed + index}: corner error {error.max():.3f}, {wrong} squares wrong",
                file=sys.stderr,
            )
    read = max(located, 1)
    return {
        "photos": count,
        "grid_size": grid_size,
        "seeds": f"{seed}..{seed + count - 1}",
        "size": "random (1280×960 … 4032×3024)" if size is None else f"{size[0]}×{size[1]}",
        "kingdom_width": "generator default (0.15–0.70)"
        if width_range is None
        else f"{width_range[0]:g}–{width_range[1]:g}",
        "glare": glare,
        "located": located,
        "located_pct": round(100 * located / count, 1),
        "median_corner_error_squares": round(float(np.median(errors)), 3) if errors else None,
        "terrain_pct": round(100 * terrain_ok / max(squares, 1), 2),
        "crowns_pct": round(100 * crowns_ok / max(squares, 1), 2),
        "squares_misread": misread,
        "squares_misread_unflagged": misread_unflagged,
        "squares_flagged_pct": round(100 * flagged / max(squares, 1), 2),
        "boards_all_right_pct": round(100 * boards_right / read, 1),
        "boards_exact_score_pct": round(100 * boards_score / read, 1),
        "seconds_per_photo_median": round(statistics.median(stages["total"]), 3) if stages["total"] else None,
        "seconds_per_stage_median": {k: round(statistics.median(v), 4) for k, v in sorted(stages.items())},
        "failures": failures,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.whole_photos", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--size", help="WIDTHxHEIGHT of every photo (default: random phone sizes)")
    parser.add_argument("--grid-size", type=int, choices=(5, 7), default=5, help="7 = Mighty Duel kingdoms")
    parser.add_argument(
        "--width",
        type=float,
        nargs=2,
        metavar=("MIN", "MAX"),
        help="the kingdom's share of the photo's width (default 0.15 0.7; 0.08 0.15: small kingdoms)",
    )
    parser.add_argument("--verbose", action="store_true", help="one line per scene on stderr")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument(
        "--without-table", action="store_true", help="read squares without the table around the kingdom"
    )
    parser.add_argument(
        "--glare", action="store_true", help="add 1-3 reflections of a lamp on the kingdom's tiles"
    )
    args = parser.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x")) if args.size else None
    started = time.perf_counter()
    report = evaluate(
        args.count,
        args.seed,
        size,
        args.verbose,
        args.grid_size,
        not args.without_table,
        tuple(args.width) if args.width else None,
        args.glare,
    )
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"Generated table scenes: {report['photos']} photos, seeds {report['seeds']}, size {report['size']}, "
        f"kingdom {report['kingdom_width']} of the photo's width"
        + (", lamps' reflections on the tiles" if report["glare"] else "")
    )
    print(f"  located (all 4 corners within 1/4 square): {report['located']} ({report['located_pct']} %)")
    print(f"  median corner error: {report['median_corner_error_squares']} squares")
    print(
        f"  per square on located photos: terrain {report['terrain_pct']} %, crowns {report['crowns_pct']} %"
    )
    print(
        f"  squares misread: {report['squares_misread']}, "
        f"of which not flagged: {report['squares_misread_unflagged']}; "
        f"squares flagged: {report['squares_flagged_pct']} %"
    )
    print(f"  boards with every square right: {report['boards_all_right_pct']} %")
    print(f"  boards with the exact score: {report['boards_exact_score_pct']} %")
    print(f"  seconds per photo (median, scan only): {report['seconds_per_photo_median']}")
    for stage, seconds in report["seconds_per_stage_median"].items():
        print(f"    {stage:<18} {seconds:.4f} s")
    for seed, reason in report["failures"]:
        print(f"  scene {seed}: {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
