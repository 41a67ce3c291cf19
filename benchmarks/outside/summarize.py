"""Summarise out/outside/results.jsonl and draw the failing scenes.

python -m benchmarks.outside.summarize [--results FILE [FILE ...]] [--no-images] [--json-out FILE]

Prints overall counts, a breakdown by every recorded condition, and the failing seeds with their
conditions. A seed "fails" when the kingdom is not located, the base score is wrong, or any square
is misread. Writes out/outside/fail/seed_NNNN.png (truth frame green, scanner frame red, TL corners
marked with a dot, misread squares labelled truth>read, '!' = not flagged) and fail/sheet_K.png.
Photos of the hard tables (benchmarks.outside.hard) are first reported per condition class and per tag
(``hard_figures``); --json-out writes those figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

OUT = Path("out") / "outside"


def bucket(value, edges, labels):
    for edge, label in zip(edges, labels, strict=False):
        if value < edge:
            return label
    return labels[-1]


def groupers():
    def c(r):
        return r["conditions"]

    return [
        ("table", lambda r: [c(r)["table"]]),
        ("mat", lambda r: [c(r)["mat"]]),
        ("source", lambda r: [c(r)["source"]]),
        ("grid size", lambda r: [str(c(r)["grid_size"])]),
        (
            "incomplete",
            lambda r: [
                c(r)["incomplete"]
                if c(r)["empty_squares"] == 0 or c(r)["incomplete"] != "none"
                else "none(board has gaps)"
            ],
        ),
        ("photo MP", lambda r: [bucket(c(r)["megapixels"], [2, 5, 9], ["<2MP", "2-5MP", "5-9MP", ">=9MP"])]),
        ("orientation", lambda r: [c(r)["orientation"]]),
        (
            "tilt",
            lambda r: [
                c(r)["tilt_class"]
                + {"overhead": " 0-5", "mild": " 5-20", "strong": " 20-35", "steep": " 35-55"}[
                    c(r)["tilt_class"]
                ]
            ],
        ),
        (
            "kingdom width/short side",
            lambda r: [
                bucket(c(r)["kingdom_frac"], [0.35, 0.5, 0.65], ["<0.35", "0.35-0.5", "0.5-0.65", ">=0.65"])
            ],
        ),
        (
            "px per square",
            lambda r: [bucket(c(r)["px_per_square"], [60, 120, 250], ["<60", "60-120", "120-250", ">=250"])],
        ),
        (
            "kingdom-to-photo-edge margin",
            lambda r: [
                bucket(
                    c(r).get("edge_margin_sq", 9), [0.5, 1, 2], ["<0.5 sq", "0.5-1 sq", "1-2 sq", ">=2 sq"]
                )
            ],
        ),
        (
            "rotation (roll mod 90)",
            lambda r: [
                bucket(
                    min(c(r)["roll"] % 90, 90 - c(r)["roll"] % 90),
                    [15, 30, 46],
                    ["near axis <15", "15-30", "30-45"],
                )
            ],
        ),
        ("clutter", lambda r: c(r)["clutter"]),
        ("clutter count", lambda r: [str(len([x for x in c(r)["clutter"] if x != "none"]))]),
        ("light effects", lambda r: c(r)["light"]),
        ("exposure", lambda r: [c(r)["exposure_class"]]),
        ("white balance", lambda r: [c(r)["white_balance"]]),
        ("blur", lambda r: [c(r)["blur"].split(":")[0]]),
        ("noise sigma", lambda r: [bucket(c(r)["noise_sigma"], [3, 6], ["<3", "3-6", ">=6"])]),
        ("jpeg quality", lambda r: [bucket(c(r)["jpeg_quality"], [70, 85], ["55-69", "70-84", "85-95"])]),
        ("seams", lambda r: ["seams" if c(r)["seam_px"] > 0 else "no seams"]),
        ("jitter", lambda r: ["jitter" if c(r)["jitter_px"] > 0 else "no jitter"]),
    ]


def hard_figures(rows) -> dict:
    """The hard bench's figures of a group of photos (see benchmarks/outside/README.md)."""
    n = len(rows)
    located = [r for r in rows if r["located"]]
    squares = sum(r["truth_grid_size"] ** 2 for r in located)
    wrong = sum(r.get("squares_wrong") or 0 for r in located)
    unflagged = sum(r.get("wrong_unflagged") or 0 for r in located)
    flagged = sum(r.get("flagged_total") or 0 for r in located)
    framed_wrong = [r for r in rows if r["outcome"] in ("not_located", "wrong_grid_size")]
    secs = sorted(r["scan_seconds"] for r in rows)
    cpu = sorted(r["scan_cpu_seconds"] for r in rows if "scan_cpu_seconds" in r)
    paths: dict = defaultdict(int)
    for r in rows:
        if r.get("path") is not None:
            paths[json.dumps(r["path"]) if not isinstance(r["path"], str) else r["path"]] += 1
    return {
        "photos": n,
        "located": len(located),
        "located_pct": round(100 * len(located) / n, 1) if n else None,
        "wrong_frame": len(framed_wrong),
        "wrong_frame_unnoted": sum(not r.get("frame_note") for r in framed_wrong),
        "wrong_frame_unnoted_pct": round(100 * sum(not r.get("frame_note") for r in framed_wrong) / n, 1)
        if n
        else None,
        "refused": sum(r["outcome"] == "error" for r in rows),
        "crashed": sum(r["outcome"] == "crash" for r in rows),
        "exact_among_located": sum(r["exact_score"] for r in located),
        "exact_among_located_pct": round(100 * sum(r["exact_score"] for r in located) / len(located), 1)
        if located
        else None,
        "squares_located": squares,
        "misread": wrong,
        "misread_pct": round(100 * wrong / squares, 2) if squares else None,
        "misread_unflagged": unflagged,
        "misread_unflagged_pct": round(100 * unflagged / squares, 2) if squares else None,
        "flagged_pct": round(100 * flagged / squares, 1) if squares else None,
        "seconds_mean": round(float(np.mean(secs)), 2) if secs else None,
        "seconds_p90": round(float(np.percentile(secs, 90)), 2) if secs else None,
        "seconds_max": round(max(secs), 2) if secs else None,
        "cpu_seconds_mean": round(float(np.mean(cpu)), 2) if cpu else None,
        "cpu_seconds_p90": round(float(np.percentile(cpu, 90)), 2) if cpu else None,
        "cpu_seconds_max": round(max(cpu), 2) if cpu else None,
        "paths": dict(paths),
    }


