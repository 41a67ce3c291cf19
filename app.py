"""The Streamlit page: photograph, review, correct and score every kingdom of a game, on a phone first.

Layout only. Every rule (corrections, undo, accepting a scan, scores and rankings, drawing, files) is a
plain function of the page/ package; widgets change the state through callbacks, every change is saved
by one call, and each rerun draws the current state. Run with ``streamlit run app.py``.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import streamlit as st
from streamlit_image_coordinates import streamlit_image_coordinates

import page
from kingdomino.board import GRID_SIZES, MAX_CROWNS, Terrain
from kingdomino.ranking import EDITIONS
from kingdomino.scoring import ScoreReport
from page import accept, frame, views
from page.persistence import valid_code
from page.store import DB_ENV, GameStore
from scanner.errors import ScanError

ROOT = Path(__file__).resolve().parent
SAMPLE_PHOTOS = (ROOT / "data/samples/sample_table.jpg", ROOT / "data/real/boards/1.jpg")
#: Past games listed in the game settings.
HISTORY_GAMES = 20
#: Tries of a change when other phones keep saving the same game in between.
SAVE_ATTEMPTS = 3
PHOTO_TYPES = ["jpg", "jpeg", "png", "heic", "heif", "webp"]
GRID_LABELS = {"auto": "Auto", 5: "5×5", 7: "7×7"}
EDITION_LABELS = {"second": "Second edition (ties share)", "nordic": "Nordic (crowns break ties)"}
STYLE = page.drawing.page_style()

st.set_page_config(page_title="Kingdomino scanner", page_icon=":crown:", layout="centered")


# The kingdom is tapped far more often than anything else. Its image is plain HTML, drawn in the same
# render as the score (a component's own content is drawn a step later); this element only reports taps.
kingdom_taps = st.components.v2.component(
    "kingdom_taps", js=(ROOT / "page/assets/kingdom_taps.js").read_text(encoding="utf-8")
)


# --- heavy objects, once per server process ----------------------------------------------------


@st.cache_resource(show_spinner="Loading the square classifier…")
def load_scanner() -> tuple[object | None, str]:
    """The scan pool once per server process: worker processes, each with the model, so scans use every
    core and this server's threads only wait; a one-line reason when it cannot start."""
    try:
        from scanner.workers import PoolSettings, ScanPool, limit_heap_growth

        limit_heap_growth()  # this server keeps results and photos: let freed ones go back to the system
        # the workers send back the page's small record, its images already encoded
        return ScanPool(PoolSettings(finish=page.accept.page_scan)), ""
    except Exception as error:  # noqa: BLE001 - the page must keep working as a manual scorer
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return None, f"the photo scanner could not start ({reason})"


def game_storage() -> page.StoreStorage:
    """Where games are kept between page loads: the game store at $KINGDOMINO_DB (an SQLite file by
    default, PostgreSQL to share games between several page servers)."""
    return _open_storage(os.environ.get(DB_ENV, ""))


@st.cache_resource(show_spinner=False)
def _open_storage(url: str) -> page.StoreStorage:
    """One game store per server process (and database URL)."""
    return page.StoreStorage(GameStore.open(url))


@st.cache_resource(max_entries=8, show_spinner=False)
def _scan_cached(key: tuple, _photo: bytes, _corners: Any) -> tuple[object | None, ScanError | None]:
    """Scan results by photo content, grid and frame, so reruns and the demo never scan twice. Results
    are the page's small records (page.accept.PageScan); a crashed or stopped worker is not cached."""
    from scanner.workers import WorkerCrashedError

    scanner, reason = load_scanner()
    if scanner is None:
        return None, ScanError(reason)
    try:
        return scanner.scan(_photo, grid=key[1], corners=_corners), None
    except WorkerCrashedError:
        raise
    except ScanError as error:
        return None, error


def scan(photo: bytes, grid: page.state.GridChoice = "auto", corners: Any = None) -> object:
    """Read a photo (in a frame placed by hand when ``corners`` are given); raises ScanError."""
    frame_key = None if corners is None else tuple(np.round(np.asarray(corners, float), 1).ravel())
    result, error = _scan_cached((hashlib.sha256(photo).hexdigest(), grid, frame_key), photo, corners)
    if error is not None:
        raise error
    return result


