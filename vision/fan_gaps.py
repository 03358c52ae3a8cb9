"""Stage 3a of the camera pipeline: a fan's regular step shows where a card's index was not read.

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
   the fan's median step
   (``gap_steps``) holds k - 1 cards whose index was not read. Each is counted as a natural of the fan's
   rank, of the suit most common among the fan's cards of that rank (the suit is a guess, and so is "natural":
   a wild there would score otherwise), and the pile says so in a note, so the user can remove it. A long
   first or last step counts among the "other steps": the fan is then not regular and nothing is filled. A
   joined fan whose gap measures between the two ranges of ``gap_steps`` gains no card.

An unread card is a :class:`vision.types.CardInstance` without detections: its one "centre" is where its
index would be (between its neighbours' indices) and its confidence is 0.

The thresholds are :class:`vision.config.FanGaps` (``config.fan_gaps``).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from . import geometry
from .classes import rank_of
from .config import DEFAULT, FanGaps, VisionConfig
from .fan_strays import drop_strays, pair_far_corners
from .geometry import anchor_points, continues_fan, fan_order, fan_steps, nearest_indices
from .piles import classify, cluster_key
from .types import CardInstance, Pile, PileKind


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
                        f"{code} counted as the fan's last card, seen only by its far corner (its top index is "
                        "hidden): remove it if it is a loose card",))
                piles[i] = meld
                del piles[j]
                joined = True
                break
    return [_filled(p, fan_gaps) for p in piles]


def _meld_rank(pile: Pile) -> str | None:
    """The natural rank of a meld (wilds aside), or None for any other pile and for a meld of wilds."""
    if pile.kind is not PileKind.MELD:
        return None
    keys = {cluster_key(c.code) for c in pile.cards} - {None}
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
        and cluster_key(other.cards[0].code) in (rank, None)  # None: a wild
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
            and cluster_key(other.cards[0].code) in (rank, None)):
        return False
    card = other.cards[0]
    q, diagonal = card.centers[0], card.card_height * config.pairing.diagonal_per_height
    pts = anchor_points(fan_order(list(meld.cards)))
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
            where.append(f"{unread} after card {pos}")
        out.append(b)
    notes = [n for n in pile.notes if not n.startswith("a gap after card")]
    return Pile(pile.kind, tuple(out), tuple(notes + [
        f"gaps in the fan ({', '.join(where)} of {len(cards)}): counted {len(out) - len(cards)} {rank}{suit} whose "
        "index was not read (the suit is a guess; a wild there would score otherwise): remove if there is none"]))
