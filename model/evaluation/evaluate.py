"""Grouped cross-validation of the square classifier; writes model/MODEL.md and out/oof_board_probs.npz.

Usage: python -m model.evaluation.evaluate [--folds 5] [--estimator NAME] [--data DIR]

Boards are grouped by kingdom and tiles by source photo (see crossval.py), so every figure is for
kingdoms and photos the model never saw. The out-of-fold board probabilities are saved for the joint
decoder, and the softmax temperature that calibrates them is stored in model/training/calibration.json. Each
photo set is also read by a model fitted without it (another camera and light than any it learnt from).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import platform
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import sklearn
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from kingdomino.labels import LABELS
from model.classifier import (
    DEFAULT_MODEL_PATH,
    MATCH_BELOW,
    MATCH_WEIGHT,
    RECHECK_BELOW,
    RECHECK_DEGREES,
    SquareClassifier,
)
from model.crowns import N_FEATURES as CROWN_DETECTOR_FEATURES
from model.evaluation.decoding import compare_raw_decoded
from model.evaluation.metrics import (
    LABEL_CROWNS,
    LABEL_TERRAIN,
    TERRAINS,
    BoardFigures,
    SquareFigures,
    base_score,
    board_figures,
    confusion,
    kingdom_of,
    label_name,
)
from model.features import FeatureConfig, feature_size, normalise_crops
from model.training.calibration import (
    apply_temperature,
    cached_out_of_fold,
    cv_key,
    expected_calibration_error,
    fit_temperature,
)
from model.training.crossval import CODEBOOK_WORDS, held_out_source
from model.training.dataset import (
    BOARD_SOURCE,
    DEFAULT_DATA_DIR,
    PHOTO_GROUP,
    SCENE_SOURCE,
    TILE_SOURCE,
    board_squares,
    data_problem,
    load_boards,
    tile_label_corrections,
)
from model.training.estimators import DEFAULT_ESTIMATOR, ESTIMATOR_NAMES, make_estimator
from model.training.feature_table import CACHE_DIR, AugmentPlan, FeatureTable, build_table, original_crops
from scanner.reading import UNFAMILIAR_SHARE, UNSURE_BELOW, looks_unfamiliar

REPO = Path(__file__).resolve().parents[2]
MODEL_CARD = Path(__file__).resolve().parents[1] / "MODEL.md"
OOF_PATH = REPO / "out" / "oof_board_probs.npz"


#: The two real photo sets; each is also read by a model fitted without it (``held_out_section``).
SOURCES = (BOARD_SOURCE, TILE_SOURCE)
SOURCE_NAMES = {BOARD_SOURCE: "boards", TILE_SOURCE: "tiles"}


def scene_lines(table) -> list[str]:
    """The card's line on the squares cut from whole-table scenes, if the table has any."""
    scene = table.sources == SCENE_SOURCE
    if not scene.any():
        return []
    groups = table.groups[scene]
    tiled = np.char.startswith(groups.astype(str), PHOTO_GROUP)
    kingdoms = len(set(groups[~tiled]))
    of_tiles = (
        f" and of kingdoms tiled from the single tiles of {len(set(groups[tiled]))} source photos "
        f"({int(tiled.sum())} squares)"
        if tiled.any()
        else ""
    )
    return [
        f"- Whole-table scenes: {int(scene.sum())} squares cut by the scanner's own cut "
        "(`recognizer.kingdom_cut`: frame, rectify, a smear undone, a small kingdom from the photo in full) "
        f"from generated table photos of {kingdoms} of the board kingdoms{of_tiles} "
        "(`data/real/scene_squares`, `python -m benchmarks.scene_squares`): the cardboard castle in the "
        "four player colours, king meeples, mats and strong cloths through empty squares, warm/cold/dim "
        "light, blur, 40–400 px per square. Grouped with their kingdom (a tiled square with its tile's "
        "photo), so a fold never trains on scenes of the kingdoms or photos it reads; training rows only, "
        "never scored."
    ]


def shipped_labels(table: FeatureTable, corrections: dict[str, tuple[int, int]]) -> np.ndarray:
    """The label of every table row as labels.json ships it, before the tile label ``corrections``."""
    labels = table.labels.copy()
    for name, (shipped, _) in corrections.items():
        labels[table.names == name] = shipped
    return labels


