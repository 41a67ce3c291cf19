"""Unit tests of the page logic (the page/ package) with fake scan results: no Streamlit, no model."""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import pytest

from kingdomino.board import Kingdom, Square, Terrain
from kingdomino.labels import SquareReading
from kingdomino.scoring import score_kingdom
from page import accept, drawing, frame, gamefile, persistence, state, training, views
from page.state import PageState
from scanner.errors import KingdomNotFoundError, PhotoError

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


def photo_bytes(width: int = 400, height: int = 300) -> bytes:
    image = np.full((height, width, 3), 120, np.uint8)
    cv2.rectangle(image, (50, 50), (200, 200), (30, 160, 30), -1)
    return cv2.imencode(".jpg", image)[1].tobytes()


PHOTO = photo_bytes()


@dataclass
class FakeResult:
    """Just the ScanResult fields the page reads."""

    kingdom: Kingdom
    readings: list[list[SquareReading]]
    flagged: list[list[bool]]
    rectified: np.ndarray
    image: np.ndarray
    corners: np.ndarray
    grid_to_image: np.ndarray
    notes: list[str] = field(default_factory=list)

    @property
    def grid_size(self) -> int:
        return self.kingdom.grid_size


def fake_result(kingdom: Kingdom = BOARD, low=(1, 2), flagged=(3, 3)) -> FakeResult:
    """A reading of `kingdom`, with one low-confidence and one decoder-flagged square. The photo is
    4000 px wide, decoded at half size."""
    size = kingdom.grid_size
    readings = [
        [SquareReading(sq.terrain, sq.crowns, 0.3 if (r, c) == low else 0.97) for c, sq in enumerate(row)]
        for r, row in enumerate(kingdom.squares)
    ]
    marks = [[(r, c) == flagged for c in range(size)] for r in range(size)]
    rectified = np.full((size * 60, size * 60, 3), 90, np.uint8)
    corners = np.array([[1000, 800], [2000, 800], [2000, 1800], [1000, 1800]], float)
    grid_to_image = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [size, 0], [size, size], [0, size]]), np.float32(corners / 2)
    )
    image = np.zeros((1500, 2000, 3), np.uint8)
    return FakeResult(kingdom, readings, marks, rectified, image, corners, grid_to_image, ["fake"])


def scanned_state() -> PageState:
    page = PageState()
    accept.accept_scan(page.player, fake_result(), PHOTO, "table.jpg", photo_id="id-1")
    return page


def test_a_reading_fills_the_player_and_scores_through_the_engine():
    page = scanned_state()
    player = page.player
    assert player.kingdom == BOARD and player.from_scan and player.message == "" and not player.demo
    assert drawing.decode_jpeg(player.rectified_jpeg).shape == (500, 500, 3)  # 100 px per square
    assert views.score_player(player, page.game).total == BOARD_SCORE
    preview = drawing.decode_jpeg(player.preview_jpeg)
    assert max(preview.shape[:2]) == accept.PREVIEW_MAX_PX
    assert player.preview_scale == pytest.approx(0.25)  # 1000 px preview of a 4000 px photo
    assert player.corners[0] == (1000.0, 800.0)


def test_the_scan_pool_sends_back_the_page_record_which_fills_the_player_as_the_full_result_does():
    from pathlib import Path

    from scanner.recognizer import KingdomScanner
    from scanner.workers import PoolSettings, ScanPool
    from tests.support.scan_fakes import ColourClassifier
    from tests.support.worker_fakes import misbehaving_scanner

    data = (Path(__file__).resolve().parents[2] / "data/samples/sample_table.jpg").read_bytes()
    settings = PoolSettings(workers=1, finish=accept.page_scan)
    with ScanPool(settings, scanner_factory=misbehaving_scanner) as pool:
        record = pool.scan(data, name="table.jpg")
    assert isinstance(record, accept.PageScan) and len(record.preview_jpeg) < 300_000  # no photo array
    full = KingdomScanner(classifier=ColourClassifier()).scan(data, name="table.jpg")
    there, here = PageState(), PageState()
    accept.accept_scan(there.player, record, data, "table.jpg", photo_id="a")
    accept.accept_scan(here.player, full, data, "table.jpg", photo_id="a")
    assert gamefile.state_record(there) == gamefile.state_record(here)
    for name in ("rectified_jpeg", "preview_jpeg", "preview_scale", "corners", "readings", "flagged"):
        assert getattr(there.player, name) == getattr(here.player, name), name
    assert max(drawing.decode_jpeg(there.player.preview_jpeg).shape[:2]) == accept.PREVIEW_MAX_PX


