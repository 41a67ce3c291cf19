"""The Streamlit page driven headless by streamlit.testing.v1.AppTest, with the real scanner and engine."""

from __future__ import annotations

import tomllib
from pathlib import Path

import cv2
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.scoring import score_kingdom
from page import gamefile
from scanner.imageio import MAX_FILE_BYTES

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SAMPLE = ROOT / "data/samples/sample_table.jpg"


def key(at: AppTest, name: str) -> str:
    state = at.session_state["page"]
    return f"{name}_{at.session_state['epoch']}_{state.current_game}_{state.game.current_player}"


def score(at: AppTest) -> int:
    return int(at.metric[0].value)


def kingdom(at: AppTest) -> Kingdom:
    return at.session_state["page"].player.kingdom


def open_menu(at: AppTest, name: str) -> None:
    """Open a popover of the scoreboard ("ranking_menu", "game_menu"): drawn only while open."""
    at.session_state[name] = True
    at.run()


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def a_correction_that_changes_the_score(board: Kingdom) -> tuple[tuple[int, int], Square, int]:
    """A square and a new value for it that moves the engine's total, with that new total."""
    before = score_kingdom(board).total
    for cell, square in board.cells():
        for target in (Square(Terrain.MINE, 3), Square(Terrain.WHEAT, 0)):
            after = score_kingdom(board.replace(cell, target)).total
            if square != target and after != before:
                return cell, target, after
    raise AssertionError("no single-square correction changes this board's score")


def correct(at: AppTest, cell: tuple[int, int], target: Square) -> None:
    """Select a square (as a tap on the kingdom does), then press its terrain and crown buttons."""
    at.session_state["page"].selected = cell
    at.button(key=key(at, f"t_{target.terrain.value}")).click().run()
    at.button(key=key(at, f"c_{target.crowns}")).click().run()


@pytest.fixture(scope="module")
def opened() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def upload(at: AppTest, name: str, data: bytes) -> None:
    at.file_uploader(key=key(at, "upload")).upload(name, data, "image/jpeg").run()
    assert not at.exception, [e.value for e in at.exception]


def test_first_open_shows_the_labelled_demo_unranked(opened: AppTest):
    at = opened
    board = kingdom(at)
    assert board is not None and at.session_state["page"].player.demo
    assert "demo" in at.metric[0].label and score(at) == score_kingdom(board).total
    assert any("Demo" in i.value for i in at.info)
    assert at.query_params["game"] == at.session_state["code"]


def test_a_photo_replaces_the_demo_and_closes_the_photo_box(opened: AppTest):
    at = opened
    upload(at, "my_kingdom.jpg", SAMPLE.read_bytes())
    player = at.session_state["page"].player
    assert not player.demo and player.source == "my_kingdom.jpg" and "demo" not in at.metric[0].label
    assert at.session_state[key(at, "photo_box")] is False
    assert not any("Demo" in i.value for i in at.info)


def test_correct_a_square_undo_and_reset(opened: AppTest):
    at = opened
    scanned = kingdom(at)
    before = score(at)
    (row, col), target, expected = a_correction_that_changes_the_score(scanned)
    correct(at, (row, col), target)
    assert not at.exception, [e.value for e in at.exception]
    assert kingdom(at)[(row, col)] == target
    assert score(at) == expected != before
    at.run()  # a plain rerun loses nothing
    assert score(at) == expected
    button(at, "Undo").click().run()
    assert kingdom(at)[(row, col)].terrain is target.terrain  # the crowns step is undone first
    button(at, "Reset to scan").click().run()
    assert kingdom(at) == scanned and score(at) == before


def test_a_terrain_change_that_lowers_crowns_says_so(opened: AppTest):
    at = opened
    board = kingdom(at)
    cell = next(
        cell for cell, square in board.cells() if square.crowns >= 2 or square.terrain is Terrain.MINE
    )
    at.session_state["page"].selected = cell
    at.button(key=key(at, "t_mine")).click().run()
    at.button(key=key(at, "c_3")).click().run()
    at.button(key=key(at, "t_wheat")).click().run()
    assert any(
        "Crowns lowered from 3 to 1: a wheat square carries at most 1 crown" in w.value for w in at.warning
    )
    button(at, "Reset to scan").click().run()


def test_paint_mode(opened: AppTest):
    at = opened
    at.segmented_control(key=key(at, "mode")).set_value("Paint").run()
    assert at.session_state["page"].paint
    at.button(key=key(at, "t_lake")).click().run()
    at.button(key=key(at, "c_1")).click().run()
    assert at.session_state["page"].brush == Square(Terrain.LAKE, 1)
    at.segmented_control(key=key(at, "mode")).set_value("Select").run()
    assert not at.session_state["page"].paint


