"""A phone on flaky Wi-Fi, end to end: a real ``handfoot serve`` and headless Chromium (390 x 844) reaching it through
a proxy that loses chosen answers on their way back (``flaky_wifi.FlakyWifi``): the server did the write, the phone
never heard. What the phone then says and stores:

- a round saved, its answer lost: said saved once the game shows it (its events, or Save pressed again), never
  "Another phone saved round 1"; a correction whose answer was lost likewise (a typed round's too), never
  "corrected there";
- a change made after that lost save, then Save: the round holds both, stored once (a typed round too), never the
  server's "Idempotency-Key ... another request body"; a team's name changed after a lost Start: one game, named so;
- an undo whose answer was lost: "Round 1 undone", not "Changed on another phone"; a game deleted so: "Game deleted",
  not "This game was deleted on another phone";
- a game never deleted from an older copy: a lost Start's game in which another phone saved a round meanwhile is
  kept when Start is pressed again after a name changed (it was deleted, the round with it); Delete the game answered
  after a round was saved on another phone while the question was open: nothing deleted, said;
- a request whose first try the server is still working on (the same key: Read the cards pressed again after the
  Wi-Fi dropped, the same next game started on both phones) waits for its answer, never "still being worked on";
  Read the cards pressed again after its answer was lost and the form changed is read, never "Idempotency-Key".

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import contextlib
import os

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
# skipped as the two-phone tests are, without selenium, uvicorn, OpenCV or httpx
from conftest import once  # noqa: E402
from test_page_two_phones import PHOTO, _open_check, _reading, httpx, press_save, until  # noqa: E402
from selenium.common.exceptions import NoSuchElementException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from flaky_wifi import FlakyWifi  # noqa: E402
from test_page_e2e import browser, running, shots_dir, text_of, viewport  # noqa: E402,F401  (fixture)


@pytest.fixture()
def wifi(tmp_path):
    """``handfoot serve`` (a temporary ledger) behind a flaky Wi-Fi: (the server's address, the FlakyWifi)."""
    with running(tmp_path) as url:
        proxy = FlakyWifi(url)
        try:
            yield url, proxy
        finally:
            proxy.close()


def _game(url: str) -> str:
    return httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]


def _rounds(url: str, game: str) -> list[dict]:
    return httpx.get(f"{url}/v1/games/{game}").json()["rounds"]


def _said(d) -> str:
    """What the page says now: its toast, notices, error boxes and status lines (not its buttons)."""
    return d.execute_script("return [...document.querySelectorAll('#toast, #sync-notice, #game-notice, .error-box, "
                            ".status')].map(e => e.textContent).join(' | ')")


def test_a_save_whose_answer_was_lost_is_said_saved_not_another_phones(wifi, browser, tmp_path):
    server, proxy = wifi
    d = browser
    viewport(d, 390, 844)
    shots = shots_dir(tmp_path)
    game, reading = _game(server), _reading(server)

    # Save round 1: stored, its answer lost; the game's events then show it: said saved, as this phone's
    _open_check(d, proxy.url, f"/game/{game}/check/{reading}")
    proxy.lose(r"^POST /v1/games/\w+/rounds")
    press_save(d)
    until(d, lambda d: d.current_url.endswith(f"#/game/{game}") and "Round 1 saved" in (text_of(d, "#toast") or ""))
    d.save_screenshot(str(shots / "lost_answer_round_saved_390.png"))
    assert proxy.lost and "another phone" not in _said(d).lower()
    assert len(_rounds(server, game)) == 1

    # Correct round 1 (who went out), its answer lost; Save again at once: said corrected, not "corrected there"
    _open_check(d, proxy.url, f"/game/{game}/check/{reading}/1")
    Select(d.find_element(By.ID, "check-went-out")).select_by_value("Them")
    until(d, lambda d: not d.execute_script("return document.getElementById('waiting-note').textContent"))
    proxy.lose(r"^PUT /v1/games/\w+/rounds/1")
    press_save(d)
    until(d, lambda d: "it may not be saved" in (text_of(d, "#toast") or "") or "/check/" not in d.current_url)
    with contextlib.suppress(NoSuchElementException):  # pressed again, unless the game's events told the page first
        press_save(d)
    until(d, lambda d: d.current_url.endswith(f"#/game/{game}") and "Round 1 corrected" in (text_of(d, "#toast") or ""))
    assert "corrected there" not in _said(d) and "another phone" not in _said(d).lower()
    rounds = _rounds(server, game)
    assert len(rounds) == 1 and rounds[0]["layout"]["went_out"] == "Them"


