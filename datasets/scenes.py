"""Synthetic Hand and Foot round-end tables: images, corner-index labels and ground-truth layouts.

One scene = one side's cards at the end of a round, photographed from above or at an angle:

* fanned melds of one rank (3–7 cards, twos and jokers among them, repeated identical cards since five or six
  decks are mixed), cascaded down or to the side so every card's top-left index shows;
* squared books: seven cards stacked with small offsets and visible thickness, a marker card on top
  (red natural = clean, black natural = dirty, joker or two = wild);
* a row of red threes, a player's leftover cards fanned in an arc, loose cards, face-down cards;
* clutter: hands, cups, score pads; table textures (felt, wood, cloth, plastic); perspective, rotation at all
  angles, lighting gradients, shadows, glare, blur, noise, white balance, JPEG quality.

Labels follow ``../shared/realdata/phone_corners``: one axis-aligned box per visible corner index, class =
card code (:data:`vision.classes.CLASS_NAMES`). **Visibility threshold:** an index gets a box when at least
:data:`MIN_VISIBLE` (50 %) of its area is not covered by another card or object and lies in the image; the box
then encloses the whole index (as in ``../shared/tables_examples``).

Every scene also writes its ground truth as a table layout (the JSON ``scorer`` scores) plus per-card
metadata, so the whole pipeline can be evaluated end to end. Deterministic for a given seed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import cv2
import numpy as np

from vision.classes import class_id
from vision.types import Detections

from . import textures

if TYPE_CHECKING:  # pragma: no cover
    from .cardart import Deck

MIN_VISIBLE = 0.5  #: fraction of an index's area that must be visible for it to get a box
#: a tight fan's step, as a share of the card's height (fanned down) or width (sideways): the tables_examples
#: renders show 0.15-0.2 of the height per card, the rank and little of its pip; under about 0.18 our index boxes
#: (rank, pip and margin, ending at 0.25-0.28 of the height) are less than half visible and go unlabelled
TIGHT_STEP, TIGHT_STEP_SIDE = (0.18, 0.24), (0.14, 0.2)

NATURALS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")


# ---------------------------------------------------------------------------------------------------------
# 1. What lies on the table (cards and piles, no geometry yet)
@dataclass
class Pile:
    """A pile before placement: ``kind`` is meld, book (fanned 7), squared, red_threes, left, loose, backs."""

    kind: str
    codes: list[str]
    marker: str | None = None  # squared books: the top card


def _natural(rng: np.random.Generator, rank: str, red: bool | None = None) -> str:
    suits = SUITS if red is None else (("H", "D") if red else ("S", "C"))
    return rank + suits[int(rng.integers(len(suits)))]


#: share of wild cards that are jokers, and of other cards (hands, loose cards), at ``joker_boost`` 1
JOKER_SHARE_OF_WILDS = 0.35
JOKER_SHARE_OF_ANY = 0.04


def _wild_card(rng: np.random.Generator, jokers: bool = True, boost: float = 1.0) -> str:
    return "JK" if jokers and rng.random() < JOKER_SHARE_OF_WILDS * boost else "2" + SUITS[int(rng.integers(4))]


def _any_card(rng: np.random.Generator, jokers: bool = True, boost: float = 1.0) -> str:
    if jokers and rng.random() < JOKER_SHARE_OF_ANY * boost:
        return "JK"
    return ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")[int(rng.integers(13))] + \
        SUITS[int(rng.integers(4))]


def hand_cards(rng: np.random.Generator, n: int, jokers: bool = True) -> list[str]:
    """``n`` card codes of a hand or foot still held at the end of a round: any cards, a joker as often as in the
    cards left of :func:`sample_piles` (``jokers=False`` for decks without joker art)."""
    return [_any_card(rng, jokers) for _ in range(n)]


def sample_piles(rng: np.random.Generator, max_piles: int = 12, jokers: bool = True,
                 joker_boost: float = 1.0) -> list[Pile]:
    """A plausible round-end table for one side under pagat-style limits (two naturals per wild).

    ``jokers=False`` for decks without joker art (wilds are then twos only). ``joker_boost`` multiplies the
    chance that a card is a joker (:data:`JOKER_SHARE_OF_WILDS` of wilds, :data:`JOKER_SHARE_OF_ANY` of other
    cards; at most every wild): training variety for the rarest index; 1 leaves every table as before.
    """
    piles: list[Pile] = []

    n_melds = int(rng.integers(1, max(2, max_piles - 3)))
    ranks = list(rng.permutation(NATURALS))
    for i in range(n_melds):
        if rng.random() < 0.08:
            size = int(rng.integers(3, 8))
            wilds = [_wild_card(rng, jokers, joker_boost) for _ in range(size)]
            piles.append(Pile("book" if size == 7 else "meld", wilds))
            continue
        rank = ranks[i % len(ranks)]
        size = int(rng.choice([3, 4, 5, 6, 7, 7, 7]))
        max_w = 2 if size >= 6 else 1
        w = int(rng.integers(0, max_w + 1)) if rng.random() < 0.55 else 0
        codes = [_natural(rng, rank) for _ in range(size - w)] + \
            [_wild_card(rng, jokers, joker_boost) for _ in range(w)]
        order = rng.permutation(len(codes))
        piles.append(Pile("book" if size == 7 else "meld", [codes[j] for j in order]))
    for _ in range(int(rng.integers(0, 4)) if rng.random() < 0.6 else 0):
        kind = rng.choice(["clean", "dirty", "wild"], p=[0.5, 0.35, 0.15])
        rank = str(rng.choice(NATURALS))
        if kind == "clean":
            codes = [_natural(rng, rank) for _ in range(6)]
            marker = _natural(rng, rank, red=True)
        elif kind == "dirty":
            codes = [_natural(rng, rank) for _ in range(4)] + [_wild_card(rng, jokers, joker_boost) for _ in range(2)]
            marker = _natural(rng, rank, red=False)
        else:
            codes = [_wild_card(rng, jokers, joker_boost) for _ in range(6)]
            marker = _wild_card(rng, jokers, joker_boost)
        piles.append(Pile("squared", codes + [marker], marker=marker))
    n_red = int(rng.integers(0, 5)) if rng.random() < 0.6 else 0
    if n_red:
        piles.append(Pile("red_threes", ["3" + ("H" if rng.random() < 0.5 else "D") for _ in range(n_red)]))
    if rng.random() < 0.45:
        piles.append(Pile("left", [_any_card(rng, jokers, joker_boost) for _ in range(int(rng.integers(1, 9)))]))
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.4 else 0):
        piles.append(Pile("loose", [_any_card(rng, jokers, joker_boost)]))
    if rng.random() < 0.35:
        piles.append(Pile("backs", ["BACK"] * int(rng.integers(1, 4))))
    order = rng.permutation(len(piles))
    return [piles[i] for i in order]


def layout_of(piles: Sequence[Pile]) -> dict[str, Any]:
    """The ground-truth table layout (``scorer.layout`` JSON) for one side's piles."""
    team: dict[str, Any] = {"melds": [], "squared_books": [], "red_threes": [], "left": []}
    for p in piles:
        if p.kind in ("meld", "book"):
            team["melds"].append(list(p.codes))
        elif p.kind == "squared":
            team["squared_books"].append({"top": p.marker, "cards": list(p.codes)})
        elif p.kind == "red_threes":
            team["red_threes"].extend(p.codes)
        elif p.kind == "left":
            team["left"].append(list(p.codes))
    return {"rules": "pagat", "round": 1, "went_out": None, "teams": {"A": team}}


