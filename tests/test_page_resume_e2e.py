"""What a new player meets around a round, end to end: a real ``handfoot serve`` (127.0.0.1, a temporary ledger, the
shipped models) and headless Chromium (selenium) at 390 x 844.

- Back from a new round's check view with corrections made: the game page and the Score round page offer
  "Continue checking round N" (how many corrections are kept), which opens the check view with them; "Discard
  them" (asked first) throws them away.
- A team name with a hyphen wraps at its own hyphen in the rounds' header, with no second one added; the score
  boxes' numbers sit level when one name wraps; "Type the cards instead" is a button as the page's others.
- A typed squared book's range says under the score how to count its wilds; the typed form's Breakdown stays open
  while typing.
- A game over with a range: a short bold headline, the explanation in plain text under it.
- Watch the table: the games and the sides are radio lists whose long names show whole at 390 px.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

# the e2e modules these helpers come from skip this one where selenium, uvicorn, cv2 or httpx is missing
from conftest import once  # noqa: E402
from test_page_check_edits_e2e import _draft, _game, _melds, _tap_card, httpx
from test_page_e2e import browser, console_errors, shots_dir, text_of, viewport  # noqa: F401  (fixture)
from test_page_two_phones import _open_check, _reading, server, until  # noqa: F401  (fixture)

from selenium.webdriver.common.by import By  # noqa: E402

NANA, KIDS = "Nana's Team", "Les Petits-Enfants"


def _top(d, css: str) -> float:
    return d.execute_script("return document.querySelector(arguments[0]).getBoundingClientRect().top", css)


def test_back_from_a_check_view_offers_to_continue_it(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    viewport(d, 390, 844)
    game, rid = _game(server), _reading(server)
    card = _melds(server, rid)[0]["cards"][0]
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: d.find_elements(By.ID, "score-round"))
    assert not d.find_elements(By.ID, "kept-check")  # nothing kept: nothing offered
    _open_check(d, server, f"/game/{game}/check/{rid}")
    _tap_card(d, card["id"])
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-rank='5']" if not card["code"].startswith("5")
                   else "#sheet button[data-rank='6']").click()
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Save").click()
    until(d, lambda d: _draft(d, game, rid) is not None)

    # the browser's Back: the game page says what is kept, and leads back to it
    d.back()
    until(d, lambda d: d.find_elements(By.ID, "kept-check"))
    assert text_of(d, "#kept-check p") == ("Round 1 was read but not saved: your 1 correction to it is kept on this "
                                           "phone.")
    assert text_of(d, "#continue-check") == "Continue checking round 1"
    assert _top(d, "#kept-check") < 844  # above the fold, before Score round
    d.save_screenshot(str(shots / "back_game_offers_continue_390.png"))
    d.find_element(By.ID, "continue-check").click()
    until(d, lambda d: "Your unsaved corrections were kept (1 change)" in (text_of(d, "#draft-notice") or ""))
    assert f"/check/{rid}" in d.current_url

    # the Score round page offers it too; Discard asks, then nothing is kept or offered
    d.get(f"{server}/#/game/{game}/round")
    until(d, lambda d: d.find_elements(By.ID, "kept-check"))
    d.save_screenshot(str(shots / "back_round_offers_continue_390.png"))
    d.find_element(By.ID, "discard-kept-check").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert "thrown away" in text_of(d, "#sheet-body")
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: not d.find_elements(By.ID, "kept-check"))
    assert _draft(d, game, rid) is None
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: d.find_elements(By.ID, "score-round"))
    assert not d.find_elements(By.ID, "kept-check")
    assert console_errors(d) == []


def test_long_hyphenated_names_and_a_range_at_the_end_read_plainly(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    viewport(d, 390, 844)
    made = {"rules": "pagat", "teams": [NANA, KIDS], "names": {NANA: ["Nana", "Grand-père"], KIDS: ["Zoé", "Léo"]},
            "house_rules": {"opening_minimums": [50, 90]}}
    game = httpx.post(f"{server}/v1/games", json=made, headers=once()).json()["id"]

    # a new game: the numbers of both boxes level, though one name wraps; Type the cards instead is a button
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, f"[data-total=\"{KIDS}\"]"))
    names = d.execute_script("return [...document.querySelectorAll('#totals .name')].map(e => e.offsetHeight)")
    assert names[0] == names[1] > 40  # the second name on two lines: both boxes' name rows as tall
    assert _top(d, f"[data-total=\"{NANA}\"]") == _top(d, f"[data-total=\"{KIDS}\"]")
    d.save_screenshot(str(shots / "game_boxes_level_390.png"))
    d.find_element(By.ID, "score-round").click()
    link = until(d, lambda d: d.find_elements(By.ID, "type-round")).pop()
    assert "button" in link.get_attribute("class").split()
    assert link.value_of_css_property("text-decoration-line") == "none" and link.size["height"] >= 44
    d.save_screenshot(str(shots / "round_type_button_390.png"))

    # the rounds' header: the name wraps at its own hyphen, no second one added
    round1 = {"teams": {NANA: {"melds": [["KH", "KS", "KD"]]}, KIDS: {"melds": [["9S", "9H", "9D", "9C"]]}}}
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=round1, headers=once()).status_code == 201
    # the last round: a squared book typed by its top card, Les Petits-Enfants ahead whatever it comes to
    round2 = {"teams": {NANA: {"squared_books": [{"top": "QS"}]},
                        KIDS: {"melds": [[r + s for s in "SHDCSHD"] for r in "AK9"]}}}
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=round2, headers=once()).status_code == 201
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "table.grid th"))
    header = d.execute_script("return document.querySelectorAll('table.grid th')[3].textContent")
    assert header.replace("\u00ad", "") == KIDS and "\u00ad" not in header
    assert d.execute_script("return document.querySelectorAll('table.grid th')[3].offsetHeight") < 60  # two lines
    d.execute_script("document.querySelector('table.grid').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots / "rounds_header_hyphen_390.png"))

    # the game over: a short bold headline, the explanation plain under it; the rounds follow within the screen
    assert text_of(d, ".winner") == f"The game is over: {KIDS} won."
    assert text_of(d, "#over-note").startswith("That holds whatever the wilds still to count come to")
    assert d.find_element(By.ID, "over-note").value_of_css_property("font-weight") == "400"
    d.execute_script("window.scrollTo(0, 0)")
    assert _top(d, ".winner") + d.find_element(By.CSS_SELECTOR, ".winner").size["height"] < 844
    d.save_screenshot(str(shots / "game_over_short_headline_390.png"))
    assert console_errors(d) == []


def test_a_typed_squared_book_says_how_to_count_it_and_the_breakdown_stays_open(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    viewport(d, 390, 844)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    d.get(f"{server}/#/game/{game}/type")
    until(d, lambda d: d.find_elements(By.ID, "melds-0")).pop().send_keys("KH KS KD")
    summary = until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#typed-breakdown summary")).pop()
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
    summary.click()
    assert d.execute_script("return document.getElementById('typed-breakdown').open")
    d.find_element(By.ID, "squared_books-0").send_keys("QS")  # a key a time: the score drawn again
    until(d, lambda d: " to " in (text_of(d, "#typed-score [data-points=Us]") or ""))
    assert d.execute_script("return document.getElementById('typed-breakdown').open")  # still open
    assert text_of(d, "#count-wilds") == ("To count a squared book's wilds, type the book's seven cards as a line of "
                                          "Melds and fanned books instead of its top card in Squared books: the score "
                                          "is then exact.")
    d.execute_script("document.getElementById('count-wilds').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots / "typed_range_says_how_390.png"))
    # counted as a meld line: exact, and the hint gone
    d.find_element(By.ID, "squared_books-0").clear()
    d.find_element(By.ID, "melds-0").send_keys("\nQS QH QD QC 2C JK QS")
    until(d, lambda d: text_of(d, "#typed-score [data-points=Us]") not in (None, "") and
          " to " not in text_of(d, "#typed-score [data-points=Us]"))
    assert not d.find_elements(By.ID, "count-wilds")
    assert d.execute_script("return document.getElementById('typed-breakdown').open")
    assert console_errors(d) == []


def test_watch_the_table_shows_long_names_whole(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    viewport(d, 390, 844)
    first = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": [NANA, KIDS]}, headers=once()).json()["id"]
    other = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Grandmother's Bridge Club", "Us"]}, headers=once()).json()["id"]
    d.get(f"{server}/#/live/{first}")
    until(d, lambda d: d.find_elements(By.ID, "live-game"))
    assert d.execute_script("return document.getElementById('live-game').value") == first
    assert text_of(d, "label[for='live-split-horizontal']") == f"{NANA} at the bottom, {KIDS} at the top"
    for label in d.find_elements(By.CSS_SELECTOR, "#live-game label, #live-split label"):
        assert d.execute_script("const r = arguments[0].getBoundingClientRect(); return r.right <= innerWidth && "
                                "arguments[0].scrollWidth <= arguments[0].clientWidth", label), label.text
    d.save_screenshot(str(shots / "watch_choices_whole_390.png"))
    # another game chosen: the sides named after its teams, the side chosen kept
    d.find_element(By.CSS_SELECTOR, "label[for='live-split-vertical']").click()
    radio = d.find_element(By.ID, f"live-game-{other}")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", radio)
    radio.click()
    until(d, lambda d: text_of(d, "label[for='live-split-vertical']") == "Grandmother's Bridge Club on the left, Us on the right")
    assert d.execute_script("return document.getElementById('live-split').value") == "vertical"
    assert console_errors(d) == []
