"""The label audit's look-alike search and contact sheets."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from kingdomino.board import Square, Terrain
from kingdomino.labels import LABEL_INDEX
from model.evaluation import label_audit
from model.evaluation.label_audit import audit, look_alikes
from model.training.feature_table import TILE_SOURCE, FeatureTable

SWAMP, SWAMP1 = LABEL_INDEX[Square(Terrain.SWAMP, 0)], LABEL_INDEX[Square(Terrain.SWAMP, 1)]


def _artworks(count: int) -> np.ndarray:
    """(count, 32, 32, 3) distinct random-blob thumbnails."""
    rng = np.random.default_rng(3)
    noise = rng.random((count, 32, 32)).astype(np.float32)
    blurred = np.stack([cv2.GaussianBlur(image, (0, 0), 2.0) for image in noise])
    grey = (255 * (blurred - blurred.min()) / np.ptp(blurred)).astype(np.uint8)
    return np.repeat(grey[..., None], 3, axis=3)


def test_a_turned_and_shifted_copy_in_another_fold_is_the_look_alike():
    thumbs = _artworks(4)
    copy = np.roll(np.rot90(thumbs[0], 1), (1, -2), axis=(0, 1))
    thumbs = np.concatenate([thumbs, copy[None], thumbs[:1]])
    folds = np.array([0, 0, 1, 1, 1, 0])  # the last one is an exact copy, but in the same fold
    similarity, index = look_alikes(thumbs, folds)
    assert index[0] == 4 and similarity[0] > 0.9
    assert index[4] in (0, 5)
    assert all(folds[index] != folds)


def test_the_audit_lays_out_each_misread_tile_with_its_look_alike(tmp_path: Path):
    thumbs = _artworks(4)
    names = [f"tiles_spetryk/swamp_0/t{i}.jpg" for i in range(4)]
    for name, thumb in zip(names, thumbs, strict=True):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(tmp_path / name), cv2.resize(thumb, (63, 63)))
    n = len(names)
    table = FeatureTable(
        features=np.zeros(n),
        thumbs=thumbs,
        crown_maps=np.zeros(n),
        crown_peaks=np.zeros(n),
        labels=np.full(n, SWAMP),
        groups=np.array([f"photo-{i}" for i in range(n)]),
        sources=np.full(n, TILE_SOURCE),
        original=np.ones(n, bool),
        sample=np.arange(n),
        names=np.array(names),
    )
    read = np.eye(len(LABEL_INDEX))[[SWAMP1, SWAMP, SWAMP, SWAMP]]  # only t0 misread
    lines = audit(table, np.arange(n), read, np.arange(n), tmp_path, tmp_path / "audit")
    assert len(lines) == 1 and "t0.jpg\tlabelled swamp\tread swamp1 (1.00)\tlook-alike" in lines[0]
    assert cv2.imread(str(tmp_path / "audit" / "sheet-0.png")).shape[0] > 0
    assert (tmp_path / "audit" / "misread.tsv").read_text().count("\n") == 1


def test_without_a_cached_cross_validation_the_audit_says_what_to_run(tmp_path: Path, monkeypatch, capsys):
    import model.training.calibration

    monkeypatch.setattr(model.training.calibration, "oof_cache_path", lambda *args: tmp_path / "missing.npz")
    assert label_audit.main(["--out", str(tmp_path / "audit")]) == 2
    assert "run python -m model.evaluation" in capsys.readouterr().out
    assert not (tmp_path / "audit").exists()
