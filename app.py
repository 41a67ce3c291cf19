"""The Streamlit page: photograph, review, correct and score every kingdom of a game.

Layout and widgets only. Every decision (corrections, undo, scoring, ranking, files, drawing) is a
plain function in scanner/page.py; widgets change the state through callbacks, so each rerun simply
draws the current state. Run with ``streamlit run app.py``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import streamlit as st
from streamlit_image_coordinates import streamlit_image_coordinates

from kingdomino.board import GRID_SIZES, Terrain
from kingdomino.scoring import ScoreReport
from scanner import page
from scanner.errors import ScanError

ROOT = Path(__file__).resolve().parent
SAMPLE_PHOTOS = (ROOT / "data/samples/sample_table.jpg", ROOT / "data/real/boards/1.jpg")
PHOTO_TYPES = ["jpg", "jpeg", "png", "heic", "heif"]
GRID_LABELS = {"auto": "Auto", 5: "5×5", 7: "7×7 (Mighty Duel)"}
EDITION_LABELS = {"second": "Second edition (ties share)", "nordic": "Nordic (crowns break ties)"}

st.set_page_config(page_title="Kingdomino scanner", page_icon=":crown:", layout="centered")


@st.cache_resource(show_spinner="Loading the square classifier…")
def load_scanner() -> tuple[object | None, str]:
    """The scan pool once per server process: worker processes, each with the model, so scans use every
    core and this server's threads only wait; a one-line reason when it cannot start."""
    try:
        from scanner.workers import PoolSettings, ScanPool, limit_heap_growth

        limit_heap_growth()  # this server keeps results and photos: let freed ones go back to the system
        return ScanPool(PoolSettings(display_side=page.OVERLAY_MAX_PX)), ""  # the photo at display size only
    except Exception as error:  # noqa: BLE001 - the page must keep working as a manual scorer
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return None, f"the photo scanner could not start ({reason})"


@st.cache_resource(max_entries=8, show_spinner=False)
def _scan_cached(digest: str, grid: page.GridChoice, _photo: bytes) -> tuple[object | None, ScanError | None]:
    """Scan results by photo content, so reruns, player switches and the sample never scan twice.
    Results hold a display-sized photo only; a crashed or stopped worker is not cached (raised)."""
    from scanner.workers import WorkerCrashedError

    scanner, reason = load_scanner()
    if scanner is None:
        return None, ScanError(reason)
    try:
        return scanner.scan(_photo, grid=grid), None
    except WorkerCrashedError:
        raise
    except ScanError as error:
        return None, error


def scan(photo: bytes, grid: page.GridChoice = "auto") -> object:
    result, error = _scan_cached(hashlib.sha256(photo).hexdigest(), grid, photo)
    if error is not None:
        raise error
    return result


def state() -> page.PageState:
    if "page" not in st.session_state:
        fresh = page.PageState()
        sample = next((path for path in SAMPLE_PHOTOS if path.exists()), None)
        if sample is not None:
            name = f"sample photo ({sample.name})"
            page.scan_into(fresh.player, scan, sample.read_bytes(), name, photo_id="sample")
        else:
            page.start_hand_entry(fresh.player)
        st.session_state.page = fresh
        st.session_state.epoch = 0
    return st.session_state.page


def key(name: str) -> str:
    """Widget keys carry the current game, player and an epoch, so switching never shows stale values."""
    s = st.session_state.page
    return f"{name}_{st.session_state.epoch}_{s.current_game}_{s.game.current_player}"


def new_epoch() -> None:
    st.session_state.epoch += 1


def sync_editor() -> None:
    """Point the square editor at the selected square (called from callbacks, before widgets exist)."""
    s = st.session_state.page
    page.clamp_selection(s)
    kingdom = s.player.kingdom
    if kingdom is None:
        return
    square = kingdom[s.selected]
    st.session_state[key("row")], st.session_state[key("col")] = s.selected
    st.session_state[key("terrain")] = square.terrain.value
    st.session_state[key("crowns")] = square.crowns


# --- callbacks --------------------------------------------------------------------------------


