"""Corrections to a photo reading (handfoot.corrections), applied to piles and scored again."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from handfoot.corrections import Correction, CorrectionError, apply_corrections
from handfoot.readings import rescore


def card(pid: str, k: int, code: str) -> dict:
    return {"id": f"{pid}.{k}", "code": code, "confidence": 0.9, "boxes": [[0, 0, 1, 1]], "center": [0, 0],
            "size": 1.0}


def pile(pid: str, kind: str, codes: list[str], team: str = "A") -> dict:
    return {"id": pid, "team": team, "kind": kind, "cards": [card(pid, k, c) for k, c in enumerate(codes)],
            "box": None, "notes": []}


IMAGES = [{"image": "t.jpg", "kind": "table", "teams": ["A"], "width": 100, "height": 100, "detections": [],
           "piles": [pile("i0p0", "meld", ["KH", "KS", "KD", "QH", "QS", "QD"]), pile("i0p1", "meld", ["9S", "9H"]),
                     pile("i0p2", "squared_book", ["8S"]), pile("i0p3", "loose", ["5C"])]}]


def fix(*ops: dict) -> list[dict]:
    return apply_corrections(IMAGES, TypeAdapter(list[Correction]).validate_python(list(ops)))


def layout(images: list[dict]) -> dict:
    return rescore(images, {}, "pagat", {}, 1, None, []).layout["teams"]["A"]


def test_split_join_add_and_move():
    images = fix({"op": "split_pile", "pile": "i0p0", "at": "i0p0.3"},
                 {"op": "add_card", "pile": "i0p1", "code": "9D"},
                 {"op": "move_card", "card": "i0p3.0", "to": "i0p1"})
    assert layout(images)["melds"] == [["KH", "KS", "KD"], ["QH", "QS", "QD"], ["9S", "9H", "9D", "5C"]]
    assert [p["id"] for p in images[0]["piles"]] == ["i0p0", "i0p0s", "i0p1", "i0p2"]  # the loose pile emptied
    assert images[0]["piles"][2]["cards"][2]["boxes"] == []  # an added card has no box
    joined = apply_corrections(images, TypeAdapter(list[Correction]).validate_python(
        [{"op": "join_piles", "pile": "i0p0s", "into": "i0p0"}]))
    assert layout(joined)["melds"][0] == ["KH", "KS", "KD", "QH", "QS", "QD"]
    assert IMAGES[0]["piles"][0]["cards"][3]["code"] == "QH"  # the input is not changed


def test_a_squared_books_wilds_make_its_value_exact():
    before = rescore(IMAGES, {}, "pagat", {}, 1, None, []).score.teams["A"]
    assert not before.exact
    images = fix({"op": "set_book", "pile": "i0p2", "twos": 1, "jokers": 1, "kind": "dirty"})
    after = rescore(images, {}, "pagat", {}, 1, None, [])
    book = layout(images)["squared_books"][0]
    assert sorted(book["cards"]) == sorted(["8S", "8S", "8H", "8D", "8C", "2C", "JK"]) and book["kind"] == "dirty"
    assert after.score.teams["A"].exact
    squared = next(p for p in after.images[0].piles if p.kind == "squared_book")
    assert squared.verdict.startswith("squared dirty book of 7 cards, as its black marker card 8S says")


def test_a_squared_books_problem_names_no_suit_nobody_saw():
    """A squared book counted by its wilds alone has its naturals' suits made up: its problem speaks of its rank,
    count and wilds, and names no card but its top card."""
    images = fix({"op": "set_book", "pile": "i0p2", "twos": 4, "jokers": 0})
    scored = rescore(images, {}, "pagat", {}, 1, None, [])
    squared = next(p for p in scored.images[0].piles if p.kind == "squared_book")
    assert len(squared.problems) == 1 and "too many wilds" in squared.problems[0]
    assert squared.problems[0].startswith("squared book of 8s under 8S: 7 cards, 4 wild: ")
    for code in ("8H", "8D", "8C", "2C", "2S", "2D", "2H"):
        assert code not in squared.problems[0]


def test_a_squared_books_made_up_suits_are_no_copies_against_the_decks():
    """Four 9H seen (three in a meld, one on a squared book) and the book counted by its wilds (none): its other
    six 9s have no suit anybody saw, so they are no 9H too many for five decks; typed in as 9H, they are."""
    images = [{**IMAGES[0], "piles": [pile("i0p0", "meld", ["9H", "9H", "9H", "9S"]),
                                      pile("i0p1", "squared_book", ["9H"])]}]
    counted = apply_corrections(images, TypeAdapter(list[Correction]).validate_python(
        [{"op": "set_book", "pile": "i0p1", "twos": 0, "jokers": 0}]))
    scored = rescore(counted, {}, "pagat", {}, 1, None, [])
    assert scored.score.problems == [] and scored.score.teams["A"].exact
    typed = apply_corrections(counted, TypeAdapter(list[Correction]).validate_python(
        [{"op": "set_book", "pile": "i0p1", "cards": ["9H", "9H", "9H", "9S", "9S", "9D", "9C"]}]))
    [count] = rescore(typed, {}, "pagat", {}, 1, None, []).score.problems
    assert count.message == "6 x 9H in the layout (table, hands and feet) but 5 decks hold only 5"
    assert count.cards == ["9H"]  # the card it is about: the page points at every pile holding it


def test_set_kind_and_card_and_problems_beside_their_pile():
    images = fix({"op": "set_card", "card": "i0p1.1", "code": "10H"})
    scored = rescore(images, {}, "pagat", {}, 1, None, [])
    meld = next(p for p in scored.images[0].piles if p.id == "i0p1")
    assert meld.problems and "illegal meld" in meld.verdict
    images = fix({"op": "set_kind", "pile": "i0p1", "kind": "left"})
    assert layout(images)["left"] == [["9S", "9H"]]


def test_a_melds_verdict_names_the_rules_and_says_an_illegal_one_still_counts_and_its_reason_is_said_once():
    """The verdict reads in order: what the meld is under the rules, then its points; the scorer counts an illegal
    meld's points in the round's total, and the verdict says so. Why it is illegal is said once, by the rules'
    problem at the pile, not again in the verdict."""
    images = [{**IMAGES[0], "piles": [pile("i0p0", "meld", ["KH", "KS", "KD"]), pile("i0p1", "meld", ["9S", "2C", "JK"])]}]
    scored = rescore(images, {}, "pagat", {}, 1, None, [])
    legal, illegal = scored.images[0].piles
    assert legal.verdict == "legal meld of kings under pagat: 3 naturals + 0 wilds, 30 points"
    assert illegal.verdict == ("illegal meld of 9s under pagat: 1 natural + 2 wilds, 80 points, counted in the "
                               "round's total until it is corrected")
    assert illegal.problems == ["9S 2C JK: a meld needs at least 2 natural cards, this has 1"]
    melded = next(ln for ln in scored.score.teams["A"].breakdown if ln.item == "melded_cards")
    assert melded.points == 30 + 80 and scored.score.teams["A"].total == 30 + 80  # what the page shows as the total


@pytest.mark.parametrize("rules, clean, dirty", [("pagat", 500, 300), ("simpson", 300, 100)])
def test_a_books_verdict_and_the_scores_book_give_its_bonus_as_the_total_counts_it(rules, clean, dirty):
    """A complete book is worth its cards' points and its kind's bonus under the round's rules: its verdict says
    both (a fanned, squared, counted or wild book alike; a squared one's points a range while its wilds are
    uncounted), the score's book carries the bonus, and the round's
    total is the cards' points and the bonuses, as the breakdown has it."""
    images = [{**IMAGES[0], "piles": [pile("i0p0", "meld", ["8H", "8S", "8D", "8C", "8H", "8S", "8D"]),
                                      pile("i0p1", "meld", ["KH", "KS", "KD", "KC", "2C", "JK", "KH"]),
                                      pile("i0p2", "squared_book", ["9H"]), pile("i0p3", "squared_book", ["QS"]),
                                      pile("i0p4", "meld", ["2C", "2D", "JK", "2H", "2S", "JK", "2C"]),
                                      pile("i0p5", "squared_book", ["7D"])]}]
    images = apply_corrections(images, TypeAdapter(list[Correction]).validate_python(
        [{"op": "set_book", "pile": "i0p5", "count": 7}]))
    scored = rescore(images, {}, rules, {}, 1, None, [])
    verdicts = {p.id: p.verdict for p in scored.images[0].piles}
    assert verdicts["i0p0"] == (f"legal clean book of 8s under {rules}: 7 naturals + 0 wilds, 70 points + {clean} "
                                "for the clean book")
    assert verdicts["i0p1"].endswith(f"5 naturals + 2 wilds, 120 points + {dirty} for the dirty book")
    assert verdicts["i0p2"] == (f"squared clean book of 7 cards, as its red marker card 9H says: 70 points + {clean} "
                                f"for the clean book under {rules}")
    assert verdicts["i0p3"] == (f"squared dirty book of 7 cards, as its black marker card QS says: 80 to 150 points + "
                                f"{dirty} for the dirty book under {rules}, until its wilds are counted")
    assert verdicts["i0p4"].endswith("0 naturals + 7 wilds, 200 points + 1,500 for the wild book")
    assert verdicts["i0p5"] == (f"squared clean book of 7 cards, as its red marker card 7D says: 35 points + {clean} "
                                f"for the clean book under {rules}")  # counted: the rules' book size
    team = scored.score.teams["A"]
    bonus = {b.where: b.bonus for b in team.books}
    assert bonus == {"teams.A.melds[0]": clean, "teams.A.melds[1]": dirty, "teams.A.melds[2]": 1500,
                     "teams.A.squared_books[0]": clean, "teams.A.squared_books[1]": dirty,
                     "teams.A.squared_books[2]": clean}
    lines = {ln.item: ln.points_min for ln in team.breakdown}
    assert lines["clean_books"] + lines["dirty_books"] + lines["wild_books"] == sum(bonus.values())
    assert team.total_min == sum(b.points_min + b.bonus for b in team.books) == sum(lines.values())


