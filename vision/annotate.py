"""Draw what the pipeline read onto the photo, so a player can check it at a glance.

Small annotator classes in the style of roboflow/supervision: each draws one thing onto a copy of a
(H, W, 3) uint8 BGR image and returns it. Text uses OpenCV's built-in Hershey font (nothing to download).

* :class:`CornerAnnotator` — every corner-index box with its card code (grey when confidence < 0.5).
* :class:`PileAnnotator` — an outline around each pile, coloured by kind (a fanned book apart from a meld),
  labelled with kind and card count (each label placed beside its outline where it covers the fewest index boxes
  and other labels).
* :class:`TotalsAnnotator` — a banner with each team's total (or min-max range) at the top.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .types import Detections, Pile, PileKind, box_intersection

#: BGR colour per pile kind: the page's outline colours (``.outline.*`` in ``handfoot/web/style.css``), so a pile is
#: one colour on an annotated photo, the live picture and the check view
KIND_COLORS = {
    PileKind.MELD: (126, 224, 95),  # #5fe07e
    PileKind.SQUARED_BOOK: (58, 176, 255),  # #ffb03a
    PileKind.RED_THREES: (112, 98, 255),  # #ff6270
    PileKind.LEFT: (255, 180, 108),  # #6cb4ff
    PileKind.LOOSE: (208, 208, 208),  # #d0d0d0
}
#: BGR colour of a fanned book (``.outline.book``, #e19cff): a meld the caller's label names a book (the rules
#: engine's clean, dirty or wild book), so that a book and a meld beside it differ at a glance
BOOK_COLOR = (255, 156, 225)


def pile_color(pile: Pile, label: str) -> tuple[int, int, int]:
    """BGR outline colour of ``pile`` shown as ``label``: :data:`KIND_COLORS` by kind, :data:`BOOK_COLOR` for a
    fanned meld labelled as a book."""
    return BOOK_COLOR if pile.kind is PileKind.MELD and "book" in label else KIND_COLORS[pile.kind]


def _text_size(text: str, scale: float, thickness: int = 1) -> tuple[int, int, int]:
    """(width, height, baseline) px of ``text`` in the annotators' font."""
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
    return w, h, base


def _text_box(size: tuple[int, int, int], org: tuple[int, int]) -> tuple[int, int, int, int]:
    """(x1, y1, x2, y2) px of the dark box :func:`_text` fills behind text of ``size`` (:func:`_text_size`) drawn
    at ``org``."""
    w, h, base = size
    x, y = org
    return x - 2, y - h - 3, x + w + 2, y + base


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, color, thickness: int = 1) -> None:
    """Text on a dark filled box so it reads on any table and over other labels."""
    x1, y1, x2, y2 = _text_box(_text_size(text, scale, thickness), org)
    cv2.rectangle(img, (x1, y1), (x2, y2), (30, 30, 30), -1)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, color, thickness, cv2.LINE_AA)


#: font scale of CornerAnnotator's card codes (times :func:`_scale`)
CODE_SCALE = 0.55


def _code_origin(box) -> tuple[int, int]:
    """Where CornerAnnotator writes a box's card code: just above its top-left corner (px)."""
    return int(round(box[0])), max(10, int(round(box[1])) - 3)


def _scale(img: np.ndarray) -> float:
    return max(1.0, max(img.shape[:2]) / 1200)


def label_origin(size: tuple[int, int, int], outline: tuple[int, int, int, int], obstacles: np.ndarray,
                 placed: list[tuple[int, int, int, int]], shape: tuple[int, ...], gap: int,
                 others: list[tuple[int, int, int, int]] = ()) -> tuple[tuple[int, int], tuple[int, int, int, int]]:
    """Where a pile's label goes: the text origin (x, y) px and the label's box (x1, y1, x2, y2) px.

    ``size`` is the text's (width, height, baseline) in px (``cv2.getTextSize``), ``outline`` the pile's outline,
    ``obstacles`` (k, 4) the index boxes and code labels to keep readable, ``placed`` the labels drawn so far and
    ``others`` the other piles' outlines (a label inside one reads as that pile's). Of the places beside the outline
    (under it on the left first, then above it, then right-aligned, then at its sides), the first that covers the
    least of the obstacles, twice as much weight for labels and half for other outlines, and stays inside the
    ``shape`` (H, W, ...) of the photo.
    """
    w, h, base = size
    x1, y1, x2, y2 = outline
    below, above = y2 + h + gap, y1 - base - gap
    candidates = [(x1, below), (x1, above), (x2 - w, below), (x2 - w, above),
                  (x2 + gap, y1 + h), (x1 - w - gap, y1 + h)]
    rects = np.array([_text_box(size, org) for org in candidates], np.float64)
    cost = box_intersection(rects, obstacles).sum(1) + 2 * box_intersection(rects, np.array(placed)).sum(1) \
        + 0.5 * box_intersection(rects, np.array(others, np.float64).reshape(-1, 4)).sum(1)
    outside = (rects[:, 0] < 0) | (rects[:, 1] < 0) | (rects[:, 2] > shape[1]) | (rects[:, 3] > shape[0])
    k = int(np.lexsort((cost, outside))[0])  # inside the photo first, then the least covered; ties: the first
    return candidates[k], tuple(int(v) for v in rects[k])


