"""The Streamlit page driven headless by streamlit.testing.v1.AppTest, with the real scanner and engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.scoring import score_kingdom
from scanner import page

pytestmark = pytest.mark.model

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def key(at: AppTest, name: str) -> str:
    state = at.session_state["page"]
    return f"{name}_{at.session_state['epoch']}_{state.current_game}_{state.game.current_player}"


def score(at: AppTest) -> int:
    return int(at.metric[0].value)


def kingdom(at: AppTest) -> Kingdom:
    return at.session_state["page"].player.kingdom


def a_correction_that_changes_the_score(board: Kingdom) -> tuple[tuple[int, int], Square, int]:
    """A square and a new value for it that moves the engine's total, with that new total."""
    before = score_kingdom(board).total
    for cell, square in board.cells():
        for target in (Square(Terrain.MINE, 3), Square(Terrain.WHEAT, 0)):
            after = score_kingdom(board.replace(cell, target)).total
            if square != target and after != before:
                return cell, target, after
    raise AssertionError("no single-square correction changes this board's score")


@pytest.fixture(scope="module")
def opened() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_first_open_shows_the_sample_scored(opened: AppTest):
    at = opened
    board = kingdom(at)
    assert board is not None and board.grid_size in (5, 7)
    assert "sample photo" in at.session_state["page"].player.source
    assert score(at) == score_kingdom(board).total
    assert any("Player 1" in str(row) for row in at.table[-1].value.to_dict("records"))


def test_correct_a_square_undo_and_reset(opened: AppTest):
    at = opened
    scanned = kingdom(at)
    before = score(at)
    (row, col), target, expected = a_correction_that_changes_the_score(scanned)
    at.selectbox(key=key(at, "row")).set_value(row).run()
    at.selectbox(key=key(at, "col")).set_value(col).run()
    at.selectbox(key=key(at, "terrain")).set_value(target.terrain.value).run()
    at.selectbox(key=key(at, "crowns")).set_value(target.crowns).run()
    assert not at.exception, [e.value for e in at.exception]
    assert kingdom(at)[(row, col)] == target
    assert score(at) == expected != before
    at.run()  # a plain rerun loses nothing
    assert score(at) == expected
    undo = next(b for b in at.button if b.label == "Undo")
    undo.click().run()
    assert kingdom(at)[(row, col)].terrain is target.terrain  # the crowns step is undone first
    reset = next(b for b in at.button if b.label == "Reset to scan")
    reset.click().run()
    assert kingdom(at) == scanned and score(at) == before
    at.selectbox(key=key(at, "terrain")).set_value(target.terrain.value).run()
    at.selectbox(key=key(at, "crowns")).set_value(target.crowns).run()
    assert score(at) == expected


def test_second_player_by_hand_and_ranking(opened: AppTest):
    at = opened
    first_score = score(at)
    next(b for b in at.button if b.label == "Add player").click().run()
    assert at.session_state["page"].game.current_player == 1
    assert len(at.metric) == 0  # no kingdom yet for the new player
    next(b for b in at.button if b.label == "Enter by hand").click().run()
    assert kingdom(at) == Kingdom.empty(5) and score(at) == 0
    at.text_input(key=key(at, "name")).set_value("Bea").run()
    at.selectbox(key=key(at, "terrain")).set_value("forest").run()
    at.selectbox(key=key(at, "crowns")).set_value(1).run()
    assert score(at) == 1
    ranking = at.table[-1].value.to_dict("records")
    assert [r["player"] for r in ranking] == ["Player 1", "Bea"]
    assert [r["score"] for r in ranking] == [first_score, 1]

    at.selectbox(key="player_choice").set_value(0).run()  # switching back loses nothing
    assert score(at) == first_score
    at.selectbox(key="player_choice").set_value(1).run()
    assert score(at) == 1 and at.session_state["page"].player.name == "Bea"


def test_bonus_toggle_and_edition(opened: AppTest):
    at = opened
    board = kingdom(at)
    at.toggle(key=key(at, "middle")).set_value(True).run()
    assert score(at) == score_kingdom(board, middle_kingdom=True).total
    at.radio(key="edition_choice").set_value("nordic").run()
    assert at.session_state["page"].edition == "nordic"
    at.toggle(key=key(at, "middle")).set_value(False).run()
    assert score(at) == score_kingdom(board).total and not at.exception


def test_unreadable_photo_gives_one_line_and_an_empty_grid(opened: AppTest):
    at = opened
    next(b for b in at.button if b.label == "Add player").click().run()
    at.file_uploader(key=key(at, "upload")).upload("broken.jpg", b"this is not a photo", "image/jpeg").run()
    assert not at.exception, [e.value for e in at.exception]
    messages = [w.value for w in at.warning if "No kingdom read" in w.value]
    assert len(messages) == 1 and "\n" not in messages[0]
    assert kingdom(at) == Kingdom.empty(5) and score(at) == 0
    at.selectbox(key=key(at, "terrain")).set_value("lake").run()
    at.selectbox(key=key(at, "crowns")).set_value(1).run()
    assert score(at) == 1


def test_game_file_round_trip_through_the_page(opened: AppTest):
    at = opened
    saved = page.export_game(at.session_state["page"])
    players = [p.name for p in at.session_state["page"].game.players]
    totals = [row["score"] for row in at.table[-1].value.to_dict("records")]
    next(b for b in at.button if b.label == "Add player").click().run()
    at.file_uploader(key="import_file").upload("game.json", saved.encode(), "application/json").run()
    assert not at.exception and not at.error
    assert [p.name for p in at.session_state["page"].game.players] == players
    assert [row["score"] for row in at.table[-1].value.to_dict("records")] == totals
    at.file_uploader(key="import_file").upload("bad.json", b"{not json", "application/json").run()
    assert any("Could not import bad.json" in e.value for e in at.error)
    assert [p.name for p in at.session_state["page"].game.players] == players  # nothing lost


def test_a_new_grid_choice_rereads_and_undo_brings_the_corrections_back():
    at = AppTest.from_file(APP, default_timeout=60).run()  # the sample photo, scanned with grid "auto"
    scanned = kingdom(at)
    (row, col), target, _ = a_correction_that_changes_the_score(scanned)
    at.selectbox(key=key(at, "row")).set_value(row).run()
    at.selectbox(key=key(at, "col")).set_value(col).run()
    at.selectbox(key=key(at, "terrain")).set_value(target.terrain.value).run()
    corrected = kingdom(at)
    assert corrected != scanned
    at.radio(key=key(at, "grid")).set_value(scanned.grid_size).run()  # "auto" -> the size it found
    assert not at.exception, [e.value for e in at.exception]
    assert kingdom(at) == scanned  # read again: the correction is replaced ...
    next(b for b in at.button if b.label == "Undo").click().run()
    assert kingdom(at) == corrected  # ... and Undo brings it back, with the grid choice it was read with
    assert at.radio(key=key(at, "grid")).value == "auto"
