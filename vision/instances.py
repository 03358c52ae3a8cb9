"""Stage 2 of the camera pipeline: corner-index detections -> physical card instances.

A fully visible card shows two corner indices (top-left and bottom-right of the card face); a card in a fan
shows one. :func:`pair_corners` pairs the two indices of one card so each physical card counts once, and never
merges identical cards (five or six decks put several K♥ in one meld).

Geometry (measured on generated tables, ``data/heldout``): the two index centres of one card lie about
4.2 index sizes apart (5th-95th percentile 3.3-5.7; *index size* = square root of the index box area), while
consecutive cards of a fan lie about 1.1 index sizes apart. Two same-code indices are paired when

* their distance lies in the pairing range (adapted to the photo from unambiguous pairs),
* their box sizes agree within a factor of 1.6,
* no other index lies on the segment between them (a fan of identical cards puts its other indices exactly
  there; the face of a single card has none), nor an index of the same rank where the segment would continue
  at the same spacing on either side (two neighbours of a fan, not the corners of one card),
* neither lies inside a fan, between two indices on opposite sides of it (a covered card; :func:`_fan_interior`),

pairing as many indices as the candidates allow, nearest the photo's typical card diagonal (:func:`_matching`);
a lone joker's marks are measured in its card's index size (:func:`_lone_jokers_rescaled`), and a standard card
among jumbo-index ones keeps its own diagonal (:func:`_standard_pairs_among_big`). Two indices of one card read as two
suits of one colour are given one suit first (:func:`agree_suits`, with the reader's suit probabilities).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .classes import CLASS_ID, SUIT_CODES, rank_colour, rank_of
from .detections import Detections, index_centres, index_sizes

#: pairing range of centre distance / index size (1st-99th percentile of true pairs, widened)
PAIR_RANGE = (1.2, 9.0)
#: isolated pairs under this ratio mean a deck with big indices (measured 1.3-2.4; standard decks 2.7-7)
BIG_INDEX_RATIO = 2.6
#: with standard indices, pairs under this ratio are fan steps, not card diagonals
STANDARD_MIN_RATIO = 2.4
#: a pair's ratio may differ from the photo's typical ratio by this factor at most
PAIR_TOLERANCE = 1.45
#: typical distance / index size of a card's two indices when a photo has no isolated pair to measure it
#: (median on generated tables of standard-index decks; big-index decks measure 1.3-2.4)
PAIR_TYPICAL = 4.2
#: a third index closer than this (in index sizes) to the inner part of a segment vetoes the pair
SEGMENT_CLEARANCE = 0.8
#: an index this close (in index sizes) to where a fan would continue the segment vetoes the pair
CHAIN_TOLERANCE = 0.8


@dataclass(frozen=True, eq=False)
class CardInstance:
    """One physical card seen in a photo.

    Attributes:
        code: card code (``"KH"``, ``"10S"``, ``"JK"``).
        detections: indices into the :class:`~vision.detections.Detections` it came from (1 or 2, or 4 for a
            card of a four-index deck seen whole: :func:`_four_corners`; none for a card counted in a gap of a
            fan, whose index was not read: :mod:`vision.fan_gaps`).
        centers: (k, 2) float index-box centres in pixels, k = len(detections) (for an unread card, k = 1: where
            its index would be).
        size: mean index size in pixels (square root of the index box area; for a joker, that of the
            natural indices nearest it: its corner mark is drawn at another size).
        confidence: highest detection confidence.
        card_height: estimated height of the card in pixels: the photo's typical index-to-index diagonal
            (in index sizes) times ``size``, divided by 0.925 (the index diagonal spans 92.5 % of a card's height
            for index centres at 9.4 % of the width and 13.2 % of the height from the corner, card aspect
            0.69 — measured on the rendered decks).
    """

    code: str
    detections: tuple[int, ...]
    centers: np.ndarray = field(repr=False)
    size: float
    confidence: float
    card_height: float

    @property
    def fully_visible(self) -> bool:
        """True when both corner indices were seen (all four, for a deck printed with four: then ``centers[0]``
        and ``centers[1]`` are one diagonal)."""
        return len(self.detections) >= 2

    @property
    def center(self) -> np.ndarray:
        """(2,) pixels: the card centre when both indices were seen, else the one index centre."""
        return self.centers.mean(0)


#: a joker's size is taken from this many of the nearest natural (rank and suit) indices
JOKER_SIZE_NEIGHBOURS = 4


def _reference_sizes(codes: list[str], centers: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """(n,) index sizes in pixels that measure the card around each index: a natural's own box size, and for a
    joker the median size of the :data:`JOKER_SIZE_NEIGHBOURS` nearest natural indices (its own when the photo
    has none).

    A joker's corner mark (a star, a ring, JOKER lettering) is drawn at its deck's own size, not at the size of
    the deck's rank and suit index: on the generated tables of the held-out designs and on the photoreal
    ``tables_examples`` the joker boxes measure about two thirds of the naturals' beside them, so a joker's card
    looked a third smaller than it is and its fan neighbours too far away to link (``vision.piles``). These sizes
    give a card's height; pairing keeps the boxes' own sizes (with these, two jokers of different piles paired
    on a photoreal table). True boxes, with the stack checker: exact score 0.37 -> 0.39 on 100 held-out-design
    dev tables (``data/tables_hdev``), 0.28 -> 0.29 on 100 training-design ones, photoreal 6 of 8 either way.
    """
    ref = sizes.copy()
    natural = np.array([c != "JK" for c in codes])
    if natural.all() or not natural.any():
        return ref
    nat = np.flatnonzero(natural)
    for i in np.flatnonzero(~natural):
        d = np.linalg.norm(centers[nat] - centers[i], axis=1)
        ref[i] = float(np.median(sizes[nat[np.argsort(d)[:JOKER_SIZE_NEIGHBOURS]]]))
    return ref


def segment_blocked(a: np.ndarray, b: np.ndarray, others: np.ndarray, clearance: float) -> bool:
    """True when a point of ``others`` (m, 2) lies within ``clearance`` px of segment a-b's inner 10-90 %."""
    if not len(others):
        return False
    d = b - a
    L2 = float(d @ d)
    if L2 == 0:
        return False
    t = ((others - a) @ d) / L2
    inner = (t > 0.1) & (t < 0.9)
    if not inner.any():
        return False
    proj = a + np.outer(t[inner], d)
    return bool((np.linalg.norm(others[inner] - proj, axis=1) < clearance).any())


