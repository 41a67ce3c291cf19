"""The bench model: the square classifier trained without a fixed set of held-out kingdoms.

The shipped model learnt every labelled board, so a bench built from those boards measures squares it has
seen. The hard bench (``benchmarks.hard``) is built only from the boards of the kingdoms in
``HELD_OUT_KINGDOMS`` and read by a classifier trained exactly as ``model.train`` trains the shipped one
(same features, augmentation plan, estimator and temperature) on every row except those of these
kingdoms (their photos, every augmented copy of them, and any square cut from a whole-table scene of
them: the scene squares of ``data/real/scene_squares`` are grouped with their kingdom too).

The held-out kingdoms follow one fixed rule, so nobody picks easy or hard ones: the kingdom ids of
``data/real/labels.json`` in id order, every fourth one from the third (``held_out_by_rule``; a test
checks the constant against the rule).

The model is cached outside the package, under ``~/.cache/kingdomino-scanner/`` (or
``$KINGDOMINO_CACHE``), named by a digest of the held-out list, the training data's labels, scene squares
and plan, the estimator and scikit-learn's version, so a change to any of them trains a new one.

The independent generator's hard photos (``benchmarks.outside.hard``) are built from other material: the
board photos of its own ``HOLDOUT_KINGDOMS`` and the tiles of every fifth spetryk source photo. Its bench
model (``OUTSIDE``, ``--outside``) leaves those out the same way (their boards, tiles, augmented copies and
scene squares), so that bench too measures squares the classifier never learnt.

``python -m benchmarks.bench_model [--outside]`` trains one (once; a few minutes on two cores) and prints
its path. With a plan option (``--white-error``, ``--white-kept``, ``--colour-swap``), another random
``--seed`` (a control retrain), a feature block that is off by default (``--spots``) or another folder of
scene squares (``--scenes DIR``, e.g. more or fewer tiled scenes) it trains a variant into ``--out FILE``
instead, never over the cached one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

HELD_OUT_KINGDOMS = ("K04", "K09", "K14", "K19", "K24", "K29", "K35")
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "real"


@dataclass(frozen=True)
class HeldOut:
    """What one bench model leaves out of training: kingdoms (boards and scene squares) and tile photos."""

    name: str
    kingdoms: tuple[str, ...]
    source_photos: tuple[str, ...] = ()

    @property
    def groups(self) -> list[str]:
        """The training table's group ids of the held-out rows."""
        from model.training.dataset import kingdom_group, photo_group

        return [kingdom_group(k) for k in self.kingdoms] + [photo_group(p) for p in self.source_photos]

    def describe(self) -> str:
        tiles = f" and the tiles of {len(self.source_photos)} source photos" if self.source_photos else ""
        return f"without kingdoms {', '.join(self.kingdoms)}{tiles}"


#: Our hard bench's held-out material (``benchmarks.hard``).
HARD = HeldOut("hard", HELD_OUT_KINGDOMS)


def outside_held_out() -> HeldOut:
    """The independent generator's held-out material (``benchmarks.outside.hard``)."""
    from benchmarks.outside.hard import HOLDOUT_KINGDOMS, holdout_source_photos

    return HeldOut("outside", HOLDOUT_KINGDOMS, tuple(holdout_source_photos()))


def held_out_source_photos() -> tuple[str, ...]:
    """Every tile source photo any bench model leaves out of training (the union of their HeldOut's)."""
    return tuple(sorted({photo for held in (HARD, outside_held_out()) for photo in held.source_photos}))


def held_out_by_rule(kingdom_ids: list[str]) -> tuple[str, ...]:
    """Every fourth kingdom id in sorted order, starting from the third."""
    return tuple(sorted(set(kingdom_ids))[2::4])


