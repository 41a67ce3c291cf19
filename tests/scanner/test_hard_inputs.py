"""Hard inputs end to end: the scan command and the scanner API on the photos of issue 7.

Photos that cannot be read or hold no readable kingdom must end as that photo's one-line ``error``
(exit status 1, the other photos still scanned); the photos phones produce must be read. Every photo is
generated here from ``benchmarks.scenes`` (no binaries in the repo); the 48 MP photo is made once per session.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

import scanner as scanner_package
from benchmarks.scenes import Scene, generate_scene
from kingdomino.board import Kingdom
from scanner.errors import ScanError
from tests.support.photo_files import animated, forged_png

pytestmark = [pytest.mark.model, pytest.mark.slow]

MAX_PEAK_RSS_BYTES = 1.5 * 2**30
#: The scan command runs in a child process on the same code as this test process.
SOURCE_ROOT = str(Path(scanner_package.__file__).resolve().parent.parent)
ONE_CORE = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# --- photo makers ----------------------------------------------------------------------------------


def table_texture(height: int, width: int, seed: int) -> np.ndarray:
    """A plain wooden-looking table: warm colour, low-frequency shading, grain streaks and noise."""
    rng = np.random.default_rng(seed)
    shading = cv2.resize(
        rng.normal(0, 1, (6, 8)).astype(np.float32), (width, height), interpolation=cv2.INTER_CUBIC
    )
    grain = cv2.resize(rng.normal(0, 1, (height // 4, 1)).astype(np.float32), (width, height))
    base = np.array([70, 110, 150], np.float32)  # BGR: light brown wood
    image = base * (1 + 0.08 * shading[..., None] + 0.05 * grain[..., None])
    image += rng.normal(0, 3, image.shape).astype(np.float32)
    return np.clip(image, 0, 255).astype(np.uint8)


def chessboard_photo(seed: int = 5) -> np.ndarray:
    """An 8×8 chessboard seen at a slant on a table: a perfect lattice of squares that is not a kingdom."""
    board = np.kron((np.indices((8, 8)).sum(0) % 2).astype(np.uint8), np.ones((80, 80), np.uint8))
    board = cv2.cvtColor(np.where(board == 1, 40, 225).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    table = table_texture(1200, 1600, seed)
    source = np.float32([[0, 0], [640, 0], [640, 640], [0, 640]])
    target = np.float32([[520, 250], [1130, 300], [1180, 930], [460, 880]])
    warp = cv2.getPerspectiveTransform(source, target)
    warped = cv2.warpPerspective(board, warp, (1600, 1200))
    mask = cv2.warpPerspective(np.full((640, 640), 255, np.uint8), warp, (1600, 1200))
    return np.where(mask[..., None] > 0, warped, table)


def paste_kingdom(
    photo: np.ndarray, scene: Scene, square_px: float, centre: tuple[float, float]
) -> np.ndarray:
    """Copy ``scene``'s kingdom (and a thin rim of its table) into ``photo`` with squares of ``square_px``."""
    _, corners = scene.upright()
    scale = square_px / square_size(corners, scene.kingdom.grid_size)
    shift = np.array(centre) - corners.mean(0) * scale
    warp = np.float32([[scale, 0, shift[0]], [0, scale, shift[1]]])
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    moved = cv2.warpAffine(scene.image, warp, photo.shape[1::-1], flags=interpolation)
    placed = corners * scale + shift
    rim = (placed - placed.mean(0)) * 1.08 + placed.mean(0)
    mask = np.zeros(photo.shape[:2], np.float32)
    cv2.fillConvexPoly(mask, np.round(rim).astype(np.int32), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, square_px / 15))[..., None]
    return (photo * (1 - mask) + moved * mask).astype(np.uint8)


def graph_paper_photo(seed: int = 8) -> np.ndarray:
    """Squared paper at a slant on a table: a lattice whose squares all look alike."""
    paper = np.full((900, 900, 3), 235, np.uint8)
    for k in range(0, 900, 60):
        cv2.line(paper, (k, 0), (k, 899), (90, 90, 90), 2)
        cv2.line(paper, (0, k), (899, k), (90, 90, 90), 2)
    source = np.float32([[0, 0], [900, 0], [900, 900], [0, 900]])
    target = np.float32([[420, 180], [1180, 230], [1220, 1000], [380, 960]])
    warp = cv2.getPerspectiveTransform(source, target)
    mask = cv2.warpPerspective(np.full((900, 900), 255, np.uint8), warp, (1600, 1200))
    return np.where(
        mask[..., None] > 0, cv2.warpPerspective(paper, warp, (1600, 1200)), table_texture(1200, 1600, seed)
    )


