"""Stage 2 of the camera pipeline: corner-index detections -> physical card instances.

A fully visible card shows two corner indices (top-left and bottom-right of the card face); a card in a fan
shows one. :func:`pair_corners` pairs the two indices of one card so each physical card counts once, and never
merges identical cards (five or six decks put several K♥ in one meld).

The two index centres of one card lie a card's index diagonal apart (about four index sizes for a standard deck;
*index size* = square root of the index box area), while consecutive cards of a fan lie about one index size
apart. Two same-code indices are paired when (thresholds: :class:`vision.config.Pairing`)

* their distance lies in the pairing range (adapted to the photo from unambiguous pairs: :func:`_typical_ratio`),
* their box sizes agree within ``pair_size_ratio``,
* no other index lies on the segment between them (a fan of identical cards puts its other indices exactly
  there; the face of a single card has none), nor an index of the same rank where the segment would continue
  at the same spacing on either side (two neighbours of a fan, not the corners of one card),
* neither lies inside a fan, between two indices on opposite sides of it (a covered card; :func:`_fan_interior`),

pairing as many indices as the candidates allow, nearest the photo's typical card diagonal (:func:`_matching`);
a lone joker's marks are measured in its card's index size (:func:`lone_jokers_rescaled`), and a standard card
among jumbo-index ones keeps its own diagonal (:func:`standard_pairs_among_big`). Two indices of one card read as two
suits of one colour are given one suit first (:func:`agree_suits`, with the reader's suit probabilities;
:func:`pair_and_agree` returns the cards paired from the agreed detections as well).

Which side each card belongs to: one photo per side (team) is the simple case: photo 1 is team ``A``, photo 2 team ``B``
... A whole-table photo is split by :func:`split_sides`: ``horizontal`` puts the bottom half (nearer the camera) in team
``A`` and the top half in ``B``; ``vertical`` puts the left half in ``A`` and the right half in ``B``. A card belongs to
the half that holds its corner index centre (a paired card: the mean of its two). Corners are paired once on the whole
photo to decide the halves, then again within each half (a pair never crosses the line); a pile the whole photo shows
over the line is cut in two, each part with a note (:data:`CUT_NOTE`).

Cards still held (hands and feet) come from an extra photo of a player's cards fanned face up
(``vision.pipeline.read_image(..., hand=True)``: every card in it is a card left, ``handfoot score --hand
TEAM:PHOTO``), from ``--left`` on the command line, or are entered later by editing the layout JSON.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from . import geometry
from .classes import CLASS_ID, SUIT_CODES, rank_colour, rank_of
from .config import DEFAULT, SPLITS, FanGeometry, Pairing, VisionConfig
from .geometry import four_corners, ladder, lone_jokers_rescaled, rung_gaps, standard_pairs_among_big
from .types import CardInstance, Detections, Pile


def reference_sizes(codes: list[str], centers: np.ndarray, sizes: np.ndarray, neighbours: int) -> np.ndarray:
    """(n,) index sizes in pixels that measure the card around each index: a natural's own box size, and for a
    joker the median size of the ``neighbours`` nearest natural indices (``Pairing.joker_size_neighbours``; its
    own when the photo has none).

    A joker's corner mark (a star, a ring, JOKER lettering) is drawn at its deck's own size, not at the size of
    the deck's rank and suit index, so its own box would make its card look smaller than it is and its fan
    neighbours too far away to link (``vision.piles``). These sizes give a card's height; pairing keeps the
    boxes' own sizes.
    """
    ref = sizes.copy()
    natural = np.array([c != "JK" for c in codes])
    if natural.all() or not natural.any():
        return ref
    nat = np.flatnonzero(natural)
    for i in np.flatnonzero(~natural):
        d = np.linalg.norm(centers[nat] - centers[i], axis=1)
        ref[i] = float(np.median(sizes[nat[np.argsort(d)[:neighbours]]]))
    return ref


def _fan_interior(centers: np.ndarray, sizes: np.ndarray, fans: FanGeometry) -> np.ndarray:
    """(n,) bool: index centres ((n, 2) px; ``sizes`` (n,) px) that lie inside a fan: between two other indices
    within ``fans.inside_reach`` of their own index sizes, on opposite sides at about the same distance
    (:func:`vision.geometry.inside_fan`, ``fans`` a :class:`vision.config.FanGeometry`). The card there is covered
    by the next one and shows one index, so it is never paired with an index at a card's diagonal. (Big-index
    decks are exempt, in :func:`_pair_ratio`: their cards' own two indices lie that close, and a fan puts
    neighbours around them.)
    """
    n = len(centers)
    out = np.zeros(n, bool)
    for i in range(n):
        d = np.linalg.norm(centers - centers[i], axis=1)
        near = np.flatnonzero((d > 0) & (d < fans.inside_reach * sizes[i]))
        out[i] = geometry.inside_fan(centers, i, near, fans.inside_even, fans.inside_angle)
    return out


def _chain_continues(a: np.ndarray, b: np.ndarray, others: np.ndarray, tolerance: float) -> bool:
    """True when a point of ``others`` ((m, 2) px) lies within ``tolerance`` px of one step beyond either end of
    the segment a-b (:func:`vision.geometry.beyond`: ``a - (b - a)`` or ``b + (b - a)``): the two are steps of a
    fan, not a card's diagonal."""
    if not len(others):
        return False
    return any(bool((np.linalg.norm(others - geometry.beyond(p, q), axis=1) < tolerance).any())
               for p, q in ((a, b), (b, a)))


