"""Game codes: the short name of a game in the page's URL."""

from __future__ import annotations

import re
import secrets

from page.store.errors import StoreError, shown

#: Letters of generated game codes: no 0/o, 1/l/i, so a code read aloud at the table is typed right.
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
CODE_LENGTH = 6
_CODE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{2,31}$")


def normalize_code(text: str | None) -> str | None:
    """A game code as typed or taken from a URL, lower-cased; None when it cannot be a game code."""
    if not isinstance(text, str):
        return None
    code = text.strip().lower()
    return code if _CODE_RE.match(code) else None


def key(code: str) -> str:
    """The stored form of a code (lower case), so a code typed in capitals finds its game."""
    return normalize_code(code) or code


def checked_code(code: str) -> str:
    checked = normalize_code(code)
    if checked is None:
        raise StoreError(f"{shown(code)} is not a game code (3-32 letters, digits, - or _)")
    return checked


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