def test_a_change_after_a_lost_save_is_added_to_that_round_not_refused(wifi, browser, tmp_path):
    server, proxy = wifi
    d = browser
    viewport(d, 390, 844)
    shots = shots_dir(tmp_path)
    game = _game(server)

    # a typed round saved, its answer lost; a typo fixed, Save again: one round, holding the fix
    d.get(f"{proxy.url}/#/game/{game}/type")
    until(d, lambda d: d.find_elements(By.ID, "melds-0"))
    d.find_element(By.ID, "melds-0").send_keys("KH KS KD")
    d.find_element(By.ID, "melds-1").send_keys("8S 8H 8D")
    until(d, lambda d: "Us" in (text_of(d, "#typed-score") or ""))
    proxy.lose(r"^POST /v1/games/\w+/rounds")
    press_save(d, "save-typed")
    until(d, lambda d: proxy.lost and len(_rounds(server, game)) == 1)
    # said as it is: no answer, so perhaps not saved; Save again stores it once
    until(d, lambda d: "No answer from the server (the line at the top says why): it may not be saved." in _said(d))
    assert "it is never saved twice" in _said(d)
    d.find_element(By.ID, "red_threes-0").send_keys("3H")
    press_save(d, "save-typed")
    until(d, lambda d: d.current_url.endswith(f"#/game/{game}") or "Idempotency" in _said(d))
    d.save_screenshot(str(shots / "lost_answer_typed_then_changed_390.png"))
    assert "Idempotency" not in _said(d)
    rounds = _rounds(server, game)
    assert len(rounds) == 1 and rounds[0]["layout"]["teams"]["Us"]["red_threes"] == ["3H"]

    # that typed round corrected, its answer lost; Save again: said corrected, not "corrected there"
    d.get(f"{proxy.url}/#/game/{game}/type/1")
    until(d, lambda d: d.find_elements(By.ID, "red_threes-1") and "Us" in (text_of(d, "#typed-score") or ""))
    d.find_element(By.ID, "red_threes-1").send_keys("3D")
    until(d, lambda d: "Them" in (text_of(d, "#typed-score") or "") and
          not d.find_element(By.ID, "save-typed").get_attribute("disabled"))
    proxy.lose(r"^PUT /v1/games/\w+/rounds/1")
    press_save(d, "save-typed")
    until(d, lambda d: len(proxy.lost) == 2 and
          _rounds(server, game)[0]["layout"]["teams"]["Them"].get("red_threes") == ["3D"])
    until(d, lambda d: d.execute_script("const b = document.getElementById('save-typed'); return !b || !b.disabled"))
    with contextlib.suppress(NoSuchElementException):  # pressed again, unless the game's events told the page first
        press_save(d, "save-typed")
    until(d, lambda d: d.current_url.endswith(f"#/game/{game}") or "corrected there" in _said(d))
    assert "Round 1 corrected" in text_of(d, "#toast") and "corrected there" not in _said(d)

    # a photo round saved, its answer lost; a card changed, Save again: round 2 holds the change, stored once
    reading = _reading(server)
    _open_check(d, proxy.url, f"/game/{game}/check/{reading}")
    proxy.lose(r"^POST /v1/games/\w+/rounds")
    press_save(d)
    until(d, lambda d: proxy.lost[2:] and len(_rounds(server, game)) == 2)
    Select(d.find_element(By.ID, "check-went-out")).select_by_value("Them")
    until(d, lambda d: not d.execute_script("return document.getElementById('waiting-note').textContent"))
    with contextlib.suppress(NoSuchElementException):  # Save correction, unless the first Save's answer came meanwhile
        press_save(d)
    until(d, lambda d: d.current_url.endswith(f"#/game/{game}") or "Idempotency" in _said(d)
          or "another phone" in _said(d).lower())
    assert "Idempotency" not in _said(d) and "another phone" not in _said(d).lower()
    rounds = _rounds(server, game)
    assert len(rounds) == 2 and rounds[1]["photo_reading"] == reading and rounds[1]["layout"]["went_out"] == "Them"


