"""Large type (A+) and dark mode (◐) on the page, end to end: a real ``handfoot serve`` (127.0.0.1, a temporary
ledger, the shipped models) and headless Chromium (selenium) at 390 x 844.

- The check view names whose photo each photo is (its team) over it.
- The game's round grid (headings, points, running totals, an opened round's buttons) grows with A+ and still
  fits 390 px.
- The header's switches are said by name ("Larger type", "Dark mode") and whether they are on.
- In dark mode a link reads on the page's near-black (contrast at least 4.5:1), not the browser's blue.
- A question taller than the screen (Save's, in large type) scrolls inside its sheet, its answers held on screen.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import time

import pytest

from conftest import once

# test_page_e2e skips without selenium, uvicorn or cv2, and keeps Selenium Manager offline
from test_page_e2e import browser, console_errors, shots_dir  # noqa: F401  (fixture)
from test_page_landscape_e2e import open_new_check
from test_page_two_phones import press_save, server, until  # noqa: F401  (fixture)

httpx = pytest.importorskip("httpx")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

SIZES = """return [...document.querySelectorAll(arguments[0])].map(e => parseFloat(getComputedStyle(e).fontSize));"""
# the contrast ratio (WCAG) of each link's colour on the page's background
CONTRAST = """
const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
const lum = (c) => { const [r, g, b] = rgb(c).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
const bg = lum(getComputedStyle(document.body).backgroundColor);
return [...document.querySelectorAll(arguments[0])].map(a => {
  const l = lum(getComputedStyle(a).color); return (Math.max(l, bg) + 0.05) / (Math.min(l, bg) + 0.05); });"""


def _settings(d, large: bool, dark: bool) -> None:
    d.execute_script("localStorage.setItem('handfoot.large', arguments[0]); localStorage.setItem('handfoot.dark', arguments[1])",
                     "1" if large else "0", "1" if dark else "0")
    d.refresh()


def _grid_sizes(d) -> dict[str, list[float]]:
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "table.grid tr.round"))
    if not d.find_elements(By.CSS_SELECTOR, "table.grid tr.details"):
        d.find_element(By.CSS_SELECTOR, "table.grid tr.round").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "table.grid tr.details button"))
    return {css: d.execute_script(SIZES, css) for css in ("table.grid th", "table.grid tr.round td", "table.grid small",
                                                          "table.grid tr.details button")}


def test_large_type_and_dark_mode_on_the_check_view_and_the_game(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    # the photo says whose it is
    open_new_check(d, server, 390, 844)
    assert [e.text for e in d.find_elements(By.CSS_SELECTOR, ".glance .photo-caption")] == ["Us"]
    press_save(d)
    until(d, lambda d: "/check/" not in d.current_url)

    # the round grid: larger with A+, each of its sizes, and no wider than the phone
    normal = _grid_sizes(d)
    _settings(d, large=True, dark=True)
    large = _grid_sizes(d)
    time.sleep(0.5)
    d.save_screenshot(str(shots / "page_grid_large_dark_390.png"))
    # the header's switches said by their names (not "A+", "◐"), with their state
    for button, name in (("large-type", "Larger type"), ("dark-mode", "Dark mode")):
        b = d.find_element(By.ID, button)
        assert (b.accessible_name, b.get_attribute("aria-pressed")) == (name, "true")
    # the header stays one row in large type, the camera's badge shown too (it wrapped to two at 390 px)
    d.execute_script("document.getElementById('camera-on').hidden = false")
    rows = d.execute_script("""const tops = [...document.querySelectorAll('.bar > .brand, .bar > #camera-on, .bar > button')]
      .map(e => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2));
      return new Set(tops.map(t => Math.round(t / 10))).size""")
    assert rows == 1, d.execute_script("return [...document.querySelectorAll('.bar > *')].map(e => (e.id || e.className) + ' ' + Math.round(e.getBoundingClientRect().left) + ',' + Math.round(e.getBoundingClientRect().top) + ' ' + Math.round(e.getBoundingClientRect().width)).join('; ')")
    d.execute_script("window.scrollTo(0, 0)")
    d.save_screenshot(str(shots / "page_header_large_camera_390.png"))
    d.execute_script("document.getElementById('camera-on').hidden = true")
    for css, sizes in normal.items():
        assert sizes and all(b >= a * 1.2 for a, b in zip(sizes, large[css])), (css, sizes, large[css])
    assert d.execute_script("return document.documentElement.scrollWidth") <= 390
    table = d.find_element(By.CSS_SELECTOR, "table.grid")
    assert d.execute_script("return arguments[0].scrollWidth <= arguments[0].parentElement.clientWidth", table)

    # Save's question taller than the screen (the game's last round typed: three rule problems, a squared book's
    # range and what it means for who wins): it scrolls inside, its answers on its bottom edge, both on screen
    one = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"],
                                                 "house_rules": {"opening_minimums": [50]}}, headers=once()).json()["id"]
    d.get(f"{server}/#/game/{one}/type")
    until(d, lambda d: d.find_elements(By.ID, "melds-1"))
    d.find_element(By.ID, "melds-0").send_keys("KH KS KD KC KH KS KD")
    d.find_element(By.ID, "squared_books-1").send_keys("QS")
    Select(d.find_element(By.ID, "typed-went-out")).select_by_value("Them")
    until(d, lambda d: d.find_elements(By.ID, "count-wilds"))
    d.find_element(By.ID, "save-typed").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    time.sleep(0.3)
    fit = d.execute_script("""const s = document.getElementById('sheet');
      return {tall: s.scrollHeight > s.clientHeight, bottom: s.getBoundingClientRect().bottom, height: innerHeight,
              buttons: [...s.querySelectorAll('#sheet-body button')].map(b => [b.textContent, b.getBoundingClientRect().bottom])}""")
    assert fit["tall"] and fit["bottom"] <= fit["height"], fit
    assert [t for t, _ in fit["buttons"]] == ["Save anyway", "Cancel"]
    assert all(bottom <= fit["bottom"] for _, bottom in fit["buttons"]), fit
    d.save_screenshot(str(shots / "page_question_large_dark_390.png"))
    d.find_element(By.XPATH, "//div[@id='sheet-body']//button[.='Cancel']").click()
    until(d, lambda d: not d.execute_script("return document.getElementById('sheet').open"))

    # a link in dark mode reads on the dark background
    d.get(f"{server}/#/no-such-view")
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "main a"))
    assert min(d.execute_script(CONTRAST, "main a")) >= 4.5
    _settings(d, large=False, dark=False)
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "main a"))
    assert min(d.execute_script(CONTRAST, "main a")) >= 4.5
    assert console_errors(d) == []
