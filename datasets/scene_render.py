"""Drawing a synthetic table's cards on its flat canvas, with the instance mask the labels are read from.

:func:`draw_canvas` paints the placed cards (:mod:`datasets.scene_layout`) bottom to top onto a BGRA canvas:
soft drop shadows first (black, partial alpha), each card warped by its affine matrix (squared books' lower cards
darkened at the edge), then clutter on top (cups, hands, score pads). Alongside, an int32 mask records what is on
top at each canvas pixel: the index of the card in the placed list, -1 for bare table, -2 for clutter.
"""

from __future__ import annotations

import math
from typing import Sequence

import cv2
import numpy as np

from .scene_layout import Placed


def draw_canvas(placed: Sequence[Placed], drawn: Sequence[bool], size: tuple[int, int], rng: np.random.Generator,
                clutter_width: float | None) -> tuple[np.ndarray, np.ndarray]:
    """The canvas of the cards of ``placed`` whose ``drawn`` is true, and its instance mask.

    Args:
        size: the canvas (width, height) in px.
        clutter_width: a card's width in canvas px to size cups, hands and score pads by; None draws no clutter.

    Returns:
        (canvas (H, W, 4) uint8 BGRA: alpha 255 on cards and clutter, partial in shadows, 0 on bare table;
        ids (H, W) int32: index into ``placed`` of the card on top, -1 bare table, -2 clutter).
    """
    width, height = size
    canvas = np.zeros((height, width, 4), np.uint8)
    ids = np.full((height, width), -1, np.int32)
    _shadow(canvas, [p for p, d in zip(placed, drawn) if d], rng)
    canvas[:, :, :3] = 0
    for i, p in enumerate(placed):
        if drawn[i]:
            _blend_card(canvas, ids, p, i, shade=0.25 * p.depth_offset)
    if clutter_width is not None:
        _clutter(canvas, ids, rng, clutter_width)
    return canvas, ids


def _blend_card(canvas: np.ndarray, ids: np.ndarray, card: Placed, idx: int, shade: float) -> None:
    """Alpha-blend ``card`` onto ``canvas`` (darkened by ``shade``, 0-1) and mark its opaque pixels ``idx``."""
    img, M = card.image, card.matrix
    pts = card.outline()
    x0, y0 = np.floor(pts.min(0)).astype(int) - 1
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 1
    H, W = canvas.shape[:2]
    x0c, y0c, x1c, y1c = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1c <= x0c or y1c <= y0c:
        return
    Mr = M.copy()
    Mr[:, 2] -= (x0c, y0c)
    patch = cv2.warpAffine(img, Mr, (x1c - x0c, y1c - y0c), flags=cv2.INTER_AREA if M[0, 0] ** 2 + M[0, 1] ** 2 < 1
                           else cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = patch[:, :, 3:4].astype(np.float32) / 255.0
    rgb = patch[:, :, :3].astype(np.float32) * (1.0 - shade)
    roi = canvas[y0c:y1c, x0c:x1c]
    roi[:, :, :3] = (rgb * a + roi[:, :, :3].astype(np.float32) * (1 - a)).astype(np.uint8)
    roi[:, :, 3] = np.maximum(roi[:, :, 3], patch[:, :, 3])
    ids[y0c:y1c, x0c:x1c][a[:, :, 0] > 0.5] = idx


def _shadow(canvas: np.ndarray, placed: Sequence[Placed], rng: np.random.Generator) -> None:
    """Soft drop shadows under every card, drawn into the canvas alpha as a dark layer."""
    H, W = canvas.shape[:2]
    mask = np.zeros((H, W), np.uint8)
    dx, dy = rng.normal(0, 3, 2)
    for p in placed:
        cv2.fillConvexPoly(mask, (p.outline() + (dx, dy)).astype(np.int32), 255)
    k = int(max(3, rng.uniform(3, 15))) | 1
    mask = cv2.GaussianBlur(mask, (k, k), 0)
    strength = rng.uniform(0.15, 0.45)
    canvas[:, :, 3] = np.maximum(canvas[:, :, 3], (mask * strength).astype(np.uint8))


def _clutter(canvas: np.ndarray, ids: np.ndarray, rng: np.random.Generator, cw: float) -> None:
    """Cups, hands and score pads sized by ``cw`` (a card's width, canvas px) on top of the cards (id -2 in the
    mask: they hide indices)."""
    H, W = canvas.shape[:2]
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.5 else 0):
        layer = np.zeros((H, W), np.uint8)
        color = np.zeros(3)
        kind = rng.choice(["cup", "hand", "pad"])
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        if kind == "cup":
            r = int(cw * rng.uniform(0.6, 1.1))
            cv2.circle(layer, (int(cx), int(cy)), r, 255, -1)
            color = rng.uniform(30, 230, 3)
        elif kind == "hand":
            ax = (int(cw * rng.uniform(0.6, 1.0)), int(cw * rng.uniform(0.9, 1.4)))
            cv2.ellipse(layer, (int(cx), int(cy)), ax, rng.uniform(0, 180), 0, 360, 255, -1)
            for f in range(4):
                a = rng.uniform(0, 2 * math.pi)
                ex, ey = int(cx + math.cos(a) * ax[1] * 1.4), int(cy + math.sin(a) * ax[1] * 1.4)
                cv2.line(layer, (int(cx), int(cy)), (ex, ey), 255, max(3, int(cw * 0.18)))
            color = np.array([rng.uniform(60, 170), rng.uniform(90, 190), rng.uniform(140, 235)])
        else:
            w, h = cw * rng.uniform(1.2, 2.0), cw * rng.uniform(1.6, 2.6)
            box = cv2.boxPoints(((cx, cy), (w, h), rng.uniform(0, 180))).astype(np.int32)
            cv2.fillConvexPoly(layer, box, 255)
            color = np.array([235, 240, 240]) * rng.uniform(0.85, 1.0)
        sel = layer > 0
        if not sel.any():
            continue
        shade = cv2.GaussianBlur(layer, (0, 0), cw * 0.15).astype(np.float32) / 255.0
        pix = np.clip(color[None, :] * (0.7 + 0.3 * shade[sel][:, None]) + rng.normal(0, 6, (sel.sum(), 3)), 0, 255)
        if kind == "pad":
            canvas[:, :, :3][sel] = pix.astype(np.uint8)
            ys, xs = np.nonzero(sel)
            for ly in range(ys.min(), ys.max(), max(4, int(cw * 0.12))):
                row = sel[ly]
                if row.any():
                    xs_row = np.nonzero(row)[0]
                    cv2.line(canvas, (int(xs_row.min()), ly), (int(xs_row.max()), ly), (200, 150, 120, 255), 1)
        else:
            canvas[:, :, :3][sel] = pix.astype(np.uint8)
        canvas[:, :, 3][sel] = 255
        ids[sel] = -2

