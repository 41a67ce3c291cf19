"""Rank a game: one kingdom per player, the edition's tie-breaks, and Dynasty (three games added up).

Tie-breaks, in order: the higher total; then the larger single territory (in squares). After that
the editions differ: the current (second edition) rules let the tied players share the victory,
the older Nordic rules give it to the player with the most crowns in total, and players still tied
share it. Places below the winner follow the same order; players tied on every criterion share a
place (1, 1, 3, ...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from kingdomino.board import Kingdom
from kingdomino.scoring import ScoreReport, score_kingdom

EDITIONS: tuple[str, ...] = ("second", "nordic")
DYNASTY_GAMES = 3

#: Why the winner won, from the first criterion that separates the best player from the rest.
BY_TOTAL = "total"
BY_LARGEST_TERRITORY = "largest territory"
BY_CROWNS = "crowns"
SHARED_VICTORY = "shared victory"


@dataclass(frozen=True)
class Standing:
    """One player's place. In a Dynasty the figures are summed over the games."""

    name: str
    rank: int
    total: int
    largest_territory: int
    crowns: int
    game_totals: list[int]
    reports: list[ScoreReport]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "rank": self.rank,
            "total": self.total,
            "largest_territory": self.largest_territory,
            "crowns": self.crowns,
            "game_totals": list(self.game_totals),
            "reports": [report.to_dict() for report in self.reports],
        }


@dataclass(frozen=True)
class GameRanking:
    """Players best first, the winner(s) and the criterion that decided the victory."""

    edition: str
    games: int
    standings: list[Standing]
    winners: list[str]
    decided_by: str

    @property
    def shared_victory(self) -> bool:
        return len(self.winners) > 1

    def to_dict(self) -> dict:
        return {
            "edition": self.edition,
            "games": self.games,
            "winners": list(self.winners),
            "shared_victory": self.shared_victory,
            "decided_by": self.decided_by,
            "standings": [standing.to_dict() for standing in self.standings],
        }


PlayerBoard = Kingdom | ScoreReport


def _report(board: PlayerBoard, harmony: bool, middle_kingdom: bool) -> ScoreReport:
    return board if isinstance(board, ScoreReport) else score_kingdom(board, harmony, middle_kingdom)


def _criteria(edition: str) -> list[tuple[str, str]]:
    """(Standing attribute, decision name) in tie-break order for the edition."""
    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}; use one of {', '.join(EDITIONS)}")
    chain = [("total", BY_TOTAL), ("largest_territory", BY_LARGEST_TERRITORY)]
    if edition == "nordic":
        chain.append(("crowns", BY_CROWNS))
    return chain


def _rank(players: dict[str, list[ScoreReport]], edition: str) -> GameRanking:
    criteria = _criteria(edition)
    if not players:
        raise ValueError("a game needs at least one player")
    unranked = [
        Standing(
            name=name,
            rank=0,
            total=sum(report.total for report in reports),
            largest_territory=sum(report.largest_territory for report in reports),
            crowns=sum(report.crowns for report in reports),
            game_totals=[report.total for report in reports],
            reports=list(reports),
        )
        for name, reports in players.items()
    ]

    def key(standing: Standing) -> tuple[int, ...]:
        return tuple(getattr(standing, attribute) for attribute, _ in criteria)

    ordered = sorted(unranked, key=lambda s: tuple(-value for value in key(s)))
    standings: list[Standing] = []
    for position, standing in enumerate(ordered):
        tied_above = standings and key(standings[-1]) == key(standing)
        rank = standings[-1].rank if tied_above else position + 1
        standings.append(replace(standing, rank=rank))
    winners = [s.name for s in standings if s.rank == 1]
    return GameRanking(
        edition, len(next(iter(players.values()))), standings, winners, _decided_by(standings, criteria)
    )


def _decided_by(standings: list[Standing], criteria: list[tuple[str, str]]) -> str:
    """The first criterion on which the best player beats everyone else still level with them."""
    if len(standings) == 1:
        return BY_TOTAL
    level = standings
    for attribute, decision in criteria:
        best = getattr(level[0], attribute)
        level = [s for s in level if getattr(s, attribute) == best]
        if len(level) == 1:
            return decision
    return SHARED_VICTORY


def rank_game(
    boards: Mapping[str, PlayerBoard],
    edition: str = "second",
    harmony: bool = False,
    middle_kingdom: bool = False,
) -> GameRanking:
    """Rank one game: ``boards`` maps each player's name to their kingdom (or an existing ScoreReport)."""
    players = {name: [_report(board, harmony, middle_kingdom)] for name, board in boards.items()}
    return _rank(players, edition)


def dynasty(
    games: Sequence[Mapping[str, PlayerBoard]],
    edition: str = "second",
    harmony: bool = False,
    middle_kingdom: bool = False,
) -> GameRanking:
    """Rank a Dynasty: the same players over several games (three in the rules), totals added.

    The rules give no tie-break for a Dynasty; this applies the edition's chain to the figures summed
    over the games (largest territories added, crowns added), which reduces to the one-game rule for
    a single game. Fewer than three games rank a Dynasty still in progress.
    """
    if not games:
        raise ValueError("a Dynasty needs at least one game")
    names = list(games[0])
    for number, game in enumerate(games[1:], start=2):
        if set(game) != set(names):
            raise ValueError(f"game {number} has players {sorted(game)}, game 1 has {sorted(names)}")
    players = {name: [_report(game[name], harmony, middle_kingdom) for game in games] for name in names}
    return _rank(players, edition)
