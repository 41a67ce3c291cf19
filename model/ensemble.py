"""The estimators the shipped classifier is made of: a geometric ensemble of MLPs and a crown-count expert.

Runtime classes (the model file pickles them); which combination ships is chosen in
``model.training.estimators``.
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from kingdomino.board import MAX_CROWN_DIGIT
from kingdomino.labels import LABELS
from model.crowns import N_FEATURES as CROWN_DETECTOR_FEATURES
from model.features import FeatureConfig, block_sizes, feature_size
from model.label_columns import IS_LAND, LABEL_CROWNS, LABEL_TERRAIN, TERRAINS

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

    feature_config: dict | None = None  # what experts pickled before the parameter existed read as theirs

    def __init__(
        self,
        joint,
        crown_model,
        crown_blocks: tuple[str, ...] = ("hog", "crown", "crown_map", "crown_tmpl", CROWN_DETECTOR),
        crown_only_blocks: tuple[str, ...] = ("crown_tmpl",),
        weight: float = 0.5,
        feature_config: dict | None = None,
    ) -> None:
        self.joint = joint
        self.crown_model = crown_model
        self.crown_blocks = crown_blocks
        self.crown_only_blocks = crown_only_blocks
        self.weight = weight
        self.feature_config = feature_config

    def fit(self, features: np.ndarray, labels: np.ndarray) -> CrownExpert:
        """Fit on features of ``feature_config`` (a FeatureConfig's dict; None: the default one), then the
        crown detector's and the codebook's."""
        config = None if self.feature_config is None else FeatureConfig.from_dict(self.feature_config)
        crown_only = block_columns(self.crown_only_blocks, config)
        self.joint_columns_ = np.setdiff1d(np.arange(features.shape[1]), crown_only)
        self.crown_columns_ = block_columns(self.crown_blocks, config)
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
