"""A game's **Teach handfoot your deck** panel says what the game reads its photos with, end to end: a real
``handfoot serve`` (127.0.0.1, a temporary ledger, the shipped models) driven by headless Chromium at 390 x 844.

Learning a deck on the page also ticks **Keep learning it** (the server's default for a game's deck): the panel says
so, so a family that goes on to "turn on" keep learning does not untick it. The next game of the same teams reads
with the deck learned before: its panel says so, instead of asking for photo rounds to learn it again. Screenshots go
to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from conftest import once

pytest.importorskip("selenium")
pytest.importorskip("uvicorn")
pytest.importorskip("cv2")
httpx = pytest.importorskip("httpx")
from selenium.common.exceptions import ElementClickInterceptedException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from teach_rounds import teach_panel_of_two_photo_rounds  # noqa: E402
from test_page_e2e import browser, console_errors, running, shots_dir, text_of, viewport  # noqa: E402,F401  (fixture)

# the teach panel's status line once a learning ended (no spinner left): its text, else null
ENDED = "const s = document.getElementById('teach-status'); return s && !s.querySelector('.spinner') && s.textContent"


def test_learning_a_deck_says_that_saved_rounds_now_keep_teaching_it(tmp_path, browser):
    """**Learn this deck** on a game with two photo rounds: once learned, Keep learning it is ticked and the panel says
    that the game reads with the deck and that every round saved teaches it more (ticked: untick it to stop)."""
    shots = shots_dir(tmp_path)
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game, name = teach_panel_of_two_photo_rounds(d, url)
        assert not d.find_element(By.ID, "keep-teaching").is_selected()
        assert not text_of(d, "#deck-state")  # the stock reader, no deck taught: nothing said
        assert d.execute_script("return Boolean(document.getElementById('teach').compareDocumentPosition("
                                "document.getElementById('delete-game')) & Node.DOCUMENT_POSITION_FOLLOWING)")  # above it
        corners = wait.until(lambda d: text_of(d, "#teach-corners"))
        assert re.fullmatch(r"This game's saved photo rounds hold \d+ card corners in 2 photos: enough to learn it "
                            r"\(at least 30 are needed\)\.", corners), corners
        name.send_keys("family-deck")
        learn = d.find_element(By.ID, "learn-deck")
        assert learn.is_enabled()
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", learn)
        learn.click()
        said = WebDriverWait(d, 300).until(lambda d: d.execute_script(ENDED))
        assert said.startswith("Deck family-deck learned from 2 photos"), said
        wait.until(lambda d: httpx.get(f"{url}/v1/games/{game}").json()["teach"] == "family-deck")
        # the panel (drawn again or not) says it, and the box shows it: nothing for the family to turn on
        wait.until(lambda d: (text_of(d, "#deck-state") or "").startswith("This game reads its photos with deck "
                                                                         "family-deck, and every round saved teaches"))
        assert "Keep learning it is ticked below: untick it to stop" in text_of(d, "#deck-state")
        assert d.find_element(By.ID, "keep-teaching").is_selected()
        d.execute_script("document.getElementById('teach').scrollIntoView({block: 'start'})")
        d.save_screenshot(str(shots / "page_teach_learned_390.png"))
        assert console_errors(d) == []


def test_learn_this_deck_says_the_card_corners_held_and_waits_for_enough(tmp_path, browser):
    """A game of two photo rounds each corrected to one pile (fewer than 30 card corners in all): before any tap the
    panel says how many card corners its saved rounds hold and how many are needed, and **Learn this deck** is
    disabled (the server would refuse it)."""
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game, _ = teach_panel_of_two_photo_rounds(d, url, one_pile=True)
        held = sum(len(doc["detections"]) for doc in map(json.loads, httpx.get(
            f"{url}/v1/games/{game}/examples.jsonl").text.splitlines()))
        assert 0 < held < 30
        said = wait.until(lambda d: text_of(d, "#teach-corners"))
        assert said.startswith(f"This game's saved photo rounds hold {held} card corner"), said
        assert f"in 2 photos; learning needs at least 30 ({30 - held} more): score more rounds" in said, said
        assert "tick Keep learning it below" in said, said
        assert not d.find_element(By.ID, "learn-deck").is_enabled()
        d.execute_script("document.getElementById('teach').scrollIntoView({block: 'start'})")
        d.save_screenshot(str(shots_dir(tmp_path) / "page_teach_too_few_corners_390.png"))
        assert console_errors(d) == []


def test_the_next_game_says_it_reads_with_the_deck_learned_before(tmp_path, browser):
    """A one-round game reading with (and teaching) deck grandmas-blue, over; **New game, same teams** on the page:
    the new game's panel says it reads its photos with grandmas-blue, and does not ask for photo rounds to learn it."""
    from vision.deck_profiles import DeckProfile
    from vision.models.reader import IndexReader

    DeckProfile("grandmas-blue", IndexReader().stock_heads(), 20, 261, {}, "2026-12-01T10:00:00+00:00").save(
        tmp_path / "data" / "decks")
    shots = shots_dir(tmp_path)
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"],
                                                   "house_rules": {"opening_minimums": [50]}}, headers=once()).json()["id"]
        r = httpx.put(f"{url}/v1/games/{game}/deck", json={"deck": "grandmas-blue", "teach": True})
        assert r.status_code == 200, r.text
        layout = {"rules": "pagat", "round": 1, "house_rules": {"opening_minimums": [50]},
                  "teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["5H", "5S", "5D"]]}}}
        r = httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json=layout)
        assert r.status_code == 201 and r.json()["over"], r.text
        d.get(f"{url}/#/game/{game}")
        wait.until(lambda d: d.find_elements(By.XPATH, "//*[self::a or self::button][normalize-space()='New game, same teams']")).pop().click()
        wait.until(lambda d: d.find_elements(By.ID, "team-1"))
        d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait.until(lambda d: d.find_elements(By.ID, "score-round") and game not in d.current_url)
        second = d.current_url.rsplit("/", 1)[1]
        assert httpx.get(f"{url}/v1/games/{second}").json()["deck"] == "grandmas-blue"
        wait.until(lambda d: d.find_elements(By.ID, "deck-state"))
        assert text_of(d, "#deck-state").startswith("This game reads its photos with deck grandmas-blue, and every "
                                                    "round saved teaches it more")
        why = text_of(d, "#teach-why")
        assert "then learn it here" not in why, why
        assert why.startswith("Nothing to do here: deck grandmas-blue is learned."), why
        d.execute_script("document.getElementById('teach').scrollIntoView({block: 'start'})")
        d.save_screenshot(str(shots / "page_teach_next_game_390.png"))
        # its photos' check view says what read them
        photo = (Path(__file__).resolve().parents[1] / "examples" / "table.jpg").read_bytes()
        r = httpx.post(f"{url}/v1/photos", files=[("photos", ("table.jpg", photo, "image/jpeg"))],
                       data={"rules": "pagat", "teams": "Us", "deck": "grandmas-blue"}, timeout=120, headers=once())
        assert r.status_code == 201, r.text
        d.get(f"{url}/#/game/{second}/check/{r.json()['id']}")
        wait.until(lambda d: (text_of(d, "#check-intro") or "").endswith("Read with deck grandmas-blue."))
        assert console_errors(d) == []


