"""Two phones at one table, end to end: a real ``handfoot serve`` (127.0.0.1, a temporary ledger, the shipped models)
and two headless Chromium sessions (Debian's chromium + chromium-driver, through selenium) on one game.

- Both open the same photo reading and press Save at once: one round is stored, the other phone is told; a card
  it adds after the notice shows is offered for adding to that round, and kept in it when added and saved.
- A phone whose "Save anyway?" question is open while the other phone saves a round has the question closed,
  unanswered, as the notice shows (the round it asked about is taken); its heading keeps the photo's round and Save names none, the button held (said
  why) until the notice's choice is made, so one tap cannot count the round twice; Back to a saved photo
  says it is saved; the same photo's bytes read again on the other phone are refused as that round.
- Both open "Correct round 1"; one saves a change; the other is told ("Changed on another phone"), without a
  reload, and shows the other phone's version when asked; its own unsaved change is not thrown away unasked.
- A round saved on one phone appears in the other's game view without a reload (``/v1/games/{id}/events``).
- Undoing a round before the last names the rounds that move up and their opening minimums; the other phone changing
  the game while the question is open ends it (or is refused 412 when the events were lost), said on the page.
- Both phones save one round: the later is told another phone saved it (naming the photo that is the same file)
  and adds its changes to it, those made after the notice showed too; with another photo it saves its own as the
  next round (the heading keeps its round, Save names none until it chooses); the same photo read again is said as soon as it is
  read.
- Both phones save round N from the same two photos: the later is told that both photos' cards are in round N
  (nothing to add), its open "Save anyway?" question closed.
- The deck to read with shows a long name whole at 390 px.

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
pytest.importorskip("selenium")
pytest.importorskip("uvicorn")
pytest.importorskip("cv2")
httpx = pytest.importorskip("httpx")
from conftest import once  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from test_page_e2e import CHROMEDRIVER, CHROMIUM, console_errors, open_pile, running, shots_dir, start_server, \
    text_of, viewport, wait_for_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "table.jpg"


@pytest.fixture()
def server(tmp_path):
    """``handfoot serve`` in a process of its own on 127.0.0.1 with a temporary ledger; killed when the test ends."""
    with running(tmp_path) as url:
        yield url


@pytest.fixture()
def phones(tmp_path):
    """Two headless Chromium sessions (profiles of their own) with a 390 x 844 window."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("Chromium and ChromeDriver are not installed (Debian: apt-get install chromium chromium-driver)")
    drivers = []
    try:
        for k in range(2):
            options = webdriver.ChromeOptions()
            options.binary_location = CHROMIUM
            for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--no-first-run", "--disable-background-networking", "--disable-component-update",
                        "--disable-sync", f"--user-data-dir={tmp_path / f'chromium-{k}'}", "--window-size=390,844",
                        "--force-device-scale-factor=1"):
                options.add_argument(arg)
            options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
            drivers.append(webdriver.Chrome(options=options,
                                            service=webdriver.ChromeService(executable_path=CHROMEDRIVER)))
        yield drivers
    finally:
        for d in drivers:
            d.quit()


def until(d, condition, seconds: float = 30):
    """Wait for ``condition(d)``; on time-out fail with what the page shows (its address, toast and notice)."""
    from selenium.common.exceptions import TimeoutException

    try:
        return WebDriverWait(d, seconds).until(condition)
    except TimeoutException:
        raise AssertionError(f"{d.current_url}: toast {text_of(d, '#toast')!r}, notice "
                             f"{text_of(d, '#sync-notice') or text_of(d, '#game-notice')!r}") from None


def press_save(d, button: str = "save-round") -> None:
    """Press Save (the button ``button``: a typed round's is ``save-typed``); when the rules see a problem (going out
    without the books), answer "Save anyway". Returns once the question is answered, or the save is on its way (the
    button off), done (the view left) or refused (an error box in the view)."""
    d.find_element(By.ID, button).click()
    until(d, lambda d: d.execute_script("const b = document.getElementById(arguments[0]);"
                                        "return document.getElementById('sheet').open || !b || b.disabled || "
                                        "!!document.querySelector('#view .error-box')", button))
    if d.execute_script("return document.getElementById('sheet').open"):
        d.find_element(By.ID, "confirm-yes").click()


def _reading(url: str, tail: bytes = b"") -> str:
    """A reading of the example photo; ``tail`` after its end makes it another file (another photo of the table)."""
    r = httpx.post(f"{url}/v1/photos", files=[("photos", ("table.jpg", PHOTO.read_bytes() + tail, "image/jpeg"))],
                   data={"rules": "pagat", "teams": "Us"}, timeout=120, headers=once())
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _open_check(d, url: str, path: str, team: str = "Us") -> None:
    d.get(f"{url}/#{path}")
    WebDriverWait(d, 60).until(lambda d: text_of(d, f"[data-round-total='{team}']") not in (None, ""))
    WebDriverWait(d, 30).until(lambda d: d.execute_script(
        "const b = document.getElementById('save-round'); return b && !b.disabled"))


