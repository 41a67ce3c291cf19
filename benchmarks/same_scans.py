"""Did a change alter what the scanner reads? Scan a fixed set of photos and compare two runs.

    python -m benchmarks.same_scans --out before.jsonl     # on the old commit (a worktree)
    python -m benchmarks.same_scans --out after.jsonl      # on the new one
    python -m benchmarks.same_scans --compare before.jsonl after.jsonl

The set: generated scenes (seeds from ``--seed``), the 52 real crops in data/real/alt_crops, the test
photos in tests/data and the bundled sample. Each line holds the photo, its score, every square's label and
confidence, the frame's corners and the notes (or the refusal). Two runs are the same when every photo has
the same score, labels, corners and notes; confidences may differ by float rounding (``--tolerance``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _photos(seed: int, count: int):
    import cv2

    from benchmarks.scenes import generate_scene

    for number in range(seed, seed + count):
        scene = generate_scene(number)
        yield f"scene{number}", cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
    for path in sorted((ROOT / "data/real/alt_crops").glob("*/*.jpg")):
        yield str(path.relative_to(ROOT)), str(path)
    for path in [*sorted((ROOT / "tests/data").glob("*.jpg")), ROOT / "data/samples/sample_table.jpg"]:
        yield str(path.relative_to(ROOT)), str(path)


def scan_all(seed: int, count: int, out) -> None:
    from scanner import KingdomScanner, ScanError

    scanner = KingdomScanner()
    for name, source in _photos(seed, count):
        try:
            data = scanner.scan(source, name=name).to_json_dict()
            line = {key: data.get(key) for key in ("photo", "squares", "corners")}
            line.update(score=data["score"]["total"], notes=data.get("notes", []))
        except ScanError as error:
            line = {"photo": name, "error": str(error)}
        print(json.dumps(line), file=out, flush=True)


def _labels(line: dict) -> list:
    return [[(square["terrain"], square["crowns"]) for square in row] for row in line["squares"]]


def differences(before: list[dict], after: list[dict], tolerance: float) -> list[str]:
    """One line per photo read differently (and per confidence moved by more than ``tolerance``)."""
    found = [] if len(before) == len(after) else [f"{len(before)} photos against {len(after)}"]
    for old, new in zip(before, after, strict=False):
        name = old["photo"]
        if "error" in old or "error" in new:
            if old.get("error") != new.get("error"):
                found.append(f"{name}: {old.get('error', 'read')} -> {new.get('error', 'read')}")
            continue
        for key in ("score", "corners", "notes"):
            if old[key] != new[key]:
                found.append(f"{name}: {key} {old[key]} -> {new[key]}")
        if _labels(old) != _labels(new):
            found.append(f"{name}: squares read differently")
        elif old["squares"]:
            moved = max(
                abs(a["confidence"] - b["confidence"])
                for row_a, row_b in zip(old["squares"], new["squares"], strict=True)
                for a, b in zip(row_a, row_b, strict=True)
            )
            if moved > tolerance:
                found.append(f"{name}: a confidence moved by {moved:.4f}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.same_scans", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, help="write the scans here (JSON lines)")
    parser.add_argument("--seed", type=int, default=10000, help="first generated scene")
    parser.add_argument("--count", type=int, default=16, help="generated scenes")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--tolerance", type=float, default=0.001, help="confidence change allowed")
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (
            [json.loads(line) for line in path.read_text().splitlines()] for path in args.compare
        )
        found = differences(before, after, args.tolerance)
        print("\n".join(found) if found else f"the same: {len(before)} photos read alike")
        return 1 if found else 0
    with open(args.out, "w") if args.out else sys.stdout as out:
        scan_all(args.seed, args.count, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