def _kept_and_saved(d, ticked: bool, shot: Path | None = None) -> None:
    """The check view reloaded: Every card is right as shown is kept as it was (``ticked``) with the view's draft,
    said as one change kept (a screenshot of it to ``shot``); then saved (a doubt asked about: saved anyway)."""
    wait = WebDriverWait(d, 60)
    d.refresh()
    box = wait.until(lambda d: d.find_elements(By.ID, "all-right")).pop()
    wait.until(lambda d: "(1 change)" in (text_of(d, "#draft-count") or ""))
    assert box.is_selected() is ticked
    if shot:
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        d.save_screenshot(str(shot))
    d.find_element(By.ID, "save-round").click()
    wait.until(lambda d: "/check/" not in d.current_url or d.execute_script(
        "return document.getElementById('sheet').open"))
    if "/check/" in d.current_url:
        d.find_element(By.ID, "confirm-yes").click()
    wait.until(lambda d: "/check/" not in d.current_url)


def test_a_round_checked_right_is_saved_as_checked_and_teaches_every_card(tmp_path, browser):
    """A game teaching deck family-deck: its check view has **Every card is right as shown** over Save; ticked, the
    round is saved with the correction ``checked`` (every card then teaches the deck, not only those read surely:
    close-ups of a dark deck read right taught nothing). A game teaching no deck has no such box."""
    photo = (Path(__file__).resolve().parents[1] / "examples" / "table.jpg").read_bytes()
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        games = [httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"],
                                                     "teach": teach}, headers=once()).json()["id"] for teach in ("family-deck", None)]
        for game, tail in zip(games, (b"", b"\0")):
            r = httpx.post(f"{url}/v1/photos", files=[("photos", ("table.jpg", photo + tail, "image/jpeg"))],
                           data={"rules": "pagat", "teams": "Us"}, timeout=120, headers=once())
            assert r.status_code == 201, r.text
            d.get(f"{url}/#/game/{game}/check/{r.json()['id']}")
            wait.until(lambda d: d.find_elements(By.ID, "save-round"))
            if game == games[1]:
                assert not d.find_elements(By.ID, "all-right")
                continue
            box = d.find_element(By.ID, "all-right")
            said = text_of(d, "label[for=all-right]")
            assert "Every card is right as shown: teach deck family-deck all of them" in said, said
            for _ in range(10):  # the pile list may grow as the reading is scored: scrolled to again until tapped
                d.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
                try:
                    box.click()
                    break
                except ElementClickInterceptedException:
                    time.sleep(0.3)
            assert box.is_selected()
            _kept_and_saved(d, True, shots_dir(tmp_path) / "page_check_all_right_390.png")
            assert httpx.get(f"{url}/v1/games/{game}").json()["rounds"][0]["corrections"] == [{"op": "checked"}]
        assert console_errors(d) == []


