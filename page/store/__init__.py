"""The game store: every game at the table kept in a database, keyed by a short game code.

A game is what one table plays: its players (in seat order), up to three rounds (a Dynasty), the rule
options (edition, Harmony, Middle Kingdom), and for each player the board read from a photo (or entered by
hand) with the photo itself (downscaled JPEGs), the scanner's readings, the corners of the frame, and the
players' corrections. Every change is written as it happens, so a reload, a new tab, another phone or
another page server sees the same game.

Where the games live is a database URL, from ``GameStore.open(url)`` or the environment variable
``KINGDOMINO_DB``:

- nothing: an SQLite file in the user's data folder
  (``$XDG_DATA_HOME/kingdomino-scanner/games.sqlite3``, by default ``~/.local/share/...``);
- ``sqlite:///absolute/path/games.sqlite3``, or a plain file path: that SQLite file (``sqlite://:memory:``
  keeps the games in memory only);
- ``postgresql://user:password@host:port/dbname``: a PostgreSQL database shared by several page servers
  (needs ``pip install 'kingdomino-scanner[postgres]'``).

No lost update when several phones edit one game: a correction is a row of its own (board, square,
sequence number), appended and never rewritten, so saving one square never touches another; the last
edit of a square wins. Each change bumps the game's version, a counter a page compares with
``version(code)`` to notice another phone's change on its next interaction.

A database that cannot be used (a corrupt file, a folder that cannot be created, a server that does not
answer) never raises: the store says why in one line in ``store.warning`` and runs on a fresh one, an
SQLite file beside the broken one (``games.replacement.sqlite3``, found again at the next start) or,
when nothing can be written, memory. The old file is never deleted, moved or written to.

Modules: settings (StoreSettings, the environment variable) · errors · codes (game codes) · records (what
the store returns) · schema (tables and migrations) · backends (SQLite and PostgreSQL connections) ·
opening (a URL to a usable database, or a fresh one and a warning) · rows (records <-> table rows) ·
replace (a whole game written at once) · savefile (the JSON game file) · games (GameStore, the
operations). The replay of corrections and the game file's checks are page.edits', shared with the page.
"""

from page.edits import apply_edits
from page.store.codes import CODE_ALPHABET, CODE_LENGTH, new_code, normalize_code
from page.store.errors import StaleBoard, StoreError, VersionConflict
from page.store.games import GameStore
from page.store.opening import default_path, replacement_path, shown_url
from page.store.records import (
    MAX_ROUNDS,
    BoardContent,
    GameContent,
    GameSummary,
    PlayerContent,
    Reading,
    StoredBoard,
    StoredEdit,
    StoredGame,
    StoredPlayer,
)
from page.store.savefile import GAME_FORMAT, GAME_FORMAT_VERSION, parse_game_file
from page.store.schema import LATEST_SCHEMA, MIGRATIONS
from page.store.settings import APP_DIR, DB_ENV, DB_FILE, MAX_REPLACEMENTS, StoreSettings

__all__ = [
    "APP_DIR",
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "DB_ENV",
    "DB_FILE",
    "GAME_FORMAT",
    "GAME_FORMAT_VERSION",
    "LATEST_SCHEMA",
    "MAX_REPLACEMENTS",
    "MAX_ROUNDS",
    "MIGRATIONS",
    "BoardContent",
    "GameContent",
    "GameStore",
    "GameSummary",
    "PlayerContent",
    "Reading",
    "StaleBoard",
    "StoreError",
    "StoreSettings",
    "StoredBoard",
    "StoredEdit",
    "StoredGame",
    "StoredPlayer",
    "VersionConflict",
    "apply_edits",
    "default_path",
    "new_code",
    "normalize_code",
    "parse_game_file",
    "replacement_path",
    "shown_url",
]
