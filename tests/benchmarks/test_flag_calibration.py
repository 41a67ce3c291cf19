"""The flag calibration's per-square records and the replay of the rules."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks.flag_calibration import REASONS, chosen_seeds, photo_features, square_records
from benchmarks.flag_report import (
    colour_unlike,
    margin_rule,
    margins_at,
    old_rule,
    photo_evidence,
    resolved_rule,
    solved_photos,
)
from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.labels import LABEL_INDEX, LABELS
from scanner.decode import decode_kingdom


def fake_result(kingdom: Kingdom, margins: np.ndarray, orphans: np.ndarray) -> SimpleNamespace:
    n = kingdom.grid_size
    probabilities = np.full((n, n, len(LABELS)), 1e-3)
    for (r, c), square in kingdom.cells():
        probabilities[r, c, LABEL_INDEX[square]] = 1.0
    probabilities /= probabilities.sum(axis=-1, keepdims=True)
    details = SimpleNamespace(
        margins=margins,
        raw=probabilities,
        evidence=np.zeros((n, n)),
        likeness=None,
        cover=np.zeros((n, n, n, n)),
        changed=np.zeros((n, n), bool),
        orphans=orphans,
        deblurred=False,
    )
    return SimpleNamespace(
        grid_size=n,
        kingdom=kingdom,
        details=details,
        probabilities=probabilities,
        flagged=margins < 4.0,
        flag_reasons={"read": margins < 4.0},
        lightness=150.0,
        rectified=np.full((100 * n, 100 * n, 3), 128, np.uint8),
    )


def test_records_hold_every_square_and_the_replay_tells_the_rules_apart() -> None:
    kingdom = Kingdom.from_text("W0 W0 F0\nF0 C L0\nL0 G0 G0")
    margins = np.full((3, 3), 9.0)
    margins[0, 0], margins[2, 2] = 2.0, 3.8  # two doubtful squares; a sure orphan
    orphans = np.zeros((3, 3), bool)
    orphans[1, 2] = True
    truth = np.array([[LABEL_INDEX[kingdom[r, c]] for c in range(3)] for r in range(3)])
    truth[0, 0] = LABEL_INDEX[kingdom[1, 2]]  # the square read under 2 nats is wrong
    records = square_records(fake_result(kingdom, margins, orphans), truth, {"seed": 1, "condition": "x"})
    assert all(len(value) == 9 for value in records.values())
    assert {f"reason_{name}" for name in REASONS} <= set(records)
    assert not records["deblurred"].any()  # read from the kingdom as photographed
    data = {**records, "run": np.full(9, "run")}
    old, new = old_rule(data), margin_rule(data, 4.0)
    assert old[5] and not new[5]  # the sure orphan: flagged before, not now
    assert old[0] and new[0] and new[8] and new.sum() == 2
    assert margin_rule(data, 3.5).sum() == 1


def test_the_replay_solves_the_decoder_again_at_each_flag_margin() -> None:
    """A scan's margins are exact only up to its own flag margin; the replay decodes each photo's weighed
    probabilities again at the margin it tries, as a scan flagging there would."""
    rows = ("W0 W0 F0 F0 L0", "G0 G0 L0 L0 S0", "M0 M0 C S0 S0", "W1 W0 F1 F0 L1", "G1 G0 M1 M0 L0")
    kingdom = Kingdom.from_text("\n".join(rows))
    # the corner's wheat read one nat over forest; squares at 3.9-6.9 nats lie between the two flag margins
    margins = np.full((5, 5), 9.0)
    result = fake_result(kingdom, margins, np.zeros((5, 5), bool))
    probabilities = result.probabilities.copy()
    probabilities[0, 0, LABEL_INDEX[Square(Terrain.FOREST, 0)]] = probabilities[0, 0].max() * np.exp(-1.0)
    probabilities /= probabilities.sum(axis=-1, keepdims=True)
    result.probabilities = probabilities
    truth = np.array([[LABEL_INDEX[kingdom[r, c]] for c in range(5)] for r in range(5)])
    records = square_records(result, truth, {"seed": 1, "condition": "x"})
    data = {**records, "run": np.full(25, "run")}
    solved = solved_photos(data)  # each photo decoded once serves every margin
    for threshold in (3.0, 6.0):
        expected = decode_kingdom(probabilities, flag_margin=threshold).margins.ravel()
        assert np.allclose(margins_at(data, threshold), expected)
        assert np.array_equal(margins_at(data, threshold, solved), margins_at(data, threshold))
        assert np.array_equal(resolved_rule(data, threshold), expected < threshold)
        assert np.array_equal(resolved_rule(data, threshold, solved), expected < threshold)
    assert resolved_rule(data, 6.0).sum() > resolved_rule(data, 3.0).sum()


def test_the_replay_calls_the_scanners_review_rules_on_the_squares_it_decodes_again() -> None:
    """The castle's rules are the scanner's own (``review_reasons``), judged on the margins solved again: a
    square the castle's lean was moved off, or that the castle hides, is flagged while its new margin is
    under the rule's, whatever the flag margin."""
    rows = ("W0 W0 F0 F0 L0", "G0 G0 L0 L0 S0", "M0 M0 C S0 S0", "W1 W0 F1 F0 L1", "G1 G0 M1 M0 L0")
    kingdom = Kingdom.from_text("\n".join(rows))
    result = fake_result(kingdom, np.full((5, 5), 9.0), np.zeros((5, 5), bool))
    probabilities = result.probabilities.copy()
    probabilities[0, 0, LABEL_INDEX[Square(Terrain.FOREST, 0)]] = probabilities[0, 0].max() * np.exp(-1.0)
    probabilities /= probabilities.sum(axis=-1, keepdims=True)
    result.probabilities = probabilities
    truth = np.array([[LABEL_INDEX[kingdom[r, c]] for c in range(5)] for r in range(5)])
    plain = {**square_records(result, truth, {"seed": 1, "condition": "x"}), "run": np.full(25, "run")}
    margins = margins_at(plain, 4.0)
    between = int(np.flatnonzero((margins >= 4.0) & (margins < 6.0))[0])  # over the flag margin, under 6
    assert not resolved_rule(plain, 4.0)[between]
    taken = np.zeros((5, 5))
    taken.flat[between] = 1.0  # the castle read there was moved off it to its base
    result.details.leaning = SimpleNamespace(taken=taken)
    leaned = {**square_records(result, truth, {"seed": 1, "condition": "x"}), "run": np.full(25, "run")}
    assert (
        resolved_rule(leaned, 4.0)[between] and resolved_rule(leaned, 4.0).sum() == (margins < 4.0).sum() + 1
    )
    result.details.leaning = None
    cover = np.zeros((5, 5, 5, 5))
    cover[2, 2].flat[between] = 0.5  # the decoded castle (the centre) hides half of that square
    result.details.cover = cover
    hidden = {**square_records(result, truth, {"seed": 1, "condition": "x"}), "run": np.full(25, "run")}
    assert resolved_rule(hidden, 4.0)[between] and not resolved_rule(hidden, 4.0)[int(np.argmax(margins))]


