"""The game store: every game at the table kept in a database, keyed by a short game code.

A game is what one table plays: its players (in seat order), up to three rounds (a Dynasty), the rule
options (edition, Harmony, Middle Kingdom), and for each player the board read from a photo (or entered by
hand) with the photo itself (downscaled JPEGs), the scanner's readings, the corners of the frame, and the
players' corrections. Every change is written as it happens, so a reload, a new tab, another phone or
another page server sees the same game.

Where the games live is a database URL, from ``GameStore.open(url)`` or the environment variable
``KINGDOMINO_DB``:

- nothing: an SQLite file in the user's data folder
  (``$XDG_DATA_HOME/kingdomino-scanner/games.sqlite3``, by default ``~/.local/share/...``);
- ``sqlite:///absolute/path/games.sqlite3``, or a plain file path: that SQLite file (``sqlite://:memory:``
  keeps the games in memory only);
- ``postgresql://user:password@host:port/dbname``: a PostgreSQL database shared by several page servers
  (needs ``pip install 'kingdomino-scanner[postgres]'``).

No lost update when several phones edit one game: a correction is a row of its own (board, square,
sequence number), appended and never rewritten, so saving one square never touches another; the last
edit of a square wins. Each change bumps the game's version, a counter a page compares with
``version(code)`` to notice another phone's change on its next interaction.

A database that cannot be used (a corrupt file, a folder that cannot be created, a server that does not
answer) never raises: the store says why in one line in ``store.warning`` and runs on a fresh one, an
SQLite file beside the broken one (``games.replacement.sqlite3``, found again at the next start) or,
when nothing can be written, memory. The old file is never deleted, moved or written to.
"""

from __future__ import annotations

import functools
import json
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

from kingdomino.board import GRID_SIZES, MAX_GRID_SIZE, BoardFormatError, Cell, Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from kingdomino.ranking import EDITIONS, GameRanking, dynasty, rank_game

#: The environment variable holding the database URL.
DB_ENV = "KINGDOMINO_DB"
APP_DIR = "kingdomino-scanner"
DB_FILE = "games.sqlite3"
#: The game file written by the page's "save game" (and read back by its "load game").
GAME_FORMAT = "kingdomino-scanner/game"
GAME_FORMAT_VERSION = 1
#: Rounds of one game: a Dynasty is three.
MAX_ROUNDS = 3
#: Letters of generated game codes: no 0/o, 1/l/i, so a code read aloud at the table is typed right.
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
CODE_LENGTH = 6
_CODE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{2,31}$")
#: How many replacement files are tried next to an unusable SQLite file before keeping games in memory.
MAX_REPLACEMENTS = 5


class StoreError(ValueError):
    """A store operation that cannot be done; the message is one line for the player."""


class _ConnectionLost(StoreError):
    """The database server went away mid-operation (nothing was written; the next try reconnects)."""


class StaleBoard(StoreError):
    """The change was meant for a board that another phone has since replaced; nothing was written."""


@dataclass(frozen=True)
class StoreSettings:
    """How the store talks to its database."""

    #: How long a writer waits for another writer of the same SQLite file.
    busy_timeout_s: float = 10.0
    #: How long to wait for a PostgreSQL server to answer a connection.
    connect_timeout_s: float = 5.0
    #: Boards a new reading replaced that Undo can bring back, per player.
    max_earlier_boards: int = 5
    #: Largest image kept with a board: the page stores downscaled JPEGs, never the phone's original.
    max_image_bytes: int = 4_000_000


# --- what the store holds ---------------------------------------------------------------------


@dataclass(frozen=True)
class StoredEdit:
    """One correction, as the page's Edit: set a square, go back to the scan, or change the frame size."""

    kind: str  # "set", "reset" or "resize"
    cell: Cell = (0, 0)
    square: Square | None = None
    grid_size: int = 0
    #: The game's version when the edit was written: edits replay in this order, so the last one wins.
    seq: int = 0
    at: float = 0.0

    def to_dict(self) -> dict:
        """The correction as the game file writes it."""
        if self.kind == "set":
            assert self.square is not None
            return {"kind": "set", "row": self.cell[0], "col": self.cell[1], **self.square.to_dict()}
        if self.kind == "resize":
            return {"kind": "resize", "grid_size": self.grid_size}
        return {"kind": "reset"}

    @classmethod
    def from_dict(cls, data: Any) -> StoredEdit:
        if not isinstance(data, dict) or data.get("kind") not in ("set", "reset", "resize"):
            raise StoreError(f"unknown correction {_shown(data)}")
        if data["kind"] == "set":
            return cls("set", (_index(data.get("row")), _index(data.get("col"))), Square.from_dict(data))
        if data["kind"] == "resize":
            if data.get("grid_size") not in GRID_SIZES:
                raise StoreError(f"grid size must be 5 or 7, got {_shown(data.get('grid_size'))}")
            return cls("resize", grid_size=data["grid_size"])
        return cls("reset")


