"""A round typed in on the page, with no photo, end to end: a real ``handfoot serve`` (127.0.0.1, a temporary
ledger) driven by headless Chromium (Debian's chromium + chromium-driver, through selenium).

- From the round page (a photo with no card found leads there too; two bad photos, one too large, are each named
  with its own reason), "Type the cards instead": each team's melds, squared book, red threes and cards held are
  typed; the score shows as they are typed and equals the rules engine's score of the same layout; the rules'
  problems (a team went out without its books) are asked about before Save stores it, once: not again on a later
  Save or correction with the same problems.
- A wrong card code is named with its team and line, its field marked, and nothing is stored; several (the server
  names three, and how many more) each so, never by the layout's path.
- Another phone saving a round while the form is open: Save stores nothing and says which round it will be; Save
  again stores it as that round.
- The score typed is said to a screen reader once typing pauses, not at each change on the way.
- A typed round is corrected from the game page's "Correct round N" (the form filled with it) and scored again;
  Cancel asks first ("Leave without saving" or "Keep correcting"). Each save is confirmed ("Round 2 saved").

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os
import time

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
pytest.importorskip("selenium")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
from conftest import once  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from test_page_e2e import browser, console_errors, running, shots_dir, text_of, value_of, viewport  # noqa: E402,F401

US = {"melds": [["KH", "KS", "KD", "KC", "KH", "KS", "KD"], ["8H", "8S", "8D"]], "squared_books": [{"top": "QH"}],
      "red_threes": ["3H"]}
THEM = {"melds": [["9S", "9H", "2C"]], "left": [["QD", "7C", "4S"]]}


def expected(teams: dict, went_out: str | None) -> dict[str, str]:
    """Each team's round score as the page writes it (1,234), by the rules engine itself."""
    from scorer.layout import TableLayout
    from scorer.scoring import score_round

    score = score_round(TableLayout.from_dict({"rules": "pagat", "round": 1, "went_out": went_out, "teams": teams}),
                        lenient=True)
    return {t: f"{s.total:,}" for t, s in score.teams.items()}


@pytest.fixture()
def server(tmp_path):
    """``handfoot serve`` in a process of its own on 127.0.0.1 with a temporary ledger; killed when the test ends."""
    with running(tmp_path) as url:
        yield url


def save_anyway(d, wait) -> None:
    """Press Save; the sheet asks about the rules' problems: answer Save anyway."""
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert "went out but needs" in text_of(d, "#sheet-body")
    d.find_element(By.ID, "confirm-yes").click()


def save_unasked(d, wait) -> None:
    """Press Save: nothing is asked (its problems were answered "Save anyway" before); the round is saved."""
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: d.execute_script("return document.getElementById('sheet').open || !location.hash.includes('/type')"))
    assert not d.execute_script("return document.getElementById('sheet').open"), text_of(d, "#sheet-body")


def typing_a_one_round_game(server: str, d) -> tuple[dict, str]:
    """A game of Us and Them of one round, made through the API, its typed round open on the phone: (its body, id)."""
    viewport(d, 390, 844)
    made = {"rules": "pagat", "teams": ["Us", "Them"], "house_rules": {"opening_minimums": [50]}}
    game = httpx.post(f"{server}/v1/games", json=made, headers=once()).json()["id"]
    d.get(f"{server}/#/game/{game}/type")
    return made, game


def typed(d, field: str, team: int, text: str) -> None:
    box = d.find_element(By.ID, f"{field}-{team}")
    box.clear()
    box.send_keys(text)


