"""``python -m benchmarks``: time per stage, peak memory and scan/decode ratio for 1, 12 and 48 MP photos.

Each photo is a generated table scene (``benchmarks.scenes``) saved as a JPEG. Every size is measured in a
fresh child process pinned to one CPU core with one thread per library, so peak resident memory belongs
to that size alone and interpreter start-up and model loading are excluded from the scan time. Times are
medians of ``--runs`` scans; the baseline is ``cv2.imdecode`` of the same JPEG bytes in the same process.

The locator runs a flat list of attempts (scanner.locate.attempts): a fast one on a ~1000 px copy, then
colour outlines, the whole work copy, windows, enlarged windows... until a frame is settled. Each row gives
the attempts a scan ran (its ``ScanResult.path``); the same 12 MP photo is also measured without the fast
attempt, and ``--scenes`` more 12 MP scenes (other seeds: other tables, kingdom sizes and tilts) give the
mean and the slowest scan over varied photos against the mean ``cv2.imread`` of the same files, photo by
photo; and
``--hard`` photos of the hard bench (``benchmarks.hard``, held-out split unless ``--hard-split dev``: every
condition class, refusals included) the same way, each with the path its scan took.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ONE_THREAD = {
    name: "1"
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
}
for _name, _value in ONE_THREAD.items():  # before numpy / OpenCV start their thread pools
    os.environ.setdefault(_name, _value)

import cv2  # noqa: E402
import numpy as np  # noqa: E402

#: Photo sizes measured: label -> (width, height).
SIZES = {"1 MP": (1152, 864), "12 MP": (4000, 3000), "48 MP": (8000, 6000)}
TARGET_SECONDS_12MP = 1.5
TARGET_RATIO = 4.0
SCENE_SEED = 7
#: Seeds of the extra 12 MP scenes (far from the evaluation and development seed ranges).
EXTRA_SEEDS = range(90_000, 90_100)
FULL_SEARCH = "12 MP, full search"


def machine() -> dict:
    """What the figures were measured on."""
    import PIL
    import sklearn

    from model.evaluation.evaluate import cpu_name

    return {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "opencv": cv2.__version__,
        "scikit-learn": sklearn.__version__,
        "pillow": PIL.__version__,
        "load average": " ".join(f"{value:.1f}" for value in os.getloadavg()),
    }


def make_photos(folder: Path, quality: int = 90) -> dict[str, Path]:
    """One 12 MP scene, resized to each size (a 48 MP scene is the same table seen at 4× the pixels)."""
    from benchmarks.scenes import generate_scene

    scene = generate_scene(SCENE_SEED, size=SIZES["12 MP"])
    photos = {}
    for label, size in SIZES.items():
        shrinking = size[0] < scene.image.shape[1]
        image = cv2.resize(scene.image, size, interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)
        path = folder / f"scene_{label.replace(' ', '')}.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        photos[label] = path
    return photos


def make_extra_photos(folder: Path, count: int, quality: int = 90) -> list[Path]:
    """``count`` more 12 MP scenes (other seeds) for the median over varied photos."""
    from benchmarks.scenes import generate_scene

    paths = []
    for seed in EXTRA_SEEDS[:count]:
        scene = generate_scene(seed, size=SIZES["12 MP"])
        path = folder / f"scene_{seed}.jpg"
        cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        paths.append(path)
    return paths


def make_hard_photos(folder: Path, count: int, split: str, quality: int = 95) -> list[Path]:
    """The first ``count`` photos of a hard bench split (``benchmarks.hard``): 12 MP JPEGs as it scans."""
    from benchmarks.hard import split_seeds
    from benchmarks.hard_scenes import generate_hard_scene

    paths = []
    for seed in split_seeds(split, count):
        scene = generate_hard_scene(seed)
        path = folder / f"hard_{seed}_{scene.params['condition']}.jpg"
        cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        paths.append(path)
    return paths


def peak_resident_bytes() -> int:
    """Peak resident memory of this process: VmHWM, because ru_maxrss keeps the parent's peak over exec."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _path_taken(path: list[str]) -> str:
    """The locator's attempts a scan ran, short: ``fast=pending > whole=accepted``."""
    return " > ".join(path) if path else "-"


def _scan_function(full_search: bool = False):
    """``path -> (stage timings, grid size, locator path)``; only photo loading while the scanner is not
    built yet. ``full_search``: without the locator's fast attempt."""
    try:
        from scanner.recognizer import KingdomScanner
    except ImportError:
        from scanner.imageio import load_photo

        def load_only(path: str) -> tuple[dict, str, list[str]]:
            started = time.perf_counter()
            load_photo(path)
            return {"decode": time.perf_counter() - started}, "load_photo only (no scanner yet)", []

        return load_only
    from scanner.errors import ScanError
    from scanner.locate import ALL_ATTEMPTS, LocatorSettings

    attempts = tuple(name for name in ALL_ATTEMPTS if not (full_search and name == "fast"))
    scanner = KingdomScanner(locator=LocatorSettings(attempts=attempts))

    def scan(path: str) -> tuple[dict, int | str, list[str]]:
        try:
            result = scanner.scan(path)
        except ScanError as error:  # a refusal is a measured outcome too, with the path that led to it
            return {}, "refused", list(getattr(error, "path", []))
        return dict(result.timings), result.grid_size, list(result.path)

    return scan