def _typical_ratio(candidates: list[tuple[float, int, int]], codes: list[str], centers: np.ndarray,
                   sizes: np.ndarray, pairing: Pairing, one_fan: bool = False) -> float:
    """The photo's index-diagonal / index-size ratio (it depends on the deck: 1.3 for jumbo indices, 5 for small).

    A deck with big indices shows on *isolated* pairs: a code seen exactly twice, with no other index (of any
    rank) nearer to either than they are to each other (a squared book's marker, a loose card, a red three; two
    identical cards side by side in a fan of wilds have neighbours that near);
    when there are two or more and their median is under ``pairing.big_index_ratio``, that is the photo's ratio.
    Otherwise, over the pairs that have no rival candidate: their median when it is under ``big_index_ratio`` and
    no isolated pair has a standard ratio; else the median of those with a ratio of at least
    ``pairing.standard_min_ratio``. With fewer than two of those, the median of every candidate when it is under
    ``big_index_ratio`` (all the photo's pairs are short: big indices), else ``pairing.pair_typical``.

    With ``one_fan`` (a photo of one player's hand: one fan, whose top card alone is seen whole), one unrivalled
    pair is enough: it is that card, whose ratio differs by deck (with ``pair_typical`` it would count twice).
    """
    big = pairing.big_index_ratio
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
    if len(isolated) >= 2 and np.median(isolated) < big:
        return float(np.median(isolated))  # a deck with big (jumbo) indices
    rivals = Counter(k for _, i, j in candidates for k in (i, j))  # candidate pairs each index is in
    clear = [r for r, i, j in candidates if rivals[i] == 1 and rivals[j] == 1]
    if one_fan and len(clear) == 1:
        return float(clear[0])
    if len(clear) >= 2 and all(r < big for r in isolated) and np.median(clear) < big:
        return float(np.median(clear))  # no isolated pair of a standard deck; the unrivalled pairs say big indices
    clear = [r for r in clear if r >= pairing.standard_min_ratio]
    if len(clear) >= 2:
        return float(np.median(clear))
    every = [r for r, _, _ in candidates]
    if len(every) >= 2 and np.median(every) < big:
        return float(np.median(every))  # all the photo's pairs are short
    return pairing.pair_typical


def _pair_ratio(i: int, j: int, centers: np.ndarray, sizes: np.ndarray, ranks: np.ndarray,
                interior: np.ndarray, config: VisionConfig) -> float | None:
    """Centre distance / index size of indices ``i`` and ``j`` when their geometry allows them to be one card's
    two corners (sizes within ``pairing.pair_size_ratio``, ratio in ``pairing.pair_range``, neither inside a fan
    unless the ratio is a big-index deck's, no index on the segment between them, no index of the same rank
    continuing it), else ``None``. Codes are the caller's business."""
    pairing = config.pairing
    s = (sizes[i] + sizes[j]) / 2
    if max(sizes[i], sizes[j]) > pairing.pair_size_ratio * min(sizes[i], sizes[j]):
        return None
    ratio = float(np.linalg.norm(centers[i] - centers[j]) / s)
    if not pairing.pair_range[0] <= ratio <= pairing.pair_range[1]:  # the photo's own range: the caller's
        return None
    if ratio >= pairing.big_index_ratio and (interior[i] or interior[j]):
        return None  # an index inside a fan is a covered card's only one
    others = np.delete(centers, [i, j], axis=0)
    if geometry.segment_blocked(centers[i], centers[j], others, pairing.segment_clearance * s, config=config):
        return None
    same_rank = ranks == ranks[i]
    same_rank[[i, j]] = False
    if _chain_continues(centers[i], centers[j], centers[same_rank], pairing.chain_tolerance * s):
        return None
    return ratio


