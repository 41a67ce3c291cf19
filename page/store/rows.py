"""Records to and from the tables' rows: a board's reading in its columns, corrections one row each, and
the players of several games with their current boards read in a fixed number of queries."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from page.edits import Edit
from page.store.backends import Backend
from page.store.errors import DamagedRecord
from page.store.records import Reading, StoredBoard, StoredEdit, StoredPlayer


def reading_to_row(reading: Reading) -> tuple:
    readings = (
        json.dumps([[r.to_dict() for r in row] for row in reading.readings]) if reading.readings else None
    )
    flagged = json.dumps([[bool(v) for v in row] for row in reading.flagged]) if reading.flagged else None
    corners = json.dumps([[float(x), float(y)] for x, y in reading.corners]) if reading.corners else None
    size = json.dumps([int(v) for v in reading.photo_size]) if reading.photo_size else None
    return (
        int(reading.from_scan),
        json.dumps(reading.base.to_dict() if reading.base is not None else None),
        readings,
        flagged,
        corners,
        size,
        str(reading.grid_choice),
        reading.source,
        reading.message,
        json.dumps(list(reading.notes)),
        reading.scan_seconds,
        _extras(reading),
    )


def _extras(reading: Reading) -> str | None:
    """The page's own fields of a board, in one JSON column."""
    extras = {"demo": reading.demo, "photo_id": reading.photo_id, "preview_scale": reading.preview_scale}
    return json.dumps(extras) if any(v not in (None, False) for v in extras.values()) else None


@lru_cache(maxsize=64)
def image_digest(data: bytes) -> str:
    """An image's content hash (cached: the page saves the same photos on every change)."""
    return hashlib.sha256(data).hexdigest()


def fingerprint(row: tuple, images: Mapping[str, bytes]) -> str:
    """A board's identity by content: its reading row and its images. A save that brings the same board
    back keeps its row (and id) instead of writing its images again."""
    content = json.dumps(
        [list(row), sorted((kind, image_digest(data)) for kind, data in images.items() if data)]
    )
    return hashlib.sha256(content.encode()).hexdigest()


def reading_from_row(row: Sequence[Any]) -> Reading:
    """A Reading from a boards row: id, player, created_at, from_scan, scanned, readings, flagged,
    corners, photo_size, grid_choice, source, message, notes, scan_seconds, extras. The board is what the
    player entered: only a damaged board makes the row unreadable; the scan's own extras (readings, flags,
    corners, size, notes) that cannot be read back, or do not fit the board's grid, are left out."""
    base = _kingdom(json.loads(row[4]))
    n = base.grid_size if base is not None else None
    readings = _scan_extra(row[5], lambda v: _square_grid(v, n, _square_reading))
    flagged = _scan_extra(row[6], lambda v: _square_grid(v, n, bool))
    corners = _scan_extra(row[7], _four_corners)
    size = _scan_extra(row[8], lambda v: (int(v[0]), int(v[1])))
    notes = _scan_extra(row[12], _notes) or ()
    grid_choice = row[9]
    extras = _scan_extra(row[14], dict) or {}
    return Reading(
        base=base,
        from_scan=bool(row[3]),
        readings=readings,
        flagged=flagged,
        corners=corners,
        photo_size=size,
        grid_choice=int(grid_choice) if grid_choice.isdigit() else grid_choice,
        source=row[10],
        message=row[11],
        notes=notes,
        scan_seconds=row[13],
        demo=bool(extras.get("demo", False)),
        photo_id=extras.get("photo_id"),
        preview_scale=extras.get("preview_scale"),
    )


#: What reading back a row that was changed by hand, or by a damaged disk, raises.
UNREADABLE = (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError, RecursionError)


def _scan_extra(text: str | None, parse: Callable[[Any], Any]) -> Any:
    """A scan's extra stored as JSON, parsed; None when absent or when it cannot be read back."""
    if not text:
        return None
    try:
        return parse(json.loads(text))
    except UNREADABLE:
        return None


def _square_grid(value: Any, n: int | None, square: Callable[[Any], Any]) -> tuple[tuple[Any, ...], ...]:
    """An N×N grid of ``square(v)`` (N: the board's, else the grid's own); another shape is a ValueError."""
    grid = tuple(tuple(square(v) for v in line) for line in value)
    n = len(grid) if n is None else n
    if len(grid) != n or any(len(line) != n for line in grid):
        raise ValueError(f"not {n}×{n}")
    return grid


def _four_corners(value: Any) -> tuple[tuple[float, float], ...]:
    corners = tuple((float(x), float(y)) for x, y in value)
    if len(corners) != 4:
        raise ValueError("not four corners")
    return corners


def _notes(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(note, str) for note in value):
        raise ValueError("not a list of notes")
    return tuple(value)


def _square_reading(value: Any) -> SquareReading:
    return SquareReading(Terrain(value["terrain"]), int(value["crowns"]), float(value["confidence"]))


def _kingdom(data: Any) -> Kingdom | None:
    return None if data is None else Kingdom.from_dict(data)


def insert_board(
    db: Backend, player_id: int, reading: Reading, now: float, images: Mapping[str, bytes] | None = None
) -> int:
    """A new board row with its images; returns its id."""
    row = reading_to_row(reading)
    board_id = db.execute(
        "INSERT INTO boards (player, created_at, from_scan, scanned, readings, flagged, corners, "
        "photo_size, grid_choice, source, message, notes, scan_seconds, extras, fingerprint) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (player_id, now, *row, fingerprint(row, images or {})),
    ).fetchone()[0]
    for kind, data in (images or {}).items():
        if data:
            db.execute(
                "INSERT INTO images (board, kind, data) VALUES (?, ?, ?)", (board_id, kind, bytes(data))
            )
    return board_id


