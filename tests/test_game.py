import pytest

from scorer import get_rules
from scorer.game import Game, GameError
from scorer.layout import TableLayout
from scorer.scoring import score_round

PAGAT = get_rules("pagat")


def round_score(n, a_melds, b_melds, squared=None):
    return score_round(TableLayout.from_dict({"round": n, "teams": {
        "A": {"melds": a_melds, "squared_books": squared or []}, "B": {"melds": b_melds}}}))


def test_four_rounds_running_totals_and_winner():
    game = Game(PAGAT)
    assert game.next_minimum() == 50
    game.add_round(round_score(1, [["KH", "KS", "KD"]], [["5H", "5S", "5D"]]))  # 30 / 15
    assert game.next_minimum() == 90 and game.leader() == "A"
    game.add_round(round_score(2, [], [["AH", "AS", "AD"]]))  # 0 / 60
    game.add_round(round_score(3, [], []))
    assert game.winner() is None
    game.add_round(round_score(4, [["9H", "9S", "9D"]], []))  # 30 / 0
    assert [r["A"] for r in game.running_totals()] == [(30, 30), (30, 30), (30, 30), (60, 60)]
    assert [r["B"] for r in game.running_totals()] == [(15, 15), (75, 75), (75, 75), (75, 75)]
    assert game.is_over and game.winner() == "B" and game.next_minimum() is None
    with pytest.raises(GameError, match="over"):
        game.add_round(round_score(4, [], []))


def test_uncounted_book_leaves_winner_open():
    game = Game(PAGAT)
    for n in (1, 2, 3):
        game.add_round(round_score(n, [], []))
    game.add_round(round_score(4, [], [["KH", "KS", "KD"]], squared=[{"top": "JK"}]))
    # A: wild book 1,640..1,850 vs B: 30 -> A certainly wins
    assert game.winner() == "A"


def test_rounds_must_come_in_order():
    game = Game(PAGAT)
    with pytest.raises(GameError, match="expected round 1"):
        game.add_round(round_score(2, [], []))
    with pytest.raises(GameError, match="'score-sheet'"):
        game.add_round(score_round(TableLayout.from_dict({"rules": "score-sheet", "teams": {"A": {}}})))


def test_a_named_team_no_round_has_scored_counts_zero():
    """A photo of one side only: the other team's 0 counts in who leads (it was left out: "A leads" at 0 to 0, or
    with fewer points than B's 0)."""
    held = score_round(TableLayout.from_dict({"round": 1, "teams": {"A": {"left": [["KH", "9S"]]}}}))  # A: -20
    nothing = score_round(TableLayout.from_dict({"round": 1, "teams": {"A": {"melds": [["4H", "4S", "4D"]],
                                                                                 "left": [["4C", "5S", "6H"]]}}}))  # 15-15
    assert nothing.teams["A"].total == 0 and held.teams["A"].total < 0
    assert Game(PAGAT, [nothing]).leader() == "A"  # the teams the rounds score: A alone
    assert Game(PAGAT, [nothing], named=("A", "B")).leader() is None
    assert Game(PAGAT, [held], named=("A", "B")).leader() == "B"
    assert Game(PAGAT, [held], named=("A", "B")).running_totals() == [{"A": (-20, -20), "B": (0, 0)}]
    assert Game(PAGAT, [held], named=("B", "A")).teams == ["B", "A"]
    assert Game(PAGAT, named=("A", "B")).totals() == {"A": (0, 0), "B": (0, 0)} and Game(PAGAT).totals() == {}
