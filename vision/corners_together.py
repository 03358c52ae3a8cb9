"""The two corner indices of one card read together: each read by the product of both readings.

A card seen whole shows its index twice, and the index reader reads each alone. When the two readings differ (a 5
read as a 3 at one corner) the photo holds a false card beside the true one, and when both are right but unsure
each may fall under the reading floor. Two boxes whose geometry is that of one card's corners
(``vision.instances.corner_partners``: their centres a card's diagonal apart, within ``config.pairing.pair_tolerance``
of the photo's typical diagonal, sizes alike, nothing between them) and whose readings agree enough on the rank
(``sum_r P_a(r) P_b(r)`` over the real ranks at least ``config.pairing.together_agree``: two different cards seldom
do) are read as one index seen twice: each real rank's probability is ``P_a(r) P_b(r)``, renormalised to their mean
share of real ranks (1 - P(no index)), and each suit's ``P_a(s) P_b(s)``, renormalised. Each box is in one such pair
at most (matched as the pairing matches, :func:`vision.instances._matching`).

Stage 1b runs it first, on the boxes the detector is sure of (``config.reading.finder_box_conf``), when
``config.pairing.together`` is on (``vision.completion.read_with_fans``).
"""

from __future__ import annotations

import numpy as np

from .config import DEFAULT, VisionConfig
from .instances import corner_partners
from .types import Detections


def together(rank_a: np.ndarray, suit_a: np.ndarray, rank_b: np.ndarray,
             suit_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank (n, 15) and suit (n, 4) probabilities of one index seen twice, from two readings (rank (n, 15), suit
    (n, 4) each, row for row): the real ranks' product rescaled to the readings' mean share of real ranks, "no
    index" the rest; the suits' product rescaled to 1."""
    real = rank_a[:, :-1] * rank_b[:, :-1]
    share = 1.0 - (rank_a[:, -1] + rank_b[:, -1]) / 2
    real = real / np.maximum(real.sum(1, keepdims=True), 1e-12) * share[:, None]
    suit = suit_a * suit_b
    suit = suit / np.maximum(suit.sum(1, keepdims=True), 1e-12)
    return np.hstack([real, (1.0 - share)[:, None]]).astype(np.float32), suit.astype(np.float32)


def read_together(boxes: Detections, rank_p: np.ndarray, suit_p: np.ndarray, *,
                  config: VisionConfig = DEFAULT) -> tuple[np.ndarray, np.ndarray]:
    """The reader's probabilities of one photo's boxes with each card's two corners read together.

    Args:
        boxes: (n,) the detector's boxes (pixels, confidences).
        rank_p, suit_p: (n, 15) and (n, 4) the reader's probabilities of each.
        config: ``config.reading.finder_box_conf`` (boxes sure enough to take part) and ``config.pairing``.

    Returns:
        (rank_p, suit_p) of the same shapes: the rows of two boxes read together replaced by their joint reading
        (:func:`together`), the others as given.
    """
    sure = np.flatnonzero(boxes.confidence >= config.reading.finder_box_conf)
    if len(sure) < 2:
        return rank_p, suit_p
    sub = sure[np.asarray(rank_p[sure].argmax(1) < rank_p.shape[1] - 1)]  # read as an index
    if len(sub) < 2:
        return rank_p, suit_p
    pairs = corner_partners(boxes[sub], rank_p[sub], suit_p[sub], config=config)
    if not pairs:
        return rank_p, suit_p
    i, j = (sub[np.array(side, np.int64)] for side in zip(*pairs))
    rank_p, suit_p = rank_p.copy(), suit_p.copy()
    rank_ij, suit_ij = together(rank_p[i], suit_p[i], rank_p[j], suit_p[j])
    rank_p[i], rank_p[j], suit_p[i], suit_p[j] = rank_ij, rank_ij, suit_ij, suit_ij
    return rank_p, suit_p
