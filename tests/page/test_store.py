"""The game store (page/store/) on SQLite and on a real PostgreSQL server: games kept across restarts,
no lost update between phones or page servers, and unusable databases refused without harm."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from kingdomino.scoring import score_kingdom
from page import store as store_module
from page.store import (
    DB_ENV,
    LATEST_SCHEMA,
    MIGRATIONS,
    GameStore,
    Reading,
    StaleBoard,
    StoreError,
    default_path,
    normalize_code,
    replacement_path,
    shown_url,
)
from tests.page.postgres_server import unavailable_reason

GAME_FILE = Path(__file__).with_name("game_file_v1.json")
BOARD = Kingdom.from_text(
    """
    G0 L0 F0 F0 F0
    G0 F0 F1 F1 G0
    G1 S2 C  F0 G0
    .  S0 L0 G2 G1
    F0 L1 L0 G0 W0
    """
)
BOARD_SCORE = 39

PG_SKIP = unavailable_reason()
BACKENDS = [
    "sqlite",
    pytest.param(
        "postgresql", marks=[pytest.mark.postgres, pytest.mark.skipif(bool(PG_SKIP), reason=PG_SKIP)]
    ),
]

OpenStore = Callable[[], GameStore]


@pytest.fixture(params=BACKENDS)
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenStore]:
    """Opens a new connection to one database each call (a second phone's server, or a restart)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/games.sqlite3"
    else:
        url = request.getfixturevalue("pg_url")
    opened: list[GameStore] = []

    def open_one() -> GameStore:
        store = GameStore.open(url)
        assert store.warning == "", store.warning
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


def scan_reading(kingdom: Kingdom = BOARD, source: str = "ann.jpg") -> Reading:
    size = kingdom.grid_size
    readings = tuple(
        tuple(
            SquareReading(sq.terrain, sq.crowns, 0.3 if (r, c) == (1, 2) else 0.97)
            for c, sq in enumerate(row)
        )
        for r, row in enumerate(kingdom.squares)
    )
    flagged = tuple(tuple((r, c) == (3, 3) for c in range(size)) for r in range(size))
    return Reading(
        kingdom,
        from_scan=True,
        readings=readings,
        flagged=flagged,
        corners=((10.5, 20.0), (900.0, 18.25), (905.0, 910.0), (12.0, 899.5)),
        photo_size=(1000, 950),
        grid_choice=5,
        source=source,
        notes=("glare on the lake",),
        scan_seconds=0.42,
    )


# --- one game, all its parts -------------------------------------------------------------------------


def test_a_game_round_trips_through_a_restart(open_store: OpenStore) -> None:
    store = open_store()
    code = store.create_game(["Ann", "Bob"], edition="nordic")
    assert normalize_code(code) == code and store.exists(code)
    ann, bob = (p.id for p in store.load(code).players)
    images = {"photo": b"\xff\xd8photo", "rectified": b"\xff\xd8rect", "overlay": b"\xff\xd8over"}
    board_id = store.save_reading(code, ann, scan_reading(), images)
    store.set_square(code, ann, (0, 0), Square(Terrain.FOREST, 1), board_id)
    store.set_square(code, ann, (4, 4), Square(Terrain.WHEAT, 2))
    store.save_reading(code, bob, Reading(Kingdom.empty(5), source="by hand"))
    store.resize(code, bob, 7)
    store.set_square(code, bob, (6, 6), Square(Terrain.MINE, 3))
    store.set_options(code, harmony=True, middle_kingdom=True)
    carol = store.add_player(code, "Carol")
    store.rename_player(code, carol, "Cy")
    before = store.load(code)
    store.close()

    reopened = open_store()
    game = reopened.load(code)
    assert game == before
    assert (game.edition, game.harmony, game.middle_kingdom) == ("nordic", True, True)
    assert [p.name for p in game.players] == ["Ann", "Bob", "Cy"]
    first = game.players[0]
    assert first.board is not None and first.board.id == board_id
    assert first.board.reading == scan_reading()
    assert set(first.board.images) == set(images)
    assert all(reopened.image(board_id, kind) == data for kind, data in images.items())
    assert reopened.image(board_id, "nothing") is None
    assert first.kingdom == BOARD.replace((0, 0), Square(Terrain.FOREST, 1)).replace(
        (4, 4), Square(Terrain.WHEAT, 2)
    )
    assert [e.kind for e in first.board.edits] == ["set", "set"]
    assert game.players[1].kingdom.grid_size == 7 and game.players[1].kingdom[(6, 6)] == Square(
        Terrain.MINE, 3
    )
    assert game.players[2].board is None
    assert game.version == reopened.version(code) and game.version > 1


def test_every_change_bumps_the_version(open_store: OpenStore) -> None:
    store = open_store()
    code = store.create_game(["Ann"])
    ann = store.load(code).players[0].id
    seen = [store.version(code)]
    store.save_reading(code, ann, scan_reading())
    seen.append(store.version(code))
    seen.append(store.set_square(code, ann, (0, 0), Square(Terrain.LAKE, 1)))
    seen.append(store.reset_to_scan(code, ann))
    seen.append(store.set_options(code, edition="nordic"))
    store.add_player(code)
    seen.append(store.version(code))
    assert seen == sorted(set(seen)), seen
    assert store.version("no-such-game") is None and store.load("no-such-game") is None


def test_undo_takes_back_corrections_then_brings_back_the_replaced_board(open_store: OpenStore) -> None:
    store = open_store()
    code = store.create_game(["Ann"])
    ann = store.load(code).players[0].id
    assert not store.undo(code, ann)
    first = store.save_reading(code, ann, scan_reading())
    store.set_square(code, ann, (0, 0), Square(Terrain.LAKE, 1))
    second = store.save_reading(code, ann, scan_reading(Kingdom.empty(5), "again.jpg"))
    store.set_square(code, ann, (0, 0), Square(Terrain.SWAMP, 0))
    player = store.load(code).players[0]
    assert player.board.id == second and player.earlier_boards == 1
    assert store.undo(code, ann)
    assert store.load(code).players[0].kingdom == Kingdom.empty(5)
    assert store.undo(code, ann)  # no correction left: the first board comes back with its correction
    player = store.load(code).players[0]
    assert player.board.id == first and player.kingdom[(0, 0)] == Square(Terrain.LAKE, 1)
    assert store.undo(code, ann) and store.load(code).players[0].kingdom == BOARD
    assert not store.undo(code, ann)


def test_undo_history_is_bounded(open_store: OpenStore) -> None:
    store = open_store()
    code = store.create_game(["Ann"])
    ann = store.load(code).players[0].id
    for n in range(store.settings.max_earlier_boards + 4):
        store.save_reading(code, ann, scan_reading(source=f"{n}.jpg"), {"photo": b"x" * 10})
    player = store.load(code).players[0]
    assert player.earlier_boards == store.settings.max_earlier_boards


def test_players_rounds_and_order(open_store: OpenStore) -> None:
    store = open_store()
    code = store.create_game(["Ann", "Bob"])
    ann, bob = (p.id for p in store.load(code).players)
    third = store.add_player(code)
    assert store.load(code).player(third).name == "Player 3"
    with pytest.raises(StoreError, match="already called"):
        store.add_player(code, "Ann")
    with pytest.raises(StoreError, match="already called"):
        store.rename_player(code, bob, "Ann")
    with pytest.raises(StoreError, match="needs a name"):
        store.rename_player(code, bob, "  ")
    store.reorder_players(code, [third, ann])
    assert [p.name for p in store.load(code).round_players()] == ["Player 3", "Ann", "Bob"]
    assert store.remove_player(code, third)
    assert store.new_round(code) == 2
    game = store.load(code)
    assert game.rounds == 2 and [p.name for p in game.round_players(2)] == ["Ann", "Bob"]
    store.rename_player(code, ann, "Anna")  # a Dynasty keeps its players: renamed in every round
    assert [p.name for p in store.load(code).players] == ["Anna", "Bob", "Anna", "Bob"]
    store.new_round(code)
    with pytest.raises(StoreError, match="3 rounds"):
        store.new_round(code)
    solo = store.create_game(["Solo"])
    assert not store.remove_player(solo, store.load(solo).players[0].id)


def test_history_lists_games_with_their_winners(open_store: OpenStore) -> None:
    store = open_store()
    won = store.create_game(["Ann", "Bob"])
    ann, bob = (p.id for p in store.load(won).players)
    store.save_reading(won, ann, scan_reading())
    assert store.history()[0].winners == ()  # one kingdom: no winner yet
    store.save_reading(won, bob, Reading(Kingdom.empty(5)))
    time.sleep(0.01)
    lonely = store.create_game(["Cy"])
    history = store.history()
    assert [h.code for h in history] == [lonely, won]
    assert history[1].players == ("Ann", "Bob") and history[1].winners == ("Ann",)
    assert dict(history[1].scores) == {"Ann": BOARD_SCORE, "Bob": 0}
    assert history[0].winners == () and history[0].scores == ()
    assert len(store.history(limit=1)) == 1
    # A correction that changes the winner shows on the next listing (another phone's too).
    other_phone = open_store()
    other_phone.history()
    for cell in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        other_phone.set_square(won, bob, cell, Square(Terrain.FOREST, 3))
    winners = {h.code: h.winners for h in store.history()}
    assert winners[won] == ("Bob",) and {h.code: h.winners for h in other_phone.history()} == winners


def test_a_dynasty_is_won_on_the_totals_once_every_round_has_every_kingdom(open_store: OpenStore) -> None:
    store = open_store()
    code = store.create_game(["Ann", "Bob"])
    ann, bob = (p.id for p in store.load(code).players)
    store.save_reading(code, ann, scan_reading())
    store.save_reading(code, bob, Reading(Kingdom.empty(5)))
    store.new_round(code)
    ann2, bob2 = (p.id for p in store.load(code).round_players(2))
    store.save_reading(code, bob2, scan_reading())
    store.set_square(code, bob2, (0, 0), Square(Terrain.GRASSLAND, 1))  # Bob's round 2 beats Ann's round 1
    # Round 2 is not complete: its own two kingdoms are not there yet, so round 1 decides for now.
    assert store.history()[0].winners == ("Ann",)
    store.save_reading(code, ann2, Reading(Kingdom.empty(5)))
    summary = store.history()[0]
    bob_total = score_kingdom(store.load(code).player(bob2).kingdom).total
    assert bob_total > BOARD_SCORE
    assert summary.rounds == 2 and summary.winners == ("Bob",)
    assert dict(summary.scores) == {"Ann": BOARD_SCORE, "Bob": bob_total}


def test_bad_requests_are_one_line_refusals(open_store: OpenStore) -> None:
    store = open_store()
    with pytest.raises(StoreError, match="not a game code"):
        store.ensure_game("a b/c")
    with pytest.raises(StoreError, match="no game"):
        store.add_player("missing")
    code = store.create_game(["Ann"])
    ann = store.load(code).players[0].id
    with pytest.raises(StoreError, match="no board"):
        store.set_square(code, ann, (0, 0), Square(Terrain.LAKE))
    store.save_reading(code, ann, scan_reading())
    with pytest.raises(StoreError, match="too large"):
        store.save_reading(code, ann, scan_reading(), {"photo": bytes(store.settings.max_image_bytes + 1)})
    with pytest.raises(StoreError, match="row or column"):
        store.set_square(code, ann, (9, 0), Square(Terrain.LAKE))
    with pytest.raises(StoreError, match="grid size"):
        store.resize(code, ann, 6)
    with pytest.raises(StoreError, match="edition"):
        store.set_options(code, edition="third")
    with pytest.raises(StoreError, match="no longer in the game"):
        store.set_square(code, 987654, (0, 0), Square(Terrain.LAKE))
    # Codes from a URL are not case-sensitive.
    assert store.ensure_game(code.upper()) is False and store.load(code.upper()).code == code
    assert store.version(code.upper()) == store.version(code)


# --- two phones, two servers -------------------------------------------------------------------------


def test_two_writers_on_different_squares_lose_nothing(open_store: OpenStore) -> None:
    phone_a, phone_b = open_store(), open_store()
    code = phone_a.create_game(["Ann"])
    assert phone_b.ensure_game(code) is False
    ann = phone_a.load(code).players[0].id
    board = phone_a.save_reading(code, ann, Reading(Kingdom.empty(7)))
    cells_a = [(r, c) for r in range(7) for c in range(7) if (r + c) % 2 == 0 and (r, c) != (3, 3)]
    cells_b = [(r, c) for r in range(7) for c in range(7) if (r + c) % 2 == 1]
    errors: list[BaseException] = []

    def edit(store: GameStore, cells: list, square: Square) -> None:
        try:
            for cell in cells:
                store.set_square(code, ann, cell, square, board)
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [
        threading.Thread(target=edit, args=(phone_a, cells_a, Square(Terrain.FOREST, 1))),
        threading.Thread(target=edit, args=(phone_b, cells_b, Square(Terrain.LAKE, 2))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for store in (phone_a, phone_b):
        kingdom = store.load(code).players[0].kingdom
        assert all(kingdom[cell] == Square(Terrain.FOREST, 1) for cell in cells_a)
        assert all(kingdom[cell] == Square(Terrain.LAKE, 2) for cell in cells_b)
    assert phone_a.version(code) == phone_b.version(code) == 2 + len(cells_a) + len(cells_b)


def test_the_last_edit_of_a_square_wins_and_the_other_phone_notices(open_store: OpenStore) -> None:
    phone_a, phone_b = open_store(), open_store()
    code = phone_a.create_game(["Ann", "Bob"])
    ann = phone_a.load(code).players[0].id
    phone_a.save_reading(code, ann, scan_reading())
    seen_by_b = phone_b.load(code)
    phone_a.set_square(code, ann, (0, 0), Square(Terrain.FOREST, 1))
    assert phone_b.version(code) > seen_by_b.version  # B's next interaction notices A's change
    phone_b.set_square(code, ann, (0, 0), Square(Terrain.WHEAT, 1))
    phone_a.set_square(code, ann, (0, 1), Square(Terrain.MINE, 2))
    for store in (phone_a, phone_b):
        kingdom = store.load(code).players[0].kingdom
        assert kingdom[(0, 0)] == Square(Terrain.WHEAT, 1) and kingdom[(0, 1)] == Square(Terrain.MINE, 2)


def test_an_edit_for_a_replaced_board_is_refused_and_changes_nothing(open_store: OpenStore) -> None:
    phone_a, phone_b = open_store(), open_store()
    code = phone_a.create_game(["Ann"])
    ann = phone_a.load(code).players[0].id
    old = phone_a.save_reading(code, ann, scan_reading())
    phone_b.save_reading(code, ann, scan_reading(Kingdom.empty(5), "retake.jpg"))
    version = phone_a.version(code)
    with pytest.raises(StaleBoard, match="another phone"):
        phone_a.set_square(code, ann, (0, 0), Square(Terrain.LAKE, 1), board_id=old)
    assert phone_a.load(code).players[0].kingdom == Kingdom.empty(5)
    assert phone_a.version(code) == version


WRITER = """
import sys
from kingdomino.board import Square, Terrain
from page.store import GameStore
url, code, player, board, parity, terrain = sys.argv[1:]
with GameStore.open(url) as store:
    assert store.warning == "", store.warning
    for r in range(7):
        for c in range(7):
            if (r + c) % 2 == int(parity) and (r, c) != (3, 3):
                store.set_square(code, int(player), (r, c), Square(Terrain(terrain), 1), int(board))
"""


def test_two_server_processes_on_one_sqlite_file_lose_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/shared.sqlite3"
    with GameStore.open(url) as store:
        code = store.create_game(["Ann"])
        ann = store.load(code).players[0].id
        board = store.save_reading(code, ann, Reading(Kingdom.empty(7)))
    root = Path(__file__).parents[2]
    servers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, url, code, str(ann), str(board), parity, terrain], cwd=root
        )
        for parity, terrain in (("0", "forest"), ("1", "lake"))
    ]
    assert [server.wait(timeout=60) for server in servers] == [0, 0]
    with GameStore.open(url) as store:
        kingdom = store.load(code).players[0].kingdom
    for (r, c), square in kingdom.cells():
        if (r, c) != (3, 3):
            assert square == Square(Terrain.FOREST if (r + c) % 2 == 0 else Terrain.LAKE, 1)


