"""Everything the Streamlit page does, as plain functions on a plain state object.

app.py only lays out widgets and calls these functions, so the page's behaviour (corrections, undo,
reset, re-scoring, ranking, import/export, drawing) is unit-tested without a browser. The page holds
no rules of its own: scans go through KingdomScanner and scores through the shared scoring engine.
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import cv2
import numpy as np

from kingdomino.board import GRID_SIZES, MAX_CROWNS, BoardFormatError, Cell, Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from kingdomino.ranking import EDITIONS, GameRanking, dynasty, rank_game
from kingdomino.scoring import ScoreReport, Territory, score_kingdom
from scanner.errors import ScanError

#: Below this confidence a square is marked for review even when the decoder did not flag it.
LOW_CONFIDENCE = 0.6
#: Pixels per square of the kingdom drawn on the page (small enough to send quickly on every rerun).
CELL_PX = 80
#: Pixels per square of exported rectified images, as in data/real/boards (500×500 for 5×5).
EXPORT_SQUARE_PX = 100
#: Longest side of the photo-with-grid image kept for display.
OVERLAY_MAX_PX = 1000
MAX_GAMES = 3
UNDO_NOTE = "the new reading replaced your corrections: Undo brings the previous board back"
#: How many replaced boards (a new photo, a re-read, "enter by hand") Undo can bring back per player.
MAX_EARLIER_BOARDS = 5
GAME_FORMAT = "kingdomino-scanner/game"
GAME_FORMAT_VERSION = 1
GridChoice = Literal["auto", 5, 7]
GRID_CHOICES: tuple[GridChoice, ...] = ("auto", 5, 7)

#: RGB colour of each terrain on the drawn kingdom.
TERRAIN_RGB: dict[Terrain, tuple[int, int, int]] = {
    Terrain.WHEAT: (236, 200, 50),
    Terrain.FOREST: (34, 110, 44),
    Terrain.LAKE: (40, 110, 205),
    Terrain.GRASSLAND: (135, 205, 80),
    Terrain.SWAMP: (140, 118, 86),
    Terrain.MINE: (72, 72, 72),
    Terrain.CASTLE: (235, 235, 235),
    Terrain.EMPTY: (250, 250, 250),
}
REVIEW_RGB = (255, 120, 0)
CORRECTED_RGB = (0, 200, 255)
HIGHLIGHT_RGB = (255, 235, 0)


class GameFileError(ValueError):
    """A game file that cannot be imported; the message is one line for the player."""


# --- corrections ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """One undoable step: set a square, go back to the scan, or change the frame size."""

    kind: Literal["set", "reset", "resize"]
    cell: Cell = (0, 0)
    square: Square | None = None
    grid_size: int = 0

    def to_dict(self) -> dict:
        if self.kind == "set":
            assert self.square is not None
            return {"kind": "set", "row": self.cell[0], "col": self.cell[1], **self.square.to_dict()}
        if self.kind == "resize":
            return {"kind": "resize", "grid_size": self.grid_size}
        return {"kind": "reset"}

    @classmethod
    def from_dict(cls, data: Any) -> Edit:
        if not isinstance(data, dict) or data.get("kind") not in ("set", "reset", "resize"):
            raise GameFileError(f"unknown correction {data!r}")
        if data["kind"] == "set":
            return cls("set", (_index(data.get("row")), _index(data.get("col"))), Square.from_dict(data))
        if data["kind"] == "resize":
            if data.get("grid_size") not in GRID_SIZES:
                raise GameFileError(f"grid size must be 5 or 7, got {data.get('grid_size')!r}")
            return cls("resize", grid_size=data["grid_size"])
        return cls("reset")


def _index(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise GameFileError(f"a correction names an invalid row or column {value!r}")
    return value


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


def apply_edits(base: Kingdom, edits: Sequence[Edit]) -> Kingdom:
    """Replay the corrections on the scanner's reading (cheap: a few dozen tiny immutable copies)."""
    kingdom = base
    for edit in edits:
        if edit.kind == "reset":
            kingdom = base
        elif edit.kind == "resize":
            kingdom = resize_kingdom(kingdom, edit.grid_size)
        elif edit.square is not None and all(0 <= i < kingdom.grid_size for i in edit.cell):
            kingdom = kingdom.replace(edit.cell, edit.square)
    return kingdom


