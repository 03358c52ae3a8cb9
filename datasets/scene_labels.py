"""The ground truth of a synthetic table: which corner indices get boxes, and the boxes read back from a document.

Labels follow ``../shared/realdata/phone_corners``: one axis-aligned box per visible corner index, class = card
code (:data:`vision.classes.CLASS_NAMES`). **Visibility threshold:** an index gets a box when at least
:data:`MIN_VISIBLE` (50 %) of its area is not covered by another card or object and lies in the image; the box
then encloses the whole index (as in ``../shared/tables_examples``). Boxes are xyxy photo pixels; YOLO lines
(:func:`yolo_lines`) normalise them by the image size. :func:`true_detections` reads the boxes back from a
scene's layout document (``layouts/NAME.json``, :func:`datasets.scenes.write_scene`).
"""

from __future__ import annotations

from typing import Any, Sequence

import cv2
import numpy as np

from vision.classes import class_id
from vision.types import Detections

from .scene_layout import Placed

MIN_VISIBLE = 0.5  #: fraction of an index's area that must be visible for it to get a box


def label_cards(placed: Sequence[Placed], drawn: Sequence[bool], ids: np.ndarray, homography: np.ndarray,
                size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """The index boxes and per-card records of the drawn cards of a photographed canvas.

    Args:
        placed, drawn: the cards on the canvas and whether each was drawn (undrawn ones get no record).
        ids: (h, w) int32 instance mask of the canvas (:func:`datasets.scene_render.draw_canvas`).
        homography: 3x3 canvas px -> photo px; size: the photo's (width, height) px.

    Returns:
        (boxes (n, 4) float32 xyxy photo px, classes (n,) int64 class ids, cards: per drawn card ``code``,
        ``pile``, ``pile_kind``, ``corners_px`` (4x2 photo px, top-left first, clockwise), ``visible_frac`` (share
        of the card's area on top, 0-1) and ``index_boxes_px`` (its boxes among ``boxes``)).
    """
    W, H = size
    boxes, classes, cards = [], [], []
    pixels = np.bincount((ids + 2).ravel(), minlength=len(placed) + 2)[2:]
    for i, p in enumerate(placed):
        if not drawn[i]:
            continue
        quad = p.outline()
        quad_img = cv2.perspectiveTransform(quad[None], homography)[0]
        vis_card = float(pixels[i]) / max(1.0, cv2.contourArea(quad.astype(np.float32)))
        cards.append({"code": p.code, "pile": p.pile, "pile_kind": p.pile_kind,
                      "corners_px": np.round(quad_img, 2).tolist(), "visible_frac": round(min(vis_card, 1.0), 3),
                      "index_boxes_px": []})
        if p.code == "BACK":
            continue
        for poly in _index_polys(p):
            if visible_fraction(ids, poly, i) < MIN_VISIBLE:
                continue
            q = cv2.perspectiveTransform(poly[None], homography)[0]
            x1, y1 = q.min(0)
            x2, y2 = q.max(0)
            full = (x2 - x1) * (y2 - y1)
            cx1, cy1, cx2, cy2 = max(x1, 0), max(y1, 0), min(x2, W), min(y2, H)
            if cx2 <= cx1 or cy2 <= cy1 or (cx2 - cx1) * (cy2 - cy1) < MIN_VISIBLE * full:
                continue
            if min(cx2 - cx1, cy2 - cy1) < 3:
                continue
            boxes.append((cx1, cy1, cx2, cy2))
            classes.append(class_id(p.code))
            cards[-1]["index_boxes_px"].append([round(v, 2) for v in (cx1, cy1, cx2, cy2)])
    return np.array(boxes, np.float32).reshape(-1, 4), np.array(classes, np.int64), cards


def _index_polys(p: Placed) -> list[np.ndarray]:
    """The card's index boxes as (4, 2) float64 quads in canvas px."""
    out = []
    for (x1, y1, x2, y2) in p.index_boxes:
        quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
        out.append(quad @ p.matrix[:, :2].T + p.matrix[:, 2])
    return out


def visible_fraction(ids: np.ndarray, poly: np.ndarray, idx: int) -> float:
    """Share (0-1) of the convex polygon ``poly`` ((k, 2) px of the (h, w) mask ``ids``) where ``idx`` is on top;
    what lies outside the mask counts as hidden."""
    x0, y0 = np.floor(poly.min(0)).astype(int)
    x1, y1 = np.ceil(poly.max(0)).astype(int) + 1
    H, W = ids.shape
    if x1 <= 0 or y1 <= 0 or x0 >= W or y0 >= H:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, (poly - (x0, y0)).astype(np.int32), 1)
    area = m.sum()
    if area == 0:
        return 0.0
    sub = np.full(m.shape, -1, np.int32)
    ya, yb, xa, xb = max(y0, 0), min(y1, H), max(x0, 0), min(x1, W)
    sub[ya - y0:yb - y0, xa - x0:xb - x0] = ids[ya:yb, xa:xb]
    return float(((sub == idx) & (m > 0)).sum()) / float(area)


def yolo_lines(boxes: np.ndarray, classes: np.ndarray, width: int, height: int) -> list[str]:
    """YOLO txt lines ``class cx cy w h`` (normalised) for xyxy pixel boxes."""
    out = []
    for (x1, y1, x2, y2), c in zip(boxes, classes):
        out.append(f"{int(c)} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                   f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return out


def true_detections(doc: dict) -> tuple[Detections, np.ndarray]:
    """True index boxes of a generated scene's layout document as detections (confidence 1).

    Returns:
        (detections, owner (n,) int64: index of the card in ``doc["cards"]`` each box belongs to).
    """
    boxes, cls, owner = [], [], []
    for i, card in enumerate(doc["cards"]):
        for b in card["index_boxes_px"]:
            boxes.append(b)
            cls.append(class_id(card["code"]))
            owner.append(i)
    dets = Detections(np.array(boxes, np.float32).reshape(-1, 4), np.ones(len(boxes), np.float32),
                      np.array(cls, np.int64))
    return dets, np.array(owner, np.int64)