def test_two_phones_on_one_game(server, phones, tmp_path):
    a, b = phones
    shots = shots_dir(tmp_path)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    first, second = _reading(server), _reading(server, b"\0")

    # both phones hold the same reading and press Save at once: one round is stored, the other phone is told
    for d in (a, b):
        _open_check(d, server, f"/game/{game}/check/{first}")
    for d in (a, b):
        d.execute_script("document.getElementById('save-round').click()")
    for d in (a, b):  # "Nothing read for Them": both answer Save anyway at once
        until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    for d in (a, b):
        d.execute_script("document.getElementById('confirm-yes').click()")
    WebDriverWait(a, 30).until(lambda _: len(httpx.get(f"{server}/v1/games/{game}").json()["rounds"]) == 1)
    told = [d for d in (a, b) if "/check/" in d.current_url]
    assert len(told) == 1, [d.current_url for d in (a, b)]  # one phone saved and went to the game view
    WebDriverWait(told[0], 30).until(lambda d: "Another phone saved round 1" in (text_of(d, "#sync-notice") or ""))
    assert "saving it here too would count it twice" in text_of(told[0], "#sync-notice")
    told[0].save_screenshot(str(shots / "two_phones_same_reading_390.png"))
    stored = httpx.get(f"{server}/v1/games/{game}").json()
    assert len(stored["rounds"]) == 1 and stored["rounds"][0]["photo_reading"] == first

    # a card added there after the notice shows: the notice offers adding it to round 1 (it is not lost on "Correct
    # round 1"), and "Add my changes to theirs" + Save keeps it in the one round stored
    assert text_of(told[0], "#take-theirs") == "Correct round 1" and not told[0].find_elements(By.ID, "add-mine")
    pile = told[0].find_element(By.CSS_SELECTOR, "#piles section.pile.meld").get_attribute("id")
    open_pile(told[0], pile.removeprefix("pile-"))  # a legal meld shows as one line until tapped
    meld = told[0].find_element(By.ID, pile)
    plus = next(x for x in meld.find_elements(By.TAG_NAME, "button") if x.text == "+ card")
    told[0].execute_script("arguments[0].scrollIntoView({block: 'center'})", plus)
    plus.click()
    quick = until(told[0], lambda d: [x for x in d.find_elements(By.CSS_SELECTOR, "#sheet [data-quick]")
                                      if (x.get_attribute("aria-label") or "").startswith("add another")])[0]
    added = quick.get_attribute("data-quick")
    quick.click()
    until(told[0], lambda d: "Your changes here are not saved yet (1 correction)" in (text_of(d, "#sync-notice") or ""))
    assert told[0].execute_script("return document.getElementById('save-round').disabled")
    told[0].execute_script("document.getElementById('sync-notice').scrollIntoView({block: 'center'})")
    told[0].save_screenshot(str(shots / "two_phones_edit_after_notice_390.png"))
    told[0].execute_script("document.getElementById('add-mine').click()")
    until(told[0], lambda d: text_of(d, "#check-heading") == "Correct round 1")
    press_save(told[0])
    until(told[0], lambda d: "/check/" not in d.current_url)
    stored = httpx.get(f"{server}/v1/games/{game}").json()
    assert len(stored["rounds"]) == 1
    assert [op["code"] for op in stored["rounds"][0]["corrections"] if op["op"] == "add_card"] == [added]

    # both correct round 1; A saves a change; B is told without a reload and keeps its own change until it asks
    for d in (a, b):
        _open_check(d, server, f"/game/{game}/check/{first}/1")
    Select(b.find_element(By.ID, "check-went-out")).select_by_value("Them")  # B's unsaved change
    Select(a.find_element(By.ID, "check-went-out")).select_by_value("Us")
    WebDriverWait(a, 30).until(lambda d: d.execute_script("return !document.getElementById('save-round').disabled"))
    before = text_of(a, "[data-round-total='Us']")
    press_save(a)
    until(a, lambda d: "/check/" not in d.current_url)
    WebDriverWait(b, 30).until(lambda d: "Changed on another phone" in (text_of(d, "#sync-notice") or ""))
    assert "Round 1 was corrected there" in text_of(b, "#sync-notice")
    assert b.find_element(By.ID, "check-went-out").get_attribute("value") == "Them"  # nothing thrown away unasked
    b.save_screenshot(str(shots / "two_phones_changed_390.png"))
    b.execute_script("document.getElementById('take-theirs').scrollIntoView({block: 'center'})")
    b.find_element(By.ID, "take-theirs").click()
    WebDriverWait(b, 30).until(lambda d: d.find_element(By.ID, "check-went-out").get_attribute("value") == "Us")
    WebDriverWait(b, 30).until(lambda d: text_of(d, "[data-round-total='Us']") == before)
    assert httpx.get(f"{server}/v1/games/{game}").json()["rounds"][0]["layout"]["went_out"] == "Us"

    # B changes who went out while the other phone deletes a card: "Add my changes to theirs" keeps both
    _open_check(b, server, f"/game/{game}/check/{first}/1")
    Select(b.find_element(By.ID, "check-went-out")).select_by_value("Them")
    now = httpx.get(f"{server}/v1/games/{game}")
    card = next(c for p in httpx.get(f"{server}/v1/photos/{first}").json()["images"][0]["piles"]
                if p["kind"] == "meld" for c in p["cards"])
    theirs = now.json()["rounds"][0]["corrections"] + [{"op": "remove_card", "card": card["id"]}]
    assert httpx.put(f"{server}/v1/games/{game}/rounds/1?lenient=true", headers={"If-Match": now.headers["etag"]},
                     json={"photo_reading": first, "went_out": "Us", "corrections": theirs}).status_code == 200
    until(b, lambda d: "Your changes here are not saved yet" in (text_of(d, "#sync-notice") or ""))
    b.save_screenshot(str(shots / "two_phones_add_mine_390.png"))
    b.execute_script("document.getElementById('add-mine').click()")
    until(b, lambda d: not text_of(d, "#sync-notice"))
    assert b.find_element(By.ID, "check-went-out").get_attribute("value") == "Them"
    assert not b.find_elements(By.CSS_SELECTOR, f"[data-card='{card['id']}']")  # their deletion shows here
    press_save(b)
    until(b, lambda d: "/check/" not in d.current_url)
    kept = httpx.get(f"{server}/v1/games/{game}").json()["rounds"][0]
    assert kept["layout"]["went_out"] == "Them" and kept["corrections"][:len(theirs)] == theirs  # both phones' changes

    # a round saved on A appears in B's game view without a reload
    b.get(f"{server}/#/game/{game}")
    WebDriverWait(b, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 1)
    b.execute_script("window.sameDocument = true")
    _open_check(a, server, f"/game/{game}/check/{second}")
    press_save(a)
    WebDriverWait(b, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2)
    b.save_screenshot(str(shots / "two_phones_game_view_390.png"))
    assert b.execute_script("return window.sameDocument === true")  # no reload

    # A deletes the game (asked first); B, on its page, is told and sent to the list of games, dated
    a.get(f"{server}/#/game/{game}")
    until(a, lambda d: d.find_elements(By.ID, "delete-game")).pop().click()
    until(a, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert "2 rounds are deleted" in text_of(a, "#sheet")
    a.find_element(By.ID, "confirm-yes").click()
    until(b, lambda d: "deleted on another phone" in (text_of(d, "#toast") or ""))
    until(b, lambda d: d.current_url.endswith("/#/"))
    assert httpx.get(f"{server}/v1/games/{game}").status_code == 404
    for d in (a, b):
        assert [e for e in console_errors(d) if "409" not in e and "412" not in e] == []


def test_a_question_open_while_the_other_phone_saves_stores_nothing(server, phones, tmp_path):
    a, b = phones
    shots = shots_dir(tmp_path)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    mine, theirs = _reading(server), _reading(server, b"\0")
    _open_check(a, server, f"/game/{game}/check/{mine}")
    Select(a.find_element(By.ID, "check-went-out")).select_by_value("Us")  # going out without the books: a question
    until(a, lambda d: d.execute_script("return !document.getElementById('save-round').disabled"))
    a.find_element(By.ID, "save-round").click()
    until(a, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert "problem" in text_of(a, "#sheet")
    # meanwhile the other phone saves round 1
    _open_check(b, server, f"/game/{game}/check/{theirs}")
    press_save(b)
    until(b, lambda d: "/check/" not in d.current_url)
    until(a, lambda d: "Another phone saved round 1 from another photo" in (text_of(d, "#sync-notice") or ""))
    # the question, about round 1, closes unanswered as the notice shows ("Save anyway" cannot store it twice)
    until(a, lambda d: not d.execute_script("return document.getElementById('sheet').open"))
    a.save_screenshot(str(shots / "two_phones_question_open_390.png"))
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert [r["photo_reading"] for r in rounds] == [theirs]  # nothing stored twice
    # the heading keeps the round the photo was checked as (never another unsaid); Save names none before A chooses
    assert text_of(a, "#check-heading") == "Check round 1" and text_of(a, "#save-round") == "Save round"
    # beside the notice that warns not to save round 1 again, the sticky Save is off, said why, until A chooses
    assert a.execute_script("return document.getElementById('save-round').disabled")
    assert text_of(a, "#save-why") == "Round 1 or 2? Choose in the notice above first."
    a.execute_script("document.getElementById('save-round').click()")  # a hasty tap: nothing happens
    assert not a.execute_script("return document.getElementById('sheet').open") and "/check/" in a.current_url
    a.execute_script("document.querySelector('.sticky-actions').scrollIntoView({block: 'end'})")
    a.save_screenshot(str(shots / "two_phones_save_held_390.png"))
    assert [r["photo_reading"] for r in _rounds(server, game)] == [theirs]

    # now A saves its photo as round 2, knowingly (the notice's choice; the problems it answered are not asked
    # again); Back to it says it is saved, and Save stays off
    a.execute_script("document.getElementById('save-next').click()")
    until(a, lambda d: not text_of(d, "#save-why") and (d.execute_script("return document.getElementById('sheet').open")
                                                          or "/check/" not in d.current_url))
    if a.execute_script("return document.getElementById('sheet').open"):
        a.find_element(By.ID, "confirm-yes").click()
    until(a, lambda d: "/check/" not in d.current_url)
    assert [r["photo_reading"] for r in _rounds(server, game)] == [theirs, mine]
    a.back()
    until(a, lambda d: "Already saved as round 2" in (text_of(d, "#sync-notice") or ""))
    assert a.execute_script("return document.getElementById('save-round').disabled")
    assert "Changed on another phone" not in text_of(a, "#sync-notice")

    # the very same photo read again on B (a new reading of its bytes): said as the check view opens, naming round 2,
    # before anyone corrects it; Save stays off, nothing stored
    again = _reading(server)
    b.get(f"{server}/#/game/{game}/check/{again}")
    until(b, lambda d: "Already saved as round 2" in (text_of(d, "#sync-notice") or ""))
    assert "This photo (table.jpg) is round 2 of the game already" in text_of(b, "#sync-notice")
    assert b.execute_script("return document.getElementById('save-round').disabled")
    b.save_screenshot(str(shots / "two_phones_same_photo_390.png"))
    assert len(httpx.get(f"{server}/v1/games/{game}").json()["rounds"]) == 2
    for d in (a, b):
        assert [e for e in console_errors(d) if "409" not in e and "412" not in e] == []


def test_a_phone_says_when_the_server_cannot_be_reached(tmp_path, phones):
    """The game view follows its game's events: with the server stopped a line says it cannot be reached; with the
    server back on the same port the line goes (the page keeps what it shows meanwhile)."""
    a, _ = phones
    proc, port, log = start_server(tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_server(proc, url, log)
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        a.get(f"{url}/#/game/{game}")
        WebDriverWait(a, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-total='Us']"))
        proc.terminate()
        proc.wait(30)
        WebDriverWait(a, 30).until(lambda d: "cannot be reached" in (text_of(d, "#server-lost") or ""))
        a.save_screenshot(str(shots_dir(tmp_path) / "server_lost_390.png"))
        assert text_of(a, "[data-total='Us']") == "0"  # what the page showed stays
        proc, _, log = start_server(tmp_path, port=port)  # the same address, as after a restart
        wait_for_server(proc, url, log)
        WebDriverWait(a, 60).until(lambda d: not d.find_elements(By.ID, "server-lost"))
    finally:
        proc.kill()
        proc.wait(10)


def _rounds(url: str, game: str) -> list[dict]:
    return httpx.get(f"{url}/v1/games/{game}").json()["rounds"]


def test_undoing_a_round_in_the_middle_says_which_rounds_move_and_a_change_meanwhile_is_told(server, phones, tmp_path):
    """Undo of a round before the last: the question names each later round that moves up with its opening minimum
    before and after, and offers correcting it instead. The other phone undoing a round while the question is open
    ends it, said on this phone (and on a phone looking at the game); with the event stream lost, the stale undo is
    refused (412) and said the same way: no round is undone from a game the player no longer sees."""
    from test_page_e2e import viewport

    a, b = phones
    shots = shots_dir(tmp_path)
    for d in (a, b):
        viewport(d, 390, 844)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    kings = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]
    for k, rank in enumerate(["9", "8", "7", "6"]):  # four rounds, each its own cards
        layout = {"teams": {"Us": {"melds": [kings[:3 + k]]}, "Them": {"melds": [[rank + s for s in "SHD"]]}}}
        assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout,
                          headers=once()).status_code == 201
    before = _rounds(server, game)
    for d in (a, b):
        d.get(f"{server}/#/game/{game}")
        until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 4)
    # each cell: the round's points, and its running total labelled as one
    assert text_of(a, "tr.round td[data-team='Us'] small") == "total 30"

    def ask_undo(d, n: int) -> None:
        rows = d.find_elements(By.CSS_SELECTOR, "tr.round")
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", rows[n - 1])
        rows[n - 1].click()
        until(d, lambda d: d.find_element(By.ID, f"undo-{n}").is_displayed())
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", d.find_element(By.ID, f"undo-{n}"))
        d.find_element(By.ID, f"undo-{n}").click()
        until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))

    ask_undo(a, 2)
    sheet = text_of(a, "#sheet")
    assert "round 3 becomes round 2: opening minimum 120 → 90" in sheet
    assert "round 4 becomes round 3: opening minimum 150 → 120" in sheet
    assert "The next round is then round 4 (opening minimum 150): the game is no longer over." in sheet
    assert text_of(a, "#confirm-yes") == "Undo round 2, move rounds 3 and 4 up"
    assert a.find_element(By.ID, "undo-correct-instead").get_attribute("href").endswith(f"#/game/{game}/type/2")
    a.save_screenshot(str(shots / "undo_middle_round_question_390.png"))

    # the other phone undoes round 1 meanwhile: this question ends, nothing more is undone, and both phones say so
    etag = httpx.get(f"{server}/v1/games/{game}").headers["etag"]
    assert httpx.delete(f"{server}/v1/games/{game}/rounds/1", headers={"If-Match": etag}).status_code == 200
    until(a, lambda d: "Nothing was undone" in (text_of(d, "#game-notice") or ""))
    assert not a.execute_script("return document.getElementById('sheet').open")
    said = "Round 1 was undone there: rounds 2 to 4 moved up (now rounds 1 to 3)"
    assert said in text_of(a, "#game-notice")
    a.save_screenshot(str(shots / "undo_question_changed_390.png"))
    until(b, lambda d: said in (text_of(d, "#game-notice") or ""))
    assert "Changed on another phone" in text_of(b, "#game-notice")
    b.save_screenshot(str(shots / "undo_told_other_phone_390.png"))
    assert [r["layout"]["teams"]["Them"] for r in _rounds(server, game)] == [r["layout"]["teams"]["Them"] for r in before[1:]]
    assert len(a.find_elements(By.CSS_SELECTOR, "tr.round")) == 3 and "Next: round 4 of 4" in text_of(a, "main")

    # with the event stream lost (flaky Wi-Fi) the other phone corrects round 3: the stale undo is refused and said
    ask_undo(a, 2)
    a.execute_script("hfSync.stop()")
    etag = httpx.get(f"{server}/v1/games/{game}").headers["etag"]
    fixed = {"teams": {"Us": {"melds": [kings]}, "Them": {}}}
    assert httpx.put(f"{server}/v1/games/{game}/rounds/3?lenient=true", json=fixed,
                     headers={"If-Match": etag}).status_code == 200
    a.find_element(By.ID, "confirm-yes").click()
    until(a, lambda d: "Round 3 was corrected there: " in (text_of(d, "#game-notice") or ""))
    assert "Us " in text_of(a, "#game-notice") and " → " in text_of(a, "#game-notice")  # how its scores moved
    assert "Nothing was undone" in text_of(a, "#game-notice") and "Not undone" in text_of(a, "#toast")
    assert len(_rounds(server, game)) == 3

    # now undone knowingly: it says which round moved up, and what is next
    ask_undo(a, 2)
    a.find_element(By.ID, "confirm-yes").click()
    until(a, lambda d: "Round 2 undone" in (text_of(d, "#game-notice") or ""))
    assert "Round 3 moved up one: it is round 2 now, scored under its new opening minimum. Next: round 3." \
        in text_of(a, "#game-notice")
    a.save_screenshot(str(shots / "undo_middle_round_done_390.png"))
    a.find_element(By.ID, "game-notice-ok").click()  # read: put away (it stayed until the page was left)
    until(a, lambda d: not d.find_elements(By.ID, "game-notice"))
    after = _rounds(server, game)
    assert [r["layout"]["teams"] for r in after] == [before[1]["layout"]["teams"], fixed["teams"] | {"Them": {}}]
    assert [r["minimum"] for r in after] == [50, 90] and after[1]["layout"]["round"] == 2
    for d in (a, b):
        assert [e for e in console_errors(d) if "412" not in e] == []


