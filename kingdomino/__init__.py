"""The game of Kingdomino: boards, the 48 dominoes, the labels a square can carry, scoring and ranking.

Standard library only, and nothing of the rest of the project: the scanner, the classifier and the
page all build on this package, never the other way round.
"""

from kingdomino.board import (
    CASTLE_SQUARE,
    EMPTY_SQUARE,
    GRID_SIZES,
    LAND_TERRAINS,
    MAX_CROWNS,
    BoardFormatError,
    Cell,
    Kingdom,
    Square,
    Terrain,
)
from kingdomino.dominoes import DOMINOES, Domino
from kingdomino.labels import LABELS, SquareReading
from kingdomino.ranking import EDITIONS, GameRanking, Standing, dynasty, rank_game
from kingdomino.scoring import ScoreReport, Territory, score_kingdom

__version__ = "0.2.0"

__all__ = [
    "CASTLE_SQUARE",
    "DOMINOES",
    "EDITIONS",
    "EMPTY_SQUARE",
    "GRID_SIZES",
    "LABELS",
    "LAND_TERRAINS",
    "MAX_CROWNS",
    "BoardFormatError",
    "Cell",
    "Domino",
    "GameRanking",
    "Kingdom",
    "ScoreReport",
    "Square",
    "SquareReading",
    "Standing",
    "Terrain",
    "Territory",
    "dynasty",
    "rank_game",
    "score_kingdom",
]