@dataclass(frozen=True)
class Reading:
    """A board as read from a photo (or started by hand): what ``save_reading`` stores.

    ``corners`` are the frame's four corners (top-left, top-right, bottom-right, bottom-left) in pixels
    of an image ``photo_size`` = (width, height) large, so they can be scaled onto any stored copy.
    """

    base: Kingdom
    from_scan: bool = False
    readings: tuple[tuple[SquareReading, ...], ...] | None = None
    flagged: tuple[tuple[bool, ...], ...] | None = None
    corners: tuple[tuple[float, float], ...] | None = None
    photo_size: tuple[int, int] | None = None
    grid_choice: str | int = "auto"
    source: str = ""
    message: str = ""
    notes: tuple[str, ...] = ()
    scan_seconds: float | None = None


@dataclass(frozen=True)
class StoredBoard:
    """A player's current board: the reading, the corrections in order, and the images kept with it.

    A board's id is never reused and its reading and images never change, so the id is a safe cache key.
    """

    id: int
    reading: Reading
    edits: tuple[StoredEdit, ...]
    #: Kinds of images stored with the board (e.g. "photo", "rectified", "overlay"): ``GameStore.image``.
    images: tuple[str, ...]
    created_at: float

    @property
    def kingdom(self) -> Kingdom:
        """The reading with the corrections replayed, as the player sees it."""
        return apply_edits(self.reading.base, self.edits)


@dataclass(frozen=True)
class StoredPlayer:
    id: int
    name: str
    round: int
    seat: int
    board: StoredBoard | None
    #: Boards that new readings replaced, which Undo brings back once the corrections are all undone.
    earlier_boards: int = 0

    @property
    def kingdom(self) -> Kingdom | None:
        return None if self.board is None else self.board.kingdom


@dataclass(frozen=True)
class StoredGame:
    code: str
    version: int
    created_at: float
    updated_at: float
    edition: str
    harmony: bool
    middle_kingdom: bool
    #: Every player of every round, by round then seat.
    players: tuple[StoredPlayer, ...]

    @property
    def rounds(self) -> int:
        return max((p.round for p in self.players), default=1)

    def round_players(self, round_number: int | None = None) -> list[StoredPlayer]:
        """The players of one round (by default the last), in seat order."""
        number = self.rounds if round_number is None else round_number
        return [p for p in self.players if p.round == number]

    def player(self, player_id: int) -> StoredPlayer | None:
        return next((p for p in self.players if p.id == player_id), None)

    def ranking(self) -> GameRanking | None:
        """The winner(s): the Dynasty when every round has every kingdom, else the last round scored by
        two or more kingdoms; None while fewer than two players have one."""
        rounds = [
            {p.name: p.kingdom for p in self.round_players(n) if p.kingdom is not None}
            for n in range(1, self.rounds + 1)
        ]
        options = {"edition": self.edition, "harmony": self.harmony, "middle_kingdom": self.middle_kingdom}
        names = [{p.name for p in self.round_players(n)} for n in range(1, self.rounds + 1)]
        complete = all(set(r) == names[0] == n for r, n in zip(rounds, names, strict=True))
        if len(rounds) > 1 and complete and len(names[0]) >= 2:
            return dynasty(rounds, **options)
        for boards in reversed(rounds):
            if len(boards) >= 2:
                return rank_game(boards, **options)
        return None


@dataclass(frozen=True)
class GameSummary:
    """One line of the history page."""

    code: str
    created_at: float
    updated_at: float
    rounds: int
    players: tuple[str, ...]
    #: Empty while fewer than two players have a kingdom.
    winners: tuple[str, ...]
    #: Each player's total in the ranking that decided the winners (Dynasty totals when all rounds count).
    scores: tuple[tuple[str, int], ...]


def apply_edits(base: Kingdom, edits: Sequence[StoredEdit]) -> Kingdom:
    """Replay the corrections on a reading (the same rules as the page's Edit replay)."""
    kingdom = base
    for edit in edits:
        if edit.kind == "reset":
            kingdom = base
        elif edit.kind == "resize":
            kingdom = _resize(kingdom, edit.grid_size)
        elif edit.square is not None and all(0 <= i < kingdom.grid_size for i in edit.cell):
            kingdom = kingdom.replace(edit.cell, edit.square)
    return kingdom


def _resize(kingdom: Kingdom, grid_size: int) -> Kingdom:
    """The same kingdom in a larger or smaller frame, centred, so the castle stays in the middle."""
    offset = (grid_size - kingdom.grid_size) // 2
    rows = []
    for r in range(grid_size):
        row = []
        for c in range(grid_size):
            source = (r - offset, c - offset)
            inside = all(0 <= i < kingdom.grid_size for i in source)
            row.append(kingdom[source] if inside else Square(Terrain.EMPTY))
        rows.append(row)
    return Kingdom.from_rows(rows)


