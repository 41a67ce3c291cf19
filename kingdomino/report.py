"""Readable text of a score and of a ranking: what ``kingdomino score`` and ``kingdomino rank`` print."""

from __future__ import annotations

from collections.abc import Sequence

from kingdomino.board import Kingdom, Terrain
from kingdomino.ranking import SHARED_VICTORY, GameRanking
from kingdomino.scoring import ScoreReport, castle_cells


def _cell_list(cells: Sequence[tuple[int, int]]) -> str:
    return " ".join(f"({row + 1},{col + 1})" for row, col in cells)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _bonus_lines(report: ScoreReport, kingdom: Kingdom) -> list[str]:
    lines = []
    if report.options.get("harmony"):
        empties = sum(1 for _, square in kingdom.cells() if square.terrain is Terrain.EMPTY)
        reason = (
            "the frame is full" if report.bonuses["harmony"] else f"{_plural(empties, 'empty square')} left"
        )
        lines.append(f"  Harmony bonus:        +{report.bonuses['harmony']} ({reason})")
    if report.options.get("middle_kingdom"):
        castles = len(castle_cells(kingdom))
        if report.bonuses["middle_kingdom"]:
            reason = "the castle is in the middle"
        elif castles != 1:
            reason = f"needs exactly one castle, found {castles}"
        else:
            reason = "the castle is off-centre"
        lines.append(f"  Middle Kingdom bonus: +{report.bonuses['middle_kingdom']} ({reason})")
    return lines


def format_report(report: ScoreReport, kingdom: Kingdom) -> str:
    """The readable breakdown of ``kingdomino score``: total, bonuses, territories, warnings."""
    size = report.grid_size
    lines = [
        f"Score: {report.total} points ({size}×{size} kingdom)",
        f"  territories:          {report.base}",
    ]
    lines += _bonus_lines(report, kingdom)
    lines.append(
        f"Crowns: {report.crowns}   largest territory: {_plural(report.largest_territory, 'square')}"
    )
    lines.append("")
    lines.append("Territories (highest score first; cells as (row,column) counted from 1 at the top left):")
    for territory in report.territories:
        size_and_crowns = f"{_plural(territory.squares, 'square')} × {_plural(territory.crowns, 'crown')}"
        figures = f"{size_and_crowns} = {territory.score}"
        lines.append(f"  {territory.terrain.value:<9} {figures:<30} {_cell_list(territory.cells)}")
    if not report.territories:
        lines.append("  (none)")
    lines.append("")
    if report.warnings:
        lines.append("Warnings (the score above counts the board as given; check these squares):")
        lines += [f"  - {warning}" for warning in report.warnings]
    else:
        lines.append("Warnings: none")
    return "\n".join(lines)


def format_ranking(ranking: GameRanking) -> str:
    """The readable table of ``kingdomino rank``."""
    title = "Dynasty" if ranking.games > 1 else "Game"
    lines = [f"{title} ranking ({ranking.edition} edition rules, {_plural(ranking.games, 'game')})"]
    width = max(len(standing.name) for standing in ranking.standings)
    for standing in ranking.standings:
        tied = sum(1 for other in ranking.standings if other.rank == standing.rank) > 1
        place = f"{standing.rank}{'=' if tied else '.'}"
        games = f"  games {' + '.join(map(str, standing.game_totals))}" if ranking.games > 1 else ""
        lines.append(
            f"  {place:<4}{standing.name:<{width}}  {standing.total:>4} points  "
            f"largest territory {standing.largest_territory:>2}  crowns {standing.crowns:>2}{games}"
        )
    if ranking.decided_by == SHARED_VICTORY:
        lines.append(f"Shared victory: {', '.join(ranking.winners)} (tied on every tie-break)")
    else:
        lines.append(f"Winner: {ranking.winners[0]} (decided by {ranking.decided_by})")
    for standing in ranking.standings:
        for number, report in enumerate(standing.reports, start=1):
            game = f" game {number}" if ranking.games > 1 else ""
            lines += [f"Warning for {standing.name}{game}: {warning}" for warning in report.warnings]
    return "\n".join(lines)
