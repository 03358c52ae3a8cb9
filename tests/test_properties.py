"""Invariants of the scorer, checked on generated tables (hypothesis)."""

from collections import Counter

from hypothesis import assume, given, settings, strategies as st

from scorer import Card, Rank, Suit, get_rules
from scorer.cards import NATURAL_RANKS, full_deck
from scorer.layout import TableLayout
from scorer.melds import check_meld
from scorer.scoring import score_round

PRESETS = st.sampled_from(["pagat", "score-sheet", "carousel", "simpson", "six-deck", "saskatchewan"])
SUITS = st.sampled_from(list(Suit))
WILDS = st.sampled_from([Card.parse("2S"), Card.parse("2H"), Card.parse("JK")])
ANY_CARD = st.sampled_from(full_deck(1))


@st.composite
def meld_of(draw, rank, min_naturals=3, max_naturals=5, max_wilds=1):
    n = draw(st.integers(min_naturals, max_naturals))
    w = draw(st.integers(0, max_wilds))
    return [Card(rank, draw(SUITS)) for _ in range(n)] + [draw(WILDS) for _ in range(w)]


@given(PRESETS, st.sampled_from(NATURAL_RANKS), st.data())
def test_moving_a_card_from_hand_to_meld_adds_twice_its_value(preset, rank, data):
    rules = get_rules(preset)
    meld = data.draw(meld_of(rank))
    moved = data.draw(st.one_of(st.builds(lambda s: Card(rank, s), SUITS), WILDS))
    others = data.draw(st.lists(ANY_CARD, max_size=8))
    before_meld, after_meld = meld, meld + [moved]
    assume(check_meld(before_meld, rules).legal and check_meld(after_meld, rules).legal)
    assume(len(after_meld) < rules.book_size)  # no book bonus appears
    copies = Counter(c.code for c in after_meld + others)
    assume(all(n <= rules.decks for n in copies.values()))  # cards the decks really hold
    before = TableLayout.from_dict({"rules": preset, "teams": {"A": {
        "melds": [[c.code for c in before_meld]], "left": [[c.code for c in others + [moved]]]}}})
    after = TableLayout.from_dict({"rules": preset, "teams": {"A": {
        "melds": [[c.code for c in after_meld]], "left": [[c.code for c in others]]}}})
    gain = score_round(after).teams["A"].total - score_round(before).teams["A"].total
    assert gain == 2 * rules.card_value(moved)


@given(PRESETS, st.lists(st.lists(ANY_CARD, min_size=1, max_size=8), max_size=5),
       st.lists(st.sampled_from(["QH", "KS", "JK", "2D", "9C"]), max_size=3),
       st.lists(st.lists(ANY_CARD, max_size=6), max_size=3), st.booleans())
@settings(max_examples=150)
def test_total_is_the_sum_of_the_breakdown(preset, melds, tops, left, went_out):
    data = {"rules": preset, "went_out": "A" if went_out else None, "teams": {"A": {
        "melds": [[c.code for c in m] for m in melds],
        "squared_books": [{"top": t} for t in tops],
        "left": [[c.code for c in p] for p in left]}}}
    rules = get_rules(preset)
    if rules.wild_books is False:
        data["teams"]["A"]["squared_books"] = [b for b in data["teams"]["A"]["squared_books"]
                                               if b["top"] not in ("JK", "2D")]
    result = score_round(TableLayout.from_dict(data), lenient=True)
    team = result.teams["A"]
    assert team.total_min == sum(line.points_min for line in team.lines)
    assert team.total_max == sum(line.points_max for line in team.lines)
    assert team.total_min <= team.total_max
    assert (team.total is None) == bool(team.needs_counting)


@given(PRESETS, st.sampled_from(["3H", "3D"]), st.integers(0, 3))
def test_laying_a_red_three_moves_it_from_penalty_to_bonus(preset, code, already):
    rules = get_rules(preset)
    held = TableLayout.from_dict({"rules": preset, "teams": {"A": {"red_threes": ["3H"] * already,
                                                                   "left": [[code]]}}})
    laid = TableLayout.from_dict({"rules": preset, "teams": {"A": {"red_threes": ["3H"] * already + [code]}}})
    diff = score_round(laid).teams["A"].total - score_round(held).teams["A"].total
    assert diff == rules.red_three_on_table - rules.red_three_in_hand


@given(PRESETS, st.sampled_from(NATURAL_RANKS), st.integers(0, 2))
def test_book_bonus_appears_exactly_at_book_size(preset, rank, wilds):
    rules = get_rules(preset)
    naturals = rules.book_size - wilds
    cards = [Card(rank, list(Suit)[i % 4]) for i in range(naturals)] + [Card(Rank.JOKER)] * wilds
    check = check_meld(cards, rules)
    assume(check.legal)
    team = score_round(TableLayout.from_dict({"rules": preset, "teams": {"A": {
        "melds": [[c.code for c in cards]]}}})).teams["A"]
    bonus = rules.clean_book_bonus if wilds == 0 else rules.dirty_book_bonus
    assert team.total == bonus + check.points
