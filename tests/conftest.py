"""Fixtures for every test: games kept in a throwaway game database, never the user's (the page servers
and load tests the tests start inherit it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

#: page.store.DB_ENV, spelled out: importing it would load the page's packages for every test run.
DB_ENV = "KINGDOMINO_DB"


@pytest.fixture(scope="session", autouse=True)
def game_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The page's game database for the session (inherited by the page servers the tests start)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('games')}/games.sqlite3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DB_ENV, url)
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg")))
        yield url
