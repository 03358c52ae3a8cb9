"""Image files as the pipeline reads them: a file's or an upload's bytes, checked by their header before anything
is decoded (:mod:`vision.imagesize`), decoded by OpenCV (libheif, through ``pillow-heif``, for an iPhone's HEIC) as
(H, W, 3) uint8 BGR arrays; a photo far larger than the pipeline needs shrunk as it is decoded
(:func:`load_photo`). Every failure is an :class:`ImageError` naming the file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from scorer.errors import HandFootError

from .config import DEFAULT
from .imagesize import IMAGE_FORMATS, MAX_PIXELS, image_format, image_size

#: file suffixes taken as images when a folder is expanded (:func:`image_paths`)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".gif", ".heic", ".heif")
_FORMAT_LIST = ", ".join(IMAGE_FORMATS[:-1]) + " or " + IMAGE_FORMATS[-1]


class ImageError(HandFootError, ValueError):
    """An input that is not a readable image (missing, corrupt, truncated, not an image, too large)."""


class ImageTooLargeError(ImageError):
    """An image over the pixel limit (:data:`MAX_PIXELS`, or the caller's), from its header or once decoded."""

    http_status = 413


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
            not one of the supported formats, has a broken header, is larger than MAX_PIXELS, or cannot be
            decoded.
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
    import io

    import pillow_heif

    try:
        heif = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=True)
        rgb = np.asarray(heif)
    except Exception:  # noqa: BLE001 - libheif's errors on a broken file
        return None
    if rgb.ndim != 3 or rgb.shape[2] not in (3, 4):
        return None
    return np.ascontiguousarray(rgb[:, :, 2::-1])


def check_image_header(data: bytes, name: str, max_pixels: int = MAX_PIXELS) -> tuple[str, int, int]:
    """The checks :func:`decode_image` makes before decoding, on the file's bytes alone: (format, width, height).

    Raises:
        ImageError: empty, a truncated JPEG or PNG, not a supported format, a broken header (one line starting
            with ``name``); ImageTooLargeError: over ``max_pixels`` by its header.
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
    return fmt, width, height


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