#: What a misread square of a located photo is put down to, in this order (the first that applies):
#: a king meeple stands on it; it is the 3-D castle's square; it was read as the castle; the castle's
#: top leans over it; the table (an empty square read as a tile, or a tile as the table); the crowns;
#: the terrain.
CAUSES = (
    "meeple on the square",
    "the castle's square",
    "read as the castle",
    "under the castle's top",
    "table",
    "crowns",
    "terrain",
)


def _scan_cell(cell, n, turns):
    """A cell of the generated kingdom in the scan's frame (run.py compares the truth turned by
    ``np.rot90(grid, turns)``)."""
    marker = np.zeros((n, n), dtype=bool)
    marker[tuple(cell)] = True
    return tuple(int(v) for v in np.argwhere(np.rot90(marker, turns))[0])


def misread_causes(r) -> list[dict]:
    """Each misread square of a located photo with its cause (CAUSES) and whether it was flagged."""
    if not r.get("located"):
        return []
    n, turns, conditions = r["grid_size"], r.get("turns", 0), r["conditions"]
    meeples = {_scan_cell(m["cell"], n, turns) for m in conditions.get("meeples", []) if m.get("cell")}
    castle = conditions.get("castle3d") or {}
    base = _scan_cell(castle["cell"], n, turns) if castle.get("cell") else None
    overhangs = {_scan_cell(cell, n, turns) for cell in castle.get("overhangs", [])}
    causes = []
    for w in r.get("wrong_squares") or []:
        cell = tuple(w["cell"])
        truth, read = w["truth"].split(":"), w["read"].split(":")
        checks = (
            cell in meeples,
            cell == base or truth[0] == "castle",
            read[0] == "castle",
            cell in overhangs,
            "empty" in (truth[0], read[0]),
            truth[0] == read[0],
            True,
        )
        cause = CAUSES[checks.index(True)]
        causes.append({"cell": list(cell), "cause": cause, "flagged": bool(w["flagged"])})
    return causes


