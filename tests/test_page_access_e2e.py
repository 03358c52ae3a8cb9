"""The check view's photo for a scorer who reads in large type, in dark mode or with a keyboard, end to end: a real
``handfoot serve`` (127.0.0.1, a temporary ledger, the shipped models) and headless Chromium (selenium) at 390 x 844.

- The card labels and the pins on the photo grow with the page's large type (A+), also when A+ is pressed on the
  check view itself: they stayed 13 CSS px while the page's type grew to 22.
- In dark mode a pin's number reads on its pin (contrast at least 4.5:1, as in light mode; it was 1.8:1).
- The photo is one stop of Tab: the arrow keys move from card to card, so Tab goes on to its pins and zoom
  buttons (it went through every card first, some 60 presses). The card focused shows: its label turns blue. Enter
  opens its sheet, the focus in it; Escape closes it, the focus back on the card. Zoomed in, the card focused is
  panned into the frame.
- The live picture's card names grow with A+ too, also when it is pressed on the live view (they stayed 15 px).
- The game's round grid says what its ⚠ means (a round saved with a rule problem) on the page, not only in a
  title a mouse shows.
- No control Tab reaches is left under the sticky bar of actions, though a line of status makes it taller than the
  page's scroll padding (a round saved already, in large type: 166 px of bar, 121 px of padding).

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import time

import pytest

from conftest import once

# test_page_e2e skips without selenium, uvicorn or cv2, and keeps Selenium Manager offline
from test_page_e2e import browser, console_errors, shots_dir, viewport  # noqa: F401  (fixture)
from test_page_landscape_e2e import open_new_check
from test_page_two_phones import press_save, server, until  # noqa: F401  (fixture)

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

httpx = pytest.importorskip("httpx")

# the photo's marks as drawn, CSS px: the height of each label's type and each pin's diameter
MARKS = """return {labels: [...document.querySelectorAll('.glance svg .label text')].map(t => t.getBoundingClientRect().height),
                   pins: [...document.querySelectorAll('.glance svg .pin circle')].map(c => c.getBoundingClientRect().width)};"""
# the contrast ratio (WCAG) of each pin's number on its pin
PIN_CONTRAST = """
const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map(v => { v /= 255;
                       return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
return [...document.querySelectorAll('.glance svg .pin')].map(p => {
  const a = lum(getComputedStyle(p.querySelector('circle')).fill), b = lum(getComputedStyle(p.querySelector('text')).fill);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); });"""
FOCUSED = """const e = document.activeElement;
  return e && {card: e.dataset.card || null, cls: e.getAttribute('class'), label: e.getAttribute('aria-label'),
               sheet: !!e.closest('#sheet')};"""


def _settings(d, large: bool, dark: bool) -> None:
    d.execute_script("localStorage.setItem('handfoot.large', arguments[0]); localStorage.setItem('handfoot.dark', arguments[1])",
                     "1" if large else "0", "1" if dark else "0")
    d.refresh()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".glance svg .label") and d.find_elements(By.CSS_SELECTOR, ".glance svg .pin"))
    time.sleep(0.5)


def _keys(d, *keys, shift: bool = False) -> dict:
    """Press each of ``keys`` (with Shift held: ``shift``); what has the focus then (FOCUSED)."""
    for k in keys:
        chain = ActionChains(d)
        (chain.key_down(Keys.SHIFT).send_keys(k).key_up(Keys.SHIFT) if shift else chain.send_keys(k)).perform()
        time.sleep(0.1)
    return d.execute_script(FOCUSED)


def test_the_photos_labels_and_pins_grow_with_large_type_and_pins_read_in_dark_mode(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 390, 844)
    _settings(d, large=False, dark=False)
    normal = d.execute_script(MARKS)
    assert normal["labels"] and normal["pins"], normal
    assert min(d.execute_script(PIN_CONTRAST)) >= 4.5

    # A+ pressed here: the photo's marks grow at once, as the page's type does (22 / 17)
    d.find_element(By.ID, "large-type").click()
    time.sleep(0.5)
    pressed = d.execute_script(MARKS)
    assert min(pressed["labels"]) >= 1.2 * max(normal["labels"]), (normal, pressed)
    assert min(pressed["pins"]) >= 1.2 * max(normal["pins"]), (normal, pressed)

    # large type and dark mode from the start: as large, and a pin's number reads on it
    _settings(d, large=True, dark=True)
    large = d.execute_script(MARKS)
    assert min(large["labels"]) >= 1.2 * max(normal["labels"]), (normal, large)
    assert min(large["pins"]) >= 1.2 * max(normal["pins"]), (normal, large)
    assert min(d.execute_script(PIN_CONTRAST)) >= 4.5, d.execute_script(PIN_CONTRAST)
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'center'})")
    time.sleep(0.3)
    d.save_screenshot(str(shots / "page_access_photo_large_dark_390.png"))
    assert console_errors(d) == []


def test_the_photo_is_one_stop_of_tab_and_its_cards_are_reached_with_the_arrow_keys(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 390, 844)
    _settings(d, large=True, dark=False)
    cards = d.execute_script("return [...document.querySelectorAll('.glance svg .hit')].map(r => r.dataset.card)")
    pins = len(d.find_elements(By.CSS_SELECTOR, ".glance svg .pin"))
    assert len(cards) > 20 and pins

    # from the control before the photo, Tab: the photo's first card, then its pins, then the zoom buttons
    d.execute_script("[...document.querySelectorAll('summary, button, a')].filter(e => e.compareDocumentPosition("
                     "document.querySelector('.glance')) & Node.DOCUMENT_POSITION_FOLLOWING && e.getClientRects().length).pop().focus()")
    first = _keys(d, Keys.TAB)
    assert first["card"] == cards[0], first
    for _ in range(pins):
        assert "pin" in _keys(d, Keys.TAB)["cls"]
    assert _keys(d, Keys.TAB)["label"] == "zoom out"

    # back to the photo: the card last focused; the arrows move from card to card (in reading order:
    # test_page_access_trial_e2e), Home and End to the ends
    _keys(d, *[Keys.TAB] * (pins + 1), shift=True)
    assert d.execute_script(FOCUSED)["card"] == cards[0]
    assert _keys(d, Keys.ARROW_RIGHT)["card"] == cards[1]
    assert _keys(d, Keys.ARROW_RIGHT)["card"] == cards[2]
    assert _keys(d, Keys.ARROW_LEFT)["card"] == cards[1]
    assert _keys(d, Keys.END)["card"] == cards[-1]
    assert _keys(d, Keys.HOME)["card"] == cards[0]
    assert _keys(d, Keys.ARROW_UP)["card"] == cards[0]
    assert d.execute_script("return [...document.querySelectorAll('.glance svg .hit')].filter(r => r.tabIndex === 0).length") == 1
    # and the page says so, under the photo and in the photo's name
    assert "the arrows between cards" in d.find_element(By.CSS_SELECTOR, ".glance-tools .muted").text
    assert "the arrows move between them" in d.find_element(By.CSS_SELECTOR, ".glance svg").accessible_name

    # the card focused shows: its label (a labelled card's) turns blue, and only its own
    labelled = d.execute_script("return [...document.querySelectorAll('.glance svg .label')].map(l => l.dataset.label)")
    target = next(c for c in cards if c in labelled)
    for _ in range(cards.index(target)):
        _keys(d, Keys.ARROW_RIGHT)
    assert d.execute_script(FOCUSED)["card"] == target
    marked = d.execute_script("return [...document.querySelectorAll('.glance svg .label.focused')].map(l => [l.dataset.label,"
                              " getComputedStyle(l.querySelector('rect')).fill])")
    assert [m[0] for m in marked] == [target] and marked[0][1] == "rgb(11, 92, 173)", marked
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'center'})")
    time.sleep(0.3)
    d.save_screenshot(str(shots / "page_access_card_focused_large_390.png"))

    # Enter opens its sheet, the focus in it; Escape closes it, the focus back on the card and its label still blue
    assert _keys(d, Keys.ENTER)["sheet"]
    assert d.execute_script("return document.getElementById('sheet').open")
    back = _keys(d, Keys.ESCAPE)
    assert not d.execute_script("return document.getElementById('sheet').open")
    assert back["card"] == target and not back["sheet"]
    assert d.execute_script("return [...document.querySelectorAll('.glance svg .label.focused')].map(l => l.dataset.label)") == [target]
    # leaving the photo unmarks it
    _keys(d, Keys.TAB)
    assert d.execute_script("return document.querySelectorAll('.glance svg .label.focused').length") == 0

    # zoomed in, each card the arrows reach is panned into the frame, its label the one blue, the photo unmoved
    # from its labels (the frame scrolled to a card out of view, and a card shown by its focus stayed blue)
    for _ in range(2):
        d.find_element(By.CSS_SELECTOR, ".glance-tools .zoom-in").click()
    d.execute_script("document.querySelector('.glance svg .hit').focus()")
    time.sleep(0.2)
    seen = []
    for _ in cards:
        seen.append(d.execute_script("""const f = document.querySelector('.glance-frame'), b = f.getBoundingClientRect(),
          r = document.activeElement.getBoundingClientRect();
          return [r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1,
                  f.scrollLeft + f.scrollTop, document.querySelectorAll('.glance svg .label.focused, .glance svg .label.tapped').length]"""))
        _keys(d, Keys.ARROW_RIGHT)
    assert all(s == [True, 0, 1] for s in seen), seen
    assert console_errors(d) == []


# the control focused, when the sticky bar of actions covers the middle of it: its name and where it is, else null
COVERED = """const e = document.activeElement, r = e.getBoundingClientRect(), bar = document.querySelector('.sticky-actions');
  const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1), y = r.top + r.height / 2;
  const hit = y >= 0 && y < innerHeight && document.elementFromPoint(x, y);
  return hit && bar.contains(hit) && !bar.contains(e) ? [e.getAttribute('aria-label') || e.textContent.slice(0, 40), r.top, r.bottom] : null;"""


def test_no_control_focused_with_tab_is_left_under_the_sticky_bar(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    game, reading = open_new_check(d, server, 390, 844)
    press_save(d)
    until(d, lambda d: "/check/" not in d.current_url)
    # the reading again, saved already: the bar says so above its buttons
    d.get(f"{server}/#/game/{game}/check/{reading}")
    _settings(d, large=True, dark=False)
    until(d, lambda d: d.execute_script("const s = document.querySelector('.sticky-actions .status');"
                                        " return s && s.textContent.includes('Saved already')"))
    bar = d.execute_script("return [document.querySelector('.sticky-actions').offsetHeight,"
                           " parseFloat(getComputedStyle(document.documentElement).scrollPaddingBottom)]")
    assert bar[0] > bar[1], bar  # the case: a bar taller than the padding
    d.execute_script("document.getElementById('check-heading').focus()")
    covered, seen = [], 0
    for _ in range(60):
        _keys(d, Keys.TAB)
        time.sleep(0.1)
        if d.execute_script("return document.activeElement.closest('.sticky-actions') !== null"):
            break  # the bar's own buttons: the end of the view
        seen += 1
        where = d.execute_script(COVERED)
        if where:
            covered.append(where)
            d.save_screenshot(str(shots / "page_access_focus_under_bar_390.png"))
    assert seen > 10
    assert covered == [], covered


def test_the_round_grid_says_what_its_warning_sign_means(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    viewport(d, 390, 844)
    d.get(f"{server}/#/game/{game}/type")
    until(d, lambda d: d.find_elements(By.ID, "melds-0"))
    d.find_element(By.ID, "melds-0").send_keys("9D 9D")  # a meld of two cards: a rule problem
    d.find_element(By.ID, "save-typed").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "tr.round .round-flag"))
    hint = d.find_element(By.XPATH, "//p[starts-with(., 'Tap a round for')]")
    assert "⚠: saved with a rule problem" in hint.text, hint.text
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", hint)
    d.save_screenshot(str(shots / "page_access_round_flag_said_390.png"))
    assert console_errors(d) == []


# the live view's picture with its card names (livepicture.js) on the page, over one of the server's pictures: the
# names' type sizes, CSS px, once drawn
LIVE_LABELS = """const done = arguments[arguments.length - 1];
import('/static/livepicture.js').then(m => {
  const img = document.createElement('img'); img.src = '/static/icons/icon-192.png'; img.style.width = '100%';
  const layer = m.labelLayer(img); document.getElementById('view').replaceChildren(layer.node);
  img.addEventListener('load', () => {
    layer.update([{code: '10H', box: [0.1, 0.3, 0.2, 0.4], sure: true}, {code: 'KS', box: [0.6, 0.6, 0.7, 0.7], sure: true}]);
    done([...document.querySelectorAll('.live-label')].map(e => parseFloat(e.style.fontSize)));
  });
});"""
SIZES_NOW = "return [...document.querySelectorAll('.live-label')].map(e => parseFloat(e.style.fontSize))"


def test_the_live_pictures_card_names_grow_with_large_type(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    d.get(f"{server}/#/")
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#view h1"))
    normal = d.execute_async_script(LIVE_LABELS)
    assert len(normal) == 2, normal
    d.find_element(By.ID, "large-type").click()  # pressed while the picture shows: drawn again, larger
    until(d, lambda d: min(d.execute_script(SIZES_NOW)) >= 1.2 * max(normal))
    d.refresh()  # large type from the start
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#view h1"))
    assert min(d.execute_async_script(LIVE_LABELS)) >= 1.2 * max(normal)
    assert console_errors(d) == []