# --- the state, kept in the session and in the game store --------------------------------------


def fresh_state() -> page.PageState:
    fresh = page.PageState()
    sample = next((path for path in SAMPLE_PHOTOS if path.exists()), None)
    if sample is not None:
        try:
            photo = sample.read_bytes()
            page.accept_demo(fresh.player, scan(photo), photo, sample.name)
        except ScanError:
            pass
    return fresh


def state() -> page.PageState:
    """The game named by the URL's code: this session's copy, refreshed when another page saved it."""
    code, session = st.query_params.get("game"), st.session_state
    if "page" in session and session.get("code") == code:
        if stored_version(code) not in (None, session.get("version")):
            reload(code)
        return session.page
    loaded, message = page.open_game(game_storage(), code)
    if loaded is None:
        code = code if valid_code(code) and not message else page.new_code()
        loaded = fresh_state()
        st.query_params["game"] = code
    # A game not stored yet (version 0) is stored by its first change, so an untouched demo keeps no row.
    session.page, session.code, session.version = loaded, code, loaded.stored_version
    session.epoch = session.get("epoch", 0) + 1
    loaded.notice = message or loaded.notice
    return loaded


def stored_version(code: str) -> int | None:
    """The stored game's version (0: none yet), None when the store cannot say (the page carries on)."""
    try:
        return game_storage().version(code)
    except Exception:  # noqa: BLE001 - a store out of reach must not take the page down
        return None


def reload(code: str) -> bool:
    """Another page changed the game: take its state, keeping this page's own view of it (game, player,
    selected square, editor mode). False when it could not be loaded (this page's copy stays)."""
    loaded, _ = page.open_game(game_storage(), code)
    if loaded is None:
        return False
    page.state.carry_view(st.session_state.page, loaded)
    st.session_state.page, st.session_state.version = loaded, loaded.stored_version
    return True


def changes(action: Callable[..., object] | None = None, *, board: bool = False) -> Any:
    """A callback that changes the game: act, then save naming the version this page holds; when another
    phone saved in between, the save is refused, its game taken and the change made again on it (neither
    is lost). ``board``: a correction, which reruns the board fragment alone (unless a game was taken)."""

    def decorate(action: Callable[..., object]) -> Callable[..., None]:
        def callback(*args: Any) -> None:
            session, took_newer = st.session_state, False
            for _ in range(SAVE_ATTEMPTS):
                session.edit_note = ""
                action(*args)
                if save():
                    break
                took_newer = True
                if not reload(session.code):
                    session.page.notice = "the game could not be loaded again; your last change is kept here"
                    break
            else:
                session.page.notice = (
                    "another phone changed the game at the same moment: check your last change"
                )
            if session.pop("whole_page", False) or took_newer or not board:
                st.rerun()  # the whole page, not only the fragment the widget lives in

        return callback

    return decorate if action is None else decorate(action)


def save() -> bool:
    """Keep the game (one call on every change): False when another phone changed it first (nothing
    saved). A store that fails says so and the page carries on with its own copy."""
    session = st.session_state
    try:
        session.version = game_storage().save(session.code, session.page, session.get("version", 0))
        session.saved = True  # this page holds the stored game: the board fragment need not check
    except page.VersionConflict:
        return False
    except Exception as error:  # noqa: BLE001 - the game stays in this page; only keeping it failed
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        session.page.notice = f"the game could not be saved ({reason}); it is kept in this page only"
    return True


def key(name: str) -> str:
    """Widget keys carry the current game, player and an epoch, so switching never shows stale values."""
    s = st.session_state.page
    return f"{name}_{st.session_state.epoch}_{s.current_game}_{s.game.current_player}"


def new_epoch() -> None:
    st.session_state.epoch += 1


# --- callbacks --------------------------------------------------------------------------------


@changes
def on_pick_player() -> None:
    choice = st.session_state.get(key("players"))
    if choice is not None:
        page.select_player(st.session_state.page, choice)
        new_epoch()


@changes
def on_add_player() -> None:
    page.add_player(st.session_state.page)
    new_epoch()
    st.session_state[key("photo_box")] = True


