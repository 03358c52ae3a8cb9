"""Stage 3a, last: a fan's top card seen by two corners the detector boxed but the reader could not read.

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

from . import geometry
from .classes import RANKS, SUIT_CODES, rank_of
from .config import DEFAULT, VisionConfig
from .detections import Detections, index_centres, index_sizes
from .geometry import diagonal_apart, segment_blocked
from .geometry import anchor_points, fan_order
from .piles import cluster_key
from .types import CardInstance, Pile, PileKind


def read_top_cards(piles: list[Pile], unread: Detections, *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """``piles`` with the top card of each meld that shows no card whole counted from two unread boxes (module
    docstring); ``unread`` holds the boxes no read index covers, with the reader's ``rank_p`` (n, 15) and
    ``suit_p`` (n, 4) data columns (without them, or without such boxes, the piles are returned unchanged)."""
    if not len(unread) or "rank_p" not in unread.data:
        return list(piles)
    centres, sizes = index_centres(unread.xyxy), index_sizes(unread.xyxy)
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
        cards = list(fan_order(list(pile.cards)))
        cards = cards + [card] if end else [card] + cards
        out.append(Pile(pile.kind, tuple(cards), pile.notes + (
            f"{card.code} counted as the fan's top card: its two corners were boxed but not read (its code is the "
            "reader's best guess); remove it or correct it if it is not there",)))
    return out


def _top_card(pile: Pile, unread: Detections, centres: np.ndarray, sizes: np.ndarray, read: np.ndarray,
              used: set[int], config: VisionConfig) -> tuple[CardInstance, bool, tuple[int, int]] | None:
    """(the top card, True when it follows the fan's last card (False: before its first), the two boxes) of the
    meld ``pile``, or None."""
    fg = config.fan_gaps
    order = fan_order(list(pile.cards))
    pts = anchor_points(order)
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
        return _far_corner_top(pts, unread, centres, sizes, read, used, size, height, pile, config)
    _, last, a, b = best
    code = _code(pile, unread, (a, b))
    card = CardInstance(code, (), centres[a][None, :].copy(), float(sizes[a]), 0.0, height)
    return card, last, (a, b)


def _far_corner_top(pts: np.ndarray, unread: Detections, centres: np.ndarray, sizes: np.ndarray, read: np.ndarray,
                    used: set[int], size: float, height: float, pile: Pile, config: VisionConfig
                    ) -> tuple[CardInstance, bool, tuple[int, int]] | None:
    """The top card of a meld of one natural rank (anchor points ``pts`` in fan order) seen by its far corner
    alone: one unread box a card's diagonal (within ``config.fan_gaps.far_corner_tolerance``) from the fan's next
    place beyond an end, nearer that than a diagonal from the end card itself (whose own far corner lies a step
    short of it), which the reader gives the fan's rank, a two or a joker with ``config.fan_gaps.top_far_p`` or
    more, of a size within ``top_size_ratio`` of the fan's indices, with no read index between it and that place
    and no unread box a diagonal from it near that place (``top_steps``: the pair :func:`_top_card` turned down).
    Its top index was not boxed (under the next card's shadow, or drawn unlike the indices the detector learned);
    the card is placed there. Same return as :func:`_top_card` (the box twice)."""
    fg = config.fan_gaps
    keys = {cluster_key(c.code) for c in pile.cards} - {None}
    if fg.top_far_p > 1 or len(keys) != 1:  # a meld of wilds alone: a joker's face beside it shows marks anywhere
        return None
    diagonal = height * config.pairing.diagonal_per_height
    near = geometry.similar_size(sizes, size, fg.top_size_ratio)
    options = [RANKS.index("2"), RANKS.index("JK"), RANKS.index(next(iter(keys)))]
    best = None
    for last, (end, prev) in ((True, (pts[-1], pts[-2])), (False, (pts[0], pts[1]))):
        q = geometry.beyond(end, prev)
        miss = np.abs(np.linalg.norm(centres - q, axis=1) / diagonal - 1)
        own = np.abs(np.linalg.norm(centres - end, axis=1) / diagonal - 1)  # the end card's own far corner there
        for a in np.flatnonzero(near & (miss <= fg.far_corner_tolerance) & (miss < own)):
            if a in used or unread.data["rank_p"][a, options].max() < fg.top_far_p \
                    or segment_blocked(q, centres[a], read, config.stacks.one_corner_clearance * size, config=config):
                continue
            step = float(np.linalg.norm(end - prev))
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
    keys = {cluster_key(c.code) for c in pile.cards} - {None}
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
