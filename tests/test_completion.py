"""Stage 1b: every box read with the fans' help (``vision.completion``). Pure NumPy."""

import numpy as np

from vision.classes import RANKS, class_id
from vision.completion import complete_fans, read_with_fans, settle_fan_ranks
from vision.types import Detections

S = 20.0  # index size in pixels


def boxes(points):
    return np.array([[x - S / 2, y - S / 2, x + S / 2, y + S / 2] for x, y in points], np.float32).reshape(-1, 4)


def found(points):
    """Unnamed index boxes at ``points``, as the detector finds them."""
    xyxy = boxes(points)
    return Detections(xyxy, np.ones(len(xyxy), np.float32), np.zeros(len(xyxy), np.int64))


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
    out, n = complete_fans(kept, cand, rank_p, suit_p)
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
    out, n = complete_fans(kept, cand, rank_p, suit_p)
    assert n == 0 and out.codes == kept.codes


def test_a_box_between_two_fans_of_different_ranks_is_left_out():
    kept = read(["7S", "7C", "9D", "9S"], [(100.0, 100.0), (100.0, 100 + STEP), (100.0, 100 + 3 * STEP),
                                           (100.0, 100 + 4 * STEP)])
    cand = unsure([(100.0, 100 + 2 * STEP)])
    _, n = complete_fans(kept, cand, *probs(["7"]))
    assert n == 0


def test_a_box_continuing_one_fan_is_added_though_another_ranks_fan_lies_near():
    # on a crowded table another meld's index lies within reach; only the sevens' fan continues at the box
    nines = [(100.0 + 2.5 * S, 100 + 3 * STEP), (100.0 + 2.5 * S, 100 + 2 * STEP)]  # another meld beside them
    kept = read(["7S", "7C", "7D", "9D", "9S"], FAN[:3] + nines)
    out, n = complete_fans(kept, unsure([(100.0, 100 + 3 * STEP)]), *probs(["7"]))
    assert n == 1 and sorted(out.codes) == ["7C", "7D", "7H", "7S", "9D", "9S"]


def test_a_tight_fan_is_completed_too():
    # fanned tightly (a step of 0.7 index sizes) the next card's index lies closer to the last one than the 0.9
    # index sizes the first release wanted between a candidate and every read index
    step = 0.7 * S
    kept = read(["7S", "7C", "7D"], [(100.0, 100 + k * step) for k in range(3)])
    out, n = complete_fans(kept, unsure([(100.0, 100 + 3 * step)]), *probs(["7"], p=0.25))
    assert n == 1 and sorted(out.codes) == ["7C", "7D", "7H", "7S"]

# --- stage 1b, first steps: ranks settled by their fan, sure jokers beside a card (vision.completion, read_with_fans)



def rank_probs(spec):
    """(m, 15) rank probabilities from ``[(rank, p), ...]`` per box, the rest of each row on "no index"."""
    out = np.zeros((len(spec), len(RANKS)), np.float32)
    for k, parts in enumerate(spec):
        for r, p in parts:
            out[k, RANKS.index(r)] = p
        out[k, -1] = 1 - out[k].sum()
    return out


def ranks(names):
    return np.array([RANKS.index(r) for r in names])


SEVEN = [("7", 0.9)]


def test_an_index_misread_inside_a_fan_takes_the_fans_rank():
    points = [(100.0, 100 + k * STEP) for k in range(5)]
    rank_p = rank_probs([SEVEN, SEVEN, [("9", 0.6), ("7", 0.2)], SEVEN, SEVEN])
    rank, changed = settle_fan_ranks(found(points), ranks(["7", "7", "9", "7", "7"]), rank_p)
    assert [RANKS[r] for r in rank] == ["7"] * 5 and changed.tolist() == [False, False, True, False, False]


def test_an_index_misread_at_a_fans_end_takes_the_fans_rank_or_a_wild():
    points = [(100.0, 100 + k * STEP) for k in range(4)]
    rank_p = rank_probs([[("9", 0.5), ("2", 0.3), ("7", 0.1)], SEVEN, SEVEN, SEVEN])
    rank, changed = settle_fan_ranks(found(points), ranks(["9", "7", "7", "7"]), rank_p)
    assert RANKS[rank[0]] == "2" and changed.tolist() == [True, False, False, False]


def test_readings_the_fan_does_not_settle_are_kept():
    line = [(100.0, 100 + k * STEP) for k in range(5)]
    # the reader is sure of the middle card (P(7) under a tenth of P(9)); a wild is never changed
    sure = rank_probs([SEVEN, SEVEN, [("9", 0.95), ("7", 0.04)], SEVEN, SEVEN])
    assert not settle_fan_ranks(found(line), ranks(["7", "7", "9", "7", "7"]), sure)[1].any()
    wild = rank_probs([SEVEN, SEVEN, [("2", 0.6), ("7", 0.3)], SEVEN, SEVEN])
    assert not settle_fan_ranks(found(line), ranks(["7", "7", "2", "7", "7"]), wild)[1].any()
    # a fanned hand of mixed ranks: no two neighbours of one rank place any card
    doubt = [[(r, 0.5), ("7", 0.3)] for r in ["K", "Q", "J", "10", "9"]]
    assert not settle_fan_ranks(found(line), ranks(["K", "Q", "J", "10", "9"]), rank_probs(doubt))[1].any()
    # between the end of a fan of sevens and the end of a fan of nines: both claim it, neither wins
    two_fans = [(100.0, 100 + k * STEP) for k in range(5)]
    rp = rank_probs([SEVEN, SEVEN, [("5", 0.5), ("7", 0.2), ("9", 0.2)], [("9", 0.9)], [("9", 0.9)]])
    assert not settle_fan_ranks(found(two_fans), ranks(["7", "7", "5", "9", "9"]), rp)[1].any()


