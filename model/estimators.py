"""Candidate estimators on the square features, by name (chosen by grouped cross-validation)."""

from __future__ import annotations

from sklearn.ensemble import ExtraTreesClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


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
    if name == "extra_trees":
        return ExtraTreesClassifier(
            n_estimators=300, max_features="sqrt", min_samples_leaf=1, n_jobs=2, random_state=seed
        )
    raise ValueError(f"unknown estimator {name!r}")


ESTIMATOR_NAMES = ("logistic", "mlp", "extra_trees")
DEFAULT_ESTIMATOR = "logistic"
