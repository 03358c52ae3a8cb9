import json
from pathlib import Path

import pytest

from scorer import IllegalLayoutError, InvalidLayoutError, get_rules
from scorer.layout import TableLayout, load_layout
from scorer.melds import BookKind
from scorer.scoring import check_going_out, score_round

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
