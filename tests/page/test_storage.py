"""The page's games in the game store (page/storage.py): a page's state saved and loaded whole, boards
kept by content, and two phones on one game never losing each other's edits."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingdomino.board import Square, Terrain
from page import accept, gamefile, state, views
from page.persistence import open_game
from page.state import PageState
from page.storage import StoreStorage
from page.store import GameStore, VersionConflict
from scanner.errors import KingdomNotFoundError
from tests.page.test_page import PHOTO, fake_result, photo_bytes, scanned_state


def records(page: PageState) -> list:
    """Every player of every game with everything the page keeps of them (images by content hash)."""
    blobs: dict[str, bytes] = {}
    players = [gamefile.player_record(p, blobs) for game in page.games for p in game.players]
    return [players, blobs, page.edition, [(g.harmony, g.middle_kingdom) for g in page.games]]


@pytest.fixture
def storage(tmp_path: Path):
    store = GameStore.open(f"sqlite:///{tmp_path}/games.sqlite3")
    yield StoreStorage(store)
    store.close()


def busy_page() -> PageState:
    """A scan with a correction, then a photo with no kingdom (the scan kept for Undo), a second player
    entered by hand on a 7×7 frame, a Dynasty's second game, and game-wide rules."""
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    accept.accept_failure(page, KingdomNotFoundError("no kingdom found"), PHOTO, "second.jpg")
    state.add_player(page, "Bea")
    state.enter_by_hand(page, 7)
    state.set_square(page, (0, 0), "lake", 1)
    page.edition, page.game.harmony, page.game.middle_kingdom = "nordic", True, True
    state.new_game(page)
    accept.accept_scan(page.player, fake_result(), photo_bytes(300, 200), "round2.jpg", photo_id="r2")
    return page


def test_a_saved_page_comes_back_whole_with_undo_history_and_images(storage: StoreStorage, tmp_path: Path):
    page = busy_page()
    assert storage.save("family", page, expected=0) == 1
    loaded = storage.load("family")
    assert records(loaded) == records(page) and loaded.stored_version == 1
    assert loaded.current_game == 1
    first = loaded.games[0].players[0]
    assert first.kingdom is None and first.message == "no kingdom found" and first.photo == PHOTO
    loaded.current_game = 0
    assert state.undo(loaded) and first.kingdom[(4, 4)] == Square(Terrain.MINE, 3)
    # A server restart: a new store on the same file finds the same game.
    with GameStore.open(f"sqlite:///{tmp_path}/games.sqlite3") as again:
        assert records(StoreStorage(again).load("family")) == records(page)
        summary = again.history()[0]
        assert summary.code == "family" and summary.kingdoms == 1 and summary.winners == ()
        line = views.history_line(summary)
        assert line.startswith("[family](?game=family)") and "2 games" in line and "no winner yet" in line


def test_saving_again_keeps_the_stored_boards_and_writes_only_the_change(storage: StoreStorage):
    page = busy_page()
    storage.save("family", page)
    before = storage.store.load("family", earlier=True)
    state.set_square(page, (1, 1), "wheat", 0)
    assert storage.save("family", page, expected=before.version) == before.version + 1
    after = storage.store.load("family", earlier=True)
    ids = [[b.id for b in (*p.earlier, p.board) if b] for p in before.players]
    assert [[b.id for b in (*p.earlier, p.board) if b] for p in after.players] == ids
    assert after.round_players(2)[0].kingdom[(1, 1)] == Square(Terrain.WHEAT, 0)
    assert state.undo(page) and not state.undo(page)  # the correction taken back; nothing before it
    storage.save("family", page)
    assert storage.store.load("family").round_players(2)[0].board.edits == ()
    state.select_game(page, 0)
    state.select_player(page, 0)
    assert state.undo(page)  # the photo without a kingdom goes, the corrected scan comes back
    storage.save("family", page)
    first = storage.store.load("family", earlier=True).players[0]
    assert first.board.id == ids[0][0] and first.earlier == () and first.kingdom[(4, 4)].crowns == 3


def test_two_phones_never_lose_each_others_edits(storage: StoreStorage, tmp_path: Path):
    with GameStore.open(f"sqlite:///{tmp_path}/games.sqlite3") as other_server:
        other = StoreStorage(other_server)
        phone_a = scanned_state()
        version_a = storage.save("table", phone_a, expected=0)
        phone_b, version_b = other.load("table"), other.version("table")
        state.set_square(phone_a, (0, 0), "mine", 2)
        version_a = storage.save("table", phone_a, expected=version_a)
        state.set_square(phone_b, (4, 4), "lake", 1)
        with pytest.raises(VersionConflict):
            other.save("table", phone_b, expected=version_b)
        # What the page does on a conflict: load the game again and redo the change.
        phone_b = other.load("table")
        state.set_square(phone_b, (4, 4), "lake", 1)
        other.save("table", phone_b, expected=other.version("table"))
        seen = storage.load("table").player.kingdom
        assert seen[(0, 0)] == Square(Terrain.MINE, 2) and seen[(4, 4)] == Square(Terrain.LAKE, 1)
        with pytest.raises(VersionConflict):
            storage.save("table", phone_a, expected=version_a)
        with pytest.raises(VersionConflict):
            other.save("table", PageState(), expected=0)  # a second "new game" under the same code


def test_the_demo_is_kept_unranked_without_its_photo(storage: StoreStorage):
    page = PageState()
    accept.accept_demo(page.player, fake_result(), PHOTO, "sample.jpg")
    state.add_player(page, "Bea")
    state.enter_by_hand(page)
    storage.save("demo-game", page)
    loaded = storage.load("demo-game")
    assert loaded.games[0].players[0].demo and loaded.games[0].players[0].photo is None
    assert loaded.games[0].players[0].preview_jpeg == page.games[0].players[0].preview_jpeg
    assert storage.store.load("demo-game").ranking() is None  # a demo and one kingdom: no winner


def test_open_game_through_the_store_says_why_in_one_line(storage: StoreStorage):
    assert open_game(storage, "bread") == (None, "")
    storage.save("bread", scanned_state(), 0)
    storage.store._db.execute("UPDATE boards SET scanned = '{not json'")  # a row changed by hand
    opened, message = open_game(storage, "bread")
    assert opened is None and "\n" not in message
    assert "could not be opened (board" in message and "game database is damaged" in message
    storage.store.close()  # a store that fails: the page starts afresh and says so
    opened, message = open_game(storage, "bread")
    assert opened is None and "could not be opened" in message and "\n" not in message
