import pytest

from scorer import Card, RulesError, get_rules, parse_cards
from scorer.opening import best_opening, check_opening

PAGAT = get_rules("pagat")
SHEET = get_rules("score-sheet")


def melds(*texts):
    return [parse_cards(t) for t in texts]


def test_seed_002_round_3_meld_check():
    short = check_opening(melds("QH QS QD JK", "8S 8H 8D"), 3, SHEET)
    assert short.points == 110 and short.minimum == 120 and not short.meets and short.shortfall == 10
    fixed = check_opening(melds("QH QS QD JK", "8S 8H 8D 2C"), 3, SHEET)
    assert fixed.points == 130 and fixed.meets


@pytest.mark.parametrize("round_number,meld,points", [
    (1, "KH KS KD JK", 80), (2, "QH QS QD JK 2C", 100), (3, "AH AS AD JK JK", 160), (4, "AH AS AD JK JK", 160),
])
def test_seed_002_examples_that_work(round_number, meld, points):
    check = check_opening(melds(meld), round_number, SHEET)
    assert check.points == points and check.meets


def test_seven_sixes_cannot_open():
    check = check_opening(melds("6H 6S 6D 6C 6H 6S 6D"), 1, PAGAT)
    assert check.points == 35 and not check.meets


def test_round_one_pickup_open_worth_50():
    # seed 000: the player before discards a nine; holding two nines and a two you take the pile and open
    # with three nines and the two: 50 points.
    check = check_opening(melds("9S 9H 9D 2C"), 1, PAGAT, pickup=Card.parse("9S"))
    assert check.points == 50 and check.meets


def test_pickup_needs_two_naturals_from_the_hand():
    check = check_opening(melds("9S 9H JK"), 1, PAGAT, pickup=Card.parse("9S"))
    assert not check.meets and any("2 natural 9s" in r for r in check.reasons)
    assert not check_opening(melds("KS KH KD"), 1, PAGAT, pickup=Card.parse("9S")).meets
    assert not check_opening(melds("9S 9H 9D"), 1, PAGAT, pickup=Card.parse("3S")).meets


def test_wild_pickup_depends_on_rules():
    assert check_opening(melds("2S 2H JK"), 1, PAGAT, pickup=Card.parse("2S")).meets
    carousel = get_rules("carousel")
    assert not check_opening(melds("2S 2H JK"), 1, carousel, pickup=Card.parse("2S")).meets


def test_six_deck_opening_needs_a_clean_or_wild_meld():
    six = get_rules("six-deck")
    dirty_only = check_opening(melds("AH AS AD JK", "KH KS KD 2C"), 2, six)
    assert not dirty_only.meets and any("clean or a wild meld" in r for r in dirty_only.reasons)
    assert check_opening(melds("AH AS AD JK", "KH KS KD"), 2, six).meets


def test_saskatchewan_round_four_needs_a_complete_canasta():
    sask = get_rules("saskatchewan")
    assert not check_opening(melds("AH AS AD JK JK 2C"), 4, sask).meets
    assert check_opening(melds("AH AS AD AC JK JK 2C"), 4, sask).meets


def test_round_out_of_range():
    with pytest.raises(RulesError):
        check_opening(melds("KH KS KD"), 5, PAGAT)


def test_best_opening_examples():
    plan = best_opening(parse_cards("KH KS JK 2C 9H 9S 9D 4C 3H 3S AH AD AC"), PAGAT, 4)
    assert plan.points == 180 and plan.meets
    assert best_opening(parse_cards("JK JK 2S"), PAGAT).points == 120
    assert best_opening(parse_cards("KH KS JK"), PAGAT).points == 70
    assert best_opening(parse_cards("KH KS 5H 3S"), PAGAT, 1).melds == ()
    sixes = best_opening(parse_cards("6H 6S 6D 6C 6H 6S 6D"), PAGAT, 1)
    assert sixes.points == 35 and sixes.meets is False


def test_best_opening_is_a_legal_opening():
    hand = parse_cards("KH KS KD KC JK 2C 2D 9H 9S AH AD 5C 5D 5H 7S")
    for name in ("pagat", "score-sheet", "saskatchewan", "six-deck", "carousel"):
        rules = get_rules(name)
        plan = best_opening(hand, rules, 2)
        check = check_opening(plan.melds, 2, rules)
        assert check.points == plan.points
        assert all(m.legal for m in check.melds), name
        used = [c for m in plan.melds for c in m]
        for c in set(used):
            assert used.count(c) <= hand.count(c)


def test_best_opening_agrees_with_the_vectorised_odds_optimiser():
    """Two independent exact optimisers (DP over cards here, knapsack over counts in odds) must agree."""
    import numpy as np

    from scorer.cards import NATURAL_RANKS, full_deck
    from scorer.odds import opening_values

    rng = np.random.default_rng(7)
    shoe = [c for c in full_deck(5) if not c.is_red_three]
    for name in ("pagat", "score-sheet", "saskatchewan", "carousel", "bicycle"):
        rules = get_rules(name)
        hands = [[shoe[i] for i in rng.choice(len(shoe), size=int(rng.integers(3, 17)), replace=False)]
                 for _ in range(150)]
        counts = np.array([[sum(c.rank is r for c in h) for r in NATURAL_RANKS] for h in hands])
        twos = np.array([sum(c.rank.value == "2" for c in h) for h in hands])
        jokers = np.array([sum(c.is_joker for c in h) for h in hands])
        fast = opening_values(counts, twos, jokers, rules)
        slow = [best_opening(h, rules).points for h in hands]
        assert list(fast) == slow, name
