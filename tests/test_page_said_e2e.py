"""What the page says on flaky Wi-Fi, end to end: a real ``handfoot serve`` (127.0.0.1, a temporary ledger, the
shipped models) and headless Chromium (selenium) at 390 x 844.

- The screen reader's status region (#said) holds only the current total: a change made while the Wi-Fi is away
  and scored once it is back replaces the total said before, never leaves it there.
- Another view opened takes away the toast and the status region's words about the view left; a toast about the
  view opened ("Round 1 undone" is about the game shown) stays.
- Export CSV with the Wi-Fi away says in words that it needs the server and to press it again; with the server
  there it downloads the grid.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os
import re

os.environ.setdefault("SE_OFFLINE", "true")
from test_page_check_edits_e2e import _game, _melds, _tap_card, httpx  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from test_page_e2e import browser, shots_dir, text_of, viewport  # noqa: E402,F401  (fixture)
from test_page_offline_e2e import _offline  # noqa: E402
from test_page_two_phones import _open_check, _reading, server, until  # noqa: E402,F401  (fixture)


def _said(d) -> str:
    return (text_of(d, "#said") or "").replace("\u00a0", "")


def _set_rank(d, card: dict, rank: str) -> None:
    _tap_card(d, card["id"])
    d.find_element(By.CSS_SELECTOR, f"#sheet button[data-rank='{rank}']").click()
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Save").click()


def _shown(d) -> str:
    """The check view's total of Us as the page shows it, digits and commas."""
    return re.sub(r"[^0-9,\-]", "", text_of(d, "[data-round-total='Us']") or "")


def test_the_status_region_says_the_total_shown_after_a_change_scored_once_back(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    game, rid = _game(server), _reading(server)
    cards = [c for p in _melds(server, rid) for c in p["cards"] if c["code"][:-1] not in ("A", "2", "JK")]
    _open_check(d, server, f"/game/{game}/check/{rid}")
    _set_rank(d, cards[0], "A")  # said once taken
    until(d, lambda d: _said(d).startswith("Round 1 now: Us "))
    first = _said(d)
    assert _shown(d) in first, (first, _shown(d))

    _offline(d, True)  # the Wi-Fi drops: the next change waits for the server
    _set_rank(d, cards[1], "A")
    until(d, lambda d: "waiting for the server" in (text_of(d, "#waiting-note") or ""))
    _offline(d, False)
    until(d, lambda d: not text_of(d, "#waiting-note") and not d.find_elements(By.ID, "server-lost"), 30)
    until(d, lambda d: _said(d) != first, 10)  # the total said before is not left there
    assert _said(d).startswith("Round 1 now: Us ") and _shown(d) in _said(d), (_said(d), _shown(d))
    d.save_screenshot(str(shots_dir(tmp_path) / "check_total_said_after_wifi_390.png"))


def test_another_view_takes_away_the_toast_and_words_of_the_view_left(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    game = _game(server)
    for n in (1, 2):
        layout = {"round": n, "teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["8S", "8H", "8D"]]}}}
        assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout).status_code == 201
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2)
    d.find_elements(By.CSS_SELECTOR, "tr.round")[1].click()
    d.find_element(By.ID, "undo-2").click()
    until(d, lambda d: d.find_elements(By.ID, "confirm-yes"))
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 1)
    assert text_of(d, "#toast") == "Round 2 undone" and d.find_element(By.ID, "toast").is_displayed()
    assert _said(d) == "Round 2 undone"

    d.find_element(By.CSS_SELECTOR, "#view a[href='#/']").click()  # All games
    until(d, lambda d: d.execute_script("return location.hash") == "#/")
    assert not d.find_element(By.ID, "toast").is_displayed() and text_of(d, "#toast") == ""
    assert _said(d) == ""
    d.save_screenshot(str(shots_dir(tmp_path) / "games_after_back_no_toast_390.png"))

    d.get(f"{server}/#/game/{game}")  # a toast about the view opened stays: Delete the game, said on the games
    until(d, lambda d: d.find_elements(By.ID, "delete-game"))
    d.find_element(By.ID, "delete-game").click()
    until(d, lambda d: d.find_elements(By.ID, "confirm-yes"))
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: d.execute_script("return location.hash") == "#/")
    until(d, lambda d: d.find_element(By.ID, "toast").is_displayed() and text_of(d, "#toast") == "Game deleted", 5)


def test_export_csv_with_the_wifi_away_says_it_needs_the_server(server, browser, tmp_path):
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    game = _game(server)
    layout = {"round": 1, "teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["8S", "8H", "8D"]]}}}
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout).status_code == 201
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: d.find_elements(By.ID, "export-csv"))

    _offline(d, True)
    button = d.find_element(By.ID, "export-csv")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    until(d, lambda d: text_of(d, "#export-said"))
    said = text_of(d, "#export-said")
    assert said.startswith("Not exported: Export CSV needs the handfoot server, and this phone cannot reach it "
                           "now"), said
    assert "Press Export CSV again" in said and d.find_element(By.ID, "export-said").get_attribute("role") == "alert"
    assert d.find_element(By.ID, "export-said").is_displayed() and d.find_elements(By.ID, "server-lost")
    assert d.execute_script("const r = document.getElementById('export-said').getBoundingClientRect();"
                            "return r.top >= 0 && r.bottom <= innerHeight")  # in sight where it was pressed
    d.save_screenshot(str(shots / "export_csv_offline_390.png"))

    _offline(d, False)
    until(d, lambda d: not d.find_elements(By.ID, "server-lost"), 15)
    until(d, lambda d: text_of(d, "#export-said") == "Not exported yet. The handfoot server answers again: press "
                                                    "Export CSV now.", 10)
    d.save_screenshot(str(shots / "export_csv_server_back_390.png"))
    d.execute_script("arguments[0].click()", d.find_element(By.ID, "export-csv"))
    until(d, lambda d: [p for p in downloads.glob("*.csv")], 15)
    assert not d.find_elements(By.ID, "export-said")
    got = next(downloads.glob("*.csv"))
    assert got.name.startswith("handfoot-Us-vs-Them-") and got.read_bytes().decode("utf-8-sig").startswith("round,")
