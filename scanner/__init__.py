"""Photo -> kingdom: find the grid, cut and read the squares, make them consistent, score.

The public face::

    from scanner import KingdomScanner, ScanError
    result = KingdomScanner().scan("photo.jpg")   # loads the shipped classifier once
    result.score.total, result.kingdom, result.flagged, result.notes

Names are imported on first use, so ``kingdomino score`` (which imports ``scanner.cli``) never loads
OpenCV, NumPy or the model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from kingdomino import __version__

#: public name -> module that defines it
_PUBLIC = {
    "KingdomScanner": "scanner.recognizer",
    "ScanResult": "scanner.recognizer",
    "ScanError": "scanner.errors",
    "PhotoError": "scanner.errors",
    "KingdomNotFoundError": "scanner.errors",
    "ModelLoadError": "scanner.errors",
    "load_photo": "scanner.imageio",
}

__all__ = [
    "KingdomNotFoundError",
    "KingdomScanner",
    "ModelLoadError",
    "PhotoError",
    "ScanError",
    "ScanResult",
    "__version__",
    "load_photo",
]

if TYPE_CHECKING:
    from scanner.errors import KingdomNotFoundError, ModelLoadError, PhotoError, ScanError
    from scanner.imageio import load_photo
    from scanner.recognizer import KingdomScanner, ScanResult


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'scanner' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
