"""Stage 1b of the camera pipeline: read the corner indices with the fans' help (:func:`read_with_fans`), and
complete fans with the indices the detector was unsure of (:func:`complete_fans`).

A meld is a fan of one rank plus wilds (seed 000 "Melding", seed 002 §3), its cards stepped evenly so each
index shows. The detector (``vision/detector.py``) finds some indices with a confidence under the
:data:`vision.scales.FINDER_BOX_CONF` a box needs to be read on its own: jokers above all, whose corner marks
differ from deck to deck (on the photoreal ``tables_examples`` it boxes 21 % of the joker marks at 0.5 and 79 %
at 0.1); the index reader drops other boxes as unsure (``vision.reader.IndexReader.relabel``).
:func:`complete_fans` takes such a box back when the fan says where it should be:

* it lies where the next card of a fan of read indices would: beyond a read index *a*, at *a* + (*a* - *b*)
  for *b* the nearest read index of the fan (within :data:`STEP_TOLERANCE` of that step), a fan being the
  neighbours within :data:`NEAR` index sizes (of a size within :data:`SIZE_RATIO`) of one natural rank *R* and
  wilds;
* exactly one rank's fan continues there (a box between the ends of two fans is neither's), and it lies at least
  :data:`SEPARATION` index sizes from every read index (not a second box on one);
* the index reader gives it *R*, a two or a joker with probability at least :data:`MIN_P`; it takes the likeliest.

An accepted box gets P(its rank) x sqrt(detector confidence) (no colour factor, unlike a read box), raised to
the reading floor; under 0.5 (as it mostly is: its detector confidence is under 0.5) its card is flagged as low
confidence on its pile (``vision.piles``), so the user sees it. A box on a jester's face in the middle of a card
is not where a fan continues; one beside a fan's last card can be, and is then read as what it looks like.
How each rule was measured: ``models/HISTORY.md``.
"""

from __future__ import annotations

import numpy as np

from .classes import CLASS_ID, RANKS, SUIT_CODES, rank_of
from .detections import Detections, index_centres, index_sizes
from .fan_chains import unread_fans
from .fan_ranks import settle_fan_ranks
from .instances import agree_suits
from .reader import _reading, code_of

#: boxes down to this detector confidence are candidates
CANDIDATE_CONF = 0.1
#: neighbours (read indices) within this many index sizes say which fan a candidate continues
NEAR = 4.0
#: a candidate this close (index sizes) to a read index is a second box on it (0.9 until this release: tight
#: fans step by 0.6-0.9 index sizes, so their missing cards were never taken back)
SEPARATION = 0.55
#: neighbours' index sizes within this factor of the candidate's
SIZE_RATIO = 1.4
#: the candidate within this fraction of the fan's step from where the next card's index would be
STEP_TOLERANCE = 0.3
#: the reader's probability of the fan's rank, a two or a joker needed to accept a candidate (0.3 until this
#: release)
MIN_P = 0.2
#: accepted candidates may support more: this many passes
ROUNDS = 2
#: a box the detector was unsure of is taken back as a joker when the reader gives it a joker's mark with at
#: least this probability ...
JOKER_P = 0.95
#: ... and the nearest read index that is not a joker lies within this many of that index's sizes (but not on
#: it: :data:`JOKER_SEPARATION`)
JOKER_NEAR = 2.0
#: nearer than this (that index's sizes) the box is a second box on the read index (photoreal joker marks are
#: smaller than their neighbours' indices and fanned tightly, 0.8 of the neighbour's size away)
JOKER_SEPARATION = 0.55

_TWO, _JOKER = RANKS.index("2"), RANKS.index("JK")


def _rank_index(code: str) -> int:
    return RANKS.index(rank_of(code))


