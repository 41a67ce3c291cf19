"""What the store raises, and how it words a failure in one line."""

from __future__ import annotations

from typing import Any


class StoreError(ValueError):
    """A store operation that cannot be done; the message is one line for the player."""


class ConnectionLost(StoreError):
    """The database server went away mid-operation (nothing was written; the next try reconnects)."""


class StaleBoard(StoreError):
    """The change was meant for a board that another phone has since replaced; nothing was written."""


class VersionConflict(StoreError):
    """Another phone changed the game since this one loaded it; nothing was written (load and retry)."""


class DamagedRecord(StoreError):
    """A row of the database that cannot be read back (changed by hand, or by a damaged disk)."""


class NotOurs(Exception):
    """A database this store must not write to (another program's, or a newer schema)."""


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def shown(value: Any, limit: int = 40) -> str:
    """A value quoted in a message, cut short so a hostile file cannot flood the page."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
