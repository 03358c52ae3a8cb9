"""The check view on a phone turned on its side (844 x 390 CSS px), end to end: a real ``handfoot serve`` (127.0.0.1,
a temporary ledger, the shipped models) and headless Chromium (selenium).

- The header scrolls away with the page and the sticky Save bar is thin: the photo, its legend and its zoom
  buttons fit whole between the top of the window and the Save bar.
- The card sheet (a card tapped on the photo) shows its Save, Delete and Cancel without being scrolled; in large
  type, where the sheet's content is taller than the window, they stay on its bottom edge while it scrolls.
- At 390 x 844 (portrait) the header and the Save bar stay sticky.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import time

import pytest

from conftest import once

# test_page_e2e skips without selenium, uvicorn or cv2, and keeps Selenium Manager offline
from test_page_e2e import browser, console_errors, shots_dir, viewport  # noqa: F401  (fixture)
from test_page_two_phones import _open_check, _reading, server, until  # noqa: F401  (fixture)

httpx = pytest.importorskip("httpx")
from selenium.webdriver.common.by import By  # noqa: E402

BOX = """const x = arguments[0].getBoundingClientRect();
         return {top: x.top, bottom: x.bottom, height: x.height, inner: innerHeight};"""
# the element a finger at the middle of `arguments[0]` touches is it (or inside it): shown, nothing over it
TOUCHED = """const x = arguments[0].getBoundingClientRect();
             const hit = document.elementFromPoint(x.left + x.width / 2, x.top + x.height / 2);
             return !!hit && arguments[0].contains(hit);"""


def _box(d, css: str) -> dict:
    return d.execute_script(BOX, d.find_element(By.CSS_SELECTOR, css))


def open_new_check(d, server: str, width: int, height: int) -> tuple[str, str]:
    """A new game of Us and Them and the check view of a reading of the example photo, opened at ``width`` x
    ``height``: (the game's id, the reading's)."""
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    rid = _reading(server)
    viewport(d, width, height)
    _open_check(d, server, f"/game/{game}/check/{rid}")
    return game, rid


def _open_card_on_photo(d) -> None:
    """Tap the first card box on the photo (Enter on it, as a tap opens the same sheet) and wait for the sheet."""
    hit = d.find_element(By.CSS_SELECTOR, ".glance svg .hit")
    d.execute_script("arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}))", hit)
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    time.sleep(0.3)


def _sheet_buttons_reachable(d) -> None:
    for label in ("Save", "Delete", "Cancel"):
        button = [b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == label][0]
        box = d.execute_script(BOX, button)
        assert 0 <= box["top"] and box["bottom"] <= box["inner"], (label, box)
        assert d.execute_script(TOUCHED, button), f"{label} is covered"


def test_a_phone_on_its_side_shows_the_photo_and_the_sheets_buttons_whole(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 844, 390)
    time.sleep(1)

    # the photo scrolled to: the header gone above, the frame, legend and zoom buttons above the Save bar
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'start'})")
    time.sleep(0.8)
    d.save_screenshot(str(shots / "page_landscape_photo_844.png"))
    bar, frame, actions = _box(d, "header.bar"), _box(d, ".glance-frame"), _box(d, ".sticky-actions")
    assert bar["bottom"] <= 0, bar  # not sticky: it scrolled away
    assert actions["height"] <= 56, actions
    assert frame["top"] >= 0 and frame["height"] >= 200, frame  # the height left is used
    for css in (".glance .legend", ".glance-tools .zoom-fit"):
        assert _box(d, css)["bottom"] <= actions["top"], css

    # the card sheet: Save, Delete and Cancel in the window and on top, the sheet not scrolled
    _open_card_on_photo(d)
    d.save_screenshot(str(shots / "page_landscape_sheet_844.png"))
    assert d.execute_script("return document.getElementById('sheet').scrollTop") == 0
    _sheet_buttons_reachable(d)
    d.execute_script("document.getElementById('sheet').close()")

    # large type: the sheet scrolls, its buttons stay on its bottom edge wherever it is scrolled to
    d.find_element(By.ID, "large-type").click()
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'start'})")
    time.sleep(0.5)
    _open_card_on_photo(d)
    assert d.execute_script("const s = document.getElementById('sheet'); return s.scrollHeight > s.clientHeight")
    _sheet_buttons_reachable(d)
    d.execute_script("const s = document.getElementById('sheet'); s.scrollTop = s.scrollHeight")
    time.sleep(0.3)
    d.save_screenshot(str(shots / "page_landscape_sheet_large_844.png"))
    _sheet_buttons_reachable(d)
    d.execute_script("document.getElementById('sheet').close()")
    d.find_element(By.ID, "large-type").click()

    # portrait: the header and the Save bar held as before
    viewport(d, 390, 844)
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'start'})")
    time.sleep(0.5)
    assert _box(d, "header.bar")["top"] == 0
    assert _box(d, ".sticky-actions")["bottom"] == 844
    assert console_errors(d) == []
