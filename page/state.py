"""The page's state and undo: players, games of a Dynasty, corrections as replayable edits.

Everything the page remembers is here as plain dataclasses, so saving a game is one call
(page.persistence) and every rule of the page is a function testable without Streamlit. Corrections
and their replay live in page.edits, shared with the game store.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Literal

from kingdomino.board import MAX_CROWNS, Cell, Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from page.edits import MAX_GAMES, Edit, GameFileError, apply_edits  # noqa: F401 - GameFileError re-exported

#: Below this confidence a square is marked for review even when the decoder did not flag it.
LOW_CONFIDENCE = 0.6
#: How many replaced boards (a new photo, a re-read, "enter by hand") Undo can bring back per player.
MAX_EARLIER_BOARDS = 5
UNDO_NOTE = "the new reading replaced your corrections: Undo brings the previous board back"
GridChoice = Literal["auto", 5, 7]
GRID_CHOICES: tuple[GridChoice, ...] = ("auto", 5, 7)
Corners = tuple[tuple[float, float], ...]  # TL, TR, BR, BL of the squares grid, original photo pixels


def square_for(terrain: Terrain | str, crowns: int) -> Square:
    """The square a player picked, with crowns capped at what the terrain ever carries."""
    terrain = Terrain(terrain)
    return Square(terrain, max(0, min(int(crowns), MAX_CROWNS[terrain])))


def crown_options(terrain: Terrain | str) -> list[int]:
    """Crown counts offered for a terrain (0 only for castle and empty)."""
    return list(range(MAX_CROWNS[Terrain(terrain)] + 1))


@dataclass
class PlayerKingdom:
    """One player's kingdom in one game: what the scanner read, and the player's corrections."""

    name: str
    base: Kingdom | None = None
    from_scan: bool = False
    #: the bundled sample shown on a fresh page: labelled as a demo, never ranked, gone with the first photo
    demo: bool = False
    edits: list[Edit] = field(default_factory=list)
    readings: tuple[tuple[SquareReading, ...], ...] | None = None
    flagged: tuple[tuple[bool, ...], ...] | None = None
    source: str = ""
    #: why the current photo gave no kingdom ('' when it did, or when there is no photo)
    message: str = ""
    notes: list[str] = field(default_factory=list)
    scan_seconds: float | None = None
    grid_choice: GridChoice = "auto"
    photo: bytes | None = field(default=None, repr=False)
    photo_id: str | None = None
    #: the frame the squares were (or will be) read in, in the photo's own pixels
    corners: Corners | None = None
    #: the photo reduced for display (JPEG) and its pixels per original photo pixel
    preview_jpeg: bytes | None = field(default=None, repr=False)
    preview_scale: float = 1.0
    #: the top-down kingdom the squares were cut from (JPEG, 100 px per square)
    rectified_jpeg: bytes | None = field(default=None, repr=False)
    # Boards this one replaced, most recent last, so Undo can bring them back with their corrections.
    earlier: list[PlayerKingdom] = field(default_factory=list, repr=False)

    @property
    def kingdom(self) -> Kingdom | None:
        return None if self.base is None else apply_edits(self.base, self.edits)

    @property
    def corrected_cells(self) -> set[Cell]:
        """Squares that now differ from what the scanner read."""
        kingdom = self.kingdom
        if kingdom is None or self.base is None or kingdom.grid_size != self.base.grid_size:
            return set()
        return {cell for cell, square in kingdom.cells() if square != self.base[cell]}

    def review_cells(self) -> list[Cell]:
        """Squares to check first: flagged by the decoder or read with low confidence, not yet changed."""
        if not self.from_scan or self.readings is None or self.base is None:
            return []
        kingdom = self.kingdom
        if kingdom is None or kingdom.grid_size != self.base.grid_size:
            return []
        corrected = self.corrected_cells
        cells = []
        for r, row in enumerate(self.readings):
            for c, reading in enumerate(row):
                flagged = bool(self.flagged[r][c]) if self.flagged is not None else False
                if (flagged or reading.confidence < LOW_CONFIDENCE) and (r, c) not in corrected:
                    cells.append((r, c))
        return cells


@dataclass
class GameSession:
    """One game at the table: a kingdom per player and the bonus variants the table agreed on."""

    players: list[PlayerKingdom] = field(default_factory=list)
    harmony: bool = False
    middle_kingdom: bool = False
    current_player: int = 0

    @property
    def player(self) -> PlayerKingdom:
        return self.players[self.current_player]


@dataclass
class PageState:
    """The whole page: up to three games (a Dynasty), the ranking edition, the selected square, and the
    square editor's mode and brush. ``notice`` is a one-shot message about the last action."""

    games: list[GameSession] = field(default_factory=lambda: [GameSession([PlayerKingdom("Player 1")])])
    current_game: int = 0
    edition: str = "second"
    selected: Cell = (0, 0)
    paint: bool = False
    brush: Square = Square(Terrain.WHEAT, 0)
    notice: str = ""
    #: The version of the stored game this state was loaded as or saved as (0: not stored yet).
    stored_version: int = 0

    @property
    def game(self) -> GameSession:
        return self.games[self.current_game]

    @property
    def player(self) -> PlayerKingdom:
        return self.game.player


