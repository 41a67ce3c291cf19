"""Ranking a game: totals, every tie-break of both editions, shared victory, and Dynasty."""

from __future__ import annotations

import pytest

from kingdomino.board import Kingdom
from kingdomino.ranking import (
    BY_CROWNS,
    BY_LARGEST_TERRITORY,
    BY_TOTAL,
    SHARED_VICTORY,
    GameRanking,
    dynasty,
    rank_game,
)
from kingdomino.scoring import ScoreReport

EDITIONS = ("second", "nordic")


def report(total: int, largest: int = 3, crowns: int = 5) -> ScoreReport:
    """A finished score with just the figures the tie-breaks look at."""
    return ScoreReport(
        total=total,
        base=total,
        bonuses={"harmony": 0, "middle_kingdom": 0},
        territories=[],
        largest_territory=largest,
        crowns=crowns,
        warnings=[],
        grid_size=5,
    )


def ranks(ranking: GameRanking) -> list[tuple[str, int]]:
    return [(standing.name, standing.rank) for standing in ranking.standings]


@pytest.mark.parametrize("edition", EDITIONS)
def test_highest_total_wins(edition: str) -> None:
    ranking = rank_game({"ann": report(40), "bob": report(52), "cid": report(47)}, edition=edition)
    assert ranks(ranking) == [("bob", 1), ("cid", 2), ("ann", 3)]
    assert ranking.winners == ["bob"]
    assert ranking.decided_by == BY_TOTAL
    assert not ranking.shared_victory


@pytest.mark.parametrize("edition", EDITIONS)
def test_total_tie_broken_by_the_largest_territory(edition: str) -> None:
    ranking = rank_game(
        {"ann": report(50, largest=6, crowns=9), "bob": report(50, largest=8, crowns=2)}, edition
    )
    assert ranks(ranking) == [("bob", 1), ("ann", 2)]
    assert ranking.decided_by == BY_LARGEST_TERRITORY


def test_second_edition_shares_the_victory_after_the_largest_territory() -> None:
    boards = {
        "ann": report(50, largest=8, crowns=9),
        "bob": report(50, largest=8, crowns=4),
        "cid": report(31),
    }
    ranking = rank_game(boards, edition="second")
    assert ranks(ranking) == [("ann", 1), ("bob", 1), ("cid", 3)]
    assert ranking.winners == ["ann", "bob"]
    assert ranking.shared_victory
    assert ranking.decided_by == SHARED_VICTORY


def test_nordic_rules_give_the_victory_to_the_most_crowns() -> None:
    boards = {
        "ann": report(50, largest=8, crowns=4),
        "bob": report(50, largest=8, crowns=9),
        "cid": report(31),
    }
    ranking = rank_game(boards, edition="nordic")
    assert ranks(ranking) == [("bob", 1), ("ann", 2), ("cid", 3)]
    assert ranking.winners == ["bob"]
    assert ranking.decided_by == BY_CROWNS


def test_nordic_rules_share_the_victory_when_crowns_are_level_too() -> None:
    boards = {"ann": report(50, largest=8, crowns=9), "bob": report(50, largest=8, crowns=9)}
    ranking = rank_game(boards, edition="nordic")
    assert ranks(ranking) == [("ann", 1), ("bob", 1)]
    assert ranking.decided_by == SHARED_VICTORY


def test_the_largest_territory_comes_before_crowns_in_nordic_rules() -> None:
    boards = {"ann": report(50, largest=7, crowns=12), "bob": report(50, largest=8, crowns=1)}
    assert rank_game(boards, edition="nordic").winners == ["bob"]


def test_lower_places_are_tie_broken_too_and_shared_places_skip() -> None:
    boards = {
        "ann": report(60),
        "bob": report(45, largest=5),
        "cid": report(45, largest=5),
        "dan": report(45, largest=9),
        "eve": report(20),
    }
    ranking = rank_game(boards, edition="second")
    assert ranks(ranking) == [("ann", 1), ("dan", 2), ("bob", 3), ("cid", 3), ("eve", 5)]
    assert ranking.decided_by == BY_TOTAL


def test_a_single_player_wins_alone() -> None:
    ranking = rank_game({"solo": report(12)})
    assert ranking.winners == ["solo"]
    assert ranking.decided_by == BY_TOTAL


def test_kingdoms_are_scored_with_the_bonus_rules_in_play() -> None:
    # ann: a 3×3 ring of one lake with 2 crowns around the castle: 8 × 2 = 16, full frame, castle centred.
    ann = Kingdom.from_text("L1 L0 L0\nL0 C L0\nL0 L0 L1\n")
    # bob: one wheat territory of 7 squares × 6 crowns = 42, castle in a corner, one gap: no bonus.
    bob = Kingdom.from_text("W1 W1 W1\nW1 W1 W1\nC W0 .\n")
    plain = rank_game({"ann": ann, "bob": bob})
    assert [s.total for s in plain.standings] == [42, 16]
    with_bonuses = rank_game({"ann": ann, "bob": bob}, harmony=True, middle_kingdom=True)
    assert {s.name: s.total for s in with_bonuses.standings} == {"ann": 31, "bob": 42}
    assert with_bonuses.standings[1].reports[0].bonuses == {"harmony": 5, "middle_kingdom": 10}


def test_bad_game_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown edition"):
        rank_game({"ann": report(1)}, edition="first")
    with pytest.raises(ValueError, match="at least one player"):
        rank_game({})


def test_to_dict_lists_winners_and_standings() -> None:
    data = rank_game({"ann": report(50, 8, 9), "bob": report(50, 8, 4)}, edition="second").to_dict()
    assert data["edition"] == "second"
    assert data["games"] == 1
    assert data["winners"] == ["ann", "bob"]
    assert data["shared_victory"] is True
    assert data["decided_by"] == SHARED_VICTORY
    assert [s["name"] for s in data["standings"]] == ["ann", "bob"]
    assert data["standings"][0]["reports"][0]["total"] == 50
    assert data["standings"][0]["game_totals"] == [50]


# --- Dynasty -------------------------------------------------------------------------------------
def test_dynasty_adds_the_three_games() -> None:
    games = [
        {"ann": report(40), "bob": report(55)},
        {"ann": report(62), "bob": report(41)},
        {"ann": report(30), "bob": report(33)},
    ]
    ranking = dynasty(games)
    assert ranking.games == 3
    assert {s.name: (s.total, s.game_totals) for s in ranking.standings} == {
        "ann": (132, [40, 62, 30]),
        "bob": (129, [55, 41, 33]),
    }
    assert ranking.winners == ["ann"]
    assert ranking.decided_by == BY_TOTAL


def test_dynasty_tie_breaks_on_the_summed_figures() -> None:
    games = [
        {"ann": report(40, largest=5, crowns=7), "bob": report(50, largest=4, crowns=9)},
        {"ann": report(60, largest=5, crowns=7), "bob": report(50, largest=6, crowns=9)},
        {"ann": report(30, largest=5, crowns=7), "bob": report(30, largest=5, crowns=9)},
    ]
    # Totals 130 each; largest territories 15 each; crowns 21 vs 27.
    assert dynasty(games, edition="second").decided_by == SHARED_VICTORY
    nordic = dynasty(games, edition="nordic")
    assert nordic.winners == ["bob"]
    assert nordic.decided_by == BY_CROWNS


def test_dynasty_needs_the_same_players_in_every_game() -> None:
    with pytest.raises(ValueError, match="game 2"):
        dynasty([{"ann": report(1), "bob": report(2)}, {"ann": report(1), "cid": report(2)}])
    with pytest.raises(ValueError, match="at least one game"):
        dynasty([])