def _markdown_matrix(matrix: np.ndarray, names: list[str]) -> str:
    lines = ["| truth \\ read | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for name, row in zip(names, matrix, strict=True):
        lines.append(f"| **{name}** | " + " | ".join(str(v) if v else "·" for v in row) + " |")
    return "\n".join(lines)


def cpu_name() -> str:
    """The processor's model name (timings depend on it far more than on the code between sessions)."""
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.is_file() else []
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    return names[0] if names else platform.processor() or platform.machine()


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """OpenCV and the BLAS on one thread, OpenCV's pool given back afterwards.

    CPU time is the honest single-core figure on a machine shared with other jobs; OpenCV's own pool would
    otherwise spread small calls over the cores and add their hand-over to the CPU time.
    """
    opencv_threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        cv2.setNumThreads(opencv_threads)


def board_timing(
    classifier: SquareClassifier, squares: list[np.ndarray], repeats: int = 15
) -> tuple[float, float]:
    """(median CPU ms, fastest wall-clock ms) to classify one board's squares on one thread (the fastest
    wall time is what an idle core gives)."""
    with one_thread():
        classifier.predict_proba(squares, photo=True)
        cpu, wall = [], []
        for _ in range(repeats):
            started, started_cpu = time.perf_counter(), time.process_time()
            classifier.predict_proba(squares, photo=True)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
    return 1000 * float(np.median(cpu)), 1000 * float(np.min(wall))


def unsure_square_timing(classifier: SquareClassifier, squares: list[np.ndarray], repeats: int = 5) -> float:
    """Median CPU ms that one square read unsure adds on one thread: read again turned both ways, then
    compared with the training squares (each of ``squares`` is taken as read unsure)."""
    crops = normalise_crops(squares)
    classes = len(classifier.estimator.classes_)
    unsure = np.full((len(crops), classes), -np.log(classes))
    with one_thread():
        classifier.matched(crops, classifier.recheck(crops, unsure))
        cpu = []
        for _ in range(repeats):
            started = time.process_time()
            classifier.matched(crops, classifier.recheck(crops, unsure))
            cpu.append(time.process_time() - started)
    return 1000 * float(np.median(cpu)) / len(crops)


def per_board(
    table: FeatureTable, rows: np.ndarray, probabilities: np.ndarray
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Truth (25,), argmax (25,) and probabilities (5, 5, 18) of every board, by board name."""
    board_truth: dict[str, np.ndarray] = {}
    board_pred: dict[str, np.ndarray] = {}
    board_probs: dict[str, np.ndarray] = {}
    for index in np.flatnonzero(table.sources[rows] == BOARD_SOURCE):
        board, cell = table.names[rows[index]].split("#")
        row, col = (int(part) for part in cell.split(","))
        board_truth.setdefault(board, np.zeros(25, np.int64))[row * 5 + col] = table.labels[rows[index]]
        board_pred.setdefault(board, np.zeros(25, np.int64))[row * 5 + col] = probabilities[index].argmax()
        board_probs.setdefault(board, np.zeros((5, 5, len(LABELS))))[row, col] = probabilities[index]
    return board_truth, board_pred, board_probs


def headline_figures(
    table: FeatureTable, rows: np.ndarray, predicted: np.ndarray, labels: np.ndarray | None = None
) -> tuple[dict[str, SquareFigures], BoardFigures]:
    """Per-set square figures and board figures, against ``labels`` (default: the table's)."""
    truth, sources = (table.labels if labels is None else labels)[rows], table.sources[rows]
    figures = {
        source: SquareFigures.of(truth[sources == source], predicted[sources == source])
        for source in (BOARD_SOURCE, TILE_SOURCE)
    }
    one_hot = np.eye(len(LABELS))[predicted]
    board_truth, board_pred, _ = per_board(table, rows, one_hot)
    return figures, board_figures(board_truth, board_pred)


def most_frequent_errors(truth: np.ndarray, predicted: np.ndarray, top: int = 12) -> str:
    """'truth → read ×count' of the most frequent misreadings, most frequent first."""
    pairs: dict[str, int] = {}
    for t, p in zip(truth[truth != predicted], predicted[truth != predicted], strict=True):
        key = f"{label_name(t)} → {label_name(p)}"
        pairs[key] = pairs.get(key, 0) + 1
    return ", ".join(f"{k} ×{v}" for k, v in sorted(pairs.items(), key=lambda kv: -kv[1])[:top]) or "none"


def unsure_photos(table: FeatureTable, rows: np.ndarray, probabilities: np.ndarray) -> str:
    """How many photos (of those with at least 5 squares here) the scanner would note as unfamiliar,
    and the share of their squares read wrong against that of the other photos."""
    photos = np.array([name.split("#")[0] for name in table.names[rows]])
    photos = np.where(table.sources[rows] == TILE_SOURCE, table.groups[rows], photos)
    wrong = probabilities.argmax(axis=1) != table.labels[rows]
    noted, counted = np.zeros(len(rows), bool), 0
    for photo in np.unique(photos):
        here = photos == photo
        if here.sum() >= 5:
            counted += 1
            noted |= here & looks_unfamiliar(probabilities[here])
    named = len(np.unique(photos[noted]))
    rates = [f"{wrong[part].mean():.1%}" if part.any() else "–" for part in (noted, ~noted)]
    return f"{named}/{counted} ({rates[0]} wrong on them, {rates[1]} on the rest)"


def held_out_section(
    table: FeatureTable,
    held_out: dict[str, tuple[np.ndarray, ...]],
    temperature: float,
    cv_unsure: dict[str, str],
) -> list[str]:
    """The card's figures for each photo set read by a model that never saw any of its photos.

    ``held_out`` maps each set to (rows, probabilities[, the same without the artwork matcher]).
    """
    tile_photos = len(np.unique(table.groups[table.original & (table.sources == TILE_SOURCE)]))
    lines = [
        "### Another camera: each photo set read by a model fitted without it",
        "The folds above put both photo sets on both sides of every split, so every camera and light is "
        "known at test time. Here the model is fitted on one set (and the synthetic tables) and reads the "
        f"other: the boards' single photo session against the tiles' {tile_photos} phone photos (other "
        "tables, light and cameras; no empty squares among the tiles, and castles of other colours on the "
        "boards).",
        "",
        "| read | fitted on | squares | terrain | crowns | both | read at ≥ 0.99 confidence (right) | "
        "photos noted unfamiliar | most frequent errors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for source, (rows, *readings) in held_out.items():
        truth = table.labels[rows]
        other = next(name for key, name in SOURCE_NAMES.items() if key != source)
        for raw, how in zip(readings, ("", ", without artwork matching"), strict=False):
            probabilities = apply_temperature(raw, temperature)
            predicted = probabilities.argmax(axis=1)
            figures = SquareFigures.of(truth, predicted)
            sure = probabilities.max(axis=1) >= 0.99
            sure_right = f"{np.mean(truth[sure] == predicted[sure]):.1%}" if sure.any() else "–"
            lines.append(
                f"| {SOURCE_NAMES[source]} | {other}{how} | {figures.squares} | {figures.terrain:.2%} | "
                f"{figures.crowns:.2%} | {figures.both:.2%} | {sure.mean():.0%} ({sure_right}) | "
                f"{unsure_photos(table, rows, probabilities)} | "
                f"{most_frequent_errors(truth, predicted, top=5)} |"
            )
    return lines + [
        "",
        f"*Photos noted unfamiliar*: the scan says a photo's light or camera may be unfamiliar when at least "
        f"{UNFAMILIAR_SHARE:.0%} of its squares read under {UNSURE_BELOW} confidence (photos with at least "
        "5 squares counted; their squares are flagged by the decoder's margin like any other photo's). "
        "In the cross-validation above: "
        + "; ".join(f"{name} {cv_unsure[source]}" for source, name in SOURCE_NAMES.items())
        + ".",
        "",
    ]


def compared_estimators(
    table: FeatureTable, runs: list[tuple[str, str]], shipped: np.ndarray, n_folds: int
) -> list[str]:
    """A table of every estimator whose cross-validation on these same features is cached.

    ``runs`` are (cache key, name of the labels fitted on): the fits on the corrected labels and the
    older ones on the labels as shipped. All are scored against the corrected labels, the tiles also
    against the shipped ones.
    """
    lines = [
        "| estimator | fitted on | boards: terrain | crowns | exact score | tiles: terrain | crowns "
        "| tiles against the shipped labels: terrain | crowns |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, fitted_on in runs:
        prefix = f"oof-{key}-"
        for path in sorted(CACHE_DIR.glob(f"{prefix}*-{n_folds}.npz")) + sorted(
            CACHE_DIR.glob(f"{prefix}*-{n_folds}-recheck*.npz")
        ):
            with np.load(path) as stored:
                rows = stored["rows"]
                readings = [(stored["raw"], ", matched" if "unmatched" in stored.files else "")]
                if "unmatched" in stored.files:
                    readings.append((stored["unmatched"], ""))
            name, _, recheck = path.stem[len(prefix) :].partition(f"-{n_folds}")
            for raw, matched in readings:
                figures, boards = headline_figures(table, rows, raw.argmax(axis=1))
                as_shipped = headline_figures(table, rows, raw.argmax(axis=1), shipped)[0][TILE_SOURCE]
                board, tile = figures[BOARD_SOURCE], figures[TILE_SOURCE]
                lines.append(
                    f"| `{name}`{', re-read' if recheck else ''}{matched} | {fitted_on} | "
                    f"{board.terrain:.2%} | {board.crowns:.2%} | {boards.exact_score}/{boards.boards} | "
                    f"{tile.terrain:.2%} | {tile.crowns:.2%} | {as_shipped.terrain:.2%} | "
                    f"{as_shipped.crowns:.2%} |"
                )
    return lines + [
        "",
        "*re-read*: squares under the re-reading threshold read again turned (as in the scanner). "
        "*matched*: the squares still unsure then compared with the training squares (the artwork "
        "matcher; the row below it is the same fold models without it). Runs that differ only in a few "
        "training labels differ by several wrong tiles, so read small gaps between rows as noise.",
    ]


def evaluate(
    data_dir: Path,
    estimator_name: str,
    n_folds: int,
    reuse: bool = False,
    n_jobs: int = 1,
    verbose: bool = True,
) -> str:
    """Run (or, with ``reuse``, reload) the grouped CV, then write the model card and the OOF file."""
    config, plan = FeatureConfig(), AugmentPlan()
    table = build_table(config, plan, data_dir, verbose=verbose)
    board_photos = load_boards(data_dir)
    key, shipped_key = cv_key(data_dir), cv_key(data_dir, corrected=False)
    corrections = tile_label_corrections(data_dir)
    shipped = shipped_labels(table, corrections)
    recheck = f"recheck{RECHECK_BELOW}-{RECHECK_DEGREES}"

    @functools.cache
    def real_crops() -> np.ndarray:  # loaded once, and only if a fit needs them
        return original_crops(table, board_photos, data_dir)

    rows, raw, unmatched, cv_seconds = cached_out_of_fold(
        table,
        config,
        estimator_name,
        n_folds,
        real_crops,
        data_dir,
        reuse=reuse,
        n_jobs=n_jobs,
        verbose=verbose,
    )
    held_cache = CACHE_DIR / f"held-out-{key}-{estimator_name}-{recheck}.npz"
    if reuse and held_cache.is_file():
        with np.load(held_cache) as stored:
            held_out = {
                source: (stored[f"{source}_rows"], stored[f"{source}_raw"], stored[f"{source}_unmatched"])
                for source in SOURCES
            }
            held_seconds = float(stored["seconds"])
    else:
        held_started = time.perf_counter()
        results = Parallel(n_jobs=min(n_jobs, len(SOURCES)))(
            delayed(held_out_source)(
                table, source, config, partial(make_estimator, estimator_name), real_crops()
            )
            for source in SOURCES
        )
        held_out = {source: (read, *both) for source, (read, both) in zip(SOURCES, results, strict=True)}
        held_seconds = time.perf_counter() - held_started
        np.savez(
            held_cache,
            seconds=held_seconds,
            **{f"{source}_rows": held_out[source][0] for source in SOURCES},
            **{f"{source}_raw": held_out[source][1] for source in SOURCES},
            **{f"{source}_unmatched": held_out[source][2] for source in SOURCES},
        )
    truth = table.labels[rows]
    sources = table.sources[rows]

    # the card shows what this CV fits; training's calibration step stores it (model.training.calibration)
    temperature = fit_temperature(np.log(np.clip(raw, 1e-12, 1.0)), truth)
    probabilities = apply_temperature(raw, temperature)
    predicted = probabilities.argmax(axis=1)

    photos = {photo.name: photo for photo in board_photos}
    board_truth, board_pred, board_probs = per_board(table, rows, probabilities)
    OOF_PATH.parent.mkdir(parents=True, exist_ok=True)
    ordered = sorted(board_probs, key=lambda n: int(Path(n).stem))
    np.savez_compressed(
        OOF_PATH,
        _board_names=np.array(ordered),
        _kingdom_ids=np.array([photos[name].kingdom_id for name in ordered]),
        **{name: board_probs[name] for name in ordered},
    )

    # ---- figures ------------------------------------------------------------------------------------
    figures, boards = headline_figures(table, rows, predicted)
    classifier = SquareClassifier.load(DEFAULT_MODEL_PATH)
    one_board = board_squares(photos[ordered[0]])
    cpu_ms, wall_ms = board_timing(classifier, one_board)
    unsure_ms = unsure_square_timing(classifier, one_board[:5])
    board_crops = normalise_crops(one_board)
    first_reading = classifier.log_proba_features(classifier.features(board_crops))
    unsure_on_board = int((first_reading.max(axis=1) < np.log(RECHECK_BELOW)).sum())
    # The fold models' temperature is 1, but the matching threshold saw a re-read square's averaged
    # log-probabilities before renormalising, which can only lower the top one: this counts at least
    # the squares that were matched, or a few more.
    compared = unmatched.max(axis=1) < MATCH_BELOW
    compared_per_25 = {source: 25 * compared[sources == source].mean() for source in SOURCES}
    size_mb = DEFAULT_MODEL_PATH.stat().st_size / 1e6
    meta = classifier.metadata
    n_kingdoms = len(set(table.groups[rows][sources == BOARD_SOURCE]))
    n_photos = len(set(table.groups[rows][sources == TILE_SOURCE]))

    lines = [
        "# Model card: square classifier",
        "",
        "_Generated by `python -m model.evaluation`; do not edit by hand._",
        "",
        "## Data",
        f"- Boards: {len(board_truth)} cropped top-down photos of 5×5 kingdoms "
        f"(`data/real/boards`, 100 px/square), {n_kingdoms} distinct kingdoms, "
        f"{figures[BOARD_SOURCE].squares} squares.",
        f"- Tiles: {figures[TILE_SOURCE].squares} single-square crops from {n_photos} other phone photos "
        f"(`data/real/tiles_spetryk`, 63 px), {len(corrections)} of their labels corrected (see *Where the "
        "remaining errors are*).",
        f"- Augmentation per {plan.to_dict()}: jittered crops from the whole board (real neighbours at "
        "the edges, shifted up to 10 % of a square), shift (up to 12 %), scale and turn (up to 12°) "
        "misalignment of the tile crops, colour temperature/tint/brightness/contrast/gamma, "
        "blur, noise, JPEG, 40–300 px rescaling, random quarter turns, hue-shifted castles, and synthetic "
        "table squares (wood, cloth, plain, noisy, two-tone; random colours) as extra *empty* examples. "
        f"Training rows: {len(table.labels)} (+ 4 quarter turns of each real square).",
        *scene_lines(table),
        "",
        "## Features and estimator",
        f"- {feature_size(config)} features per crop, resized to 64×64: HSV hue×saturation, Lab a×b "
        "and lightness histograms with centre/overall means; uniform LBP at radii 1 and 2; "
        "gradient-orientation histograms (8 bins) on 8 px and 16 px cells with block normalisation; "
        "ring-pooled gradient orientation relative to the centre; crown-icon masks (gold near white rim) "
        "with edge amounts and blob counts; 8×8 Lab thumbnail; a crown-icon template (the mean of the 7 "
        "upright crowns of board 1.jpg, 17×21 px) matched in its 4 quarter turns on the whiteness (smallest "
        "channel after a white-patch correction) of the crop: the 6 strongest separate peaks and how many "
        "pass each of 6 levels"
        + (
            "; and the hue×saturation and a×b histograms and Lab means again, of the crop with its photo's "
            "colour cast taken out (each channel scaled so the photo's white level, the 99th percentile over "
            "all its squares, turns grey: a board photo, all tiles of one source photo, a kingdom's squares "
            "in the scanner, or the square alone in `kingdomino classify`)."
            if config.photo_colour
            else "."
        ),
        f"- Plus {CODEBOOK_WORDS * 16} learned features: a codebook of {CODEBOOK_WORDS} colour patterns "
        "(k-means on contrast-normalised, whitened 6×6 patches of the crop at 32×32, every 2nd pixel; as in "
        "Coates & Ng 2011), each also in its 3 other quarter turns, and how strongly each fires in each "
        "quarter of the square. The codebook is fitted on the training rows only: one per fold here.",
        f"- Plus {CROWN_DETECTOR_FEATURES} from a learned crown-icon detector (`model/crowns.py`): the crop "
        "as a 16×16 grid of 4 px cells (gradient orientations, white-balanced colour), windows of 5×5 cells "
        "proposed by a linear filter and scored by an MLP verifier in their 4 quarter turns; the features "
        "are the best windows' scores (sorted), their sum and how many pass 0.5. It is trained from the "
        "crown counts alone (no crown positions): seeded with crown-template peaks where the template agrees "
        "with the label, then each k-crown square's k best windows are its crowns (two rounds of "
        "multiple-instance learning). Like the codebook, it is fitted on the training rows only: one per "
        "fold here.",
        "- Quarter turns are exact column permutations of the features: the classifier averages the "
        "log-probabilities over the 4 turns, so a turned square reads the same. The MLPs' first layers "
        "read all 4 turns at once (`model/turns.py`: a 4-point Fourier transform over each cycle of four "
        "columns), at about a third of the cost of reading 4 turned copies, to float rounding the same.",
        f"- Squares read with a top probability under {RECHECK_BELOW} (before calibration) are read twice "
        f"more, turned by ±{RECHECK_DEGREES:g}° about the centre, and the three log-probabilities averaged "
        "(in the cross-validation below too).",
        f"- Squares still read under {MATCH_BELOW} are then compared with every real training square "
        "(`model/matching.py`, the artwork matcher): every box prints the same 96 squares, so an unsure "
        "square is usually one the training photos show too. Thumbnails at 32×32 with each colour channel "
        "divided by its mean; normalised cross-correlation of an 18×18 window over the 4 quarter turns and "
        "shifts of up to 7 px, on the windows' 64 principal components; the best match per label. The "
        f"log-probabilities get {MATCH_WEIGHT:g} × (each label's best match − the best match of any label); "
        "no opinion on *empty*. The matcher keeps the training rows' real squares only: one per fold here.",
        f"- Estimator: `{estimator_name}` = `{' '.join(repr(make_estimator(estimator_name)).split())}`",
        "- The `_crowns` estimators multiply a joint model (which does not see the template block) with a "
        "crown-count model (MLP on the gradient histograms, the crown blocks and the crown detector's "
        "features of every square; castles and empty squares count 0), p ∝ p_joint · p_crowns^0.5: the "
        "crown model has to count icons, while the joint model also leans on a terrain's artwork, which "
        "hints at the count but does not decide it.",
        f"- Joint 18-class output (terrain + crowns, only combinations in the box). Softmax temperature "
        f"{temperature:.3f} fitted on the out-of-fold predictions (training's calibration step stores it "
        "in `model/training/calibration.json`).",
        "",
        f"## Grouped {n_folds}-fold cross-validation",
        "Boards grouped by `kingdom_id`, tiles by `source_photo`; augmented copies stay with their original.",
        "",
        "| set | squares | terrain | crowns | both |",
        "|---|---|---|---|---|",
    ]
    for source, label in ((BOARD_SOURCE, "boards"), (TILE_SOURCE, "tiles")):
        f = figures[source]
        lines.append(f"| {label} | {f.squares} | {f.terrain:.2%} | {f.crowns:.2%} | {f.both:.2%} |")
    f = headline_figures(table, rows, predicted, shipped)[0][TILE_SOURCE]
    lines.append(
        f"| tiles, scored against the labels as shipped | {f.squares} | {f.terrain:.2%} | {f.crowns:.2%} "
        f"| {f.both:.2%} |"
    )
    lines += [
        "",
        f"The model is trained and scored on the tile labels with {len(corrections)} corrections "
        "(`data/real/label_corrections.json`, listed under *Where the remaining errors are*); the last row "
        "scores the same readings against the labels as shipped.",
        "",
        f"- Boards with all 25 squares right: **{boards.all_right}/{boards.boards}** "
        f"({boards.all_right / boards.boards:.0%})",
        f"- Boards with the exact base score: **{boards.exact_score}/{boards.boards}** "
        f"({boards.exact_score / boards.boards:.0%}); mean absolute score error "
        f"{boards.mean_abs_score_error:.2f} points",
        "- Expected calibration error of the confidence: "
        f"{expected_calibration_error(probabilities, truth):.3f} "
        f"(raw: {expected_calibration_error(raw, truth):.3f})",
        "",
        "Targets: terrain ≥ 99.5 %, crowns ≥ 99.0 % (boards and tiles), exact base score ≥ 90 % of boards.",
        "",
        *held_out_section(
            table,
            held_out,
            temperature,
            {
                source: unsure_photos(table, rows[sources == source], probabilities[sources == source])
                for source in SOURCES
            },
        ),
        "### Estimators compared on the same features and folds (argmax, before calibration)",
        *compared_estimators(
            table, [(key, "corrected labels"), (shipped_key, "labels as shipped")], shipped, n_folds
        ),
        "",
    ]
    for source, label in ((BOARD_SOURCE, "Boards"), (TILE_SOURCE, "Tiles")):
        mask = sources == source
        lines += [
            f"### {label}: terrain confusion",
            _markdown_matrix(
                confusion(LABEL_TERRAIN[truth[mask]], LABEL_TERRAIN[predicted[mask]], len(TERRAINS)),
                [t.value for t in TERRAINS],
            ),
            "",
            f"### {label}: crown confusion",
            _markdown_matrix(
                confusion(LABEL_CROWNS[truth[mask]], LABEL_CROWNS[predicted[mask]], 4),
                [str(c) for c in range(4)],
            ),
            "",
        ]
    lines += ["## Where the remaining errors are", ""]
    for source, label in ((BOARD_SOURCE, "boards"), (TILE_SOURCE, "tiles")):
        mask = sources == source
        wrong = int((truth[mask] != predicted[mask]).sum())
        common = most_frequent_errors(truth[mask], predicted[mask])
        lines.append(f"- {label}: {wrong} wrong squares; most frequent: {common}.")
    board_errors = []
    for name in ordered:
        cells = np.flatnonzero(board_truth[name] != board_pred[name])
        if len(cells):
            score_diff = base_score(board_pred[name]) - base_score(board_truth[name])
            details = ", ".join(
                f"({c // 5},{c % 5}) {label_name(board_truth[name][c])}→{label_name(board_pred[name][c])}"
                for c in cells
            )
            board_errors.append(f"| {name} | {score_diff:+d} | {details} |")
    read = dict(zip(table.names[rows], predicted, strict=True))  # rows are the real squares only
    read_as_corrected = sum(read[name] == corrected for name, (_, corrected) in corrections.items())
    lines += [
        f"- Label corrections: {len(corrections)} tile labels contradict the photo and are corrected in "
        "`data/real/label_corrections.json` (each with the reason). They were found by looking at every "
        "misread tile next to its most similar tile in the other photos (often the same physical tile in "
        "the next photo of the session; `python -m model.evaluation.label_audit` draws these sheets); "
        "only squares whose crowns or terrain are in full view were "
        f"changed. The cross-validation reads {read_as_corrected} of the {len(corrections)} as corrected: "
        + ", ".join(
            f"`{name}` ({label_name(was)} → {label_name(now)})" for name, (was, now) in corrections.items()
        )
        + ".",
        "- Most other tile errors are crowns the crop cuts off (a 3-crown mine whose third crown lies on the "
        "crop's edge reads as a 2-crown mine; the crown detector sees only the two whole ones), sloppy crops "
        "(a neighbour's crowns or half a neighbour in the crop), glare that washes a square out, and "
        "grassland under yellow light read as wheat.",
        "",
        "| board | score error | wrong squares (row,col) truth→read |",
        "|---|---|---|",
        *board_errors,
        "",
    ]
    truths = {name: kingdom_of(board_truth[name]) for name in ordered}
    section = compare_raw_decoded({name: board_probs[name] for name in ordered}, truths)
    lines += [section.strip(), ""]
    lines += [
        "## Size and speed",
        f"- Model file: {size_mb:.2f} MB (`model/square_classifier.joblib`, "
        f"scikit-learn {sklearn.__version__}).",
        "- Classifying one board (25 squares of 100 px: resize, features, 4 quarter turns, estimator) "
        f"on one thread: {cpu_ms:.1f} ms CPU (median), {wall_ms:.1f} ms fastest wall clock "
        f"({cpu_name()}, {os.cpu_count()} cores shared with other jobs). The model was trained on that "
        f"board: {unsure_on_board} of its squares read unsure (under {RECHECK_BELOW}).",
        f"- A square read unsure costs {unsure_ms:.1f} ms more (CPU, one thread): it is read again turned "
        f"by ±{RECHECK_DEGREES:g}° and, if still under {MATCH_BELOW}, compared with the training squares. In "
        "the cross-validation above (squares the model never saw) "
        f"at least {compared_per_25[BOARD_SOURCE]:.2f} of a board's 25 squares were compared, and "
        f"{compared_per_25[TILE_SOURCE]:.2f} of every 25 tiles: about "
        f"{cpu_ms + unsure_ms * compared_per_25[BOARD_SOURCE]:.0f} ms for a board like those and "
        f"{cpu_ms + unsure_ms * compared_per_25[TILE_SOURCE]:.0f} ms for 25 squares like the tiles.",
        "- Training the packaged model from scratch: augmentation + features "
        f"{meta.get('feature_seconds', '?')} s "
        "(then cached under `out/cache`, one file per feature block) + fit "
        f"{meta.get('fit_seconds', '?')} s, on {meta.get('cores', '?')} cores of the shared machine.",
        f"- This cross-validation: {cv_seconds:.0f} s; reading each photo set with a model fitted "
        f"without it: {held_seconds:.0f} s.",
        "",
        "## Commands",
        "```",
        "python -m model.training    # writes model/square_classifier.joblib",
        f"python -m model.evaluation --folds {n_folds}    # rewrites this card, out/oof_board_probs.npz",
        "kingdomino classify SQUARE.png ... --json",
        "```",
        "Out-of-fold board probabilities: `out/oof_board_probs.npz` (one (5,5,18) array per board name, "
        "plus `_board_names` and `_kingdom_ids`).",
        "",
    ]
    card = "\n".join(lines)
    MODEL_CARD.write_text(card, encoding="utf-8")
    if verbose:
        print(card)
    return card


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m model.evaluation", description="Grouped cross-validation; rewrites model/MODEL.md."
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA_DIR, help="folder with labels.json (data/real)"
    )
    parser.add_argument("--estimator", choices=ESTIMATOR_NAMES, default=DEFAULT_ESTIMATOR)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1, help="folds fitted in parallel (at most 2 here)")
    parser.add_argument(
        "--reuse", action="store_true", help="reuse cached out-of-fold predictions (e.g. after retraining)"
    )
    args = parser.parse_args(argv)
    problem = data_problem(args.data)
    if problem:
        print(f"python -m model.evaluation: {problem}")
        return 2
    if args.folds < 2:
        print("python -m model.evaluation: --folds must be at least 2")
        return 2
    evaluate(args.data, args.estimator, args.folds, reuse=args.reuse, n_jobs=args.jobs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
