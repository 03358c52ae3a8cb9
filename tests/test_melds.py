import pytest

from scorer import IllegalMeldError, Rank, get_rules, parse_cards
from scorer.melds import BookKind, book_value_range, check_meld, classify_book, marker_kind, validate_meld
from scorer import Card

PAGAT = get_rules("pagat")
SHEET = get_rules("score-sheet")


def meld(text, rules=PAGAT):
    return check_meld(parse_cards(text), rules)


def test_seed_002_team_b_dirty_book_depends_on_the_preset():
    # seed 002 §8: four queens + two 2s + joker. §2: "more naturals than wilds" -> legal there;
    # seed 000: "at least twice as many naturals as wilds" -> illegal under pagat.
    cards = "QH QS QD QC 2H 2D JK"
    legal = meld(cards, SHEET)
    assert legal.legal and legal.kind is BookKind.DIRTY and legal.points == 130
    illegal = meld(cards, PAGAT)
    assert not illegal.legal
    assert "too many wilds" in illegal.reasons[0]


def test_pagat_wild_limit_by_size():
    assert meld("5H 5S JK").legal
    assert not meld("5H 5S 2C JK").legal
    assert meld("5H 5S 5D 5C 2C JK").legal
    assert not meld("5H 5S 5D 2C JK").legal
    assert meld("5H 5S 5D 5C 5H 2C JK").legal


def test_seed_004_one_more_natural_than_wilds():
    carousel = get_rules("carousel")
    assert meld("5H 5S 5D 2C JK", carousel).legal
    assert not meld("5H 5S 5D 2C JK 2D", carousel).legal
    assert meld("5H 5S 5D 5C 2C JK 2D", carousel).legal


@pytest.mark.parametrize("text,reason", [
    ("3H 3D 3S", "threes cannot be melded"),
    ("3S 3C JK", "threes cannot be melded"),
    ("KH QH JK", "mixes"),
    ("KH KS", "at least 3 cards"),
    ("KH KH KH KH KH KH KH KH", "exactly 7"),
    ("KH 2C JK", "at least 2 natural"),
])
def test_illegal_melds_say_why(text, reason):
    check = meld(text)
    assert not check.legal
    assert any(reason in r for r in check.reasons), check.reasons
    with pytest.raises(IllegalMeldError, match=reason):
        validate_meld(parse_cards(text), PAGAT)


def test_book_kinds():
    assert classify_book(parse_cards("KH KS KD KC KH KS KD"), PAGAT) is BookKind.CLEAN
    assert classify_book(parse_cards("8H 8S 8D 8C 8H 2C JK"), PAGAT) is BookKind.DIRTY
    assert classify_book(parse_cards("2H 2S 2D 2C JK JK JK"), PAGAT) is BookKind.WILD
    with pytest.raises(IllegalMeldError, match="not a complete book"):
        classify_book(parse_cards("KH KS KD"), PAGAT)


def test_wild_melds_need_wild_books():
    assert meld("2H 2S JK").legal and meld("2H 2S JK").is_wild_meld
    assert not meld("2H 2S JK", get_rules("bicycle")).legal


def test_saskatchewan_canastas_grow_with_up_to_three_wilds():
    sask = get_rules("saskatchewan")
    nine = meld("9H 9S 9D 9C 9H 9S 2C JK 2D", sask)
    assert nine.legal and nine.kind is BookKind.DIRTY
    assert not meld("9H 9S 9D 9C 9H 2C JK 2D 2S", sask).legal


def test_six_deck_closed_canasta_takes_naturals_not_wilds():
    six = get_rules("six-deck")
    assert meld("9H 9S 9D 9C 9H 2C JK 9S 9D", six).legal
    assert not meld("9H 9S 9D 9C 2C JK JK 9S", six).legal  # the third wild could not be in the first seven


def test_marker_cards():
    assert marker_kind(Card.parse("QH")) is BookKind.CLEAN
    assert marker_kind(Card.parse("QS")) is BookKind.DIRTY
    assert marker_kind(Card.parse("JK")) is BookKind.WILD
    assert marker_kind(Card.parse("2D")) is BookKind.WILD
    assert marker_kind(Card.parse("3H")) is None


def test_wild_pile_is_worth_140_to_350_in_cards():
    # seed 000 'How to Score': seven twos 140 to seven jokers 350.
    assert book_value_range(BookKind.WILD, None, PAGAT) == (140, 350)
    assert meld("2H 2S 2D 2C 2H 2S 2D").points == 140
    assert meld("JK JK JK JK JK JK JK").points == 350


def test_squared_book_value_ranges():
    assert book_value_range(BookKind.CLEAN, Rank.KING, PAGAT) == (70, 70)
    # pagat dirty kings: 6 K + one 2 = 80 ... 5 K + two jokers = 150
    assert book_value_range(BookKind.DIRTY, Rank.KING, PAGAT) == (80, 150)
    # score-sheet allows up to 3 wilds: 4 K + three jokers = 190
    assert book_value_range(BookKind.DIRTY, Rank.KING, SHEET) == (80, 190)
    with pytest.raises(IllegalMeldError):
        book_value_range(BookKind.DIRTY, None, PAGAT)


def test_describe_is_one_line():
    text = meld("QH QS QD JK").describe()
    assert text == "legal meld of queens: 3 naturals + 1 wild, 80 points"


def test_describe_a_pile_of_threes_gives_no_counts_or_points():
    # seed 000: "Threes cannot be melded", so "0 naturals + 0 wilds, 10 points" would describe nothing
    assert meld("3S 3C 3D").describe() == "illegal meld — threes cannot be melded (3S 3C 3D)"
