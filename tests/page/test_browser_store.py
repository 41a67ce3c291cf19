"""The page's games in the database, end to end in Debian's chromium: every game intact after the page
server restarts, and two page servers (two `streamlit run app.py` on different ports) on one PostgreSQL
sharing a game with no lost update."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kingdomino.board import Square, Terrain
from kingdomino.scoring import score_kingdom
from page.store import DB_ENV, GameStore
from tests.page.postgres_server import unavailable_reason
from tests.page.test_browser import METRIC, SAMPLE, metric, open_page, sync_api, upload
from tests.support.page_server import chromium, page_server, server_log

pytestmark = [pytest.mark.browser, pytest.mark.model, pytest.mark.slow]
PG_SKIP = unavailable_reason()


@contextmanager
def game_server(database: str, log_folder: Path) -> Iterator[str]:
    """A page server with its game database at ``database``; its log must show no traceback."""
    with page_server(log_folder, {DB_ENV: database}) as url:
        yield url
    log = server_log(log_folder, url)
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api) as launched:
        yield launched


def code_of(page) -> str:
    return page.url.split("game=")[1].split("&")[0]


def open_game(browser, server: str, code: str):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/?game={code}")
    page.locator(METRIC).first.wait_for(timeout=60_000)
    return page


def first_square(page) -> str:
    """What the editor says of the selected square (row 1 col 1 on a page just opened)."""
    return page.get_by_text("Row 1 col 1:").first.inner_text()


def wait_first_square(page, text: str) -> None:
    page.wait_for_function(
        "t => [...document.querySelectorAll('[data-testid=stCaptionContainer]')]"
        ".some(e => e.innerText.includes(t))",
        arg=f"Row 1 col 1: {text}",
        timeout=30_000,
    )


def click(page, key_prefix: str) -> None:
    """Click the button whose key starts with ``key_prefix``, once a rerun has left only the current one."""
    selector = f'[class*="st-key-{key_prefix}"] button'
    page.wait_for_function("s => document.querySelectorAll(s).length === 1", arg=selector, timeout=30_000)
    page.locator(selector).click()


def set_terrain(page) -> str:
    """Make row 1 col 1 a mine (a swamp if it is one already); returns the terrain chosen."""
    target = "swamp" if "mine," in first_square(page) else "mine"
    click(page, f"t_{target}_")
    wait_first_square(page, f"{target},")
    return target


def test_every_game_is_intact_after_the_page_server_restarts(browser, tmp_path: Path):
    database = f"sqlite:///{tmp_path}/games.sqlite3"
    games: dict[str, tuple[str, int]] = {}
    with game_server(database, tmp_path) as server:
        for _ in range(2):
            page = open_page(browser, server, "desktop")
            upload(page, SAMPLE)
            page.locator(METRIC).first.wait_for()
            terrain = set_terrain(page)
            games[code_of(page)] = (terrain, metric(page))
            page.close()
    with game_server(database, tmp_path) as restarted:
        for code, (terrain, score) in games.items():
            page = open_game(browser, restarted, code)
            wait_first_square(page, f"{terrain},")
            assert metric(page) == score and "Photo: ours" not in page.content()
            page.close()
    with GameStore.open(database) as store:
        assert {h.code for h in store.history() if h.kingdoms} == set(games)


@pytest.mark.postgres
@pytest.mark.skipif(bool(PG_SKIP), reason=PG_SKIP)
def test_two_page_servers_on_one_postgresql_share_a_game_with_no_lost_update(browser, pg_url, tmp_path: Path):
    with game_server(pg_url, tmp_path) as server_a, game_server(pg_url, tmp_path) as server_b:
        phone_a = open_page(browser, server_a, "desktop")
        upload(phone_a, SAMPLE)
        phone_a.locator(METRIC).first.wait_for()
        code = code_of(phone_a)
        phone_b = open_game(browser, server_b, code)  # the other phone, on the other server
        assert metric(phone_b) == metric(phone_a)
        # A changes the square's terrain; B, which has not seen that, then sets its crowns.
        terrain = set_terrain(phone_a)
        click(phone_b, "c_1_")
        wait_first_square(phone_b, f"{terrain}, 1 crown")  # B took A's change before making its own
        with GameStore.open(pg_url) as store:
            kingdom = store.load(code).players[0].kingdom
        assert kingdom[(0, 0)] == Square(Terrain(terrain), 1)
        phone_a.reload()  # A's next page load shows B's change on top of its own
        phone_a.locator(METRIC).first.wait_for(timeout=30_000)
        wait_first_square(phone_a, f"{terrain}, 1 crown")
        assert metric(phone_a) == metric(phone_b) == score_kingdom(kingdom).total
