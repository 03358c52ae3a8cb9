"""Stage 1b: fans completed with the boxes the detector was unsure of (``vision.completion``). Pure NumPy."""

import numpy as np

from vision.classes import class_id
from vision.completion import complete_fans
from vision.detections import Detections
from vision.classes import RANKS

S = 20.0  # index size in pixels


def boxes(points):
    return np.array([[x - S / 2, y - S / 2, x + S / 2, y + S / 2] for x, y in points], np.float32).reshape(-1, 4)


def read(codes, points, conf=0.9):
    return Detections(boxes(points), np.full(len(codes), conf, np.float32),
                      np.array([class_id(c) for c in codes], np.int64))


def probs(rank_of_each, p=0.8):
    """(m, 15) rank and (m, 4) suit probabilities: ``p`` on the given rank, the rest on "no index"."""
    rank_p = np.zeros((len(rank_of_each), len(RANKS)), np.float32)
    for k, r in enumerate(rank_of_each):
        rank_p[k, RANKS.index(r)] = p
        rank_p[k, -1] = 1 - p
    suit_p = np.tile(np.array([0.1, 0.7, 0.1, 0.1], np.float32), (len(rank_of_each), 1))  # hearts
    return rank_p, suit_p


def unsure(points):
    return Detections(boxes(points), np.full(len(points), 0.3, np.float32), np.zeros(len(points), np.int64))


STEP = 1.3 * S
FAN = [(100.0, 100 + k * STEP) for k in range(4)]  # four sevens read


def test_a_box_where_the_fan_continues_is_added_as_the_fans_rank_or_a_wild():
    kept = read(["7S", "7C", "7D", "7S"], FAN)
    cand = unsure([(100.0, 100 + 4 * STEP), (100.0, 100 - STEP)])  # one step beyond each end
    rank_p, suit_p = probs(["JK", "7"])
    out, n = complete_fans(kept, cand, rank_p, suit_p, min_conf=0.35)
    assert n == 2 and len(out) == 6
    assert sorted(out.codes) == sorted(["7S", "7C", "7D", "7S", "JK", "7H"])
    # P(reading) x sqrt(detector confidence) = 0.8 x sqrt(0.3) = 0.44: under 0.5, so flagged on its pile
    assert np.allclose(np.sort(out.confidence)[:2], 0.8 * np.sqrt(0.3))


def test_boxes_that_do_not_continue_a_fan_are_left_out():
    kept = read(["7S", "7C", "7D", "7S"], FAN)
    cand = unsure([
        (100.0 + 3 * S, 100 + 2 * STEP),        # beside the fan, not along it (a jester's face, a pip)
        (100.0, 100 + 3 * STEP + 0.3 * S),     # on a read index: a second box on it
        (100.0, 100 + 4 * STEP),               # where the fan continues, but read as a king
        (400.0, 400.0),                        # nowhere near a fan
    ])
    rank_p, suit_p = probs(["JK", "7", "K", "7"])
    out, n = complete_fans(kept, cand, rank_p, suit_p, min_conf=0.35)
    assert n == 0 and out.codes == kept.codes


def test_a_box_between_two_fans_of_different_ranks_is_left_out():
    kept = read(["7S", "7C", "9D", "9S"], [(100.0, 100.0), (100.0, 100 + STEP), (100.0, 100 + 3 * STEP),
                                           (100.0, 100 + 4 * STEP)])
    cand = unsure([(100.0, 100 + 2 * STEP)])
    out, n = complete_fans(kept, cand, *probs(["7"]), min_conf=0.35)
    assert n == 0