def test_a_round_typed_in_is_scored_saved_and_corrected(server, browser, tmp_path):
    shots = shots_dir(tmp_path)
    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    d.get(f"{server}/#/game/{game}/round")
    assert wait.until(lambda d: d.find_elements(By.ID, "type-round")).pop().text == "Type the cards instead"
    # a photo the camera finds no card in: the error says so and leads to typing the round
    import cv2
    import numpy as np

    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    # a photo too large beside it: each named at once, with its own reason
    big = tmp_path / "big.jpg"
    big.write_bytes(b"\xff\xd8\xff" + b"\0" * (27 * 1024 * 1024))
    d.find_element(By.ID, "table-0").send_keys(str(big))
    d.find_element(By.ID, "table-1").send_keys(str(blank))
    d.find_element(By.ID, "read-cards").click()
    wait.until(lambda d: d.find_elements(By.ID, "photo-errors"))
    assert text_of(d, "#photo-errors p") == "2 photos cannot be read:"
    said = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#photo-errors li")]
    assert said[0] == "big.jpg: file too large (28.3 MB; at most 26 MB a photo)", said
    assert said[1].startswith("blank.png (team Them): no cards found"), said
    d.execute_script("document.getElementById('photo-errors').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots / "round_two_bad_photos_390.png"))
    d.refresh()  # the form empty again
    wait.until(lambda d: d.find_elements(By.ID, "table-0") and not d.find_elements(By.ID, "photo-errors"))
    d.find_element(By.ID, "table-0").send_keys(str(blank))
    d.find_element(By.ID, "read-cards").click()
    wait.until(lambda d: "no cards found" in (text_of(d, ".status") or ""))
    assert "big.jpg" not in text_of(d, ".status")
    d.find_element(By.CSS_SELECTOR, ".status a").click()
    wait.until(lambda d: d.find_elements(By.ID, "melds-0"))
    assert text_of(d, "#typed-heading") == "Type round 1"

    # a wrong code: named with its team and line, the field marked; Save stores nothing
    typed(d, "melds", 0, "KH KS KD KC KH KS KD\n8H 8X 8D")
    wait.until(lambda d: "Us, melds and fanned books, line 2: unknown card code '8X'" in (text_of(d, ".field-error") or ""))
    assert "marked in red" in text_of(d, "#typed-score")
    assert d.find_element(By.ID, "melds-0").get_attribute("aria-invalid") == "true"
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: "Not saved: a card above is not a card code" in (text_of(d, ".status") or ""))
    assert text_of(d, "form").count("unknown card code") == 1  # said once, beside its field
    assert httpx.get(f"{server}/v1/games/{game}").json()["rounds"] == []
    # several wrong codes (the server names three, and how many more): each with its team, box and line as the
    # page names them (a blank line is a line), none by the layout's path; each box marked; the explanation said
    # once a box
    typed(d, "melds", 0, "KH KS KD")
    typed(d, "melds", 1, "9S 9H 2C\n\n8H 8S 8D\nQX 5H 1H")
    typed(d, "left", 1, "XX 5H YY")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".field-error")) == 2)
    said = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".field-error")]
    assert said[0] == ("Them, melds and fanned books, line 4: unknown card codes 'QX' and '1H': expected a rank (A, "
                       "2-10, J, Q, K; T for 10) and a suit (S, H, D, C), or JK / RJ / BJ for a joker"), said
    assert said[1].startswith("Them, cards still held: unknown card code 'XX': expected a rank"), said
    assert said[1].endswith("for a joker (and 1 more problem, named once these are put right)"), said
    assert "teams." not in text_of(d, "form") and "marked in red" in text_of(d, "#typed-score")
    assert [d.find_element(By.ID, f"{f}-1").get_attribute("aria-invalid") for f in ("melds", "left")] == ["true", "true"]
    d.execute_script("document.querySelector('.field-error').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots / "typed_wrong_codes_390.png"))
    for field in ("melds", "left"):
        typed(d, field, 1, "")

    # the round typed right: scored as typed, as the rules engine scores it
    typed(d, "melds", 0, "kh ks kd kc kh ks kd\n8H 8S 8D")
    typed(d, "squared_books", 0, "QH")
    typed(d, "red_threes", 0, "3H")
    typed(d, "melds", 1, "9S 9H 2C")
    typed(d, "left", 1, "QD, 7C, 4S")
    Select(d.find_element(By.ID, "typed-went-out")).select_by_value("Us")
    want = expected({"Us": US, "Them": THEM}, "Us")
    wait.until(lambda d: text_of(d, "#typed-score [data-points=Us]") == want["Us"])
    assert text_of(d, "#typed-score [data-points=Them]") == want["Them"]
    assert d.find_element(By.ID, "melds-0").get_attribute("aria-invalid") is None
    assert text_of(d, ".status") == ""  # the error of the earlier Save went with the typo
    assert "null" not in text_of(d, "#typed-score") and "2 rule problems:" in text_of(d, "#typed-score")
    d.save_screenshot(str(shots / "page_typed_390.png"))
    d.execute_script("document.querySelector('#typed-score .problem').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots / "page_typed_problems_390.png"))
    d.execute_script("window.scrollTo(0, 0)")
    d.save_screenshot(str(shots / "page_typed_top_390.png"))

    # another phone saves round 1 meanwhile: nothing stored from here, and it says which round this will be
    other = {"went_out": None, "teams": {"Them": {"melds": [["6H", "6S", "6D"]]}}}
    assert httpx.post(f"{server}/v1/games/{game}/rounds", json=other, headers=once()).status_code == 201
    save_anyway(d, wait)
    wait.until(lambda d: "save this as round 2" in (text_of(d, ".status") or ""))
    assert "another phone saved round 1 (Us 0, Them 15)" in text_of(d, ".status")
    assert "Round 2 · opening minimum 90" in text_of(d, "#typed-intro")
    assert len(httpx.get(f"{server}/v1/games/{game}").json()["rounds"]) == 1
    assert d.find_element(By.ID, "save-typed").text == "Save round 2"
    save_unasked(d, wait)  # its problems were answered "Save anyway" once: not asked again
    wait.until(lambda d: d.current_url.endswith(f"#/game/{game}") and d.find_elements(By.CSS_SELECTOR, "tr.round"))
    assert text_of(d, "#toast") == "Round 2 saved"  # as a round from a photo is confirmed
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert [r["n"] for r in rounds] == [1, 2]
    assert rounds[1]["layout"]["teams"]["Us"]["melds"] == US["melds"]
    assert rounds[1]["score"]["teams"]["Us"]["total"] == int(want["Us"].replace(",", ""))

    # round 2 corrected from the game page: the form holds it; Them held no cards after all
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2)
    d.save_screenshot(str(shots / "page_game_typed_390.png"))
    # Another phone, on a server that listens on this computer only: said plainly
    d.find_element(By.ID, "invite").click()
    wait.until(lambda d: "handfoot listens on this computer only" in (text_of(d, "#invite-reason") or ""))
    d.find_element(By.CSS_SELECTOR, "#sheet-body button").click()
    d.find_elements(By.CSS_SELECTOR, "tr.round")[1].click()
    wait.until(lambda d: d.find_elements(By.LINK_TEXT, "Correct round 2")).pop().click()
    wait.until(lambda d: text_of(d, "#typed-heading") == "Correct round 2")
    assert d.find_element(By.ID, "melds-0").get_attribute("value") == "KH KS KD KC KH KS KD\n8H 8S 8D"
    assert d.find_element(By.ID, "left-1").get_attribute("value") == "QD 7C 4S"
    d.find_element(By.ID, "left-1").clear()
    want = expected({"Us": US, "Them": {"melds": THEM["melds"]}}, "Us")
    wait.until(lambda d: text_of(d, "#typed-score [data-points=Them]") == want["Them"])
    # Cancel asks first, each answer saying what it does; "Keep correcting" keeps what is typed
    d.find_element(By.CSS_SELECTOR, ".sticky-actions a.button").click()
    wait.until(lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert text_of(d, "#sheet-title") == "Leave without saving?"
    answers = d.find_elements(By.CSS_SELECTOR, "#sheet-body button")
    assert [b.text for b in answers] == ["Leave without saving", "Keep correcting"]
    assert d.execute_script("return document.activeElement.textContent") == "Keep correcting"  # the safe choice first
    answers[1].click()
    wait.until(lambda d: not d.execute_script("return document.getElementById('sheet').open"))
    assert d.current_url.endswith("/type/2") and d.find_element(By.ID, "left-1").get_attribute("value") == ""
    save_unasked(d, wait)  # the round was saved anyway with the same problem: not asked again
    wait.until(lambda d: d.current_url.endswith(f"#/game/{game}"))
    assert text_of(d, "#toast") == "Round 2 corrected"
    wait.until(lambda d: httpx.get(f"{server}/v1/games/{game}").json()["rounds"][1]["score"]["teams"]["Them"]["total"]
               == int(want["Them"].replace(",", "")))
    assert len(httpx.get(f"{server}/v1/games/{game}").json()["rounds"]) == 2
    # the browser logs each refused request (the wrong code's 422, the stale save's 412); nothing else
    assert [e for e in console_errors(d) if "(Unprocessable Entity)" not in e and "(Precondition Failed)" not in e
            and "/v1/photos - " not in e] == []


def test_a_finished_game_is_played_again_with_the_same_teams(server, browser):
    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    made = {"rules": "pagat", "teams": ["Us", "Them"], "names": {"Us": ["Ann", "Bob"]},
            "house_rules": {"opening_minimums": [50]}}  # a game of one round
    game = httpx.post(f"{server}/v1/games", json=made, headers=once()).json()["id"]
    d.get(f"{server}/#/game/{game}/type")
    wait.until(lambda d: d.find_elements(By.ID, "melds-0"))
    typed(d, "melds", 0, "KH KS KD")
    typed(d, "melds", 1, "4S 4H 4D")
    wait.until(lambda d: text_of(d, "#typed-score [data-points=Them]") == expected(
        {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["4S", "4H", "4D"]]}}, None)["Them"])
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: "The game is over: Us won." in (text_of(d, "main") or ""))
    d.find_element(By.ID, "play-again").click()
    # the new-game form, filled as that game was: anything may change before Start
    wait.until(lambda d: d.find_elements(By.ID, "house-opening_minimums"))
    assert d.find_element(By.ID, "team-1").get_attribute("value") == "Us"
    assert d.find_element(By.ID, "players-1").get_attribute("value") == "Ann, Bob"
    assert d.find_element(By.ID, "house-opening_minimums").get_attribute("value") == "50"
    assert httpx.get(f"{server}/v1/games").json()[1:] == []  # nothing made yet
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: game not in d.current_url and "/new" not in d.current_url and d.find_elements(By.ID, "score-round"))
    games = httpx.get(f"{server}/v1/games").json()
    assert len(games) == 2
    again = httpx.get(f"{server}/v1/games/{d.current_url.rsplit('/', 1)[1]}").json()
    assert (again["rules"], again["teams"], again["names"], again["house_rules"], again["rounds"]) == (
        "pagat", ["Us", "Them"], {"Us": ["Ann", "Bob"]}, {"opening_minimums": [50]}, [])
    assert "Us vs Them" in text_of(d, "h1")
    assert console_errors(d) == []