def square_for(terrain: Terrain | str, crowns: int) -> Square:
    """The square a player picked, with crowns capped at what the terrain ever carries."""
    terrain = Terrain(terrain)
    return Square(terrain, max(0, min(int(crowns), MAX_CROWNS[terrain])))


def crown_options(terrain: Terrain | str) -> list[int]:
    """Crown counts offered for a terrain (0 only for castle and empty)."""
    return list(range(MAX_CROWNS[Terrain(terrain)] + 1))


# --- the state of the page --------------------------------------------------------------------


@dataclass
class PlayerKingdom:
    """One player's kingdom in one game: what the scanner read, and the player's corrections."""

    name: str
    base: Kingdom | None = None
    from_scan: bool = False
    edits: list[Edit] = field(default_factory=list)
    readings: tuple[tuple[SquareReading, ...], ...] | None = None
    flagged: tuple[tuple[bool, ...], ...] | None = None
    source: str = ""
    message: str = ""
    notes: list[str] = field(default_factory=list)
    scan_seconds: float | None = None
    grid_choice: GridChoice = "auto"
    # Images and the photo stay in the session only; they are not part of the game file.
    photo: bytes | None = field(default=None, repr=False)
    photo_id: str | None = None
    rectified: np.ndarray | None = field(default=None, repr=False)
    overlay_jpeg: bytes | None = field(default=None, repr=False)
    # While ``message`` tells of a refused photo, the board's own message, which the game file keeps.
    saved_message: str | None = None
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
class Game:
    """One game: a kingdom per player and the bonus variants the table agreed on."""

    players: list[PlayerKingdom] = field(default_factory=list)
    harmony: bool = False
    middle_kingdom: bool = False
    current_player: int = 0

    @property
    def player(self) -> PlayerKingdom:
        return self.players[self.current_player]


@dataclass
class PageState:
    """The whole page: up to three games (a Dynasty), the selected square and the ranking edition."""

    games: list[Game] = field(default_factory=lambda: [Game([PlayerKingdom("Player 1")])])
    current_game: int = 0
    edition: str = "second"
    selected: Cell = (0, 0)

    @property
    def game(self) -> Game:
        return self.games[self.current_game]

    @property
    def player(self) -> PlayerKingdom:
        return self.game.player


def add_player(state: PageState, name: str = "") -> PlayerKingdom:
    """A new player in the current game, made current; the name defaults to 'Player N'."""
    game = state.game
    player = PlayerKingdom(name.strip() or _free_name(game))
    game.players.append(player)
    game.current_player = len(game.players) - 1
    return player


def _free_name(game: Game) -> str:
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
    state.games.append(Game(players, previous.harmony, previous.middle_kingdom))
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


def set_square(state: PageState, cell: Cell, terrain: Terrain | str, crowns: int) -> bool:
    """Correct one square of the current player's kingdom; False when nothing changed."""
    player = state.player
    kingdom = player.kingdom
    if kingdom is None or not all(0 <= i < kingdom.grid_size for i in cell):
        return False
    square = square_for(terrain, crowns)
    if kingdom[cell] == square:
        return False
    player.edits.append(Edit("set", cell, square))
    state.selected = cell
    return True


def can_undo(player: PlayerKingdom) -> bool:
    return bool(player.edits or player.earlier)


def undo(state: PageState) -> bool:
    """Take back the last correction; with none left, bring back the board a new reading replaced."""
    player = state.player
    if player.edits:
        player.edits.pop()
    elif player.earlier:
        _restore(player, player.earlier.pop())
    else:
        return False
    clamp_selection(state)
    return True


def _snapshot(player: PlayerKingdom) -> PlayerKingdom:
    """A copy of the player's board (photo, readings, corrections) that later changes do not touch."""
    return replace(player, edits=list(player.edits), notes=list(player.notes), earlier=[])


def _keep_for_undo(player: PlayerKingdom, snapshot: PlayerKingdom) -> None:
    """Remember a board that a new reading or hand entry is replacing, so Undo can bring it back."""
    if snapshot.base is not None:
        player.earlier = [*player.earlier, snapshot][-MAX_EARLIER_BOARDS:]


def _restore(player: PlayerKingdom, snapshot: PlayerKingdom) -> None:
    for item in fields(PlayerKingdom):
        if item.name not in ("name", "earlier"):
            setattr(player, item.name, getattr(snapshot, item.name))


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
    player.from_scan = False
    player.edits = []
    player.readings = player.flagged = None
    player.rectified = None


