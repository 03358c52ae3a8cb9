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

And the shapes pairing adapts to (stage 2, :mod:`vision.instances`), apart from the standard card: a lone joker,
whose corner marks are drawn at another size than its deck's indices (:func:`lone_jokers_rescaled`); a standard card
among jumbo-index ones (:func:`standard_pairs_among_big`); a deck printed with four indices
(:func:`four_corners`); and cards whose indices stack like the rungs of a ladder (:func:`rung_gaps`,
:func:`ladder`). Index centres are (n, 2) pixels, sizes index sizes in pixels; thresholds
:class:`vision.config.Pairing`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from .config import DEFAULT, Pairing, VisionConfig

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


def lone_jokers_rescaled(candidates: list[tuple[float, int, int]], codes: list[str], centers: np.ndarray,
                          ref_sizes: np.ndarray, rivals: Counter, reach: float) -> list[tuple[float, int, int]]:
    """Pair candidates with the ratio of a *lone* joker pair measured in its card's index size.

    A joker's corner mark is drawn smaller than its deck's rank and suit indices, so the distance between a
    joker's two marks is longer than the photo's typical ratio in box sizes and the pair would be refused: a
    joker on top of a squared book (a wild book's marker) or lying alone would read as two loose jokers. A
    candidate pair of jokers each in no other candidate and each with no other index within ``reach``
    (``Pairing.lone_reach``) of its :func:`vision.instances.reference_sizes` (the natural indices' size nearby: :func:`_lone`)
    gets its ratio in those sizes; every other candidate keeps its own. ``rivals``: how many candidates each
    index is in.
    """
    return [(float(np.linalg.norm(centers[i] - centers[j]) / ((ref_sizes[i] + ref_sizes[j]) / 2))
             if codes[i] == "JK" and rivals[i] == 1 and rivals[j] == 1 and _lone(i, centers, ref_sizes, reach)
             and _lone(j, centers, ref_sizes, reach) else r, i, j)
            for r, i, j in candidates]


def _lone(k: int, centers: np.ndarray, sizes: np.ndarray, reach: float) -> bool:
    """True when no other index centre lies within ``reach`` x ``sizes[k]`` of index ``k`` (``Pairing.lone_reach``)."""
    d = np.linalg.norm(centers - centers[k], axis=1)
    d[k] = np.inf
    return bool(d.min() > reach * sizes[k])


def standard_pairs_among_big(candidates: list[tuple[float, int, int]], used: np.ndarray, centers: np.ndarray,
                              sizes: np.ndarray, rivals: Counter, pairing: Pairing) -> set[tuple[int, int]]:
    """Pairs of a standard-index card in a photo whose typical ratio says big (jumbo) indices; marks them used.

    Five or six decks are mixed for Hand and Foot, and a jumbo-index deck among standard ones sets the photo's
    typical ratio so short that a standard card's two indices (ratio about ``pairing.pair_typical``) are
    refused: a squared book's marker would read as two loose cards. Here a candidate still unused, in no other
    candidate, of ratio at least ``pairing.standard_min_ratio`` and within ``pairing.pair_tolerance`` of
    ``pair_typical``, whose two indices each lie alone (:func:`_lone`), is one card (its height from
    ``pair_typical``). ``rivals``: how many candidates each index is in.
    """
    out = set()
    for r, i, j in candidates:
        if used[i] or used[j] or rivals[i] != 1 or rivals[j] != 1 or r < pairing.standard_min_ratio:
            continue
        if abs(np.log(r / pairing.pair_typical)) > np.log(pairing.pair_tolerance):
            continue
        if _lone(i, centers, sizes, pairing.lone_reach) and _lone(j, centers, sizes, pairing.lone_reach):
            used[i] = used[j] = True
            out.add((i, j))
    return out


