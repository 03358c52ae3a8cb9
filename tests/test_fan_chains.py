"""Stage 1b, last step: fans of boxes the reader could not read, read as one rank (``vision.fan_chains``)."""

import numpy as np

from vision.classes import RANKS
from vision.completion import read_with_fans
from vision.config import DEFAULT
from vision.fan_chains import chain_rank, chains, unread_fans
from vision.types import Detections

S = 12.0  # index size in pixels: a whole-table photo's small indices
STEP = 1.3 * S


def boxes(points):
    return np.array([[x - S / 2, y - S / 2, x + S / 2, y + S / 2] for x, y in points], np.float64).reshape(-1, 4)


def unsure_probs(spread):
    """(m, 15) rank probabilities, each row a dict {rank: p}; the rest on "no index" stays 0."""
    out = np.zeros((len(spread), len(RANKS)))
    for k, row in enumerate(spread):
        for r, p in row.items():
            out[k, RANKS.index(r)] = p
    return out


FAN = [(100.0 + k * STEP, 200.0 + 0.3 * k * STEP) for k in range(5)]
# a reader unsure of every index of a fan of sixes: each alone is read as something else, or not at all
SIXES = [{"6": 0.3, "9": 0.35, "8": 0.35}, {"6": 0.3, "5": 0.4, "9": 0.3}, {"6": 0.35, "8": 0.4, "5": 0.25},
         {"6": 0.3, "9": 0.4, "K": 0.3}, {"JK": 0.6, "6": 0.2, "9": 0.2}]


def test_an_evenly_stepped_row_of_boxes_is_one_chain_in_order():
    xy = boxes(FAN + [(400.0, 400.0), (100.0 + 2.5 * STEP, 260.0)])  # two boxes off the line
    (chain,) = chains(xy, np.arange(len(xy)))
    assert chain in ([0, 1, 2, 3, 4], [4, 3, 2, 1, 0])


def test_two_boxes_or_an_uneven_row_are_no_chain():
    assert chains(boxes(FAN[:2]), np.arange(2)) == []
    uneven = [(100.0, 100.0), (100.0 + STEP, 100.0), (100.0 + 3.2 * STEP, 100.0)]
    assert chains(boxes(uneven), np.arange(3)) == []
    # the step must be index-sized: indices 5 sizes apart are not one fan's
    far = [(100.0 + k * 5 * S, 100.0) for k in range(4)]
    assert chains(boxes(far), np.arange(4)) == []


def test_a_chain_takes_the_rank_that_explains_every_box():
    assert RANKS[chain_rank(unsure_probs(SIXES))] == "6"


def test_unread_fan_is_read_as_its_rank_with_wilds_kept():
    xy = boxes(FAN)
    got = unread_fans(xy, np.full(5, 0.6), unsure_probs(SIXES), np.full(5, -1))
    assert [RANKS[got[i]] for i in range(5)] == ["6", "6", "6", "6", "JK"]


def test_a_read_index_where_the_chain_continues_gives_its_rank():
    xy = boxes(FAN + [(100.0 + 5 * STEP, 200.0 + 1.5 * STEP)])
    read_rank = np.array([-1] * 5 + [RANKS.index("9")])
    rank_p = np.vstack([unsure_probs(SIXES), unsure_probs([{"9": 0.9}])])
    got = unread_fans(xy, np.full(6, 0.6), rank_p, read_rank)
    assert sorted({RANKS[r] for r in got.values()}) == ["9", "JK"] and 5 not in got


def test_a_row_beside_a_read_fan_and_unsure_boxes_stay_unread():
    # a row of face pips beside read indices (a court card's pips next to its index)
    pips = [(x, y + 0.9 * S) for x, y in FAN]
    xy = boxes(FAN + pips)
    read_rank = np.array([RANKS.index("K")] * 5 + [-1] * 5)
    rank_p = np.vstack([unsure_probs([{"K": 0.9}] * 5), unsure_probs(SIXES)])
    assert unread_fans(xy, np.full(10, 0.6), rank_p, read_rank) == {}
    # boxes the detector barely saw, or that the reader calls "no index", make no chain
    assert unread_fans(boxes(FAN), np.full(5, 0.2), unsure_probs(SIXES), np.full(5, -1)) == {}
    none = unsure_probs([{"none": 0.8, "6": 0.2}] * 5)
    assert unread_fans(boxes(FAN), np.full(5, 0.6), none, np.full(5, -1)) == {}


