"""What the page shows, as plain data: scores, the scoreboard, rankings, territory rows, the squares to
check and their wording. Scores come from the shared engine; nothing here changes the state."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from kingdomino.board import Cell, Kingdom, Terrain
from kingdomino.ranking import GameRanking, dynasty, rank_game
from kingdomino.scoring import ScoreReport, Territory, score_kingdom
from page.state import GameSession, PageState, PlayerKingdom
from page.store import GameSummary

#: The palette's terrain buttons, in the order they are shown.
TERRAIN_BUTTONS = {
    Terrain.WHEAT: "wheat",
    Terrain.FOREST: "forest",
    Terrain.LAKE: "lake",
    Terrain.GRASSLAND: "grass",
    Terrain.SWAMP: "swamp",
    Terrain.MINE: "mine",
    Terrain.CASTLE: "castle",
    Terrain.EMPTY: "empty",
}


def plural(count: int, word: str) -> str:
    """'1 square', '0 crowns', '2 squares'."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def score_player(player: PlayerKingdom, game: GameSession) -> ScoreReport | None:
    """The player's score, None while the player has no kingdom."""
    kingdom = player.kingdom
    if kingdom is None:
        return None
    return _score(kingdom, game.harmony, game.middle_kingdom)


@lru_cache(maxsize=64)
def _score(kingdom: Kingdom, harmony: bool, middle_kingdom: bool) -> ScoreReport:
    """The engine's score, once per board and options: a rerun asks for each player's score several times
    (scoreboard, ranking, winner, the score shown), and most boards are unchanged by a tap. Read-only."""
    return score_kingdom(kingdom, harmony=harmony, middle_kingdom=middle_kingdom)


def game_reports(game: GameSession) -> dict[str, ScoreReport]:
    """Each ranked player's score in a game, by name: players with a kingdom of their own (not the demo)."""
    reports = {}
    for player in game.players:
        report = score_player(player, game) if not player.demo else None
        if report is not None:
            reports[player.name] = report
    return reports


def rank_current_game(state: PageState) -> GameRanking | None:
    """The ranking of the current game by the engine's tie-breaks; None until two players have kingdoms."""
    reports = game_reports(state.game)
    return rank_game(reports, edition=state.edition) if len(reports) >= 2 else None


@dataclass(frozen=True)
class ScoreLine:
    """One player on the scoreboard: no score and no place without a kingdom; the demo has no place."""

    name: str
    score: int | None
    place: int | None
    demo: bool
    current: bool

    @property
    def label(self) -> str:
        place = f"{ordinal(self.place)} · " if self.place is not None else ""
        score = "demo" if self.demo else ("—" if self.score is None else str(self.score))
        if self.demo and self.score is not None:
            score = f"{self.score} (demo)"
        return f"{place}{self.name}: {score}"


def ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def scoreboard(state: PageState) -> list[ScoreLine]:
    """Every player of the current game in seating order, with score and place."""
    game = state.game
    ranking = rank_current_game(state)
    places = {s.name: s.rank for s in ranking.standings} if ranking is not None else {}
    lines = []
    for index, player in enumerate(game.players):
        report = score_player(player, game)
        lines.append(
            ScoreLine(
                player.name,
                report.total if report is not None else None,
                places.get(player.name),
                player.demo,
                index == game.current_player,
            )
        )
    return lines


def winner_line(state: PageState) -> str:
    """'Winner: Ann (decided by ...)' once two or more players have kingdoms; '' before."""
    ranking = rank_current_game(state)
    if ranking is None:
        return ""
    decided = f" (decided by {ranking.decided_by})" if ranking.decided_by else ""
    word = "Winners" if len(ranking.winners) > 1 else "Winner"
    return f"{word}: {' and '.join(ranking.winners)}{decided}"


def waiting_players(state: PageState) -> list[str]:
    return [p.name for p in state.game.players if p.kingdom is None or p.demo]


def dynasty_ranking(state: PageState) -> tuple[GameRanking | None, str]:
    """Dynasty totals over the games played so far, or None with the reason it cannot be ranked yet."""
    if len(state.games) < 2:
        return None, "start a second game to see Dynasty totals"
    per_game = [game_reports(game) for game in state.games]
    names = [{p.name for p in game.players} for game in state.games]
    if any(n != names[0] for n in names[1:]):
        return None, "every game of a Dynasty needs the same players"
    missing = [
        f"{player.name} (game {g})"
        for g, game in enumerate(state.games, 1)
        for player in game.players
        if player.name not in per_game[g - 1]
    ]
    if missing:
        return None, "no kingdom yet for " + ", ".join(missing)
    return dynasty(per_game, edition=state.edition), ""


def ranking_rows(ranking: GameRanking) -> list[dict]:
    rows = []
    for standing in ranking.standings:
        row = {"place": standing.rank, "player": standing.name, "score": standing.total}
        if ranking.games > 1:
            row["games"] = " + ".join(str(total) for total in standing.game_totals)
        row |= {"largest territory": standing.largest_territory, "crowns": standing.crowns}
        rows.append(row)
    return rows


def territory_label(territory: Territory) -> str:
    return (
        f"{territory.terrain} · {plural(territory.squares, 'square')} × "
        f"{plural(territory.crowns, 'crown')} = {territory.score}"
    )


def territory_rows(report: ScoreReport) -> list[dict]:
    """The score panel table, in the engine's order (highest score first)."""
    return [
        {"terrain": str(t.terrain), "squares": t.squares, "crowns": t.crowns, "points": t.score}
        for t in report.territories
    ]


def score_details(report: ScoreReport) -> str:
    bonuses = [f"{name.replace('_', ' ')} +{points}" for name, points in report.bonuses.items() if points]
    return (
        f"territories {report.base}"
        + "".join(f" · {b}" for b in bonuses)
        + f" · {plural(report.crowns, 'crown')} · {report.grid_size}×{report.grid_size}"
    )


def cell_name(cell: Cell) -> str:
    return f"row {cell[0] + 1} col {cell[1] + 1}"


def review_warning(player: PlayerKingdom) -> str:
    """The visible warning listing the squares to check ('' when there are none)."""
    cells = player.review_cells()
    if not cells:
        return ""
    listed = ", ".join(cell_name(cell) for cell in cells)
    if player.kingdom is not None and len(cells) == player.kingdom.grid_size**2:
        listed = "every square"
    return f"Check {plural(len(cells), 'square')} marked ? on the kingdom: {listed}."


def photo_caption(player: PlayerKingdom) -> str:
    if not player.source:
        return ""
    took = (
        f" · read in {player.scan_seconds:.1f} s"
        if player.from_scan and (player.scan_seconds or 0) >= 0.1
        else ""
    )
    notes = " · " + "; ".join(player.notes) if player.notes else ""
    return f"Photo: {player.source}{took}{notes}"


def history_line(game: GameSummary) -> str:
    """A past game as the history lists it (Markdown): a link opening it, when, who, who won."""
    when = datetime.fromtimestamp(game.updated_at).strftime("%d %b %H:%M")
    winners = " and ".join(game.winners)
    result = f"won by **{winners}**" if winners else "no winner yet"
    rounds = f", {game.rounds} games" if game.rounds > 1 else ""
    return f"[{game.code}](?game={game.code}) · {when}{rounds} · {', '.join(game.players)} · {result}"


def first_line(error: BaseException) -> str:
    """An error in one line for the page."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
