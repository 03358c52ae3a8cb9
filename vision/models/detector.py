"""Run the shipped corner-index detector (``models/cards.onnx``) with ONNX Runtime and OpenCV only.

No torch in the runtime path: the model is exported from Ultralytics to ONNX; pre- and post-processing
(letterbox, decode, per-class NMS) are done here. Inference runs at full resolution (the long side scaled to
``imgsz``, a multiple of 32) because corner indices are small.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar

import cv2
import numpy as np

from scorer.errors import HandFootError

from ..classes import CLASS_NAMES
from ..config import DEFAULT
from ..types import Detections, box_iou
from .backends import Check, Session, backend_name, open_model, precision_name, tolerance_check

MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
DEFAULT_MODEL = MODELS_DIR / "cards.onnx"
#: the models' fixed check (:class:`vision.models.backends.Check`): a rendered round-end table, 1280 x 960 ...
CHECK_PHOTO = MODELS_DIR / "check.jpg"
#: ... and its reading by the shipped models on ONNX Runtime: ``indices`` (n, 4) xyxy px, ``cards`` (k, 2, 2) the
#: two index centres (px) of each whole card (``scripts/make_check.py``)
CHECK_READING = MODELS_DIR / "check.json"
class ModelError(HandFootError, ValueError):
    """A detector model file that exists but cannot be loaded (corrupt, not ONNX, wrong format)."""


def onnx_session(model: str | Path, threads: int, what: str, backend: str | None = None,
                 check: Callable[[Path], Check | None] | None = None) -> Session:
    """The model file ``model`` opened for inference with ``threads`` threads on a backend
    (:func:`vision.models.backends.open_model`: ONNX Runtime or OpenVINO, ``backend`` or ``$HANDFOOT_BACKEND``, default
    ``auto``). ``check(path)`` makes the model's :class:`vision.models.backends.Check`, for choosing the backend and
    OpenVINO's precision by the readings (None: ONNX Runtime unless asked, OpenVINO in f32).

    Raises:
        FileNotFoundError: when the file is missing; ModelError: when it cannot be loaded or the backend is
        unknown. ``what`` names the model in the message ("detector", "index reader").
    """
    path = Path(model)
    if not path.is_file():
        raise FileNotFoundError(f"{what} model not found: {path}")

    try:
        return open_model(path, threads, backend, check(path) if check is not None else None)
    except ValueError as exc:
        raise ModelError(f"cannot load the {what} model {path}: {exc}") from None
    except Exception as exc:  # the backends raise their own types (InvalidProtobuf, Fail, RuntimeError ...)
        raise ModelError(f"cannot load the {what} model {path}: not an ONNX model the backend can open "
                         f"({exc.__class__.__name__})") from exc


def _first_input_name(path: Path) -> str:
    import onnxruntime as ort  # the optional vision extra

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"]).get_inputs()[0].name


@dataclass
class OnnxModel:
    """Base of the small ONNX models: ``model`` (path to the ``.onnx`` file), ``threads`` (inference threads) and
    ``backend`` (:mod:`vision.models.backends`: ``onnxruntime``, ``openvino`` or None for ``$HANDFOOT_BACKEND`` /
    automatic). Subclasses set their default file, :attr:`what` (their name in messages) and
    :meth:`check` (how to tell that two backends or precisions read the same).

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
    #: a typical input's shape (N, C, H, W), for a check of the raw outputs (:meth:`check`); None: no check
    probe_shape: ClassVar[tuple[int, ...] | None] = None

    @classmethod
    def check(cls, path: Path) -> Check | None:
        """The model file's check (:class:`vision.models.backends.Check`): here every output within the backends'
        tolerance on a random input of :attr:`probe_shape`; the models with a reading of their own check that."""
        if cls.probe_shape is None:
            return None
        shape = cls.probe_shape
        return tolerance_check(lambda: {_first_input_name(path): np.random.default_rng(0).random(shape, np.float32)})

    def __post_init__(self) -> None:
        self._session = onnx_session(self.model, self.threads, self.what, self.backend, self.check)
        if self.input_chw is not None:
            shape = tuple(self._session.get_inputs()[0].shape[1:])
            if shape != self.input_chw:
                raise ModelError(f"{self.model} is not a model for the {self.what}: it takes inputs of shape {shape}, "
                                 f"not {self.input_chw}")

    @property
    def backend_name(self) -> str:
        """The backend this model runs on: ``onnxruntime`` or ``openvino``."""
        return backend_name(self._session)

    @property
    def precision(self) -> str:
        """The element type this model computes in: ``f32``, or ``bf16`` (OpenVINO on a CPU with AMX)."""
        return precision_name(self._session)