def _geometry(dets: Detections, config: VisionConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list]:
    """(centers (n, 2) px, sizes (n,) px, ranks (n,), interior (n,) bool, same-code pair candidates
    [(ratio, i, j)]) of one photo's detections."""
    centers, sizes = dets.centres, dets.sizes
    codes = dets.codes
    ranks = np.array([rank_of(c) for c in codes])
    interior = _fan_interior(centers, sizes, config.fans)
    candidates: list[tuple[float, int, int]] = []  # (ratio, i, j)
    by_code: dict[str, list[int]] = {}
    for i, c in enumerate(codes):
        by_code.setdefault(c, []).append(i)
    for idx in by_code.values():
        for a in range(len(idx)):
            for b in range(a + 1, len(idx)):
                ratio = _pair_ratio(idx[a], idx[b], centers, sizes, ranks, interior, config)
                if ratio is not None:
                    candidates.append((ratio, idx[a], idx[b]))
    return centers, sizes, ranks, interior, candidates


def pair_corners(dets: Detections, one_fan: bool = False, *, config: VisionConfig = DEFAULT) -> list[CardInstance]:
    """Group corner detections into card instances (each detection used once).

    Args:
        dets: corner-index detections of one photo (boxes in pixels). one_fan: the photo shows one fan of cards, a
        player's hand (``vision.pipeline.read_image(..., hand=True)``): its one card
            seen whole gives the photo's diagonal ratio (:func:`_typical_ratio`).
        config: the thresholds (``config.pairing``, and ``config.fans`` for the inside of a fan).

    Returns:
        Card instances, paired ones first, each with one, two or four detections (four: a four-index card seen
        whole, :func:`four_corners`); every detection belongs to exactly one instance.
    """
    return _cards(dets, _geometry(dets, config), config.pairing, one_fan) if len(dets) else []


def _matching(candidates: list[tuple[float, int, int]], typical: float, pairing: Pairing) -> list[tuple[int, int]]:
    """Pairs (i, j) of detection indices: within each group of candidates that share indices, the matching with
    the most pairs, then the least total ``|log(ratio / typical)|`` plus ``pairing.match_spread`` x the spread of
    its ratios (sum of ``|log ratio - mean|``: the cards of one photo share one diagonal); candidates beyond
    ``pairing.pair_tolerance`` of ``typical`` are never used. A group of more than ``pairing.match_max``
    candidates is paired greedily, nearest ``typical`` first.

    Pairing as many indices as possible, rather than the candidate nearest the typical ratio first, keeps a row
    of identical cards seen at an angle from pairing across neighbours.
    """
    ok = sorted((abs(np.log(r / typical)), i, j) for r, i, j in candidates
                if abs(np.log(r / typical)) <= np.log(pairing.pair_tolerance))
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
        if len(group) > pairing.match_max:
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
                total = cost + pairing.match_spread * disp
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


def _cards(dets: Detections, photo: tuple, pairing: Pairing, one_fan: bool = False) -> list[CardInstance]:
    """:func:`pair_corners` from the photo's :func:`_geometry` (computed once by callers that need both)."""
    n = len(dets)
    codes = dets.codes
    centers, sizes, _, _, candidates = photo
    typical = _typical_ratio(candidates, codes, centers, sizes, pairing, one_fan)
    sizes = reference_sizes(codes, centers, sizes, pairing.joker_size_neighbours)  # a card's size, for its height
    rivals = Counter(k for _, i, j in candidates for k in (i, j))  # candidate pairs each index is in
    candidates = lone_jokers_rescaled(candidates, codes, centers, sizes, rivals, pairing.lone_reach)
    used = np.zeros(n, bool)
    pairs = _matching(candidates, typical, pairing)
    for i, j in pairs:
        used[i] = used[j] = True
    standard: set[tuple[int, int]] = set()
    if typical < pairing.big_index_ratio:
        standard = standard_pairs_among_big(candidates, used, centers, sizes, rivals, pairing)
        pairs += sorted(standard)
    # card heights from the card diagonal; a four-index deck's fans pair each card's edge strip, shorter than it
    gaps = rung_gaps(pairs, centers, pairing)
    rungs = gaps[np.isfinite(gaps)]
    height_ratio = (pairing.pair_typical if typical < pairing.big_index_ratio and ladder(gaps, pairing)
                    else typical)
    step = float(np.median(rungs)) if len(rungs) else 0.0  # the fans' step, where pairs stack as a ladder
    groups = four_corners(pairs, codes, centers, sizes, pairing.rect_min_steps * step, pairing)
    per_height = pairing.diagonal_per_height
    out = [_instance(codes[g[0]], g, centers, sizes, dets.confidence,
                     pairing.pair_typical if tuple(g) in standard else height_ratio, per_height) for g in groups]
    out += [_instance(codes[i], (i,), centers, sizes, dets.confidence, height_ratio, per_height)
            for i in range(n) if not used[i]]
    return out


