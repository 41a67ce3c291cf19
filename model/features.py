"""Feature vectors of square crops, computed in batches with numpy/OpenCV (no deep learning).

Every crop is resized to SIDE×SIDE first, so any input size (40-300 px) gives the same features.
Groups (each can be switched off in FeatureConfig to measure what it brings):
- colour: hue/saturation, Lab a/b and lightness histograms, centre-vs-edge means (rotation invariant);
- lbp: uniform local-binary-pattern histograms at two radii (texture, rotation invariant);
- hog: gradient-orientation histograms on a cell grid at two scales (shape; not rotation invariant, so the
  classifier averages over the four quarter turns);
- ring: gradient orientation relative to the centre, pooled in rings (shape, rotation invariant);
- crown: masks of crown-gold and crown-outline white pixels, their amounts along the edges and blob counts;
- crown_map: where those pixels are, on an 8×8 grid (lets the estimator count icons in a row);
- pixels: a coarse Lab thumbnail;
- spots (off by default): small bright blobs on a darker surround and small dark blobs on a brighter one
  (white and black top-hats) in the middle of the square, measured against the square's own brightness:
  grassland's sheep and wheat's birds, which tell the two apart when the light makes their colours alike;
- crown_tmpl: a crown-icon template (white rim, 17×21 px at SIDE) matched in its four quarter turns on the
  "whiteness" (smallest channel after white-patch) of the crop; the strongest separate peaks, sorted, and how
  many pass each of a few levels: a direct count of crown icons.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import cached_property

import cv2
import numpy as np

SIDE = 64
THUMB = 8  # thumbnail and crown-map grid


#: Blocks added after models were saved without them: left out of ``to_dict`` while off, so a configuration
#: without them keeps the key (and the cached feature tables and models) it had before.
OFF_BY_DEFAULT = ("spots",)


@dataclass(frozen=True)
class FeatureConfig:
    colour: bool = True
    lbp: bool = True
    hog: bool = True
    ring: bool = True
    crown: bool = True
    crown_map: bool = True
    pixels: bool = True
    crown_tmpl: bool = True
    photo_colour: bool = True
    #: small bright and dark spots against the square's own brightness (sheep, birds); off by default, so
    #: the cached models keep their configuration; see docs/experiments.md, "Sheep and birds"
    spots: bool = False

    def to_dict(self) -> dict:
        out = asdict(self)
        for name in OFF_BY_DEFAULT:
            if not out[name]:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, stored: dict) -> FeatureConfig:
        """A saved configuration; groups it does not mention did not exist then, so they are off."""
        return cls(**{name: bool(stored.get(name, False)) for name in cls.__dataclass_fields__})


def turned(crops: np.ndarray, degrees: float) -> np.ndarray:
    """(n, S, S, 3) crops turned by ``degrees`` about their centre, the corners filled by reflection."""
    side = crops.shape[1]
    matrix = cv2.getRotationMatrix2D(((side - 1) / 2, (side - 1) / 2), degrees, 1.0)
    return np.stack(
        [cv2.warpAffine(crop, matrix, (side, side), borderMode=cv2.BORDER_REFLECT_101) for crop in crops]
    ).reshape(crops.shape)


def normalise_crops(images: Sequence[np.ndarray]) -> np.ndarray:
    """Stack crops as (n, SIDE, SIDE, 3) uint8 BGR; grey or BGRA input is converted."""
    out = np.empty((len(images), SIDE, SIDE, 3), dtype=np.uint8)
    for index, image in enumerate(images):
        if image.ndim == 2 or image.shape[2] == 1:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        elif image.shape[2] == 4:
            image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        shrinking = image.shape[0] > SIDE or image.shape[1] > SIDE
        out[index] = cv2.resize(
            image, (SIDE, SIDE), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR
        )
    return out


class CropViews:
    """A batch of normalised (n, SIDE, SIDE, 3) crops and the intermediates that several feature stages
    share (the fixed blocks here, the crown detector's cell maps): each is computed once, on first use.

    ``white_points``: (n, 3) the white level of each crop's photo (see ``photo_white_point``); by default
    each crop is its own photo.
    """

    def __init__(self, crops: np.ndarray, white_points: np.ndarray | None = None) -> None:
        self.crops = crops
        self._white_points = white_points

    @cached_property
    def white_points(self) -> np.ndarray:
        if self._white_points is not None:
            return np.asarray(self._white_points, dtype=np.float32).reshape(len(self.crops), 3)
        return self.white_levels.astype(np.float32)

    @cached_property
    def white_levels(self) -> np.ndarray:
        """(n, 3) each crop's own 99th percentile per channel (see _white_levels)."""
        return _white_levels(self.crops)

    @cached_property
    def gray(self) -> np.ndarray:
        """(n, SIDE, SIDE) uint8 grey crops."""
        flat = cv2.cvtColor(self.crops.reshape(-1, SIDE, 3), cv2.COLOR_BGR2GRAY)
        return flat.reshape(self.crops.shape[:3])

    @cached_property
    def gradient_steps(self) -> tuple[np.ndarray, np.ndarray]:
        """Central differences (x, y) of the grey crops, int16 in [-255, 255], 0 on the border."""
        gray = self.gray.astype(np.int16)
        step_x = np.zeros_like(gray)
        step_y = np.zeros_like(gray)
        step_x[:, :, 1:-1] = gray[:, :, 2:] - gray[:, :, :-2]
        step_y[:, 1:-1, :] = gray[:, 2:, :] - gray[:, :-2, :]
        return step_x, step_y

    @cached_property
    def step_index(self) -> np.ndarray:
        """Each pixel's gradient as an index into the (511, 511) tables of every step (y, x) two uint8
        pixels can differ by (see ``direction_table``)."""
        step_x, step_y = self.gradient_steps
        return (step_y.astype(np.int32) + 255) * 511 + (step_x + 255)

    @cached_property
    def gradients(self) -> tuple[np.ndarray, np.ndarray]:
        """Gradient magnitude and direction (radians) of the grey crops, float32: np.hypot and np.arctan2
        of the steps, looked up (the same numbers in a third of the time)."""
        return _STEP_MAGNITUDES.take(self.step_index), _STEP_DIRECTIONS.take(self.step_index)

    def direction_bins(self, table: np.ndarray) -> np.ndarray:
        """Per-pixel orientation bins looked up in a ``direction_table``."""
        return table.ravel().take(self.step_index)

    @cached_property
    def cell_histograms(self) -> np.ndarray:
        """(n, 16, 16, HOG_BINS) float64 magnitude-weighted orientation histograms of FINE_CELL px cells.

        The gradient histograms of the fixed blocks (8 and 16 px cells) and the crown detector's cell maps
        (4 px) are all sums of these. The sums are exact in float64 (magnitudes are float32 of at least 1
        or 0, a cell's sum under 2^15), so any cell size reads the same as binning its pixels directly.
        """
        return _orientation_histograms(
            self.gradients[0], self.direction_bins(_HOG_DIRECTIONS), HOG_BINS, FINE_CELL
        )

    @cached_property
    def balanced(self) -> np.ndarray:
        """The white-patch corrected crops (see _white_patch)."""
        return _white_patch(self.crops, self.white_levels)

    @cached_property
    def whiteness(self) -> np.ndarray:
        """(n, SIDE, SIDE) uint8 smallest channel of the balanced crops: high only on white (crown rims)."""
        balanced = self.balanced
        return np.minimum(np.minimum(balanced[..., 0], balanced[..., 1]), balanced[..., 2])


def photo_white_point(crops: np.ndarray) -> np.ndarray:
    """(3,) float32: each BGR channel's 99th percentile over all the (n, SIDE, SIDE, 3) crops of one photo.

    Every square of a photo is lit by the same lamp, and a kingdom holds something white (crown rims,
    castles, glare), so the photo's white level shows its colour cast better than any one square does."""
    return _white_levels(crops.reshape(1, -1, SIDE, 3))[0].astype(np.float32)


def crop_views(images: Sequence[np.ndarray] | np.ndarray | CropViews) -> CropViews:
    """``images`` as CropViews, normalised first unless they already are SIDE×SIDE BGR crops."""
    if isinstance(images, CropViews):
        return images
    if isinstance(images, np.ndarray) and images.shape[1:] == (SIDE, SIDE, 3):
        return CropViews(images)
    return CropViews(normalise_crops(images))


def _histograms(values: np.ndarray, bins: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-row normalised histogram of integer values in [0, bins) for a (n, m) array."""
    n = values.shape[0]
    offsets = (np.arange(n) * bins)[:, None]
    flat = (values.astype(np.int64) + offsets).ravel()
    counts = np.bincount(flat, weights=None if weights is None else weights.ravel(), minlength=n * bins)
    counts = counts.reshape(n, bins)
    return counts / np.maximum(counts.sum(axis=1, keepdims=True), 1e-9)


def _bin_table(levels: int, low: int = 0, high: int = 256) -> np.ndarray:
    """uint8 value -> bin number, ``levels`` equal bins over [low, high) (values outside are clipped)."""
    values = np.arange(256)
    return np.clip((values - low) * levels // (high - low), 0, levels - 1).astype(np.int64)


_HUE_BINS = _bin_table(18, 0, 180)
_SAT_BINS = _bin_table(4)
_LEVEL8 = _bin_table(8)
_AB_BINS = _bin_table(8, 64, 192)


def _colour_features(hsv: np.ndarray, lab: np.ndarray, lab_thumbs: np.ndarray) -> np.ndarray:
    """Histograms of 2×2 block means (plenty for colour), means from the 8×8 thumbnail."""
    n = hsv.shape[0]
    hsv = block_means(hsv, SIDE // 2).reshape(n, -1, 3)
    lab = block_means(lab, SIDE // 2)
    hue_sat = _histograms(_HUE_BINS[hsv[..., 0]] * 4 + _SAT_BINS[hsv[..., 1]], 72)
    value_hist = _histograms(_LEVEL8[hsv[..., 2]], 8)
    ab = _histograms((_AB_BINS[lab[..., 1]] * 8 + _AB_BINS[lab[..., 2]]).reshape(n, -1), 64)
    lightness = _histograms(_LEVEL8[lab[..., 0]].reshape(n, -1), 8)
    inner = slice(THUMB // 4, THUMB - THUMB // 4)
    centre_mean = lab_thumbs[:, inner, inner].mean(axis=(1, 2))
    overall_mean = lab_thumbs.mean(axis=(1, 2))
    overall_std = np.array([cv2.meanStdDev(crop)[1].ravel() for crop in lab]) / 255.0
    return np.hstack([hue_sat, value_hist, ab, lightness, centre_mean, overall_mean, overall_std])


#: The photo-colour block keeps the colour block's hue×saturation and a×b histograms and its Lab means.
_PHOTO_COLOUR_COLUMNS = np.r_[0:72, 80:144, 152:158]


def _photo_colour_features(crops: np.ndarray, white_points: np.ndarray) -> np.ndarray:
    """Colour histograms of the crops with their photo's cast taken out (each channel scaled so the photo's
    white level turns grey, the gains divided by their mean to keep the brightness).

    Grassland under a yellow lamp looks like wheat in daylight; beside the other squares of its photo it
    does not. The plain colour block stays, so the model can learn when to trust which (a brown wooden
    table turns mustard once the session's orange cast is taken out).
    """
    gains = np.clip(255.0 / np.maximum(white_points, 1.0), 0.8, 3.0)
    gains = (gains / gains.mean(axis=1, keepdims=True)).astype(np.float32)
    balanced = np.clip(crops * gains[:, None, None, :] + 0.5, 0, 255).astype(np.uint8)
    flat = balanced.reshape(-1, SIDE, 3)
    hsv = cv2.cvtColor(flat, cv2.COLOR_BGR2HSV).reshape(balanced.shape)
    lab = cv2.cvtColor(flat, cv2.COLOR_BGR2LAB).reshape(balanced.shape)
    return _colour_features(hsv, lab, _lab_thumbnails(lab))[:, _PHOTO_COLOUR_COLUMNS]


def _uniform_lbp_table() -> np.ndarray:
    """Map 8-bit patterns to rotation-invariant uniform codes: 0-8 ones for uniform patterns, 9 otherwise."""
    table = np.empty(256, dtype=np.int64)
    for pattern in range(256):
        bits = [(pattern >> i) & 1 for i in range(8)]
        transitions = sum(bits[i] != bits[(i + 1) % 8] for i in range(8))
        table[pattern] = sum(bits) if transitions <= 2 else 9
    return table


#: (256, 10) 0/1: which code each pattern counts towards.
_LBP_CODES = (_uniform_lbp_table()[:, None] == np.arange(10)[None]).astype(np.float64)


_LBP_NEIGHBOURS = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]


def _lbp_features(gray: np.ndarray) -> np.ndarray:
    """Uniform LBP histograms (8 neighbours at radius 1 and 2), batched in numpy."""
    parts = []
    for radius in (1, 2):
        centre = gray[:, radius:-radius, radius:-radius]
        size = SIDE - 2 * radius
        code = np.zeros(centre.shape, dtype=np.uint8)
        bit_set = np.empty(centre.shape, dtype=bool)
        for bit, (dy, dx) in enumerate(_LBP_NEIGHBOURS):
            y0, x0 = radius + dy * radius, radius + dx * radius
            np.greater_equal(gray[:, y0 : y0 + size, x0 : x0 + size], centre, out=bit_set)
            code |= bit_set.view(np.uint8) << np.uint8(bit)
        # the 256 patterns counted per crop, then summed into the 10 codes: fewer passes than looking up
        # every pixel's code first
        offsets = (np.arange(len(gray)) * 256)[:, None]
        patterns = np.bincount((code.reshape(len(gray), -1) + offsets).ravel(), minlength=256 * len(gray))
        counts = patterns.reshape(len(gray), 256) @ _LBP_CODES
        parts.append(counts / np.maximum(counts.sum(axis=1, keepdims=True), 1e-9))
    return np.hstack(parts)


def _step_tables() -> tuple[np.ndarray, np.ndarray]:
    """Flat (511·511) float32 magnitude and direction of every gradient (y, x) two uint8 pixels can differ
    by (the meshgrid is only needed to build them)."""
    steps_y, steps_x = np.meshgrid(*[np.arange(-255, 256, dtype=np.float32)] * 2, indexing="ij")
    return np.hypot(steps_y, steps_x).ravel(), np.arctan2(steps_y, steps_x).ravel()


_STEP_MAGNITUDES, _STEP_DIRECTIONS = _step_tables()


def direction_table(binning: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """(511, 511) uint8 ``binning(direction)`` of every gradient (y, x) two uint8 pixels can differ by.

    A crop's gradients are integer steps, so its orientation bins are one table lookup per pixel, the same
    numbers as computing them from the float32 direction, at a fraction of the cost.
    """
    return binning(_STEP_DIRECTIONS.reshape(511, 511)).astype(np.uint8)


def _orientation_histograms(magnitude: np.ndarray, bins: np.ndarray, n_bins: int, cell: int) -> np.ndarray:
    """(n, S/cell, S/cell, n_bins) magnitude-weighted orientation histograms."""
    n = magnitude.shape[0]
    cells = SIDE // cell
    cell_index = (np.arange(SIDE) // cell)[:, None] * cells + (np.arange(SIDE) // cell)[None, :]
    index = (np.arange(n)[:, None, None] * cells * cells + cell_index[None]) * n_bins + bins
    hist = np.bincount(index.ravel(), weights=magnitude.ravel(), minlength=n * cells * cells * n_bins)
    return hist.reshape(n, cells, cells, n_bins)


HOG_BINS = 8  # 22.5° bins: a quarter turn of the square is an exact shift by 4 bins
HOG_CELLS = (8, 16)
FINE_CELL = 4  # the cells every gradient histogram is summed from (see CropViews.cell_histograms)


#: Unsigned orientation (mod 180°) in HOG_BINS bins.
_HOG_DIRECTIONS = direction_table(
    lambda direction: (np.mod(direction, np.pi) * HOG_BINS / np.pi + 1e-4).astype(np.int64) % HOG_BINS
)


def _hog_features(views: CropViews) -> np.ndarray:
    fine = views.cell_histograms
    parts = []
    for cell in HOG_CELLS:
        cells, per_cell = SIDE // cell, cell // FINE_CELL
        hist = fine.reshape(len(fine), cells, per_cell, cells, per_cell, HOG_BINS).sum(axis=(2, 4))
        energy = np.pad((hist**2).sum(axis=3), ((0, 0), (1, 1), (1, 1)))
        block = sum(
            energy[:, dy : dy + hist.shape[1], dx : dx + hist.shape[2]] for dy in range(3) for dx in range(3)
        )
        hist = np.minimum(hist / np.sqrt(block[..., None] + 1e-3), 0.4)
        parts.append(hist.reshape(len(hist), -1))
    return np.hstack(parts)


_COORDS = np.arange(SIDE) - (SIDE - 1) / 2
_YY, _XX = np.meshgrid(_COORDS, _COORDS, indexing="ij")
#: Direction from the crop's centre to each pixel (never ±180°: the pixel centres are off the axes).
_RADIAL_ANGLE = np.arctan2(_YY, _XX)
_RING = np.minimum((np.maximum(np.abs(_XX), np.abs(_YY)) / (SIDE / 2) * 4).astype(np.int64), 3)
RING_BINS = 6


def _half_turn_remainder(angle: np.ndarray) -> np.ndarray:
    """np.mod(angle, np.pi) for angles in (-2π, 2π), bit for bit, in fewer passes than np.mod.

    Adding or subtracting π to an angle of at least π in size is exact (Sterbenz), as is np.mod's fmod;
    what is left negative gets π added, which np.mod rounds the same way.
    """
    folded = angle - np.pi * (angle >= np.pi) + np.pi * (angle <= -np.pi)
    folded += np.pi * (folded < 0)
    return folded


def _ring_features(magnitude: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """Orientation of the gradient relative to the direction from the centre, pooled in 4 rings."""
    relative = _half_turn_remainder(direction - _RADIAL_ANGLE[None])
    bins = np.minimum((relative * RING_BINS / np.pi).astype(np.int64), RING_BINS - 1)
    index = _RING[None] * RING_BINS + bins
    n = magnitude.shape[0]
    weights = magnitude.reshape(n, -1)
    hist = _histograms(index.reshape(n, -1), 4 * RING_BINS, weights)
    total = weights.mean(axis=1, keepdims=True) / 50.0
    return np.hstack([hist, total])


def _crown_masks(hsv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixels that look like crown gold and like the white rim around crown icons."""
    hue = hsv[..., 0].astype(np.int32)
    saturation = hsv[..., 1].astype(np.int32)
    value = hsv[..., 2].astype(np.int32)
    gold = (hue >= 15) & (hue <= 38) & (saturation >= 70) & (value >= 150)
    white = (saturation <= 70) & (value >= 170)
    return gold, white


def _crown_map_features(gold: np.ndarray, white: np.ndarray) -> np.ndarray:
    maps = np.stack([gold, white, gold & ~white], axis=-1).astype(np.float32)
    return block_means(maps, THUMB).reshape(len(maps), -1)


def _stacked(images: np.ndarray, gap: int, fill) -> np.ndarray:
    """(n, S, S) images one above the other with ``gap`` rows of ``fill`` after each, as one image: one
    OpenCV call then serves the whole batch, and nothing reaches across a gap wider than the operation."""
    n, side = images.shape[0], images.shape[2]
    canvas = np.full((n, side + gap, side), fill, dtype=images.dtype)
    canvas[:, :side] = images
    return canvas.reshape(n * (side + gap), side)


def _unstacked(canvas: np.ndarray, n: int, gap: int) -> np.ndarray:
    return canvas.reshape(n, -1, canvas.shape[1])[:, : canvas.shape[0] // n - gap]


_BLOB_AREAS = np.array([6, 30, 120])


def _blobs(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, area) of every 8-connected blob of the (n, h, w) masks: the mask it lies in (by its top row:
    no blob reaches across the gaps between the stacked masks) and its pixels."""
    _, _, stats, _ = cv2.connectedComponentsWithStats(_stacked(masks.view(np.uint8), 1, 0), connectivity=8)
    return stats[1:, cv2.CC_STAT_TOP] // (masks.shape[1] + 1), stats[1:, cv2.CC_STAT_AREA]


def _blob_counts(masks: np.ndarray) -> np.ndarray:
    """(n, 3) counts of 8-connected blobs of 6-29, 30-119 and 120+ pixels in each (n, S, S) mask."""
    owner, area = _blobs(masks)
    size = np.searchsorted(_BLOB_AREAS, area, side="right") - 1
    counted = size >= 0
    return np.bincount(owner[counted] * 3 + size[counted], minlength=masks.shape[0] * 3).reshape(-1, 3)


_EDGE_BAND = np.maximum(np.abs(_XX), np.abs(_YY)) > SIDE * 0.25


def _crown_features(gold: np.ndarray, white: np.ndarray) -> np.ndarray:
    """Crown icons: pale gold with a white rim, near the square's edges. Amounts and blob counts."""
    edge_band = _EDGE_BAND[None]
    n = gold.shape[0]
    gap = 2  # the dilation below reaches 2 pixels
    near_white = cv2.dilate(_stacked(white.view(np.uint8), gap, 0), np.ones((3, 3), np.uint8), iterations=2)
    crown_gold = gold & _unstacked(near_white, n, gap).astype(bool)
    blob_counts = np.log1p(np.hstack([_blob_counts(white), _blob_counts(crown_gold)]).astype(np.float32))
    amounts = np.stack(
        [
            gold.reshape(n, -1).mean(axis=1),
            white.reshape(n, -1).mean(axis=1),
            (gold & edge_band).reshape(n, -1).mean(axis=1),
            (white & edge_band).reshape(n, -1).mean(axis=1),
        ],
        axis=1,
    )
    return np.hstack([amounts, blob_counts])


def _white_levels(bgr: np.ndarray) -> np.ndarray:
    """(n, 3) int: each crop's first level per channel that holds 99 % of its pixels (its 99th percentile,
    as photo_white_point takes it over one crop)."""
    counts = np.array(
        [
            [cv2.calcHist([image], [channel], None, [256], [0, 256]).ravel() for channel in range(3)]
            for image in bgr
        ]
    ).reshape(-1, 3, 256)
    cumulative = np.cumsum(counts, axis=2)
    return (cumulative < 0.99 * cumulative[..., -1:]).sum(axis=2)


def _white_patch(bgr: np.ndarray, top: np.ndarray | None = None) -> np.ndarray:
    """Each channel scaled so its 99th percentile is white (the crown rims, a white castle or rock).

    A warm or cold cast of the lamp moves the white rims of crown icons off white; this puts them back.
    ``top``: the crops' _white_levels, when already computed.
    """
    if top is None:
        top = _white_levels(bgr)
    gain = np.clip(255.0 / np.maximum(top, 1), 0.8, 3.0).astype(np.float32)
    luts = np.minimum(np.arange(256, dtype=np.float32) * gain[..., None], 255.0).astype(np.uint8)
    out = np.empty_like(bgr)
    for index, image in enumerate(bgr):
        out[index] = cv2.LUT(image, luts[index].T[None])
    return out


#: Whiteness (smallest BGR channel after white-patch) of a crown icon at SIDE px per square, 17×21, upright:
#: the mean of the 7 upright crowns of data/real/boards/1.jpg, aligned by template matching.
_CROWN_TEMPLATE = np.frombuffer(
    bytes.fromhex(
        "383a393432323233332d2e2f2f2f2e2c292b2e32333534323136424d42342f36474a3f322f302f2f3034343944464c76"
        "8c78473251818b6f44464f47362f2f3d5f898979987e86663f6e93868b6782957f4d393844809b9f93977782794c7786"
        "7b967d9b9a98704a4c4080949096917a7a847d81686e9399827d91794b4e38698b797873585e545950445d6669575b7f"
        "5e404b3450847a5c393036322a26283b38364c6676423646323e74785732212d26151120302b3054745c31333f2c326a"
        "7a543e2e2d291b1a282e35465f7a4c30363a2d2f6293756853382f343338344964768d4f34303132315f9aadb6a18267"
        "565c697687a09c915638303332325390a9c5cccdbfb2b8c0c3bdaf9c874e393335312b36618fa4aab3bbc2c2b9aeaba0"
        "8d603a3332332c23223049607887949b99918c81694e3a3234322e2c2420252a2b313e4c4f4a45463e352f2c3237322a"
        "2c28292a29282b343c3b35323434302b2a3037342c"
    ),
    dtype=np.uint8,
).reshape(17, 21)
_CROWN_TEMPLATES = [
    np.ascontiguousarray(np.rot90(_CROWN_TEMPLATE, turns)).astype(np.float32) for turns in range(4)
]
TEMPLATE_PEAKS = 6
TEMPLATE_LEVELS = (0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def crown_template_peaks(crops: np.ndarray | CropViews) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores, ys, xs), each (n, TEMPLATE_PEAKS): the best separate matches of the crown template (any
    quarter turn) in each crop, best first (missing ones score 0 at position 0).

    Each turn's correlation map is placed at the template's centre (odd sizes: a turned crop gives the
    turned map exactly); peaks are local maxima of the best map over a 9×9 window. Each crop is matched on
    its own: OpenCV correlates through a DFT whose rounding depends on the image, so matching crops stacked
    together would make a crop's features depend on the others in its batch.
    """
    views = crop_views(crops)
    n = len(views.crops)
    scores = np.zeros((n, TEMPLATE_PEAKS), dtype=np.float32)
    ys = np.zeros((n, TEMPLATE_PEAKS), dtype=np.int64)
    xs = np.zeros((n, TEMPLATE_PEAKS), dtype=np.int64)
    if n == 0:
        return scores, ys, xs
    whiteness = views.whiteness.astype(np.float32)
    best = np.full((n, SIDE, SIDE), -1.0, dtype=np.float32)
    for image, image_best in zip(whiteness, best, strict=True):
        for template in _CROWN_TEMPLATES:
            height, width = template.shape
            matches = cv2.matchTemplate(image, template, cv2.TM_CCOEFF_NORMED)
            top, left = height // 2, width // 2
            region = image_best[top : top + matches.shape[0], left : left + matches.shape[1]]
            np.fmax(region, matches, out=region)  # fmax: a flat patch's NaN score is ignored
    gap = 4  # the 9×9 maximum below reaches 4 pixels
    local_max = _unstacked(cv2.dilate(_stacked(best, gap, -1.0), np.ones((9, 9), np.uint8)), n, gap)
    crop, peak_y, peak_x = np.nonzero((best >= local_max) & (best > 0.2))
    values = best[crop, peak_y, peak_x]
    order = np.lexsort((-values, crop))  # by crop, best first; a stable sort: ties stay in row-major order
    crop, peak_y, peak_x, values = crop[order], peak_y[order], peak_x[order], values[order]
    rank = np.arange(len(crop)) - np.searchsorted(crop, crop)  # place among its crop's peaks
    kept = rank < TEMPLATE_PEAKS
    scores[crop[kept], rank[kept]] = values[kept]
    ys[crop[kept], rank[kept]], xs[crop[kept], rank[kept]] = peak_y[kept], peak_x[kept]
    return scores, ys, xs


def _crown_template_features(views: CropViews) -> np.ndarray:
    """Best separate matches of the crown template (any quarter turn), sorted, and counts above levels."""
    peaks = crown_template_peaks(views)[0]
    counts = np.stack([(peaks >= level).sum(axis=1) for level in TEMPLATE_LEVELS], axis=1)
    return np.hstack([peaks, counts.astype(np.float32) / 3.0])


#: a disc 7 px wide, wider than a sheep or a bird at SIDE (OpenCV's ellipse is not the same turned)
_SPOT_KERNEL = ((np.arange(-3, 4)[:, None] ** 2 + np.arange(-3, 4)[None] ** 2) <= 10).astype(np.uint8)
_SPOT_MIDDLE = slice(SIDE // 8, SIDE - SIDE // 8)  # away from the tile's edges and the seams beside them
_SPOT_LEVELS = (0.12, 0.25)  # a spot's contrast, in shares of the square's mean brightness
_SPOT_AREAS = (2, 40)  # pixels of a spot's blob at SIDE (larger: a patch of the artwork, not a spot)


def _spot_counts(masks: np.ndarray) -> np.ndarray:
    """(n,) counts of 8-connected blobs of _SPOT_AREAS pixels in each (n, h, w) mask."""
    owner, area = _blobs(masks)
    kept = (area >= _SPOT_AREAS[0]) & (area <= _SPOT_AREAS[1])
    return np.bincount(owner[kept], minlength=masks.shape[0])


def _spot_features(crops: np.ndarray, gray: np.ndarray) -> np.ndarray:
    """Small bright spots of the smallest channel (white on green or yellow: sheep) and small dark spots of
    the grey crop (birds on wheat): white and black top-hats in the middle of the square, divided by its
    mean grey level so that a dim or coloured light changes them little. Per polarity: blob counts above
    each level (log), the share of the middle above the lowest level, the mean and 99th percentile."""
    n = len(crops)
    gap = _SPOT_KERNEL.shape[0] // 2 + 1
    smallest = np.minimum(np.minimum(crops[..., 0], crops[..., 1]), crops[..., 2])
    bright = cv2.morphologyEx(_stacked(smallest, gap, 0), cv2.MORPH_TOPHAT, _SPOT_KERNEL)
    dark = cv2.morphologyEx(_stacked(gray, gap, 255), cv2.MORPH_BLACKHAT, _SPOT_KERNEL)
    middle = gray[:, _SPOT_MIDDLE, _SPOT_MIDDLE]
    scale = np.maximum(middle.reshape(n, -1).mean(axis=1), 8.0).astype(np.float32)[:, None, None]
    parts = []
    for hats in (bright, dark):
        relative = _unstacked(hats, n, gap)[:, _SPOT_MIDDLE, _SPOT_MIDDLE].astype(np.float32) / scale
        counts = [_spot_counts(relative >= level) for level in _SPOT_LEVELS]
        flat = relative.reshape(n, -1)
        top = int(flat.shape[1] * 0.99)  # about the 99th percentile (a partition: no sort)
        parts.append(np.log1p(np.stack(counts, axis=1).astype(np.float32)))
        high = np.partition(flat, top, axis=1)[:, top]
        parts.append(np.stack([(flat >= _SPOT_LEVELS[0]).mean(axis=1), flat.mean(axis=1), high], axis=1))
    return np.hstack(parts)


def _lab_thumbnails(lab: np.ndarray) -> np.ndarray:
    """(n, THUMB, THUMB, 3) block means of the Lab crops, scaled to 0-1."""
    return block_means(lab.astype(np.float32) / 255.0, THUMB)


def block_means(images: np.ndarray, side: int) -> np.ndarray:
    """(n, side, side, c) means of the blocks of a batch of (n, S, S, c) images, S a multiple of ``side``.

    An area resize by a whole factor averages each block on its own, so one resize of the batch stacked
    into a single tall image gives every image's result, for one OpenCV call instead of one per image.
    """
    n, size, channels = images.shape[0], images.shape[1], images.shape[-1]
    if n == 0:
        return np.zeros((0, side, side, channels), dtype=images.dtype)
    stacked = images.reshape(n * size, size, channels)
    shrunk = cv2.resize(stacked, (side, n * side), interpolation=cv2.INTER_AREA)
    return shrunk.reshape(n, side, side, channels)


BLOCKS = (
    "colour",
    "lbp",
    "hog",
    "ring",
    "crown",
    "crown_map",
    "pixels",
    "crown_tmpl",
    "photo_colour",
    "spots",
)


def block_sizes(config: FeatureConfig) -> list[tuple[str, int]]:
    """(name, width) of each feature block in extraction order."""
    probe = np.zeros((1, SIDE, SIDE, 3), dtype=np.uint8)
    sizes = []
    for name in BLOCKS:
        if getattr(config, name):
            only = FeatureConfig(**{key: key == name for key in config.to_dict()})
            sizes.append((name, extract_features(probe, only).shape[1]))
    return sizes


def rotation_permutation(config: FeatureConfig, quarter_turns: int) -> np.ndarray:
    """Column order that turns the features of a crop into those of the crop turned by quarter_turns×90°.

    Colour, texture, ring and crown features do not change; the HOG cell grid and the thumbnail turn,
    and HOG orientations shift by half their bins. So rotated copies cost no feature extraction.
    """
    columns = []
    start = 0
    for name, width in block_sizes(config):
        index = np.arange(start, start + width)
        if name == "hog":
            pieces, offset = [], 0
            for cell in HOG_CELLS:
                cells = SIDE // cell
                grid = index[offset : offset + cells * cells * HOG_BINS].reshape(cells, cells, HOG_BINS)
                grid = np.rot90(grid, quarter_turns, axes=(0, 1))
                grid = np.roll(grid, (HOG_BINS // 2) * (quarter_turns % 2), axis=2)
                pieces.append(grid.ravel())
                offset += cells * cells * HOG_BINS
            index = np.concatenate(pieces)
        elif name in ("pixels", "crown_map"):
            index = np.rot90(index.reshape(THUMB, THUMB, 3), quarter_turns, axes=(0, 1)).ravel()
        columns.append(index)
        start += width
    return np.concatenate(columns)


def extract_features(
    images: Sequence[np.ndarray] | np.ndarray | CropViews, config: FeatureConfig = FeatureConfig()
) -> np.ndarray:
    """(n, d) float32 features of square crops (BGR uint8, any size)."""
    views = crop_views(images)
    crops = views.crops
    if len(crops) == 0:
        return np.zeros((0, feature_size(config)), dtype=np.float32)
    flat = crops.reshape(-1, SIDE, 3)
    hsv = cv2.cvtColor(flat, cv2.COLOR_BGR2HSV).reshape(crops.shape)
    lab = cv2.cvtColor(flat, cv2.COLOR_BGR2LAB).reshape(crops.shape)
    lab_thumbs = _lab_thumbnails(lab)
    parts = []
    if config.colour:
        parts.append(_colour_features(hsv, lab, lab_thumbs))
    if config.lbp:
        parts.append(_lbp_features(views.gray))
    if config.hog:
        parts.append(_hog_features(views))
    if config.ring:
        parts.append(_ring_features(*views.gradients))
    masks = _crown_masks(hsv) if config.crown or config.crown_map else None
    if config.crown:
        parts.append(_crown_features(*masks))
    if config.crown_map:
        parts.append(_crown_map_features(*masks))
    if config.pixels:
        parts.append(lab_thumbs.reshape(len(lab_thumbs), -1))
    if config.crown_tmpl:
        parts.append(_crown_template_features(views))
    if config.photo_colour:
        parts.append(_photo_colour_features(crops, views.white_points))
    if config.spots:
        parts.append(_spot_features(crops, views.gray))
    return np.hstack(parts).astype(np.float32)


def feature_size(config: FeatureConfig = FeatureConfig()) -> int:
    return extract_features(np.zeros((1, SIDE, SIDE, 3), dtype=np.uint8), config).shape[1]
