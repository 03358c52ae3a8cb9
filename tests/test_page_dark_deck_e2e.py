"""A deck printed light on dark (gold on black) read on the phone page, end to end: a real ``handfoot serve``
(127.0.0.1, a temporary ledger, the shipped models) driven by headless Chromium at 390 x 844, with close-ups of a
real black-and-gold deck (``../shared/realdata/decks_dev/blackgold``; skipped when absent).

The page had no way to read a photo's negative (the command line's ``--negative``): such a close-up was "no cards
found" however often it was taken, so no photo round could be saved and the game's deck could never be taught.
The box that reads the negatives was then kept on each phone, so a second phone at the table read the same deck as
photographed and found nothing: it is the game's setting now, on every phone (two Chromium sessions).
Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import pytest

from conftest import once

pytest.importorskip("selenium")
pytest.importorskip("uvicorn")
pytest.importorskip("cv2")
httpx = pytest.importorskip("httpx")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_page_e2e import browser, console_errors, running, shots_dir, text_of, viewport  # noqa: E402,F401  (fixture)
from test_page_two_phones import phones, until  # noqa: E402,F401  (fixture)

# the round page's status line once a reading was refused: its text, else null
REFUSED = "const e = document.querySelector('.status .error-box'); return e && e.textContent"


def _refused_close_up(d, url: str, photo) -> str:
    """A new game of Us and Them on the server at ``url``, its round page opened in ``d`` (390 x 844) with ``photo``
    as team Us's table and the box unticked, Read the cards pressed and the photo refused (no card found): the
    game's id."""
    viewport(d, 390, 844)
    game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    d.get(f"{url}/#/game/{game}/round")
    WebDriverWait(d, 60).until(lambda d: d.find_elements(By.ID, "table-0")).pop().send_keys(str(photo))
    assert not d.find_element(By.ID, "negative").is_selected()
    d.find_element(By.ID, "read-cards").click()
    said = WebDriverWait(d, 120).until(lambda d: d.execute_script(REFUSED))
    assert "no cards found" in said and 'tick "Our cards are light print on dark"' in said, said
    return game


def test_a_close_up_of_a_black_deck_is_read_once_its_box_is_ticked(tmp_path, browser, shared_dir):
    """A close-up of one 7♥ of the black deck: read as it is, no card is found and the message says which box to
    tick; ticked, the photo is read (its negative) and opens in the check view; the box stays ticked for the
    game's next round on this phone."""
    from datasets.realdata import decks_dev

    photo = decks_dev("blackgold", shared_dir / "realdata")[1].path  # one 7H, close up
    shots = shots_dir(tmp_path)
    d, wait = browser, WebDriverWait(browser, 120)
    with running(tmp_path) as url:
        game = _refused_close_up(d, url, photo)
        box = d.find_element(By.ID, "negative")
        # scrolled to just under the header: the bar over Read the cards, with the message, covers the screen's middle
        d.execute_script("window.scrollTo(0, arguments[0].getBoundingClientRect().top + window.scrollY - 120)", box)
        box.click()
        d.save_screenshot(str(shots / "page_round_dark_deck_390.png"))
        d.find_element(By.ID, "read-cards").click()
        wait.until(lambda d: "/check/" in d.current_url)
        reading = httpx.get(f"{url}/v1/photos/{d.current_url.split('/check/')[1]}").json()
        codes = [c["code"] for p in reading["images"][0]["piles"] for c in p["cards"]]
        assert codes and all(c[0] == "7" for c in codes), codes  # a 7 (7H, or 7S by the stock reader's eye)
        assert httpx.get(f"{url}/v1/games/{game}").json()["negative"] is True  # the game's, not this phone's
        d.get(f"{url}/#/game/{game}")
        d.get(f"{url}/#/game/{game}/round")
        assert wait.until(lambda d: d.find_elements(By.ID, "negative")).pop().is_selected()
        assert [m for m in console_errors(d) if "422" not in m] == []  # the refused reading only