def test_review_cells_are_low_confidence_or_flagged_until_corrected():
    page = scanned_state()
    assert page.player.review_cells() == [(1, 2), (3, 3)]
    warning = views.review_warning(page.player)
    assert warning.startswith("Check 2 squares") and "row 2 col 3, row 4 col 4" in warning
    state.set_square(page, (1, 2), Terrain.FOREST, 0)
    assert page.player.review_cells() == [(3, 3)]
    assert views.review_warning(page.player).startswith("Check 1 square marked")


def test_correction_rescores_and_undo_and_reset_restore():
    page = scanned_state()
    assert state.set_square(page, (4, 4), "mine", 3)  # a wheat square read wrongly: a lone mine, 3 crowns
    assert views.score_player(page.player, page.game).total == BOARD_SCORE + 3
    assert page.player.corrected_cells == {(4, 4)}
    assert not state.set_square(page, (4, 4), "mine", 3)  # the same value is not a new step
    state.set_square(page, (0, 0), "lake", 1)
    assert state.reset_to_scan(page)
    assert page.player.kingdom == BOARD
    assert state.undo(page)  # the reset itself can be undone
    assert page.player.kingdom[(0, 0)] == Square(Terrain.LAKE, 1)
    assert state.undo(page) and state.undo(page)
    assert page.player.kingdom == BOARD and not state.undo(page)


def test_terrain_and_crown_buttons_act_on_the_selected_square_and_say_when_crowns_drop():
    page = scanned_state()
    page.selected = (3, 3)  # G2
    assert (
        state.set_terrain(page, "lake") == "crowns lowered from 2 to 1: a lake square carries at most 1 crown"
    )
    assert page.player.kingdom[(3, 3)] == Square(Terrain.LAKE, 1)
    assert state.set_terrain(page, "mine") == ""
    assert state.set_crowns(page, 3) and page.player.kingdom[(3, 3)] == Square(Terrain.MINE, 3)
    assert "carries no crowns" in state.set_terrain(page, "castle")


def test_paint_mode_paints_the_brush_on_each_tapped_square():
    page = PageState()
    state.enter_by_hand(page, 5)
    assert state.set_brush(page, "forest", 1) == ""
    for cell in [(0, 0), (0, 1), (1, 0)]:
        assert state.paint(page, cell)
    assert views.score_player(page.player, page.game).total == 9  # 3 squares × 3 crowns
    assert "lowered" in state.set_brush(page, "wheat", 3)
    assert page.brush == Square(Terrain.WHEAT, 1)


def test_crowns_are_capped_to_what_the_terrain_carries():
    assert state.square_for("castle", 2) == Square(Terrain.CASTLE, 0)
    assert state.square_for(Terrain.WHEAT, 3) == Square(Terrain.WHEAT, 1)
    assert state.crown_options("mine") == [0, 1, 2, 3]
    assert state.crown_options("empty") == [0]


def test_cell_at_maps_display_pixels_to_squares():
    assert state.cell_at(0, 0, 375, 375, 5) == (0, 0)
    assert state.cell_at(374.9, 374.9, 375, 375, 5) == (4, 4)
    assert state.cell_at(160, 80, 400, 400, 5) == (1, 2)
    assert state.cell_at(100, 100, 400, 400, 7) == (1, 1)
    assert state.cell_at(401, 10, 400, 400, 5) is None


