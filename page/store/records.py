"""What the store holds and returns: games, players, boards, readings and corrections, as frozen records.

A board's kingdom is its reading with the corrections replayed (``apply_edits``), the last edit of a
square winning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kingdomino.board import GRID_SIZES, MAX_GRID_SIZE, Cell, Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from kingdomino.ranking import GameRanking, dynasty, rank_game
from page.store.errors import StoreError, shown

#: Rounds of one game: a Dynasty is three.
MAX_ROUNDS = 3


@dataclass(frozen=True)
class StoredEdit:
    """One correction, as the page's Edit: set a square, go back to the scan, or change the frame size."""

    kind: str  # "set", "reset" or "resize"
    cell: Cell = (0, 0)
    square: Square | None = None
    grid_size: int = 0
    #: The game's version when the edit was written: edits replay in this order, so the last one wins.
    seq: int = 0
    at: float = 0.0

    def to_dict(self) -> dict:
        """The correction as the game file writes it."""
        if self.kind == "set":
            assert self.square is not None
            return {"kind": "set", "row": self.cell[0], "col": self.cell[1], **self.square.to_dict()}
        if self.kind == "resize":
            return {"kind": "resize", "grid_size": self.grid_size}
        return {"kind": "reset"}

    @classmethod
    def from_dict(cls, data: Any) -> StoredEdit:
        if not isinstance(data, dict) or data.get("kind") not in ("set", "reset", "resize"):
            raise StoreError(f"unknown correction {shown(data)}")
        if data["kind"] == "set":
            return cls(
                "set", (check_index(data.get("row")), check_index(data.get("col"))), Square.from_dict(data)
            )
        if data["kind"] == "resize":
            if data.get("grid_size") not in GRID_SIZES:
                raise StoreError(f"grid size must be 5 or 7, got {shown(data.get('grid_size'))}")
            return cls("resize", grid_size=data["grid_size"])
        return cls("reset")


@dataclass(frozen=True)
class Reading:
    """A board as read from a photo (or started by hand): what ``save_reading`` stores.

    ``corners`` are the frame's four corners (top-left, top-right, bottom-right, bottom-left) in pixels
    of an image ``photo_size`` = (width, height) large, so they can be scaled onto any stored copy.
    """

    base: Kingdom
    from_scan: bool = False
    readings: tuple[tuple[SquareReading, ...], ...] | None = None
    flagged: tuple[tuple[bool, ...], ...] | None = None
    corners: tuple[tuple[float, float], ...] | None = None
    photo_size: tuple[int, int] | None = None
    grid_choice: str | int = "auto"
    source: str = ""
    message: str = ""
    notes: tuple[str, ...] = ()
    scan_seconds: float | None = None


@dataclass(frozen=True)
class StoredBoard:
    """A player's current board: the reading, the corrections in order, and the images kept with it.

    A board's id is never reused and its reading and images never change, so the id is a safe cache key.
    """

    id: int
    reading: Reading
    edits: tuple[StoredEdit, ...]
    #: Kinds of images stored with the board (e.g. "photo", "rectified", "overlay"): ``GameStore.image``.
    images: tuple[str, ...]
    created_at: float

    @property
    def kingdom(self) -> Kingdom:
        """The reading with the corrections replayed, as the player sees it."""
        return apply_edits(self.reading.base, self.edits)


@dataclass(frozen=True)
class StoredPlayer:
    id: int
    name: str
    round: int
    seat: int
    board: StoredBoard | None
    #: Boards that new readings replaced, which Undo brings back once the corrections are all undone.
    earlier_boards: int = 0

    @property
    def kingdom(self) -> Kingdom | None:
        return None if self.board is None else self.board.kingdom


@dataclass(frozen=True)
class StoredGame:
    code: str
    version: int
    created_at: float
    updated_at: float
    edition: str
    harmony: bool
    middle_kingdom: bool
    #: Every player of every round, by round then seat.
    players: tuple[StoredPlayer, ...]

    @property
    def rounds(self) -> int:
        return max((p.round for p in self.players), default=1)

    def round_players(self, round_number: int | None = None) -> list[StoredPlayer]:
        """The players of one round (by default the last), in seat order."""
        number = self.rounds if round_number is None else round_number
        return [p for p in self.players if p.round == number]

    def player(self, player_id: int) -> StoredPlayer | None:
        return next((p for p in self.players if p.id == player_id), None)

    def ranking(self) -> GameRanking | None:
        """The winner(s): the Dynasty when every round has every kingdom, else the last round scored by
        two or more kingdoms; None while fewer than two players have one."""
        rounds = [
            {p.name: p.kingdom for p in self.round_players(n) if p.kingdom is not None}
            for n in range(1, self.rounds + 1)
        ]
        options = {"edition": self.edition, "harmony": self.harmony, "middle_kingdom": self.middle_kingdom}
        names = [{p.name for p in self.round_players(n)} for n in range(1, self.rounds + 1)]
        complete = all(set(r) == names[0] == n for r, n in zip(rounds, names, strict=True))
        if len(rounds) > 1 and complete and len(names[0]) >= 2:
            return dynasty(rounds, **options)
        for boards in reversed(rounds):
            if len(boards) >= 2:
                return rank_game(boards, **options)
        return None


@dataclass(frozen=True)
class GameSummary:
    """One line of the history page."""

    code: str
    created_at: float
    updated_at: float
    rounds: int
    players: tuple[str, ...]
    #: Empty while fewer than two players have a kingdom.
    winners: tuple[str, ...]
    #: Each player's total in the ranking that decided the winners (Dynasty totals when all rounds count).
    scores: tuple[tuple[str, int], ...]


def apply_edits(base: Kingdom, edits: Sequence[StoredEdit]) -> Kingdom:
    """Replay the corrections on a reading (the same rules as the page's Edit replay)."""
    kingdom = base
    for edit in edits:
        if edit.kind == "reset":
            kingdom = base
        elif edit.kind == "resize":
            kingdom = resize_kingdom(kingdom, edit.grid_size)
        elif edit.square is not None and all(0 <= i < kingdom.grid_size for i in edit.cell):
            kingdom = kingdom.replace(edit.cell, edit.square)
    return kingdom


def resize_kingdom(kingdom: Kingdom, grid_size: int) -> Kingdom:
    """The same kingdom in a larger or smaller frame, centred, so the castle stays in the middle."""
    offset = (grid_size - kingdom.grid_size) // 2
    rows = []
    for r in range(grid_size):
        row = []
        for c in range(grid_size):
            source = (r - offset, c - offset)
            inside = all(0 <= i < kingdom.grid_size for i in source)
            row.append(kingdom[source] if inside else Square(Terrain.EMPTY))
        rows.append(row)
    return Kingdom.from_rows(rows)


def check_index(value: Any) -> int:
    """A row or column a correction names, checked."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_GRID_SIZE:
        raise StoreError(f"a correction names an invalid row or column {shown(value)}")
    return value


def summarize(game: StoredGame) -> GameSummary:
    """The history line of a game."""
    ranking = game.ranking()
    return GameSummary(
        game.code,
        game.created_at,
        game.updated_at,
        game.rounds,
        tuple(p.name for p in game.round_players()),
        tuple(ranking.winners) if ranking else (),
        tuple((s.name, s.total) for s in ranking.standings) if ranking else (),
    )