def on_photo(widget: str) -> None:
    s, upload = st.session_state.page, st.session_state.get(widget)
    if upload is None or upload.file_id == s.player.photo_id:
        return
    grid = st.session_state.get(key("grid"), "auto")
    page.scan_into(s.player, scan, upload.getvalue(), upload.name, grid, photo_id=upload.file_id)
    sync_editor()


def on_grid() -> None:
    s = st.session_state.page
    grid = st.session_state[key("grid")]
    player = s.player
    if player.photo is not None and player.from_scan:
        page.scan_into(player, scan, player.photo, player.source, grid, photo_id=player.photo_id)
    elif grid in GRID_SIZES:
        page.resize_hand_entry(s, grid)
    player.grid_choice = grid
    sync_editor()


def on_click_square() -> None:
    s, click = st.session_state.page, st.session_state.get(key("click"))
    kingdom = s.player.kingdom
    if not click or kingdom is None:
        return
    cell = page.cell_at(click["x"], click["y"], click["width"], click["height"], kingdom.grid_size)
    if cell is not None:
        s.selected = cell
        sync_editor()


def on_select_cell() -> None:
    s = st.session_state.page
    s.selected = (st.session_state[key("row")], st.session_state[key("col")])
    sync_editor()


def on_set_square() -> None:
    s = st.session_state.page
    page.set_square(s, s.selected, st.session_state[key("terrain")], st.session_state[key("crowns")])
    sync_editor()


def edit(action: Callable[..., object], *widget_keys: str) -> None:
    """Callback: change the current kingdom (undo, reset, ...), then point the editor at it again."""
    action(st.session_state.page, *(st.session_state[k] for k in widget_keys))
    player = st.session_state.page.player
    if player.kingdom is not None:  # Undo may bring back an earlier reading made with another grid choice
        rereadable = player.from_scan and player.photo is not None
        st.session_state[key("grid")] = player.grid_choice if rereadable else player.kingdom.grid_size
    sync_editor()


def switch(action: Callable[..., object], *widget_keys: str) -> None:
    """Callback: move to another player or game; fresh widget keys so no stale value shows."""
    action(st.session_state.page, *(st.session_state[k] for k in widget_keys))
    new_epoch()
    sync_editor()


def on_hand_entry() -> None:
    page.enter_by_hand(st.session_state.page, 7 if st.session_state.get(key("grid")) == 7 else 5)
    sync_editor()


def on_rename() -> None:
    st.session_state.rename_error = page.rename_player(st.session_state.page, st.session_state[key("name")])


def on_bonus() -> None:
    game = st.session_state.page.game
    game.harmony = st.session_state[key("harmony")]
    game.middle_kingdom = st.session_state[key("middle")]


def on_edition() -> None:
    st.session_state.page.edition = st.session_state.edition_choice


def on_import() -> None:
    upload = st.session_state.get("import_file")
    if upload is None:
        return
    try:
        st.session_state.page = page.import_game(upload.getvalue())
        st.session_state.import_message = ""
    except page.GameFileError as error:
        st.session_state.import_message = f"Could not import {upload.name}: {error}"
        return
    new_epoch()
    sync_editor()


def seed(name: str, value: object) -> str:
    """A widget key holding the state's value the first time the widget appears."""
    widget = key(name)
    if widget not in st.session_state:
        st.session_state[widget] = value
    return widget


# --- layout -----------------------------------------------------------------------------------


def show_players(s: page.PageState) -> None:
    names = [p.name for p in s.game.players]
    st.session_state.player_choice = s.game.current_player
    pick, add = st.columns([3, 1], vertical_alignment="bottom")
    pick.selectbox(
        "Player",
        range(len(names)),
        format_func=lambda i: names[i],
        key="player_choice",
        on_change=switch,
        args=(page.select_player, "player_choice"),
    )
    add.button("Add player", on_click=switch, args=(page.add_player,), width="stretch")


