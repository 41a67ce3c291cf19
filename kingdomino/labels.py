"""What the classifier says about one square, and the fixed list of labels it chooses from.

The joint labels (terrain + crowns) only include combinations that exist in the box, so a
probability vector over ``LABELS`` can never propose, say, a wheat square with two crowns.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingdomino.board import MAX_CROWNS, Square, Terrain

#: Every (terrain, crowns) a square can show, in a fixed order: the columns of predict_proba.
LABELS: tuple[Square, ...] = tuple(
    Square(terrain, crowns) for terrain in Terrain for crowns in range(MAX_CROWNS[terrain] + 1)
)
LABEL_INDEX: dict[Square, int] = {label: index for index, label in enumerate(LABELS)}
CASTLE_LABEL = LABEL_INDEX[Square(Terrain.CASTLE, 0)]
EMPTY_LABEL = LABEL_INDEX[Square(Terrain.EMPTY, 0)]


@dataclass(frozen=True, slots=True)
class SquareReading:
    """A square as read from a photo: the label and how sure the reader is (0-1)."""

    terrain: Terrain
    crowns: int
    confidence: float

    @property
    def square(self) -> Square:
        return Square(self.terrain, self.crowns)

    def to_dict(self) -> dict:
        return {
            "terrain": self.terrain.value,
            "crowns": self.crowns,
            "confidence": round(float(self.confidence), 4),
        }