def agree_suits(dets: Detections, suit_p: np.ndarray, *, config: VisionConfig = DEFAULT) -> Detections:
    """The two corner indices of one card read as two suits of one colour, given the suit both readings favour.

    A card seen whole shows its index twice; the index reader reads each alone, and on small indices it often names
    two suits of one colour (3D and 3H, KS and KC): the rules need only the colour (``vision.models.reader``), but
    :func:`pair_corners` pairs only identical codes, so such a card would count twice (a red three counted as two)
    or as two partly seen cards (a squared book's marker read as loose). Two indices of one rank and colour whose
    geometry is that of one card (:func:`_pair_ratio`, within ``config.pairing.pair_tolerance`` of the photo's
    typical diagonal), neither paired by :func:`pair_corners` with an identical index, both take the suit *s* that
    maximises P_a(s) x P_b(s); each index agrees with one other at most (such pairs are matched as
    :func:`pair_corners` matches its candidates, :func:`_matching`), and the rounds repeat while they change a suit
    (at most ``config.pairing.agree_rounds``: two suits agreed can free an index that :func:`pair_corners` had
    paired with one of them). Pairing itself still wants identical codes (pairing by rank and colour joins cards
    of neighbouring piles).

    Stage 1b runs it last (``vision.completion.read_with_fans``).

    Args:
        dets: read detections of one photo (boxes in pixels, card codes).
        suit_p: (n, 4) the reader's suit probabilities of each (:data:`vision.classes.SUIT_CODES`).
        config: the thresholds (``config.pairing``, and ``config.fans`` for the inside of a fan).

    Returns:
        the detections in the same order, with the suits agreed.
    """
    return pair_and_agree(dets, suit_p, config=config)[0]


def pair_and_agree(dets: Detections, suit_p: np.ndarray, *,
                   config: VisionConfig = DEFAULT) -> tuple[Detections, list[CardInstance]]:
    """:func:`agree_suits` and the cards its detections pair into, paired once.

    Args:
        dets: read detections of one photo (boxes in pixels, card codes).
        suit_p: (n, 4) the reader's suit probabilities of each (:data:`vision.classes.SUIT_CODES`).
        config: the thresholds (``config.pairing``, and ``config.fans`` for the inside of a fan).

    Returns:
        ``(agreed, cards)``: the detections in the same order with the suits agreed (:func:`agree_suits`), and
        exactly the card instances ``pair_corners(agreed, config=config)`` gives (their detection indices are
        indices into ``agreed``).
    """
    cards: list[CardInstance] | None = None
    for _ in range(config.pairing.agree_rounds):
        agreed, cards = _agree_suits_once(dets, suit_p, config)
        if np.array_equal(agreed.class_id, dets.class_id):
            break
        dets, cards = agreed, None
    return dets, cards if cards is not None else pair_corners(dets, config=config)


