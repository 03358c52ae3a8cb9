import pytest

from scorer import PRESET_NAMES, Card, RulesError, Rules, UnknownRulesError, all_presets, get_rules
from scorer.rules import BookGrowth


def test_every_seed_rule_system_is_a_preset():
    assert set(PRESET_NAMES) == {"pagat", "bicycle", "saskatchewan", "simpson", "six-deck", "score-sheet",
                                 "carousel"}
    for r in all_presets():
        assert r.source, r.name


def test_the_books_needed_to_go_out_are_said_from_the_rules_fields():
    """``Rules.going_out_text`` (the new-game page shows it beside each preset's title) counts the going-out fields,
    a house rule included."""
    assert get_rules("pagat").going_out_text() == "two clean, two dirty and one wild book to go out"
    assert get_rules("bicycle").going_out_text() == "one clean and one dirty book to go out"
    assert get_rules("saskatchewan").going_out_text() == "one clean, one dirty and one wild book to go out"
    assert get_rules("pagat").with_overrides(go_out_clean_books=3, go_out_dirty_books=0,
                                             go_out_wild_books=0).going_out_text() == "three clean books to go out"
    assert get_rules("score-sheet").with_overrides(go_out_clean_books=0, go_out_dirty_books=0).going_out_text() == \
        "no book needed to go out"
    for r in all_presets():
        assert "go out" not in r.title, r.title  # said once, from the fields


def test_card_values_seed_000_table():
    r = get_rules("pagat")
    expect = {"JK": 50, "2H": 20, "AS": 20, "KH": 10, "QS": 10, "JD": 10, "10C": 10, "9H": 10, "8S": 10,
              "7H": 5, "6S": 5, "5D": 5, "4C": 5, "3S": 5, "3C": 5}
    for code, value in expect.items():
        assert r.card_value(Card.parse(code)) == value, code
    assert (r.red_three_on_table, r.red_three_in_hand) == (100, -100)
    with pytest.raises(ValueError):
        r.card_value(Card.parse("3H"))


def test_pagat_main_rules():
    r = get_rules("pagat")
    assert (r.players, r.team_size, r.decks, r.deck_cards) == (4, 2, 5, 270)
    assert (r.hand_size, r.foot_size, r.draw_count, r.pickup_size) == (13, 13, 2, 7)
    assert r.opening_minimums == (50, 90, 120, 150) and r.rounds == 4
    assert (r.clean_book_bonus, r.dirty_book_bonus, r.wild_book_bonus, r.go_out_bonus) == (500, 300, 1500, 100)
    assert (r.go_out_clean_books, r.go_out_dirty_books, r.go_out_wild_books) == (2, 2, 1)
    assert r.go_out_partner_in_foot and r.one_open_meld_per_rank and r.wild_books
    # "a meld of three to five cards can hold one wild card and a meld of six or seven can hold two"
    assert [r.max_wild_in(n, r.book_size) for n in (2, 3, 4, 5, 6)] == [1, 1, 2, 2, 1]


def test_variation_presets():
    b = get_rules("bicycle")
    assert (b.hand_size, b.foot_size, b.go_out_clean_books, b.go_out_dirty_books, b.go_out_wild_books) == \
        (11, 11, 1, 1, 0)
    s = get_rules("saskatchewan")
    assert (s.hand_size, s.foot_size, s.max_wilds, s.pickup_size) == (11, 13, 3, None)
    assert s.book_growth is BookGrowth.ANY and s.opening_book_rounds == (4,)
    assert (s.go_out_clean_books, s.go_out_dirty_books, s.go_out_wild_books) == (1, 1, 1)
    m = get_rules("simpson")
    assert m.team_size == 1 and m.teams == 4
    assert (m.clean_book_bonus, m.dirty_book_bonus, m.red_three_on_table, m.red_three_in_hand) == (300, 100, -500, -500)
    assert m.exact_deal_bonus == 100
    d = get_rules("six-deck")
    assert d.decks == 6 and d.deck_cards == 324 and d.book_growth is BookGrowth.NATURALS
    assert d.opening_needs_clean_or_wild and d.exact_deal_bonus == 100 and not d.red_three_from_foot_replaced
    assert d.with_overrides(players=6, team_size=3).decks == 6  # teams of 3, still six decks
    c = get_rules("score-sheet")
    assert (c.go_out_clean_books, c.go_out_dirty_books, c.go_out_wild_books) == (1, 1, 0)
    assert c.with_overrides(go_out_clean_books=2, go_out_dirty_books=2).go_out_clean_books == 2
    k = get_rules("carousel")
    assert k.opening_minimums == (60, 90, 120, 150) and k.draw_count == 3 and k.exact_deal_bonus == 100
    assert (k.go_out_clean_books, k.go_out_dirty_books, k.go_out_wild_books, k.go_out_with_discard) == (2, 2, 1, True)
    # seed 004: three 5s take up to two wilds; a third wild needs four 5s
    assert k.max_wild_in(3, 7) == 2 and k.max_wild_in(4, 7) == 3