# --- players and games ------------------------------------------------------------------------


def add_player(state: PageState, name: str = "") -> PlayerKingdom:
    """A new player in the current game, made current; the name defaults to 'Player N'."""
    game = state.game
    player = PlayerKingdom(name.strip() or _free_name(game))
    game.players.append(player)
    game.current_player = len(game.players) - 1
    return player


def _free_name(game: GameSession) -> str:
    taken = {p.name for p in game.players}
    number = len(game.players) + 1
    while f"Player {number}" in taken:
        number += 1
    return f"Player {number}"


def remove_player(state: PageState, index: int | None = None) -> None:
    """Drop a player (by default the current one) from the current game; the last one is kept."""
    game = state.game
    index = game.current_player if index is None else index
    if len(game.players) > 1 and 0 <= index < len(game.players):
        del game.players[index]
        game.current_player = min(game.current_player, len(game.players) - 1)


def rename_player(state: PageState, name: str) -> str:
    """Rename the current player; returns a one-line reason when the name cannot be used ('' when done)."""
    name = name.strip()
    if not name:
        return "a player needs a name"
    if any(p is not state.player and p.name == name for p in state.game.players):
        return f"another player is already called {name!r}"
    old = state.player.name
    for game in state.games:
        for player in game.players:
            if player.name == old:
                player.name = name
    return ""


def select_player(state: PageState, index: int) -> None:
    if 0 <= index < len(state.game.players):
        state.game.current_player = index
        clamp_selection(state)


def new_game(state: PageState) -> bool:
    """Start the next game of a Dynasty with the same players; False when three games exist."""
    if len(state.games) >= MAX_GAMES:
        return False
    previous = state.game
    players = [PlayerKingdom(p.name) for p in previous.players]
    state.games.append(GameSession(players, previous.harmony, previous.middle_kingdom))
    state.current_game = len(state.games) - 1
    return True


def select_game(state: PageState, index: int) -> None:
    if 0 <= index < len(state.games):
        state.current_game = index
        clamp_selection(state)


def clamp_selection(state: PageState) -> None:
    """Keep the selected square inside the current player's frame."""
    kingdom = state.player.kingdom
    size = kingdom.grid_size if kingdom is not None else 5
    state.selected = (min(state.selected[0], size - 1), min(state.selected[1], size - 1))


# --- corrections and undo ---------------------------------------------------------------------


def set_square(state: PageState, cell: Cell, terrain: Terrain | str, crowns: int) -> bool:
    """Correct one square of the current player's kingdom; False when nothing changed."""
    player = state.player
    kingdom = player.kingdom
    if kingdom is None or not all(0 <= i < kingdom.grid_size for i in cell):
        return False
    square = square_for(terrain, crowns)
    state.selected = cell
    if kingdom[cell] == square:
        return False
    player.edits.append(Edit("set", cell, square))
    return True


def set_terrain(state: PageState, terrain: Terrain | str) -> str:
    """The selected square becomes ``terrain``, keeping its crowns where the terrain carries them.
    Returns a one-line note when its crowns had to be lowered ('' otherwise)."""
    kingdom = state.player.kingdom
    if kingdom is None:
        return ""
    crowns = kingdom[state.selected].crowns
    terrain = Terrain(terrain)
    set_square(state, state.selected, terrain, crowns)
    return lowered_note(terrain, crowns)


def set_crowns(state: PageState, crowns: int) -> bool:
    kingdom = state.player.kingdom
    if kingdom is None:
        return False
    return set_square(state, state.selected, kingdom[state.selected].terrain, crowns)


def lowered_note(terrain: Terrain | str, crowns: int) -> str:
    """What the page says when a terrain change lowers a square's crowns ('' when nothing is lost)."""
    terrain = Terrain(terrain)
    most = MAX_CROWNS[terrain]
    if crowns <= most:
        return ""
    carries = "no crowns" if most == 0 else f"at most {most} crown{'s' if most != 1 else ''}"
    return f"crowns lowered from {crowns} to {most}: a {terrain.value} square carries {carries}"