def test_the_service_reads_negatives_when_asked(tmp_path, shared_dir):
    """``POST /v1/photos`` with ``negative``: the close-up read as its negative (as ``score --negative``); without
    it, refused naming the page's box to tick."""
    from datasets.realdata import decks_dev

    photo = decks_dev("blackgold", shared_dir / "realdata")[1].path
    with running(tmp_path) as url:
        sent = [("photos", (photo.name, photo.read_bytes(), "image/jpeg"))]
        plain = httpx.post(f"{url}/v1/photos", files=sent, data={"teams": "Us"}, timeout=120, headers=once())
        assert plain.status_code == 422 and 'tick "Our cards are light print on dark"' in plain.json()["error"]
        read = httpx.post(f"{url}/v1/photos", files=sent, data={"teams": "Us", "negative": "true"}, timeout=120, headers=once())
        assert read.status_code == 201, read.text
        assert [c["code"][0] for p in read.json()["images"][0]["piles"] for c in p["cards"]] == ["7"]


def test_the_next_game_of_the_same_teams_keeps_the_box_ticked(tmp_path, browser):
    """A one-round game whose photos are read as negatives, over; **New game, same teams**: the new game is made
    with the setting (the same family's cards) and its round page has the box ticked, a game of other teams has
    not."""
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"],
                                                   "house_rules": {"opening_minimums": [50]}}, headers=once()).json()["id"]
        layout = {"rules": "pagat", "round": 1, "house_rules": {"opening_minimums": [50]},
                  "teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["5H", "5S", "5D"]]}}}
        assert httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json=layout).json()["over"]
        other = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Ann", "Bob"]}, headers=once()).json()["id"]
        assert httpx.put(f"{url}/v1/games/{game}/negative", json={"negative": True}).json()["negative"]
        d.get(f"{url}/#/game/{game}")
        wait.until(lambda d: d.find_elements(
            By.XPATH, "//*[self::a or self::button][normalize-space()='New game, same teams']")).pop().click()
        wait.until(lambda d: d.find_elements(By.ID, "team-1"))
        d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(lambda d: d.find_elements(By.ID, "score-round") and game not in d.current_url)
        second = d.current_url.rsplit("/", 1)[1]
        assert httpx.get(f"{url}/v1/games/{second}").json()["negative"] is True
        d.get(f"{url}/#/game/{second}/round")
        assert wait.until(lambda d: d.find_elements(By.ID, "negative")).pop().is_selected()
        d.get(f"{url}/#/game/{other}/round")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "fieldset[data-team=Ann]"))
        assert not d.find_element(By.ID, "negative").is_selected()
        assert console_errors(d) == []


def test_too_few_card_corners_to_learn_says_how_rounds_to_come_teach_it(tmp_path, browser, shared_dir):
    """Two photo rounds of close-ups of the black deck (a card each, read as negatives): the panel says a deck needs
    30 card corners (it said two photo rounds let it start) and, before any tap, how many the saved rounds hold, how
    many more are needed and to tick Keep learning it so that the rounds to come teach it; Learn this deck is
    disabled (the server refuses so few)."""
    from datasets.realdata import decks_dev

    photos = [p.path for p in decks_dev("blackgold", shared_dir / "realdata")[1:3]]  # one 7H each
    shots = shots_dir(tmp_path)
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        for photo in photos:
            r = httpx.post(f"{url}/v1/photos", files=[("photos", (photo.name, photo.read_bytes(), "image/jpeg"))],
                           data={"teams": "Us", "negative": "true"}, timeout=120, headers=once())
            assert r.status_code == 201, r.text
            card = r.json()["images"][0]["piles"][0]["cards"][0]["id"]
            saved = httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json={
                "photo_reading": r.json()["id"], "corrections": [{"op": "set_card", "card": card, "code": "7H"}]})
            assert saved.status_code == 201, saved.text
        d.get(f"{url}/#/game/{game}/teach")
        wait.until(lambda d: d.find_elements(By.ID, "deck-name")).pop().send_keys("blackgold")
        assert "It needs at least 30 card corners" in text_of(d, "#teach")
        assert "Two photo rounds let it start" not in text_of(d, "#teach")
        said = wait.until(lambda d: text_of(d, "#teach-corners"))
        assert said.startswith("This game's saved photo rounds hold ") and " card corner" in said, said
        assert "in 2 photos; learning needs at least 30 (" in said and "tick Keep learning it below" in said, said
        learn = d.find_element(By.ID, "learn-deck")
        assert not learn.is_enabled()
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", learn)
        d.save_screenshot(str(shots / "page_teach_too_few_390.png"))
        assert console_errors(d) == []


