"""SquareClassifier: joint terrain + crown probabilities for square crops, from the packaged model file.

The model file is a joblib dict of plain Python values (scikit-learn version, labels, feature
configuration, temperature) plus the estimator, the patch codebook and the crown detector as pickled bytes.
The version is checked *before* the estimator is unpickled, so a file from another scikit-learn version
gives a one-line ModelLoadError instead of a crash deep inside scikit-learn.
"""

from __future__ import annotations

import copy
import pickle
import warnings
from collections.abc import Sequence
from pathlib import Path

import joblib
import numpy as np
import sklearn
from scipy.special import logsumexp

from kingdomino.board import Square, Terrain
from kingdomino.labels import LABELS, SquareReading
from model.codebook import PatchCodebook, thumbnails
from model.crowns import N_FEATURES as CROWN_DETECTOR_FEATURES
from model.crowns import CrownDetector, cell_maps
from model.errors import ModelLoadError
from model.features import (
    CropViews,
    FeatureConfig,
    extract_features,
    normalise_crops,
    photo_white_point,
    rotation_permutation,
    turned,
)
from model.matching import ArtworkMatcher
from model.turns import TurnedReader
from model.weights import compact, widen

MODEL_FORMAT = "kingdomino-square-classifier/1"
#: A square read with a top probability (before calibration) under RECHECK_BELOW is read again turned by
#: ±RECHECK_DEGREES and the three log-probabilities are averaged, so that one reading of a crown on the
#: crop's edge or of a crop slightly askew counts less; re-reading only the unsure ones keeps the cost
#: of sure squares (docs/experiments.md, "Re-reading unsure squares turned by ±5°").
RECHECK_BELOW = 0.99
RECHECK_DEGREES = 5.0
#: A square still read with a top probability under MATCH_BELOW is compared with every real training
#: square (model/matching.py) and its log-probabilities get MATCH_WEIGHT × the matcher's evidence. Grouped
#: CV chose both; sure squares skip the costly comparison (docs/experiments.md, "The artwork matcher").
MATCH_BELOW = 0.999
MATCH_WEIGHT = 50.0
DEFAULT_MODEL_PATH = Path(__file__).resolve().parent / "square_classifier.joblib"


def _label_keys() -> list[list]:
    return [[label.terrain.value, label.crowns] for label in LABELS]


def check_crops(images: Sequence[np.ndarray]) -> None:
    """Reject what is not an image crop with a clear message (ValueError)."""
    for index, image in enumerate(images):
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            raise ValueError(f"square {index} is not a non-empty image array")
        if image.dtype != np.uint8:
            raise ValueError(f"square {index} is {image.dtype}, expected 8-bit (uint8) pixels")
        if image.ndim == 3 and image.shape[2] not in (1, 3, 4):
            raise ValueError(f"square {index} has {image.shape[2]} channels (expected 1, 3 or 4)")