# --- the game file ------------------------------------------------------------------------------------


def test_the_page_game_file_imports_and_exports_unchanged(open_store: OpenStore) -> None:
    store = open_store()
    text = GAME_FILE.read_text()
    code = store.import_json(text)
    assert store.export_json(code) + "\n" == text
    game = store.load(code)
    assert game.edition == "nordic" and game.harmony and game.rounds == 2
    assert [p.name for p in game.round_players(1)] == ["Ann", "Bob", "Cy"]
    # Edits made after the import come after the imported ones.
    bob = game.round_players(1)[1]
    store.set_square(code, bob.id, (0, 0), Square(Terrain.LAKE, 0))
    assert store.load(code).player(bob.id).kingdom[(0, 0)] == Square(Terrain.LAKE, 0)
    assert store.undo(code, bob.id) and store.load(code).player(bob.id).kingdom == bob.kingdom
    with pytest.raises(StoreError, match="already exists"):
        store.import_json(text, code)
    assert store.import_json(text, "family-night") == "family-night"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: "{not json", "invalid JSON"),
        (lambda d: {**d, "format": "other"}, "format field"),
        (lambda d: {**d, "version": 9}, "version 9"),
        (lambda d: {**d, "games": []}, "1 to 3 games"),
        (lambda d: {**d, "games": [{"players": []}]}, "no players"),
        (lambda d: {**d, "games": [{"players": [{"name": ""}]}]}, "needs a name"),
        (
            lambda d: {**d, "games": [{"players": [{"name": "A", "corrections": [{"kind": "x"}]}]}]},
            "correction",
        ),
        (lambda d: {**d, "games": [{"players": [{"name": "A", "scanned": {"squares": 3}}]}]}, "invalid"),
        (
            lambda d: {**d, "games": [{"players": [{**d["games"][0]["players"][0], "kingdom": None}]}]},
            None,
        ),
        (
            lambda d: {
                **d,
                "games": [{"players": [{**d["games"][0]["players"][0], "corrections": []}]}],
            },
            "do not lead to the saved kingdom",
        ),
    ],
)
def test_bad_game_files_are_refused_in_one_line(change, message, tmp_path: Path) -> None:
    data = json.loads(GAME_FILE.read_text())
    changed = change(data)
    text = changed if isinstance(changed, str) else json.dumps(changed)
    with GameStore.open(f"sqlite:///{tmp_path}/g.sqlite3") as store:
        if message is None:
            assert store.load(store.import_json(text)).players[0].kingdom is not None
            return
        with pytest.raises(StoreError, match=message) as caught:
            store.import_json(text)
        assert "\n" not in str(caught.value)
        assert store.history() == []


