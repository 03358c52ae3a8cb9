"""A deck's own glyph reader: its ranks and suits learned at the photo's resolution, blended with the index reader.

A family's deck prints every rank and suit glyph the same way on every card, and the photo holds about twice the
detail the index reader's 32 px crop keeps of a small index (a webcam index of ~28 x 52 px). A deck profile
(``vision.decks``) may carry a :class:`GlyphReader` learned from its examples' boxes:

- each index is cut from the photo as the box itself (grown :data:`MARGIN` times) stretched to :data:`WIDTH` x
  :data:`HEIGHT` px (``vision.models.crops.box_crop``: a box wider than tall is turned a quarter first, so
  the rank and the suit lie along the crop's height); which way up stays unknown, so every crop is learned both ways up
  (``np.rot90`` twice), each index's way matched to the other examples of its rank (:func:`_align`), and a class is
  a (rank, way up) or (suit, way up) pair summed over both ways when read;
- features: a histogram of oriented gradients of the grey crop (:func:`hog`: 8 px cells, 9 unsigned orientations,
  blocks of 2 x 2 cells normalised, as Dalal and Triggs; OpenCV 5 left its ``HOGDescriptor`` to contrib) and the
  ink's and paper's colour;
- a multinomial logistic regression (NumPy, Adam, weight decay :data:`DECAY`) on jittered copies of every example
  (small shifts, scales and turns, contrast, brightness, blur: :data:`COPIES`); the detector's larger boxes are
  learned from as examples of their own when ``vision.decks.learn`` adds them (``glyphs="boxes"``).

:meth:`GlyphReader.blend` combines it with the reader's probabilities as a product of experts: each real rank's
(and suit's) probability times the glyph reader's to the power :attr:`GlyphReader.weight` (chosen on the
examples' last photos: :func:`weigh`), renormalised; the reader's "no index" probability is kept as it was,
so whether a box holds an index stays the reader's call (unless the glyph reader learned "no index" too, from the
detector's sure boxes on none: ``glyphs="found"``). No training library; NumPy and OpenCV only.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .classes import RANKS, SUIT_CODES, rank_colour, reading, softmax
from .config import DEFAULT
from .images import load_photo
from .models.crops import box_crop

#: crop size in pixels (the box's longer side along the height), and the box grown this much about its centre
WIDTH, HEIGHT, MARGIN = 32, 64, 1.1
#: ways up a crop is learned in (half turns)
TURNS = 2
#: HOG cell side in pixels and orientation bins (blocks of 2 x 2 cells, stride one cell: 756 values at 32 x 64)
CELL, BINS = 8, 9
#: jittered copies of each example index learned from (each both ways up)
COPIES = 12
#: the copies' box shift (share of its sides), box side scale range, contrast and brightness range
SHIFT, SCALE, CONTRAST, BRIGHT = 0.04, (0.95, 1.1), (0.7, 1.3), 0.12
#: the copies' turn (radians, either way)
TURN = 0.15
#: gradient steps, Adam's step size, weight decay of the regression
STEPS, RATE, DECAY = 200, 0.05, 0.01
#: the glyph reader's probability is mixed with this much of a uniform one (ranks it never saw keep a say)
FLOOR = 0.05
#: the weights :func:`weigh` chooses from (0: the glyph reader is not kept)
WEIGHTS = (0.0, 0.25, 0.5, 1.0)
#: the last this-many-th of the example photos weigh it, when they hold at least :data:`MIN_WEIGH` indices
LATER, MIN_WEIGH = 4, 30
#: the real ranks (A-K, joker): :data:`vision.classes.RANKS` less "none"
REAL = len(RANKS) - 1
#: a code the examples give a box with no index (``vision.deck_boxes.NONE``): learned as "no index" when asked
NONE = "none"


def index_crops(image: np.ndarray, boxes: np.ndarray, turns: np.ndarray | None = None) -> np.ndarray:
    """(n, HEIGHT, WIDTH, 3) uint8 crops of the indices in ``boxes`` ((n, 4) xyxy px) of a (H, W, 3) BGR image
    (``vision.models.crops.box_crop``), each turned by ``turns`` (n,) radians (None: none)."""
    out = np.empty((len(boxes), HEIGHT, WIDTH, 3), np.uint8)
    for i, box in enumerate(boxes):
        out[i] = box_crop(image, box, WIDTH, HEIGHT, MARGIN, 0.0 if turns is None else float(turns[i]))
    return out


def hog(grey: np.ndarray) -> np.ndarray:
    """(n, blocks * 4 * BINS) histograms of oriented gradients of (n, h, w) float32 images (h, w multiples
    of :data:`CELL`): each pixel's gradient magnitude split between its two nearest of :data:`BINS` unsigned
    orientations, summed per cell, each 2 x 2 block of cells L2-normalised, clipped at 0.2 and normalised again."""
    gx, gy = np.zeros_like(grey), np.zeros_like(grey)
    gx[:, :, 1:-1], gy[:, 1:-1] = grey[:, :, 2:] - grey[:, :, :-2], grey[:, 2:] - grey[:, :-2]
    mag = np.hypot(gx, gy)
    pos = (np.arctan2(gy, gx) % np.pi) / np.pi * BINS - 0.5
    low = np.floor(pos).astype(int)
    frac = (pos - low).astype(np.float32)
    n, sy, sx = grey.shape[0], grey.shape[1] // CELL, grey.shape[2] // CELL
    low, high = low % BINS, (low + 1) % BINS
    cells = np.stack([(mag * ((low == b) * (1 - frac) + (high == b) * frac)).reshape(n, sy, CELL, sx, CELL).sum((2, 4))
                      for b in range(BINS)], -1)
    blocks = np.concatenate([cells[:, :-1, :-1], cells[:, :-1, 1:], cells[:, 1:, :-1], cells[:, 1:, 1:]], -1)
    blocks /= np.sqrt((blocks ** 2).sum(-1, keepdims=True)) + 1e-3
    blocks = np.minimum(blocks, 0.2)
    blocks /= np.sqrt((blocks ** 2).sum(-1, keepdims=True)) + 1e-3
    return blocks.reshape(n, -1)


def features(crops: np.ndarray) -> np.ndarray:
    """(n, d) float32 features of (n, HEIGHT, WIDTH, 3) uint8 crops: :func:`hog` of the grey crop, then the ink's
    colour (the mean BGR of the 15 % pixels farthest from the crop's median, less the median, over 255; every other
    row and column) and the paper's (the median over 255)."""
    h = hog(crops.astype(np.float32).mean(3))
    out = np.empty((len(crops), h.shape[1] + 6), np.float32)
    out[:, :-6] = h
    px = crops[:, ::2, ::2].reshape(len(crops), -1, 3).astype(np.float32)  # every other pixel: enough for colour
    paper = np.median(px, 1)
    far = np.abs(px - paper[:, None]).sum(2)
    ink = far >= np.quantile(far, 0.85, axis=1)[:, None]
    out[:, -6:-3] = ((px * ink[..., None]).sum(1) / ink.sum(1)[:, None] - paper) / 255
    out[:, -3:] = paper / 255
    return out