def test_correcting_a_round_saved_as_checked_shows_the_box_as_saved(tmp_path, browser):
    """A round saved with **Every card is right as shown** ticked (its corrections end ``checked``): Correct round 1
    shows the box ticked, as saved (it showed it unticked, while Save still sent ``checked``), with no unsaved change
    said; unticked, that is one change, and the correction saved no longer says every card is right; ticked again
    on the next correction, it is saved so again."""
    photo = (Path(__file__).resolve().parents[1] / "examples" / "table.jpg").read_bytes()
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"],
                                                   "teach": "family-deck"}, headers=once()).json()["id"]
        r = httpx.post(f"{url}/v1/photos", files=[("photos", ("table.jpg", photo, "image/jpeg"))],
                       data={"rules": "pagat", "teams": "Us"}, timeout=120, headers=once())
        assert r.status_code == 201, r.text
        rid = r.json()["id"]
        saved = httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true",
                           json={"photo_reading": rid, "corrections": [{"op": "checked"}]})
        assert saved.status_code == 201, saved.text

        def correct(expect: bool, then: bool) -> None:
            d.get(f"{url}/#/game/{game}/check/{rid}/1")
            box = wait.until(lambda d: d.find_elements(By.ID, "all-right")).pop()
            wait.until(lambda d: d.execute_script(
                "const b = document.getElementById('save-round'); return b && !b.disabled"))
            assert box.is_selected() is expect
            assert not d.find_elements(By.ID, "draft-count")
            if expect:
                d.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
                d.save_screenshot(str(shots_dir(tmp_path) / "page_correct_checked_round_390.png"))
            d.execute_script("arguments[0].click()", box)
            assert box.is_selected() is then
            _kept_and_saved(d, then)

        correct(True, False)
        assert httpx.get(f"{url}/v1/games/{game}").json()["rounds"][0]["corrections"] == []
        correct(False, True)
        assert httpx.get(f"{url}/v1/games/{game}").json()["rounds"][0]["corrections"] == [{"op": "checked"}]
        assert console_errors(d) == []


