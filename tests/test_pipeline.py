"""The camera pipeline's geometry stages (corners -> cards -> piles -> layout) on hand-made detections.

Pure NumPy: runs without the vision extra. Rendered tables and the photo path of ``handfoot score`` are in
``test_photo_scoring.py``."""


import numpy as np
import pytest
from sides import S, dets, fan, read_side  # noqa: E402

from vision.classes import class_id
from vision.instances import agree_suits, pair_corners, split_sides
from vision.piles import group_piles
from vision.types import Detections, PileKind, TableReading


def test_one_card_two_corners_is_one_instance():
    cards = pair_corners(dets([("KH", 100, 100), ("KH", 100 + 2.6 * S, 100 + 3.3 * S)]))
    assert len(cards) == 1 and cards[0].fully_visible and cards[0].code == "KH"


def test_identical_cards_in_a_fan_are_never_merged():
    cards = pair_corners(dets(fan(["KH", "KH", "KH", "KH"], 100, 100)))
    assert len(cards) == 4 and sum(c.fully_visible for c in cards) == 1


def test_two_identical_cards_apart_stay_two():
    items = [("QS", 100, 100), ("QS", 100 + 2.6 * S, 100 + 3.3 * S),
             ("QS", 400, 100), ("QS", 400 + 2.6 * S, 100 + 3.3 * S)]
    cards = pair_corners(dets(items))
    assert len(cards) == 2 and all(c.fully_visible for c in cards)


def test_far_apart_corners_of_one_code_are_not_paired():
    cards = pair_corners(dets([("9C", 100, 100), ("9C", 100 + 20 * S, 100)]))
    assert len(cards) == 2 and not any(c.fully_visible for c in cards)



def test_a_lone_joker_with_small_corner_marks_is_one_card():
    """A joker's marks are drawn smaller than the naturals' indices; alone (a wild book's marker) it pairs."""
    d = (2.6 * S, 3.3 * S)  # a card's diagonal between index centres (ratio 4.2 in natural index sizes)
    items = [("5H", 100, 100), ("5H", 100 + d[0], 100 + d[1]), ("9C", 400, 100), ("9C", 400 + d[0], 100 + d[1]),
             ("JK", 250, 300), ("JK", 250 + d[0], 300 + d[1])]
    small = dets(items)
    centre = (small.xyxy[4:, :2] + small.xyxy[4:, 2:]) / 2
    small.xyxy[4:] = np.hstack([centre - 0.3 * S, centre + 0.3 * S])  # joker marks 0.6 x the naturals' size
    jokers = [c for c in pair_corners(small) if c.code == "JK"]
    assert len(jokers) == 1 and jokers[0].fully_visible
    # the same two marks each at the end of a fan of naturals (indices one fan step away) stay two cards
    fans = items + [("8D", 250, 300 - 1.2 * S), ("8D", 250, 300 - 2.4 * S),
                    ("4S", 250 + d[0], 300 + d[1] + 1.2 * S), ("4S", 250 + d[0], 300 + d[1] + 2.4 * S)]
    crowded = dets(fans)
    crowded.xyxy[4:6] = small.xyxy[4:6]
    assert sum(c.code == "JK" for c in pair_corners(crowded)) == 2


def test_a_standard_card_pairs_on_a_table_of_jumbo_indices():
    """A jumbo-index deck sets the photo's ratio near 1.6; a standard card's marker (ratio 4.2) still pairs."""
    jumbo = (1.0 * S, 1.3 * S)  # jumbo indices: the card's two index centres 1.6 index sizes apart
    items = [("5H", 100, 100), ("5H", 100 + jumbo[0], 100 + jumbo[1]),
             ("9C", 300, 100), ("9C", 300 + jumbo[0], 100 + jumbo[1]),
             ("KD", 500, 300), ("KD", 500 + 2.6 * S, 300 + 3.3 * S)]
    cards = pair_corners(dets(items))
    assert sorted((c.code, c.fully_visible) for c in cards) == [("5H", True), ("9C", True), ("KD", True)]
    king = next(c for c in cards if c.code == "KD")
    assert king.card_height > 4 * S  # from the standard diagonal, not the jumbo one


def test_fans_of_a_jumbo_index_deck_pair_their_last_cards_beside_one_loose_card():
    """Five decks repeat codes, so a jumbo-index deck's only isolated pair may be one loose card; the fans'
    last cards (unrivalled pairs) still say the photo's ratio is short, and each card counts once."""
    jumbo = (1.0 * S, 1.3 * S)
    items = (fan(["KH", "KH", "KH"], 100, 100, diag=jumbo) + fan(["7S", "7S", "7S"], 400, 100, diag=jumbo)
             + [("5D", 700, 100), ("5D", 700 + jumbo[0], 100 + jumbo[1])])
    cards = pair_corners(dets(items))
    assert len(cards) == 7 and sorted(c.code for c in cards if c.fully_visible) == ["5D", "7S", "KH"]


def test_a_photo_whose_every_candidate_pair_is_short_takes_a_short_ratio():
    from vision.config import DEFAULT
    from vision.instances import _typical_ratio

    # rivalled pairs only (indices 1 and 4 are in two candidates each), none isolated, all short: big indices
    candidates = [(1.8, 0, 1), (1.9, 1, 2), (2.0, 3, 4), (2.1, 4, 5)]
    codes = ["KH", "KH", "KH", "7S", "7S", "7S"]
    centers, sizes = np.zeros((6, 2)) + np.arange(6)[:, None] * 30.0, np.full(6, S)
    assert _typical_ratio(candidates, codes, centers, sizes, DEFAULT.pairing) == pytest.approx(1.95)
    standard = [(4.0, 0, 1), (4.3, 1, 2), (4.1, 3, 4), (4.4, 4, 5)]
    assert _typical_ratio(standard, codes, centers, sizes, DEFAULT.pairing) == DEFAULT.pairing.pair_typical


