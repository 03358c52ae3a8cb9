"""Stage 1b of the camera pipeline, last step: fans whose indices the detector found but the reader could not read.

On a whole-table photo the corner indices are small (8-16 px) and the index reader (``vision/reader.py``) is
unsure of many of them, often of every index of a fan, and the detector's confidence in such small indices is
often under :attr:`~vision.config.Reading.finder_box_conf` too. Such a fan is still plain to see: boxes of one
size, stepped evenly along a line. :func:`unread_fans` finds those *chains* among the boxes left unread by the
steps before it and reads each chain as one natural rank (a meld is one natural rank plus wilds: seed 000
"Melding", seed 002 §3):

* the rank of a read natural index where the chain continues (one step beyond either end), when there is one
  (two read naturals of different ranks there: the chain is left unread);
* otherwise the natural rank *R* (four to ace; threes never meld) with the largest sum, over the chain's boxes,
  of log(P(R) + P(two) + P(joker)) from the reader's probabilities (:func:`chain_rank`), among the ranks not
  read :attr:`~vision.config.Completion.chain_melded` times or more elsewhere in the photo: a side holds one
  open meld of a rank (seed 000 "Melding": "Your side may have only one unfinished meld of each rank"). That is a
  prior, not a rule (books of one rank may repeat).

A box the reader gives a two or a joker more likely than *R* (and at least
:attr:`~vision.config.Completion.chain_wild_p`) is read as that wild. A chain with a read index beside it (within
:attr:`~vision.config.Completion.chain_beside` index sizes, not where it continues) is left unread: that is a row
of face pips beside a read fan (a court card's suit pips next to its index). Boxes under
:attr:`~vision.config.Completion.chain_min_size_ratio` of the median size of the photo's read indices make no
chain (rows of tiny boxes on wood grain beside a close-up's indices), nor do boxes over
:attr:`~vision.config.Completion.chain_max_size_ratio` of it (a wooden table's stripes boxed large). A photo with
more unread boxes than :attr:`~vision.config.Completion.chain_max_candidates` is read without chains: that is a
pattern (a tablecloth's), not fans, and following every chain through it would take seconds.

The reading is a guess and is shown as one: every box read here gets the reading floor as its confidence, so
its pile is flagged as low confidence (``vision.piles``) and the user checks its rank. The fan's count is what
the geometry knows.

A chain (:func:`chains`): at least :attr:`~vision.config.Completion.chain_min_length` unread boxes of detector
confidence at least :attr:`~vision.config.Completion.chain_conf` (or the box threshold
:attr:`~vision.config.Reading.finder_box_conf`, if lower) and the reader's P(no index) under
:attr:`~vision.config.Completion.chain_none_max`, index sizes within :attr:`~vision.config.FanGeometry.size_ratio`
of its first box's, each box one step beyond the previous one (:func:`vision.geometry.step_miss` under
:attr:`~vision.config.Completion.chain_tolerance`), the step :attr:`~vision.config.Completion.chain_step` index
sizes long.
"""

from __future__ import annotations

import numpy as np

from .classes import RANK_JOKER, RANK_NONE, RANK_TWO, RANKS
from .config import DEFAULT, VisionConfig
from .geometry import similar_size, step_miss
from .types import index_centres, index_sizes

#: the natural ranks a meld can be made of (seed 000 "Melding": threes are never melded)
_NATURALS = np.array([i for i, r in enumerate(RANKS) if r not in ("2", "3", "JK", "none")])


def chains(xyxy: np.ndarray, candidates: np.ndarray, *, config: VisionConfig = DEFAULT) -> list[list[int]]:
    """Chains of evenly stepped boxes among ``candidates`` ((m,) indices into ``xyxy``, (n, 4) pixels), each a
    list of box indices in order along the chain; no box in two chains, longest chains first (then those of the
    shortest step). A chain is followed from its first box only, so the work grows with the pairs of
    neighbouring boxes. ``config``: sections ``fans`` (``size_ratio``) and ``completion`` (``chain_min_length``,
    ``chain_step``, ``chain_tolerance``)."""
    completion, size_ratio = config.completion, config.fans.size_ratio
    tolerance = completion.chain_tolerance
    cand = np.asarray(candidates, np.int64).reshape(-1)
    if len(cand) < completion.chain_min_length:
        return []
    step_min, step_max = completion.chain_step
    centres, sizes = index_centres(xyxy), index_sizes(xyxy)
    found: list[tuple[int, float, list[int]]] = []
    for a in cand:
        d = np.linalg.norm(centres[cand] - centres[a], axis=1)
        near = (d >= step_min * sizes[a]) & (d <= step_max * sizes[a]) & \
            similar_size(sizes[cand], sizes[a], size_ratio)
        for b in cand[near]:
            step = centres[b] - centres[a]
            chain = [int(a), int(b)]
            if _next(int(a), centres[b], chain, cand, centres, sizes, sizes[a], tolerance, size_ratio) is not None:
                continue  # not the chain's first box: it is followed from there
            while (k := _next(chain[-1], centres[chain[-1]] - step, chain, cand, centres, sizes, sizes[a],
                              tolerance, size_ratio)) is not None:
                chain.append(k)
            if len(chain) >= completion.chain_min_length:
                found.append((len(chain), float(np.hypot(*step)), chain))
    out: list[list[int]] = []
    used: set[int] = set()
    for _, _, chain in sorted(found, key=lambda t: (-t[0], t[1])):
        if used.isdisjoint(chain):
            out.append(chain)
            used.update(chain)
    return out


