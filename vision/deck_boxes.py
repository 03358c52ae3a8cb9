"""A deck's example photos as the detector boxes them: what a deck profile learns to read (``vision.decks``).

Photos labelled by hand box an index their own way; the detector boxes it its own (on the ``decks_dev`` webcam
photos the detector's box overlaps the labelled one by IoU 0.52 at the median), and the reader reads the detector's
box at run time. :func:`with_found_boxes` adds to each example the boxes the detector finds in its photo: a found
box on a known index takes that index's code, and a sure box on no known index is taught as "no index" (this
deck's pips, art or card backs the detector takes for indices), so the profile learns to reject them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .images import load_photo
from .models.reader import IndexReader
from .models.detector import NegativeDetector
from .pipeline import detect, read_indices
from .types import box_iou


@dataclass(frozen=True)
class Example:
    """One photo and its known corner indices: ``boxes`` (n, 4) xyxy pixels, ``codes`` their n card codes."""

    image: Path
    boxes: np.ndarray
    codes: tuple[str, ...]


#: a found box takes the code of the known index it overlaps by this IoU or more (the best one)
MATCH = 0.3
#: a found box overlapping no known index by this IoU or more, and at least this sure, is taught as "no index"
APART, NONE_CONF = 0.05, 0.3
#: the code an example gives a box that holds no index
NONE = "none"


def found_boxes(examples: list, detector, reader, negative: bool = False, progress=None) -> list:
    """The boxes ``detector`` finds in each example's photo (over the pyramid, ``vision.pipeline.detect``; in the
    photo's negative when ``negative``): a list of ``vision.types.Detections``, one per example.
    ``progress(done, total)`` is told after each photo."""
    det = NegativeDetector(detector) if negative and not isinstance(detector, NegativeDetector) else detector
    out = []
    for k, ex in enumerate(examples):
        out.append(detect(load_photo(ex.image), det, reader))
        if progress:
            progress(k + 1, len(examples))
    return out


def with_found_boxes(examples: list, detector, reader, negative: bool = False,
                     progress=None, only: bool = False, found: list | None = None, frame=None) -> list:
    """``examples`` (:class:`Example`) each with the boxes ``detector`` finds in its photo (:func:`found_boxes`; or
    ``found``, its result, when given) added: coded as the known index they overlap (:data:`MATCH`), or
    :data:`NONE` (:data:`APART`, :data:`NONE_CONF`); the other found boxes are left out. ``only``: each example's
    found boxes alone, those on a known index (what a profile's check reads, as the reader will see them).
    ``frame`` (``vision.deck_frames.Frame``): the found boxes kept are corrected by it (matched as found).
    ``progress(done, total)`` is told after each photo."""
    if found is None:
        found = found_boxes(examples, detector, reader, negative, progress)
    out = []
    for ex, got in zip(examples, found):
        boxes, codes = ([], []) if only else ([ex.boxes], list(ex.codes))
        if len(got):
            iou = box_iou(got.xyxy, ex.boxes) if len(ex.boxes) else np.zeros((len(got), 0))
            best = iou.max(1) if iou.shape[1] else np.zeros(len(got))
            match = best >= MATCH
            none = (best < APART) & (got.confidence >= NONE_CONF) & (not only)
            kept = got.xyxy[match | none].astype(np.float32)
            boxes.append(kept if frame is None else frame.apply(kept))
            codes += [ex.codes[int(iou[j].argmax())] if match[j] else NONE for j in np.flatnonzero(match | none)]
        out.append(Example(ex.image, np.concatenate(boxes) if boxes else np.zeros((0, 4), np.float32), tuple(codes)))
    return out


def cards_read(group: list[Example], detector, reader: IndexReader, negative: bool) -> np.ndarray:
    """(cards read right, cards read, cards shown) of the photos of ``group`` read whole (``vision.pipeline``: the
    detector's boxes over the pyramid, read by ``reader`` down to the reading floor) against their examples' codes."""
    seen = NegativeDetector(detector) if negative else detector
    out = np.zeros(3)
    for e in group:
        read, _ = read_indices(detect(load_photo(e.image), seen, reader))
        got, true = set(c for c in read.codes if c), set(e.codes)
        out += (len(got & true), len(got), len(true))
    return out