def flat_squares_photo(seed: int = 9, fill: bool = False) -> np.ndarray:
    """A 5×5 grid of flat-colour squares in Kingdomino's colours with dark seams, at a slant on a table
    (or filling the photo): a lattice of colourful squares, but without the pictures printed on tiles."""
    rng = np.random.default_rng(seed)
    colours = np.array(  # BGR: wheat, forest, lake, grassland, swamp, mine
        [[40, 200, 230], [40, 110, 40], [200, 120, 30], [60, 200, 120], [120, 140, 150], [40, 50, 60]],
        np.uint8,
    )
    cell, seam, side = 100, 2, 500
    board = np.full((side, side, 3), 35, np.uint8)
    for row in range(5):
        for col in range(5):
            board[
                row * cell + seam : (row + 1) * cell - seam, col * cell + seam : (col + 1) * cell - seam
            ] = colours[rng.integers(len(colours))]
    if fill:
        photo = board
    else:
        source = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
        target = np.float32([[520, 260], [1120, 310], [1160, 920], [470, 870]])
        warp = cv2.getPerspectiveTransform(source, target)
        mask = cv2.warpPerspective(np.full((side, side), 255, np.uint8), warp, (1600, 1200))
        photo = np.where(
            mask[..., None] > 0,
            cv2.warpPerspective(board, warp, (1600, 1200)),
            table_texture(1200, 1600, seed),
        )
    return np.clip(photo + rng.normal(0, 3, photo.shape), 0, 255).astype(np.uint8)


def jpeg_bytes(image: np.ndarray, quality: int = 92) -> bytes:
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return buffer.tobytes()


def pillow_bytes(image_bgr: np.ndarray, image_format: str, **options) -> bytes:
    buffer = io.BytesIO()
    mode_image = Image.fromarray(
        image_bgr if image_bgr.ndim == 2 else np.ascontiguousarray(image_bgr[:, :, ::-1])
    )
    mode_image.save(buffer, image_format, **options)
    return buffer.getvalue()


def square_size(corners: np.ndarray, grid_size: int) -> float:
    sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    return float(sides.mean()) / grid_size


def corner_error_in_squares(found, truth: np.ndarray, grid_size: int) -> float:
    distances = np.linalg.norm(np.asarray(found, dtype=float) - truth, axis=1)
    return float(distances.max()) / square_size(truth, grid_size)


def squares_right(found: Kingdom, truth: Kingdom) -> float:
    cells = [found[cell] == square for cell, square in truth.cells()]
    return sum(cells) / len(cells)


def assert_located(result, truth: Kingdom, corners: np.ndarray) -> None:
    """The right grid was found: same size, every corner within a quarter square of the truth."""
    assert result.grid_size == truth.grid_size
    assert corner_error_in_squares(result.corners, corners, truth.grid_size) <= 0.25


def assert_reads_as_well(result, truth: Kingdom, reference: Kingdom) -> None:
    """The photo's form (format, size, rotation, company) costs at most 2 squares of 25 against ``reference``,
    the reading of the same kingdom in a plain JPEG (so the classifier's own errors are not counted twice)."""
    found = result if isinstance(result, Kingdom) else result.kingdom
    assert squares_right(found, truth) >= squares_right(reference, truth) - 0.08, (
        f"\n{found.to_text()}vs plain reading\n{reference.to_text()}vs truth\n{truth.to_text()}"
    )


# --- fixtures --------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def scene() -> Scene:
    """A plain 1600×1200 table photo with one kingdom near the middle (the base of most cases)."""
    return generate_scene(
        2024, size=(1600, 1200), tilt_range=(0, 20), width_range=(0.4, 0.5), distractors=False
    )


@pytest.fixture(scope="session")
def scanner():
    from scanner.recognizer import KingdomScanner

    return KingdomScanner()


@pytest.fixture(scope="session")
def plain_reading(scanner, scene: Scene) -> Kingdom:
    """What the scanner reads in the plain JPEG of the base scene: the yardstick of the other forms."""
    return scanner.scan(jpeg_bytes(scene.image)).kingdom


@pytest.fixture(scope="session")
def photo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hard_inputs")


@pytest.fixture(scope="session")
def big_photo(scene: Scene, photo_dir: Path) -> tuple[Path, np.ndarray]:
    """The base scene enlarged to 8000×6000 (48 MP) as a JPEG, with its true corners."""
    path = photo_dir / "48mp.jpg"
    path.write_bytes(jpeg_bytes(cv2.resize(scene.image, (8000, 6000), interpolation=cv2.INTER_LINEAR), 90))
    return path, scene.upright()[1] * 5