def show_photo_input(s: page.PageState) -> None:
    player = s.player
    expanded = player.kingdom is None or bool(player.message)
    with st.expander(f"Photo of {player.name}'s kingdom: upload, camera or by hand", expanded=expanded):
        st.text_input("Player name", key=seed("name", player.name), on_change=on_rename)
        if st.session_state.get("rename_error"):
            st.error(st.session_state.rename_error)
        upload = key("upload")
        st.file_uploader(
            "Upload a photo (JPEG, PNG, HEIC)",
            type=PHOTO_TYPES,
            key=upload,
            on_change=on_photo,
            args=(upload,),
        )
        if st.toggle("Use the camera", key=key("camera_on")):
            st.camera_input("Take a photo", key=key("camera"), on_change=on_photo, args=(key("camera"),))
        st.radio(
            "Grid",
            page.GRID_CHOICES,
            format_func=GRID_LABELS.get,
            horizontal=True,
            key=seed("grid", player.grid_choice),
            on_change=on_grid,
        )
        left, right = st.columns(2)
        left.button("Enter by hand", on_click=on_hand_entry, width="stretch")
        if len(s.game.players) > 1:
            right.button("Remove player", on_click=switch, args=(page.remove_player,), width="stretch")
    if player.message:
        hint = "The previous reading is kept." if player.from_scan else "Enter the squares by hand below."
        st.warning(f"**No kingdom read:** {player.message}. {hint}")
    if player.source:
        took = (
            f" · read in {player.scan_seconds:.1f} s"
            if player.from_scan and (player.scan_seconds or 0) >= 0.1
            else ""
        )
        notes = " · " + "; ".join(player.notes) if player.notes else ""
        st.caption(f"Photo: {player.source}{took}{notes}")


def show_score_header(player: page.PlayerKingdom, report: ScoreReport) -> None:
    bonuses = [f"{name.replace('_', ' ')} +{points}" for name, points in report.bonuses.items() if points]
    st.metric(
        f"{player.name}'s score", report.total, help="Territories: squares × crowns, added up; plus bonuses"
    )
    st.caption(
        f"Territories {report.base}"
        + "".join(f" · {b}" for b in bonuses)
        + f" · {report.crowns} crowns · {report.grid_size}×{report.grid_size} grid"
    )


def show_kingdom(s: page.PageState, report: ScoreReport) -> None:
    """The drawn kingdom (tap to select a square) beside the square editor; stacked on a phone."""
    player, kingdom = s.player, s.player.kingdom
    assert kingdom is not None
    choice = st.session_state.get(key("highlight"))
    highlight = (
        report.territories[choice] if choice is not None and choice < len(report.territories) else None
    )
    drawing, editor = st.columns([3, 2])
    with drawing:
        streamlit_image_coordinates(
            page.draw_kingdom(player, highlight, s.selected),
            key=key("click"),
            width="stretch",
            image_format="JPEG",
            jpeg_quality=85,
            on_click=on_click_square,
            cursor="pointer",
        )
        review = player.review_cells()
        check = (
            " **Check:** " + ", ".join(f"row {r + 1} col {c + 1}" for r, c in review) + "." if review else ""
        )
        changed = len(player.corrected_cells)
        done = f" {changed} square{'s' if changed != 1 else ''} corrected." if changed else ""
        st.caption(
            f"Tap a square to select it (white frame). Orange ? = check first; blue = corrected.{check}{done}"
        )
    with editor:
        if key("row") not in st.session_state:
            sync_editor()
        cells = range(kingdom.grid_size)
        row_box, col_box = st.columns(2)
        row_box.selectbox(
            "Row", cells, format_func=lambda i: str(i + 1), key=key("row"), on_change=on_select_cell
        )
        col_box.selectbox(
            "Column", cells, format_func=lambda i: str(i + 1), key=key("col"), on_change=on_select_cell
        )
        st.selectbox("Terrain", [t.value for t in Terrain], key=key("terrain"), on_change=on_set_square)
        crowns = page.crown_options(st.session_state[key("terrain")])
        st.selectbox("Crowns", crowns, key=key("crowns"), on_change=on_set_square)
        undo_box, reset_box = st.columns(2)
        undo_box.button(
            "Undo", on_click=edit, args=(page.undo,), disabled=not page.can_undo(player), width="stretch"
        )
        reset_box.button(
            "Reset to scan" if player.from_scan else "Clear board",
            on_click=edit,
            args=(page.reset_to_scan,),
            disabled=kingdom == player.base,
            width="stretch",
        )


