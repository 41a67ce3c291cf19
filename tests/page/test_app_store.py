"""The page on the game store, headless (streamlit.testing.v1.AppTest) with the real scanner: a game kept
in the database across reloads and store restarts, the history with winners, and a database that cannot
be used giving one clear line and a fresh store (the old file untouched)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from kingdomino.board import Square, Terrain
from kingdomino.scoring import score_kingdom
from page.store import DB_ENV, GameStore
from tests.page.test_app import APP, SAMPLE, button, correct, key, kingdom, open_menu, score, upload

pytestmark = pytest.mark.model


def opened_on(code: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if code is not None:
        at.query_params["game"] = code
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_reload_and_a_restarted_store_keep_the_game_and_the_history_names_the_winner(game_database):
    at = opened_on()
    code = at.session_state["code"]
    upload(at, "ours.jpg", SAMPLE.read_bytes())
    correct(at, (0, 0), Square(Terrain.MINE, 2))
    button(at, "Player").click().run()
    button(at, "Enter by hand").click().run()
    expected = [p.kingdom for p in at.session_state["page"].game.players]
    again = opened_on(code)  # a reload: a new session on the game's URL
    assert [p.kingdom for p in again.session_state["page"].game.players] == expected
    assert [p.name for p in again.session_state["page"].game.players] == ["Player 1", "Player 2"]
    with GameStore.open(game_database) as restarted:  # what a restarted server finds
        stored = restarted.load(code)
        assert [p.kingdom for p in stored.players] == expected and stored.players[0].board.images
        line = next(h for h in restarted.history() if h.code == code)
        assert line.winners == ("Player 1",) and line.kingdoms == 2
    open_menu(again, "game_menu")  # the past games are listed in the game settings
    assert any(f"?game={code}" in m.value and "won by **Player 1**" in m.value for m in again.markdown)
    assert score(again) == score_kingdom(expected[0]).total  # a new page shows the first player


def test_another_phone_sees_a_change_on_its_next_interaction_and_its_own_change_keeps_it():
    at = opened_on()
    upload(at, "ours.jpg", SAMPLE.read_bytes())
    other = opened_on(at.session_state["code"])
    correct(at, (0, 0), Square(Terrain.MINE, 2))
    # The other phone has not seen the change, and corrects another square: both stay.
    other.session_state["page"].selected = (1, 1)
    other.button(key=key(other, "t_lake")).click().run()
    for session in (other, opened_on(at.session_state["code"])):
        board = kingdom(session)
        assert board[(0, 0)] == Square(Terrain.MINE, 2) and board[(1, 1)].terrain is Terrain.LAKE


def fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("damage", ["corrupt", "folder"])
def test_an_unusable_database_gives_one_clear_line_and_a_fresh_store(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = tmp_path / "games.sqlite3"
    if damage == "corrupt":
        path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 40)
        before = fingerprint(path)
    else:
        path.mkdir()
    monkeypatch.setenv(DB_ENV, f"sqlite:///{path}")
    at = opened_on()
    shown = [w.value for w in at.warning if "Game database" in w.value]
    assert len(shown) == 1 and "left as it is" in shown[0] and "\n" not in shown[0]
    upload(at, "ours.jpg", SAMPLE.read_bytes())  # the page works, and keeps the game in the fresh store
    again = opened_on(at.session_state["code"])
    assert kingdom(again) == kingdom(at)
    assert path.is_dir() if damage == "folder" else fingerprint(path) == before
    assert (tmp_path / "games.replacement.sqlite3").exists()


def test_a_missing_database_is_made_and_said_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "new/folder/games.sqlite3"
    monkeypatch.setenv(DB_ENV, f"sqlite:///{path}")
    at = opened_on()
    assert not [w for w in at.warning if "Game database" in w.value]
    open_menu(at, "game_menu")
    assert any(str(path) in c.value and "there was no game database" in c.value for c in at.caption)
    upload(at, "ours.jpg", SAMPLE.read_bytes())
    assert path.exists()