@changes
def on_photo(widget: str) -> None:
    s, upload = st.session_state.page, st.session_state.get(widget)
    if upload is None or upload.file_id == s.player.photo_id:
        return
    grid = st.session_state.get(key("grid"), "auto")
    read_photo(s, upload.getvalue(), upload.name, grid, upload.file_id)


def read_photo(s: page.PageState, photo: bytes, name: str, grid: Any, photo_id: str | None) -> None:
    """Scan a photo into the current player's kingdom and close the photo box when a kingdom was read."""
    watch = accept.Stopwatch()
    try:
        result = scan(photo, grid)
    except ScanError as error:
        if page.accept_failure(s, error, photo, name, grid, photo_id, watch.seconds):
            st.session_state[key("frame_box")] = True
        return
    page.accept_scan(s.player, result, photo, name, grid, photo_id, watch.seconds)
    s.notice = ""
    st.session_state[key("photo_box")] = False
    st.session_state.pop(key("draft"), None)


@changes
def on_grid() -> None:
    s = st.session_state.page
    grid, player = st.session_state[key("grid")], s.player
    if player.photo is not None and not player.demo:
        read_photo(s, player.photo, player.source, grid, player.photo_id)
    elif grid in GRID_SIZES and not player.demo:
        page.resize_hand_entry(s, grid)
    player.grid_choice = grid


@changes(board=True)
def on_click_kingdom() -> None:
    s, click = st.session_state.page, (st.session_state.get(key("click")) or {}).get("tap")
    kingdom = s.player.kingdom
    if not click or kingdom is None:
        return
    cell = page.cell_at(click["x"], click["y"], click["width"], click["height"], kingdom.grid_size)
    if cell is None:
        return
    if s.paint:
        page.paint(s, cell)
    else:
        s.selected = cell


@changes(board=True)
def on_terrain(terrain: Terrain) -> None:
    s = st.session_state.page
    note = page.set_brush(s, terrain) if s.paint else page.set_terrain(s, terrain)
    st.session_state.edit_note = note


@changes(board=True)
def on_crowns(crowns: int) -> None:
    s = st.session_state.page
    if s.paint:
        page.set_brush(s, crowns=crowns)
    else:
        page.set_crowns(s, crowns)


@changes(board=True)
def on_mode() -> None:
    st.session_state.page.paint = st.session_state.get(key("mode")) == "Paint"


@changes(board=True)
def on_edit(action: Callable[[page.PageState], object]) -> None:
    before = st.session_state.page.player.preview_jpeg, st.session_state.page.player.base
    action(st.session_state.page)
    player = st.session_state.page.player
    if before[0] is not player.preview_jpeg or before[1] is not player.base:
        st.session_state.whole_page = True  # Undo brought back another reading: its photo and frame too
    if player.kingdom is not None:  # Undo may bring back an earlier reading made with another grid choice
        rereadable = player.from_scan and player.photo is not None
        st.session_state[key("grid")] = player.grid_choice if rereadable else player.kingdom.grid_size


@changes
def on_hand_entry() -> None:
    page.enter_by_hand(st.session_state.page, 7 if st.session_state.get(key("grid")) == 7 else 5)
    st.session_state[key("photo_box")] = False


@changes
def on_rename() -> None:
    st.session_state.rename_error = page.rename_player(st.session_state.page, st.session_state[key("name")])


@changes
def on_remove_player() -> None:
    page.remove_player(st.session_state.page)
    new_epoch()


@changes
def on_settings() -> None:
    s = st.session_state.page
    s.edition = st.session_state.edition_choice
    for game in s.games:  # game-wide, as the store keeps them
        game.harmony = st.session_state[key("harmony")]
        game.middle_kingdom = st.session_state[key("middle")]


@changes
def on_switch_game(action: Callable[..., object], *widget_keys: str) -> None:
    action(st.session_state.page, *(st.session_state[k] for k in widget_keys))
    new_epoch()


@changes
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


def draft_for(player: page.PlayerKingdom, preview: np.ndarray) -> page.FrameDraft:
    """The frame being placed on the current player's photo (the scanner's, or a default one)."""
    if key("draft") not in st.session_state:
        (height, width), scale, kingdom = preview.shape[:2], player.preview_scale, player.kingdom
        grid = kingdom.grid_size if kingdom is not None else accept.scan_hand_grid(player.grid_choice)
        st.session_state[key("draft")] = page.start_draft(player.corners, grid, width / scale, height / scale)
    return st.session_state[key("draft")]