def test_a_name_changed_after_a_lost_start_makes_one_game_so_named(wifi, browser):
    server, proxy = wifi
    d = browser
    viewport(d, 390, 844)
    d.get(f"{proxy.url}/#/new")
    until(d, lambda d: d.find_elements(By.ID, "team-1"))
    proxy.lose(r"^POST /v1/games ")
    d.execute_script("document.querySelector('form button[type=submit]').click()")
    until(d, lambda d: proxy.lost and (text_of(d, "#view .error-box") or "").startswith("Not done"))
    name = d.find_element(By.ID, "team-1")
    name.clear()
    name.send_keys("Grandma")
    d.execute_script("document.querySelector('form button[type=submit]').click()")
    until(d, lambda d: "#/game/" in d.current_url or text_of(d, "#view .error-box"))
    assert "#/game/" in d.current_url, text_of(d, "#view .error-box")
    assert [g["teams"] for g in httpx.get(f"{server}/v1/games").json()] == [["Grandma", "Them"]]


def test_an_undo_whose_answer_was_lost_is_said_done(wifi, browser, tmp_path):
    server, proxy = wifi
    d = browser
    viewport(d, 390, 844)
    game = _game(server)
    for meld in (["KH", "KS", "KD"], ["QH", "QS", "QD"]):  # two rounds told apart by their cards
        layout = {"teams": {"Us": {"melds": [meld]}, "Them": {"melds": [["8S", "8H", "8D"]]}}}
        assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout,
                          headers=once()).status_code == 201
    d.get(f"{proxy.url}/#/game/{game}")
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2)
    d.find_element(By.CSS_SELECTOR, "tr.round").click()
    proxy.lose(r"^DELETE /v1/games/\w+/rounds/1")
    d.find_element(By.ID, "undo-1").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 1 and text_of(d, "#game-notice"))
    d.save_screenshot(str(shots_dir(tmp_path) / "lost_answer_undo_390.png"))
    notice = text_of(d, "#game-notice")
    assert notice.startswith("Round 1 undone") and "another phone" not in notice.lower(), notice
    assert len(_rounds(server, game)) == 1

    # the game deleted, that answer lost: said deleted, as this phone's doing
    proxy.lose(rf"^DELETE /v1/games/{game} ")
    d.execute_script("document.getElementById('delete-game').click()")
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: d.current_url.endswith("#/") and text_of(d, "#toast"))
    assert text_of(d, "#toast") == "Game deleted" and proxy.lost[-1].startswith("DELETE")
    assert httpx.get(f"{server}/v1/games/{game}").status_code == 404


