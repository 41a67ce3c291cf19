"""Read the kingdom as a whole: the most probable labelling that the rules and the domino box allow.

A square classifier reads squares one at a time. The decoder adds what it ignores: a kingdom has
exactly one castle, and every other non-empty square is half of a domino laid next to its other
half, each domino being one of the 48 of the box, used at most once (all 55 labelled real boards
tile this way).

The decoding is an exact integer programme solved with scipy's HiGHS: first its linear relaxation,
which is almost always integral and then already the optimum, else the MILP. Every square is covered
by one option: the castle, a gap, half of a box domino placed on it and a neighbour (either order),
an "unknown domino" with a neighbour, or an "orphan" alone; the last two cost a fixed penalty. They
make the domino rule soft: real boards break it now and then (a crown hidden under the 3D castle
model, a square missing from a generated scene), and a confident reading must then stay as read
instead of being forced into an absurd tiling. The objective is the sum of -log probabilities plus
the penalties, so a labelling that is already consistent is its own optimum and comes back unchanged.

Confidence after decoding comes from the min-marginal gap of each square: how much less probable the
best decoding gets once the square may not keep its label, as a probability 1 / (1 + e^-gap). Cheap
complete alternatives bound the gap from above, the next-best label from below; squares whose flag
depends on the exact value are re-solved (linear relaxation: exact when integral, else a lower bound,
so a doubtful square is flagged rather than trusted).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy.optimize import LinearConstraint, milp
from scipy.sparse import csc_array

from kingdomino.board import MAX_GRID_SIZE, Kingdom
from kingdomino.dominoes import DOMINOES
from kingdomino.labels import CASTLE_LABEL, EMPTY_LABEL, LABEL_INDEX, LABELS, SquareReading

Cell = tuple[int, int]

LAND_LABELS = np.array([index for index, label in enumerate(LABELS) if label.terrain.is_land])

#: Cost (in nats) of a square that belongs to no valid box domino. Below the cost of overruling a
#: confident reading (a probability floor of 1e-4 makes that 9.2), above typical classifier doubt.
ORPHAN_PENALTY = 3.0
#: Probabilities are floored here so that one overconfident zero cannot forbid a label outright.
PROBABILITY_FLOOR = 1e-4
#: Prior for the castle in the centre square (odd grids): 30 of the 55 labelled boards have it there
#: (the Middle Kingdom bonus), so the centre is (30/55) / ((25/55) / 24) = 29 times likelier than any
#: one other square; log 28.8 = 3.36 nats. It only matters when the classifier misses the castle.
CASTLE_CENTRE_BONUS = 3.36
#: Squares whose decoded label wins by less than this gap (nats) are flagged for the player. The gap is
#: the log-odds that the decoded label is right, a change or a square fitting no domino included (either
#: costs its gap), so one threshold is the one rule for every photo (a deconvolved kingdom's too); the
#: smallest on the flat part of the trade of unflagged misreads against flags on whole development photos
#: of both generators (docs/experiments.md, "One flag margin for both generators' whole photos").
FLAG_MARGIN = 4.75
#: Re-solves allowed for the confidence of undecided squares (each costs a small solve);
#: a count rather than a time limit, so that the same probabilities always give the same flags.
MAX_GAP_RESOLVES = 12
#: Limits for the rare integer solve (the best labelling found so far is used past them). The node
#: count is the real bound, so the same probabilities give the same answer on a busy machine too;
#: the wall-clock limit is only a backstop (docs/experiments.md, "A deterministic integer solve").
MILP_NODES = 1000
MILP_SECONDS = 5.0


def _domino_kinds() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ordered label pairs (both orientations) of every distinct domino, the kind of each, kind counts."""
    counts = Counter(tuple(sorted((LABEL_INDEX[d.first], LABEL_INDEX[d.second]))) for d in DOMINOES)
    kinds = sorted(counts)
    firsts, seconds, kind_of = [], [], []
    for kind, (a, b) in enumerate(kinds):
        for first, second in {(a, b), (b, a)}:
            firsts.append(first)
            seconds.append(second)
            kind_of.append(kind)
    return np.array(firsts), np.array(seconds), np.array(kind_of), np.array([counts[k] for k in kinds])


