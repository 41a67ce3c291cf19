"""Scan generated photos with the project's scanner as a user would, one JSON line per seed.

python -m benchmarks.outside.run --count 150 [--start 0] [--out out/outside/results.jsonl] [--fresh]
python -m benchmarks.outside.run --hard --split dev|heldout --count N [--start K]   (benchmarks.outside.hard;
    seeds are the split's first seed + K .. + K+N-1, results in out/outside/hard-SPLIT.jsonl; then
    ``python -m benchmarks.outside.summarize --results out/outside/hard-SPLIT.jsonl`` reports every class;
    read by the bench model without the hard kingdoms' material unless ``--model shipped``)

Each photo is generated (gen.generate), handed to KingdomScanner().scan() as the JPEG bytes with
grid="auto" (what `kingdomino scan PHOTO` and the page do), and compared with the truth:
  located      all four corners within 0.25 square of the truth, after matching the scanner's corner
               order to the truth up to a turn of the grid (the truth grid is turned the same way)
  squares      terrain / crowns wrong, and how many of the wrong squares the scanner flagged
  score        scanned base score vs the truth base score
  frame_note   the scan said its frame may be wrong (a note on the frame, the grid or another kingdom)
  path         the locator's path, when ScanResult has one
Exceptions are recorded with their type and first line. Resumable: seeds already in --out are skipped.
"""

from __future__ import annotations

import argparse
import json
import time
import traceback
from pathlib import Path

import numpy as np

from benchmarks.bench_model import add_pieces_option
from benchmarks.outside import gen

TOLERANCE = 0.25
#: Words of a note that warns about the frame rather than the squares.
FRAME_WORDS = ("frame", "grid", "corner", "more than one kingdom")


def frame_noted(result, notes) -> bool:
    if any(getattr(result, name, None) for name in ("frame_note", "frame_unsure", "frame_doubt")):
        return True
    return any(word in note.lower() for note in notes for word in FRAME_WORDS)


