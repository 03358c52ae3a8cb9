"""Stage 1 of the camera pipeline: the detector over the photo at the scales its corner indices need.

The detector reads indices best at about the size it learned them (11-68 px, median 28 px on its training
tiles). A photo's indices can be any size: 8 px on a whole table in a webcam frame, 100 px in a close-up. So the
pyramid (:func:`find_boxes`) measures before it spends:

1. a first pass with the long side at :attr:`vision.config.Pyramid.probe_side` (or the photo's own, when smaller);
2. while the surest indices of the last pass measure under :attr:`~vision.config.Pyramid.target_index` pixels
   (median of the :attr:`~vision.config.Pyramid.size_sample` most confident boxes), a pass sized so that they
   measure that much (at least :attr:`~vision.config.Pyramid.min_step` times larger), up to
   :attr:`~vision.config.Pyramid.max_side` and :attr:`~vision.config.Pyramid.max_enlarge` times the photo; a pass
   with too few sure boxes to measure (:attr:`~vision.config.Pyramid.min_sample`) is not followed by a larger one
   (a photo of one or two cards is a close-up, and enlarged it shows pips as indices); such a larger pass runs
   over the regions where the last pass found anything (:func:`card_regions`: its boxes grown by
   :attr:`~vision.config.Pyramid.enlarge_context` index sizes), each cut out and enlarged alone, or over the
   whole photo when those cover more than :attr:`~vision.config.Pyramid.enlarge_whole_share` of it;
3. while the first pass's indices measure :attr:`~vision.config.Pyramid.large_index` or more, or it found too few
   to measure, passes at half the size, down to :attr:`~vision.config.Pyramid.min_side` (indices too large for the
   detector are seen smaller: a close-up's indices may go unseen at full size);

and keeps the most confident box wherever boxes overlap (across codes when the index reader names the boxes).
Every pass size is set by what the photo shows, never by its pixel count alone: the same table photographed at 2
or at 12 megapixels gets the same passes, and the work grows with the detail the indices need.
"""

from __future__ import annotations

import cv2
import numpy as np

from .classes import RANK_NONE
from .config import DEFAULT, VisionConfig
from .types import Detections, join_overlapping, median_index_size, unread_mask


