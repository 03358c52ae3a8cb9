"""Where each card of a synthetic table lies: piles laid out in rows on a flat canvas (units: canvas pixels).

:func:`place_piles` gives every card a :class:`Placed`: its face (or back) image and a 2x3 affine matrix from
card pixels to canvas pixels. Melds, books and red threes are cascaded down or sideways so each top-left index
shows; squared books are stacked with small offsets and visible thickness; a player's leftover cards fan in an arc;
loose and face-down cards lie at random angles. Piles are shelf-packed in rows and the canvas is shrunk to the
cards placed, with a margin for their shadows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .scene_piles import Pile

if TYPE_CHECKING:  # pragma: no cover
    from .cardart import Deck

#: a tight fan's step, as a share of the card's height (fanned down) or width (sideways): the tables_examples
#: renders show 0.15-0.2 of the height per card, the rank and little of its pip; under about 0.18 our index boxes
#: (rank, pip and margin, ending at 0.25-0.28 of the height) are less than half visible and go unlabelled
TIGHT_STEP, TIGHT_STEP_SIDE = (0.18, 0.24), (0.14, 0.2)


@dataclass
class Placed:
    """One card on the canvas: its code, the index of its pile in the table and that pile's kind."""

    code: str
    pile: int
    pile_kind: str
    image: np.ndarray  # BGRA card face (or back)
    index_boxes: list[tuple[float, float, float, float]]
    matrix: np.ndarray  # 2x3 affine card px -> canvas px
    depth_offset: float = 0.0  # squared-book edge darkening

    def outline(self) -> np.ndarray:
        """(4, 2) float64 canvas px of the card's corners: top-left first, clockwise."""
        h, w = self.image.shape[:2]
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) @ self.matrix[:, :2].T + self.matrix[:, 2]


def _affine(cx: float, cy: float, angle_deg: float, scale: float, w: int, h: int) -> np.ndarray:
    """Card of w x h px centred at (cx, cy), rotated, scaled: 2x3 matrix card px -> canvas px."""
    a = math.radians(angle_deg)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    return np.array([[c, -s, cx - (c * w / 2 - s * h / 2)], [s, c, cy - (s * w / 2 + c * h / 2)]], np.float64)


def _card_image(deck: Deck, code: str, rng: np.random.Generator, joker_marks: float = 0.0):
    """One of ``deck``'s images of ``code`` (BGRA) and its index boxes (xyxy card px; none on a back)."""
    if code == "BACK":
        return deck.back, []
    options = deck.cards[code]
    ci = options[int(rng.integers(len(options)))]
    if code == "JK" and joker_marks > 0 and rng.random() < joker_marks:
        from .jokers import procedural_joker

        ci = procedural_joker(ci, deck.cards["AS"][0].index_boxes[0], rng)
    return ci.image, list(ci.index_boxes)