_PAIR_FIRST, _PAIR_SECOND, _PAIR_KIND, _KIND_COUNTS = _domino_kinds()
#: For each ordered pair, the index of the same domino turned round (itself for two equal halves).
_PAIR_FLIPPED = np.array(
    [
        np.nonzero((_PAIR_FIRST == second) & (_PAIR_SECOND == first))[0][0]
        for first, second in zip(_PAIR_FIRST, _PAIR_SECOND, strict=True)
    ]
)
#: Domino kind of an (unordered) pair of labels, -1 when the box has no such domino.
_KIND_OF_LABELS = np.full((len(LABELS), len(LABELS)), -1)
_KIND_OF_LABELS[_PAIR_FIRST, _PAIR_SECOND] = _PAIR_KIND


@dataclass(frozen=True)
class DecodedKingdom:
    """The decoded kingdom with per-square readings before and after decoding.

    ``orphans`` marks squares kept although they fit no valid domino (occlusion, misprints);
    ``dominoes`` lists the cell pairs the decoder laid box dominoes on; ``margins`` holds the gap in
    nats behind each confidence.
    """

    kingdom: Kingdom
    readings: tuple[tuple[SquareReading, ...], ...]
    raw: tuple[tuple[SquareReading, ...], ...]
    changed: np.ndarray
    flagged: np.ndarray
    orphans: np.ndarray
    margins: np.ndarray
    dominoes: tuple[tuple[Cell, Cell], ...]


@dataclass(frozen=True)
class _Solution:
    labels: np.ndarray  # (cells,) label index per cell
    cost: float  # total regret plus orphan penalties
    orphan: np.ndarray  # (cells,) bool: in no box domino (alone or in an unknown domino)
    partner: np.ndarray  # (cells,) the other half of the cell's domino (box or unknown), else -1
    unknown: np.ndarray  # (cells,) bool: half of an unknown domino


def _edges(size: int) -> np.ndarray:
    """Every pair of orthogonally adjacent cells (flat indices), right and down neighbours."""
    index = np.arange(size * size).reshape(size, size)
    right = np.stack([index[:, :-1].ravel(), index[:, 1:].ravel()], axis=1)
    down = np.stack([index[:-1, :].ravel(), index[1:, :].ravel()], axis=1)
    return np.concatenate([right, down])


@dataclass(frozen=True)
class _Problem:
    """The integer programme of one decoding, and what each of its columns means."""

    costs: np.ndarray
    orphan_penalty: float
    orphan_label: np.ndarray
    edge_cells: np.ndarray  # (pairs, 2) cells of each domino column
    pair_ids: np.ndarray  # ordered label pair of each domino column
    objective: np.ndarray
    bounds: tuple[np.ndarray, np.ndarray]
    # the rows of every constraint as one matrix (the solver's stacking of two was a large share of each
    # solve): each cell covered once, exactly one castle (_constraints bounds them at 1), then
    # each domino kind at most as often as the box holds it
    matrix: csc_array


def _problem(costs: np.ndarray, edges: np.ndarray, orphan_penalty: float) -> _Problem:
    """Columns: castle, gap and orphan per cell, then every domino placement worth considering.

    Besides the box dominoes, two neighbours may form an "unknown domino" (any two land labels, one
    orphan penalty for both): one misread or hidden half breaks one domino, not two squares' worth.
    """
    cells = costs.shape[0]
    land_costs = costs[:, LAND_LABELS]
    orphan_label = LAND_LABELS[np.argmin(land_costs, axis=1)]
    best_land = land_costs.min(axis=1)
    orphan_cost = best_land + orphan_penalty
    # Cheapest way to cover a cell without the castle or a domino: two of them always beat a costlier pair.
    single_cost = np.minimum(orphan_cost, costs[:, EMPTY_LABEL])

    pair_costs = costs[edges[:, 0]][:, _PAIR_FIRST] + costs[edges[:, 1]][:, _PAIR_SECOND]
    unknown_costs = best_land[edges[:, 0]] + best_land[edges[:, 1]] + orphan_penalty
    alone = single_cost[edges[:, 0]] + single_cost[edges[:, 1]]
    # A domino is worth placing only if it beats the cheaper of covering both cells alone or as an
    # unknown domino, and in its better orientation.
    useful = pair_costs < np.minimum(alone, unknown_costs)[:, None]
    useful &= pair_costs <= pair_costs[:, _PAIR_FLIPPED]
    edge_ids, pair_ids = np.nonzero(useful)
    unknown_edges = np.nonzero(unknown_costs < alone)[0]
    edge_ids = np.concatenate([edge_ids, unknown_edges])
    pair_ids = np.concatenate([pair_ids, np.full(unknown_edges.size, -1)])
    known = pair_ids >= 0

    n_single, n_pairs = 3 * cells, edge_ids.size
    objective = np.concatenate(
        [
            costs[:, CASTLE_LABEL],
            costs[:, EMPTY_LABEL],
            orphan_cost,
            pair_costs[edge_ids[known], pair_ids[known]],
            unknown_costs[unknown_edges],
        ]
    )
    finite = np.isfinite(objective)
    single_cells = np.tile(np.arange(cells), 3)
    pair_columns = n_single + np.arange(n_pairs)
    cover_rows = np.concatenate([single_cells, np.full(cells, cells), edges[edge_ids, 0], edges[edge_ids, 1]])
    cover_columns = np.concatenate([np.arange(n_single), np.arange(cells), pair_columns, pair_columns])
    shape_columns = n_single + n_pairs
    return _Problem(
        costs=costs,
        orphan_penalty=orphan_penalty,
        orphan_label=orphan_label,
        edge_cells=edges[edge_ids],
        pair_ids=pair_ids,
        objective=np.where(finite, objective, 0.0),
        bounds=(np.zeros(shape_columns), finite.astype(float)),
        matrix=csc_array(
            (
                np.ones(cover_rows.size + int(known.sum())),
                (
                    np.concatenate([cover_rows, cells + 1 + _PAIR_KIND[pair_ids[known]]]),
                    np.concatenate([cover_columns, pair_columns[known]]),
                ),
            ),
            shape=(cells + 1 + _KIND_COUNTS.size, shape_columns),
        ),
    )


