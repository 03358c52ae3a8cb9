"""Boxes read with the fans' help. Stage 1b of the camera pipeline: read the corner indices with the fans' help
(:func:`read_with_fans`), and complete fans with the indices the detector was unsure of (:func:`complete_fans`); a
detector that names its boxes' codes has each box read alone (:func:`relabelled`).

A meld is a fan of one rank plus wilds (seed 000 "Melding", seed 002 §3), its cards stepped evenly so each index shows.
The detector (``vision/detector.py``) finds some indices with a confidence under the
:attr:`~vision.config.Reading.finder_box_conf` a box needs to be read on its own: jokers above all, whose corner marks
differ from deck to deck; the index reader drops other boxes as unsure
(:func:`relabelled`). :func:`complete_fans` takes such a box back when the fan says where
it should be:

* it lies where the next card of a fan of read indices would: beyond a read index *a*, at *a* + (*a* - *b*)
  for *b* the nearest read index of the fan (:func:`vision.geometry.step_miss` under
  :attr:`~vision.config.FanGeometry.step_tolerance`), a fan being the neighbours within
  :attr:`~vision.config.Completion.near` index sizes (of a size within
  :attr:`~vision.config.FanGeometry.size_ratio`) of one natural rank *R* and wilds;
* exactly one rank's fan continues there (a box between the ends of two fans is neither's), and it lies at least
  :attr:`~vision.config.FanGeometry.separation` index sizes from every read index (not a second box on one);
* the index reader gives it *R*, a two or a joker with probability at least
  :attr:`~vision.config.Completion.candidate_p`; it takes the likeliest.

An accepted box gets P(its rank) x sqrt(detector confidence) (no colour factor, unlike a read box), raised to
the reading floor (:attr:`~vision.config.Reading.min_conf`); under 0.5 (as it mostly is: its detector confidence
is under 0.5) its card is flagged as low confidence on its pile (``vision.piles``), so the user sees it. A box on
a jester's face in the middle of a card is not where a fan continues; one beside a fan's last card can be, and is
then read as what it looks like.

Stage 1b of the camera pipeline, first step: a natural rank read alone, settled by the fan it lies in.

A meld is a fan of one natural rank plus wilds (twos and jokers; seed 000 "Melding", seed 002 §3), its cards
stepped evenly along a line. The index reader (``vision/reader.py``) reads each corner index alone, and on the
small indices of a whole-table photo it often names one card of a fan as another rank (a 6 as a 9, a Q as a K):
the pile is then split in two, or read as a hand. :func:`settle_fan_ranks` re-reads such an index with its
fan's help when the geometry leaves no doubt that it is a card of that fan. Its neighbours are the natural
indices of other ranks within :attr:`~vision.config.FanGeometry.inside_reach` of its index sizes (farther than
:attr:`~vision.config.Completion.settle_min_distance`: nearer boxes are itself or a second box on it), of index
sizes within :attr:`~vision.config.FanGeometry.size_ratio` of its own. A rank *R* claims the index when

* it lies *inside* a fan of *R*: two neighbours of rank *R* lie on opposite sides of it
  (:func:`vision.geometry.opposite`, with :attr:`~vision.config.FanGeometry.inside_even` and
  :attr:`~vision.config.FanGeometry.inside_angle`), or
* it lies at a fan's *end*: a neighbour *a* of rank *R* lies next to it and another index of *R* one step further
  along the same line (:func:`vision.geometry.step_miss` of the index beyond *a* coming from this one, under
  :attr:`~vision.config.FanGeometry.step_tolerance`).

When exactly one rank claims it, it is read as the likeliest of *R*, a two and a joker, provided the reader gave
that at least :attr:`~vision.config.Completion.settle_min_ratio` times the probability of its own best rank. An
index read as a two or a joker is never changed (a wild inside a meld is normal); a hand holding two cards of
one rank on either side of a third card can be taken for a fan, which is why every changed card is flagged (its
confidence, P(new rank) x sqrt(detector confidence), is under 0.5 — the fan's rank was not the reader's best —
unless the reading floor is set above it, so its pile notes it as low confidence, ``vision.piles``).

And in stage 3a, over stage 3's piles (:func:`read_fan_boxes`): a fan's card whose index the detector boxed but no
one read, found where the fan says it lies.

A meld is fanned at a regular step (seed 000 "Melding"), so its read cards say where each missing card's index
would be: one step beyond either end card, and halfway along a step about twice the fan's usual one (a gap,
the first and last steps included: ``vision.fans.fill_fan_gaps`` fills only inner gaps, and only in regular fans,
because it has nothing but the step to go on). :func:`read_fan_boxes` looks there for a box no read index covers
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

from scorer.wording import listed

from .classes import CLASS_ID, CLASS_OF, RANK_JOKER, RANK_TWO, RANKS, SUIT_CODES, rank_of, reading
from .config import DEFAULT, Completion, FanGeometry, VisionConfig
from .fan_chains import unread_fans
from .geometry import anchor_points, beyond, opposite, similar_size, step_miss
from .types import CardInstance, Detections, Pile, PileKind


def _rank_index(code: str) -> int:
    return RANKS.index(rank_of(code))


def relabelled(dets: Detections, rank_p: np.ndarray, suit_p: np.ndarray, min_conf: float = 0.0) -> Detections:
    """Detections with each box's card code read alone from the reader's probabilities (``rank_p`` (n, 15),
    ``suit_p`` (n, 4)), most confident first; boxes read as "no index" are dropped.

    The new confidence is the reader's probability of the reading's rank and colour
    (:func:`vision.classes.p_rank_colour`) times the square root of the detector's confidence (a box the detector
    barely saw needs a sure reading). Boxes under the reading floor ``min_conf``
    (:attr:`vision.config.Reading.min_conf`) are dropped.
    """
    codes, p = reading(rank_p, suit_p)
    conf = p * np.sqrt(dets.confidence)
    keep = np.array([c is not None for c in codes], bool) & (conf >= min_conf)
    if not keep.any():
        return Detections.empty()
    cls = np.array([CLASS_ID[c] if c else -1 for c in codes], np.int64)
    order = np.flatnonzero(keep)[np.argsort(-conf[keep])]
    return Detections(dets.xyxy[order], conf[order].astype(np.float32), cls[order])


def read_with_fans(boxes: Detections, rank_p: np.ndarray, suit_p: np.ndarray, *,
                   config: VisionConfig = DEFAULT) -> Detections:
    """Stage 1b in full: the corner indices read from every box the detector found, with the fans' help.

    1. A box is *read* when the detector's confidence is at least ``config.reading.finder_box_conf`` and the
       reader names it with P(rank) x P(colour) x sqrt(detector confidence) (``vision.classes.p_rank_colour``) at
       least the reading floor ``config.reading.min_conf``.
    2. A box the detector was unsure of that the reader is sure is a joker's corner mark (P at least
       ``config.completion.joker_p``) is read too when it lies beside a read index that is not a joker (within
       ``config.completion.joker_near`` of that index's sizes, but farther than ``config.fans.separation``): the
       wild of a meld. Jokers' marks differ from deck to deck and the detector boxes many of them with low
       confidence; a jester's face drawn in the middle of a joker lying alone has no other card beside it.
    3. Each natural rank is settled by its fan (:func:`vision.completion.settle_fan_ranks`).
    4. The boxes left over are added where they continue a fan (:func:`complete_fans`), and chains of boxes
       still unread, evenly stepped like a fan's indices, are read as one rank each
       (:func:`vision.fan_chains.unread_fans`).

    A box taken in or re-read by steps 2-4 gets the reader's probability of what it is now read as times
    sqrt(detector confidence), at least the reading floor (a box read in a chain gets the floor itself); that is
    under 0.5 for nearly all of them, so their piles flag them as low confidence.

    Args:
        boxes: (n,) boxes found by the detector (pixels; their detector confidences; class ids unused).
        rank_p: (n, 15) reader rank probabilities (:data:`vision.classes.RANKS`).
        suit_p: (n, 4) reader suit probabilities (:data:`vision.classes.SUIT_CODES`).
        config: the thresholds (sections ``reading``, ``fans``, ``completion``).

    Returns:
        the read detections, most confident first, with the data columns ``"rank_p"`` (k, 15) and ``"suit_p"``
        (k, 4) (the reader's probabilities of each read box) and ``"box_conf"`` (k,) (its detector confidence).
    """
    if not len(boxes):
        return Detections.empty()
    floor = config.reading.min_conf
    det = boxes.confidence.astype(np.float64)
    boxes = boxes.with_data(rank_p=rank_p, suit_p=suit_p, box_conf=boxes.confidence)
    codes, p = reading(rank_p, suit_p)
    best, suit = rank_p.argmax(1), suit_p.argmax(1)
    conf = p * np.sqrt(det)
    read = (det >= config.reading.finder_box_conf) & np.array([c is not None for c in codes], bool) & (conf >= floor)
    jokers = _sure_jokers(boxes, read, best, rank_p, config.completion, config.fans)
    conf = np.where(jokers, np.maximum(rank_p[:, RANK_JOKER] * np.sqrt(det), floor), conf)
    read |= jokers
    idx = np.flatnonzero(read)
    rank, changed = settle_fan_ranks(boxes[idx], best[idx], rank_p[idx], config=config)
    moved = idx[changed]
    conf[moved] = np.maximum(rank_p[moved, rank[changed]] * np.sqrt(det[moved]), floor)
    cls = CLASS_OF[rank, suit[idx]]
    kept = boxes[idx].with_classes(cls, conf[idx])
    rest = np.flatnonzero(~read)
    extra, add = _taken_detections(boxes[rest], _taken_back(kept, boxes[rest], rank_p[rest], suit_p[rest], config))
    read_rank = np.full(len(boxes), -1, np.int64)
    read_rank[idx] = rank
    read_rank[rest[add]] = [_rank_index(c) for c in extra.codes]
    chained = unread_fans(boxes.xyxy, det, rank_p, read_rank, config=config)
    ci = np.array(sorted(chained), np.int64)
    chain_cls = CLASS_OF[np.array([chained[int(i)] for i in ci], np.int64), suit[ci]]
    chain_dets = boxes[ci].with_classes(chain_cls, np.full(len(ci), floor, np.float32))
    every = Detections.merge([kept, extra, chain_dets])
    return every[np.argsort(-every.confidence, kind="stable")]


def _sure_jokers(boxes: Detections, read: np.ndarray, best: np.ndarray, rank_p: np.ndarray, completion: Completion,
                 fans: FanGeometry) -> np.ndarray:
    """(n,) bool: unread boxes sure to be a joker's mark (P at least ``completion.joker_p``) with a read index
    that is not a joker beside them: within ``completion.joker_near`` of its index sizes, not nearer than
    ``fans.separation`` (a second box on it). ``boxes`` (n,) the boxes; ``best`` (n,) the reader's likeliest rank
    index; ``rank_p`` (n, 15)."""
    out = np.zeros(len(read), bool)
    others = np.flatnonzero(read & (best != RANK_JOKER))
    maybe = np.flatnonzero(~read & (best == RANK_JOKER) & (rank_p[:, RANK_JOKER] >= completion.joker_p))
    if not len(others) or not len(maybe):
        return out
    centres, sizes = boxes.centres, boxes.sizes
    for i in maybe:
        d = (np.linalg.norm(centres[others] - centres[i], axis=1) / sizes[others]).min()
        out[i] = fans.separation < d <= completion.joker_near
    return out


def complete_fans(kept: Detections, candidates: Detections, rank_p: np.ndarray, suit_p: np.ndarray, *,
                  config: VisionConfig = DEFAULT) -> tuple[Detections, int]:
    """The read detections plus the candidate boxes that continue a fan (see the module docstring).

    An accepted candidate's confidence is the reader's probability of its rank times the square root of its detector
    confidence (as a read box, without the colour factor of :func:`relabelled`), but at
    least the reading floor ``config.reading.min_conf``.

    Args:
        kept: read detections (codes from the index reader; boxes in pixels).
        candidates: boxes the detector was unsure of, or that the reader dropped (their detector confidences;
            class ids unused).
        rank_p: (m, 15) reader rank probabilities of the candidates (:data:`vision.classes.RANKS`).
        suit_p: (m, 4) reader suit probabilities of the candidates.
        config: the thresholds (sections ``reading``, ``fans``, ``completion``).

    Returns:
        (detections, most confident first; the number of candidates accepted).
    """
    extra, add = _taken_detections(candidates, _taken_back(kept, candidates, rank_p, suit_p, config))
    if not len(add):
        return kept, 0
    every = Detections.merge([kept, extra])
    return every[np.argsort(-every.confidence, kind="stable")], len(add)


def _taken_detections(candidates: Detections, taken: dict[int, tuple[str, float]]
                      ) -> tuple[Detections, np.ndarray]:
    """The candidates :func:`_taken_back` took, as detections with their new codes and confidences (and the
    candidates' data columns), and their (k,) int64 indices among the candidates (ascending)."""
    add = np.array(sorted(taken), np.int64)
    return candidates[add].with_classes(np.array([CLASS_ID[taken[i][0]] for i in add], np.int64),
                                        np.array([taken[i][1] for i in add], np.float32)), add


def _taken_back(kept: Detections, candidates: Detections, rank_p: np.ndarray, suit_p: np.ndarray,
                config: VisionConfig) -> dict[int, tuple[str, float]]:
    """{candidate index: (card code, confidence)} of the candidates :func:`complete_fans` takes back, in
    ``config.completion.rounds`` passes (a candidate taken back may support another)."""
    if len(kept) < 2 or not len(candidates):
        return {}
    centres = np.concatenate([kept.centres, candidates.centres])
    sizes = np.concatenate([kept.sizes, candidates.sizes])
    rank = np.array([_rank_index(c) for c in kept.codes] + [-1] * len(candidates))
    read = np.zeros(len(centres), bool)
    read[: len(kept)] = True
    codes: dict[int, str] = {}
    conf: dict[int, float] = {}
    k0 = len(kept)
    for _ in range(config.completion.rounds):
        found = {}
        idx = np.flatnonzero(read)
        for i in range(k0, len(centres)):
            if read[i]:
                continue
            got = _continues_fan(i, idx, centres, sizes, rank, rank_p[i - k0], config.completion, config.fans)
            if got is not None:
                found[i] = got
        if not found:
            break
        for i, r in found.items():
            read[i] = True
            rank[i] = r
            codes[i] = "JK" if r == RANK_JOKER else RANKS[r] + SUIT_CODES[int(suit_p[i - k0].argmax())]
            conf[i] = max(float(rank_p[i - k0, r]) * float(np.sqrt(candidates.confidence[i - k0])),
                          config.reading.min_conf)
    return {i - k0: (codes[i], conf[i]) for i in codes}


def _continues_fan(i: int, read: np.ndarray, centres: np.ndarray, sizes: np.ndarray, rank: np.ndarray,
                   rank_p: np.ndarray, completion: Completion, fans: FanGeometry) -> int | None:
    """The rank index candidate ``i`` is read as when it continues a fan of the ``read`` indices ((k,) indices
    into ``centres`` (n, 2) and ``sizes`` (n,), pixels; ``rank`` (n,) their rank indices), else None.
    ``rank_p`` (15,): the reader's rank probabilities of the candidate."""
    d = np.linalg.norm(centres[read] - centres[i], axis=1) / sizes[i]
    if d.min() < fans.separation:
        return None
    near = read[(d < completion.near) & similar_size(sizes[read], sizes[i], fans.size_ratio)]
    naturals = {int(rank[k]) for k in near if rank[k] not in (RANK_TWO, RANK_JOKER)}
    continued = [r for r in sorted(naturals)
                 if _fan_continues(i, [k for k in near if rank[k] in (r, RANK_TWO, RANK_JOKER)], centres,
                                   fans.step_tolerance)]
    if len(continued) != 1:
        return None
    options = [continued[0], RANK_TWO, RANK_JOKER]
    best = options[int(np.argmax(rank_p[options]))]
    return best if rank_p[best] >= completion.candidate_p else None


def _fan_continues(i: int, fan: list[int], centres: np.ndarray, step_tolerance: float) -> bool:
    """True when ``i`` lies one fan step beyond one of the indices *a* of ``fan``, coming from *b*, the index of
    ``fan`` nearest to *a* (:func:`vision.geometry.step_miss` under ``step_tolerance``)."""
    for a in fan:
        others = [b for b in fan if b != a]
        if not others:
            continue
        b = others[int(np.argmin(np.linalg.norm(centres[others] - centres[a], axis=1)))]
        if step_miss(centres[i], centres[a], centres[b]) < step_tolerance:
            return True
    return False


def settle_fan_ranks(boxes: Detections, rank: np.ndarray, rank_p: np.ndarray, *,
                     config: VisionConfig = DEFAULT) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of read corner indices, each natural one re-read in its fan where the fan leaves no doubt (see the
    module docstring), in ``config.completion.settle_rounds`` passes (a settled index may settle another).

    Args:
        boxes: (n,) the read index boxes (their centres and sizes in pixels).
        rank: (n,) the rank index (into :data:`vision.classes.RANKS`) each box is read as.
        rank_p: (n, 15) the reader's rank probabilities of each box.
        config: the thresholds (sections ``fans`` and ``completion``).

    Returns:
        (rank (n,) int64 after settling, changed (n,) bool: True where the fan changed the reading).
    """
    fans, completion = config.fans, config.completion
    rank = np.asarray(rank, np.int64).copy()
    n = len(rank)
    changed = np.zeros(n, bool)
    if n < 3:
        return rank, changed
    centres, sizes = boxes.centres, boxes.sizes
    for _ in range(completion.settle_rounds):
        natural = (rank != RANK_TWO) & (rank != RANK_JOKER)
        settled = {}
        for i in np.flatnonzero(natural):
            dist = np.linalg.norm(centres - centres[i], axis=1) / sizes[i]
            near = np.flatnonzero((dist > completion.settle_min_distance) & (dist <= fans.inside_reach)
                                  & similar_size(sizes, sizes[i], fans.size_ratio) & natural & (rank != rank[i]))
            claims = _fan_claims(int(i), near, centres, rank, fans)
            if len(claims) != 1:
                continue
            options = [claims.pop(), RANK_TWO, RANK_JOKER]
            best = options[int(np.argmax(rank_p[i, options]))]
            if rank_p[i, best] >= completion.settle_min_ratio * rank_p[i, rank[i]]:
                settled[int(i)] = best
        if not settled:
            break
        for i, r in settled.items():
            rank[i] = r
            changed[i] = True
    return rank, changed


def _fan_claims(i: int, near: np.ndarray, centres: np.ndarray, rank: np.ndarray, fans: FanGeometry) -> set[int]:
    """The ranks whose fan index ``i`` lies in, from its ``near`` neighbours ((k,) indices into ``centres``
    (n, 2) pixels and ``rank`` (n,)): inside a fan (two neighbours of one rank on opposite sides of it) or at a
    fan's end (a neighbour *a*, and an index of *a*'s rank one step beyond *a* coming from ``i``)."""
    claims: set[int] = set()
    for k, a in enumerate(near):
        for b in near[k + 1:]:
            if rank[a] == rank[b] and opposite(centres[a] - centres[i], centres[b] - centres[i],
                                               fans.inside_even, fans.inside_angle):
                claims.add(int(rank[a]))
        miss = step_miss(centres, centres[a], centres[i])
        miss[[a, i]] = np.inf
        b = int(np.argmin(miss))
        if miss[b] < fans.step_tolerance and rank[b] == rank[a]:
            claims.add(int(rank[a]))
    return claims


def read_fan_boxes(piles: list[Pile], unread: Detections, *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """``piles`` with each meld's cards counted from unread boxes where the fan places a card (module docstring).

    ``unread`` holds the boxes no read index covers, with the reader's ``rank_p`` (n, 15) and ``suit_p`` (n, 4)
    data columns; without them, or with ``config.fan_gaps.box_p`` over 1, the piles are returned unchanged."""
    fg = config.fan_gaps
    if not len(unread) or "rank_p" not in unread.data or fg.box_p > 1:
        return list(piles)
    centres, sizes = unread.centres, unread.sizes
    taken: set[int] = set()
    out = []
    for pile in piles:
        keys = {c.key for c in pile.cards} - {None}
        if pile.kind is not PileKind.MELD or len(pile.cards) < 2 or len(keys) != 1 or keys == {"3R"}:
            out.append(pile)
            continue
        rank = next(iter(keys))
        cards, added = list(pile.fan), []
        while True:
            every = np.concatenate([c.centers for p in piles for c in p.cards] + [c.centers for c in cards])
            found = _next_box(cards, rank, unread, centres, sizes, every, taken, config)
            if found is None:
                break
            pos, j, card = found
            taken.add(j)
            cards.insert(pos, card)
            added.append(card.code)
        if not added:
            out.append(pile)
            continue
        one = len(added) == 1
        out.append(Pile(pile.kind, tuple(cards), pile.notes + (
            f"{listed(added)} {'is' if one else 'are'} counted where this fan's next card would lie, from "
            f"{'a corner' if one else 'corners'} too faint to read for sure: "
            + ("remove it if there is no card there" if one else "remove any that is not there"),)))
    return out


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