def test_a_row_of_identical_cards_pairs_each_card_with_itself():
    """Four red threes side by side, seen at an angle that makes the photo's other cards' diagonals longer:
    pairing across neighbours fits the typical ratio better, but pairs fewer indices (read as five cards)."""
    d, o = np.array([3.94, 0.56]) * S, np.array([2.28, -2.5]) * S  # a card's diagonal, the step to the next card
    row = [("3H", *(np.array([200, 700]) + k * o + e)) for k in range(4) for e in (0 * d, d)]
    others = [("6H", 100, 100), ("6H", 100 + 5.4 * S, 100), ("9C", 100, 300), ("9C", 100 + 5.4 * S, 300)]
    cards = [c for c in pair_corners(dets(row + others)) if c.code == "3H"]
    assert len(cards) == 4 and all(c.fully_visible for c in cards)
    assert sorted(tuple(sorted(c.detections)) for c in cards) == [(0, 1), (2, 3), (4, 5), (6, 7)]


def suits(*rows):
    """(n, 4) suit probabilities (S, H, D, C) from rows of four numbers."""
    return np.array(rows, np.float64)


def test_one_cards_two_indices_read_as_two_suits_of_one_colour_take_one_suit():
    one_card = dets([("3D", 100, 100), ("3H", 100 + 2.6 * S, 100 + 3.3 * S)])
    assert len(pair_corners(one_card)) == 2  # two red threes, counted twice
    agreed = agree_suits(one_card, suits([0, 0.45, 0.55, 0], [0, 0.6, 0.4, 0]))
    assert agreed.codes == ["3H", "3H"]  # 0.45 x 0.6 beats 0.55 x 0.4
    cards = pair_corners(agreed)
    assert len(cards) == 1 and cards[0].fully_visible


def test_suits_agree_beside_a_card_whose_corners_pair_with_each_other():
    # a row of two red threes: A (3H, both corners read 3H) and B below it (read 3H and 3D). B's 3H corner could
    # also pair with A's top corner, but A's corners pair with each other, so B's are free to agree
    a1, a2 = (100, 100), (100 + 2.6 * S, 100 + 3.3 * S)
    items = [("3H", *a1), ("3H", *a2), ("3H", a1[0], a1[1] + 4 * S), ("3D", a2[0], a2[1] + 4 * S)]
    p = suits([0, 0.9, 0.1, 0], [0, 0.9, 0.1, 0], [0, 0.6, 0.4, 0], [0, 0.45, 0.55, 0])
    agreed = agree_suits(dets(items), p)
    assert agreed.codes == ["3H"] * 4
    cards = pair_corners(agreed)
    assert len(cards) == 2 and all(c.fully_visible for c in cards)


def test_suits_are_not_agreed_across_colours_ranks_or_a_fan():
    p = suits([0.25, 0.25, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25])
    for a, b in (("3D", "3S"), ("3D", "4D")):  # another colour, another rank: another card
        two = dets([(a, 100, 100), (b, 100 + 2.6 * S, 100 + 3.3 * S)])
        assert agree_suits(two, p).codes == [a, b]
    # a fan of kings of both black suits: indices a diagonal apart are different cards of the fan
    items = fan(["KS", "KC", "KS", "KC", "KS"], 100, 100)
    assert agree_suits(dets(items), np.full((len(items), 4), 0.25)).codes == [c for c, _, _ in items]


def test_piles_melds_wilds_threes_and_squared_book():
    items = (fan(["KH", "KS", "2C", "KD"], 100, 100)
             + fan(["JK", "2D", "2H"], 100 + 6 * S, 100)            # a wild meld beside it
             + fan(["3H", "3D"], 100, 500, step=(1.2 * S, 0))       # red threes in a row
             + [("QH", 600, 500), ("QH", 600 + 2.6 * S, 500 + 3.3 * S)])  # one whole card: a squared book
    piles = group_piles(pair_corners(dets(items)))
    kinds = {p.kind: p for p in piles}
    melds = sorted(sorted(p.codes) for p in piles if p.kind is PileKind.MELD)
    assert melds == [["2C", "KD", "KH", "KS"], ["2D", "2H", "JK"]]
    assert sorted(kinds[PileKind.RED_THREES].codes) == ["3D", "3H"]
    squared = [p for p in piles if p.kind is PileKind.SQUARED_BOOK]
    assert [p.codes for p in squared] == [["QH"]] and squared[0].notes  # a guess is always flagged



def without(items, *positions):
    """``items`` less the index boxes at ``positions`` (indices the detector missed or the reader dropped)."""
    return [it for k, it in enumerate(items) if k not in positions]


def test_wilds_fanned_together_in_a_hand_stay_in_the_hand():
    # a hand JK 2C 2D JK 7H 9D QS: its four wilds side by side look like a meld of wilds, and its other cards
    # turn off their line (a hand fanned in an arc)
    items = [("JK", 300, 300), ("2C", 320, 300), ("2D", 340, 300), ("JK", 360, 300),
             ("7H", 378, 316), ("9D", 396, 332), ("QS", 414, 348)]
    piles = group_piles(pair_corners(dets(items)))
    assert [p.kind for p in piles] == [PileKind.LEFT] and len(piles[0].cards) == 7
    # a meld of wilds on its own is still a meld
    assert [p.kind for p in group_piles(pair_corners(dets(fan(["JK", "2C", "2D", "JK"], 300, 300))))] == [
        PileKind.MELD]


def test_a_gap_of_two_steps_in_a_fan_is_counted_as_an_unread_card():
    items = without(fan(["8H", "8S", "8H", "8D", "8H", "8C"], 100, 100), 3)  # the fourth card's index unread
    assert [len(p.cards) for p in group_piles(pair_corners(dets(items)))] == [5]
    piles = read_side(dets(items)).piles
    assert [p.kind for p in piles] == [PileKind.MELD] and len(piles[0].cards) == 6
    unread = [c for c in piles[0].cards if not c.detections]
    assert [c.code for c in unread] == ["8H"] and unread[0].confidence == 0.0
    assert any("not read" in n for n in piles[0].notes)  # the guess is shown to the user


