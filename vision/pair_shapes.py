"""The card shapes pairing adapts to (stage 2, :mod:`vision.instances`), apart from the standard card: a lone joker,
whose corner marks are drawn at another size than its deck's indices (:func:`lone_jokers_rescaled`); a standard card
among jumbo-index ones (:func:`standard_pairs_among_big`); a deck printed with four indices
(:func:`four_corners`); and cards whose indices stack like the rungs of a ladder (:func:`rung_gaps`,
:func:`ladder`). Index centres are (n, 2) pixels, sizes index sizes in pixels; thresholds
:class:`vision.config.Pairing`."""

from __future__ import annotations

from collections import Counter

import numpy as np

from .config import Pairing


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
    apart, make a rectangle too, with the cards between them on its long sides). Jokers are left as they pair: a
    joker of a two-index deck may bear a mark in every corner, and two of them side by side in a meld, each
    showing two, make such a rectangle. The merged card lists a diagonal first.

    Returns one tuple of detection indices per card: (i, j) for a pair, four for a merged card.
    """
    by_code: dict[str, list[int]] = {}
    for k, (i, _) in enumerate(pairs):
        if codes[i] != "JK":  # jokers of two-index decks often bear a mark in every corner (aguilar's stars)
            by_code.setdefault(codes[i], []).append(k)
    merged: dict[int, tuple[int, ...]] = {}
    gone: set[int] = set()
    for ks in by_code.values():
        for a in range(len(ks)):
            for b in range(a + 1, len(ks)):
                if ks[a] in gone or ks[b] in gone:
                    continue
                corners = _rectangle(pairs[ks[a]], pairs[ks[b]], centers, sizes, min_offset, pairing)
                if corners:
                    merged[ks[a]] = corners
                    gone |= {ks[a], ks[b]}
    return [merged.get(k, pair) for k, pair in enumerate(pairs) if k not in gone or k in merged]


def _rectangle(first: tuple[int, int], second: tuple[int, int], centers: np.ndarray, sizes: np.ndarray,
               min_offset: float, pairing: Pairing) -> tuple[int, ...] | None:
    """The four detections of two pairs as two diagonals (p, q, r, t) when their centres are one card's
    rectangle of index centres (:func:`four_corners`), else None."""
    (a, b), (c, d) = first, second
    size = float(np.mean(sizes[[a, b, c, d]]))
    apart = float(np.linalg.norm(centers[a] + centers[b] - centers[c] - centers[d]) / 2)  # the pairs' midpoints
    for (p, q), (r, t) in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
        la = float(np.linalg.norm(centers[p] - centers[q]))
        lb = float(np.linalg.norm(centers[r] - centers[t]))
        mid = float(np.linalg.norm(centers[p] + centers[q] - centers[r] - centers[t]) / 2)
        if (mid > pairing.rect_midpoint * size or abs(la - lb) > pairing.rect_length * max(la, lb)
                or min(la, lb) < pairing.rect_diagonal[0] * size or max(la, lb) > pairing.rect_diagonal[1] * size):
            continue
        if not ((p, q) == (a, b) or apart >= min_offset):  # its diagonals, or opposite edges far enough apart
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
