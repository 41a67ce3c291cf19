"""Keeping a game between page loads: one call saves the page on every change, one call opens the game
named by the code in the page's URL.

``GameStorage`` is what the page needs from a game store; the page runs on ``page.storage.StoreStorage``
(the game store, page.store: SQLite or PostgreSQL). ``MemoryStorage`` keeps games in this process as the
full record of a page (``page.gamefile.state_record``), for tests and tools.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from typing import Protocol

from page.edits import GameFileError
from page.gamefile import state_from_record, state_record
from page.state import PageState
from page.store import StoreError, VersionConflict

CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud across a table
CODE_LENGTH = 6
_CODE = re.compile(f"^[{CODE_ALPHABET}]{{4,32}}$")


class GameStorage(Protocol):
    """What the page needs from a game store."""

    def load(self, code: str) -> PageState | None:
        """The stored game, or None when there is none under this code."""

    def save(self, code: str, state: PageState, expected: int | None = None) -> int:
        """Store the page's state; returns the game's new version. With ``expected`` (the version the
        page loaded, 0 for a game not stored yet) raises VersionConflict, saving nothing, when another
        page saved the game in between."""

    def version(self, code: str) -> int:
        """The game's version (0 when none is stored): another phone's save raises it."""


class MemoryStorage:
    """Games kept in this server process, as the same full records a database would keep."""

    def __init__(self) -> None:
        self._games: dict[str, tuple[int, str, dict[str, bytes]]] = {}
        self._lock = threading.Lock()

    def load(self, code: str) -> PageState | None:
        with self._lock:
            stored = self._games.get(code)
        if stored is None:
            return None
        version, text, blobs = stored
        state = state_from_record(json.loads(text), blobs)
        state.stored_version = version
        return state

    def save(self, code: str, state: PageState, expected: int | None = None) -> int:
        data, blobs = state_record(state)
        text = json.dumps(data)
        with self._lock:
            version = self._games.get(code, (0, "", {}))[0]
            if expected is not None and expected != version:
                raise VersionConflict("another page changed this game first")
            self._games[code] = (version + 1, text, blobs)
        return version + 1

    def version(self, code: str) -> int:
        with self._lock:
            return self._games.get(code, (0, "", {}))[0]


def new_code() -> str:
    """A fresh game code for the URL (short enough to read to the other players)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def valid_code(code: object) -> bool:
    return isinstance(code, str) and bool(_CODE.match(code))


def open_game(storage: GameStorage, code: object) -> tuple[PageState | None, str]:
    """The game stored under ``code`` (None when there is none or the code is not one), with a one-line
    reason when a stored game could not be read (the page then starts afresh under a new code)."""
    if not valid_code(code):
        return None, ""
    try:
        return storage.load(str(code)), ""
    except (GameFileError, StoreError) as error:
        return None, f"game {code} could not be opened ({error}); a new game was started"
    except Exception as error:  # noqa: BLE001 - a store that fails must not take the page down
        return None, f"game {code} could not be opened ({type(error).__name__}); a new game was started"
