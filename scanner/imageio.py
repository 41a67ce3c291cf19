"""Read whatever a phone (or a stranger on the public page) sends into one upright BGR uint8 image.

Every failure becomes a :class:`~scanner.errors.PhotoError` whose message is one line a player
understands; no other exception escapes :func:`load_photo`. The header is checked (size, frames,
format, and how many bytes the pixels will unpack to against the file's size) before any pixel is
decoded, so a decompression bomb costs nothing.

Decoding speed matters (the whole scan is benchmarked against ``cv2.imdecode``): JPEG, PNG and WebP
are decoded by OpenCV straight into BGR without extra copies, with JPEG's built-in 1/2, 1/4, 1/8
scaling when only a reduced copy is wanted (``max_side``). Other formats (HEIC, AVIF, TIFF, GIF, BMP)
go through Pillow.
"""

from __future__ import annotations

import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# OpenCV reads this limit once, at its first decode; keep its own bomb guard at least as strict as ours.
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(60_000_000))

import cv2  # noqa: E402
import pillow_heif  # noqa: E402
from PIL import Image, UnidentifiedImageError  # noqa: E402

from scanner.errors import PhotoError, ScanError  # noqa: E402

pillow_heif.register_heif_opener()
# Our limit (MAX_PIXELS) is below Pillow's warning threshold, so its warning only ever repeats a refusal.
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
# Damaged metadata ("Corrupt EXIF data") costs at most the rotation; the player gets no stderr noise for it.
warnings.filterwarnings("ignore", category=UserWarning, module=r"PIL\.")

#: Largest photo accepted, in pixels: 60 MP, so that 48 MP and 50 MP phone photos pass.
MAX_PIXELS = 60_000_000
#: Longest side of the copy the scanner decodes a photo to: enough pixels per square for a small kingdom,
#: and a 12-megapixel JPEG then decodes at half scale, much faster than in full. Here rather than in the
#: recognizer so that the scan pool can check a photo's header without importing the scanner.
DECODE_MAX_SIDE = 2000
#: Largest file accepted, in bytes (a 48 MP 16-bit PNG is about 290 MB; phone photos are 2-30 MB).
MAX_FILE_BYTES = 300 * 1024 * 1024
#: An image may unpack to FREE_DECODE_BYTES whatever its file size (a 21 MP colour image); beyond that, to
#: at most MAX_DECODE_RATIO times its file's bytes. A phone's JPEG or HEIC unpacks to well under that ratio
#: and a photo saved as PNG to a few times its size; a flat-colour image at the pixel limit, hundreds of
#: times. JPEG counts at the reduced scale it is decoded to.
FREE_DECODE_BYTES = 64 * 1024 * 1024
MAX_DECODE_RATIO = 64
#: Colour that transparent pixels are flattened onto: neutral grey keeps contrast with light and dark tiles.
ALPHA_BACKGROUND_BGR = (128, 128, 128)

#: Formats we accept (Pillow names; JPEG includes multi-picture MPO).
#: Anything else (EPS, PDF, PSD, ...) is refused without being parsed.
SUPPORTED_FORMATS = ("JPEG", "PNG", "WEBP", "HEIF", "AVIF", "TIFF", "BMP", "GIF")
_SUPPORTED_TEXT = "JPEG, PNG, HEIC/HEIF, WebP, AVIF, TIFF, BMP or a still GIF"
#: Formats OpenCV decodes faster than Pillow, straight into BGR.
_OPENCV_FORMATS = {"JPEG", "MPO", "PNG", "WEBP"}
_MAY_BE_ANIMATED = {"GIF", "PNG", "WEBP", "AVIF", "HEIF"}
_EXIF_ORIENTATION = 0x0112
_BYTES_SOURCE = "<uploaded photo>"


@dataclass(frozen=True)
class Photo:
    """A decoded photo, upright (EXIF orientation applied), as 3-channel BGR uint8.

    ``image`` may be a reduced copy when ``load_photo(..., max_side=...)`` asked for one;
    ``original_size`` is always the upright full-resolution (width, height), so that results can be
    mapped back to the original's pixels with :meth:`to_original`.
    """

    image: np.ndarray
    grayscale: bool
    source: str
    original_size: tuple[int, int] = (0, 0)
    format: str = ""

    def __post_init__(self) -> None:
        if self.original_size == (0, 0):
            height, width = self.image.shape[:2]
            object.__setattr__(self, "original_size", (width, height))

    @property
    def scale(self) -> float:
        """Pixels of ``image`` per pixel of the original photo (1.0 unless a reduced copy was asked for)."""
        return self.image.shape[1] / self.original_size[0]

    def to_original(self, points: np.ndarray) -> np.ndarray:
        """Map (x, y) points from ``image`` pixels to the original photo's pixels."""
        height, width = self.image.shape[:2]
        factors = np.array([self.original_size[0] / width, self.original_size[1] / height])
        return np.asarray(points, dtype=np.float64) * factors


