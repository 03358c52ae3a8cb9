"""Stage 3a of the camera pipeline, over stage 3's piles: fans set right by their regular step. First the strays
and far corners (:func:`drop_strays`, :func:`pair_far_corners`), then the gaps (:func:`fill_fan_gaps`), last the top
cards seen by unread corners (:func:`read_top_cards`).

Stage 3a, first: cards stage 3 put in a fan that its regular step says are not the fan's, and the far corner
of a fan's top card left unpaired.

A meld is fanned at a regular step, and every card inside the fan is needed for it: take one out and its two
neighbours lie about two steps apart (seed 000 "Melding"). Stage 3 (:func:`vision.piles.group_piles`) links cards
by distance, so a card lying beside a fan (a squared book's marker, a loose card, a wild of the next pile) whose
index comes within its link distance is counted in the fan: one card too many, and a book of seven read as a
meld of eight. Here, over stage 3's piles:

1. **strays** (:func:`drop_strays`): a card inside a meld (not at either end) whose two neighbours lie at most
   ``stray_bridge`` times the fan's median step apart (the median of the other steps) is not the fan's: it leaves
   the meld as a pile of its own (a whole card: a squared book's marker for stage 3b to check; a card seen by one
   corner: loose), with a note on the meld. Of several candidates the one whose neighbours lie nearest the
   median step apart goes first, and the test is asked again.
2. **far corners** (:func:`pair_far_corners`): a loose card seen by one corner whose code is that of a meld's end
   card, itself seen by one corner, lying one card diagonal from it (within ``end_corner_tolerance``), and nearer
   that than one diagonal from where the fan's next card would be (that is :func:`vision.fans._far_corner_of`'s
   case: a last card whose top index is hidden), is that end card's other corner, left unpaired by stage 2: the
   two become one card seen whole. The count is unchanged; the loose card, which was not scored, is gone.

The thresholds are :class:`vision.config.FanGaps` (``config.fan_gaps``).

Stage 3a of the camera pipeline: a fan's regular step shows where a card's index was not read.

A meld is fanned at a regular step: each card overlaps the one before so that its corner index shows (seed 000
"Melding"). When the detector misses an index, or the reader drops it, the fan shows one step about twice its
usual one, and stage 3 (:func:`vision.piles.group_piles`) either keeps one pile with a gap in it or, when the gap
is longer than its link distance, splits the fan into two melds of one rank. This stage, over stage 3's piles:

1. **joins** two melds of one natural rank when one continues the other's line: an end card of the second lies
   beyond an end card of the first, within ``join_angle`` of the first's direction there, at ``join_steps``
   times its median step (a fan split by one or two unread cards; steps between the cards' index centres
   nearest the fan's middle: :func:`vision.geometry.continues_fan`); and a meld with a meld or a single card (of its
   rank, or a wild) lying on its line at ``near_steps`` times the step at that end (the fan's next card: in a
   photo taken at an angle a fan's step across the view measures more card heights than stage 3's link
   distance, and the steps grow towards the camera); and a meld that shows no card whole with a loose card of
   its rank (or a wild) lying one card diagonal beyond its next card's place (:func:`_far_corner_of`: the far
   corner of a last card whose top index is hidden; the pile says so);
2. **counts the cards in a gap**: in a meld of ``min_cards`` or more whose other steps are regular
   (``regular``), a step inside the fan (not its first or last: there an end card's far corner, left
   unpaired, or another index of a four-index deck looks the same; but with ``fill_whole_ends`` a first or
   last step beside an end card seen whole, whose top index is then the one beside the fan) of about k times
   the fan's median step (``gap_steps``) holds k - 1 cards whose index was not read. Each is counted as a
   natural of the fan's rank, of the suit most common among the fan's cards of that rank (the suit is a guess,
   and so is "natural": a wild there would score otherwise), and the pile says so in a note, so the user can
   remove it. A long first or last step not filled counts among the "other steps": the fan is then not regular
   and nothing is filled. A joined fan whose gap measures between the two ranges of ``gap_steps`` gains no card.

An unread card is a :class:`vision.types.CardInstance` without detections: its one "centre" is where its
index would be (between its neighbours' indices) and its confidence is 0.

The thresholds are :class:`vision.config.FanGaps` (``config.fan_gaps``).

Stage 3a, last: a fan's top card seen by two corners the detector boxed but the reader could not read.

The last card laid on a fan (its top card) shows its whole face, both corner indices (seed 000 "Melding"). When
none of a meld's cards shows both, its top card was not read: on the photoreal tables most such cards are jokers,
whose corner marks differ by deck and are boxed with low confidence (stage 1b). :func:`read_top_cards` looks for
the top card in the boxes no read index covers (``vision.pipeline.read_indices``): one lies where the fan's next
index would be (one step beyond an end card, along the fan: ``top_steps`` times the step there, within
``top_angle``), the other a card's diagonal from it (:func:`vision.geometry.diagonal_apart`), both of about one
index's size (``config.fans.size_ratio``, the marks of a joker drawn smaller: ``top_size_ratio``) with no read
index between them. The card is counted in the meld as the code the reader's probabilities of the two boxes
favour among the fan's rank, a two and a joker (the product of their probabilities), and the pile says so. When no
such pair lies there, a meld of one natural rank may take its top card from its far corner alone: an unread box a
card's diagonal from the fan's next place that the reader is sure of (``top_far_p``; :func:`_far_corner_top`), the
top index itself not boxed (a joker's mark drawn unlike the indices the detector learned).

The thresholds are :class:`vision.config.FanGaps` (``config.fan_gaps``, ``top_*``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from scorer.wording import counted, listed

from . import geometry
from .classes import RANKS, SUIT_CODES, rank_of
from .config import DEFAULT, FanGaps, VisionConfig
from .geometry import continues_fan, diagonal_apart, fan_order, fan_steps, nearest_indices, segment_blocked
from .piles import GAP_NOTE, classify
from .types import CardInstance, Detections, Pile, PileKind


def drop_strays(piles: list[Pile], *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """Every meld of ``piles`` without the cards its regular step says are not its own (module docstring, 1);
    each such card follows its meld as a pile of one card (:func:`vision.piles.classify`)."""
    out: list[Pile] = []
    for pile in piles:
        if pile.kind is not PileKind.MELD or len(pile.cards) < config.fan_gaps.min_cards:
            out.append(pile)
            continue
        cards, strays = list(pile.cards), []
        while len(cards) >= config.fan_gaps.min_cards:
            k = _stray(cards, config.fan_gaps.stray_bridge, config.fan_gaps.stray_detour)
            if k is None:
                break
            strays.append(cards.pop(k))
        if not strays:
            out.append(pile)
            continue
        ranks = {c.key for c in cards} - {None}
        meld = classify(fan_order(cards), ranks, config=config)
        one = len(strays) == 1
        out.append(Pile(meld.kind, meld.cards, meld.notes + (
            f"{listed([c.code for c in strays])} {'lies' if one else 'lie'} beside this fan, out of line with its "
            f"cards, so {'it is' if one else 'they are'} not counted in it; if {'it belongs' if one else 'they belong'}"
            f" to the fan, move {'it' if one else 'them'} here",)))
        out.extend(classify([c], {c.key} - {None}, config=config) for c in strays)
    return out


def _stray(cards: list[CardInstance], bridge: float, detour: float) -> int | None:
    """Position of the inner card of the fan ``cards`` (in fan order) whose neighbours lie at most ``bridge``
    times the median of the fan's other steps apart, and whose own two steps add up to at least ``detour`` times
    that distance, the one whose neighbours lie nearest the median apart; None when there is none."""
    steps = fan_steps(cards)
    best, best_miss = None, np.inf
    for k in range(1, len(cards) - 1):
        others = steps[:k - 1] + steps[k + 1:]
        median = float(np.median(others)) if others else 0.0
        if median <= 0:
            continue
        a, b = nearest_indices(cards[k - 1], cards[k + 1])
        span = float(np.linalg.norm(a - b))
        ratio = span / median
        if ratio <= bridge and steps[k - 1] + steps[k] >= detour * span and abs(np.log(max(ratio, 1e-6))) < best_miss:
            best, best_miss = k, abs(np.log(max(ratio, 1e-6)))
    return best


def pair_far_corners(piles: list[Pile], *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """``piles`` with each meld's end card joined by its far corner when stage 2 left that corner a loose card
    (module docstring, 2); the loose pile is then gone."""
    piles = list(piles)
    tolerance = config.fan_gaps.end_corner_tolerance
    i = 0
    while i < len(piles):
        pile = piles[i]
        if pile.kind is not PileKind.MELD or len(pile.cards) < 2:
            i += 1
            continue
        order, pts = list(pile.fan), pile.anchors
        joined = False
        for end, (e, p) in ((0, (pts[0], pts[1])), (len(order) - 1, (pts[-1], pts[-2]))):
            card = order[end]
            if card.fully_visible or not card.detections:
                continue
            diagonal = card.card_height * config.pairing.diagonal_per_height
            for j, other in enumerate(piles):
                if j == i or other.kind is not PileKind.LOOSE or len(other.cards) != 1:
                    continue
                corner = other.cards[0]
                if corner.code != card.code or len(corner.detections) != 1:
                    continue
                q = corner.centers[0]
                miss = abs(float(np.linalg.norm(q - card.centers[0])) / diagonal - 1)
                miss_next = abs(float(np.linalg.norm(q - geometry.beyond(e, p))) / diagonal - 1)
                if miss <= tolerance and miss < miss_next:
                    whole = CardInstance(card.code, card.detections + corner.detections,
                                         np.concatenate([card.centers, corner.centers]),
                                         (card.size + corner.size) / 2, max(card.confidence, corner.confidence),
                                         card.card_height)
                    order[end] = whole
                    piles[i] = Pile(pile.kind, tuple(order), pile.notes)
                    del piles[j]
                    joined = True
                    break
            if joined:
                break
        if not joined or j > i:
            i += 1
    return piles


def fill_fan_gaps(piles: list[Pile], *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """Join melds split by unread cards and count the unread cards in every fan's gaps (module docstring).

    Args:
        piles: stage 3's piles of one side (:func:`vision.piles.group_piles`).
        config: the thresholds (``config.fan_gaps``; ``config.pairing.diagonal_per_height`` for a card's diagonal,
            ``config.piles`` for the joined piles' notes).

    Returns:
        The piles in the same order, a joined meld in the place of its first part; piles that gained unread
        cards carry a note saying how many and where.
    """
    fan_gaps = config.fan_gaps
    piles = pair_far_corners(drop_strays(list(piles), config=config), config=config)
    joined = True
    while joined:
        joined = False
        melds = [i for i, p in enumerate(piles) if _meld_rank(p)]
        for a, i in enumerate(melds):
            for j in melds[a + 1:]:
                if _meld_rank(piles[i]) == _meld_rank(piles[j]) and (
                        _continues(piles[i], piles[j], fan_gaps) or _continues(piles[j], piles[i], fan_gaps)):
                    cards = fan_order(list(piles[i].cards) + list(piles[j].cards))
                    piles[i] = classify(cards, {_meld_rank(piles[i])}, config=config)
                    del piles[j]
                    joined = True
                    break
            if joined:
                break
        if joined:
            continue
        for i in (i for i, p in enumerate(piles) if _meld_rank(p)):
            rank = _meld_rank(piles[i])
            j = next((j for j, q in enumerate(piles) if j != i and _next_card_of(piles[i], q, rank, fan_gaps)), None)
            far = None
            if j is None:
                far = j = next((j for j, q in enumerate(piles)
                                if j != i and _far_corner_of(piles[i], q, rank, config)), None)
            if j is not None:
                meld = classify(fan_order(list(piles[i].cards) + list(piles[j].cards)), {rank}, config=config)
                if far is not None:
                    code = piles[j].cards[0].code
                    meld = Pile(meld.kind, meld.cards, meld.notes + (
                        f"{code} is counted as this fan's last card, though only its far corner shows (the corner "
                        "beside the fan is hidden); if it is a loose card, remove it",))
                piles[i] = meld
                del piles[j]
                joined = True
                break
    return [_filled(p, fan_gaps) for p in piles]


def _meld_rank(pile: Pile) -> str | None:
    """The natural rank of a meld (wilds aside), or None for any other pile and for a meld of wilds."""
    if pile.kind is not PileKind.MELD:
        return None
    keys = {c.key for c in pile.cards} - {None}
    return next(iter(keys)) if len(keys) == 1 and keys != {"3R"} else None


def _continues(first: Pile, second: Pile, fan_gaps: FanGaps) -> bool:
    """True when an end card of ``second`` lies on ``first``'s line beyond one of its end cards, at
    ``fan_gaps.join_steps`` times its median step and within ``fan_gaps.join_angle`` of its direction
    (:func:`vision.geometry.continues_fan`)."""
    return any(continues_fan(list(first.cards), card, fan_gaps.join_steps, fan_gaps.join_angle)
               for card in (second.cards[0], second.cards[-1]))


def _next_card_of(meld: Pile, other: Pile, rank: str, fan_gaps: FanGaps) -> bool:
    """True when ``other`` (a meld of ``rank``, or a single card of it or a wild: a squared book's marker or a loose
    card) continues ``meld``'s line beyond an end card at ``fan_gaps.near_steps`` times the step between that card and
    its neighbour, within ``fan_gaps.join_angle``: it is the fan's next card. (A squared book there would lie on the
    fan's last card.) :func:`vision.geometry.continues_fan` with the end step, not the median, since in a photo at an
    angle the steps grow towards the camera."""
    single = other.kind in (PileKind.SQUARED_BOOK, PileKind.LOOSE) and len(other.cards) == 1 \
        and other.cards[0].key in (rank, None)  # None: a wild
    if not (single or _meld_rank(other) == rank):
        return False
    return any(continues_fan(list(meld.cards), card, fan_gaps.near_steps, fan_gaps.join_angle, end_step=True)
               for card in (other.cards[0], other.cards[-1]))


def _far_corner_of(meld: Pile, other: Pile, rank: str, config: VisionConfig) -> bool:
    """True when ``other`` is a loose card of ``rank`` (or a wild) seen by one index lying one card diagonal (within
    ``config.fan_gaps.far_corner_tolerance`` of it) from where the next card's top index of ``meld`` would be, one
    step beyond an end card (:func:`vision.geometry.beyond`), and ``meld`` (two or more cards) shows no card
    whole: the far corner of a last card whose top index is hidden (under a cup, or another card). A fan's last
    card shows both its indices; when none of the fan's cards does, its last card's top index was not seen. The
    diagonal is the loose card's own estimate (:attr:`vision.types.CardInstance.card_height` x
    ``config.pairing.diagonal_per_height``)."""
    if len(meld.cards) < 2 or any(c.fully_visible for c in meld.cards):
        return False
    if not (other.kind is PileKind.LOOSE and len(other.cards) == 1
            and other.cards[0].key in (rank, None)):
        return False
    card = other.cards[0]
    q, diagonal = card.centers[0], card.card_height * config.pairing.diagonal_per_height
    pts = meld.anchors
    for end, prev in ((pts[-1], pts[-2]), (pts[0], pts[1])):
        if abs(float(np.linalg.norm(q - geometry.beyond(end, prev))) / diagonal - 1) \
                <= config.fan_gaps.far_corner_tolerance:
            return True
    return False


def _filled(pile: Pile, fan_gaps: FanGaps) -> Pile:
    """``pile`` with the unread cards of its gaps counted (itself when it has none)."""
    rank = _meld_rank(pile)
    if rank is None or len(pile.cards) < fan_gaps.min_cards:
        return pile
    cards = list(pile.cards)
    suit = Counter(c.code[len(rank):] for c in cards if rank_of(c.code) == rank).most_common(1)[0][0]
    steps = fan_steps(cards)
    median = float(np.median(steps))
    if median <= 0:
        return pile
    # an end step only beside an end card seen whole: its top index is the one beside the fan (no far corner left
    # unpaired there)
    inner = [0 < pos < len(steps) - 1 or (fan_gaps.fill_whole_ends and (
        (pos == 0 and cards[0].fully_visible) or (pos == len(steps) - 1 and cards[-1].fully_visible)))
        for pos in range(len(steps))]
    unread_in = [next((k for k, (lo, hi) in enumerate(fan_gaps.gap_steps, start=1) if lo <= step / median <= hi), 0)
                 if inner[pos] else 0 for pos, step in enumerate(steps)]
    usual = [step / median for step, k in zip(steps, unread_in) if not k]
    if not any(unread_in) or not all(fan_gaps.regular[0] <= r <= fan_gaps.regular[1] for r in usual):
        return pile
    out, where = [cards[0]], []
    for pos, (a, b, unread) in enumerate(zip(cards, cards[1:], unread_in), start=1):
        ia, ib = nearest_indices(a, b)
        for k in range(unread):
            t = (k + 1) / (unread + 1)
            out.append(CardInstance(rank + suit, (), (ia + t * (ib - ia))[None, :], a.size, 0.0, a.card_height))
        if unread:
            where.append((unread, f"between {a.code} and {b.code}"))
        out.append(b)
    notes = [n for n in pile.notes if not n.startswith(GAP_NOTE)]
    added = len(out) - len(cards)
    places = where[0][1] if len(where) == 1 else ", ".join(f"{k} {place}" for k, place in where)
    return Pile(pile.kind, tuple(out), tuple(notes + [
        f"this fan has room for {counted(added, 'card')} whose {'corner was' if added == 1 else 'corners were'} not "
        f"read ({places}): counted as {listed([rank + suit] * added)} (the suit is a guess): "
        + ("correct it if it is a wild, remove it if there is none" if added == 1 else
           "correct any that is a wild, remove any that is not there")]))


def read_top_cards(piles: list[Pile], unread: Detections, *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """``piles`` with the top card of each meld that shows no card whole counted from two unread boxes (module
    docstring); ``unread`` holds the boxes no read index covers, with the reader's ``rank_p`` (n, 15) and
    ``suit_p`` (n, 4) data columns (without them, or without such boxes, the piles are returned unchanged)."""
    if not len(unread) or "rank_p" not in unread.data:
        return list(piles)
    centres, sizes = unread.centres, unread.sizes
    read = np.concatenate([c.centers for p in piles for c in p.cards]) if piles else np.zeros((0, 2))
    used: set[int] = set()
    out = []
    for pile in piles:
        found = _top_card(pile, unread, centres, sizes, read, used, config) \
            if pile.kind is PileKind.MELD and len(pile.cards) >= 2 and not any(c.fully_visible for c in pile.cards) \
            else None
        if found is None:
            out.append(pile)
            continue
        card, end, boxes = found
        used.update(boxes)
        cards = list(pile.fan)
        cards = cards + [card] if end else [card] + cards
        out.append(Pile(pile.kind, tuple(cards), pile.notes + (
            f"{card.code} is counted as this fan's top card, though its two corners could not be read clearly "
            f"({card.code} is a best guess): correct it if it is another card, remove it if there is none",)))
    return out


def _top_card(pile: Pile, unread: Detections, centres: np.ndarray, sizes: np.ndarray, read: np.ndarray,
              used: set[int], config: VisionConfig) -> tuple[CardInstance, bool, tuple[int, int]] | None:
    """(the top card, True when it follows the fan's last card (False: before its first), the two boxes) of the
    meld ``pile``, or None."""
    fg = config.fan_gaps
    order, pts = list(pile.fan), pile.anchors
    height = float(np.median([c.card_height for c in order]))
    size = float(np.median([c.size for c in order]))
    near = geometry.similar_size(sizes, size, fg.top_size_ratio)
    best = None
    for last, (end, prev) in ((True, (pts[-1], pts[-2])), (False, (pts[0], pts[1]))):
        step = float(np.linalg.norm(end - prev))
        for a in np.flatnonzero(near):
            # a joker's mark sits where its deck draws it, off the naturals' line: a wider angle for a sure one
            angle = fg.top_joker_angle if unread.data["rank_p"][a, RANKS.index("JK")] >= fg.top_joker_p \
                else fg.top_angle
            if a in used or not geometry.continues_line(end, prev, centres[a], step, fg.top_steps, angle):
                continue
            partners = [b for b in np.flatnonzero(diagonal_apart(centres[a], centres, height, config=config)
                                                  & geometry.similar_size(sizes, sizes[a], config.fans.size_ratio))
                        if b != a and b not in used
                        and not segment_blocked(centres[a], centres[b], read, config.stacks.one_corner_clearance * size,
                                                config=config)]
            for b in partners:
                miss = abs(float(np.linalg.norm(centres[a] - end)) / step - 1)
                if best is None or miss < best[0]:
                    best = (miss, last, int(a), int(b))
    if best is None:
        return _far_corner_top(pile, unread, centres, sizes, read, used, size, height, config)
    _, last, a, b = best
    code = _code(pile, unread, (a, b))
    card = CardInstance(code, (), centres[a][None, :].copy(), float(sizes[a]), 0.0, height)
    return card, last, (a, b)


def _far_corner_top(pile: Pile, unread: Detections, centres: np.ndarray, sizes: np.ndarray, read: np.ndarray,
                    used: set[int], size: float, height: float, config: VisionConfig
                    ) -> tuple[CardInstance, bool, tuple[int, int]] | None:
    """The top card of a meld of one natural rank seen by its far corner alone: one unread box a card's diagonal
    (within ``config.fan_gaps.far_corner_tolerance``) from the fan's next place beyond an end, nearer that than a
    diagonal from the end card itself (whose own far corner lies a step short of it), which the reader gives the
    fan's rank, a two or a joker with ``config.fan_gaps.top_far_p`` or more, of a size within ``top_size_ratio`` of
    the fan's indices, with no read index between it and that place and no unread box a diagonal from it near that
    place (``top_steps``: the pair :func:`_top_card` turned down). Its top index was not boxed (under the next
    card's shadow, or drawn unlike the indices the detector learned); the card is placed there. Same return as
    :func:`_top_card` (the box twice)."""
    fg = config.fan_gaps
    keys = {c.key for c in pile.cards} - {None}
    if fg.top_far_p > 1 or len(keys) != 1:  # a meld of wilds alone: a joker's face beside it shows marks anywhere
        return None
    pts, diagonal = pile.anchors, height * config.pairing.diagonal_per_height
    near = geometry.similar_size(sizes, size, fg.top_size_ratio)
    options = [RANKS.index("2"), RANKS.index("JK"), RANKS.index(next(iter(keys)))]
    best = None
    for last, (end, prev) in ((True, (pts[-1], pts[-2])), (False, (pts[0], pts[1]))):
        q, step = geometry.beyond(end, prev), float(np.linalg.norm(end - prev))
        miss = np.abs(np.linalg.norm(centres - q, axis=1) / diagonal - 1)
        own = np.abs(np.linalg.norm(centres - end, axis=1) / diagonal - 1)  # the end card's own far corner there
        for a in np.flatnonzero(near & (miss <= fg.far_corner_tolerance) & (miss < own)):
            if a in used or unread.data["rank_p"][a, options].max() < fg.top_far_p \
                    or segment_blocked(q, centres[a], read, config.stacks.one_corner_clearance * size, config=config):
                continue
            partner = diagonal_apart(centres[a], centres, height, config=config) & \
                (np.linalg.norm(centres - q, axis=1) <= fg.top_steps[1] * step)
            if partner.any():  # its top index was boxed, off the fan's next place: not this fan's top card
                continue
            if best is None or miss[a] < best[0]:
                best = (miss[a], last, int(a), q)
    if best is None:
        return None
    _, last, a, q = best
    code = _code(pile, unread, (a,))
    return CardInstance(code, (), np.asarray(q, np.float64)[None, :], size, 0.0, height), last, (a, a)


def _code(pile: Pile, unread: Detections, boxes: tuple[int, int]) -> str:
    """The code the reader's probabilities of ``boxes`` favour among the meld's natural rank (of its most common
    suit), a two (of the boxes' likeliest suit) and a joker; a meld of wilds chooses between a two and a joker."""
    rank_p, suit_p = unread.data["rank_p"][list(boxes)], unread.data["suit_p"][list(boxes)]
    keys = {c.key for c in pile.cards} - {None}
    natural = next(iter(keys)) if len(keys) == 1 else None
    choices = ["2", "JK"] + ([natural] if natural else [])
    score = {r: float(np.log(rank_p[:, RANKS.index(r)] + 1e-6).sum()) for r in choices}
    rank = max(choices, key=lambda r: score[r])
    if rank == "JK":
        return "JK"
    if rank == natural:
        suits = Counter(c.code[len(natural):] for c in pile.cards if rank_of(c.code) == natural)
        return natural + suits.most_common(1)[0][0]
    return "2" + SUIT_CODES[int(np.log(suit_p + 1e-6).sum(0).argmax())]