def test_a_close_up_of_a_black_deck_is_read_again_as_light_on_dark_in_one_tap(tmp_path, browser, shared_dir):
    """The message under a photo with no card found hid the box it names (the bar over Read the cards is tall on a
    phone): it offers **Read them as light print on dark**, which ticks the box and reads the photos again."""
    from datasets.realdata import decks_dev

    d, wait = browser, WebDriverWait(browser, 120)
    with running(tmp_path) as url:
        game = _refused_close_up(d, url, decks_dev("blackgold", shared_dir / "realdata")[2].path)  # one 7H, close up
        again = wait.until(lambda d: d.find_elements(By.ID, "read-negative")).pop()
        d.save_screenshot(str(shots_dir(tmp_path) / "page_round_read_negative_390.png"))
        assert again.text == "Read them as light print on dark"
        again.click()
        wait.until(lambda d: "/check/" in d.current_url)
        d.get(f"{url}/#/game/{game}")
        d.get(f"{url}/#/game/{game}/round")
        assert wait.until(lambda d: d.find_elements(By.ID, "negative")).pop().is_selected()


def _box(d) -> bool | None:
    """Whether the round page's light-print box is ticked now (None: not shown)."""
    return d.execute_script("const b = document.getElementById('negative'); return b && b.checked")


def _tap_box(d) -> None:
    """Tap the round page's light-print box, scrolled to the screen's middle (the sticky bar covers its foot)."""
    box = d.find_element(By.ID, "negative")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    box.click()


def test_a_second_phone_reads_the_black_deck_as_the_first_phone_set_it(tmp_path, phones, shared_dir):
    """Two phones on one game's round page. One ticks **Our cards are light print on dark**: the other's box is
    ticked without a reload, said in a toast, and its close-up of the black deck, sent without touching the box, is
    read (as its negative) where it was "no cards found"; unticked on the second phone, the first phone's box
    follows. A phone whose copy of the game is stale (another phone changed the game) sends If-Match, is refused
    412 and sets it on the game as it is now, said nowhere as an error."""
    from datasets.realdata import decks_dev

    photo = decks_dev("blackgold", shared_dir / "realdata")[1].path  # one 7H, close up
    a, b = phones
    shots = shots_dir(tmp_path)
    with running(tmp_path) as url:
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        for d in phones:
            viewport(d, 390, 844)
            d.get(f"{url}/#/game/{game}/round")
            until(d, lambda d: _box(d) is False)
        _tap_box(a)
        until(a, lambda d: httpx.get(f"{url}/v1/games/{game}").json()["negative"] is True)
        until(b, lambda d: _box(d) is True)
        said = text_of(b, "#toast") or ""
        assert 'Another phone ticked "Our cards are light print on dark"' in said, said
        b.save_screenshot(str(shots / "page_round_negative_from_other_phone_390.png"))
        b.execute_script("arguments[0].scrollIntoView({block: 'center'})", b.find_element(By.ID, "negative"))
        b.save_screenshot(str(shots / "page_round_negative_box_other_phone_390.png"))
        b.find_element(By.ID, "table-0").send_keys(str(photo))
        b.find_element(By.ID, "read-cards").click()
        until(b, lambda d: "/check/" in d.current_url, 120)
        reading = httpx.get(f"{url}/v1/photos/{b.current_url.split('/check/')[1]}").json()
        codes = [c["code"] for p in reading["images"][0]["piles"] for c in p["cards"]]
        assert codes and all(c[0] == "7" for c in codes), codes
        b.get(f"{url}/#/game/{game}/round")
        until(b, lambda d: _box(d) is True)
        _tap_box(b)
        until(a, lambda d: _box(d) is False)
        assert 'Another phone unticked "Our cards are light print on dark"' in (text_of(a, "#toast") or "")
        assert httpx.get(f"{url}/v1/games/{game}").json()["negative"] is False
        # phone a's copy of the game made stale: its write is refused 412 and made again on the game as it is
        version = httpx.get(f"{url}/v1/games/{game}").json()["version"]
        a.execute_script("hfSync.note({id: arguments[0], version: 0, rounds: []})", game)
        _tap_box(a)
        until(a, lambda d: httpx.get(f"{url}/v1/games/{game}").json()["version"] == version + 1)
        assert httpx.get(f"{url}/v1/games/{game}").json()["negative"] is True
        until(b, lambda d: _box(d) is True)
        assert _box(a) is True and not a.find_elements(By.CSS_SELECTOR, ".status .error-box")
        for d in phones:
            assert [m for m in console_errors(d) if "412" not in m] == []  # the stale write only