def test_a_fan_split_by_an_unread_card_is_joined_and_counted():
    # at a wider step (0.35 card heights) the gap is longer than stage 3's link distance
    items = without(fan(["9S"] * 7, 100, 100, step=(0, 1.6 * S)), 3)
    assert [len(p.cards) for p in group_piles(pair_corners(dets(items)))] == [3, 3]  # stage 3 alone: two melds
    piles = read_side(dets(items)).piles
    assert [(p.kind, len(p.cards)) for p in piles] == [(PileKind.MELD, 7)]


def test_a_fans_last_card_a_little_beyond_the_link_distance_joins_it():
    """Photographed at an angle, a fan's step across the view measures more card heights than along it: the last
    card, seen whole, lies a little beyond stage 3's link distance, in line at the fan's step."""
    ys = [100 + k * 2.3 * S for k in range(5)] + [100 + 4 * 2.3 * S + 2.6 * S]
    items = [("6C", 100, y) for y in ys] + [("6C", 100 + 2.6 * S, ys[-1] + 3.3 * S)]
    assert [len(p.cards) for p in group_piles(pair_corners(dets(items)))] == [5, 1]  # stage 3 alone
    assert [(p.kind, len(p.cards)) for p in read_side(dets(items)).piles] == [(PileKind.MELD, 6)]
    # steps growing towards the camera (1.9 ... 2.4 index sizes), a joker and then a king seen whole beyond the
    # last step: each lies at 1.1-1.2 times the step before it, though farther than 1.4 times the median step
    steps = [1.9, 2.0, 2.1, 2.2, 2.4, 2.7, 3.1]
    ys = list(100 + np.cumsum([0] + steps) * S)
    codes = ["KC", "KD", "KD", "KH", "KS", "KC", "JK", "KD"]
    grown = [(c, 100, y) for c, y in zip(codes, ys)] + [("KD", 100 + 2.6 * S, ys[-1] + 3.3 * S)]
    assert [(p.kind, len(p.cards)) for p in read_side(dets(grown)).piles] == [(PileKind.MELD, 8)]
    # the same card beside the fan, off its line, stays a squared book's marker
    items[-2:] = [("6C", 100 + 3 * S, ys[-1]), ("6C", 100 + 5.6 * S, ys[-1] + 3.3 * S)]
    assert [(p.kind, len(p.cards)) for p in read_side(dets(items)).piles] == [
        (PileKind.MELD, 5), (PileKind.SQUARED_BOOK, 1)]


def test_a_last_card_seen_only_by_its_far_corner_joins_its_fan():
    """The last card's top index hidden (under a cup): its far corner lies one card diagonal beyond its place."""
    items = without(fan(["QS", "QH", "QD", "QD", "QC", "QH"], 100, 100), 5)
    assert [len(p.cards) for p in group_piles(pair_corners(dets(items)))] == [5, 1]  # stage 3 alone
    piles = read_side(dets(items)).piles
    assert [(p.kind, len(p.cards)) for p in piles] == [(PileKind.MELD, 6)]
    assert any("far corner" in n for n in piles[0].notes)  # the guess is shown to the user
    # so does a wild's far corner (the fan's last card a joker)
    items = without(fan(["QS", "QH", "QD", "QD", "QC", "JK"], 100, 100), 5)
    assert [(p.kind, len(p.cards)) for p in read_side(dets(items)).piles] == [(PileKind.MELD, 6)]
    # a fan whose last card shows both indices has no hidden last card: a queen lying a diagonal beyond its
    # other end stays loose
    items = fan(["QS", "QH", "QD", "QD", "QC"], 100, 300) + [("QH", 100 - 2.6 * S, 300 - 1.2 * S - 3.3 * S)]
    assert sorted(len(p.cards) for p in read_side(dets(items)).piles) == [1, 5]


def test_a_gap_at_a_fans_end_or_in_an_uneven_fan_is_not_filled():
    # the second card unread: the first step is long, but an end card's far corner looks the same
    items = without(fan(["KD"] * 6, 100, 100), 1)
    assert [len(p.cards) for p in read_side(dets(items)).piles] == [5]
    # ... but the step before the last card, seen whole (both corners paired), is its top index's: filled
    items = without(fan(["KD"] * 6, 100, 100), 4)
    piles = read_side(dets(items)).piles
    assert [len(p.cards) for p in piles] == [6] and any("not read" in n for n in piles[0].notes)
    # steps of 1, 1.5, 2 and 1 x the median: no regular step to count by
    items = [("QC", 100, 100 + y * S) for y in (0, 1.2, 2.4, 4.2, 6.6, 7.8)]
    assert [len(p.cards) for p in read_side(dets(items)).piles] == [6]


def test_cards_seen_by_two_indices_along_one_edge_link_through_either():
    # a fan of a four-index deck: each card shows the two indices of its edge strip, 4.2 index sizes apart (paired
    # like a card's diagonal); the middle card lies nearer the first at its top index and nearer the last at its
    # bottom one, so it links to each through a different index
    items = [("9H", 100, 100), ("9H", 100, 184), ("9D", 141, 100), ("9D", 142, 184),
             ("9C", 185, 100), ("9C", 184.5, 184)]
    cards = pair_corners(dets(items))
    assert len(cards) == 3 and all(c.fully_visible for c in cards)
    assert [(p.kind, len(p.cards)) for p in group_piles(cards)] == [(PileKind.MELD, 3)]


def test_a_four_index_decks_fan_of_edge_strips_is_one_meld():
    # each card shows the two indices of its top edge, 2.1 index sizes apart, the next card 1.6 sizes below: the
    # strip pairs are shorter than a diagonal (a jumbo-index deck's would be), but they stack like ladder rungs
    items = [(c, x, 100 + k * 1.6 * S) for k, c in enumerate(["9H", "9D", "9C", "9S"]) for x in (100, 100 + 2.1 * S)]
    cards = pair_corners(dets(items))
    assert len(cards) == 4 and all(c.fully_visible for c in cards)
    assert [(p.kind, len(p.cards)) for p in group_piles(cards)] == [(PileKind.MELD, 4)]
    # a jumbo-index deck's card alone still takes its short diagonal for its height
    jumbo = pair_corners(dets([("KS", 100, 100), ("KS", 100 + 1.2 * S, 100 + 1.5 * S),
                               ("4D", 400, 100), ("4D", 400 + 1.2 * S, 100 + 1.5 * S)]))
    assert all(c.card_height < 3 * S for c in jumbo)


