"""Arithmetic on fitted scikit-learn MLPs that their API does not offer."""

from __future__ import annotations

import numpy as np
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler


def first_layer_with_scaler(scaler: StandardScaler, mlp: MLPClassifier) -> tuple[np.ndarray, np.ndarray]:
    """(weights, bias) of the MLP's first layer applied to unscaled input, in the layer's dtype:
    w·(x - mean)/scale + b = (w/scale)·x + b - w·mean/scale."""
    weights = mlp.coefs_[0]
    inverse_scale = (1.0 / scaler.scale_)[:, None]
    bias = mlp.intercepts_[0] - (scaler.mean_[:, None] * inverse_scale * weights).sum(axis=0)
    return (weights * inverse_scale).astype(weights.dtype), bias.astype(weights.dtype)