def _agree_suits_once(dets: Detections, suit_p: np.ndarray,
                      config: VisionConfig) -> tuple[Detections, list[CardInstance] | None]:
    """One round of :func:`agree_suits`: the detections with suits agreed, and the cards ``dets`` (before the
    round) pair into (None for fewer than two detections)."""
    n = len(dets)
    if n < 2:
        return dets, None
    pairing = config.pairing
    codes = dets.codes
    photo = _geometry(dets, config)
    centers, sizes, ranks, interior, candidates = photo
    typical = _typical_ratio(candidates, codes, centers, sizes, pairing)
    # only indices that pair_corners pairs are spoken for: an index with an identical candidate partner that
    # pairs with another index is free (a red three of a row read 3H at one corner and 3D at the other, beside a
    # 3H whose corners paired with each other)
    cards = _cards(dets, photo, pairing)
    paired = {k for inst in cards if inst.fully_visible for k in inst.detections}
    keys = [rank_colour(c) for c in codes]
    options = []
    for i in range(n):
        for j in range(i + 1, n):
            if codes[i] == codes[j] or keys[i] != keys[j] or keys[i] == "JK" or i in paired or j in paired:
                continue
            ratio = _pair_ratio(i, j, centers, sizes, ranks, interior, config)
            if ratio is None or abs(np.log(ratio / typical)) > np.log(pairing.pair_tolerance):
                continue
            options.append((ratio, i, j))
    class_id = dets.class_id.copy()
    for i, j in _matching(options, typical, pairing):  # each index once, matched as pair_corners matches
        suit = int(np.argmax(suit_p[i] * suit_p[j] * _colour_mask(codes[i])))
        class_id[i] = class_id[j] = CLASS_ID[ranks[i] + SUIT_CODES[suit]]
    return dets.with_classes(class_id), cards


def _colour_mask(code: str) -> np.ndarray:
    """(4,) 1 for the suits of ``code``'s colour, 0 for the others."""
    red = code[-1] in "HD"
    return np.array([(s in "HD") == red for s in SUIT_CODES], np.float64)


def _instance(code: str, idx: tuple[int, ...], centers: np.ndarray, sizes: np.ndarray,
              conf: np.ndarray, typical: float, per_height: float) -> CardInstance:
    """The card instance of detections ``idx``: its height is ``typical`` index sizes of diagonal divided by
    ``per_height`` (``Pairing.diagonal_per_height``)."""
    size = float(sizes[list(idx)].mean())
    return CardInstance(code, idx, centers[list(idx)].copy(), size, float(conf[list(idx)].max()),
                        typical * size / per_height)


def split_sides(dets: Detections, width: int, height: int, split: str, *, cards: list[CardInstance] | None = None,
                config: VisionConfig = DEFAULT) -> dict[str, Detections]:
    """Split a whole-table photo's detections between two sides (see the module docstring) by the ``cards``
    they pair into on the whole photo (``pair_corners(dets, config=config)`` when not given).

    Raises:
        ValueError: for an unknown ``split`` (one of :data:`SPLITS`).
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    cards = pair_corners(dets, config=config) if cards is None else cards
    side_a = np.zeros(len(dets), bool)
    for c in cards:
        side_a[list(c.detections)] = _in_a(c.center, width, height, split)
    return {"A": dets[side_a], "B": dets[~side_a]}


def split_boxes(xyxy: np.ndarray, width: int, height: int, split: str, rows: np.ndarray | None = None
                ) -> dict[str, np.ndarray]:
    """Boxes ((m, 4) xyxy px, e.g. the unread ones of :func:`vision.pipeline.read_indices`) split between the
    sides as :func:`split_sides` splits cards, by each box's centre; with ``rows`` ((m, ...), one a box, e.g. the
    reader's probabilities of each) those rows split the same way instead."""
    xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
    side_a = np.array([_in_a(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), width, height, split) for b in xyxy], bool)
    if rows is not None:
        return {"A": rows[side_a], "B": rows[~side_a]}
    return {"A": xyxy[side_a], "B": xyxy[~side_a]}


#: the note on a pile of a split photo that the whole photo shows as one pile over the split line
CUT_NOTE = ("this pile crosses the middle line between the teams and was cut in two there: if it is one meld, move "
            "all its cards to one team")


def pile_boxes(pile: Pile, xyxy: np.ndarray) -> set[tuple[float, ...]]:
    """The corner boxes of ``pile``'s cards, as tuples of their xyxy pixels (``xyxy``: the (n, 4) boxes its cards'
    ``detections`` index), to find the same index in another pairing of the photo."""
    return {tuple(float(v) for v in xyxy[d]) for c in pile.cards for d in c.detections}


def crossing_piles(piles: list[Pile], width: int, height: int, split: str) -> list[Pile]:
    """The ``piles`` of a whole photo (grouped before the split) whose cards lie on both sides of the ``split`` line:
    a fan over the line, which :func:`split_sides` cuts in two (:func:`pile_boxes` finds its parts again)."""
    return [p for p in piles if len({_in_a(c.center, width, height, split) for c in p.cards}) == 2]


def _in_a(center, width: int, height: int, split: str) -> bool:
    x, y = center
    return bool(y >= height / 2 if split == "horizontal" else x < width / 2)
