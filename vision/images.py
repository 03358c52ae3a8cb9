"""Image files as the pipeline reads them: a file's or an upload's bytes, checked by their header before anything
is decoded (:func:`image_size`: an image's format and size in pixels read from its header alone, no decoding, so
that an image too large is refused before any decoder allocates memory for it), decoded by OpenCV (libheif,
through ``pillow-heif``, for an iPhone's HEIC) as (H, W, 3) uint8 BGR arrays; a photo far larger than the pipeline
needs shrunk as it is decoded (:func:`load_photo`). Every failure is an :class:`ImageError` naming the file.

The header readers take the whole file (or its first few hundred bytes) as ``bytes`` and never raise: bytes that
are not one of :data:`IMAGE_FORMATS`, or whose header is malformed or cut short, give None.
"""

from __future__ import annotations

import io
import struct
from pathlib import Path

import cv2
import numpy as np

from scorer.errors import HandFootError

from .config import DEFAULT

#: the formats :func:`image_size` reads, by the names it returns
IMAGE_FORMATS = ("PNG", "JPEG", "GIF", "BMP", "WebP", "TIFF", "HEIC")
#: the ISO base media file brands of a HEIF image (an iPhone's HEIC photo: ``heic``; ``mif1`` the generic one)
_HEIF_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"})

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic); C4, C8 and CC are not frames
_JPEG_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
# JPEG markers that stand alone, without a length: TEM, RST0..RST7, SOI
_JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


#: images over this many pixels (width x height, read from the header) are refused: about 8000 x 7500
MAX_PIXELS = 60_000_000
#: photos whose short side is under this many pixels (read from the header) hold nothing the camera can read: a
#: card's corner index must measure about 12 pixels to be read (the bundled photo's queens meld cut out and shrunk
#: is read whole at 133 pixels a side, its indices 13 pixels; 1 of its 6 indices at 122; none at 111)
MIN_SIDE = 100


def image_format(data: bytes) -> str | None:
    """The format whose signature ``data`` starts with (a name in :data:`IMAGE_FORMATS`), or None.

    Only the first bytes are looked at: a file can have a format's signature and still a broken header.
    """
    if data[:8] == _PNG_SIGNATURE:
        return "PNG"
    if data[:2] == b"\xff\xd8":
        return "JPEG"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    if data[:2] == b"BM":
        return "BMP"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "HEIC"
    return None


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """(format, width, height) of the image in ``data``, width and height in pixels, read from the header only.

    The format is a name in :data:`IMAGE_FORMATS`. For a TIFF the size is that of the first image (the first
    IFD), for a WebP with an extended header the canvas, for a GIF the logical screen.

    Returns:
        None when ``data`` is not one of :data:`IMAGE_FORMATS`, or its header is malformed or truncated, or
        it gives a width or height of 0. Never raises on any bytes.
    """
    fmt = image_format(data)
    reader = _READERS.get(fmt)
    if reader is None:
        return None
    try:
        size = reader(data)
    except struct.error:  # the header ends before a field: truncated
        return None
    if size is None or size[0] <= 0 or size[1] <= 0:
        return None
    return fmt, size[0], size[1]


def _png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the IHDR chunk, which must come first."""
    length, kind, width, height = struct.unpack_from(">I4sII", data, 8)
    if length != 13 or kind != b"IHDR":
        return None
    return width, height


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the first start-of-frame segment; the segments before it are skipped by length."""
    pos = 2
    while True:
        if data[pos:pos + 1] != b"\xff":
            return None  # not at a marker (or the data ended): malformed
        while data[pos:pos + 1] == b"\xff":  # fill bytes before the marker code
            pos += 1
        if pos >= len(data):
            return None
        marker = data[pos]
        pos += 1
        if marker in _JPEG_STANDALONE:
            continue
        if marker in (0x00, 0xD9, 0xDA):  # a stuffed byte, end of image or scan data before any frame
            return None
        (length,) = struct.unpack_from(">H", data, pos)
        if length < 2:
            return None
        if marker in _JPEG_SOF:
            height, width = struct.unpack_from(">HH", data, pos + 3)  # after length and sample precision
            return width, height
        pos += length