def _index(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_GRID_SIZE:
        raise StoreError(f"a correction names an invalid row or column {_shown(value)}")
    return value


def _shown(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def normalize_code(text: str | None) -> str | None:
    """A game code as typed or taken from a URL, lower-cased; None when it cannot be a game code."""
    if not isinstance(text, str):
        return None
    code = text.strip().lower()
    return code if _CODE_RE.match(code) else None


def _key(code: str) -> str:
    """The stored form of a code (lower case), so a code typed in capitals finds its game."""
    return normalize_code(code) or code


def _checked_code(code: str) -> str:
    checked = normalize_code(code)
    if checked is None:
        raise StoreError(f"{_shown(code)} is not a game code (3-32 letters, digits, - or _)")
    return checked


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


# --- where the database is ---------------------------------------------------------------------


def default_path() -> Path:
    """The per-user SQLite file: $XDG_DATA_HOME/kingdomino-scanner/games.sqlite3 (~/.local/share/...)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / APP_DIR / DB_FILE


def replacement_path(path: Path, number: int = 1) -> Path:
    """Where games go when ``path`` cannot be used: games.sqlite3 -> games.replacement.sqlite3 (-2, ...).

    The name is the same at every start, so a server restarted on a still-broken file finds its games.
    """
    suffix = "" if number == 1 else f"-{number}"
    return path.with_name(f"{path.stem}.replacement{suffix}{path.suffix or '.sqlite3'}")


def shown_url(url: str) -> str:
    """A database URL safe to show: the password replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


# --- SQL ------------------------------------------------------------------------------------------

#: Ordered migrations; each step runs once, in one transaction, and is recorded in schema_version.
#: {id}, {ref}, {real} and {blob} stand for the dialect's auto-increment key, the type referring to one,
#: float and bytes.
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            """CREATE TABLE games (
                code TEXT PRIMARY KEY,
                created_at {real} NOT NULL,
                updated_at {real} NOT NULL,
                version INTEGER NOT NULL,
                edition TEXT NOT NULL,
                harmony INTEGER NOT NULL,
                middle_kingdom INTEGER NOT NULL)""",
            "CREATE INDEX games_updated ON games (updated_at)",
            """CREATE TABLE players (
                id {id},
                game TEXT NOT NULL REFERENCES games (code) ON DELETE CASCADE,
                round INTEGER NOT NULL,
                seat INTEGER NOT NULL,
                name TEXT NOT NULL,
                created_at {real} NOT NULL)""",
            "CREATE INDEX players_game ON players (game, round, seat)",
            """CREATE TABLE boards (
                id {id},
                player {ref} NOT NULL REFERENCES players (id) ON DELETE CASCADE,
                created_at {real} NOT NULL,
                from_scan INTEGER NOT NULL,
                scanned TEXT NOT NULL,
                readings TEXT,
                flagged TEXT,
                corners TEXT,
                photo_size TEXT,
                grid_choice TEXT NOT NULL,
                source TEXT NOT NULL,
                message TEXT NOT NULL,
                notes TEXT NOT NULL,
                scan_seconds {real})""",
            "CREATE INDEX boards_player ON boards (player, id)",
            """CREATE TABLE images (
                board {ref} NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                data {blob} NOT NULL,
                PRIMARY KEY (board, kind))""",
            """CREATE TABLE edits (
                id {id},
                board {ref} NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                at {real} NOT NULL,
                kind TEXT NOT NULL,
                row_index INTEGER,
                col_index INTEGER,
                terrain TEXT,
                crowns INTEGER,
                grid_size INTEGER)""",
            "CREATE INDEX edits_board ON edits (board, seq)",
        ),
    ),
)
LATEST_SCHEMA = MIGRATIONS[-1][0]

_TYPES = {
    # AUTOINCREMENT: ids are never reused, so a board id stays a safe cache key for its images.
    "sqlite": {"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "ref": "INTEGER", "real": "REAL", "blob": "BLOB"},
    "postgresql": {
        "id": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        "ref": "BIGINT",
        "real": "DOUBLE PRECISION",
        "blob": "BYTEA",
    },
}


class _Backend:
    """One connection to SQLite or PostgreSQL, used by one thread at a time; SQL is written with ``?``."""

    kind = "sqlite"
    #: The driver's exceptions, reported as one-line StoreErrors.
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, connection: Any) -> None:
        self.connection = connection

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.connection.execute(sql, tuple(params))

    @contextmanager
    def transaction(self, write: bool) -> Iterator[None]:
        raise NotImplementedError

    def lost(self) -> bool:
        """True when the connection itself is gone (a restarted server), so a retry may reconnect."""
        return False

    def lock_schema(self) -> None:
        """Keep two servers starting at once from migrating together (SQLite's write lock does it)."""

    def close(self) -> None:
        self.connection.close()


class _SQLite(_Backend):
    @contextmanager
    def transaction(self, write: bool) -> Iterator[None]:
        # IMMEDIATE takes the write lock up front, so two writers queue instead of failing mid-way.
        self.connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")