@pytest.mark.parametrize("rules, on_table, in_hand", [("pagat", 100, -100), ("simpson", -500, -500)])
def test_the_piles_add_up_to_the_round_a_red_three_held_counted_with_its_cards(rules, on_table, in_hand):
    """A red three caught in a hand costs the round's red_three_in_hand: the verdict of the cards still held says it
    beside their own points, its first number their sum, so that the points of the piles (the first number of each
    verdict, as the page's pile lines show them) add up to the team's total."""
    images = [{**IMAGES[0], "piles": [pile("i0p0", "meld", ["KH", "KS", "KD"]), pile("i0p1", "red_threes", ["3D"]),
                                      pile("i0p2", "left", ["QD", "7C", "3H", "4S"]), pile("i0p3", "left", ["3D", "3H"])]}]
    scored = rescore(images, {}, rules, {}, 1, None, [])
    verdicts = {p.id: p.verdict for p in scored.images[0].piles}
    assert verdicts["i0p2"] == (f"4 cards still held: {in_hand - 20:,} points (-20 for the cards, {in_hand:+,} for the "
                                "red three held)")
    assert verdicts["i0p3"] == f"2 cards still held: {2 * in_hand:,} points for the 2 red threes held"
    piles = {"i0p0": 30, "i0p1": on_table, "i0p2": in_hand - 20, "i0p3": 2 * in_hand}
    assert scored.score.teams["A"].total == sum(piles.values())
    plain = rescore([{**IMAGES[0], "piles": [pile("i0p0", "left", ["QD", "7C"])]}], {}, rules, {}, 1, None, [])
    assert plain.images[0].piles[0].verdict == "2 cards still held: -15 points"  # no red three: as before


@pytest.mark.parametrize("op, words", [
    ({"op": "split_pile", "pile": "i0p0", "at": "i0p0.0"}, "first card"),
    ({"op": "split_pile", "pile": "i0p0", "at": "i0p1.0"}, "no card 'i0p1.0' in pile i0p0"),
    ({"op": "join_piles", "pile": "i0p0", "into": "i0p0"}, "itself"),
    ({"op": "add_card", "pile": "nope", "code": "KH"}, "no pile 'nope'"),
    ({"op": "set_book", "pile": "i0p2", "twos": 5, "jokers": 3}, "do not fit"),
    ({"op": "set_book", "pile": "i0p0", "count": 8}, "not a squared book"),
])
def test_corrections_that_cannot_be_applied(op, words):
    with pytest.raises(CorrectionError, match=words):
        fix(op)