# ---------------------------------------------------------------------------------------------------------
# 2. Geometry: each card gets an affine placement on a flat table canvas (units: canvas pixels)
@dataclass
class Placed:
    code: str
    pile: int
    pile_kind: str
    image: np.ndarray  # BGRA card face (or back)
    index_boxes: list[tuple[float, float, float, float]]
    matrix: np.ndarray  # 2x3 affine card px -> canvas px
    depth_offset: float = 0.0  # squared-book edge darkening


def _affine(cx: float, cy: float, angle_deg: float, scale: float, w: int, h: int) -> np.ndarray:
    """Card of w x h px centred at (cx, cy), rotated, scaled: 2x3 matrix card px -> canvas px."""
    a = math.radians(angle_deg)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    return np.array([[c, -s, cx - (c * w / 2 - s * h / 2)], [s, c, cy - (s * w / 2 + c * h / 2)]], np.float64)


def _card_image(deck: Deck, code: str, rng: np.random.Generator, joker_marks: float = 0.0):
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
    """Lay the piles out in rows (shelf packing) on a canvas; returns placed cards and the canvas size.

    ``joker_marks``: the share of jokers drawn with procedural corner marks (:mod:`datasets.jokers`).
    ``tight_fans``: the share of fanned melds stepped :data:`TIGHT_STEP` of a card's height (or
    :data:`TIGHT_STEP_SIDE` of its width), so tightly that the next card covers part of each suit pip and the ranks
    show, as in the photoreal tables of ``../shared/tables_examples``; 0 leaves every table as before."""
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
    pts = np.concatenate([np.array([[0, 0], [p.image.shape[1], 0], [p.image.shape[1], p.image.shape[0]],
                                    [0, p.image.shape[0]]], np.float64) @ p.matrix[:, :2].T + p.matrix[:, 2]
                          for p in placed])
    margin = cw * 0.1
    lo = pts.min(0) - margin
    for p in placed:
        p.matrix[:, 2] -= lo
    width, height = pts.max(0) - lo + margin
    return placed, (float(width), float(height))


