"""Fuzzing the two doors strangers can push: photo loading and the board-text parser.

Only the documented errors may come out (PhotoError, BoardFormatError); anything else is a crash.
Derandomized and bounded so CI stays fast and reproducible; set FUZZ_EXAMPLES for a longer local run.
"""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from kingdomino.board import BoardFormatError, Kingdom
from scanner.errors import PhotoError
from scanner.imageio import load_photo
from tests.support.photo_files import forged_png

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _seed_files() -> dict[str, bytes]:
    """Small valid files of every supported format: mutations of real structure reach deep decoder paths."""
    rng = np.random.default_rng(11)
    rgb = Image.fromarray(rng.integers(0, 255, (24, 32, 3), np.uint8))
    exif = Image.Exif()
    exif[0x0112] = 6
    files = {}
    for image_format, image, options in [
        ("JPEG", rgb, {"exif": exif, "quality": 80}),
        ("JPEG", rgb, {"progressive": True}),
        ("PNG", rgb.convert("RGBA"), {}),
        ("PNG", rgb.convert("P"), {"transparency": 0}),
        ("GIF", rgb, {}),
        ("WEBP", rgb, {"quality": 80}),
        ("BMP", rgb, {}),
        ("TIFF", rgb, {"compression": "tiff_deflate"}),
        ("HEIF", rgb, {"quality": 60}),
    ]:
        buffer = io.BytesIO()
        image.save(buffer, image_format, **options)
        files[f"{image_format}-{len(files)}"] = buffer.getvalue()
    return files


SEEDS = _seed_files()


def must_load_or_refuse(data: bytes) -> None:
    try:
        photo = load_photo(data)
    except PhotoError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert photo.image.dtype == np.uint8 and photo.image.ndim == 3 and photo.image.shape[2] == 3


@st.composite
def mutated_files(draw: st.DrawFn) -> bytes:
    data = bytearray(SEEDS[draw(st.sampled_from(sorted(SEEDS)))])
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "overwrite", "insert", "delete", "truncate"]))
        at = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=8))
            data[at : at + len(chunk)] = chunk
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=64))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        else:
            del data[max(1, at) :]
        if not data:
            break
    return bytes(data)


@FUZZ
@given(st.binary(max_size=4096))
def test_random_bytes_never_crash_the_loader(data: bytes) -> None:
    must_load_or_refuse(data)


@FUZZ
@given(mutated_files())
def test_mutated_photos_never_crash_the_loader(data: bytes) -> None:
    must_load_or_refuse(data)


@FUZZ
@given(
    width=st.integers(0, 2**31 - 1),
    height=st.integers(0, 2**31 - 1),
    depth=st.sampled_from([1, 2, 4, 8, 16, 3, 0]),
    colour=st.sampled_from([0, 2, 3, 4, 6, 1, 7]),
    pixels=st.binary(max_size=256),
)
def test_png_headers_with_valid_crc_never_crash(
    width: int, height: int, depth: int, colour: int, pixels: bytes
) -> None:
    must_load_or_refuse(forged_png(width, height, depth, colour, pixels))


def must_parse_or_refuse(text: str) -> None:
    try:
        kingdom = Kingdom.parse(text)
    except BoardFormatError as error:
        assert str(error)
        return
    assert Kingdom.parse(kingdom.to_text()) == kingdom


BOARD_ALPHABET = st.sampled_from(list('WFLGSMC.wfgc0123456789 \t\n#{}[]":,-x') + ["\r\n", "\ufeff", "é", "٣"])


@FUZZ
@given(st.text(max_size=400))
def test_random_text_never_crashes_the_board_parser(text: str) -> None:
    must_parse_or_refuse(text)


@FUZZ
@given(st.lists(BOARD_ALPHABET, max_size=200).map("".join))
def test_board_like_text_never_crashes_the_board_parser(text: str) -> None:
    must_parse_or_refuse(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10) | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=8) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=20,
)
SQUARE_DICTS = st.fixed_dictionaries(
    {},
    optional={
        "terrain": st.sampled_from(["wheat", "forest", "LAKE", "castle", "empty", "sea", ""]) | JSON_VALUES,
        "crowns": st.integers(-1, 4) | JSON_VALUES,
    },
)


@FUZZ
@given(
    st.fixed_dictionaries(
        {"squares": st.lists(st.lists(SQUARE_DICTS | JSON_VALUES, max_size=8), max_size=8) | JSON_VALUES},
        optional={"grid_size": JSON_VALUES},
    )
    | JSON_VALUES
)
def test_json_boards_never_crash_the_board_parser(data: object) -> None:
    must_parse_or_refuse(json.dumps(data))


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_every_seed_file_loads(name: str) -> None:
    """The fuzz seeds themselves are valid photos, so the mutations start from real structure."""
    assert load_photo(SEEDS[name]).image.shape[:2] in ((24, 32), (32, 24))
