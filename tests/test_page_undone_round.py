"""A round undone on another phone while this phone corrects it, end to end: a real ``handfoot serve`` (127.0.0.1, a
temporary ledger, the shipped models) and a headless Chromium at 390 x 844.

- A photo's round (the check view) or a typed round undone there: the notice says so, Save is held, and "Save mine
  as round N" keeps what this phone corrected as the game's next round (nothing lost, nothing stored twice).
- A typed round moved up by the undo of a round before it: told as its new number, not as undone, and corrected
  as that round (never saved a second time as a new one).

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import pytest

from conftest import once

httpx = pytest.importorskip("httpx")
from test_page_e2e import shots_dir, text_of  # noqa: E402
from test_page_two_phones import _open_check, _reading, phones, server, until  # noqa: E402, F401

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


def test_a_correction_of_a_round_undone_elsewhere_is_saved_as_the_next_round(server, phones, tmp_path):
    d = phones[0]
    shots = shots_dir(tmp_path)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    reading = _reading(server)
    r = httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true",
                   json={"photo_reading": reading, "corrections": [], "went_out": None}, timeout=60)
    assert r.status_code == 201, r.text
    _open_check(d, server, f"/game/{game}/check/{reading}/1")
    Select(d.find_element(By.ID, "check-went-out")).select_by_value("Us")  # a correction: going out's bonus
    key = f"handfoot.draft.{game}.{reading}"  # the change scored and kept on the phone (drafts.js)
    until(d, lambda d: '"went":"Us"' in (d.execute_script("return localStorage.getItem(arguments[0])", key) or ""))

    # the other phone undoes round 1
    r = httpx.delete(f"{server}/v1/games/{game}/rounds/1", headers={"If-Match": '"1"'}, timeout=30)
    assert r.status_code == 200 and r.json()["rounds"] == [], r.text
    until(d, lambda d: d.find_elements(By.ID, "save-as-new"))
    said = text_of(d, "#sync-notice")
    assert "Round 1 was undone there" in said and "Your corrections are still here" in said, said
    assert d.find_element(By.ID, "save-round").get_attribute("disabled") is not None  # held until answered
    d.save_screenshot(str(shots / "undone-round-offer.png"))

    d.find_element(By.ID, "save-as-new").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet')?.open || !location.hash.includes('/check/')"))
    if d.execute_script("return document.getElementById('sheet')?.open"):  # going out without the books: asked
        d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: d.execute_script("return location.hash") == f"#/game/{game}")
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert [(x["n"], x["photo_reading"], x["layout"]["went_out"]) for x in rounds] == [(1, reading, "Us")]


US = {"melds": [["KH", "KS", "KD", "KC", "KH", "KS", "KD"]], "red_threes": ["3H"]}


def _typed_game(server: str, rounds: int) -> str:
    """A game of Us and Them with ``rounds`` typed rounds (Us's cards each time), through the API: its id."""
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    for n in range(1, rounds + 1):
        body = {"rules": "pagat", "round": n, "went_out": None, "teams": {"Us": US, "Them": {}}}
        r = httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=body, timeout=30)
        assert r.status_code == 201, r.text
    return game


def _corrected_then_undone(server: str, d, rounds: int, n: int, offer: str) -> str:
    """A game of ``rounds`` typed rounds, round ``n`` open for correcting on phone ``d``, Them's cards still held
    typed there; then round 1 undone through the API (the other phone), until the notice shows the button
    ``offer``: the game's id."""
    game = _typed_game(server, rounds)
    d.get(f"{server}/#/game/{game}/type/{n}")
    until(d, lambda d: d.find_elements(By.ID, "left-1") and text_of(d, "#typed-heading") == f"Correct round {n}")
    box = d.find_element(By.ID, "left-1")
    box.clear()
    box.send_keys("QD 7C")
    until(d, lambda d: "7C" in (d.execute_script(  # kept on the phone (its draft): scored and remembered
        "return Object.keys(localStorage).filter(k => k.startsWith('handfoot.draft.'))"
        ".map(k => localStorage.getItem(k)).join()") or ""))
    assert httpx.delete(f"{server}/v1/games/{game}/rounds/1", headers={"If-Match": f'"{rounds}"'},
                        timeout=30).status_code == 200
    until(d, lambda d: d.find_elements(By.ID, offer))
    return game


def _saved(d, game: str) -> None:
    """Wait for the round to be saved (Save anyway answered when the rules ask) and the game page shown."""
    until(d, lambda d: d.execute_script("return document.getElementById('sheet')?.open || !location.hash.includes('/type')"))
    if d.execute_script("return document.getElementById('sheet')?.open"):
        d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: d.execute_script("return location.hash") == f"#/game/{game}")


def test_a_typed_round_undone_elsewhere_is_saved_as_the_next_round(server, phones, tmp_path):
    d = phones[0]
    game = _corrected_then_undone(server, d, 1, 1, "save-typed-new")
    assert "Round 1 was undone" in text_of(d, "#sync-notice")
    d.save_screenshot(str(shots_dir(tmp_path) / "typed-undone-offer.png"))
    d.find_element(By.ID, "save-typed-new").click()
    _saved(d, game)
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert [(x["n"], x["layout"]["teams"]["Them"].get("left")) for x in rounds] == [(1, [["QD", "7C"]])]


def test_a_typed_round_moved_up_by_an_undo_is_corrected_as_its_new_number(server, phones, tmp_path):
    d = phones[0]
    game = _corrected_then_undone(server, d, 2, 2, "typed-moved")
    said = text_of(d, "#sync-notice")
    assert "Round 2 is round 1 now" in said and "Round 2 was undone" not in said, said
    d.save_screenshot(str(shots_dir(tmp_path) / "typed-moved-offer.png"))
    d.find_element(By.ID, "typed-moved").click()
    until(d, lambda d: text_of(d, "#typed-heading") == "Correct round 1" and d.find_element(By.ID, "save-typed").is_enabled())
    assert d.execute_script("return location.hash") == f"#/game/{game}/type/1"
    d.find_element(By.ID, "save-typed").click()
    _saved(d, game)
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert [(x["n"], x["layout"]["teams"]["Them"].get("left")) for x in rounds] == [(1, [["QD", "7C"]])]