def test_an_uncounted_squared_book_is_asked_about_and_named_when_the_game_ends(server, browser, tmp_path):
    """The last round saved with squared books' wilds uncounted: Save's question says the winner depends on them;
    the ended game's page says so, naming each team's book and its round, and shows no winner. Once a team wins
    whatever they come to, the page names it and says the final totals stay a range until they are counted."""
    d, wait = browser, WebDriverWait(browser, 30)
    _, game = typing_a_one_round_game(server, d)
    wait.until(lambda d: d.find_elements(By.ID, "squared_books-0"))
    typed(d, "squared_books", 0, "9S")  # a black marker: a dirty book, its wilds uncounted; so no winner is sure
    typed(d, "squared_books", 1, "8S")
    wait.until(lambda d: " to " in (text_of(d, "#typed-score [data-points=Us]") or ""))
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert "until the wilds under its squared book are counted" in text_of(d, "#sheet-body")
    assert text_of(d, "#sheet-body").count("This is the last round: who wins depends on those wilds.") == 1
    d.save_screenshot(str(shots_dir(tmp_path) / "typed-last-round-range-asked-390.png"))
    d.find_element(By.ID, "confirm-yes").click()
    wait.until(lambda d: "who won depends on wilds still to count" in (text_of(d, ".winner") or ""))
    # a short bold headline; which books, in plain text under it
    assert text_of(d, ".winner") == "The game is over: who won depends on wilds still to count."
    said = text_of(d, "#over-note")
    assert said.startswith("Still to count: round 1, Us's squared dirty book of 9s under 9♠ (80 to 150 points); "), said
    assert "round 1, Them's squared dirty book of 8s under 8♠ (80 to 150 points) (tap the round" in said and " won." not in said
    assert " to " in text_of(d, "tr.round small")  # the running total is a range too, not its low end
    d.save_screenshot(str(shots_dir(tmp_path) / "ended-game-winner-waits-on-wilds-390.png"))

    # corrected so that Us win whatever the wilds come to: the winner said, the range still named
    us = {"melds": US["melds"], "squared_books": [{"top": "9S"}]}
    etag = httpx.get(f"{server}/v1/games/{game}").headers["etag"]
    assert httpx.put(f"{server}/v1/games/{game}/rounds/1", json={"teams": {"Us": us}},
                     headers={"If-Match": etag}).status_code == 200
    d.refresh()
    wait.until(lambda d: text_of(d, ".winner") == "The game is over: Us won.")
    assert ("That holds whatever the wilds still to count come to, but the final totals stay a range until they are "
            "counted: round 1, Us's squared dirty book of 9s under 9♠ (") in text_of(d, "#over-note")
    # the headline is one or two lines of large type, the note under it plain: the rounds follow within the screen
    assert d.execute_script("return document.querySelector('.winner').getBoundingClientRect().height") < 80
    assert d.execute_script("return getComputedStyle(document.getElementById('over-note')).fontWeight") == "400"
    d.save_screenshot(str(shots_dir(tmp_path) / "ended-game-won-with-a-range-390.png"))
    assert all("(Unprocessable Entity)" not in e for e in console_errors(d))