# --- where the database is, and databases that cannot be used ---------------------------------------


def test_url_forms_and_the_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import DB_ENV as TESTS_DB_ENV

    assert TESTS_DB_ENV == DB_ENV  # the tests' throwaway database is set under the store's variable
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(DB_ENV, raising=False)
    assert default_path() == tmp_path / "data" / "kingdomino-scanner" / "games.sqlite3"
    with GameStore.open() as store:
        assert store.path == default_path() and store.warning == ""
    monkeypatch.setenv(DB_ENV, f"sqlite:///{tmp_path}/from-env.sqlite3")
    with GameStore.open() as store:
        assert store.path == tmp_path / "from-env.sqlite3"
    with GameStore.open(str(tmp_path / "plain.sqlite3")) as store:
        assert store.path == tmp_path / "plain.sqlite3"
    with GameStore.open(f"sqlite:////{tmp_path}/four-slashes.sqlite3") as store:
        assert store.path == tmp_path / "four-slashes.sqlite3"
    with GameStore.open("sqlite://:memory:") as store:
        assert store.path is None and store.kind == "sqlite" and store.warning == ""
        assert store.exists(store.create_game())
    with GameStore.open("mysql://somewhere/db") as store:
        assert "unknown database kind 'mysql'" in store.warning and store.exists(store.create_game())
    assert shown_url("postgresql://kim:secret@db:5432/games") == "postgresql://kim:***@db:5432/games"


