"""All four quarter turns of each square through the estimator, for the price of about 1.5 readings.

The classifier reads every square in its 4 quarter turns and averages them, so a turned square reads the
same. Turning a square only permutes its features, and the permutation's orbits are single columns (colour
histograms, crown counts), pairs, or cycles of four (gradient cells, codebook quarters: each goes to the next
one). An MLP's first layer on the 4 turns of one orbit of four is a circular correlation of its 4 weight rows
with its 4 values, which a 4-point Fourier transform turns into 6 products instead of 16; a single column is
read once instead of 4 times. The first layers, almost all of a board's reading time, shrink by 2.7×, and
the result is ``estimator.predict_proba`` of the 4 turned copies, to float rounding.

``TurnedReader`` walks the estimator: MLPs (with the scaler folded into their first layer, as in the
packaged model) take the fast path, an ensemble of them shares one product, and any other estimator reads
the turned copies the plain way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from sklearn.neural_network import MLPClassifier
from sklearn.neural_network._base import ACTIVATIONS

from model.ensemble import CrownExpert, GeometricEnsemble

TURNS = 4
#: Rows → (TURNS·n, classes) probabilities: the n rows in turn 0, then in turn 1, ...
Read = Callable[[np.ndarray], np.ndarray]


def closed_under(turn: np.ndarray, columns: np.ndarray) -> bool:
    """Whether a quarter turn (``turn``, as in TurnOrbits) takes the ``columns`` only to each other."""
    return bool(np.isin(turn[columns], columns).all())


class TurnOrbits:
    """The orbits of a set of feature columns under one quarter turn, the columns in each in turn order.

    ``turn`` is the permutation of one quarter turn (the turned square's features are ``x[turn]``), so
    the turned square's value in ``quads[:, j]`` is the square's value in ``quads[:, (j + 1) % 4]``.
    """

    def __init__(self, turn: np.ndarray, columns: np.ndarray) -> None:
        if not closed_under(turn, columns):
            raise ValueError("the columns are not closed under quarter turns")
        seen = np.zeros(len(turn), dtype=bool)
        orbits: dict[int, list[list[int]]] = {1: [], 2: [], 4: []}
        for start in columns:
            if seen[start]:
                continue
            orbit = [int(start)]
            while (following := int(turn[orbit[-1]])) != start:
                orbit.append(following)
            seen[orbit] = True
            orbits[len(orbit)].append(orbit)
        self.singles = np.array(orbits[1], dtype=np.int64).reshape(-1)
        self.pairs = np.array(orbits[2], dtype=np.int64).reshape(-1, 2)
        self.quads = np.array(orbits[4], dtype=np.int64).reshape(-1, 4)

    def spectra(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows' orbit sums and differences that the turned first layer reads: (the same in every
        turn, sign alternating with the turn, the quads' quarter-frequency parts).

        Each is built from pair sums, so turning the square permutes these values (up to sign) exactly.
        """
        first, second = (features[:, self.pairs[:, place]] for place in range(2))
        q0, q1, q2, q3 = (features[:, self.quads[:, place]] for place in range(4))
        even, odd = q0 + q2, q1 + q3
        constant = np.hstack([features[:, self.singles], first + second, even + odd])
        alternating = np.hstack([first - second, even - odd])
        quarter = np.vstack([q0 - q2, q1 - q3])
        return constant, alternating, quarter

    def weights(self, weight_of: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, ...]:
        """The first layer's weights (``weight_of(columns)`` gives their rows) for ``spectra``'s three
        parts; the quarter part's has two halves of outputs, cosine then sine."""
        single, pair, quad = (
            weight_of(self.singles),
            _by_place(weight_of, self.pairs),
            _by_place(weight_of, self.quads),
        )
        constant = np.vstack([single, (pair[0] + pair[1]) / 2, (quad[0] + quad[1] + quad[2] + quad[3]) / 4])
        alternating = np.vstack([(pair[0] - pair[1]) / 2, (quad[0] - quad[1] + quad[2] - quad[3]) / 4])
        quarter = np.hstack([(quad[0] - quad[2]) / 2, (quad[1] - quad[3]) / 2])
        return constant, alternating, quarter


def _by_place(weight_of: Callable[[np.ndarray], np.ndarray], orbits: np.ndarray) -> list[np.ndarray]:
    return [weight_of(orbits[:, place]) for place in range(orbits.shape[1])]


class TurnedFirstLayer:
    """The first layer (weights ``coefs`` over ``columns``, ``intercepts``) of every row in its 4 turns."""

    def __init__(
        self, turn: np.ndarray, columns: np.ndarray, coefs: np.ndarray, intercepts: np.ndarray
    ) -> None:
        self.orbits = TurnOrbits(turn, columns)
        row_of = np.full(len(turn), -1, dtype=np.int64)
        row_of[columns] = np.arange(len(columns))
        dtype = coefs.dtype
        self.constant, self.alternating, self.quarter = (
            np.ascontiguousarray(part, dtype=dtype)
            for part in self.orbits.weights(lambda at: coefs[row_of[at]])
        )
        self.intercepts = intercepts.astype(dtype)

    def __call__(self, features: np.ndarray) -> np.ndarray:
        """(TURNS, n, units) pre-activations."""
        constant, alternating, quarter = (
            part.astype(self.constant.dtype, copy=False) for part in self.orbits.spectra(features)
        )
        same = constant @ self.constant + self.intercepts
        sign = alternating @ self.alternating
        products = quarter @ self.quarter
        n, units = len(features), len(self.intercepts)
        cosine = products[:n, :units] + products[n:, units:]
        sine = products[:n, units:] - products[n:, :units]
        return np.stack([same + sign + cosine, same - sign - sine, same + sign - cosine, same - sign + sine])


def _rest_of_mlp(mlp: MLPClassifier, pre_activations: np.ndarray) -> np.ndarray:
    """``mlp.predict_proba`` from its first layer's pre-activations (as scikit-learn's forward pass; its
    activation functions work in place)."""
    activation = np.array(pre_activations)
    for layer in range(1, mlp.n_layers_ - 1):
        ACTIVATIONS[mlp.activation](activation)
        activation = activation @ mlp.coefs_[layer] + mlp.intercepts_[layer]
    ACTIVATIONS[mlp.out_activation_](activation)
    return activation


def _is_softmax_mlp(part) -> bool:
    return isinstance(part, MLPClassifier) and part.out_activation_ == "softmax"


def _mlps_reader(mlps: Sequence[MLPClassifier], turn: np.ndarray, columns: np.ndarray) -> Callable:
    """Rows → each MLP's (TURNS·n, classes) probabilities, their first layers as one product."""
    widths = np.cumsum([0] + [mlp.coefs_[0].shape[1] for mlp in mlps])
    layer = TurnedFirstLayer(
        turn,
        columns,
        np.hstack([mlp.coefs_[0] for mlp in mlps]),
        np.concatenate([mlp.intercepts_[0] for mlp in mlps]),
    )

    def read(features: np.ndarray) -> list[np.ndarray]:
        pre = layer(features)
        rows = pre.reshape(-1, pre.shape[-1])
        return [
            _rest_of_mlp(mlp, rows[:, start:stop])
            for mlp, start, stop in zip(mlps, widths[:-1], widths[1:], strict=True)
        ]

    return read


def _reader(estimator, permutations: Sequence[np.ndarray], columns: np.ndarray) -> Read:
    """How ``estimator``, fitted on the feature ``columns``, reads all turns of full feature rows."""
    turn = permutations[1]
    closed = closed_under(turn, columns)
    if isinstance(estimator, CrownExpert):
        joint = _reader(estimator.joint_, permutations, columns[estimator.joint_columns_])
        crowns = _reader(estimator.crown_model_, permutations, columns[estimator.crown_columns_])
        return lambda features: estimator.combine(joint(features), crowns(features))
    if closed and isinstance(estimator, GeometricEnsemble) and all(map(_is_softmax_mlp, estimator.members_)):
        members = _mlps_reader(estimator.members_, turn, columns)
        return lambda features: estimator.combine(members(features))
    if closed and _is_softmax_mlp(estimator):
        single = _mlps_reader([estimator], turn, columns)
        return lambda features: single(features)[0]
    return lambda features: estimator.predict_proba(
        np.vstack([features[:, permutation[columns]] for permutation in permutations])
    )


class TurnedReader:
    """``read(features)``: ``estimator.predict_proba`` of the rows in all 4 quarter turns, (4, n, classes).

    ``permutations[k]`` gives the columns of a square turned by k quarter turns (``permutations[0]`` is the
    identity and ``permutations[k]`` is ``permutations[1]`` applied k times).
    """

    def __init__(self, estimator, permutations: Sequence[np.ndarray]) -> None:
        if len(permutations) != TURNS:
            raise ValueError(f"expected {TURNS} permutations, got {len(permutations)}")
        self._read = _reader(estimator, permutations, np.arange(len(permutations[0])))

    def read(self, features: np.ndarray) -> np.ndarray:
        probabilities = self._read(features)
        return probabilities.reshape(TURNS, len(features), -1)