def test_a_squared_books_range_is_a_note_not_a_rule_problem(server, browser, tmp_path):
    """A two-card meld and a squared book of aces typed by its top card: the page counts one rule problem (the meld),
    as Save's question does, and says the book's range as a note under it."""
    d, wait = browser, WebDriverWait(browser, 30)
    typing_a_one_round_game(server, d)
    wait.until(lambda d: d.find_elements(By.ID, "melds-1"))
    typed(d, "melds", 1, "QH QS")
    typed(d, "squared_books", 1, "AS")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#typed-score .rule-note"))
    assert text_of(d, "#typed-score .problem") == "1 rule problem: Them: Q♥ Q♠: a meld needs at least 3 cards, this has 2"
    assert text_of(d, "#typed-score .rule-note") == ("Note: Them: squared dirty book of aces: its cards are worth 140 "
                                                     "to 200 points until its wilds are counted")
    d.execute_script("document.querySelector('#typed-score .rule-problems').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots_dir(tmp_path) / "typed-problem-and-note-390.png"))
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert text_of(d, "#sheet-title") == "The rules see 1 problem"


def test_a_shorter_game_is_made_on_the_page(server, browser, tmp_path):
    """House rules' lists and choices on the new-game page: the rounds (one opening minimum each, said plainly) and
    what a complete book may grow by; a wrong number named beside its field. The preset's line says the books it needs
    to go out; each players' field names its team to a screen reader."""
    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    wait.until(lambda d: d.find_elements(By.ID, "house-opening_minimums"))
    # the preset's line says what going out needs; each team's players' field says whose players they are
    assert text_of(d, "#rules-title").endswith("; two clean, two dirty and one wild book to go out")
    Select(d.find_element(By.ID, "rules")).select_by_value("score-sheet")
    wait.until(lambda d: (text_of(d, "#rules-title") or "").endswith("; one clean and one dirty book to go out"))
    Select(d.find_element(By.ID, "rules")).select_by_value("pagat")
    wait.until(lambda d: value_of(d, "house-opening_minimums") == "50, 90, 120, 150")
    assert [d.find_element(By.ID, f"players-{k}").accessible_name for k in (1, 2)] == [
        "Players of Us (optional)", "Players of Them (optional)"]
    team = d.find_element(By.ID, "team-2")
    team.clear()
    team.send_keys("Kids")
    assert d.find_element(By.ID, "players-2").accessible_name == "Players of Kids (optional)"
    summary = d.find_element(By.CSS_SELECTOR, "details summary")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)  # above the sticky Start bar
    summary.click()
    rounds = d.find_element(By.ID, "house-opening_minimums")
    assert rounds.get_attribute("value") == "50, 90, 120, 150"
    assert rounds.accessible_name == ("One opening minimum per round, separated by commas: three numbers make a "
                                      "three-round game")  # plain words, not the rules engine's
    rounds.clear()
    rounds.send_keys("50, 9O")
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: "whole numbers from 0 to 10,000" in (text_of(d, "#house-error") or ""))
    assert text_of(d, "#house-error") == "Opening minimums: whole numbers from 0 to 10,000"
    d.execute_script("document.getElementById('house-error').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots_dir(tmp_path) / "new_game_rounds_390.png"))
    assert rounds.get_attribute("aria-invalid") == "true"
    assert httpx.get(f"{server}/v1/games").json() == []
    rounds.clear()
    rounds.send_keys("50 90")
    Select(d.find_element(By.ID, "house-book_growth")).select_by_value("any")
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: "opening minimums 50, 90" in (text_of(d, "main") or ""))
    [made] = httpx.get(f"{server}/v1/games").json()
    game = httpx.get(f"{server}/v1/games/{made['id']}").json()
    assert game["house_rules"] == {"opening_minimums": [50, 90], "book_growth": "any"}
    assert game["teams"] == ["Us", "Kids"]
    assert "Next: round 1 of 2, opening minimum 50" in text_of(d, "main")