#: an index with two others on opposite sides of it, within this many index sizes (fan steps: 1.1-1.8 sizes) ...
INTERIOR_REACH = 2.0
#: ... at distances within this factor of each other ...
INTERIOR_EVEN = 1.25
#: ... and in directions within this many degrees of opposite, lies inside a fan
INTERIOR_ANGLE = 15.0


def _fan_interior(centers: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """(n,) bool: index centres ((n, 2) px; ``sizes`` (n,) px) that lie inside a fan, between two other indices
    on opposite sides at about the same distance (:data:`INTERIOR_REACH`, :data:`INTERIOR_EVEN`,
    :data:`INTERIOR_ANGLE`). The card there is covered by the next one and shows one index, so it is never
    paired with an index at a card's diagonal: on a generated table a joker inside a fan of fours had been
    paired with the joker of the fan beside it. (Big-index decks are exempt: their cards' own two indices
    lie that close, 1.3-2.4 sizes apart, and a fan puts neighbours around them.) True boxes, with the stack
    checker: fans counted 0.862 -> 0.869 and exact score 0.39 -> 0.40 on 100 held-out-design dev tables, 0.670
    -> 0.670 and 0.29 -> 0.30 on 100 training-design ones; photoreal unchanged.
    """
    n = len(centers)
    out = np.zeros(n, bool)
    for i in range(n):
        v = centers - centers[i]
        d = np.linalg.norm(v, axis=1)
        near = np.flatnonzero((d > 0) & (d < INTERIOR_REACH * sizes[i]))
        for a in range(len(near)):
            for b in range(a + 1, len(near)):
                j, k = near[a], near[b]
                if max(d[j], d[k]) > INTERIOR_EVEN * min(d[j], d[k]):
                    continue
                if v[j] @ v[k] < -np.cos(np.radians(INTERIOR_ANGLE)) * d[j] * d[k]:
                    out[i] = True
                    break
            if out[i]:
                break
    return out


def _chain_continues(a: np.ndarray, b: np.ndarray, others: np.ndarray, tolerance: float) -> bool:
    """True when an index of ``others`` lies at ``a - (b - a)`` or ``b + (b - a)``: steps of a fan, not a diagonal."""
    if not len(others):
        return False
    d = b - a
    for p in (a - d, b + d):
        if (np.linalg.norm(others - p, axis=1) < tolerance).any():
            return True
    return False


def _typical_ratio(candidates: list[tuple[float, int, int]], codes: list[str], centers: np.ndarray,
                   sizes: np.ndarray, one_fan: bool = False) -> float:
    """The photo's index-diagonal / index-size ratio (it depends on the deck: 1.3 for jumbo indices, 5 for small).

    A deck with big indices shows on *isolated* pairs: a code seen exactly twice, with no other index (of any
    rank) nearer to either than they are to each other (a squared book's marker, a loose card, a red three; two
    identical cards side by side in a fan of wilds have neighbours that near);
    when there are two or more and their median is under :data:`BIG_INDEX_RATIO`, that is the photo's ratio.
    Otherwise, over the pairs that have no rival candidate: their median when it is under
    :data:`BIG_INDEX_RATIO` and no isolated pair has a standard ratio; else the median of those with a ratio of
    at least :data:`STANDARD_MIN_RATIO`. With fewer than two of those, the median of every candidate when it is
    under :data:`BIG_INDEX_RATIO` (all the photo's pairs are short: big indices), else :data:`PAIR_TYPICAL`.

    (How the rule was measured: ``models/HISTORY.md``.)

    With ``one_fan`` (a photo of one player's hand: one fan, whose top card alone is seen whole), one unrivalled
    pair is enough: it is that card. Its ratio differs by deck (1.6-4.1 measured on rendered hands), and with
    :data:`PAIR_TYPICAL` the top card of hands of 9 of the 20 designs was counted twice (true boxes, rendered
    hands of all 20 designs, ``datasets.scenes.hand_cards``: 73 -> 106 of 117 and 71 -> 104 of 113 readable hands
    read exactly, two sets of 120; the held-out designs' hands were right either way; what is left is the
    four-index decks, bonded and dondorf, whose fanned cards show two indices each).
    """
    seen = Counter(codes)
    isolated = []
    for ratio, i, j in candidates:
        if seen[codes[i]] != 2:
            continue
        gap = ratio * (sizes[i] + sizes[j]) / 2
        near = [k for k in range(len(codes)) if k not in (i, j)
                and min(np.linalg.norm(centers[k] - centers[i]), np.linalg.norm(centers[k] - centers[j])) < gap]
        if not near:
            isolated.append(ratio)
    if len(isolated) >= 2 and np.median(isolated) < BIG_INDEX_RATIO:
        return float(np.median(isolated))  # a deck with big (jumbo) indices
    rivals = Counter(k for _, i, j in candidates for k in (i, j))  # candidate pairs each index is in
    clear = [r for r, i, j in candidates if rivals[i] == 1 and rivals[j] == 1]
    if one_fan and len(clear) == 1:
        return float(clear[0])
    if len(clear) >= 2 and all(r < BIG_INDEX_RATIO for r in isolated) and np.median(clear) < BIG_INDEX_RATIO:
        return float(np.median(clear))  # no isolated pair of a standard deck; the unrivalled pairs say big indices
    clear = [r for r in clear if r >= STANDARD_MIN_RATIO]
    if len(clear) >= 2:
        return float(np.median(clear))
    every = [r for r, _, _ in candidates]
    if len(every) >= 2 and np.median(every) < BIG_INDEX_RATIO:
        return float(np.median(every))  # all the photo's pairs are short
    return PAIR_TYPICAL


def _pair_ratio(i: int, j: int, centers: np.ndarray, sizes: np.ndarray, ranks: np.ndarray,
                interior: np.ndarray) -> float | None:
    """Centre distance / index size of indices ``i`` and ``j`` when their geometry allows them to be one card's
    two corners (sizes within 1.6 x, :data:`PAIR_RANGE`, neither inside a fan, no index on the segment between
    them, no index of the same rank continuing it), else ``None``. Codes are the caller's business."""
    s = (sizes[i] + sizes[j]) / 2
    if max(sizes[i], sizes[j]) > 1.6 * min(sizes[i], sizes[j]):
        return None
    ratio = float(np.linalg.norm(centers[i] - centers[j]) / s)
    if not PAIR_RANGE[0] <= ratio <= PAIR_RANGE[1]:  # the photo's own range is applied by the caller
        return None
    if ratio >= BIG_INDEX_RATIO and (interior[i] or interior[j]):
        return None  # an index inside a fan is a covered card's only one
    others = np.delete(centers, [i, j], axis=0)
    if segment_blocked(centers[i], centers[j], others, SEGMENT_CLEARANCE * s):
        return None
    same_rank = ranks == ranks[i]
    same_rank[[i, j]] = False
    if _chain_continues(centers[i], centers[j], centers[same_rank], CHAIN_TOLERANCE * s):
        return None
    return ratio


def _geometry(dets: Detections) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list]:
    """(centers (n, 2) px, sizes (n,) px, ranks (n,), interior (n,) bool, same-code pair candidates
    [(ratio, i, j)]) of one photo's detections."""
    centers, sizes = index_centres(dets.xyxy), index_sizes(dets.xyxy)
    codes = dets.codes
    ranks = np.array([rank_of(c) for c in codes])
    interior = _fan_interior(centers, sizes)
    candidates: list[tuple[float, int, int]] = []  # (ratio, i, j)
    by_code: dict[str, list[int]] = {}
    for i, c in enumerate(codes):
        by_code.setdefault(c, []).append(i)
    for idx in by_code.values():
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                ratio = _pair_ratio(idx[a], idx[b], centers, sizes, ranks, interior)
                if ratio is not None:
                    candidates.append((ratio, idx[a], idx[b]))
    return centers, sizes, ranks, interior, candidates


