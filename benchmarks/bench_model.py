"""The bench model: the square classifier trained without a fixed set of held-out kingdoms.

The shipped model learnt every labelled board, so a bench built from those boards measures squares it has
seen. The hard bench (``benchmarks.hard``) is built only from the boards of the kingdoms in
``HELD_OUT_KINGDOMS`` and read by a classifier trained exactly as ``model.train`` trains the shipped one
(same features, augmentation plan, estimator and temperature) on every row except those of these
kingdoms (their photos, every augmented copy of them, and any square cut from a whole-table scene of
them: the scene squares of ``data/real/scene_squares`` are grouped with their kingdom too).

The held-out kingdoms follow one fixed rule, so nobody picks easy or hard ones: the kingdom ids of
``data/real/labels.json`` in id order, every fourth one from the third (``held_out_by_rule``; a test
checks the constant against the rule).

The model is cached outside the package, under ``~/.cache/kingdomino-scanner/`` (or
``$KINGDOMINO_CACHE``), named by a digest of the held-out list, the training data's labels, scene squares
and plan, the estimator and scikit-learn's version, so a change to any of them trains a new one.

``python -m benchmarks.bench_model`` trains it (once; a few minutes on two cores) and prints its path.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HELD_OUT_KINGDOMS = ("K04", "K09", "K14", "K19", "K24", "K29", "K35")
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "real"


def held_out_by_rule(kingdom_ids: list[str]) -> tuple[str, ...]:
    """Every fourth kingdom id in sorted order, starting from the third."""
    return tuple(sorted(set(kingdom_ids))[2::4])


def cache_dir() -> Path:
    """Where bench models are kept: ``$KINGDOMINO_CACHE`` or ``~/.cache/kingdomino-scanner``."""
    root = os.environ.get("KINGDOMINO_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "kingdomino-scanner"


def _digest(data_dir: Path, estimator_name: str) -> str:
    import sklearn

    from model.features import FeatureConfig
    from model.training.feature_table import AugmentPlan, cache_key

    text = json.dumps(
        [
            HELD_OUT_KINGDOMS,
            cache_key(FeatureConfig(), AugmentPlan(), data_dir),
            estimator_name,
            sklearn.__version__,
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def bench_model_path(data_dir: Path = DATA_DIR, estimator_name: str | None = None) -> Path:
    from model.training.estimators import DEFAULT_ESTIMATOR

    name = estimator_name or DEFAULT_ESTIMATOR
    return cache_dir() / f"bench-model-{_digest(data_dir, name)}.joblib"


def train_bench_model(
    data_dir: Path = DATA_DIR, estimator_name: str | None = None, verbose: bool = True
) -> Path:
    """Train the classifier on every row but the held-out kingdoms' and write it to ``bench_model_path``."""
    from model.features import FeatureConfig
    from model.training.dataset import SCENE_SOURCE
    from model.training.estimators import DEFAULT_ESTIMATOR
    from model.training.feature_table import AugmentPlan, build_table
    from model.training.train import fitted_classifier

    name = estimator_name or DEFAULT_ESTIMATOR
    started = time.perf_counter()
    config, plan = FeatureConfig(), AugmentPlan()
    table = build_table(config, plan, data_dir, use_cache=True, verbose=verbose)
    held = np.isin(table.groups, [f"kingdom-{kingdom}" for kingdom in HELD_OUT_KINGDOMS])
    if verbose:
        print(f"training on {int((~held).sum())} rows, {int(held.sum())} rows of held-out kingdoms left out")
    classifier = fitted_classifier(table, ~held, config, name, verbose)
    classifier.metadata = {
        "estimator": name,
        "augment_plan": plan.to_dict(),
        "held_out_kingdoms": list(HELD_OUT_KINGDOMS),
        "training_rows": int((~held).sum()),
        "held_out_rows": int(held.sum()),
        "scene_rows": int((~held & (table.sources == SCENE_SOURCE)).sum()),
        "fit_seconds": round(time.perf_counter() - started, 1),
    }
    path = bench_model_path(data_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    classifier.save(path)
    if verbose:
        print(f"wrote {path} in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def load_bench_model(data_dir: Path = DATA_DIR):
    """The cached bench model, or None when it has not been trained (``python -m benchmarks.bench_model``)."""
    from model.classifier import SquareClassifier

    path = bench_model_path(data_dir)
    return SquareClassifier.load(path) if path.is_file() else None


def held_out_boards(data_dir: Path = DATA_DIR) -> list[str]:
    """Names of the board photos of the held-out kingdoms (the only boards the hard bench is built from)."""
    boards = json.loads((data_dir / "labels.json").read_text(encoding="utf-8"))["boards"]
    return sorted(name for name, board in boards.items() if board["kingdom_id"] in HELD_OUT_KINGDOMS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_model", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--path", action="store_true", help="only print where the model is (or would be)")
    args = parser.parse_args(argv)
    path = bench_model_path()
    if args.path:
        print(path)
        return 0
    if path.is_file():
        print(f"{path} exists (held out: {', '.join(HELD_OUT_KINGDOMS)})")
        return 0
    if not (DATA_DIR / "labels.json").is_file():
        print(f"bench model: no labels.json in {DATA_DIR}", file=sys.stderr)
        return 2
    print(f"training without kingdoms {', '.join(HELD_OUT_KINGDOMS)}", flush=True)
    train_bench_model()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
