"""Image sizes read from file headers alone (vision.images): real files, hand-built headers, random bytes."""

import struct
import zlib

import pytest
from hypothesis import given, settings, strategies as st

from vision.images import IMAGE_FORMATS, image_format, image_size


def png_header(width: int, height: int) -> bytes:
    """A PNG signature, a valid IHDR chunk (8-bit RGB, correct CRC) and IEND; no image data."""
    ihdr = struct.pack(">II5B", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    iend = b"IEND"
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
            + struct.pack(">I", 0) + iend + struct.pack(">I", zlib.crc32(iend)))


def gif_header(width: int, height: int) -> bytes:
    """A GIF89a: logical screen ``width`` x ``height``, a two-colour table and one 1 x 1 frame."""
    return (b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\xff\xff\xff\x00\x00\x00"
            + b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00\x3b")


def bmp_core_header(width: int, height: int) -> bytes:
    """A BMP with the old 12-byte OS/2 core header (unsigned 16-bit sizes)."""
    return b"BM" + struct.pack("<IHHI", 26, 0, 0, 26) + struct.pack("<IHHHH", 12, width, height, 1, 24)


def bmp_info_header(width: int, height: int) -> bytes:
    """A BMP with a 40-byte BITMAPINFOHEADER (signed 32-bit sizes; negative height = top-down)."""
    return (b"BM" + struct.pack("<IHHI", 54, 0, 0, 54)
            + struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 2835, 2835, 0, 0))


def tiff_header(width: int, height: int, order: str = ">", short: bool = True) -> bytes:
    """A TIFF whose first IFD has an unrelated tag, then ImageWidth and ImageLength as SHORT or LONG."""
    magic = b"MM\x00*" if order == ">" else b"II*\x00"
    entries = [struct.pack(order + "HHII", 254, 4, 1, 0)]  # NewSubfileType first: skipped
    for tag, value in ((256, width), (257, height)):
        if short:
            entries.append(struct.pack(order + "HHIH2x", tag, 3, 1, value))
        else:
            entries.append(struct.pack(order + "HHII", tag, 4, 1, value))
    return magic + struct.pack(order + "I", 8) + struct.pack(order + "H", len(entries)) + b"".join(entries) + b"\0" * 4


def jpeg_header(width: int, height: int, marker: int = 0xC0) -> bytes:
    """SOI, an APP1 segment, fill bytes, a DHT segment (C4: not a frame) and a start-of-frame ``marker``."""
    app1 = b"\xff\xe1" + struct.pack(">H", 8) + b"Exif\0\0"
    dht = b"\xff\xc4" + struct.pack(">H", 5) + b"\0\0\0"
    sof = bytes([0xFF, marker]) + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app1 + b"\xff\xff\xff" + dht + sof + b"\xff\xd9"


HAND_BUILT = [
    (png_header(40000, 40000), ("PNG", 40000, 40000)),
    (png_header(1, 2), ("PNG", 1, 2)),
    (gif_header(320, 200), ("GIF", 320, 200)),
    (bmp_core_header(64, 48), ("BMP", 64, 48)),
    (bmp_info_header(640, -480), ("BMP", 640, 480)),
    (bmp_info_header(640, 480), ("BMP", 640, 480)),
    (tiff_header(1024, 768, ">", short=True), ("TIFF", 1024, 768)),
    (tiff_header(70000, 3, ">", short=False), ("TIFF", 70000, 3)),
    (tiff_header(5, 6, "<", short=True), ("TIFF", 5, 6)),
    (jpeg_header(4032, 3024), ("JPEG", 4032, 3024)),
    (jpeg_header(17, 9, marker=0xC2), ("JPEG", 17, 9)),
    (jpeg_header(17, 9, marker=0xCF), ("JPEG", 17, 9)),
]


@pytest.mark.parametrize("data,expected", HAND_BUILT)
def test_hand_built_headers(data, expected):
    assert image_size(data) == expected
    assert image_format(data) == expected[0] and expected[0] in IMAGE_FORMATS


def test_huge_png_header_is_read_without_decoding():
    data = png_header(40000, 40000)
    assert len(data) == 45
    assert image_size(data) == ("PNG", 40000, 40000)


