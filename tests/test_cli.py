import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from handfoot.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "score_sheet_round.json")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_json(capsys):
    code, out, _ = run(capsys, "score", EXAMPLE, "--json")
    data = json.loads(out)
    assert code == 0
    assert data["teams"]["A"]["total"] == 1250 and data["teams"]["B"]["total"] == 265
    assert {line["item"] for line in data["teams"]["A"]["breakdown"]} >= {"clean_books", "melded_cards"}


def test_score_text(capsys):
    code, out, _ = run(capsys, "score", EXAMPLE)
    assert code == 0 and "Team A" in out and "1,250" in out


def test_rules_override_makes_the_round_illegal(capsys):
    code, out, err = run(capsys, "score", EXAMPLE, "--rules", "pagat")
    assert code == 1 and out == ""
    assert err.startswith("handfoot: error: illegal layout under 'pagat'") and err.count("\n") == 1
    code, out, _ = run(capsys, "score", EXAMPLE, "--rules", "pagat", "--lenient")
    assert code == 0 and "too many wilds" in out


def test_house_rule_override(capsys):
    code, _, err = run(capsys, "score", EXAMPLE, "--set", "go_out_clean_books=2")
    assert code == 1 and "needs 2 clean books" in err


@pytest.mark.parametrize("content,message", [
    ('{"teams": {"A": {"melds": [["KH", "XX", "KS"]]}}}', "unknown card code 'XX'"),
    ('{"rules": "poker", "teams": {"A": {}}}', "unknown rules 'poker'"),
    ('{"teams": {"A": {"hands": []}}}', "teams.A.hands: unknown key"),
    ('{"teams": {"A": {"melds": [["JK","JK","JK","JK","JK","JK","JK"],["JK","JK","JK","JK"]]}}}', "11 jokers"),
    ('{"teams": {"A": {"melds": [["3H","3D","3S"]]}}}', "threes cannot be melded"),
    ("not json", "not valid JSON"),
    ("", "layout file is empty"),
    (" \n", "layout file is empty"),
])
def test_bad_input_is_one_line_and_non_zero(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "score", str(path))
    assert code == 1 and message in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_file(capsys):
    code, _, err = run(capsys, "score", "/nonexistent/layout.json")
    assert code == 1 and "no such file" in err