def test_player_count_option_follows_decks():
    r = get_rules("pagat", players=6)
    assert r.decks == 7 and r.teams == 3
    assert get_rules("pagat", players=3, team_size=1).teams == 3


def test_unknown_preset_and_fields_are_refused():
    with pytest.raises(UnknownRulesError, match="unknown rules 'nope'"):
        get_rules("nope")
    with pytest.raises(RulesError, match="frobnicate"):
        get_rules("pagat", frobnicate=1)
    with pytest.raises(RulesError, match="unknown rule field"):
        Rules.from_dict({"name": "x", "bogus": 1})
    # a near miss names the field meant
    with pytest.raises(RulesError, match=r"clean_book \(did you mean clean_book_bonus\?\)"):
        get_rules("pagat", clean_book=600)
    with pytest.raises(RulesError, match=r"unknown rule field \(did you mean red_three_on_table\?\)"):
        Rules.from_dict({**get_rules("pagat").model_dump(), "red_three_on_tabel": 100})
    with pytest.raises(RulesError) as far:
        get_rules("pagat", frobnicate=1)
    assert "did you mean" not in str(far.value)


@pytest.mark.parametrize("changes,message", [
    ({"players": 5, "team_size": 2}, "not a multiple"),
    ({"hand_size": 30, "foot_size": 30, "decks": 4}, "needs 241 cards"),
    ({"hand_size": 40}, "hand_size: at most 30, not 40"),
    ({"book_size": 3_000_000}, "at most 14"),
    ({"book_size": 10**20}, "at most 14"),
    ({"book_size": "seven"}, "book_size: a whole number, not 'seven'"),
    ({"opening_minimums": "50;90"}, r"a list of whole numbers \(e.g. 50,90\)"),
    ({"book_growth": "open"}, "one of 'closed', 'naturals' or 'any'"),
    ({"wild_books": False}, "wild books"),
    ({"exact_deal_bonus": 100}, "exact_deal_bonus"),
    ({"opening_minimums": []}, "at least one round"),
    ({"naturals_per_wild": 7}, "dirty book"),
])
def test_inconsistent_rules_are_refused(changes, message):
    with pytest.raises(RulesError, match=message):
        get_rules("pagat", **changes)


def test_rules_are_frozen():
    r = get_rules("pagat")
    with pytest.raises(Exception):
        r.decks = 3  # type: ignore[misc]


def test_opening_minimum_round_range():
    r = get_rules("pagat")
    assert r.opening_minimum(3) == 120
    with pytest.raises(RulesError):
        r.opening_minimum(5)


def test_exact_deal_counts_seed_001_and_004():
    six = get_rules("six-deck")
    assert (six.exact_deal_cards("hand"), six.exact_deal_cards("foot")) == (53, 52)
    six6 = six.with_overrides(players=6, team_size=3)
    assert (six6.exact_deal_cards("hand"), six6.exact_deal_cards("foot")) == (79, 78)
    carousel = get_rules("carousel")
    assert carousel.exact_deal_cards("both") == 26
    assert carousel.with_overrides(hand_size=11, foot_size=11).exact_deal_cards("both") == 22
    assert get_rules("simpson").exact_deal_cards("both") == 22  # "exactly 22 scores 100"
    with pytest.raises(RulesError):
        six.exact_deal_cards("pile")
