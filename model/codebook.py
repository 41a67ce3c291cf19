"""A learned codebook of small colour patches (k-means on whitened patches, as in Coates & Ng 2011).

Hand-made features describe a square by colour histograms, texture and gradient statistics; the printed
artwork (a mine's rocks, a swamp's reeds, a crown icon) is better told apart by the small patterns it is
made of. The codebook learns those patterns from the training crops: 6×6 patches of the 32×32 crop (every
2nd pixel), brightness- and contrast-normalised and whitened, clustered by k-means. A crop is then
described by how strongly each codeword fires ("triangle" activation) in each quarter of the square.

The codebook holds every codeword in its 4 quarter turns, and the whitening is fitted on patches in all
4 turns, so turning the crop only permutes the features: the classifier's quarter-turn averaging stays
free (see ``permutation``). It is fitted on the training rows only, so grouped cross-validation fits one
codebook per fold.
"""

from __future__ import annotations

import cv2
import numpy as np
from sklearn.cluster import MiniBatchKMeans

from model.features import block_means

CODEBOOK_SIDE = 32  # crops are described at 32×32 (2×2 block means of the 64×64 feature crop)
SAMPLE_CROPS = 4000
SAMPLE_PATCHES = 75_000  # per quarter turn
NORMALISE_EPS = 0.01  # variance added before the contrast normalisation (pixels in 0-1)
WHITEN_EPS = 0.1  # eigenvalue added before whitening


def thumbnails(crops: np.ndarray) -> np.ndarray:
    """(n, 32, 32, 3) uint8 area-downscaled copies of (n, S, S, 3) crops."""
    return block_means(crops, CODEBOOK_SIDE)


def _patches(thumbs: np.ndarray, patch: int, stride: int) -> np.ndarray:
    """(n, g, g, patch²·3) float32 patches every ``stride`` pixels, contrast-normalised."""
    images = thumbs.astype(np.float32) / 255.0
    windows = np.lib.stride_tricks.sliding_window_view(images, (patch, patch), axis=(1, 2))
    windows = windows[:, ::stride, ::stride]
    n, grid = windows.shape[0], windows.shape[1]
    width = patch * patch * 3
    flat = windows.transpose(0, 1, 2, 4, 5, 3).reshape(-1, width)  # a copy: changed in place below
    flat -= flat @ np.full((width, 1), 1.0 / width, dtype=np.float32)  # means as a product: faster than .mean
    flat /= np.sqrt(np.einsum("ij,ij->i", flat, flat)[:, None] / width + NORMALISE_EPS)
    return flat.reshape(n, grid, grid, width)


def _patch_turn(patch: int, turns: int) -> np.ndarray:
    """Index order that turns a flattened (patch, patch, 3) patch by quarter turns (as np.rot90)."""
    index = np.arange(patch * patch * 3).reshape(patch, patch, 3)
    return np.rot90(index, turns, axes=(0, 1)).ravel()


