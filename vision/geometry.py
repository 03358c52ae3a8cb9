"""The geometry of fanned cards, written once for every stage that asks.

A meld is laid as a fan: its cards' corner indices step evenly along a line (seed 000 "Melding"). Three questions
recur in the pipeline, and each has one answer here:

* *one step beyond*: where the next index of a fan would be, after ``a`` coming from ``b`` (:func:`beyond`), and
  how far, in steps, a point lies from there (:func:`step_miss`);
* *inside a fan*: an index with two neighbours on opposite sides at about the same distance (:func:`opposite`,
  :func:`inside_fan`);
* *continues a line*: a point beyond a fan's end card, in its direction, at about its step
  (:func:`continues_line`);

and *one fan's size*: indices of one fan measure about the same (:func:`similar_size`). Two more recur between
indices: *on a segment* (a point within a clearance of the inner part of the segment between two indices:
:func:`near_segment`, :func:`segment_blocked`) and *a card's diagonal apart* (:func:`diagonal_apart`). Of cards, a fan
is read along its main direction (:func:`fan_order`), each card placed by its index beside its neighbours
(:func:`anchor_points`, :func:`nearest_indices`, :func:`fan_steps`), and a card may continue it (:func:`continues_fan`).

Points are (2,) or (n, 2) arrays of pixels; sizes are index sizes in pixels (``vision.types.index_sizes``);
the thresholds come from :class:`vision.config.FanGeometry` and the stages' own sections.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .config import DEFAULT, VisionConfig

if TYPE_CHECKING:  # the types module carries a pile's fan order (computed here), so it imports this one
    from .types import CardInstance


def beyond(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The point one fan step beyond ``a`` coming from ``b``: ``a + (a - b)`` (pixels)."""
    return 2 * np.asarray(a, np.float64) - np.asarray(b, np.float64)