def _labels(code: str) -> tuple[int, int]:
    """(rank index into :data:`RANKS`, suit index or -1 for a joker or no index) of a card code or :data:`NONE`."""
    if code in ("JK", NONE):
        return RANKS.index(code), -1
    return RANKS.index(code[:-1]), SUIT_CODES.index(code[-1])


def _turned(crops: np.ndarray) -> list[np.ndarray]:
    """The crops turned by 0 .. TURNS - 1 half turns."""
    return [np.ascontiguousarray(np.rot90(crops, 2 * t, axes=(1, 2))) for t in range(TURNS)]


def _align(feats: list[np.ndarray], rank: np.ndarray) -> np.ndarray:
    """(n,) the half turns (0 .. TURNS - 1) that bring each index's crop to its rank's common way up: ``feats[t]``
    are the (n, d) features of the crops turned by t; each index takes the turn closest (cosine) to the mean of its
    rank's indices as turned so far, twice over, starting from the rank's first index."""
    unit = [f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-6) for f in feats]
    turn = np.zeros(len(rank), int)
    for r in np.unique(rank):
        rows = np.flatnonzero(rank == r)
        centre = unit[0][rows[0]]
        for _ in range(2):
            sims = np.stack([unit[t][rows] @ centre for t in range(TURNS)], 1)
            turn[rows] = sims.argmax(1)
            centre = np.mean([unit[t][i] for i, t in zip(rows, turn[rows])], 0)
    return turn


