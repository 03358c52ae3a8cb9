"""Reading an index with its fan's help (``vision/context.py``) and the ``data`` arrays that carry what the reader
read alone through the pipeline. Pure NumPy: runs without the vision extra."""

import numpy as np
import pytest

from vision.classes import class_id
from vision.context import MIN_RATIO, fan_context
from vision.detections import Detections
from vision.table import read_side

S = 20.0  # index size, pixels
A, TWO, SEVEN, K, JOKER, NONE = 0, 1, 6, 12, 13, 14


def boxes(n, step=1.4 * S):
    """n index boxes of size S in a vertical fan, ``step`` px apart."""
    return np.array([[100 - S / 2, 100 + k * step - S / 2, 100 + S / 2, 100 + k * step + S / 2]
                     for k in range(n)], np.float32)


def probs(*rows):
    """Rank probability rows from {rank index: probability}; the rest shared evenly."""
    out = []
    for row in rows:
        p = np.zeros(15)
        for r, v in row.items():
            p[r] = v
        rest = [r for r in range(15) if r not in row]
        p[rest] = (1 - p.sum()) / len(rest)
        out.append(p)
    return np.array(out, np.float32)


def test_a_doubtful_index_inside_a_fan_takes_the_fan_rank():
    p = probs({K: 0.9}, {K: 0.9}, {SEVEN: 0.55, K: 0.3}, {K: 0.9}, {K: 0.9})
    rank, changed = fan_context(boxes(5), p)
    assert rank.tolist() == [K] * 5 and changed.tolist() == [False, False, True, False, False]


def test_the_last_card_of_a_fan_has_neighbours_on_one_side_only():
    p = probs({K: 0.9}, {K: 0.9}, {K: 0.9}, {A: 0.6, K: 0.2})
    rank, changed = fan_context(boxes(4), p)
    assert rank[-1] == K and changed.tolist() == [False, False, False, True]


def test_a_wild_read_as_a_wild_stays_wild():
    p = probs({K: 0.9}, {K: 0.9}, {TWO: 0.8, K: 0.1}, {K: 0.9}, {JOKER: 0.7, K: 0.2})
    rank, changed = fan_context(boxes(5), p)
    assert rank.tolist() == [K, K, TWO, K, JOKER] and not changed.any()


def test_a_misread_wild_in_a_fan_becomes_the_likelier_of_rank_and_wild():
    p = probs({K: 0.9}, {K: 0.9}, {SEVEN: 0.5, JOKER: 0.35, K: 0.05}, {K: 0.9})
    rank, changed = fan_context(boxes(4), p)
    assert rank[2] == JOKER and changed[2]


def test_a_sure_reading_is_kept_against_its_neighbours():
    p = probs({K: 0.9}, {K: 0.9}, {SEVEN: 0.97, K: MIN_RATIO * 0.5}, {K: 0.9}, {K: 0.9})
    rank, changed = fan_context(boxes(5), p)
    assert rank[2] == SEVEN and not changed.any()


def test_mixed_neighbours_say_nothing():
    # a fanned hand: neighbours of two ranks
    p = probs({K: 0.9}, {A: 0.9}, {SEVEN: 0.5, K: 0.4}, {K: 0.9}, {A: 0.9})
    rank, changed = fan_context(boxes(5), p)
    assert not changed.any()


def test_far_indices_are_not_neighbours():
    p = probs({K: 0.9}, {K: 0.9}, {SEVEN: 0.5, K: 0.4})
    rank, changed = fan_context(boxes(3, step=5 * S), p)
    assert not changed.any()


def test_no_index_is_never_made_a_card():
    p = probs({K: 0.9}, {K: 0.9}, {NONE: 0.6, K: 0.3}, {K: 0.9})
    rank, changed = fan_context(boxes(4), p)
    assert rank[2] == NONE and not changed.any()


def test_detections_data_follows_selection_and_concatenation():
    d = Detections(boxes(3), np.array([0.9, 0.5, 0.7], np.float32), np.array([0, 1, 2]),
                   {"read_as": np.array(["", "7H", ""], dtype=object)})
    assert d[d.confidence > 0.6].data["read_as"].tolist() == ["", ""]
    assert d[1].data["read_as"].tolist() == ["7H"]
    both = Detections.concatenate([d, d[[1]]])
    assert len(both) == 4 and both.data["read_as"].tolist() == ["", "7H", "", "7H"]
    plain = Detections(boxes(1), np.ones(1, np.float32), np.zeros(1, np.int64))
    assert Detections.concatenate([d, plain]).data == {}  # a key is kept only when every part has it
    assert Detections.concatenate([d, Detections.empty()]).data.keys() == {"read_as"}
    with pytest.raises(ValueError, match="read_as"):
        Detections(boxes(2), np.ones(2, np.float32), np.zeros(2, np.int64), {"read_as": np.array(["a"])})


def test_a_rank_from_the_fan_is_noted_on_its_pile():
    codes = ["KH", "KS", "KD", "KC"]
    xyxy = boxes(4)
    d = Detections(xyxy, np.full(4, 0.9, np.float32), np.array([class_id(c) for c in codes]),
                   {"read_as": np.array(["", "", "7D", ""], dtype=object)})
    side = read_side(d)
    assert [p.codes for p in side.piles] == [codes]
    assert any("7D->KD" in n for n in side.notes)
