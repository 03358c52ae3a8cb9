"""Procedural joker corner marks: more kinds of joker for the detector to learn from.

Jokers differ more between decks than any other card: their corner mark may be a star, a star in a ring, the
word JOKER stacked or written across, a letter J with a star, or nothing at all. The training designs hold
about a dozen marks; a detector trained on them found half the jokers of those designs and almost none of the
held-out designs' (generated tables: 42 of 81 joker indices read right on training designs, 8 of 135 on held-out
designs, detector v4). :func:`procedural_joker` gives a joker card new corner marks drawn from a few common
families, in random shapes, sizes, colours and stroke weights, at the deck's own index positions, meant to
teach the detector "a mark in a card's index corner that is not a rank" rather than a dozen particular
pictures. Measured so far (models/HISTORY.md, detector v5): three CPU epochs with 60 % of jokers marked this
way did not find more held-out jokers (10 of 135 read right); a longer run is still to be tried.

Used by :func:`datasets.scenes.make_scene` with ``joker_marks`` > 0 (``datasets.generate --joker-marks``).
"""

from __future__ import annotations

import cv2
import numpy as np

from .cardart import CardImage

#: mark families drawn by :func:`draw_mark`
FAMILIES = ("star", "ring_star", "word_stacked", "word_across", "j_star", "ring")
_COLOURS = {"red": [(30, 30, 200), (40, 20, 170), (60, 40, 220)],
            "black": [(25, 25, 25), (60, 40, 20), (90, 30, 60)]}


def _star(size: int, points: int, inner: float, angle: float) -> np.ndarray:
    """(2 * points, 2) int32 polygon of a star filling a size x size square."""
    c = size / 2
    k = np.arange(2 * points)
    r = np.where(k % 2 == 0, 0.48 * size, 0.48 * size * inner)
    a = angle + np.pi * k / points - np.pi / 2
    return np.stack([c + r * np.cos(a), c + r * np.sin(a)], 1).round().astype(np.int32)


