"""The menu of candidate estimators on the square features, by name (chosen by grouped cross-validation)."""

from __future__ import annotations

from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from model.ensemble import CrownExpert, GeometricEnsemble, TerrainCrownEstimator
from model.mlp import InPlaceMLPClassifier


def make_estimator(name: str, seed: int = 0):
    """A fresh, unfitted estimator with predict_proba over the joint label indices."""
    if name == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=400))
    if name in ("mlp", "mlp_wide", "mlp_strong"):
        return make_pipeline(
            StandardScaler(),
            InPlaceMLPClassifier(
                hidden_layer_sizes=(512,) if name == "mlp_wide" else (256,),
                alpha=1e-2 if name == "mlp_strong" else 1e-3,
                batch_size=256,
                learning_rate_init=1e-3,
                max_iter=40,
                early_stopping=False,
                random_state=seed,
            ),
        )
    if name == "factored":
        return TerrainCrownEstimator(make_estimator("logistic", seed), make_estimator("logistic", seed))
    if name == "mlp_bag":
        members = [make_estimator("mlp", seed + offset) for offset in range(3)]
        return GeometricEnsemble(members, [1.0, 1.0, 1.0], n_jobs=2)
    if name == "mlp_mix":  # the 3-MLP bag and a more regularised MLP, weighted half and half
        members = [make_estimator("mlp", seed + offset) for offset in range(3)] + [
            make_estimator("mlp_strong", seed)
        ]
        return GeometricEnsemble(members, [1.0, 1.0, 1.0, 3.0], n_jobs=2)
    if name in ("mlp_crowns", "mlp_mix_crowns"):  # joint model × crown-count expert on crown features
        crown_model = make_pipeline(
            StandardScaler(),
            InPlaceMLPClassifier(
                hidden_layer_sizes=(256,), alpha=1e-2, batch_size=256, max_iter=40, random_state=seed
            ),
        )
        return CrownExpert(make_estimator(name.removesuffix("_crowns"), seed), crown_model, weight=0.5)
    if name == "ensemble":
        return GeometricEnsemble([make_estimator("logistic", seed), make_estimator("mlp", seed)], [1.0, 1.0])
    raise ValueError(f"unknown estimator {name!r}")


ESTIMATOR_NAMES = (
    "logistic",
    "mlp",
    "mlp_wide",
    "mlp_strong",
    "mlp_bag",
    "mlp_mix",
    "ensemble",
    "factored",
    "mlp_crowns",
    "mlp_mix_crowns",
)
DEFAULT_ESTIMATOR = "mlp_mix_crowns"
