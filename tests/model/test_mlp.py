"""The in-place MLP trains the very weights scikit-learn's MLPClassifier trains, only faster."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from sklearn.neural_network import MLPClassifier

from model.mlp import ADAM_CHUNK, InPlaceAdam, InPlaceMLPClassifier
from model.weights import drop_training_state


def _data(dtype) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    features = rng.standard_normal((600, 300)).astype(dtype)
    return features, rng.integers(0, 5, 600)


def _fitted(estimator_class, features, labels, **params):
    estimator = estimator_class(random_state=0, max_iter=3, batch_size=64, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 3 epochs on noise do not converge
        return estimator.fit(features, labels)


def _same_weights(one, other) -> bool:
    pairs = zip(one.coefs_ + one.intercepts_, other.coefs_ + other.intercepts_, strict=True)
    return all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in pairs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("hidden", [(64,), (80, 16)])
def test_fits_the_same_weights_bit_for_bit(dtype, hidden):
    features, labels = _data(dtype)
    assert features.shape[1] * hidden[0] > ADAM_CHUNK  # the first layer spans several pieces
    stock = _fitted(MLPClassifier, features, labels, hidden_layer_sizes=hidden, alpha=1e-2)
    in_place = _fitted(InPlaceMLPClassifier, features, labels, hidden_layer_sizes=hidden, alpha=1e-2)
    assert isinstance(in_place._optimizer, InPlaceAdam)
    assert _same_weights(stock, in_place)
    assert in_place.loss_curve_ == stock.loss_curve_
    np.testing.assert_array_equal(in_place.predict_proba(features), stock.predict_proba(features))


def test_partial_fit_keeps_its_optimizer_state():
    features, labels = _data(np.float32)
    stock, in_place = MLPClassifier(random_state=0), InPlaceMLPClassifier(random_state=0)
    for estimator in (stock, in_place):
        for _ in range(3):
            estimator.partial_fit(features, labels, classes=np.arange(5))
    assert in_place._optimizer.t == stock._optimizer.t
    assert _same_weights(stock, in_place)


def test_other_solvers_are_left_alone():
    features, labels = _data(np.float32)
    in_place = _fitted(InPlaceMLPClassifier, features, labels, solver="sgd")
    assert not isinstance(in_place._optimizer, InPlaceAdam)
    assert _same_weights(_fitted(MLPClassifier, features, labels, solver="sgd"), in_place)


def test_pickles_with_and_without_its_optimizer():
    features, labels = _data(np.float32)
    in_place = _fitted(InPlaceMLPClassifier, features, labels)
    restored = pickle.loads(pickle.dumps(in_place))
    assert isinstance(restored._optimizer, InPlaceAdam)
    drop_training_state(restored)  # as training does before the model is saved
    assert not hasattr(restored, "_optimizer")
    again = pickle.loads(pickle.dumps(restored))
    np.testing.assert_array_equal(again.predict_proba(features), in_place.predict_proba(features))


def test_column_major_features_give_the_same_weights():
    features, labels = _data(np.float32)
    columns = np.arange(0, 300, 2)  # selecting columns gives a column-major array
    selected = features[:, columns]
    assert selected.flags.f_contiguous and not selected.flags.c_contiguous
    stock = _fitted(MLPClassifier, selected, labels)
    assert _same_weights(stock, _fitted(InPlaceMLPClassifier, selected, labels))
