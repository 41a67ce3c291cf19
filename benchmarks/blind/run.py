"""Scan the blind generator's photos as a player would and report by condition class.

python -m benchmarks.blind.run --split dev|heldout --count N [--start K] --out F [--fresh] [--report]

Seeds are the split's first seed (dev 300000, held-out 700000) + K .. + K+N-1. Each photo is generated
(``benchmarks.blind.scene.generate``), handed to the scanner as JPEG bytes with grid="auto" and read by
the outside bench model (trained without the material the photos are painted with). One JSON line per
seed goes to F (resumable: seeds already there are skipped unless --fresh); the summary by condition
class is printed at the end (``--report`` only prints it for F).

Per photo: located (all four corners within a quarter square of the truth, up to a turn of the grid),
refused (a typed scan error), a wrong frame with or without a note on the frame, the exact base score,
squares misread / misread and not flagged / flagged, and the scan's CPU time.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from benchmarks.blind import scene
from benchmarks.outside.run import TOLERANCE, corner_errors, frame_noted, plain


def compare(result, truth: dict) -> dict:
    """What the scan got right and wrong against the truth (a scan that returned a kingdom)."""
    n, m = truth["grid_size"], result.grid_size
    found = np.asarray(result.corners, float)
    record = {
        "grid_size": m,
        "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in found],
        "notes": list(result.notes),
        "frame_note": frame_noted(result, result.notes),
        "path": plain(getattr(result, "path", None)),
        "scanned_base": int(result.score.base),
        "flagged": int(np.asarray(result.flagged).sum()),
    }
    record["exact_score"] = record["scanned_base"] == truth["base_score"]
    if m != n:
        return record | {"located": False, "outcome": "wrong_frame"}
    truth_corners = np.asarray(truth["corners"], float)
    errors = [corner_errors(found, np.roll(truth_corners, -k, axis=0), n) for k in range(4)]
    turns = int(np.argmin([e.max() for e in errors]))
    record["max_corner_error"] = round(float(errors[turns].max()), 3)
    record["located"] = bool(errors[turns].max() <= TOLERANCE)
    if not record["located"]:
        return record | {"outcome": "wrong_frame"}
    labels = np.array([[f"{s['terrain']}:{s['crowns']}" for s in row] for row in truth["grid"]], object)
    labels = np.rot90(labels, turns)
    where = np.rot90(np.arange(n * n).reshape(n, n), turns)  # the truth's cell of each read cell
    flagged = np.asarray(result.flagged, bool)
    wrong = []
    for (r, c), square in result.kingdom.cells():
        read = f"{square.terrain.value}:{square.crowns}"
        if read != labels[r, c]:
            cell = [int(v) for v in divmod(int(where[r, c]), n)]
            wrong.append(
                {"cell": cell, "truth": labels[r, c], "read": read, "flagged": bool(flagged[r, c])}
                | {"cause": cause(cell, labels[r, c], read, truth["conditions"])}
            )
    record.update(
        squares=n * n,
        misread=len(wrong),
        misread_unflagged=sum(not w["flagged"] for w in wrong),
        wrong_squares=wrong,
        outcome="misread" if wrong else "ok",
    )
    return record


def cause(cell: list[int], truth: str, read: str, conditions: dict) -> str:
    """What a misread square is most likely about: the castle (its square, or the square its walls lean
    over in the photo), a king standing on it, a hole showing the table, or the square's own picture."""
    castle, lean = conditions["castle_cell"], conditions["castle_lean_to"]
    if "castle" in (truth.split(":")[0], read.split(":")[0]):
        return "castle"
    if conditions["castle"] and conditions["castle_lean"] >= 0.2:
        if cell == [castle[0] + round(lean[0]), castle[1] + round(lean[1])]:
            return "castle"
    if cell in conditions["kings_on"]:
        return "king"
    if "empty" in (truth.split(":")[0], read.split(":")[0]):
        return "hole"
    return "square"


def scan_one(scanner, seed: int) -> dict:
    from scanner.errors import ScanError
    from scanner.locate import one_blas_thread

    started = time.perf_counter()
    jpeg, truth = scene.generate(seed)
    record = {
        "seed": seed,
        "conditions": truth["conditions"],
        "truth_grid_size": truth["grid_size"],
        "truth_base": truth["base_score"],
        "truth_corners": truth["corners"],
        "gen_seconds": round(time.perf_counter() - started, 2),
    }
    cpu = time.process_time()
    try:
        with one_blas_thread():
            result = scanner.scan(jpeg, grid="auto", name=f"blind-{seed}.jpg")
    except ScanError as error:
        return record | {
            "scan_cpu_seconds": round(time.process_time() - cpu, 3),
            "outcome": "refused",
            "error": (str(error).splitlines() or [""])[0],
            "path": plain(getattr(error, "path", None)),
            "located": False,
            "exact_score": False,
        }
    except Exception as error:  # not a typed refusal: a crash, recorded and counted as not located
        return record | {
            "scan_cpu_seconds": round(time.process_time() - cpu, 3),
            "outcome": "crash",
            "error": f"{type(error).__name__}: {error}".splitlines()[0],
            "located": False,
            "exact_score": False,
        }
    record["scan_cpu_seconds"] = round(time.process_time() - cpu, 3)
    return record | compare(result, truth)