def test_no_kingdom_in_a_photo_leaves_the_player_without_a_kingdom_or_score():
    page = PageState()
    error = KingdomNotFoundError("no grid of squares found: photograph the kingdom from above")
    assert accept.accept_failure(page, error, PHOTO, "blurry.jpg", grid=7)
    player = page.player
    assert player.message == "no grid of squares found: photograph the kingdom from above"
    assert player.kingdom is None and views.score_player(player, page.game) is None
    assert player.photo == PHOTO and player.preview_jpeg and player.corners is None
    assert player.preview_scale == pytest.approx(1.0)
    assert [line.label for line in views.scoreboard(page)] == ["Player 1: —"]


def test_a_failed_photo_never_shows_the_earlier_reading_but_undo_brings_it_back():
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    accept.accept_failure(page, KingdomNotFoundError("no kingdom found"), PHOTO, "other.jpg")
    assert page.player.kingdom is None and page.player.source == "other.jpg"
    assert state.undo(page)
    assert page.player.kingdom[(4, 4)] == Square(Terrain.MINE, 3) and page.player.source == "table.jpg"


def test_a_refused_file_changes_nothing_and_says_so():
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    before = gamefile.state_record(page)
    assert not accept.accept_failure(page, PhotoError("the file is empty"), b"", "empty.jpg")
    assert page.notice == "empty.jpg: the file is empty; your board is unchanged"
    page.notice = ""
    assert gamefile.state_record(page) == before
    # a file the scanner could not read as a photo at all, whatever the error's type
    assert not accept.accept_failure(page, KingdomNotFoundError("x"), b"not a photo", "notes.txt")
    assert page.notice.startswith("notes.txt: x; your board is unchanged")


def test_the_demo_is_labelled_never_ranked_and_leaves_with_the_first_photo():
    page = PageState()
    accept.accept_demo(page.player, fake_result(), PHOTO, "sample.jpg")
    assert page.player.demo and "demo" in page.player.source
    assert views.scoreboard(page)[0].label == f"Player 1: {BOARD_SCORE} (demo)"
    assert views.game_reports(page.game) == {} and views.winner_line(page) == ""
    accept.accept_failure(page, KingdomNotFoundError("no kingdom found"), PHOTO, "mine.jpg")
    assert page.player.kingdom is None and not page.player.demo
    assert not state.can_undo(page.player)  # the demo is not brought back: it was never the player's


def test_winner_and_places_need_two_kingdoms():
    page = scanned_state()
    assert views.winner_line(page) == "" and views.scoreboard(page)[0].place is None
    state.add_player(page, "Bea")
    assert views.winner_line(page) == ""
    assert [line.label for line in views.scoreboard(page)] == [f"Player 1: {BOARD_SCORE}", "Bea: —"]
    accept.accept_scan(
        page.player, fake_result(BOARD.replace((4, 4), Square(Terrain.MINE, 3))), PHOTO, "b.jpg"
    )
    assert views.winner_line(page).startswith("Winner: Bea")
    assert [line.label for line in views.scoreboard(page)] == [
        f"2nd · Player 1: {BOARD_SCORE}",
        f"1st · Bea: {BOARD_SCORE + 3}",
    ]


def test_wording_plurals():
    assert views.plural(1, "square") == "1 square" and views.plural(0, "crown") == "0 crowns"
    report = score_kingdom(Kingdom.from_text("W0 . .\n. C .\n. . ."))
    assert views.territory_label(report.territories[0]) == "wheat · 1 square × 0 crowns = 0"


def test_hand_entry_frames_resize_centred_and_undo():
    page = PageState()
    state.enter_by_hand(page, 5)
    state.set_square(page, (2, 3), "lake", 1)
    assert state.resize_hand_entry(page, 7)
    kingdom = page.player.kingdom
    assert kingdom.grid_size == 7 and kingdom[(3, 3)].terrain is Terrain.CASTLE
    assert kingdom[(3, 4)] == Square(Terrain.LAKE, 1)
    assert state.undo(page) and page.player.kingdom.grid_size == 5