def test_a_four_index_card_seen_whole_is_one_card():
    # a card printed with an index in every corner, alone: its four indices pair as two diagonals of one card
    corners = [(100, 100), (100 + 2.0 * S, 100), (100, 100 + 2.9 * S), (100 + 2.0 * S, 100 + 2.9 * S)]
    cards = pair_corners(dets([("QS", x, y) for x, y in corners]))
    assert len(cards) == 1 and len(cards[0].detections) == 4 and cards[0].fully_visible
    assert [p.kind for p in group_piles(cards)] == [PileKind.SQUARED_BOOK]


def test_a_four_index_fan_of_identical_cards_keeps_every_card():
    # six 6H fanned, each showing its top edge's two indices, the last card all four: six cards, not fewer (two
    # strips a few steps apart make a rectangle too, with the cards between them on its sides)
    items = [("6H", x, 100 + k * 1.6 * S) for k in range(6) for x in (100, 100 + 2.1 * S)]
    items += [("6H", x, 100 + 5 * 1.6 * S + 2.9 * S) for x in (100, 100 + 2.1 * S)]
    piles = group_piles(pair_corners(dets(items)))
    assert [(p.kind, len(p.cards)) for p in piles] == [(PileKind.MELD, 6)]


def test_a_wild_between_two_cards_of_a_rank_in_a_hand_does_not_make_them_a_meld():
    # a fanned hand 7D JC 2S 3C 7S QS: the two sevens lie two steps from the two, with a jack and a three between
    items = fan(["7D", "JC", "2S", "3C", "7S", "QS"], 300, 300)
    piles = group_piles(pair_corners(dets(items)))
    assert [p.kind for p in piles] == [PileKind.LEFT] and sorted(piles[0].codes) == sorted(
        ["7D", "JC", "2S", "3C", "7S", "QS"])

def test_mixed_close_fan_is_a_hand_and_keeps_its_red_three():
    items = fan(["KC", "7D", "3H", "9S", "JH"], 300, 300, step=(1.0 * S, 0.1 * S))
    piles = group_piles(pair_corners(dets(items)))
    assert len(piles) == 1 and piles[0].kind is PileKind.LEFT and "3H" in piles[0].codes


def test_a_hand_holding_three_of_a_rank_is_not_a_meld():
    # 4C .. 4C lie two steps apart, but with the JS between them they are cards of one fanned hand
    items = fan(["10C", "4C", "JS", "4C", "4H"], 300, 300, step=(1.0 * S, 0.1 * S))
    piles = group_piles(pair_corners(dets(items)))
    assert [p.kind for p in piles] == [PileKind.LEFT] and len(piles[0].cards) == 5
    # the same three fours side by side, apart from the other cards, are a meld
    items = fan(["4C", "4C", "4H"], 100, 100, step=(1.0 * S, 0.1 * S)) + fan(["10C", "JS"], 100, 600)
    assert PileKind.MELD in [p.kind for p in group_piles(pair_corners(dets(items)))]


def test_a_wild_beside_red_threes_does_not_join_them():
    items = fan(["3H", "3D"], 100, 100, step=(1.2 * S, 0)) + [("JK", 100 + 3.6 * S, 100)]
    piles = group_piles(pair_corners(dets(items)))
    threes = [p for p in piles if p.kind is PileKind.RED_THREES]
    assert len(threes) == 1 and sorted(threes[0].codes) == ["3D", "3H"]
    assert any(p.codes == ["JK"] for p in piles)


def test_a_meld_s_notes_name_the_cards_to_check_in_plain_words():
    """A meld's notes name the cards a person looks at: those read unsure, the two either side of a wide gap, and
    the card counted in that gap, with what to do about each."""
    from vision.fans import fill_fan_gaps
    from vision.piles import GAP_NOTE, classify
    from vision.types import CardInstance

    codes, ys = ["9H", "9S", "9D", "9C", "9H"], [0, 24, 48, 96, 120]  # a step of two between 9D and 9C
    cards = [CardInstance(c, (k,), np.array([[100.0, 100.0 + y]]), S, 0.3 if c == "9S" else 0.9, 80.0)
             for k, (c, y) in enumerate(zip(codes, ys))]
    meld = classify(cards, {"9"})
    assert meld.notes == ("9S may be misread: correct it if it is wrong",
                          f"{GAP_NOTE} 9D and 9C (cards 3 and 4 of 5): this may be two melds; if so, split it")
    (filled,) = fill_fan_gaps([meld])
    assert len(filled.cards) == 6 and filled.notes == (
        "9S may be misread: correct it if it is wrong",
        "this fan has room for 1 card whose corner was not read (between 9D and 9C): counted as 9H (the suit is a "
        "guess): correct it if it is a wild, remove it if there is none")


def test_two_card_meld_is_read_as_a_meld_and_flagged_once_by_the_rules():
    """Two cards of a rank are a meld; that it is too short is the rules' to say (with their own minimum), not
    said again by a note of the reader."""
    from scorer import Card, get_rules
    from scorer.melds import check_meld

    piles = group_piles(pair_corners(dets(fan(["8S", "8D"], 100, 100))))
    assert piles[0].kind is PileKind.MELD and not any("two cards" in n for n in piles[0].notes)
    check = check_meld([Card.parse(c) for c in piles[0].codes], get_rules("pagat"))
    assert "a meld needs at least 3 cards, this has 2" in check.reasons