def test_the_panel_says_typed_rounds_and_photos_with_no_card_teach_nothing(tmp_path, browser):
    """A family whose photo of round 1 found no card (a dark deck read as photographed) typed the round, then opened
    the teach panel (the round page offers it): the panel says the typed round teaches nothing, nor does a photo in
    which no card was found (the server keeps none), and, while the game reads its photos as photographed, which box
    reads cards printed light on dark (said no more once the game's setting is on)."""
    d, wait = browser, WebDriverWait(browser, 60)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        layout = {"round": 1, "teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["5H", "5S", "5D"]]}}}
        assert httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json=layout).status_code == 201
        d.get(f"{url}/#/game/{game}/teach")
        said = wait.until(lambda d: text_of(d, "#teach-typed"))
        assert said.startswith("Round 1 was typed, so it teaches the deck nothing, nor does a photo in which no card "
                               "was found (it is not kept"), said
        assert said.endswith(" Cards printed light on dark? Tick Our cards are light print on dark on the round page "
                             "before reading the next photos: it reads them."), said
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", d.find_element(By.ID, "teach-typed"))
        d.save_screenshot(str(shots_dir(tmp_path) / "page_teach_typed_round_390.png"))
        assert httpx.put(f"{url}/v1/games/{game}/negative", json={"negative": True}).status_code == 200
        wait.until(lambda d: "Cards printed light on dark?" not in (text_of(d, "#teach-typed") or "?"))  # it does
        assert console_errors(d) == []


def test_a_photo_read_with_a_deck_and_no_card_found_says_what_can_work(tmp_path, browser):
    """A game reading with deck ours: a photo where no card is found says that it teaches the deck nothing and what
    can work (a closer, sharper photo; the light-print box with no deck chosen; the cards typed), and the page offers
    no **Teach handfoot your deck** for it (it said the deck "learns from more of its photos")."""
    import cv2
    import numpy as np
    from vision.deck_profiles import DeckProfile
    from vision.models.reader import IndexReader

    DeckProfile("ours", IndexReader().stock_heads(), 20, 261, {}, "2026-12-01T10:00:00+00:00").save(
        tmp_path / "data" / "decks")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 20, np.uint8))
    d, wait = browser, WebDriverWait(browser, 120)
    viewport(d, 390, 844)
    with running(tmp_path) as url:
        game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        assert httpx.put(f"{url}/v1/games/{game}/deck", json={"deck": "ours", "teach": False}).status_code == 200
        d.get(f"{url}/#/game/{game}/round")
        wait.until(lambda d: d.find_elements(By.ID, "table-0")).pop().send_keys(str(blank))
        d.find_element(By.ID, "read-cards").click()
        said = wait.until(lambda d: d.execute_script(
            "const e = document.querySelector('.status .error-box'); return e && e.textContent"))
        assert "learns from more" not in said, said
        assert ("teaches the deck ours nothing: take it again closer and sharper, each card's corner in view and lit; "
                "cards printed light on dark? read it with no deck chosen") in said, said
        assert said.endswith('or "Type the cards instead" on the Score round page'), said
        assert not d.find_elements(By.ID, "teach-deck") and not d.find_elements(By.ID, "read-negative")
        assert "type the cards instead" in text_of(d, ".status")
        d.save_screenshot(str(shots_dir(tmp_path) / "page_round_deck_no_card_390.png"))
        assert [m for m in console_errors(d) if "422" not in m] == []  # the refused reading only
