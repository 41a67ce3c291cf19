"""What the store holds and returns: games, players, boards, readings and corrections, as frozen records.

A board's kingdom is its reading with the corrections replayed (``apply_edits``), the last edit of a
square winning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kingdomino.board import Kingdom
from kingdomino.labels import SquareReading
from kingdomino.ranking import GameRanking, dynasty, rank_game
from page.edits import MAX_GAMES, Edit, apply_edits

#: Rounds of one game: a Dynasty is three.
MAX_ROUNDS = MAX_GAMES


@dataclass(frozen=True)
class StoredEdit(Edit):
    """One correction (the page's Edit) with when it was written."""

    #: The game's version when the edit was written: edits replay in this order, so the last one wins.
    seq: int = 0
    at: float = 0.0


@dataclass(frozen=True)
class Reading:
    """A board as read from a photo (or started by hand): what ``save_reading`` stores.

    ``corners`` are the frame's four corners (top-left, top-right, bottom-right, bottom-left) in pixels
    of an image ``photo_size`` = (width, height) large, so they can be scaled onto any stored copy.
    """

    #: None for a photo in which no kingdom was read (``message`` says why).
    base: Kingdom | None
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
    #: A sample shown on a fresh page: never ranked, never the player's.
    demo: bool = False
    #: The page's name for the uploaded file, so the same upload is not read twice.
    photo_id: str | None = None
    #: Pixels of the stored preview image per pixel of the photo the corners are given in.
    preview_scale: float | None = None


@dataclass(frozen=True)
class StoredBoard:
    """A player's board: the reading, the corrections in order, and the images kept with it.

    A board's id is never reused and its reading and images never change, so the id is a safe cache key.
    """

    id: int
    reading: Reading
    edits: tuple[StoredEdit, ...]
    #: Kinds of images stored with the board (e.g. "photo", "rectified", "overlay"): ``GameStore.image``.
    images: tuple[str, ...]
    created_at: float

    @property
    def kingdom(self) -> Kingdom | None:
        """The reading with the corrections replayed, as the player sees it."""
        return None if self.reading.base is None else apply_edits(self.reading.base, self.edits)


@dataclass(frozen=True)
class StoredPlayer:
    id: int
    name: str
    round: int
    seat: int
    board: StoredBoard | None
    #: Boards that new readings replaced, which Undo brings back once the corrections are all undone.
    earlier_boards: int = 0
    #: Those boards, oldest first, when loaded with ``load(code, earlier=True)``.
    earlier: tuple[StoredBoard, ...] = ()

    @property
    def kingdom(self) -> Kingdom | None:
        return None if self.board is None else self.board.kingdom

    @property
    def ranked_kingdom(self) -> Kingdom | None:
        """The kingdom that counts for the ranking: none for a demo board."""
        return None if self.board is None or self.board.reading.demo else self.board.kingdom


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
            {p.name: p.ranked_kingdom for p in self.round_players(n) if p.ranked_kingdom is not None}
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
    #: Kingdoms of the last round (a demo does not count): 0 for a game nobody has played yet.
    kingdoms: int = 0


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
        sum(p.ranked_kingdom is not None for p in game.round_players()),
    )


# --- a whole game, as the page saves it ----------------------------------------------------------


@dataclass(frozen=True)
class BoardContent:
    """A board to keep: its reading, its corrections in order, its images (JPEG bytes by kind)."""

    reading: Reading
    edits: tuple[Edit, ...] = ()
    images: Mapping[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class PlayerContent:
    name: str
    #: Oldest first; the last is the current board, the others are what Undo brings back.
    boards: tuple[BoardContent, ...] = ()


@dataclass(frozen=True)
class GameContent:
    """Everything a page holds of a game, for ``GameStore.replace_game``."""

    #: The players of each round, in seat order.
    rounds: tuple[tuple[PlayerContent, ...], ...]
    edition: str = "second"
    harmony: bool = False
    middle_kingdom: bool = False