def measure(photos: list[Path], runs: int, full_search: bool = False) -> dict:
    """Inside the one-core child: scan ``runs`` times, read the stage timings, then the decode baseline.

    Several photos: each is measured so, and the medians over the photos are reported.
    """
    cv2.setNumThreads(1)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    started = time.perf_counter()
    scan = _scan_function(full_search)
    model_seconds = time.perf_counter() - started
    figures = [_measure_one(scan, photo, runs) for photo in photos]
    if len(figures) == 1:
        result = figures[0]
    else:
        names = list(dict.fromkeys(name for one in figures for name in one["stages"]))
        paths = [one["path"] for one in figures]
        result = {
            "jpeg_mb": float(np.median([one["jpeg_mb"] for one in figures])),
            "imdecode": float(np.median([one["imdecode"] for one in figures])),
            "imread": float(np.median([one["imread"] for one in figures])),
            "scan": float(np.median([one["scan"] for one in figures])),
            "fastest_scan": float(np.min([one["fastest_scan"] for one in figures])),
            "slowest_scan": float(np.max([one["scan"] for one in figures])),
            "mean_scan": float(np.mean([one["scan"] for one in figures])),
            "mean_imread": float(np.mean([one["imread"] for one in figures])),
            "per_photo": [
                {
                    "photo": photo.name,
                    "scan": one["scan"],
                    "imread": one["imread"],
                    "path": one["path"],
                    "result": one["result"],
                }
                for photo, one in zip(photos, figures, strict=True)
            ],
            "stages": {
                name: float(np.median([one["stages"].get(name, 0.0) for one in figures])) for name in names
            },
            "result": f"{sum(isinstance(one['result'], int) for one in figures)}/{len(figures)} located",
            "path": ", ".join(f"{paths.count(path)} {path}" for path in dict.fromkeys(paths)),
            "photos": len(figures),
        }
    result.update({"peak_rss_mb": peak_resident_bytes() / 2**20, "model_load": model_seconds, "runs": runs})
    return result


def _measure_one(scan, photo: Path, runs: int) -> dict:
    data = photo.read_bytes()
    whole, stages, located, path = [], [], None, []
    for _ in range(runs):
        started = time.perf_counter()
        try:
            timings, located, path = scan(str(photo))
            stages.append(timings)
        except Exception as error:  # noqa: BLE001 - a failed scan is still a measured (and reported) outcome
            located = f"error: {error}"
        whole.append(time.perf_counter() - started)
    decode, read = [], []
    for _ in range(runs):
        started = time.perf_counter()
        cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        decode.append(time.perf_counter() - started)
        started = time.perf_counter()
        cv2.imread(str(photo))
        read.append(time.perf_counter() - started)
    names = list(dict.fromkeys(name for timing in stages for name in timing))
    return {
        "jpeg_mb": len(data) / 1e6,
        "imdecode": float(np.median(decode)),
        "imread": float(np.median(read)),
        "scan": float(np.median(whole)),
        "fastest_scan": float(np.min(whole)),
        "stages": {name: float(np.median([timing.get(name, 0.0) for timing in stages])) for name in names},
        "result": located,
        "path": _path_taken(path),
    }