def show_score_panel(s: page.PageState, report: ScoreReport) -> None:
    st.subheader("Territories")
    territories = report.territories
    st.selectbox(
        "Highlight a territory on the kingdom",
        [None, *range(len(territories))],
        key=key("highlight"),
        format_func=lambda i: "none" if i is None else page.territory_label(territories[i]),
    )
    rows = page.territory_rows(report)
    st.table(rows or [{"terrain": "none yet", "squares": 0, "crowns": 0, "points": 0}])
    harmony_box, middle_box = st.columns(2)
    harmony_box.toggle("Harmony (+5)", key=seed("harmony", s.game.harmony), on_change=on_bonus)
    middle_box.toggle("Middle Kingdom (+10)", key=seed("middle", s.game.middle_kingdom), on_change=on_bonus)
    for warning in report.warnings:
        st.warning(warning)


def show_game(s: page.PageState) -> None:
    st.header("Game")
    st.session_state.edition_choice = s.edition
    st.radio(
        "Rules",
        page.EDITIONS,
        format_func=EDITION_LABELS.get,
        key="edition_choice",
        horizontal=True,
        on_change=on_edition,
    )
    if len(s.games) > 1:
        st.session_state.game_choice = s.current_game
        st.radio(
            "Game of the Dynasty",
            range(len(s.games)),
            format_func=lambda i: f"Game {i + 1}",
            key="game_choice",
            horizontal=True,
            on_change=switch,
            args=(page.select_game, "game_choice"),
        )
    ranking = page.rank_current_game(s)
    if ranking is not None:
        decided = f" (decided by {ranking.decided_by})" if len(ranking.standings) > 1 else ""
        st.markdown(f"**Winner: {' and '.join(ranking.winners)}**{decided}")
        st.table(page.ranking_rows(ranking))
    waiting = [p.name for p in s.game.players if p.kingdom is None]
    if waiting:
        st.caption("No kingdom yet: " + ", ".join(waiting))
    if len(s.games) < page.MAX_GAMES:
        st.button(f"Start game {len(s.games) + 1} of a Dynasty", on_click=switch, args=(page.new_game,))
    st.subheader("Dynasty totals")
    dynasty, reason = page.dynasty_ranking(s)
    if dynasty is not None:
        st.table(page.ranking_rows(dynasty))
    else:
        st.caption(reason[:1].upper() + reason[1:] + ".")


def show_files(s: page.PageState) -> None:
    with st.expander("Save, load and export"):
        st.download_button(
            "Download the game (JSON)",
            page.export_game(s),
            file_name="kingdomino-game.json",
            mime="application/json",
        )
        st.file_uploader("Load a saved game", type=["json"], key="import_file", on_change=on_import)
        if st.session_state.get("import_message"):
            st.error(st.session_state.import_message)
        if s.player.kingdom is not None:
            st.download_button(
                f"Export {s.player.name}'s corrected kingdom (training data zip)",
                page.export_training_zip(s.player),
                file_name=f"{page.slug(s.player.name)}-kingdom.zip",
                mime="application/zip",
            )


s = state()
st.title("Kingdomino scanner")
st.caption("Photograph each kingdom, fix what the scanner misread, get the score and the ranking.")
show_players(s)
show_photo_input(s)
report = page.score_player(s.player, s.game)
if report is None:
    st.info("No kingdom yet: upload or take a photo, or enter the board by hand.")
else:
    show_score_header(s.player, report)
    show_kingdom(s, report)
    show_score_panel(s, report)
if s.player.overlay_jpeg:
    with st.expander("Photo with the detected grid", expanded=True):
        st.image(s.player.overlay_jpeg, width="stretch")
show_game(s)
show_files(s)