def cache_dir() -> Path:
    """Where bench models are kept: ``$KINGDOMINO_CACHE`` or ``~/.cache/kingdomino-scanner``."""
    root = os.environ.get("KINGDOMINO_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "kingdomino-scanner"


def _digest(data_dir: Path, estimator_name: str, held: HeldOut) -> str:
    import sklearn

    from model.features import FeatureConfig
    from model.training.feature_table import AugmentPlan, cache_key

    # The hard bench's digest is the one its cached models were named by before other benches had models.
    what = list(held.kingdoms) if held == HARD else [held.name, list(held.kingdoms), list(held.source_photos)]
    text = json.dumps(
        [what, cache_key(FeatureConfig(), AugmentPlan(), data_dir), estimator_name, sklearn.__version__]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def bench_model_path(
    data_dir: Path = DATA_DIR, estimator_name: str | None = None, held: HeldOut = HARD
) -> Path:
    from model.training.estimators import DEFAULT_ESTIMATOR

    name = estimator_name or DEFAULT_ESTIMATOR
    stem = "bench-model" if held == HARD else f"bench-model-{held.name}"
    return cache_dir() / f"{stem}-{_digest(data_dir, name, held)}.joblib"


def train_bench_model(
    data_dir: Path = DATA_DIR,
    estimator_name: str | None = None,
    verbose: bool = True,
    held_out: HeldOut = HARD,
    plan=None,
    path: Path | None = None,
    features=None,
) -> Path:
    """Train the classifier on every row but the held-out material's and write it to ``bench_model_path``
    (or ``path``: a model trained with another augmentation ``plan`` or FeatureConfig ``features`` than the
    default, to compare)."""
    from model.features import FeatureConfig
    from model.training.dataset import SCENE_SOURCE
    from model.training.estimators import DEFAULT_ESTIMATOR
    from model.training.feature_table import AugmentPlan, build_table
    from model.training.train import fitted_classifier

    name = estimator_name or DEFAULT_ESTIMATOR
    started = time.perf_counter()
    config, plan = features or FeatureConfig(), plan or AugmentPlan()
    if path is None and (config != FeatureConfig() or plan != AugmentPlan()):
        # the cached model's name is keyed by the default features and plan: a variant never goes there
        raise ValueError("a bench model with another feature configuration or plan needs its own path")
    table = build_table(config, plan, data_dir, use_cache=True, verbose=verbose)
    held = np.isin(table.groups, held_out.groups)
    if verbose:
        print(f"training on {int((~held).sum())} rows, {int(held.sum())} held-out rows left out")
    classifier = fitted_classifier(table, ~held, config, name, verbose)
    classifier.metadata = {
        "estimator": name,
        "augment_plan": plan.to_dict(),
        "held_out_kingdoms": list(held_out.kingdoms),
        "held_out_source_photos": list(held_out.source_photos),
        "training_rows": int((~held).sum()),
        "held_out_rows": int(held.sum()),
        "scene_rows": int((~held & (table.sources == SCENE_SOURCE)).sum()),
        "fit_seconds": round(time.perf_counter() - started, 1),
    }
    path = path or bench_model_path(data_dir, name, held_out)
    path.parent.mkdir(parents=True, exist_ok=True)
    classifier.save(path)
    if verbose:
        print(f"wrote {path} in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def load_bench_model(data_dir: Path = DATA_DIR, held: HeldOut = HARD):
    """The cached bench model, or None when it has not been trained (``python -m benchmarks.bench_model``)."""
    from model.classifier import SquareClassifier

    path = bench_model_path(data_dir, held=held)
    return SquareClassifier.load(path) if path.is_file() else None


def bench_scanner(
    held: HeldOut = HARD, data_dir: Path = DATA_DIR, shipped: bool = False, pieces: str | None = None
):
    """(a KingdomScanner reading with this bench's model, a line saying which) or (None, why not);
    ``shipped``: with the shipped model instead, which learnt the held-out material too; ``pieces``: a
    ``--pieces`` choice (``add_pieces_option``), None for the scanner's default."""
    from scanner.recognizer import KingdomScanner

    reading, said = reading_for(pieces)
    if shipped:
        return (
            KingdomScanner(reading=reading),
            "shipped model (trained on the held-out kingdoms too: squares read optimistic)" + said,
        )
    classifier = load_bench_model(data_dir, held)
    if classifier is None:
        command = "python -m benchmarks.bench_model" + (" --outside" if held.name == "outside" else "")
        return None, f"no bench model at {bench_model_path(data_dir, held=held)}: run {command} first"
    return KingdomScanner(classifier=classifier, reading=reading), f"bench model ({held.describe()})" + said


def add_pieces_option(parser: argparse.ArgumentParser) -> None:
    """The benches' ``--pieces on|off``: read with the pieces looked for or not."""
    parser.add_argument(
        "--pieces",
        choices=("on", "off"),
        help="look for pieces on the squares or not (default: the scanner's)",
    )


def reading_for(pieces: str | None):
    """(the ReadingSettings of a ``--pieces`` choice, a note for the bench's line): the default's for None."""
    from scanner.reading import DEFAULT_READING

    if pieces is None:
        return DEFAULT_READING, ""
    return replace(DEFAULT_READING, pieces=pieces == "on"), f", pieces {pieces}"


def data_with_scenes(scenes: Path, view: Path, data_dir: Path = DATA_DIR) -> Path:
    """``view`` made a data directory that is ``data_dir`` with the scene squares of ``scenes``: a symbolic
    link to every entry of ``data_dir`` but its scene folder, which links to ``scenes``. Another set of
    training scenes is compared without touching the committed folder; the feature cache is keyed by
    content, not by path."""
    from model.training.dataset import SCENE_FOLDER, SCENE_LABELS

    if not (scenes / SCENE_LABELS).is_file():
        raise ValueError(f"no {SCENE_LABELS} in {scenes}")
    view.mkdir(parents=True, exist_ok=True)
    for entry in data_dir.iterdir():
        (view / entry.name).symlink_to(scenes.resolve() if entry.name == SCENE_FOLDER else entry.resolve())
    if not (view / SCENE_FOLDER).exists():
        (view / SCENE_FOLDER).symlink_to(scenes.resolve())
    return view


def held_out_boards(data_dir: Path = DATA_DIR) -> list[str]:
    """Names of the board photos of the held-out kingdoms (the only boards the hard bench is built from)."""
    boards = json.loads((data_dir / "labels.json").read_text(encoding="utf-8"))["boards"]
    return sorted(name for name, board in boards.items() if board["kingdom_id"] in HELD_OUT_KINGDOMS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_model", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--path", action="store_true", help="only print where the model is (or would be)")
    parser.add_argument(
        "--outside",
        action="store_true",
        help="the independent generator's bench model (benchmarks.outside --hard), not the hard bench's",
    )
    parser.add_argument(
        "--white-error",
        type=float,
        default=0.0,
        help="train with each copy's photo white this far off (AugmentPlan.white_error) into --out",
    )
    parser.add_argument(
        "--white-kept",
        type=float,
        default=0.0,
        help="train with up to this share of each copy's own cast left in (AugmentPlan.white_kept)",
    )
    parser.add_argument(
        "--colour-swap",
        type=float,
        default=0.0,
        help="train with grassland and wheat copies in the other's colours (AugmentPlan.colour_swap)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="train with this augmentation seed (AugmentPlan.seed) into --out: a control for retrain noise",
    )
    parser.add_argument(
        "--spots",
        action="store_true",
        help="train with the sheep-and-birds feature block (FeatureConfig.spots) into --out",
    )
    parser.add_argument(
        "--scenes",
        type=Path,
        help="train on the scene squares of this folder (benchmarks.scene_squares --out) into --out",
    )
    parser.add_argument(
        "--out", type=Path, help="with a plan option, --seed, --spots or --scenes: the model file to write"
    )
    args = parser.parse_args(argv)
    variant = args.white_error or args.white_kept or args.colour_swap or args.seed is not None or args.spots
    if (variant or args.scenes is not None) and args.out is None:
        parser.error(
            "plan options, --seed, --spots and --scenes need --out "
            "(the cached bench model stays the default's)"
        )
    if not (DATA_DIR / "labels.json").is_file():
        print(f"bench model: no labels.json in {DATA_DIR}", file=sys.stderr)
        return 2
    held = outside_held_out() if args.outside else HARD
    path = bench_model_path(held=held)
    if args.path:
        print(path)
        return 0
    if args.out is not None:  # a variant to compare with the cached one, trained whether or not that exists
        from model.features import FeatureConfig
        from model.training.feature_table import AugmentPlan

        features = FeatureConfig(spots=args.spots)
        plan = AugmentPlan(
            white_error=args.white_error, white_kept=args.white_kept, colour_swap=args.colour_swap
        )
        if args.seed is not None:
            plan = replace(plan, seed=args.seed)
        extra = (", with spots" if args.spots else "") + (f", scenes of {args.scenes}" if args.scenes else "")
        print(f"training {held.describe()}, {plan.to_dict()}{extra}, into {args.out}", flush=True)
        with tempfile.TemporaryDirectory() as temporary:
            data_dir = DATA_DIR if args.scenes is None else data_with_scenes(args.scenes, Path(temporary))
            train_bench_model(data_dir, held_out=held, plan=plan, path=args.out, features=features)
        return 0
    if path.is_file():
        print(f"{path} exists ({held.describe()})")
        return 0
    print(f"training {held.describe()}", flush=True)
    train_bench_model(held_out=held)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