def _relaxation(problem: _Problem) -> tuple[float, np.ndarray | None]:
    """Linear relaxation: a lower bound on the best cost, and its solution (None if infeasible).

    The relaxation of this set-partitioning programme is usually integral, and then it is the exact
    optimum at a third of the cost of the integer solver. It is solved through ``milp`` with no
    integer columns: the same HiGHS solve as ``linprog``, with a quarter less Python around it.
    """
    result = milp(
        problem.objective,
        constraints=_constraints(problem),
        integrality=np.zeros(problem.objective.size),
        bounds=problem.bounds,
    )
    if result.x is None:
        return np.inf, None
    return float(result.fun), result.x


def _constraints(problem: _Problem) -> LinearConstraint:
    """Each cell covered once and exactly one castle; each domino kind at most as often as in the box."""
    covers = problem.matrix.shape[0] - _KIND_COUNTS.size
    lower = np.concatenate([np.ones(covers), np.zeros(_KIND_COUNTS.size)])
    upper = np.concatenate([np.ones(covers), _KIND_COUNTS.astype(float)])
    return LinearConstraint(problem.matrix, lower, upper)


def _is_integral(x: np.ndarray) -> bool:
    return bool(np.all(np.minimum(x, 1.0 - x) < 1e-6))


def _integer_solution(problem: _Problem) -> np.ndarray | None:
    result = milp(
        problem.objective,
        constraints=_constraints(problem),
        integrality=np.ones(problem.objective.size),
        bounds=problem.bounds,
        options={"node_limit": MILP_NODES, "time_limit": MILP_SECONDS},
    )
    return result.x


def _solve(costs: np.ndarray, edges: np.ndarray, orphan_penalty: float) -> _Solution | None:
    """Best labelling for per-cell label costs (inf = forbidden); None if no castle is allowed.

    Exact, unless the integer solver hits its safety time limit (never seen on real readings).
    """
    problem = _problem(costs, edges, orphan_penalty)
    _, x = _relaxation(problem)
    if x is not None and not _is_integral(x):
        x = _integer_solution(problem)
    return None if x is None else _read_solution(problem, x > 0.5)


def _read_solution(problem: _Problem, chosen: np.ndarray) -> _Solution:
    costs = problem.costs
    cells = costs.shape[0]
    labels = np.empty(cells, dtype=int)
    orphan = np.zeros(cells, dtype=bool)
    partner = np.full(cells, -1)
    unknown = np.zeros(cells, dtype=bool)
    penalties = 0.0
    for column in np.nonzero(chosen[: 3 * cells])[0]:
        kind, cell = divmod(column, cells)
        labels[cell] = (CASTLE_LABEL, EMPTY_LABEL, problem.orphan_label[cell])[kind]
        orphan[cell] = kind == 2
        penalties += problem.orphan_penalty * (kind == 2)
    for column in np.nonzero(chosen[3 * cells :])[0]:
        (first, second), pair = problem.edge_cells[column], problem.pair_ids[column]
        partner[first], partner[second] = second, first
        if pair < 0:  # unknown domino: both cells keep their best land label, one penalty for both
            labels[first], labels[second] = problem.orphan_label[first], problem.orphan_label[second]
            orphan[first] = orphan[second] = unknown[first] = unknown[second] = True
            penalties += problem.orphan_penalty
        else:
            labels[first], labels[second] = _PAIR_FIRST[pair], _PAIR_SECOND[pair]
    cost = float(costs[np.arange(cells), labels].sum() + penalties)
    return _Solution(labels, cost, orphan, partner, unknown)