def pair_corners(dets: Detections, one_fan: bool = False) -> list[CardInstance]:
    """Group corner detections into card instances (each detection used once).

    Args:
        dets: corner-index detections of one photo (boxes in pixels).
        one_fan: the photo shows one fan of cards, a player's hand (:func:`vision.table.read_hand`): its one card
            seen whole gives the photo's diagonal ratio (:func:`_typical_ratio`).

    Returns:
        Card instances, paired ones first, each with one, two or four detections (four: a four-index card seen
        whole, :func:`_four_corners`); every detection belongs to exactly one instance.
    """
    return _cards(dets, _geometry(dets), one_fan) if len(dets) else []


#: candidate pairs of one connected group searched for the best matching (more are paired greedily)
MATCH_MAX = 14
#: weight of the spread of a matching's ratios (sum of |log ratio - mean|) against their distance from typical
MATCH_SPREAD = 2.0


def _matching(candidates: list[tuple[float, int, int]], typical: float) -> list[tuple[int, int]]:
    """Pairs (i, j) of detection indices: within each group of candidates that share indices, the matching with
    the most pairs, then the least total ``|log(ratio / typical)|`` plus :data:`MATCH_SPREAD` x the spread of
    its ratios (the cards of one photo share one diagonal); candidates beyond :data:`PAIR_TOLERANCE` of
    ``typical`` are never used. A group of more than :data:`MATCH_MAX` candidates is paired greedily.

    Taking the candidate nearest the typical ratio first (greedy) mis-paired rows of identical cards: four red
    threes laid side by side in a photo at an angle (typical ratio 5.4, each card's own pair 3.8) were paired
    across neighbours at 5.4-5.9 and read as three cards seen whole and two by one corner (five red threes).
    True boxes, greedy -> this: pairs of two cards' indices 14 -> 4 (of 527 -> 531) on the 100 held-out-design dev
    tables, 14 -> 8 (of 545 -> 547) on the 100 training-design ones, 5 -> 1 (of 59 -> 60) on the eight photoreal
    tables;
    fans counted right 261 -> 263 of 297 on the held-out-design dev tables (exact score 0.41 either way), red
    threes right on two more dev tables, photoreal tables 6 -> 7 of 8 scored exactly; cached run-time boxes of
    the shipped models: one training-design dev table lost (a jumbo-index deck's red threes, read among extra
    boxes), the others unchanged. (Without the spread term: wrong pairs 11, 12 and 4.)
    """
    ok = sorted((abs(np.log(r / typical)), i, j) for r, i, j in candidates
                if abs(np.log(r / typical)) <= np.log(PAIR_TOLERANCE))
    lograt = {(i, j): float(np.log(r)) for r, i, j in candidates}
    root: dict[int, int] = {}

    def find(x: int) -> int:
        while root.setdefault(x, x) != x:
            x = root[x]
        return x

    for _, i, j in ok:
        root[find(i)] = find(j)
    groups: dict[int, list[tuple[float, int, int]]] = {}
    for c in ok:
        groups.setdefault(find(c[1]), []).append(c)
    out: list[tuple[int, int]] = []
    for group in groups.values():
        if len(group) > MATCH_MAX:
            taken: set[int] = set()
            for _, i, j in group:
                if i not in taken and j not in taken:
                    taken |= {i, j}
                    out.append((i, j))
            continue
        best: list = [(-1, 0.0), []]

        def search(k: int, taken: frozenset, chosen: list, cost: float) -> None:
            if k == len(group):
                lr = np.array([lg for _, _, lg in chosen])
                disp = float(np.abs(lr - lr.mean()).sum()) if len(lr) else 0.0
                total = cost + MATCH_SPREAD * disp
                if (len(chosen), -total) > best[0]:
                    best[0], best[1] = (len(chosen), -total), [(a, b) for a, b, _ in chosen]
                return
            c, i, j = group[k]
            if i not in taken and j not in taken:
                chosen.append((i, j, lograt[(i, j)]))
                search(k + 1, taken | {i, j}, chosen, cost + c)
                chosen.pop()
            search(k + 1, taken, chosen, cost)

        search(0, frozenset(), [], 0.0)
        out += best[1]
    return out