def classes(conditions: dict) -> list[str]:
    """The condition classes a photo belongs to (each photo is in one class of every kind)."""
    px = conditions["px_per_square"]
    lean = conditions["castle_lean"]
    return [
        f"table:{conditions['table_kind']}",
        f"tilt:{conditions['tilt_class']}",
        f"light:{conditions['light']}",
        f"blur:{conditions['blur']}",
        "size:" + ("<80px" if px < 80 else "80-200px" if px < 200 else ">=200px"),
        f"grid:{conditions['grid']}x{conditions['grid']}",
        "holes:" + ("yes" if conditions["empty_squares"] else "no"),
        "castle:" + ("off" if not conditions["castle"] else "leans>=0.5" if lean >= 0.5 else "leans<0.5"),
        "neighbour:" + ("seen" if conditions["neighbour_seen"] else "no"),
        "loose:" + ("yes" if conditions["loose_seen"] else "no"),
    ]


def _line(name: str, rows: list[dict]) -> str:
    count = len(rows)
    located = [r for r in rows if r.get("located")]
    refused = sum(r["outcome"] == "refused" for r in rows)
    wrong = [r for r in rows if r["outcome"] == "wrong_frame"]
    noted = sum(bool(r.get("frame_note")) for r in wrong)
    exact = sum(bool(r.get("exact_score")) for r in located)
    squares = sum(r["squares"] for r in located) or 1
    misread = sum(r["misread"] for r in located)
    unflagged = sum(r["misread_unflagged"] for r in located)
    flagged = sum(r["flagged"] for r in located)
    cpu = np.array([r["scan_cpu_seconds"] for r in rows]) if rows else np.zeros(1)
    return (
        f"{name:<22}{count:>4}  located {len(located):>3} ({100 * len(located) / max(1, count):5.1f}%)  "
        f"refused {refused:>2}  wrong frame {len(wrong) - noted:>2} unnoted / {noted:>2} noted  "
        f"exact {exact:>3}/{len(located):<3} ({100 * exact / max(1, len(located)):5.1f}%)  "
        f"misread {100 * misread / squares:4.1f}%  unflagged {100 * unflagged / squares:4.2f}%  "
        f"flagged {100 * flagged / squares:4.1f}%  "
        f"cpu {cpu.mean():.2f}/{np.percentile(cpu, 90):.2f}/{cpu.max():.2f}s"
    )


def report(rows: list[dict]) -> str:
    """The summary: all photos, then every condition class, then each failure with its conditions."""
    lines = [_line("all", rows)]
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        for name in classes(row["conditions"]):
            groups[name].append(row)
    lines += [_line(name, groups[name]) for name in sorted(groups)]
    lines.append(
        "cpu: mean/90th percentile/max of the scan's CPU seconds; squares figures over located photos"
    )
    causes: dict[str, int] = defaultdict(int)
    for row in rows:
        if row["outcome"] in ("refused", "wrong_frame", "crash"):
            causes[f"photos {row['outcome']}"] += 1
        for square in row.get("wrong_squares", []):
            causes[f"squares misread: {square['cause']}"] += 1
            causes[f"squares misread unflagged: {square['cause']}"] += not square["flagged"]
    lines.append("by cause: " + ", ".join(f"{name} {count}" for name, count in sorted(causes.items())))
    lines.append("failures (not located, or located without the exact score):")
    for row in rows:
        if row.get("located") and row.get("exact_score"):
            continue
        c = row["conditions"]
        what = (
            row["outcome"]
            if row["outcome"] != "misread"
            else "misread "
            + ", ".join(
                f"{w['truth']}->{w['read']} {w['cause']}{'' if w['flagged'] else ' (unflagged)'}"
                for w in row["wrong_squares"]
            )
        )
        if row["outcome"] == "wrong_frame":
            what += (
                f" err {row.get('max_corner_error')} n={row.get('grid_size')} note={row.get('frame_note')}"
            )
        if row["outcome"] == "refused":
            what += f": {row.get('error', '')}"
        if row.get("located"):
            what += f" score {row.get('scanned_base')}/{row['truth_base']}"
        lines.append(
            f"  {row['seed']} {what} [{c['grid']}x{c['grid']} {c['table']} tilt {c['tilt']} {c['light']} "
            f"{c['blur']} {c['blur_px']} {c['px_per_square']}px "
            f"castle {c['castle_lean'] if c['castle'] else 'off'} kings {c['kings']} "
            f"empty {c['empty_squares']} neighbour {c['neighbour_seen']} loose {c['loose_seen']}]"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.blind.run", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--split", choices=tuple(scene.SPLITS), default="dev")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--fresh", action="store_true", help="start a new results file")
    parser.add_argument("--report", action="store_true", help="only print the summary of --out")
    args = parser.parse_args(argv)
    first = scene.SPLITS[args.split] + args.start
    seeds = range(first, first + args.count)
    if args.report:
        rows = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
        print(report([row for row in rows if row["seed"] in seeds]))
        return 0
    from benchmarks.bench_model import bench_scanner, outside_held_out

    scanner, said = bench_scanner(outside_held_out())
    if scanner is None:
        print(said)
        return 2
    print(f"reading with the {said}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh and args.out.exists():
        args.out.unlink()
    done = set()
    if args.out.exists():
        done = {json.loads(line)["seed"] for line in args.out.read_text().splitlines() if line.strip()}
    with args.out.open("a") as out:
        for seed in seeds:
            if seed in done:
                continue
            row = scan_one(scanner, seed)
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(
                f"seed {seed} {row['outcome']:<12} score {row.get('scanned_base')}/{row['truth_base']} "
                f"err {row.get('max_corner_error')} misread {row.get('misread')} "
                f"cpu {row['scan_cpu_seconds']}s {row.get('error', '')}",
                flush=True,
            )
    rows = [json.loads(line) for line in args.out.read_text().splitlines() if line.strip()]
    print(report([row for row in rows if row["seed"] in seeds]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
