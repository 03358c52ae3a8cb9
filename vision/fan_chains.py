"""Stage 1b of the camera pipeline, last step: fans whose indices the detector found but the reader could not read.

On a whole-table photo the corner indices are small (8-16 px) and the index reader (``vision/reader.py``) is
unsure of many of them: on the held-out-design dev tables (``data/tables_hdev``, detector v10, reader jk2 + w20)
145 indices of melds and books were boxed at detector confidence 0.5 or more and dropped as unsure, most of them
in fans where no index was read at all, and the detector's confidence in such small indices is often under 0.5
too. Such a fan is still plain to see: boxes of one size, stepped evenly along a line. :func:`unread_fans` finds
those *chains* among the boxes left unread by the steps before it and reads each chain as one natural rank (a
meld is one natural rank plus wilds: seed 000 "Melding", seed 002 §3):

* the rank of a read natural index where the chain continues (one step beyond either end), when there is one
  (two read naturals of different ranks there: the chain is left unread);
* otherwise the natural rank *R* (four to ace; threes never meld) with the largest sum, over the chain's boxes,
  of log(P(R) + P(two) + P(joker)) from the reader's probabilities (:func:`chain_rank`), among the ranks not
  read :data:`MELDED` times or more elsewhere in the photo: a side holds one open meld of a rank (seed 000
  "Melding": "Your side may have only one unfinished meld of each rank"). That is a prior, not a rule
  (books of one rank may repeat); on the dev tables it took the chains' joint readings from 30 to 40 right of
  100 boxes, with the same fan counts.

A box the reader gives a two or a joker more likely than *R* (and at least :data:`WILD_P`) is read as that wild.
A chain with a read index beside it (within :data:`BESIDE` index sizes, not where it continues) is left unread:
that is a row of face pips beside a read fan (a court card's suit pips next to its index, on the photoreal
tables). Boxes under :data:`MIN_SIZE_RATIO` of the median size of the photo's read indices make no chain: on the
``phone_corners`` close-ups, rows of 7 px boxes on wood grain beside 30 px indices had made melds of six photos.

The reading is a guess and is shown as one: every box read here gets the reading floor as its confidence, so
its pile is flagged as low confidence (``vision.piles``) and the user checks its rank. The fan's count is what
the geometry knows.

A chain: at least :data:`MIN_LENGTH` unread boxes of detector confidence at least :data:`CHAIN_CONF` (or the
box threshold, if lower) and the reader's P(no index) under :data:`NONE_MAX`, index sizes within
:data:`SIZE_RATIO` of its first box's, each box the previous one plus one step (within :data:`TOLERANCE` of the
step's length), the step :data:`STEP_MIN` to :data:`STEP_MAX` index sizes long.

Chosen on cached run-time boxes (detector v10, reader jk2 + w20; fans counted right, without -> with this step):
held-out-design dev tables 0.677 -> 0.694, training-design dev tables 0.492 -> 0.525, photoreal tables
(``tables_examples``) 35 -> 36 of 47; exact scores unchanged (0.25, 0.21, 4 of 8). Chains of boxes down to
detector confidence 0.5 only: 0.680 and 0.505; down to 0.2: 0.684 and 0.515.
"""

from __future__ import annotations

import numpy as np

from .classes import RANKS
from .detections import index_centres, index_sizes

#: a chain holds at least this many boxes
MIN_LENGTH = 3
#: a step between neighbouring indices of a fan, in index sizes (tight fans step by 0.6-0.9)
STEP_MIN, STEP_MAX = 0.55, 3.0
#: the next box within this fraction of the step's length of where the chain continues
TOLERANCE = 0.4
#: index sizes within this factor of the chain's first box
SIZE_RATIO = 1.4
#: boxes the reader takes for "no index" with at least this probability are not in chains (pips, faces)
NONE_MAX = 0.5
#: boxes down to this detector confidence can be in a chain (the chain, not the box, says it is an index)
CHAIN_CONF = 0.3
#: a read index this close (index sizes) to a chain's box, not where the chain continues, leaves it unread
BESIDE = 1.2
#: chain boxes at least this fraction of the median size of the photo's read indices
MIN_SIZE_RATIO = 0.5
#: a photo with more unread boxes than this is read without chains (a pattern, not fans: a dense grid of 576
#: boxes takes chains() about 1.4 s on one core)
MAX_CANDIDATES = 600
#: a natural rank read this many times elsewhere in the photo is not a chain's rank (it has its meld already)
MELDED = 3
#: a box is read as a two or a joker when the reader gives that wild more than the chain's rank and at least this
WILD_P = 0.5

_TWO, _JOKER, _NONE = RANKS.index("2"), RANKS.index("JK"), RANKS.index("none")
#: the natural ranks a meld can be made of (seed 000 "Melding": threes are never melded)
_NATURALS = np.array([i for i, r in enumerate(RANKS) if r not in ("2", "3", "JK", "none")])