def test_players_games_ranking_and_dynasty():
    page = scanned_state()
    second = state.add_player(page)
    assert second.name == "Player 2" and page.player is second
    accept.accept_scan(second, fake_result(BOARD.replace((4, 4), Square(Terrain.MINE, 3))), PHOTO, "p2.jpg")
    ranking = views.rank_current_game(page)
    assert [row["player"] for row in views.ranking_rows(ranking)] == ["Player 2", "Player 1"]
    assert ranking.standings[0].total == BOARD_SCORE + 3
    state.select_player(page, 0)
    assert page.player.kingdom == BOARD  # nothing lost on a switch

    assert state.rename_player(page, "Ann") == ""
    assert "already" in state.rename_player(page, "Player 2")
    assert views.dynasty_ranking(page)[0] is None
    assert state.new_game(page)
    assert [p.name for p in page.game.players] == ["Ann", "Player 2"]
    assert "no kingdom yet" in views.dynasty_ranking(page)[1]
    for index in range(2):
        state.select_player(page, index)
        accept.accept_scan(page.player, fake_result(), PHOTO, "g2.jpg")
    dynasty, reason = views.dynasty_ranking(page)
    rows = views.ranking_rows(dynasty)
    assert reason == "" and rows[0]["player"] == "Player 2" and rows[0]["score"] == 2 * BOARD_SCORE + 3
    assert rows[0]["games"] == f"{BOARD_SCORE + 3} + {BOARD_SCORE}"
    assert state.new_game(page) and not state.new_game(page)  # a Dynasty is three games


def test_equal_scores_tie_break_follows_the_edition():
    # Both score 2 with a largest territory of 3 squares; Ann has 2 crowns, Bob 1.
    ann = Kingdom.from_text("G2 . .\n. C .\nL0 L0 L0")
    bob = Kingdom.from_text("F1 F0 .\n. C .\nL0 L0 L0")
    page = PageState([state.GameSession([state.PlayerKingdom("Ann")])])
    accept.accept_scan(page.player, fake_result(ann, low=(9, 9), flagged=(9, 9)), PHOTO, "ann.jpg")
    accept.accept_scan(
        state.add_player(page, "Bob"), fake_result(bob, low=(9, 9), flagged=(9, 9)), PHOTO, "b"
    )
    ranking = views.rank_current_game(page)
    assert ranking.shared_victory and ranking.winners == ["Ann", "Bob"]
    assert views.winner_line(page).startswith("Winners: Ann and Bob")
    page.edition = "nordic"
    assert views.rank_current_game(page).winners == ["Ann"]


def test_bonus_toggles_are_per_game():
    page = scanned_state()
    page.game.middle_kingdom = True
    assert views.score_player(page.player, page.game).total == BOARD_SCORE + 10


def test_game_export_import_round_trip():
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    state.add_player(page, "Bea")
    state.enter_by_hand(page, 7)
    state.set_square(page, (0, 0), "wheat", 1)
    page.game.harmony = True
    page.edition = "nordic"
    restored = gamefile.import_game(gamefile.export_game(page))
    assert restored.edition == "nordic" and restored.game.harmony
    assert [p.name for p in restored.game.players] == ["Player 1", "Bea"]
    first, second = restored.game.players
    assert first.kingdom == page.game.players[0].kingdom and first.base == BOARD
    assert first.review_cells() == page.game.players[0].review_cells()
    state.select_player(restored, 0)
    assert state.undo(restored) and first.kingdom == BOARD  # corrections stay undoable
    assert second.kingdom.grid_size == 7 and second.kingdom[(0, 0)] == Square(Terrain.WHEAT, 1)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "invalid JSON"),
        ("[" * 50_000, "invalid JSON"),
        ('{"format": 1' + "0" * 5000 + "}", "invalid JSON"),
        ("[]", "format"),
        ('{"format": "kingdomino-scanner/game", "version": 9}', "version"),
        ('{"format": "kingdomino-scanner/game", "version": 1, "games": []}', "1 to 3 games"),
    ],
)
def test_import_rejects_bad_files_with_one_line(text, reason):
    with pytest.raises(state.GameFileError, match=reason) as error:
        gamefile.import_game(text)
    assert "\n" not in str(error.value)