# ---------------------------------------------------------------------------------------------------------
# 3. Rendering on a canvas with an instance mask, then the camera
@dataclass
class Scene:
    """One generated scene.

    Attributes:
        image: (H, W, 3) uint8 BGR photo.
        boxes: (n, 4) float32 corner-index boxes, xyxy pixels.
        classes: (n,) int class ids (``vision.classes``).
        cards: per card: code, pile, pile_kind, corners (4x2 image px, top-left first, clockwise), visible_frac.
        layout: ground-truth layout (``scorer`` JSON).
        design: the deck design(s) used.
    """

    image: np.ndarray
    boxes: np.ndarray
    classes: np.ndarray
    cards: list[dict[str, Any]]
    layout: dict[str, Any]
    design: str
    meta: dict[str, Any] = field(default_factory=dict)


def _blend_card(canvas: np.ndarray, ids: np.ndarray, img: np.ndarray, M: np.ndarray, idx: int,
                shade: float) -> None:
    h, w = img.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    pts = corners @ M[:, :2].T + M[:, 2]
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
        h, w = p.image.shape[:2]
        pts = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) @ p.matrix[:, :2].T + p.matrix[:, 2]
        cv2.fillConvexPoly(mask, (pts + (dx, dy)).astype(np.int32), 255)
    k = int(max(3, rng.uniform(3, 15))) | 1
    mask = cv2.GaussianBlur(mask, (k, k), 0)
    strength = rng.uniform(0.15, 0.45)
    canvas[:, :, 3] = np.maximum(canvas[:, :, 3], (mask * strength).astype(np.uint8))


def _clutter(canvas: np.ndarray, ids: np.ndarray, rng: np.random.Generator, scale: float, cw: float) -> None:
    """Cups, hands and score pads on top of the cards (id -2 in the mask: they hide indices)."""
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


def _index_polys(p: Placed) -> list[np.ndarray]:
    out = []
    for (x1, y1, x2, y2) in p.index_boxes:
        quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
        out.append(quad @ p.matrix[:, :2].T + p.matrix[:, 2])
    return out


def _visible_fraction(ids: np.ndarray, poly: np.ndarray, idx: int) -> float:
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