def test_layout_from_a_side_scores():
    from scorer import get_rules
    from scorer.layout import TableLayout
    from scorer.scoring import score_round

    items = fan(["9H", "9S", "9D"], 100, 100) + [("3D", 400, 100)]
    reading = TableReading([read_side(dets(items), "A")], "pagat", 1, None, {"A": [["KC", "4D"]]})
    layout = reading.layout()
    assert layout["teams"]["A"]["melds"] == [["9H", "9S", "9D"]] and layout["teams"]["A"]["red_threes"] == ["3D"]
    team = score_round(TableLayout.from_dict(layout), get_rules("pagat"), lenient=True).teams["A"]
    assert team.total == 3 * 10 + 100 - (10 + 5)  # three nines (10 each), a red three, minus KC and 4D held


def test_split_sides():
    items = [("KH", 100, 900), ("5C", 100, 100), ("9D", 900, 900)]
    sides = split_sides(dets(items), 1000, 1000, "horizontal")
    assert sides["A"].codes == ["KH", "9D"] and sides["B"].codes == ["5C"]
    sides = split_sides(dets(items), 1000, 1000, "vertical")
    assert sides["A"].codes == ["KH", "5C"] and sides["B"].codes == ["9D"]
    with pytest.raises(ValueError):
        split_sides(dets(items), 1000, 1000, "diagonal")


def test_a_fan_over_the_split_line_is_cut_with_a_note_on_both_parts():
    from vision.instances import CUT_NOTE
    from vision.pipeline import read_image

    over = fan(["8H", "8S", "8D", "8C", "8H", "8S"], 400, 440)  # y 440-540 and its last card's corner: over y = 500
    apart = [("KH", 100 + 1.5 * S * k, 800) for k in range(3)]  # team A's kings, far from the line
    image = np.full((1000, 1000, 3), 90, np.uint8)
    whole = read_image(image, found=dets(over + apart))[0]
    assert sorted(p.codes for p in whole.piles) == [["8H", "8S", "8D", "8C", "8H", "8S"], ["KH", "KH", "KH"]]
    sides = {s.team: s for s in read_image(image, found=dets(over + apart), split="horizontal", teams=("A", "B"))}
    cut = [p for s in sides.values() for p in s.piles if CUT_NOTE in p.notes]
    assert len(cut) == 2 and sorted(len(p.cards) for p in cut) == [3, 3]
    assert [p.notes for p in sides["A"].piles if p.codes == ["KH", "KH", "KH"]] == [()]
    assert not any(CUT_NOTE in p.notes for s in read_image(image, found=dets(over + apart), split="vertical",
                                                              teams=("A", "B")) for p in s.piles)
    # the photo itself is doubted once, saying what to try instead: a photo of one side, or the other split
    assert sides["A"].photo_note.startswith("1 pile lies across the middle line") and sides["B"].photo_note is None
    assert "without a split" in sides["A"].photo_note and "split it vertically" in sides["A"].photo_note
    vertical = read_image(image, found=dets(over + apart), split="vertical", teams=("A", "B"))
    assert all(s.photo_note is None for s in vertical)


class _Passes:
    """A detector that finds ``n`` indices of ``size`` photo pixels per pass (confidence 0.9), recording its passes."""

    names_cards, fixed_size = False, None

    def __init__(self, size: float, n: int = 3):
        self.size, self.n, self.calls = size, n, []

    def __call__(self, image, long_side, floor):
        self.calls.append(long_side)
        boxes = np.array([[x, 50, x + self.size, 50 + self.size] for x in (10, 400, 800)[:self.n]], np.float32)
        return Detections(boxes, np.full(len(boxes), 0.9, np.float32), np.zeros(len(boxes), np.int64))


def test_the_pyramid_runs_the_passes_the_indices_need():
    pytest.importorskip("cv2")
    from vision.config import DEFAULT
    from vision.scales import find_boxes

    def passes(width, height, index_px, n=3, **changes):
        detector = _Passes(index_px, n)
        changes.setdefault("pyramid.enlarge_whole_share", 0.0)  # every pass over the whole photo
        find_boxes(detector, np.zeros((height, width, 3), np.uint8), 0.5, 0.1, config=DEFAULT.replace(**changes))
        return detector.calls

    # the shipped configuration: a first pass at 1280 px; indices under 40 px there: at least twice the size
    assert passes(1280, 720, 30) == [1280, 2560]
    assert passes(640, 480, 4) == [640, 1280]  # at most twice the photo
    # indices of 40 px or more: a pass at half the size too (a close-up: halves down to 320 px)
    assert passes(1280, 720, 45) == [1280, 640]
    assert passes(640, 640, 200) == [640, 320]
    # the same table at 12 MP (indices 3.1 x larger in photo pixels) gets the same passes as at 1280 px
    assert passes(4000, 3000, 30 * 4000 / 1280) == [1280, 2560]
    assert passes(4000, 3000, 45 * 4000 / 1280) == [1280, 640]
    # two indices cannot measure the photo: no larger pass (a close-up of one card enlarged shows pips as indices)
    # ... but the smaller passes (a close-up's large indices may go unseen at full size)
    assert passes(1280, 720, 10, n=2) == [1280, 640, 320]
    # sized passes: the next pass is sized for the indices to measure the target, at least min_step larger
    sized = {"pyramid.min_step": 1.25, "pyramid.target_index": 32, "pyramid.large_index": 96}
    assert passes(1280, 720, 28, **sized) == [1280, 1600]
    assert passes(1280, 720, 10, **sized) == [1280, 2560]


class _Squares:
    """A detector that finds each white square of the image it is given (confidence 0.9; boxes in that image's
    pixels, whatever the pass size), recording (image height, width, pass long side) of each call."""

    names_cards, fixed_size = False, None

    def __init__(self):
        self.calls = []

    def __call__(self, image, long_side, floor):
        import cv2

        self.calls.append((*image.shape[:2], long_side))
        n, _, stats, _ = cv2.connectedComponentsWithStats((image[:, :, 0] > 128).astype(np.uint8))
        boxes = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in stats[1:n]], np.float32).reshape(-1, 4)
        return Detections(boxes, np.full(len(boxes), 0.9, np.float32), np.zeros(len(boxes), np.int64))


