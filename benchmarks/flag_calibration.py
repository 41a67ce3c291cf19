"""What flags the squares of whole photos, square by square, for calibrating the review rule.

python -m benchmarks.flag_calibration collect --source hard --split dev --count 200 [--truth-frame]
python -m benchmarks.flag_calibration collect --source outside --split dev --count 60
python -m benchmarks.flag_calibration collect --source outside --truth-frame --seeds 200005 200007 ...
python -m benchmarks.flag_calibration report out/flags/*.npz

``collect`` scans development photos (the hard bench's or the independent generator's hard tables, each
read by its bench model, which never learnt their kingdoms, unless ``--model shipped``) and stores, for
every square of every photo whose frame is found, the truth, the reading, the decoder's margin, the
classifier's and the weighed probabilities, the table evidence, the castle's cover and lean, the pieces,
whether the squares were read deconvolved, and each flag rule's verdict (``ScanResult.flag_reasons``) in one
.npz per run.
``report`` replays them: which rules flag the squares read right, which misread squares each leaves
unflagged, and the flag share at each threshold of the decoder's margin (the review rules of
``scanner.reading.review_reasons`` beside it). Only development seeds: never tune on held-out.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from kingdomino.board import Square, Terrain
from kingdomino.labels import LABEL_INDEX
from scanner.reading import REVIEW_RULES

#: the independent generator's development split: its first seed and this many after it
OUTSIDE_DEV = 300
#: the largest grid (Mighty Duel): the castle's cover of every square is stored in this many columns
MAX_GRID = 7
OUT_DIR = Path(__file__).resolve().parent.parent / "out" / "flags"
REASONS = ("read", "glare", "grayscale", "unfamiliar", "dim", "margin") + tuple(
    f"review_{name}" for name in REVIEW_RULES
)


def photo_features(result, classifier=None, reading=None) -> dict[str, np.ndarray]:
    """Per-square copies of what the photo's own pixels say about it (its sharpness, colour cast), and,
    given the ``classifier``, its squares read again with each square's own white (not the photo's), cut
    as the scan cut them (deconvolved when the scan's ``reading`` settings undid a smear)."""
    from scanner.reading import DEFAULT_READING, deblurred_kingdom
    from scanner.rectify import cut_squares

    n = result.grid_size
    gray = cv2.cvtColor(result.rectified, cv2.COLOR_BGR2GRAY)
    side = gray.shape[0] / n
    lab = cv2.cvtColor(result.rectified, cv2.COLOR_BGR2LAB).astype(float)
    features = {
        "sharpness": np.full(n * n, float(cv2.Laplacian(gray, cv2.CV_64F).var())),
        "side_px": np.full(n * n, side),
        "lab_a": np.full(n * n, lab[..., 1].mean() - 128.0),
        "lab_b": np.full(n * n, lab[..., 2].mean() - 128.0),
    }
    # each square's mean colour over its middle (its border may show the seams and the neighbours)
    middles = cut_squares(lab, n, margin=-0.2)
    features["square_lab"] = np.array([middle.reshape(-1, 3).mean(axis=0) for middle in middles])
    if classifier is not None:
        read = result.rectified
        if result.details is not None and result.details.deblurred:
            read, _ = deblurred_kingdom(read, n, reading or DEFAULT_READING)
        crops = cut_squares(read, n)
        features["raw_own"] = np.asarray(classifier.predict_proba(crops, photo=False), float)
        features.update(second_opinions(classifier, crops))
    return features


def second_opinions(classifier, crops: list) -> dict[str, np.ndarray]:
    """Per square, what the shipped model's parts and the artwork matcher say apart, read with the photo's
    white as the scan reads them (before the unsure squares' re-reads):

    - ``member_log``: (n, members, 18) each member of the joint ensemble times the crown model, as the
      CrownExpert joins them, log-probabilities averaged over the 4 quarter turns;
    - ``joint_log``: (n, 18) the joint ensemble alone (no crown model);
    - ``crown_log``: (n, crowns) the crown-count model alone;
    - ``match``: (n, 18) the artwork matcher's best match per label on every square (-1: no example),
      ``match_ms``: its processor time for the photo, in ms, and ``thumb``: the (n, 32, 32, 3) thumbnails
      it compared."""
    import time

    from scipy.special import logsumexp

    from model.codebook import thumbnails
    from model.ensemble import CrownExpert, GeometricEnsemble
    from model.features import normalise_crops, photo_white_point

    expert = getattr(classifier, "estimator", None)
    if not (isinstance(expert, CrownExpert) and isinstance(expert.joint_, GeometricEnsemble)):
        return {}  # another estimator: no members to ask apart
    normalised = normalise_crops(crops)
    white = np.tile(photo_white_point(normalised), (len(normalised), 1))
    rows = classifier.features(normalised, white)
    turned = [rows[:, permutation] for permutation in classifier.turn_permutations]
    n, columns = len(rows), classifier.estimator_labels

    def turn_mean(model, cols) -> np.ndarray:
        logs = [np.log(np.clip(model.predict_proba(t[:, cols]), 1e-9, 1.0)) for t in turned]
        mean = np.mean(logs, axis=0)
        return mean - logsumexp(mean, axis=1, keepdims=True)

    def widen_labels(log_p: np.ndarray) -> np.ndarray:
        out = np.full((n, len(LABEL_INDEX)), np.log(1e-9))
        out[:, columns] = log_p
        return out

    crown_log = turn_mean(expert.crown_model_, expert.crown_columns_)
    members = [turn_mean(member, expert.joint_columns_) for member in expert.joint_.members_]
    crowns = np.exp(crown_log)
    member_log = np.stack(
        [widen_labels(np.log(np.clip(expert.combine(np.exp(m), crowns), 1e-12, 1.0))) for m in members],
        axis=1,
    )
    joint = expert.joint_.combine([np.exp(m) for m in members])
    crown_full = np.full((n, int(expert.crown_model_.classes_.max()) + 1), np.log(1e-9))
    crown_full[:, expert.crown_model_.classes_] = crown_log
    out = {
        "member_log": member_log,
        "joint_log": widen_labels(np.log(np.clip(joint, 1e-12, 1.0))),
        "crown_log": crown_full,
    }
    if classifier.matcher is not None:
        start = time.process_time()
        thumbs = thumbnails(normalised)
        out["match"] = classifier.matcher.similarities(thumbs).astype(float)
        out["thumb"] = thumbs  # for replaying cheaper matchers
        out["match_ms"] = np.full(n, 1000.0 * (time.process_time() - start))
    return out


def square_records(
    result, truth: np.ndarray, photo: dict, classifier=None, reading=None
) -> dict[str, np.ndarray]:
    """One record per square of a located photo (``truth``: (N, N) label indices, upright like the
    result; ``reading``: the scanner's ReadingSettings)."""
    n = result.grid_size
    details = result.details
    read = np.array([[LABEL_INDEX[result.kingdom[r, c]] for c in range(n)] for r in range(n)])
    castle = np.argwhere(read == LABEL_INDEX[Square(Terrain.CASTLE, 0)])
    hidden = np.zeros((n, n))
    if len(castle):
        hidden = details.cover[tuple(castle[0])].copy()
        hidden[tuple(castle[0])] = 0.0
    likeness = details.likeness if details.likeness is not None else np.full((n, n), np.nan)
    # what flag_report needs to call scanner.reading.review_reasons itself on the decoder solved again:
    # each square's row of the castle's cover (padded to the largest grid), the share of the castle moved
    # off it to its base, and the pieces standing on it
    cover = np.zeros((n * n, MAX_GRID**2))
    cover[:, : n * n] = details.cover.reshape(n * n, n * n)
    taken = getattr(getattr(details, "leaning", None), "taken", None)
    pieces = getattr(details, "pieces", None)
    records = {
        "truth": truth.ravel(),
        "read": read.ravel(),
        "flagged": result.flagged.ravel(),
        "margin": details.margins.ravel(),
        "raw": details.raw.reshape(n * n, -1),
        "weighed": result.probabilities.reshape(n * n, -1),
        "evidence": details.evidence.ravel(),
        "likeness": likeness.ravel(),
        "hidden": hidden.ravel(),
        "changed": details.changed.ravel(),
        "orphan": details.orphans.ravel(),
        "cover": cover,
        "taken": np.full(n * n, np.nan) if taken is None else np.asarray(taken, float).ravel(),
        "pieces": np.zeros(n * n, bool) if pieces is None else np.asarray(pieces, bool).ravel(),
        "deblurred": np.full(n * n, bool(details.deblurred)),  # read from the kingdom with its smear undone
        "lightness": np.full(n * n, result.lightness if result.lightness is not None else np.nan),
        "grid": np.full(n * n, n),
        "cell": np.arange(n * n),
    }
    if getattr(details, "match_lead", None) is not None:  # the scan's own artwork rule, if it has one
        records["match_lead"] = details.match_lead.ravel()
    for reason in REASONS:
        flags = result.flag_reasons.get(reason)
        records[f"reason_{reason}"] = (np.zeros(n * n, bool) if flags is None else flags.ravel()).astype(bool)
    for key, value in photo.items():
        records[key] = np.full(n * n, value)
    records.update(photo_features(result, classifier, reading))
    return records


def _hard(args, scanner, records: list) -> None:
    from benchmarks.hard import measure_photo, split_seeds

    for seed in chosen_seeds(args, split_seeds(args.split, None if args.seeds else args.start + args.count)):

        def keep(result, truth_kingdom, seed=seed, condition=None):
            n = truth_kingdom.grid_size
            truth = np.array([[LABEL_INDEX[truth_kingdom[r, c]] for c in range(n)] for r in range(n)])
            records.append(
                square_records(
                    result,
                    truth,
                    {"seed": seed, "condition": condition or ""},
                    scanner.classifier,
                    scanner.reading,
                )
            )

        row = measure_photo(scanner, seed, args.grid_size, truth_frame=args.truth_frame, on_located=keep)
        if records and records[-1]["seed"][0] == seed:
            records[-1]["condition"] = np.full(len(records[-1]["truth"]), row["condition"])
        print(seed, row["condition"], row["outcome"], row.get("misreads", ""), file=sys.stderr, flush=True)
        save(records, args)


def _outside(args, scanner, records: list) -> None:
    from benchmarks.outside import hard as outside_hard
    from benchmarks.outside.run import TOLERANCE, corner_errors
    from scanner.errors import ScanError

    first = outside_hard.SPLITS[args.split]
    for seed in chosen_seeds(args, list(range(first, first + OUTSIDE_DEV))):
        jpeg, truth = outside_hard.generate(seed)
        n = truth["grid_size"]
        corners = np.asarray(truth["corners"], float)
        try:
            frame = {"grid": n, "corners": corners} if args.truth_frame else {}
            result = scanner.scan(jpeg, name=f"seed-{seed}.jpg", **frame)
        except ScanError as error:
            print(seed, "refused", error, file=sys.stderr, flush=True)
            continue
        if result.grid_size != n:
            continue
        found = np.asarray(result.corners, float)
        turns = min(range(4), key=lambda k: corner_errors(found, np.roll(corners, -k, axis=0), n).max())
        if not (corner_errors(found, np.roll(corners, -turns, axis=0), n) <= TOLERANCE).all():
            print(seed, "not located", file=sys.stderr, flush=True)
            continue
        grid = np.array(
            [
                [LABEL_INDEX[Square(Terrain(sq["terrain"]), int(sq["crowns"]))] for sq in row]
                for row in truth["grid"]
            ]
        )
        condition = truth["conditions"].get("hard_class", "")
        photo = {"seed": seed, "condition": condition}
        records.append(
            square_records(result, np.rot90(grid, turns), photo, scanner.classifier, scanner.reading)
        )
        wrong = int((records[-1]["truth"] != records[-1]["read"]).sum())
        print(seed, condition, "located", wrong, "misread", file=sys.stderr, flush=True)
        save(records, args)


def chosen_seeds(args, split: list[int]) -> list[int]:
    """The split's seeds to scan: ``--seeds`` (each a development seed), else START .. START+COUNT."""
    if not args.seeds:
        return split[args.start : args.start + args.count]
    outside = set(args.seeds) - set(split)
    if outside:
        raise SystemExit(f"not development seeds of this source: {sorted(outside)}")
    return list(args.seeds)


def collect(args) -> int:
    if args.one_core:
        cv2.setNumThreads(1)
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    records: list[dict] = []
    from benchmarks.bench_model import HARD, bench_scanner, outside_held_out

    held = HARD if args.source == "hard" else outside_held_out()
    scanner, text = bench_scanner(held, shipped=args.model == "shipped")
    if scanner is None:
        print(text, file=sys.stderr)
        return 2
    print(f"reading with the {text}", flush=True)
    (_hard if args.source == "hard" else _outside)(args, scanner, records)
    if not records:
        print("no located photo", file=sys.stderr)
        return 1
    out = save(records, args)
    print(f"{len(records)} photos, {sum(len(r['truth']) for r in records)} squares -> {out}")
    return 0


def save(records: list[dict], args) -> Path:
    """Write the squares so far (after every photo: a long run can be read while it goes on)."""
    frame = "-truth" if args.truth_frame else ""
    out = (
        args.out
        or OUT_DIR
        / f"{args.source}-{args.split}-{args.grid_size}{frame}-{args.model}-{args.start}+{args.count}.npz"
    )
    if records:
        out.parent.mkdir(parents=True, exist_ok=True)
        columns = {key: np.concatenate([r[key] for r in records]) for key in records[0]}
        columns["model"] = np.full(len(columns["truth"]), args.model)  # which model read every square
        np.savez_compressed(out, **columns)
    return out


def load(paths: list[Path]) -> dict[str, np.ndarray]:
    """The squares of several collected runs, with the run's file name as ``run``."""
    parts = []
    for path in paths:
        with np.load(path) as data:
            part = {key: data[key] for key in data.files}
        part["run"] = np.full(len(part["truth"]), path.stem)
        parts.append(part)
    keys = set.intersection(*(set(p) for p in parts))
    return {key: np.concatenate([p[key] for p in parts]) for key in keys}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.flag_calibration", description=__doc__.splitlines()[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    gather = sub.add_parser("collect", help="scan development photos and store their squares")
    gather.add_argument("--source", choices=("hard", "outside"), default="hard")
    gather.add_argument("--split", choices=("dev",), default="dev", help="development seeds only")
    gather.add_argument("--count", type=int, default=54)
    gather.add_argument("--start", type=int, default=0, help="skip the split's first START seeds")
    gather.add_argument("--seeds", type=int, nargs="+", help="these development seeds instead of a range")
    gather.add_argument("--grid-size", type=int, choices=(5, 7), default=5)
    gather.add_argument("--truth-frame", action="store_true")
    gather.add_argument("--one-core", action="store_true")
    gather.add_argument(
        "--model",
        choices=("held-out", "shipped"),
        default="held-out",
        help="the source's bench model, which never learnt its kingdoms (default), or the shipped one",
    )
    gather.add_argument("--out", type=Path)
    replay = sub.add_parser("report", help="replay the flag rules on collected squares")
    replay.add_argument("files", nargs="+", type=Path)
    replay.add_argument(
        "--shift",
        type=int,
        help="replay the artwork matcher on the stored thumbnails with shifts of at most SHIFT px of 32",
    )
    replay.add_argument("--model", choices=("shipped", "bench"), default="shipped", help="whose matcher")
    args = parser.parse_args(argv)
    if args.command == "collect":
        return collect(args)
    from benchmarks.flag_report import report

    data = load(args.files)
    if args.shift is not None:
        data["match"] = rematched(data["thumb"], args.model, args.shift)
    return report(data)


def rematched(thumbs: np.ndarray, model: str, shift: int) -> np.ndarray:
    """(n, 18) the shipped or the bench model's artwork matcher on stored thumbnails, shifts up to SHIFT."""
    if model == "bench":
        from benchmarks.bench_model import load_bench_model

        classifier = load_bench_model()
    else:
        from model.classifier import SquareClassifier

        classifier = SquareClassifier.load()
    step = 256  # squares at a time: every window of every square is held at once
    parts = [
        classifier.matcher.similarities(thumbs[i : i + step], shift) for i in range(0, len(thumbs), step)
    ]
    return np.concatenate(parts).astype(float)


if __name__ == "__main__":
    raise SystemExit(main())
