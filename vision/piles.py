"""Stage 3 of the camera pipeline: card instances -> piles (melds, squared books, red threes, leftovers).

How a Hand and Foot table looks at the end of a round (seed 000 "Melding", seed 002 §3): each meld is a fan of
cards of one rank plus wilds, each card overlapping the previous one so its corner index stays visible; a
completed book is squared into a stack showing one marker card; red threes are laid out singly or in a row;
cards left in a hand or foot are fanned with mixed ranks.

:func:`group_piles` links cards whose corner indices lie close together (single linkage, nearest first):

* cards of one natural rank link when their nearest indices are within ``link_meld`` card heights (the
  card height is estimated from the index size and the photo's typical card diagonal, so the rule holds at any
  distance and for any deck); so do wilds (twos and jokers) with wilds, and red threes with red threes —
  unless a natural of another rank lies between them: then they are cards of a fanned hand;
* a cluster of fewer than ``wild_meld`` wilds then joins the nearest natural cluster within reach (the
  wilds of a dirty meld), again not across a natural of another rank lying between them (a hand fanned 7D JC 2S
  3C 7S is not the meld 7D 2S 7S); a larger one is a meld of wilds of its own; a single two seen whole (both indices)
  joins a fan of two or more cards only where it continues the fan's line (its last card): beside a fan it is a
  squared book's marker or a loose card;
* clusters of different ranks closer than ``link_mixed`` card heights are one fan of mixed cards (a hand); a
  meld-like cluster joins such a hand (of two or more cards) only when the hand's nearest card continues the
  cluster's own line of cards at its step (a pair or three of a kind and wilds held in the hand:
  :func:`continues_fan`); then a cluster of wilds only joins a hand of two or more ranks it touches (within
  ``link_mixed``: the wilds of a fanned hand, whose steps and jokers' marks miss the line test);
* every red three (3♥, 3♦) goes to the red threes, wherever it lies, unless it is fanned in a hand.

Each pile is then classified: two or more cards of one rank (plus wilds) or all wilds -> ``meld`` (seven or more
is a complete book); mixed ranks -> ``left`` (cards still held); a single card with both indices visible ->
``squared_book`` (its marker card); a single card with one index visible -> ``loose``, not scored. Every guess
that could be wrong carries a note (``Pile.notes``) so the user sees it.

The thresholds are :class:`vision.config.Piles` (``config.piles``).
"""

from __future__ import annotations

import numpy as np

from scorer.wording import listed

from . import geometry
from .classes import rank_of
from .config import DEFAULT, Piles, VisionConfig
from .geometry import continues_fan, diagonal_apart, fan_order, fan_steps, nearest_indices
from .types import CardInstance, Pile, PileKind


class _Clusters:
    """Union-find over instances that tracks each cluster's rank keys (natural ranks, ``"3R"`` for red threes;
    wilds add none) and size."""

    def __init__(self, keys: list[str | None]) -> None:
        self.parent = list(range(len(keys)))
        self.ranks = [({k} if k else set()) for k in keys]
        self.size = [1] * len(keys)

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def is_meld(self, root: int) -> bool:
        """A cluster of three or more cards of one rank (plus wilds), or of wilds only."""
        return self.size[root] >= 3 and len(self.ranks[root]) <= 1

    def union(self, i: int, j: int, allow_mixed: bool, absorb: bool = False) -> None:
        """Join the clusters of cards ``i`` and ``j``; of different ranks only with ``allow_mixed``, and a meld
        into a mixed cluster only with ``absorb`` as well (the meld continues the hand's line)."""
        a, b = self.find(i), self.find(j)
        if a == b:
            return
        merged = self.ranks[a] | self.ranks[b]
        if len(merged) > 1 and not allow_mixed:
            return
        if "3R" in merged and not (self.ranks[a] and self.ranks[b]):
            return  # wilds never join red threes (a red three is not a natural of a meld)
        if allow_mixed and (self.is_meld(a) or self.is_meld(b)) and not absorb:
            return  # a meld of three or more (of one rank, or of wilds) is not absorbed into a fanned hand
        self.parent[b] = a
        self.ranks[a] = merged
        self.size[a] += self.size[b]


