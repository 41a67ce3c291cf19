"""The page's games in the game store (page.store): the page's state as the store's records and back.

``StoreStorage`` is the page's ``GameStorage`` on a ``GameStore``: saving writes the whole game in one
transaction, and only if nobody changed it since this page loaded it (else VersionConflict, and the page
loads it again and redoes its change), so two phones never lose each other's edits. Boards the store
already holds are kept as they are, so a save writes only what changed. Images are fetched once per
board (a board's images never change) and kept in a small cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from page.state import GameSession, PageState, PlayerKingdom, clamp_selection
from page.store import (
    BoardContent,
    GameContent,
    GameStore,
    PlayerContent,
    Reading,
    StoredBoard,
    StoredGame,
)

#: Images of a board: the store's kind -> the page's attribute.
IMAGE_KINDS = {"photo": "photo", "preview": "preview_jpeg", "rectified": "rectified_jpeg"}


class StoreStorage:
    """The page's GameStorage on a GameStore (one per server process, shared by its sessions)."""

    def __init__(self, store: GameStore, cached_images: int = 48) -> None:
        self.store = store
        self._images: OrderedDict[tuple[int, str], bytes] = OrderedDict()
        self._cached = cached_images
        self._lock = threading.Lock()

    def version(self, code: str) -> int:
        return self.store.version(code) or 0

    def load(self, code: str) -> PageState | None:
        game = self.store.load(code, earlier=True)
        if game is None:
            return None
        boards = [b for p in game.players for b in (*p.earlier, p.board) if b is not None]
        return state_from_game(game, self._fetch(boards))

    def save(self, code: str, state: PageState, expected: int | None = None) -> int:
        """Keep the page's game; with ``expected`` (the version this page loaded, 0 for a game not stored
        yet) raises VersionConflict when another phone changed it in between."""
        limit = self.store.settings.max_image_bytes
        return self.store.replace_game(code, content_of(state, limit), expected)

    def _fetch(self, boards: list[StoredBoard]) -> dict[tuple[int, str], bytes]:
        wanted = [(b.id, kind) for b in boards for kind in b.images]
        with self._lock:
            found = {k: self._images[k] for k in wanted if k in self._images}
        missing = sorted({board_id for board_id, kind in wanted if (board_id, kind) not in found})
        if missing:
            found |= self.store.images(missing)
        with self._lock:
            for k in wanted:
                if k in found:
                    self._images[k] = found[k]
                    self._images.move_to_end(k)
            while len(self._images) > self._cached:
                self._images.popitem(last=False)
        return found


# --- page state -> store records ------------------------------------------------------------------


def content_of(state: PageState, max_image_bytes: int) -> GameContent:
    """The page's game as the store keeps it (the rule options are game-wide: the current game's)."""
    rounds = tuple(
        tuple(PlayerContent(p.name, _boards(p, max_image_bytes)) for p in game.players)
        for game in state.games
    )
    return GameContent(rounds, state.edition, state.game.harmony, state.game.middle_kingdom)


def _boards(player: PlayerKingdom, max_image_bytes: int) -> tuple[BoardContent, ...]:
    boards = [*player.earlier, player]
    return tuple(_board(b, max_image_bytes) for b in boards if _has_board(b))


def _has_board(player: PlayerKingdom) -> bool:
    """A reading, or at least a photo in which none was read."""
    return player.base is not None or player.preview_jpeg is not None or bool(player.message)


def _board(player: PlayerKingdom, max_image_bytes: int) -> BoardContent:
    reading = Reading(
        player.base,
        player.from_scan,
        player.readings,
        player.flagged,
        player.corners,
        None,
        player.grid_choice,
        player.source,
        player.message,
        tuple(player.notes),
        player.scan_seconds,
        player.demo,
        player.photo_id,
        player.preview_scale,
    )
    images = {}
    for kind, attribute in IMAGE_KINDS.items():
        data = getattr(player, attribute)
        # The demo's photo is the bundled sample (never re-read); a photo over the store's limit is kept
        # as its preview only.
        if data and not (kind == "photo" and (player.demo or len(data) > max_image_bytes)):
            images[kind] = data
    return BoardContent(reading, tuple(player.edits), images)


# --- store records -> page state -------------------------------------------------------------------


def state_from_game(game: StoredGame, images: dict[tuple[int, str], bytes]) -> PageState:
    """The page's state of a stored game, showing its last round."""
    games = []
    for number in range(1, game.rounds + 1):
        players = []
        for stored in game.round_players(number):
            player = _player(stored.name, stored.board, images)
            player.earlier = [_player(stored.name, board, images) for board in stored.earlier]
            players.append(player)
        games.append(GameSession(players, game.harmony, game.middle_kingdom))
    state = PageState(games=games, current_game=len(games) - 1, edition=game.edition)
    state.stored_version = game.version
    clamp_selection(state)
    return state


def _player(name: str, board: StoredBoard | None, images: dict[tuple[int, str], bytes]) -> PlayerKingdom:
    player = PlayerKingdom(name)
    if board is None:
        return player
    reading = board.reading
    player.base, player.from_scan, player.demo = reading.base, reading.from_scan, reading.demo
    player.edits = list(board.edits)
    player.readings, player.flagged, player.corners = reading.readings, reading.flagged, reading.corners
    player.source, player.message, player.notes = reading.source, reading.message, list(reading.notes)
    player.scan_seconds, player.photo_id = reading.scan_seconds, reading.photo_id
    player.grid_choice = reading.grid_choice if reading.grid_choice in ("auto", 5, 7) else "auto"
    player.preview_scale = reading.preview_scale or 1.0
    for kind, attribute in IMAGE_KINDS.items():
        setattr(player, attribute, images.get((board.id, kind)))
    return player
