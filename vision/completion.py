"""Stage 1b of the camera pipeline: complete fans with the corner indices the detector was unsure of.

A meld is a fan of one rank plus wilds (seed 000 "Melding", seed 002 §3), its cards stepped evenly so each
index shows. The detector (``vision/detector.py``) finds some indices with a confidence under the
:data:`vision.scales.FINDER_BOX_CONF` a box needs to be read on its own: jokers above all, whose corner marks
differ from deck to deck (on the photoreal ``tables_examples`` it boxes 21 % of the joker marks at 0.5 and 79 %
at 0.1); the index reader drops other boxes as unsure (``vision.reader.IndexReader.relabel``).
:func:`complete_fans` takes such a box back when the fan says where it should be:

* it lies where the next card of a fan of read indices would: beyond a read index *a*, at *a* + (*a* - *b*)
  for *b* the nearest read index of the fan (within :data:`STEP_TOLERANCE` of that step);
* its neighbours within :data:`NEAR` index sizes (of a size within :data:`SIZE_RATIO`) show exactly one natural
  rank *R*, and it lies at least :data:`SEPARATION` index sizes from every read index (not a second box on one);
* the index reader gives it *R*, a two or a joker with probability at least :data:`MIN_P`; it takes the likeliest.

An accepted box gets P(its rank) x sqrt(detector confidence) (no colour factor, unlike a read box), raised to
the reading floor; under 0.5 (as it mostly is: its detector confidence is under 0.5) its card is flagged as low
confidence on its pile (``vision.piles``), so the user sees it. A box on a jester's face in the middle of a card
is not where a fan continues; one beside a fan's last card can be, and is then read as what it looks like.

Measured with the shipped models (detector v4, reader w15) on cached run-time boxes, against reading the sure
boxes alone: fans counted right 0.545 -> 0.556 and exact score 0.20 -> 0.21 on 100 held-out-design dev tables
(``data/tables_hdev``), 0.396 -> 0.403 and 0.17 -> 0.17 on 100 training-design ones (``data/tables_dev``),
photoreal 25 -> 26 of 47 fans (1 of 8 exact either way). Filling a gap of two steps inside a fan as well added
boxes where no index was (11 of 24 added on the held-out-design dev tables) and was left out.
"""

from __future__ import annotations

import numpy as np

from .classes import CLASS_ID, RANKS, SUIT_CODES, rank_of
from .detections import Detections, index_sizes

#: boxes down to this detector confidence are candidates
CANDIDATE_CONF = 0.1
#: neighbours (read indices) within this many index sizes say which fan a candidate continues
NEAR = 4.0
#: a candidate this close (index sizes) to a read index is a second box on it
SEPARATION = 0.9
#: neighbours' index sizes within this factor of the candidate's
SIZE_RATIO = 1.4
#: the candidate within this fraction of the fan's step from where the next card's index would be
STEP_TOLERANCE = 0.3
#: the reader's probability of the fan's rank, a two or a joker needed to accept a candidate
MIN_P = 0.3
#: accepted candidates may support more: this many passes
ROUNDS = 2

_TWO, _JOKER = RANKS.index("2"), RANKS.index("JK")


def _rank_index(code: str) -> int:
    return RANKS.index(rank_of(code))


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
    if len(kept) < 2 or not len(candidates):
        return kept, 0
    xy = np.concatenate([kept.xyxy, candidates.xyxy]).astype(np.float64)
    centres = (xy[:, :2] + xy[:, 2:]) / 2
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
    if not codes:
        return kept, 0
    add = sorted(codes)
    extra = Detections(xy[add].astype(np.float32), np.array([conf[i] for i in add], np.float32),
                       np.array([CLASS_ID[codes[i]] for i in add], np.int64))
    every = Detections.concatenate([kept, extra])
    return every[np.argsort(-every.confidence, kind="stable")], len(add)


def _continues_fan(i: int, read: np.ndarray, centres: np.ndarray, sizes: np.ndarray, rank: np.ndarray,
                   rank_p: np.ndarray) -> int | None:
    """The rank index candidate ``i`` is read as when it continues a fan of the ``read`` indices, else None."""
    d = np.linalg.norm(centres[read] - centres[i], axis=1) / sizes[i]
    if d.min() < SEPARATION:
        return None
    near = read[(d < NEAR) & (sizes[read] < SIZE_RATIO * sizes[i]) & (sizes[read] > sizes[i] / SIZE_RATIO)]
    naturals = {int(rank[k]) for k in near if rank[k] not in (_TWO, _JOKER)}
    if len(naturals) != 1:
        return None
    fan_rank = naturals.pop()
    fan = [k for k in near if rank[k] in (fan_rank, _TWO, _JOKER)]
    if not any(_beyond(i, a, [b for b in fan if b != a], centres) for a in fan):
        return None
    options = [fan_rank, _TWO, _JOKER]
    best = options[int(np.argmax(rank_p[options]))]
    return best if rank_p[best] >= MIN_P else None


def _beyond(i: int, a: int, others: list[int], centres: np.ndarray) -> bool:
    """True when ``i`` lies one fan step beyond ``a``: at a + (a - b), b the nearest of ``others`` to a."""
    if not others:
        return False
    steps = np.linalg.norm(centres[others] - centres[a], axis=1)
    b = others[int(np.argmin(steps))]
    step = float(steps.min())
    return step > 0 and float(np.linalg.norm(centres[i] - (2 * centres[a] - centres[b]))) < STEP_TOLERANCE * step