def cause_figures(rows) -> dict:
    """Per cause: misread squares, those unflagged, the located photos with such a square, and the photos
    whose exact score is lost to this cause alone."""
    figures = {cause: {"squares": 0, "unflagged": 0, "photos": 0, "lost_alone": 0} for cause in CAUSES}
    for r in rows:
        causes = misread_causes(r)
        seen = {c["cause"] for c in causes}
        for c in causes:
            figures[c["cause"]]["squares"] += 1
            figures[c["cause"]]["unflagged"] += not c["flagged"]
        for cause in seen:
            figures[cause]["photos"] += 1
            figures[cause]["lost_alone"] += len(seen) == 1 and not r["exact_score"]
    return figures


HARD_HEADER = (
    f"{'':<22}{'n':>4}{'located':>11}{'wrongFr':>8}{'unnoted':>8}{'refused':>8}{'exact/loc':>11}"
    f"{'misread%':>9}{'unflag%':>8}{'flag%':>7}{'s mean':>7}{'p90':>6}{'max':>6}{'cpu mean':>9}{'p90':>6}{'max':>6}"
)


def hard_line(label, f):
    pct = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    exact = f"{f['exact_among_located']}/{f['located']}"
    return (
        f"{label:<22}{f['photos']:>4}{f['located']:>5} ({pct(f['located_pct']):>4})"
        f"{f['wrong_frame']:>8}{f['wrong_frame_unnoted']:>8}{f['refused'] + f['crashed']:>8}{exact:>11}"
        f"{pct(f['misread_pct']):>9}{pct(f['misread_unflagged_pct']):>8}{pct(f['flagged_pct']):>7}"
        f"{f['seconds_mean'] or 0:>7.2f}{f['seconds_p90'] or 0:>6.2f}{f['seconds_max'] or 0:>6.2f}"
        f"{f['cpu_seconds_mean'] or 0:>9.2f}{f['cpu_seconds_p90'] or 0:>6.2f}{f['cpu_seconds_max'] or 0:>6.2f}"
    )


def hard_report(rows) -> dict:
    """Print and return the hard bench's figures: overall, per condition class and per tag."""
    by_class, by_tag = defaultdict(list), defaultdict(list)
    for r in rows:
        by_class[r["conditions"]["hard_class"]].append(r)
        for tag in r["conditions"].get("hard_tags", []):
            by_tag[tag].append(r)
    report = {
        "overall": hard_figures(rows),
        "classes": {k: hard_figures(v) for k, v in sorted(by_class.items())},
        "tags": {k: hard_figures(v) for k, v in sorted(by_tag.items())},
        "causes": cause_figures(rows),
    }
    print(
        "Hard tables: located = all corners within 1/4 square; wrongFr = a frame returned but not located "
        "(unnoted: without a note on the frame); exact/loc = exact base score among located; misread%, "
        "unflag% (misread and not flagged), flag% = of the squares of located photos; seconds per scan "
        "(wall clock, and CPU of all the scan's threads)"
    )
    print(HARD_HEADER)
    print(hard_line("overall", report["overall"]))
    print("-- by condition class")
    for k, f in report["classes"].items():
        print(hard_line(k, f))
    print("-- by tag (a photo has several)")
    for k, f in report["tags"].items():
        print(hard_line(k, f))
    print("-- misread squares of located photos by what stands on or over them, else by kind:")
    print(f"{'':<26}{'squares':>8}{'unflagged':>10}{'photos':>7}{'exact lost to it alone':>24}")
    for cause, f in report["causes"].items():
        print(f"{cause:<26}{f['squares']:>8}{f['unflagged']:>10}{f['photos']:>7}{f['lost_alone']:>24}")
    paths = report["overall"]["paths"]
    if paths:
        print(
            "-- locator paths: "
            + ", ".join(f"{k} {v}" for k, v in sorted(paths.items(), key=lambda kv: -kv[1]))
        )
    print()
    return report


