"""Invariants of the scoring engine on random kingdoms (hypothesis), bounded to run in seconds."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from kingdomino.board import CASTLE_SQUARE, EMPTY_SQUARE, LAND_TERRAINS, MAX_CROWNS, Kingdom, Square, Terrain
from kingdomino.dominoes import BOX_TERRAIN_COUNTS
from kingdomino.ranking import rank_game
from kingdomino.scoring import ScoreReport, score_kingdom, territories

BOUNDED = settings(max_examples=100, deadline=2000)

LAND_SQUARES = [Square(t, c) for t in LAND_TERRAINS for c in range(MAX_CROWNS[t] + 1)]
#: Mostly land, with castles and gaps often enough to matter.
ANY_SQUARE = st.one_of(
    st.sampled_from(LAND_SQUARES),
    st.sampled_from(LAND_SQUARES),
    st.just(CASTLE_SQUARE),
    st.just(EMPTY_SQUARE),
)


@st.composite
def kingdoms(draw: st.DrawFn, squares: st.SearchStrategy[Square] = ANY_SQUARE) -> Kingdom:
    size = draw(st.sampled_from([1, 2, 3, 4, 5, 5, 5, 6, 7, 7]))
    return Kingdom.from_rows([[draw(squares) for _ in range(size)] for _ in range(size)])


def rotated(kingdom: Kingdom) -> Kingdom:
    """A quarter turn clockwise."""
    return Kingdom.from_rows([list(column)[::-1] for column in zip(*kingdom.squares, strict=True)])


def mirrored(kingdom: Kingdom) -> Kingdom:
    return Kingdom.from_rows([list(row)[::-1] for row in kingdom.squares])


def shape_free(report: ScoreReport) -> tuple:
    """Everything in a report that does not depend on where the squares are."""
    return (
        report.total,
        report.base,
        tuple(sorted(report.bonuses.items())),
        sorted((t.terrain.value, t.squares, t.crowns) for t in report.territories),
        report.largest_territory,
        report.crowns,
        len(report.warnings),
    )


@BOUNDED
@given(kingdoms())
def test_rotating_or_mirroring_never_changes_the_score(kingdom: Kingdom) -> None:
    expected = shape_free(score_kingdom(kingdom, harmony=True, middle_kingdom=True))
    turned = kingdom
    for _ in range(3):
        turned = rotated(turned)
        assert shape_free(score_kingdom(turned, harmony=True, middle_kingdom=True)) == expected
    assert shape_free(score_kingdom(mirrored(kingdom), harmony=True, middle_kingdom=True)) == expected
    assert rotated(rotated(rotated(rotated(kingdom)))) == kingdom


@BOUNDED
@given(kingdoms(), st.booleans(), st.booleans())
def test_total_is_the_sum_over_territories_plus_bonuses(
    kingdom: Kingdom, harmony: bool, middle: bool
) -> None:
    report = score_kingdom(kingdom, harmony=harmony, middle_kingdom=middle)
    assert report.base == sum(t.squares * t.crowns for t in report.territories)
    assert report.total == report.base + report.bonuses["harmony"] + report.bonuses["middle_kingdom"]
    assert report.bonuses["harmony"] in ((0, 5) if harmony else (0,))
    assert report.bonuses["middle_kingdom"] in ((0, 10) if middle else (0,))


@BOUNDED
@given(kingdoms(st.one_of(st.sampled_from([Square(t, 0) for t in LAND_TERRAINS]), st.just(CASTLE_SQUARE))))
def test_a_kingdom_without_crowns_scores_zero_whatever_its_shape(kingdom: Kingdom) -> None:
    report = score_kingdom(kingdom)
    assert report.base == report.total == 0
    assert report.crowns == 0


@BOUNDED
@given(kingdoms())
def test_territories_partition_the_land_into_maximal_connected_groups(kingdom: Kingdom) -> None:
    found = territories(kingdom)
    owner = {cell: index for index, territory in enumerate(found) for cell in territory.cells}
    land = {cell for cell, square in kingdom.cells() if square.terrain.is_land}
    assert set(owner) == land
    assert sum(t.squares for t in found) == len(land)
    for index, territory in enumerate(found):
        assert {kingdom[cell].terrain for cell in territory.cells} == {territory.terrain}
        assert territory.crowns == sum(kingdom[cell].crowns for cell in territory.cells)
        # Connected: a walk from the first cell inside the territory reaches every cell.
        reached, frontier = {territory.cells[0]}, [territory.cells[0]]
        cells = set(territory.cells)
        while frontier:
            row, col = frontier.pop()
            for step in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
                if step in cells and step not in reached:
                    reached.add(step)
                    frontier.append(step)
        assert reached == cells
        # Maximal: no neighbouring square of the same terrain belongs to another territory.
        for row, col in territory.cells:
            for step in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
                if step in owner and kingdom[step].terrain is territory.terrain:
                    assert owner[step] == index


@BOUNDED
@given(kingdoms(), st.data())
def test_one_more_crown_adds_exactly_the_size_of_its_territory(kingdom: Kingdom, data: st.DataObject) -> None:
    crownable = [cell for cell, sq in kingdom.cells() if sq.terrain.is_land and sq.crowns < 3]
    if not crownable:
        return
    cell = data.draw(st.sampled_from(crownable))
    square = kingdom[cell]
    size = next(t.squares for t in territories(kingdom) if cell in t.cells)
    richer = kingdom.replace(cell, Square(square.terrain, square.crowns + 1))
    assert score_kingdom(richer).base == score_kingdom(kingdom).base + size


@BOUNDED
@given(kingdoms())
def test_both_formats_round_trip_and_json_report_is_plain_data(kingdom: Kingdom) -> None:
    assert Kingdom.parse(kingdom.to_text()) == kingdom
    assert Kingdom.parse(json.dumps(kingdom.to_dict())) == kingdom
    report = score_kingdom(kingdom, harmony=True, middle_kingdom=True)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["total"] == report.total
    assert sum(len(t["cells"]) for t in data["territories"]) == sum(
        1 for _, square in kingdom.cells() if square.terrain.is_land
    )


@BOUNDED
@given(kingdoms())
def test_box_warnings_follow_the_counts(kingdom: Kingdom) -> None:
    land = Counter(square.terrain for _, square in kingdom.cells() if square.terrain.is_land)
    castles = sum(1 for _, square in kingdom.cells() if square.terrain is Terrain.CASTLE)
    warnings = score_kingdom(kingdom).warnings
    for terrain, count in land.items():
        over = any(w.startswith(f"{count} {terrain.value} squares, but the box") for w in warnings)
        assert over is (count > BOX_TERRAIN_COUNTS[terrain])
    assert any("castle" in w for w in warnings) is (castles != 1)


@BOUNDED
@given(st.lists(kingdoms(), min_size=1, max_size=5), st.sampled_from(["second", "nordic"]), st.randoms())
def test_ranking_does_not_depend_on_the_order_players_are_given(
    boards: list[Kingdom], edition: str, shuffler: random.Random
) -> None:
    players = {f"p{index}": board for index, board in enumerate(boards)}
    ranking = rank_game(players, edition=edition)
    names = list(players)
    shuffler.shuffle(names)
    shuffled = rank_game({name: players[name] for name in names}, edition=edition)
    assert {s.name: s.rank for s in ranking.standings} == {s.name: s.rank for s in shuffled.standings}
    assert sorted(ranking.winners) == sorted(shuffled.winners)
    best = max(s.total for s in ranking.standings)
    assert all(s.total == best for s in ranking.standings if s.rank == 1)