def on_frame_pointer() -> None:
    """A press and release on the photo: move or select a corner (the frame is read on request)."""
    s, event = st.session_state.page, st.session_state.get(key("frame_click"))
    draft = st.session_state.get(key("draft"))
    if not event or draft is None or s.player.preview_jpeg is None:
        return
    preview = page.decode_jpeg(s.player.preview_jpeg)
    st.session_state[key("draft")] = frame.on_event(draft, event, preview.shape[:2], s.player.preview_scale)


def on_pick_corner() -> None:
    draft = st.session_state.get(key("draft"))
    if draft is not None:
        draft.selected = st.session_state.get(key("corner"))


def on_frame_grid() -> None:
    draft = st.session_state.get(key("draft"))
    if draft is not None:
        draft.grid_size = st.session_state[key("frame_grid")]


@changes
def on_read_frame() -> None:
    s, draft = st.session_state.page, st.session_state.get(key("draft"))
    player = s.player
    if draft is None or player.photo is None:
        return
    if not frame.is_convex(draft.corners):
        s.notice = "the corners cross: put TL, TR, BR and BL round the kingdom in that order"
        return
    watch = accept.Stopwatch()
    try:
        result = scan(player.photo, draft.grid_size, np.asarray(draft.corners, float))
    except ScanError as error:
        s.notice = f"{player.source}: {error}; your board is unchanged"
        return
    page.accept_scan(
        player, result, player.photo, player.source, draft.grid_size, player.photo_id, watch.seconds
    )
    s.notice = ""
    st.session_state[key("grid")] = draft.grid_size
    st.session_state[key("frame_box")] = False
    st.session_state.pop(key("draft"), None)


def on_frame_reset() -> None:
    st.session_state.pop(key("draft"), None)


# --- layout -----------------------------------------------------------------------------------


def show_scoreboard(s: page.PageState) -> None:
    """Every player with score and place (tap one to show their kingdom), a new player, the ranking and
    the game settings one tap away, in one wrapping row."""
    lines = views.scoreboard(s)
    st.session_state[key("players")] = s.game.current_player
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.pills(
            "Players",
            range(len(lines)),
            format_func=lambda i: lines[i].label,
            key=key("players"),
            on_change=on_pick_player,
            label_visibility="collapsed",
        )
        st.button("Player", icon=":material/person_add:", on_click=on_add_player)
        # Drawn only while open: a tap elsewhere neither computes nor sends them (nor reads the history).
        ranking = st.popover("Ranking", icon=":material/trophy:", key="ranking_menu", on_change="rerun")
        with ranking:
            if ranking.open:
                show_ranking(s)
        settings = st.popover("Game", icon=":material/settings:", key="game_menu", on_change="rerun")
        with settings:
            if settings.open:
                show_settings(s)
    winner = views.winner_line(s)
    if winner:
        st.markdown(f":material/trophy: **{winner}**")


def show_ranking(s: page.PageState) -> None:
    ranking = views.rank_current_game(s)
    if ranking is None:
        st.caption("The ranking appears once two players have a kingdom.")
    else:
        st.table(views.ranking_rows(ranking))
    waiting = views.waiting_players(s)
    if waiting:
        st.caption("No kingdom yet: " + ", ".join(waiting))
    if len(s.games) > 1:
        dynasty, reason = views.dynasty_ranking(s)
        st.markdown("**Dynasty totals**")
        if dynasty is not None:
            st.table(views.ranking_rows(dynasty))
        else:
            st.caption(reason[:1].upper() + reason[1:] + ".")


