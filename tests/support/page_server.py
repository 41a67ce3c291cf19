"""The page served for browser tests: `streamlit run app.py` on a free local port, and Debian's chromium
launched by Playwright; shared by tests/page/test_browser.py and tests/page/test_browser_store.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Seconds a page server may take to answer its health check.
START_SECONDS = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def page_server(log_folder: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """`streamlit run app.py` on a free port (with ``env`` added to the environment, e.g. the game
    database); yields its URL once it answers, stops it afterwards. Its output goes to a log in
    ``log_folder``, quoted when it does not start."""
    port = free_port()
    options = {"server.headless": "true", "server.port": str(port), "server.address": "127.0.0.1"}
    options |= {"server.fileWatcherType": "none", "browser.gatherUsageStats": "false"}
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")]
    command += [part for name, value in options.items() for part in (f"--{name}", value)]
    log_path = log_folder / f"server-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, process, log_path)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def server_log(log_folder: Path, url: str) -> str:
    """What the page server at ``url`` wrote (its log in ``log_folder``)."""
    return (log_folder / f"server-{url.rsplit(':', 1)[1]}.log").read_text(errors="replace")


def _wait_healthy(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start: {log_path.read_text()[-2000:]}") from None
            time.sleep(0.2)


@contextmanager
def chromium(sync_api) -> Iterator[object]:
    """Debian's chromium, headless, driven by Playwright's sync API."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
