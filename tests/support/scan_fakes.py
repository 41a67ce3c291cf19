"""A stand-in square classifier for scanner tests that must not depend on the trained model."""

from __future__ import annotations

import numpy as np

from kingdomino.board import Square, Terrain
from kingdomino.labels import LABEL_INDEX, LABELS


class ColourClassifier:
    """Calls a square lake when it is mostly blue, wheat when yellow, grassland otherwise (always sure)."""

    def predict_proba(self, images, photo: bool = False, context=()) -> np.ndarray:
        out = np.full((len(images), len(LABELS)), 1e-4)
        for row, image in enumerate(images):
            b, g, r = image.reshape(-1, 3).mean(0)
            if b > g and b > r:
                label = Square(Terrain.LAKE, 0)
            elif r > b + 30 and g > b + 30:
                label = Square(Terrain.WHEAT, 0)
            else:
                label = Square(Terrain.GRASSLAND, 0)
            out[row, LABEL_INDEX[label]] = 1.0
        return out / out.sum(axis=1, keepdims=True)


class UnsureColourClassifier(ColourClassifier):
    """The same readings, but only 60 % sure of each (as on a camera and light the model never saw)."""

    def predict_proba(self, images, photo: bool = False, context=()) -> np.ndarray:
        sure = super().predict_proba(images, photo, context)
        return 0.6 * sure + 0.4 / len(LABELS)
