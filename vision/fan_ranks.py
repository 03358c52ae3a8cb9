"""Stage 1b of the camera pipeline, first step: a natural rank read alone, settled by the fan it lies in.

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
"""

from __future__ import annotations

import numpy as np

from .classes import RANK_JOKER, RANK_TWO
from .config import DEFAULT, FanGeometry, VisionConfig
from .detections import index_centres, index_sizes
from .geometry import opposite, similar_size, step_miss



def settle_fan_ranks(xyxy: np.ndarray, rank: np.ndarray, rank_p: np.ndarray, *,
                     config: VisionConfig = DEFAULT) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of read corner indices, each natural one re-read in its fan where the fan leaves no doubt (see the
    module docstring), in ``config.completion.settle_rounds`` passes (a settled index may settle another).

    Args:
        xyxy: (n, 4) index boxes in pixels.
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
    centres, sizes = index_centres(xyxy), index_sizes(xyxy)
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
