"""How the store is configured: the environment variable naming the database, the default file, and the
frozen settings passed to ``GameStore.open``."""

from __future__ import annotations

from dataclasses import dataclass

#: The environment variable holding the database URL.
DB_ENV = "KINGDOMINO_DB"
APP_DIR = "kingdomino-scanner"
DB_FILE = "games.sqlite3"
#: How many replacement files are tried next to an unusable SQLite file before keeping games in memory.
MAX_REPLACEMENTS = 5


@dataclass(frozen=True)
class StoreSettings:
    """How the store talks to its database."""

    #: How long a writer waits for another writer of the same SQLite file.
    busy_timeout_s: float = 10.0
    #: How long to wait for a PostgreSQL server to answer a connection.
    connect_timeout_s: float = 5.0
    #: Boards a new reading replaced that Undo can bring back, per player.
    max_earlier_boards: int = 5
    #: Largest image kept with a board: the page stores downscaled JPEGs, never the phone's original.
    max_image_bytes: int = 4_000_000