def test_the_enlarged_pass_covers_only_where_the_cards_are():
    pytest.importorskip("cv2")
    from vision.scales import card_regions, find_boxes

    photo = np.zeros((720, 1280, 3), np.uint8)
    corners = [(100, 100), (140, 100), (180, 100), (900, 500), (960, 520)]  # a fan and a pair: 20 px indices
    for x, y in corners:
        photo[y:y + 20, x:x + 20] = 255
    detector = _Squares()
    found = find_boxes(detector, photo, 0.5, 0.1)
    assert detector.calls[0] == (720, 1280, 1280)
    crops = detector.calls[1:]  # indices of 20 px: the 2x pass, cut to the two groups (4 index sizes around)
    assert len(crops) == 2 and all(h * w < 720 * 1280 / 4 for h, w, _ in crops)
    assert all(abs(side - 2 * max(h, w)) <= 32 for h, w, side in crops)
    truth = np.array([[x, y, x + 20, y + 20] for x, y in corners], np.float32)
    assert len(found) == 5 and np.allclose(np.sort(found.xyxy, 0), np.sort(truth, 0))  # in photo pixels
    regions = card_regions(found, 0.5, photo.shape[:2])
    grown = np.clip(truth + 80 * np.array([-1, -1, 1, 1]), 0, [1280, 720, 1280, 720])  # 4 index sizes around
    inside = (grown[:, None, :2] >= regions[None, :, :2]).all(2) & (grown[:, None, 2:] <= regions[None, :, 2:]).all(2)
    assert len(regions) == 2 and inside.any(1).all()
    # cards over most of the photo: the whole photo enlarged, once
    spread = np.zeros((720, 1280, 3), np.uint8)
    for x in range(40, 1240, 150):
        for y in (40, 340, 640):
            spread[y:y + 20, x:x + 20] = 255
    detector = _Squares()
    find_boxes(detector, spread, 0.5, 0.1)
    assert detector.calls == [(720, 1280, 1280), (720, 1280, 2560)]


class _NoneForLarge:
    """An index reader that takes every box wider than 100 px for "no index" (a table's grain boxed with confidence)
    and every other for an ace of spades."""

    def probabilities(self, image, boxes):
        from vision.classes import RANK_NONE, RANKS

        rank_p = np.zeros((len(boxes), len(RANKS)), np.float32)
        large = (boxes[:, 2] - boxes[:, 0]) > 100
        rank_p[large, RANK_NONE] = 1.0
        rank_p[~large, 0] = 1.0
        return rank_p, np.tile(np.float32([1, 0, 0, 0]), (len(boxes), 1))


def test_the_pyramid_measures_indices_not_what_the_reader_calls_no_index():
    pytest.importorskip("cv2")
    from vision.scales import find_boxes

    photo = np.zeros((720, 1280, 3), np.uint8)
    for x in (100, 140, 180):  # a fan of 20 px indices ...
        photo[100:120, x:x + 20] = 255
    for x in (300, 520, 740, 960):  # ... and the table's grain, boxed as four 200 px "indices"
        photo[400:600, x:x + 200] = 255
    detector = _Squares()
    find_boxes(detector, photo, 0.5, 0.1)
    assert [side for _, _, side in detector.calls] == [1280, 640, 320]  # measured on the grain: smaller passes
    detector = _Squares()
    find_boxes(detector, photo, 0.5, 0.1, reader=_NoneForLarge())
    calls = detector.calls  # the indices measure 20 px: the 2x pass, over the fan alone
    assert calls[0] == (720, 1280, 1280) and len(calls) == 2 and calls[1][0] * calls[1][1] < 720 * 1280 / 4


class _DarkMarks:
    """A detector that finds each small dark square (under 60 px) of the image it is given (confidence 0.9):
    indices printed dark on light paper, as the models learned them."""

    names_cards, fixed_size = False, None

    def __call__(self, image, long_side, floor):
        import cv2

        n, _, stats, _ = cv2.connectedComponentsWithStats((image[:, :, 0] < 128).astype(np.uint8))
        boxes = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in stats[1:n] if w < 60 and h < 60],
                         np.float32).reshape(-1, 4)
        return Detections(boxes, np.full(len(boxes), 0.9, np.float32), np.zeros(len(boxes), np.int64))


def test_light_print_on_dark_paper_is_found_in_the_negative_and_so_are_its_changes():
    pytest.importorskip("cv2")
    from vision.pipeline import detect, detect_again, seen_negative

    table = np.full((600, 800, 3), 30, np.uint8)  # dark paper, light marks: the detector sees none of them
    for k in range(10):
        x, y = 60 + 60 * k, 80
        table[y:y + 20, x:x + 20] = 230
    detector = _DarkMarks()
    assert not len(detector(table, 800, 0.1))
    before = detect(table, detector)
    assert seen_negative(before) and len(before) == 10
    laid = table.copy()
    laid[400:420, 300:320] = laid[400:420, 360:380] = 230  # a card laid apart: two marks, too few to switch alone
    found = detect_again(laid, before, np.float64([[290, 390, 390, 430]]), detector, before_image=table)
    assert seen_negative(found) and len(found) == 12
    assert not seen_negative(detect(laid[300:500, 200:500], detector))  # the region alone would stay unread
    # a deck profile read as its negative (its detector wrapped): the regions are turned once, not twice
    from vision.models.detector import NegativeDetector

    profile = NegativeDetector(detector)
    before = detect(table, profile)
    assert seen_negative(before) and len(before) == 10
    found = detect_again(laid, before, np.float64([[290, 390, 390, 430]]), profile, before_image=table)
    assert seen_negative(found) and len(found) == 12


def test_merge():
    pytest.importorskip("cv2")
    from vision.scales import merge

    a = dets([("KH", 100, 100)])
    b = Detections(a.xyxy + 1, np.array([0.5], np.float32), a.class_id)
    m = merge([a, b])
    assert len(m) == 1 and m.confidence[0] == pytest.approx(0.9)