def load_photo(source: str | Path | bytes, *, max_side: int | None = None, name: str | None = None) -> Photo:
    """Read a photo from a path or from raw bytes (an upload).

    ``max_side`` returns a copy whose longest side is at most that many pixels, decoded at reduced
    scale where the format allows (JPEG), which is several times faster than decoding in full.
    ``name`` labels bytes in ``Photo.source`` (e.g. the uploaded file name).
    Raises PhotoError with a one-line reason; never any other exception.
    """
    if max_side is not None and max_side < 1:
        raise ValueError(f"max_side must be positive, got {max_side}")
    data, label = _read_source(source, name)
    try:
        return _decode(data, label, max_side)
    except PhotoError:
        raise
    except MemoryError:
        raise PhotoError("not enough memory to open this photo; try a smaller one") from None
    except Exception:  # noqa: BLE001 - a damaged file may trip any decoder path; the player needs one line
        raise PhotoError("the photo file is damaged and cannot be decoded") from None


def array_photo(image: np.ndarray) -> np.ndarray:
    """A BGR (or grey) uint8 array handed in instead of a photo file, as three contiguous channels."""
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    if image.ndim != 3 or image.shape[2] < 3 or image.dtype != np.uint8:
        raise ScanError("the image must be an 8-bit colour (BGR) array")
    return np.ascontiguousarray(image[:, :, :3])


def check_photo(source: bytes, *, max_side: int | None = None) -> None:
    """Every refusal ``load_photo`` can make from the header alone (empty, not a photo, too large,
    animated, a decompression bomb), without decoding a pixel: a cheap first look, e.g. before a photo
    queues for a scan worker. Raises PhotoError; a file that passes may still fail to decode."""
    if max_side is not None and max_side < 1:
        raise ValueError(f"max_side must be positive, got {max_side}")
    data, _ = _read_source(source, None)
    try:
        _check_header(data, max_side)
    except PhotoError:
        raise
    except Exception:  # noqa: BLE001 - a damaged header may trip Pillow anywhere; the decode will say why
        return


