"""A learned crown-icon detector: where the crowns of a square are, and so how many there are.

A classifier that sees a whole square learns "a 2-crown mine" from the artwork as much as from the crowns;
it cannot count icons it has not seen in that place. The detector looks at one small window at a time, so
a crown is a crown wherever it is on the square, and the count is the number of windows it accepts.

- Cell maps: each 64×64 crop becomes a 16×16 grid of 4 px cells with 13 channels (8 gradient-orientation
  bins, block-normalised; white-balanced Lab, whiteness and saturation means).
- A window is 5×5 cells (20 px, one crown icon with its rim) at every cell position; the maps are padded so
  a crown cut by the crop edge still has a window.
- A linear proposer (one filter, averaged over the four quarter turns) picks the best few separate windows
  of a crop; an MLP verifier scores each in its four quarter turns (mean), so a turned crop gives exactly
  the same features.
- Training needs no crown positions: it starts from crown-template peaks on squares where the template
  count matches the label, then alternates (multiple-instance learning) between fitting the verifier and
  taking the k best windows of every k-crown training square as its crowns and the rest as background.
"""

from __future__ import annotations

import time

import cv2
import numpy as np
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from model.features import FINE_CELL, HOG_BINS, SIDE, CropViews, block_means, crop_views
from model.mlp import InPlaceMLPClassifier, first_layer_with_scaler

CELL = FINE_CELL  # 4 px: the crop's cell histograms, shared with the fixed gradient blocks
GRID = SIDE // CELL  # 16 cells a side
BINS = HOG_BINS  # 8 unsigned gradient orientations; a quarter turn shifts them by 4
COLOURS = 5  # L, a, b, whiteness, saturation
CHANNELS = BINS + COLOURS
WINDOW = 5  # cells a side
PAD = 2  # cells of padding, so windows can centre on the crop's edge cells
POSITIONS = GRID + 2 * PAD - WINDOW + 1  # 16 window positions a side
WIDTH = WINDOW * WINDOW * CHANNELS
CANDIDATES = 8  # windows verified per crop
PEAKS = 6  # verified scores kept as features
N_FEATURES = PEAKS + 2

_centres = np.arange(POSITIONS) - PAD + WINDOW / 2  # window centres in cells of the crop
#: Distance of each window centre from the nearest crop edge, as a fraction of the side (turn-symmetric).
EDGE = (
    np.minimum.outer(np.minimum(_centres, GRID - _centres), np.minimum(_centres, GRID - _centres)) / GRID
).astype(np.float32)


