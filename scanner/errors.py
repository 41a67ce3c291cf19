"""Typed errors of the scanner. Each carries a one-line reason in words a player understands."""

from __future__ import annotations


class ScanError(Exception):
    """Base class: a photo that could not be turned into a kingdom. ``str(error)`` is the reason."""


class PhotoError(ScanError):
    """The file is not a usable photo (unreadable, empty, too large, animated, ...)."""


class KingdomNotFoundError(ScanError):
    """The photo was read, but no kingdom grid could be located in it."""


class ModelLoadError(Exception):
    """The trained model file is missing, damaged or was saved by another scikit-learn version."""