def test_a_box_ticked_on_a_phone_before_it_was_the_games_becomes_the_games(tmp_path, browser):
    """A phone whose older page kept the box ticked for a game (in its own storage) opens that game's round page:
    the game is set so (every phone reads it so from then on) and the phone's own value is forgotten; a game whose
    setting is already on forgets it too, without a write."""
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game, on = (httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"],
                                                         "negative": k == 1}, headers=once()).json()["id"] for k in range(2))
        d.get(f"{url}/#/")
        for g in (game, on):
            d.execute_script("localStorage.setItem(arguments[0], '1')", f"handfoot.negative.{g}")
        d.get(f"{url}/#/game/{game}/round")
        wait.until(lambda d: httpx.get(f"{url}/v1/games/{game}").json()["negative"] is True)
        assert _box(d) is True
        wait.until(lambda d: d.execute_script("return localStorage.getItem(arguments[0])",
                                              f"handfoot.negative.{game}") is None)
        d.get(f"{url}/#/game/{on}/round")
        wait.until(lambda d: d.execute_script("return localStorage.getItem(arguments[0])",
                                              f"handfoot.negative.{on}") is None)
        assert _box(d) is True and httpx.get(f"{url}/v1/games/{on}").json()["version"] == 0
        assert console_errors(d) == []


def test_a_picture_of_no_cards_read_both_ways_leaves_the_games_setting(tmp_path, browser):
    """A chart as a team's photo, refused (no card found), then **Read them as light print on dark**: found nothing
    either, it says so and the game's setting stays "as photographed" (the tap ticked it for every phone, and the
    next photo of the family's light deck found nothing). With the setting on, a light deck's photo refused offers
    **Read them as photographed**, which reads it and unticks the game's setting."""
    cv2 = pytest.importorskip("cv2")
    from pathlib import Path

    from test_not_cards import bar_chart

    chart = tmp_path / "chart.png"
    cv2.imwrite(str(chart), bar_chart())
    d, wait = browser, WebDriverWait(browser, 120)
    with running(tmp_path) as url:
        game = _refused_close_up(d, url, chart)
        wait.until(lambda d: d.find_elements(By.ID, "read-negative")).pop().click()
        said = wait.until(lambda d: text_of(d, "#read-both-ways"))
        assert said.startswith("Read as light print on dark too: no cards found either way"), said
        assert httpx.get(f"{url}/v1/games/{game}").json()["negative"] is False and _box(d) is False
        etag = httpx.get(f"{url}/v1/games/{game}").headers["etag"]
        assert httpx.put(f"{url}/v1/games/{game}/negative", json={"negative": True},
                         headers={"If-Match": etag}).status_code == 200  # set on another phone
        d.get(f"{url}/#/game/{game}")
        d.get(f"{url}/#/game/{game}/round")
        until(d, lambda d: _box(d) is True)
        table = Path(__file__).resolve().parents[1] / "examples" / "table.jpg"
        d.find_element(By.ID, "table-0").send_keys(str(table))
        d.find_element(By.ID, "read-cards").click()
        said = wait.until(lambda d: text_of(d, "#negative-said"))
        assert said.startswith("This game reads its photos as light print on dark (the box above, for every phone)")
        d.find_element(By.ID, "read-positive").click()
        wait.until(lambda d: "/check/" in d.current_url)
        until(d, lambda d: httpx.get(f"{url}/v1/games/{game}").json()["negative"] is False)
        assert [e for e in console_errors(d) if "/v1/photos" not in e or "422" not in e] == []  # the refusals
