"""Renaming a game's teams on the page, end to end: a real ``handfoot serve`` and two headless Chromium sessions on
one game ("Smiths vs Jonses", a name mistyped at New game).

- The game page's "Rename teams" opens a sheet of the teams' names and players; a name the server refuses (a comma,
  the other team's name in other case) is said in the sheet, what was typed kept, nothing renamed.
- Saved, the phone shows the new name in its heading, totals and rounds; the other phone shows it without a reload,
  saying what changed; the game's CSV has it.
- A rename sent from a copy of the game another phone changed meanwhile is refused (412): the sheet closes, the game
  shows as it is now, said, nothing renamed.

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import pytest

from conftest import once  # noqa: E402

pytest.importorskip("selenium")
httpx = pytest.importorskip("httpx")
from selenium.webdriver.common.by import By  # noqa: E402

from test_page_e2e import console_errors, shots_dir, text_of, viewport  # noqa: E402
from test_page_two_phones import phones, server, until  # noqa: E402,F401

ROUND = {"round": 1, "went_out": "Jonses",
         "teams": {"Smiths": {"melds": [["KH", "KS", "KD"]]}, "Jonses": {"melds": [["9S", "9H", "9D"]]}}}


def _open_game(d, url: str, gid: str) -> None:
    viewport(d, 390, 844)
    d.get(f"{url}/#/game/{gid}")
    until(d, lambda d: d.find_elements(By.ID, "rename-teams"))


def _rename(d, name: str) -> None:
    """In the open rename sheet: team 2's name typed as ``name``, Save pressed."""
    field = d.find_element(By.ID, "rename-team-2")
    field.clear()
    field.send_keys(name)
    d.find_element(By.ID, "rename-save").click()


def test_rename_a_team_on_one_phone_seen_on_the_other(server, phones, tmp_path):
    a, b = phones
    shots = shots_dir(tmp_path)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Smiths", "Jonses"],
                                                  "names": {"Jonses": ["Ann", "Bob"]}}, headers=once()).json()["id"]
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=ROUND).status_code == 201
    for d in (a, b):
        _open_game(d, server, game)

    a.find_element(By.ID, "rename-teams").click()
    until(a, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert a.find_element(By.ID, "rename-team-2").get_attribute("value") == "Jonses"
    assert a.find_element(By.ID, "rename-players-2").get_attribute("value") == "Ann, Bob"

    _rename(a, "Jones, Bob")  # refused: said in the sheet, the field marked, what was typed kept
    until(a, lambda d: "can't contain a comma or colon" in (text_of(d, "#rename-problem") or ""))
    assert text_of(a, "#rename-problem").startswith("Not renamed: Team 2's name")
    assert a.find_element(By.ID, "rename-team-2").get_attribute("aria-invalid") == "true"
    assert a.find_element(By.ID, "rename-team-2").get_attribute("value") == "Jones, Bob"
    a.save_screenshot(str(shots / "rename_refused_390.png"))
    _rename(a, "smiths")
    until(a, lambda d: "a team is named twice: 'Smiths' and 'smiths'" in (text_of(d, "#rename-problem") or ""))
    assert httpx.get(f"{server}/v1/games/{game}").json()["teams"] == ["Smiths", "Jonses"]

    _rename(a, "Joneses")
    until(a, lambda d: text_of(d, "h1") == "Smiths vs Joneses")
    assert not a.execute_script("return document.getElementById('sheet').open")
    assert text_of(a, "#totals [data-team='Joneses'] .name") == "Joneses"
    assert "Ann, Bob" in text_of(a, "#totals [data-team='Joneses']")
    assert not a.find_elements(By.ID, "game-notice")  # its own rename is not another phone's change
    a.save_screenshot(str(shots / "rename_done_390.png"))

    # the other phone: the new name without a reload, and what changed said
    until(b, lambda d: text_of(d, "h1") == "Smiths vs Joneses")
    assert "The teams were renamed there: Jonses is Joneses now." in text_of(b, "#game-notice")
    assert text_of(b, "table.grid thead").count("Joneses") == 1
    b.save_screenshot(str(shots / "rename_other_phone_390.png"))
    csv = httpx.get(f"{server}/v1/games/{game}/export.csv").text
    assert "Joneses points" in csv and "Jonses" not in csv

    # B renames from its copy while A's change (a round) reaches the server first: refused, said, nothing renamed
    b.find_element(By.ID, "rename-teams").click()
    until(b, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    b.execute_script("hfSync.stop && hfSync.stop()")  # its events lost: the sheet's copy is stale
    second = {**ROUND, "round": 2, "went_out": "Joneses",
              "teams": {"Smiths": ROUND["teams"]["Smiths"], "Joneses": ROUND["teams"]["Jonses"]}}
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=second).status_code == 201
    _rename(b, "Jones")
    until(b, lambda d: "Not renamed" in (text_of(d, "#game-notice") or ""))
    assert not b.execute_script("return document.getElementById('sheet').open")
    assert text_of(b, "h1") == "Smiths vs Joneses"
    assert httpx.get(f"{server}/v1/games/{game}").json()["teams"] == ["Smiths", "Joneses"]
    b.save_screenshot(str(shots / "rename_stale_390.png"))
    for d in (a, b):  # the refusals asked for (422, 412) are the only errors
        assert [e for e in console_errors(d) if not ("/teams - Failed to load resource" in e and
                                                      ("422" in e or "412" in e))] == []