def read_with_fans(boxes: Detections, rank_p: np.ndarray, suit_p: np.ndarray, box_conf: float,
                   min_conf: float) -> Detections:
    """Stage 1b in full: the corner indices read from every box the detector found, with the fans' help.

    1. A box is *read* when the detector's confidence is at least ``box_conf`` and the reader names it with
       P(rank) x P(colour) x sqrt(detector confidence) (``vision.reader.p_rank_colour``) at least ``min_conf``.
    2. A box the detector was unsure of that the reader is sure is a joker's corner mark (P >= :data:`JOKER_P`)
       is read too when it lies beside a read index that is not a joker (:data:`JOKER_NEAR`): the wild of a
       meld.
       Jokers' marks differ from deck to deck and the detector boxes many of them with low confidence; a
       jester's face drawn in the middle of a joker lying alone has no other card beside it.
    3. Each natural rank is settled by its fan (:func:`vision.fan_ranks.settle_fan_ranks`).
    4. The boxes left over are added where they continue a fan (:func:`complete_fans`), and chains of boxes
       still unread, evenly stepped like a fan's indices, are read as one rank each
       (:func:`vision.fan_chains.unread_fans`).
    5. The two indices of one card read as two suits of one colour take one suit
       (:func:`vision.instances.agree_suits`), so that they pair.

    A box taken in or re-read by steps 2-4 gets the reader's probability of what it is now read as times
    sqrt(detector confidence), at least ``min_conf`` (a box read in a chain gets ``min_conf`` itself); that is
    under 0.5 for nearly all of them, so their piles flag them as low confidence. Measured with the shipped models
    (detector v10, reader jk2) on cached run-time boxes, against steps 1 and 4 with the settings of the previous
    release (all five chosen on these dev sets; before the chains of step 4): fans counted right 0.599 -> 0.633 and
    exact score 0.22 -> 0.23 on 100 held-out-design dev tables (``data/tables_hdev``), 0.409 -> 0.422 and 0.17 ->
    0.18 on 100 training-design ones (``data/tables_dev``), photoreal tables (``tables_examples``) 26 -> 33 of 47
    fans and 0 -> 2 of 8 scores exact.

    Args:
        boxes: (n,) boxes found by the detector (pixels; their detector confidences; class ids unused).
        rank_p: (n, 15) reader rank probabilities (:data:`vision.classes.RANKS`).
        suit_p: (n, 4) reader suit probabilities.
        box_conf: detector confidence a box needs to be read on its own (``vision.scales.FINDER_BOX_CONF``).
        min_conf: the reading floor (``--conf``).

    Returns:
        the read detections, most confident first.
    """
    n = len(boxes)
    if not n:
        return Detections.empty()
    det = boxes.confidence.astype(np.float64)
    codes, p = _reading(rank_p, suit_p)
    best, suit = rank_p.argmax(1), suit_p.argmax(1)
    conf = p * np.sqrt(det)
    read = (det >= box_conf) & np.array([c is not None for c in codes], bool) & (conf >= min_conf)
    jokers = _sure_jokers(boxes.xyxy, read, best, rank_p)
    conf = np.where(jokers, np.maximum(rank_p[:, _JOKER] * np.sqrt(det), min_conf), conf)
    read |= jokers
    idx = np.flatnonzero(read)
    rank, changed = settle_fan_ranks(boxes.xyxy[idx], best[idx], rank_p[idx])
    moved = idx[changed]
    conf[moved] = np.maximum(rank_p[moved, rank[changed]] * np.sqrt(det[moved]), min_conf)
    cls = np.array([CLASS_ID[code_of(int(r), int(s))] for r, s in zip(rank, suit[idx])], np.int64)
    kept = Detections(boxes.xyxy[idx], conf[idx].astype(np.float32), cls)
    rest = np.flatnonzero(~read)
    extra, add = _taken_detections(boxes[rest], _taken_back(kept, boxes[rest], rank_p[rest], suit_p[rest], min_conf))
    read_rank = np.full(n, -1, np.int64)
    read_rank[idx] = rank
    read_rank[rest[add]] = [_rank_index(c) for c in extra.codes]
    chained = unread_fans(boxes.xyxy, det, rank_p, read_rank, box_conf)
    ci = np.array(sorted(chained), np.int64)
    chain_cls = np.array([CLASS_ID[code_of(chained[int(i)], int(suit[i]))] for i in ci], np.int64)
    chain_dets = Detections(boxes.xyxy[ci].reshape(-1, 4), np.full(len(ci), min_conf, np.float32), chain_cls)
    parts = [kept, extra, chain_dets]
    used = [idx, rest[add], ci]
    every = agree_suits(Detections.concatenate(parts), suit_p[np.concatenate(used)])
    return every[np.argsort(-every.confidence, kind="stable")]


def _sure_jokers(xyxy: np.ndarray, read: np.ndarray, best: np.ndarray, rank_p: np.ndarray) -> np.ndarray:
    """(n,) bool: unread boxes sure to be a joker's mark, with a read index that is not a joker beside them."""
    out = np.zeros(len(read), bool)
    others = np.flatnonzero(read & (best != _JOKER))
    maybe = np.flatnonzero(~read & (best == _JOKER) & (rank_p[:, _JOKER] >= JOKER_P))
    if not len(others) or not len(maybe):
        return out
    centres, sizes = index_centres(xyxy), index_sizes(xyxy)
    for i in maybe:
        d = (np.linalg.norm(centres[others] - centres[i], axis=1) / sizes[others]).min()
        out[i] = JOKER_SEPARATION < d <= JOKER_NEAR
    return out


