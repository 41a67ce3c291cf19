"""Typed errors of the scanner. Each carries a one-line reason in words a player understands."""

from __future__ import annotations

from typing import Any

from model.errors import ModelLoadError


class ScanError(Exception):
    """Base class: a photo that could not be turned into a kingdom. ``str(error)`` is the reason."""


class PhotoError(ScanError):
    """The file is not a usable photo (unreadable, empty, too large, animated, ...)."""


class KingdomNotFoundError(ScanError):
    """The photo was read, but no kingdom grid could be located in it.

    ``overlay`` (BGR image or None) shows what the search saw: the line segments and the best
    candidate lattice drawn on the photo, so the page and ``scan --debug-dir`` can show why it failed.
    """

    def __init__(self, message: str = "", overlay: Any = None) -> None:
        super().__init__(message)
        self.overlay = overlay


__all__ = ["KingdomNotFoundError", "ModelLoadError", "PhotoError", "ScanError"]