def test_import_rejects_a_tampered_kingdom():
    data = json.loads(gamefile.export_game(scanned_state()))
    data["games"][0]["players"][0]["kingdom"]["squares"][0][0]["crowns"] = 1
    with pytest.raises(state.GameFileError, match="do not lead"):
        gamefile.import_game(json.dumps(data))
    data["games"][0]["players"][0]["scanned"]["squares"][0][0]["terrain"] = "lava"
    with pytest.raises(state.GameFileError, match="invalid"):
        gamefile.import_game(json.dumps(data))


def test_the_full_record_keeps_everything_including_undo_history_and_images():
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    accept.accept_failure(page, KingdomNotFoundError("no kingdom found"), PHOTO, "second.jpg")
    state.add_player(page, "Bea")
    state.enter_by_hand(page, 7)
    page.paint, page.brush = True, Square(Terrain.MINE, 2)
    data, blobs = gamefile.state_record(page)
    restored = gamefile.state_from_record(json.loads(json.dumps(data)), blobs)
    assert gamefile.state_record(restored) == (data, blobs)
    assert restored.paint and restored.brush == Square(Terrain.MINE, 2)
    first = restored.game.players[0]
    assert first.kingdom is None and first.message == "no kingdom found" and first.photo == PHOTO
    state.select_player(restored, 0)
    assert state.undo(restored) and first.kingdom[(4, 4)] == Square(Terrain.MINE, 3)
    assert first.corners == page.game.players[0].earlier[0].corners and first.rectified_jpeg


def test_memory_storage_keeps_games_by_code_and_counts_versions():
    storage = persistence.MemoryStorage()
    code = persistence.new_code()
    assert persistence.valid_code(code) and storage.version(code) == 0
    assert persistence.open_game(storage, code) == (None, "")
    page = scanned_state()
    assert storage.save(code, page) == 1
    state.set_square(page, (4, 4), "mine", 3)
    assert storage.save(code, page) == 2
    opened, message = persistence.open_game(storage, code)
    assert message == "" and opened.player.kingdom == page.player.kingdom
    opened.player.edits.clear()  # a loaded game is a copy: changing it does not touch the stored one
    assert storage.load(code).player.kingdom[(4, 4)] == Square(Terrain.MINE, 3)
    assert persistence.open_game(storage, "../etc") == (None, "")


def test_an_unreadable_stored_game_gives_one_line_and_a_fresh_start():
    class Broken(persistence.MemoryStorage):
        def load(self, code):
            raise state.GameFileError("a board in the game file is invalid")

    opened, message = persistence.open_game(Broken(), "abcdef")
    assert opened is None and "could not be opened" in message and "\n" not in message


def test_training_zip_has_the_data_layout():
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    with zipfile.ZipFile(io.BytesIO(training.export_training_zip(page.player, "ann-1"))) as archive:
        labels = json.loads(archive.read("labels.json"))
        board = Kingdom.from_dict(json.loads(archive.read("ann-1.board.json")))
        image = cv2.imdecode(np.frombuffer(archive.read("boards/ann-1.jpg"), np.uint8), cv2.IMREAD_COLOR)
    entry = labels["boards"]["ann-1.jpg"]
    assert entry["image"] == "boards/ann-1.jpg" and entry["square_px"] == 100 and entry["grid_size"] == 5
    assert image.shape == (500, 500, 3)
    assert Kingdom.from_dict({"squares": entry["grid"]}) == board == page.player.kingdom
    assert entry["corrected_cells"] == [[4, 4]]


