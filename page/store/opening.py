"""Where the games live: a database URL turned into an open, migrated connection, or, when that database
cannot be used, a fresh one beside it and a one-line warning saying why.

The old file is never deleted, moved or written to: it is checked read-only first, and games go to a
replacement file next to it (found again at the next start) or, when nothing can be written, to memory.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from page.store.backends import Backend, PostgresBackend, SQLiteBackend
from page.store.errors import NotOurs, StoreError, first_line
from page.store.schema import LATEST_SCHEMA, migrate
from page.store.settings import APP_DIR, DB_ENV, DB_FILE, MAX_REPLACEMENTS, StoreSettings

MEMORY = "memory (games are lost when the server stops)"
IN_MEMORY_ONLY = "games are kept in memory only until the server stops"


@dataclass(frozen=True)
class Opened:
    """A migrated connection, the database in words, and why it is not the one asked for ('' if it is)."""

    backend: Backend
    where: str
    warning: str = ""
    #: The SQLite file in use (None for PostgreSQL and memory).
    path: Path | None = None
    #: True when that file did not exist and was made by this opening.
    created: bool = False


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


def open_database(url: str | None, settings: StoreSettings) -> Opened:
    """The database at ``url``, else $KINGDOMINO_DB, else the per-user SQLite file. Never raises for a
    database that cannot be used: a fresh one is opened instead and ``warning`` says why."""
    url = (url if url is not None else os.environ.get(DB_ENV, "")).strip()
    if url.startswith(("postgresql://", "postgres://")):
        return open_postgres(url, settings)
    if url.startswith("sqlite:"):
        rest = url[len("sqlite:") :]
        rest = rest[2:] if rest.startswith("//") else rest
        if rest in ("", "/:memory:", ":memory:"):
            return open_memory()
        rest = "/" + rest.lstrip("/") if rest.startswith("/") else rest
        return open_sqlite(Path(os.path.expanduser(rest)), settings)
    if "://" in url:
        scheme = url.split("://", 1)[0]
        return open_memory(
            f"{DB_ENV}: unknown database kind {scheme!r} (use sqlite:///path or postgresql://...); "
            + IN_MEMORY_ONLY
        )
    return open_sqlite(Path(os.path.expanduser(url)) if url else default_path(), settings)


def open_memory(warning: str = "") -> Opened:
    connection = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    backend = SQLiteBackend(connection)
    migrate(backend)
    return Opened(backend, MEMORY, warning)


def open_sqlite(path: Path, settings: StoreSettings) -> Opened:
    """The SQLite file at ``path``, else the first usable replacement beside it, else memory."""
    first_problem = ""
    for number in range(MAX_REPLACEMENTS + 1):
        candidate = path if number == 0 else replacement_path(path, number)
        problem = sqlite_problem(candidate)
        existed = candidate.exists()
        if not problem:
            try:
                backend = connect_sqlite(candidate, settings)
            except (sqlite3.Error, OSError, NotOurs) as error:
                problem = f"cannot be opened ({first_line(error)})"
            else:
                warning = ""
                if number:
                    warning = (
                        f"the game database {path} {first_problem}; it was left as it is, and games "
                        f"are now kept in {candidate}"
                    )
                elif existed and not os.access(candidate, os.W_OK):  # SQLite opens it read-only, silently
                    warning = f"the game database {path} is read-only: its games open, but no change is kept"
                return Opened(backend, f"SQLite file {candidate}", warning, candidate, not existed)
        first_problem = first_problem or problem
    return open_memory(
        f"the game database {path} {first_problem}; it was left as it is, and {IN_MEMORY_ONLY}"
    )


def connect_sqlite(path: Path, settings: StoreSettings) -> SQLiteBackend:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(
        str(path), timeout=settings.busy_timeout_s, check_same_thread=False, isolation_level=None
    )
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(settings.busy_timeout_s * 1000)}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA foreign_keys = ON")
        backend = SQLiteBackend(connection)
        migrate(backend)
    except BaseException:
        connection.close()
        raise
    return backend


def open_postgres(url: str, settings: StoreSettings) -> Opened:
    shown = shown_url(url)
    try:
        import psycopg  # noqa: PLC0415 - imported only for PostgreSQL URLs
    except ImportError:
        return open_memory(
            f"{DB_ENV} names PostgreSQL but psycopg is not installed "
            "(pip install 'kingdomino-scanner[postgres]'); games are kept in memory only"
        )

    def connect() -> Any:
        return psycopg.connect(
            url, autocommit=True, connect_timeout=max(1, round(settings.connect_timeout_s))
        )

    backend = None
    try:
        backend = PostgresBackend(connect(), connect, psycopg.Error)
        migrate(backend)
    except (psycopg.Error, NotOurs, StoreError) as error:
        if backend is not None:
            backend.close()
        return open_memory(
            f"cannot use the PostgreSQL database {shown} ({first_line(error)}); {IN_MEMORY_ONLY}"
        )
    return Opened(backend, f"PostgreSQL {shown}")


def sqlite_problem(path: Path) -> str:
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
        return f"cannot be opened ({first_line(error)})"
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
        if getattr(error, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return ""  # another server is writing it: a sound file, opened with a busy timeout
        return f"is not a readable game database ({first_line(error)})"
    finally:
        connection.close()
    return ""