class _Postgres(_Backend):
    kind = "postgresql"

    def __init__(self, connection: Any, connect: Any, error: type[BaseException]) -> None:
        super().__init__(connection)
        self._connect = connect
        self.errors = (sqlite3.Error, error)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.connection.execute(sql.replace("?", "%s"), tuple(params))

    @contextmanager
    def transaction(self, write: bool) -> Iterator[None]:
        if self.connection.closed or self.connection.broken:
            self.connection = self._connect()
        with self.connection.transaction():
            if not write:
                # One snapshot for the several queries of a load.
                self.connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield

    def lost(self) -> bool:
        return bool(self.connection.closed or self.connection.broken)

    def lock_schema(self) -> None:
        self.connection.execute("SELECT pg_advisory_xact_lock(5262011)")


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _reconnecting(method: _Method) -> _Method:
    """Run a store operation again once when the server connection was lost (e.g. PostgreSQL restarted):
    the failed transaction was rolled back, and the retry opens a new connection."""

    @functools.wraps(method)
    def run(self: GameStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except _ConnectionLost:
            return method(self, *args, **kwargs)

    return run  # type: ignore[return-value]


class _NotOurs(Exception):
    """A database this store must not write to (another program's, or a newer schema)."""


# --- the store ------------------------------------------------------------------------------------


class GameStore:
    """Games by code in an SQLite file or a PostgreSQL database; safe to share between threads.

    Open it with ``GameStore.open()``. Every method that changes a game writes at once, in one
    transaction, bumps the game's version and returns it (or the new id); a method given a code that
    names no game raises StoreError.
    """

    def __init__(
        self,
        backend: _Backend,
        where: str,
        settings: StoreSettings,
        warning: str = "",
        path: Path | None = None,
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
        self.kind = backend.kind

    # --- opening ----------------------------------------------------------------------------------

    @classmethod
    def open(cls, url: str | None = None, settings: StoreSettings | None = None) -> GameStore:
        """The store at ``url``, else $KINGDOMINO_DB, else the per-user SQLite file. Never raises for a
        database that cannot be used: the store then runs on a fresh one and says so in ``warning``."""
        settings = settings or StoreSettings()
        url = (url if url is not None else os.environ.get(DB_ENV, "")).strip()
        if url.startswith(("postgresql://", "postgres://")):
            return cls._open_postgres(url, settings)
        if url.startswith("sqlite:"):
            rest = url[len("sqlite:") :]
            rest = rest[2:] if rest.startswith("//") else rest
            if rest in ("", "/:memory:", ":memory:"):
                return cls._memory(settings)
            rest = "/" + rest.lstrip("/") if rest.startswith("/") else rest
            return cls._open_sqlite(Path(os.path.expanduser(rest)), settings)
        if "://" in url:
            scheme = url.split("://", 1)[0]
            return cls._memory(
                settings,
                f"{DB_ENV}: unknown database kind {scheme!r} (use sqlite:///path or postgresql://...); "
                "games are kept in memory only until the server stops",
            )
        return cls._open_sqlite(Path(os.path.expanduser(url)) if url else default_path(), settings)

    @classmethod
    def _memory(cls, settings: StoreSettings, warning: str = "") -> GameStore:
        connection = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        connection.execute("PRAGMA foreign_keys = ON")
        store = cls(_SQLite(connection), "memory (games are lost when the server stops)", settings, warning)
        store._migrate()
        return store

    @classmethod
    def _open_sqlite(cls, path: Path, settings: StoreSettings) -> GameStore:
        first_problem = ""
        for number in range(MAX_REPLACEMENTS + 1):
            candidate = path if number == 0 else replacement_path(path, number)
            problem = _sqlite_problem(candidate)
            if not problem:
                try:
                    store = cls._connect_sqlite(candidate, settings)
                except (sqlite3.Error, OSError, _NotOurs) as error:
                    problem = f"cannot be opened ({_first_line(error)})"
                else:
                    if number:
                        store.warning = (
                            f"the game database {path} {first_problem}; it was left as it is, and games "
                            f"are now kept in {candidate}"
                        )
                    return store
            first_problem = first_problem or problem
        return cls._memory(
            settings,
            f"the game database {path} {first_problem}; it was left as it is, and games are kept in memory "
            "only until the server stops",
        )

    @classmethod
    def _connect_sqlite(cls, path: Path, settings: StoreSettings) -> GameStore:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            str(path), timeout=settings.busy_timeout_s, check_same_thread=False, isolation_level=None
        )
        try:
            connection.execute(f"PRAGMA busy_timeout = {int(settings.busy_timeout_s * 1000)}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute("PRAGMA foreign_keys = ON")
            store = cls(_SQLite(connection), f"SQLite file {path}", settings, path=path)
            store._migrate()
        except BaseException:
            connection.close()
            raise
        return store

    @classmethod
    def _open_postgres(cls, url: str, settings: StoreSettings) -> GameStore:
        shown = shown_url(url)
        try:
            import psycopg  # noqa: PLC0415 - imported only for PostgreSQL URLs
        except ImportError:
            return cls._memory(
                settings,
                f"{DB_ENV} names PostgreSQL but psycopg is not installed "
                "(pip install 'kingdomino-scanner[postgres]'); games are kept in memory only",
            )

        def connect() -> Any:
            return psycopg.connect(
                url, autocommit=True, connect_timeout=max(1, round(settings.connect_timeout_s))
            )

        try:
            backend = _Postgres(connect(), connect, psycopg.Error)
            store = cls(backend, f"PostgreSQL {shown}", settings)
            store._migrate()
        except (psycopg.Error, _NotOurs, StoreError) as error:
            return cls._memory(
                settings,
                f"cannot use the PostgreSQL database {shown} ({_first_line(error)}); "
                "games are kept in memory only until the server stops",
            )
        return store

    def _migrate(self, migrations: Sequence[tuple[int, Sequence[str]]] = MIGRATIONS) -> None:
        """Bring the schema up to the last of ``migrations``, each step once and in order."""
        types = _TYPES[self._db.kind]
        latest = migrations[-1][0]
        with self._db.transaction(write=True):
            self._db.lock_schema()
            self._db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()
            current = row[0] or 0
            if current > latest:
                raise _NotOurs(f"written by a newer kingdomino-scanner (schema {current})")
            for version, statements in migrations:
                if version > current:
                    for statement in statements:
                        self._db.execute(statement.format(**types))
                    self._db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    @_reconnecting
    def schema_version(self) -> int:
        with self._read():
            return self._db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]

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
    def _write(self, code: str | None) -> Iterator[int]:
        """A write transaction that bumps the game's version first (which also queues other writers of
        the same game behind this one); yields the new version."""
        with self._lock, self._failures(), self._db.transaction(write=True):
            version = 0
            if code is not None:
                row = self._db.execute(
                    "UPDATE games SET version = version + 1, updated_at = ? WHERE code = ? RETURNING version",
                    (time.time(), code),
                ).fetchone()
                if row is None:
                    raise StoreError(f"no game with the code {code!r}")
                version = row[0]
            yield version

    @contextmanager
    def _failures(self) -> Iterator[None]:
        try:
            yield
        except StoreError:
            raise
        except self._db.errors as error:
            if self._db.lost():
                raise _ConnectionLost(f"the game database is out of reach: {_first_line(error)}") from None
            raise StoreError(f"the game database failed: {_first_line(error)}") from None

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
        checked = _checked_code(code)
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
        code = _key(code)
        with self._read():
            row = self._db.execute("SELECT version FROM games WHERE code = ?", (code,)).fetchone()
        return None if row is None else row[0]

    @_reconnecting
    def load(self, code: str) -> StoredGame | None:
        """The whole current game (images are fetched separately with ``image``); None if there is none."""
        code = _key(code)
        with self._read():
            row = self._db.execute(
                "SELECT code, version, created_at, updated_at, edition, harmony, middle_kingdom "
                "FROM games WHERE code = ?",
                (code,),
            ).fetchone()
            if row is None:
                return None
            players = self._players([code])[code]
        return StoredGame(row[0], row[1], row[2], row[3], row[4], bool(row[5]), bool(row[6]), tuple(players))

    def _players(self, codes: Sequence[str], light: bool = False) -> dict[str, list[StoredPlayer]]:
        """Players of several games with their current boards, in a fixed number of queries (``light``:
        without the per-square readings, which the history does not need)."""
        marks = ", ".join("?" * len(codes))
        players = self._db.execute(
            f"SELECT id, game, name, round, seat FROM players WHERE game IN ({marks}) "
            "ORDER BY game, round, seat, id",
            codes,
        ).fetchall()
        latest = self._db.execute(
            "SELECT b.player, MAX(b.id), COUNT(*) FROM boards b JOIN players p ON p.id = b.player "
            f"WHERE p.game IN ({marks}) GROUP BY b.player",
            codes,
        ).fetchall()
        counts = {player: count for player, _, count in latest}
        current: dict[int, Any] = {}
        if latest:
            board_marks = ", ".join("?" * len(latest))
            for board in self._db.execute(
                "SELECT id, player, created_at, from_scan, scanned, "
                + ("NULL, NULL, NULL, NULL, " if light else "readings, flagged, corners, photo_size, ")
                + "grid_choice, source, message, notes, scan_seconds "
                + f"FROM boards WHERE id IN ({board_marks})",
                [board_id for _, board_id, _ in latest],
            ):
                current[board[1]] = board
        ids = [board[0] for board in current.values()]
        edits: dict[int, list[StoredEdit]] = {i: [] for i in ids}
        images: dict[int, list[str]] = {i: [] for i in ids}
        if ids:
            id_marks = ", ".join("?" * len(ids))
            for e in self._db.execute(
                "SELECT board, kind, row_index, col_index, terrain, crowns, grid_size, seq, at FROM edits "
                f"WHERE board IN ({id_marks}) ORDER BY seq, id",
                ids,
            ):
                square = Square(Terrain(e[4]), e[5]) if e[1] == "set" else None
                cell = (e[2], e[3]) if e[1] == "set" else (0, 0)
                edits[e[0]].append(StoredEdit(e[1], cell, square, e[6] or 0, e[7], e[8]))
            for board_id, kind in self._db.execute(
                f"SELECT board, kind FROM images WHERE board IN ({id_marks}) ORDER BY kind", ids
            ):
                images[board_id].append(kind)
        result: dict[str, list[StoredPlayer]] = {code: [] for code in codes}
        for player_id, game, name, round_number, seat in players:
            board = current.get(player_id)
            stored = None
            if board is not None:
                stored = StoredBoard(
                    board[0],
                    _reading_from_row(board),
                    tuple(edits[board[0]]),
                    tuple(images[board[0]]),
                    board[2],
                )
            earlier = max(0, counts.get(player_id, 0) - 1)
            result[game].append(StoredPlayer(player_id, name, round_number, seat, stored, earlier))
        return result

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
            players = self._players(changed, light=True) if changed else {}
        for row in rows:
            if row[0] in players:
                game = StoredGame(
                    row[0], row[1], row[2], row[3], row[4], bool(row[5]), bool(row[6]), tuple(players[row[0]])
                )
                self._summaries[row[0]] = (row[1], _summary(game))
        return [self._summaries[row[0]][1] for row in rows]

    @_reconnecting
    def set_options(
        self,
        code: str,
        edition: str | None = None,
        harmony: bool | None = None,
        middle_kingdom: bool | None = None,
    ) -> int:
        """Change the game-wide rule options (those given); returns the new version."""
        code = _key(code)
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
        code = _key(code)
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
        code = _key(code)
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
        code = _key(code)
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
        code = _key(code)
        with self._write(code):
            round_number, _ = self._player_round(code, player_id)
            if len(self._round_names(code, round_number)) <= 1:
                return False
            self._db.execute("DELETE FROM players WHERE id = ?", (player_id,))
        return True

    @_reconnecting
    def reorder_players(self, code: str, player_ids: Sequence[int]) -> int:
        """Seat the given players of one round in this order (the round's others keep theirs, after them)."""
        code = _key(code)
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
        code = _key(code)
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
        code = _key(code)
        for kind, data in (images or {}).items():
            if len(data) > self.settings.max_image_bytes:
                raise StoreError(f"the {kind} image is too large to keep ({len(data) // 1000} kB)")
        with self._write(code):
            self._player_round(code, player_id)
            board_id = self._insert_board(player_id, reading, time.time())
            for kind, data in (images or {}).items():
                if data:
                    self._db.execute(
                        "INSERT INTO images (board, kind, data) VALUES (?, ?, ?)",
                        (board_id, kind, bytes(data)),
                    )
            keep = self.settings.max_earlier_boards + 1
            old = self._db.execute(
                "SELECT id FROM boards WHERE player = ? ORDER BY id DESC", (player_id,)
            ).fetchall()[keep:]
            for (old_id,) in old:
                self._db.execute("DELETE FROM boards WHERE id = ?", (old_id,))
        return board_id

    def _insert_board(self, player_id: int, reading: Reading, now: float) -> int:
        return self._db.execute(
            "INSERT INTO boards (player, created_at, from_scan, scanned, readings, flagged, corners, "
            "photo_size, grid_choice, source, message, notes, scan_seconds) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (player_id, now, *_reading_to_row(reading)),
        ).fetchone()[0]

    def _insert_edit(self, board_id: int, seq: int, edit: StoredEdit, now: float) -> None:
        square = edit.square if edit.kind == "set" else None
        self._db.execute(
            "INSERT INTO edits (board, seq, at, kind, row_index, col_index, terrain, crowns, grid_size) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                board_id,
                seq,
                now,
                edit.kind,
                edit.cell[0] if square else None,
                edit.cell[1] if square else None,
                square.terrain.value if square else None,
                square.crowns if square else None,
                edit.grid_size if edit.kind == "resize" else None,
            ),
        )

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
        code = _key(code)
        with self._write(code) as version:
            board = self._current_board(code, player_id, board_id)
            self._insert_edit(board, version, edit, time.time())
        return version

    def set_square(
        self, code: str, player_id: int, cell: Cell, square: Square, board_id: int | None = None
    ) -> int:
        """Correct one square of the player's current board (of ``board_id`` when given: StaleBoard if
        another phone has replaced it). Other squares are not touched; returns the new version."""
        r, c = cell
        if not isinstance(square, Square):
            raise StoreError("a square needs a terrain and a crown count")
        return self._add_edit(code, player_id, StoredEdit("set", (_index(r), _index(c)), square), board_id)

    def reset_to_scan(self, code: str, player_id: int, board_id: int | None = None) -> int:
        """Bring back the scanner's reading (itself undoable); returns the new version."""
        return self._add_edit(code, player_id, StoredEdit("reset"), board_id)

    def resize(self, code: str, player_id: int, grid_size: int, board_id: int | None = None) -> int:
        """Change the frame of the board (5×5 <-> 7×7), keeping it centred; returns the new version."""
        if grid_size not in GRID_SIZES:
            raise StoreError(f"grid size must be 5 or 7, got {_shown(grid_size)}")
        return self._add_edit(code, player_id, StoredEdit("resize", grid_size=grid_size), board_id)

    @_reconnecting
    def undo(self, code: str, player_id: int) -> bool:
        """Take back the player's last correction (whichever phone made it); with none left, bring back
        the board the current one replaced. False when there is nothing to undo."""
        code = _key(code)
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

    # --- the game file --------------------------------------------------------------------------

    def export_json(self, code: str) -> str:
        """The game as the page's game file (format kingdomino-scanner/game, version 1); no images."""
        code = _key(code)
        game = self.load(code)
        if game is None:
            raise StoreError(f"no game with the code {code!r}")
        rounds = []
        for number in range(1, game.rounds + 1):
            players = [_player_to_dict(p) for p in game.round_players(number)]
            rounds.append(
                {
                    "harmony": game.harmony,
                    "middle_kingdom": game.middle_kingdom,
                    "current_player": 0,
                    "players": players,
                }
            )
        data = {
            "format": GAME_FORMAT,
            "version": GAME_FORMAT_VERSION,
            "edition": game.edition,
            "current_game": game.rounds - 1,
            "games": rounds,
        }
        return json.dumps(data, indent=1)

    @_reconnecting
    def import_json(self, text: str | bytes, code: str | None = None) -> str:
        """Store a game file as a new game (under ``code``, or a fresh code); returns the code.
        Raises StoreError with a one-line reason for a file that is not a valid game file."""
        edition, harmony, middle_kingdom, rounds = parse_game_file(text)
        names = [[name for name, _, _ in players] for players in rounds]
        checked = _checked_code(code) if code is not None else None
        for _ in range(20):
            target = checked or new_code()
            with self._write(None):
                ids = self._insert_game(target, edition, harmony, middle_kingdom, names)
                if ids is not None:
                    now = time.time()
                    for players, player_ids in zip(rounds, ids, strict=True):
                        for (_, reading, edits), player_id in zip(players, player_ids, strict=True):
                            if reading is not None:
                                board_id = self._insert_board(player_id, reading, now)
                                # Sequence 0: before any later edit, in file order (by id).
                                for edit in edits:
                                    self._insert_edit(board_id, 0, edit, now)
                    return target
            if checked is not None:
                raise StoreError(f"a game with the code {checked!r} already exists")
        raise StoreError("could not find a free game code")


