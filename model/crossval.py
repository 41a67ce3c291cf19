"""Grouped cross-validation on the feature table: out-of-fold probabilities for every real square.

Boards are split by kingdom (every photo of one physical kingdom on one side) and tiles by source
photo, each into the same number of folds; augmented copies follow their original and synthetic tables
are always training data. So every figure measures unseen kingdoms and unseen photos.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import GroupKFold

from model.classifier import SquareClassifier, feature_permutation, with_codebook
from model.codebook import PatchCodebook
from model.features import FeatureConfig
from model.table import SYNTHETIC_SOURCE, FeatureTable

#: Codewords of the patch codebook (0 = no codebook): 64 words × 4 quarter turns × 4 quarters of the square.
CODEBOOK_WORDS = 64


def assign_folds(table: FeatureTable, n_folds: int = 5) -> np.ndarray:
    """Fold number of every row (-1 = always training: synthetic tables)."""
    folds = np.full(len(table.labels), -1)
    for source in np.unique(table.sources):
        if source == SYNTHETIC_SOURCE:
            continue
        rows = np.flatnonzero(table.original & (table.sources == source))
        splitter = GroupKFold(n_splits=n_folds, shuffle=True, random_state=0)
        for fold, (_, test) in enumerate(splitter.split(rows, groups=table.groups[rows])):
            test_groups = set(table.groups[rows[test]])
            folds[np.isin(table.groups, list(test_groups)) & (table.sources == source)] = fold
    return folds


def training_rows(
    table: FeatureTable, mask: np.ndarray, config: FeatureConfig, codebook: PatchCodebook | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels to fit on: originals in all 4 quarter turns, copies as they are."""
    originals = mask & table.original
    copies = mask & ~table.original
    features = with_codebook(table.features[mask], table.thumbs[mask], codebook)
    is_original = table.original[mask]
    blocks = [features[is_original][:, feature_permutation(config, codebook, turns)] for turns in range(4)]
    labels = np.concatenate([np.tile(table.labels[originals], 4), table.labels[copies]])
    return np.vstack(blocks + [features[~is_original]]), labels


def fit_classifier(
    table: FeatureTable,
    mask: np.ndarray,
    config: FeatureConfig,
    make_estimator: Callable[[], object],
    codebook_words: int = CODEBOOK_WORDS,
) -> SquareClassifier:
    """Fit the codebook (if any) and the estimator on the rows in ``mask``."""
    codebook = PatchCodebook(codebook_words).fit(table.thumbs[mask]) if codebook_words else None
    features, labels = training_rows(table, mask, config, codebook)
    estimator = make_estimator()
    estimator.fit(features, labels)
    return SquareClassifier(estimator, config, codebook=codebook)


def _fold_probabilities(
    table: FeatureTable,
    folds: np.ndarray,
    fold: int,
    config: FeatureConfig,
    make_estimator,
    verbose: bool,
    codebook_words: int,
) -> np.ndarray:
    started = time.perf_counter()
    classifier = fit_classifier(table, folds != fold, config, make_estimator, codebook_words)
    test = table.original & (folds == fold)
    features = with_codebook(table.features[test], table.thumbs[test], classifier.codebook)
    probabilities = classifier.predict_proba_features(features)
    if verbose:
        print(f"fold {fold}: {test.sum()} squares, {time.perf_counter() - started:.0f} s", flush=True)
    return probabilities


def out_of_fold(
    table: FeatureTable,
    config: FeatureConfig,
    make_estimator: Callable[[], object],
    n_folds: int = 5,
    verbose: bool = False,
    n_jobs: int = 1,
    codebook_words: int = CODEBOOK_WORDS,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, probabilities (len(rows), 18), folds) for every original real square.

    Each fold fits its own patch codebook, on its training rows only.
    """
    folds = assign_folds(table, n_folds)
    rows = np.flatnonzero(table.original)
    fold_probabilities = Parallel(n_jobs=n_jobs)(
        delayed(_fold_probabilities)(table, folds, fold, config, make_estimator, verbose, codebook_words)
        for fold in range(n_folds)
    )
    probabilities = np.zeros((len(rows), 18))
    for fold, fold_probability in enumerate(fold_probabilities):
        test = table.original & (folds == fold)
        probabilities[np.searchsorted(rows, np.flatnonzero(test))] = fold_probability
    return rows, probabilities, folds[rows]
