"""Writing a whole game as a page holds it, in one transaction, keeping what is already stored.

Players are matched by round and name, boards by content (``rows.fingerprint``): a board the game
already holds keeps its row, id and images, and only its corrections are written again; new boards are
inserted; what the page no longer holds is deleted.
"""

from __future__ import annotations

from page.store.backends import Backend
from page.store.records import GameContent, PlayerContent
from page.store.rows import fingerprint, insert_board, insert_edit, reading_to_row


def write_content(db: Backend, code: str, content: GameContent, version: int, now: float, keep: int) -> None:
    """Make the stored game ``code`` hold ``content`` (at most ``keep`` earlier boards per player)."""
    db.execute(
        "UPDATE games SET edition = ?, harmony = ?, middle_kingdom = ? WHERE code = ?",
        (content.edition, int(content.harmony), int(content.middle_kingdom), code),
    )
    players = {
        (round_number, name): player_id
        for player_id, round_number, name in db.execute(
            "SELECT id, round, name FROM players WHERE game = ?", (code,)
        ).fetchall()
    }
    boards: dict[str, list[int]] = {}
    for board_id, print_ in db.execute(
        "SELECT b.id, b.fingerprint FROM boards b JOIN players p ON p.id = b.player WHERE p.game = ? "
        "ORDER BY b.id",
        (code,),
    ).fetchall():
        boards.setdefault(print_ or "", []).append(board_id)
    for round_number, round_players in enumerate(content.rounds, start=1):
        for seat, player in enumerate(round_players):
            player_id = players.pop((round_number, player.name), None)
            if player_id is None:
                player_id = db.execute(
                    "INSERT INTO players (game, round, seat, name, created_at) VALUES (?, ?, ?, ?, ?) "
                    "RETURNING id",
                    (code, round_number, seat, player.name, now),
                ).fetchone()[0]
            else:
                db.execute("UPDATE players SET seat = ? WHERE id = ?", (seat, player_id))
            _write_boards(db, player_id, player, boards, version, now, keep)
    for board_id in (i for ids in boards.values() for i in ids):
        db.execute("DELETE FROM boards WHERE id = ?", (board_id,))
    for player_id in players.values():
        db.execute("DELETE FROM players WHERE id = ?", (player_id,))


def _write_boards(
    db: Backend,
    player_id: int,
    player: PlayerContent,
    stored: dict[str, list[int]],
    version: int,
    now: float,
    keep: int,
) -> None:
    """The player's boards in order: each stored one kept (its corrections rewritten), each new one
    inserted. Ids must rise along the list, since the current board is the player's latest id."""
    last = 0
    for board in player.boards[-(keep + 1) :]:
        candidates = stored.get(fingerprint(reading_to_row(board.reading), board.images), [])
        reused = next((i for i in candidates if i > last), None)
        if reused is not None:
            candidates.remove(reused)
            db.execute("UPDATE boards SET player = ? WHERE id = ?", (player_id, reused))
            db.execute("DELETE FROM edits WHERE board = ?", (reused,))
            board_id = reused
        else:
            board_id = insert_board(db, player_id, board.reading, now, board.images)
        for edit in board.edits:
            insert_edit(db, board_id, version, edit, now)
        last = board_id