def run_child(photos: list[Path], runs: int, full_search: bool = False) -> dict:
    command = [sys.executable, "-m", "benchmarks", "--runs", str(runs)]
    command += [argument for photo in photos for argument in ("--child", str(photo))]
    command += ["--full-search"] if full_search else []
    done = subprocess.run(
        command, env={**os.environ, **ONE_THREAD}, capture_output=True, text=True, timeout=3600
    )
    if done.returncode != 0:
        raise SystemExit(f"benchmark child failed for {photos[0].name}:\n{done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def markdown(results: dict[str, dict], about: dict) -> str:
    every_name = list(dict.fromkeys(name for figures in results.values() for name in figures["stages"]))
    stage_names = [name for name in every_name if "." not in name and name != "total"]
    detail_names = [name for name in every_name if "." in name]
    header = [
        "photo",
        "JPEG",
        "cv2.imdecode",
        *stage_names,
        "whole scan",
        "fastest scan",
        "scan / imdecode",
        "peak RSS",
        "result",
        "locator path",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, figures in results.items():
        cells = [label, f"{figures['jpeg_mb']:.1f} MB", f"{figures['imdecode'] * 1000:.0f} ms"]
        cells += [f"{figures['stages'].get(name, 0.0) * 1000:.0f} ms" for name in stage_names]
        cells += [
            f"{figures['scan'] * 1000:.0f} ms",
            f"{figures['fastest_scan'] * 1000:.0f} ms",
            f"{figures['scan'] / figures['imdecode']:.1f}×",
            f"{figures['peak_rss_mb']:.0f} MB",
            str(figures["result"])
            if isinstance(figures["result"], str)
            else f"{figures['result']}×{figures['result']}",
            figures.get("path", "-"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if detail_names:
        lines.append("")
        for label, figures in results.items():
            parts = ", ".join(
                f"{name} {figures['stages'][name] * 1000:.0f} ms"
                for name in detail_names
                if name in figures["stages"]
            )
            lines.append(f"- {label} sub-stages: {parts}")
    first = next(iter(results.values()))
    several = [label for label, figures in results.items() if figures.get("photos")]
    lines += [
        "",
        f"Median of {first['runs']} scans per size on one pinned core with one thread; model loading "
        f"({first['model_load']:.2f} s) excluded. Stage times are the scanner's own `ScanResult.timings`.",
        f"Machine: {about['cpu']}, {about['cores']} cores, load average {about['load average']} while "
        f"measuring; Python {about['python']}, numpy {about['numpy']}, OpenCV {about['opencv']}, "
        f"scikit-learn {about['scikit-learn']}, Pillow {about['pillow']}.",
    ]
    if FULL_SEARCH in results:
        lines.append(
            f"`{FULL_SEARCH}`: the same 12 MP photo with the fast path switched off (what a photo the fast "
            "path refuses costs, e.g. a kingdom under ~25 % of the photo's width)."
        )
    for label in several:
        figures = results[label]
        ratio = figures["mean_scan"] / figures["mean_imread"]
        what = (
            f"{figures['photos']} 12 MP photos of the hard bench's {label.split('hard ')[-1]} split, every "
            "condition class"
            if "hard" in label
            else f"{figures['photos']} other generated 12 MP scenes (seeds {EXTRA_SEEDS.start}+)"
        )
        lines.append(
            f"`{label}`: {what}, "
            f"medians over the photos; mean scan {figures['mean_scan'] * 1000:.0f} ms = {ratio:.1f}× the "
            f"mean `cv2.imread` ({figures['mean_imread'] * 1000:.0f} ms), slowest scan "
            f"{figures['slowest_scan'] * 1000:.0f} ms. Targets: mean ≤ {TARGET_RATIO:.0f}× imread: "
            f"{_verdict(ratio <= TARGET_RATIO)}; slowest ≤ {TARGET_SECONDS_12MP} s: "
            f"{_verdict(figures['slowest_scan'] <= TARGET_SECONDS_12MP)}."
        )
        lines += ["", "| photo | whole scan | cv2.imread | result | locator path |", "|---|---|---|---|---|"]
        lines += [
            f"| {one['photo']} | {one['scan'] * 1000:.0f} ms | {one['imread'] * 1000:.0f} ms | "
            f"{one.get('result', '-')} | {one['path']} |"
            for one in figures["per_photo"]
        ]
    twelve = results.get("12 MP")
    if twelve:
        ratio = twelve["scan"] / twelve["imdecode"]
        lines.append(
            f"Targets (12 MP): whole scan {twelve['scan']:.2f} s ≤ {TARGET_SECONDS_12MP} s: "
            f"{_verdict(twelve['scan'] <= TARGET_SECONDS_12MP)}; "
            f"{ratio:.1f}× the JPEG decode ≤ {TARGET_RATIO:.0f}×: {_verdict(ratio <= TARGET_RATIO)}."
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="scans per size (median reported)")
    parser.add_argument(
        "--sizes", default=",".join(SIZES), help="comma-separated subset of: " + ", ".join(SIZES)
    )
    parser.add_argument(
        "--scenes", type=int, default=20, help="other 12 MP scenes measured for the mean over varied photos"
    )
    parser.add_argument(
        "--hard", type=int, default=54, help="hard bench photos (12 MP, every condition) measured; 0: none"
    )
    parser.add_argument("--hard-split", choices=("dev", "heldout"), default="heldout", help="their seeds")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of markdown")
    parser.add_argument("--child", type=Path, action="append", help=argparse.SUPPRESS)
    parser.add_argument("--full-search", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.runs, args.full_search)))
        return 0
    labels = [label.strip() for label in args.sizes.split(",") if label.strip()]
    unknown = [label for label in labels if label not in SIZES]
    if unknown:
        parser.error(f"unknown size {unknown[0]!r}; choose from {', '.join(SIZES)}")
    with tempfile.TemporaryDirectory(prefix="kingdomino-bench-") as folder:
        photos = make_photos(Path(folder))
        results = {label: run_child([photos[label]], args.runs) for label in labels}
        if "12 MP" in labels:
            results[FULL_SEARCH] = run_child([photos["12 MP"]], args.runs, full_search=True)
            if args.scenes > 0:
                extra = make_extra_photos(Path(folder), args.scenes)
                results[f"12 MP, {args.scenes} scenes"] = run_child(extra, args.runs)
        if args.hard > 0:
            hard = make_hard_photos(Path(folder), args.hard, args.hard_split)
            results[f"12 MP, {len(hard)} photos, hard {args.hard_split}"] = run_child(hard, args.runs)
    about = machine()
    print(
        json.dumps({"machine": about, "results": results}, indent=2)
        if args.json
        else markdown(results, about)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
