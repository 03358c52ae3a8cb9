"""Stage 1b of the camera pipeline, first step: a natural rank read alone, settled by the fan it lies in.

A meld is a fan of one natural rank plus wilds (twos and jokers; seed 000 "Melding", seed 002 §3), its cards
stepped evenly along a line. The index reader (``vision/reader.py``) reads each corner index alone, and on the
small indices of a whole-table photo it often names one card of a fan as another rank (a 6 as a 9, a Q as a K):
the pile is then split in two, or read as a hand. :func:`settle_fan_ranks` re-reads such an index with its
fan's help when the geometry leaves no doubt that it is a card of that fan:

* *inside* a fan: two indices of one natural rank *R* lie on opposite sides of it (directions within
  :data:`ANGLE` degrees of opposite, distances within :data:`EVEN` x of each other and at most :data:`REACH`
  index sizes), or
* at a fan's *end*: an index of rank *R* lies next to it (within :data:`REACH` index sizes) and another index of
  *R* one step further along the same line (within :data:`END_TOLERANCE` of that step);

and no other rank's fan claims it. It is then read as the likeliest of *R*, a two and a joker, when the reader
gave that at least :data:`MIN_RATIO` times the probability of its own best rank. Neighbours count only with
index sizes within :data:`SIZE_RATIO` of its own. An index read as a two or a joker is never changed (a wild
inside a meld is normal); a hand holding two cards of one rank on either side of a third card can be taken for
a fan, which is why every changed card is flagged (its confidence, P(new rank) x sqrt(detector confidence), is
under 0.5 — the fan's rank was not the reader's best — unless the reading floor ``--conf`` is set above it, so
its pile notes it as low confidence, ``vision.piles``).

Measured with detector v10 and reader jk2 on cached run-time boxes, in ``vision.completion.read_with_fans``
with its steps 1 and 4 only, without and with this step: fans counted right 0.609 -> 0.623 on 100
held-out-design dev tables (``data/tables_hdev``; exact score 0.22 either way), 0.426 -> 0.422 on 100
training-design ones (``data/tables_dev``; exact 0.17 -> 0.18), photoreal tables 29 -> 31 of 47 fans.
"""

from __future__ import annotations

import numpy as np

from .classes import RANKS
from .detections import index_centres, index_sizes

#: neighbours within this many index sizes (the index's own) can place an index in their fan
REACH = 2.0
#: inside a fan: the two neighbours' distances within this factor of each other
EVEN = 1.25
#: inside a fan: the two neighbours' directions within this many degrees of opposite
ANGLE = 15.0
#: at a fan's end: the second neighbour within this fraction of a step of where the line continues
END_TOLERANCE = 0.3
#: neighbours' index sizes within this factor of the index's own
SIZE_RATIO = 1.4
#: the fan's rank (or a wild) needs at least this fraction of the reader's probability of its own best rank
MIN_RATIO = 0.1
#: a settled index may settle another: this many passes
ROUNDS = 2

_TWO, _JOKER = RANKS.index("2"), RANKS.index("JK")


def settle_fan_ranks(xyxy: np.ndarray, rank: np.ndarray, rank_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of read corner indices, each natural one re-read in its fan where the fan leaves no doubt (see the
    module docstring).

    Args:
        xyxy: (n, 4) index boxes in pixels.
        rank: (n,) the rank index (into :data:`vision.classes.RANKS`) each box is read as.
        rank_p: (n, 15) the reader's rank probabilities of each box.

    Returns:
        (rank (n,) int64 after settling, changed (n,) bool: True where the fan changed the reading).
    """
    rank = np.asarray(rank, np.int64).copy()
    n = len(rank)
    changed = np.zeros(n, bool)
    if n < 3:
        return rank, changed
    centres, sizes = index_centres(xyxy), index_sizes(xyxy)
    cos_opposite = np.cos(np.radians(ANGLE))
    for _ in range(ROUNDS):
        natural = (rank != _TWO) & (rank != _JOKER)
        settled = {}
        for i in np.flatnonzero(natural):
            d = centres - centres[i]
            dist = np.linalg.norm(d, axis=1) / sizes[i]
            near = np.flatnonzero((dist > 0.3) & (dist <= REACH) & (sizes < SIZE_RATIO * sizes[i])
                                  & (sizes > sizes[i] / SIZE_RATIO) & natural & (rank != rank[i]))
            fans = set()
            for k, a in enumerate(near):
                for b in near[k + 1:]:  # inside: a and b of one rank on opposite sides
                    if rank[a] != rank[b] or max(dist[a], dist[b]) > EVEN * min(dist[a], dist[b]):
                        continue
                    if -np.dot(d[a], d[b]) >= cos_opposite * np.linalg.norm(d[a]) * np.linalg.norm(d[b]):
                        fans.add(int(rank[a]))
                miss = np.linalg.norm(centres - (centres[a] + d[a]), axis=1) / np.linalg.norm(d[a])
                miss[[a, i]] = np.inf  # at the end: the line i -> a continues one step to a box of a's rank
                b = int(np.argmin(miss))
                if miss[b] < END_TOLERANCE and rank[b] == rank[a]:
                    fans.add(int(rank[a]))
            if len(fans) != 1:
                continue
            fan_rank = fans.pop()
            options = [fan_rank, _TWO, _JOKER]
            best = options[int(np.argmax(rank_p[i, options]))]
            if rank_p[i, best] >= MIN_RATIO * rank_p[i, rank[i]]:
                settled[int(i)] = best
        if not settled:
            break
        for i, r in settled.items():
            rank[i] = r
            changed[i] = True
    return rank, changed