@dataclass
class CornerAnnotator:
    """Corner-index boxes with card codes (``codes=False``: the boxes only, a page writes the codes itself)."""

    thickness: int = 1
    codes: bool = True

    def annotate(self, image: np.ndarray, dets: Detections) -> np.ndarray:
        out = image.copy()
        s = _scale(out)
        for box, conf, code in dets:
            x1, y1, x2, y2 = (int(round(v)) for v in box)
            color = (255, 255, 255) if conf >= 0.5 else (150, 150, 150)
            cv2.rectangle(out, (x1, y1), (x2, y2), color, self.thickness, cv2.LINE_AA)
            if self.codes:
                _text(out, code, _code_origin(box), CODE_SCALE * s, color)
        return out


@dataclass
class PileAnnotator:
    """Pile outlines labelled ``kind (n)``, n its cards (none for a squared book: one card shows); a ``?`` marks
    a pile with notes (something to check), and a circle with ``code?`` each card counted where its index was not
    read (:mod:`vision.fans`)."""

    thickness: int = 2
    names: bool = True  #: False: the outlines and circles only, no text (a page writes its own, larger)

    def annotate(self, image: np.ndarray, piles: list[Pile], dets: Detections,
                 labels: dict | None = None) -> np.ndarray:
        """Draw ``piles`` (their corner boxes index ``dets``); ``labels`` maps a pile to its text."""
        out = image.copy()
        s = _scale(out)
        pad = int(6 * s)
        scale, thick = 0.6 * s, max(1, int(1.5 * s))
        placed: list[tuple[int, int, int, int]] = []
        # the index boxes and the code labels CornerAnnotator draws above them
        codes = [_text_box(_text_size(code, CODE_SCALE * s), _code_origin(box)) for box, _, code in dets]
        obstacles = np.concatenate([dets.xyxy.astype(np.float64).reshape(-1, 4), np.array(codes).reshape(-1, 4)])
        outlines = []
        names = [(labels or {}).get(p, p.kind.value.replace("_", " ")) for p in piles]
        for p, name in zip(piles, names):  # every outline first, so that no outline crosses a label
            x1, y1, x2, y2 = p.box(dets.xyxy).astype(int)
            outlines.append((x1 - pad, y1 - pad, x2 + pad, y2 + pad))
            color = pile_color(p, name)
            cv2.rectangle(out, outlines[-1][:2], outlines[-1][2:], color, self.thickness, cv2.LINE_AA)
            for c in p.cards:
                if not c.detections:  # an unread card: where its index would be
                    x, y = c.center.astype(int)
                    cv2.circle(out, (int(x), int(y)), max(4, int(c.size / 2)), color, self.thickness, cv2.LINE_AA)
                    if self.names:
                        _text(out, f"{c.code}?", (int(x + c.size / 2) + 2, int(y)), 0.5 * s, color)
        for k, (p, name, outline) in enumerate(zip(piles, names, outlines)):
            if not self.names:
                break
            count = "" if p.kind is PileKind.SQUARED_BOOK else f" ({len(p.cards)})"  # its name gives the book size
            label = f"{name}{count}{' ?' if p.notes else ''}"
            org, rect = label_origin(_text_size(label, scale, thick), outline, obstacles, placed, out.shape,
                                     int(4 * s), outlines[:k] + outlines[k + 1:])
            placed.append(rect)
            _text(out, label, org, scale, pile_color(p, name), thick)
        return out


@dataclass
class TotalsAnnotator:
    """A banner with each team's round total at the top of the photo."""

    def annotate(self, image: np.ndarray, lines: list[str]) -> np.ndarray:
        out = image.copy()
        s = _scale(out)
        h = int(28 * s) * max(1, len(lines)) + int(10 * s)
        band = out[:h].astype(np.float32) * 0.35
        out[:h] = band.astype(np.uint8)
        for i, line in enumerate(lines):
            _text(out, line, (int(10 * s), int(28 * s) * (i + 1)), 0.7 * s, (255, 255, 255), max(1, int(2 * s)))
        return out
