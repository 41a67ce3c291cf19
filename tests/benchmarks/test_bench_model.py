"""The bench models leave out exactly the material their bench is built from."""

from __future__ import annotations

import json

from benchmarks.bench_model import DATA_DIR, HARD, HELD_OUT_KINGDOMS, bench_model_path, outside_held_out
from benchmarks.outside import hard as outside_hard


def test_the_independent_bench_model_holds_out_every_board_and_tile_its_hard_photos_are_built_from() -> None:
    labels = json.loads((DATA_DIR / "labels.json").read_text())
    held = outside_held_out()
    groups = set(held.groups)
    for name in outside_hard.holdout_boards():
        assert f"kingdom-{labels['boards'][name]['kingdom_id']}" in groups
    tiles = {tile["image"]: tile["source_photo"] for tile in labels["tiles_spetryk"]}
    used = [path.split("data/real/")[-1] for path in outside_hard.holdout_tiles()]
    assert used and all(f"photo-{tiles[image]}" in groups for image in used)


def test_each_bench_has_its_own_model_file_and_the_hard_bench_keeps_its_name() -> None:
    assert HARD.kingdoms == HELD_OUT_KINGDOMS
    hard, outside = bench_model_path(held=HARD), bench_model_path(held=outside_held_out())
    assert hard != outside
    assert hard.name.startswith("bench-model-") and not hard.name.startswith("bench-model-outside")
    assert outside.name.startswith("bench-model-outside-")


def test_the_hard_bench_model_keeps_the_digest_it_was_cached_under() -> None:
    import hashlib

    import sklearn

    from model.features import FeatureConfig
    from model.training.estimators import DEFAULT_ESTIMATOR
    from model.training.feature_table import AugmentPlan, cache_key

    text = json.dumps(
        [
            HELD_OUT_KINGDOMS,
            cache_key(FeatureConfig(), AugmentPlan(), DATA_DIR),
            DEFAULT_ESTIMATOR,
            sklearn.__version__,
        ]
    )
    assert (
        bench_model_path(held=HARD).name
        == f"bench-model-{hashlib.sha256(text.encode()).hexdigest()[:12]}.joblib"
    )


def test_a_variant_plan_or_another_seed_is_never_written_over_the_cached_bench_model(capsys) -> None:
    import pytest

    from benchmarks.bench_model import main

    for option in (["--colour-swap", "1.0"], ["--seed", "8"], ["--white-error", "1.0"], ["--spots"]):
        with pytest.raises(SystemExit):
            main(["--outside", *option])
        assert "need --out" in capsys.readouterr().err


def test_a_variant_trained_without_its_own_path_is_refused_before_any_training() -> None:
    import pytest

    from benchmarks.bench_model import train_bench_model
    from model.features import FeatureConfig
    from model.training.feature_table import AugmentPlan

    with pytest.raises(ValueError, match="own path"):
        train_bench_model(features=FeatureConfig(spots=True), verbose=False)
    with pytest.raises(ValueError, match="own path"):
        train_bench_model(plan=AugmentPlan(seed=8), verbose=False)


def test_the_pieces_choice_is_the_scanners_reading_from_its_construction() -> None:
    from benchmarks.bench_model import reading_for
    from scanner.reading import DEFAULT_READING

    assert reading_for(None) == (DEFAULT_READING, "")
    off, said = reading_for("off")
    assert not off.pieces and said == ", pieces off"
    assert reading_for("on")[0].pieces and off == DEFAULT_READING.__class__(pieces=False)