class _LocalAlternatives:
    """Cheap complete alternatives to a decoding, one cell at a time.

    Each alternative (relabel the cell's domino, break it into orphans, pair the cell with a free
    neighbour, move the castle) is itself a consistent decoding, so its extra cost is an upper bound
    on the exact gap of the cell; most of the time it is the exact gap.
    """

    def __init__(self, costs: np.ndarray, size: int, solution: _Solution, orphan_penalty: float) -> None:
        self.costs, self.size, self.penalty = costs, size, orphan_penalty
        self.labels, self.partner = solution.labels, solution.partner
        cells = costs.shape[0]
        # What each cell pays now; the two halves of an unknown domino share its penalty.
        alone = solution.orphan & ~solution.unknown
        self.own = costs[np.arange(cells), self.labels] + orphan_penalty * (alone + 0.5 * solution.unknown)
        self.unknown = solution.unknown
        paired = np.nonzero((self.partner >= 0) & ~solution.unknown)[0]
        kinds = _KIND_OF_LABELS[self.labels[paired], self.labels[self.partner[paired]]]
        self.free = _KIND_COUNTS - np.bincount(kinds, minlength=_KIND_COUNTS.size) // 2
        self.castle = int(np.nonzero(self.labels == CASTLE_LABEL)[0][0])

    def single(self, cell: int, banned: int = -1) -> float:
        """Cheapest cover of a cell on its own (orphan or gap), optionally without one label."""
        costs = self.costs[cell].copy()
        if banned >= 0:
            costs[banned] = np.inf
        return float(min(costs[LAND_LABELS].min() + self.penalty, costs[EMPTY_LABEL]))

    def release(self, cell: int) -> float:
        """Extra cost of turning a cell's domino partner into a single when the cell leaves the domino."""
        mate = self.partner[cell]
        return self.single(mate) - self.own[mate] if mate >= 0 else 0.0

    def best_pair(self, first: int, second: int, banned: int, free: np.ndarray) -> float:
        """Cheapest box domino on two cells from the free kinds, the first cell not showing ``banned``."""
        table = self.costs[first][:, None] + self.costs[second][None, :]
        allowed = (_KIND_OF_LABELS >= 0) & (free[np.maximum(_KIND_OF_LABELS, 0)] > 0)
        allowed[banned] = False
        return float(table[allowed].min()) if allowed.any() else np.inf

    def neighbours(self, cell: int) -> list[int]:
        row, col = divmod(cell, self.size)
        steps = ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
        return [r * self.size + c for r, c in steps if 0 <= r < self.size and 0 <= c < self.size]

    def gap(self, cell: int) -> float:
        label, own, mate = self.labels[cell], self.own[cell], self.partner[cell]
        if label == CASTLE_LABEL:
            moves = [
                self.costs[k, CASTLE_LABEL] - self.own[k] + self.release(k)
                for k in range(self.costs.shape[0])
                if k != cell and self.partner[k] != cell
            ]
            return self.single(cell, banned=CASTLE_LABEL) - own + min(moves, default=np.inf)
        castle = self.castle
        castle_here = self.costs[cell, CASTLE_LABEL] - own + self.release(cell)
        alternatives = [
            castle_here + self.single(castle, banned=CASTLE_LABEL) - self.own[castle],
            self.single(cell, banned=label) - own + self.release(cell),
        ]
        free = self.free.copy()
        if mate >= 0 and self.unknown[cell]:
            others = self.costs[cell, LAND_LABELS]
            others[LAND_LABELS == label] = np.inf
            alternatives.append(others.min() - self.costs[cell, label])  # another unknown domino
        elif mate >= 0:
            free[_KIND_OF_LABELS[label, self.labels[mate]]] += 1
            alternatives.append(self.best_pair(cell, mate, label, free) - own - self.own[mate])
        for other in self.neighbours(cell):
            if self.partner[other] < 0 and other != castle:
                alternatives.append(
                    self.best_pair(cell, other, label, free) - own - self.own[other] + self.release(cell)
                )
        return max(min(alternatives), 0.0)