def step_miss(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of each of ``points`` ((n, 2) or (2,) px) from :func:`beyond` (a, b), in steps ``|a - b|``;
    ``inf`` when ``a`` and ``b`` coincide."""
    step = float(np.linalg.norm(np.asarray(a, np.float64) - np.asarray(b, np.float64)))
    miss = np.linalg.norm(np.asarray(points, np.float64) - beyond(a, b), axis=-1)
    return miss / step if step > 0 else np.full_like(miss, np.inf)


def similar_size(sizes: np.ndarray, size: float, ratio: float) -> np.ndarray:
    """(n,) bool: ``sizes`` (px) within the factor ``ratio`` of ``size`` (strictly), as indices of one fan are."""
    sizes = np.asarray(sizes, np.float64)
    return (sizes < ratio * size) & (sizes > size / ratio)


def opposite(u: np.ndarray, v: np.ndarray, even: float, angle: float) -> bool:
    """True when the offsets ``u`` and ``v`` (px, from one point to two neighbours) have lengths within the
    factor ``even`` of each other and directions within ``angle`` degrees of opposite: the point lies between
    them as a card inside a fan lies between its neighbours."""
    du, dv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if du == 0 or dv == 0 or max(du, dv) > even * min(du, dv):
        return False
    return float(np.dot(u, v)) < -np.cos(np.radians(angle)) * du * dv


def inside_fan(centres: np.ndarray, i: int, neighbours: np.ndarray, even: float, angle: float) -> bool:
    """True when index ``i`` of ``centres`` ((n, 2) px) lies between two of ``neighbours`` (indices into
    ``centres``, the ones near enough to count) as in :func:`opposite`."""
    v = centres[neighbours] - centres[i]
    for a in range(len(neighbours)):
        for b in range(a + 1, len(neighbours)):
            if opposite(v[a], v[b], even, angle):
                return True
    return False


def continues_line(end: np.ndarray, prev: np.ndarray, point: np.ndarray, step: float,
                   steps: tuple[float, float], angle: float) -> bool:
    """True when ``point`` lies beyond a fan's end card ``end`` (coming from ``prev``; px) within ``angle`` degrees
    of the direction ``end - prev``, at ``steps`` (low, high; inclusive) times ``step`` (px)."""
    u = np.asarray(end, np.float64) - np.asarray(prev, np.float64)
    v = np.asarray(point, np.float64) - np.asarray(end, np.float64)
    length = float(np.linalg.norm(v))
    if step <= 0 or not steps[0] * step <= length <= steps[1] * step:
        return False
    cos = float(u @ v) / max(float(np.linalg.norm(u)) * length, 1e-9)
    return cos >= np.cos(np.radians(angle))


def near_segment(a: np.ndarray, b: np.ndarray, others: np.ndarray, span: tuple[float, float], clearance: float
                 ) -> bool:
    """True when a point of ``others`` ((m, 2) px) lies within ``clearance`` px of the inner part of the segment
    from ``a`` to ``b`` ((2,) px each): the points whose projection falls strictly inside ``span`` (low, high:
    fractions of the segment's length from ``a``). False for a segment of length 0."""
    if not len(others):
        return False
    d = b - a
    L2 = float(d @ d)
    if L2 == 0:
        return False
    lo, hi = span
    t = ((others - a) @ d) / L2
    inner = (t > lo) & (t < hi)
    if not inner.any():
        return False
    proj = a + np.outer(t[inner], d)
    return bool((np.linalg.norm(others[inner] - proj, axis=1) < clearance).any())


def segment_blocked(a: np.ndarray, b: np.ndarray, others: np.ndarray, clearance: float, *,
                    config: VisionConfig = DEFAULT) -> bool:
    """:func:`near_segment` over the inner part ``config.pairing.segment_inner`` of the segment a-b: another index
    lies between two that could be one card's corners."""
    return near_segment(a, b, others, config.pairing.segment_inner, clearance)


def diagonal_apart(a: np.ndarray, b: np.ndarray, card_height: float, *,
                   config: VisionConfig = DEFAULT) -> bool | np.ndarray:
    """True when index centres ``a`` ((2,) px) and ``b`` ((2,) px, or (k, 2): then a (k,) bool array) lie as far
    apart as a card's two corner indices: the index diagonal of a card ``card_height`` px high
    (``config.pairing.diagonal_per_height`` of it), within ``config.pairing.pair_tolerance``."""
    diagonal = card_height * config.pairing.diagonal_per_height
    tolerance = config.pairing.pair_tolerance
    distance = np.linalg.norm(np.asarray(b, np.float64) - np.asarray(a, np.float64), axis=-1)
    within = (diagonal / tolerance <= distance) & (distance <= diagonal * tolerance)
    return bool(within) if within.ndim == 0 else within


def nearest_indices(a: CardInstance, b: CardInstance) -> tuple[np.ndarray, np.ndarray]:
    """The index centre of card ``a`` and the one of card ``b`` that lie nearest each other, (2,) pixels each: where
    two neighbours of a fan touch (a card seen whole is measured by its index nearer the other card)."""
    d = np.linalg.norm(a.centers[:, None, :] - b.centers[None, :, :], axis=-1)
    ia, ib = np.unravel_index(int(np.argmin(d)), d.shape)
    return a.centers[ia], b.centers[ib]


def fan_order(cards: list[CardInstance]) -> list[CardInstance]:
    """The cards along their fan's main direction (the first principal axis of their :func:`anchor_points`),
    read top to bottom, left to right; fewer than two cards as they are."""
    if len(cards) < 2:
        return cards
    # a whole card is placed by its index nearer the others (its top index in the fan, not the far corner)
    pts = anchor_points(cards)
    centred = pts - pts.mean(0)
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    if axis[int(np.argmax(np.abs(axis)))] < 0:  # read top to bottom, left to right
        axis = -axis
    return [cards[i] for i in np.argsort(centred @ axis)]


def anchor_points(cards: list[CardInstance]) -> np.ndarray:
    """(n, 2) pixels: each of the n cards' index centre nearest the centre of all their indices: where a fan's
    card is placed (a card seen whole by its index beside its neighbours, its far corner left out)."""
    middle = np.concatenate([c.centers for c in cards]).mean(0)
    return np.array([c.centers[int(np.argmin(np.linalg.norm(c.centers - middle, axis=1)))] for c in cards])


def continues_fan(members: list[CardInstance], other: CardInstance, steps: tuple[float, float], angle: float,
                  end_step: bool = False) -> bool:
    """True when card ``other`` lies where the next card of the fan ``members`` (two or more cards) would: its
    index nearest one of the fan's end cards (in :func:`fan_order`, each card placed at its :func:`anchor_points`)
    lies beyond that card, within ``angle`` degrees of the fan's direction there, at ``steps`` (low, high;
    inclusive) times the fan's median step (with ``end_step``, times the step between that end card and its
    neighbour: in a photo at an angle the steps grow towards the camera); :func:`vision.geometry.continues_line`.

    Cards of a fanned hand holding a pair or three of a kind (plus wilds) look like a meld; the hand's other cards
    continue its line at the same step, while a meld laid beside a hand does not. A two seen whole continues a fan
    as its last card, while the marker of a squared book beside it does not (``Piles.line_step``,
    ``Piles.line_angle``). ``vision.fans`` asks it with longer steps (a fan split by an unread card) and with
    ``end_step`` (a fan's next card split off)."""
    pts = anchor_points(fan_order(members))
    median = float(np.median(np.linalg.norm(np.diff(pts, axis=0), axis=1)))
    for end, prev in ((pts[-1], pts[-2]), (pts[0], pts[1])):
        step = float(np.linalg.norm(end - prev)) if end_step else median
        q = other.centers[int(np.argmin(np.linalg.norm(other.centers - end, axis=1)))]
        if continues_line(end, prev, q, step, steps, angle):
            return True
    return False


def fan_steps(cards: list[CardInstance]) -> list[float]:
    """A fan's steps: the pixel distances between consecutive cards' :func:`nearest_indices`, in the cards' order
    (len(cards) - 1 floats)."""
    return [float(np.linalg.norm(np.subtract(*nearest_indices(a, b)))) for a, b in zip(cards, cards[1:])]
