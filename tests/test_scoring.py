import json
from pathlib import Path

import pytest

from scorer import IllegalLayoutError, InvalidLayoutError, get_rules
from scorer.cards import full_deck
from scorer.layout import TableLayout, load_layout
from scorer.melds import BookKind
from scorer.going_out import check_going_out
from scorer.scoring import score_round

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def layout(teams, **top):
    return TableLayout.from_dict({"teams": teams, **top})


def test_seed_002_worked_round():
    result = score_round(load_layout(EXAMPLES / "score_sheet_round.json"))
    a, b = result.teams["A"], result.teams["B"]
    assert a.total == 1250 and b.total == 265
    # Team A, line by line (seed 002 §8)
    assert a.line("clean_books").points_min + a.line("dirty_books").points_min == 800
    assert a.line("going_out").points_min == 100 and a.line("red_threes_on_table").points_min == 100
    assert a.line("melded_cards").points_min == 270 and a.line("cards_left").points_min == -20
    # Team B
    assert b.line("dirty_books").points_min == 300 and b.line("going_out").points_min == 0
    assert b.line("red_threes_on_table").points_min + b.line("red_threes_in_hand").points_min == 0
    assert b.line("melded_cards").points_min == 180 and b.line("cards_left").points_min == -215
    assert not result.problems


def test_seed_002_round_is_illegal_under_pagat():
    lay = load_layout(EXAMPLES / "score_sheet_round.json")
    with pytest.raises(IllegalLayoutError) as err:
        score_round(lay, get_rules("pagat"))
    messages = [str(p) for p in err.value.problems]
    assert any("teams.B.melds[0]" in m and "too many wilds" in m for m in messages)
    assert any("went out but needs 2 clean books" in m for m in messages)
    lenient = score_round(lay, get_rules("pagat"), lenient=True)
    assert lenient.problems and lenient.teams["B"].line("dirty_books").count == 0


def test_going_out_bonus_is_refused_to_a_side_that_may_not_go_out():
    lay = load_layout(EXAMPLES / "score_sheet_round.json")  # team A went out with one clean and one dirty book
    eligible = score_round(lay).teams["A"]
    lenient = score_round(lay, get_rules("pagat"), lenient=True)
    a = lenient.teams["A"]
    line = a.line("going_out")
    assert (line.count, line.points_min, line.points_max) == (1, 0, 0)
    assert line.detail == ("refused: needs 2 clean books, has 1; needs 2 dirty books, has 1; "
                           "needs 1 wild book, has 0")
    assert a.total == eligible.total - 100  # the score sheet's 100-point bonus is the only difference
    assert [p.message for p in lenient.problems if p.where == "teams.A"] == [
        "went out but needs 2 clean books, has 1", "went out but needs 2 dirty books, has 1",
        "went out but needs 1 wild book, has 0"]
    assert eligible.line("going_out").detail == "" and eligible.line("going_out").points_min == 100
    text = lenient.format_text()
    assert any(ln.startswith("  Going out") and ln.endswith("+0  " + line.detail) for ln in text.splitlines())
    as_json = a.to_dict()["breakdown"]
    assert {"item": "going_out", "points": 0, "detail": line.detail}.items() <= next(
        b for b in as_json if b["item"] == "going_out").items()


def test_going_out_refused_for_one_missing_book():
    lay = layout({"A": {"melds": [["KH", "KS", "KD", "KC", "KH", "KS", "KD"],
                                  ["QH", "QS", "QD", "QC", "QH", "QS", "2D"]]}}, went_out="A", rules="score-sheet")
    rules = get_rules("score-sheet").with_overrides(go_out_clean_books=2)
    line = score_round(lay, rules, lenient=True).teams["A"].line("going_out")
    assert line.detail == "refused: needs 2 clean books, has 1" and line.points_min == 0
    assert score_round(lay).teams["A"].line("going_out").points_min == get_rules("score-sheet").go_out_bonus


def test_seed_000_bonuses_for_going_out_total_3200():
    # Two clean, two dirty, one wild pile and the going-out bonus: 3,200 before card values.
    lay = layout({"A": {"melds": [
        ["KH", "KS", "KD", "KC", "KH", "KS", "KD"], ["QH", "QS", "QD", "QC", "QH", "QS", "QD"],
        ["9H", "9S", "9D", "9C", "9H", "2S", "JK"], ["8H", "8S", "8D", "8C", "8H", "8S", "2D"],
        ["2H", "2S", "2D", "2C", "2H", "2S", "2C"]]}}, went_out="A")
    team = score_round(lay).teams["A"]
    bonuses = sum(team.line(k).points_min for k in ("clean_books", "dirty_books", "wild_books", "going_out"))
    assert bonuses == 3200
    assert team.line("wild_books").points_min == 1500
    assert team.total == 3200 + team.line("melded_cards").points_min


def test_squared_books():
    lay = layout({"A": {"squared_books": [{"top": "QH"}, {"top": "KS"}, {"top": "JK"}]}})
    team = score_round(lay).teams["A"]
    assert team.book_counts() == {BookKind.CLEAN: 1, BookKind.DIRTY: 1, BookKind.WILD: 1}
    assert team.total is None and not team.exact
    clean, dirty, wild = 70, (80, 150), (140, 350)
    assert team.total_min == 500 + 300 + 1500 + clean + dirty[0] + wild[0]
    assert team.total_max == 500 + 300 + 1500 + clean + dirty[1] + wild[1]
    assert len(team.needs_counting) == 2 and "KS" in team.needs_counting[0]


def test_squared_book_with_counted_cards_is_exact():
    lay = layout({"A": {"squared_books": [{"top": "KS", "cards": ["KS", "KH", "KD", "KC", "KH", "2S", "JK"]}]}})
    team = score_round(lay).teams["A"]
    assert team.exact and team.total == 300 + 50 + 20 + 50


