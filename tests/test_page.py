"""Unit tests of the page logic (scanner/page.py), with a small fake scanner: no Streamlit, no model."""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field

import cv2
import numpy as np
import pytest

from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from kingdomino.scoring import score_kingdom
from scanner import page
from scanner.errors import KingdomNotFoundError

BOARD = Kingdom.from_text(
    """
    G0 L0 F0 F0 F0
    G0 F0 F1 F1 G0
    G1 S2 C  F0 G0
    .  S0 L0 G2 G1
    F0 L1 L0 G0 W0
    """
)
BOARD_SCORE = 39


@dataclass
class FakeResult:
    """Just the ScanResult fields the page reads."""

    kingdom: Kingdom
    readings: list[list[SquareReading]]
    flagged: list[list[bool]]
    rectified: np.ndarray
    overlay: np.ndarray
    notes: list[str] = field(default_factory=list)


def fake_scan(kingdom: Kingdom = BOARD, low: tuple[int, int] = (1, 2), flagged: tuple[int, int] = (3, 3)):
    """A scan function returning `kingdom`, with one low-confidence and one decoder-flagged square."""
    calls = []

    def scan(photo: bytes, grid="auto") -> FakeResult:
        calls.append((photo, grid))
        size = kingdom.grid_size
        readings = [
            [SquareReading(sq.terrain, sq.crowns, 0.3 if (r, c) == low else 0.97) for c, sq in enumerate(row)]
            for r, row in enumerate(kingdom.squares)
        ]
        marks = [[(r, c) == flagged for c in range(size)] for r in range(size)]
        rectified = np.full((size * 60, size * 60, 3), 90, np.uint8)
        return FakeResult(kingdom, readings, marks, rectified, np.zeros((3000, 4000, 3), np.uint8), ["fake"])

    scan.calls = calls  # type: ignore[attr-defined]
    return scan


def scanned_state() -> page.PageState:
    state = page.PageState()
    assert page.scan_into(state.player, fake_scan(), b"photo", "table.jpg", photo_id="id-1")
    return state


