"""Contact sheets for checking tile labels: every misread tile next to its closest look-alike elsewhere.

Usage: python -m model.evaluation.label_audit [--estimator NAME] [--folds 5] [--out out/label_audit]

It reads the out-of-fold predictions the last ``model.evaluation.evaluate`` run cached. A tile's look-alike is
the most similar tile in the other folds, compared in grey after contrast normalisation, in all
4 quarter turns and shifted by up to 2 px at 32 px. In a session of photos that is often the same
physical tile in the next photo. When the classifier and a near-identical look-alike agree against
the label, the label deserves a look. The sheet only lays out the evidence: a person decides, and
enters what the photo shows in data/real/label_corrections.json.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from model.evaluation.metrics import label_name
from model.training.crossval import assign_folds
from model.training.dataset import DEFAULT_DATA_DIR, TILE_SOURCE
from model.training.feature_table import FeatureTable, build_table

REPO = Path(__file__).resolve().parents[2]
SHIFT = 2  # pixels at 32 px: a sloppy crop moves the artwork by a few pixels
MARGIN = 4  # the crop's edge (a neighbour's strip) is left out of the comparison
CELL = 240  # pixels per tile on the sheet
PER_SHEET = 12


def _normalised(grey: np.ndarray) -> np.ndarray:
    """(n, d) unit vectors of the zero-mean centre of (n, 32, 32) grey thumbnails."""
    centre = grey[:, MARGIN:-MARGIN, MARGIN:-MARGIN].reshape(len(grey), -1)
    centre = centre - centre.mean(axis=1, keepdims=True)
    return centre / np.maximum(np.linalg.norm(centre, axis=1, keepdims=True), 1e-6)


def look_alikes(thumbs: np.ndarray, folds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(similarity, index) of each thumbnail's most similar one in another fold (any turn, small shift).

    ``folds`` keeps a tile's own photo out: only another photo can vouch for or against its label.
    """
    grey = thumbs.astype(np.float32).mean(axis=3)
    queries = _normalised(grey)
    other_fold = folds[:, None] != folds[None, :]
    best = np.full(len(grey), -1.0, dtype=np.float32)
    index = np.zeros(len(grey), dtype=np.int64)
    for turns in range(4):
        turned = np.rot90(grey, turns, axes=(1, 2))
        for dy in range(-SHIFT, SHIFT + 1):
            for dx in range(-SHIFT, SHIFT + 1):
                candidates = _normalised(np.roll(turned, (dy, dx), axis=(1, 2)))
                similarity = np.where(other_fold, queries @ candidates.T, -1.0)
                top = similarity.argmax(axis=1)
                score = similarity[np.arange(len(grey)), top]
                better = score > best
                best[better], index[better] = score[better], top[better]
    return best, index


def _cell(image: np.ndarray, caption: str, name: str) -> np.ndarray:
    canvas = np.full((CELL + 40, CELL, 3), 255, np.uint8)
    canvas[:CELL] = cv2.resize(image, (CELL, CELL), interpolation=cv2.INTER_CUBIC)
    cv2.putText(canvas, caption, (2, CELL + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 1)
    short = name.split("/", 1)[-1][-34:]  # the folder and file, without tiles_spetryk/
    cv2.putText(canvas, short, (2, CELL + 36), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 200), 1)
    return canvas


def audit(
    table: FeatureTable,
    rows: np.ndarray,
    probabilities: np.ndarray,
    folds: np.ndarray,
    data_dir: Path,
    out_dir: Path,
) -> list[str]:
    """Write the contact sheets of the misread tiles among ``rows``; one text line per misread tile.

    ``probabilities`` are the out-of-fold ones of ``rows``, as cached (before calibration), and
    ``folds`` the fold of every table row in that cross-validation.
    """
    tiles = table.sources[rows] == TILE_SOURCE
    rows, probabilities = rows[tiles], probabilities[tiles]
    truth, read = table.labels[rows], probabilities.argmax(axis=1)
    similarity, partner = look_alikes(table.thumbs[rows], folds[rows])
    out_dir.mkdir(parents=True, exist_ok=True)
    lines, cells = [], []
    for number, i in enumerate(np.flatnonzero(truth != read)):
        j = partner[i]
        name, other = table.names[rows[i]], table.names[rows[j]]
        labelled, read_as, alike = (label_name(k) for k in (truth[i], read[i], truth[j]))
        lines.append(
            f"{number}\t{name}\tlabelled {labelled}\tread {read_as} ({probabilities[i].max():.2f})"
            f"\tlook-alike {other}\tlabelled {alike} (similarity {similarity[i]:.2f})"
        )
        pair = [
            _cell(cv2.imread(str(data_dir / name)), f"#{number} {labelled} read {read_as}", name),
            _cell(cv2.imread(str(data_dir / other)), f"like {alike} ({similarity[i]:.2f})", other),
        ]
        cells.append(np.hstack([*pair, np.full((CELL + 40, 12, 3), 90, np.uint8)]))
    for sheet, start in enumerate(range(0, len(cells), PER_SHEET)):
        chunk = cells[start : start + PER_SHEET]
        chunk += [np.full_like(cells[0], 255)] * (-len(chunk) % 3)
        grid = np.vstack([np.hstack(chunk[r : r + 3]) for r in range(0, len(chunk), 3)])
        cv2.imwrite(str(out_dir / f"sheet-{sheet}.png"), grid)
    (out_dir / "misread.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def main(argv: list[str] | None = None) -> int:
    from model.training.calibration import oof_cache_path
    from model.training.estimators import DEFAULT_ESTIMATOR, ESTIMATOR_NAMES

    parser = argparse.ArgumentParser(
        prog="python -m model.evaluation.label_audit", description="Contact sheets of the misread tiles."
    )
    parser.add_argument("--estimator", choices=ESTIMATOR_NAMES, default=DEFAULT_ESTIMATOR)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "out" / "label_audit")
    args = parser.parse_args(argv)
    path = oof_cache_path(args.estimator, args.folds)
    if not path.is_file():
        print(f"label audit: no cross-validation cached for {args.estimator}; run python -m model.evaluation")
        return 2
    with np.load(path) as stored:
        rows, raw = stored["rows"], stored["raw"]
    table = build_table()
    lines = audit(table, rows, raw, assign_folds(table, args.folds), DEFAULT_DATA_DIR, args.out)
    print(f"{len(lines)} misread tiles; sheets and misread.tsv in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