def show_settings(s: page.PageState) -> None:
    """Game-wide options in one place: rules, bonuses, the Dynasty's games, files, the game's code."""
    st.session_state.edition_choice = s.edition
    st.radio("Rules", EDITIONS, format_func=EDITION_LABELS.get, key="edition_choice", on_change=on_settings)
    st.session_state[key("harmony")] = s.game.harmony
    st.session_state[key("middle")] = s.game.middle_kingdom
    st.toggle("Harmony (+5 for a full kingdom)", key=key("harmony"), on_change=on_settings)
    st.toggle("Middle Kingdom (+10 for a central castle)", key=key("middle"), on_change=on_settings)
    if len(s.games) > 1:
        st.session_state.game_choice = s.current_game
        st.radio(
            "Game of the Dynasty",
            range(len(s.games)),
            format_func=lambda i: f"Game {i + 1}",
            key="game_choice",
            horizontal=True,
            on_change=on_switch_game,
            args=(page.select_game, "game_choice"),
        )
    if len(s.games) < page.MAX_GAMES:
        st.button(
            f"Start game {len(s.games) + 1} of a Dynasty", on_click=on_switch_game, args=(page.new_game,)
        )
    st.caption(
        f"Game code **{st.session_state.code}**: open this page's address on another phone to share it. "
        f"Games are kept in {where_games_are_kept()}."
    )
    show_files(s)
    show_history()


def where_games_are_kept() -> str:
    store = game_storage().store
    # A file this server had to make: a first start, or a database that went missing.
    return store.where + (
        " (new: there was no game database when this server started)" if store.created else ""
    )


def show_history() -> None:
    """Past games of this server, the most recent first, with their winners; a link opens one."""
    st.markdown("**Past games**")
    try:
        played = [g for g in game_storage().store.history(limit=HISTORY_GAMES) if g.kingdoms]
    except Exception as error:  # noqa: BLE001 - the history is a convenience: the page carries on
        st.caption(f"The game history is out of reach ({views.first_line(error)}).")
        return
    if not played:
        st.caption("No game with a kingdom yet.")
    for game in played:
        st.markdown(views.history_line(game))


def show_files(s: page.PageState) -> None:
    st.download_button(
        "Download the game (JSON)",
        lambda: page.export_game(s),  # made only when downloaded
        file_name="kingdomino-game.json",
        mime="application/json",
    )
    st.file_uploader("Load a saved game", type=["json"], key="import_file", on_change=on_import)
    if st.session_state.get("import_message"):
        st.error(st.session_state.import_message)
    if s.player.kingdom is not None and not s.player.demo:
        st.download_button(
            f"Export {s.player.name}'s corrected kingdom (training data zip)",
            lambda player=s.player: page.export_training_zip(player),
            file_name=f"{page.training.slug(s.player.name)}-kingdom.zip",
            mime="application/zip",
        )


def show_score(player: page.PlayerKingdom, report: ScoreReport | None) -> None:
    if report is None:
        st.markdown(f"**{player.name}**: no kingdom yet, so no score.")
        return
    label = f"{player.name}'s score" + (" (demo)" if player.demo else "")
    with st.container(horizontal=True, gap="medium", vertical_alignment="bottom"):
        st.metric(
            label, report.total, help="Territories: squares × crowns, added up; plus bonuses", width="content"
        )
        st.caption(views.score_details(report))


def show_photo_box(s: page.PageState) -> None:
    """Upload, camera, grid choice and hand entry; open until the player's kingdom is read."""
    player = s.player
    box = key("photo_box")
    if box not in st.session_state:
        st.session_state[box] = player.kingdom is None or player.demo
    title = f"Photo of {player.name}'s kingdom" + (
        f": {player.source}" if player.source and not player.demo else ""
    )
    with st.expander(title, key=box, on_change="rerun", icon=":material/photo_camera:"):
        upload = key("upload")
        st.file_uploader("Upload a photo", type=PHOTO_TYPES, key=upload, on_change=on_photo, args=(upload,))
        if st.toggle("Use the camera", key=key("camera_on")):
            st.camera_input("Take a photo", key=key("camera"), on_change=on_photo, args=(key("camera"),))
        if key("grid") not in st.session_state:
            st.session_state[key("grid")] = player.grid_choice
        st.radio(
            "Grid",
            page.GRID_CHOICES,
            format_func=GRID_LABELS.get,
            horizontal=True,
            key=key("grid"),
            on_change=on_grid,
        )
        st.text_input("Player name", value=player.name, key=key("name"), on_change=on_rename)
        if st.session_state.get("rename_error"):
            st.error(st.session_state.rename_error)
        with st.container(horizontal=True, gap="small"):
            st.button("Enter by hand", on_click=on_hand_entry)
            if len(s.game.players) > 1:
                st.button("Remove player", on_click=on_remove_player)