def run_scan(paths: list[str], cwd: Path) -> tuple[int, list[dict], str, int]:
    """Run ``kingdomino scan --json`` in a fresh one-core process: status, JSON lines, stderr, peak RSS."""
    program = (
        "import sys\n"
        "from scanner.cli import main\n"
        "status = main(['scan', '--json', *sys.argv[1:]])\n"
        "sys.stdout.flush()\n"
        "peak = [line for line in open('/proc/self/status') if line.startswith('VmHWM:')]\n"
        "print(f'PEAK_RSS_KB={peak[0].split()[1]}', file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, *paths],
        cwd=cwd,
        env={**os.environ, **ONE_CORE, "PYTHONPATH": SOURCE_ROOT},
        capture_output=True,
        text=True,
        timeout=240,
    )
    peak = re.search(r"PEAK_RSS_KB=(\d+)", done.stderr)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, lines, done.stderr, int(peak.group(1)) * 1024 if peak else -1


# --- bad inputs: that photo's error, exit 1, the others still scanned ------------------------------


def test_scan_command_reports_each_bad_photo_and_scans_the_others(scene: Scene, photo_dir: Path) -> None:
    noise = np.random.default_rng(1).bytes(30_000)
    good_jpeg = jpeg_bytes(scene.image)
    tiny = paste_kingdom(table_texture(1200, 1600, 9), scene, square_px=15, centre=(800, 600))
    files = {
        "empty.jpg": b"",
        "noise.jpg": noise,
        "notes.jpg": b"this is not a photo, just my notes about the game\n",
        "cut.jpg": good_jpeg[: len(good_jpeg) // 2],
        "bomb.png": forged_png(100_000, 100_000),
        "animated.gif": animated("GIF"),
        "empty_table.jpg": jpeg_bytes(table_texture(1200, 1600, 3)),
        "chessboard.jpg": jpeg_bytes(chessboard_photo()),
        "tiny_kingdom.jpg": jpeg_bytes(tiny),  # squares of 15 px
        "good.jpg": good_jpeg,
    }
    for name, data in files.items():
        (photo_dir / name).write_bytes(data)
    status, lines, stderr, _ = run_scan(list(files), photo_dir)

    assert "Traceback" not in stderr
    assert status == 1
    assert [line["photo"] for line in lines] == list(files)
    for line in lines[:-1]:
        assert set(line) >= {"photo", "error"} and "squares" not in line, line
        assert isinstance(line["error"], str) and line["error"].strip() and "\n" not in line["error"], line
    assert "error" not in lines[-1] and lines[-1]["grid_size"] == scene.kingdom.grid_size


@pytest.mark.parametrize(
    "make_photo",
    [
        pytest.param(lambda scene: table_texture(1200, 1600, 4), id="empty-table"),
        pytest.param(lambda scene: chessboard_photo(6), id="chessboard"),
        pytest.param(lambda scene: graph_paper_photo(), id="graph-paper"),
        pytest.param(lambda scene: flat_squares_photo(), id="flat-colour-squares"),
        pytest.param(lambda scene: flat_squares_photo(fill=True), id="flat-colour-squares-cropped"),
        pytest.param(lambda scene: np.zeros((480, 640, 3), np.uint8), id="black"),
        pytest.param(lambda scene: np.full((480, 640, 3), 255, np.uint8), id="white"),
        pytest.param(
            lambda scene: np.random.default_rng(0).integers(0, 256, (480, 640, 3), np.uint8), id="noise"
        ),
        pytest.param(lambda scene: np.zeros((1, 1, 3), np.uint8), id="1x1"),
        pytest.param(lambda scene: np.full((1, 5000, 3), 128, np.uint8), id="1x5000"),
    ],
)
def test_photos_without_a_kingdom_raise_a_scan_error(scanner, scene: Scene, make_photo) -> None:
    with pytest.raises(ScanError) as caught:
        scanner.scan(jpeg_bytes(make_photo(scene)))
    assert str(caught.value).strip() and "\n" not in str(caught.value)


def test_flat_colour_squares_are_refused_for_lacking_the_printed_pictures(scanner) -> None:
    with pytest.raises(ScanError, match="plain colour"):
        scanner.scan(jpeg_bytes(flat_squares_photo(fill=True)))


# --- inputs that must work ---------------------------------------------------------------------------


def test_plain_photo_is_read_right(scanner, scene: Scene, plain_reading: Kingdom) -> None:
    """The yardstick itself: the plain JPEG is located and read (>= 90 % of squares as labelled)."""
    truth, corners = scene.upright()
    assert_located(scanner.scan(jpeg_bytes(scene.image)), truth, corners)
    assert squares_right(plain_reading, truth) >= 0.9, (
        f"\n{plain_reading.to_text()}vs truth\n{truth.to_text()}"
    )


def test_exif_rotated_phone_jpeg(scanner, scene: Scene, plain_reading: Kingdom) -> None:
    """Pixels stored turned a quarter, EXIF orientation 6 says turn them back: results are upright."""
    truth, corners = scene.upright()
    stored = Image.fromarray(np.ascontiguousarray(scene.image[:, :, ::-1])).transpose(
        Image.Transpose.ROTATE_90
    )
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    stored.save(buffer, "JPEG", quality=92, exif=exif)
    result = scanner.scan(buffer.getvalue())
    assert_located(result, truth, corners)
    assert_reads_as_well(result, truth, plain_reading)


@pytest.mark.parametrize("image_format", ["HEIF", "PNG-alpha", "PNG-16"])
def test_heic_alpha_and_16_bit_photos(
    scanner, scene: Scene, plain_reading: Kingdom, image_format: str
) -> None:
    truth, corners = scene.upright()
    if image_format == "HEIF":
        data = pillow_bytes(scene.image, "HEIF", quality=90, enc_params={"preset": "ultrafast"})
    elif image_format == "PNG-alpha":
        alpha = np.full(scene.image.shape[:2], 255, np.uint8)
        alpha[:, :80] = 0  # a transparent strip, as a cut-out export would have
        data = cv2.imencode(".png", np.dstack([scene.image, alpha]))[1].tobytes()
    else:
        data = cv2.imencode(".png", scene.image.astype(np.uint16) * 257)[1].tobytes()
    result = scanner.scan(data)
    assert_located(result, truth, corners)
    assert_reads_as_well(result, truth, plain_reading)


def test_small_640_by_480_photo_filled_by_the_kingdom(scanner, scene: Scene, plain_reading: Kingdom) -> None:
    truth, corners = scene.upright()
    centre = corners.mean(0)
    half_width = 0.55 * max(np.ptp(corners[:, 0]), np.ptp(corners[:, 1]) * 4 / 3)
    left, top = centre - np.array([half_width, half_width * 3 / 4])
    scale = 640 / (2 * half_width)
    to_small = np.float32([[scale, 0, -left * scale], [0, scale, -top * scale]])
    small = cv2.warpAffine(
        scene.image, to_small, (640, 480), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT
    )
    small_corners = (corners - [left, top]) * scale
    assert square_size(small_corners, truth.grid_size) > 55  # the kingdom fills the frame
    result = scanner.scan(jpeg_bytes(small))
    assert_located(result, truth, small_corners)
    assert_reads_as_well(result, truth, plain_reading)


def test_two_kingdoms_scans_the_most_central_and_says_so(scanner, scene: Scene) -> None:
    central = generate_scene(
        77, size=(2400, 1200), tilt_range=(0, 10), width_range=(0.2, 0.22), distractors=False
    )
    truth, corners = central.upright()
    alone = scanner.scan(jpeg_bytes(central.image))
    # The base scene's kingdom, at the same size, on the side of the table away from the central one.
    on_the_right = corners.mean(0)[0] < central.image.shape[1] / 2
    other_centre = (central.image.shape[1] * (0.82 if on_the_right else 0.18), central.image.shape[0] / 2)
    pitch = square_size(corners, truth.grid_size)
    assert abs(other_centre[0] - corners.mean(0)[0]) > 1.5 * pitch * truth.grid_size  # clearly apart
    photo = paste_kingdom(central.image, scene, pitch, other_centre)

    result = scanner.scan(jpeg_bytes(photo))
    assert_located(result, truth, corners)
    assert_reads_as_well(result, truth, alone.kingdom)
    assert any(re.search(r"kingdom", note, re.IGNORECASE) for note in result.notes), result.notes


def test_grayscale_photo_is_read_with_a_warning_or_refused_clearly(scanner, scene: Scene) -> None:
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    data = pillow_bytes(grey, "JPEG", quality=92)
    colour_words = re.compile(r"gr[ae]y|colou?r|black", re.IGNORECASE)
    try:
        result = scanner.scan(data)
    except ScanError as error:
        assert colour_words.search(str(error)), str(error)
        return
    assert any(colour_words.search(note) for note in result.notes), result.notes


def test_48_megapixel_photo_is_read_under_the_memory_limit(
    big_photo: tuple[Path, np.ndarray], scene: Scene, plain_reading: Kingdom
) -> None:
    path, corners = big_photo
    status, lines, stderr, peak = run_scan([str(path)], path.parent)
    assert "Traceback" not in stderr
    assert status == 0, lines
    truth, _ = scene.upright()
    assert corner_error_in_squares(lines[0]["corners"], corners, truth.grid_size) <= 0.25
    assert_reads_as_well(Kingdom.from_dict(lines[0]), truth, plain_reading)
    assert 0 < peak < MAX_PEAK_RSS_BYTES, f"peak resident memory {peak / 2**20:.0f} MB"