def test_second_player_by_hand_and_ranking(opened: AppTest):
    at = opened
    first_score = score(at)
    button(at, "Player").click().run()
    assert at.session_state["page"].game.current_player == 1
    assert len(at.metric) == 0  # no kingdom yet for the new player: no score
    assert not any("Winner" in m.value for m in at.markdown)  # one kingdom: no winner yet
    button(at, "Enter by hand").click().run()
    assert kingdom(at) == Kingdom.empty(5) and score(at) == 0
    at.text_input(key=key(at, "name")).set_value("Bea").run()
    correct(at, (0, 0), Square(Terrain.LAKE, 1))
    assert score(at) == 1
    assert any("Winner: Player 1" in m.value for m in at.markdown)
    open_menu(at, "ranking_menu")
    ranking = at.table[0].value.to_dict("records")
    assert [r["player"] for r in ranking] == ["Player 1", "Bea"]
    assert [r["score"] for r in ranking] == [first_score, 1]
    at.pills(key=key(at, "players")).set_value(0).run()  # switching back loses nothing
    assert score(at) == first_score


def test_game_settings_are_game_wide(opened: AppTest):
    at = opened
    board = kingdom(at)
    open_menu(at, "game_menu")
    at.toggle(key=key(at, "middle")).set_value(True).run()
    assert score(at) == score_kingdom(board, middle_kingdom=True).total
    assert at.session_state["page"].game.middle_kingdom
    at.radio(key="edition_choice").set_value("nordic").run()
    assert at.session_state["page"].edition == "nordic"
    at.toggle(key=key(at, "middle")).set_value(False).run()
    assert score(at) == score_kingdom(board).total and not at.exception


def test_a_refused_file_leaves_everything_as_it_was(opened: AppTest):
    at = opened
    before = gamefile.state_record(at.session_state["page"])
    upload(at, "broken.jpg", b"this is not a photo")
    messages = [w.value for w in at.warning if "broken.jpg:" in w.value]
    assert len(messages) == 1 and messages[0].endswith("your board is unchanged") and "\n" not in messages[0]
    page = at.session_state["page"]
    page.notice = ""
    assert gamefile.state_record(page) == before


def test_a_photo_without_a_kingdom_shows_no_score_and_offers_the_frame():
    at = AppTest.from_file(APP, default_timeout=60).run()
    blank = cv2.imencode(".jpg", np.full((600, 800, 3), 120, np.uint8))[1].tobytes()
    upload(at, "table.jpg", blank)
    assert len(at.metric) == 0 and kingdom(at) is None
    assert any("No kingdom read in table.jpg" in w.value for w in at.warning)
    assert at.session_state[key(at, "frame_box")] is True  # the frame editor opens to place it by hand
    assert any("Frame corners" in c.value for c in at.caption)


def test_a_damaged_stored_photo_costs_only_its_picture():
    at = AppTest.from_file(APP, default_timeout=60).run()
    blank = cv2.imencode(".jpg", np.full((600, 800, 3), 120, np.uint8))[1].tobytes()
    upload(at, "table.jpg", blank)  # no kingdom: the frame editor opens on the photo
    at.session_state["page"].player.preview_jpeg = b"\xff\xd8\xff\xe0 a damaged record"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("stored copy is damaged" in c.value for c in at.caption)


def test_game_file_round_trip_through_the_page(opened: AppTest):
    at = opened
    saved = gamefile.export_game(at.session_state["page"])
    players = [p.name for p in at.session_state["page"].game.players]
    open_menu(at, "game_menu")
    at.file_uploader(key="import_file").upload("game.json", saved.encode(), "application/json").run()
    assert not at.exception and not at.error
    assert [p.name for p in at.session_state["page"].game.players] == players
    at.file_uploader(key="import_file").upload("bad.json", b"{not json", "application/json").run()
    assert any("Could not import bad.json" in e.value for e in at.error)
    assert [p.name for p in at.session_state["page"].game.players] == players  # nothing lost


def test_a_second_session_on_the_game_url_sees_the_first_ones_correction(opened: AppTest):
    at = opened
    other = AppTest.from_file(APP, default_timeout=60)
    other.query_params["game"] = at.session_state["code"]
    other.run()
    assert not other.exception
    names = [p.name for p in at.session_state["page"].game.players]
    assert [p.name for p in other.session_state["page"].game.players] == names
    index = at.session_state["page"].game.current_player
    correct(at, (0, 0), Square(Terrain.MINE, 2))
    other.run()  # its next interaction
    assert other.session_state["page"].game.players[index].kingdom[(0, 0)] == Square(Terrain.MINE, 2)
    button(at, "Undo").click().run()
    button(at, "Undo").click().run()


def test_upload_limit_matches_the_scanner():
    config = tomllib.loads((ROOT / ".streamlit/config.toml").read_text())
    assert config["server"]["maxUploadSize"] == MAX_FILE_BYTES // 2**20
    assert config["browser"]["gatherUsageStats"] is False
    assert config["client"]["toolbarMode"] == "viewer"