def check_photo() -> tuple[np.ndarray, dict]:
    """The models' check photo (H, W, 3) BGR and its reading (:data:`CHECK_READING`).

    Raises:
        FileNotFoundError: either file missing.
    """
    image = cv2.imread(str(CHECK_PHOTO))
    if image is None:
        raise FileNotFoundError(f"the models' check photo is missing: {CHECK_PHOTO}")
    return image, json.loads(CHECK_READING.read_text())


def same_boxes(a: np.ndarray, b: np.ndarray, thresholds: tuple[float, ...] = (), iou: float = 0.8) -> bool:
    """Whether two runs of a YOLO detector (raw outputs ``(1, 4 + nc, N)``) find the same indices for every
    confidence threshold the pipeline uses (``thresholds``; default those of :data:`vision.config.DEFAULT`): the
    boxes of each run at or above a threshold, after non-maximum suppression, pair one to one with the other's, of
    the same class, overlapping by ``iou`` or more (coordinates in model pixels). A box just over a threshold in one
    run and just under it in the other is a different reading."""
    r = DEFAULT.reading
    thresholds = thresholds or (r.reader_box_conf, r.candidate_conf, DEFAULT.completion.chain_conf, r.min_conf,
                                r.finder_box_conf)
    floor = min(thresholds)
    found = []
    for out in (a[0], b[0]):
        scores = out[4:]
        cls = scores.argmax(0)
        conf = scores[cls, np.arange(scores.shape[1])]
        keep = conf >= floor
        cx, cy, w, h = out[:4, keep]
        boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).astype(np.float32)
        kept = Detections(boxes, conf[keep].astype(np.float32), cls[keep].astype(np.int64)).with_nms(0.5,
                                                                                                    min_conf=floor)
        found.append((kept.xyxy, kept.confidence, kept.class_id))
    (ab, ac, al), (bb, bc, bl) = found
    for t in thresholds:
        x, y = ac >= t, bc >= t
        if x.sum() != y.sum():
            return False
        if not x.any():
            continue
        overlap = box_iou(ab[x], bb[y]) * (al[x][:, None] == bl[y][None, :])
        if (overlap.max(1) < iou).any() or (overlap.max(0) < iou).any():
            return False
    return True


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
        conf: minimum class confidence of a call that names none (the pyramid, :mod:`vision.scales`, always
            names its floor); iou: NMS IoU threshold per class, the pyramid's own
            (:attr:`vision.config.Pyramid.iou`).

    Raises:
        ModelError: also for a model with another number of classes than 53 or 1.
    """

    model: str | Path = DEFAULT_MODEL
    imgsz: int = 1280
    conf: float = 0.25
    iou: float = DEFAULT.pyramid.iou
    what: ClassVar[str] = "detector"

    @classmethod
    def check(cls, path: Path) -> Check:
        """The check photo's first pyramid pass (long side 1280); the same reading is the same boxes
        (:func:`same_boxes`)."""
        def feeds() -> dict[str, np.ndarray]:
            x, _, _ = letterbox(check_photo()[0], 1280)
            return {_first_input_name(path): cv2.dnn.blobFromImage(x, 1 / 255.0, swapRB=True)}
        return Check(feeds, lambda a, b: same_boxes(a[0], b[0]))

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
        class 0 until :class:`vision.models.reader.IndexReader` names them."""
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
        return Detections(boxes, conf, cls).with_nms(self.iou, min_conf=min_conf)


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
