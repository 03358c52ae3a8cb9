"""The index reader (ONNX Runtime through :mod:`vision.models.backends`, no torch): :class:`IndexReader`, the rank and
suit of each corner index, and the parts a deck profile may give it (:class:`Heads`, :class:`Layers`,
:class:`Jitter`).

The detector (``vision/models/detector.py``) finds corner indices (the shipped one does not name them; the earlier
53-class ones named them poorly); the reader is a small CNN (``models/reader.onnx``, trained by
``scripts/train_reader.py`` on crops from ``datasets/crops.py``; the shipped model averages two such readers,
``scripts/export_reader.py``) that names every box: a square window of :data:`vision.models.crops.WINDOW` x the
box's longer side, resized to :data:`vision.models.crops.INPUT` px (:func:`vision.models.crops.crops_of`), gives
probabilities over :data:`RANKS` (A-K, joker, or "no index") and the four suits. A deck profile may carry its own
linear heads of the reader (:class:`Heads`), its own last convolution (:class:`Layers`, applied by
:func:`features_of`; learned in ``vision.deck_layers``) and test-time copies of each box (:class:`Jitter`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..classes import RANKS, p_rank_colour, reading, softmax
from .backends import TOLERANCE, Check
from .crops import INPUT, VIEWS, crops_of
from .detector import MODELS_DIR, ModelError, OnnxModel, check_photo


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
    #: a deck profile's crop side / the box's longer side; None: :data:`vision.models.crops.WINDOW`
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
        model's, :data:`vision.models.crops.WINDOW`, none, none, none; 1; none)."""
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