def test_the_same_last_round_typed_on_two_phones_and_the_next_game_started_on_both(server, browser):
    """The other phone saves the last round first: this one is told, its totals shown, and may put its own in place;
    the next game of these teams started on the other phone is told here rather than made twice."""
    d, wait = browser, WebDriverWait(browser, 30)
    made, game = typing_a_one_round_game(server, d)
    wait.until(lambda d: d.find_elements(By.ID, "melds-0"))
    typed(d, "melds", 0, "KH KS KD KC")
    wait.until(lambda d: text_of(d, "#said") == "Round 1 now: Us 40, Them 0.")  # said once typing pauses
    # said to a screen reader once typing pauses for a second, not at each change of the score on the way
    d.execute_script("""window.heard = []; window.typedAt = 0;
      new MutationObserver(() => heard.push([Date.now(), document.getElementById('said').textContent]))
        .observe(document.getElementById('said'), {childList: true, characterData: true, subtree: true});
      document.addEventListener('input', () => { typedAt = Date.now(); });""")
    box = d.find_element(By.ID, "melds-1")
    for keys in ("4S", " 4H", " 4D"):  # each scored (a pause over the 350 ms before scoring), none said yet
        box.send_keys(keys)
        time.sleep(0.6)
    wait.until(lambda d: d.execute_script("return heard.length"))
    heard, typed_at = d.execute_script("return [heard, typedAt]")
    assert [t for _, t in heard] == ["Round 1 now: Us 40, Them 15."] and heard[0][0] - typed_at >= 1000, (heard, typed_at)
    wait.until(lambda d: text_of(d, "#typed-score [data-points=Us]") == "40")
    theirs = {"went_out": None, "teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["4S", "4H", "4D"]]}}}
    # a typo: one king short
    assert httpx.post(f"{server}/v1/games/{game}/rounds", json=theirs, headers=once()).status_code == 201
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: "the game ended with it" in (text_of(d, ".status") or ""))
    assert "another phone saved round 1 (Us 30, Them 15)" in text_of(d, ".status")
    d.find_element(By.ID, "put-mine").click()
    wait.until(lambda d: d.current_url.endswith(f"#/game/{game}"))
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert len(rounds) == 1 and rounds[0]["layout"]["teams"]["Us"]["melds"] == [["KH", "KS", "KD", "KC"]]

    # the next game: the other phone started it first, set otherwise (its teams swapped): told, not made twice
    wait.until(lambda d: d.find_elements(By.ID, "play-again")).pop().click()
    wait.until(lambda d: d.find_elements(By.ID, "house-opening_minimums"))
    other = httpx.post(f"{server}/v1/games", json={**made, "teams": ["Them", "Us"]},
                       headers={"Idempotency-Key": f"next-{game}"})
    assert other.status_code == 201
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: "Another phone has already started the next game" in (text_of(d, "form .error-box") or ""))
    assert len(httpx.get(f"{server}/v1/games").json()) == 2