def _alternative(
    costs: np.ndarray, edges: np.ndarray, orphan_penalty: float, best: _Solution, cell: int
) -> tuple[float, np.ndarray | None]:
    """How much the best decoding loses when ``cell`` may not keep its label, from the relaxation, and the
    squares the alternative decoding changes when the relaxation found one (integral), else None.

    Exact when the relaxation is integral (nearly always), else a lower bound: the square is then flagged
    rather than trusted, and no integer solve can blow the time budget (the same probabilities always give
    the same flags)."""
    forced = costs.copy()
    forced[cell, best.labels[cell]] = np.inf
    problem = _problem(forced, edges, orphan_penalty)
    bound, x = _relaxation(problem)
    if x is None or not _is_integral(x):
        return max(bound - best.cost, 0.0), None
    return max(bound - best.cost, 0.0), _read_solution(problem, x > 0.5).labels != best.labels


def _label_costs(probabilities: np.ndarray) -> np.ndarray:
    """Per-cell regrets: -log p relative to the cell's best label, so a perfect reading costs 0."""
    floored = np.maximum(probabilities, PROBABILITY_FLOOR)
    floored = floored / floored.sum(axis=1, keepdims=True)
    costs = -np.log(floored)
    return costs - costs.min(axis=1, keepdims=True)


def _validated(probabilities: np.ndarray) -> np.ndarray:
    array = np.asarray(probabilities, dtype=float)
    if array.ndim != 3 or array.shape[0] != array.shape[1] or array.shape[2] != len(LABELS):
        raise ValueError(f"probabilities must have shape (N, N, {len(LABELS)}), got {array.shape}")
    if not 1 <= array.shape[0] <= MAX_GRID_SIZE:
        raise ValueError(f"grid size must be 1-{MAX_GRID_SIZE}, got {array.shape[0]}")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError("probabilities must be finite and non-negative")
    flat = array.reshape(-1, len(LABELS))
    totals = flat.sum(axis=1, keepdims=True)
    return np.where(totals > 0, flat / np.where(totals > 0, totals, 1.0), 1.0 / len(LABELS))


def _readings(
    labels: np.ndarray, confidences: np.ndarray, size: int
) -> tuple[tuple[SquareReading, ...], ...]:
    squares = [LABELS[label] for label in labels]
    flat = [
        SquareReading(sq.terrain, sq.crowns, float(conf))
        for sq, conf in zip(squares, confidences, strict=True)
    ]
    return tuple(tuple(flat[row * size : (row + 1) * size]) for row in range(size))


@dataclass(frozen=True)
class SolvedKingdom:
    """The most probable labelling of one set of probabilities, before the margins of its squares (the
    costly part) are worked out: a reading that may still change needs only this."""

    flat: np.ndarray  # (cells, labels) normalised probabilities
    size: int
    costs: np.ndarray  # (cells, labels) regrets, the castle prior included
    orphan_penalty: float
    best: _Solution

    @property
    def kingdom(self) -> Kingdom:
        labels = self.best.labels
        size = self.size
        return Kingdom.from_rows(
            [[LABELS[label] for label in labels[r * size : (r + 1) * size]] for r in range(size)]
        )


def solve_kingdom(
    probabilities: np.ndarray,
    orphan_penalty: float = ORPHAN_PENALTY,
    castle_centre_bonus: float = CASTLE_CENTRE_BONUS,
) -> SolvedKingdom:
    """The most probable kingdom under the rules and the box (see ``decode_kingdom``), without margins."""
    flat = _validated(probabilities)
    size = int(np.asarray(probabilities).shape[0])
    costs = _label_costs(flat)
    if size % 2 == 1:  # the prior for the centre, as a surcharge elsewhere so that costs stay >= 0
        off_centre = np.arange(size * size) != (size * size) // 2
        costs[off_centre, CASTLE_LABEL] += castle_centre_bonus
    best = _solve(costs, _edges(size), orphan_penalty)
    if best is None:  # cannot happen: floored probabilities allow a castle on every square
        raise ValueError("no labelling with exactly one castle")
    return SolvedKingdom(flat, size, costs, orphan_penalty, best)