def test_an_unreachable_postgres_server_gives_a_message_and_a_working_store() -> None:
    started = time.perf_counter()
    with GameStore.open("postgresql://nobody:pw@127.0.0.1:1/games") as store:
        assert store.warning.startswith(("cannot use the PostgreSQL database", f"{DB_ENV} names PostgreSQL"))
        assert "pw" not in store.warning and "\n" not in store.warning
        assert store.exists(store.create_game())
    assert time.perf_counter() - started < 10


def test_a_missing_folder_is_created(tmp_path: Path) -> None:
    path = tmp_path / "not" / "yet" / "there" / "games.sqlite3"
    with GameStore.open(f"sqlite:///{path}") as store:
        assert store.warning == "" and store.path == path
        code = store.create_game(["Ann"])
    with GameStore.open(f"sqlite:///{path}") as store:
        assert store.load(code).players[0].name == "Ann"


def test_a_folder_that_cannot_be_made_gives_a_message_and_a_memory_store(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with GameStore.open(f"sqlite:///{blocker}/games.sqlite3") as store:
        assert "games are kept in memory only" in store.warning and str(blocker) in store.warning
        assert store.path is None and store.exists(store.create_game())
    assert blocker.read_text() == "not a folder"


def _untouched(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.mark.parametrize(
    "content",
    [
        b"this is not a database\n" * 50,
        b"SQLite format 3\x00" + b"\x00\xff" * 600,  # a header and garbage: a truncated or damaged file
    ],
    ids=["text", "damaged"],
)
def test_a_corrupt_file_is_left_alone_and_a_fresh_store_opens_beside_it(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(content)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    before = _untouched(path)
    with GameStore.open(f"sqlite:///{path}") as store:
        fresh = replacement_path(path)
        assert store.path == fresh == tmp_path / "games.replacement.sqlite3"
        assert str(path) in store.warning and str(fresh) in store.warning and "left as it is" in store.warning
        assert "\n" not in store.warning
        code = store.create_game(["Ann"])
    assert _untouched(path) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("games.sqlite3")) == [
        "games.sqlite3"
    ]
    # A restart on the still-broken file finds the games kept beside it.
    with GameStore.open(f"sqlite:///{path}") as store:
        assert store.path == fresh and store.load(code) is not None and store.warning
    assert _untouched(path) == before


def test_a_read_only_file_says_so_once_and_each_change_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with GameStore.open(f"sqlite:///{path}") as store:
        code = store.create_game(["Ann"])
    if os.getuid() == 0:  # root writes through file modes: the file is made immutable instead
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("chattr cannot make a file immutable here")
    else:
        path.chmod(0o444)
    try:
        with GameStore.open(f"sqlite:///{path}") as store:
            assert store.warning.endswith("is read-only: its games open, but no change is kept")
            assert store.path == path and store.load(code).players[0].name == "Ann"
            with pytest.raises(StoreError, match="readonly") as caught:
                store.add_player(code, "Bob")
            assert "\n" not in str(caught.value)
    finally:
        if os.getuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], check=True)