def _side(pixels: float) -> int:
    """A pass's long side: ``pixels`` rounded down to a multiple of 32 (at least 32)."""
    return max(32, int(pixels) // 32 * 32)


def merge(parts: list[Detections], iou: float = 0.5, agnostic: bool = False) -> Detections:
    """Concatenate detections and apply non-maximum suppression (IoU threshold ``iou``), per card code or,
    with ``agnostic``, across codes (one box per place: the reader decides the code afterwards)."""
    return Detections.merge(parts).with_nms(iou, class_agnostic=agnostic)


def pass_index_size(part: Detections, sure: float, scale: float, config: VisionConfig = DEFAULT) -> float | None:
    """The median size (pixels of the pass) of the surest indices of one pass's detections (boxes in photo
    pixels; ``scale`` = pass long side / photo long side), or None with fewer than
    :attr:`~vision.config.Pyramid.min_sample` boxes of confidence ``sure`` or more."""
    p = config.pyramid
    top = part[part.confidence >= sure]
    if len(top) < p.min_sample:
        return None
    return median_index_size(top.xyxy[np.argsort(-top.confidence)[:p.size_sample]]) * scale


def box_conf(detector, reader, config: VisionConfig = DEFAULT) -> float:
    """The detector confidence a box needs to be read on its own: a one-class detector (an index finder,
    ``CardDetector.names_cards`` False) :attr:`~vision.config.Reading.finder_box_conf`; a detector naming card
    codes read by the index reader :attr:`~vision.config.Reading.reader_box_conf`; without the reader the
    reading floor :attr:`~vision.config.Reading.min_conf` itself."""
    if not getattr(detector, "names_cards", True):
        return config.reading.finder_box_conf
    return config.reading.reader_box_conf if reader is not None else config.reading.min_conf


class ReadOnce:
    """The index reader's probabilities of each box of one photo, read once: the pyramid asks it of a pass's sure
    boxes (:func:`looks_like_indices`), stage 1 of every box it keeps (``vision.pipeline.detect``), and a box asked
    again is not read again. Wraps a :class:`vision.models.reader.IndexReader`; a call with another image (another
    array: the photo's negative) starts afresh."""

    def __init__(self, reader) -> None:
        self.reader = reader
        self._image: np.ndarray | None = None
        self._known: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

    def probabilities(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank ``(n, 15)`` and suit ``(n, 4)`` probabilities of ``boxes`` ((n, 4) xyxy px) in the (H, W, 3) BGR
        ``image``, as :meth:`vision.models.reader.IndexReader.probabilities` gives them."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(boxes):
            return self.reader.probabilities(image, boxes)
        if image is not self._image:
            self._image, self._known = image, {}
        keys = [b.tobytes() for b in boxes]
        new = [k for k, key in enumerate(keys) if key not in self._known]
        if new:
            rank_p, suit_p = self.reader.probabilities(image, boxes[new])
            for k, r, s in zip(new, rank_p, suit_p):
                self._known[keys[k]] = (r, s)
        return (np.stack([self._known[k][0] for k in keys]), np.stack([self._known[k][1] for k in keys]))


def looks_like_indices(part: Detections, image: np.ndarray, reader, sure: float,
                       config: VisionConfig = DEFAULT) -> Detections:
    """A pass's boxes (xyxy photo pixels) without the sure ones (confidence ``sure`` or more) that the index reader
    ``reader`` (:class:`vision.models.reader.IndexReader` or :class:`ReadOnce`; None: every box kept) takes for
    "no index" with probability :attr:`~vision.config.Pyramid.size_none_max` or more: what measures the pass's
    index size and its card regions."""
    if reader is None or not len(part):
        return part
    idx = np.flatnonzero(part.confidence >= sure)
    if not len(idx):
        return part
    rank_p, _ = reader.probabilities(image, part.xyxy[idx])
    keep = np.ones(len(part), bool)
    keep[idx[rank_p[:, RANK_NONE] >= config.pyramid.size_none_max]] = False
    return part[keep]


def find_boxes(detector, image: np.ndarray, sure: float, floor: float, agnostic: bool = True,
               config: VisionConfig = DEFAULT, reader=None) -> Detections:
    """Every box of the pyramid's passes over a (H, W, 3) BGR image, merged; xyxy photo pixels, most confident
    first (see the module docstring).

    ``detector`` is called ``detector(image, long_side, floor)`` (a :class:`vision.models.detector.CardDetector`; one
    exported with a fixed input size runs once). Boxes down to confidence ``floor`` are kept; the index size of a
    pass is measured on its boxes of confidence ``sure`` or more. With ``agnostic`` one box per place (across
    codes, IoU :attr:`~vision.config.Pyramid.agnostic_iou`), else per code (:attr:`~vision.config.Pyramid.iou`).
    With the index ``reader``, a pass is measured (and its card regions found) without the sure boxes it takes for
    no index (:func:`looks_like_indices`).
    """
    p = config.pyramid
    h, w = image.shape[:2]
    if getattr(detector, "fixed_size", None):
        parts = [detector(image, None, floor)]
    else:
        long = max(h, w)
        top = _side(min(p.max_side, long * p.max_enlarge))
        size = _side(min(p.probe_side, long))
        parts = [detector(image, size, floor)]
        last = looks_like_indices(parts[0], image, reader, sure, config)
        first = measured = pass_index_size(last, sure, size / long, config)
        while measured is not None and measured < p.target_index and size < top:
            size = min(top, _side(size * max(p.min_step, p.target_index / measured)))
            parts.append(enlarged_pass(detector, image, size, floor, last, sure, config))
            last = looks_like_indices(parts[-1], image, reader, sure, config)
            measured = pass_index_size(last, sure, size / long, config)
        size = _side(min(p.probe_side, long))
        while (first is None or first >= p.large_index) and size // 2 >= p.min_side:
            size, first = _side(size // 2), None if first is None else first / 2
            parts.append(detector(image, size, floor))
    return merge(parts, p.agnostic_iou, agnostic=True) if agnostic else merge(parts, p.iou)


def card_regions(found: Detections, sure: float, shape: tuple[int, int], config: VisionConfig = DEFAULT
                 ) -> np.ndarray:
    """(k, 4) xyxy photo pixels, not overlapping: where the cards are, from every box of ``found`` (unsure ones
    too: a far card's small indices are often unsure at first), each grown by
    :attr:`~vision.config.Pyramid.enlarge_context` index sizes (the median of the boxes of confidence ``sure`` or
    more, else of all) and overlapping rectangles joined; clipped to the photo ``shape`` (H, W). Empty when
    ``found`` is."""
    if not len(found):
        return np.zeros((0, 4))
    h, w = shape
    top = found[found.confidence >= sure]
    grow = config.pyramid.enlarge_context * median_index_size((top if len(top) else found).xyxy)
    grown = np.clip(found.xyxy.astype(np.float64) + grow * np.array([-1, -1, 1, 1]), 0, [w, h, w, h])
    cell = max(1.0, grow / 4)  # a coarse grid: the union of the grown boxes, then its pieces' bounding boxes
    mask = np.zeros((int(h / cell) + 2, int(w / cell) + 2), np.uint8)
    for x1, y1, x2, y2 in grown:
        mask[int(y1 / cell):int(np.ceil(y2 / cell)) + 1, int(x1 / cell):int(np.ceil(x2 / cell)) + 1] = 1
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    rects = [[x * cell, y * cell, (x + bw) * cell, (y + bh) * cell] for x, y, bw, bh, _ in stats[1:n]]
    return np.clip(join_overlapping(rects), 0, [w, h, w, h])  # separate pieces' boxes may still overlap


def enlarged_pass(detector, image: np.ndarray, size: int, floor: float, last: Detections, sure: float,
                  config: VisionConfig = DEFAULT) -> Detections:
    """The detector's pass with the photo's long side at ``size`` pixels over the regions where ``last`` (the
    previous pass) found cards (:func:`card_regions`), each cut out and run alone at that scale; the whole photo
    when the regions cover more than :attr:`~vision.config.Pyramid.enlarge_whole_share` of it. Boxes in photo
    pixels; a box touching a region's cut edge (not the photo's) is dropped (the index may be cut there)."""
    h, w = image.shape[:2]
    regions = card_regions(last, sure, (h, w), config)
    area = float(np.prod(regions[:, 2:] - regions[:, :2], axis=1).sum()) if len(regions) else 0.0
    if not len(regions) or area > config.pyramid.enlarge_whole_share * h * w:
        return detector(image, size, floor)
    scale = size / max(h, w)
    parts = []
    for x1, y1, x2, y2 in regions.round().astype(int):
        if x2 - x1 < 8 or y2 - y1 < 8:
            continue
        crop = np.ascontiguousarray(image[y1:y2, x1:x2])
        found = detector(crop, _side(max(x2 - x1, y2 - y1) * scale), floor)
        if not len(found):
            continue
        b = found.xyxy
        cut = (((b[:, 0] <= 1) & (x1 > 0)) | ((b[:, 1] <= 1) & (y1 > 0))
               | ((b[:, 2] >= x2 - x1 - 1) & (x2 < w)) | ((b[:, 3] >= y2 - y1 - 1) & (y2 < h)))
        found = found[~cut]
        parts.append(found.shifted(x1, y1))
    return Detections.merge(parts) if parts else Detections.empty()


def unread_boxes(found: np.ndarray, read: np.ndarray, config: VisionConfig = DEFAULT) -> np.ndarray:
    """(m, 4) the boxes of ``found`` ((n, 4) xyxy px) that no box of ``read`` covers (IoU under
    :attr:`~vision.config.Reading.unread_iou`): where an index may be that could not be read."""
    found = np.asarray(found, np.float32).reshape(-1, 4)
    return found[unread_mask(found, read, config)]