def plain(value):
    """A JSON-friendly copy of a path attribute (strings, numbers, lists, dicts, enums, dataclasses)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return getattr(value, "name", None) or getattr(value, "value", None) or str(value)


def corner_errors(found, truth, n):
    found, truth = np.asarray(found, float), np.asarray(truth, float)
    square = np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1).mean() / n
    return np.linalg.norm(found - truth, axis=1) / square


def scan_one(scanner, seed, hard=False):
    from scanner.errors import ScanError
    from scanner.locate import one_blas_thread

    t0 = time.perf_counter()
    if hard:
        from benchmarks.outside import hard as hard_scenes

        jpeg, truth = hard_scenes.generate(seed)
    else:
        jpeg, truth = gen.generate(seed)
    gen_seconds = time.perf_counter() - t0
    n = truth["grid_size"]
    rec = {
        "seed": seed,
        "conditions": truth["conditions"],
        "truth_grid_size": n,
        "truth_base": truth["base_score"],
        "truth_corners": truth["corners"],
        "jpeg_bytes": len(jpeg),
        "gen_seconds": round(gen_seconds, 2),
    }
    t0, cpu0 = time.perf_counter(), time.process_time()
    try:
        # numpy's BLAS on one thread for the whole scan, as `python -m benchmarks` and the page's workers
        # run it (docs/experiments.md, "The search's cost: one BLAS thread ...")
        with one_blas_thread():
            result = scanner.scan(jpeg, grid="auto", name=f"seed-{seed}.jpg")
    except ScanError as error:
        rec.update(
            scan_seconds=round(time.perf_counter() - t0, 3),
            scan_cpu_seconds=round(time.process_time() - cpu0, 3),
            path=plain(getattr(error, "path", None)),
            error_type=type(error).__name__,
            error=(str(error).splitlines() or [""])[0],
            located=False,
            exact_score=False,
            outcome="error",
        )
        return rec
    except Exception as error:  # not a typed scanner error: a crash
        rec.update(
            scan_seconds=round(time.perf_counter() - t0, 3),
            error_type="CRASH:" + type(error).__name__,
            error=str(error).splitlines()[0] if str(error) else "",
            traceback=traceback.format_exc()[-2000:],
            located=False,
            exact_score=False,
            outcome="crash",
        )
        return rec
    rec["scan_seconds"] = round(time.perf_counter() - t0, 3)
    rec["scan_cpu_seconds"] = round(
        time.process_time() - cpu0, 3
    )  # all threads: steadier on a shared machine
    rec["path"] = plain(getattr(result, "path", None))
    rec["frame_note"] = frame_noted(result, result.notes)
    rec["frame_doubts"] = {
        k: round(float(v), 3) for k, v in (getattr(result, "frame_doubts", None) or {}).items()
    }
    m = result.grid_size
    corners = np.asarray(result.corners, float)
    rec.update(
        grid_size=m,
        corners=[[round(float(x), 1), round(float(y), 1)] for x, y in corners],
        notes=list(result.notes),
        flagged_total=int(np.asarray(result.flagged).sum()),
        scanned_base=int(result.score.base),
        scanned_total=int(result.score.total),
        read_grid=[
            [f"{result.kingdom[r, c].terrain.value}:{result.kingdom[r, c].crowns}" for c in range(m)]
            for r in range(m)
        ],
    )
    rec["exact_score"] = rec["scanned_base"] == truth["base_score"]
    truth_corners = np.asarray(truth["corners"], float)
    if m != n:
        # corners compared anyway, in units of the true squares, for the record
        rec.update(located=False, outcome="wrong_grid_size")
        return rec
    turns = min(range(4), key=lambda k: corner_errors(corners, np.roll(truth_corners, -k, axis=0), n).max())
    err = corner_errors(corners, np.roll(truth_corners, -turns, axis=0), n)
    rec["turns"] = int(turns)
    rec["corner_error"] = [round(float(e), 3) for e in err]
    rec["max_corner_error"] = round(float(err.max()), 3)
    rec["located"] = bool((err <= TOLERANCE).all())
    if not rec["located"]:
        rec["outcome"] = "not_located"
        return rec
    tgrid = np.empty((n, n), dtype=object)
    for r in range(n):
        for c in range(n):
            sq = truth["grid"][r][c]
            tgrid[r, c] = (sq["terrain"], int(sq["crowns"]))
    tgrid = np.rot90(tgrid, turns)
    flagged = np.asarray(result.flagged, bool)
    wrong = []
    terrain_wrong = crowns_wrong = wrong_flagged = 0
    for r in range(n):
        for c in range(n):
            read = result.kingdom[r, c]
            t, k = tgrid[r, c]
            tw = read.terrain.value != t
            cw = int(read.crowns) != k
            if tw or cw:
                wrong.append(
                    {
                        "cell": [r, c],
                        "truth": f"{t}:{k}",
                        "read": f"{read.terrain.value}:{read.crowns}",
                        "flagged": bool(flagged[r, c]),
                        "confidence": round(float(result.readings[r][c].confidence), 3),
                    }
                )
                wrong_flagged += bool(flagged[r, c])
            terrain_wrong += tw
            crowns_wrong += cw
    rec.update(
        terrain_wrong=terrain_wrong,
        crowns_wrong=crowns_wrong,
        squares_wrong=len(wrong),
        wrong_flagged=wrong_flagged,
        wrong_unflagged=len(wrong) - wrong_flagged,
        wrong_squares=wrong,
        all_flagged=bool(flagged.all()),
    )
    rec["outcome"] = "ok" if not wrong else "misread"
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--out", default=str(Path("out") / "outside" / "results.jsonl"))
    ap.add_argument("--fresh", action="store_true", help="start a new results file")
    ap.add_argument(
        "--hard", action="store_true", help="the hard tables and conditions (benchmarks.outside.hard)"
    )
    ap.add_argument("--split", choices=("dev", "heldout"), default="dev", help="with --hard: the seed range")
    ap.add_argument(
        "--model",
        choices=("held-out", "shipped"),
        help="with --hard, the default is the bench model that never learnt the hard kingdoms' material "
        "(python -m benchmarks.bench_model --outside); the shipped model learnt it (squares read optimistic)",
    )
    add_pieces_option(ap)
    args = ap.parse_args()
    model = args.model or ("held-out" if args.hard else "shipped")
    if model == "held-out" and not args.hard:
        ap.error("--model held-out: only the --hard photos are built from held-out material")
    first = args.start
    if args.hard:
        from benchmarks.outside.hard import SPLITS

        first = SPLITS[args.split] + args.start
        if args.out == ap.get_default("out"):
            args.out = str(Path("out") / "outside" / f"hard-{args.split}.jsonl")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists() and not args.fresh:
        for line in out.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("model", "shipped") != model:  # one file, one model: figures never blend two
                    ap.exit(
                        2,
                        f"{out} was read by the {row.get('model', 'shipped')} model: use --fresh or --out\n",
                    )
                done.add(row["seed"])
    elif out.exists():
        out.unlink()
    from benchmarks.bench_model import bench_scanner, outside_held_out

    scanner, text = bench_scanner(outside_held_out(), shipped=model == "shipped", pieces=args.pieces)
    if scanner is None:
        ap.exit(2, text + "\n")
    print(f"reading with the {text}", flush=True)
    with out.open("a") as fh:
        for seed in range(first, first + args.count):
            if seed in done:
                continue
            rec = scan_one(scanner, seed, args.hard)
            rec["model"], rec["pieces"] = model, scanner.reading.pieces  # a resumed file may mix them
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            c = rec["conditions"]
            print(
                f"seed {seed:4d} {rec['outcome']:<16} n={rec['truth_grid_size']} read={rec.get('grid_size')} "
                f"err={rec.get('max_corner_error')} wrong={rec.get('squares_wrong')} "
                f"score {rec.get('scanned_base')}/{rec['truth_base']} {rec['scan_seconds']}s "
                f"[{c.get('hard_class', '')} {c['table']}, tilt {c['tilt']}, frac {c['kingdom_frac']}, "
                f"{','.join(c['clutter'])}] "
                f"{rec.get('error', '')}",
                flush=True,
            )


if __name__ == "__main__":
    main()
