"""Fixtures of the page's tests: a real PostgreSQL server for the whole session (started only when a test
asks for it)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.page.postgres_server import PostgresServer, unavailable_reason

_databases = itertools.count(1)


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