def test_read_with_fans_settles_a_misread_card_and_flags_it():
    points = [(100.0, 100 + k * STEP) for k in range(5)]
    found = Detections(boxes(points), np.full(5, 0.9, np.float32), np.zeros(5, np.int64))
    rank_p = rank_probs([SEVEN, SEVEN, [("9", 0.6), ("7", 0.3)], SEVEN, SEVEN])
    suit_p = np.tile(np.array([0.9, 0.04, 0.03, 0.03], np.float32), (5, 1))  # spades
    out = read_with_fans(found, rank_p, suit_p)
    assert sorted(out.codes) == ["7S"] * 5
    settled = out.confidence[np.argmin(np.abs(out.xyxy[:, 1] - boxes(points)[2, 1]))]
    # P(7) x sqrt(detector confidence) = 0.28, raised to the reading floor: under 0.5, so flagged on its pile
    assert np.isclose(settled, 0.35)


def fan_of_sevens_and_two_marks(first, second, det, p_joker=0.97):
    """read_with_fans over three read 7H indices in a line and two boxes the detector doubted (confidence
    ``det``) that the reader takes for jokers' marks (P ``p_joker``), at the points ``first`` and ``second``."""
    fan = [(100.0, 100 + k * STEP) for k in range(3)]
    found = Detections(boxes(fan + [first, second]), np.array([0.9, 0.9, 0.9, det, det], np.float32),
                       np.zeros(5, np.int64))
    rank_p = rank_probs([SEVEN, SEVEN, SEVEN, [("JK", p_joker)], [("JK", p_joker)]])
    suit_p = np.tile(np.array([0.1, 0.7, 0.1, 0.1], np.float32), (5, 1))
    return read_with_fans(found, rank_p, suit_p)


def test_a_sure_joker_mark_the_detector_doubted_is_read_beside_a_card_not_alone():
    mark = (100.0 + 0.5 * S, 100 + 3 * STEP)  # beside the fan's last card, a little off its line
    alone = (500.0, 500.0)                     # a jester's face in the middle of a joker lying alone
    out = fan_of_sevens_and_two_marks(mark, alone, det=0.2)
    assert sorted(out.codes) == ["7H", "7H", "7H", "JK"]
    joker = out.confidence[out.codes.index("JK")]
    assert np.isclose(joker, 0.97 * np.sqrt(0.2)) and joker < 0.5
    # the same mark read with less certainty stays out
    assert "JK" not in fan_of_sevens_and_two_marks(mark, alone, det=0.2, p_joker=0.9).codes


def test_a_sure_joker_mark_fanned_tightly_is_read_but_not_a_second_box_on_a_card():
    tight = (100.0, 100 + 2 * STEP + 0.7 * S)  # a small joker mark fanned close after the last card
    on_it = (100.0 + 0.3 * S, 100.0)           # a box overlapping the first card's index
    out = fan_of_sevens_and_two_marks(tight, on_it, det=0.3)
    assert sorted(out.codes) == ["7H", "7H", "7H", "JK"]
    assert abs(out.xyxy[out.codes.index("JK")].mean() - np.mean(boxes([tight])[0])) < 1e-3


def test_read_with_fans_keeps_each_read_boxs_reader_probabilities_and_detector_confidence():
    mark = (100.0 + 0.5 * S, 100 + 3 * STEP)
    out = fan_of_sevens_and_two_marks(mark, (500.0, 500.0), det=0.2)
    assert out.data["rank_p"].shape == (4, len(RANKS)) and out.data["suit_p"].shape == (4, 4)
    joker = out.codes.index("JK")
    assert np.isclose(out.data["box_conf"][joker], 0.2)
    assert np.isclose(out.data["rank_p"][joker, RANKS.index("JK")], 0.97)
    assert np.allclose(np.delete(out.data["box_conf"], joker), 0.9)
    assert (np.delete(out.data["rank_p"], joker, axis=0).argmax(1) == RANKS.index("7")).all()


def test_read_with_fans_takes_its_thresholds_from_the_config():
    from vision.config import DEFAULT

    points = [(100.0, 100.0), (100.0, 100 + STEP), (400.0, 400.0)]  # a fan's two cards, a card lying alone
    found = Detections(boxes(points), np.array([0.9, 0.9, 0.4], np.float32), np.zeros(3, np.int64))
    rank_p = rank_probs([SEVEN] * 3)
    suit_p = np.tile(np.array([0.9, 0.04, 0.03, 0.03], np.float32), (3, 1))
    assert len(read_with_fans(found, rank_p, suit_p)) == 2  # the lone box's detector confidence is under 0.5
    out = read_with_fans(found, rank_p, suit_p, config=DEFAULT.replace(**{"reading.finder_box_conf": 0.3}))
    assert out.codes == ["7S"] * 3 and np.isclose(out.data["box_conf"][-1], 0.4)
    assert not len(read_with_fans(found, rank_p, suit_p, config=DEFAULT.replace(**{"reading.min_conf": 0.9})))