def _cards(dets: Detections, geometry: tuple, one_fan: bool = False) -> list[CardInstance]:
    """:func:`pair_corners` from the photo's :func:`_geometry` (computed once by callers that need both)."""
    n = len(dets)
    codes = dets.codes
    centers, sizes, _, _, candidates = geometry
    typical = _typical_ratio(candidates, codes, centers, sizes, one_fan)
    sizes = _reference_sizes(codes, centers, sizes)  # a card's size, for its card height
    rivals = Counter(k for _, i, j in candidates for k in (i, j))  # candidate pairs each index is in
    candidates = _lone_jokers_rescaled(candidates, codes, centers, sizes, rivals)
    used = np.zeros(n, bool)
    pairs = _matching(candidates, typical)
    for i, j in pairs:
        used[i] = used[j] = True
    standard: set[tuple[int, int]] = set()
    if typical < BIG_INDEX_RATIO:
        standard = _standard_pairs_among_big(candidates, used, centers, sizes, rivals)
        pairs += sorted(standard)
    # card heights from the card diagonal; a four-index deck's fans pair each card's edge strip, shorter than it
    gaps = _rung_gaps(pairs, centers)
    rungs = gaps[np.isfinite(gaps)]
    height_ratio = PAIR_TYPICAL if typical < BIG_INDEX_RATIO and _ladder(gaps) else typical
    step = float(np.median(rungs)) if len(rungs) else 0.0  # the fans' step, where pairs stack as a ladder
    groups = _four_corners(pairs, codes, centers, sizes, RECT_MIN_STEPS * step)
    out = [_instance(codes[g[0]], g, centers, sizes, dets.confidence,
                     PAIR_TYPICAL if tuple(g) in standard else height_ratio) for g in groups]
    out += [_instance(codes[i], (i,), centers, sizes, dets.confidence, height_ratio) for i in range(n) if not used[i]]
    return out