def test_rules_listing(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0 and all(n in out for n in ("pagat", "six-deck", "carousel"))
    code, out, _ = run(capsys, "rules", "carousel", "--json")
    assert json.loads(out)["opening_minimums"] == [60, 90, 120, 150]
    code, _, err = run(capsys, "rules", "nope")
    assert code == 1 and "unknown rules 'nope'" in err


def test_check_meld(capsys):
    code, out, _ = run(capsys, "check-meld", "QH QS QD JK", "--round", "3", "--rules", "pagat")
    assert code == 0 and "legal meld of queens" in out and "40 short" in out
    code, out, _ = run(capsys, "check-meld", "QH QS QD JK", "8S 8H 8D 2C", "--round", "3", "--rules",
                       "score-sheet", "--json")
    data = json.loads(out)
    assert data["opening"]["points"] == 130 and data["opening"]["meets"]
    code, out, _ = run(capsys, "check-meld", "3H 3S 3D", "--strict")
    assert code == 1 and "threes cannot be melded" in out
    code, _, err = run(capsys, "check-meld", "QH QZ")
    assert code == 1 and "'QZ'" in err


def test_opening(capsys):
    code, out, _ = run(capsys, "opening", "KH KS JK 9H 9S 9D 2C AH AD AC", "--round", "4", "--json")
    data = json.loads(out)
    assert data["points"] == 180 and data["meets"] is True


def test_game(capsys):
    code, out, _ = run(capsys, "game", EXAMPLE)
    assert code == 0 and "1,250" in out and "Next: round 2" in out


def test_console_script_module_entry():
    proc = subprocess.run([sys.executable, "-m", "handfoot", "rules"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and "pagat" in proc.stdout


def test_odds_json(capsys):
    code, out, _ = run(capsys, "odds", "--deals", "2000", "--seed", "3", "--json")
    data = json.loads(out)
    assert code == 0 and [o["minimum"] for o in data["opening"]] == [50, 90, 120, 150]
    assert set(data) >= {"wild_at_least_one", "wild_at_least_two", "wild_mean", "red_three_at_least_one",
                         "bad_up_card"}
    code, _, err = run(capsys, "odds", "--deals", "0")
    assert code == 1 and "--deals" in err


def test_scoring_a_layout_lists_its_piles_first(tmp_path, capsys):
    doc = json.loads((ROOT / "examples" / "score_sheet_round.json").read_text())
    assert main(["score", str(ROOT / "examples" / "score_sheet_round.json")]) == 0
    out = capsys.readouterr().out
    assert out.index("team A (layout)") < out.index("Round 1 under")
    # each pile named as a photo's report names it: the meld of seven kings is a clean book
    assert "  clean book             KH KS KD KC KH KS KD" in out and "  red threes             3D" in out
    assert "  dirty book             8H 8S 8D 8C 8H 2C JK" in out and "  meld                   AH AS AD AC" in out
    assert "  cards left in hand     QD 7C 4S" in out
    doc["teams"]["A"]["loose"] = ["9H"]  # an edit shows where it went
    doc["teams"]["A"]["squared_books"] = [{"top": "5H"}]
    (tmp_path / "l.json").write_text(json.dumps(doc))
    assert main(["score", str(tmp_path / "l.json"), "--lenient"]) == 0
    out = capsys.readouterr().out
    assert "  loose                          9H (not scored)" in out
    assert "  clean book (squared, 7 cards)  5H on top" in out


def test_set_takes_a_list_of_numbers_and_none(capsys):
    code, out, _ = run(capsys, "rules", "pagat", "--set", "opening_minimums=50,90", "--set", "pickup_size=none")
    assert code == 0
    assert re.search(r"opening_minimums\s+\[50, 90\]", out) and re.search(r"pickup_size\s+null", out)


def test_a_photos_card_count_says_what_its_squared_books_add():
    """A squared book shows its top card and is scored as its whole stack: the photo's line in ``handfoot score``
    gives the cards seen and the cards in all, which agree with the breakdown's melded cards and red threes."""
    from handfoot.readings import rescore
    from handfoot.reports import photo_report

    def pile(pid: str, kind: str, codes: list[str], book: dict | None = None) -> dict:
        cards = [{"id": f"{pid}.{k}", "code": c, "confidence": 0.9, "boxes": [[0, 0, 1, 1]], "center": [0, 0],
                  "size": 1.0} for k, c in enumerate(codes)]
        return {"id": pid, "team": "A", "kind": kind, "cards": cards, "box": None, "notes": [], "book": book or {}}

    piles = [pile("i0p0", "meld", ["KH", "KS", "KD"]), pile("i0p1", "red_threes", ["3H"]),
             pile("i0p2", "squared_book", ["9H"]), pile("i0p3", "squared_book", ["QS"], {"count": 8})]
    result = rescore([{"image": "t.jpg", "kind": "table", "teams": ["A"], "width": 100, "height": 100,
                       "detections": [], "piles": piles}], {}, "pagat", {}, 1, None, [])
    first = photo_report(result).splitlines()[0]
    assert first == ("team A (t.jpg): 6 cards seen, in 4 piles; 19 in all, as the squared books under 9H and QS count "
                     "as their 7 and 8 cards (only their top cards show)")
    team = result.score.teams["A"]
    counts = {ln.item: ln.count for ln in team.breakdown}
    assert counts["melded_cards"] + counts["red_threes_on_table"] == 19
    one = rescore([{"image": "t.jpg", "kind": "table", "teams": ["A"], "width": 100, "height": 100,
                    "detections": [], "piles": piles[:3]}], {}, "pagat", {}, 1, None, [])
    assert photo_report(one).splitlines()[0].endswith("; 11 in all, as the squared book under 9H counts as its 7 "
                                                        "cards (only its top card shows)")


def _rounds(tmp_path, n: int) -> list[str]:
    """``n`` layout files, rounds 1 to n, each the example round (A 1,250, B 265 under score-sheet)."""
    doc = json.loads(Path(EXAMPLE).read_text())
    paths = []
    for k in range(1, n + 1):
        paths.append(str(tmp_path / f"r{k}.json"))
        Path(paths[-1]).write_text(json.dumps({**doc, "round": k}))
    return paths


def test_game_shows_each_rounds_points_and_the_total_after_it(tmp_path, capsys):
    """A round's row says the round's points and the running total apart (a total read as the round's score
    misled a new user)."""
    code, out, _ = run(capsys, "game", *_rounds(tmp_path, 3))
    lines = out.splitlines()
    assert code == 0 and lines[0] == ("Game under 'score-sheet' (points: the round's score; total: the running total "
                                      "after it)")
    assert lines[1].split() == ["Round", "Minimum", "A", "points", "A", "total", "B", "points", "B", "total"]
    assert lines[4].split() == ["3", "120", "1,250", "3,750", "265", "795"]
    assert lines[5] == "Next: round 4, opening minimum 150; leading: team A"


def test_game_writes_the_csv_the_page_exports(tmp_path, capsys):
    """--csv FILE writes the page's Export CSV (a byte-order mark for Excel, the winner once over); --csv - prints
    it alone, without the mark; a file that cannot be written is one line before any scoring."""
    rounds = _rounds(tmp_path, 4)
    code, out, _ = run(capsys, "game", *rounds, "--csv", "-")
    assert code == 0 and out.splitlines() == ["round,minimum,A points,B points,A total,B total",
                                              "1,50,1250,265,1250,265", "2,90,1250,265,2500,530",
                                              "3,120,1250,265,3750,795", "4,150,1250,265,5000,1060", "winner,A"]
    code, shown, err = run(capsys, "game", *rounds, "--csv", str(tmp_path / "game.csv"))
    assert code == 0 and shown.endswith(f"Winner: team A\n\nCSV saved: {tmp_path / 'game.csv'}\n") and not err
    assert (tmp_path / "game.csv").read_text(encoding="utf-8") == "\ufeff" + out
    code, shown, err = run(capsys, "game", *rounds[:2], "--json", "--csv", str(tmp_path / "two.csv"))
    assert code == 0 and json.loads(shown)["next_minimum"] == 120 and err == f"CSV saved: {tmp_path / 'two.csv'}\n"
    assert (tmp_path / "two.csv").read_text(encoding="utf-8").splitlines()[-1] == "2,90,1250,265,2500,530"
    for args, words in [(["--csv", "-", "--json"], "--csv - prints the CSV where --json prints its JSON"),
                        (["--csv", str(tmp_path / "no" / "g.csv")], f"no such folder {tmp_path / 'no'}"),
                        (["--csv", str(tmp_path)], f"a folder; give the CSV file's name, e.g. {tmp_path}/game.csv")]:
        code, shown, err = run(capsys, "game", *rounds, *args)
        assert code == 1 and not shown and words in err and err.count("\n") == 1 and "Traceback" not in err