def test_scan_fills_the_player_and_scores_through_the_engine():
    state = scanned_state()
    player = state.player
    assert player.kingdom == BOARD and player.from_scan and player.message == ""
    assert player.rectified.shape == (500, 500, 3)  # data/ layout: 100 px per square
    assert page.score_player(player, state.game).total == BOARD_SCORE
    overlay = cv2.imdecode(np.frombuffer(player.overlay_jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert max(overlay.shape[:2]) == page.OVERLAY_MAX_PX


def test_review_cells_are_low_confidence_or_flagged_until_corrected():
    state = scanned_state()
    assert state.player.review_cells() == [(1, 2), (3, 3)]
    page.set_square(state, (1, 2), Terrain.FOREST, 0)
    assert state.player.review_cells() == [(3, 3)]


def test_correction_rescores_and_undo_and_reset_restore():
    state = scanned_state()
    assert page.set_square(
        state, (4, 4), "mine", 3
    )  # a wheat square read wrongly: now a lone mine with 3 crowns
    report = page.score_player(state.player, state.game)
    assert report.total == BOARD_SCORE + 3
    assert state.player.corrected_cells == {(4, 4)}
    assert not page.set_square(state, (4, 4), "mine", 3)  # the same value is not a new step
    page.set_square(state, (0, 0), "lake", 1)
    assert page.reset_to_scan(state)
    assert state.player.kingdom == BOARD
    assert page.undo(state)  # the reset itself can be undone
    assert state.player.kingdom[(0, 0)] == Square(Terrain.LAKE, 1)
    assert page.undo(state) and page.undo(state)
    assert state.player.kingdom == BOARD and not page.undo(state)


def test_crowns_are_capped_to_what_the_terrain_carries():
    assert page.square_for("castle", 2) == Square(Terrain.CASTLE, 0)
    assert page.square_for(Terrain.WHEAT, 3) == Square(Terrain.WHEAT, 1)
    assert page.crown_options("mine") == [0, 1, 2, 3]
    assert page.crown_options("empty") == [0]


def test_cell_at_maps_display_pixels_to_squares():
    assert page.cell_at(0, 0, 375, 375, 5) == (0, 0)
    assert page.cell_at(374.9, 374.9, 375, 375, 5) == (4, 4)
    assert page.cell_at(160, 80, 400, 400, 5) == (1, 2)
    assert page.cell_at(100, 100, 400, 400, 7) == (1, 1)
    assert page.cell_at(401, 10, 400, 400, 5) is None


def test_no_kingdom_found_gives_a_message_and_an_empty_grid_to_fill_by_hand():
    def failing(photo, grid="auto"):
        raise KingdomNotFoundError("no grid of squares found: photograph the kingdom from above")

    state = page.PageState()
    assert not page.scan_into(state.player, failing, b"not a photo", "blurry.jpg", grid=7)
    player = state.player
    assert player.message == "blurry.jpg: no grid of squares found: photograph the kingdom from above"
    assert player.kingdom == Kingdom.empty(7) and not player.from_scan
    assert page.set_square(state, (0, 0), "forest", 1)
    assert page.score_player(player, state.game).total == 1


def test_a_failed_photo_keeps_the_kingdom_already_entered():
    state = scanned_state()
    page.set_square(state, (4, 4), "mine", 3)

    def failing(photo, grid="auto"):
        raise KingdomNotFoundError("no kingdom found")

    page.scan_into(state.player, failing, b"x", "other.jpg")
    assert state.player.message == "other.jpg: no kingdom found; your board is unchanged"
    assert state.player.kingdom[(4, 4)] == Square(Terrain.MINE, 3)


def test_a_refused_photo_changes_nothing_of_the_board_its_photo_caption_or_saved_game():
    state = scanned_state()
    page.set_square(state, (4, 4), "mine", 3)
    player = state.player
    before = (page.export_game(state), player.photo, player.photo_id, player.source, player.overlay_jpeg)
    before += (list(player.notes), player.scan_seconds, player.rectified.copy(), player.grid_choice)
    score = page.score_player(player, state.game).total

    def refusing(photo, grid="auto"):
        raise KingdomNotFoundError("no kingdom found", overlay=np.zeros((40, 40, 3), np.uint8))

    assert not page.scan_into(player, refusing, b"bad", "bad.png", grid=7, photo_id="id-2")
    after = (page.export_game(state), player.photo, player.photo_id, player.source, player.overlay_jpeg)
    after += (list(player.notes), player.scan_seconds, player.rectified, player.grid_choice)
    for was, now in zip(before, after, strict=True):
        assert np.array_equal(was, now) if isinstance(was, np.ndarray) else was == now
    assert player.message == "bad.png: no kingdom found; your board is unchanged"
    assert player.earlier == [] and len(player.edits) == 1  # nothing new for Undo to take back
    assert page.score_player(player, state.game).total == score


def test_missing_scanner_still_allows_manual_scoring():
    state = page.PageState()
    page.scan_into(state.player, None, b"x", "photo.jpg", unavailable_reason="the model file is missing")
    assert state.player.message == "photo.jpg: the model file is missing"
    assert state.player.kingdom == Kingdom.empty(5)


def test_hand_entry_frames_resize_centred_and_undo():
    state = page.PageState()
    page.enter_by_hand(state, 5)
    page.set_square(state, (2, 3), "lake", 1)
    assert page.resize_hand_entry(state, 7)
    kingdom = state.player.kingdom
    assert kingdom.grid_size == 7 and kingdom[(3, 3)].terrain is Terrain.CASTLE
    assert kingdom[(3, 4)] == Square(Terrain.LAKE, 1)
    assert page.undo(state) and state.player.kingdom.grid_size == 5


def test_players_games_ranking_and_dynasty():
    state = scanned_state()
    second = page.add_player(state)
    assert second.name == "Player 2" and state.player is second
    page.scan_into(second, fake_scan(BOARD.replace((4, 4), Square(Terrain.MINE, 3))), b"p2", "p2.jpg")
    ranking = page.rank_current_game(state)
    assert [row["player"] for row in page.ranking_rows(ranking)] == ["Player 2", "Player 1"]
    assert ranking.standings[0].total == BOARD_SCORE + 3
    page.select_player(state, 0)
    assert state.player.kingdom == BOARD  # nothing lost on a switch

    assert page.rename_player(state, "Ann") == ""
    assert "already" in page.rename_player(state, "Player 2")
    assert page.dynasty_ranking(state)[0] is None
    assert page.new_game(state)
    assert [p.name for p in state.game.players] == ["Ann", "Player 2"]
    assert "no kingdom yet" in page.dynasty_ranking(state)[1]
    for index in range(2):
        page.select_player(state, index)
        page.scan_into(state.player, fake_scan(), b"g2", "g2.jpg")
    dynasty, reason = page.dynasty_ranking(state)
    rows = page.ranking_rows(dynasty)
    assert reason == "" and rows[0]["player"] == "Player 2" and rows[0]["score"] == 2 * BOARD_SCORE + 3
    assert rows[0]["games"] == f"{BOARD_SCORE + 3} + {BOARD_SCORE}"
    assert page.new_game(state) and not page.new_game(state)  # a Dynasty is three games


def test_equal_scores_tie_break_follows_the_edition():
    # Both score 2 with a largest territory of 3 squares; Ann has 2 crowns, Bob 1.
    ann = Kingdom.from_text("G2 . .\n. C .\nL0 L0 L0")
    bob = Kingdom.from_text("F1 F0 .\n. C .\nL0 L0 L0")
    state = page.PageState([page.Game([page.PlayerKingdom("Ann")])])
    page.scan_into(state.player, fake_scan(ann, low=(9, 9), flagged=(9, 9)), b"a", "ann.jpg")
    page.scan_into(page.add_player(state, "Bob"), fake_scan(bob, low=(9, 9), flagged=(9, 9)), b"b", "bob.jpg")
    ranking = page.rank_current_game(state)
    assert ranking.shared_victory and ranking.winners == ["Ann", "Bob"]
    state.edition = "nordic"
    assert page.rank_current_game(state).winners == ["Ann"]


def test_bonus_toggles_are_per_game():
    state = scanned_state()
    state.game.middle_kingdom = True
    assert page.score_player(state.player, state.game).total == BOARD_SCORE + 10


def test_game_export_import_round_trip():
    state = scanned_state()
    page.set_square(state, (4, 4), "mine", 3)
    page.add_player(state, "Bea")
    page.enter_by_hand(state, 7)
    page.set_square(state, (0, 0), "wheat", 1)
    state.game.harmony = True
    state.edition = "nordic"
    restored = page.import_game(page.export_game(state))
    assert restored.edition == "nordic" and restored.game.harmony
    assert [p.name for p in restored.game.players] == ["Player 1", "Bea"]
    first, second = restored.game.players
    assert first.kingdom == state.game.players[0].kingdom and first.base == BOARD
    assert first.review_cells() == state.game.players[0].review_cells()
    page.select_player(restored, 0)
    assert page.undo(restored) and first.kingdom == BOARD  # corrections stay undoable
    assert second.kingdom.grid_size == 7 and second.kingdom[(0, 0)] == Square(Terrain.WHEAT, 1)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "invalid JSON"),
        ("[]", "format"),
        ('{"format": "kingdomino-scanner/game", "version": 9}', "version"),
        ('{"format": "kingdomino-scanner/game", "version": 1, "games": []}', "1 to 3 games"),
    ],
)
def test_import_rejects_bad_files_with_one_line(text, reason):
    with pytest.raises(page.GameFileError, match=reason) as error:
        page.import_game(text)
    assert "\n" not in str(error.value)