def _camera(canvas_wh: tuple[int, int], out_wh: tuple[int, int], rng: np.random.Generator,
            fill: float, card_width: float | None = None, card_px: float = 240.0,
            focus: tuple[float, float] | None = None) -> np.ndarray:
    """3x3 homography canvas -> image: rotation (any angle), tilt up to ~35 degrees, fit into the frame.

    The table is a plane at depth ``f`` (the focal length, pixels) tilted about an axis through its centre. Framed
    whole (``card_width`` None), the canvas is first scaled so that its diagonal spans the photo's long side, as a
    camera framing the whole table stands: the perspective (the nearest card's size over the farthest's, at most
    about 1.7 at 35 degrees) then depends on the tilt and the lens, not on how many piles the canvas holds (a canvas
    several times ``f`` across put the far cards at a few pixels, a photo nobody takes). Zoomed in (``card_width``
    pixels a card), the canvas keeps its pixels: the views the training tiles were cut from.
    """
    cw, chh = canvas_wh
    W, H = out_wh
    theta = rng.uniform(0, 2 * math.pi)
    c, s = math.cos(theta), math.sin(theta)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)
    s0 = max(W, H) / math.hypot(cw, chh) if card_width is None else 1.0
    T0 = np.array([[s0, 0, -s0 * cw / 2], [0, s0, -s0 * chh / 2], [0, 0, 1]], np.float64)
    tilt = math.radians(rng.uniform(0, 35) if rng.random() < 0.8 else 0)
    f = max(W, H) * rng.uniform(0.8, 1.4)
    az = rng.uniform(0, 2 * math.pi)
    # perspective: rotate the plane about an axis in the image plane (direction az) by `tilt`
    ax, ay = math.cos(az), math.sin(az)
    K = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1]], np.float64)
    cr, sr = math.cos(tilt), math.sin(tilt)
    # Rodrigues for axis (ax, ay, 0)
    Rt = np.array([[cr + ax * ax * (1 - cr), ax * ay * (1 - cr), ay * sr],
                   [ax * ay * (1 - cr), cr + ay * ay * (1 - cr), -ax * sr],
                   [-ay * sr, ax * sr, cr]], np.float64)
    # plane at depth f: x_img = K (Rt [x, y, 0] + [0, 0, f]) -> homography
    Hp = K @ np.column_stack([Rt[:, 0], Rt[:, 1], np.array([0, 0, f])])
    Hp = Hp / Hp[2, 2]
    G = Hp @ R @ T0
    corners = np.array([[0, 0, 1], [cw, 0, 1], [cw, chh, 1], [0, chh, 1]], np.float64).T
    pts = G @ corners
    pts = (pts[:2] / pts[2]).T
    lo, hi = pts.min(0), pts.max(0)
    k = fill * min(W / (hi[0] - lo[0]), H / (hi[1] - lo[1]))
    centre = (lo + hi) / 2
    off = np.array([W / 2, H / 2]) + rng.uniform(-0.5, 0.5, 2) * np.array([W, H]) * (1 - fill) * 0.8
    if card_width is not None:  # zoomed in: cards of about card_width px, part of the table may be cut off
        mid = G @ np.array([cw / 2, chh / 2, 1.0])
        ahead = G @ np.array([cw / 2 + card_px, chh / 2, 1.0])
        px = np.linalg.norm(ahead[:2] / ahead[2] - mid[:2] / mid[2])
        k = card_width / max(px, 1e-6)
        if focus is not None:
            f = G @ np.array([focus[0], focus[1], 1.0])
            centre = f[:2] / f[2]
        else:
            centre = rng.uniform(lo, hi)
        off = np.array([W / 2, H / 2]) + rng.uniform(-0.3, 0.3, 2) * np.array([W, H])
    S = np.array([[k, 0, off[0] - k * centre[0]], [0, k, off[1] - k * centre[1]], [0, 0, 1]], np.float64)
    return S @ G