def stats(rows):
    n = len(rows)
    located = sum(r["located"] for r in rows)
    exact = sum(r["exact_score"] for r in rows)
    exact_loc = sum(r["exact_score"] and r["located"] for r in rows)
    perfect = sum(r.get("squares_wrong") == 0 for r in rows)
    misread_scenes = sum((r.get("squares_wrong") or 0) > 0 for r in rows)
    wrong = sum(r.get("squares_wrong") or 0 for r in rows)
    unflag = sum(r.get("wrong_unflagged") or 0 for r in rows)
    return n, located, exact_loc, exact, perfect, misread_scenes, wrong, unflag


def fmt_header():
    return (
        f"{'':<28}{'n':>4}{'located':>9}{'exact*':>8}{'allRight':>9}{'misread':>8}{'sqWrong':>8}{'unflag':>7}"
    )


def fmt(label, rows):
    n, located, exact_loc, exact, perfect, misread_scenes, wrong, unflag = stats(rows)
    pct = lambda k: f"{k:>4}({100 * k / n:3.0f}%)" if n else ""  # noqa: E731
    return f"{label:<28}{n:>4} {pct(located):>9} {exact_loc:>6} {perfect:>8} {misread_scenes:>7} {wrong:>7} {unflag:>6}"


def is_fail(r):
    return (not r["located"]) or (not r["exact_score"]) or (r.get("squares_wrong") or 0) > 0


def short_conditions(c):
    return (
        f"{c['source']} {c['grid_size']}x{c['grid_size']} table={c['table']} mat={c['mat']} "
        f"{c['width']}x{c['height']} tilt={c['tilt']} frac={c['kingdom_frac']} px/sq={c['px_per_square']} "
        f"roll={c['roll']} inc={c['incomplete']} clutter={'+'.join(c['clutter'])} light={'+'.join(c['light'])} "
        f"exp={c['exposure']} wb={c['white_balance']} blur={c['blur']} noise={c['noise_sigma']} q={c['jpeg_quality']}"
    )


def describe(r):
    if r["outcome"] in ("error", "crash"):
        return f"{r['error_type']}: {r['error']}"
    if r["outcome"] == "wrong_grid_size":
        return (
            f"read {r['grid_size']}x{r['grid_size']} instead of {r['truth_grid_size']}x{r['truth_grid_size']}"
        )
    if r["outcome"] == "not_located":
        return f"corners off by up to {r['max_corner_error']:.2f} squares ({r['corner_error']})"
    causes = [c["cause"] for c in misread_causes(r)] or [""] * len(r["wrong_squares"])
    ws = ", ".join(
        f"{w['cell']} {w['truth']}>{w['read']}{'' if w['flagged'] else '!'}{f' ({cause})' if cause else ''}"
        for w, cause in zip(r["wrong_squares"], causes, strict=True)
    )
    return f"{r['squares_wrong']} wrong ({r['wrong_unflagged']} unflagged): {ws}; score {r['scanned_base']}/{r['truth_base']}"


def categories(r):
    """Failure categories of one scene (empty list = scene fully right)."""
    cats = []
    if r["outcome"] == "crash":
        return ["crash (untyped exception)"]
    if r["outcome"] == "error":
        if "cut off" in r["error"]:
            return ["kingdom judged cut off by the photo edge"]
        return ["no kingdom found (lattice not found)"]
    if r["outcome"] == "wrong_grid_size":
        return [
            f"wrong grid size ({r['grid_size']}x{r['grid_size']} for {r['truth_grid_size']}x{r['truth_grid_size']})"
        ]
    if r["outcome"] == "not_located":
        return [
            "frame slightly off (0.25-0.5 sq)"
            if r["max_corner_error"] < 0.5
            else "frame displaced (>=0.5 sq)"
        ]
    for w in r.get("wrong_squares") or []:
        t, k = w["truth"].split(":")
        rt, rk = w["read"].split(":")
        if t == "empty":
            cats.append("table in a gap read as a tile")
        elif rt == "empty":
            cats.append("tile read as empty")
        elif t != rt:
            cats.append("terrain confusion")
        else:
            cats.append("crown count wrong")
    if not cats and not r["exact_score"]:
        cats.append("score wrong with all squares right (?)")
    return sorted(set(cats))


