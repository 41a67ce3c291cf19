"""The game store's operations: games, players, boards and corrections, each change one transaction.

Every method that changes a game bumps the game's version first, in the same transaction, so writers of
one game queue behind each other and a page notices another phone's change with one cheap query.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from kingdomino.board import GRID_SIZES, Cell, Square
from kingdomino.ranking import EDITIONS
from page.edits import GameFileError, check_index
from page.store import schema
from page.store.backends import Backend
from page.store.codes import checked_code, key, new_code
from page.store.errors import (
    ConnectionLost,
    DamagedRecord,
    StaleBoard,
    StoreError,
    VersionConflict,
    first_line,
    shown,
)
from page.store.opening import open_database
from page.store.records import (
    MAX_ROUNDS,
    GameContent,
    GameSummary,
    Reading,
    StoredEdit,
    StoredGame,
    StoredPlayer,
    summarize,
)
from page.store.replace import write_content
from page.store.rows import insert_board, insert_edit, load_players
from page.store.savefile import game_to_json, parse_game_file
from page.store.settings import StoreSettings

_Method = TypeVar("_Method", bound=Callable[..., Any])


def _reconnecting(method: _Method) -> _Method:
    """Run a store operation again once when the server connection was lost (e.g. PostgreSQL restarted):
    the failed transaction was rolled back, and the retry opens a new connection."""

    @functools.wraps(method)
    def run(self: GameStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except ConnectionLost:
            return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]


class GameStore:
    """Games by code in an SQLite file or a PostgreSQL database; safe to share between threads.

    Open it with ``GameStore.open()``. Every method that changes a game writes at once, in one
    transaction, bumps the game's version and returns it (or the new id); a method given a code that
    names no game raises StoreError.
    """

    def __init__(
        self,
        backend: Backend,
        where: str,
        settings: StoreSettings,
        warning: str = "",
        path: Path | None = None,
        created: bool = False,
    ) -> None:
        self._db = backend
        self._lock = threading.RLock()
        #: History lines by game code, with the game version they were made from.
        self._summaries: dict[str, tuple[int, GameSummary]] = {}
        self.settings = settings
        #: The database in words, for the page ("SQLite file /path", "PostgreSQL postgresql://...").
        self.where = where
        #: One line when the store is not the one asked for (a corrupt file, an unreachable server...).
        self.warning = warning
        #: The SQLite file in use (None for PostgreSQL and memory).
        self.path = path
        #: True when that file did not exist and this store made it (a first start, or a lost file).
        self.created = created
        self.kind = backend.kind

    @classmethod
    def open(cls, url: str | None = None, settings: StoreSettings | None = None) -> GameStore:
        """The store at ``url``, else $KINGDOMINO_DB, else the per-user SQLite file. Never raises for a
        database that cannot be used: the store then runs on a fresh one and says so in ``warning``."""
        settings = settings or StoreSettings()
        opened = open_database(url, settings)
        return cls(opened.backend, opened.where, settings, opened.warning, opened.path, opened.created)

    def _migrate(self, migrations: Sequence[tuple[int, Sequence[str]]] = schema.MIGRATIONS) -> None:
        """Bring the schema up to the last of ``migrations`` (opening does it for this version's)."""
        with self._lock:
            schema.migrate(self._db, migrations)

    @_reconnecting
    def schema_version(self) -> int:
        with self._read():
            return schema.schema_version(self._db)

    def close(self) -> None:
        with self._lock:
            try:
                self._db.close()
            except self._db.errors:
                pass

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transactions -----------------------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[None]:
        with self._lock, self._failures(), self._db.transaction(write=False):
            yield

    @contextmanager
    def _write(self, code: str | None, expected: int | None = None) -> Iterator[int]:
        """A write transaction that bumps the game's version first (which also queues other writers of
        the same game behind this one); yields the new version. With ``expected``, the game must still
        be at that version (VersionConflict otherwise, nothing written)."""
        with self._lock, self._failures(), self._db.transaction(write=True):
            yield 0 if code is None else self._bump(code, expected)

    def _bump(self, code: str, expected: int | None) -> int:
        condition, params = ("", ()) if expected is None else (" AND version = ?", (expected,))
        row = self._db.execute(
            f"UPDATE games SET version = version + 1, updated_at = ? WHERE code = ?{condition} "
            "RETURNING version",
            (time.time(), code, *params),
        ).fetchone()
        if row is not None:
            return row[0]
        if (
            expected is not None
            and self._db.execute("SELECT 1 FROM games WHERE code = ?", (code,)).fetchone()
        ):
            raise VersionConflict("another phone changed this game first")
        raise StoreError(f"no game with the code {code!r}")

    @contextmanager
    def _failures(self) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except self._db.errors as error:
            if self._db.lost():
                raise ConnectionLost(f"the game database is out of reach: {first_line(error)}") from None
            raise StoreError(f"the game database failed: {first_line(error)}") from None

    # --- games ------------------------------------------------------------------------------------

    @_reconnecting
    def ensure_game(
        self,
        code: str,
        players: Sequence[str] = ("Player 1",),
        edition: str = "second",
        harmony: bool = False,
        middle_kingdom: bool = False,
    ) -> bool:
        """Create the game ``code`` unless it exists (two phones opening a new code at once make one
        game); True when this call created it."""
        checked = checked_code(code)
        with self._write(None):
            return self._insert_game(checked, edition, harmony, middle_kingdom, [list(players)]) is not None

    def create_game(
        self,
        players: Sequence[str] = ("Player 1",),
        edition: str = "second",
        harmony: bool = False,
        middle_kingdom: bool = False,
    ) -> str:
        """A new game under a fresh random code; returns the code."""
        for _ in range(20):
            code = new_code()
            if self.ensure_game(code, players, edition, harmony, middle_kingdom):
                return code
        raise StoreError("could not find a free game code")

    def _insert_game(
        self, code: str, edition: str, harmony: bool, middle_kingdom: bool, rounds: list[list[str]]
    ) -> list[list[int]] | None:
        """Insert a game and its players' rounds; None (and nothing written) when the code is taken."""
        if edition not in EDITIONS:
            raise StoreError(f"unknown edition {edition!r}")
        now = time.time()
        row = self._db.execute(
            "INSERT INTO games (code, created_at, updated_at, version, edition, harmony, middle_kingdom) "
            "VALUES (?, ?, ?, 1, ?, ?, ?) ON CONFLICT (code) DO NOTHING RETURNING code",
            (code, now, now, edition, int(harmony), int(middle_kingdom)),
        ).fetchone()
        if row is None:
            return None
        return [
            [
                self._insert_player(code, number, seat, name.strip() or f"Player {seat + 1}", now)
                for seat, name in enumerate(names)
            ]
            for number, names in enumerate(rounds, start=1)
        ]

    def exists(self, code: str) -> bool:
        return self.version(code) is not None

    @_reconnecting
    def version(self, code: str) -> int | None:
        """The game's change counter (None when there is no such game): one cheap query."""
        code = key(code)
        with self._read():
            row = self._db.execute("SELECT version FROM games WHERE code = ?", (code,)).fetchone()
        return None if row is None else row[0]

    @_reconnecting
    def load(self, code: str, earlier: bool = False) -> StoredGame | None:
        """The whole current game (images are fetched separately with ``image``); None if there is none.
        ``earlier``: with each player's earlier boards (what Undo brings back)."""
        code = key(code)
        with self._read():
            row = self._db.execute(
                "SELECT code, version, created_at, updated_at, edition, harmony, middle_kingdom "
                "FROM games WHERE code = ?",
                (code,),
            ).fetchone()
            if row is None:
                return None
            players = load_players(self._db, [code], earlier=earlier)[code]
        return StoredGame(row[0], row[1], row[2], row[3], row[4], bool(row[5]), bool(row[6]), tuple(players))

    @_reconnecting
    def history(self, limit: int = 50) -> list[GameSummary]:
        """Games, the most recently played first, with their players and winner(s).

        Summaries are kept by game version, so only the games changed since the last call are scored."""
        with self._read():
            rows = self._db.execute(
                "SELECT code, version, created_at, updated_at, edition, harmony, middle_kingdom FROM games "
                "ORDER BY updated_at DESC, code LIMIT ?",
                (int(limit),),
            ).fetchall()
            changed = [row[0] for row in rows if self._summaries.get(row[0], (None,))[0] != row[1]]
            players = self._readable_players(changed)
        for row in rows:
            if row[0] in players:
                game = StoredGame(
                    row[0], row[1], row[2], row[3], row[4], bool(row[5]), bool(row[6]), tuple(players[row[0]])
                )
                self._summaries[row[0]] = (row[1], summarize(game))
        # a game with a damaged row is left out, rather than hiding every other game
        current = [self._summaries.get(row[0]) for row in rows]
        return [kept[1] for kept, row in zip(current, rows, strict=True) if kept and kept[0] == row[1]]

    def _readable_players(self, codes: list[str]) -> dict[str, list[StoredPlayer]]:
        """The players of the games ``codes`` for the history, without the games a damaged row spoils."""
        try:
            return load_players(self._db, codes, light=True) if codes else {}
        except DamagedRecord:
            readable: dict[str, list[StoredPlayer]] = {}
            for code in codes:
                try:
                    readable |= load_players(self._db, [code], light=True)
                except DamagedRecord:
                    continue
            return readable

    @_reconnecting
    def set_options(
        self,
        code: str,
        edition: str | None = None,
        harmony: bool | None = None,
        middle_kingdom: bool | None = None,
    ) -> int:
        """Change the game-wide rule options (those given); returns the new version."""
        code = key(code)
        if edition is not None and edition not in EDITIONS:
            raise StoreError(f"unknown edition {edition!r}")
        with self._write(code) as version:
            for column, value in (
                ("edition", edition),
                ("harmony", harmony),
                ("middle_kingdom", middle_kingdom),
            ):
                if value is not None:
                    stored = value if column == "edition" else int(bool(value))
                    self._db.execute(f"UPDATE games SET {column} = ? WHERE code = ?", (stored, code))
        return version

    @_reconnecting
    def delete_game(self, code: str) -> bool:
        """Remove a game and everything in it (for a page's 'forget this game'); True when it existed."""
        code = key(code)
        with self._write(None):
            row = self._db.execute("DELETE FROM games WHERE code = ? RETURNING code", (code,)).fetchone()
        return row is not None

    # --- players ----------------------------------------------------------------------------------

    def _insert_player(self, code: str, round_number: int, seat: int, name: str, now: float) -> int:
        return self._db.execute(
            "INSERT INTO players (game, round, seat, name, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
            (code, round_number, seat, name, now),
        ).fetchone()[0]

    def _round_names(self, code: str, round_number: int) -> list[str]:
        return [
            r[0]
            for r in self._db.execute(
                "SELECT name FROM players WHERE game = ? AND round = ? ORDER BY seat, id",
                (code, round_number),
            )
        ]

    def _last_round(self, code: str) -> int:
        return self._db.execute("SELECT MAX(round) FROM players WHERE game = ?", (code,)).fetchone()[0] or 1

    def _player_round(self, code: str, player_id: int) -> tuple[int, str]:
        row = self._db.execute(
            "SELECT round, name FROM players WHERE id = ? AND game = ?", (player_id, code)
        ).fetchone()
        if row is None:
            raise StoreError("this player is no longer in the game (another phone removed them)")
        return row[0], row[1]

    @_reconnecting
    def add_player(self, code: str, name: str = "", round_number: int | None = None) -> int:
        """A new player at the end of the table (of the last round by default); the name defaults to
        'Player N'; returns the player's id."""
        code = key(code)
        name = name.strip()
        with self._write(code):
            number = round_number or self._last_round(code)
            names = self._round_names(code, number)
            if name in names:
                raise StoreError(f"another player is already called {name!r}")
            if not name:
                seat_number = len(names) + 1
                while f"Player {seat_number}" in names:
                    seat_number += 1
                name = f"Player {seat_number}"
            seat = self._db.execute(
                "SELECT COALESCE(MAX(seat) + 1, 0) FROM players WHERE game = ? AND round = ?", (code, number)
            ).fetchone()[0]
            return self._insert_player(code, number, seat, name, time.time())

    @_reconnecting
    def rename_player(self, code: str, player_id: int, name: str) -> int:
        """Rename a player in every round (a Dynasty keeps its players); returns the new version."""
        code = key(code)
        name = name.strip()
        if not name:
            raise StoreError("a player needs a name")
        with self._write(code) as version:
            round_number, old = self._player_round(code, player_id)
            if name != old and name in self._round_names(code, round_number):
                raise StoreError(f"another player is already called {name!r}")
            self._db.execute("UPDATE players SET name = ? WHERE game = ? AND name = ?", (name, code, old))
        return version

    @_reconnecting
    def remove_player(self, code: str, player_id: int) -> bool:
        """Drop a player and their boards from their round; the last player of a round stays."""
        code = key(code)
        with self._write(code):
            round_number, _ = self._player_round(code, player_id)
            if len(self._round_names(code, round_number)) <= 1:
                return False
            self._db.execute("DELETE FROM players WHERE id = ?", (player_id,))
        return True

    @_reconnecting
    def reorder_players(self, code: str, player_ids: Sequence[int]) -> int:
        """Seat the given players of one round in this order (the round's others keep theirs, after them)."""
        code = key(code)
        with self._write(code) as version:
            if player_ids:
                round_number, _ = self._player_round(code, player_ids[0])
                seated = [
                    r[0]
                    for r in self._db.execute(
                        "SELECT id FROM players WHERE game = ? AND round = ? ORDER BY seat, id",
                        (code, round_number),
                    )
                ]
                order = [i for i in player_ids if i in seated] + [i for i in seated if i not in player_ids]
                for seat, player_id in enumerate(order):
                    self._db.execute("UPDATE players SET seat = ? WHERE id = ?", (seat, player_id))
        return version

    @_reconnecting
    def new_round(self, code: str) -> int:
        """The next round of a Dynasty with the same players (empty boards); returns its number."""
        code = key(code)
        with self._write(code):
            last = self._last_round(code)
            if last >= MAX_ROUNDS:
                raise StoreError(f"a Dynasty has {MAX_ROUNDS} rounds")
            now = time.time()
            for seat, name in enumerate(self._round_names(code, last)):
                self._insert_player(code, last + 1, seat, name, now)
        return last + 1

    # --- boards and corrections -----------------------------------------------------------------

    @_reconnecting
    def save_reading(
        self, code: str, player_id: int, reading: Reading, images: dict[str, bytes] | None = None
    ) -> int:
        """A new board for the player (a scan, a re-read from corners, or a hand entry): it replaces the
        current one, which Undo can bring back. ``images`` are JPEG bytes by kind. Returns the board id."""
        code = key(code)
        self._check_images(images or {})
        with self._write(code):
            self._player_round(code, player_id)
            board_id = insert_board(self._db, player_id, reading, time.time(), images)
            keep = self.settings.max_earlier_boards + 1
            old = self._db.execute(
                "SELECT id FROM boards WHERE player = ? ORDER BY id DESC", (player_id,)
            ).fetchall()[keep:]
            for (old_id,) in old:
                self._db.execute("DELETE FROM boards WHERE id = ?", (old_id,))
        return board_id

    def _check_images(self, images: Mapping[str, bytes]) -> None:
        for kind, data in images.items():
            if len(data) > self.settings.max_image_bytes:
                raise StoreError(f"the {kind} image is too large to keep ({len(data) // 1000} kB)")

    @_reconnecting
    def images(self, board_ids: Sequence[int]) -> dict[tuple[int, str], bytes]:
        """The images stored with several boards, by (board id, kind), in one query."""
        if not board_ids:
            return {}
        marks = ", ".join("?" * len(board_ids))
        with self._read():
            rows = self._db.execute(
                f"SELECT board, kind, data FROM images WHERE board IN ({marks})", list(board_ids)
            ).fetchall()
        return {(board, kind): bytes(data) for board, kind, data in rows}

    @_reconnecting
    def image(self, board_id: int, kind: str) -> bytes | None:
        """An image stored with a board (it never changes for that board id)."""
        with self._read():
            row = self._db.execute(
                "SELECT data FROM images WHERE board = ? AND kind = ?", (board_id, kind)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def _current_board(self, code: str, player_id: int, board_id: int | None) -> int:
        self._player_round(code, player_id)
        row = self._db.execute("SELECT MAX(id) FROM boards WHERE player = ?", (player_id,)).fetchone()
        if row[0] is None:
            raise StoreError("this player has no board yet")
        if board_id is not None and board_id != row[0]:
            raise StaleBoard(
                "another phone has put a new board in place for this player; your change was not saved"
            )
        return row[0]

    @_reconnecting
    def _add_edit(self, code: str, player_id: int, edit: StoredEdit, board_id: int | None) -> int:
        code = key(code)
        with self._write(code) as version:
            board = self._current_board(code, player_id, board_id)
            insert_edit(self._db, board, version, edit, time.time())
        return version

    def set_square(
        self, code: str, player_id: int, cell: Cell, square: Square, board_id: int | None = None
    ) -> int:
        """Correct one square of the player's current board (of ``board_id`` when given: StaleBoard if
        another phone has replaced it). Other squares are not touched; returns the new version."""
        if not isinstance(square, Square):
            raise StoreError("a square needs a terrain and a crown count")
        try:
            r, c = check_index(cell[0]), check_index(cell[1])
        except GameFileError as error:
            raise StoreError(str(error)) from None
        return self._add_edit(code, player_id, StoredEdit("set", (r, c), square), board_id)

    def reset_to_scan(self, code: str, player_id: int, board_id: int | None = None) -> int:
        """Bring back the scanner's reading (itself undoable); returns the new version."""
        return self._add_edit(code, player_id, StoredEdit("reset"), board_id)

    def resize(self, code: str, player_id: int, grid_size: int, board_id: int | None = None) -> int:
        """Change the frame of the board (5×5 <-> 7×7), keeping it centred; returns the new version."""
        if grid_size not in GRID_SIZES:
            raise StoreError(f"grid size must be 5 or 7, got {shown(grid_size)}")
        return self._add_edit(code, player_id, StoredEdit("resize", grid_size=grid_size), board_id)

    @_reconnecting
    def undo(self, code: str, player_id: int) -> bool:
        """Take back the player's last correction (whichever phone made it); with none left, bring back
        the board the current one replaced. False when there is nothing to undo."""
        code = key(code)
        with self._write(code):
            self._player_round(code, player_id)
            boards = self._db.execute(
                "SELECT id FROM boards WHERE player = ? ORDER BY id DESC LIMIT 2", (player_id,)
            ).fetchall()
            if not boards:
                return False
            last = self._db.execute(
                "SELECT id FROM edits WHERE board = ? ORDER BY seq DESC, id DESC LIMIT 1", (boards[0][0],)
            ).fetchone()
            if last is not None:
                self._db.execute("DELETE FROM edits WHERE id = ?", (last[0],))
            elif len(boards) > 1:
                self._db.execute("DELETE FROM boards WHERE id = ?", (boards[0][0],))
            else:
                return False
        return True

    # --- a whole game at once -------------------------------------------------------------------

    @_reconnecting
    def replace_game(self, code: str, content: GameContent, expected_version: int | None = None) -> int:
        """Make the game hold ``content`` (players, boards, corrections, images), creating it if needed;
        returns the new version. With ``expected_version`` (0: the game must not exist yet) another
        phone's change in between raises VersionConflict and nothing is written, so no update is lost:
        the page loads the game again and redoes its change. Boards already stored are kept as they are."""
        code = checked_code(code)
        if content.edition not in EDITIONS:
            raise StoreError(f"unknown edition {content.edition!r}")
        for player in (p for players in content.rounds for p in players):
            for board in player.boards:
                self._check_images(board.images)
        with self._write(None):
            new = expected_version in (None, 0)
            if new and self._insert_game(code, content.edition, False, False, []) is not None:
                version = 1
            elif expected_version == 0:
                raise VersionConflict("another phone started this game first")
            else:
                version = self._bump(code, expected_version)
            keep = self.settings.max_earlier_boards
            write_content(self._db, code, content, version, time.time(), keep)
        return version

    # --- the game file --------------------------------------------------------------------------

    def export_json(self, code: str) -> str:
        """The game as the page's game file (format kingdomino-scanner/game, version 1); no images."""
        game = self.load(key(code))
        if game is None:
            raise StoreError(f"no game with the code {key(code)!r}")
        return game_to_json(game)

    @_reconnecting
    def import_json(self, text: str | bytes, code: str | None = None) -> str:
        """Store a game file as a new game (under ``code``, or a fresh code); returns the code.
        Raises StoreError with a one-line reason for a file that is not a valid game file."""
        edition, harmony, middle_kingdom, rounds = parse_game_file(text)
        names = [[name for name, _, _ in players] for players in rounds]
        checked = checked_code(code) if code is not None else None
        for _ in range(20):
            target = checked or new_code()
            with self._write(None):
                ids = self._insert_game(target, edition, harmony, middle_kingdom, names)
                if ids is not None:
                    now = time.time()
                    for players, player_ids in zip(rounds, ids, strict=True):
                        for (_, reading, edits), player_id in zip(players, player_ids, strict=True):
                            if reading is not None:
                                board_id = insert_board(self._db, player_id, reading, now)
                                # Sequence 0: before any later edit, in file order (by id).
                                for edit in edits:
                                    insert_edit(self._db, board_id, 0, edit, now)
                    return target
            if checked is not None:
                raise StoreError(f"a game with the code {checked!r} already exists")
        raise StoreError("could not find a free game code")
