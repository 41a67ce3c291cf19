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

    options = (
        ["--colour-swap", "1.0"],
        ["--seed", "8"],
        ["--white-error", "1.0"],
        ["--spots"],
        ["--scenes", "x"],
    )
    for option in options:
        with pytest.raises(SystemExit):
            main(["--outside", *option])
        assert "need --out" in capsys.readouterr().err


def test_a_data_view_with_other_scenes_reads_those_scenes_and_everything_else_as_shipped(tmp_path) -> None:
    import shutil

    import pytest

    from benchmarks.bench_model import data_with_scenes
    from model.features import FeatureConfig
    from model.training.dataset import SCENE_DIR, SCENE_LABELS, load_scene_squares, scene_digest
    from model.training.feature_table import AugmentPlan, cache_key

    labels = json.loads((SCENE_DIR / SCENE_LABELS).read_text(encoding="utf-8"))
    name = sorted(labels["scenes"])[-1]
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    shutil.copy(SCENE_DIR / name, scenes / name)
    (scenes / SCENE_LABELS).write_text(json.dumps({**labels, "scenes": {name: labels["scenes"][name]}}))
    view = data_with_scenes(scenes, tmp_path / "data")
    squares, _ = load_scene_squares(view)
    n = len(labels["scenes"][name]["grid"])
    assert squares.names == [f"{name}#{r},{c}" for r in range(n) for c in range(n)]
    assert (view / "labels.json").read_bytes() == (DATA_DIR / "labels.json").read_bytes()
    assert sorted(p.name for p in view.iterdir()) == sorted(p.name for p in DATA_DIR.iterdir())
    assert scene_digest(view) != scene_digest(DATA_DIR)
    assert cache_key(FeatureConfig(), AugmentPlan(), view) != cache_key(
        FeatureConfig(), AugmentPlan(), DATA_DIR
    )
    with pytest.raises(ValueError, match="no labels.json"):
        data_with_scenes(tmp_path / "nowhere", tmp_path / "other")


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