def test_read_with_fans_reads_a_chain_at_the_reading_floor():
    xy = boxes(FAN).astype(np.float32)
    dets = Detections(xy, np.full(5, 0.6, np.float32), np.zeros(5, np.int64))
    suit_p = np.tile(np.array([0.1, 0.1, 0.7, 0.1], np.float32), (5, 1))  # diamonds
    out = read_with_fans(dets, unsure_probs(SIXES).astype(np.float32), suit_p)
    # the joker is read on its own (0.6 x sqrt(0.6) = 0.46); the four sixes only as a chain, at the floor 0.35
    assert sorted(out.codes) == ["6D", "6D", "6D", "6D", "JK"]
    assert np.allclose(out.confidence[np.array(out.codes) == "6D"], 0.35)


def test_a_row_of_boxes_much_smaller_than_the_read_indices_is_no_fan():
    # wood grain in a close-up: 6 px boxes in a row, far from the 30 px indices that were read
    big = np.array([[300.0, 300.0, 330.0, 330.0], [500.0, 300.0, 530.0, 330.0]])
    grain = np.array([[x, 100.0, x + 6, 106.0] for x in (100.0, 108.0, 116.0, 124.0)])
    xy = np.vstack([big, grain])
    read_rank = np.array([RANKS.index("K"), RANKS.index("Q")] + [-1] * 4)
    rank_p = np.vstack([unsure_probs([{"K": 0.9}, {"Q": 0.9}]), unsure_probs(SIXES[:4])])
    assert unread_fans(xy, np.full(6, 0.6), rank_p, read_rank) == {}
    # the same row alone in a photo of small indices is a fan
    assert len(unread_fans(grain, np.full(4, 0.6), unsure_probs(SIXES[:4]), np.full(4, -1))) == 4


def test_a_row_of_boxes_much_larger_than_the_read_indices_is_no_fan():
    # a wooden table's stripes boxed as 120 px indices beside a photo's read 28 px ones
    small = np.array([[x, 600.0, x + 28, 628.0] for x in (100.0, 140.0, 180.0)])
    stripes = np.array([[x, y, x + 120, y + 120] for x, y in ((300.0, 100.0), (420.0, 60.0), (540.0, 20.0))])
    xy = np.vstack([small, stripes])
    read_rank = np.array([RANKS.index("7")] * 3 + [-1] * 3)
    rank_p = np.vstack([unsure_probs([{"7": 0.9}] * 3), unsure_probs([{"JK": 0.5, "J": 0.1}] * 3)])
    assert unread_fans(xy, np.full(6, 0.6), rank_p, read_rank) == {}
    # the same row alone in a photo is a fan
    assert len(unread_fans(stripes, np.full(3, 0.6), unsure_probs([{"JK": 0.5, "J": 0.1}] * 3), np.full(3, -1))) == 3


def test_a_rank_with_its_meld_read_elsewhere_is_not_the_chains_rank():
    # the chain's own readings favour 9 a little over 6, but three nines are read in another fan of the photo
    lean_nine = unsure_probs([{"9": 0.4, "6": 0.35, "5": 0.25}] * 4)
    assert RANKS[chain_rank(lean_nine)] == "9"
    assert RANKS[chain_rank(lean_nine, {RANKS.index("9")})] == "6"
    nines = [(400.0 + k * STEP, 100.0) for k in range(3)]
    xy = boxes(FAN[:4] + nines)
    read_rank = np.array([-1] * 4 + [RANKS.index("9")] * 3)
    rank_p = np.vstack([lean_nine, unsure_probs([{"9": 0.9}] * 3)])
    got = unread_fans(xy, np.full(7, 0.6), rank_p, read_rank)
    assert {RANKS[r] for r in got.values()} == {"6"} and len(got) == 4


def test_a_photo_full_of_unread_boxes_is_read_without_chains():
    # a tablecloth's pattern boxed all over: more unread boxes than chain_max_candidates make no fans
    config = DEFAULT.replace(**{"completion.chain_max_candidates": 80})
    k = int(np.ceil(np.sqrt(config.completion.chain_max_candidates + 1)))
    grid = boxes([(x * STEP, y * STEP) for x in range(k) for y in range(k)])
    n = len(grid)
    assert unread_fans(grid, np.full(n, 0.6), unsure_probs([SIXES[0]] * n), np.full(n, -1), config=config) == {}
    assert unread_fans(grid, np.full(n, 0.6), unsure_probs([SIXES[0]] * n), np.full(n, -1))  # the shipped limit
    small = grid[:8 * 8]  # ... while a few rows of them are read as fans
    assert unread_fans(small, np.full(64, 0.6), unsure_probs([SIXES[0]] * 64), np.full(64, -1), config=config)