def _window_turn(turns: int) -> np.ndarray:
    """Column order giving the descriptor of a window turned by ``turns`` quarter turns (as np.rot90)."""
    index = np.rot90(np.arange(WIDTH).reshape(WINDOW, WINDOW, CHANNELS), turns, axes=(0, 1))
    if turns % 2:
        index = np.concatenate([np.roll(index[..., :BINS], BINS // 2, axis=2), index[..., BINS:]], axis=2)
    return index.ravel()


TURNS = [_window_turn(turns) for turns in range(4)]


def cell_maps(crops: np.ndarray | CropViews) -> np.ndarray:
    """(n, 16, 16, 13) float32 cell maps of (n, 64, 64, 3) uint8 BGR crops (label-free, cacheable)."""
    views = crop_views(crops)
    n = len(views.crops)
    if n == 0:
        return np.zeros((0, GRID, GRID, CHANNELS), np.float32)
    hist = views.cell_histograms
    energy = np.pad((hist**2).sum(axis=3), ((0, 0), (1, 1), (1, 1)))
    block = sum(energy[:, dy : dy + GRID, dx : dx + GRID] for dy in range(3) for dx in range(3))
    hist = np.minimum(hist / np.sqrt(block[..., None] + 1.0), 0.4)
    balanced = views.balanced.reshape(-1, SIDE, 3)
    lab = cv2.cvtColor(balanced, cv2.COLOR_BGR2LAB)
    saturation = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)[..., 1:2]
    whiteness = views.whiteness.reshape(-1, SIDE, 1)
    colour = np.concatenate([lab, whiteness, saturation], axis=2).reshape(n, SIDE, SIDE, COLOURS)
    means = block_means(colour.astype(np.float32), GRID) / np.float32(255.0)
    return np.concatenate([hist.astype(np.float32), means], axis=3)


def _padded(maps: np.ndarray) -> np.ndarray:
    return np.pad(maps, ((0, 0), (PAD, PAD), (PAD, PAD), (0, 0)))


_OFFSETS = np.arange(WINDOW)


def gather_windows(padded: np.ndarray, rows: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """(m, WIDTH) descriptors of the windows at positions (ys, xs) of crops ``rows`` (padded maps)."""
    yy = ys[:, None, None] + _OFFSETS[None, :, None]
    xx = xs[:, None, None] + _OFFSETS[None, None, :]
    return padded[rows[:, None, None], yy, xx].reshape(len(rows), WIDTH)


def dense_windows(maps: np.ndarray) -> np.ndarray:
    """(n, POSITIONS, POSITIONS, WIDTH) descriptors of every window (training only: large)."""
    view = np.lib.stride_tricks.sliding_window_view(_padded(maps), (WINDOW, WINDOW), axis=(1, 2))
    return np.ascontiguousarray(view.transpose(0, 1, 2, 4, 5, 3)).reshape(
        len(maps), POSITIONS, POSITIONS, WIDTH
    )


def local_peaks(heat: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ys, xs, values), each (n, k): the k highest 3×3 local maxima of each (P, P) map, best first.

    Missing peaks (a map with fewer maxima) get value -inf and position 0.
    """
    n = len(heat)
    padded = np.pad(heat, ((0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    neighbourhood = np.max(
        [padded[:, dy : dy + POSITIONS, dx : dx + POSITIONS] for dy in range(3) for dx in range(3)], axis=0
    )
    masked = np.where(heat >= neighbourhood, heat, -np.inf).reshape(n, -1)
    order = np.argsort(-masked, axis=1, kind="stable")[:, :k]
    values = np.take_along_axis(masked, order, axis=1)
    return order // POSITIONS, order % POSITIONS, values


def _near(n: int, rows: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """(n, POSITIONS, POSITIONS) bool: the windows of each of n crops within 1 cell (either axis) of one of
    the positions (rows, ys, xs): the same crown, so never a background example for it."""
    near = np.zeros((n, POSITIONS, POSITIONS), bool)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            near[rows, np.clip(ys + dy, 0, POSITIONS - 1), np.clip(xs + dx, 0, POSITIONS - 1)] = True
    return near


def _mlp(hidden: int, seed: int):
    """The window verifier: one ReLU layer and a logistic output (``_verify`` runs this forward pass)."""
    return make_pipeline(
        StandardScaler(),
        InPlaceMLPClassifier((hidden,), alpha=1e-3, batch_size=512, max_iter=25, random_state=seed),
    )


def _with_edge(windows: np.ndarray, edge: np.ndarray) -> np.ndarray:
    return np.hstack([windows, edge.reshape(-1, 1)]).astype(np.float32)


class CrownDetector:
    """fit(maps, counts, seeds) learns from crown counts; transform(maps) gives N_FEATURES per crop."""

    def __init__(self, hidden: int = 32, rounds: int = 2, seed: int = 0, verbose: bool = False) -> None:
        self.hidden = hidden
        self.rounds = rounds
        self.seed = seed
        self.verbose = verbose

    # ---- verifier -------------------------------------------------------------------------------
    def _fit_verifier(self, windows: np.ndarray, edge: np.ndarray, positive: np.ndarray) -> None:
        inputs = np.vstack([_with_edge(windows[:, turn], edge) for turn in TURNS])
        self.verifier_ = _mlp(self.hidden, self.seed).fit(inputs, np.tile(positive, 4))

    def _verify(self, windows: np.ndarray, edge: np.ndarray) -> np.ndarray:
        """Probability that each window holds a crown: mean over its four quarter turns.

        The verifier's scaler and first layer are linear, so a turned window's first layer is the window
        times the layer's rows put back in window order: no turned copies of the windows are made (copying
        them was most of the detector's training time). The same as ``predict_proba`` on the turned
        windows, to float rounding.
        """
        mlp = self.verifier_[-1]
        first, bias = first_layer_with_scaler(self.verifier_[0], mlp)
        edge_term = np.outer(np.asarray(edge, np.float32), first[WIDTH]) + bias
        windows = np.asarray(windows, np.float32)
        probability = np.zeros(len(windows), np.float32)
        for turn in TURNS:
            turned = np.empty_like(first[:WIDTH])
            turned[turn] = first[:WIDTH]
            hidden = np.maximum(windows @ turned + edge_term, 0.0)
            probability += expit(hidden @ mlp.coefs_[1][:, 0] + mlp.intercepts_[1][0])
        return probability / 4

    def _dense_heat(self, maps: np.ndarray, batch: int = 128) -> np.ndarray:
        heat = np.empty((len(maps), POSITIONS, POSITIONS), np.float32)
        edge = np.broadcast_to(EDGE, (batch, POSITIONS, POSITIONS))
        for start in range(0, len(maps), batch):
            windows = dense_windows(maps[start : start + batch])
            n = len(windows)
            heat[start : start + n] = self._verify(windows.reshape(-1, WIDTH), edge[:n].reshape(-1)).reshape(
                n, POSITIONS, POSITIONS
            )
        return heat

    # ---- proposer --------------------------------------------------------------------------------
    def _fit_proposer(self, positives: np.ndarray, negatives: np.ndarray) -> None:
        windows = np.vstack([positives, negatives])
        labels = np.r_[np.ones(len(positives)), np.zeros(len(negatives))]
        turned = np.vstack([windows[:, turn] for turn in TURNS])
        scaler = StandardScaler().fit(turned)
        model = LogisticRegression(C=0.1, max_iter=500).fit(scaler.transform(turned), np.tile(labels, 4))
        weights = model.coef_[0] / scaler.scale_
        symmetric = np.zeros(WIDTH)
        for turn in TURNS:  # windows[:, turn] @ w == windows @ w', w'[turn] = w
            symmetric[turn] += weights / 4
        self.proposer_ = symmetric.reshape(WINDOW, WINDOW, CHANNELS).astype(np.float32)

    def _proposals(self, padded: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(ys, xs), each (n, CANDIDATES): the proposer's best separate windows of each crop."""
        n = len(padded)
        score = np.zeros((n, POSITIONS, POSITIONS), np.float32)
        for dy in range(WINDOW):
            for dx in range(WINDOW):
                score += padded[:, dy : dy + POSITIONS, dx : dx + POSITIONS] @ self.proposer_[dy, dx]
        ys, xs, _ = local_peaks(score, CANDIDATES)
        return ys, xs

    # ---- features --------------------------------------------------------------------------------
    def transform(self, maps: np.ndarray) -> np.ndarray:
        """(n, N_FEATURES): the verified crown scores of the best windows (sorted), their sum and how many
        pass 0.5. Exactly the same for a crop in any quarter turn."""
        if len(maps) == 0:
            return np.zeros((0, N_FEATURES), np.float32)
        padded = _padded(maps)
        ys, xs = self._proposals(padded)
        rows = np.repeat(np.arange(len(maps)), CANDIDATES)
        windows = gather_windows(padded, rows, ys.ravel(), xs.ravel())
        scores = self._verify(windows, EDGE[ys.ravel(), xs.ravel()]).reshape(len(maps), CANDIDATES)
        scores = -np.sort(-scores, axis=1)
        return np.hstack(
            [scores[:, :PEAKS], scores.sum(axis=1, keepdims=True), (scores > 0.5).sum(axis=1, keepdims=True)]
        ).astype(np.float32)

    # ---- training --------------------------------------------------------------------------------
    def fit(self, maps: np.ndarray, counts: np.ndarray, seeds: tuple[np.ndarray, np.ndarray, np.ndarray]):
        """Learn from crown counts. ``seeds`` = (rows, ys, xs) of windows known to hold a crown."""
        rng = np.random.default_rng(self.seed)
        started = time.perf_counter()
        padded = _padded(maps)
        seed_rows, seed_ys, seed_xs = seeds
        positives = gather_windows(padded, seed_rows, seed_ys, seed_xs)
        positive_edge = EDGE[seed_ys, seed_xs]
        # background: random windows of crown-less crops and of the seeded crops away from their crowns
        zero = np.flatnonzero(counts == 0)
        zero = rng.choice(zero, min(len(zero), 3000), replace=False).repeat(6)
        neg_ys, neg_xs = rng.integers(0, POSITIONS, (2, len(zero)))
        far_rows, far_ys, far_xs = self._away_from(seed_rows, seed_ys, seed_xs, rng, per_row=8)
        neg_rows = np.r_[zero, far_rows]
        neg_ys, neg_xs = np.r_[neg_ys, far_ys], np.r_[neg_xs, far_xs]
        negatives = gather_windows(padded, neg_rows, neg_ys, neg_xs)
        self._fit_verifier(
            np.vstack([positives, negatives]),
            np.r_[positive_edge, EDGE[neg_ys, neg_xs]],
            np.r_[np.ones(len(positives)), np.zeros(len(negatives))],
        )
        self._log(f"seeded with {len(positives)} crowns", started)
        for round_number in range(self.rounds):
            heat = self._dense_heat(maps)
            pos_rows, pos_ys, pos_xs, neg_rows, neg_ys, neg_xs = self._assign(heat, counts, rng)
            windows = gather_windows(
                padded, np.r_[pos_rows, neg_rows], np.r_[pos_ys, neg_ys], np.r_[pos_xs, neg_xs]
            )
            edge = EDGE[np.r_[pos_ys, neg_ys], np.r_[pos_xs, neg_xs]]
            self._fit_verifier(windows, edge, np.r_[np.ones(len(pos_rows)), np.zeros(len(neg_rows))])
            self._log(f"round {round_number + 1}: {len(pos_rows)} crowns", started)
        heat = self._dense_heat(maps)
        pos_rows, pos_ys, pos_xs, neg_rows, neg_ys, neg_xs = self._assign(heat, counts, rng)
        self._fit_proposer(
            gather_windows(padded, pos_rows, pos_ys, pos_xs), gather_windows(padded, neg_rows, neg_ys, neg_xs)
        )
        self._log("proposer fitted", started)
        return self

    @staticmethod
    def _away_from(rows, ys, xs, rng, per_row: int):
        """Random windows of the given crops at least 2 cells from any of the given positions."""
        out_rows, out_ys, out_xs = [], [], []
        crops = np.unique(rows)
        near = _near(len(crops), np.searchsorted(crops, rows), ys, xs)
        for crop, row in enumerate(crops):
            free = np.flatnonzero(~near[crop].ravel())
            pick = rng.choice(free, min(per_row, len(free)), replace=False)
            out_rows.append(np.full(len(pick), row))
            out_ys.append(pick // POSITIONS)
            out_xs.append(pick % POSITIONS)
        return np.concatenate(out_rows), np.concatenate(out_ys), np.concatenate(out_xs)

    @staticmethod
    def _assign(heat: np.ndarray, counts: np.ndarray, rng, hard: int = 3, random: int = 2):
        """The k best separate windows of every k-crown crop are its crowns; background is its best other
        windows (at least 2 cells from them) and a few random ones."""
        n = len(heat)
        ys, xs, _ = local_peaks(heat, int(counts.max(initial=0)) or 1)
        chosen = np.arange(ys.shape[1])[None, :] < counts[:, None]
        pos_rows = np.nonzero(chosen)[0]
        pos_ys, pos_xs = ys[chosen], xs[chosen]
        near = _near(n, pos_rows, pos_ys, pos_xs)
        background = np.where(near, -np.inf, heat).reshape(n, -1)
        hardest = np.argsort(-background, axis=1)[:, :hard]
        randoms = rng.integers(0, POSITIONS * POSITIONS, (n, random))
        negatives = np.hstack([hardest, randoms])
        keep = ~near.reshape(n, -1)[np.arange(n)[:, None], negatives]
        neg_rows = np.nonzero(keep)[0]
        flat = negatives[keep]
        return pos_rows, pos_ys, pos_xs, neg_rows, flat // POSITIONS, flat % POSITIONS

    def _log(self, message: str, started: float) -> None:
        if self.verbose:
            print(f"crown detector: {message} ({time.perf_counter() - started:.0f} s)", flush=True)


def template_seeds(
    peak_scores: np.ndarray,
    peak_ys: np.ndarray,
    peak_xs: np.ndarray,
    counts: np.ndarray,
    found: float = 0.65,
    background: float = 0.52,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, ys, xs) windows of crown-template peaks on crops where the template clearly agrees with the
    label: k crowns, the k-th best peak scores at least ``found`` and the next one below ``background``."""
    n, slots = peak_scores.shape
    padded = np.hstack([peak_scores, np.zeros((n, 1), peak_scores.dtype)])
    kth = padded[np.arange(n), np.maximum(counts - 1, 0)]
    following = padded[np.arange(n), np.minimum(counts, slots)]
    clean = (counts > 0) & (kth >= found) & (following < background)
    chosen = clean[:, None] & (np.arange(slots)[None, :] < counts[:, None])
    rows = np.nonzero(chosen)[0]
    to_position = lambda pixels: np.clip(np.rint((pixels + 0.5) / CELL - 0.5), 0, POSITIONS - 1)  # noqa: E731
    return rows, to_position(peak_ys[chosen]).astype(np.int64), to_position(peak_xs[chosen]).astype(np.int64)