def show_messages(s: page.PageState) -> None:
    player = s.player
    store_warning = game_storage().store.warning
    if store_warning:
        st.warning(f"Game database: {store_warning}.", icon=":material/database:")
    if s.notice:
        st.warning(s.notice)
    if player.demo:
        st.info("**Demo**: a sample kingdom, to show how the page works. Add your photo to start.")
    if player.message:
        st.warning(
            f"**No kingdom read in {player.source}:** {player.message}. "
            "Place the frame on the photo below, or enter the board by hand."
        )


def show_kingdom(s: page.PageState, report: ScoreReport) -> None:
    """The drawn kingdom (tap a square) with the square editor beside it; stacked on a phone."""
    player, kingdom = s.player, s.player.kingdom
    assert kingdom is not None
    choice = st.session_state.get(key("highlight"))
    highlight = (
        report.territories[choice] if choice is not None and choice < len(report.territories) else None
    )
    drawing, editor = st.columns([3, 2])
    with drawing:
        image = page.drawing.kingdom_jpeg(
            kingdom,
            player.rectified_jpeg,
            frozenset(player.review_cells()),
            frozenset(player.corrected_cells),
            highlight,
            None if s.paint else s.selected,
        )
        with st.container(key="kingdom_view"):
            side = kingdom.grid_size * page.drawing.CELL_PX  # room kept while a new image decodes
            st.html(
                f'<img id="image" alt="the kingdom: tap a square" draggable="false" width="{side}" '
                f'height="{side}" src="data:image/jpeg;base64,{base64.b64encode(image).decode()}">'
            )
            kingdom_taps(key=key("click"), on_tap_change=on_click_kingdom)
    with editor:
        show_editor(s)
    warning = views.review_warning(player)
    if warning:
        st.warning(warning)
    for message in report.warnings:
        st.warning(message)
    caption = views.photo_caption(player) if not player.demo else ""
    if caption:
        st.caption(caption)


def show_editor(s: page.PageState) -> None:
    """Select mode: tap a square, then its terrain and crowns. Paint mode: pick a brush, tap squares."""
    player, kingdom = s.player, s.player.kingdom
    assert kingdom is not None
    current = s.brush if s.paint else kingdom[s.selected]
    what = f"**{current.terrain.value}, {views.plural(current.crowns, 'crown')}**"
    if s.paint:
        st.caption(f"Paint: tap squares to make them {what}")
    else:
        st.caption(f"{views.cell_name(s.selected).capitalize()}: {what}. Tap a square to pick another.")
    with st.container(horizontal=True, gap="small", key="palette"):
        for terrain, label in views.TERRAIN_BUTTONS.items():
            chosen = terrain is current.terrain
            st.button(
                label,
                key=key(f"t_{terrain.value}"),
                on_click=on_terrain,
                args=(terrain,),
                type="primary" if chosen else "secondary",
            )
    with st.container(horizontal=True, gap="small", key="crowns", vertical_alignment="center"):
        st.markdown("Crowns")
        for crowns in range(4):
            st.button(
                str(crowns),
                key=key(f"c_{crowns}"),
                on_click=on_crowns,
                args=(crowns,),
                disabled=crowns > MAX_CROWNS[current.terrain],
                type="primary" if crowns == current.crowns else "secondary",
            )
        st.button(
            "Undo",
            icon=":material/undo:",
            on_click=on_edit,
            args=(page.undo,),
            disabled=not page.can_undo(player),
        )
    if st.session_state.get("edit_note"):
        st.warning(st.session_state.edit_note[:1].upper() + st.session_state.edit_note[1:] + ".")
    with st.container(horizontal=True, gap="small", key="edit_actions"):
        st.session_state[key("mode")] = "Paint" if s.paint else "Select"
        st.segmented_control(
            "Mode", ["Select", "Paint"], key=key("mode"), on_change=on_mode, label_visibility="collapsed"
        )
        st.button(
            "Reset to scan" if player.from_scan else "Clear board",
            on_click=on_edit,
            args=(page.reset_to_scan,),
            disabled=kingdom == player.base,
        )


