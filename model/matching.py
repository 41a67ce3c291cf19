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
costs 4 turns × 225 shifts against every training square, so the classifier asks only about squares it
reads unsure (see ``SquareClassifier.matched``).
Empty squares show whatever table the kingdom lies on, which no training square predicts, so the matcher
has no opinion on *empty* (nor on a label it has no example of).
"""

from __future__ import annotations

import numpy as np

from kingdomino.board import Terrain
from kingdomino.labels import LABELS
from model.codebook import CODEBOOK_SIDE

#: Labels the matcher stays neutral on: an empty square shows the table, not printed artwork.
NEUTRAL = np.array([label.terrain == Terrain.EMPTY for label in LABELS])


def _balanced(thumbs: np.ndarray) -> np.ndarray:
    """(n, 32, 32, 3) float32 thumbnails with each colour channel divided by its mean (grey world)."""
    images = thumbs.astype(np.float32)
    return images / (images.mean(axis=(1, 2), keepdims=True) + 1.0)


def _unit_length(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length: the training squares and a new square's windows must be scaled alike."""
    return vectors / (np.linalg.norm(vectors, axis=-1, keepdims=True) + 1e-6)


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Rows with their mean removed, scaled to unit length (what normalised cross-correlation compares)."""
    return _unit_length(vectors - vectors.mean(axis=-1, keepdims=True))


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
        side = self.window
        view = np.lib.stride_tricks.sliding_window_view(images, (side, side), axis=(1, 2))
        view = view[:, :: self.stride, :: self.stride]  # (n, y, x, channel, row, column)
        windows = view.transpose(0, 1, 2, 4, 5, 3).reshape(len(images), -1, side * side * 3)
        return _unit(windows)

    def _centre(self, images: np.ndarray) -> np.ndarray:
        start, end = (CODEBOOK_SIDE - self.window) // 2, (CODEBOOK_SIDE + self.window) // 2
        return _unit(images[:, start:end, start:end].reshape(len(images), -1))

    def _project(self, windows: np.ndarray) -> np.ndarray:
        return _unit_length((windows - self.mean_) @ self.basis_)

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

    def _turned_basis(self) -> np.ndarray:
        """(window²·3, 4·components): the basis for each quarter turn of a window's content.

        The windows of a turned square are the turned windows of the square (the shifts are symmetric),
        and a turned window's projection is the window's projection on the basis with its rows turned
        back; so each square's windows are cut once and projected on the 4 turned bases.
        """
        index = np.arange(len(self.basis_)).reshape(self.window, self.window, 3)
        turned = [np.argsort(np.rot90(index, turns, axes=(0, 1)).ravel()) for turns in range(4)]
        return np.hstack([self.basis_[rows] for rows in turned])

    def similarities(self, thumbs: np.ndarray, shift: int | None = None) -> np.ndarray:
        """(n, 18): each label's best match over its training squares, turns and shifts (-1: no example).
        ``shift``: try shifts of at most this many pixels (of 32) from the centre only, for squares cut
        from a frame fitted to its seams (a multiple of ``stride``; None: every shift)."""
        out = np.full((len(thumbs), len(LABELS)), -1.0, dtype=np.float32)
        if len(thumbs) == 0:
            return out
        images = _balanced(thumbs)
        if shift is not None and shift < (CODEBOOK_SIDE - self.window) // 2:
            if shift % self.stride:
                raise ValueError("the shift must be a multiple of the stride")
            start = (CODEBOOK_SIDE - self.window) // 2 - shift
            images = images[
                :, start : start + self.window + 2 * shift, start : start + self.window + 2 * shift
            ]
        windows = self._windows(images)
        n, positions, size = windows.shape
        turned = (windows.reshape(-1, size) @ self._turned_basis()).reshape(-1, self.basis_.shape[1])
        projected = _unit_length(turned - self.mean_ @ self.basis_)  # as _project, on the turned bases
        best = np.full((n, self.gallery_.shape[1]), -np.inf, dtype=np.float32)
        for block, windows_block in enumerate(projected.reshape(n * 4, positions, -1)):
            # a quarter of a square's windows at a time: the scores stay in cache for their maximum
            square = best[block // 4]
            np.maximum(square, (windows_block @ self.gallery_).max(axis=0), out=square)
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
