"""Train the square classifier on all real data (+ augmentation) and write the packaged model file.

Usage: python -m model.training.train [--data DIR] [--out PATH] [--estimator NAME] [--no-cache]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from model.classifier import DEFAULT_MODEL_PATH, SquareClassifier
from model.features import FeatureConfig
from model.training.calibration import calibrate, fitted_temperature
from model.training.crossval import fit_classifier
from model.training.dataset import (
    DEFAULT_DATA_DIR,
    SCENE_SOURCE,
    data_problem,
)
from model.training.estimators import DEFAULT_ESTIMATOR, ESTIMATOR_NAMES, make_estimator
from model.training.feature_table import AugmentPlan, build_table
from model.weights import drop_training_state, fold_scalers


def fitted_classifier(
    table, rows: np.ndarray, config: FeatureConfig, estimator_name: str, verbose: bool = True
) -> SquareClassifier:
    """The classifier as it ships, fitted on the table's ``rows``: learned stages, the estimator with its
    scalers folded into the MLPs and no training state, the calibrated temperature."""
    fitted = fit_classifier(table, rows, config, lambda: make_estimator(estimator_name), verbose=verbose)
    drop_training_state(fitted.estimator)
    classifier = SquareClassifier(
        fold_scalers(fitted.estimator),
        config,
        codebook=fitted.codebook,
        crown_detector=fitted.crown_detector,
        matcher=fitted.matcher,
    )
    classifier.temperature = fitted_temperature(estimator_name)
    return classifier


def train(
    data_dir: Path = DEFAULT_DATA_DIR,
    out: Path = DEFAULT_MODEL_PATH,
    estimator_name: str = DEFAULT_ESTIMATOR,
    use_cache: bool = True,
    verbose: bool = True,
) -> Path:
    started = time.perf_counter()
    config, plan = FeatureConfig(), AugmentPlan()
    table = build_table(config, plan, data_dir, use_cache=use_cache, verbose=verbose)
    features_done = time.perf_counter()
    classifier = fitted_classifier(table, np.ones(len(table.labels), bool), config, estimator_name, verbose)
    classifier.metadata = {
        "estimator": estimator_name,
        "augment_plan": plan.to_dict(),
        "codebook_words": classifier.codebook.words if classifier.codebook else 0,
        "crown_detector": classifier.crown_detector is not None,
        "matched_squares": int(classifier.matcher.gallery_.shape[1]) if classifier.matcher else 0,
        "training_rows": int(len(table.labels)),
        "real_squares": int(table.original.sum()),
        "scene_squares": int((table.sources == SCENE_SOURCE).sum()),
        "feature_seconds": table.build_seconds,
        "fit_seconds": round(time.perf_counter() - features_done, 1),
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
    }
    path = classifier.save(out)
    if verbose:
        size = path.stat().st_size / 1e6
        print(f"wrote {path} ({size:.1f} MB) in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def recalibrate(path: Path = DEFAULT_MODEL_PATH) -> float:
    """Give an already trained model the temperature the last evaluate run fitted (no refit)."""
    classifier = SquareClassifier.load(path)
    classifier.temperature = fitted_temperature(classifier.metadata.get("estimator", DEFAULT_ESTIMATOR))
    classifier.save(path)
    return classifier.temperature


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m model.training", description="Train the square classifier."
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA_DIR, help="folder with labels.json (data/real)"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_PATH, help="model file to write")
    parser.add_argument("--estimator", choices=ESTIMATOR_NAMES, default=DEFAULT_ESTIMATOR)
    parser.add_argument("--no-cache", action="store_true", help="recompute features (ignore out/cache)")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="first fit the temperature on grouped out-of-fold predictions (a cross-validation: slow)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes for the calibration's folds")
    parser.add_argument(
        "--recalibrate",
        action="store_true",
        help="only set the model's temperature from the stored calibration",
    )
    args = parser.parse_args(argv)
    if args.recalibrate:
        print(f"temperature {recalibrate(args.out):.3f} written to {args.out}")
        return 0
    problem = data_problem(args.data)
    if problem:
        print(f"python -m model.training: {problem}")
        return 2
    if args.calibrate:
        print(f"temperature {calibrate(args.estimator, data_dir=args.data, n_jobs=args.jobs):.3f} stored")
    train(args.data, args.out, args.estimator, use_cache=not args.no_cache)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