def _photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    H, W = img.shape[:2]
    out = img.astype(np.float32)
    # lighting gradient
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    grad = (np.cos(a) * (xx / W - 0.5) + np.sin(a) * (yy / H - 0.5))
    light = 1.0 + grad * rng.uniform(0, 0.7)
    if rng.random() < 0.5:  # radial vignette / spot
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / max(W, H)
        light *= 1.15 - rng.uniform(0, 0.6) * d
    out *= light[:, :, None] * rng.uniform(0.6, 1.2)
    # cast shadows
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.4 else 0):
        m = np.zeros((H, W), np.uint8)
        pts = (rng.uniform(0, 1, (int(rng.integers(3, 7)), 2)) * (W, H)).astype(np.int32)
        cv2.fillPoly(m, [cv2.convexHull(pts)], 255)
        m = cv2.GaussianBlur(m, (0, 0), max(W, H) * rng.uniform(0.01, 0.05)).astype(np.float32) / 255
        out *= (1 - m * rng.uniform(0.2, 0.55))[:, :, None]
    # glare
    if rng.random() < 0.3:
        m = np.zeros((H, W), np.uint8)
        cv2.ellipse(m, (int(rng.uniform(0, W)), int(rng.uniform(0, H))),
                    (int(W * rng.uniform(0.03, 0.15)), int(H * rng.uniform(0.02, 0.1))), rng.uniform(0, 180), 0, 360,
                    255, -1)
        m = cv2.GaussianBlur(m, (0, 0), max(W, H) * 0.02).astype(np.float32) / 255
        out += m[:, :, None] * rng.uniform(60, 160)
    # white balance
    out *= rng.uniform(0.85, 1.15, 3)[None, None, :]
    out = np.clip(out, 0, 255).astype(np.uint8)
    # blur
    r = rng.random()
    if r < 0.35:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.6))
    elif r < 0.45:
        k = int(rng.integers(3, 9))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, rot, (k, k))
        out = cv2.filter2D(out, -1, kern / max(kern.sum(), 1e-6))
    # noise
    if rng.random() < 0.6:
        out = np.clip(out.astype(np.float32) + rng.normal(0, rng.uniform(1, 9), out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.08:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return out


SIZES = ((1280, 960), (960, 1280), (1024, 768), (1600, 1200), (1280, 720), (720, 1280))


def make_scene(seed: int, decks: Sequence[Deck], size: tuple[int, int] | None = None,
               max_piles: int | None = None, full_view: bool | None = None,
               piles: Sequence[Pile] | None = None, clutter: bool = True, joker_marks: float = 0.0,
               joker_boost: float = 1.0, tight_fans: float = 0.0, shown: Sequence[int] | None = None,
               zoom: float = 1.0) -> Scene:
    """Generate one scene, deterministic for ``seed`` and ``decks``.

    Args:
        seed: random seed.
        decks: one or more loaded decks (cards of a scene come from these designs).
        size: output (width, height) in pixels; random from :data:`SIZES` when None.
        max_piles: cap on the number of piles (fewer piles -> larger cards).
        full_view: True frames the whole table (for end-to-end evaluation); False zooms to card widths of
            about 50-300 px, cutting off part of the table (for training); None picks at random (60 % full).
        piles: lay out exactly these piles instead of sampling a table (tests, controlled evaluation).
        clutter: add cups, hands and score pads.
        joker_marks: share of jokers given procedural corner marks (training variety, :mod:`datasets.jokers`);
            0 keeps every scene identical to earlier versions.
        joker_boost: multiplies the chance that a sampled card is a joker (:func:`sample_piles`); 1 keeps every
            scene identical to earlier versions.
        tight_fans: share of fanned melds stepped so tightly that suit pips are partly covered (:func:`place_piles`);
            0 keeps every scene identical to earlier versions.
        shown: with ``piles``, how many of each pile's first cards are drawn (the rest are laid out but not
            drawn, and have no boxes): the same table earlier in a round, every card where it will be
            (``datasets.round_video``). None draws them all. The scene's ``layout`` is of all the piles.
        zoom: the photo's pixels per side times this (after ``size`` is drawn): the same table framed the same way,
            photographed by a sensor with more pixels (a phone's full-resolution photo against a webcam's frame);
            1 keeps every scene identical to earlier versions.
    """
    rng = np.random.default_rng(seed)
    W, H = size or SIZES[int(rng.integers(len(SIZES)))]
    W, H = int(round(W * zoom)), int(round(H * zoom))
    if max_piles is None:
        max_piles = int(rng.choice([3, 5, 8, 12, 14], p=[0.15, 0.2, 0.25, 0.25, 0.15]))
    if piles is None:
        piles = sample_piles(rng, max_piles, jokers=all("JK" in d.cards for d in decks), joker_boost=joker_boost)
    scale = 1.0
    placed, (cvw, cvh) = place_piles(piles, decks, rng, scale, joker_marks, tight_fans)
    cvw, cvh = int(math.ceil(cvw)), int(math.ceil(cvh))
    canvas = np.zeros((cvh, cvw, 4), np.uint8)
    ids = np.full((cvh, cvw), -1, np.int32)
    drawn = [True] * len(placed)
    if shown is not None:
        seen: dict[int, int] = {}
        for i, p in enumerate(placed):
            seen[p.pile] = seen.get(p.pile, 0) + 1
            drawn[i] = seen[p.pile] <= shown[p.pile]
    _shadow(canvas, [p for p, d in zip(placed, drawn) if d], rng)
    canvas[:, :, :3] = 0
    for i, p in enumerate(placed):
        if drawn[i]:
            _blend_card(canvas, ids, p.image, p.matrix, i, shade=0.25 * p.depth_offset)
    cw = decks[0].back.shape[1] * scale
    if clutter:
        _clutter(canvas, ids, rng, scale, cw)

    if full_view is None:
        full_view = bool(rng.random() < 0.6)
    fill = rng.uniform(0.6, 0.98)
    target = None if full_view else float(np.exp(rng.uniform(np.log(50), np.log(300))))
    fp = placed[int(rng.integers(len(placed)))]
    focus = tuple(fp.matrix @ np.array([fp.image.shape[1] / 2, fp.image.shape[0] / 2, 1.0]))
    Hm = _camera((cvw, cvh), (W, H), rng, fill, target, card_px=float(decks[0].back.shape[1]), focus=focus)
    table = textures.table_texture(rng, W, H)
    warped = cv2.warpPerspective(canvas, Hm, (W, H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    # the canvas' shadow pixels are black with partial alpha: darken the table there
    image = (warped[:, :, :3].astype(np.float32) * alpha + table.astype(np.float32) * (1 - alpha)).astype(np.uint8)
    image = _photometric(image, rng)

    boxes, classes, cards = [], [], []
    pixels = np.bincount((ids + 2).ravel(), minlength=len(placed) + 2)[2:]
    for i, p in enumerate(placed):
        if not drawn[i]:
            continue
        h, w = p.image.shape[:2]
        quad = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) @ p.matrix[:, :2].T + p.matrix[:, 2]
        quad_img = cv2.perspectiveTransform(quad[None], Hm)[0]
        vis_card = float(pixels[i]) / max(1.0, cv2.contourArea(quad.astype(np.float32)))
        cards.append({"code": p.code, "pile": p.pile, "pile_kind": p.pile_kind,
                      "corners_px": np.round(quad_img, 2).tolist(), "visible_frac": round(min(vis_card, 1.0), 3),
                      "index_boxes_px": []})
        if p.code == "BACK":
            continue
        for poly in _index_polys(p):
            if _visible_fraction(ids, poly, i) < MIN_VISIBLE:
                continue
            q = cv2.perspectiveTransform(poly[None], Hm)[0]
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
    design = "+".join(sorted({d.design for d in decks}))
    return Scene(image=image, boxes=np.array(boxes, np.float32).reshape(-1, 4), classes=np.array(classes, np.int64),
                 cards=cards, layout=layout_of(piles), design=design,
                 meta={"seed": seed, "size": [W, H], "piles": len(piles), "full_view": full_view,
                       "in_frame": all(all(0 <= x <= W and 0 <= y <= H for x, y in c["corners_px"]) for c in cards)})


def yolo_lines(boxes: np.ndarray, classes: np.ndarray, width: int, height: int) -> list[str]:
    """YOLO txt lines ``class cx cy w h`` (normalised) for xyxy pixel boxes."""
    out = []
    for (x1, y1, x2, y2), c in zip(boxes, classes):
        out.append(f"{int(c)} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                   f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return out


def write_scene(scene: Scene, out_dir: Path, name: str, jpeg_quality: int | None = None) -> None:
    """Write ``images/NAME.jpg``, ``labels/NAME.txt`` and ``layouts/NAME.json`` under ``out_dir``."""
    out_dir = Path(out_dir)
    for sub in ("images", "labels", "layouts"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    q = jpeg_quality or int(np.random.default_rng(scene.meta.get("seed", 0) + 7).integers(40, 96))
    cv2.imwrite(str(out_dir / "images" / f"{name}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, q])
    H, W = scene.image.shape[:2]
    (out_dir / "labels" / f"{name}.txt").write_text("\n".join(yolo_lines(scene.boxes, scene.classes, W, H)) + "\n")
    doc = {"image": f"{name}.jpg", "design": scene.design, **scene.layout, "cards": scene.cards,
           "image_size": [W, H], "meta": scene.meta}
    (out_dir / "layouts" / f"{name}.json").write_text(json.dumps(doc))


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