def test_loose_cards_are_kept_in_the_layout_but_not_scored():
    from scorer import get_rules
    from scorer.layout import TableLayout
    from scorer.scoring import score_round

    items = fan(["9H", "9S", "9D"], 100, 100) + [("QC", 600, 600)]  # one corner of a lone card: loose
    team = read_side(dets(items), "A").team_layout()
    assert team["loose"] == ["QC"]
    scored = score_round(TableLayout.from_dict({"rules": "pagat", "round": 1, "teams": {"A": team}}),
                         get_rules("pagat"), lenient=True).teams["A"]
    assert scored.total == 3 * 10


def test_detections_select_and_concatenate():
    d = dets([("KH", 100, 100), ("7D", 130, 100), ("KS", 160, 100)])
    assert d[1].codes == ["7D"] and d[d.confidence > 0.5].codes == ["KH", "7D", "KS"]
    both = Detections.merge([d, Detections.empty(), d[[1]]])
    assert both.codes == ["KH", "7D", "KS", "7D"] and both.xyxy.shape == (4, 4)
    assert len(Detections.merge([Detections.empty()])) == 0


def test_a_photo_of_small_indices_says_so():
    from vision.config import DEFAULT

    READABLE_INDEX = DEFAULT.reading.readable_index

    def side(size):
        boxes = [[x, 100, x + size, 100 + size] for x in (100, 100 + 3 * size, 100 + 6 * size)]
        return read_side(Detections(np.array(boxes, np.float32), np.full(3, 0.9, np.float32),
                                    np.array([class_id(c) for c in ("KH", "KS", "KD")])))

    small, fine = side(READABLE_INDEX - 4), side(READABLE_INDEX + 10)
    assert small.notes[0].startswith("the cards' corners look small") and "photograph the table closer" in small.notes[0]
    assert not any("closer" in n for n in fine.notes)


def test_jokers_with_small_corner_marks_stay_in_their_fan():
    # many decks draw the joker's corner mark smaller than their rank-and-suit indices (generated held-out
    # tables: about two thirds, some half); the card around a mark is still as big as its neighbours
    codes = ["2C", "JK", "2D", "JK", "2H", "JK", "2S"]
    items = fan(codes, 100, 100, step=(0.0, 1.9 * S))
    small = np.array([c == "JK" for c, _, _ in items])
    d = dets(items)
    centres = (d.xyxy[:, :2] + d.xyxy[:, 2:]) / 2
    half = np.where(small, 0.25 * S, S / 2)[:, None]
    d = Detections(np.hstack([centres - half, centres + half]).astype(np.float32), d.confidence, d.class_id)
    piles = group_piles(pair_corners(d))
    assert [p.kind for p in piles] == [PileKind.MELD] and sorted(piles[0].codes) == sorted(codes)


def test_a_card_inside_a_fan_is_not_paired_with_a_card_of_the_fan_beside_it():
    # a joker in the middle of a fan of fours, and the top card of a fan of jokers one card diagonal away:
    # a covered card shows one index, so the two jokers are two cards
    fours = fan(["4D", "4C", "JK", "4S", "4D"], 100, 100, step=(1.2 * S, 0.0))
    # (the top joker's own far corner a little further than a typical diagonal, the wrong pair exactly at it)
    jokers = fan(["JK", "JK", "JK"], 100 + 2 * 1.2 * S + 2.6 * S, 100 - 3.3 * S - 2 * 1.2 * S, step=(0.0, 1.2 * S),
                 diag=(2.9 * S, 3.7 * S))
    items = fours + jokers
    cards = pair_corners(dets(items))
    assert len(cards) == len(items) - 2  # the two top cards are paired, nothing else
    inner = [c for c in cards if c.code == "JK" and np.allclose(c.centers[0], (100 + 2 * 1.2 * S, 100))]
    assert len(inner) == 1 and not inner[0].fully_visible
    assert sorted(c.code for c in cards if c.fully_visible) == ["4D", "JK"]


def test_a_pair_and_wilds_fanned_inside_a_hand_stay_in_the_hand():
    # 7H 7S 2C 2C side by side look like a meld of sevens, but the hand's other cards continue their line at
    # the same step: one fanned hand
    items = fan(["5S", "AH", "7H", "7S", "2C", "2C", "9D", "KC"], 300, 300, step=(1.0 * S, 0.1 * S))
    piles = group_piles(pair_corners(dets(items)))
    assert [p.kind for p in piles] == [PileKind.LEFT] and len(piles[0].cards) == 8
    # a meld of sevens laid beside a hand (not in its line) stays a meld
    items = fan(["5S", "AH", "9D", "KC"], 300, 300, step=(1.0 * S, 0.1 * S)) + \
        fan(["7H", "7S", "2C"], 300 + 1.5 * S, 300 + 6 * S, step=(1.0 * S, 0.1 * S))
    kinds = sorted(p.kind.value for p in group_piles(pair_corners(dets(items))))
    assert kinds == ["left", "meld"]


def test_a_two_seen_whole_beside_a_fan_is_not_its_last_card():
    # a squared book topped by a two (a wild book) laid beside a meld of fours, within linking reach of the
    # meld's top card but off its line: a book of its own, not an eighth card of the meld
    fours = fan(["4D", "4C", "4S", "4H"], 100, 100)
    two = [("2H", 100 - 3.6 * S, 100 + 2 * S), ("2H", 100 - 1.0 * S, 100 + 5.3 * S)]
    piles = group_piles(pair_corners(dets(fours + two)))
    assert sorted((p.kind.value, tuple(p.codes)) for p in piles) == [
        ("meld", ("4D", "4C", "4S", "4H")), ("squared_book", ("2H",))]
    # a two that is the fan's last card (in line, one step on) stays in the meld
    piles = group_piles(pair_corners(dets(fan(["4D", "4C", "4S", "2H"], 100, 100))))
    assert [(p.kind.value, p.codes) for p in piles] == [("meld", ["4D", "4C", "4S", "2H"])]


