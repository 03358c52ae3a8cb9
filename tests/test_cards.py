import pytest
from hypothesis import given, strategies as st

from scorer import Card, InvalidCardError, Rank, Suit, format_cards, parse_cards
from scorer.cards import full_deck


@pytest.mark.parametrize("code,expected", [
    ("KH", "KH"), ("kh", "KH"), ("10s", "10S"), ("TS", "10S"), ("Q♦", "QD"), ("a♣", "AC"),
    ("JK", "JK"), ("rj", "RJ"), ("BJ", "BJ"), (" 2c ", "2C"),
])
def test_parse_and_print(code, expected):
    assert str(Card.parse(code)) == expected


@pytest.mark.parametrize("code", ["", "ZZ", "1H", "11S", "KX", "K", "H", "JKH", "10", "3"])
def test_bad_codes_name_the_code(code):
    with pytest.raises(InvalidCardError) as err:
        Card.parse(code)
    assert repr(code) in str(err.value)


@pytest.mark.parametrize("code, kind", [(5, "a number"), (None, "null"), (["KH"], "a list"), (True, "true or false")])
def test_a_code_that_is_no_text_is_named_in_jsons_words(code, kind):
    """A card code read from JSON that is not text is named as JSON names it (never 'int' or 'NoneType')."""
    with pytest.raises(InvalidCardError, match=f"card code must be text \\('QH'\\), not {kind}$"):
        Card.parse(code)


def test_constructor_refuses_impossible_cards():
    with pytest.raises(InvalidCardError):
        Card(Rank.KING)
    with pytest.raises(InvalidCardError):
        Card(Rank.JOKER, Suit.HEARTS)


def test_kinds():
    assert Card.parse("2S").is_wild and Card.parse("JK").is_wild
    assert not Card.parse("2S").is_natural
    assert Card.parse("3H").is_red_three and Card.parse("3D").is_red_three
    assert Card.parse("3S").is_black_three and not Card.parse("3S").is_natural
    assert Card.parse("AS").is_natural and Card.parse("4C").is_natural
    assert Card.parse("RJ").is_red and Card.parse("BJ").is_black
    jk = Card.parse("JK")
    assert not jk.is_red and not jk.is_black


def test_identical_cards_are_equal_but_countable():
    cards = parse_cards("KH KH KH")
    assert len(cards) == 3 and len(set(cards)) == 1


def test_parse_cards_accepts_commas_and_lists():
    assert format_cards(parse_cards("QH, QS,QD JK")) == "QH QS QD JK"
    assert format_cards(parse_cards(["th", "2c"])) == "10H 2C"


def test_full_deck_counts():
    deck = full_deck(5)
    assert len(deck) == 270
    assert sum(c.is_wild for c in deck) == 30  # seed 000: 30 of the 270 cards are wild
    assert sum(c.is_red_three for c in deck) == 10


@given(st.sampled_from(full_deck(1)))
def test_round_trip(card):
    assert Card.parse(str(card)) == card
    assert Card.parse(str(card).lower()) == card