def _next(last: int, behind: np.ndarray, chain: list[int], boxes: np.ndarray, centres: np.ndarray,
          sizes: np.ndarray, size: float, tolerance: float, size_ratio: float) -> int | None:
    """The box of ``boxes`` ((k,) indices into ``centres`` (n, 2) and ``sizes`` (n,), pixels; not in ``chain``,
    index size within ``size_ratio`` of ``size``) nearest to one step beyond ``last`` coming from the point
    ``behind`` ((2,) pixels), within ``tolerance`` steps of it (:func:`vision.geometry.step_miss`); None if there
    is none."""
    boxes = np.asarray(boxes, np.int64).reshape(-1)
    if not len(boxes):
        return None
    miss = step_miss(centres[boxes], centres[last], behind)
    ok = (miss < tolerance) & similar_size(sizes[boxes], size, size_ratio) & ~np.isin(boxes, chain)
    if not ok.any():
        return None
    return int(boxes[ok][int(np.argmin(miss[ok]))])


def chain_rank(rank_p: np.ndarray, taken: set[int] = frozenset()) -> int:
    """The natural rank index (into :data:`vision.classes.RANKS`) that explains a chain's (k, 15) rank
    probabilities best: the largest sum of log(P(rank) + P(two) + P(joker)), over four to ace, leaving out the
    rank indices in ``taken`` (unless that leaves none)."""
    wild = rank_p[:, RANK_TWO] + rank_p[:, RANK_JOKER]
    scores = np.log(rank_p[:, _NATURALS] + wild[:, None] + 1e-3).sum(0)  # + 1e-3: no box's zero vetoes a rank
    free = np.array([r not in taken for r in _NATURALS])
    if free.any():
        scores = np.where(free, scores, -np.inf)
    return int(_NATURALS[int(np.argmax(scores))])


def unread_fans(xyxy: np.ndarray, det_conf: np.ndarray, rank_p: np.ndarray, read_rank: np.ndarray, *,
                config: VisionConfig = DEFAULT) -> dict[int, int]:
    """{box index: rank index (into :data:`vision.classes.RANKS`)} for the unread boxes that lie in a chain
    (see the module docstring).

    Args:
        xyxy: (n, 4) boxes in pixels.
        det_conf: (n,) detector confidences.
        rank_p: (n, 15) reader rank probabilities.
        read_rank: (n,) the rank index each box was read as by the steps before, -1 for a box left unread.
        config: the thresholds (sections ``reading``, ``fans`` and ``completion``).
    """
    completion = config.completion
    read = read_rank >= 0
    cand = np.flatnonzero(~read & (det_conf >= min(config.reading.finder_box_conf, completion.chain_conf))
                          & (rank_p[:, RANK_NONE] < completion.chain_none_max))
    if len(cand) > completion.chain_max_candidates:
        return {}
    centres, sizes = index_centres(xyxy), index_sizes(xyxy)
    readers = np.flatnonzero(read)
    melded = set(np.flatnonzero(np.bincount(read_rank[read], minlength=len(RANKS)) >= completion.chain_melded)
                 .tolist())
    out: dict[int, int] = {}
    if len(readers):  # much smaller or larger than the photo's read indices: wood grain, a card back's pattern
        ratio = sizes[cand] / float(np.median(sizes[readers]))
        cand = cand[(ratio >= completion.chain_min_size_ratio) & (ratio <= completion.chain_max_size_ratio)]
    for chain in chains(xyxy, cand, config=config):
        ends: set[int] = set()  # read boxes where the chain continues
        for a, b in ((chain[-1], chain[-2]), (chain[0], chain[1])):
            k = _next(a, centres[b], chain, readers, centres, sizes, sizes[a], completion.chain_tolerance,
                      config.fans.size_ratio)
            if k is not None:
                ends.add(k)
        end_ranks = {int(read_rank[k]) for k in ends} & set(_NATURALS.tolist())
        if len(end_ranks) > 1 or _beside_read(chain, readers[~np.isin(readers, list(ends))], centres, sizes,
                                              completion.chain_beside):
            continue
        if end_ranks:
            rank = end_ranks.pop()
        else:
            rank = chain_rank(rank_p[chain], melded)
        for i in chain:
            wild = RANK_TWO if rank_p[i, RANK_TWO] >= rank_p[i, RANK_JOKER] else RANK_JOKER
            out[i] = wild if rank_p[i, wild] > rank_p[i, rank] and rank_p[i, wild] >= completion.chain_wild_p else rank
    return out


def _beside_read(chain: list[int], others: np.ndarray, centres: np.ndarray, sizes: np.ndarray,
                 beside: float) -> bool:
    """True when one of the read boxes ``others`` ((k,) indices into ``centres`` (n, 2) and ``sizes`` (n,),
    pixels) lies within ``beside`` index sizes (of the chain's box) of a box of ``chain``."""
    if not len(others):
        return False
    d = np.linalg.norm(centres[chain][:, None] - centres[others][None], axis=2) / sizes[chain][:, None]
    return bool((d < beside).any())
