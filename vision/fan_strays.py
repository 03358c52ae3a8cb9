"""Stage 3a, first: cards stage 3 put in a fan that its regular step says are not the fan's, and the far corner
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
   that than one diagonal from where the fan's next card would be (that is :func:`vision.fan_gaps._far_corner_of`'s
   case: a last card whose top index is hidden), is that end card's other corner, left unpaired by stage 2: the
   two become one card seen whole. The count is unchanged; the loose card, which was not scored, is gone.

The thresholds are :class:`vision.config.FanGaps` (``config.fan_gaps``).
"""

from __future__ import annotations

import numpy as np

from . import geometry
from .config import DEFAULT, VisionConfig
from .geometry import anchor_points, fan_order, fan_steps, nearest_indices
from .piles import classify, cluster_key
from .types import CardInstance, Pile, PileKind


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
        ranks = {cluster_key(c.code) for c in cards} - {None}
        meld = classify(fan_order(cards), ranks, config=config)
        names = ", ".join(c.code for c in strays)
        out.append(Pile(meld.kind, meld.cards, meld.notes + (
            f"{names} beside the fan but off its step: not counted in it; if it is the fan's, add it",)))
        out.extend(classify([c], {cluster_key(c.code)} - {None}, config=config) for c in strays)
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
        order = fan_order(list(pile.cards))
        pts = anchor_points(order)
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
