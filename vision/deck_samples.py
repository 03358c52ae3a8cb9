"""The crops a deck profile learns from, and the fit of the reader's linear heads on them (``vision.decks``).

:func:`samples` reads every example index's crops (the reader's own views and jittered copies) into the
reader's features (or the last convolution's input maps, ``vision.deck_layers``); :func:`fit_heads` fits the heads
on them by gradient descent from the model's own, held near them; :func:`accuracy` is the check's figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .classes import RANKS, SUIT_CODES, softmax
from .deck_boxes import NONE
from .images import load_photo
from .models.crops import VIEWS, crops_of
from .models.reader import Heads, IndexReader, Layers, features_of


@dataclass(frozen=True)
class Samples:
    """Index crops as the heads see them: per member features (n, d_k) float32 (or, to adapt the last convolution,
    its input maps ``pre`` (n, c_k, 4, 4) and ``features`` None), rank (n,) and suit (n,) indices (-1: no suit)."""

    features: list[np.ndarray] | None
    rank: np.ndarray
    suit: np.ndarray
    pre: list[np.ndarray] | None = None

    def __getitem__(self, rows) -> Samples:
        pick = (lambda arrays: None if arrays is None else [a[rows] for a in arrays])
        return Samples(pick(self.features), self.rank[rows], self.suit[rows], pick(self.pre))

    def features_with(self, layers: Layers | None) -> list[np.ndarray]:
        """The features read with ``layers`` (a profile's last convolution; None: the model's)."""
        return self.features if self.pre is None else features_of(self.pre, layers)


def joined(parts: list[Samples]) -> Samples:
    cat = (lambda name: None if getattr(parts[0], name) is None else
           [np.concatenate([getattr(p, name)[m] for p in parts]) for m in range(len(getattr(parts[0], name)))])
    return Samples(cat("features"), np.concatenate([p.rank for p in parts]), np.concatenate([p.suit for p in parts]),
                    cat("pre"))


def _labels(code: str) -> tuple[int, int]:
    if code == NONE:
        return RANKS.index("none"), -1
    if code == "JK":
        return RANKS.index("JK"), -1
    return RANKS.index(code[:-1]), SUIT_CODES.index(code[-1])


def samples_of(examples: list, reader: IndexReader, augment: int, rng: np.random.Generator,
             progress: Callable[[int, int], None] | None = None, negative: bool = False, pre: bool = False,
             photometric: bool = False, turn: float = 0.27, window: float | None = None,
             aspect: float = 1.0) -> Samples:
    """Features of every example index (the last convolution's input maps when ``pre``): the reader's own views
    first, then ``augment`` copies of each shifted by up to 8 % of its box, scaled by 0.9-1.12 and turned by up to
    ``turn`` radians (their contrast, brightness and colour balance jittered too when ``photometric``); of each
    photo's negative when ``negative``; crops of ``window`` times each box (None: the reader's), cut at the photo
    ``aspect`` (``vision.models.crops.turned_patch``). ``examples`` are ``vision.decks.Example``; a code
    :data:`NONE` is taught as "no index"."""
    feats: list[list[np.ndarray]] = [[] for _ in range(reader.members)]
    rank, suit = [], []
    for k, ex in enumerate(examples):
        image = load_photo(ex.image)
        image = 255 - image if negative else image
        boxes = [ex.boxes]
        for _ in range(augment):
            b = ex.boxes.copy()
            side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])[:, None]
            centre = (b[:, :2] + b[:, 2:]) / 2 + rng.uniform(-0.08, 0.08, (len(b), 2)) * side
            half = (b[:, 2:] - b[:, :2]) / 2 * rng.uniform(0.9, 1.12, (len(b), 1))
            boxes.append(np.hstack([centre - half, centre + half]).astype(np.float32))
        for j, bx in enumerate(boxes):
            views = VIEWS if j == 0 else tuple(float(a) for a in rng.uniform(-turn, turn, 1))
            x = crops_of(image, bx, views, window, aspect)
            if photometric and j > 0:
                gain = rng.uniform(0.7, 1.3, (len(x), 1, 1, 1)) * rng.uniform(0.92, 1.08, (len(x), 3, 1, 1))
                x = np.clip((x - 0.5) * gain + 0.5 + rng.uniform(-0.12, 0.12, (len(x), 1, 1, 1)), 0, 1)
                x = x.astype(np.float32)
            for m, f in enumerate(reader.pre(x) if pre else reader.features(x)):
                feats[m].append(f)
            for _ in views:
                for code in ex.codes:
                    r, s = _labels(code)
                    rank.append(r)
                    suit.append(s)
        if progress:
            progress(k + 1, len(examples))
    arrays = [np.concatenate(f) for f in feats]
    return Samples(None if pre else arrays, np.array(rank), np.array(suit), arrays if pre else None)


def fit_heads(samples: Samples, start: Heads, steps: int = 300, rate: float = 0.01, anchor: float = 0.1) -> Heads:
    """Heads fitted to ``samples`` from ``start``: the mean cross-entropy of the averaged members' rank and suit
    probabilities (a joker has no suit term), plus ``anchor`` times the squared distance from ``start``; Adam,
    full batch."""
    params = [np.array(a, np.float64) for member in start.members for a in member]
    origin = [p.copy() for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    n = len(samples.rank)
    feats = [f.astype(np.float64) for f in samples.features]
    has_suit = samples.suit >= 0
    for t in range(1, steps + 1):
        grads = [anchor * 2 * (p - o) for p, o in zip(params, origin)]
        for head, labels, mask in ((0, samples.rank, np.ones(n, bool)), (2, samples.suit, has_suit)):
            if not mask.any():
                continue
            probs = [softmax(f[mask] @ params[4 * k + head].T + params[4 * k + head + 1])
                     for k, f in enumerate(feats)]
            mean = np.mean(probs, axis=0)
            y = labels[mask]
            py = mean[np.arange(len(y)), y]
            for k, (f, s) in enumerate(zip(feats, probs)):
                # d(-log mean_y)/dz_k = -(1 / members) s_k[y] (onehot(y) - s_k) / mean_y
                coef = (s[np.arange(len(y)), y] / py / len(feats))[:, None]
                onehot = np.zeros_like(s)
                onehot[np.arange(len(y)), y] = 1
                dz = -coef * (onehot - s) / mask.sum()
                grads[4 * k + head] += dz.T @ f[mask]
                grads[4 * k + head + 1] += dz.sum(0)
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            params[i] -= rate * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    members = tuple(tuple(params[4 * k + j].astype(np.float32) for j in range(4)) for k in range(len(start.members)))
    return Heads(members)


def _right(rank_p: np.ndarray, suit_p: np.ndarray, rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """(n,) bool: each reading's rank and suit's colour right (a joker's or "no index"'s rank alone)."""
    red = np.array([c in "HD" for c in SUIT_CODES])
    colour = np.where(suit >= 0, red[suit_p.argmax(1)] == red[np.maximum(suit, 0)], True)
    return (rank_p.argmax(1) == rank) & colour


def accuracy(heads: Heads, samples: Samples, layers: Layers | None = None) -> float:
    """Share of the crops of ``samples`` (each of the reader's views of each index counted) whose rank and suit's
    colour ``heads`` (after ``layers``) read right."""
    rank_p, suit_p = heads.probabilities(samples.features_with(layers))
    right = _right(rank_p, suit_p, samples.rank, samples.suit)
    return float(right.mean()) if len(right) else 0.0


def indices_right(heads: Heads, photos: list[Samples], layers: Layers | None = None) -> int:
    """How many indices of ``photos`` ``heads`` (after ``layers``) read right by rank and suit's colour, each read as
    a photo is: the probabilities of its :data:`VIEWS` averaged. Each item of ``photos`` is one photo's
    :func:`samples_of` without copies (``augment=0``): its indices' crops, view after view."""
    right = 0
    for part in photos:
        rank_p, suit_p = heads.probabilities(part.features_with(layers))
        n = len(part.rank) // len(VIEWS)
        mean = (lambda p: p.reshape(len(VIEWS), n, p.shape[1]).mean(0))
        right += int(_right(mean(rank_p), mean(suit_p), part.rank[:n], part.suit[:n]).sum())
    return right


def rank_accuracy(heads: Heads, samples: Samples) -> float:
    """Share of the crops of ``samples`` whose rank ``heads`` read right (colour aside: a negative turns red ink
    cyan)."""
    rank_p, _ = heads.probabilities(samples.features)
    return float((rank_p.argmax(1) == samples.rank).mean()) if len(samples.rank) else 0.0
