"""Artwork matching: a square compared with every real square the model was trained on.

Every Kingdomino box prints the same 48 dominoes, so a square in a player's photo shows one of the 96
printed squares that the training photos show too, under other light and from another crop. A classifier
of the whole square has to generalise from a few hundred examples per label; this stage instead looks for
the training square that the new one *is*. It keeps every real training square as a 32×32 thumbnail with
each colour channel divided by its mean (so a colour cast or a darker photo changes little), and scores a
new square against each by normalised cross-correlation of a central window, the new square turned by
each quarter turn and shifted by up to 7 px of 32 in each direction (tile crops are often a fifth of a
square off). The best score per label is the evidence: how closely the square matches a known square of
that label.

The windows are compared on the leading principal components of the training windows; a square still
costs about 25 ms on one core (4 turns × 225 shifts against every training square), so the classifier
asks only about squares it reads unsure (see ``SquareClassifier.matched``): under 1 % of board squares.
Empty squares show whatever table the kingdom lies on, which no training square predicts, so the matcher
has no opinion on *empty* (nor on a label it has no example of).
"""

from __future__ import annotations

import numpy as np

from model.codebook import CODEBOOK_SIDE
from scanner.kingdom import Terrain
from scanner.reading import LABELS

#: Labels the matcher stays neutral on: an empty square shows the table, not printed artwork.
NEUTRAL = np.array([label.terrain == Terrain.EMPTY for label in LABELS])


def _balanced(thumbs: np.ndarray) -> np.ndarray:
    """(n, 32, 32, 3) float32 thumbnails with each colour channel divided by its mean (grey world)."""
    images = thumbs.astype(np.float32)
    return images / (images.mean(axis=(1, 2), keepdims=True) + 1.0)


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Rows with their mean removed, scaled to unit length (what normalised cross-correlation compares)."""
    centred = vectors - vectors.mean(axis=-1, keepdims=True)
    return centred / (np.linalg.norm(centred, axis=-1, keepdims=True) + 1e-6)


class ArtworkMatcher:
    """fit(thumbnails, labels) keeps the training squares; evidence(thumbnails) gives (n, 18) log-evidence.

    ``window`` is the side of the compared window (the square is 32 px), ``stride`` the step between the
    shifts tried, ``components`` the principal components the windows are compared on.
    """

    def __init__(self, window: int = 18, stride: int = 1, components: int = 64) -> None:
        if (CODEBOOK_SIDE - window) % stride:
            raise ValueError("the shifts must be symmetric about the centre, so turns give the same scores")
        self.window = window
        self.stride = stride
        self.components = components

    def _windows(self, images: np.ndarray) -> np.ndarray:
        """(n, positions, window²·3) unit windows of (n, 32, 32, 3) images at every shift."""
        n, side = len(images), self.window
        offsets = range(0, CODEBOOK_SIDE - side + 1, self.stride)
        windows = np.stack(
            [images[:, y : y + side, x : x + side].reshape(n, -1) for y in offsets for x in offsets], axis=1
        )
        return _unit(windows)

    def _centre(self, images: np.ndarray) -> np.ndarray:
        start, end = (CODEBOOK_SIDE - self.window) // 2, (CODEBOOK_SIDE + self.window) // 2
        return _unit(images[:, start:end, start:end].reshape(len(images), -1))

    def _project(self, windows: np.ndarray) -> np.ndarray:
        projected = (windows - self.mean_) @ self.basis_
        return projected / (np.linalg.norm(projected, axis=-1, keepdims=True) + 1e-6)

    def fit(self, thumbs: np.ndarray, labels: np.ndarray) -> ArtworkMatcher:
        """Keep the squares of ``thumbs`` ((n, 32, 32, 3) uint8) whose label is not neutral."""
        labels = np.asarray(labels)
        keep = ~NEUTRAL[labels]
        order = np.argsort(labels[keep], kind="stable")
        centres = self._centre(_balanced(thumbs[keep][order]))
        self.mean_ = centres.mean(axis=0)
        _, _, components = np.linalg.svd(centres - self.mean_, full_matrices=False)
        self.basis_ = np.ascontiguousarray(components[: self.components].T, dtype=np.float32)
        self.gallery_ = np.ascontiguousarray(self._project(centres).T, dtype=np.float32)
        sorted_labels = labels[keep][order]
        self.labels_, self.starts_ = np.unique(sorted_labels, return_index=True)
        return self

    def similarities(self, thumbs: np.ndarray) -> np.ndarray:
        """(n, 18): each label's best match over its training squares, turns and shifts (-1: no example)."""
        out = np.full((len(thumbs), len(LABELS)), -1.0, dtype=np.float32)
        if len(thumbs) == 0:
            return out
        images = _balanced(thumbs)
        turns = np.concatenate(
            [self._windows(np.ascontiguousarray(np.rot90(images, k, axes=(1, 2)))) for k in range(4)], axis=1
        )
        n, positions, size = turns.shape
        scores = (self._project(turns.reshape(-1, size)) @ self.gallery_).reshape(n, positions, -1)
        best = scores.max(axis=1)
        out[:, self.labels_] = np.maximum.reduceat(best, self.starts_, axis=1)
        return out

    def evidence(self, thumbs: np.ndarray) -> np.ndarray:
        """(n, 18) each label's best match minus the best of all labels (≤ 0); 0 where neutral or unseen."""
        similarities = self.similarities(thumbs)
        seen = np.zeros(len(LABELS), dtype=bool)
        seen[self.labels_] = True
        opinion = seen & ~NEUTRAL
        out = np.zeros_like(similarities)
        if len(thumbs):
            out[:, opinion] = similarities[:, opinion] - similarities[:, opinion].max(axis=1, keepdims=True)
        return out