def downscale(image: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    """Shrink ``image`` so its longest side is at most ``max_side``; return it and the scale applied.

    Area averaging (no aliasing on seams and crowns) for strong reductions; above half size bilinear
    samples nearly every source pixel anyway and is five times faster than OpenCV's non-integer area resize.
    Returns the input itself when already small.
    """
    height, width = image.shape[:2]
    longest = max(height, width)
    if longest <= max_side:
        return image, 1.0
    scale = max_side / longest
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    interpolation = cv2.INTER_LINEAR if scale > 0.5 else cv2.INTER_AREA
    return cv2.resize(image, size, interpolation=interpolation), scale


# --- reading ---------------------------------------------------------------------------------------


def _read_source(source: str | Path | bytes, name: str | None) -> tuple[bytes, str]:
    if isinstance(source, bytes | bytearray | memoryview):
        data, label = bytes(source), name or _BYTES_SOURCE
    else:
        label = name or str(source)
        try:
            with Path(source).open("rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)  # never more than the limit, whatever the file holds
        except FileNotFoundError:
            raise PhotoError("no such file") from None
        except IsADirectoryError:
            raise PhotoError("this is a folder, not a photo") from None
        except PermissionError:
            raise PhotoError("the file cannot be read (permission denied)") from None
        except OSError as error:
            raise PhotoError(f"the file cannot be read ({error.strerror or 'input/output error'})") from None
    if not data:
        raise PhotoError("the file is empty (0 bytes); it is not a photo")
    if len(data) > MAX_FILE_BYTES:
        raise PhotoError(f"the file is over {MAX_FILE_BYTES // 2**20} MB; that is too big for a photo")
    return data, label


def _check_header(data: bytes, max_side: int | None) -> Image.Image:
    """The header, once every refusal it alone can justify has been made."""
    header = _open_header(data)
    width, height = header.size
    if width < 1 or height < 1:
        raise PhotoError("the image has no pixels")
    if width * height > MAX_PIXELS:
        raise PhotoError(_too_large_message(width * height, f"{width}×{height}"))
    _refuse_animation(header)
    _refuse_bomb(header.format, width, height, len(data), max_side)
    return header


def _decode(data: bytes, label: str, max_side: int | None) -> Photo:
    header = _check_header(data, max_side)
    width, height = header.size
    # on a header of its own: Pillow finds a PNG's EXIF by decoding its pixels, and a failed decode there
    # would leave ``header`` half-loaded, its pixels then taken for the photo (black below the damage)
    orientation = _orientation(_open_header(data))

    image: np.ndarray | None = None
    grayscale = header.mode in ("1", "L", "LA", "La", "I", "I;16", "I;16B", "I;16L", "I;16N", "F")
    if header.format in _OPENCV_FORMATS:
        image = _decode_with_opencv(data, header.format, max(width, height), max_side)
    if image is None:  # not an OpenCV format, or OpenCV failed: Pillow decodes it or says precisely why not
        image, grayscale = _decode_with_pillow(header, _pillow_reduction(width, height, max_side))
    if (image.shape[1], image.shape[0]) != _scaled_size(width, height, image):
        raise PhotoError("the photo file is damaged (its header and its pixels disagree)")
    image = _apply_orientation(image, orientation)
    original_size = (height, width) if orientation in (5, 6, 7, 8) else (width, height)
    if max_side is not None:
        image, _ = downscale(image, max_side)
    grayscale = grayscale or _looks_grayscale(image)
    return Photo(np.ascontiguousarray(image), grayscale, label, original_size, header.format or "")


def _open_header(data: bytes) -> Image.Image:
    """Parse the header only (Pillow decodes nothing until ``load``)."""
    try:
        return Image.open(io.BytesIO(data), formats=SUPPORTED_FORMATS)
    except Image.DecompressionBombError as error:
        found = re.search(r"\((\d+) pixels\)", str(error))
        pixels = int(found.group(1)) if found else MAX_PIXELS + 1
        raise PhotoError(_too_large_message(pixels, None)) from None
    except UnidentifiedImageError:
        if _looks_like_text(data):
            raise PhotoError("this is a text file, not a photo") from None
        raise PhotoError(f"this is not a photo the scanner can read (send a {_SUPPORTED_TEXT})") from None


def _too_large_message(pixels: int, dimensions: str | None) -> str:
    size = f"{dimensions} pixels, " if dimensions else ""
    return (
        f"the photo is too large ({size}{pixels / 1e6:,.0f} megapixels); "
        f"the limit is {MAX_PIXELS / 1e6:.0f} megapixels, so resize it first"
    )


def _refuse_bomb(
    image_format: str | None, width: int, height: int, file_bytes: int, max_side: int | None
) -> None:
    """Refuse an image whose pixels would outweigh its file far beyond any photo's (MAX_DECODE_RATIO)."""
    factor = _jpeg_reduction(max(width, height), max_side)[0] if image_format in ("JPEG", "MPO") else 1
    unpacked = (-(-width // factor)) * (-(-height // factor)) * 3  # every decode ends as 8-bit BGR
    if unpacked <= max(FREE_DECODE_BYTES, MAX_DECODE_RATIO * file_bytes):
        return
    raise PhotoError(
        f"this {width}×{height} image is a file of only {file_bytes / 1024:,.0f} KB that would unpack to "
        f"{unpacked / 2**20:,.0f} MB, far more than any photo; send the camera's original photo"
    )


def _refuse_animation(header: Image.Image) -> None:
    if header.format not in _MAY_BE_ANIMATED or not getattr(header, "is_animated", False):
        return
    kind = {"GIF": "an animated GIF", "PNG": "an animated PNG", "WEBP": "an animated WebP"}.get(
        header.format, "an image sequence"
    )
    raise PhotoError(f"this is {kind}; send a single still photo of the kingdom")


def _orientation(header: Image.Image) -> int:
    """EXIF orientation 1-8 (1 when absent or unreadable; HEIF readers have applied it already)."""
    try:
        value = header.getexif().get(_EXIF_ORIENTATION, 1)
    except Exception:  # noqa: BLE001 - damaged EXIF must not cost the photo; it only loses the rotation
        return 1
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _looks_like_text(data: bytes) -> bool:
    sample = data[:4096]
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError:
        return False
    printable = sum(ch.isprintable() or ch in "\r\n\t" for ch in text)
    return printable >= 0.95 * len(text)


# --- decoding --------------------------------------------------------------------------------------


def _jpeg_reduction(longest: int, max_side: int | None) -> tuple[int, int]:
    """Largest JPEG decode reduction (1, 2, 4 or 8) that still keeps at least ``max_side`` pixels."""
    if max_side is not None:
        for factor, flag in (
            (8, cv2.IMREAD_REDUCED_COLOR_8),
            (4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_COLOR_2),
        ):
            if longest / factor >= max_side:
                return factor, flag
    return 1, cv2.IMREAD_COLOR


def _decode_with_opencv(
    data: bytes, image_format: str, longest: int, max_side: int | None
) -> np.ndarray | None:
    buffer = np.frombuffer(data, np.uint8)
    if image_format in ("JPEG", "MPO"):
        _, flag = _jpeg_reduction(longest, max_side)
        return cv2.imdecode(buffer, flag | cv2.IMREAD_IGNORE_ORIENTATION)
    image = cv2.imdecode(buffer, cv2.IMREAD_UNCHANGED)  # keeps alpha and 16 bits; ignores orientation
    if image is None:
        return None
    return _to_bgr8(image)


def _to_bgr8(image: np.ndarray) -> np.ndarray:
    """Any OpenCV decode result (1/3/4 channels, 8/16 bits) -> BGR uint8, alpha flattened."""
    if image.dtype == np.uint16:
        image = cv2.convertScaleAbs(image, alpha=1 / 257)
    elif image.dtype != np.uint8:
        image = cv2.normalize(image, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return _flatten_alpha(image[:, :, :3], image[:, :, 3])
    if image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image


def _pillow_reduction(width: int, height: int, max_side: int | None) -> int:
    """Integer factor (1-8) a Pillow-decoded image can be box-reduced by and still keep ``max_side``."""
    if max_side is None:
        return 1
    return max(1, min(8, max(width, height) // max_side))


def _decode_with_pillow(header: Image.Image, reduction: int = 1) -> tuple[np.ndarray, bool]:
    """Decode through Pillow; turn its errors into a reason a player understands. A ``reduction`` > 1
    box-averages the decoded image inside Pillow, so the full-size array is never copied out."""
    try:
        header.load()
        if reduction > 1 and header.mode in ("RGB", "RGBA", "L", "LA", "I", "F"):
            reduced = header.reduce(reduction)
            header.close()
            header = reduced
    except Image.DecompressionBombError:
        raise PhotoError(_too_large_message(header.size[0] * header.size[1], None)) from None
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        if "truncated" in str(error).lower():  # Pillow tells a cut-off file only in its message
            raise PhotoError(
                "the photo file is incomplete (cut off part-way); copy or upload it again"
            ) from None
        raise PhotoError("the photo file is damaged and cannot be decoded") from None
    mode = header.mode
    if mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        return _to_bgr8(np.asarray(_wide_to_uint16(header))), True
    if mode in ("1", "L"):
        return cv2.cvtColor(np.asarray(header.convert("L")), cv2.COLOR_GRAY2BGR), True
    if mode in ("LA", "La", "PA", "RGBA", "RGBa") or (mode == "P" and "transparency" in header.info):
        rgba = np.asarray(header.convert("RGBA"))
        bgr = cv2.cvtColor(rgba[:, :, :3], cv2.COLOR_RGB2BGR)
        return _flatten_alpha(bgr, rgba[:, :, 3]), mode in ("LA", "La")
    rgb = np.array(header if mode == "RGB" else header.convert("RGB"))
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR, dst=rgb), False


def _wide_to_uint16(header: Image.Image) -> np.ndarray:
    """16/32-bit integer or float greyscale -> uint16 (16-bit values kept; other ranges stretched)."""
    values = np.asarray(header)
    if values.dtype == np.uint16 or values.dtype.byteorder == ">":
        return values.astype(np.uint16)
    low, high = float(values.min()), float(values.max())
    if values.dtype.kind in "iu" and low >= 0 and high <= 65535:
        return values.astype(np.uint16)
    return ((values.astype(np.float64) - low) * (65535 / max(high - low, 1e-12))).astype(np.uint16)


def _flatten_alpha(bgr: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Composite onto ALPHA_BACKGROUND_BGR, in strips so a 48 MP image needs little extra memory."""
    out = np.empty(bgr.shape, np.uint8)
    background = np.array(ALPHA_BACKGROUND_BGR, np.uint16)
    for top in range(0, bgr.shape[0], 512):
        rows = slice(top, top + 512)
        weight = alpha[rows, :, None].astype(np.uint16)
        mixed = bgr[rows].astype(np.uint16) * weight + background * (255 - weight) + 127
        out[rows] = (mixed // 255).astype(np.uint8)
    return out


def _scaled_size(width: int, height: int, image: np.ndarray) -> tuple[int, int]:
    """Expected (width, height) of a decode of a ``width``×``height`` image reduced by an integer factor."""
    factor = max(1, round(max(width, height) / max(image.shape[:2])))
    return -(-width // factor), -(-height // factor)


def _apply_orientation(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn the stored pixels upright as EXIF orientation 1-8 says (mirrors and quarter turns)."""
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return cv2.transpose(image)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.flip(cv2.transpose(image), -1)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def _looks_grayscale(image: np.ndarray) -> bool:
    """True when the colour channels (nearly) agree everywhere: a black-and-white photo saved as colour."""
    step = max(1, int(np.sqrt(image.shape[0] * image.shape[1] / 10_000)))
    sample = image[::step, ::step].astype(np.int16)
    spread = np.abs(sample[:, :, 0] - sample[:, :, 1]) + np.abs(sample[:, :, 1] - sample[:, :, 2])
    return float(np.percentile(spread, 99)) <= 6
