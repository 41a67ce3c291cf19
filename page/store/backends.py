"""One connection to SQLite or PostgreSQL behind one small interface: SQL is written with ``?`` and each
backend runs it in its dialect, with its own transactions and its own idea of a lost connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any


class Backend:
    """One connection, used by one thread at a time (the store holds a lock around it)."""

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


class SQLiteBackend(Backend):
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


class PostgresBackend(Backend):
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
