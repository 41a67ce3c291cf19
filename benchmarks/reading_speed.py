"""The reading stages' processor time on 5×5 and 7×7 kingdoms (``python -m benchmarks.reading_speed``).

Generated table scenes (``benchmarks.scenes``, seeds from 90 000: the speed bench's extra scenes) are read in
their true frame, as if placed by hand, so the locator is left out; each is scanned ``--runs`` times and the
least processor time of its reading stages (table, rectify, classify, decode and review:
``ScanResult.timings["reading_cpu"]``) is kept; ``--one-core``: one core, one OpenCV thread and numpy's BLAS
on one thread (as ``benchmarks.hard`` and the page's scan workers: a second BLAS thread on the same core only
waits; docs/experiments.md, "The reading's time on one core"). Issue 36's targets: 150 ms for a 5×5, 300 ms
for a 7×7.
"""

from __future__ import annotations

import argparse
import os

import cv2
import numpy as np

from benchmarks.scenes import generate_scene

TARGETS = {5: 0.150, 7: 0.300}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.reading_speed", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--count", type=int, default=10, help="scenes of each size")
    parser.add_argument("--runs", type=int, default=3, help="scans per scene (the least time is kept)")
    parser.add_argument("--first-seed", type=int, default=90_000)
    parser.add_argument(
        "--one-core",
        action="store_true",
        help="pin the process to one core, OpenCV and numpy's BLAS to one thread",
    )
    args = parser.parse_args(argv)
    if args.one_core:
        cv2.setNumThreads(1)
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    from contextlib import nullcontext

    from scanner.locate import one_blas_thread
    from scanner.recognizer import KingdomScanner

    scanner = KingdomScanner()
    with one_blas_thread() if args.one_core else nullcontext():
        _measure(scanner, args)
    return 0


def _measure(scanner, args: argparse.Namespace) -> None:
    """One line per kingdom size: the reading stages' least processor time per scene."""
    for n in (5, 7):
        seconds = []
        for seed in range(args.first_seed, args.first_seed + args.count):
            scene = generate_scene(seed, grid_size=n)
            truth, corners = scene.upright()
            data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
            runs = [
                scanner.scan(data, grid=n, corners=corners).timings["reading_cpu"] for _ in range(args.runs)
            ]
            seconds.append(min(runs))
        ms = np.array(seconds) * 1000
        over = int((ms > TARGETS[n] * 1000).sum())
        print(
            f"{n}×{n}: {len(ms)} scenes, reading stages' processor time median {np.median(ms):.0f} ms, "
            f"mean {ms.mean():.0f} ms, max {ms.max():.0f} ms; over {TARGETS[n] * 1000:.0f} ms: {over}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
