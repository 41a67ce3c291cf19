"""Calibration, a training step: the softmax temperature fitted on grouped out-of-fold predictions.

``python -m model.training --calibrate`` runs (or reuses) the grouped cross-validation of
``model.training.crossval``, fits the temperature that minimises the out-of-fold log-loss, and stores it in
``calibration.json`` beside this module; training gives the model that temperature. The evaluation reads
the same cached out-of-fold predictions for the card but writes nothing training reads.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from model.classifier import RECHECK_BELOW, RECHECK_DEGREES
from model.features import FeatureConfig
from model.training.crossval import learned_stages_tag, out_of_fold
from model.training.dataset import DEFAULT_DATA_DIR
from model.training.estimators import make_estimator
from model.training.feature_table import CACHE_DIR, AugmentPlan, build_table, cache_key

CALIBRATION_PATH = Path(__file__).resolve().parent / "calibration.json"


def cv_key(data_dir: Path = DEFAULT_DATA_DIR, corrected: bool = True) -> str:
    """Names the cached CV results of the default features and plan: the table and the learned stages."""
    return f"{cache_key(FeatureConfig(), AugmentPlan(), data_dir, corrected)}-{learned_stages_tag()}"


def oof_cache_path(
    estimator_name: str, n_folds: int, data_dir: Path = DEFAULT_DATA_DIR, corrected: bool = True
) -> Path:
    """Where the grouped CV's out-of-fold probabilities (with re-reading) are cached."""
    recheck = f"recheck{RECHECK_BELOW}-{RECHECK_DEGREES}"
    return CACHE_DIR / f"oof-{cv_key(data_dir, corrected)}-{estimator_name}-{n_folds}-{recheck}.npz"


def fit_temperature(log_probabilities: np.ndarray, truth: np.ndarray) -> float:
    """Softmax temperature minimising the out-of-fold negative log-likelihood (grid search)."""
    best, best_loss = 1.0, np.inf
    for temperature in np.exp(np.linspace(np.log(0.3), np.log(5.0), 120)):
        scaled = log_probabilities / temperature
        scaled -= scaled.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(scaled).sum(axis=1))
        loss = float(np.mean(log_norm - scaled[np.arange(len(truth)), truth]))
        if loss < best_loss:
            best, best_loss = float(temperature), loss
    return best


def apply_temperature(probabilities: np.ndarray, temperature: float) -> np.ndarray:
    scaled = np.log(np.clip(probabilities, 1e-12, 1.0)) / temperature
    scaled -= scaled.max(axis=1, keepdims=True)
    out = np.exp(scaled)
    return out / out.sum(axis=1, keepdims=True)


def expected_calibration_error(probabilities: np.ndarray, truth: np.ndarray, bins: int = 10) -> float:
    confidence = probabilities.max(axis=1)
    correct = probabilities.argmax(axis=1) == truth
    edges = np.linspace(0, 1, bins + 1)
    error = 0.0
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        inside = (confidence > low) & (confidence <= high)
        if inside.any():
            error += inside.mean() * abs(correct[inside].mean() - confidence[inside].mean())
    return float(error)


def fitted_temperature(estimator_name: str, path: Path = CALIBRATION_PATH) -> float:
    """The stored temperature of this estimator (1.0 until the calibration step has run)."""
    if path.is_file():
        stored = json.loads(path.read_text(encoding="utf-8"))
        return float(stored.get(estimator_name, 1.0))
    return 1.0


def store_temperature(estimator_name: str, temperature: float, path: Path = CALIBRATION_PATH) -> None:
    stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    stored[estimator_name] = round(float(temperature), 4)
    path.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def cached_out_of_fold(
    table,
    config: FeatureConfig,
    estimator_name: str,
    n_folds: int,
    crops: Callable[[], np.ndarray],
    data_dir: Path = DEFAULT_DATA_DIR,
    reuse: bool = True,
    n_jobs: int = 1,
    verbose: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(rows, raw, unmatched probabilities, seconds) of the grouped CV, from out/cache when ``reuse`` and
    cached, else computed (``crops()``: the real squares' normalised crops, asked for only then) and cached.
    Calibration and the evaluation read the same file."""
    cache = oof_cache_path(estimator_name, n_folds, data_dir)
    if reuse and cache.is_file():
        with np.load(cache) as stored:
            return stored["rows"], stored["raw"], stored["unmatched"], float(stored["seconds"])
    started = time.perf_counter()
    rows, (raw, unmatched), _ = out_of_fold(
        table,
        config,
        partial(make_estimator, estimator_name),
        n_folds,
        verbose,
        n_jobs=n_jobs,
        crops=crops(),
    )
    seconds = time.perf_counter() - started
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.savez(cache, rows=rows, raw=raw, unmatched=unmatched, seconds=seconds)
    return rows, raw, unmatched, seconds


def calibrate(
    estimator_name: str,
    n_folds: int = 5,
    data_dir: Path = DEFAULT_DATA_DIR,
    n_jobs: int = 1,
    verbose: bool = True,
) -> float:
    """Fit and store the temperature from grouped out-of-fold predictions (cached in out/cache)."""
    from model.training.dataset import load_boards
    from model.training.feature_table import original_crops

    config = FeatureConfig()
    table = build_table(config, AugmentPlan(), data_dir, verbose=verbose)
    rows, raw, _, _ = cached_out_of_fold(
        table,
        config,
        estimator_name,
        n_folds,
        lambda: original_crops(table, load_boards(data_dir), data_dir),
        data_dir,
        n_jobs=n_jobs,
        verbose=verbose,
    )
    temperature = fit_temperature(np.log(np.clip(raw, 1e-12, 1.0)), table.labels[rows])
    store_temperature(estimator_name, temperature)
    return temperature