def _compatible(a: str | None, b: str | None) -> bool:
    """Two cluster keys (natural rank, ``None`` for a wild, ``"3R"`` for a red three) that may share a meld."""
    if "3R" in (a, b):
        return a == b
    return a is None or b is None or a == b


def _distances(cards: list[CardInstance], keys: list[str | None], slack: float, any_rank: bool = False) -> np.ndarray:
    """(n, n) distance between two cards' nearest anchor indices, divided by their mean estimated card height.

    A card seen with one index is anchored on it. A card seen whole (two indices) links through its *anchors*:
    the index nearer a compatible card (any card with ``any_rank``, for fanned hands), and the other one too
    when it lies almost as near one (within ``slack`` times the first's distance: ``Piles.anchor_slack``). The
    last card of a fan anchors on its top index beside the previous card; its far corner often lies next to
    another pile and must not join the two. The two indices along one edge of a four-index deck's card in a fan
    both lie beside the neighbours' (a fan of such cards is two rows of indices): with one anchor each, a card
    anchored on its top index and its neighbour on its bottom one would lie a card height apart and the fan split.
    """
    n = len(cards)
    pts = np.concatenate([c.centers for c in cards])  # (m, 2) every index
    counts = [len(c.centers) for c in cards]
    owner = np.repeat(np.arange(n), counts)  # (m,) card of each index
    dist = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=-1)  # (m, m)
    if any_rank:
        linkable = owner[:, None] != owner[None, :]
    else:
        comp = np.array([[_compatible(a, b) for b in keys] for a in keys])  # (n, n)
        linkable = comp[owner][:, owner] & (owner[:, None] != owner[None, :])
    nearest = np.where(linkable, dist, np.inf).min(1)  # (m,) each index to the nearest linkable index
    starts = np.cumsum([0] + counts[:-1])  # each card's first row
    best = np.minimum.reduceat(nearest, starts)  # (n,) each card's nearest
    anchor = nearest <= slack * best[owner]  # (m,) anchors (inf <= inf: a card nothing links to)
    between = np.where(anchor[:, None] & anchor[None, :], dist, np.inf)  # (m, m) anchor to anchor
    per_card = np.minimum.reduceat(np.minimum.reduceat(between, starts, axis=0), starts, axis=1)  # (n, n)
    heights = np.array([c.card_height for c in cards])
    d = per_card / ((heights[:, None] + heights[None, :]) / 2)
    np.fill_diagonal(d, np.inf)
    return d


def _other_rank_between(a: np.ndarray, b: np.ndarray, others: np.ndarray, piles: Piles) -> bool:
    """True when one of ``others`` ((m, 2) px: the indices of naturals of another rank) lies between the index
    centres ``a`` and ``b`` of two cards of one rank: the two are then not neighbours in a meld but cards of a
    fanned hand, whose ranks are mixed.

    "Between": within ``piles.between_clearance`` of the segment a-b (in segment lengths), over its inner part
    ``piles.between_span`` (fractions of its length from ``a``, exclusive).
    """
    return geometry.near_segment(a, b, others, piles.between_span, piles.between_clearance * float(np.hypot(*(b - a))))


def _rank_between(cards: list[CardInstance], keys: list[str | None], dist: np.ndarray,
                  piles: Piles) -> dict[tuple[int, int], bool]:
    """{(i, j): True when a natural of another rank than card ``j``'s lies between cards ``i`` and ``j``} (at
    their :func:`vision.geometry.nearest_indices`, :func:`_other_rank_between`), measured once for the pairs
    within ``piles.link_meld`` (``dist``, :func:`_distances`) that :func:`group_piles` may link: two cards of one
    key (i < j), or a wild and a natural."""
    pts = np.concatenate([c.centers for c in cards])  # (m, 2) every index
    pt_key = np.array([keys[i] for i, c in enumerate(cards) for _ in c.centers], dtype=object)  # (m,)
    out = {}
    for i, j in zip(*np.nonzero(dist <= piles.link_meld)):
        i, j = int(i), int(j)
        if (keys[i] == keys[j] and i < j) or (keys[i] is None and keys[j] not in (None, "3R")):
            others = pts[(pt_key != keys[j]) & (pt_key != None)]  # noqa: E711 (elementwise over an object array)
            out[i, j] = _other_rank_between(*nearest_indices(cards[i], cards[j]), others, piles)
    return out