def decode_kingdom(
    probabilities: np.ndarray,
    orphan_penalty: float = ORPHAN_PENALTY,
    flag_margin: float = FLAG_MARGIN,
    max_gap_resolves: int = MAX_GAP_RESOLVES,
    castle_centre_bonus: float = CASTLE_CENTRE_BONUS,
) -> DecodedKingdom:
    """Most probable kingdom under the rules and the box, with per-square confidence and flags.

    ``probabilities`` is (N, N, 18) over ``kingdomino.labels.LABELS``; rows need not be normalised.
    Raises ValueError for arrays of the wrong shape or with negative / non-finite entries.
    """
    solved = solve_kingdom(probabilities, orphan_penalty, castle_centre_bonus)
    return with_margins(solved, flag_margin, max_gap_resolves)


def with_margins(
    solved: SolvedKingdom, flag_margin: float = FLAG_MARGIN, max_gap_resolves: int = MAX_GAP_RESOLVES
) -> DecodedKingdom:
    """The decoded kingdom of ``solve_kingdom`` with the margin, confidence and flag of every square."""
    flat, size, costs, best = solved.flat, solved.size, solved.costs, solved.best
    orphan_penalty, edges = solved.orphan_penalty, _edges(size)
    raw_labels = flat.argmax(axis=1)
    cells = np.arange(flat.shape[0])
    # The gap of a cell (how much worse the best decoding gets once its label is forbidden) lies
    # between a lower bound (its next-best regret minus what the optimum already pays) and the
    # cost of a local alternative. Cells whose flag depends on where it lies are re-solved.
    forbidden = costs.copy()
    forbidden[cells, best.labels] = np.inf
    lower = np.maximum(forbidden.min(axis=1) - best.cost, 0.0)
    local = _LocalAlternatives(costs, size, best, orphan_penalty)
    margins = np.array([local.gap(cell) for cell in cells])
    undecided = np.nonzero((lower < flag_margin) & (margins >= flag_margin))[0]
    # an alternative decoding is one for every square it changes: its cost bounds all their margins
    found, resolved = [], set()
    for cell in undecided[np.argsort(margins[undecided], kind="stable")][:max_gap_resolves]:
        gap, changed = _alternative(costs, edges, orphan_penalty, best, int(cell))
        margins[cell] = max(gap, lower[cell])
        resolved.add(int(cell))
        if changed is not None:
            found.append((changed, gap))
    for changed, gap in found:
        margins[changed] = np.minimum(margins[changed], gap)
    castle = np.nonzero(best.labels == CASTLE_LABEL)[0]
    if len(castle) and int(castle[0]) not in resolved:  # a castle re-solved above: its alternative counted
        margins = castle_alternative(solved, margins, flag_margin)
    confidences = 1.0 / (1.0 + np.exp(-margins))

    changed = best.labels != raw_labels
    flagged = margins < flag_margin
    shape = (size, size)
    return DecodedKingdom(
        kingdom=solved.kingdom,
        readings=_readings(best.labels, confidences, size),
        raw=_readings(raw_labels, flat[cells, raw_labels], size),
        changed=changed.reshape(shape),
        flagged=flagged.reshape(shape),
        orphans=best.orphan.reshape(shape),
        margins=margins.reshape(shape),
        dominoes=tuple(
            (divmod(int(a), size), divmod(int(b), size))
            for a, b in enumerate(best.partner)
            if a < b and not best.unknown[a]
        ),
    )


def castle_alternative(
    solved: SolvedKingdom, margins: np.ndarray, flag_margin: float = FLAG_MARGIN
) -> np.ndarray:
    """``margins`` ((cells,) or (N, N), returned in that shape) with the castle's best alternative placement
    counted, when the castle square is doubtful (its margin under ``flag_margin``): the best decoding with
    the castle elsewhere costs that much more than the best, and every square it changes (the square the
    castle would move to and the dominoes around both) wins by no more than that. Each square's own bound
    may have missed it (a local alternative, or a square left unsolved past the re-solves): the castle's
    doubt is theirs too (docs/experiments.md, "The castle's reach, and the castle's best alternative").
    From the relaxation, as every margin: when it is not integral, no other square is bounded."""
    flat = np.asarray(margins, dtype=float).ravel()
    castle = np.nonzero(solved.best.labels == CASTLE_LABEL)[0]
    if not len(castle) or flat[castle[0]] >= flag_margin:
        return np.asarray(margins)
    edges = _edges(solved.size)
    gap, changed = _alternative(solved.costs, edges, solved.orphan_penalty, solved.best, int(castle[0]))
    if changed is None:
        return np.asarray(margins)
    bounded = flat.copy()
    bounded[changed] = np.minimum(bounded[changed], gap)
    return bounded.reshape(np.shape(margins))