def show_territories(report: ScoreReport) -> None:
    count = len(report.territories)
    box = key("territories_box")
    title = f"Territories: {count} (tap to see each one)" if count != 1 else "Territories: 1"
    with st.expander(title, key=box, on_change="rerun"):
        if not st.session_state.get(box):  # drawn only when open: a correction need not send the table
            return
        territories = report.territories
        st.selectbox(
            "Highlight a territory on the kingdom",
            [None, *range(len(territories))],
            key=key("highlight"),
            format_func=lambda i: "none" if i is None else views.territory_label(territories[i]),
        )
        rows = views.territory_rows(report)
        st.table(rows or [{"terrain": "none yet", "squares": 0, "crowns": 0, "points": 0}])


def show_frame_editor(s: page.PageState) -> None:
    """The photo with the frame the squares are read in; drag or tap its corners, then read it again."""
    player = s.player
    if player.preview_jpeg is None or player.demo:
        return
    box = key("frame_box")
    if box not in st.session_state:
        st.session_state[box] = player.kingdom is None
    with st.expander(
        "Photo and frame: fix the grid by hand", key=box, on_change="rerun", icon=":material/crop_free:"
    ):
        if not st.session_state.get(box):  # drawn only when open: it is the heaviest image of the page
            return
        preview = page.drawing.readable_jpeg(player.preview_jpeg)  # None: a damaged record, the board stays
        if preview is None:
            st.caption("This photo's stored copy is damaged and cannot be shown: take or upload it again.")
            return
        draft = draft_for(player, preview)
        on_preview = np.asarray(draft.corners, float) * player.preview_scale
        image = page.draw_frame(preview, on_preview, draft.grid_size, draft.selected)
        st.caption(
            "Drag a corner to where the kingdom's corner is, or pick a corner and tap its place. "
            "TL, TR, BR, BL go round the kingdom, TL at the top left of the kingdom as you read it."
        )
        st.session_state[key("corner")] = draft.selected
        st.segmented_control(
            "Corner to move",
            range(4),
            format_func=lambda i: page.drawing.CORNER_NAMES[i],
            key=key("corner"),
            on_change=on_pick_corner,
        )
        with st.container(key="frame_view"):
            streamlit_image_coordinates(
                image,
                key=key("frame_click"),
                width="stretch",
                image_format="JPEG",
                jpeg_quality=80,
                click_and_drag=True,
                on_click=on_frame_pointer,
                cursor="crosshair",
            )
        placed = " · ".join(
            f"{n} {x:.0f},{y:.0f}" for n, (x, y) in zip(page.drawing.CORNER_NAMES, draft.corners, strict=True)
        )
        st.caption(f"Frame corners (photo pixels): {placed}")
        st.session_state[key("frame_grid")] = draft.grid_size
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            st.segmented_control(
                "Grid",
                [5, 7],
                format_func=GRID_LABELS.get,
                key=key("frame_grid"),
                on_change=on_frame_grid,
                label_visibility="collapsed",
            )
            st.button("Read the squares in this frame", type="primary", on_click=on_read_frame)
            st.button("Start again", on_click=on_frame_reset)


@st.fragment(key="board")
def show_board(top: Any) -> None:
    """Everything a correction changes: the scoreboard, the score and messages (in ``top``, above the
    photo box), the kingdom with its editor and the territories. A tap on the palette or the kingdom
    reruns this alone; callbacks that change more ask for the whole page."""
    session = st.session_state
    whole_run, saved = session.pop("whole_run", False), session.pop("saved", False)
    if not (whole_run or saved):
        # A rerun of this fragment alone that saved nothing: take another phone's change, if any.
        if stored_version(session.code) not in (None, session.get("version")) and reload(session.code):
            st.rerun()
    s = session.page
    with top:
        show_scoreboard(s)
        report = page.score_player(s.player, s.game)
        show_score(s.player, report)
        show_messages(s)
    if report is not None:
        show_kingdom(s, report)
        show_territories(report)


s = state()
st.html(STYLE)
top = st.container()
show_photo_box(s)
st.session_state.whole_run = True
show_board(top)
show_frame_editor(s)
