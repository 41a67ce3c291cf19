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

from model.classifier import SquareClassifier, feature_permutation, with_learned
from model.codebook import PatchCodebook
from model.crowns import CrownDetector, template_seeds
from model.features import FeatureConfig
from model.label_columns import LABEL_CROWNS
from model.matching import ArtworkMatcher
from model.training.feature_table import STAGE_INPUTS_VERSION, SYNTHETIC_SOURCE, FeatureTable

#: Codewords of the patch codebook (0 = no codebook): 128 words × 4 quarter turns × 4 quarters of the square.
CODEBOOK_WORDS = 128
#: Bump when the crown detector's training or features change (cached cross-validation results depend on it).
CROWN_DETECTOR_VERSION = 2
#: Bump when the artwork matcher or how the classifier weighs it changes.
MATCHER_VERSION = 1


def learned_stages_tag(codebook_words: int = CODEBOOK_WORDS) -> str:
    """Names the learned stages in cache file names: what cached out-of-fold predictions depend on."""
    return (
        f"codebook{codebook_words}-crowns{CROWN_DETECTOR_VERSION}-inputs{STAGE_INPUTS_VERSION}"
        f"-match{MATCHER_VERSION}"
    )


def assign_folds(table: FeatureTable, n_folds: int = 5) -> np.ndarray:
    """Fold number of every row (-1 = always training: synthetic tables). Rows of a source without
    originals (squares cut from whole-table scenes) follow the fold of their group (their kingdom)."""
    folds = np.full(len(table.labels), -1)
    kept = table.sources != SYNTHETIC_SOURCE
    for source in np.unique(table.sources[table.original]):
        if source == SYNTHETIC_SOURCE:
            continue
        rows = np.flatnonzero(table.original & (table.sources == source))
        splitter = GroupKFold(n_splits=n_folds, shuffle=True, random_state=0)
        for fold, (_, test) in enumerate(splitter.split(rows, groups=table.groups[rows])):
            test_groups = set(table.groups[rows[test]])
            folds[np.isin(table.groups, list(test_groups)) & kept] = fold
    return folds


def table_features(
    table: FeatureTable,
    mask: np.ndarray,
    codebook: PatchCodebook | None,
    crown_detector: CrownDetector | None,
) -> np.ndarray:
    """The classifier's features of the table rows in ``mask``: fixed blocks, crown detector, codebook."""
    return with_learned(
        table.features[mask], table.thumbs[mask], table.crown_maps[mask], codebook, crown_detector
    )


def fit_crown_detector(table: FeatureTable, mask: np.ndarray, verbose: bool = False) -> CrownDetector:
    """The crown detector, learned from the crown counts of the real squares in ``mask``."""
    rows = np.flatnonzero(mask & table.original)
    counts = LABEL_CROWNS[table.labels[rows]]
    peaks = table.crown_peaks[rows]
    seeds = template_seeds(peaks[:, 0], peaks[:, 1].astype(np.int64), peaks[:, 2].astype(np.int64), counts)
    maps = table.crown_maps[rows].astype(np.float32)
    return CrownDetector(verbose=verbose).fit(maps, counts, seeds)