def _quarter_means(grid: int) -> np.ndarray:
    """(4, grid²): each row averages the patch positions of one quarter of the square (row-major quarters)."""
    half = grid // 2
    quarter = (np.arange(grid)[:, None] // half) * 2 + np.arange(grid)[None] // half
    return (np.arange(4)[:, None] == quarter.ravel()[None]).astype(np.float32) / (half * half)


class PatchCodebook:
    """fit(thumbnails) learns the codebook; transform(thumbnails) gives (n, 4 quarters × 4 turns × words)."""

    def __init__(self, words: int = 64, patch: int = 6, stride: int = 2, seed: int = 0) -> None:
        grid = (CODEBOOK_SIDE - patch) // stride + 1
        if (CODEBOOK_SIDE - patch) % stride or grid % 2:
            raise ValueError("patch positions must be symmetric and split into exact quarters")
        self.words = words
        self.patch = patch
        self.stride = stride
        self.seed = seed

    @property
    def n_features(self) -> int:
        return 4 * 4 * self.words

    def fit(self, thumbs: np.ndarray) -> PatchCodebook:
        rng = np.random.default_rng(self.seed)
        chosen = rng.choice(len(thumbs), min(len(thumbs), SAMPLE_CROPS), replace=False)
        patches = _patches(thumbs[np.sort(chosen)], self.patch, self.stride)
        patches = patches.reshape(-1, patches.shape[-1])
        patches = patches[rng.choice(len(patches), min(len(patches), SAMPLE_PATCHES), replace=False)]
        patches = np.vstack([patches[:, _patch_turn(self.patch, turns)] for turns in range(4)])
        mean = patches.mean(axis=0)
        eigenvalues, eigenvectors = np.linalg.eigh(np.cov(patches - mean, rowvar=False))
        whitening = eigenvectors @ np.diag(1.0 / np.sqrt(eigenvalues + WHITEN_EPS)) @ eigenvectors.T
        whitened = (patches - mean) @ whitening
        kmeans = MiniBatchKMeans(self.words, random_state=self.seed, batch_size=4096, n_init=3)
        centres = kmeans.fit(whitened).cluster_centers_
        # whitening commutes with the patch turns (fitted on all 4), so turned centres are codewords too
        dictionary = np.vstack([centres[:, _patch_turn(self.patch, turns)] for turns in range(4)])
        self.mean_ = mean.astype(np.float32)
        self.whitening_ = whitening.astype(np.float32)
        self.dictionary_ = dictionary.astype(np.float32)
        self.dictionary_norms_ = (self.dictionary_**2).sum(axis=1)
        return self

    def transform(self, thumbs: np.ndarray, batch: int = 3) -> np.ndarray:
        """Batches of 3 squares keep their (patches × codewords) distances, about 0.8 MB, in the core's
        cache through the passes over them (a board's 25 at once is slower)."""
        out = np.empty((len(thumbs), self.n_features), dtype=np.float32)
        # squared distances |w|² - 2 w·d + |d|² as one product: [w, |w|², 1] · [-2 dᵀ; 1; |d|²]
        words = len(self.dictionary_)
        right = np.vstack(
            [-2.0 * self.dictionary_.T, np.ones((1, words)), self.dictionary_norms_[None]]
        ).astype(np.float32)
        word_mean = np.full((words, 1), 1.0 / words, dtype=np.float32)
        quarter_means = _quarter_means((CODEBOOK_SIDE - self.patch) // self.stride + 1)
        width = len(self.mean_)
        for start in range(0, len(thumbs), batch):
            patches = _patches(thumbs[start : start + batch], self.patch, self.stride)
            n, grid = patches.shape[:2]
            left = np.empty((n * grid * grid, width + 2), dtype=np.float32)
            whitened = left[:, :width]
            np.matmul(patches.reshape(-1, width) - self.mean_, self.whitening_, out=whitened)
            left[:, width] = np.einsum("ij,ij->i", whitened, whitened)
            left[:, width + 1] = 1.0
            distances = left @ right  # in place from here: this is the hot loop
            # OpenCV's max and sqrt: the same numbers as NumPy's at half the time (no NaN handling to do)
            cv2.sqrt(cv2.max(distances, 0.0, dst=distances), dst=distances)
            activation = np.subtract(distances @ word_mean, distances, out=distances)
            cv2.max(activation, 0.0, dst=activation)
            pooled = quarter_means @ activation.reshape(n, grid * grid, words)
            out[start : start + n] = pooled.reshape(n, -1)
        return out

    def permutation(self, quarter_turns: int) -> np.ndarray:
        """Columns such that transform(turned crops) == transform(crops)[:, permutation].

        Turning the crop moves each quarter to the next one and each codeword to its turned copy.
        """
        index = np.arange(self.n_features).reshape(2, 2, 4, self.words)
        for _ in range(quarter_turns % 4):
            index = np.roll(np.rot90(index, 1, axes=(0, 1)), 1, axis=2)
        return index.ravel()