def place_piles(piles: Sequence[Pile], decks: Sequence[Deck], rng: np.random.Generator,
                scale: float, joker_marks: float = 0.0, tight_fans: float = 0.0
                ) -> tuple[list[Placed], tuple[float, float]]:
    """Lay the piles out in rows (shelf packing) on a canvas: the placed cards and the canvas (width, height) px.

    ``joker_marks``: the share of jokers drawn with procedural corner marks (:mod:`datasets.jokers`).
    ``tight_fans``: the share of fanned melds stepped :data:`TIGHT_STEP` of a card's height (or
    :data:`TIGHT_STEP_SIDE` of its width), so tightly that the next card covers part of each suit pip and the ranks
    show, as in the photoreal tables of ``../shared/tables_examples``; at 0 every fan steps as players fan."""
    w0, h0 = decks[0].back.shape[1], decks[0].back.shape[0]
    cw, ch = w0 * scale, h0 * scale
    gap = cw * rng.uniform(0.15, 0.6)
    row_limit = cw * rng.uniform(4.5, 9.0)
    x = y = gap
    row_h = 0.0
    placed: list[Placed] = []
    for pi, pile in enumerate(piles):
        deck = decks[int(rng.integers(len(decks)))]
        n = len(pile.codes)
        jitter = rng.normal(0, 4)
        kind = pile.kind
        if kind in ("meld", "book"):
            down = rng.random() < 0.7
            # players fan so each card's whole corner index shows (index boxes end at 0.25-0.28 of the card
            # height and 0.16-0.22 of its width in the decks we render)
            step = ch * rng.uniform(0.27, 0.40) if down else cw * rng.uniform(0.22, 0.36)
            if tight_fans > 0 and rng.random() < tight_fans:
                step = ch * rng.uniform(*TIGHT_STEP) if down else cw * rng.uniform(*TIGHT_STEP_SIDE)
            pw, ph = (cw, ch + step * (n - 1)) if down else (cw + step * (n - 1), ch)
        elif kind == "red_threes":
            step = cw * (rng.uniform(1.05, 1.3) if rng.random() < 0.4 else rng.uniform(0.25, 0.4))
            down = False
            pw, ph = cw + step * (n - 1), ch
        elif kind == "left":
            pw, ph = cw * (1.6 + 0.25 * n), ch * 1.5
        elif kind == "backs":
            pw, ph = cw * 1.3, ch * 1.3
        else:  # squared, loose
            pw, ph = cw * 1.1, ch * 1.1
        if x + pw > row_limit and x > gap:
            x, y = gap, y + row_h + gap
            row_h = 0.0
        ox, oy = x, y
        x += pw + gap
        row_h = max(row_h, ph)

        def put(code: str, cx: float, cy: float, ang: float, depth: float = 0.0) -> None:
            img, boxes = _card_image(deck, code, rng, joker_marks)
            h, w = img.shape[:2]
            s = scale * (w0 / w)
            placed.append(Placed(code, pi, kind, img, boxes, _affine(cx, cy, ang, s, w, h), depth))

        if kind in ("meld", "book", "red_threes"):
            for k, code in enumerate(pile.codes):
                dx, dy = ((0, step * k) if down else (step * k, 0))
                # rotate the cascade about the pile origin by the jitter angle
                a = math.radians(jitter)
                rx = dx * math.cos(a) - dy * math.sin(a)
                ry = dx * math.sin(a) + dy * math.cos(a)
                put(code, ox + cw / 2 + rx + rng.normal(0, cw * 0.01), oy + ch / 2 + ry + rng.normal(0, cw * 0.01),
                    jitter + rng.normal(0, 1.0))
        elif kind == "squared":
            base_ang = jitter + rng.normal(0, 3)
            thick = cw * rng.uniform(0.004, 0.012)
            for k, code in enumerate(pile.codes):
                depth = (len(pile.codes) - 1 - k)
                put(code, ox + cw / 2 + rng.normal(0, cw * 0.012) - depth * thick * 0.3,
                    oy + ch / 2 + rng.normal(0, cw * 0.012) + depth * thick, base_ang + rng.normal(0, 1.2),
                    depth=depth / len(pile.codes))
        elif kind == "left":
            spread = rng.uniform(6, 14)
            pivot_x, pivot_y = ox + pw / 2, oy + ch * 1.6
            for k, code in enumerate(pile.codes):
                ang = (k - (n - 1) / 2) * spread + jitter
                a = math.radians(ang)
                r = ch * 0.9
                put(code, pivot_x + r * math.sin(a), pivot_y - r * math.cos(a), ang)
        elif kind == "backs":
            for k in range(n):
                put("BACK", ox + cw * 0.6 + rng.normal(0, cw * 0.15), oy + ch * 0.6 + rng.normal(0, cw * 0.15),
                    rng.uniform(-40, 40))
        else:
            put(pile.codes[0], ox + cw / 2, oy + ch / 2, rng.uniform(-30, 30))
    # shrink the canvas to the cards actually placed, with a margin for shadows
    pts = np.concatenate([p.outline() for p in placed])
    margin = cw * 0.1
    lo = pts.min(0) - margin
    for p in placed:
        p.matrix[:, 2] -= lo
    width, height = pts.max(0) - lo + margin
    return placed, (float(width), float(height))
