"""The index reader: rank and suit of a corner index from a crop around its box (ONNX Runtime, no torch).

The detector (``vision/detector.py``) finds corner indices (the shipped one does not name them; the earlier
53-class ones named them poorly); the reader is a small CNN (``models/reader.onnx``, trained by
``scripts/train_reader.py`` on crops from ``datasets/crops.py``; the shipped model averages two such readers,
``scripts/export_reader.py``) that names every box: a square window of
:data:`WINDOW` x the box's longer side, resized to :data:`INPUT` px, gives probabilities over :data:`RANKS` (A-K,
joker, or "no index") and the four suits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np

from .classes import CLASS_ID, RANKS, SUIT_CODES
from .detections import Detections
from .detector import OnnxModel

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_READER = MODELS_DIR / "reader.onnx"
INPUT = 32  #: reader input size in pixels
WINDOW = 1.25  #: crop side / the box's longer side
#: each index is read from crops turned by these angles (radians) and the probabilities averaged. Measured with
#: the previous (width 1) reader: code accuracy on true boxes, one upright crop -> these three views:
#: phone_corners val 0.825 -> 0.863 (160 indices), 60 held-out synthetic scenes 0.843 -> 0.862 (1,395); the
#: held-out validation crops 0.797 -> 0.823 (1,693; the two turned views alone: 0.833, other small sets of
#: turns and scales 0.821-0.825)
VIEWS = (-0.15, 0.0, 0.15)


def code_of(rank: int, suit: int) -> str | None:
    """Card code of a (rank index, suit index) pair; ``None`` for "no index"."""
    if RANKS[rank] == "none":
        return None
    if RANKS[rank] == "JK":
        return "JK"
    return RANKS[rank] + SUIT_CODES[suit]


def turned_patch(image: np.ndarray, center, side: float, size: int, angle: float = 0.0) -> np.ndarray:
    """A (size, size, 3) patch of a (H, W, 3) image: the square of ``side`` px (at least 2) centred on ``center``
    (x, y px), turned by ``angle`` radians about it (positive turns the image content clockwise on screen, y
    pointing down). Pixels outside the image are replicated from its border."""
    cx, cy = (float(v) for v in center)
    s = size / max(float(side), 2.0)
    c, n = s * np.cos(angle), s * np.sin(angle)
    M = np.array([[c, -n, size / 2 - (c * cx - n * cy)], [n, c, size / 2 - (n * cx + c * cy)]], np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def square_crop(image: np.ndarray, box, context: float, size: int, angle: float = 0.0) -> np.ndarray:
    """A (size, size, 3) patch centred on ``box`` (x1, y1, x2, y2 px) with side ``context`` x its longer side,
    turned by ``angle`` radians about the box centre.

    Pixels outside the image are replicated from its border.
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1, 2.0) * context
    return turned_patch(image, ((x1 + x2) / 2, (y1 + y2) / 2), side, size, angle)


@dataclass
class IndexReader(OnnxModel):
    """Reads corner-index crops.

    Args:
        model: path to ``reader.onnx`` (input ``(n, 3, 32, 32)`` BGR in [0, 1]; outputs rank ``(n, 15)`` and
            suit ``(n, 4)`` probabilities); ``threads`` and the errors raised on loading (FileNotFoundError,
            ModelError): :class:`vision.detector.OnnxModel`.
    """

    model: str | Path = DEFAULT_READER
    what: ClassVar[str] = "index reader"
    input_chw: ClassVar[tuple[int, int, int]] = (3, INPUT, INPUT)
    #: a table photo's boxes read at once
    probe_shape: ClassVar[tuple[int, ...] | None] = (256, 3, INPUT, INPUT)

    def probabilities(self, image: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank ``(n, 15)`` (:data:`RANKS`) and suit ``(n, 4)`` probabilities of the indices in ``boxes``
        ((n, 4) xyxy px) of a (H, W, 3) BGR image, averaged over the crops turned by :data:`VIEWS`."""
        if not len(boxes):
            return np.zeros((0, len(RANKS)), np.float32), np.zeros((0, 4), np.float32)
        crops = np.stack([square_crop(image, b, WINDOW, INPUT, a) for a in VIEWS for b in boxes])
        x = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        rank_p, suit_p = self._session.run(None, {"crops": x})
        n = len(boxes)
        rank_p = rank_p.reshape(len(VIEWS), n, -1).mean(0)
        suit_p = suit_p.reshape(len(VIEWS), n, -1).mean(0)
        return rank_p, suit_p

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


def reading(rank_p: np.ndarray, suit_p: np.ndarray) -> tuple[list[str | None], np.ndarray]:
    """Each box read alone from the reader's rank ``(n, 15)`` (:data:`RANKS`) and suit ``(n, 4)`` probabilities:
    (its likeliest card code, ``None`` for "no index"; (n,) float32 :func:`p_rank_colour` of that reading)."""
    r, s = rank_p.argmax(1), suit_p.argmax(1)
    return _codes(r, s), p_rank_colour(rank_p, suit_p, r, s)


def _codes(rank: np.ndarray, suit: np.ndarray) -> list[str | None]:
    return [code_of(int(a), int(b)) for a, b in zip(rank, suit)]


def p_rank_colour(rank_p: np.ndarray, suit_p: np.ndarray, rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """(n,) probability of each reading's rank and of its suit's colour (red or black), from rank ``(n, 15)``
    and suit ``(n, 4)`` probabilities; ``rank`` and ``suit`` (n,) are the reading's indices into :data:`RANKS`
    and ``SUIT_CODES``. A joker has no suit: its probability is its rank's.

    The rules score a card by its rank; of its suit they need only the colour: a red three is a bonus and a
    black one is not (seed 000 "Rules at a Glance"), and a squared book's marker is clean when red, dirty when
    black (seed 000 "Melds: Clean, Dirty and Wild", seed 002 §3). In a tight fan the next card often hides an
    index's suit pip and leaves the rank: the code's own probability (rank x suit) then dropped cards the rules
    can count. With the shipped models, on 100 generated tables of the held-out designs (dev set
    ``data/tables_hdev``), fans counted right went 0.532 -> 0.542, on 100 of the training designs
    (``data/tables_dev``) 0.356 -> 0.383; exact scores unchanged (0.20, 0.17).
    """
    i = np.arange(len(rank))
    red = np.array([c in "HD" for c in SUIT_CODES])
    p_red = suit_p[:, red].sum(1)
    colour = np.where(red[suit], p_red, 1.0 - p_red)
    return (rank_p[i, rank] * np.where(rank < 13, colour, 1.0)).astype(np.float32)