def training_rows(
    table: FeatureTable,
    mask: np.ndarray,
    config: FeatureConfig,
    codebook: PatchCodebook | None = None,
    crown_detector: CrownDetector | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels to fit on: originals in all 4 quarter turns, copies as they are."""
    originals = mask & table.original
    copies = mask & ~table.original
    features = table_features(table, mask, codebook, crown_detector)
    is_original = table.original[mask]
    blocks = [
        features[is_original][:, feature_permutation(config, codebook, crown_detector, turns)]
        for turns in range(4)
    ]
    labels = np.concatenate([np.tile(table.labels[originals], 4), table.labels[copies]])
    return np.vstack(blocks + [features[~is_original]]), labels


def fit_classifier(
    table: FeatureTable,
    mask: np.ndarray,
    config: FeatureConfig,
    make_estimator: Callable[[], object],
    codebook_words: int = CODEBOOK_WORDS,
    verbose: bool = False,
) -> SquareClassifier:
    """Fit the codebook (if any), the crown detector and the artwork matcher, then the estimator, on the
    rows in ``mask`` (the matcher keeps the real squares among them, not their augmented copies)."""
    codebook = PatchCodebook(codebook_words).fit(table.thumbs[mask]) if codebook_words else None
    detector = fit_crown_detector(table, mask, verbose)
    real = mask & table.original
    matcher = ArtworkMatcher().fit(table.thumbs[real], table.labels[real])
    features, labels = training_rows(table, mask, config, codebook, detector)
    estimator = make_estimator()
    if "feature_config" in estimator.get_params(deep=False):  # it picks columns by feature block
        estimator.set_params(feature_config=config.to_dict())
    estimator.fit(features, labels)
    return SquareClassifier(estimator, config, codebook=codebook, crown_detector=detector, matcher=matcher)


def _fit_and_read(
    table: FeatureTable,
    train: np.ndarray,
    test: np.ndarray,
    config: FeatureConfig,
    make_estimator,
    codebook_words: int,
    crops: np.ndarray | None,
    verbose: bool = False,
) -> np.ndarray:
    """(2, n, 18): probabilities of the n original rows in ``test`` from a classifier fitted on the rows in
    ``train``, as it reads them ([0]) and without its artwork matcher ([1]), to show what that adds.

    Given ``crops`` (the normalised crops of every original row), the unsure squares are re-read turned
    and matched, as ``SquareClassifier.predict_proba`` does; without, neither.
    """
    classifier = fit_classifier(table, train, config, make_estimator, codebook_words, verbose)
    features = table_features(table, test, classifier.codebook, classifier.crown_detector)
    test_crops = None if crops is None else crops[test[table.original]]
    white_points = None if table.white_points is None else table.white_points[test]
    return np.stack(
        [
            classifier.predict_proba_features(features, test_crops, match=match, white_points=white_points)
            for match in (True, False)
        ]
    )


def _fold_probabilities(
    table: FeatureTable,
    folds: np.ndarray,
    fold: int,
    config: FeatureConfig,
    make_estimator,
    verbose: bool,
    codebook_words: int,
    crops: np.ndarray | None,
) -> np.ndarray:
    started = time.perf_counter()
    test = table.original & (folds == fold)
    probabilities = _fit_and_read(
        table, folds != fold, test, config, make_estimator, codebook_words, crops, verbose
    )
    if verbose:
        print(f"fold {fold}: {test.sum()} squares, {time.perf_counter() - started:.0f} s", flush=True)
    return probabilities


def held_out_source(
    table: FeatureTable,
    source: str,
    config: FeatureConfig,
    make_estimator: Callable[[], object],
    crops: np.ndarray | None = None,
    codebook_words: int = CODEBOOK_WORDS,
) -> tuple[np.ndarray, np.ndarray]:
    """(rows, probabilities) of every original square of ``source`` read by a model fitted without it
    (probabilities as in ``_fit_and_read``: with and without the artwork matcher).

    The boards come from one photo session and the tiles from 614 other phone photos, so fitting on one
    set (and the synthetic tables) and reading the other measures a camera, light and table the model
    never saw at all, which grouped folds (both sets on both sides) cannot.
    """
    test = table.original & (table.sources == source)
    train = (table.sources != source) & ~np.isin(table.groups, np.unique(table.groups[test]))
    return np.flatnonzero(test), _fit_and_read(
        table, train, test, config, make_estimator, codebook_words, crops
    )


def out_of_fold(
    table: FeatureTable,
    config: FeatureConfig,
    make_estimator: Callable[[], object],
    n_folds: int = 5,
    verbose: bool = False,
    n_jobs: int = 1,
    codebook_words: int = CODEBOOK_WORDS,
    crops: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, probabilities (2, len(rows), 18), folds) for every original real square; the probabilities
    with the artwork matcher ([0], as the classifier reads) and without it ([1]).

    Each fold fits its own patch codebook, crown detector and artwork matcher, on its training rows
    only. With ``crops`` (the normalised crops of the original rows, in row order), unsure squares are
    re-read turned and matched, as ``SquareClassifier.predict_proba`` does.
    """
    folds = assign_folds(table, n_folds)
    rows = np.flatnonzero(table.original)
    fold_probabilities = Parallel(n_jobs=n_jobs)(
        delayed(_fold_probabilities)(
            table, folds, fold, config, make_estimator, verbose, codebook_words, crops
        )
        for fold in range(n_folds)
    )
    probabilities = np.zeros((2, len(rows), 18))
    for fold, fold_probability in enumerate(fold_probabilities):
        test = table.original & (folds == fold)
        probabilities[:, np.searchsorted(rows, np.flatnonzero(test))] = fold_probability
    return rows, probabilities, folds[rows]