def complete_fans(kept: Detections, candidates: Detections, rank_p: np.ndarray, suit_p: np.ndarray,
                  min_conf: float) -> tuple[Detections, int]:
    """The read detections plus the candidate boxes that continue a fan (see the module docstring).

    Args:
        kept: read detections (codes from the index reader; boxes in pixels).
        candidates: boxes the detector was unsure of, or that the reader dropped (their detector confidences;
            class ids unused).
        rank_p: (m, 15) reader rank probabilities of the candidates (:data:`vision.reader.RANKS`).
        suit_p: (m, 4) reader suit probabilities of the candidates.
        min_conf: the reading floor (e.g. ``--conf``): an accepted candidate's confidence is the reader's
            probability of its rank times the square root of its detector confidence (as a read box, without
            the colour factor of ``vision.reader.IndexReader.relabel``), but at least this.

    Returns:
        (detections, most confident first; the number of candidates accepted).
    """
    extra, add = _taken_detections(candidates, _taken_back(kept, candidates, rank_p, suit_p, min_conf))
    if not len(add):
        return kept, 0
    every = Detections.concatenate([kept, extra])
    return every[np.argsort(-every.confidence, kind="stable")], len(add)


def _taken_detections(candidates: Detections, taken: dict[int, tuple[str, float]]
                      ) -> tuple[Detections, np.ndarray]:
    """The candidates :func:`_taken_back` took, as detections with their new codes and confidences, and their
    (k,) int64 indices among the candidates (ascending)."""
    add = np.array(sorted(taken), np.int64)
    return Detections(candidates.xyxy[add].reshape(-1, 4), np.array([taken[i][1] for i in add], np.float32),
                      np.array([CLASS_ID[taken[i][0]] for i in add], np.int64)), add


def _taken_back(kept: Detections, candidates: Detections, rank_p: np.ndarray, suit_p: np.ndarray,
                min_conf: float) -> dict[int, tuple[str, float]]:
    """{candidate index: (card code, confidence)} of the candidates :func:`complete_fans` takes back."""
    if len(kept) < 2 or not len(candidates):
        return {}
    xy = np.concatenate([kept.xyxy, candidates.xyxy]).astype(np.float64)
    centres = index_centres(xy)
    sizes = index_sizes(xy)
    rank = np.array([_rank_index(c) for c in kept.codes] + [-1] * len(candidates))
    read = np.zeros(len(xy), bool)
    read[: len(kept)] = True
    codes: dict[int, str] = {}
    conf: dict[int, float] = {}
    k0 = len(kept)
    for _ in range(ROUNDS):
        found = {}
        idx = np.flatnonzero(read)
        for i in range(k0, len(xy)):
            if read[i]:
                continue
            got = _continues_fan(i, idx, centres, sizes, rank, rank_p[i - k0])
            if got is not None:
                found[i] = got
        if not found:
            break
        for i, r in found.items():
            read[i] = True
            rank[i] = r
            codes[i] = "JK" if r == _JOKER else RANKS[r] + SUIT_CODES[int(suit_p[i - k0].argmax())]
            conf[i] = max(float(rank_p[i - k0, r]) * float(np.sqrt(candidates.confidence[i - k0])), min_conf)
    return {i - k0: (codes[i], conf[i]) for i in codes}


def _continues_fan(i: int, read: np.ndarray, centres: np.ndarray, sizes: np.ndarray, rank: np.ndarray,
                   rank_p: np.ndarray) -> int | None:
    """The rank index candidate ``i`` is read as when it continues a fan of the ``read`` indices, else None."""
    d = np.linalg.norm(centres[read] - centres[i], axis=1) / sizes[i]
    if d.min() < SEPARATION:
        return None
    near = read[(d < NEAR) & (sizes[read] < SIZE_RATIO * sizes[i]) & (sizes[read] > sizes[i] / SIZE_RATIO)]
    naturals = {int(rank[k]) for k in near if rank[k] not in (_TWO, _JOKER)}
    continued = [r for r in sorted(naturals) if _fan_continues(i, [k for k in near if rank[k] in (r, _TWO, _JOKER)],
                                                               centres)]
    if len(continued) != 1:
        return None
    options = [continued[0], _TWO, _JOKER]
    best = options[int(np.argmax(rank_p[options]))]
    return best if rank_p[best] >= MIN_P else None


def _fan_continues(i: int, fan: list[int], centres: np.ndarray) -> bool:
    """True when ``i`` lies one step beyond one of the indices of ``fan`` (:func:`_beyond`)."""
    return any(_beyond(i, a, [b for b in fan if b != a], centres) for a in fan)


def _beyond(i: int, a: int, others: list[int], centres: np.ndarray) -> bool:
    """True when ``i`` lies one fan step beyond ``a``: at a + (a - b), b the nearest of ``others`` to a."""
    if not others:
        return False
    steps = np.linalg.norm(centres[others] - centres[a], axis=1)
    b = others[int(np.argmin(steps))]
    step = float(steps.min())
    return step > 0 and float(np.linalg.norm(centres[i] - (2 * centres[a] - centres[b]))) < STEP_TOLERANCE * step
