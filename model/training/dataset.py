"""The labelled real data: board squares and single-square tiles, each with a group id.

Groups keep every photo of one physical kingdom (boards) or one source photo (tiles) on the same side
of a cross-validation split, so the figures measure unseen kingdoms and photos, not re-photographs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from kingdomino.board import Square, Terrain
from kingdomino.labels import LABEL_INDEX

#: The copy of the real data that ships with the repository (not with the wheel).
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "real"

BOARD_SOURCE = "board"
TILE_SOURCE = "tile"
SCENE_SOURCE = "scene"
#: Squares cut from generated whole-table scenes of training kingdoms (benchmarks.scene_squares writes
#: them), in this folder of the data directory, described by its SCENE_LABELS.
SCENE_FOLDER = "scene_squares"
#: The prefix of a tile's training group, which names its source photo (its tiles share a camera and light).
PHOTO_GROUP = "photo-"


def photo_group(source_photo: str) -> str:
    """The training group of the squares of one tile source photo."""
    return f"{PHOTO_GROUP}{source_photo}"


def kingdom_group(kingdom_id: str) -> str:
    """The training group of the squares of one kingdom (its board photos and their scenes)."""
    return f"kingdom-{kingdom_id}"


#: The kingdom id of a scene tiled from single tiles: its squares are grouped one by one (labels' "groups").
TILED_KINGDOM = "tiled"
SCENE_DIR = DEFAULT_DATA_DIR / SCENE_FOLDER
SCENE_LABELS = "labels.json"
#: Tile labels the photos contradict, next to labels.json (see its "description").
CORRECTIONS_FILE = "label_corrections.json"


@dataclass
class BoardPhoto:
    """One cropped top-down board photo with its 5×5 labels (row-major label indices)."""

    name: str
    image: np.ndarray
    labels: np.ndarray
    kingdom_id: str


@dataclass
class SquareSet:
    """Square crops with joint label index, group id and where they came from."""

    images: list[np.ndarray] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.images)

    def extend(self, other: SquareSet) -> None:
        for mine, theirs in zip(
            (self.images, self.labels, self.groups, self.sources, self.names),
            (other.images, other.labels, other.groups, other.sources, other.names),
            strict=True,
        ):
            mine.extend(theirs)


def _read_labels(data_dir: Path) -> dict:
    return json.loads((data_dir / "labels.json").read_text(encoding="utf-8"))


def _label_index(terrain: str, crowns: int) -> int:
    return LABEL_INDEX[Square(Terrain(terrain), int(crowns))]


def load_boards(data_dir: Path = DEFAULT_DATA_DIR) -> list[BoardPhoto]:
    """Every labelled board photo, in file-number order."""
    boards = _read_labels(data_dir)["boards"]
    photos = []
    for name in sorted(boards, key=lambda n: int(Path(n).stem) if Path(n).stem.isdigit() else n):
        entry = boards[name]
        path = data_dir / "boards" / name
        if not path.exists():
            continue
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        grid = entry["grid"]
        labels = np.array([_label_index(cell["terrain"], cell["crowns"]) for row in grid for cell in row])
        photos.append(BoardPhoto(name, image, labels, kingdom_group(entry["kingdom_id"])))
    return photos


def board_squares(photo: BoardPhoto) -> list[np.ndarray]:
    """The N×N square crops of a board photo, row-major."""
    size = int(round(len(photo.labels) ** 0.5))
    height, width = photo.image.shape[:2]
    ys = np.linspace(0, height, size + 1).round().astype(int)
    xs = np.linspace(0, width, size + 1).round().astype(int)
    return [photo.image[ys[r] : ys[r + 1], xs[c] : xs[c + 1]] for r in range(size) for c in range(size)]


def load_board_squares(photos: list[BoardPhoto]) -> SquareSet:
    squares = SquareSet()
    for photo in photos:
        for position, (crop, label) in enumerate(zip(board_squares(photo), photo.labels, strict=True)):
            squares.images.append(crop)
            squares.labels.append(int(label))
            squares.groups.append(photo.kingdom_id)
            squares.sources.append(BOARD_SOURCE)
            squares.names.append(f"{photo.name}#{position // 5},{position % 5}")
    return squares


class LabelCorrectionError(Exception):
    """The label corrections file cannot be applied; the message says which entry and why."""


def _correction(fix: dict, shipped: dict[str, dict]) -> tuple[int, int]:
    """(shipped, corrected) label index of one entry of the corrections file."""
    entry, was = shipped.get(fix["image"]), fix["labelled"]
    if entry is None:
        raise LabelCorrectionError(f"{CORRECTIONS_FILE}: {fix['image']} is not a tile in labels.json")
    if (entry["terrain"], entry["crowns"]) != (was["terrain"], was["crowns"]):
        shipped_as, said = f"{entry['terrain']} {entry['crowns']}", f"{was['terrain']} {was['crowns']}"
        raise LabelCorrectionError(
            f"{CORRECTIONS_FILE}: {fix['image']} is {shipped_as} in labels.json, not {said}"
        )
    return _label_index(entry["terrain"], entry["crowns"]), _label_index(fix["terrain"], fix["crowns"])


def tile_label_corrections(data_dir: Path = DEFAULT_DATA_DIR) -> dict[str, tuple[int, int]]:
    """image path -> (label index as shipped in labels.json, corrected label index).

    Some folder labels of the tile set contradict the photo (a crown in full view on a "0 crowns"
    tile, a mine filed as a swamp); training on them teaches the error and scoring against them
    counts right readings as wrong. Each correction is checked against the label it replaces.
    """
    path = data_dir / CORRECTIONS_FILE
    if not path.is_file():
        return {}
    shipped = {entry["image"]: entry for entry in _read_labels(data_dir)["tiles_spetryk"]}
    try:
        fixes = json.loads(path.read_text(encoding="utf-8"))["tiles"]
        return {fix["image"]: _correction(fix, shipped) for fix in fixes}
    except (KeyError, TypeError, ValueError) as error:  # malformed JSON, a missing field, an unknown terrain
        raise LabelCorrectionError(f"{CORRECTIONS_FILE} cannot be read: {error!r}") from None


def data_problem(data_dir: Path) -> str | None:
    """Why the training data in ``data_dir`` cannot be used (one line), or None when it can."""
    if not (data_dir / "labels.json").is_file():
        return f"no labels.json in {data_dir}"
    try:
        tile_label_corrections(data_dir)
    except LabelCorrectionError as error:
        return str(error)
    return None


def load_tiles(data_dir: Path = DEFAULT_DATA_DIR) -> SquareSet:
    """The single-square tile crops (other phones, other tables), grouped by source photo, with the
    label corrections applied."""
    tiles = SquareSet()
    corrections = tile_label_corrections(data_dir)
    for entry in _read_labels(data_dir)["tiles_spetryk"]:
        image = cv2.imread(str(data_dir / entry["image"]), cv2.IMREAD_COLOR)
        if image is None:
            continue
        label = _label_index(entry["terrain"], entry["crowns"])
        tiles.images.append(image)
        tiles.labels.append(corrections.get(entry["image"], (label, label))[1])
        tiles.groups.append(photo_group(entry["source_photo"]))
        tiles.sources.append(TILE_SOURCE)
        tiles.names.append(entry["image"])
    return tiles


def scene_digest(data_dir: Path = DEFAULT_DATA_DIR) -> str:
    """Digest of the scene squares ('' when there are none): their labels file and every JPEG it names, since
    the squares may be cut again (a change in the scanner's cut) under the same labels."""
    path = data_dir / SCENE_FOLDER / SCENE_LABELS
    if not path.is_file():
        return ""
    digest = hashlib.sha256(path.read_bytes())
    for name in sorted(json.loads(path.read_text(encoding="utf-8"))["scenes"]):
        image = path.parent / name
        digest.update(image.read_bytes() if image.is_file() else b"")
    return digest.hexdigest()[:12]


def load_scene_squares(data_dir: Path = DEFAULT_DATA_DIR) -> tuple[SquareSet, list[int]]:
    """The squares cut from generated whole-table scenes (none when the folder is missing), grouped with
    their kingdom (or, in a scene tiled from single tiles, with the group its labels name for the square:
    its tile's source photo), and the index of each square's scene (its photo)."""
    squares, photos = SquareSet(), []
    folder = data_dir / SCENE_FOLDER
    if not (folder / SCENE_LABELS).is_file():
        return squares, photos
    scenes = json.loads((folder / SCENE_LABELS).read_text(encoding="utf-8"))["scenes"]
    for index, name in enumerate(sorted(scenes)):
        entry = scenes[name]
        image = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        grid = entry["grid"]
        n = len(grid)
        groups = entry.get("groups") or [[kingdom_group(entry["kingdom_id"])] * n] * n
        if entry["kingdom_id"] == TILED_KINGDOM and "groups" not in entry:
            raise ValueError(f"{name}: a tiled scene without its squares' groups (regenerate the scenes)")
        if image is None or image.shape[0] != image.shape[1] or image.shape[0] % n:
            continue
        side = image.shape[0] // n
        for r, row in enumerate(grid):
            for c, cell in enumerate(row):
                squares.images.append(image[r * side : (r + 1) * side, c * side : (c + 1) * side])
                squares.labels.append(_label_index(cell["terrain"], cell["crowns"]))
                squares.groups.append(groups[r][c])
                squares.sources.append(SCENE_SOURCE)
                squares.names.append(f"{name}#{r},{c}")
                photos.append(index)
    return squares, photos