def four_corners(pairs: list[tuple[int, int]], codes: list[str], centers: np.ndarray, sizes: np.ndarray,
                  min_offset: float, pairing: Pairing) -> list[tuple[int, ...]]:
    """The pairs as cards, two pairs of one code merged into one card when their four index centres are the
    corners of one rectangle: a card of a deck printed with an index in every corner (bonded, dondorf) seen whole
    shows all four, which pair as two cards (its two diagonals, or two opposite edges: the last card of such a
    fan, whose edge strips paired as the other cards' do). Two halves of a rectangle: one of the three ways of
    splitting the four points in two gives two segments with a common midpoint (within ``pairing.rect_midpoint``
    index sizes) and one length (within ``pairing.rect_length``, and within ``pairing.rect_diagonal``), its
    diagonals; two pairs along opposite edges must also lie ``min_offset`` pixels apart (``pairing.rect_min_steps``
    of the photo's fan step: :func:`rung_gaps`), and no other index may lie on the rectangle or within
    ``pairing.rect_margin`` index sizes of its sides (the strips of two identical cards of such a fan, a few steps
    apart, make a rectangle too, with the cards between them on its long sides). A joker of a two-index deck may
    bear a mark in every corner (aguilar's stars, drawn at the card's very corners), and seen whole its four marks
    pair as two jokers: two joker pairs are one card when they make a longer rectangle (diagonals within
    ``pairing.joker_rect_diagonal`` index sizes of the naturals around it, lengths within
    ``pairing.joker_rect_length``: a card photographed at an angle is a parallelogram), its shorter side at least
    ``pairing.joker_rect_apart`` index sizes long (two jokers side by side in a meld, each showing the two marks of
    its strip, make a rectangle one fan step wide, however its marks paired). The merged card lists a diagonal first.

    Returns one tuple of detection indices per card: (i, j) for a pair, four for a merged card.
    """
    by_code: dict[str, list[int]] = {}
    for k, (i, _) in enumerate(pairs):
        by_code.setdefault(codes[i], []).append(k)
    merged: dict[int, tuple[int, ...]] = {}
    gone: set[int] = set()
    for code, ks in by_code.items():
        for a in range(len(ks)):
            for b in range(a + 1, len(ks)):
                if ks[a] in gone or ks[b] in gone:
                    continue
                corners = _rectangle(pairs[ks[a]], pairs[ks[b]], centers, sizes, min_offset, pairing,
                                     joker=code == "JK")
                if corners:
                    merged[ks[a]] = corners
                    gone |= {ks[a], ks[b]}
    return [merged.get(k, pair) for k, pair in enumerate(pairs) if k not in gone or k in merged]


def _rectangle(first: tuple[int, int], second: tuple[int, int], centers: np.ndarray, sizes: np.ndarray,
               min_offset: float, pairing: Pairing, joker: bool = False) -> tuple[int, ...] | None:
    """The four detections of two pairs as two diagonals (p, q, r, t) when their centres are one card's
    rectangle of index centres (:func:`four_corners`; with ``joker``, a joker's corner marks), else None."""
    (a, b), (c, d) = first, second
    size = float(np.mean(sizes[[a, b, c, d]]))
    apart = float(np.linalg.norm(centers[a] + centers[b] - centers[c] - centers[d]) / 2)  # the pairs' midpoints
    length, diagonal = ((pairing.joker_rect_length, pairing.joker_rect_diagonal) if joker
                        else (pairing.rect_length, pairing.rect_diagonal))
    for (p, q), (r, t) in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
        la = float(np.linalg.norm(centers[p] - centers[q]))
        lb = float(np.linalg.norm(centers[r] - centers[t]))
        mid = float(np.linalg.norm(centers[p] + centers[q] - centers[r] - centers[t]) / 2)
        if (mid > pairing.rect_midpoint * size or abs(la - lb) > length * max(la, lb)
                or min(la, lb) < diagonal[0] * size or max(la, lb) > diagonal[1] * size):
            continue
        if joker:  # a joker's shorter side, however its marks paired: two jokers' strips lie a fan step apart
            if min(np.linalg.norm(centers[p] - centers[r]), np.linalg.norm(centers[r] - centers[q])) \
                    < pairing.joker_rect_apart * size:
                continue
        elif not ((p, q) == (a, b) or apart >= min_offset):  # its diagonals, or opposite edges far enough apart
            continue
        if _inside(centers, (p, r, q, t), exclude={a, b, c, d}, margin=pairing.rect_margin * size):
            return None  # another index on the card's face: two cards of a fan with one between them
        return (p, q, r, t)
    return None