def _copies(image: np.ndarray, boxes: np.ndarray, copies: int, rng: np.random.Generator) -> np.ndarray:
    """(copies * n, HEIGHT, WIDTH, 3) uint8 jittered crops of each box (copy-major): shifted, each side scaled, their
    turned, their
    contrast and brightness changed, some blurred (:data:`SHIFT` ... :data:`TURN`)."""
    out = []
    size = boxes[:, 2:] - boxes[:, :2]
    for _ in range(copies):
        centre = (boxes[:, :2] + boxes[:, 2:]) / 2 + rng.uniform(-SHIFT, SHIFT, (len(boxes), 2)) * size
        half = size / 2 * rng.uniform(*SCALE, (len(boxes), 2))
        turns = rng.uniform(-TURN, TURN, len(boxes))
        x = index_crops(image, np.hstack([centre - half, centre + half]), turns).astype(np.float32)
        x = (x - 128) * rng.uniform(*CONTRAST, (len(x), 1, 1, 1)) + 128 + \
            rng.uniform(-BRIGHT, BRIGHT, (len(x), 1, 1, 1)) * 255
        x = np.clip(x, 0, 255).astype(np.uint8)
        for i in np.flatnonzero(rng.random(len(x)) < 0.3):
            x[i] = cv2.GaussianBlur(x[i], (3, 3), 0)
        out.append(x)
    return np.concatenate(out)


