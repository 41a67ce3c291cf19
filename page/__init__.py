"""The Streamlit page's logic, by concern, with no Streamlit in it (app.py lays the page out).

state (players, games, corrections, undo) · accept (a scan result, a failed reading, a refused file) ·
frame (placing the frame by hand) · views (scores, scoreboard, rankings, wording) · drawing ·
gamefile (the game file and the full record) · training (training-data export) · persistence (what the
page needs to keep a game) · storage (the page's games in the game store) · store (the game store) ·
edits (corrections and the game file's boards, shared by the page and the store).
"""

from page.accept import accept_demo, accept_failure, accept_scan, refuse
from page.drawing import decode_jpeg, draw_frame, draw_kingdom, encode_jpeg
from page.frame import FrameDraft, default_corners, on_pointer, start_draft
from page.gamefile import export_game, import_game, state_from_record, state_record
from page.persistence import GameStorage, MemoryStorage, new_code, open_game
from page.state import (
    GRID_CHOICES,
    MAX_GAMES,
    Edit,
    GameFileError,
    GameSession,
    PageState,
    PlayerKingdom,
    add_player,
    can_undo,
    cell_at,
    enter_by_hand,
    new_game,
    paint,
    remove_player,
    rename_player,
    reset_to_scan,
    resize_hand_entry,
    select_game,
    select_player,
    set_brush,
    set_crowns,
    set_square,
    set_terrain,
    undo,
)
from page.storage import StoreStorage
from page.store import VersionConflict
from page.training import export_training_zip
from page.views import score_player, scoreboard, winner_line

__all__ = [
    "GRID_CHOICES",
    "MAX_GAMES",
    "Edit",
    "FrameDraft",
    "GameFileError",
    "GameSession",
    "GameStorage",
    "MemoryStorage",
    "PageState",
    "PlayerKingdom",
    "StoreStorage",
    "VersionConflict",
    "accept_demo",
    "accept_failure",
    "accept_scan",
    "add_player",
    "can_undo",
    "cell_at",
    "decode_jpeg",
    "default_corners",
    "draw_frame",
    "draw_kingdom",
    "encode_jpeg",
    "enter_by_hand",
    "export_game",
    "export_training_zip",
    "import_game",
    "new_code",
    "new_game",
    "on_pointer",
    "open_game",
    "paint",
    "refuse",
    "remove_player",
    "rename_player",
    "reset_to_scan",
    "resize_hand_entry",
    "score_player",
    "scoreboard",
    "select_game",
    "select_player",
    "set_brush",
    "set_crowns",
    "set_square",
    "set_terrain",
    "start_draft",
    "state_from_record",
    "state_record",
    "undo",
    "winner_line",
]