def _gif_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of the logical screen."""
    return struct.unpack_from("<HH", data, 6)


def _bmp_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the DIB header: the OS/2 core header (12 bytes, unsigned 16-bit sizes) or
    BITMAPINFOHEADER and its successors (40 bytes or more, signed 32-bit; a negative height is top-down)."""
    (header,) = struct.unpack_from("<I", data, 14)
    if header == 12:
        return struct.unpack_from("<HH", data, 18)
    if header >= 40:
        width, height = struct.unpack_from("<ii", data, 18)
        return width, abs(height)
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the first chunk: VP8 (lossy), VP8L (lossless) or VP8X (extended: the canvas)."""
    chunk = data[12:16]
    if chunk == b"VP8 ":
        start, width, height = struct.unpack_from("<3sHH", data, 23)  # after the 3-byte frame tag
        if start != b"\x9d\x01\x2a":
            return None
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        signature, bits = struct.unpack_from("<BI", data, 20)
        if signature != 0x2F:
            return None
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width, height = struct.unpack_from("<3s3s", data, 24)
        return int.from_bytes(width, "little") + 1, int.from_bytes(height, "little") + 1
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    """ImageWidth (tag 256) and ImageLength (tag 257) from the first IFD, each a SHORT or a LONG."""
    order = ">" if data[:2] == b"MM" else "<"
    (offset,) = struct.unpack_from(order + "I", data, 4)
    (entries,) = struct.unpack_from(order + "H", data, offset)
    found: dict[int, int] = {}
    for i in range(entries):
        tag, kind, count = struct.unpack_from(order + "HHI", data, offset + 2 + 12 * i)
        if tag not in (256, 257):
            continue
        value_at = offset + 2 + 12 * i + 8
        if kind == 3:  # SHORT, left-justified in the 4-byte value field
            (found[tag],) = struct.unpack_from(order + "H", data, value_at)
        elif kind == 4:  # LONG
            (found[tag],) = struct.unpack_from(order + "I", data, value_at)
        else:
            return None
        if count != 1:
            return None
        if len(found) == 2:
            return found[256], found[257]
    return None


def _heic_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a HEIF file's primary image, from its header by libheif (``pillow-heif``, which decodes
    nothing until asked); None without ``pillow-heif`` or for a broken header."""
    try:
        import pillow_heif  # optional: HEIC photos alone need it
    except ImportError:
        return None
    try:
        return pillow_heif.open_heif(io.BytesIO(data)).size
    except Exception:  # noqa: BLE001 - libheif's errors (ValueError, RuntimeError) on any broken file
        return None


_READERS = {"PNG": _png_size, "JPEG": _jpeg_size, "GIF": _gif_size, "BMP": _bmp_size, "WebP": _webp_size,
            "TIFF": _tiff_size, "HEIC": _heic_size}


IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".gif", ".heic", ".heif")
_FORMAT_LIST = ", ".join(IMAGE_FORMATS[:-1]) + " or " + IMAGE_FORMATS[-1]


class ImageError(HandFootError, ValueError):
    """An input that is not a readable image (missing, corrupt, truncated, not an image, too large)."""


class ImageTooLargeError(ImageError):
    """An image over the pixel limit (:data:`MAX_PIXELS`, or the caller's), from its header or once decoded."""

    http_status = 413


