"""Stage 1b of the camera pipeline: read a corner index in the context of its fan.

A meld is fanned cards of one natural rank plus wilds (twos and jokers; seed 000 "Melding", seed 002 §3), so in a
fan an index whose neighbours on the table all show one rank is, in all likelihood, that rank or a wild. The index
reader (``vision/reader.py``) reads each index alone; on held-out designs the previous (width 1) reader's best rank
was right for about 84 % of found indices and its two best for about 91 % (generated tables,
``data/tables_heldout``). With the shipped reader this step is about neutral (``models/README.md``).
:func:`fan_context` uses the neighbours to settle the doubtful ones:

* a *trusted* index is one the reader names with rank probability at least :data:`TRUSTED`;
* an index whose trusted neighbours within :data:`RADIUS` index sizes include at least two of one natural rank
  *R* and none of another natural rank (wilds do not count against) is re-read as the likeliest of *R*, two and
  joker, when the reader gave that rank at least :data:`MIN_RATIO` times the probability of its own best rank.

An index read as a two or joker is never changed to a natural (a wild inside a meld is normal), and every change
is reported: the reader's own code is kept (``Detections.data["read_as"]``) so the side's notes can say "read
from the fan's rank, not the index alone: 7H->KH" (``vision/table.py``).
"""

from __future__ import annotations

import numpy as np

#: neighbourhood radius in index sizes (square root of the index box area); fan steps (0.27-0.40 of a card's
#: height in the generator) are about 1.2-1.8 index sizes,
#: so this holds one or two neighbours on each side of an index inside a fan
RADIUS = 4.0
#: a neighbour counts when the reader gave its rank at least this probability
TRUSTED = 0.5
#: re-read only when the fan's rank (or a wild) has at least this fraction of the reader's best rank's probability
MIN_RATIO = 0.05

_N_RANKS = 13  # A..K at rank indices 0-12; 13 = joker, 14 = "no index" (vision.reader.RANKS)
_TWO, _JOKER, _NONE = 1, 13, 14


def fan_context(xyxy: np.ndarray, rank_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of corner indices read with their fan's help.

    Args:
        xyxy: (n, 4) index boxes in pixels.
        rank_p: (n, 15) reader rank probabilities (A-K, joker, "no index"; :data:`vision.reader.RANKS`).

    Returns:
        (rank (n,) int64 rank index per box, changed (n,) bool: True where the context changed the reader's best).
    """
    n = len(xyxy)
    top = rank_p.argmax(1) if n else np.zeros(0, np.int64)
    rank = top.copy()
    changed = np.zeros(n, bool)
    if n < 3:
        return rank, changed
    xyxy = np.asarray(xyxy, np.float64)
    centres = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    sizes = np.sqrt(np.clip(xyxy[:, 2] - xyxy[:, 0], 1e-3, None) * np.clip(xyxy[:, 3] - xyxy[:, 1], 1e-3, None))
    dist = np.linalg.norm(centres[:, None] - centres[None], axis=-1) / ((sizes[:, None] + sizes[None]) / 2)
    np.fill_diagonal(dist, np.inf)
    p_top = rank_p[np.arange(n), top]
    trusted = (p_top >= TRUSTED) & (top != _NONE)
    natural = trusted & (top < _N_RANKS) & (top != _TWO)
    for i in range(n):
        if top[i] in (_TWO, _JOKER, _NONE):
            continue
        near = dist[i] <= RADIUS
        ranks = top[near & natural]
        if len(ranks) < 2:
            continue
        values, counts = np.unique(ranks, return_counts=True)
        if len(values) != 1 or counts[0] < 2:
            continue  # no neighbours of one rank, or neighbours of two ranks (a hand, or two piles side by side)
        fan = int(values[0])
        if fan == top[i]:
            continue
        options = [fan, _TWO, _JOKER]
        best = options[int(np.argmax(rank_p[i, options]))]
        if rank_p[i, best] >= MIN_RATIO * p_top[i]:
            rank[i] = best
            changed[i] = True
    return rank, changed
