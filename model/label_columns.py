"""The joint labels as numpy index arrays: each label's terrain and crown count, for vectorised code."""

from __future__ import annotations

import numpy as np

from kingdomino.board import Terrain
from kingdomino.labels import LABELS

TERRAINS = list(Terrain)
LABEL_TERRAIN = np.array([TERRAINS.index(Terrain(label.terrain)) for label in LABELS])
LABEL_CROWNS = np.array([label.crowns for label in LABELS])
IS_LAND = np.array([terrain.is_land for terrain in TERRAINS])


def label_name(index: int) -> str:
    """A joint label as the card writes it: terrain and crown count, e.g. "mine2"."""
    label = LABELS[index]
    return f"{label.terrain.value}{label.crowns if label.crowns else ''}"