@pytest.mark.parametrize("data", [
    b"", b"hello world", b"\x89PNG\r\n\x1a\n", png_header(0, 5), png_header(5, 0),
    b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IDAT" + b"\0" * 13,  # IHDR must come first
    jpeg_header(0, 5), b"\xff\xd8\xff\xd9", b"\xff\xd8\xff\xda\x00\x02", b"\xff\xd8\x00",
    jpeg_header(10, 10, marker=0xC8)[:-2],  # C8 is reserved, not a frame; then the data ends
    b"GIF89a\x01\x00", b"BM" + b"\0" * 12 + struct.pack("<I", 20) + b"\0" * 20,  # unknown DIB header size
    b"RIFF\0\0\0\0WEBPVP8 " + b"\0" * 7 + b"\x00\x00\x00" + b"\x10\x00\x10\x00",  # bad VP8 start code
    b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x00" + b"\0" * 4,  # bad VP8L signature
    b"RIFF\0\0\0\0WEBPALPH" + b"\0" * 20,
    b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 0),  # no entries
    b"II*\x00" + struct.pack("<I", 1 << 30),  # first IFD past the end
    tiff_header(5, 6)[:-16],  # ImageLength cut off
])
def test_not_images_and_broken_headers_give_none(data):
    assert image_size(data) is None


def test_every_truncation_of_a_header_is_none_or_the_true_size():
    for data, expected in HAND_BUILT:
        for n in range(len(data)):
            assert image_size(data[:n]) in (None, expected)
        assert image_size(data[:8]) is None


@given(st.binary(max_size=600))
@settings(max_examples=500)
def test_random_bytes_never_raise(data):
    result = image_size(data)
    assert result is None or (result[0] in IMAGE_FORMATS and result[1] > 0 and result[2] > 0)


SIGNATURES = [b"\x89PNG\r\n\x1a\n", b"\xff\xd8", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00",
              b"MM\x00*", b"RIFF\0\0\0\0WEBPVP8 ", b"RIFF\0\0\0\0WEBPVP8L", b"RIFF\0\0\0\0WEBPVP8X"]


@given(st.sampled_from(SIGNATURES), st.binary(max_size=300))
@settings(max_examples=800)
def test_a_signature_and_random_bytes_never_raise(signature, tail):
    result = image_size(signature + tail)
    assert result is None or (result[0] in IMAGE_FORMATS and result[1] > 0 and result[2] > 0)


@given(st.sampled_from(HAND_BUILT), st.integers(0, 200), st.lists(st.tuples(st.integers(0, 199),
                                                                            st.integers(0, 255)), max_size=4))
@settings(max_examples=500)
def test_truncated_and_damaged_headers_never_raise(sample, cut, damage):
    data, expected = sample
    cut_data = data[:cut]
    assert image_size(cut_data) in (None, expected)
    broken = bytearray(data)
    for pos, value in damage:
        if pos < len(broken):
            broken[pos] = value
    result = image_size(bytes(broken)[:cut])
    assert result is None or (result[0] in IMAGE_FORMATS and result[1] > 0 and result[2] > 0)


# -- real files written by OpenCV -----------------------------------------------------------------------------
ENCODINGS = [(".png", "PNG", 3, []), (".png", "PNG", 1, []), (".jpg", "JPEG", 3, []),
             (".jpg", "JPEG", 3, ["progressive"]), (".bmp", "BMP", 3, []), (".bmp", "BMP", 4, []),
             (".webp", "WebP", 3, ["lossy"]), (".webp", "WebP", 3, []), (".webp", "WebP", 4, ["lossy"]),
             (".tiff", "TIFF", 3, []), (".tiff", "TIFF", 1, ["16-bit"]), (".gif", "GIF", 3, [])]


def encoded(ext: str, channels: int, options: list[str], width: int = 53, height: int = 37) -> bytes:
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    img = (np.random.default_rng(0).random((height, width, channels)) * 255).astype(np.uint8)
    if "16-bit" in options:
        img = img.astype(np.uint16) * 257
    params = []
    if "progressive" in options:
        params = [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]
    if "lossy" in options:  # OpenCV writes lossless WebP by default
        params = [cv2.IMWRITE_WEBP_QUALITY, 80]
    ok, buf = cv2.imencode(ext, img.squeeze(), params)
    if not ok:
        pytest.skip(f"this OpenCV cannot write {ext}")
    return buf.tobytes()


@pytest.mark.parametrize("ext,fmt,channels,options", ENCODINGS)
def test_files_written_by_opencv(ext, fmt, channels, options):
    data = encoded(ext, channels, options)
    assert image_size(data) == (fmt, 53, 37)
    assert image_size(data[:len(data) // 2]) in (None, (fmt, 53, 37))


def test_webp_chunk_kinds_are_all_read():
    kinds = {encoded(ext, c, o)[12:16] for ext, _fmt, c, o in ENCODINGS if ext == ".webp"}
    assert kinds == {b"VP8 ", b"VP8L", b"VP8X"}