def test_marker_disagreeing_with_cards_is_a_warning():
    lay = layout({"A": {"squared_books": [{"top": "KH", "cards": ["KS", "KH", "KD", "KC", "KH", "2S", "JK"]}]}})
    result = score_round(lay)
    assert [p.severity for p in result.problems] == ["warning"]
    assert result.teams["A"].books[0].kind is BookKind.DIRTY


def test_tables_examples_expected_totals(shared_dir):
    files = sorted((shared_dir / "tables_examples").glob("*.json"))
    assert files
    for f in files:
        data = json.loads(f.read_text())
        lay = TableLayout.from_dict({k: data[k] for k in ("rules", "round", "went_out", "teams")})
        assert score_round(lay).teams["A"].total == data["expected_total"], f.name


@pytest.mark.parametrize("teams,message", [
    ({"A": {"melds": [["JK"] * 6 + ["2S"], ["JK"] * 5 + ["2H", "2D"]]}}, "11 jokers"),
    ({"A": {"melds": [["3H", "3D", "3S"]]}}, "threes cannot be melded"),
    ({"A": {"melds": [["KH"] * 3], "left": [["KH"] * 3]}}, "6 x KH"),
    ({"A": {"melds": [["KH", "KS", "KD"], ["KC", "KH", "KS"]]}}, "2 unfinished melds of kings"),
    ({"A": {"red_threes": ["3S"]}}, "not a red three"),
    ({"A": {"exact_deal": 1}}, "no exact-deal bonus"),
    ({"A": {"squared_books": [{"top": "3H"}]}}, "threes are never melded"),
    ({"A": {}, "B": {}, "C": {}}, "3 teams"),
])
def test_impossible_layouts(teams, message):
    with pytest.raises(IllegalLayoutError, match=message):
        score_round(layout(teams))


def test_deck_problems_say_the_whole_layout_is_counted():
    # 9 jokers melded, 2 in a foot and 1 loose: 12 in the layout, though only 9 are on the table
    lay = layout({"A": {"melds": [["JK"] * 5 + ["2S", "2H"], ["JK"] * 4 + ["2D", "2C", "2S"]],
                        "left": [["KH"] * 4, ["JK", "JK"]], "loose": ["JK", "KH", "KH"]}})
    problems = {p.message: p for p in score_round(lay, lenient=True).problems}
    messages = list(problems)
    assert "12 jokers in the layout (table, hands and feet) but 5 decks hold 10" in messages
    assert "6 x KH in the layout (table, hands and feet) but 5 decks hold only 5" in messages
    # each names the cards it is about, wherever they lie (the page points at every pile holding them)
    assert problems["6 x KH in the layout (table, hands and feet) but 5 decks hold only 5"].cards == ("KH",)
    assert problems["12 jokers in the layout (table, hands and feet) but 5 decks hold 10"].cards == ("JK",)
    assert not any("on the table" in m for m in messages)
    # five full decks in hands and feet and one more card on the table
    many = layout({"A": {"left": [[c.code for c in full_deck(5)]], "melds": [["AS", "AH", "AD"]]}})
    big = [p.message for p in score_round(many, lenient=True).problems]
    assert "273 cards in the layout (table, hands and feet) but the decks hold 270" in big


def test_went_out_must_name_a_team():
    with pytest.raises(IllegalLayoutError, match="went_out names team 'C'"):
        score_round(layout({"A": {}}, went_out="C"))


def test_red_threes_in_unplayed_foot_and_simpson():
    lay = layout({"A": {"red_threes": ["3H"], "left": [["3D", "KS"]]}})
    team = score_round(lay).teams["A"]
    assert team.total == 100 - 100 - 10
    simpson = score_round(lay, get_rules("simpson")).teams["A"]
    assert simpson.total == -500 - 500 - 10  # seed 000: red threes always count -500


def test_exact_deal_bonus():
    lay = layout({"A": {"exact_deal": 2}}, rules="six-deck")
    assert score_round(lay).teams["A"].total == 200
    with pytest.raises(IllegalLayoutError, match="at most 2"):
        score_round(layout({"A": {"exact_deal": 3}}, rules="six-deck"))


def test_going_out_check():
    pagat = get_rules("pagat")
    ok = check_going_out([BookKind.CLEAN] * 2 + [BookKind.DIRTY] * 2 + [BookKind.WILD], pagat)
    assert ok.eligible and "every partner has played from their foot" in ok.unchecked
    short = check_going_out([BookKind.CLEAN, BookKind.DIRTY], pagat, partner_in_foot=False)
    assert not short.eligible and len(short.reasons) == 4
    assert check_going_out([BookKind.CLEAN, BookKind.DIRTY], get_rules("score-sheet")).eligible


def test_layout_errors_are_one_line():
    with pytest.raises(InvalidLayoutError, match=r"teams.A.melds\[0\]\[1\]: unknown card code 'ZZ'"):
        layout({"A": {"melds": [["KH", "ZZ", "KS"]]}})
    with pytest.raises(InvalidLayoutError, match="teams.A.meld: unknown key"):
        layout({"A": {"meld": []}})
    with pytest.raises(InvalidLayoutError, match="not valid JSON"):
        TableLayout.from_json("{")


def test_round_trip_json():
    lay = load_layout(EXAMPLES / "score_sheet_round.json")
    again = TableLayout.from_json(lay.to_json())
    assert again == lay
    assert score_round(again).teams["A"].total == 1250


def test_text_breakdown_mentions_totals():
    text = score_round(load_layout(EXAMPLES / "score_sheet_round.json")).format_text()
    assert "1,250" in text and "265" in text and "Clean books" in text