#: an index with no other index nearer than this many (card) index sizes lies alone (fan steps: 1.1-1.8)
LONE_REACH = 2.0


def _lone_jokers_rescaled(candidates: list[tuple[float, int, int]], codes: list[str], centers: np.ndarray,
                          ref_sizes: np.ndarray, rivals: Counter) -> list[tuple[float, int, int]]:
    """Pair candidates with the ratio of a *lone* joker pair measured in its card's index size.

    A joker's corner mark is drawn smaller than its deck's rank and suit indices (about two thirds on the
    held-out designs), so the distance between a joker's two marks is 1.4-1.5 x the photo's typical ratio in
    box sizes and the pair was refused: a joker on top of a squared book (a wild book's marker) or lying
    alone was read as two loose jokers. A candidate pair of jokers each in no other candidate and each with
    no other index within :data:`LONE_REACH` of its :func:`_reference_sizes` (the natural indices'
    size nearby) gets its ratio in those sizes; every other candidate keeps its own. (Without the last
    condition, two jokers at the ends of neighbouring fans paired.) True boxes on the 100 held-out-design dev
    tables: jokers seen whole paired 19 -> 23 (wrong pairs 8 -> 8), squared books missed 18 -> 16, fans and
    exact scores unchanged; training-design dev tables and photoreal tables unchanged. ``rivals``: how many
    candidates each index is in.
    """
    return [(float(np.linalg.norm(centers[i] - centers[j]) / ((ref_sizes[i] + ref_sizes[j]) / 2))
             if codes[i] == "JK" and rivals[i] == 1 and rivals[j] == 1 and _lone(i, centers, ref_sizes)
             and _lone(j, centers, ref_sizes) else r, i, j)
            for r, i, j in candidates]


def _lone(k: int, centers: np.ndarray, sizes: np.ndarray) -> bool:
    """True when no other index centre lies within :data:`LONE_REACH` x ``sizes[k]`` of index ``k``."""
    d = np.linalg.norm(centers - centers[k], axis=1)
    d[k] = np.inf
    return bool(d.min() > LONE_REACH * sizes[k])


