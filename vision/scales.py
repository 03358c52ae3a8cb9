"""Stage 1 of the camera pipeline at every scale: run the detector on an image pyramid and merge.

The detector learned corner indices about 11-68 px in size (5th-95th percentile, median 28 px, measured on the
training tiles). Photos differ: the ``phone_corners`` close-ups have indices about 100 px tall at 640 px, while
generated whole tables at 1280 px have indices down to about 8 px. Rather than guess, :func:`detect_multiscale`
runs the model with the long side at ``max_side`` (or the photo's own size when smaller), then at half, a
quarter ... down to ``min_side``, and keeps the most confident box wherever boxes of one card code overlap.
Costs about 4/3 of the largest pass.
"""

from __future__ import annotations

import cv2
import numpy as np

from .detections import Detections


def pyramid_sizes(width: int, height: int, max_side: int = 2560, min_side: int = 320,
                  upscale: float = 1.0) -> list[int]:
    """Inference long sides (pixels, multiples of 32), largest first: ``[min(long * upscale, max_side), /2, /4 ...]``.

    ``upscale`` > 1 enlarges small photos first (a whole table in a webcam frame has indices under 10 px).
    """
    long = max(width, height)
    top = max(32, int(min(long * upscale, max_side)) // 32 * 32)
    sizes = [top]
    while sizes[-1] // 2 >= min_side:
        sizes.append(max(32, (sizes[-1] // 2 + 31) // 32 * 32))
    return sizes


def merge(parts: list[Detections], iou: float = 0.5, agnostic: bool = False) -> Detections:
    """Concatenate detections and apply non-maximum suppression (IoU threshold ``iou``), per card code or,
    with ``agnostic``, across codes (one box per place: the reader decides the code afterwards)."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return Detections.empty()
    boxes = np.concatenate([p.xyxy for p in parts]).astype(np.float32)
    conf = np.concatenate([p.confidence for p in parts]).astype(np.float32)
    cls = np.concatenate([p.class_id for p in parts]).astype(np.int64)
    xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]])
    groups = np.zeros_like(cls) if agnostic else cls
    keep = np.array(cv2.dnn.NMSBoxesBatched(xywh.tolist(), conf.tolist(), groups.tolist(), 0.0, iou),
                    np.int64).reshape(-1)
    keep = keep[np.argsort(-conf[keep])]
    return Detections(boxes[keep], conf[keep], cls[keep])


#: with the index reader, boxes down to this detector confidence are read (the detector finds indices it
#: cannot name: with the first model, 80 % of held-out-design indices got a box at 0.05, 16 % at 0.25)
READER_BOX_CONF = 0.05


def detect_multiscale(detector, image: np.ndarray, max_side: int = 2560, min_side: int = 320,
                      upscale: float = 1.0, reader=None, conf: float | None = None) -> Detections:
    """Corner indices of a (H, W, 3) BGR image found at every pyramid scale, merged; boxes in image pixels.

    ``detector`` is a :class:`vision.detector.CardDetector` (callable as ``detector(image, imgsz)``, with
    ``iou`` and ``conf`` attributes). A model exported with a fixed input size runs once. With an
    :class:`vision.reader.IndexReader`, boxes are found across codes (the detector should then be built with
    ``conf=READER_BOX_CONF``), each is re-read by the reader, and those whose new confidence is under ``conf``
    (default: the detector's) are dropped.
    """
    h, w = image.shape[:2]
    if getattr(detector, "fixed_size", None):
        parts = [detector(image)]
    else:
        parts = [detector(image, s) for s in pyramid_sizes(w, h, max_side, min_side, upscale)]
    if reader is None:
        return merge(parts, detector.iou)
    boxes = merge(parts, detector.iou, agnostic=True)
    return merge([reader.relabel(image, boxes, min_p=detector.conf if conf is None else conf)], detector.iou)