def print_categories(rows):
    by = defaultdict(list)
    for r in rows:
        for cat in categories(r):
            by[cat].append(r)
    print()
    print("Failure categories (a scene may be in more than one misread category), ranked by scenes:")
    for cat, rs in sorted(by.items(), key=lambda kv: -len(kv[1])):
        lost_score = sum(not r["exact_score"] for r in rs)
        unflagged = sum(r.get("wrong_unflagged") or 0 for r in rs)
        tables = defaultdict(int)
        for r in rs:
            tables[r["conditions"]["table"]] += 1
        tab = ", ".join(f"{k} {v}" for k, v in sorted(tables.items(), key=lambda kv: -kv[1]))
        print(f"  {len(rs):3d}  {cat}: seeds {[r['seed'] for r in rs]}")
        print(f"       score wrong in {lost_score}; unflagged wrong squares {unflagged}; tables: {tab}")


def draw_failures(rows, outdir):
    import cv2

    from benchmarks.outside import gen, hard

    outdir.mkdir(parents=True, exist_ok=True)
    thumbs = []
    for r in rows:
        if r["conditions"].get("hard"):
            jpeg, truth = hard.generate(r["seed"])
        else:
            jpeg, truth = gen.generate(r["seed"])
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        s = 1100 / max(image.shape[:2])
        small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        tc = np.asarray(truth["corners"]) * s
        cv2.polylines(small, [np.round(tc).astype(np.int32)], True, (0, 255, 0), 2, cv2.LINE_AA)
        cv2.circle(small, tuple(np.round(tc[0]).astype(int)), 6, (0, 255, 0), -1)
        if r.get("corners"):
            sc = np.asarray(r["corners"]) * s
            cv2.polylines(small, [np.round(sc).astype(np.int32)], True, (0, 0, 255), 2, cv2.LINE_AA)
            cv2.circle(small, tuple(np.round(sc[0]).astype(int)), 6, (0, 0, 255), -1)
        if r.get("wrong_squares"):
            n = r["truth_grid_size"]
            corners = np.roll(tc, -r["turns"], axis=0)
            H = cv2.getPerspectiveTransform(np.float32([[0, 0], [n, 0], [n, n], [0, n]]), np.float32(corners))
            for w in r["wrong_squares"]:
                row, col = w["cell"]
                p = cv2.perspectiveTransform(np.float32([[[col + 0.5, row + 0.5]]]), H)[0, 0]
                text = (
                    f"{w['truth'].replace(':', '')}>{w['read'].replace(':', '')}{'' if w['flagged'] else '!'}"
                )
                org = (int(p[0]) - 30, int(p[1]))
                cv2.putText(small, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
                cv2.putText(small, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 255, 255), 1, cv2.LINE_AA)
        caption = f"seed {r['seed']}: {r['outcome']} - {describe(r)[:110]}"
        cv2.rectangle(small, (0, 0), (small.shape[1], 22), (0, 0, 0), -1)
        cv2.putText(small, caption, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.imwrite(str(outdir / f"seed_{r['seed']:04d}.png"), small)
        t = 400 / max(small.shape[:2])
        thumb = cv2.resize(small, None, fx=t, fy=t, interpolation=cv2.INTER_AREA)
        canvas = np.zeros((400, 400, 3), np.uint8)
        canvas[: thumb.shape[0], : thumb.shape[1]] = thumb
        cv2.rectangle(canvas, (0, 0), (400, 16), (0, 0, 0), -1)
        cv2.putText(
            canvas, f"{r['seed']} {r['outcome']}", (3, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1
        )
        thumbs.append(canvas)
    for k in range(0, len(thumbs), 12):
        page = thumbs[k : k + 12]
        while len(page) % 4:
            page.append(np.zeros_like(thumbs[0]))
        sheet = np.vstack([np.hstack(page[i : i + 4]) for i in range(0, len(page), 4)])
        cv2.imwrite(str(outdir / f"sheet_{k // 12}.png"), sheet)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--results", nargs="+", default=[str(OUT / "results.jsonl")], help="one or more JSONL files"
    )
    ap.add_argument("--no-images", action="store_true")
    ap.add_argument("--fail-dir", default=str(OUT / "fail"))
    ap.add_argument("--json-out", help="write the hard bench's figures (overall, per class, per tag) here")
    args = ap.parse_args()
    rows = [
        json.loads(line) for f in args.results for line in Path(f).read_text().splitlines() if line.strip()
    ]
    rows.sort(key=lambda r: r["seed"])
    hard_rows = [r for r in rows if r["conditions"].get("hard")]
    if hard_rows:
        report = hard_report(hard_rows)
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(report, indent=1))
    n, located, exact_loc, exact, perfect, misread_scenes, wrong, unflag = stats(rows)
    squares = sum(r["truth_grid_size"] ** 2 for r in rows if r["located"])
    models = Counter(r.get("model", "shipped") for r in rows)  # rows before the option: the shipped model
    print(f"Scenes: {n} (seeds {rows[0]['seed']}..{rows[-1]['seed']}), read by {dict(models)}")
    print(f"  located (4 corners within 0.25 sq): {located} ({100 * located / n:.1f} %)")
    print(
        f"  exact base score (located): {exact_loc} ({100 * exact_loc / n:.1f} % of all); "
        f"exact score regardless of location: {exact}"
    )
    print(
        f"  every square right: {perfect} ({100 * perfect / n:.1f} %); scenes with misread squares: {misread_scenes}"
    )
    print(
        f"  squares wrong on located scenes: {wrong} of {squares} ({100 * wrong / max(squares, 1):.2f} %), "
        f"terrain wrong {sum(r.get('terrain_wrong') or 0 for r in rows)}, "
        f"crowns wrong {sum(r.get('crowns_wrong') or 0 for r in rows)}; not flagged: {unflag}"
    )
    all_flagged = sum(bool(r.get("all_flagged")) for r in rows)
    print(f"  scenes with every square flagged (photo flagged whole): {all_flagged}")
    outcomes = defaultdict(list)
    for r in rows:
        outcomes[r["outcome"]].append(r["seed"])
    print("  outcomes: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(outcomes.items())))
    errs = defaultdict(list)
    for r in rows:
        if r.get("error_type"):
            errs[f"{r['error_type']}: {r['error']}"].append(r["seed"])
    for k, v in errs.items():
        print(f"    {k}  seeds {v}")
    notes = defaultdict(int)
    for r in rows:
        for note in r.get("notes") or []:
            notes[note[:90]] += 1
    for k, v in sorted(notes.items(), key=lambda kv: -kv[1]):
        print(f"  note x{v}: {k}")
    secs = [r["scan_seconds"] for r in rows]
    print(
        f"  scan seconds: median {statistics.median(secs):.2f}, p90 {np.percentile(secs, 90):.2f}, max {max(secs):.2f}; "
        f"generation median {statistics.median(r['gen_seconds'] for r in rows):.2f}"
    )
    print()
    print(
        "exact* = located and exact base score; misread = located scenes with >=1 wrong square; "
        "sqWrong = wrong squares; unflag = wrong squares not flagged"
    )
    for name, fn in groupers():
        groups = defaultdict(list)
        for r in rows:
            for key in fn(r):
                groups[key].append(r)
        print()
        print(f"-- by {name}")
        print(fmt_header())
        for key in sorted(groups, key=lambda k: (-len(groups[k]), k)):
            print(fmt(key, groups[key]))
    print_categories(rows)
    fails = [r for r in rows if is_fail(r)]
    print()
    print(f"Failing seeds ({len(fails)}): {[r['seed'] for r in fails]}")
    for r in fails:
        print(f"  seed {r['seed']}: {r['outcome']}: {describe(r)}")
        print(f"      {short_conditions(r['conditions'])}")
        if r.get("notes"):
            print(f"      notes: {[x[:70] for x in r['notes']]}")
    if not args.no_images and fails:
        draw_failures(fails, Path(args.fail_dir))
        print(f"\nfailure images: {args.fail_dir}/seed_NNNN.png and sheet_K.png")


if __name__ == "__main__":
    main()
