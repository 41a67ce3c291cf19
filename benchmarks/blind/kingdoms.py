"""Legal kingdoms played from the box, and the held-out square artwork they are painted with."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from kingdomino.board import CASTLE_SQUARE, EMPTY_SQUARE, Kingdom, Square, Terrain
from kingdomino.dominoes import DOMINOES
from kingdomino.labels import LABEL_INDEX

#: (row, col) steps from the first half of a domino to its second.
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


@dataclass(frozen=True)
class Played:
    """A kingdom as played: its squares in an N×N frame and, for each domino, its two cells."""

    kingdom: Kingdom
    dominoes: tuple[tuple[tuple[int, int], tuple[int, int]], ...]
    castle: tuple[int, int]

    @property
    def size(self) -> int:
        return self.kingdom.grid_size


def _fits(cells: dict, extra: list, side: int) -> bool:
    rows = [r for r, _ in cells] + [r for r, _ in extra]
    cols = [c for _, c in cells] + [c for _, c in extra]
    return max(rows) - min(rows) < side and max(cols) - min(cols) < side


def _connects(cells: dict, cell, square: Square) -> bool:
    """A half touches the castle or a square of its own terrain."""
    for dr, dc in STEPS:
        other = cells.get((cell[0] + dr, cell[1] + dc))
        if other is not None and (other.terrain == Terrain.CASTLE or other.terrain == square.terrain):
            return True
    return False


def play(rng: np.random.Generator, side: int, tries: int = 12) -> Played:
    """A kingdom played by the rules: dominoes drawn from the box, each placed touching the castle or
    its own terrain, within side × side; a domino with no legal place is discarded. Only kingdoms whose
    squares span the whole side × side frame count (holes inside are the table showing), so the frame is
    defined by the kingdom itself; of a few games, the first full one or else the fullest is kept."""
    best = None
    for _ in range(tries):
        cells, placed = _one_game(rng, side)
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        if max(rows) - min(rows) + 1 != side or max(cols) - min(cols) + 1 != side:
            continue
        r0, c0 = min(rows), min(cols)
        grid = [[EMPTY_SQUARE] * side for _ in range(side)]
        for (r, c), square in cells.items():
            grid[r - r0][c - c0] = square
        shifted = tuple(((a[0] - r0, a[1] - c0), (b[0] - r0, b[1] - c0)) for a, b in placed)
        played = Played(Kingdom.from_rows(grid), shifted, (-r0, -c0))
        if best is None or len(played.dominoes) > len(best.dominoes):
            best = played
        if 2 * len(placed) + 1 == side * side:
            break
    if best is None:
        raise RuntimeError("no kingdom spanning the frame was played")
    return best


def _one_game(rng: np.random.Generator, side: int):
    cells: dict[tuple[int, int], Square] = {(0, 0): CASTLE_SQUARE}
    placed = []
    wanted = (side * side - 1) // 2
    for index in rng.permutation(len(DOMINOES)):
        if len(placed) == wanted:
            break
        domino = DOMINOES[index]
        options = []
        for r, c in list(cells):
            for dr, dc in STEPS:
                a = (r + dr, c + dc)
                if a in cells:
                    continue
                for sr, sc in STEPS:
                    b = (a[0] + sr, a[1] + sc)
                    if b in cells or not _fits(cells, [a, b], side):
                        continue
                    for first, second in ((a, b), (b, a)):
                        if _connects(cells, first, domino.first) or _connects(cells, second, domino.second):
                            options.append((first, second))
        if not options:
            continue
        # players fill their square: prefer places with more neighbours
        weights = np.array([_neighbours(cells, o) for o in options], float) ** 3 + 0.1
        first, second = options[rng.choice(len(options), p=weights / weights.sum())]
        cells[first], cells[second] = domino.first, domino.second
        placed.append((first, second))
    return cells, placed


def _neighbours(cells: dict, option) -> int:
    count = 0
    for cell in option:
        for dr, dc in STEPS:
            near = (cell[0] + dr, cell[1] + dc)
            count += near in cells
    return count


def take_away(rng: np.random.Generator, played: Played, count: int) -> Played:
    """The kingdom with up to ``count`` dominoes lifted off (an unfinished game, holes showing the table),
    keeping the frame spanned and the castle; a domino whose removal would shrink the frame stays."""
    grid = [list(row) for row in played.kingdom.squares]
    kept = list(played.dominoes)
    side = played.size
    for index in rng.permutation(len(played.dominoes)):
        if count <= 0:
            break
        a, b = played.dominoes[index]
        trial = [row[:] for row in grid]
        trial[a[0]][a[1]] = trial[b[0]][b[1]] = EMPTY_SQUARE
        filled = [(r, c) for r in range(side) for c in range(side) if trial[r][c] != EMPTY_SQUARE]
        rows = {r for r, _ in filled}
        cols = {c for _, c in filled}
        if min(rows) == 0 and max(rows) == side - 1 and min(cols) == 0 and max(cols) == side - 1:
            grid = trial
            kept.remove((a, b))
            count -= 1
    return Played(Kingdom.from_rows(grid), tuple(kept), played.castle)


@dataclass
class ArtPool:
    """Square artwork by label index, from one source family (board photos or tile crops)."""

    name: str
    squares: dict[int, list[np.ndarray]]


def has_held_out_art() -> bool:
    """Whether the repository's data holds the held-out boards and tiles the scenes are painted with."""
    from model.training.dataset import DEFAULT_DATA_DIR

    return (DEFAULT_DATA_DIR / "labels.json").is_file() and (DEFAULT_DATA_DIR / "boards").is_dir()


@lru_cache(maxsize=1)
def held_out_art() -> tuple[ArtPool, ...]:
    """The squares of the outside bench model's held-out material: its kingdoms' board photos and the
    tiles of its held-out source photos (label corrections applied)."""
    from benchmarks.bench_model import outside_held_out
    from model.training.dataset import load_board_squares, load_boards, load_tiles

    groups = set(outside_held_out().groups)
    pools = []
    boards = [photo for photo in load_boards() if photo.kingdom_id in groups]
    for name, squares in (("boards", load_board_squares(boards)), ("tiles", load_tiles())):
        by_label: dict[int, list[np.ndarray]] = {}
        for image, label, group in zip(squares.images, squares.labels, squares.groups, strict=True):
            if group in groups:
                by_label.setdefault(int(label), []).append(image)
        pools.append(ArtPool(name, by_label))
    return tuple(pools)


def paint(
    rng: np.random.Generator, kingdom: Kingdom, pools: tuple[ArtPool, ...]
) -> list[list[np.ndarray | None]]:
    """An artwork image per square (None for empty), from one pool where it has the square's kind."""

    first = pools[int(rng.integers(len(pools)))]
    art: list[list[np.ndarray | None]] = []
    for row in kingdom.squares:
        line = []
        for square in row:
            if square == EMPTY_SQUARE:
                line.append(None)
                continue
            label = LABEL_INDEX[square]
            choices = first.squares.get(label) or next(
                p.squares[label] for p in pools if p.squares.get(label)
            )
            image = choices[int(rng.integers(len(choices)))]
            trim = image.shape[0] // 20  # the board crops hold slivers of their neighbours at the rim
            image = image[trim : image.shape[0] - trim, trim : image.shape[1] - trim]
            line.append(np.rot90(image, int(rng.integers(4))).copy())
        art.append(line)
    return art