def insert_edit(db: Backend, board_id: int, seq: int, edit: StoredEdit, now: float) -> None:
    square = edit.square if edit.kind == "set" else None
    db.execute(
        "INSERT INTO edits (board, seq, at, kind, row_index, col_index, terrain, crowns, grid_size) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            board_id,
            seq,
            now,
            edit.kind,
            edit.cell[0] if square else None,
            edit.cell[1] if square else None,
            square.terrain.value if square else None,
            square.crowns if square else None,
            edit.grid_size if edit.kind == "resize" else None,
        ),
    )


def load_players(
    db: Backend, codes: Sequence[str], light: bool = False, earlier: bool = False
) -> dict[str, list[StoredPlayer]]:
    """Players of several games with their current boards, in a fixed number of queries (``light``:
    without the per-square readings, which the history does not need; ``earlier``: with the boards
    Undo can bring back)."""
    marks = ", ".join("?" * len(codes))
    players = db.execute(
        f"SELECT id, game, name, round, seat FROM players WHERE game IN ({marks}) "
        "ORDER BY game, round, seat, id",
        codes,
    ).fetchall()
    latest = db.execute(
        "SELECT b.player, MAX(b.id), COUNT(*) FROM boards b JOIN players p ON p.id = b.player "
        f"WHERE p.game IN ({marks}) GROUP BY b.player",
        codes,
    ).fetchall()
    counts = {player: count for player, _, count in latest}
    if earlier:
        wanted = [
            r[0]
            for r in db.execute(
                f"SELECT b.id FROM boards b JOIN players p ON p.id = b.player WHERE p.game IN ({marks})",
                codes,
            )
        ]
    else:
        wanted = [board_id for _, board_id, _ in latest]
    rows = _board_rows(db, wanted, light)
    edits, images = _edits_and_images(db, [row[0] for row in rows])
    boards: dict[int, list[StoredBoard]] = {}
    current_ids = {board_id for _, board_id, _ in latest}
    for row in sorted(rows, key=lambda r: r[0]):
        try:
            with _damaged(f"board {row[0]}"):
                reading = reading_from_row(row)
        except DamagedRecord:
            if row[0] in current_ids:
                raise
            continue  # a damaged board Undo could bring back costs only that step, not the game
        board = StoredBoard(row[0], reading, tuple(edits[row[0]]), tuple(images[row[0]]), row[2])
        boards.setdefault(row[1], []).append(board)
    result: dict[str, list[StoredPlayer]] = {code: [] for code in codes}
    for player_id, game, name, round_number, seat in players:
        own = boards.get(player_id, [])
        current = own[-1] if own else None
        count = max(0, counts.get(player_id, 0) - 1)
        result[game].append(
            StoredPlayer(player_id, name, round_number, seat, current, count, tuple(own[:-1]))
        )
    return result


@contextmanager
def _damaged(what: str) -> Iterator[None]:
    """A row that cannot be read back becomes a DamagedRecord naming it, in one line."""
    try:
        yield
    except UNREADABLE:
        raise DamagedRecord(f"{what} in the game database is damaged and cannot be read") from None


def _board_rows(db: Backend, board_ids: Sequence[int], light: bool) -> list[Any]:
    if not board_ids:
        return []
    marks = ", ".join("?" * len(board_ids))
    return db.execute(
        "SELECT id, player, created_at, from_scan, scanned, "
        + ("NULL, NULL, NULL, NULL, " if light else "readings, flagged, corners, photo_size, ")
        + "grid_choice, source, message, notes, scan_seconds, extras "
        + f"FROM boards WHERE id IN ({marks})",
        board_ids,
    ).fetchall()


def _checked_correction(e: Sequence[Any]) -> Square | None:
    """A correction row's square (None for a reset or a resize), checked as a game file's correction is
    (``Edit.from_dict``: its GameFileError is a ValueError, which ``_damaged`` names)."""
    data = {"kind": e[1], "row": e[2], "col": e[3], "terrain": e[4], "crowns": e[5], "grid_size": e[6]}
    return Edit.from_dict(data).square


def _edits_and_images(
    db: Backend, board_ids: Sequence[int]
) -> tuple[dict[int, list[StoredEdit]], dict[int, list[str]]]:
    """Each board's corrections in replay order, and the kinds of images stored with it."""
    edits: dict[int, list[StoredEdit]] = {i: [] for i in board_ids}
    images: dict[int, list[str]] = {i: [] for i in board_ids}
    if not board_ids:
        return edits, images
    marks = ", ".join("?" * len(board_ids))
    for e in db.execute(
        "SELECT board, kind, row_index, col_index, terrain, crowns, grid_size, seq, at FROM edits "
        f"WHERE board IN ({marks}) ORDER BY seq, id",
        board_ids,
    ):
        with _damaged(f"a correction of board {e[0]}"):
            square = _checked_correction(e)
        cell = (e[2], e[3]) if e[1] == "set" else (0, 0)
        edits[e[0]].append(StoredEdit(e[1], cell, square, e[6] or 0, e[7], e[8]))
    for board_id, kind in db.execute(
        f"SELECT board, kind FROM images WHERE board IN ({marks}) ORDER BY kind", board_ids
    ):
        images[board_id].append(kind)
    return edits, images
