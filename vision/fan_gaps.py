"""Stage 3a of the camera pipeline: a fan's regular step shows where a card's index was not read.

A meld is fanned at a regular step: each card overlaps the one before so that its corner index shows (seed 000
"Melding"; the generated tables of ``datasets.scenes`` step 0.27-0.40 card heights down the table, 0.22-0.36
card widths across it). When the detector misses an
index, or the reader drops it, the fan shows one step about twice its usual one, and stage 3
(:func:`vision.piles.group_piles`) either keeps one pile with a gap in it or, when the gap is longer than its link
distance, splits the fan into two melds of one rank. This stage, over stage 3's piles:

1. **joins** two melds of one natural rank when one continues the other's line: an end card of the second lies
   beyond an end card of the first, within :data:`JOIN_ANGLE` of the first's direction there, at
   :data:`JOIN_STEPS` times its median step (a fan split by one or two unread cards; steps between the cards'
   index centres nearest the fan's middle: ``vision.piles._continues_line``); and a meld with a meld or a single
   card (of its rank, or a wild) lying on its line at :data:`NEAR_STEPS` times the step at that end (the fan's
   next card: in a photo taken at an angle a fan's step across the view measures more card heights than stage
   3's link distance, and the steps grow towards the camera; true boxes, training-design dev tables: fans 220
   -> 223 of 303, exact score 0.33 -> 0.36; held-out-design dev and photoreal tables unchanged; cached run-time
   boxes: training-design fans 0.482 -> 0.488 and exact score 0.20 -> 0.21, nothing else changed); and a meld
   that shows no card whole with a loose card of its rank (or a wild) lying one card diagonal beyond its next
   card's place (:func:`_far_corner_of`: the far corner of a last card whose top index is hidden; the pile says
   so; true boxes: held-out-design dev tables fans 263 -> 265 of 297, exact score 0.41 -> 0.42, training-design
   ones 223 -> 224, photoreal unchanged; cached run-time boxes: held-out-design fans 0.667 -> 0.677, exact score
   0.24 -> 0.25, training-design fans 0.488 -> 0.492 (the wilds), photoreal unchanged);
2. **counts the cards in a gap**: in a meld of :data:`MIN_CARDS` or more whose other steps are regular
   (:data:`REGULAR`), a step inside the fan (not its first or last: there an end card's far corner, left
   unpaired, or another index of a four-index deck looks the same) of about k times the fan's median step
   (:data:`GAP_STEPS`) holds k - 1 cards whose index was not read. Each is counted as a natural of the fan's
   rank, of the suit most common among the fan's cards of that rank (the suit is a guess, and so is "natural":
   a wild there would score otherwise), and the pile says so in a note, so the user can remove it. A long
   first or last step counts among the "other steps": the fan is then not regular and nothing is filled. A
   joined fan whose gap measures between the two ranges of :data:`GAP_STEPS` gains no card.

An unread card is a :class:`vision.instances.CardInstance` without detections: its one "centre" is where its
index would be (between its neighbours' indices) and its confidence is 0.

Measured on the dev tables (cached run-time boxes of detector v10 and the averaged reader; fans counted right):
held-out designs 0.650 -> 0.660, training designs 0.436 -> 0.446, photoreal tables 35 of 47 either way; exact
scores unchanged (0.23, 0.19, 4 of 8). From true boxes: held-out designs unchanged, training designs 0.673 ->
0.680. Filling the fans' first and last steps as well gained two more fans on the training designs but put more
cards into fans already over-counted. Of the held-out-design dev tables' fans whose only unread cards lie
inside the fan (24 of 297), half hold a wild among them: those are counted right but scored as naturals.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .classes import rank_of
from .instances import DIAGONAL_PER_HEIGHT, CardInstance
from .piles import Pile, PileKind, _anchor_points, _classify, _continues_line, _key, _nearest_indices, _order, _steps

#: a meld needs this many cards (three steps) before its median step can tell a gap from its usual step
MIN_CARDS = 4
#: a step of these multiples of the fan's median step holds one, two unread cards (inclusive ranges)
GAP_STEPS = ((1.7, 2.35), (2.6, 3.4))
#: ... but only in a fan whose other steps all lie in this range of its median step (a fan of one deck's cards
#: at one step; the extra corner indices of four-index decks, or a neighbour's cards, make the steps uneven)
REGULAR = (0.7, 1.4)
#: two melds of one rank are one fan when one continues the other's line at these multiples of its step ...
JOIN_STEPS = (1.7, 3.4)
#: ... within this angle (degrees) of its direction beyond its end card
JOIN_ANGLE = 15.0
#: a meld is also joined by a pile of its rank (a meld, or a single card of its rank or a wild) whose end card lies
#: on its line at these multiples of the meld's step at that end: the fan's next card, split off where the photo's
#: perspective makes a step longer than stage 3's link distance
NEAR_STEPS = (0.7, 1.4)
#: a loose card of a meld's rank whose index lies this close (fraction of a card diagonal) to one card diagonal
#: from where the meld's next card would be is that card's far corner (:func:`_far_corner_of`)
FAR_CORNER_TOLERANCE = 0.25


def fill_fan_gaps(piles: list[Pile]) -> list[Pile]:
    """Join melds split by unread cards and count the unread cards in every fan's gaps (module docstring).

    Args:
        piles: stage 3's piles of one side (:func:`vision.piles.group_piles`).

    Returns:
        The piles in the same order, a joined meld in the place of its first part; piles that gained unread
        cards carry a note saying how many and where.
    """
    piles = list(piles)
    joined = True
    while joined:
        joined = False
        melds = [i for i, p in enumerate(piles) if _meld_rank(p)]
        for a, i in enumerate(melds):
            for j in melds[a + 1:]:
                if _meld_rank(piles[i]) == _meld_rank(piles[j]) and (
                        _continues(piles[i], piles[j]) or _continues(piles[j], piles[i])):
                    cards = _order(list(piles[i].cards) + list(piles[j].cards))
                    piles[i] = _classify(cards, {_meld_rank(piles[i])})
                    del piles[j]
                    joined = True
                    break
            if joined:
                break
        if joined:
            continue
        for i in (i for i, p in enumerate(piles) if _meld_rank(p)):
            rank = _meld_rank(piles[i])
            j = next((j for j, q in enumerate(piles) if j != i and _next_card_of(piles[i], q, rank)), None)
            far = None
            if j is None:
                far = j = next((j for j, q in enumerate(piles) if j != i and _far_corner_of(piles[i], q, rank)),
                               None)
            if j is not None:
                meld = _classify(_order(list(piles[i].cards) + list(piles[j].cards)), {rank})
                if far is not None:
                    code = piles[j].cards[0].code
                    meld = Pile(meld.kind, meld.cards, meld.notes + (
                        f"{code} counted as the fan's last card, seen only by its far corner (its top index is "
                        "hidden): remove it if it is a loose card",))
                piles[i] = meld
                del piles[j]
                joined = True
                break
    return [_filled(p) for p in piles]


def _meld_rank(pile: Pile) -> str | None:
    """The natural rank of a meld (wilds aside), or None for any other pile and for a meld of wilds."""
    if pile.kind is not PileKind.MELD:
        return None
    keys = {_key(c.code) for c in pile.cards} - {None}
    return next(iter(keys)) if len(keys) == 1 and keys != {"3R"} else None


def _continues(first: Pile, second: Pile) -> bool:
    """True when an end card of ``second`` lies on ``first``'s line beyond one of its end cards, at
    :data:`JOIN_STEPS` times its median step and within :data:`JOIN_ANGLE` of its direction."""
    return any(_continues_line(list(first.cards), card, JOIN_STEPS, JOIN_ANGLE)
               for card in (second.cards[0], second.cards[-1]))


def _next_card_of(meld: Pile, other: Pile, rank: str) -> bool:
    """True when ``other`` (a meld of ``rank``, or a single card of it or a wild: a squared book's marker or a loose
    card) continues ``meld``'s line beyond an end card at :data:`NEAR_STEPS` times the step between that card and
    its neighbour, within :data:`JOIN_ANGLE`: it is the fan's next card. (A squared book there would lie on the
    fan's last card.) ``vision.piles._continues_line`` with the end step, not the median, since in a photo at an
    angle the steps grow towards the camera."""
    single = other.kind in (PileKind.SQUARED_BOOK, PileKind.LOOSE) and len(other.cards) == 1 \
        and _key(other.cards[0].code) in (rank, None)  # None: a wild
    if not (single or _meld_rank(other) == rank):
        return False
    return any(_continues_line(list(meld.cards), card, NEAR_STEPS, JOIN_ANGLE, end_step=True)
               for card in (other.cards[0], other.cards[-1]))


def _far_corner_of(meld: Pile, other: Pile, rank: str) -> bool:
    """True when ``other`` is a loose card of ``rank`` (or a wild) seen by one index lying one card diagonal (within
    :data:`FAR_CORNER_TOLERANCE`) from where the next card's top index of ``meld`` would be, one step beyond an
    end card, and ``meld`` (two or more cards) shows no card whole: the far corner of a last card whose top
    index is hidden (under a cup, or another card). A fan's last card shows both its indices; when none of
    the fan's cards does, its last card's top index was not seen. The diagonal is the loose card's own
    estimate (:attr:`vision.instances.CardInstance.card_height` x
    :data:`vision.instances.DIAGONAL_PER_HEIGHT`)."""
    if len(meld.cards) < 2 or any(c.fully_visible for c in meld.cards):
        return False
    if not (other.kind is PileKind.LOOSE and len(other.cards) == 1 and _key(other.cards[0].code) in (rank, None)):
        return False
    card = other.cards[0]
    q, diagonal = card.centers[0], card.card_height * DIAGONAL_PER_HEIGHT
    pts = _anchor_points(_order(list(meld.cards)))
    for end, prev in ((pts[-1], pts[-2]), (pts[0], pts[1])):
        if abs(float(np.linalg.norm(q - (2 * end - prev))) / diagonal - 1) <= FAR_CORNER_TOLERANCE:
            return True
    return False


def _filled(pile: Pile) -> Pile:
    """``pile`` with the unread cards of its gaps counted (itself when it has none)."""
    rank = _meld_rank(pile)
    if rank is None or len(pile.cards) < MIN_CARDS:
        return pile
    cards = list(pile.cards)
    suit = Counter(c.code[len(rank):] for c in cards if rank_of(c.code) == rank).most_common(1)[0][0]
    steps = _steps(cards)
    median = float(np.median(steps))
    if median <= 0:
        return pile
    gaps = [next((k for k, (lo, hi) in enumerate(GAP_STEPS, start=1) if lo <= step / median <= hi), 0)
            if 0 < pos < len(steps) - 1 else 0 for pos, step in enumerate(steps)]
    usual = [step / median for step, k in zip(steps, gaps) if not k]
    if not any(gaps) or not all(REGULAR[0] <= r <= REGULAR[1] for r in usual):
        return pile
    out, where = [cards[0]], []
    for pos, (a, b, unread) in enumerate(zip(cards, cards[1:], gaps), start=1):
        ia, ib = _nearest_indices(a, b)
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
