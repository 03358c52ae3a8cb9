"""Stage 1 of the camera pipeline at every scale: run the detector on an image pyramid and merge.

The detector learned corner indices about 11-68 px in size (5th-95th percentile, median 28 px, measured on the
first training tiles; the shipped detector also trained on whole tables as the enlarged pass below shows them,
``datasets.generate --enlarge``). Photos differ: the ``phone_corners`` close-ups have indices about 100 px tall
at 640 px, while generated whole tables at 1280 px have indices down to about 8 px. Rather than guess,
:func:`detect_multiscale` runs the model with the long side at ``max_side`` (or the photo's own size when smaller), then at half, a
quarter ... down to ``min_side``, and keeps the most confident box wherever boxes overlap (across codes at
IoU :data:`AGNOSTIC_IOU` when the index reader names the boxes, per card code otherwise). Costs about 4/3 of
the largest pass.

When the indices found are small (a whole table in one frame: the median of the most confident boxes under
:data:`SMALL_INDEX` px), one more pass runs on the photo enlarged :data:`ENLARGE` times (at most ``max_side``): the
less sure indices of such a photo are smaller still (a table seen at an angle). Close-ups (indices of 60-190 px,
as in the ``phone_corners`` photos) are not enlarged. How the pass was measured: ``models/HISTORY.md``.
"""

from __future__ import annotations

import cv2
import numpy as np

from .completion import read_with_fans
from .config import DEFAULT
from .detections import Detections, box_iou, median_index_size


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
    every = Detections.concatenate(parts)
    if not len(every):
        return every
    boxes, conf = every.xyxy, every.confidence
    xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]])
    groups = np.zeros_like(every.class_id) if agnostic else every.class_id
    keep = np.array(cv2.dnn.NMSBoxesBatched(xywh.tolist(), conf.tolist(), groups.tolist(), 0.0, iou),
                    np.int64).reshape(-1)
    return every[keep[np.argsort(-conf[keep])]]


#: a photo whose surest indices measure under this (median, pixels) gets an enlarged pass
SMALL_INDEX = 40.0
#: the enlarged pass's factor
ENLARGE = 2.0
#: how many of the most confident boxes measure a photo's index size
SIZE_SAMPLE = 20


def _enlarged_top(found: Detections, width: int, height: int, max_side: int) -> int:
    """Long side (px, multiple of 32) of an enlarged pass for small indices; 0 when the surest indices are not
    small (or too few were found to tell)."""
    if len(found) < 3:
        return 0
    if median_index_size(found.xyxy[np.argsort(-found.confidence)[:SIZE_SAMPLE]]) >= SMALL_INDEX:
        return 0
    return int(min(max(width, height) * ENLARGE, max_side)) // 32 * 32


#: with the index reader, boxes down to this detector confidence are read (the detector finds indices it
#: cannot name: with the first model, 80 % of held-out-design indices got a box at 0.05, 16 % at 0.25)
READER_BOX_CONF = 0.05
#: the same for a one-class detector (an index finder, ``CardDetector.names_cards`` False), whose confidence is
#: that of "an index" rather than of one card code, and so runs higher
FINDER_BOX_CONF = 0.5
#: boxes found across codes (for the reader) overlapping more than this are one index: neighbouring cards'
#: indices do not overlap (fan steps are about 1.1 index sizes or more, vision/instances.py), but one index
#: seen at two scales can come back as two boxes that overlap less than the usual 0.5
AGNOSTIC_IOU = 0.3


def reader_box_conf(detector) -> float:
    """The detector confidence down to which boxes are re-read by the index reader, for this kind of detector."""
    return READER_BOX_CONF if getattr(detector, "names_cards", True) else FINDER_BOX_CONF


def detect_multiscale(detector, image: np.ndarray, max_side: int = 2560, min_side: int = 320,
                      upscale: float | None = None, reader=None, conf: float | None = None,
                      complete: bool = True) -> Detections:
    """The read corner indices of :func:`find_indices` (its ``read``)."""
    return find_indices(detector, image, max_side, min_side, upscale, reader, conf, complete)[0]


#: a box the detector found is "unread" when no read index covers it by this IoU or more
UNREAD_IOU = 0.3


