"""Candidate estimators on the square features, by name (chosen by grouped cross-validation)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


class GeometricEnsemble(ClassifierMixin, BaseEstimator):
    """Normalised geometric mean of the members' probabilities (members see the same rows)."""

    def __init__(self, members: list, weights: list[float]) -> None:
        self.members = members
        self.weights = weights

    def fit(self, features: np.ndarray, labels: np.ndarray) -> GeometricEnsemble:
        self.members_ = [clone(member).fit(features, labels) for member in self.members]
        self.classes_ = self.members_[0].classes_
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        log_mean = sum(
            weight * np.log(np.clip(member.predict_proba(features), 1e-9, 1.0))
            for member, weight in zip(self.members_, self.weights, strict=True)
        ) / sum(self.weights)
        probabilities = np.exp(log_mean - log_mean.max(axis=1, keepdims=True))
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.classes_[self.predict_proba(features).argmax(axis=1)]


def make_estimator(name: str, seed: int = 0):
    """A fresh, unfitted estimator with predict_proba over the joint label indices."""
    if name == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=400))
    if name == "mlp":
        return make_pipeline(
            StandardScaler(),
            MLPClassifier(
                hidden_layer_sizes=(256,),
                alpha=1e-3,
                batch_size=256,
                learning_rate_init=1e-3,
                max_iter=40,
                early_stopping=False,
                random_state=seed,
            ),
        )
    if name == "ensemble":
        return GeometricEnsemble([make_estimator("logistic", seed), make_estimator("mlp", seed)], [1.0, 1.0])
    if name == "extra_trees":
        return ExtraTreesClassifier(
            n_estimators=300, max_features="sqrt", min_samples_leaf=1, n_jobs=2, random_state=seed
        )
    raise ValueError(f"unknown estimator {name!r}")


ESTIMATOR_NAMES = ("logistic", "mlp", "ensemble", "extra_trees")
DEFAULT_ESTIMATOR = "logistic"
