"""A round undone on another phone while this phone corrects it, end to end: a real ``handfoot serve`` (127.0.0.1, a
temporary ledger, the shipped models) and a headless Chromium at 390 x 844. The notice says the round was undone,
Save is held, and "Save mine as round N" keeps what this phone corrected as the game's next round (nothing lost,
nothing stored twice).

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx")
from test_page_e2e import shots_dir, text_of  # noqa: E402
from test_page_two_phones import _open_check, _reading, phones, server, until  # noqa: E402, F401

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402


def test_a_correction_of_a_round_undone_elsewhere_is_saved_as_the_next_round(server, phones, tmp_path):
    d = phones[0]
    shots = shots_dir(tmp_path)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}).json()["id"]
    reading = _reading(server)
    r = httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true",
                   json={"photo_reading": reading, "corrections": [], "went_out": None}, timeout=60)
    assert r.status_code == 201, r.text
    _open_check(d, server, f"/game/{game}/check/{reading}/1")
    Select(d.find_element(By.ID, "check-went-out")).select_by_value("Us")  # a correction: going out's bonus
    key = f"handfoot.draft.{game}.{reading}"  # the change scored and kept on the phone (drafts.js)
    until(d, lambda d: '"went":"Us"' in (d.execute_script("return localStorage.getItem(arguments[0])", key) or ""))

    r = httpx.delete(f"{server}/v1/games/{game}/rounds/1", timeout=30)  # the other phone undoes round 1
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