def _standard_pairs_among_big(candidates: list[tuple[float, int, int]], used: np.ndarray, centers: np.ndarray,
                              sizes: np.ndarray, rivals: Counter) -> set[tuple[int, int]]:
    """Pairs of a standard-index card in a photo whose typical ratio says big (jumbo) indices; marks them used.

    Five or six decks are mixed for Hand and Foot, and a jumbo-index deck among standard ones sets the photo's
    typical ratio (1.3-2.4) so that a standard card's two indices (ratio about :data:`PAIR_TYPICAL`) were
    refused: a squared book's marker was read as two loose cards. Here a candidate still unused, in no other
    candidate, of ratio within :data:`PAIR_TOLERANCE` of :data:`PAIR_TYPICAL`, whose two indices each lie
    alone (:func:`_lone`), is one card (its height from :data:`PAIR_TYPICAL`). True boxes on the 100
    training-design dev tables: squared books missed 18 -> 16 (two mixed-deck tables), nothing else changed;
    held-out-design dev tables (no jumbo deck) and photoreal tables unchanged. ``rivals``: how many candidates
    each index is in.
    """
    out = set()
    for r, i, j in candidates:
        if used[i] or used[j] or rivals[i] != 1 or rivals[j] != 1 or r < STANDARD_MIN_RATIO:
            continue
        if abs(np.log(r / PAIR_TYPICAL)) > np.log(PAIR_TOLERANCE):
            continue
        if _lone(i, centers, sizes) and _lone(j, centers, sizes):
            used[i] = used[j] = True
            out.add((i, j))
    return out


#: the two halves of a four-index card's rectangle of index centres: midpoints within this many index sizes ...
RECT_MIDPOINT = 0.5
#: ... lengths within this fraction of each other, of this many index sizes (four-index cards of the generated
#: tables: 3.1-4.7, median 3.6) ...
RECT_LENGTH = 0.1
RECT_DIAGONAL = (2.5, 5.0)
#: ... and, for two pairs along opposite edges in a photo of fanned four-index cards, lying at least this many of
#: the fans' steps apart (two identical neighbours of such a fan make a rectangle one step wide)
RECT_MIN_STEPS = 1.3