def test_import_rejects_a_tampered_kingdom():
    data = json.loads(page.export_game(scanned_state()))
    data["games"][0]["players"][0]["kingdom"]["squares"][0][0]["crowns"] = 1
    with pytest.raises(page.GameFileError, match="do not lead"):
        page.import_game(json.dumps(data))
    data["games"][0]["players"][0]["scanned"]["squares"][0][0]["terrain"] = "lava"
    with pytest.raises(page.GameFileError, match="invalid"):
        page.import_game(json.dumps(data))


def test_training_zip_has_the_data_layout():
    state = scanned_state()
    page.set_square(state, (4, 4), "mine", 3)
    with zipfile.ZipFile(io.BytesIO(page.export_training_zip(state.player, "ann-1"))) as archive:
        labels = json.loads(archive.read("labels.json"))
        board = Kingdom.from_dict(json.loads(archive.read("ann-1.board.json")))
        image = cv2.imdecode(np.frombuffer(archive.read("boards/ann-1.jpg"), np.uint8), cv2.IMREAD_COLOR)
    entry = labels["boards"]["ann-1.jpg"]
    assert entry["image"] == "boards/ann-1.jpg" and entry["square_px"] == 100 and entry["grid_size"] == 5
    assert image.shape == (500, 500, 3)
    assert Kingdom.from_dict({"squares": entry["grid"]}) == board == state.player.kingdom
    assert entry["corrected_cells"] == [[4, 4]]