class ImageTooSmallError(ImageError):
    """A photo too small to read: its short side under the caller's least (:data:`MIN_SIDE`), from its header."""


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as (H, W, 3) uint8 BGR, every pixel; the checks and errors of :func:`decode_image`.

    Raises:
        ImageError: naming the file, when it is missing, a folder or cannot be read, and as :func:`decode_image`.
    """
    return decode_image(_file_bytes(path), str(path))


def load_photo(path: str | Path, side: int | None = None) -> np.ndarray:
    """Read a photo file as the pipeline reads it: (H, W, 3) uint8 BGR, its long side at most ``side`` pixels
    (default :attr:`vision.config.Pyramid.photo_side`; a smaller photo is returned as it is); the checks and errors
    of :func:`load_image`. A JPEG far larger than ``side`` is decoded at 1/2, 1/4 or 1/8 of its size (never below
    ``side``), so a 48-megapixel photo never lies in memory whole.

    Raises:
        ImageError: as :func:`load_image`.
    """
    return decode_image(_file_bytes(path), str(path), side or DEFAULT.pyramid.photo_side)


def _file_bytes(path: str | Path) -> bytes:
    p = Path(path)
    if p.is_dir():
        raise ImageError(f"{p}: a folder, not an image file")
    if not p.is_file():
        raise ImageError(f"{p}: no such file")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise ImageError(f"{p}: cannot read the file ({exc.strerror or exc.__class__.__name__})") from None


#: OpenCV's reduced decodes: the factor and its flag
_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4), (2, cv2.IMREAD_REDUCED_COLOR_2))


def decode_image(data: bytes, name: str, side: int | None = None) -> np.ndarray:
    """Decode the bytes of an image file (one of :data:`vision.imagesize.IMAGE_FORMATS`) as (H, W, 3) uint8 BGR.

    The size is read from the file header (:func:`vision.imagesize.image_size`) and checked before OpenCV
    decodes anything, so a small file that claims a huge image is refused at once.

    Args:
        data: the file's bytes.
        name: what the messages call the image (a path, an upload's file name).
        side: None for every pixel; else the long side's largest size (pixels): a larger image is shrunk to it
            (INTER_AREA), a JPEG decoded reduced first where that leaves at least ``side`` (:func:`load_photo`).

    Raises:
        ImageError: a one-line message starting with ``name``, when ``data`` is empty, a truncated JPEG or PNG,
            not one of the supported formats, has a broken header, is larger than MAX_PIXELS, cannot be decoded,
            or is a JPEG whose foot decodes as flat gray (cut short or garbled: :func:`_check_whole`).
    """
    fmt, width, height = check_image_header(data, name)
    flag = cv2.IMREAD_COLOR
    if side is not None and fmt == "JPEG":
        flag = next((f for k, f in _REDUCED if max(width, height) // k >= side), flag)
    try:
        img = _decode_heic(data) if fmt == "HEIC" else cv2.imdecode(np.frombuffer(data, np.uint8), flag)
    except cv2.error:  # some decoders assert on malformed data instead of returning None
        img = None
    if img is None:
        raise ImageError(f"{name}: not a readable image (corrupt or truncated {fmt} data)")
    if fmt == "JPEG":
        _check_whole(img, name)
    if flag == cv2.IMREAD_COLOR and img.shape[0] * img.shape[1] > MAX_PIXELS:  # a header that understated the size
        raise ImageTooLargeError(_too_large(name, img.shape[1], img.shape[0]))
    if side is not None and max(img.shape[:2]) > side:
        scale = side / max(img.shape[:2])
        img = cv2.resize(img, (max(1, round(img.shape[1] * scale)), max(1, round(img.shape[0] * scale))),
                         interpolation=cv2.INTER_AREA)
    return img


def heic_available() -> bool:
    """Whether HEIC photos can be read here (``pillow-heif`` installed: the ``vision`` extra has it)."""
    try:
        import pillow_heif  # noqa: F401
    except ImportError:
        return False
    return True


def _decode_heic(data: bytes) -> np.ndarray | None:
    """A HEIF/HEIC photo (an iPhone's) as (H, W, 3) uint8 BGR, turned as its header says, by libheif
    (``pillow-heif``); None when it cannot be decoded."""
    import pillow_heif  # optional: HEIC photos alone need it

    try:
        heif = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True)
        rgb = np.asarray(heif)
    except Exception:  # noqa: BLE001 - libheif's errors on a broken file
        return None
    if rgb.ndim != 3 or rgb.shape[2] not in (3, 4):
        return None
    return np.ascontiguousarray(rgb[:, :, 2::-1])


def check_image_header(data: bytes, name: str, max_pixels: int = MAX_PIXELS,
                       min_side: int = 0) -> tuple[str, int, int]:
    """The checks :func:`decode_image` makes before decoding, on the file's bytes alone: (format, width, height);
    ``min_side``: the least short side a photo to read may have, pixels (0, as :func:`decode_image` checks: any).

    Raises:
        ImageError: empty, a truncated JPEG or PNG, not a supported format, a broken header (one line starting
            with ``name``); ImageTooLargeError: over ``max_pixels`` by its header; ImageTooSmallError: its short
            side under ``min_side`` by its header.
    """
    if not data:
        raise ImageError(f"{name}: empty file")
    problem = truncation_problem(data)  # first: OpenCV's decoders print warnings of their own on such files
    if problem:
        raise ImageError(f"{name}: {problem}")
    fmt = image_format(data)
    if fmt is None:
        raise ImageError(f"{name}: not an image file ({_FORMAT_LIST})")
    size = image_size(data)
    if size is None and fmt == "HEIC" and not heic_available():
        raise ImageError(f"{name}: a HEIC photo, and reading HEIC needs pillow-heif (pip install pillow-heif)")
    if size is None:
        raise ImageError(f"{name}: not a readable image (corrupt or truncated {fmt} header)")
    _, width, height = size
    if width * height > max_pixels:
        raise ImageTooLargeError(_too_large(name, width, height, max_pixels))
    if min(width, height) < min_side:
        raise ImageTooSmallError(f"{name}: image too small to read ({width:,} x {height:,} pixels): a photo needs "
                                 f"at least {min_side} pixels on its short side (a card's corner index must measure "
                                 "about 12 pixels to be read)")
    return fmt, width, height


#: the rows at a JPEG's foot that hold no picture (the decoder's gray, 128 in every channel of every pixel) that
#: make it cut short: at least this share of its height ...
CUT_SHORT_SHARE = 0.02
#: ... and this many rows (one block row of a JPEG holds 8 or 16)
CUT_SHORT_ROWS = 16


def _check_whole(img: np.ndarray, name: str) -> None:
    """Raise ImageError when the decoded JPEG ``img`` (H, W, 3) ends in rows of the decoder's gray: a file cut short
    and closed again (its data ends early, an end-of-image marker after it) or garbled on its way, whose lost part
    decodes as a flat gray band that a reading would score as an empty table."""
    if not np.all(img[-1] == 128):
        return
    rows = img.reshape(img.shape[0], -1)
    flat = np.all(rows == 128, axis=1)[::-1]
    gray = int(np.argmin(flat)) if not flat.all() else len(flat)
    if gray >= CUT_SHORT_ROWS and gray >= CUT_SHORT_SHARE * img.shape[0]:
        raise ImageError(f"{name}: damaged: its bottom {gray / img.shape[0]:.0%} holds no picture (the file was cut "
                         "short or garbled on its way): send it again, or take the photo again")


def truncation_problem(data: bytes) -> str | None:
    """Why ``data`` is a cut-short JPEG or PNG ("truncated JPEG (no end-of-image marker)"), or None."""
    if data[:2] == b"\xff\xd8" and b"\xff\xd9" not in data[-4096:]:
        return "truncated JPEG (no end-of-image marker)"
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" not in data[-64:]:
        return "truncated PNG (no IEND chunk)"
    return None


def _too_large(name: str, width: int, height: int, max_pixels: int = MAX_PIXELS) -> str:
    return (f"{name}: image too large ({width:,} x {height:,} pixels; at most {max_pixels // 1_000_000} "
            "megapixels)")


def image_paths(args: list[str]) -> list[Path]:
    """Expand arguments: a directory means every image in it (sorted)."""
    out: list[Path] = []
    for a in args:
        p = Path(a)
        if p.is_dir():
            out += sorted(q for q in p.iterdir() if q.suffix.lower() in IMAGE_SUFFIXES)
        else:
            out.append(p)
    return out