def draw_mark(family: str, w: int, h: int, colour: tuple[int, int, int], rng: np.random.Generator
              ) -> tuple[np.ndarray, np.ndarray]:
    """A joker corner mark of ``family`` (:data:`FAMILIES`) in a ``w`` x ``h`` px box, upright.

    Returns:
        (ink (h, w, 3) uint8 BGR, mask (h, w) float32 in [0, 1]: where the mark covers the card).
    """
    scale = 4  # draw large, then shrink: smooth edges
    W, H = w * scale, h * scale
    mask = np.zeros((H, W), np.uint8)
    thick = max(1, int(round(min(W, H) * rng.uniform(0.04, 0.1))))
    if family in ("star", "ring_star", "ring", "j_star"):
        side = min(W, H)
        ox, oy = (W - side) // 2, (H - side) // 2
        if family == "j_star":  # a letter J over a small star, like a rank over its suit
            font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX]))
            fs = H * 0.55 / 22
            (tw, th), _ = cv2.getTextSize("J", font, fs, thick)
            cv2.putText(mask, "J", ((W - tw) // 2, int(th * 1.05)), font, fs, 255, thick, cv2.LINE_AA)
            side = int(min(W, H * 0.42))
            ox, oy = (W - side) // 2, H - side - 1
        poly = _star(side, int(rng.choice([5, 5, 5, 6, 8])), rng.uniform(0.35, 0.5), rng.uniform(-0.2, 0.2))
        if family in ("ring_star", "ring"):
            cv2.circle(mask, (ox + side // 2, oy + side // 2), int(side * 0.46), 255, thick, cv2.LINE_AA)
            if family == "ring":
                cv2.circle(mask, (ox + side // 2, oy + side // 2), int(side * rng.uniform(0.12, 0.25)), 255, -1,
                           cv2.LINE_AA)
            else:
                poly = (side / 2 + (poly - side / 2) * 0.62).round().astype(np.int32)
        if family != "ring":
            cv2.fillPoly(mask, [poly + [ox, oy]], 255, cv2.LINE_AA)
    else:
        font = int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
                               cv2.FONT_HERSHEY_TRIPLEX]))
        letters = "JOKER" if rng.random() < 0.75 else "Joker"
        if family == "word_stacked":
            step = H / len(letters)
            fs = step * 0.8 / 22
            for k, ch in enumerate(letters):
                (tw, th), _ = cv2.getTextSize(ch, font, fs, thick)
                cv2.putText(mask, ch, ((W - tw) // 2, int(step * k + (step + th) / 2)), font, fs, 255, thick,
                            cv2.LINE_AA)
        else:
            (tw, th), _ = cv2.getTextSize(letters, font, 1.0, thick)
            fs = min(W * 0.95 / tw, H * 0.8 / th)
            (tw, th), _ = cv2.getTextSize(letters, font, fs, thick)
            cv2.putText(mask, letters, ((W - tw) // 2, (H + th) // 2), font, fs, 255, thick, cv2.LINE_AA)
    mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    ink = np.empty((h, w, 3), np.uint8)
    ink[:] = colour
    return ink, mask


def _paper(image: np.ndarray) -> np.ndarray:
    """(3,) float32 BGR: the card's paper colour (median of a strip just inside its left edge)."""
    h, w = image.shape[:2]
    strip = image[h // 3: 2 * h // 3, max(1, w // 40): max(2, w // 15)]
    inside = strip[strip[..., 3] > 200][:, :3] if image.shape[2] == 4 else strip.reshape(-1, 3)
    return np.median(inside if len(inside) else image[..., :3].reshape(-1, 3), 0).astype(np.float32)


def procedural_joker(joker: CardImage, index_box: tuple[float, float, float, float],
                     rng: np.random.Generator, colours: list[tuple[int, int, int]] | None = None) -> CardImage:
    """``joker`` with its corner marks replaced by a new mark at the deck's index position.

    Args:
        joker: a rendered joker of the deck (its art stays; its own corner marks, if any, are painted over with
            the paper colour).
        index_box: (x1, y1, x2, y2) px of the deck's top-left corner index on an ordinary card (its mark is put
            there, sized like the deck's indices, and turned 180 degrees in the opposite corner).
        rng: random generator (family, shape, colour, size).
        colours: the mark's possible inks (BGR); default dark reds for a red joker, dark inks for a black one
            (a deck on dark paper passes its own light inks).

    Returns:
        A new CardImage with two index boxes (top-left, bottom-right) tight around the drawn marks.
    """
    img = joker.image.copy()
    H, W = img.shape[:2]
    paper = _paper(img)
    for (x1, y1, x2, y2) in joker.index_boxes:  # paint out the deck's own marks
        x1, y1 = max(0, int(x1) - 2), max(0, int(y1) - 2)
        img[y1:int(np.ceil(y2)) + 2, x1:int(np.ceil(x2)) + 2, :3] = paper
    family = str(rng.choice(FAMILIES))
    x1, y1, x2, y2 = index_box
    bw = max(6, int(round((x2 - x1) * rng.uniform(0.75, 1.1))))
    bh = max(6, int(round((y2 - y1) * rng.uniform(0.45, 0.8))))
    if family == "word_stacked":
        bw, bh = max(6, int(bw * rng.uniform(0.5, 0.8))), int(round((y2 - y1) * rng.uniform(1.2, 2.2)))
    elif family == "word_across":
        bw, bh = max(6, int(round((x2 - x1) * rng.uniform(1.4, 2.4)))), max(6, int(bh * 0.55))
    elif family == "j_star":
        bh = max(6, int(round((y2 - y1) * rng.uniform(0.85, 1.0))))
    bw, bh = min(bw, W // 2 - 2), min(bh, H // 2 - 2)
    colours = colours or _COLOURS.get(joker.joker_color or "", _COLOURS["red"] + _COLOURS["black"])
    colour = colours[int(rng.integers(len(colours)))]
    ink, mask = draw_mark(family, bw, bh, colour, rng)
    left, top = int(round(x1)), int(round(y1))
    boxes = []
    for turn in (False, True):
        m, k = (mask[::-1, ::-1], ink[::-1, ::-1]) if turn else (mask, ink)
        bx, by = (W - left - bw, H - top - bh) if turn else (left, top)
        region = img[by:by + bh, bx:bx + bw, :3].astype(np.float32)
        region[:] = paper  # a clean corner under the mark
        img[by:by + bh, bx:bx + bw, :3] = (region * (1 - m[..., None]) + k * m[..., None]).astype(np.uint8)
        ys, xs = np.nonzero(m > 0.25)
        if not len(xs):  # a mark too faint to see at this size: the whole mark box
            ys, xs = np.array([0, bh - 1]), np.array([0, bw - 1])
        boxes.append((float(bx + xs.min()), float(by + ys.min()), float(bx + xs.max() + 1),
                      float(by + ys.max() + 1)))
    return CardImage("JK", img, boxes, joker.joker_color)
