"""Run the shipped corner-index detector (``models/cards.onnx``) with ONNX Runtime and OpenCV only.

No torch in the runtime path: the model is exported from Ultralytics to ONNX; pre- and post-processing
(letterbox, decode, per-class NMS) are done here. Inference runs at full resolution (the long side scaled to
``imgsz``, a multiple of 32) because corner indices are small.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np

from scorer.errors import HandFootError

from .classes import CLASS_NAMES
from .detections import Detections
from .imagesize import IMAGE_FORMATS, MAX_PIXELS, image_format, image_size

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_MODEL = MODELS_DIR / "cards.onnx"
#: file suffixes taken as images when a folder is expanded (:func:`image_paths`)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".gif")
_FORMAT_LIST = ", ".join(IMAGE_FORMATS[:-1]) + " or " + IMAGE_FORMATS[-1]


class ModelError(HandFootError, ValueError):
    """A detector model file that exists but cannot be loaded (corrupt, not ONNX, wrong format)."""


class ImageError(HandFootError, ValueError):
    """An input that is not a readable image (missing, corrupt, truncated, not an image, too large)."""


class ImageTooLargeError(ImageError):
    """An image over the pixel limit (:data:`MAX_PIXELS`, or the caller's), from its header or once decoded."""

    http_status = 413


def onnx_session(model: str | Path, threads: int, what: str, backend: str | None = None,
                 probe_shape: tuple[int, ...] | None = None):
    """The model file ``model`` opened for inference with ``threads`` threads on a backend
    (:func:`vision.backends.open_model`: ONNX Runtime or OpenVINO, ``backend`` or ``$HANDFOOT_BACKEND``, default
    ``auto``). ``probe_shape`` is a typical input's shape (N, C, H, W), for the automatic choice.

    Raises:
        FileNotFoundError: when the file is missing; ModelError: when it cannot be loaded or the backend is
        unknown. ``what`` names the model in the message ("detector", "index reader").
    """
    from .backends import open_model

    path = Path(model)
    if not path.is_file():
        raise FileNotFoundError(f"{what} model not found: {path}")

    def probe() -> dict[str, np.ndarray]:
        x = np.random.default_rng(0).random(probe_shape or (1, 3, 640, 640), dtype=np.float32)
        return {_first_input_name(path): x}
    try:
        return open_model(path, threads, backend, probe if probe_shape else None)
    except ValueError as exc:
        raise ModelError(f"cannot load the {what} model {path}: {exc}") from None
    except Exception as exc:  # the backends raise their own types (InvalidProtobuf, Fail, RuntimeError ...)
        raise ModelError(f"cannot load the {what} model {path}: {exc.__class__.__name__}") from exc


def _first_input_name(path: Path) -> str:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"]).get_inputs()[0].name


@dataclass
class OnnxModel:
    """Base of the small ONNX models: ``model`` (path to the ``.onnx`` file), ``threads`` (inference threads) and
    ``backend`` (:mod:`vision.backends`: ``onnxruntime``, ``openvino`` or None for ``$HANDFOOT_BACKEND`` /
    automatic). Subclasses set their default file, :attr:`what` (their name in messages) and
    :attr:`probe_shape` (a typical input, for the automatic choice of backend).

    Raises:
        FileNotFoundError: when the model file is missing.
        ModelError: when it cannot be loaded, or takes another input than :attr:`input_chw`.
    """

    model: str | Path
    threads: int = 2
    backend: str | None = None
    what: ClassVar[str] = "model"
    #: the input a subclass's model must take: (channels, height, width) after the batch axis; None = any
    input_chw: ClassVar[tuple[int, int, int] | None] = None
    #: a typical input's shape (N, C, H, W), for choosing the faster backend; None: ONNX Runtime unless asked
    probe_shape: ClassVar[tuple[int, ...] | None] = None

    def __post_init__(self) -> None:
        self._session = onnx_session(self.model, self.threads, self.what, self.backend, self.probe_shape)
        if self.input_chw is not None:
            shape = tuple(self._session.get_inputs()[0].shape[1:])
            if shape != self.input_chw:
                raise ModelError(f"{self.model} is not a model for the {self.what}: it takes inputs of shape {shape}, "
                                 f"not {self.input_chw}")

    @property
    def backend_name(self) -> str:
        """The backend this model runs on: ``onnxruntime`` or ``openvino``."""
        from .backends import backend_name

        return backend_name(self._session)


def load_image(path: str | Path) -> np.ndarray:
    """Read an image file as (H, W, 3) uint8 BGR; the checks and errors of :func:`decode_image`.

    Raises:
        ImageError: naming the file, when it is missing, a folder or cannot be read, and as :func:`decode_image`.
    """
    p = Path(path)
    if p.is_dir():
        raise ImageError(f"{p}: a folder, not an image file")
    if not p.is_file():
        raise ImageError(f"{p}: no such file")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ImageError(f"{p}: cannot read the file ({exc.strerror or exc.__class__.__name__})") from None
    return decode_image(data, str(p))


def decode_image(data: bytes, name: str) -> np.ndarray:
    """Decode the bytes of an image file (one of :data:`vision.imagesize.IMAGE_FORMATS`) as (H, W, 3) uint8 BGR.

    The size is read from the file header (:func:`vision.imagesize.image_size`) and checked before OpenCV
    decodes anything, so a small file that claims a huge image is refused at once.

    Args:
        data: the file's bytes.
        name: what the messages call the image (a path, an upload's file name).

    Raises:
        ImageError: a one-line message starting with ``name``, when ``data`` is empty, a truncated JPEG or PNG,
            not one of the supported formats, has a broken header, is larger than MAX_PIXELS, or cannot be
            decoded.
    """
    fmt, _, _ = check_image_header(data, name)
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:  # some decoders assert on malformed data instead of returning None
        img = None
    if img is None:
        raise ImageError(f"{name}: not a readable image (corrupt or truncated {fmt} data)")
    if img.shape[0] * img.shape[1] > MAX_PIXELS:  # a header that understated the size
        raise ImageTooLargeError(_too_large(name, img.shape[1], img.shape[0]))
    return img


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


def letterbox(image: np.ndarray, imgsz: int, shape: tuple[int, int] | None = None
              ) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Scale the long side to ``imgsz`` and pad both sides up to multiples of 32 (grey 114); with ``shape``
    (H, W), a model's fixed input size, fit the image inside it instead and pad to exactly that size.

    Returns (padded image, scale, (pad_x, pad_y)); original = (model - pad) / scale.
    """
    h, w = image.shape[:2]
    if shape:
        H, W = shape
        r = min(W / w, H / h)
        nw, nh = int(round(w * r)), int(round(h * r))
    else:
        r = imgsz / max(h, w)
        nw, nh = max(32, int(round(w * r))), max(32, int(round(h * r)))
        W, H = int(np.ceil(nw / 32) * 32), int(np.ceil(nh / 32) * 32)
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    px, py = (W - nw) // 2, (H - nh) // 2
    out = cv2.copyMakeBorder(resized, py, H - nh - py, px, W - nw - px, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return out, r, (px, py)


@dataclass
class CardDetector(OnnxModel):
    """Corner-index detector.

    Args:
        model: path to the ONNX model: YOLO output ``(1, 4 + nc, N)`` with nc = 53 (one class per card code) or
            nc = 1 (a class-agnostic index finder: the index reader names what it finds; see :attr:`names_cards`);
            ``threads`` and the errors raised on loading: :class:`OnnxModel`.
        imgsz: inference size of the long side in pixels (multiple of 32).
        conf: minimum class confidence; iou: NMS IoU threshold (per class).

    Raises:
        ModelError: also for a model with another number of classes than 53 or 1.
    """

    model: str | Path = DEFAULT_MODEL
    imgsz: int = 1280
    conf: float = 0.25
    iou: float = 0.5
    what: ClassVar[str] = "detector"
    #: a 1600 x 1200 photo's largest pyramid pass
    probe_shape: ClassVar[tuple[int, ...] | None] = (1, 3, 1216, 1600)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._input = self._session.get_inputs()[0].name
        shape = self._session.get_inputs()[0].shape
        self._fixed = tuple(shape[2:]) if all(isinstance(s, int) for s in shape[2:]) else None
        channels = self._session.get_outputs()[0].shape[1]
        self._nc = channels - 4 if isinstance(channels, int) else len(CLASS_NAMES)
        if self._nc not in (1, len(CLASS_NAMES)):
            raise ModelError(f"cannot use the detector model {self.model}: {self._nc} classes (expected "
                             f"{len(CLASS_NAMES)} card codes, or 1 for an index finder)")

    @property
    def names_cards(self) -> bool:
        """True when the model names card codes; False for a one-class index finder, whose detections all have
        class 0 until :class:`vision.reader.IndexReader` names them."""
        return self._nc == len(CLASS_NAMES)

    @property
    def fixed_size(self) -> tuple[int, int] | None:
        """(H, W) of a model exported with a fixed input size, else None (any multiple of 32)."""
        return self._fixed

    def __call__(self, image: np.ndarray, imgsz: int | None = None, conf: float | None = None) -> Detections:
        """Detect corner indices in a (H, W, 3) uint8 BGR image; boxes in that image's pixels.

        ``imgsz`` overrides the inference size (long side, pixels, multiple of 32) and ``conf`` the minimum
        confidence for this call.
        """
        x, r, (px, py) = letterbox(image, imgsz or self.imgsz, self._fixed)
        blob = cv2.dnn.blobFromImage(x, 1 / 255.0, swapRB=True)
        out = self._session.run(None, {self._input: blob})[0][0]  # (4 + nc, N)
        return self._decode(out, r, px, py, image.shape[1], image.shape[0], self.conf if conf is None else conf)

    def _decode(self, out: np.ndarray, r: float, px: int, py: int, width: int, height: int,
                min_conf: float) -> Detections:
        scores = out[4:4 + self._nc]
        cls = scores.argmax(0)
        conf = scores[cls, np.arange(scores.shape[1])]
        keep = conf >= min_conf
        if not keep.any():
            return Detections.empty()
        cx, cy, w, h = out[0, keep], out[1, keep], out[2, keep], out[3, keep]
        boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
        boxes = (boxes - [px, py, px, py]) / r
        boxes = np.clip(boxes, 0, [width, height, width, height]).astype(np.float32)
        conf, cls = conf[keep].astype(np.float32), cls[keep].astype(np.int64)
        xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]])
        idx = cv2.dnn.NMSBoxesBatched(xywh.tolist(), conf.tolist(), cls.tolist(), min_conf, self.iou)
        idx = np.array(idx, np.int64).reshape(-1)
        order = idx[np.argsort(-conf[idx])]
        return Detections(boxes[order], conf[order], cls[order])


class NegativeDetector:
    """A detector reading each image's negative (255 - each value): a deck printed light on dark paper (a deck
    profile's ``negative``, ``vision.decks``) shows the dark-on-light indices the model learned. Called and
    answering as ``detector`` (boxes in the image's pixels); its other attributes are ``detector``'s. Given one,
    :func:`vision.pipeline.detect` takes the photo's negative once for every model (detector, reader, stack
    checker)."""

    def __init__(self, detector: CardDetector):
        self.detector = detector

    def __call__(self, image: np.ndarray, imgsz: int | None = None, conf: float | None = None) -> Detections:
        return self.detector(255 - image, imgsz, conf)

    def __getattr__(self, name: str):
        return getattr(self.detector, name)


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
