"""An image's format and size in pixels, read from its file header alone (no decoding, no OpenCV).

Used to refuse an image that is too large before any decoder allocates memory for it. Every reader takes the
whole file (or its first few hundred bytes) as ``bytes`` and never raises: bytes that are not one of
:data:`IMAGE_FORMATS`, or whose header is malformed or cut short, give None.
"""

from __future__ import annotations

import struct

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
        import io

        import pillow_heif
    except ImportError:
        return None
    try:
        return pillow_heif.open_heif(io.BytesIO(data)).size
    except Exception:  # noqa: BLE001 - libheif's errors (ValueError, RuntimeError) on any broken file
        return None


_READERS = {"PNG": _png_size, "JPEG": _jpeg_size, "GIF": _gif_size, "BMP": _bmp_size, "WebP": _webp_size,
            "TIFF": _tiff_size, "HEIC": _heic_size}
