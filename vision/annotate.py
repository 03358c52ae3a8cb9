"""Draw what the pipeline read onto the photo, so a player can check it at a glance.

Small annotator classes in the style of roboflow/supervision: each draws one thing onto a copy of a
(H, W, 3) uint8 BGR image and returns it. Text uses OpenCV's built-in Hershey font (nothing to download).

* :class:`CornerAnnotator` — every corner-index box with its card code (grey when confidence < 0.5).
* :class:`PileAnnotator` — an outline around each pile, coloured by kind (a fanned book apart from a meld),
  labelled with kind and card count (each label placed beside its outline, greedily: on no label placed before
  it, covering the fewest index boxes, and away from other piles' outlines: :func:`label_origin`).
* :class:`TotalsAnnotator` — a banner with each team's total (or min-max range): a strip added above the photo,
  so that it covers nothing drawn, or over the photo's top for pictures that must keep their size.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scorer.wording import pile_word

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


#: BGR colour of the dark edge drawn under each outline
HALO = (30, 30, 30)


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


def _gaps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise distances (px) between (n, 4) and (m, 4) xyxy boxes -> (n, m); 0 where they meet."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4), np.asarray(b, np.float64).reshape(-1, 4)
    dx = np.maximum(0, np.maximum(a[:, None, 0] - b[None, :, 2], b[None, :, 0] - a[:, None, 2]))
    dy = np.maximum(0, np.maximum(a[:, None, 1] - b[None, :, 3], b[None, :, 1] - a[:, None, 3]))
    return np.hypot(dx, dy)


def label_origin(size: tuple[int, int, int], outline: tuple[int, int, int, int], obstacles: np.ndarray,
                 placed: list[tuple[int, int, int, int]], shape: tuple[int, ...], gap: int,
                 others: list[tuple[int, int, int, int]] = (), top: int = 0
                 ) -> tuple[tuple[int, int], tuple[int, int, int, int]]:
    """Where a pile's label goes: the text origin (x, y) px and the label's box (x1, y1, x2, y2) px.

    ``size`` is the text's (width, height, baseline) in px (``cv2.getTextSize``), ``outline`` the pile's outline,
    ``obstacles`` (k, 4) the index boxes and code labels to keep readable, ``placed`` the labels drawn so far,
    ``others`` the other piles' outlines (a label inside or beside one reads as that pile's) and ``top`` the rows
    (px) at the top of the photo kept clear (a banner drawn over them).

    The places tried, in order: under the outline on the left, above it, right-aligned under and above it, at its
    sides level with its top, then level with its bottom, then under it and below ``top``. Of them, greedily: those
    that stay in the ``shape`` (H, W, ...) of the photo below ``top``, then those that overlap no placed label (else
    the least), then those that cover the least of the obstacles and other outlines (half weight), then those with
    no other outline within a text height of them; ties go to the first tried.
    """
    w, h, base = size
    x1, y1, x2, y2 = outline
    below, above = y2 + h + gap, y1 - base - gap
    candidates = [(x1, below), (x1, above), (x2 - w, below), (x2 - w, above),
                  (x2 + gap, y1 + h), (x1 - w - gap, y1 + h), (x2 + gap, y2 - base), (x1 - w - gap, y2 - base),
                  (x1, max(below, top + h + 3)), (x2 - w, max(below, top + h + 3))]  # under the rows kept clear
    rects = np.array([_text_box(size, org) for org in candidates], np.float64)
    others = np.array(others, np.float64).reshape(-1, 4)
    outside = (rects[:, 0] < 0) | (rects[:, 1] < top) | (rects[:, 2] > shape[1]) | (rects[:, 3] > shape[0])
    on_label = box_intersection(rects, np.array(placed, np.float64).reshape(-1, 4)).sum(1)
    cost = box_intersection(rects, obstacles).sum(1) + 0.5 * box_intersection(rects, others).sum(1)
    own = _gaps(rects, np.array([outline], np.float64))[:, 0]
    crowded = (_gaps(rects, others).min(1, initial=np.inf) < own + h) if len(others) else np.zeros(len(rects), bool)
    k = int(np.lexsort((crowded, cost, on_label, outside))[0])  # ties: the first place tried
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
    top: int = 0  #: rows (px) at the picture's top where no label goes (a banner is drawn over them)

    def annotate(self, image: np.ndarray, piles: list[Pile], dets: Detections,
                 labels: dict | None = None) -> np.ndarray:
        """Draw ``piles`` (their corner boxes index ``dets``); ``labels`` maps a pile to its text."""
        out = image.copy()
        s = _scale(out)
        pad = int(6 * s)
        scale, thick = 0.6 * s, max(1, int(1.5 * s))
        placed: list[tuple[int, int, int, int]] = []
        # the index boxes, the code labels CornerAnnotator draws above them and the unread cards' codes
        keep = [_text_box(_text_size(code, CODE_SCALE * s), _code_origin(box)) for box, _, code in dets]
        outlines = []
        names = [(labels or {}).get(p, pile_word(p.kind.value)) for p in piles]
        for p, name in zip(piles, names):  # every outline first, so that no outline crosses a label
            x1, y1, x2, y2 = p.box(dets.xyxy).astype(int)
            outlines.append((x1 - pad, y1 - pad, x2 + pad, y2 + pad))
            color = pile_color(p, name)
            # a dark edge under the colour: an outline shows on any table (a green meld on green felt)
            cv2.rectangle(out, outlines[-1][:2], outlines[-1][2:], HALO, self.thickness + 2, cv2.LINE_AA)
            cv2.rectangle(out, outlines[-1][:2], outlines[-1][2:], color, self.thickness, cv2.LINE_AA)
            for c in p.cards:
                if not c.detections:  # an unread card: where its index would be
                    x, y = c.center.astype(int)
                    cv2.circle(out, (int(x), int(y)), max(4, int(c.size / 2)), color, self.thickness, cv2.LINE_AA)
                    if self.names:
                        org = (int(x + c.size / 2) + 2, int(y))
                        _text(out, f"{c.code}?", org, 0.5 * s, color)
                        keep.append(_text_box(_text_size(f"{c.code}?", 0.5 * s), org))
        obstacles = np.concatenate([dets.xyxy.astype(np.float64).reshape(-1, 4), np.array(keep).reshape(-1, 4)])
        for k, (p, name, outline) in enumerate(zip(piles, names, outlines)):
            if not self.names:
                break
            count = "" if p.kind is PileKind.SQUARED_BOOK else f" ({len(p.cards)})"  # its name gives the book size
            label = f"{name}{count}{' ?' if p.notes else ''}"
            org, rect = label_origin(_text_size(label, scale, thick), outline, obstacles, placed, out.shape,
                                     int(4 * s), outlines[:k] + outlines[k + 1:], self.top)
            placed.append(rect)
            _text(out, label, org, scale, pile_color(p, name), thick)
        return out


def banner_height(image: np.ndarray, lines: list[str]) -> int:
    """Height (px) of :class:`TotalsAnnotator`'s banner of ``lines`` for ``image`` (H, W, 3)."""
    return int(28 * _scale(image)) * max(1, len(lines)) + int(10 * _scale(image))


@dataclass
class TotalsAnnotator:
    """A banner with each team's round total: a dark strip added above the photo (the picture grows by
    :func:`banner_height`, and nothing drawn on the photo is covered) or, ``over=True``, the photo's top rows
    darkened under it (the picture keeps its size, as a video's frames must; a :class:`PileAnnotator` with
    ``top`` set to :func:`banner_height` keeps its labels out from under it)."""

    over: bool = False

    def annotate(self, image: np.ndarray, lines: list[str]) -> np.ndarray:
        s = _scale(image)
        h = banner_height(image, lines)
        if self.over:
            out = image.copy()
            out[:h] = (out[:h].astype(np.float32) * 0.35).astype(np.uint8)
        else:
            out = np.concatenate([np.full((h, *image.shape[1:]), HALO, image.dtype), image])
        for i, line in enumerate(lines):
            _text(out, line, (int(10 * s), int(28 * s) * (i + 1)), 0.7 * s, (255, 255, 255), max(1, int(2 * s)))
        return out