class SquareClassifier:
    """Reads square crops (BGR uint8, any size, any quarter turn) as one of the 18 joint labels."""

    def __init__(
        self,
        estimator,
        feature_config: FeatureConfig,
        temperature: float = 1.0,
        metadata: dict | None = None,
        codebook: PatchCodebook | None = None,
        crown_detector: CrownDetector | None = None,
        matcher: ArtworkMatcher | None = None,
    ) -> None:
        self.estimator = estimator
        self.feature_config = feature_config
        self.temperature = float(temperature)
        self.metadata = dict(metadata or {})
        self.codebook = codebook
        self.crown_detector = crown_detector
        self.matcher = matcher
        self._permutations = [
            feature_permutation(feature_config, codebook, crown_detector, turns) for turns in range(4)
        ]
        self._turned = TurnedReader(estimator, self._permutations)
        self._columns = np.asarray(estimator.classes_, dtype=np.int64)

    @property
    def turn_permutations(self) -> list[np.ndarray]:
        """The feature columns of a square turned by 0, 1, 2 and 3 quarter turns (to read a part of the
        estimator the way the classifier reads the whole)."""
        return list(self._permutations)

    @property
    def estimator_labels(self) -> np.ndarray:
        """The joint-label index of each of the estimator's output columns."""
        return self._columns.copy()

    # ---- persistence -------------------------------------------------------------------------------
    def save(self, path: str | Path = DEFAULT_MODEL_PATH) -> Path:
        path = Path(path)
        payload = {
            "format": MODEL_FORMAT,
            "sklearn_version": sklearn.__version__,
            "labels": _label_keys(),
            "feature_config": self.feature_config.to_dict(),
            "temperature": self.temperature,
            "metadata": self.metadata,
            "estimator_pickle": pickle.dumps(
                compact(copy.deepcopy(self.estimator)), protocol=pickle.HIGHEST_PROTOCOL
            ),
            "codebook_pickle": pickle.dumps(self.codebook, protocol=pickle.HIGHEST_PROTOCOL),
            "crown_detector_pickle": pickle.dumps(
                _compact_detector(self.crown_detector), protocol=pickle.HIGHEST_PROTOCOL
            ),
            "matcher_pickle": pickle.dumps(self.matcher, protocol=pickle.HIGHEST_PROTOCOL),
        }
        joblib.dump(payload, path, compress=3)
        return path

    @classmethod
    def load(cls, path: str | Path | None = None) -> SquareClassifier:
        """Load the packaged model (or ``path``); ModelLoadError says why if it cannot be used."""
        path = Path(path) if path is not None else DEFAULT_MODEL_PATH
        if not path.is_file():
            raise ModelLoadError(
                f"model file not found: {path} (a clone creates it with 'python -m model.training')"
            )
        try:
            payload = joblib.load(path)
        except Exception as error:  # any unpickling failure means the file is unusable
            raise ModelLoadError(
                f"model file {path} is damaged or not a model ({type(error).__name__})"
            ) from error
        if not isinstance(payload, dict) or payload.get("format") != MODEL_FORMAT:
            raise ModelLoadError(f"model file {path} is not a kingdomino square classifier")
        saved_version = payload.get("sklearn_version")
        if saved_version != sklearn.__version__:
            raise ModelLoadError(
                f"model file {path} was trained with scikit-learn {saved_version}, but {sklearn.__version__} "
                f"is installed: install scikit-learn=={saved_version} or retrain in a clone "
                "('python -m model.training')"
            )
        if payload.get("labels") != _label_keys():
            raise ModelLoadError(
                f"model file {path} was trained for other labels: retrain it ('python -m model.training')"
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", category=sklearn.exceptions.InconsistentVersionWarning)
                estimator = widen(pickle.loads(payload["estimator_pickle"]))
                codebook = pickle.loads(payload.get("codebook_pickle", pickle.dumps(None)))
                detector = _widen_detector(
                    pickle.loads(payload.get("crown_detector_pickle", pickle.dumps(None)))
                )
                matcher = pickle.loads(payload.get("matcher_pickle", pickle.dumps(None)))
            config = FeatureConfig.from_dict(payload["feature_config"])
        except Exception as error:
            raise ModelLoadError(f"model file {path} is damaged ({type(error).__name__}: {error})") from error
        return cls(
            estimator,
            config,
            payload.get("temperature", 1.0),
            payload.get("metadata"),
            codebook,
            detector,
            matcher,
        )

    # ---- prediction --------------------------------------------------------------------------------
    def features(self, crops: np.ndarray, white_points: np.ndarray | None = None) -> np.ndarray:
        """(n, d) features of normalised crops: the fixed blocks, the crown detector's, the codebook's.
        ``white_points``: (n, 3) of each crop's photo (see features.photo_white_point); by default each
        crop is its own photo."""
        # the fixed blocks and the cell maps share gradients and white balance
        views = CropViews(crops, white_points)
        return with_learned(
            extract_features(views, self.feature_config),
            thumbnails(crops) if self.codebook is not None else None,
            cell_maps(views) if self.crown_detector is not None else None,
            self.codebook,
            self.crown_detector,
        )

    def log_proba_features(self, features: np.ndarray) -> np.ndarray:
        """(n, classes) normalised log-probabilities before calibration, averaged over the 4 quarter turns."""
        raw = self._turned.read(features)
        log_mean = np.log(np.clip(raw, 1e-9, 1.0)).mean(axis=0)
        return log_mean - logsumexp(log_mean, axis=1, keepdims=True)

    def recheck(
        self, crops: np.ndarray, log_proba: np.ndarray, white_points: np.ndarray | None = None
    ) -> np.ndarray:
        """``log_proba`` of normalised ``crops``, the unsure squares re-read turned by ±RECHECK_DEGREES."""
        unsure = np.flatnonzero(log_proba.max(axis=1) < np.log(RECHECK_BELOW))
        if unsure.size == 0:
            return log_proba
        both_ways = np.concatenate(
            [turned(crops[unsure], degrees) for degrees in (RECHECK_DEGREES, -RECHECK_DEGREES)]
        )
        if white_points is None:  # each crop its own photo: its own white, before turning
            white_points = CropViews(crops[unsure]).white_points
        else:
            white_points = np.asarray(white_points)[unsure]
        # one batch: the fixed costs once
        again = self.log_proba_features(
            self.features(both_ways, np.concatenate([white_points, white_points]))
        )
        out = log_proba.copy()
        out[unsure] = np.mean([log_proba[unsure], again[: unsure.size], again[unsure.size :]], axis=0)
        return out

    def matched(self, crops: np.ndarray, log_proba: np.ndarray) -> np.ndarray:
        """``log_proba`` of normalised ``crops``, the unsure squares weighed by the artwork matcher too."""
        unsure = np.flatnonzero(log_proba.max(axis=1) < np.log(MATCH_BELOW))
        if self.matcher is None or unsure.size == 0:
            return log_proba
        weighed = (
            log_proba[unsure]
            + MATCH_WEIGHT * self.matcher.evidence(thumbnails(crops[unsure]))[:, self._columns]
        )
        out = log_proba.copy()
        out[unsure] = weighed - logsumexp(weighed, axis=1, keepdims=True)
        return out

    def calibrated(self, log_proba: np.ndarray) -> np.ndarray:
        """(n, 18) probabilities over kingdomino.labels.LABELS from ``log_proba_features`` output."""
        scaled = log_proba / self.temperature
        probabilities = np.exp(scaled - scaled.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        out = np.zeros((len(log_proba), len(LABELS)))
        out[:, self._columns] = probabilities
        return out

    def predict_proba_features(
        self,
        features: np.ndarray,
        crops: np.ndarray | None = None,
        match: bool = True,
        white_points: np.ndarray | None = None,
    ) -> np.ndarray:
        """(n, 18) probabilities from (n, d) features of unturned crops; given those (normalised) crops
        (and the white points their features were computed with), the unsure squares are re-read turned
        (see ``recheck``), then, with ``match``, compared with the training squares (see ``matched``)."""
        log_proba = self.log_proba_features(features)
        if crops is not None:
            log_proba = self.recheck(crops, log_proba, white_points)
            if match:
                log_proba = self.matched(crops, log_proba)
        return self.calibrated(log_proba)

    def predict_proba(
        self, images: Sequence[np.ndarray], photo: bool = False, context: Sequence[np.ndarray] = ()
    ) -> np.ndarray:
        """(n, 18) probabilities over kingdomino.labels.LABELS, rows summing to 1. ``photo``: the images are
        the squares of one photo (a kingdom), lit alike; otherwise each is read as a photo of its own.
        ``context``: more squares of that photo, not read, that light it as much as the images do (a few
        squares read again see the photo's white as the whole kingdom did)."""
        images = list(images)
        if not images:
            return np.zeros((0, len(LABELS)))
        check_crops(images)
        crops = normalise_crops(images)
        white_points = None
        if photo:
            context = list(context)
            check_crops(context)
            seen = np.concatenate([crops, normalise_crops(context)]) if context else crops
            white_points = np.tile(photo_white_point(seen), (len(crops), 1))
        return self.predict_proba_features(
            self.features(crops, white_points), crops, white_points=white_points
        )

    def classify(self, images: Sequence[np.ndarray], photo: bool = False) -> list[SquareReading]:
        return readings_from_proba(self.predict_proba(images, photo))


def _compact_detector(detector: CrownDetector | None) -> CrownDetector | None:
    """A copy of the crown detector as saved: its verifier without training state, in float16."""
    if detector is None or getattr(detector, "verifier_", None) is None:
        return detector
    detector = copy.deepcopy(detector)
    detector.verifier_ = compact(detector.verifier_)
    return detector


def _widen_detector(detector: CrownDetector | None) -> CrownDetector | None:
    if detector is not None and getattr(detector, "verifier_", None) is not None:
        detector.verifier_ = widen(detector.verifier_)
    return detector


def with_learned(
    features: np.ndarray,
    thumbs: np.ndarray | None,
    crown_maps: np.ndarray | None,
    codebook: PatchCodebook | None,
    crown_detector: CrownDetector | None,
) -> np.ndarray:
    """The fixed feature blocks, then the crown detector's and the codebook's features of the same crops
    (each if the classifier has it)."""
    parts = [features]
    if crown_detector is not None:
        parts.append(crown_detector.transform(np.asarray(crown_maps, dtype=np.float32)))
    if codebook is not None:
        parts.append(codebook.transform(thumbs))
    return np.hstack(parts) if len(parts) > 1 else features


def feature_permutation(
    config: FeatureConfig, codebook: PatchCodebook | None, crown_detector: CrownDetector | None, turns: int
) -> np.ndarray:
    """Columns that turn the features (fixed blocks, crown detector, codebook) of a crop by ``turns``
    quarter turns. The crown detector's features do not change."""
    parts = [rotation_permutation(config, turns)]
    start = len(parts[0])
    if crown_detector is not None:
        parts.append(np.arange(start, start + CROWN_DETECTOR_FEATURES))
        start += CROWN_DETECTOR_FEATURES
    if codebook is not None:
        parts.append(start + codebook.permutation(turns))
    return np.concatenate(parts)


def readings_from_proba(probabilities: np.ndarray) -> list[SquareReading]:
    """The most likely label of each row, with its probability as confidence."""
    readings = []
    for row in np.asarray(probabilities):
        best = int(np.argmax(row))
        label: Square = LABELS[best]
        readings.append(SquareReading(Terrain(label.terrain), label.crowns, float(row[best])))
    return readings