def _fit(x: np.ndarray, y: np.ndarray, classes: int, steps: int = STEPS) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression of standardised features ``x`` (n, d) on labels ``y`` (n,) in
    ``range(classes)``: weights (classes, d) and biases (classes,), Adam full batch, weight decay :data:`DECAY`."""
    w, b = np.zeros((classes, x.shape[1]), np.float32), np.zeros(classes, np.float32)
    params, m, v = [w, b], [np.zeros_like(w), np.zeros_like(b)], [np.zeros_like(w), np.zeros_like(b)]
    onehot = np.zeros((len(y), classes), np.float32)
    onehot[np.arange(len(y)), y] = 1
    for t in range(1, steps + 1):
        dz = (softmax(x @ w.T + b) - onehot) / len(y)
        grads = [dz.T @ x + DECAY * w, dz.sum(0)]
        for p, g, mm, vv in zip(params, grads, m, v):
            mm *= 0.9
            mm += 0.1 * g
            vv *= 0.999
            vv += 0.001 * g * g
            p -= RATE * (mm / (1 - 0.9 ** t)) / (np.sqrt(vv / (1 - 0.999 ** t)) + 1e-8)
    return w, b


@dataclass(frozen=True)
class GlyphReader:
    """A deck's glyph reader (see the module docstring).

    Attributes:
        mean, std: (d,) the features' standardisation.
        rank_w, rank_b: (TURNS * c, d), (TURNS * c,): class ``TURNS * rank + way up`` over the first c of
            :data:`RANKS`: A-K and joker (c = REAL), or those and "no index" too (c = REAL + 1, learned from boxes
            coded :data:`NONE`).
        suit_w, suit_b: (TURNS * 4, d), (TURNS * 4,): class ``TURNS * suit + way up`` over ``SUIT_CODES``.
        weight: the power of its probabilities in :meth:`blend` (0: it does not change the reading).
    """

    mean: np.ndarray
    std: np.ndarray
    rank_w: np.ndarray
    rank_b: np.ndarray
    suit_w: np.ndarray
    suit_b: np.ndarray
    weight: float = 1.0

    @property
    def knows_none(self) -> bool:
        """Whether it learned "no index" (from boxes coded :data:`NONE`)."""
        return len(self.rank_b) // TURNS > REAL

    def own(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Its own rank (n, c) (A-K, joker, and "no index" when it learned one: c = REAL or REAL + 1) and suit (n, 4)
        probabilities of the indices in ``boxes`` ((n, 4) xyxy px) of a (H, W, 3) BGR image, each mixed with
        :data:`FLOOR` of a uniform one."""
        c = len(self.rank_b) // TURNS
        if not len(boxes):
            return np.zeros((0, c), np.float32), np.zeros((0, 4), np.float32)
        x = (features(index_crops(image, np.asarray(boxes, np.float32))) - self.mean) / self.std
        rank = softmax(x @ self.rank_w.T + self.rank_b).reshape(len(x), c, TURNS).sum(2)
        suit = softmax(x @ self.suit_w.T + self.suit_b).reshape(len(x), 4, TURNS).sum(2)
        return ((1 - FLOOR) * rank + FLOOR / c).astype(np.float32), ((1 - FLOOR) * suit + FLOOR / 4).astype(
            np.float32)

    def blend(self, image: np.ndarray, boxes: np.ndarray, rank_p: np.ndarray, suit_p: np.ndarray,
              weight: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The reader's rank (n, 15) and suit (n, 4) probabilities of ``boxes`` in ``image`` blended with this
        reader's (:func:`mix`) at ``weight`` (None: :attr:`weight`)."""
        return mix(rank_p, suit_p, *self.own(image, boxes), self.weight if weight is None else weight)

    def arrays(self) -> dict[str, np.ndarray]:
        """Its arrays by name, as a profile stores them (``g_`` + attribute; the weight as a 0-d array)."""
        return {f"g_{k}": np.asarray(getattr(self, k)) for k in
                ("mean", "std", "rank_w", "rank_b", "suit_w", "suit_b", "weight")}

    @classmethod
    def from_arrays(cls, arrays) -> GlyphReader | None:
        """The reader stored by :meth:`arrays` in a mapping (an ``np.load`` result); None when it holds none."""
        if "g_rank_w" not in arrays:
            return None
        get = (lambda k: np.asarray(arrays[f"g_{k}"], np.float32))
        return cls(*(get(k) for k in ("mean", "std", "rank_w", "rank_b", "suit_w", "suit_b")),
                   float(arrays["g_weight"]))


def mix(rank_p: np.ndarray, suit_p: np.ndarray, own_rank: np.ndarray, own_suit: np.ndarray,
        weight: float) -> tuple[np.ndarray, np.ndarray]:
    """Product of experts: the reader's probability of each real rank (``rank_p`` (n, 15), :data:`RANKS`) times
    ``own_rank`` (n, REAL) to the power ``weight``, rescaled to the reader's own share of real ranks (1 - P(no
    index), which is kept); with an ``own_rank`` (n, 15) that has "no index" too, every rank's, rescaled to 1;
    suits (n, 4) likewise, rescaled to 1."""
    if weight == 0 or not len(rank_p):
        return rank_p, suit_p
    suit = suit_p * own_suit ** weight
    suit /= np.maximum(suit.sum(1, keepdims=True), 1e-12)
    if own_rank.shape[1] > REAL:
        rank = rank_p * own_rank ** weight
        return (rank / np.maximum(rank.sum(1, keepdims=True), 1e-12)).astype(np.float32), suit.astype(np.float32)
    real = rank_p[:, :REAL] * own_rank ** weight
    real *= ((1 - rank_p[:, REAL]) / np.maximum(real.sum(1), 1e-12))[:, None]
    return np.hstack([real, rank_p[:, REAL:]]).astype(np.float32), suit.astype(np.float32)


def fit(examples: list, negative: bool = False, rng: np.random.Generator | None = None, copies: int | None = None,
        weight: float = 1.0, none: bool = False) -> GlyphReader | None:
    """A :class:`GlyphReader` learned from ``examples`` (``vision.deck_boxes.Example``: photo, boxes, codes;
    boxes coded :data:`NONE` learned as "no index" when ``none``, else left out), read as each photo's negative
    when ``negative``; None when they hold no index."""
    rng, copies = rng or np.random.default_rng(0), copies or COPIES
    plain, jittered, labels = [], [], []
    for ex in examples:
        keep = [i for i, c in enumerate(ex.codes) if none or c != NONE]
        if not keep:
            continue
        image = load_photo(ex.image)
        image = 255 - image if negative else image
        boxes = np.asarray(ex.boxes, np.float32)[keep]
        plain.append(index_crops(image, boxes))
        jittered.append(_copies(image, boxes, copies, rng).reshape(copies, len(keep), HEIGHT, WIDTH, 3))
        labels += [_labels(ex.codes[i]) for i in keep]
    if not labels:
        return None
    rank, suit = (np.array(a) for a in zip(*labels))
    turn = _align([features(q) for q in _turned(np.concatenate(plain))], rank)
    crops = np.concatenate(jittered, 1)  # (copies, n, ...)
    xs, ranks, suits = [], [], []
    for t, q in enumerate(_turned(crops.reshape(-1, HEIGHT, WIDTH, 3))):
        xs.append(features(q))
        way = np.tile((t - turn) % TURNS, copies)
        ranks.append(TURNS * np.tile(rank, copies) + way)
        suits.append(np.where(np.tile(suit, copies) >= 0, TURNS * np.tile(suit, copies) + way, -1))
    x, ranks, suits = np.concatenate(xs), np.concatenate(ranks), np.concatenate(suits)
    mean, std = x.mean(0), x.std(0) + 1e-3
    x = (x - mean) / std
    rank_w, rank_b = _fit(x, ranks, TURNS * (REAL + bool((rank == REAL).any())))
    has = suits >= 0
    suit_w, suit_b = _fit(x[has], suits[has], TURNS * 4) if has.any() else \
        (np.zeros((TURNS * 4, x.shape[1]), np.float32), np.zeros(TURNS * 4, np.float32))
    return GlyphReader(mean.astype(np.float32), std.astype(np.float32), rank_w, rank_b, suit_w, suit_b, weight)


def later_photos(examples: list) -> np.ndarray | None:
    """(n,) bool: the examples' last :data:`LATER`-th (at least one photo) as given (by name: the photos taken
    last), which weigh a glyph reader learned from the others (:func:`weigh`); None when they hold fewer than
    :data:`MIN_WEIGH` indices (a few photos, or close-ups): then no glyph reader is kept."""
    n = len(examples)
    later = np.arange(n) >= n - max(1, n // LATER)
    return later if sum(len(e.codes) for e, c in zip(examples, later) if c) >= MIN_WEIGH else None


def weigh(train: list, check: list, reader, negative: bool, rng: np.random.Generator,
          none: bool = False) -> tuple[float, dict[float, float]]:
    """The weight of :data:`WEIGHTS` at which a glyph reader learned from ``train`` (:func:`fit`) blended into
    ``reader`` (a deck's heads) reads the boxes of ``check`` (``vision.deck_boxes.Example``) best, and each weight's
    figure: the indices read right by rank and colour at the reading floor or surer, less the boxes read as a card
    wrongly so (a box coded :data:`NONE` read as a card is wrong), over the indices; the smaller weight on a tie."""
    glyphs = fit(train, negative, rng, none=none)
    parts = []
    for e in check if glyphs is not None else ():
        image = load_photo(e.image)
        image = 255 - image if negative else image
        keep = np.array([c != NONE or glyphs.knows_none for c in e.codes], bool)
        if keep.any():
            parts.append([*reader.probabilities(image, e.boxes[keep]), *glyphs.own(image, e.boxes[keep]),
                          np.array(e.codes, object)[keep]])
    if not parts:
        return 0.0, {}
    rank_p, suit_p, own_rank, own_suit, codes = (np.concatenate([p[i] for p in parts]) for i in range(5))
    indices, scores = max(int(sum(c != NONE for c in codes)), 1), {}
    for w in WEIGHTS:
        got, p = reading(*mix(rank_p, suit_p, own_rank, own_suit, w))
        card = np.array([g is not None for g in got])
        right = card & np.array([c != NONE and g is not None and rank_colour(g) == rank_colour(c)
                                 for g, c in zip(got, codes)])
        sure = card & (p >= DEFAULT.reading.min_conf)
        scores[w] = round(float(((right & sure).sum() - (~right & sure).sum()) / indices), 4)
    return max(WEIGHTS, key=lambda w: (scores[w], -w)), scores
