"""The two small models that read patches cut from a photo, and the crops they read, in one place (ONNX Runtime
through :mod:`vision.models.backends`, no torch): the index reader (:class:`IndexReader`: rank and suit of a corner
index; with a deck profile's last convolution, :class:`Layers`) and the stack checker (:class:`StackChecker`: a
stack under a whole card?).

The crops: the index reader's turned squares around each corner index (:func:`crops_of`) and the stack checker's
card turned upright with its surroundings (:func:`card_crop`). Each takes a (H, W, 3) BGR image and boxes or points
in its pixels and returns arrays; pixels outside the image are replicated from its border.

The index reader. The detector (``vision/models/detector.py``) finds corner indices (the shipped one does not name
them; the earlier 53-class ones named them poorly); the reader is a small CNN (``models/reader.onnx``, trained by
``scripts/train_reader.py`` on crops from ``datasets/crops.py``; the shipped model averages two such readers,
``scripts/export_reader.py``) that names every box: a square window of :data:`WINDOW` x the box's longer side,
resized to :data:`INPUT` px, gives probabilities over :data:`RANKS` (A-K, joker, or "no index") and the four suits.
A deck profile may carry its own last convolution of the reader (:class:`Layers`, applied by :func:`features_of`;
learned in ``vision.deck_layers``).

The stack checker (``models/stacks.onnx``): the probability that a stack of cards lies under a whole card, from the
card turned upright with its surroundings (:func:`corners_crop`). Stage 3b (:mod:`vision.photo_checks`) asks it.
The model is trained by ``scripts/train_stacks.py`` on generated tables of the training designs; its figures are in
``models/README.md``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np

from ..classes import RANKS, p_rank_colour, reading, softmax
from ..config import DEFAULT, VisionConfig
from ..types import CardInstance
from .backends import TOLERANCE, Check
from .detector import MODELS_DIR, ModelError, OnnxModel, check_photo

INPUT = 32  #: reader input size in pixels
WINDOW = 1.25  #: crop side / the box's longer side
#: each index is read from crops turned by these angles (radians) and the probabilities averaged
VIEWS = (-0.15, 0.0, 0.15)

STACK_INPUT = 96  #: crop side in pixels
#: crop side / the card's height
STACK_CONTEXT = 1.4
#: angle of the line from the top-left to the bottom-right index centre in the card's own frame, radians
#: (index centres at 9.4 % of the width and 13.2 % of the height from the corners, aspect 0.69)
DIAGONAL_ANGLE = float(np.arctan2(1 - 2 * 0.132, 0.69 * (1 - 2 * 0.094)))


def turned_patch(image: np.ndarray, center, side: float, size: int, angle: float = 0.0,
                 aspect: float = 1.0) -> np.ndarray:
    """A (size, size, 3) patch of a (H, W, 3) image: the square of ``side`` px (at least 2) centred on ``center``
    (x, y px), turned by ``angle`` radians about it (positive turns the image content clockwise on screen, y
    pointing down), in the photo stretched ``aspect`` times along x (``side / aspect`` photo px wide). Pixels outside
    the image are replicated from its border."""
    cx, cy = (float(v) for v in center)
    s = size / max(float(side), 2.0)
    c, n = s * np.cos(angle), s * np.sin(angle)
    M = np.array([[c * aspect, -n, size / 2 - (c * aspect * cx - n * cy)],
                  [n * aspect, c, size / 2 - (n * aspect * cx + c * cy)]], np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def square_crop(image: np.ndarray, box, context: float, size: int, angle: float = 0.0,
                aspect: float = 1.0) -> np.ndarray:
    """A (size, size, 3) patch centred on ``box`` (x1, y1, x2, y2 px) with side ``context`` x its longer side,
    turned by ``angle`` radians about the box centre, both in the photo stretched ``aspect`` times along x.
    Pixels outside the image are replicated from its border."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max((x2 - x1) * aspect, y2 - y1, 2.0) * context
    return turned_patch(image, ((x1 + x2) / 2, (y1 + y2) / 2), side, size, angle, aspect)


