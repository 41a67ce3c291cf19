"""The turned reader: every quarter turn through the estimator at once, the same as reading turned copies."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import model.turns as turns_module
from model.ensemble import GeometricEnsemble
from model.turns import TurnedFirstLayer, TurnedReader, TurnOrbits


def quarter_turns(orbit_sizes: list[int], seed: int = 0) -> list[np.ndarray]:
    """The 4 column permutations of features made of shuffled orbits of the given sizes (1, 2 or 4)."""
    rng = np.random.default_rng(seed)
    columns = rng.permutation(sum(orbit_sizes))
    turn = np.arange(len(columns))
    start = 0
    for size in orbit_sizes:
        orbit = columns[start : start + size]
        turn[orbit] = np.roll(orbit, -1)  # each column's value in the turned square comes from the next
        start += size
    permutations = [np.arange(len(turn))]
    for _ in range(3):
        permutations.append(turn[permutations[-1]])
    return permutations


def stacked_turns(features: np.ndarray, permutations: list[np.ndarray]) -> np.ndarray:
    return np.vstack([features[:, permutation] for permutation in permutations])


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    permutations = quarter_turns([1] * 5 + [2] * 4 + [4] * 6)
    features = rng.normal(size=(240, len(permutations[0]))).astype(np.float32)
    labels = (features[:, :3].sum(axis=1) > 0).astype(int) + 2 * (features[:, 7] > 0.5)
    return features, labels, permutations


def test_orbits_split_the_columns_by_their_cycle_under_a_turn(data):
    _, _, permutations = data
    orbits = TurnOrbits(permutations[1], np.arange(len(permutations[1])))
    assert (len(orbits.singles), len(orbits.pairs), len(orbits.quads)) == (5, 4, 6)
    quads = orbits.quads
    np.testing.assert_array_equal(permutations[1][quads], np.roll(quads, -1, axis=1))
    together = np.concatenate([orbits.singles, orbits.pairs.ravel(), quads.ravel()])
    np.testing.assert_array_equal(np.sort(together), np.arange(len(permutations[1])))


def test_orbits_refuse_columns_that_a_turn_leads_out_of(data):
    _, _, permutations = data
    quad = TurnOrbits(permutations[1], np.arange(len(permutations[1]))).quads[0]
    with pytest.raises(ValueError, match="closed"):
        TurnOrbits(permutations[1], quad[:3])


def test_turned_first_layer_is_the_plain_product_of_each_turn(data):
    features, _, permutations = data
    rng = np.random.default_rng(2)
    columns = np.arange(len(permutations[0]))
    coefs = rng.normal(size=(len(columns), 7)).astype(np.float32)
    intercepts = rng.normal(size=7).astype(np.float32)
    layer = TurnedFirstLayer(permutations[1], columns, coefs, intercepts)
    turned = layer(features[:20])
    for turns, permutation in enumerate(permutations):
        np.testing.assert_allclose(turned[turns], features[:20, permutation] @ coefs + intercepts, atol=1e-4)


@pytest.mark.parametrize(
    "make",
    [
        lambda: MLPClassifier((16,), max_iter=200, random_state=0),
        lambda: MLPClassifier((16, 8), max_iter=200, random_state=0),
        lambda: MLPClassifier((), max_iter=200, random_state=0),
        lambda: GeometricEnsemble(
            [MLPClassifier((12,), max_iter=200, random_state=seed) for seed in (0, 1)]
            + [MLPClassifier((5,), max_iter=200)],
            weights=[1.0, 2.0, 1.0],
        ),
        lambda: make_pipeline(StandardScaler(), MLPClassifier((16,), max_iter=200, random_state=0)),
        lambda: LogisticRegression(max_iter=500),
    ],
    ids=["mlp", "two hidden layers", "no hidden layer", "ensemble", "pipeline", "logistic"],
)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_turned_reader_reads_as_the_estimator_reads_the_turned_copies(data, make):
    features, labels, permutations = data
    estimator = make().fit(stacked_turns(features, permutations), np.tile(labels, 4))
    rows = features[:30]
    expected = estimator.predict_proba(stacked_turns(rows, permutations)).reshape(4, len(rows), -1)
    np.testing.assert_allclose(TurnedReader(estimator, permutations).read(rows), expected, atol=1e-6)


def test_turned_reader_needs_all_four_turns(data):
    _, _, permutations = data
    with pytest.raises(ValueError, match="4 permutations"):
        TurnedReader(LogisticRegression(), permutations[:2])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_an_mlp_on_columns_a_turn_leads_out_of_reads_the_turned_copies(data):
    features, labels, permutations = data
    quad = TurnOrbits(permutations[1], np.arange(len(permutations[1]))).quads[0]
    mlp = MLPClassifier((8,), max_iter=100, random_state=0).fit(features[:, quad[:3]], labels)
    expected = mlp.predict_proba(stacked_turns(features[:30], [turn[quad[:3]] for turn in permutations]))
    reader = turns_module._reader(mlp, permutations, quad[:3])
    np.testing.assert_allclose(reader(features[:30]), expected, atol=1e-6)