def test_a_long_team_name_is_told_not_cut(server, browser, tmp_path):
    """A team name over the server's limit, pasted into the new-game form, is kept whole and marked, with its length
    and the limit beside it; Start makes nothing until it is shortened."""
    from handfoot.limits import TEAM_NAME_MAX

    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    wait.until(lambda d: d.find_elements(By.ID, "team-1"))
    assert f"at most {TEAM_NAME_MAX} characters, no comma or colon" in text_of(d, "label[for=team-1]")
    long = "The Grandparents from Across the Street"  # 39 characters: fits
    typed(d, "team", 1, long + " and Aunt Jo")  # 51
    assert d.find_element(By.ID, "team-1").get_attribute("value") == long + " and Aunt Jo"  # not cut
    wait.until(lambda d: "Team 1's name has 51 characters: a team name has at most 40" in (text_of(d, "#team-1-bad") or ""))
    assert d.find_element(By.ID, "team-1").get_attribute("aria-invalid") == "true"
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert d.switch_to.active_element.get_attribute("id") == "team-1"
    d.save_screenshot(str(shots_dir(tmp_path) / "new-game-long-team-name-390.png"))
    assert httpx.get(f"{server}/v1/games").json() == []
    typed(d, "team", 1, long)
    wait.until(lambda d: not d.find_elements(By.ID, "team-1-bad"))
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: d.find_elements(By.ID, "score-round"))
    assert httpx.get(f"{server}/v1/games").json()[0]["teams"] == [long, "Them"]
    assert console_errors(d) == []


def test_a_team_name_typed_over_the_stock_name_replaces_it(server, browser, tmp_path):
    """The new-game form's "Us" and "Them" are selected as their field is tapped, so a name typed there replaces
    them ("Parents", not "UsParents"); a second tap puts the caret in the name; a stock name left as it is starts
    the game with it."""
    from selenium.webdriver.common.action_chains import ActionChains

    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    first = wait.until(lambda d: d.find_elements(By.ID, "team-1")).pop()
    assert first.get_attribute("value") == "Us"
    first.click()
    assert d.execute_script("const i = document.activeElement; return [i.selectionStart, i.selectionEnd]") == [0, 2]
    d.save_screenshot(str(shots_dir(tmp_path) / "new-game-stock-name-selected-390.png"))
    ActionChains(d).send_keys("Parents").perform()
    assert first.get_attribute("value") == "Parents"
    d.find_element(By.ID, "team-2").click()
    d.find_element(By.ID, "team-2").click()  # a second tap: the caret, to change the name rather than replace it
    assert d.execute_script("const i = document.activeElement; return i.selectionStart === i.selectionEnd")
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: d.find_elements(By.ID, "score-round"))
    assert httpx.get(f"{server}/v1/games").json()[0]["teams"] == ["Parents", "Them"]
    assert console_errors(d) == []


def test_a_team_name_with_a_comma_or_only_spaces_is_said_plainly_at_its_field(server, browser, tmp_path):
    """"Mom, Dad" is told as it is typed, under its field, with what to write instead; a name of spaces alone is
    told on Start, naming its team, its field marked, focused and scrolled into view (from the bottom of the form);
    each message goes once the name is fixed, and the game starts with the names as fixed."""
    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    wait.until(lambda d: d.find_elements(By.ID, "team-2"))
    typed(d, "team", 2, "Mom, Dad")
    wait.until(lambda d: d.find_elements(By.ID, "team-2-bad"))
    assert text_of(d, "#team-2-bad") == "Team 2's name can't contain a comma or colon (use 'Mom & Dad')."
    assert d.find_element(By.ID, "team-2").get_attribute("aria-invalid") == "true"
    d.save_screenshot(str(shots_dir(tmp_path) / "new-game-team-name-comma-390.png"))
    typed(d, "team", 1, "   ")
    assert not d.find_elements(By.ID, "team-1-bad")  # a field being retyped is not told off
    d.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: d.find_elements(By.ID, "team-1-bad"))
    assert text_of(d, "#team-1-bad") == "Team 1 needs a name (spaces alone are not one)."
    assert d.switch_to.active_element.get_attribute("id") == "team-1"
    assert d.execute_script("const r = document.getElementById('team-1').getBoundingClientRect();"
                            "return r.top >= 0 && r.bottom <= innerHeight")
    assert d.find_elements(By.ID, "team-2-bad")  # both fields marked at once
    d.save_screenshot(str(shots_dir(tmp_path) / "new-game-team-name-spaces-390.png"))
    assert httpx.get(f"{server}/v1/games").json() == []
    typed(d, "team", 1, "Kids")
    typed(d, "team", 2, "Mom & Dad")
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[id$='-bad']"))
    assert [d.find_element(By.ID, f"team-{k}").get_attribute("aria-invalid") for k in (1, 2)] == [None, None]
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: d.find_elements(By.ID, "score-round"))
    assert httpx.get(f"{server}/v1/games").json()[0]["teams"] == ["Kids", "Mom & Dad"]
    assert console_errors(d) == []