def test_two_phones_save_one_round_and_the_later_adds_its_changes_to_it(server, phones, tmp_path):
    """Both phones check a photo as round N and press Save: the later is told another phone saved round N and
    offered to add its changes to that round as a correction (nothing lost, nothing stored twice); with another photo
    it is offered to save it as the next round. The same photo read again is said right after "Read the cards"."""
    from test_page_e2e import PHOTO as TABLE, viewport

    a, b = phones
    shots = shots_dir(tmp_path)
    for d in (a, b):
        viewport(d, 390, 844)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    first, second, third = _reading(server), _reading(server, b"\0"), _reading(server, b"\0\0")
    card = next(c for p in httpx.get(f"{server}/v1/photos/{first}").json()["images"][0]["piles"]
                if p["kind"] == "meld" for c in p["cards"])

    # the same photo on both phones: B deletes a card and says Them went out; A saves first
    for d in (a, b):
        _open_check(d, server, f"/game/{game}/check/{first}")
    open_pile(b, card["id"].split(".")[0])  # a legal meld shows as one line until tapped
    chip = b.find_element(By.CSS_SELECTOR, f"button.chip[data-card='{card['id']}']")
    b.execute_script("arguments[0].scrollIntoView({block: 'center'})", chip)
    chip.click()
    until(b, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    # the card editor: "Move it to…" comes before its Save
    assert b.execute_script("const m = document.querySelector('#sheet .move-to'); const s = [...document.querySelectorAll("
                            "'#sheet button')].find(x => x.textContent === 'Save'); return !!(m.compareDocumentPosition(s) & "
                            "Node.DOCUMENT_POSITION_FOLLOWING)")
    b.save_screenshot(str(shots / "card_editor_390.png"))
    b.find_element(By.CSS_SELECTOR, "#sheet .move-to + .row button.danger").click()
    until(b, lambda d: not d.find_elements(By.CSS_SELECTOR, f"button.chip[data-card='{card['id']}']"))
    Select(b.find_element(By.ID, "check-went-out")).select_by_value("Them")
    until(b, lambda d: d.execute_script("return !document.getElementById('save-round').disabled"))
    Select(a.find_element(By.ID, "check-went-out")).select_by_value("Us")
    until(a, lambda d: d.execute_script("return !document.getElementById('save-round').disabled"))
    press_save(a)
    until(a, lambda d: "/check/" not in d.current_url)
    press_save(b)  # told before pressing (the game's events) or by the answer: either way nothing is stored
    until(b, lambda d: "Another phone saved round 1" in (text_of(d, "#sync-notice") or ""))
    notice = text_of(b, "#sync-notice")
    assert "from this same photo (table.jpg, Us)" in notice  # the photo named, as "Already saved" does
    assert "Your changes here are not saved yet (1 correction and who went out: Them (theirs: Us))" in notice
    b.execute_script("document.getElementById('sync-notice').scrollIntoView({block: 'center'})")
    b.save_screenshot(str(shots / "two_phones_same_round_390.png"))
    assert len(_rounds(server, game)) == 1
    b.execute_script("document.getElementById('add-mine').click()")
    until(b, lambda d: text_of(d, "#check-heading") == "Correct round 1")
    assert text_of(b, "#save-round") == "Save correction" and not text_of(b, "#sync-notice")
    assert b.find_element(By.ID, "check-went-out").get_attribute("value") == "Them"
    assert not b.find_elements(By.CSS_SELECTOR, f"button.chip[data-card='{card['id']}']")
    assert b.current_url.endswith(f"/check/{first}/1")
    press_save(b)
    until(b, lambda d: d.current_url.endswith(f"#/game/{game}"))
    rounds = _rounds(server, game)
    assert len(rounds) == 1 and rounds[0]["layout"]["went_out"] == "Them"
    assert rounds[0]["corrections"] == [{"op": "remove_card", "card": card["id"]}]

    # another photo on each phone for round 2: A saves; B may save its own as round 3
    for d in (a, b):
        _open_check(d, server, f"/game/{game}/check/{second if d is a else third}")
    press_save(a)
    until(a, lambda d: "/check/" not in d.current_url)
    until(b, lambda d: "Another phone saved round 2 from another photo" in (text_of(d, "#sync-notice") or ""))
    assert text_of(b, "#save-next") == "Save mine as round 3"
    # the sticky Save cannot save it as round 3 by itself (one hasty tap would count round 2 twice)
    assert b.execute_script("return document.getElementById('save-round').disabled")
    assert text_of(b, "#save-why") == "Round 2 or 3? Choose in the notice above first."
    b.execute_script("document.getElementById('save-round').click()")
    assert len(_rounds(server, game)) == 2
    b.execute_script("document.getElementById('save-next').click()")
    until(b, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    b.find_element(By.ID, "confirm-yes").click()  # "Nothing read for Them": saved anyway
    until(b, lambda d: d.current_url.endswith(f"#/game/{game}"))
    assert [r["photo_reading"] for r in _rounds(server, game)] == [first, second, third]

    # the photo of round 1 sent again for round 4: said as soon as it is read, before anyone corrects it
    a.get(f"{server}/#/game/{game}/round")
    until(a, lambda d: d.find_elements(By.ID, "table-0")).pop().send_keys(str(TABLE))
    a.find_element(By.ID, "read-cards").click()
    until(a, lambda d: "Already saved as round 1" in (text_of(d, "#sync-notice") or ""), 90)
    assert "This photo (table.jpg) is round 1 of the game already" in text_of(a, "#sync-notice")
    assert a.execute_script("return document.getElementById('save-round').disabled")
    a.save_screenshot(str(shots / "same_photo_after_reading_390.png"))
    assert len(_rounds(server, game)) == 3

    # B corrects round 3 while round 2 is undone elsewhere: told its round moved up, B's change goes on as round 2's
    _open_check(b, server, f"/game/{game}/check/{third}/3")
    Select(b.find_element(By.ID, "check-went-out")).select_by_value("Us")
    until(b, lambda d: d.execute_script("return !document.getElementById('save-round').disabled"))
    etag = httpx.get(f"{server}/v1/games/{game}").headers["etag"]
    assert httpx.delete(f"{server}/v1/games/{game}/rounds/2", headers={"If-Match": etag}).status_code == 200
    until(b, lambda d: "Round 3 is round 2 now" in (text_of(d, "#sync-notice") or ""))
    assert "scored under round 2's opening minimum (90)" in text_of(b, "#sync-notice")
    b.save_screenshot(str(shots / "correcting_a_round_that_moved_390.png"))
    b.execute_script("document.getElementById('add-mine').click()")
    until(b, lambda d: text_of(d, "#check-heading") == "Correct round 2")
    assert b.current_url.endswith(f"/check/{third}/2")
    press_save(b)
    until(b, lambda d: d.current_url.endswith(f"#/game/{game}"))
    rounds = _rounds(server, game)
    assert [r["photo_reading"] for r in rounds] == [first, third] and rounds[1]["layout"]["went_out"] == "Us"
    for d in (a, b):
        assert [e for e in console_errors(d) if "409" not in e and "412" not in e] == []


def test_the_deck_to_read_with_fits_a_phone(server, phones, tmp_path):
    """The live view's (and the round page's) choice of deck shows a long deck name whole at 390 px."""
    from test_page_e2e import viewport
    from vision.deck_profiles import DeckProfile
    from vision.models.reader import IndexReader

    a, _ = phones
    viewport(a, 390, 844)
    name = "grandmas-blue-bicycle-cards"
    folder = tmp_path / "data" / "decks"
    folder.mkdir(parents=True, exist_ok=True)
    DeckProfile(name, IndexReader().stock_heads(), 5, 100).save(folder)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    for page, choice in ((f"/live/{game}", "live-deck"), (f"/game/{game}/round", "deck")):
        a.get(f"{server}/#{page}")
        radio = until(a, lambda d: d.find_elements(By.ID, f"{choice}-{name}")).pop()
        a.execute_script("arguments[0].scrollIntoView({block: 'center'})", radio)
        radio.click()
        assert a.execute_script(f"return document.getElementById('{choice}').value") == name
        label = a.find_element(By.CSS_SELECTOR, f"label[for='{choice}-{name}']")
        assert label.text == f"deck {name}"
        assert a.execute_script("const r = arguments[0].getBoundingClientRect(); return r.right <= innerWidth && "
                                "arguments[0].scrollWidth <= arguments[0].clientWidth", label)
        a.execute_script("arguments[0].scrollIntoView({block: 'center'})", label)
        a.save_screenshot(str(shots_dir(tmp_path) / f"deck_choice_{choice}_390.png"))
    assert console_errors(a) == []


def test_one_photo_of_several_saved_on_the_other_phone_is_named(server, phones, tmp_path):
    """A reading of two photos, one of them the same file as a round saved meanwhile on another phone: the notice
    names that photo and its team, not "this same photo", and says plainly that the other photo is not in that
    round (correcting it does not add it); "Correct round 1" then opens round 1 as before."""
    a, _ = phones
    viewport(a, 390, 844)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    r = httpx.post(f"{server}/v1/photos", data={"rules": "pagat", "teams": "Us,Them"}, timeout=120,
                   files=[("photos", ("table.jpg", PHOTO.read_bytes(), "image/jpeg")),
                          ("photos", ("theirs.jpg", PHOTO.read_bytes() + b"\0\0\0", "image/jpeg"))], headers=once())
    assert r.status_code == 201, r.text
    _open_check(a, server, f"/game/{game}/check/{r.json()['id']}")
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true",
                      json={"photo_reading": _reading(server)}).status_code == 201
    until(a, lambda d: "Another phone saved round 1" in (text_of(d, "#sync-notice") or ""))
    notice = text_of(a, "#sync-notice")
    assert "from the same file as your photo table.jpg (Us) meanwhile" in notice and "this same photo" not in notice
    assert ("Your other photo theirs.jpg (Them) is not in round 1, and correcting round 1 does not add it: if its "
            'cards belong to round 1, add them there with "+ a pile of Them".') in notice
    a.execute_script("document.getElementById('sync-notice').scrollIntoView({block: 'center'})")
    a.save_screenshot(str(shots_dir(tmp_path) / "two_phones_one_photo_of_two_saved_390.png"))
    assert a.execute_script("return document.getElementById('save-round').disabled")
    assert text_of(a, "#take-theirs") == "Correct round 1"
    a.find_element(By.ID, "take-theirs").click()
    until(a, lambda d: text_of(d, "#check-heading") == "Correct round 1")
    assert [e for e in console_errors(a) if "409" not in e] == []


def test_both_phones_save_the_same_two_photos_and_the_later_is_told_nothing_is_missing(server, phones, tmp_path):
    """Both phones read the same two photos (one a team) for round 4 and press Save at once: one round is stored; the
    other phone's "Save the round anyway?" question closes as the notice shows, and the notice says the other phone
    saved the same round from these same photos, both photos' cards in it (nothing to add: no "+ a pile of" advice,
    which would count a team's cards twice), offering to correct round 4 or see the game."""
    a, b = phones
    for d in (a, b):
        viewport(d, 390, 844)
    teams = ["Parents", "Kids"]
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": teams}, headers=once()).json()["id"]
    for _ in range(3):
        layout = {"teams": {"Parents": {"melds": [["KH", "KS", "KD"]]}, "Kids": {"melds": [["QH", "QS", "QD"]]}}}
        assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout,
                          headers=once()).status_code == 201

    def pair() -> str:  # the two photos of the table, as each phone sends them
        r = httpx.post(f"{server}/v1/photos", data={"rules": "pagat", "teams": ",".join(teams)}, timeout=120,
                       files=[("photos", ("table_final_parents.jpg", PHOTO.read_bytes(), "image/jpeg")),
                              ("photos", ("table_final_kids.jpg", PHOTO.read_bytes() + b"\0", "image/jpeg"))], headers=once())
        assert r.status_code == 201, r.text
        return r.json()["id"]

    readings = {a: pair(), b: pair()}
    for d in (a, b):
        _open_check(d, server, f"/game/{game}/check/{readings[d]}", "Parents")
        Select(d.find_element(By.ID, "check-went-out")).select_by_value("Parents")  # the last round: someone went out
        until(d, lambda d: d.execute_script("return !document.getElementById('save-round').disabled"))
    for d in (a, b):
        d.execute_script("document.getElementById('save-round').click()")
    for d in (a, b):  # the rules' question on both phones at once
        until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert "Save the round anyway?" in text_of(b, "#sheet")
    a.find_element(By.ID, "confirm-yes").click()  # A answers first: its round 4 lands
    until(a, lambda d: "/check/" not in d.current_url)
    until(b, lambda d: "Another phone saved round 4" in (text_of(d, "#sync-notice") or ""))
    until(b, lambda d: not d.execute_script("return document.getElementById('sheet').open"))  # the stale question closed
    notice = text_of(b, "#sync-notice")
    assert ("from these same photos (table_final_parents.jpg, Parents; table_final_kids.jpg, Kids) meanwhile"
            in notice), notice
    assert "Both of your photos' cards are in round 4 already: there is nothing to add to it." in notice
    assert "not in round 4" not in notice and "+ a pile of" not in notice and "same file as" not in notice
    assert text_of(b, "#take-theirs") == "Correct round 4"
    assert b.execute_script("return document.getElementById('save-round').disabled")
    b.execute_script("document.getElementById('sync-notice').scrollIntoView({block: 'center'})")
    b.save_screenshot(str(shots_dir(tmp_path) / "two_phones_same_two_photos_390.png"))
    assert [r["photo_reading"] for r in _rounds(server, game)][3:] == [readings[a]]
    b.find_element(By.ID, "take-theirs").click()
    until(b, lambda d: text_of(d, "#check-heading") == "Correct round 4")
    assert len(_rounds(server, game)) == 4
    for d in (a, b):
        assert [e for e in console_errors(d) if "409" not in e] == []


def test_a_game_started_on_the_other_phone_shows_in_the_games_list(server, phones):
    """The games list on one phone shows a game the other phone started, and a round saved there, by itself."""
    a, _ = phones
    a.get(f"{server}/#/")
    until(a, lambda d: "No games yet" in (text_of(d, "main") or ""))
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    until(a, lambda d: "Us vs Them" in (text_of(d, "ul.games") or ""))
    assert "0 rounds played" in text_of(a, "ul.games")
    layout = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {}}}
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout, headers=once()).status_code == 201
    until(a, lambda d: "1 round played" in (text_of(d, "ul.games") or ""))
    assert console_errors(a) == []
