"""Raw classifier reading versus joint decoding, on the real boards.

``python -m benchmarks.decoder`` reads the out-of-fold square probabilities written by
``python -m model.evaluation.evaluate`` (out/oof_board_probs.npz: one (N, N, 18) array per board name) and
prints a markdown section for model/MODEL.md. ``--simulated SEED`` measures instead on the true
labels blurred by a fixed confusion model (crowns under-read, similar terrains swapped), which is
how the decoder was developed before real out-of-fold probabilities existed. ``--scenes COUNT``
scans generated table photos (seeds 10 000+) with the packaged classifier and compares its readings
with the decoded ones; that classifier was trained on the boards the scenes are made of, so the raw
figures there are optimistic, but the missing squares and photo damage are new.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from kingdomino.board import Kingdom
from kingdomino.labels import LABEL_INDEX, LABELS
from model.evaluation.decoding import compare_raw_decoded

ROOT = Path(__file__).resolve().parent.parent
LABELS_PATH = ROOT / "data" / "real" / "labels.json"
OOF_PATH = ROOT / "out" / "oof_board_probs.npz"

#: Likely misreadings of each label (token -> tokens), used only by the simulated probabilities.
CONFUSIONS: dict[str, tuple[str, ...]] = {
    "W0": ("G0", "S0"),
    "W1": ("W0",),
    "F0": ("S0", "L0"),
    "F1": ("F0",),
    "L0": ("F0",),
    "L1": ("L0",),
    "G0": ("W0", "S0"),
    "G1": ("G0",),
    "G2": ("G1", "G0"),
    "S0": ("G0", "M0", "F0"),
    "S1": ("S0",),
    "S2": ("S1", "S0"),
    "M0": ("S0",),
    "M1": ("M0",),
    "M2": ("M1", "M0"),
    "M3": ("M2", "M0"),
    "C": (".", "M0"),
    ".": ("S0", "F0"),
}
_TOKEN_INDEX = {label.token: index for index, label in enumerate(LABELS)}


def load_truths(path: Path = LABELS_PATH) -> dict[str, Kingdom]:
    """The labelled real boards, by image name."""
    boards = json.loads(path.read_text())["boards"]
    return {name: Kingdom.from_dict({"squares": board["grid"]}) for name, board in boards.items()}


def simulated_probabilities(truth: Kingdom, rng: np.random.Generator, error_rate: float = 0.05) -> np.ndarray:
    """Classifier-like probabilities for a known kingdom: mostly right, wrong towards likely confusions."""
    size = truth.grid_size
    probabilities = np.empty((size, size, len(LABELS)))
    for (row, col), square in truth.cells():
        true_index = LABEL_INDEX[square]
        likely = [_TOKEN_INDEX[token] for token in CONFUSIONS[square.token]]
        logits = rng.normal(0.0, 1.0, len(LABELS))
        logits[true_index] += 4.0
        logits[likely] += 1.5
        if rng.random() < error_rate:
            logits[likely[rng.integers(len(likely))]] = logits[true_index] + rng.exponential(1.0)
        weights = np.exp(logits - logits.max())
        probabilities[row, col] = weights / weights.sum()
    return probabilities


def scene_probabilities(
    count: int, first_seed: int = 10_000
) -> tuple[dict[str, np.ndarray], dict[str, Kingdom]]:
    """Classifier probabilities and true kingdoms of the generated scenes located at the right size."""
    import cv2

    from benchmarks.scenes import generate_scene
    from scanner.errors import ScanError
    from scanner.recognizer import KingdomScanner

    scanner = KingdomScanner()
    probabilities: dict[str, np.ndarray] = {}
    truths: dict[str, Kingdom] = {}
    for seed in range(first_seed, first_seed + count):
        scene = generate_scene(seed)
        truth, _ = scene.upright()
        photo = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
        try:
            result = scanner.scan(photo, name=f"scene-{seed}")
        except ScanError:
            continue
        if result.grid_size == truth.grid_size and result.probabilities is not None:
            probabilities[f"scene-{seed}"] = result.probabilities
            truths[f"scene-{seed}"] = truth
    return probabilities, truths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.decoder", description=__doc__.splitlines()[0])
    parser.add_argument(
        "probabilities", nargs="?", type=Path, default=OOF_PATH, help="npz of (N, N, 18) per board"
    )
    parser.add_argument("--simulated", type=int, metavar="SEED", help="use simulated probabilities instead")
    parser.add_argument(
        "--repeats", type=int, default=4, help="simulated readings per board (with --simulated)"
    )
    parser.add_argument("--scenes", type=int, metavar="COUNT", help="scan this many generated scenes instead")
    args = parser.parse_args(argv)
    truths = load_truths()
    if args.scenes is not None:
        probabilities, truths = scene_probabilities(args.scenes)
        title = f"### Joint decoding on generated scenes ({len(probabilities)} of {args.scenes} located)"
    elif args.simulated is not None:
        rng = np.random.default_rng(args.simulated)
        probabilities = {
            f"{name}#{repeat}": simulated_probabilities(truth, rng)
            for repeat in range(args.repeats)
            for name, truth in truths.items()
        }
        truths = {
            f"{name}#{repeat}": truth for repeat in range(args.repeats) for name, truth in truths.items()
        }
        title = f"### Joint decoding on simulated readings (seed {args.simulated}, {args.repeats} per board)"
    else:
        if not args.probabilities.is_file():
            print(
                f"no probabilities at {args.probabilities}: run `python -m model.evaluation.evaluate` first",
                file=sys.stderr,
            )
            return 1
        with np.load(args.probabilities, allow_pickle=False) as archive:
            probabilities = {
                name: archive[name] for name in archive.files if name in truths and archive[name].ndim == 3
            }
        if not probabilities:
            print(
                f"{args.probabilities} holds no (N, N, 18) arrays named after labelled boards",
                file=sys.stderr,
            )
            return 1
        title = "### Joint decoding on out-of-fold classifier probabilities (real boards)"
    print(title + "\n\n" + compare_raw_decoded(probabilities, truths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