# --- rows <-> readings -------------------------------------------------------------------------------


def _reading_to_row(reading: Reading) -> tuple:
    readings = (
        json.dumps([[r.to_dict() for r in row] for row in reading.readings]) if reading.readings else None
    )
    flagged = json.dumps([[bool(v) for v in row] for row in reading.flagged]) if reading.flagged else None
    corners = json.dumps([[float(x), float(y)] for x, y in reading.corners]) if reading.corners else None
    size = json.dumps([int(v) for v in reading.photo_size]) if reading.photo_size else None
    return (
        int(reading.from_scan),
        json.dumps(reading.base.to_dict()),
        readings,
        flagged,
        corners,
        size,
        str(reading.grid_choice),
        reading.source,
        reading.message,
        json.dumps(list(reading.notes)),
        reading.scan_seconds,
    )


def _reading_from_row(row: Sequence[Any]) -> Reading:
    """A Reading from a boards row: id, player, created_at, from_scan, scanned, readings, flagged,
    corners, photo_size, grid_choice, source, message, notes, scan_seconds."""
    readings = flagged = corners = size = None
    if row[5]:
        readings = tuple(
            tuple(
                SquareReading(Terrain(r["terrain"]), int(r["crowns"]), float(r["confidence"])) for r in line
            )
            for line in json.loads(row[5])
        )
    if row[6]:
        flagged = tuple(tuple(bool(v) for v in line) for line in json.loads(row[6]))
    if row[7]:
        corners = tuple((float(x), float(y)) for x, y in json.loads(row[7]))
    if row[8]:
        width, height = json.loads(row[8])
        size = (int(width), int(height))
    grid_choice = row[9]
    return Reading(
        base=Kingdom.from_dict(json.loads(row[4])),
        from_scan=bool(row[3]),
        readings=readings,
        flagged=flagged,
        corners=corners,
        photo_size=size,
        grid_choice=int(grid_choice) if grid_choice.isdigit() else grid_choice,
        source=row[10],
        message=row[11],
        notes=tuple(json.loads(row[12])),
        scan_seconds=row[13],
    )