def test_a_game_played_in_on_another_phone_is_never_deleted_from_an_older_copy(wifi, browser, tmp_path):
    server, proxy = wifi
    d = browser
    viewport(d, 390, 844)
    shots = shots_dir(tmp_path)
    kings = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {}}}

    # Start the game, its answer lost; the other phone opens that game (All games) and saves round 1 in it
    d.get(f"{proxy.url}/#/new")
    until(d, lambda d: d.find_elements(By.ID, "team-1"))
    proxy.lose(r"^POST /v1/games ")
    d.execute_script("document.querySelector('form button[type=submit]').click()")
    until(d, lambda d: proxy.lost and (text_of(d, "#view .error-box") or "").startswith("Not done"))
    [made] = httpx.get(f"{server}/v1/games").json()
    assert httpx.post(f"{server}/v1/games/{made['id']}/rounds?lenient=true", json={**kings, "round": 1}).status_code == 201
    # a name changed here, Start again: that game is kept, its round with it (it was deleted, a new game made)
    name = d.find_element(By.ID, "team-1")
    name.clear()
    name.send_keys("Grandma")
    d.execute_script("document.querySelector('form button[type=submit]').click()")
    def listed() -> list[tuple]:
        return [(g["id"], g["teams"], g["rounds"]) for g in httpx.get(f"{server}/v1/games").json()]
    until(d, lambda d: d.current_url.endswith(f"#/game/{made['id']}") or text_of(d, "#view .error-box")
          or listed() != [(made["id"], ["Us", "Them"], 1)])
    assert listed() == [(made["id"], ["Us", "Them"], 1)], text_of(d, "#view .error-box")
    until(d, lambda d: d.current_url.endswith(f"#/game/{made['id']}") and text_of(d, "#toast"))
    d.save_screenshot(str(shots / "lost_start_played_elsewhere_kept_390.png"))
    assert "another phone has saved a round in it since: your changes since are not in it" in text_of(d, "#toast")

    # Delete the game asked; the other phone saves round 2 while the question is open: nothing deleted, said so
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 1)
    d.execute_script("document.getElementById('delete-game').click()")
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert httpx.post(f"{server}/v1/games/{made['id']}/rounds?lenient=true", json={**kings, "round": 2}).status_code == 201
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2)  # the page behind the question follows
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: "Nothing was deleted" in (text_of(d, "#game-notice") or "") or d.current_url.endswith("#/"))
    d.save_screenshot(str(shots / "stale_delete_refused_390.png"))
    assert "Nothing was deleted" in text_of(d, "#game-notice"), _said(d)
    assert "deciding to delete it. Round 2 was saved there." in text_of(d, "#game-notice")
    assert "delete it again if you still want to" in text_of(d, "#game-notice")
    assert "Not deleted: the game changed on another phone" in text_of(d, "#toast")
    assert len(_rounds(server, made["id"])) == 2


def test_a_request_still_worked_on_is_waited_for(wifi, browser, tmp_path):
    server, proxy = wifi
    d = browser
    viewport(d, 390, 844)
    game = _game(server)

    # Read the cards: the Wi-Fi drops as the photo is sent; pressed again while the server still reads it
    d.get(f"{proxy.url}/#/game/{game}/round")
    until(d, lambda d: d.find_elements(By.ID, "table-0"))
    d.find_element(By.ID, "table-0").send_keys(str(PHOTO))
    proxy.lose(r"^POST /v1/photos", "early")
    d.find_element(By.ID, "read-cards").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".status .error-box"))
    d.find_element(By.ID, "read-cards").click()
    until(d, lambda d: "/check/" in d.current_url or "worked on" in _said(d), 120)
    assert "worked on" not in _said(d)

    # its answer lost once the photo is read; the cards still held typed, Read again: read, not "Idempotency-Key"
    d.get(f"{proxy.url}/#/game/{game}/round")
    until(d, lambda d: d.find_elements(By.ID, "table-0"))
    d.find_element(By.ID, "table-0").send_keys(str(PHOTO))
    proxy.lose(r"^POST /v1/photos")
    d.find_element(By.ID, "read-cards").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#view .error-box"), 120)
    d.find_element(By.ID, "left-0").send_keys("KH 7C")
    d.find_element(By.ID, "read-cards").click()
    until(d, lambda d: "/check/" in d.current_url or "Idempotency" in _said(d), 120)
    assert "Idempotency" not in _said(d)

    # the same next game started on both phones at once: this one's Start is answered "still being worked on" first
    d.get(f"{proxy.url}/#/new")
    until(d, lambda d: d.find_elements(By.ID, "team-1"))
    d.execute_script("""const real = window.fetch; let once = true;
      window.fetch = (path, opts) => {
        if (once && path === '/v1/games' && opts && opts.method === 'POST') {
          once = false;
          return Promise.resolve(new Response(JSON.stringify({error: 'a request with this Idempotency-Key is still ' +
            'being worked on: ask again in a moment'}),
            {status: 409, headers: {'Retry-After': '1', 'content-type': 'application/json'}}));
        }
        return real(path, opts);
      };""")
    d.find_element(By.CSS_SELECTOR, "form button[type=submit], form button.primary").click()
    until(d, lambda d: "#/game/" in d.current_url or "worked on" in _said(d))
    assert "worked on" not in _said(d)
