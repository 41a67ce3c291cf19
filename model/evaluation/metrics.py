"""Figures for the model card: per-square accuracy (terrain, crowns, both) and per-board exactness."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.labels import LABELS
from kingdomino.scoring import score_kingdom
from model.label_columns import LABEL_CROWNS, LABEL_TERRAIN, TERRAINS, label_name

__all__ = ["LABEL_CROWNS", "LABEL_TERRAIN", "TERRAINS", "label_name"]


@dataclass
class SquareFigures:
    squares: int
    terrain: float
    crowns: float
    both: float

    @classmethod
    def of(cls, truth: np.ndarray, predicted: np.ndarray) -> SquareFigures:
        if len(truth) == 0:
            return cls(0, float("nan"), float("nan"), float("nan"))
        return cls(
            squares=len(truth),
            terrain=float(np.mean(LABEL_TERRAIN[truth] == LABEL_TERRAIN[predicted])),
            crowns=float(np.mean(LABEL_CROWNS[truth] == LABEL_CROWNS[predicted])),
            both=float(np.mean(truth == predicted)),
        )


def kingdom_of(labels: np.ndarray) -> Kingdom:
    """A Kingdom from N×N (row-major) label indices."""
    size = int(round(len(labels) ** 0.5))
    rows = [[LABELS[int(labels[r * size + c])] for c in range(size)] for r in range(size)]
    return Kingdom.from_rows([[Square(Terrain(s.terrain), s.crowns) for s in row] for row in rows])


def base_score(labels: np.ndarray) -> int:
    return score_kingdom(kingdom_of(labels)).base


@dataclass
class BoardFigures:
    boards: int
    all_right: int
    exact_score: int
    mean_abs_score_error: float


def board_figures(
    truth_by_board: dict[str, np.ndarray], predicted_by_board: dict[str, np.ndarray]
) -> BoardFigures:
    all_right = exact = 0
    errors = []
    for name, truth in truth_by_board.items():
        predicted = predicted_by_board[name]
        all_right += int(np.array_equal(truth, predicted))
        error = abs(base_score(truth) - base_score(predicted))
        exact += int(error == 0)
        errors.append(error)
    return BoardFigures(
        len(truth_by_board), all_right, exact, float(np.mean(errors)) if errors else float("nan")
    )


def confusion(truth: np.ndarray, predicted: np.ndarray, n: int) -> np.ndarray:
    matrix = np.zeros((n, n), dtype=np.int64)
    np.add.at(matrix, (truth, predicted), 1)
    return matrix
