"""The page with the server away, the undo question and score ranges, end to end: a real ``handfoot serve``
(127.0.0.1, a temporary ledger, the shipped models) and headless Chromium (selenium) at 390 x 844.

- A card corrected in "Correct round 1" while the server is stopped is kept (the draft), said waiting over Save,
  scored once the server is back on the same address, and saved with Save correction; the server's absence is said
  once, in one line of the sticky header, in the page's one wording, covering neither Save correction nor Undo.
- A phone whose Wi-Fi drops (Network.emulateNetworkConditions) while another saves a round shows that round by itself
  once back, and later rounds as they are saved; reloaded with the Wi-Fi away, its view says it is not loaded yet
  (with Try again) and loads by itself once the server answers.
- "Undo round 2?" with a round after it: "Correct round 2 instead" is the main button (and has the focus), the undo
  the red secondary one.
- A range of points (a squared book's wilds uncounted) stays on one line in a team's box: the game's totals and the
  check view's round totals.
- "Start the game" pressed with the Wi-Fi away says not done; once the server answers again the box says so (not
  "Try again once it has gone" about a line that has gone), and Start makes the game.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import json
import os

os.environ.setdefault("SE_OFFLINE", "true")
# skipped as the check view's tests are, without selenium, uvicorn, OpenCV or httpx
from conftest import once  # noqa: E402
from test_page_check_edits_e2e import _draft, _game, _melds, _tap_card, httpx  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from test_page_e2e import Restartable, browser, console_errors, shots_dir, text_of, viewport  # noqa: E402,F401  (fixture)
from test_page_two_phones import _open_check, _reading, press_save, server, until  # noqa: E402,F401  (fixture)

UNREACHABLE = ("The handfoot server cannot be reached: is its computer on, handfoot serve still running, and this "
               "phone on its network? Trying again…")


def _uncovered(d, element_id: str) -> bool:
    """Whether a tap at the middle of the element ``element_id`` reaches it (nothing drawn over it)."""
    return d.execute_script(
        "const b = document.getElementById(arguments[0]); b.scrollIntoView({block: 'nearest'});"
        "const r = b.getBoundingClientRect(); const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        "return at !== null && (at === b || b.contains(at))", element_id)


def _one_line(d, css: str) -> bool:
    """Whether the range ``css`` (a team box's points) is drawn on one line, inside its box's padding."""
    return d.execute_script(
        "const r = document.querySelector(arguments[0]); const box = r.parentElement.getBoundingClientRect();"
        "const rects = [...r.getClientRects()];"
        "return rects.every(b => b.top === rects[0].top) && Math.max(...rects.map(b => b.right)) <= box.right", css)


def test_a_card_corrected_while_the_server_is_away_is_kept_and_saved_when_it_is_back(tmp_path, browser):
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    server = Restartable(tmp_path)
    url = server.url
    try:
        game, rid = _game(url), _reading(url)
        r = httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json={"photo_reading": rid, "corrections": []})
        assert r.status_code == 201, r.text
        card = _melds(url, rid)[0]["cards"][0]
        suit = "C" if card["code"][-1] != "C" else "D"
        new = card["code"][:-1] + suit
        path = f"/game/{game}/check/{rid}/1"
        _open_check(d, url, path)
        server.stop()

        _tap_card(d, card["id"])  # the server away: the card's new suit, Save
        d.find_element(By.CSS_SELECTOR, f"#sheet button[data-suit='{suit}']").click()
        next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Save").click()
        until(d, lambda d: "1 change waiting for the server" in (text_of(d, "#waiting-note") or ""))
        until(d, lambda d: text_of(d, "#server-lost") == UNREACHABLE)
        assert json.loads(_draft(d, game, rid))["corrections"] == [{"op": "set_card", "card": card["id"], "code": new}]
        # said once: no toast, no other box saying it
        said = d.execute_script("return [...document.querySelectorAll('body *')].filter(e => !e.hidden && "
                                "e.children.length === 0 && e.textContent.includes('cannot be reached')).length")
        assert said == 1 and d.find_element(By.ID, "toast").get_attribute("hidden") is not None
        for button in ("save-round", "undo-change"):
            assert _uncovered(d, button), button
        d.save_screenshot(str(shots / "check_edit_waiting_offline_390.png"))

        server.start()  # back on the same address, as after a restart
        until(d, lambda d: not d.find_elements(By.ID, "server-lost") and not text_of(d, "#waiting-note"), 60)
        until(d, lambda d: (text_of(d, f"button[data-card='{card['id']}']") or "") == new[:-1] + "♣♦"["CD".index(suit)])
        d.save_screenshot(str(shots / "check_edit_scored_when_back_390.png"))
        press_save(d)
        until(d, lambda d: "/check/" not in d.current_url)
        ops = httpx.get(f"{url}/v1/games/{game}").json()["rounds"][0]["corrections"]
        assert ops == [{"op": "set_card", "card": card["id"], "code": new}], ops
        assert _draft(d, game, rid) is None
        assert [e for e in console_errors(d) if "ERR_CONNECTION_REFUSED" not in e] == []
    finally:
        server.close()


def test_the_undo_question_offers_correcting_first_and_ranges_fit_a_phone(server, browser, tmp_path):
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    game, rid = _game(server), _reading(server)
    book = [{"op": "add_pile", "team": "Us", "kind": "squared_book", "cards": ["9S"]}]  # its wilds uncounted: a range
    r = httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json={"photo_reading": rid, "corrections": book})
    assert r.status_code == 201, r.text
    for rank in "87":
        layout = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]], "squared_books": [{"top": rank + "S"}]},
                            "Them": {"melds": [[rank + s for s in "SHD"]]}}}
        assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout,
                          headers=once()).status_code == 201

    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 3)
    assert " to " in text_of(d, "[data-total='Us'] .range")
    d.save_screenshot(str(shots / "game_range_totals_390.png"))
    assert _one_line(d, "[data-total='Us'] .range")

    d.find_elements(By.CSS_SELECTOR, "tr.round")[1].click()
    d.find_element(By.ID, "undo-2").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    correct, undo = d.find_element(By.ID, "undo-correct-instead"), d.find_element(By.ID, "confirm-yes")
    assert "primary" in correct.get_attribute("class").split()
    assert undo.get_attribute("class").split() == ["danger"] and undo.text == "Undo round 2, move round 3 up"
    assert d.execute_script("return document.activeElement.id") == "undo-correct-instead"
    assert d.execute_script("return arguments[0].compareDocumentPosition(arguments[1]) & 4", correct, undo)  # safe first
    d.save_screenshot(str(shots / "undo_question_390.png"))
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Cancel").click()
    assert len(httpx.get(f"{server}/v1/games/{game}").json()["rounds"]) == 3

    _open_check(d, server, f"/game/{game}/check/{rid}/1")
    assert " to " in text_of(d, "[data-round-total='Us'] .range")
    assert _one_line(d, "[data-round-total='Us'] .range")
    d.execute_script("window.scrollTo(0, 0)")
    d.save_screenshot(str(shots / "check_range_totals_390.png"))
    assert console_errors(d) == []


def _offline(d, off: bool) -> None:
    """This phone's Wi-Fi dropped (``off``) or back, as Chromium's DevTools say it (Network.emulateNetworkConditions)."""
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.emulateNetworkConditions",
                      {"offline": off, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def test_a_phone_back_on_wifi_catches_up_and_a_view_that_could_not_load_loads(server, browser, tmp_path):
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    game = _game(server)
    layout = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["8S", "8H", "8D"]]}}}
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: d.find_elements(By.ID, "totals"))
    assert d.find_elements(By.CSS_SELECTOR, "tr.round") == []

    # the Wi-Fi drops; another phone saves round 1 meanwhile; back on Wi-Fi, the game shows it by itself
    _offline(d, True)
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout, headers=once()).status_code == 201
    until(d, lambda d: text_of(d, "#server-lost") == UNREACHABLE)  # told of it, the game could not be fetched
    _offline(d, False)
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 1 and not d.find_elements(By.ID, "server-lost"), 15)
    d.execute_script("window.scrollTo(0, 0)")
    d.save_screenshot(str(shots / "game_caught_up_after_wifi_390.png"))
    # the stream is open again: a round saved now shows as it does on a phone that never went away
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout, headers=once()).status_code == 201
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2, 10)

    # reloaded while the Wi-Fi is away: said not loaded yet, and loaded by itself once the server answers
    until(d, lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))  # the shell kept for a reload
    _offline(d, True)
    d.refresh()
    until(d, lambda d: d.find_elements(By.ID, "load-again") and text_of(d, "#server-lost") == UNREACHABLE)
    d.save_screenshot(str(shots / "game_not_loaded_offline_390.png"))
    _offline(d, False)
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2 and not d.find_elements(By.ID, "server-lost"), 15)
    assert [e for e in console_errors(d) if "ERR_INTERNET_DISCONNECTED" not in e] == []


def test_a_not_done_box_says_when_the_server_answers_again(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    until(d, lambda d: d.find_elements(By.ID, "team-1"))
    _offline(d, True)
    start = d.find_element(By.CSS_SELECTOR, "form button[type=submit]")
    d.execute_script("arguments[0].click()", start)
    until(d, lambda d: (text_of(d, "#view .error-box") or "").startswith("Not done: the line at the top says why"))
    _offline(d, False)
    until(d, lambda d: not d.find_elements(By.ID, "server-lost"), 15)
    until(d, lambda d: text_of(d, "#view .error-box") == "Not done yet. The handfoot server answers again: try again now.", 10)
    d.save_screenshot(str(shots_dir(tmp_path) / "new_game_not_done_server_back_390.png"))
    d.execute_script("arguments[0].click()", d.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    until(d, lambda d: "#/game/" in d.current_url)
    assert len(httpx.get(f"{server}/v1/games").json()) == 1
