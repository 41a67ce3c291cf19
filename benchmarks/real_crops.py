"""Scan other people's crops of the real table photos (``python -m benchmarks.real_crops``).

``data/real/alt_crops`` holds students' own perspective-corrected crops of the same raw table photos the
labelled boards come from: other crop borders, other rectification, sometimes a row shifted or table in view.
They are unlabelled; ``labels.json`` names the labelled board each one matches best, with a correlation.
Where that correlation is high (the crop shows the same squares in the same place), the board's labels say
what a correct scan reads, so this measures the photo pipeline on real photos: how many crops are located
and how many are read square for square like their board. The classifier was trained on those boards, so
this is a check of locating and cutting real photos, not an estimate of classifier accuracy.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from model.training.dataset import DEFAULT_DATA_DIR
from scanner.errors import ScanError
from scanner.recognizer import KingdomScanner

SAME_VIEW_CORRELATION = 0.8


def _grid_labels(grid: list[list[dict]]) -> np.ndarray:
    return np.array([[f"{square['terrain']}{square['crowns']}" for square in row] for row in grid])


def evaluate(data_dir: Path = DEFAULT_DATA_DIR, verbose: bool = False) -> dict:
    labels = json.loads((data_dir / "labels.json").read_text())
    boards = labels["boards"]
    scanner = KingdomScanner()
    located = same_view = agreeing = squares_agreeing = squares = flagged = unflagged = 0
    refused: list[str] = []
    crops = labels["alt_crops_unlabelled"]
    for name, about in sorted(crops.items()):
        path = data_dir / name
        try:
            result = scanner.scan(path)
        except ScanError as error:
            refused.append(f"{name}: {error}")
            continue
        located += 1
        match = about["best_match"][0]
        if match["corr"] < SAME_VIEW_CORRELATION or result.grid_size != 5:
            continue
        truth = np.rot90(_grid_labels(boards[match["board"]]["grid"]), match["rot_ccw_deg"] // 90)
        read = _grid_labels(result.to_json_dict()["squares"])
        # the scanner reads the grid upright as seen in the crop; the match may be turned by quarter turns
        turns = max(range(4), key=lambda k: int((np.rot90(read, k) == truth).sum()))
        agree = int((np.rot90(read, turns) == truth).sum())
        marked = np.rot90(np.asarray(result.flagged, bool), turns)
        same_view += 1
        squares += truth.size
        squares_agreeing += agree
        flagged += int(marked.sum())
        unflagged += int(((np.rot90(read, turns) != truth) & ~marked).sum())
        agreeing += agree == truth.size
        if verbose and agree < truth.size:
            print(f"{name}: {truth.size - agree} squares differ from {match['board']}")
    return {
        "crops": len(crops),
        "located": located,
        "refused": refused,
        "same_view": same_view,
        "agreeing": agreeing,
        "squares": squares,
        "squares_agreeing": squares_agreeing,
        "flagged": flagged,
        "misread_unflagged": unflagged,
    }


def report(figures: dict) -> str:
    lines = [
        f"Real student crops (data/real/alt_crops): {figures['crops']} photos",
        f"  located: {figures['located']}",
        f"  crops showing the same view as a labelled board (correlation >= {SAME_VIEW_CORRELATION}): "
        f"{figures['same_view']}",
        f"    read square for square like that board: {figures['agreeing']}",
        f"    squares agreeing: {figures['squares_agreeing']}/{figures['squares']}; flagged for the player: "
        f"{figures['flagged']}; differing and not flagged: {figures['misread_unflagged']}",
    ]
    lines += [f"  refused: {reason}" for reason in figures["refused"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_DIR, help="folder with labels.json")
    parser.add_argument("--verbose", action="store_true", help="name the crops that disagree")
    args = parser.parse_args(argv)
    print(report(evaluate(args.data, args.verbose)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