def test_two_bad_photos_of_a_round_are_both_named_at_once(server, browser, tmp_path):
    """A round from two photos, neither readable (one not an image, one without cards, its file name a long word):
    both errors show at once, each naming its file, the long name wrapped inside the phone's width, with the ways
    past a photo with no cards: typing the round instead, or the game's panel that teaches the deck."""
    import cv2
    import numpy as np

    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    notes, blank = tmp_path / "notes.jpg", tmp_path / "IMG_7702_JPG.rf.70cf117fb6a90667b5b55ca4d1e2f3a4b5c6d7e8.png"
    notes.write_bytes(b"hello there")
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    d.get(f"{server}/#/game/{game}/round")
    wait.until(lambda d: d.find_elements(By.ID, "table-1"))
    d.find_element(By.ID, "table-0").send_keys(str(notes))
    d.find_element(By.ID, "table-1").send_keys(str(blank))
    d.find_element(By.ID, "read-cards").click()
    wait.until(lambda d: d.find_elements(By.ID, "photo-errors"))
    said = d.find_elements(By.CSS_SELECTOR, "#photo-errors li")
    assert text_of(d, "#photo-errors p") == "2 photos cannot be read:"
    assert [li.text.split(":")[0] for li in said] == ["notes.jpg", f"{blank.name} (team Them)"]
    assert "not an image file" in said[0].text and "no cards found" in said[1].text
    assert d.find_element(By.LINK_TEXT, "type the cards instead")
    assert d.execute_script("return document.documentElement.scrollWidth") == 390  # nothing wider than the phone
    d.save_screenshot(str(shots_dir(tmp_path) / "round-two-bad-photos-390.png"))
    assert all("status of 422" in e for e in console_errors(d))
    # the deck taught: the game's panel for it, in view, though the game has no photo round yet
    d.find_element(By.ID, "teach-deck").click()
    wait.until(lambda d: d.find_elements(By.ID, "teach") and d.current_url.endswith(f"#/game/{game}/teach"))
    wait.until(lambda d: d.execute_script("const r = document.getElementById('teach').getBoundingClientRect();"
                                          "return r.top < innerHeight && r.bottom > 0"))
    assert text_of(d, "#teach h2") == "Teach handfoot your deck"


def test_too_many_cards_typed_names_the_box_and_the_limit(server, browser, tmp_path):
    """More cards typed than a round takes (in a five-deck game): the box holding the most is marked and named
    with its team, the count and the limit, without a deck count that is not the game's; Save stores nothing."""
    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    made = {"rules": "pagat", "teams": ["Us", "Them"], "house_rules": {"decks": 5}}
    game = httpx.post(f"{server}/v1/games", json=made, headers=once()).json()["id"]
    d.get(f"{server}/#/game/{game}/type")
    wait.until(lambda d: d.find_elements(By.ID, "melds-1"))
    for box, text in (("melds-0", "2H " * 666), ("melds-1", "4S " * 400)):  # each within its box's 2,000 characters
        d.execute_script("const el = document.getElementById(arguments[0]); el.value = arguments[1];"
                         "el.dispatchEvent(new Event('input', {bubbles: true}));", box, text.strip())
    said = "Us, melds and fanned books: 666 cards (1,066 in all): a round's layout may hold at most 1,000 cards"
    wait.until(lambda d: said in (text_of(d, ".field-error") or ""))
    assert d.find_element(By.ID, "melds-0").get_attribute("aria-invalid") == "true"
    assert d.find_element(By.ID, "melds-1").get_attribute("aria-invalid") is None
    assert "The score shows once the box marked in red holds fewer cards." in text_of(d, "#typed-score")
    assert "decks hold" not in text_of(d, "main")
    d.find_element(By.ID, "save-typed").click()
    wait.until(lambda d: f"Not saved: {said}" in (text_of(d, ".status") or ""))
    d.save_screenshot(str(shots_dir(tmp_path) / "typed-too-many-cards-390.png"))
    assert httpx.get(f"{server}/v1/games/{game}").json()["rounds"] == []
    assert all("status of 413" in e for e in console_errors(d))  # the refused requests only