def set_brush(state: PageState, terrain: Terrain | str | None = None, crowns: int | None = None) -> str:
    """Change the paint brush (terrain and/or crowns); returns a note when its crowns were lowered."""
    terrain = Terrain(terrain) if terrain is not None else state.brush.terrain
    wanted = state.brush.crowns if crowns is None else int(crowns)
    state.brush = square_for(terrain, wanted)
    return lowered_note(terrain, wanted)


def paint(state: PageState, cell: Cell) -> bool:
    """Paint mode: the tapped square takes the brush's terrain and crowns."""
    return set_square(state, cell, state.brush.terrain, state.brush.crowns)


def can_undo(player: PlayerKingdom) -> bool:
    return bool(player.edits or player.earlier)


def undo(state: PageState) -> bool:
    """Take back the last correction; with none left, bring back the board a new reading replaced."""
    player = state.player
    if player.edits:
        player.edits.pop()
    elif player.earlier:
        restore(player, player.earlier.pop())
    else:
        return False
    clamp_selection(state)
    return True


def snapshot(player: PlayerKingdom) -> PlayerKingdom:
    """A copy of the player's board (photo, readings, corrections) that later changes do not touch."""
    return replace(player, edits=list(player.edits), notes=list(player.notes), earlier=[])


def keep_for_undo(player: PlayerKingdom, earlier: PlayerKingdom) -> None:
    """Remember a board that a new reading or hand entry is replacing, so Undo can bring it back.
    The demo is never brought back: it was not the player's."""
    if earlier.base is not None and not earlier.demo:
        player.earlier = [*player.earlier, earlier][-MAX_EARLIER_BOARDS:]


def restore(player: PlayerKingdom, earlier: PlayerKingdom) -> None:
    for item in fields(PlayerKingdom):
        if item.name not in ("name", "earlier"):
            setattr(player, item.name, getattr(earlier, item.name))


def reset_to_scan(state: PageState) -> bool:
    """Bring back the scanner's reading (itself undoable)."""
    player = state.player
    if player.base is None or player.kingdom == player.base:
        return False
    player.edits.append(Edit("reset"))
    clamp_selection(state)
    return True


def start_hand_entry(player: PlayerKingdom, grid_size: int = 5) -> None:
    """An empty frame with the castle in the middle, for a board the scanner could not read."""
    player.base = Kingdom.empty(grid_size)
    player.from_scan = player.demo = False
    player.edits = []
    player.readings = player.flagged = None
    player.rectified_jpeg = None


def enter_by_hand(state: PageState, grid_size: int = 5) -> None:
    """The player chose to type the board in: start from an empty frame (Undo brings the old board back)."""
    player = state.player
    keep_for_undo(player, snapshot(player))
    start_hand_entry(player, grid_size)
    player.photo = player.photo_id = player.preview_jpeg = player.corners = None
    player.message, player.source, player.notes, player.scan_seconds = "", "", [], None
    clamp_selection(state)


def resize_hand_entry(state: PageState, grid_size: int) -> bool:
    """Change the frame of a board entered by hand (5×5 <-> 7×7), keeping it centred; undoable."""
    player = state.player
    kingdom = player.kingdom
    if kingdom is None:
        start_hand_entry(player, grid_size)
        return True
    if kingdom.grid_size == grid_size:
        return False
    player.edits.append(Edit("resize", grid_size=grid_size))
    clamp_selection(state)
    return True


def cell_at(x: float, y: float, width: float, height: float, grid_size: int) -> Cell | None:
    """The square under a tap on the drawn kingdom, given the displayed image size."""
    if width <= 0 or height <= 0 or not (0 <= x < width and 0 <= y < height):
        return None
    return (min(int(y * grid_size / height), grid_size - 1), min(int(x * grid_size / width), grid_size - 1))


def carry_view(source: PageState, target: PageState) -> None:
    """Give ``target`` (the game as another page saved it) this page's own view of it: which game and
    player it shows, the selected square, and the editor's mode and brush. Each phone keeps its view."""
    if 0 <= source.current_game < len(target.games):
        target.current_game = source.current_game
    for mine, theirs in zip(source.games, target.games, strict=False):
        if 0 <= mine.current_player < len(theirs.players):
            theirs.current_player = mine.current_player
    target.selected, target.paint, target.brush = source.selected, source.paint, source.brush
    clamp_selection(target)