def test_another_programs_database_and_a_newer_schema_are_not_written_to(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    newer = tmp_path / "newer.sqlite3"
    with sqlite3.connect(newer) as connection:
        connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        connection.execute("INSERT INTO schema_version VALUES (?)", (LATEST_SCHEMA + 1,))
    for path, reason in ((foreign, "another program"), (newer, "newer kingdomino-scanner")):
        before = _untouched(path)
        with GameStore.open(f"sqlite:///{path}") as store:
            assert reason in store.warning and store.path == replacement_path(path)
        assert _untouched(path) == before


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE boards SET scanned = '{not json' WHERE id = ?",
        'UPDATE boards SET scanned = \'{"squares": [[{"terrain": "lava"}]]}\' WHERE id = ?',
        "UPDATE edits SET terrain = 'lava' WHERE board = ?",
        "UPDATE edits SET row_index = NULL WHERE board = ?",
        'UPDATE boards SET scanned = \'{"squares": [[{"terrain": "wheat", "crowns": 1e999}]]}\' WHERE id = ?',
    ],
    ids=["not-json", "lava", "correction", "correction-outside", "crowns-overflow"],
)
def test_a_damaged_row_is_one_line_and_hides_no_other_game(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "games.sqlite3"
    with GameStore.open(f"sqlite:///{path}") as store:
        damaged, sound = store.create_game(["Ann"]), store.create_game(["Bob", "Cy"])
        for code in (damaged, sound):
            player = store.load(code).players[0].id
            board = store.save_reading(code, player, scan_reading())
            store.set_square(code, player, (0, 0), Square(Terrain.MINE, 1))
        board = store.load(damaged).players[0].board.id
    with sqlite3.connect(path) as connection:
        connection.execute(damage, (board,))
    with GameStore.open(f"sqlite:///{path}") as store:
        with pytest.raises(StoreError, match=f"board {board} in the game database is damaged") as caught:
            store.load(damaged)
        assert "\n" not in str(caught.value)
        assert sound in [h.code for h in store.history()]  # Past games still lists the others
        assert store.load(sound).players[0].board.kingdom[(0, 0)] == Square(Terrain.MINE, 1)


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE boards SET notes = '3', extras = '[1]' WHERE id = ?",
        "UPDATE boards SET corners = '[1, 2]' WHERE id = ?",
        "UPDATE boards SET readings = '{not json', photo_size = '[1]' WHERE id = ?",
        "UPDATE boards SET flagged = '[[1]]', notes = 'null' WHERE id = ?",
        "UPDATE boards SET corners = '[[1, 2], [3, 4], [5, 6]]', notes = '\"abc\"' WHERE id = ?",
        "UPDATE boards SET photo_size = '[1e999, 5]' WHERE id = ?",
    ],
    ids=["wrong-types", "corners", "readings", "flags-of-another-grid", "three-corners", "size-overflow"],
)
def test_a_scan_s_damaged_extras_are_left_out_and_the_board_kept(tmp_path: Path, damage: str) -> None:
    """The board and its corrections are what the player entered: damage to the scan's own extras costs only
    those (no reading to show, no squares marked), never the game."""
    path = tmp_path / "games.sqlite3"
    with GameStore.open(f"sqlite:///{path}") as store:
        code = store.create_game(["Ann"])
        player = store.load(code).players[0].id
        store.save_reading(code, player, scan_reading())
        store.set_square(code, player, (0, 0), Square(Terrain.MINE, 1))
        kept = store.load(code).players[0].board.kingdom
        board = store.load(code).players[0].board.id
    with sqlite3.connect(path) as connection:
        connection.execute(damage, (board,))
    with GameStore.open(f"sqlite:///{path}") as store:
        loaded = store.load(code).players[0].board
        assert loaded.kingdom == kept and loaded.kingdom[(0, 0)] == Square(Terrain.MINE, 1)
        assert code in [h.code for h in store.history()]
        assert loaded.reading.corners is None or len(loaded.reading.corners) == 4
        assert all(len(note) > 1 for note in loaded.reading.notes)