def test_training_zip_of_a_hand_entered_board_holds_the_board_only():
    state = page.PageState()
    page.enter_by_hand(state)
    with zipfile.ZipFile(io.BytesIO(page.export_training_zip(state.player))) as archive:
        assert archive.namelist() == ["player-1-hand.board.json"]


def test_drawing_marks_review_corrected_selected_and_highlight():
    state = scanned_state()
    page.set_square(state, (4, 4), "mine", 3)
    player = state.player
    cell = page.CELL_PX
    plain = page.draw_kingdom(player)
    assert plain.shape == (5 * cell, 5 * cell, 3) and plain.dtype == np.uint8
    report = score_kingdom(player.kingdom)
    forest = next(t for t in report.territories if t.terrain is Terrain.FOREST)
    lit = page.draw_kingdom(player, highlight=forest, selected=(0, 0))
    outside = (2 * cell + cell // 2, 2 * cell + cell // 2)  # the castle is not in the forest: dimmed
    assert lit[outside].sum() < plain[outside].sum()
    assert tuple(plain[1 * cell + 3, 2 * cell + cell // 2]) == page.REVIEW_RGB  # low-confidence frame
    assert tuple(plain[4 * cell + 3, 4 * cell + cell // 2]) == page.CORRECTED_RGB
    assert tuple(lit[0, cell // 2]) == (255, 255, 255) and tuple(lit[2, cell // 2]) == (0, 0, 0)  # selected


def test_drawing_a_hand_entered_board_uses_terrain_colours():
    state = page.PageState()
    page.enter_by_hand(state, 7)
    image = page.draw_kingdom(state.player)
    assert image.shape == (7 * page.CELL_PX,) * 2 + (3,)
    assert tuple(image[10, 10]) == page.TERRAIN_RGB[Terrain.EMPTY]


def test_removing_players_keeps_one():
    state = page.PageState()
    page.add_player(state)
    page.remove_player(state, 1)
    page.remove_player(state, 0)
    assert len(state.game.players) == 1 and state.game.current_player == 0


def test_enter_by_hand_after_a_scan_can_be_undone_with_the_corrections():
    state = scanned_state()
    page.set_square(state, (4, 4), "mine", 3)
    page.enter_by_hand(state, 7)
    assert state.player.kingdom == Kingdom.empty(7) and state.player.photo is None
    assert page.can_undo(state.player)
    assert page.undo(state)
    player = state.player
    assert player.from_scan and player.photo == b"photo" and player.readings is not None
    assert player.kingdom[(4, 4)] == Square(Terrain.MINE, 3) and player.corrected_cells == {(4, 4)}
    assert page.undo(state) and player.kingdom == BOARD
    assert not page.undo(state) and not page.can_undo(player)


def test_a_new_reading_keeps_the_corrected_board_for_undo():
    state = scanned_state()
    page.set_square(state, (0, 0), "lake", 1)
    assert page.scan_into(state.player, fake_scan(), b"photo", "table.jpg", grid=5, photo_id="id-1")
    player = state.player
    assert player.kingdom == BOARD and page.UNDO_NOTE in player.notes
    assert page.undo(state)
    assert player.kingdom[(0, 0)] == Square(Terrain.LAKE, 1) and player.grid_choice == "auto"
    assert page.UNDO_NOTE not in player.notes


def test_undo_keeps_only_the_last_replaced_boards():
    state = scanned_state()
    for _ in range(page.MAX_EARLIER_BOARDS + 3):
        page.enter_by_hand(state, 5)
    assert len(state.player.earlier) == page.MAX_EARLIER_BOARDS