def find_indices(detector, image: np.ndarray, max_side: int = 2560, min_side: int = 320,
                 upscale: float | None = None, reader=None, conf: float | None = None,
                 complete: bool = True) -> tuple[Detections, np.ndarray]:
    """Corner indices of a (H, W, 3) BGR image found at every pyramid scale, merged; boxes in image pixels.

    ``detector`` is a :class:`vision.detector.CardDetector` (callable as ``detector(image, imgsz, conf)``, with
    ``iou`` and ``conf`` attributes). A model exported with a fixed input size runs once. ``upscale`` enlarges the
    photo by that factor first; ``None`` (default) decides from the indices found (see the module docstring). With
    an :class:`vision.reader.IndexReader`, boxes are found across codes (the detector should then be built with
    ``conf=reader_box_conf(detector)``), each is re-read by the reader, and those whose new confidence is under
    ``conf`` (default: the detector's) are dropped; with ``complete`` (and a one-class detector) every box the
    detector found down to :data:`vision.completion.CANDIDATE_CONF` is read with the fans' help
    (:func:`vision.completion.read_with_fans`: sure jokers beside a card, ranks settled by their fan, boxes
    that continue a fan).

    Returns:
        (read: the read corner indices, unread: (m, 4) xyxy pixels of the boxes the detector found, down to
        :data:`vision.completion.CANDIDATE_CONF`, that no read index covers (IoU under :data:`UNREAD_IOU`):
        where an index may be that could not be read (``vision.stacks.check_one_corner_cards``); empty unless
        the boxes were read with the fans' help).
    """
    complete = complete and reader is not None and not getattr(detector, "names_cards", True)
    found = find_boxes(detector, image, max_side, min_side, upscale, agnostic=reader is not None, complete=complete)
    none = np.zeros((0, 4), np.float32)
    if reader is None:
        return found, none
    min_p = detector.conf if conf is None else conf
    if not complete:
        return reader.relabel(image, found, min_conf=min_p), none
    return read_found(found, *reader.probabilities(image, found.xyxy), detector.conf, min_p)


def find_boxes(detector, image: np.ndarray, max_side: int = 2560, min_side: int = 320,
               upscale: float | None = None, agnostic: bool = True, complete: bool = True) -> Detections:
    """The boxes of :func:`find_indices` before any reading: every pyramid pass of ``detector`` over a (H, W, 3)
    BGR image, merged (xyxy image pixels). With ``agnostic`` one box per place (across codes, IoU
    :data:`AGNOSTIC_IOU`), the boxes the index reader then names; with ``complete`` boxes are kept down to
    :data:`vision.completion.CANDIDATE_CONF` (for :func:`read_found`), else down to the detector's ``conf``.
    """
    h, w = image.shape[:2]
    floor = min(detector.conf, DEFAULT.reading.candidate_conf) if complete else None  # None: the detector's own
    if getattr(detector, "fixed_size", None):
        parts = [detector(image, None, floor)]
    else:
        sizes = pyramid_sizes(w, h, max_side, min_side, upscale or 1.0)
        parts = [detector(image, s, floor) for s in sizes]
        if upscale is None:
            sure = Detections.concatenate([p[p.confidence >= detector.conf] for p in parts])
            top = _enlarged_top(sure, w, h, max_side)
            if top >= 1.3 * sizes[0]:
                parts.append(detector(image, top, floor))
    if not agnostic:
        return merge(parts, detector.iou)
    # one box per place (across codes), then named: no two boxes left overlap enough for a per-code merge
    return merge(parts, AGNOSTIC_IOU, agnostic=True)


def read_found(found: Detections, rank_p: np.ndarray, suit_p: np.ndarray, box_conf: float,
               min_p: float) -> tuple[Detections, np.ndarray]:
    """Stage 1b over the boxes of :func:`find_boxes` and their readings (``rank_p`` (n, 15), ``suit_p`` (n, 4),
    :meth:`vision.reader.IndexReader.probabilities`): :func:`vision.completion.read_with_fans` with the
    detector confidence ``box_conf`` a box needs to be read alone and the reading floor ``min_p``.

    Returns:
        (read, unread) as :func:`find_indices` returns them.
    """
    read = read_with_fans(found, rank_p, suit_p,
                          config=DEFAULT.replace(**{"reading.finder_box_conf": box_conf, "reading.min_conf": min_p}))
    return read, unread_boxes(found.xyxy, read.xyxy)


def unread_boxes(found: np.ndarray, read: np.ndarray) -> np.ndarray:
    """(m, 4) the boxes of ``found`` ((n, 4) xyxy px) that no box of ``read`` covers (IoU under
    :data:`UNREAD_IOU`)."""
    found = np.asarray(found, np.float32).reshape(-1, 4)
    if not len(read) or not len(found):
        return found
    return found[box_iou(found, np.asarray(read, np.float32).reshape(-1, 4)).max(1) < UNREAD_IOU]
