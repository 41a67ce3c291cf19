"""Candidate estimators on the square features, by name (chosen by grouped cross-validation)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from kingdomino.board import MAX_CROWN_DIGIT
from kingdomino.labels import LABELS
from model.crowns import N_FEATURES as CROWN_DETECTOR_FEATURES
from model.features import FeatureConfig, block_sizes, feature_size
from model.metrics import LABEL_CROWNS, LABEL_TERRAIN, TERRAINS
from model.mlp import InPlaceMLPClassifier, first_layer_with_scaler

IS_LAND = np.array([terrain.is_land for terrain in TERRAINS])
#: The name of the crown detector's columns, which follow the fixed feature blocks.
CROWN_DETECTOR = "crown_det"


class GeometricEnsemble(ClassifierMixin, BaseEstimator):
    """Normalised geometric mean of the members' probabilities (members see the same rows)."""

    def __init__(self, members: list, weights: list[float], n_jobs: int = 1) -> None:
        self.members = members
        self.weights = weights
        self.n_jobs = n_jobs

    def fit(self, features: np.ndarray, labels: np.ndarray) -> GeometricEnsemble:
        self.members_ = Parallel(n_jobs=self.n_jobs)(
            delayed(clone(member).fit)(features, labels) for member in self.members
        )
        self.classes_ = self.members_[0].classes_
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        return self.combine([member.predict_proba(features) for member in self.members_])

    def combine(self, member_probabilities: list[np.ndarray]) -> np.ndarray:
        """The ensemble's probabilities from its members' (in member order) on the same rows."""
        log_mean = sum(
            weight * np.log(np.clip(probabilities, 1e-9, 1.0))
            for probabilities, weight in zip(member_probabilities, self.weights, strict=True)
        ) / sum(self.weights)
        probabilities = np.exp(log_mean - log_mean.max(axis=1, keepdims=True))
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.classes_[self.predict_proba(features).argmax(axis=1)]


class TerrainCrownEstimator(ClassifierMixin, BaseEstimator):
    """Terrain and crown count from two models, joined under the box's crown limits.

    The crown model learns "how many crown icons" from every land terrain at once (a 2-crown mine and
    a 2-crown swamp show the same icons), which a joint 18-class model has to learn per terrain.
    """

    def __init__(self, terrain_model, crown_model) -> None:
        self.terrain_model = terrain_model
        self.crown_model = crown_model

    def fit(self, features: np.ndarray, labels: np.ndarray) -> TerrainCrownEstimator:
        terrains, crowns = LABEL_TERRAIN[labels], LABEL_CROWNS[labels]
        land = IS_LAND[terrains]
        self.terrain_model_ = clone(self.terrain_model).fit(features, terrains)
        self.crown_model_ = clone(self.crown_model).fit(features[land], crowns[land])
        self.classes_ = np.arange(len(LABELS))
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        terrain = np.zeros((len(features), len(TERRAINS)))
        terrain[:, self.terrain_model_.classes_] = self.terrain_model_.predict_proba(features)
        crowns = np.zeros((len(features), MAX_CROWN_DIGIT + 1))
        crowns[:, self.crown_model_.classes_] = self.crown_model_.predict_proba(features)
        joint = terrain[:, LABEL_TERRAIN] * np.where(IS_LAND[LABEL_TERRAIN], crowns[:, LABEL_CROWNS], 1.0)
        return joint / np.maximum(joint.sum(axis=1, keepdims=True), 1e-12)

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.classes_[self.predict_proba(features).argmax(axis=1)]


class CrownExpert(ClassifierMixin, BaseEstimator):
    """A joint model times a crown-count model that sees only crown features (a product of experts).

    The crown model learns "how many crown icons" from the crown blocks and gradient histograms of every
    square (castles and empty squares count as 0), so it cannot read the count off a terrain's artwork,
    which the joint model does (a 1-crown and a 2-crown mine differ in more than their crowns). The joint
    model does not see the crown-template block. p(label) ∝ p_joint(label) · p_crowns(crowns of label)^weight.
    """

    def __init__(
        self,
        joint,
        crown_model,
        crown_blocks: tuple[str, ...] = ("hog", "crown", "crown_map", "crown_tmpl", CROWN_DETECTOR),
        crown_only_blocks: tuple[str, ...] = ("crown_tmpl",),
        weight: float = 0.5,
    ) -> None:
        self.joint = joint
        self.crown_model = crown_model
        self.crown_blocks = crown_blocks
        self.crown_only_blocks = crown_only_blocks
        self.weight = weight

    def fit(self, features: np.ndarray, labels: np.ndarray) -> CrownExpert:
        """Fit on features of the default FeatureConfig, then the crown detector's and the codebook's."""
        crown_only = block_columns(self.crown_only_blocks)
        self.joint_columns_ = np.setdiff1d(np.arange(features.shape[1]), crown_only)
        self.crown_columns_ = block_columns(self.crown_blocks)
        self.joint_ = clone(self.joint).fit(features[:, self.joint_columns_], labels)
        self.crown_model_ = clone(self.crown_model).fit(
            features[:, self.crown_columns_], LABEL_CROWNS[labels]
        )
        self.classes_ = self.joint_.classes_
        return self

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        return self.combine(
            self.joint_.predict_proba(features[:, self.joint_columns_]),
            self.crown_model_.predict_proba(features[:, self.crown_columns_]),
        )

    def combine(self, joint_probabilities: np.ndarray, crown_probabilities: np.ndarray) -> np.ndarray:
        """The joint labels' probabilities from the joint model's and the crown model's on the same rows."""
        joint = np.log(np.clip(joint_probabilities, 1e-9, 1.0))
        crowns = np.full((len(joint), MAX_CROWN_DIGIT + 1), 1e-9)
        crowns[:, self.crown_model_.classes_] = crown_probabilities
        log_p = joint + self.weight * np.log(np.clip(crowns, 1e-9, 1.0))[:, LABEL_CROWNS[self.classes_]]
        probabilities = np.exp(log_p - log_p.max(axis=1, keepdims=True))
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def predict(self, features: np.ndarray) -> np.ndarray:
        return self.classes_[self.predict_proba(features).argmax(axis=1)]


def block_columns(names: tuple[str, ...], config: FeatureConfig | None = None) -> np.ndarray:
    """Column indices of the named feature blocks (CROWN_DETECTOR: the columns after the fixed blocks)."""
    config = config or FeatureConfig()
    columns, start = [], 0
    for name, width in block_sizes(config):
        if name in names:
            columns.append(np.arange(start, start + width))
        start += width
    if CROWN_DETECTOR in names:
        columns.append(np.arange(feature_size(config), feature_size(config) + CROWN_DETECTOR_FEATURES))
    return np.concatenate(columns)


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


def _without_optimizer(part):
    if isinstance(part, MLPClassifier):
        part.__dict__.pop("_optimizer", None)
    return part


def drop_training_state(estimator) -> None:
    """Delete what only further training needs (the MLPs' Adam moments, half their size) before saving."""
    _replace_fitted(estimator, _without_optimizer)


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
