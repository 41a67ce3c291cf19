"""The joint decoder against the classifier's raw reading: a section of the model card.

``compare_raw_decoded`` takes square probabilities (the out-of-fold ones of ``model.evaluation``, simulated or
scanned ones of ``python -m benchmarks.decoder``) and the true kingdoms, and says what decoding changes.
"""

from __future__ import annotations

import time

import numpy as np

from kingdomino.board import Kingdom
from kingdomino.labels import LABEL_INDEX, LABELS
from kingdomino.scoring import score_kingdom
from scanner.decode import decode_kingdom


def _label_grid(kingdom: Kingdom) -> np.ndarray:
    return np.array([[LABEL_INDEX[square] for square in row] for row in kingdom.squares])


def _rate(count: int, total: int) -> str:
    return f"{count}/{total} ({100.0 * count / max(total, 1):.1f}%)"


def compare_raw_decoded(
    probabilities: dict[str, np.ndarray], truths: dict[str, Kingdom], **decode_options
) -> str:
    """Markdown section: raw argmax versus decoded kingdom on every board that has a truth."""
    names = sorted(name for name in probabilities if name in truths)
    terrain_of = np.array([label.terrain.value for label in LABELS])
    crowns_of = np.array([label.crowns for label in LABELS])
    tally = {
        key: {"terrain": 0, "crowns": 0, "both": 0, "boards": 0, "score": 0, "error": 0}
        for key in ("raw", "dec")
    }
    changed = changed_right = changed_wrong = flagged = errors = errors_flagged = squares = 0
    boards_broken = 0
    seconds: list[float] = []
    for name in names:
        truth = _label_grid(truths[name])
        true_base = score_kingdom(truths[name]).base
        started = time.perf_counter()
        decoded = decode_kingdom(probabilities[name], **decode_options)
        seconds.append(time.perf_counter() - started)
        raw = np.asarray(probabilities[name]).argmax(axis=2)
        for key, labels in (("raw", raw), ("dec", _label_grid(decoded.kingdom))):
            kingdom = Kingdom.from_rows([[LABELS[label] for label in row] for row in labels])
            base_error = abs(score_kingdom(kingdom).base - true_base)
            counts = tally[key]
            counts["terrain"] += int((terrain_of[labels] == terrain_of[truth]).sum())
            counts["crowns"] += int((crowns_of[labels] == crowns_of[truth]).sum())
            counts["both"] += int((labels == truth).sum())
            counts["boards"] += int((labels == truth).all())
            counts["score"] += int(base_error == 0)
            counts["error"] += base_error
        decoded_labels = _label_grid(decoded.kingdom)
        boards_broken += int((raw == truth).all() and (decoded_labels != truth).any())
        squares += truth.size
        changed += int(decoded.changed.sum())
        changed_right += int((decoded.changed & (decoded_labels == truth)).sum())
        changed_wrong += int((decoded.changed & (raw == truth)).sum())
        flagged += int(decoded.flagged.sum())
        errors += int((decoded_labels != truth).sum())
        errors_flagged += int(((decoded_labels != truth) & decoded.flagged).sum())

    boards = len(names)
    raw, dec = tally["raw"], tally["dec"]
    milliseconds = 1000.0 * np.array(seconds or [0.0])
    kept_wrong = changed - changed_right - changed_wrong
    per_board = boards or 1
    lines = [
        f"Boards: {boards}, squares: {squares}.",
        "",
        "| measure | raw argmax | decoded |",
        "|---|---|---|",
        f"| squares, terrain right | {_rate(raw['terrain'], squares)} | {_rate(dec['terrain'], squares)} |",
        f"| squares, crowns right | {_rate(raw['crowns'], squares)} | {_rate(dec['crowns'], squares)} |",
        f"| squares, both right | {_rate(raw['both'], squares)} | {_rate(dec['both'], squares)} |",
        f"| boards, all squares right | {_rate(raw['boards'], boards)} | {_rate(dec['boards'], boards)} |",
        f"| boards, exact base score | {_rate(raw['score'], boards)} | {_rate(dec['score'], boards)} |",
        f"| mean abs. base-score error | {raw['error'] / per_board:.2f} | {dec['error'] / per_board:.2f} |",
        "",
        f"Squares changed by the decoder: {changed} (right after the change: {changed_right}; "
        f"right before and wrong after: {changed_wrong}; wrong either way: {kept_wrong}).",
        f"Boards read all right by the classifier and made wrong by the decoder: {boards_broken}.",
        f"Squares flagged for the player: {_rate(flagged, squares)}; decoded errors among them: "
        f"{_rate(errors_flagged, errors)} of the errors.",
        f"Decoding time per kingdom: median {np.median(milliseconds):.1f} ms, "
        f"max {milliseconds.max():.1f} ms.",
    ]
    return "\n".join(lines) + "\n"