def enter_by_hand(state: PageState, grid_size: int = 5) -> None:
    """The player chose to type the board in: start from an empty frame (Undo brings the old board back)."""
    player = state.player
    _keep_for_undo(player, _snapshot(player))
    start_hand_entry(player, grid_size)
    player.photo = player.photo_id = player.overlay_jpeg = None
    player.message, player.source, player.notes, player.scan_seconds = "", "", [], None
    player.saved_message = None
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
    """The square under a click on the drawn kingdom, given the displayed image size."""
    if width <= 0 or height <= 0 or not (0 <= x < width and 0 <= y < height):
        return None
    return (min(int(y * grid_size / height), grid_size - 1), min(int(x * grid_size / width), grid_size - 1))


# --- scanning ---------------------------------------------------------------------------------


def scan_into(
    player: PlayerKingdom,
    scan: Callable[..., Any] | None,
    photo: bytes,
    source: str,
    grid: GridChoice = "auto",
    photo_id: str | None = None,
    unavailable_reason: str = "",
) -> bool:
    """Scan a photo into a player's kingdom; True when a kingdom was read.

    A refused photo changes nothing: the board, its photo, caption, overlay and saved-game record stay
    as they were, and ``message`` says "<file>: <reason>; your board is unchanged". A player without a
    board gets an empty frame to fill by hand (and the search overlay, when there is one).
    """
    previous = _snapshot(player)
    player.photo, player.photo_id, player.source, player.grid_choice = photo, photo_id, source, grid
    player.notes = []
    start = time.perf_counter()
    try:
        if scan is None:
            raise ScanError(
                unavailable_reason or "the photo scanner is not available; enter the board by hand"
            )
        result = scan(photo, grid=grid)
    except ScanError as error:
        reason = str(error).splitlines()[0] if str(error) else "no kingdom found in this photo"
        _restore(player, previous)
        if player.kingdom is not None:
            player.saved_message = (
                previous.message if previous.saved_message is None else previous.saved_message
            )
            player.message = f"{source}: {reason}; your board is unchanged"
            return False
        overlay = getattr(error, "overlay", None)
        player.overlay_jpeg = overlay_jpeg(overlay) if overlay is not None else None
        player.message = f"{source}: {reason}"
        start_hand_entry(player, grid if grid in GRID_SIZES else 5)
        return False
    player.scan_seconds = time.perf_counter() - start
    _keep_for_undo(player, previous)
    player.base = result.kingdom
    player.from_scan = True
    player.edits = []
    player.readings = tuple(tuple(row) for row in result.readings)
    player.flagged = tuple(tuple(bool(v) for v in row) for row in result.flagged)
    player.message, player.saved_message = "", None
    player.notes = list(getattr(result, "notes", []) or [])
    if previous.edits:
        player.notes.append(UNDO_NOTE)
    size = result.kingdom.grid_size * EXPORT_SQUARE_PX
    player.rectified = _bgr_to_rgb(cv2.resize(result.rectified, (size, size), interpolation=cv2.INTER_AREA))
    player.overlay_jpeg = overlay_jpeg(result.overlay)
    return True


