"""One card's two corners read together (``vision.corners_together``)."""

import numpy as np

from vision.classes import RANKS, SUIT_CODES, reading
from vision.completion import read_with_fans
from vision.config import DEFAULT
from vision.corners_together import read_together, together
from vision.types import Detections

ON = DEFAULT.replace(**{"pairing.together": True})


def _p(ranks: dict[str, float], suits: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """(15,) and (4,) probabilities putting the given mass on the named ranks / suits and the rest evenly."""
    r = np.full(len(RANKS), (1 - sum(ranks.values())) / (len(RANKS) - len(ranks)))
    for k, v in ranks.items():
        r[RANKS.index(k)] = v
    s = np.full(4, (1 - sum(suits.values())) / (4 - len(suits)))
    for k, v in suits.items():
        s[SUIT_CODES.index(k)] = v
    return r, s


def _photo():
    """Four 30 x 40 px boxes: 0 and 1 one card's corners (4.2 index sizes apart on its diagonal), one read 5S at
    0.45 with a 3 close behind, the other 3S unsure with a 5 close behind; 2 and 3 another card's, read 9H and KC
    (readings that share no rank)."""
    xyxy = np.array([[100, 100, 130, 140], [190, 210, 220, 250], [500, 100, 530, 140], [590, 210, 620, 250]],
                    np.float32)
    probs = [_p({"5": 0.45, "3": 0.35}, {"S": 0.5, "C": 0.4}), _p({"3": 0.4, "5": 0.38}, {"S": 0.6, "C": 0.3}),
             _p({"9": 0.9}, {"H": 0.9}), _p({"K": 0.9}, {"C": 0.9})]
    rank_p = np.array([r for r, _ in probs], np.float32)
    suit_p = np.array([s for _, s in probs], np.float32)
    return Detections(xyxy, np.full(4, 0.9, np.float32), np.zeros(4, np.int64)), rank_p, suit_p


def test_the_product_of_two_readings():
    a, sa = _p({"5": 0.45, "3": 0.35}, {"S": 0.5, "C": 0.4})
    b, sb = _p({"3": 0.4, "5": 0.38}, {"S": 0.6, "C": 0.3})
    rank, suit = together(a[None], sa[None], b[None], sb[None])
    assert np.isclose(rank.sum(), 1) and np.isclose(suit.sum(), 1)
    assert RANKS[int(rank.argmax())] == "5" and rank[0, RANKS.index("5")] > 0.5  # surer than either alone
    assert np.isclose(rank[0, -1], (a[-1] + b[-1]) / 2)  # "no index" their mean
    assert SUIT_CODES[int(suit.argmax())] == "S" and suit[0, SUIT_CODES.index("S")] > 0.6


def test_one_cards_corners_are_read_alike_and_other_cards_are_left_alone():
    boxes, rank_p, suit_p = _photo()
    assert reading(rank_p, suit_p)[0][:2] == ["5S", "3S"]  # each alone: a false 3S
    got_r, got_s = read_together(boxes, rank_p, suit_p, config=ON)
    codes, p = reading(got_r, got_s)
    assert codes == ["5S", "5S", "9H", "KC"]
    assert np.allclose(got_r[2:], rank_p[2:]) and np.allclose(got_s[2:], suit_p[2:])  # no rank in common
    assert p[0] > 0.45 * 0.9
    unsure = Detections(boxes.xyxy, np.array([0.9, 0.3, 0.9, 0.9], np.float32), boxes.class_id)
    assert np.array_equal(read_together(unsure, rank_p, suit_p, config=ON)[0], rank_p)  # a box the detector doubts


def test_the_reading_of_a_photo_with_and_without_it():
    boxes, rank_p, suit_p = _photo()
    low = {"reading.min_conf": 0.2}
    off = read_with_fans(boxes, rank_p, suit_p, config=DEFAULT.replace(**low))
    on = read_with_fans(boxes, rank_p, suit_p, config=ON.replace(**low))
    assert sorted(off.codes) == ["3S", "5S", "9H", "KC"]
    assert sorted(on.codes) == ["5S", "5S", "9H", "KC"]