def _members(uf: _Clusters, cards: list[CardInstance], root: int) -> list[CardInstance]:
    """The cards of the cluster ``root``."""
    return [c for m, c in enumerate(cards) if uf.find(m) == root]


def group_piles(cards: list[CardInstance], *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """Group card instances into piles and say what each is (see the module docstring).

    Args:
        cards: card instances of one side's photo (or one side's part of a whole-table photo).
        config: the thresholds (``config.piles``; ``config.pairing`` for the notes on red threes).

    Returns:
        Piles: the red threes on the table first (at most one pile), then the others from top to bottom.
        A red three fanned inside a hand stays in that hand (it is charged as a red three in hand).
    """
    if not cards:
        return []
    piles = config.piles
    keys = [c.key for c in cards]
    uf = _Clusters(keys)
    dist = _distances(cards, keys, piles.anchor_slack)
    iu, ju = np.triu_indices(len(cards), 1)
    order = np.argsort(dist[iu, ju], kind="stable")
    between = _rank_between(cards, keys, dist, piles)
    # 1. pure clusters: one natural rank, or wilds only, or red threes only; not across a card of another rank
    for k in order:
        i, j = int(iu[k]), int(ju[k])
        if dist[i, j] > piles.link_meld:
            break
        if keys[i] != keys[j]:
            continue
        if not between[i, j]:
            uf.union(i, j, allow_mixed=False)
    # 2. a small cluster of wilds joins the natural cluster(s) of one rank beside it (the wilds of a dirty meld):
    #    the rank with the most clusters in reach (a wild bridging a fan), then the nearest
    wild_roots = {uf.find(i) for i in range(len(cards)) if keys[i] is None}
    for root in sorted(wild_roots):
        members = [i for i in range(len(cards)) if uf.find(i) == root]
        if len(members) >= piles.wild_meld:
            continue
        reach: dict[str, dict[int, float]] = {}
        for i in members:
            for j in range(len(cards)):
                if keys[j] not in (None, "3R") and dist[i, j] <= piles.link_meld:
                    if between[i, j]:
                        continue  # a card of another rank between them: cards of a fanned hand
                    rj = uf.find(j)
                    best = reach.setdefault(keys[j], {})
                    best[rj] = min(best.get(rj, np.inf), float(dist[i, j]))
        if len(members) == 1 and cards[members[0]].fully_visible and rank_of(cards[members[0]].code) == "2":
            # a two seen whole is a fan's last card only where it continues the fan's line; beside a fan it is
            # a squared book's marker (a wild book) or a loose card (a joker's marks sit where its deck puts
            # them, off the naturals' line, so a joker is left to the distance rule)
            for rank in list(reach):
                reach[rank] = {rj: d for rj, d in reach[rank].items()
                               if uf.size[rj] < 2 or continues_fan(_members(uf, cards, rj), cards[members[0]],
                                                                   piles.line_step, piles.line_angle)}
                if not reach[rank]:
                    del reach[rank]
        if reach:
            rank = min(reach, key=lambda r: (-len(reach[r]), min(reach[r].values())))
            for rj in reach[rank]:
                uf.union(root, rj, allow_mixed=False)
    # 3. clusters of different ranks overlapping closely: a fanned hand; a meld is absorbed into it only when
    #    the hand's card continues the meld's own line of cards (a pair or three of a kind fanned in a hand)
    dist = _distances(cards, keys, piles.anchor_slack, any_rank=True)
    order = np.argsort(dist[iu, ju], kind="stable")
    for k in order:
        i, j = int(iu[k]), int(ju[k])
        if dist[i, j] > piles.link_mixed:
            break
        ri, rj = uf.find(i), uf.find(j)
        absorb = False
        if ri != rj and uf.is_meld(ri) != uf.is_meld(rj):
            meld, other = (ri, j) if uf.is_meld(ri) else (rj, i)
            if uf.size[uf.find(other)] >= 2:
                absorb = continues_fan(_members(uf, cards, meld), cards[other], piles.line_step, piles.line_angle)
        uf.union(i, j, allow_mixed=True, absorb=absorb)
    # 4. a cluster of wilds only that touches a hand of two or more ranks holds the hand's wilds (fanned around
    #    the holder's fingers, their steps and the jokers' marks off the hand's line)
    for k in order:
        i, j = int(iu[k]), int(ju[k])
        if dist[i, j] > piles.link_mixed:
            break
        ri, rj = uf.find(i), uf.find(j)
        if ri != rj and (not uf.ranks[ri] and len(uf.ranks[rj]) >= 2 or not uf.ranks[rj] and len(uf.ranks[ri]) >= 2):
            uf.union(i, j, allow_mixed=True, absorb=True)
    groups: dict[int, list[CardInstance]] = {}
    for i, c in enumerate(cards):
        groups.setdefault(uf.find(i), []).append(c)
    threes: list[CardInstance] = []
    found: list[Pile] = []
    for root, g in groups.items():
        if all(c.key == "3R" for c in g):  # red threes only
            threes.extend(g)
        else:
            found.append(classify(fan_order(g), uf.ranks[root], config=config))
    found.sort(key=lambda p: (min(c.center[1] for c in p.cards), min(c.center[0] for c in p.cards)))
    return ([_red_threes(fan_order(threes), config)] if threes else []) + found


#: what to do with a single card read as a squared book's top card when it lies loose: how its notes end
BOOK_ACTION = "if it is just one loose card, mark it loose"
#: what to do with a single card read as loose (not scored) when it is not: how its notes end
LOOSE_ACTION = ("if it is a card of a meld it lies on, move it into that meld; if it is the top card of a squared "
                "book, make it a squared book; if it is still held in a hand, move it to the cards left in hand")
#: how every note on a single card read as a squared book's marker begins (``BOOK_TOP.format(code=...)``)
BOOK_TOP = "{code} is taken as the top card of a squared book"
#: the note on a single card seen whole and read as a squared book's marker (``MARKER_NOTE.format(code=...)``;
#: ``vision.photo_checks.check_stacks`` replaces it with what it saw under the card)
MARKER_NOTE = BOOK_TOP + " and counted as a full book (the cards under it can't be counted); " + BOOK_ACTION
#: how the note on a meld with a step much longer than its others begins (``vision.fans`` drops it where it counts
#: the cards in that gap)
GAP_NOTE = "a wide gap between"


def _low_confidence(cards: list[CardInstance], piles: Piles) -> list[str]:
    """The note naming the cards read with confidence under ``piles.low_conf`` (none when there are none)."""
    low = [c.code for c in cards if c.confidence < piles.low_conf]
    if not low:
        return []
    return [f"{listed(low)} may be misread: " + ("correct it if it is wrong" if len(low) == 1 else
                                                 "correct any that is wrong")]


def _seen_twice(cards: list[CardInstance], config: VisionConfig, any_code: bool = False) -> list[str]:
    """The note naming two cards of one code (with ``any_code``, of any codes: 3H and 3D, a red three's two
    corners read as two suits), each seen by one corner, that lie a card's diagonal apart
    (:func:`vision.geometry.diagonal_apart`, from the cards' heights): they may be the two corners of one card,
    left unpaired and counted twice (none when there are none)."""
    one = [c for c in cards if len(c.detections) == 1]
    twice = next(((a, b) for k, a in enumerate(one) for b in one[k + 1:] if (any_code or a.code == b.code)
                  and diagonal_apart(a.centers[0], b.centers[0], (a.card_height + b.card_height) / 2,
                                     config=config)), None)
    if not twice:
        return []
    return [f"{twice[0].code} and {twice[1].code} each show one corner, where one card's two corners would be: "
            "they may be one card counted twice; if so, remove one"]


def hand_pile(cards: list[CardInstance], *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """Every card of a photo of one player's hand or foot fanned face up, as one pile of cards left (``left``;
    empty when there is no card): such a photo shows no meld, book or red three on the table, so no card of it is
    grouped (a pair of kings or a lone ace in a hand is still a card held). Cards still held at the end of a round
    count against their side, a red three among them -100 (seed 000 "How to Score Hand and Foot"; seed 002: "A red 3
    still in your hand or foot when the round ends costs 100").

    Notes: low-confidence cards (``config.piles.low_conf``), and two cards of one code seen by one corner each a
    card's diagonal apart (maybe one card counted twice: :func:`vision.geometry.diagonal_apart`).
    """
    if not cards:
        return []
    cards = fan_order(list(cards))
    return [Pile(PileKind.LEFT, tuple(cards), tuple(_low_confidence(cards, config.piles) + _seen_twice(cards, config)))]


def _red_threes(cards: list[CardInstance], config: VisionConfig) -> Pile:
    """The red threes on the table, with notes: low-confidence cards, and two red threes seen by one corner each
    that lie a card's diagonal apart (:func:`vision.geometry.diagonal_apart`, from the cards' heights), which may
    be the two corners of one card, left unpaired and counted twice.

    Red threes laid in a row show one corner of each covered card, all on one side of the row and a row's step
    apart, not a diagonal; the last one laid shows both. When no red three shows both corners (with
    ``config.piles.threes_unseen_note``), the row's top card is not seen: it, or more threes, may lie under
    something (another pile, a cup), and the pile says so.
    """
    notes = _low_confidence(cards, config.piles) + _seen_twice(cards, config, any_code=True)
    if config.piles.threes_unseen_note and not any(c.fully_visible for c in cards):
        notes.append(THREES_UNSEEN_NOTE)
    return Pile(PileKind.RED_THREES, tuple(cards), tuple(notes))


#: the note on red threes none of which shows both corners
THREES_UNSEEN_NOTE = ("no red three shows its whole face, as the last one laid in a row does: more may be hidden "
                      "under something; count the red threes")


def classify(cards: list[CardInstance], ranks: set[str], *, config: VisionConfig = DEFAULT) -> Pile:
    """The pile of ``cards`` (in :func:`fan_order`) whose cluster keys are ``ranks``
    (:attr:`vision.types.CardInstance.key`, wilds aside), with what it is read as and its notes (module docstring):
    one card seen whole is a squared book's marker, one seen by one corner a loose card; cards of two or more ranks
    are cards left in a hand; else a meld (noted when a step is ``config.piles.gap_factor`` times its median:
    :func:`_largest_gap`; one of too few cards is left to the rules, which say so with their own minimum). Cards
    read under ``config.piles.low_conf`` are noted."""
    n = len(cards)
    notes = _low_confidence(cards, config.piles)
    if n == 1:
        card = cards[0]
        if card.fully_visible:
            return Pile(PileKind.SQUARED_BOOK, tuple(cards), tuple(notes + [MARKER_NOTE.format(code=card.code)]))
        return Pile(PileKind.LOOSE, tuple(cards),
                    tuple(notes + [f"{card.code} shows only one corner, so it is not scored; {LOOSE_ACTION}"]))
    if len(ranks) > 1:
        return Pile(PileKind.LEFT, tuple(cards), tuple(notes + [
            "cards of mixed ranks, so taken as cards left in a hand; if they were laid down as melds, split them"]))
    gap = _largest_gap(cards, config.piles)
    if gap:
        notes.append(f"{GAP_NOTE} {cards[gap - 1].code} and {cards[gap].code} (cards {gap} and {gap + 1} of {n}): "
                     "this may be two melds; if so, split it")
    return Pile(PileKind.MELD, tuple(cards), tuple(notes))


def _largest_gap(cards: list[CardInstance], piles: Piles) -> int:
    """1-based position of a step at least ``piles.gap_factor`` times the fan's median step (0 when none).

    Steps are between consecutive cards' nearest indices, in reading order (:func:`fan_steps`); fans of fewer
    than ``piles.gap_min_cards`` cards are too short to tell.
    """
    if len(cards) < piles.gap_min_cards:
        return 0
    steps = fan_steps(cards)
    median = float(np.median(steps))
    k = int(np.argmax(steps))
    return k + 1 if median > 0 and steps[k] >= piles.gap_factor * median else 0