def chains(xyxy: np.ndarray, candidates: np.ndarray) -> list[list[int]]:
    """Chains of evenly stepped boxes among ``candidates`` ((m,) indices into ``xyxy``, (n, 4) pixels), each a
    list of box indices in order along the chain; no box in two chains, longest chains first (then those of the
    shortest step). A chain is followed from its first box only, so the work grows with the pairs of
    neighbouring boxes (a dense grid of 576 boxes, the worst case, takes about a second)."""
    cand = np.asarray(candidates, np.int64).reshape(-1)
    if len(cand) < MIN_LENGTH:
        return []
    centres, sizes = index_centres(xyxy), index_sizes(xyxy)
    found: list[tuple[int, float, list[int]]] = []
    for a in cand:
        d = np.linalg.norm(centres[cand] - centres[a], axis=1)
        ratio = sizes[cand] / sizes[a]
        near = (d >= STEP_MIN * sizes[a]) & (d <= STEP_MAX * sizes[a]) & (ratio >= 1 / SIZE_RATIO) & \
            (ratio <= SIZE_RATIO)
        for b in cand[near]:
            step = centres[b] - centres[a]
            chain = [int(a), int(b)]
            if _next(int(a), -step, chain, cand, centres, sizes, sizes[a]) is not None:
                continue  # not the chain's first box: it is followed from there
            while (k := _next(chain[-1], step, chain, cand, centres, sizes, sizes[a])) is not None:
                chain.append(k)
            if len(chain) >= MIN_LENGTH:
                found.append((len(chain), float(np.hypot(*step)), chain))
    out: list[list[int]] = []
    used: set[int] = set()
    for _, _, chain in sorted(found, key=lambda t: (-t[0], t[1])):
        if used.isdisjoint(chain):
            out.append(chain)
            used.update(chain)
    return out


def _next(last: int, step: np.ndarray, chain: list[int], boxes: np.ndarray, centres: np.ndarray,
          sizes: np.ndarray, size: float) -> int | None:
    """The box of ``boxes`` ((k,) indices; not in ``chain``, index size within :data:`SIZE_RATIO` of ``size``)
    nearest to ``last`` + ``step``, within :data:`TOLERANCE` of the step's length; None if there is none."""
    boxes = np.asarray(boxes, np.int64).reshape(-1)
    if not len(boxes):
        return None
    d = np.linalg.norm(centres[boxes] - (centres[last] + step), axis=1)
    ratio = sizes[boxes] / size
    ok = (d < TOLERANCE * float(np.hypot(*step))) & (ratio >= 1 / SIZE_RATIO) & (ratio <= SIZE_RATIO) & \
        ~np.isin(boxes, chain)
    if not ok.any():
        return None
    return int(boxes[ok][int(np.argmin(d[ok]))])


def chain_rank(rank_p: np.ndarray, taken: set[int] = frozenset()) -> int:
    """The natural rank index (into :data:`vision.classes.RANKS`) that explains a chain's (k, 15) rank
    probabilities best: the largest sum of log(P(rank) + P(two) + P(joker)), over four to ace, leaving out the
    rank indices in ``taken`` (unless that leaves none)."""
    wild = rank_p[:, _TWO] + rank_p[:, _JOKER]
    scores = np.log(rank_p[:, _NATURALS] + wild[:, None] + 1e-3).sum(0)
    free = np.array([r not in taken for r in _NATURALS])
    if free.any():
        scores = np.where(free, scores, -np.inf)
    return int(_NATURALS[int(np.argmax(scores))])


def unread_fans(xyxy: np.ndarray, det_conf: np.ndarray, rank_p: np.ndarray, read_rank: np.ndarray,
                box_conf: float) -> dict[int, int]:
    """{box index: rank index (into :data:`vision.classes.RANKS`)} for the unread boxes that lie in a chain
    (see the module docstring).

    Args:
        xyxy: (n, 4) boxes in pixels.
        det_conf: (n,) detector confidences.
        rank_p: (n, 15) reader rank probabilities.
        read_rank: (n,) the rank index each box was read as by the steps before, -1 for a box left unread.
        box_conf: detector confidence a box needs to be read on its own (``vision.scales.FINDER_BOX_CONF``).
    """
    read = read_rank >= 0
    cand = np.flatnonzero(~read & (det_conf >= min(box_conf, CHAIN_CONF)) & (rank_p[:, _NONE] < NONE_MAX))
    if len(cand) > MAX_CANDIDATES:
        return {}
    centres, sizes = index_centres(xyxy), index_sizes(xyxy)
    readers = np.flatnonzero(read)
    melded = set(np.flatnonzero(np.bincount(read_rank[read], minlength=len(RANKS)) >= MELDED).tolist())
    out: dict[int, int] = {}
    if len(readers):  # much smaller than the photo's read indices: wood grain, a card back's pattern
        cand = cand[sizes[cand] >= MIN_SIZE_RATIO * float(np.median(sizes[readers]))]
    for chain in chains(xyxy, cand):
        ends: set[int] = set()  # read boxes where the chain continues
        for a, b in ((chain[-1], chain[-2]), (chain[0], chain[1])):
            k = _next(a, centres[a] - centres[b], chain, readers, centres, sizes, sizes[a])
            if k is not None:
                ends.add(k)
        end_ranks = {int(read_rank[k]) for k in ends} & set(_NATURALS.tolist())
        if len(end_ranks) > 1 or _beside_read(chain, readers[~np.isin(readers, list(ends))], centres, sizes):
            continue
        if end_ranks:
            rank = end_ranks.pop()
        else:
            rank = chain_rank(rank_p[chain], melded)
        for i in chain:
            wild = _TWO if rank_p[i, _TWO] >= rank_p[i, _JOKER] else _JOKER
            out[i] = wild if rank_p[i, wild] > rank_p[i, rank] and rank_p[i, wild] >= WILD_P else rank
    return out


def _beside_read(chain: list[int], others: np.ndarray, centres: np.ndarray, sizes: np.ndarray) -> bool:
    """True when one of the read boxes ``others`` ((k,) indices) lies within :data:`BESIDE` index sizes of a box
    of ``chain``."""
    if not len(others):
        return False
    d = np.linalg.norm(centres[chain][:, None] - centres[others][None], axis=2) / sizes[chain][:, None]
    return bool((d < BESIDE).any())