def _bgr_to_rgb(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    return cv2.cvtColor(image[:, :, :3], cv2.COLOR_BGR2RGB)


def overlay_jpeg(image_bgr: np.ndarray) -> bytes:
    """A display-sized JPEG of a debug image (sent to the browser once, not the 12-megapixel original)."""
    height, width = image_bgr.shape[:2]
    scale = min(1.0, OVERLAY_MAX_PX / max(height, width))
    if scale < 1.0:
        image_bgr = cv2.resize(
            image_bgr, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA
        )
    ok, encoded = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return encoded.tobytes() if ok else b""


# --- scoring and ranking (through the shared engine) ------------------------------------------


def score_player(player: PlayerKingdom, game: Game) -> ScoreReport | None:
    kingdom = player.kingdom
    if kingdom is None:
        return None
    return score_kingdom(kingdom, harmony=game.harmony, middle_kingdom=game.middle_kingdom)


def territory_label(territory: Territory) -> str:
    return (
        f"{territory.terrain} · {territory.squares} squares × {territory.crowns} crowns = {territory.score}"
    )


def territory_rows(report: ScoreReport) -> list[dict]:
    """The score panel table, in the engine's order (highest score first)."""
    return [
        {"terrain": str(t.terrain), "squares": t.squares, "crowns": t.crowns, "points": t.score}
        for t in report.territories
    ]


def game_reports(game: Game) -> dict[str, ScoreReport]:
    """Each player's score in a game, by name, for the players who have a kingdom."""
    reports = {}
    for player in game.players:
        report = score_player(player, game)
        if report is not None:
            reports[player.name] = report
    return reports


def rank_current_game(state: PageState) -> GameRanking | None:
    """The ranking of the current game by the engine's tie-breaks; None while no one has a kingdom."""
    reports = game_reports(state.game)
    return rank_game(reports, edition=state.edition) if reports else None


def dynasty_ranking(state: PageState) -> tuple[GameRanking | None, str]:
    """Dynasty totals over the games played so far, or None with the reason it cannot be ranked yet."""
    if len(state.games) < 2:
        return None, "start a second game to see Dynasty totals"
    per_game = [game_reports(game) for game in state.games]
    names = [{p.name for p in game.players} for game in state.games]
    if any(n != names[0] for n in names[1:]):
        return None, "every game of a Dynasty needs the same players"
    missing = [
        f"{player.name} (game {g})"
        for g, game in enumerate(state.games, 1)
        for player in game.players
        if player.name not in per_game[g - 1]
    ]
    if missing:
        return None, "no kingdom yet for " + ", ".join(missing)
    return dynasty(per_game, edition=state.edition), ""


def ranking_rows(ranking: GameRanking) -> list[dict]:
    rows = []
    for standing in ranking.standings:
        row = {"place": standing.rank, "player": standing.name, "score": standing.total}
        if ranking.games > 1:
            row["games"] = " + ".join(str(total) for total in standing.game_totals)
        row |= {"largest territory": standing.largest_territory, "crowns": standing.crowns}
        rows.append(row)
    return rows


# --- drawing ----------------------------------------------------------------------------------


def draw_kingdom(
    player: PlayerKingdom,
    highlight: Territory | None = None,
    selected: Cell | None = None,
    cell_px: int = CELL_PX,
) -> np.ndarray:
    """The kingdom as the page shows it (RGB): photo squares (or flat colours when entered by hand),
    each with a label strip in its terrain colour and its crowns; review squares framed in orange,
    corrected squares in blue; a highlighted territory outlined in yellow with the rest dimmed."""
    kingdom = player.kingdom
    if kingdom is None:
        raise ValueError("the player has no kingdom to draw")
    size = kingdom.grid_size
    canvas_px = size * cell_px
    if player.rectified is not None and player.base is not None and size == player.base.grid_size:
        canvas = cv2.resize(player.rectified, (canvas_px, canvas_px), interpolation=cv2.INTER_AREA)
    else:
        canvas = np.zeros((canvas_px, canvas_px, 3), np.uint8)
        for (r, c), square in kingdom.cells():
            canvas[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px] = TERRAIN_RGB[
                square.terrain
            ]
    if highlight is not None:
        mask = np.zeros((canvas_px, canvas_px), bool)
        for r, c in highlight.cells:
            mask[r * cell_px : (r + 1) * cell_px, c * cell_px : (c + 1) * cell_px] = True
        canvas[~mask] = (canvas[~mask] * 0.35).astype(np.uint8)
    review = set(player.review_cells())
    corrected = player.corrected_cells
    strip = max(14, cell_px // 4)
    for (r, c), square in kingdom.cells():
        x0, y0 = c * cell_px, r * cell_px
        cv2.rectangle(canvas, (x0, y0), (x0 + cell_px - 1, y0 + cell_px - 1), (20, 20, 20), 1)
        colour = TERRAIN_RGB[square.terrain]
        cv2.rectangle(
            canvas, (x0 + 1, y0 + cell_px - strip), (x0 + cell_px - 2, y0 + cell_px - 2), colour, -1
        )
        ink = (0, 0, 0) if sum(colour) > 380 else (255, 255, 255)
        label = square.token.strip() if square.terrain is not Terrain.EMPTY else "-"
        cv2.putText(
            canvas,
            label,
            (x0 + 4, y0 + cell_px - 5),
            cv2.FONT_HERSHEY_SIMPLEX,
            strip / 32,
            ink,
            1,
            cv2.LINE_AA,
        )
        for k in range(square.crowns):
            centre = (x0 + cell_px - 8 - k * 11, y0 + cell_px - strip // 2 - 1)
            cv2.circle(canvas, centre, 4, (255, 215, 0), -1, cv2.LINE_AA)
            cv2.circle(canvas, centre, 4, (0, 0, 0), 1, cv2.LINE_AA)
        if (r, c) in review:
            cv2.rectangle(canvas, (x0 + 2, y0 + 2), (x0 + cell_px - 3, y0 + cell_px - 3), REVIEW_RGB, 3)
            cv2.circle(canvas, (x0 + cell_px - 12, y0 + 12), 9, REVIEW_RGB, -1, cv2.LINE_AA)
            cv2.putText(
                canvas, "?", (x0 + cell_px - 17, y0 + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 2
            )
        elif (r, c) in corrected:
            cv2.rectangle(canvas, (x0 + 2, y0 + 2), (x0 + cell_px - 3, y0 + cell_px - 3), CORRECTED_RGB, 3)
    if highlight is not None:
        cells = set(highlight.cells)
        for r, c in cells:
            x0, y0, x1, y1 = c * cell_px, r * cell_px, (c + 1) * cell_px - 1, (r + 1) * cell_px - 1
            edges = {(-1, 0): ((x0, y0), (x1, y0)), (1, 0): ((x0, y1), (x1, y1))}
            edges |= {(0, -1): ((x0, y0), (x0, y1)), (0, 1): ((x1, y0), (x1, y1))}
            for (dr, dc), (p, q) in edges.items():
                if (r + dr, c + dc) not in cells:
                    cv2.line(canvas, p, q, HIGHLIGHT_RGB, 4)
    if selected is not None and all(0 <= i < size for i in selected):
        r, c = selected
        cv2.rectangle(
            canvas, (c * cell_px, r * cell_px), ((c + 1) * cell_px - 1, (r + 1) * cell_px - 1), (0, 0, 0), 5
        )
        cv2.rectangle(
            canvas,
            (c * cell_px, r * cell_px),
            ((c + 1) * cell_px - 1, (r + 1) * cell_px - 1),
            (255, 255, 255),
            2,
        )
    return canvas


def encode_jpeg(image_rgb: np.ndarray, quality: int = 85) -> bytes:
    ok, encoded = cv2.imencode(
        ".jpg", cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    return encoded.tobytes() if ok else b""


# --- game files -------------------------------------------------------------------------------


def player_to_dict(player: PlayerKingdom) -> dict:
    return {
        "name": player.name,
        "source": player.source,
        "from_scan": player.from_scan,
        "scanned": player.base.to_dict() if player.base is not None else None,
        "corrections": [edit.to_dict() for edit in player.edits],
        "kingdom": player.kingdom.to_dict() if player.kingdom is not None else None,
        "readings": [[r.to_dict() for r in row] for row in player.readings] if player.readings else None,
        "flagged": [list(row) for row in player.flagged] if player.flagged else None,
        "message": player.message if player.saved_message is None else player.saved_message,
    }


def export_game(state: PageState) -> str:
    """The whole session (all games of the Dynasty) as JSON; photos and images are not included."""
    data = {
        "format": GAME_FORMAT,
        "version": GAME_FORMAT_VERSION,
        "edition": state.edition,
        "current_game": state.current_game,
        "games": [
            {
                "harmony": game.harmony,
                "middle_kingdom": game.middle_kingdom,
                "current_player": game.current_player,
                "players": [player_to_dict(p) for p in game.players],
            }
            for game in state.games
        ],
    }
    return json.dumps(data, indent=1)


def _player_from_dict(data: Any, where: str) -> PlayerKingdom:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"].strip():
        raise GameFileError(f"{where}: each player needs a name")
    player = PlayerKingdom(data["name"].strip(), source=str(data.get("source", "")))
    player.message = str(data.get("message", ""))
    player.from_scan = bool(data.get("from_scan", False))
    if data.get("scanned") is not None:
        player.base = Kingdom.from_dict(data["scanned"])
    edits = data.get("corrections", [])
    if not isinstance(edits, list):
        raise GameFileError(f"{where}: corrections must be a list")
    player.edits = [Edit.from_dict(edit) for edit in edits]
    readings = data.get("readings")
    if readings is not None and player.base is not None:
        try:
            player.readings = tuple(
                tuple(
                    SquareReading(Terrain(r["terrain"]), int(r["crowns"]), float(r["confidence"]))
                    for r in row
                )
                for row in readings
            )
        except (TypeError, KeyError, ValueError):
            raise GameFileError(f"{where}: unreadable square readings") from None
        flagged = data.get("flagged") or [[False] * len(row) for row in readings]
        player.flagged = tuple(tuple(bool(v) for v in row) for row in flagged)
        if any(len(row) != player.base.grid_size for row in (*player.readings, *player.flagged)) or not (
            len(player.readings) == len(player.flagged) == player.base.grid_size
        ):
            raise GameFileError(f"{where}: square readings do not match the board size")
    saved = data.get("kingdom")
    if saved is not None and player.kingdom != Kingdom.from_dict(saved):
        raise GameFileError(f"{where}: the corrections do not lead to the saved kingdom")
    return player


def import_game(text: str | bytes) -> PageState:
    """Read a game file written by export_game; raises GameFileError with a one-line reason."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise GameFileError(f"not a game file (invalid JSON: {getattr(error, 'msg', error)})") from None
    if not isinstance(data, dict) or data.get("format") != GAME_FORMAT:
        raise GameFileError("not a game file of this page (format field missing)")
    if data.get("version") != GAME_FORMAT_VERSION:
        raise GameFileError(f"unsupported game file version {data.get('version')!r}")
    games = data.get("games")
    if not isinstance(games, list) or not 1 <= len(games) <= MAX_GAMES:
        raise GameFileError(f"a game file holds 1 to {MAX_GAMES} games")
    state = PageState(games=[], edition=data.get("edition") if data.get("edition") in EDITIONS else "second")
    try:
        for g, game_data in enumerate(games, start=1):
            if not isinstance(game_data, dict) or not isinstance(game_data.get("players"), list):
                raise GameFileError(f"game {g}: players missing")
            players = [
                _player_from_dict(p, f"game {g}, player {i}") for i, p in enumerate(game_data["players"], 1)
            ]
            if not players:
                raise GameFileError(f"game {g} has no players")
            game = Game(players, bool(game_data.get("harmony")), bool(game_data.get("middle_kingdom")))
            current = game_data.get("current_player", 0)
            game.current_player = current if isinstance(current, int) and 0 <= current < len(players) else 0
            state.games.append(game)
    except BoardFormatError as error:
        raise GameFileError(f"a board in the game file is invalid: {error}") from None
    current = data.get("current_game", 0)
    state.current_game = current if isinstance(current, int) and 0 <= current < len(state.games) else 0
    clamp_selection(state)
    return state


# --- training-data export ---------------------------------------------------------------------


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "kingdom"


def export_training_zip(player: PlayerKingdom, stem: str | None = None) -> bytes:
    """A corrected kingdom in the layout of data/real: boards/<stem>.jpg + labels.json, plus the board JSON.

    The rectified image is N×100 px square like data/real/boards, so the zip can be merged into data/.
    A board entered by hand has no image; its zip holds the board JSON only.
    """
    kingdom = player.kingdom
    if kingdom is None:
        raise ValueError("the player has no kingdom to export")
    stem = stem or slug(f"{player.name}-{player.source or 'hand'}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{stem}.board.json", json.dumps(kingdom.to_dict(), indent=1))
        image = player.rectified
        if image is not None and player.base is not None and kingdom.grid_size == player.base.grid_size:
            px = kingdom.grid_size * EXPORT_SQUARE_PX
            if image.shape[:2] != (px, px):
                image = cv2.resize(image, (px, px), interpolation=cv2.INTER_AREA)
            name = f"{stem}.jpg"
            archive.writestr(f"boards/{name}", encode_jpeg(image, 95))
            entry = {
                "image": f"boards/{name}",
                "width": px,
                "height": px,
                "grid_size": kingdom.grid_size,
                "square_px": EXPORT_SQUARE_PX,
                "grid": kingdom.to_dict()["squares"],
                "kingdom_id": stem,
                "source": f"kingdomino-scanner page: {player.source or 'photo'}, corrected by the player",
                "corrected_cells": sorted([list(cell) for cell in player.corrected_cells]),
            }
            labels = {
                "description": "Kingdoms scanned and corrected on the kingdomino-scanner page.",
                "conventions": {
                    "grid": "grid[row][col]; row 0 = top of the image; square_px pixels per square"
                },
                "boards": {name: entry},
            }
            archive.writestr("labels.json", json.dumps(labels, indent=1))
    return buffer.getvalue()