def test_a_damaged_earlier_board_costs_only_its_undo_step(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with GameStore.open(f"sqlite:///{path}") as store:
        code = store.create_game(["Ann"])
        player = store.load(code).players[0].id
        store.save_reading(code, player, scan_reading())
        first = store.load(code).players[0].board.id
        store.save_reading(code, player, scan_reading(source="again.jpg"))
        current = store.load(code).players[0].board
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE boards SET scanned = '{not json' WHERE id = ?", (first,))
    with GameStore.open(f"sqlite:///{path}") as store:
        loaded = store.load(code, earlier=True).players[0]
        assert loaded.board.id == current.id and loaded.board.kingdom == current.kingdom
        assert loaded.earlier == ()


def test_migrations_run_once_in_order_from_an_empty_database(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")  # an empty file is an empty SQLite database
    with GameStore.open(f"sqlite:///{empty}") as store:
        assert store.warning == "" and store.schema_version() == LATEST_SCHEMA
        code = store.create_game(["Ann"])
        later = (*MIGRATIONS, (LATEST_SCHEMA + 1, ("CREATE TABLE later_feature (x INTEGER)",)))
        store._migrate(later)
        store._migrate(later)  # a second run changes nothing (CREATE TABLE would fail if it ran again)
        assert store.schema_version() == LATEST_SCHEMA + 1
        assert store.load(code) is not None
    with sqlite3.connect(empty) as connection:
        versions = [r[0] for r in connection.execute("SELECT version FROM schema_version ORDER BY version")]
    assert versions == list(range(1, LATEST_SCHEMA + 2))
    # This version of the store does not know schema LATEST + 1: it leaves that file alone.
    with GameStore.open(f"sqlite:///{empty}") as store:
        assert "newer" in store.warning


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    with GameStore.open(f"sqlite:///{tmp_path}/g.sqlite3") as store:
        db = store._db.connection
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] == int(store.settings.busy_timeout_s * 1000)
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_psycopg_is_imported_only_for_postgresql_urls(tmp_path: Path) -> None:
    code = (
        "import sys; from page.store import GameStore; "
        f"GameStore.open('sqlite:///{tmp_path}/g.sqlite3').close(); "
        "assert 'psycopg' not in sys.modules, 'psycopg imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[2]
    )
    assert done.returncode == 0, done.stderr


# --- PostgreSQL: two page servers on one database ----------------------------------------------------


@pytest.mark.postgres
@pytest.mark.skipif(bool(PG_SKIP), reason=PG_SKIP)
def test_two_servers_share_a_game_and_survive_a_database_restart(pg_server, pg_url: str) -> None:
    server_a, server_b = GameStore.open(pg_url), GameStore.open(pg_url)
    try:
        assert server_a.warning == server_b.warning == "" and server_a.kind == "postgresql"
        code = server_a.create_game(["Ann", "Bob"])
        ann = server_b.load(code).players[0].id
        server_b.save_reading(code, ann, scan_reading())
        server_a.set_square(code, ann, (0, 0), Square(Terrain.FOREST, 1))
        server_b.set_square(code, ann, (0, 1), Square(Terrain.MINE, 2))
        expected = BOARD.replace((0, 0), Square(Terrain.FOREST, 1)).replace((0, 1), Square(Terrain.MINE, 2))
        assert server_a.load(code).players[0].kingdom == server_b.load(code).players[0].kingdom == expected
        # The database restarts under both servers: their next calls reconnect, nothing is lost.
        pg_server.restart()
        assert server_a.load(code).players[0].kingdom == expected
        server_b.set_square(code, ann, (4, 4), Square(Terrain.LAKE, 1))
        assert server_a.load(code).players[0].kingdom == expected.replace((4, 4), Square(Terrain.LAKE, 1))
    finally:
        server_a.close()
        server_b.close()
    assert store_module.GameStore.open(pg_url).load(code) is not None


@pytest.mark.parametrize(
    "name, problem", [("SQLITE_BUSY", False), ("SQLITE_LOCKED", False), ("SQLITE_IOERR", True)]
)
def test_a_database_another_server_is_writing_is_sound(tmp_path: Path, monkeypatch, name, problem) -> None:
    """Told by SQLite's error code, not its message: a busy or locked file is in use, not unreadable."""
    from page.store import opening

    path = tmp_path / "games.db"
    sqlite3.connect(path).close()

    class Busy:
        def execute(self, *args):
            error = sqlite3.OperationalError("some words")
            error.sqlite_errorname = name
            raise error

        def close(self):
            pass

    monkeypatch.setattr(opening.sqlite3, "connect", lambda *args, **kwargs: Busy())
    assert bool(opening.sqlite_problem(path)) is problem