def _four_corners(pairs: list[tuple[int, int]], codes: list[str], centers: np.ndarray, sizes: np.ndarray,
                  min_offset: float) -> list[tuple[int, ...]]:
    """The pairs as cards, two pairs of one code merged into one card when their four index centres are the
    corners of one rectangle: a card of a deck printed with an index in every corner (bonded, dondorf) seen whole
    shows all four, which pair as two cards (its two diagonals, or two opposite edges: the last card of such a
    fan, whose edge strips paired as the other cards' do). Two halves of a rectangle: one of the three ways of
    splitting the four points in two gives two segments with a common midpoint (within :data:`RECT_MIDPOINT`
    index sizes) and one length (within :data:`RECT_LENGTH`, and within :data:`RECT_DIAGONAL`), its diagonals;
    two pairs along opposite edges must also lie ``min_offset`` pixels apart (:data:`RECT_MIN_STEPS` of the
    photo's fan step: :func:`_rung_gaps`), and no other index may lie on the rectangle or within half an index
    size of its sides (the strips of two identical cards of such a fan, a few steps apart, make a rectangle too,
    with the cards between them on its long sides). Jokers are left as they pair: a joker of a two-index deck
    may bear a mark in every corner, and two of them side by side in a meld, each showing two, make such a
    rectangle (three held-out tables of the aguilar design, from true boxes). The merged card lists a diagonal
    first. Chosen on the dev tables together with :func:`_ladder` (true boxes: training-design fans counted
    right 0.690 -> 0.726, exact score 31 -> 33 of 100; with the models 0.452 -> 0.482 and 0.20 -> 0.21;
    held-out designs and photoreal unchanged; without the guard on its sides, exact 31 -> 30).

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
                corners = _rectangle(pairs[ks[a]], pairs[ks[b]], centers, sizes, min_offset)
                if corners:
                    merged[ks[a]] = corners
                    gone |= {ks[a], ks[b]}
    return [merged.get(k, pair) for k, pair in enumerate(pairs) if k not in gone or k in merged]


def _rectangle(first: tuple[int, int], second: tuple[int, int], centers: np.ndarray, sizes: np.ndarray,
               min_offset: float) -> tuple[int, ...] | None:
    """The four detections of two pairs as two diagonals (p, q, r, t) when their centres are one card's
    rectangle of index centres (:func:`_four_corners`), else None."""
    (a, b), (c, d) = first, second
    size = float(np.mean(sizes[[a, b, c, d]]))
    apart = float(np.linalg.norm(centers[a] + centers[b] - centers[c] - centers[d]) / 2)  # the pairs' midpoints
    for (p, q), (r, t) in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
        la = float(np.linalg.norm(centers[p] - centers[q]))
        lb = float(np.linalg.norm(centers[r] - centers[t]))
        mid = float(np.linalg.norm(centers[p] + centers[q] - centers[r] - centers[t]) / 2)
        if (mid > RECT_MIDPOINT * size or abs(la - lb) > RECT_LENGTH * max(la, lb)
                or min(la, lb) < RECT_DIAGONAL[0] * size or max(la, lb) > RECT_DIAGONAL[1] * size):
            continue
        if not ((p, q) == (a, b) or apart >= min_offset):  # its diagonals, or opposite edges far enough apart
            continue
        if _inside(centers, (p, r, q, t), exclude={a, b, c, d}, margin=0.5 * size):
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


def _rung_gaps(pairs: list[tuple[int, int]], centers: np.ndarray) -> np.ndarray:
    """(len(pairs),) pixels from each pair to the nearest pair parallel to it (:data:`LADDER_ANGLE`), of its
    length (:data:`LADDER_LENGTH`) and side by side (midpoints within one pair length, offset across the pairs'
    direction); inf for a pair with none."""
    gaps = np.full(len(pairs), np.inf)
    if len(pairs) < 2:
        return gaps
    v = np.array([centers[j] - centers[i] for i, j in pairs])
    length = np.maximum(np.linalg.norm(v, axis=1), 1e-9)
    u = v / length[:, None]
    mid = np.array([(centers[i] + centers[j]) / 2 for i, j in pairs])
    cos_max = np.cos(np.radians(LADDER_ANGLE))
    for a in range(len(pairs)):
        for b in range(len(pairs)):
            off = mid[b] - mid[a]
            gap = float(np.linalg.norm(off))
            if (a != b and abs(float(u[a] @ u[b])) >= cos_max and abs(length[a] / length[b] - 1) <= LADDER_LENGTH
                    and 0 < gap <= length[a] and abs(float(off @ u[a])) <= 0.5 * gap):
                gaps[a] = min(gaps[a], gap)
    return gaps


#: pairs parallel within this many degrees ...
LADDER_ANGLE = 10.0
#: ... and of lengths within this fraction of each other, side by side (midpoints within one pair length, offset
#: across the pairs' direction), are rungs of a ladder
LADDER_LENGTH = 0.15
#: a photo needs this many pairs, at least half of them rungs, to be read as a four-index deck's fans
LADDER_MIN_PAIRS = 3


def _ladder(gaps: np.ndarray) -> bool:
    """True when the paired indices (their :func:`_rung_gaps`) stack like the rungs of a ladder: a four-index deck (bonded, dondorf: an index
    in every corner) fanned, each card showing the two indices of the edge strip the next card leaves uncovered.

    Such a strip pair is shorter than a card's diagonal (1.9-2.4 index sizes across the short edge), so the photo
    looked like a jumbo-index deck (:func:`_typical_ratio`): its cards' heights came out about half their size
    and no two cards of a fan linked (``vision.piles``); :func:`pair_corners` then takes card heights from the
    standard diagonal (:data:`PAIR_TYPICAL`). A jumbo-index deck's fans show one index a card (the last card's
    two lie alone), so their pairs do not stack. On the dev tables from true boxes this fires on 6 of 8 tables of
    the four-index designs and on no other (jumbo-index kennard_bigindex included); fans counted right 0.683 ->
    0.690 and exact score 30 -> 31 of 100 on the training designs' dev tables (with the models 0.449 -> 0.452,
    0.19 -> 0.20); the held-out designs (no four-index deck) unchanged.
    """
    return len(gaps) >= LADDER_MIN_PAIRS and 2 * int(np.isfinite(gaps).sum()) >= len(gaps)


def agree_suits(dets: Detections, suit_p: np.ndarray) -> Detections:
    """The two corner indices of one card read as two suits of one colour, given the suit both readings favour.

    A card seen whole shows its index twice; the index reader reads each alone, and on small indices it often names
    two suits of one colour (3D and 3H, KS and KC): the rules need only the colour (``vision.reader``), but
    :func:`pair_corners` pairs only identical codes, so such a card counted twice (a red three counted as two) or
    as two partly seen cards (a squared book's marker read as loose). Two indices of one rank and colour whose
    geometry is that of one card (:func:`_pair_ratio`, within :data:`PAIR_TOLERANCE` of the photo's typical
    diagonal), neither paired by :func:`pair_corners` with an identical index, both take the suit *s* that
    maximises P_a(s) x P_b(s); each index agrees with one other at most (such pairs are matched as
    :func:`pair_corners` matches its candidates, :func:`_matching`), and the rounds repeat while they change a suit
    (:data:`AGREE_ROUNDS`).
    Pairing itself still wants identical codes: with true boxes, pairing by rank and colour joined cards of
    neighbouring piles (exact score 0.40 -> 0.38 on the held-out-design dev tables).

    Stage 1b runs it last (``vision.completion.read_with_fans``). Measured with the shipped models (detector v10,
    reader jk2) on cached run-time boxes: fans counted right 0.630 -> 0.633 (held-out-design dev tables), 0.419
    -> 0.422 (training-design dev), exact scores unchanged (0.23, 0.18), photoreal unchanged.

    Args:
        dets: read detections of one photo (boxes in pixels, card codes).
        suit_p: (n, 4) the reader's suit probabilities of each (:data:`vision.classes.SUIT_CODES`).

    Returns:
        the detections in the same order, with the suits agreed.
    """
    for _ in range(AGREE_ROUNDS):
        agreed = _agree_suits_once(dets, suit_p)
        if np.array_equal(agreed.class_id, dets.class_id):
            break
        dets = agreed
    return dets


#: :func:`agree_suits` repeats while a round changes a suit, at most this many times (two suits agreed can free
#: an index that :func:`pair_corners` had paired with one of them)
AGREE_ROUNDS = 3


def _agree_suits_once(dets: Detections, suit_p: np.ndarray) -> Detections:
    n = len(dets)
    if n < 2:
        return dets
    codes = dets.codes
    geometry = _geometry(dets)
    centers, sizes, ranks, interior, candidates = geometry
    typical = _typical_ratio(candidates, codes, centers, sizes)
    # only indices that pair_corners pairs are spoken for: an index with an identical candidate partner that
    # pairs with another index is free (a red three of a row read 3H at one corner and 3D at the other, beside a
    # 3H whose corners paired with each other)
    paired = {k for inst in _cards(dets, geometry) if inst.fully_visible for k in inst.detections}
    keys = [rank_colour(c) for c in codes]
    options = []
    for i in range(n):
        for j in range(i + 1, n):
            if codes[i] == codes[j] or keys[i] != keys[j] or keys[i] == "JK" or i in paired or j in paired:
                continue
            ratio = _pair_ratio(i, j, centers, sizes, ranks, interior)
            if ratio is None or abs(np.log(ratio / typical)) > np.log(PAIR_TOLERANCE):
                continue
            options.append((ratio, i, j))
    class_id = dets.class_id.copy()
    for i, j in _matching(options, typical):  # each index once, matched as pair_corners matches
        suit = int(np.argmax(suit_p[i] * suit_p[j] * _colour_mask(codes[i])))
        class_id[i] = class_id[j] = CLASS_ID[ranks[i] + SUIT_CODES[suit]]
    return Detections(dets.xyxy, dets.confidence, class_id)


def _colour_mask(code: str) -> np.ndarray:
    """(4,) 1 for the suits of ``code``'s colour, 0 for the others."""
    red = code[-1] in "HD"
    return np.array([(s in "HD") == red for s in SUIT_CODES], np.float64)


#: index-centre diagonal / card height (see CardInstance.card_height)
DIAGONAL_PER_HEIGHT = 0.925


def diagonal_apart(a: np.ndarray, b: np.ndarray, card_height: float) -> bool | np.ndarray:
    """True when index centres ``a`` ((2,) px) and ``b`` ((2,) px, or (k, 2): then a (k,) bool array) lie as far
    apart as a card's two corner indices: the diagonal of a card ``card_height`` px high
    (:data:`DIAGONAL_PER_HEIGHT`), within :data:`PAIR_TOLERANCE`."""
    diagonal = card_height * DIAGONAL_PER_HEIGHT
    distance = np.linalg.norm(np.asarray(b, np.float64) - np.asarray(a, np.float64), axis=-1)
    within = (diagonal / PAIR_TOLERANCE <= distance) & (distance <= diagonal * PAIR_TOLERANCE)
    return bool(within) if within.ndim == 0 else within


def _instance(code: str, idx: tuple[int, ...], centers: np.ndarray, sizes: np.ndarray,
              conf: np.ndarray, typical: float) -> CardInstance:
    size = float(sizes[list(idx)].mean())
    return CardInstance(code, idx, centers[list(idx)].copy(), size, float(conf[list(idx)].max()),
                        typical * size / DIAGONAL_PER_HEIGHT)