def test_training_zip_of_a_hand_entered_board_holds_the_board_only():
    page = PageState()
    state.enter_by_hand(page)
    with zipfile.ZipFile(io.BytesIO(training.export_training_zip(page.player))) as archive:
        assert archive.namelist() == ["player-1-hand.board.json"]


def test_training_zip_of_a_damaged_stored_image_holds_the_board_only():
    page = scanned_state()
    damaged = replace(page.player, rectified_jpeg=b"not a jpeg")
    with zipfile.ZipFile(io.BytesIO(training.export_training_zip(damaged, "ann-1"))) as archive:
        assert archive.namelist() == ["ann-1.board.json"]


def draw(player, **kwargs):
    return drawing.draw_kingdom(
        player.kingdom,
        player.rectified_jpeg,
        set(player.review_cells()),
        player.corrected_cells,
        **kwargs,
    )


def test_drawing_marks_review_corrected_selected_and_highlight():
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    player = page.player
    cell = drawing.CELL_PX
    plain = draw(player)
    assert plain.shape == (5 * cell, 5 * cell, 3) and plain.dtype == np.uint8
    report = score_kingdom(player.kingdom)
    forest = next(t for t in report.territories if t.terrain is Terrain.FOREST)
    lit = draw(player, highlight=forest, selected=(0, 0))
    outside = (2 * cell + cell // 2, 2 * cell + cell // 2)  # the castle is not in the forest: dimmed
    assert lit[outside].sum() < plain[outside].sum()
    assert tuple(plain[1 * cell + 3, 2 * cell + cell // 2]) == drawing.REVIEW_RGB  # low-confidence frame
    assert tuple(plain[4 * cell + 3, 4 * cell + cell // 2]) == drawing.CORRECTED_RGB
    assert tuple(lit[0, cell // 2]) == (255, 255, 255) and tuple(lit[2, cell // 2]) == (0, 0, 0)  # selected


def test_crown_dots_stand_out_on_wheat():
    kingdom = Kingdom.from_text("W1 . .\n. C .\n. . .")
    image = drawing.draw_kingdom(kingdom, cell_px=80)
    strip = image[80 - 20 : 80, 0:80].reshape(-1, 3).astype(int)
    wheat = np.array(drawing.TERRAIN_RGB[Terrain.WHEAT])
    dark = (strip.sum(axis=1) < 150).sum()  # the crown's dark pill around the gold dot
    gold = (np.abs(strip - np.array(drawing.CROWN_RGB)).sum(axis=1) < 30).sum()
    assert dark > 50 and gold > 20 and (np.abs(strip - wheat).sum(axis=1) < 30).sum() > 200


def test_drawing_a_hand_entered_board_uses_terrain_colours():
    page = PageState()
    state.enter_by_hand(page, 7)
    image = draw(page.player)
    assert image.shape == (7 * drawing.CELL_PX,) * 2 + (3,)
    assert tuple(image[10, 10]) == drawing.TERRAIN_RGB[Terrain.EMPTY]


@pytest.mark.parametrize("stored", [b"\xff\xd8\xff\xe0 a damaged record", b""], ids=["damaged", "empty"])
def test_a_kingdom_whose_stored_photo_is_damaged_is_drawn_in_terrain_colours(stored):
    page = scanned_state()
    page.player.rectified_jpeg = stored
    image = draw(page.player)
    assert image.shape == (5 * drawing.CELL_PX,) * 2 + (3,)
    assert tuple(image[10, 10]) == drawing.TERRAIN_RGB[page.player.kingdom[(0, 0)].terrain]
    assert drawing.readable_jpeg(stored) is None


def test_the_frame_is_drawn_thick_with_its_corners():
    photo = np.full((750, 1000, 3), 100, np.uint8)
    corners = np.array([[200, 100], [700, 120], [680, 600], [220, 580]], float)
    image = drawing.draw_frame(photo, corners, 5, selected=0)
    frame_pixels = (np.abs(image.astype(int) - np.array(drawing.FRAME_RGB)).sum(axis=2) < 40).sum()
    assert frame_pixels > 5000  # thick enough to see at a phone's 360 px
    assert tuple(image[100, 200]) != (100, 100, 100)


def test_corners_move_by_drag_or_by_tap_to_select_then_tap_to_place():
    draft = frame.start_draft(None, 5, 1000, 800)
    assert draft.corners == ((260.0, 160.0), (740.0, 160.0), (740.0, 640.0), (260.0, 640.0))
    dragged = frame.on_pointer(draft, (262, 158), (100, 100), 1000)  # a drag from TL
    assert dragged.corners[0] == (100.0, 100.0) and dragged.selected == 0
    missed = frame.on_pointer(draft, (500, 400), (600, 400), 1000)  # a drag not starting on a corner
    assert missed.corners == draft.corners
    picked = frame.on_pointer(dragged, (738, 642), (738, 642), 1000)  # a tap on BR selects it
    assert picked.selected == 2 and picked.corners == dragged.corners
    placed = frame.on_pointer(picked, (900, 700), (901, 700), 1000)  # the next tap places it
    assert placed.corners[2] == (901.0, 700.0) and placed.selected == 2
    nearest = frame.on_pointer(draft, (800, 100), (800, 100), 1000)  # nothing selected: nearest (TR)
    assert nearest.corners[1] == (800.0, 100.0)
    assert frame.is_convex(draft.corners) and not frame.is_convex(
        (draft.corners[0], draft.corners[2], draft.corners[1], draft.corners[3])
    )


def test_removing_players_keeps_one():
    page = PageState()
    state.add_player(page)
    state.remove_player(page, 1)
    state.remove_player(page, 0)
    assert len(page.game.players) == 1 and page.game.current_player == 0


def test_enter_by_hand_after_a_scan_can_be_undone_with_the_corrections():
    page = scanned_state()
    state.set_square(page, (4, 4), "mine", 3)
    state.enter_by_hand(page, 7)
    assert page.player.kingdom == Kingdom.empty(7) and page.player.photo is None
    assert state.can_undo(page.player)
    assert state.undo(page)
    player = page.player
    assert player.from_scan and player.photo == PHOTO and player.readings is not None
    assert player.kingdom[(4, 4)] == Square(Terrain.MINE, 3) and player.corrected_cells == {(4, 4)}
    assert state.undo(page) and player.kingdom == BOARD
    assert not state.undo(page) and not state.can_undo(player)


def test_a_new_reading_keeps_the_corrected_board_for_undo():
    page = scanned_state()
    state.set_square(page, (0, 0), "lake", 1)
    accept.accept_scan(page.player, fake_result(), PHOTO, "table.jpg", grid=5, photo_id="id-1")
    player = page.player
    assert player.kingdom == BOARD and state.UNDO_NOTE in player.notes
    assert state.undo(page)
    assert player.kingdom[(0, 0)] == Square(Terrain.LAKE, 1) and player.grid_choice == "auto"
    assert state.UNDO_NOTE not in player.notes


def test_undo_keeps_only_the_last_replaced_boards():
    page = scanned_state()
    for _ in range(state.MAX_EARLIER_BOARDS + 3):
        state.enter_by_hand(page, 5)
    assert len(page.player.earlier) == state.MAX_EARLIER_BOARDS


def test_a_page_taking_another_pages_save_keeps_its_own_view():
    mine = scanned_state()
    state.add_player(mine, "Bea")
    theirs = gamefile.state_from_record(*gamefile.state_record(mine))
    state.select_player(theirs, 0)
    state.set_square(theirs, (4, 4), "mine", 3)  # the other phone corrects Player 1's kingdom
    mine.selected, mine.paint = (1, 1), True
    state.carry_view(mine, theirs)
    assert theirs.player.name == "Bea" and theirs.selected == (1, 1) and theirs.paint
    assert theirs.game.players[0].kingdom[(4, 4)] == Square(Terrain.MINE, 3)