class OwnWhite:
    """A classifier that reads every square as wheat when each square is its own photo."""

    def predict_proba(self, crops, photo=False):
        proba = np.full((len(crops), len(LABELS)), 1e-3)
        proba[:, LABEL_INDEX[Square(Terrain.WHEAT, 0)]] = 1.0
        return proba / proba.sum(axis=1, keepdims=True)


def test_photo_features_and_the_per_photo_candidates() -> None:
    kingdom = Kingdom.from_text("W0 W0 G0\nG0 C W0\nG0 G0 W0")
    result = fake_result(kingdom, np.full((3, 3), 9.0), np.zeros((3, 3), bool))
    rectified = result.rectified
    rectified[:, :] = (60, 200, 220)  # wheat-yellow everywhere (BGR) ...
    for r, c in ((0, 2), (1, 0), (2, 0), (2, 1)):  # ... but the grassland green, one of them yellow too
        if (r, c) != (2, 1):
            rectified[100 * r : 100 * r + 100, 100 * c : 100 * c + 100] = (60, 170, 90)
    features = photo_features(result, OwnWhite())
    assert features["square_lab"].shape == (9, 3) and features["sharpness"][0] >= 0.0
    assert features["raw_own"].shape == (9, len(LABELS))
    truth = np.array([[LABEL_INDEX[kingdom[r, c]] for c in range(3)] for r in range(3)])
    data = {
        **square_records(result, truth, {"seed": 1, "condition": "x"}, OwnWhite()),
        "run": np.full(9, "r"),
    }
    unlike = colour_unlike(data)
    assert unlike[7] and unlike.sum() == 1  # the yellow grassland alone looks like the photo's wheat
    assert all(len(value) == 9 for value in photo_evidence(data).values())


