"""Small hard-input files built in memory, shared by the photo-loading, fuzz and hard-input tests."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    """One PNG chunk with a correct CRC, so a forged header passes the format's own checks."""
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def forged_png(
    width: int, height: int, depth: int = 8, colour_type: int = 2, pixels: bytes = b"\x00" * 64
) -> bytes:
    """A tiny PNG whose valid header claims ``width``×``height`` pixels (a decompression bomb's shape)."""
    header = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(pixels))
        + png_chunk(b"IEND", b"")
    )


def animated(image_format: str = "GIF", frames: int = 3) -> bytes:
    """A small animation (GIF, PNG or WebP) of coloured frames."""
    colours = ["red", "green", "blue", "white"]
    images = [Image.new("RGB", (32, 32), colours[index % len(colours)]) for index in range(frames)]
    buffer = io.BytesIO()
    images[0].save(buffer, image_format, save_all=True, append_images=images[1:], duration=100, loop=0)
    return buffer.getvalue()
