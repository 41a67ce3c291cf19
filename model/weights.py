"""What is kept of a fitted estimator in the model file: no optimiser state, half-precision weights.

Saving drops what only further training needs and stores the MLPs' weights as float16 (the model file
stays small enough to commit); loading widens them back to float32 before any prediction.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from model.mlp import first_layer_with_scaler

#: MLP attributes that only training, early stopping or its diagnostics read.
TRAINING_ONLY = ("_optimizer", "_best_coefs", "_best_intercepts", "loss_curve_", "validation_scores_")


def _replace_fitted(estimator, change: Callable):
    """``change`` applied bottom-up to the estimator and every fitted part inside it (attributes ending in
    "_", lists of them, a pipeline's steps), each part replaced by what ``change`` returns."""

    def replaced(part):
        return _replace_fitted(part, change) if isinstance(part, BaseEstimator) else part

    if isinstance(estimator, Pipeline):
        estimator.steps = [(name, replaced(step)) for name, step in estimator.steps]
    for name, value in list(vars(estimator).items()):
        if name.endswith("_") and isinstance(value, list):
            setattr(estimator, name, [replaced(part) for part in value])
        elif name.endswith("_") and isinstance(value, BaseEstimator):
            setattr(estimator, name, replaced(value))
    return change(estimator)


def _without_training_state(part):
    if isinstance(part, MLPClassifier):
        for name in TRAINING_ONLY:
            part.__dict__.pop(name, None)
    return part


def drop_training_state(estimator) -> None:
    """Delete what only further training needs (the MLPs' Adam moments and best-epoch copies)."""
    _replace_fitted(estimator, _without_training_state)


def _cast_weights(dtype) -> Callable:
    def cast(part):
        if isinstance(part, MLPClassifier) and hasattr(part, "coefs_"):
            part.coefs_ = [np.asarray(weights, dtype=dtype) for weights in part.coefs_]
            part.intercepts_ = [np.asarray(bias, dtype=dtype) for bias in part.intercepts_]
        return part

    return cast


def compact(estimator):
    """The estimator as saved: without training state, its MLP weights in float16 (changed in place)."""
    drop_training_state(estimator)
    return _replace_fitted(estimator, _cast_weights(np.float16))


def widen(estimator):
    """The estimator as read: its MLP weights back in float32 for prediction (changed in place)."""
    return _replace_fitted(estimator, _cast_weights(np.float32))


def _scaler_in_first_layer(part):
    """A StandardScaler → MLP pipeline as one MLP: w·(x - mean)/scale + b = (w/scale)·x + b - w·mean/scale."""
    steps = [step for _, step in part.steps] if isinstance(part, Pipeline) else []
    if len(steps) != 2 or type(steps[0]) is not StandardScaler or not isinstance(steps[1], MLPClassifier):
        return part
    scaler, mlp = steps
    mlp.coefs_[0], mlp.intercepts_[0] = first_layer_with_scaler(scaler, mlp)
    return mlp


def fold_scalers(estimator):
    """The estimator with each StandardScaler → MLP pipeline made one MLP that scales in its first layer.

    The same probabilities (to float rounding), one pass over the features less per member, which matters
    when a board's 100 turned rows are read.
    """
    return _replace_fitted(estimator, _scaler_in_first_layer)