def test_second_opinions_ask_the_members_the_crown_model_and_the_matcher_apart() -> None:
    from benchmarks.flag_calibration import second_opinions as collect_opinions
    from model.classifier import SquareClassifier
    from model.features import normalise_crops
    from model.training.dataset import DEFAULT_DATA_DIR, board_squares, load_boards

    classifier = SquareClassifier.load()
    photo = next(p for p in load_boards(DEFAULT_DATA_DIR) if p.name == "1.jpg")
    squares = board_squares(photo)[:6]
    opinions = collect_opinions(classifier, squares)
    members = len(classifier.estimator.joint_.members_)
    assert opinions["member_log"].shape == (6, members, len(LABELS))
    assert opinions["match"].shape == (6, len(LABELS)) and opinions["match_ms"].shape == (6,)
    # the members joined as the ensemble joins them read as the classifier does on these sure squares
    read = classifier.predict_proba(normalise_crops(squares), photo=True).argmax(axis=1)
    assert (opinions["joint_log"].argmax(axis=1) == read).mean() >= 0.8
    assert (opinions["member_log"].argmax(axis=2) == read[:, None]).mean() >= 0.8
    assert collect_opinions(OwnWhite(), squares) == {}  # no ensemble to ask apart


def test_second_opinion_flags_replay_the_members_and_the_matcher() -> None:
    from benchmarks.flag_report import second_opinions

    wheat, grass = LABEL_INDEX[Square(Terrain.WHEAT, 0)], LABEL_INDEX[Square(Terrain.GRASSLAND, 0)]
    read = np.array([wheat, wheat])
    members = np.full((2, 3, len(LABELS)), np.log(1e-4))
    members[:, :, wheat] = 0.0
    members[1, 2, wheat], members[1, 2, grass] = np.log(0.3), np.log(0.7)  # one member reads grassland
    crowns = np.log(np.array([[0.97, 0.01, 0.01, 0.01]] * 2))
    match = np.full((2, len(LABELS)), 0.2)
    match[:, wheat] = 0.9
    match[1, grass] = 0.96  # the best real square is a grassland, by 0.06
    data = {
        "read": read,
        "member_log": members,
        "crown_log": crowns,
        "joint_log": members[:, 0],
        "match": match,
    }
    opinions = second_opinions(data)
    assert opinions["a member's top label differs"].tolist() == [False, True]
    assert opinions["a member gives the reading < 0.5"].tolist() == [False, True]
    assert not opinions["crown model's count differs"].any()
    assert opinions["matcher's best label differs by 0.05"].tolist() == [False, True]
    assert not opinions["matcher's best label differs by 0.1"].any()


def test_the_seeds_collected_are_a_range_or_chosen_development_seeds() -> None:
    split = list(range(100, 110))
    assert chosen_seeds(SimpleNamespace(seeds=None, start=2, count=3), split) == [102, 103, 104]
    assert chosen_seeds(SimpleNamespace(seeds=[107, 101], start=0, count=1), split) == [107, 101]
    with pytest.raises(SystemExit, match="not development seeds"):  # e.g. a held-out seed
        chosen_seeds(SimpleNamespace(seeds=[101, 800000], start=0, count=1), split)