def _summary(game: StoredGame) -> GameSummary:
    ranking = game.ranking()
    return GameSummary(
        game.code,
        game.created_at,
        game.updated_at,
        game.rounds,
        tuple(p.name for p in game.round_players()),
        tuple(ranking.winners) if ranking else (),
        tuple((s.name, s.total) for s in ranking.standings) if ranking else (),
    )


def _player_to_dict(player: StoredPlayer) -> dict:
    """A player as the page's game file writes it."""
    board = player.board
    reading = board.reading if board is not None else None
    return {
        "name": player.name,
        "source": reading.source if reading else "",
        "from_scan": reading.from_scan if reading else False,
        "scanned": reading.base.to_dict() if reading else None,
        "corrections": [edit.to_dict() for edit in board.edits] if board else [],
        "kingdom": board.kingdom.to_dict() if board else None,
        "readings": [[r.to_dict() for r in row] for row in reading.readings]
        if reading and reading.readings
        else None,
        "flagged": [list(row) for row in reading.flagged] if reading and reading.flagged else None,
        "message": reading.message if reading else "",
    }


ParsedPlayer = tuple[str, Reading | None, list[StoredEdit]]


def parse_game_file(text: str | bytes) -> tuple[str, bool, bool, list[list[ParsedPlayer]]]:
    """Read the page's game file: (edition, harmony, middle kingdom, rounds of (name, reading, edits)).

    Raises StoreError with a one-line reason; the checks are those of the page's own import.
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise StoreError(f"not a game file (invalid JSON: {getattr(error, 'msg', error)})") from None
    if not isinstance(data, dict) or data.get("format") != GAME_FORMAT:
        raise StoreError("not a game file of this page (format field missing)")
    if data.get("version") != GAME_FORMAT_VERSION:
        raise StoreError(f"unsupported game file version {_shown(data.get('version'))}")
    games = data.get("games")
    if not isinstance(games, list) or not 1 <= len(games) <= MAX_ROUNDS:
        raise StoreError(f"a game file holds 1 to {MAX_ROUNDS} games")
    edition = data.get("edition") if data.get("edition") in EDITIONS else "second"
    rounds: list[list[ParsedPlayer]] = []
    try:
        for g, game in enumerate(games, start=1):
            if not isinstance(game, dict) or not isinstance(game.get("players"), list):
                raise StoreError(f"game {g}: players missing")
            players = [_parse_player(p, f"game {g}, player {i}") for i, p in enumerate(game["players"], 1)]
            if not players:
                raise StoreError(f"game {g} has no players")
            rounds.append(players)
    except BoardFormatError as error:
        raise StoreError(f"a board in the game file is invalid: {error}") from None
    # The store keeps the rule options game-wide; a file from the per-round page gives its first game's.
    first = games[0]
    return edition, bool(first.get("harmony")), bool(first.get("middle_kingdom")), rounds


def _parse_player(data: Any, where: str) -> ParsedPlayer:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"].strip():
        raise StoreError(f"{where}: each player needs a name")
    edits_data = data.get("corrections", [])
    if not isinstance(edits_data, list):
        raise StoreError(f"{where}: corrections must be a list")
    edits = [StoredEdit.from_dict(edit) for edit in edits_data]
    reading = None
    if data.get("scanned") is not None:
        base = Kingdom.from_dict(data["scanned"])
        readings = flagged = None
        if data.get("readings") is not None:
            try:
                readings = tuple(
                    tuple(
                        SquareReading(Terrain(r["terrain"]), int(r["crowns"]), float(r["confidence"]))
                        for r in row
                    )
                    for row in data["readings"]
                )
                raw_flags = data.get("flagged") or [[False] * len(row) for row in data["readings"]]
                flagged = tuple(tuple(bool(v) for v in row) for row in raw_flags)
            except (TypeError, KeyError, ValueError):
                raise StoreError(f"{where}: unreadable square readings") from None
            if any(len(row) != base.grid_size for row in (*readings, *flagged)) or not (
                len(readings) == len(flagged) == base.grid_size
            ):
                raise StoreError(f"{where}: square readings do not match the board size")
        reading = Reading(
            base,
            bool(data.get("from_scan", False)),
            readings,
            flagged,
            source=str(data.get("source", "")),
            message=str(data.get("message", "")),
        )
    saved = data.get("kingdom")
    if saved is not None:
        kingdom = apply_edits(reading.base, edits) if reading is not None else None
        if kingdom != Kingdom.from_dict(saved):
            raise StoreError(f"{where}: the corrections do not lead to the saved kingdom")
    return data["name"].strip(), reading, edits


# --- checking an SQLite file before writing to it ------------------------------------------------


def _sqlite_problem(path: Path) -> str:
    """Why ``path`` cannot hold the games, in words ('' when it can, or when it does not exist yet).

    Opened read-only, so a file that turns out not to be ours is never written to.
    """
    if not path.exists():
        return ""
    if path.is_dir():
        return "is a folder, not a file"
    try:
        connection = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as error:
        return f"cannot be opened ({_first_line(error)})"
    try:
        check = connection.execute("PRAGMA quick_check").fetchone()
        if check is None or check[0] != "ok":
            return f"is damaged ({check[0] if check else 'no answer to the integrity check'})"
        tables = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "schema_version" not in tables:
            return "holds another program's tables"
        if "schema_version" in tables:
            version = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0
            if version > LATEST_SCHEMA:
                return f"was written by a newer kingdomino-scanner (schema {version})"
    except sqlite3.Error as error:
        if "locked" in str(error) or "busy" in str(error):
            return ""  # another server is writing it: a sound file, opened with a busy timeout
        return f"is not a readable game database ({_first_line(error)})"
    finally:
        connection.close()
    return ""