def box_crop(image: np.ndarray, box, width: int, height: int, margin: float = 1.0, turn: float = 0.0) -> np.ndarray:
    """A (height, width, 3) patch of a (H, W, 3) image holding ``box`` (x1, y1, x2, y2 px) grown ``margin`` times about
    its centre, stretched to fill it, and turned a quarter turn clockwise first when the box is wider than tall (so
    an index's rank and suit lie along the patch's height either way up); ``turn`` radians more turn the content
    about the box's centre (as :func:`turned_patch`). Pixels outside are replicated."""
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    w, h = max(x2 - x1, 1.0) * margin / 2, max(y2 - y1, 1.0) * margin / 2
    if w > h:  # the patch's top-left, top-right and bottom-left corners taken from the box turned a quarter
        src = [[cx - w, cy + h], [cx - w, cy - h], [cx + w, cy + h]]
    else:
        src = [[cx - w, cy - h], [cx + w, cy - h], [cx - w, cy + h]]
    if turn:
        c, s = np.cos(turn), np.sin(turn)
        src = [[cx + c * (x - cx) + s * (y - cy), cy - s * (x - cx) + c * (y - cy)] for x, y in src]
    M = cv2.getAffineTransform(np.float32(src), np.float32([[0, 0], [width, 0], [0, height]]))
    return cv2.warpAffine(image, M, (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


@dataclass(frozen=True)
class Jitter:
    """A deck profile's test-time copies of each box: the reader reads every box from each copy too and averages
    the probabilities (``log``: their geometric mean, renormalised; else their mean).

    Attributes:
        copies: ``(dx, dy, scale)`` per copy: the box's centre moved by ``dx`` of its width and ``dy`` of its height,
            its sides times ``scale`` (``(0, 0, 1)``: the box itself).
        log: average the log-probabilities rather than the probabilities.
    """

    copies: tuple[tuple[float, float, float], ...]
    log: bool = False

    @classmethod
    def of(cls, value) -> "Jitter | None":
        """The copies a profile keeps or ``vision.decks.learn`` is given: None; a :data:`JITTERS` name (``-log``:
        the geometric mean); or ``{"copies": [[dx, dy, scale], ...], "log": bool}``.

        Raises:
            ValueError: an unknown name.
        """
        if value is None:
            return None
        if isinstance(value, str):
            name = value.removesuffix("-log")
            if name not in JITTERS:
                raise ValueError(f"no test-time copies named {value!r}; known: {', '.join(JITTERS)} (and -log)")
            return cls(JITTERS[name], value.endswith("-log"))
        return cls(tuple(tuple(float(v) for v in c) for c in value["copies"]), bool(value.get("log", False)))

    def boxes(self, boxes: np.ndarray) -> np.ndarray:
        """``(len(copies) * n, 4)`` float32 xyxy pixels: every copy of ``boxes`` (n, 4) xyxy pixels, copy-major."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        size = boxes[:, 2:] - boxes[:, :2]
        centre = (boxes[:, :2] + boxes[:, 2:]) / 2
        out = [np.hstack([centre + np.float32((dx, dy)) * size - s * size / 2,
                          centre + np.float32((dx, dy)) * size + s * size / 2]) for dx, dy, s in self.copies]
        return np.concatenate(out).astype(np.float32)

    def mean(self, p: np.ndarray) -> np.ndarray:
        """``(n, c)`` float32: the mean over axis 0 of probabilities ``p`` ``(copies, n, c)``, as :attr:`log` says."""
        if not self.log:
            return p.mean(0).astype(np.float32)
        g = np.exp(np.log(np.maximum(p, 1e-6)).mean(0))
        return (g / g.sum(1, keepdims=True)).astype(np.float32)


#: test-time copies by name (:meth:`Jitter.of`): the box shifted 4 % of its size each way, scaled 0.9 and 1.1, both
JITTERS = {"shift": ((0, 0, 1), (0.04, 0, 1), (-0.04, 0, 1), (0, 0.04, 1), (0, -0.04, 1)),
           "scale": ((0, 0, 1), (0, 0, 0.9), (0, 0, 1.1))}
JITTERS["both"] = JITTERS["shift"] + JITTERS["scale"][1:]


def crops_of(image: np.ndarray, boxes: np.ndarray, views: tuple[float, ...] = VIEWS,
             window: float | None = None, aspect: float = 1.0) -> np.ndarray:
    """The reader's input for the indices in ``boxes`` ((n, 4) xyxy px) of a (H, W, 3) BGR image: ``(len(views) * n,
    3, 32, 32)`` float32 in [0, 1], view-major (the crops of view 0 first), each a square of ``window`` (None:
    :data:`WINDOW`) times the box's longer side, turned by that view's angle (radians), in the photo stretched
    ``aspect`` times along x (:func:`turned_patch`)."""
    crops = np.stack([square_crop(image, b, window or WINDOW, INPUT, a, aspect) for a in views for b in boxes])
    return crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def card_crop(image: np.ndarray, card: CardInstance, size: int = STACK_INPUT,
              context: float = STACK_CONTEXT, turn: float = 0.0, *, config: VisionConfig = DEFAULT) -> np.ndarray:
    """A (size, size, 3) patch of a (H, W, 3) image, centred on a whole card and turned so the card stands
    upright (or upside down: the two are the same to a stack), side ``context`` x the card's height.

    The card's frame comes from its two index centres (pixels): their midpoint is the card's centre, their
    distance is ``config.pairing.diagonal_per_height`` of its height, and their direction is the card's
    diagonal (:data:`DIAGONAL_ANGLE`). ``turn`` adds a rotation in radians (augmentation).

    Raises:
        ValueError: for a card that does not show both indices.
    """
    if not card.fully_visible:
        raise ValueError(f"card {card.code} shows one index; its frame needs both")
    return corners_crop(image, card.centers[0], card.centers[1], size, context, turn, config=config)


def corners_frame(a: np.ndarray, b: np.ndarray, context: float = STACK_CONTEXT, turn: float = 0.0, *,
                  config: VisionConfig = DEFAULT) -> tuple[np.ndarray, float, float]:
    """The square :func:`corners_crop` cuts for the card whose two corner-index centres are ``a`` and ``b`` ((2,)
    pixels each): its centre ((2,) pixels: the midpoint of the two), its side (pixels: ``context`` card heights) and
    the turn (radians, as :func:`turned_patch` takes it) that takes the index diagonal to :data:`DIAGONAL_ANGLE`."""
    d = np.asarray(b, np.float64) - np.asarray(a, np.float64)
    height = float(np.hypot(*d)) / config.pairing.diagonal_per_height
    rot = DIAGONAL_ANGLE - float(np.arctan2(d[1], d[0])) + turn
    return (np.asarray(a, np.float64) + np.asarray(b, np.float64)) / 2, height * context, rot


def corners_crop(image: np.ndarray, a: np.ndarray, b: np.ndarray, size: int = STACK_INPUT,
                 context: float = STACK_CONTEXT, turn: float = 0.0, *, config: VisionConfig = DEFAULT) -> np.ndarray:
    """:func:`card_crop` of the card whose two corner-index centres are ``a`` and ``b`` ((2,) pixels each)."""
    centre, side, rot = corners_frame(a, b, context, turn, config=config)
    return turned_patch(image, centre, side, size, rot)


@dataclass(frozen=True)
class Layers:
    """Each member's last convolution: ``(conv_w (c_out, c_in, 3, 3), conv_b (c_out,))``."""

    members: tuple[tuple[np.ndarray, np.ndarray], ...]


def columns_of(pre: np.ndarray) -> np.ndarray:
    """(n, h*w, c*9) patches of a (n, c, h, w) map padded by one (a 3x3 convolution as one matrix product), in
    the order of a (c_out, c, 3, 3) weight flattened."""
    n, c, h, w = pre.shape
    padded = np.pad(pre, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([padded[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)], axis=2)  # n, c, 9, h, w
    return cols.reshape(n, c * 9, h * w).transpose(0, 2, 1)


def features_of(pre: list[np.ndarray], layers: Layers) -> list[np.ndarray]:
    """Each member's features ``(n, c_out)`` float32 from its ``pre`` map ``(n, c_in, 4, 4)``: the convolution,
    ReLU and the mean over the map."""
    out = []
    for p, (w, b) in zip(pre, layers.members):
        z = columns_of(p.astype(np.float32)) @ w.reshape(len(w), -1).T.astype(np.float32) + b.astype(np.float32)
        out.append(np.maximum(z, 0).mean(1))
    return out


DEFAULT_READER = MODELS_DIR / "reader.onnx"


@dataclass
class IndexReader(OnnxModel):
    """Reads corner-index crops.

    Args:
        model: path to ``reader.onnx`` (input ``(n, 3, 32, 32)`` BGR in [0, 1]; outputs rank ``(n, 15)`` and
            suit ``(n, 4)`` probabilities); ``threads`` and the errors raised on loading (FileNotFoundError,
            ModelError): :class:`vision.models.detector.OnnxModel`.
    """

    model: str | Path = DEFAULT_READER
    #: a deck profile's heads (``vision.decks``) in place of the model's own; None: the model's
    heads: Heads | None = None
    #: a deck profile's last convolution of each member (:class:`Layers`); None: the model's
    layers: object | None = None
    #: a deck profile's crop side / the box's longer side; None: :data:`WINDOW`
    window: float | None = None
    #: a deck profile's glyph reader (``vision.deck_glyphs.GlyphReader``) blended into every reading; None: none
    glyphs: object | None = None
    #: a deck profile's frame correction (``vision.deck_frames.Frame``): every box is cropped from its corrected
    #: box, by the model and the glyph reader alike; None: as given
    frame: object | None = None
    #: a deck profile's test-time copies of each (corrected) box (:class:`Jitter`), read and averaged; None: none
    jitter: Jitter | None = None
    #: a deck profile's photo aspect (``vision.deck_aspect``): crops cut as from the photo stretched so along x
    aspect: float = 1.0
    #: a deck profile's inks (``vision.deck_ink.Ink``) blended into every suit read; None: none
    ink: object | None = None
    what: ClassVar[str] = "index reader"
    input_chw: ClassVar[tuple[int, int, int]] = (3, INPUT, INPUT)

    @classmethod
    def check(cls, path: Path) -> Check:
        """The check photo's indices (:data:`vision.models.detector.CHECK_READING`), each in every view, and the same
        boxes shifted by half their size each way (crops that show part of an index, read unsure: where a precision's
        rounding changes readings); the same reading is the same rank and suit of every box (the views' mean, as
        :meth:`probabilities` reads) with the probabilities the pipeline weighs (:func:`p_rank_colour`) within
        :data:`vision.models.backends.TOLERANCE` (bf16 moves them by up to 0.03, and that changed a real photo's
        reading)."""
        def feeds() -> dict[str, np.ndarray]:
            image, reading = check_photo()
            boxes = np.asarray(reading["indices"], np.float32)
            half = (boxes[:, 2:] - boxes[:, :2]) / 2
            moved = [boxes + np.tile(half * d, 2) for d in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))]
            return {"crops": crops_of(image, np.concatenate(moved))}

        def reading(out: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            rank_p = out[0].reshape(len(VIEWS), -1, out[0].shape[1]).mean(0)
            suit_p = out[1].reshape(len(VIEWS), -1, out[1].shape[1]).mean(0)
            rank, suit = rank_p.argmax(1), suit_p.argmax(1)
            return rank, suit, p_rank_colour(rank_p, suit_p, rank, suit)

        def agree(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
            (ra, sa, pa), (rb, sb, pb) = reading(a), reading(b)
            return np.array_equal(ra, rb) and np.array_equal(sa, sb) and float(np.abs(pa - pb).max()) <= TOLERANCE
        return Check(feeds, agree)

    def probabilities(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank ``(n, 15)`` (:data:`RANKS`) and suit ``(n, 4)`` probabilities of the indices in ``boxes``
        ((n, 4) xyxy px) of a (H, W, 3) BGR image, averaged over the crops turned by :data:`VIEWS` (each cut
        from its box corrected by :attr:`frame`, when a profile gives one, and from each of its :attr:`jitter`
        copies), the profile's glyph reader and inks blended in."""
        if not len(boxes):
            return np.zeros((0, len(RANKS)), np.float32), np.zeros((0, 4), np.float32)
        if self.frame is not None:
            boxes = self.frame.apply(boxes)
        n = len(boxes)
        x = crops_of(image, boxes if self.jitter is None else self.jitter.boxes(boxes), window=self.window,
                     aspect=self.aspect)
        if self.heads is None:
            rank_p, suit_p = self._session.run(["rank", "suit"], {"crops": x})
        else:
            rank_p, suit_p = self.heads.probabilities(self.features(x))
        rank_p = rank_p.reshape(len(VIEWS), -1, n, rank_p.shape[1]).mean(0)
        suit_p = suit_p.reshape(len(VIEWS), -1, n, suit_p.shape[1]).mean(0)
        if self.jitter is None:
            rank_p, suit_p = rank_p[0], suit_p[0]
        else:
            rank_p, suit_p = self.jitter.mean(rank_p), self.jitter.mean(suit_p)
        if self.glyphs is not None:
            rank_p, suit_p = self.glyphs.blend(image, boxes, rank_p, suit_p)
        if self.ink is not None:
            suit_p = self.ink.blend(image, boxes, suit_p)
        return rank_p, suit_p

    @property
    def members(self) -> int:
        """How many feature extractors (members) the model averages: 0 for a model without the feature
        outputs (``scripts/reader_features.py`` adds them)."""
        names = {o.name for o in self._session.get_outputs()}
        return sum(1 for k in range(16) if f"features{k}" in names)

    def features(self, x: np.ndarray) -> list[np.ndarray]:
        """Each member's features ``(n, d_k)`` float32 of crops ``x`` ``(n, 3, 32, 32)`` (:func:`crops_of`).

        Raises:
            ModelError: a model without the feature outputs.
        """
        if not self.members:
            raise ModelError(f"the index reader {self.model} has no feature outputs (run scripts/reader_features.py)")
        if self.layers is not None:
            return features_of(self.pre(x), self.layers)
        return self._session.run([f"features{k}" for k in range(self.members)], {"crops": x})

    def pre(self, x: np.ndarray) -> list[np.ndarray]:
        """Each member's input to its last convolution, ``(n, c_k, 4, 4)`` float32, of crops ``x``
        (:class:`Layers`).

        Raises:
            ModelError: a model without the ``pre<k>`` outputs.
        """
        self._need("pre0")
        return self._session.run([f"pre{k}" for k in range(self.members)], {"crops": x})

    def stock_layers(self) -> Layers:
        """The model's own last convolution of each member (:class:`Layers`).

        Raises:
            ModelError: a model without the ``conv_w<k>`` outputs.
        """
        self._need("conv_w0")
        names = [f"{w}{k}" for k in range(self.members) for w in ("conv_w", "conv_b")]
        out = self._session.run(names, {"crops": np.zeros((1, *self.input_chw), np.float32)})
        return Layers(tuple(tuple(out[2 * k:2 * k + 2]) for k in range(self.members)))

    def _need(self, output: str) -> None:
        if output not in {o.name for o in self._session.get_outputs()}:
            raise ModelError(f"the index reader {self.model} has no {output} output (run scripts/reader_features.py)")

    def stock_heads(self) -> Heads:
        """The model's own heads (its members' rank and suit layers).

        Raises:
            ModelError: a model without the feature outputs.
        """
        if not self.members:
            raise ModelError(f"the index reader {self.model} has no feature outputs (run scripts/reader_features.py)")
        names = [f"{w}{k}" for k in range(self.members) for w in ("rank_w", "rank_b", "suit_w", "suit_b")]
        out = self._session.run(names, {"crops": np.zeros((1, *self.input_chw), np.float32)})
        return Heads(tuple(tuple(out[4 * k:4 * k + 4]) for k in range(self.members)))

    def with_heads(self, heads: Heads | None, layers=None, window: float | None = None,
                   glyphs=None, frame=None, jitter: Jitter | None = None, aspect: float = 1.0,
                   ink=None) -> IndexReader:
        """This reader (the same loaded model) reading with ``heads``, ``layers`` (:class:`Layers`), crops of
        ``window`` times each box, ``glyphs`` (``vision.deck_glyphs.GlyphReader``) blended in, each box corrected
        by ``frame`` (``vision.deck_frames.Frame``) first and read from its ``jitter`` copies, crops cut at the
        photo ``aspect``, the suits told by the ``ink`` too (``vision.deck_ink.Ink``) (a deck profile's; None: the
        model's, :data:`WINDOW`, none, none, none; 1; none)."""
        other = copy.copy(self)
        other.heads, other.layers, other.window, other.glyphs, other.frame = heads, layers, window, glyphs, frame
        other.jitter, other.aspect, other.ink = jitter, aspect, ink
        return other

    def read(self, image: np.ndarray, boxes: np.ndarray) -> tuple[list[str | None], np.ndarray, np.ndarray]:
        """Read the indices in ``boxes`` ((n, 4) xyxy px) of a (H, W, 3) BGR image, each alone.

        Returns:
            (codes: card code (most likely rank and suit) or ``None`` for "no index", p_read (n,): probability of
            what the rules need of that reading, its rank and its suit's colour (:func:`p_rank_colour`),
            p_none (n,): probability that the box holds no index).
        """
        rank_p, suit_p = self.probabilities(image, boxes)
        codes, p = reading(rank_p, suit_p)
        return codes, p, rank_p[:, -1].astype(np.float32)


@dataclass(frozen=True)
class Heads:
    """The index reader's linear heads: per member ``(rank_w (15, d), rank_b (15,), suit_w (4, d), suit_b (4,))``
    over that member's features ``(n, d)``. The reading is each member's softmax, averaged over members (as the
    exported model averages them)."""

    members: tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]

    def probabilities(self, features: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """Rank ``(n, 15)`` and suit ``(n, 4)`` probabilities of features ``[(n, d_k) per member]``."""
        rank = np.mean([softmax(f @ rw.T + rb) for f, (rw, rb, _, _) in zip(features, self.members)], axis=0)
        suit = np.mean([softmax(f @ sw.T + sb) for f, (_, _, sw, sb) in zip(features, self.members)], axis=0)
        return rank.astype(np.float32), suit.astype(np.float32)


DEFAULT_STACKS = MODELS_DIR / "stacks.onnx"


@dataclass
class StackChecker(OnnxModel):
    """Probability that a stack of cards lies under a whole card.

    Args:
        model: path to ``stacks.onnx`` (input ``(n, 3, 96, 96)`` BGR in [0, 1] from :func:`card_crop`;
            output ``(n, 2)`` probabilities of [loose, stack]); ``threads`` and the errors raised on loading
            (FileNotFoundError, ModelError): :class:`vision.models.detector.OnnxModel`.
    """

    model: str | Path = DEFAULT_STACKS
    what: ClassVar[str] = "stack checker"
    input_chw: ClassVar[tuple[int, int, int]] = (3, STACK_INPUT, STACK_INPUT)

    @classmethod
    def check(cls, path: Path) -> Check:
        """The check photo's whole cards (:data:`vision.models.detector.CHECK_READING`), upright and upside down; the
        same reading is the same verdict (stack or loose) on every card, its probability (which the notes print)
        within :data:`vision.models.backends.TOLERANCE`."""
        def feeds() -> dict[str, np.ndarray]:
            image, reading = check_photo()
            crops = np.stack([corners_crop(image, np.asarray(a), np.asarray(b), turn=t)
                              for t in (0.0, np.pi) for a, b in reading["cards"]])
            return {"crops": crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0}
        return Check(feeds, lambda a, b: np.array_equal(a[0][:, 1] >= 0.5, b[0][:, 1] >= 0.5)
                     and float(np.abs(a[0][:, 1] - b[0][:, 1]).max()) <= TOLERANCE)

    def p_stack(self, image: np.ndarray, cards: list[CardInstance]) -> np.ndarray:
        """(n,) probability of a stack under each card of a (H, W, 3) uint8 BGR image, averaged over the card
        upright and upside down.

        Raises:
            ValueError: for a card that does not show both indices (see :func:`card_crop`).
        """
        for c in cards:
            if not c.fully_visible:
                raise ValueError(f"card {c.code} shows one index; its frame needs both")
        return self.p_stack_between(image, [(c.centers[0], c.centers[1]) for c in cards])

    def p_stack_between(self, image: np.ndarray, corners: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """(n,) :meth:`p_stack` of the cards whose two corner-index centres ((2,) pixels each) are given."""
        if not corners:
            return np.zeros(0, np.float32)
        crops = np.stack([corners_crop(image, a, b, turn=t) for t in (0.0, np.pi) for a, b in corners])
        x = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        (p,) = self._session.run(None, {"crops": x})
        return p[:, 1].reshape(2, len(corners)).mean(0).astype(np.float32)
