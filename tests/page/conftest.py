"""Fixtures of the page's tests: every page and store kept in a throwaway game database (never the
user's), and a real PostgreSQL server for the whole session (started only when a test asks for it)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from page.store import DB_ENV
from tests.page.postgres_server import PostgresServer, unavailable_reason

_databases = itertools.count(1)


@pytest.fixture(scope="session", autouse=True)
def game_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The page's game database for the session (inherited by the page servers the tests start)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('games')}/games.sqlite3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DB_ENV, url)
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg")))
        yield url


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("psycopg is missing although PostgreSQL is installed: pip install -e '.[test]'")
    server = PostgresServer.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> str:
    """A fresh empty schema on the session's server (as good as a new database for the store)."""
    return pg_server.schema_url(f"games_{next(_databases)}")
