"""Stage 3a: a fan's card whose index the detector boxed but no one read, found where the fan says it lies.

A meld is fanned at a regular step (seed 000 "Melding"), so its read cards say where each missing card's index
would be: one step beyond either end card, and halfway along a step about twice the fan's usual one (a gap,
the first and last steps included: ``vision.fan_gaps`` fills only inner gaps, and only in regular fans, because
it has nothing but the step to go on). :func:`read_fan_boxes` looks there for a box no read index covers
(``vision.pipeline.read_indices``: the detector unsure of it, or the reader under the floor, or both): its centre
within ``box_reach`` of the fan's step from the predicted place, its size within ``box_size_ratio`` of the fan's
indices, no card's index within ``config.fans.separation`` of its sizes. The reader's probabilities of the box
choose among the fan's rank, a two and a joker; the likeliest counts as a card when it has ``box_p`` or more
(the box's likeliest suit), a joker ``box_joker_p`` (a joker's face shows marks anywhere on it). Stage 1b asks
much the same of each box alone (``vision.completion``); here the fan is the one stage 3 grouped, so its step is
the fan's own and a gap next to an end card counts too. Off by default (``box_p`` over 1).

Each card so counted is said in a note on its pile, so a wrong one is one edit away. The thresholds are
:class:`vision.config.FanGaps` (``config.fan_gaps``, ``box_*``).
"""

from __future__ import annotations

import numpy as np

from .classes import RANKS, SUIT_CODES
from .config import DEFAULT, VisionConfig
from .geometry import anchor_points, beyond, fan_order, similar_size
from .types import CardInstance, Detections, Pile, PileKind, index_centres, index_sizes


def read_fan_boxes(piles: list[Pile], unread: Detections, *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """``piles`` with each meld's cards counted from unread boxes where the fan places a card (module docstring).

    ``unread`` holds the boxes no read index covers, with the reader's ``rank_p`` (n, 15) and ``suit_p`` (n, 4)
    data columns; without them, or with ``config.fan_gaps.box_p`` over 1, the piles are returned unchanged."""
    fg = config.fan_gaps
    if not len(unread) or "rank_p" not in unread.data or fg.box_p > 1:
        return list(piles)
    centres, sizes = index_centres(unread.xyxy), index_sizes(unread.xyxy)
    taken: set[int] = set()
    out = []
    for pile in piles:
        keys = {c.key for c in pile.cards} - {None}
        if pile.kind is not PileKind.MELD or len(pile.cards) < 2 or len(keys) != 1 or keys == {"3R"}:
            out.append(pile)
            continue
        rank = next(iter(keys))
        cards, added = list(fan_order(list(pile.cards))), []
        while True:
            every = np.concatenate([c.centers for p in piles for c in p.cards] + [c.centers for c in cards])
            found = _next_box(cards, rank, unread, centres, sizes, every, taken, config)
            if found is None:
                break
            pos, j, card = found
            taken.add(j)
            cards.insert(pos, card)
            added.append(f"{card.code} ({round(100 * float(unread.data['rank_p'][j, RANKS.index(_rank(card))]))} %)")
        if not added:
            out.append(pile)
            continue
        out.append(Pile(pile.kind, tuple(cards), pile.notes + (
            f"counted from boxes read under the floor where the fan's next card lies: {', '.join(added)}; remove "
            "any that is not there",)))
    return out


def _rank(card: CardInstance) -> str:
    return "JK" if card.code == "JK" else card.code[:-1]


def _places(cards: list[CardInstance], fg) -> list[tuple[int, np.ndarray, float]]:
    """(insert position, (2,) px where a missing card's index would lie, the fan's step there in px) of the fan
    ``cards`` (in :func:`fan_order`): beyond each end card, and halfway along each step of ``box_gap`` times the
    fan's median step."""
    pts = anchor_points(cards)
    steps = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    median = float(np.median(steps))
    if median <= 0:
        return []
    places = [(len(cards), beyond(pts[-1], pts[-2]), float(steps[-1])), (0, beyond(pts[0], pts[1]), float(steps[0]))] \
        if fg.box_ends else []
    lo, hi = fg.box_gap
    places += [(k + 1, (pts[k] + pts[k + 1]) / 2, float(s) / 2) for k, s in enumerate(steps) if lo <= s / median <= hi]
    return places


def _next_box(cards: list[CardInstance], rank: str, unread: Detections, centres: np.ndarray, sizes: np.ndarray,
              every: np.ndarray, taken: set[int], config: VisionConfig) -> tuple[int, int, CardInstance] | None:
    """(insert position, box index, the card) of the unread box nearest a place of the fan ``cards`` that passes
    the module docstring's tests, or None."""
    fg = config.fan_gaps
    size = float(np.median([c.size for c in cards]))
    height = float(np.median([c.card_height for c in cards]))
    ok = similar_size(sizes, size, fg.box_size_ratio)
    best = None
    options = [RANKS.index(rank), RANKS.index("2"), RANKS.index("JK")]
    for pos, q, step in _places(cards, fg):
        if step <= 0:
            continue
        miss = np.linalg.norm(centres - q, axis=1) / step
        for j in np.flatnonzero(ok & (miss <= fg.box_reach)):
            if j in taken or (np.linalg.norm(every - centres[j], axis=1) < config.fans.separation * sizes[j]).any():
                continue
            p = unread.data["rank_p"][j]
            r = options[int(np.argmax(p[options]))]
            if p[r] < (fg.box_joker_p if r == options[2] else fg.box_p) or (best is not None and miss[j] >= best[0]):
                continue
            best = (miss[j], pos, int(j), r)
    if best is None:
        return None
    _, pos, j, r = best
    suit = SUIT_CODES[int(np.argmax(unread.data["suit_p"][j]))]
    code = "JK" if RANKS[r] == "JK" else RANKS[r] + suit
    return pos, j, CardInstance(code, (), centres[j][None, :].copy(), size, 0.0, height)
