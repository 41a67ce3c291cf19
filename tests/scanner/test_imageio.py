"""Photo loading: every file-level hard input of issue 7, each built in the test (no binaries in the repo)."""

from __future__ import annotations

import io
import resource
import struct
import time
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageOps

from scanner.errors import PhotoError
from scanner.imageio import (
    ALPHA_BACKGROUND_BGR,
    FREE_DECODE_BYTES,
    MAX_PIXELS,
    Photo,
    check_photo,
    downscale,
    load_photo,
)
from tests.support.photo_files import animated, forged_png, png_chunk

RED, GREEN, BLUE, WHITE = (0, 0, 255), (0, 255, 0), (255, 0, 0), (255, 255, 255)


def upright_quadrants(width: int = 96, height: int = 64) -> np.ndarray:
    """A BGR image whose four quadrants have distinct colours, so any wrong turn or mirror shows."""
    image = np.zeros((height, width, 3), np.uint8)
    image[: height // 2, : width // 2] = RED
    image[: height // 2, width // 2 :] = GREEN
    image[height // 2 :, : width // 2] = BLUE
    image[height // 2 :, width // 2 :] = WHITE
    return image


def quadrant_colours(image: np.ndarray) -> list[tuple[int, ...]]:
    height, width = image.shape[:2]
    points = [(height // 4, width // 4), (height // 4, 3 * width // 4), (3 * height // 4, width // 4)]
    points.append((3 * height // 4, 3 * width // 4))
    return [tuple(int(v) for v in image[r, c]) for r, c in points]


def assert_close_colours(image: np.ndarray, expected: np.ndarray, tolerance: int = 12) -> None:
    for got, want in zip(quadrant_colours(image), quadrant_colours(expected), strict=True):
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= tolerance, (got, want)


def encode(image_bgr: np.ndarray, image_format: str, **options) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image_bgr[:, :, ::-1])).save(buffer, image_format, **options)
    return buffer.getvalue()


def error_of(source) -> str:
    with pytest.raises(PhotoError) as caught:
        load_photo(source)
    message = str(caught.value)
    assert message and "\n" not in message and "Traceback" not in message
    return message


# --- inputs that must get a clear one-line error -------------------------------------------------


def test_zero_byte_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    assert "empty" in error_of(empty)


def test_random_bytes(tmp_path: Path) -> None:
    noise = tmp_path / "noise.jpg"
    noise.write_bytes(np.random.default_rng(7).bytes(20_000))
    assert "not a photo" in error_of(noise)


def test_text_file_named_jpg(tmp_path: Path) -> None:
    text = tmp_path / "kingdom.jpg"
    text.write_text("W1 F0 L0 G2 S0\nthis is my kingdom, honest\n")
    assert "text file" in error_of(text)


def test_truncated_jpeg(tmp_path: Path) -> None:
    noise = cv2.resize(np.random.default_rng(3).integers(0, 255, (30, 40, 3), np.uint8), (800, 600))
    data = encode(noise, "JPEG", quality=90)
    for fraction in (0.3, 0.9):
        cut = tmp_path / f"cut{fraction}.jpg"
        cut.write_bytes(data[: int(len(data) * fraction)])
        assert "incomplete" in error_of(cut)


def test_png_damaged_part_way_is_refused_not_read_as_black() -> None:
    rows = np.random.default_rng(5).integers(0, 255, (300, 1 + 400 * 3), np.uint8)
    rows[:, 0] = 0  # each row's filter byte...
    rows[150, 0] = 9  # ...and one that no PNG filter has: the pixels below it cannot be decoded
    assert "damaged" in error_of(forged_png(400, 300, pixels=rows.tobytes()))


def test_png_header_claiming_100000_by_100000_is_refused_before_decoding() -> None:
    message = error_of(forged_png(100_000, 100_000))
    assert f"{MAX_PIXELS // 1_000_000} megapixels" in message and "too large" in message


def test_pixel_limit_sits_between_48_mp_and_pillow_warning() -> None:
    over = error_of(forged_png(10_000, 7_000))  # 70 MP: under Pillow's own bomb limit, over ours
    assert "10000×7000" in over and "limit" in over
    under = error_of(forged_png(8_000, 6_000))  # 48 MP passes the size check, then fails as damaged data
    assert "too large" not in under


def flat_png(width: int, height: int, colour: bytes = b"\x28\x78\xc8") -> bytes:
    """A valid one-colour RGB PNG, compressed row by row so the test never holds its pixels."""
    packer = zlib.compressobj(9)
    row = b"\x00" + colour * width
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", body) + png_chunk(b"IEND", b"")
    )


def test_flat_colour_png_of_59_megapixels_is_refused_cheaply() -> None:
    data = flat_png(7700, 7700)  # under the pixel limit, a few hundred KB
    assert len(data) < 1_000_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(PhotoError) as caught:
        load_photo(data, max_side=2000)
    seconds = time.perf_counter() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    message = str(caught.value)
    assert "7700×7700" in message and "unpack" in message and "\n" not in message
    assert "too large" not in message  # the pixel count is allowed; the bytes are what give it away
    assert seconds < 0.5 and grown_mb < 50, (seconds, grown_mb)


def test_check_photo_refuses_from_the_header_alone() -> None:
    with pytest.raises(PhotoError, match="unpack"):
        check_photo(flat_png(7700, 7700), max_side=2000)
    with pytest.raises(PhotoError, match="too large"):
        check_photo(forged_png(10_000, 7_000))
    with pytest.raises(PhotoError, match="text file"):
        check_photo(b"a shopping list\n")
    check_photo(encode(upright_quadrants(), "JPEG"), max_side=2000)
    check_photo(forged_png(64, 48))  # damaged pixels are the decoder's to find


def test_flat_colour_png_within_the_free_allowance_still_opens() -> None:
    side = int((FREE_DECODE_BYTES / 3) ** 0.5) - 8  # a tiny file, but it unpacks to less than the allowance
    photo = load_photo(flat_png(side, side), max_side=500)
    assert photo.image.shape == (500, 500, 3) and tuple(photo.image[10, 10]) == (200, 120, 40)


def test_photo_saved_as_png_is_not_taken_for_a_bomb() -> None:
    rng = np.random.default_rng(3)
    texture = cv2.resize(rng.integers(0, 256, (300, 400, 3), np.uint8), (5200, 4400))  # 23 MP, smooth
    ok, png = cv2.imencode(".png", texture, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    assert texture.nbytes > FREE_DECODE_BYTES  # past the allowance: the ratio decides
    photo = load_photo(png.tobytes(), max_side=2000)
    assert photo.image.shape == (1692, 2000, 3) and photo.original_size == (5200, 4400)


@pytest.mark.parametrize("image_format", ["GIF", "PNG", "WEBP"])
def test_animated_images_are_refused(image_format: str) -> None:
    message = error_of(animated(image_format))
    assert "animated" in message and "still photo" in message


def test_missing_file_and_folder(tmp_path: Path) -> None:
    assert "no such file" in error_of(tmp_path / "nope.jpg")
    assert "folder" in error_of(tmp_path)


def test_unsupported_format_is_not_parsed() -> None:
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n" + bytes(range(256)) * 4
    assert "not a photo" in error_of(eps)


# --- inputs that must work ---------------------------------------------------------------------

#: Pillow transpose that stores an upright image so that EXIF orientation N turns it back upright.
STORE_FOR_ORIENTATION = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def exif_rotated_jpeg(upright_bgr: np.ndarray, orientation: int) -> bytes:
    stored = Image.fromarray(np.ascontiguousarray(upright_bgr[:, :, ::-1]))
    if STORE_FOR_ORIENTATION[orientation] is not None:
        stored = stored.transpose(STORE_FOR_ORIENTATION[orientation])
    exif = Image.Exif()
    exif[0x0112] = orientation
    buffer = io.BytesIO()
    stored.save(buffer, "JPEG", quality=95, exif=exif)
    return buffer.getvalue()


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientations_end_upright(orientation: int) -> None:
    upright = upright_quadrants()
    data = exif_rotated_jpeg(upright, orientation)
    reference = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(data))))[:, :, ::-1]
    photo = load_photo(data)
    assert photo.image.shape == upright.shape
    assert photo.original_size == (upright.shape[1], upright.shape[0])
    assert_close_colours(photo.image, upright)
    assert_close_colours(photo.image, reference, tolerance=2)


@pytest.mark.parametrize("orientation", [1, 6, 8])
def test_reduced_copy_keeps_orientation_and_maps_back(orientation: int) -> None:
    upright = cv2.resize(upright_quadrants(), (1600, 1200), interpolation=cv2.INTER_NEAREST)
    photo = load_photo(exif_rotated_jpeg(upright, orientation), max_side=400)
    assert photo.image.shape == (300, 400, 3)
    assert photo.original_size == (1600, 1200)
    assert photo.scale == pytest.approx(0.25)
    assert np.allclose(photo.to_original([[400, 300]]), [[1600, 1200]])
    assert_close_colours(photo.image, cv2.resize(upright, (400, 300)))


def test_heic() -> None:
    upright = upright_quadrants(128, 96)
    photo = load_photo(encode(upright, "HEIF", quality=95))
    assert photo.format == "HEIF" and photo.image.shape == upright.shape and not photo.grayscale
    assert_close_colours(photo.image, upright, tolerance=20)


def test_png_with_alpha_is_flattened() -> None:
    rgba = np.zeros((40, 60, 4), np.uint8)
    rgba[:, :30] = (0, 0, 255, 255)  # opaque red (BGRA)
    rgba[:, 30:] = (0, 255, 0, 0)  # fully transparent green
    ok, png = cv2.imencode(".png", rgba)
    photo = load_photo(png.tobytes())
    assert photo.image.shape == (40, 60, 3) and photo.image.dtype == np.uint8
    assert tuple(photo.image[20, 10]) == RED
    assert tuple(photo.image[20, 50]) == ALPHA_BACKGROUND_BGR


def test_16_bit_png_is_reduced_to_8_bit() -> None:
    colour = np.zeros((30, 40, 3), np.uint16)
    colour[:, :20] = (65535, 32896, 0)
    ok, png = cv2.imencode(".png", colour)
    photo = load_photo(png.tobytes())
    assert photo.image.dtype == np.uint8 and tuple(photo.image[5, 5]) == (255, 128, 0)
    ok, grey_png = cv2.imencode(".png", colour[:, :, 1])
    grey = load_photo(grey_png.tobytes())
    assert grey.grayscale and grey.image.shape == (30, 40, 3) and tuple(grey.image[5, 5]) == (128, 128, 128)


def test_grayscale_photos_get_three_channels_and_the_flag() -> None:
    gradient = np.tile(np.arange(0, 256, 4, dtype=np.uint8), (48, 1))
    buffer = io.BytesIO()
    Image.fromarray(gradient).save(buffer, "JPEG")
    photo = load_photo(buffer.getvalue())
    assert photo.grayscale and photo.image.shape == (48, 64, 3)
    as_colour = load_photo(encode(np.dstack([gradient] * 3), "JPEG"))  # a black-and-white filter saved as RGB
    assert as_colour.grayscale
    assert not load_photo(encode(upright_quadrants(), "JPEG")).grayscale


@pytest.mark.parametrize("image_format", ["PNG", "WEBP", "BMP", "TIFF", "GIF"])
def test_other_still_formats(image_format: str) -> None:
    upright = upright_quadrants()
    options = {"lossless": True} if image_format == "WEBP" else {}
    photo = load_photo(encode(upright, image_format, **options))
    assert photo.image.shape == upright.shape
    assert_close_colours(photo.image, upright, tolerance=2)


def test_small_640_by_480_photo_from_path(tmp_path: Path) -> None:
    path = tmp_path / "small.jpg"
    path.write_bytes(encode(cv2.resize(upright_quadrants(), (640, 480)), "JPEG"))
    photo = load_photo(path)
    assert isinstance(photo, Photo) and photo.image.shape == (480, 640, 3) and photo.source == str(path)
    assert photo.image.flags.c_contiguous and photo.scale == 1.0


def test_bytes_source_is_labelled() -> None:
    data = encode(upright_quadrants(), "PNG")
    assert load_photo(data).source == "<uploaded photo>"
    assert load_photo(data, name="kingdom.png").source == "kingdom.png"


def test_downscale() -> None:
    image = np.zeros((3000, 4000, 3), np.uint8)
    small, scale = downscale(image, 1000)
    assert small.shape == (750, 1000, 3) and scale == 0.25
    same, unit = downscale(small, 2000)
    assert same is small and unit == 1.0


@pytest.mark.parametrize("image_format", ["HEIF", "TIFF"])
def test_reduced_copy_of_a_pillow_format_matches_the_full_decode(image_format: str) -> None:
    rng = np.random.default_rng(5)
    image = cv2.resize(
        rng.integers(0, 256, (30, 40, 3), np.uint8), (2400, 1800), interpolation=cv2.INTER_CUBIC
    )
    data = encode(image, image_format, **({"quality": 95} if image_format == "HEIF" else {}))
    reduced = load_photo(data, max_side=600)
    full, _ = downscale(load_photo(data).image, 600)
    assert reduced.image.shape == full.shape == (450, 600, 3) and reduced.original_size == (2400, 1800)
    assert np.abs(reduced.image.astype(int) - full.astype(int)).max() <= 2