def test_two_red_threes_seen_by_one_corner_a_diagonal_apart_are_flagged():
    # one red three's two corners read as 3D and 3H: unpaired, so counted as two cards; the note says so
    d = (2.6 * S, 3.3 * S)
    others = [("6H", 400, 100), ("6H", 400 + d[0], 100 + d[1])]  # a card seen whole sets the photo's diagonal
    threes = next(p for p in read_side(dets([("3D", 100, 100), ("3H", 100 + d[0], 100 + d[1])] + others)).piles
                  if p.kind is PileKind.RED_THREES)
    assert len(threes.cards) == 2 and any("may be one card counted twice" in n for n in threes.notes)
    # a row of red threes: the covered ones show one corner each, a row's step apart, not a diagonal
    row = [("3H", 100 + k * 1.2 * S, 100) for k in range(3)] + [("3H", 100 + 3 * 1.2 * S + d[0], 100 + d[1])]
    row_threes = next(p for p in read_side(dets(row + [("3H", 100 + 3 * 1.2 * S, 100)] + others)).piles
                      if p.kind is PileKind.RED_THREES)
    assert len(row_threes.cards) == 4 and not row_threes.notes


def test_red_threes_none_of_which_shows_both_corners_are_noted():
    from vision.config import DEFAULT
    from vision.piles import THREES_UNSEEN_NOTE

    d = (2.6 * S, 3.3 * S)
    others = [("6H", 400, 100), ("6H", 400 + d[0], 100 + d[1])]
    # a row of three red threes whose last (top) card lies under a cup: each shows one corner, so more may be hidden
    row = [("3H", 100 + k * 1.2 * S, 100) for k in range(3)]
    threes = next(p for p in read_side(dets(row + others)).piles if p.kind is PileKind.RED_THREES)
    assert len(threes.cards) == 3 and THREES_UNSEEN_NOTE in threes.notes
    off = DEFAULT.replace(**{"piles.threes_unseen_note": False})
    threes = next(p for p in group_piles(pair_corners(dets(row + others)), config=off) if p.kind is PileKind.RED_THREES)
    assert THREES_UNSEEN_NOTE not in threes.notes
    # the row's top card seen whole: nothing is hidden
    whole = row + [("3H", 100 + 2 * 1.2 * S + d[0], 100 + d[1])]
    threes = next(p for p in read_side(dets(whole + others)).piles if p.kind is PileKind.RED_THREES)
    assert len(threes.cards) == 3 and THREES_UNSEEN_NOTE not in threes.notes


def test_boxes_are_split_between_the_sides_as_cards_are():
    from vision.instances import split_boxes

    boxes = np.array([[10, 700, 30, 720], [10, 100, 30, 120], [900, 100, 920, 120]], np.float32)
    horizontal = split_boxes(boxes, 1000, 800, "horizontal")  # bottom half team A
    assert horizontal["A"].tolist() == [[10, 700, 30, 720]] and len(horizontal["B"]) == 2
    vertical = split_boxes(boxes, 1000, 800, "vertical")  # left half team A
    assert len(vertical["A"]) == 2 and vertical["B"].tolist() == [[900, 100, 920, 120]]
    assert split_boxes(np.zeros((0, 4)), 1000, 800, "vertical")["A"].shape == (0, 4)
    rows = np.arange(6, dtype=np.float32).reshape(3, 2)  # e.g. the reader's probabilities, one row a box
    assert split_boxes(boxes, 1000, 800, "horizontal", rows)["A"].tolist() == [[0, 1]]


def test_the_stages_take_their_thresholds_from_the_config():
    from vision.config import DEFAULT
    one_card = dets([("KH", 100, 100), ("KH", 100 + 2.6 * S, 100 + 3.3 * S)])  # ratio 4.2
    assert len(pair_corners(one_card)) == 1
    assert len(pair_corners(one_card, config=DEFAULT.replace(**{"pairing.pair_range": (1.2, 3.0)}))) == 2
    items = fan(["KH", "KS", "KD", "KC"], 100, 100)
    assert len(group_piles(pair_corners(dets(items)))) == 1
    apart = DEFAULT.replace(**{"piles.link_meld": 0.01, "piles.link_mixed": 0.01})
    assert len(group_piles(pair_corners(dets(items), config=apart), config=apart)) == 4


def test_pair_and_agree_gives_the_cards_pair_corners_gives():
    from vision.instances import pair_and_agree
    a1, a2 = (100, 100), (100 + 2.6 * S, 100 + 3.3 * S)
    items = [("3H", *a1), ("3H", *a2), ("3H", a1[0], a1[1] + 4 * S), ("3D", a2[0], a2[1] + 4 * S)]
    p = suits([0, 0.9, 0.1, 0], [0, 0.9, 0.1, 0], [0, 0.6, 0.4, 0], [0, 0.45, 0.55, 0])
    agreed, cards = pair_and_agree(dets(items), p)
    assert agreed.codes == agree_suits(dets(items), p).codes == ["3H"] * 4
    again = pair_corners(agreed)
    assert [(c.code, c.detections, c.card_height) for c in cards] == [(c.code, c.detections, c.card_height)
                                                                      for c in again]


def test_each_box_is_read_once_a_photo():
    from vision.scales import ReadOnce

    class Counting:
        def __init__(self):
            self.read = 0

        def probabilities(self, image, boxes):
            self.read += len(boxes)
            rank_p = np.tile(np.arange(15, dtype=np.float32), (len(boxes), 1)) + boxes[:, :1]
            return rank_p, np.tile(np.float32([1, 0, 0, 0]), (len(boxes), 1))

    reader = Counting()
    once = ReadOnce(reader)
    photo = np.zeros((100, 100, 3), np.uint8)
    a = np.float32([[0, 0, 10, 10], [20, 20, 30, 30]])
    first = once.probabilities(photo, a)[0]
    both = once.probabilities(photo, np.float32([[20, 20, 30, 30], [40, 40, 50, 50], [0, 0, 10, 10]]))[0]
    assert reader.read == 3  # the two boxes asked again were not read again
    assert np.array_equal(both[0], first[1]) and np.array_equal(both[2], first[0]) and both[1, 0] == 40
    assert once.probabilities(photo, np.zeros((0, 4), np.float32))[0].shape == (0, 15)
    once.probabilities(255 - photo, a)  # another image: read afresh
    assert reader.read == 5
