"""Test helpers: the later stages of the camera pipeline on named corner indices, and hand-made indices."""

import numpy as np

from vision.classes import class_id
from vision.types import Detections

S = 20.0  # index size in pixels (a 20 x 20 box)


def dets(items):
    """[(code, cx, cy), ...] -> Detections of S x S boxes centred there."""
    boxes = [[x - S / 2, y - S / 2, x + S / 2, y + S / 2] for _, x, y in items]
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(items), 0.9, np.float32),
                      np.array([class_id(c) for c, _, _ in items], np.int64))


def fan(codes, x0, y0, step=(0.0, 1.2 * S), diag=(2.6 * S, 3.3 * S)):
    """A fan cascading by ``step``: every card shows its top-left index, the last also its bottom-right."""
    items = [(c, x0 + k * step[0], y0 + k * step[1]) for k, c in enumerate(codes)]
    last = items[-1]
    return items + [(last[0], last[1] + diag[0], last[2] + diag[1])]


def read_side(dets, team="A", source="", image=None, stacks=None):
    """Stages 2-3b of ``vision.pipeline.read_image`` on named corner indices (every one kept)."""
    from vision.config import DEFAULT
    from vision.pipeline import read_image

    return read_image(image, found=dets, team=team, source=source, stacks=stacks,
                      config=DEFAULT.replace(**{"reading.min_conf": 0.0}))[0]


def read_hand(dets, team="A"):
    """``vision.pipeline.read_image(..., hand=True)`` on named corner indices."""
    from vision.config import DEFAULT
    from vision.pipeline import read_image

    return read_image(None, found=dets, team=team, hand=True, config=DEFAULT.replace(**{"reading.min_conf": 0.0}))[0]
