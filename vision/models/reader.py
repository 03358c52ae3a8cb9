"""The index reader: rank and suit of a corner index from a crop around its box (ONNX Runtime, no torch).

The detector (``vision/detector.py``) finds corner indices (the shipped one does not name them; the earlier
53-class ones named them poorly); the reader is a small CNN (``models/reader.onnx``, trained by
``scripts/train_reader.py`` on crops from ``datasets/crops.py``; the shipped model averages two such readers,
``scripts/export_reader.py``) that names every box: a square window of
:data:`WINDOW` x the box's longer side, resized to :data:`INPUT` px, gives probabilities over :data:`RANKS` (A-K,
joker, or "no index") and the four suits.
"""

from __future__ import annotations

import copy

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from ..classes import CLASS_ID, RANKS, p_rank_colour, reading, softmax
from ..crops import INPUT, VIEWS, crops_of
from ..detections import Detections
from .backends import TOLERANCE, Check
from .detector import MODELS_DIR, ModelError, OnnxModel, check_photo

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
    #: a deck profile's last convolution of each member (``vision.deck_layers.Layers``); None: the model's
    layers: object | None = None
    #: a deck profile's crop side / the box's longer side; None: :data:`WINDOW`
    window: float | None = None
    #: a deck profile's glyph reader (``vision.deck_glyphs.GlyphReader``) blended into every reading; None: none
    glyphs: object | None = None
    what: ClassVar[str] = "index reader"
    input_chw: ClassVar[tuple[int, int, int]] = (3, INPUT, INPUT)

    @classmethod
    def check(cls, path: Path) -> Check:
        """The check photo's indices (:data:`vision.models.detector.CHECK_READING`), each in every view, and the same boxes
        shifted by half their size each way (crops that show part of an index, read unsure: where a precision's
        rounding changes readings); the same reading is the same rank and suit of every box (the views' mean, as :meth:`probabilities` reads) with the
        probabilities the pipeline weighs (:func:`p_rank_colour`) within
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
        ((n, 4) xyxy px) of a (H, W, 3) BGR image, averaged over the crops turned by :data:`VIEWS`."""
        if not len(boxes):
            return np.zeros((0, len(RANKS)), np.float32), np.zeros((0, 4), np.float32)
        x = crops_of(image, boxes, window=self.window)
        if self.heads is None:
            rank_p, suit_p = self._session.run(["rank", "suit"], {"crops": x})
        else:
            rank_p, suit_p = self.heads.probabilities(self.features(x))
        n = len(boxes)
        rank_p = rank_p.reshape(len(VIEWS), n, -1).mean(0)
        suit_p = suit_p.reshape(len(VIEWS), n, -1).mean(0)
        if self.glyphs is not None:
            rank_p, suit_p = self.glyphs.blend(image, boxes, rank_p, suit_p)
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
            from ..deck_layers import features_of

            return features_of(self.pre(x), self.layers)
        return self._session.run([f"features{k}" for k in range(self.members)], {"crops": x})

    def pre(self, x: np.ndarray) -> list[np.ndarray]:
        """Each member's input to its last convolution, ``(n, c_k, 4, 4)`` float32, of crops ``x``
        (``vision.deck_layers``).

        Raises:
            ModelError: a model without the ``pre<k>`` outputs.
        """
        self._need("pre0")
        return self._session.run([f"pre{k}" for k in range(self.members)], {"crops": x})

    def stock_layers(self):
        """The model's own last convolution of each member (``vision.deck_layers.Layers``).

        Raises:
            ModelError: a model without the ``conv_w<k>`` outputs.
        """
        from ..deck_layers import Layers

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
                   glyphs=None) -> IndexReader:
        """This reader (the same loaded model) reading with ``heads``, ``layers`` (``vision.deck_layers.Layers``),
        crops of ``window`` times each box and ``glyphs`` (``vision.deck_glyphs.GlyphReader``) blended in (a deck
        profile's; None: the model's, :data:`WINDOW`, none)."""
        other = copy.copy(self)
        other.heads, other.layers, other.window, other.glyphs = heads, layers, window, glyphs
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


def relabelled(dets: Detections, rank_p: np.ndarray, suit_p: np.ndarray, min_conf: float = 0.0) -> Detections:
    """Detections with each box's card code read alone from the reader's probabilities (``rank_p`` (n, 15),
    ``suit_p`` (n, 4)), most confident first; boxes read as "no index" are dropped.

    The new confidence is the reader's probability of the reading's rank and colour (:func:`p_rank_colour`) times
    the square root of the detector's confidence (a box the detector barely saw needs a sure reading). Boxes under
    the reading floor ``min_conf`` (:attr:`vision.config.Reading.min_conf`) are dropped.
    """
    codes, p = reading(rank_p, suit_p)
    conf = p * np.sqrt(dets.confidence)
    keep = np.array([c is not None for c in codes], bool) & (conf >= min_conf)
    if not keep.any():
        return Detections.empty()
    cls = np.array([CLASS_ID[c] if c else -1 for c in codes], np.int64)
    order = np.flatnonzero(keep)[np.argsort(-conf[keep])]
    return Detections(dets.xyxy[order], conf[order].astype(np.float32), cls[order])


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