def _inside(centers: np.ndarray, corners: tuple[int, int, int, int], exclude: set[int], margin: float) -> bool:
    """True when a centre (but those in ``exclude``) lies inside the convex quadrilateral of ``corners`` (indices
    into ``centers``, in order round it) or within ``margin`` pixels outside it (on its sides: the indices of the
    cards between two cards of a fan lie on the lines joining theirs)."""
    quad = centers[list(corners)]
    others = np.array([c for k, c in enumerate(centers) if k not in exclude]).reshape(-1, 2)
    if not len(others):
        return False

    def cross(e: np.ndarray, v: np.ndarray) -> np.ndarray:
        return e[0] * v[..., 1] - e[1] * v[..., 0]

    sign = np.sign(cross(quad[1] - quad[0], quad[2] - quad[1]))
    inside = np.ones(len(others), bool)
    for k in range(4):
        e = quad[(k + 1) % 4] - quad[k]
        inside &= sign * cross(e, others - quad[k]) / max(float(np.linalg.norm(e)), 1e-9) > -margin
    return bool(inside.any())


def rung_gaps(pairs: list[tuple[int, int]], centers: np.ndarray, pairing: Pairing) -> np.ndarray:
    """(len(pairs),) pixels from each pair to the nearest *rung* beside it: a pair parallel to it (within
    ``pairing.ladder_angle``), of its length (within ``pairing.ladder_length``) and side by side (midpoints within
    ``pairing.ladder_reach`` of its length, offset along its direction by at most ``pairing.ladder_offset`` of
    their distance); inf for a pair with none."""
    gaps = np.full(len(pairs), np.inf)
    if len(pairs) < 2:
        return gaps
    v = np.array([centers[j] - centers[i] for i, j in pairs])
    length = np.maximum(np.linalg.norm(v, axis=1), 1e-9)
    u = v / length[:, None]
    mid = np.array([(centers[i] + centers[j]) / 2 for i, j in pairs])
    cos_max = np.cos(np.radians(pairing.ladder_angle))
    for a in range(len(pairs)):
        for b in range(len(pairs)):
            off = mid[b] - mid[a]
            gap = float(np.linalg.norm(off))
            if (a != b and abs(float(u[a] @ u[b])) >= cos_max
                    and abs(length[a] / length[b] - 1) <= pairing.ladder_length
                    and 0 < gap <= pairing.ladder_reach * length[a]
                    and abs(float(off @ u[a])) <= pairing.ladder_offset * gap):
                gaps[a] = min(gaps[a], gap)
    return gaps


def ladder(gaps: np.ndarray, pairing: Pairing) -> bool:
    """True when the paired indices (their :func:`rung_gaps`) stack like the rungs of a ladder: at least
    ``pairing.ladder_min_pairs`` pairs, at least half of them with a rung beside them. That is a four-index deck
    (bonded, dondorf: an index in every corner) fanned, each card showing the two indices of the edge strip the
    next card leaves uncovered.

    Such a strip pair is shorter than a card's diagonal, so the photo looks like a jumbo-index deck
    (:func:`_typical_ratio`) and its cards' heights would come out about half their size;
    :func:`pair_corners` then takes card heights from the standard diagonal (``pairing.pair_typical``). A
    jumbo-index deck's fans show one index a card (the last card's two lie alone), so their pairs do not stack.
    """
    return len(gaps) >= pairing.ladder_min_pairs and 2 * int(np.isfinite(gaps).sum()) >= len(gaps)