def test_a_team_named_twice_marks_both_names(server, browser, tmp_path):
    """Two teams named alike, case aside (as the server compares them): Start marks both fields, says under the
    second which team has the name, focuses it and makes no game; a name of its own takes the marks off."""
    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    wait.until(lambda d: d.find_elements(By.ID, "team-2"))
    typed(d, "team", 1, "Smiths")
    typed(d, "team", 2, "smiths")
    d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait.until(lambda d: d.find_elements(By.ID, "team-2-twice"))
    assert text_of(d, "#team-2-twice") == "Team 1 is named Smiths already: give each team a name of its own."
    assert [d.find_element(By.ID, f"team-{k}").get_attribute("aria-invalid") for k in (1, 2)] == ["true", "true"]
    assert d.switch_to.active_element.get_attribute("id") == "team-2"
    d.save_screenshot(str(shots_dir(tmp_path) / "new-game-team-named-twice-390.png"))
    assert httpx.get(f"{server}/v1/games").json() == []
    typed(d, "team", 2, "Joneses")
    wait.until(lambda d: not d.find_elements(By.ID, "team-2-twice"))
    assert [d.find_element(By.ID, f"team-{k}").get_attribute("aria-invalid") for k in (1, 2)] == [None, None]
    assert console_errors(d) == []


def test_the_team_buttons_say_why_they_cannot_be_used(server, browser, tmp_path):
    """With two teams, Remove the last team is disabled and the line under it says a game needs two; with
    TEAMS_MAX teams, Add a team is, saying so; between, both work and nothing is said."""
    from handfoot.games import TEAMS_MAX

    d, wait = browser, WebDriverWait(browser, 30)
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    wait.until(lambda d: d.find_elements(By.ID, "team-2"))
    add, remove = d.find_element(By.ID, "add-team"), d.find_element(By.ID, "remove-team")
    assert not remove.is_enabled() and add.is_enabled()
    assert "A game needs two teams at least: no team to remove." in text_of(d, "#teams-note")
    assert remove.get_attribute("aria-describedby") == "teams-note"

    def tap(button) -> None:  # above the sticky Start bar first
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()

    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", remove)
    d.save_screenshot(str(shots_dir(tmp_path) / "new-game-two-teams-390.png"))
    tap(add)
    assert d.find_elements(By.ID, "team-3") and remove.is_enabled()
    assert not d.find_element(By.ID, "teams-note").is_displayed()
    tap(remove)
    assert not d.find_elements(By.ID, "team-3") and not remove.is_enabled()
    for _ in range(TEAMS_MAX - 2):
        tap(add)
    assert len(d.find_elements(By.CSS_SELECTOR, "input[name=team]")) == TEAMS_MAX and not add.is_enabled()
    assert f"A game has {TEAMS_MAX} teams at most: no team to add." in text_of(d, "#teams-note")
    assert console_errors(d) == []


def test_an_ended_games_page_is_told_of_the_next_game(server, browser, tmp_path):
    """A phone still on a game that ended is told when another phone starts the next game of its teams, without a
    reload, and opens it from there; a reload says it too. A game of other teams, made before or after it, is
    never called its new game."""
    d, wait = browser, WebDriverWait(browser, 30)
    made, game = typing_a_one_round_game(server, d)
    theirs = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["4S", "4H", "4D"]]}}}
    assert httpx.post(f"{server}/v1/games/{game}/rounds", json=theirs, headers=once()).status_code == 201
    d.get(f"{server}/#/game/{game}")
    wait.until(lambda d: "The game is over: Us won." in (text_of(d, "main") or ""))
    assert not d.find_elements(By.ID, "newer-game")
    kids = made | {"teams": ["Kids", "Adults"]}  # another table's game: not this one's next
    assert httpx.post(f"{server}/v1/games", json=kids, headers=once()).status_code == 201
    d.refresh()
    wait.until(lambda d: "The game is over: Us won." in (text_of(d, "main") or ""))
    assert not d.find_elements(By.ID, "newer-game")
    d.save_screenshot(str(shots_dir(tmp_path) / "ended-game-other-teams-started-390.png"))
    nxt = httpx.post(f"{server}/v1/games", json=made, headers={"Idempotency-Key": f"next-{game}"}).json()["id"]
    wait.until(lambda d: d.find_elements(By.ID, "newer-game"))
    assert "Us vs Them have started a new game since this one ended." in text_of(d, "#newer-game")
    assert httpx.post(f"{server}/v1/games", json=kids, headers=once()).status_code == 201  # made later: still not this one's next
    d.save_screenshot(str(shots_dir(tmp_path) / "ended-game-newer-390.png"))
    d.refresh()
    wait.until(lambda d: d.find_elements(By.ID, "newer-game"))
    d.find_element(By.CSS_SELECTOR, "#newer-game a").click()
    wait.until(lambda d: d.current_url.endswith(f"#/game/{nxt}") and d.find_elements(By.ID, "score-round"))
    assert console_errors(d) == []
