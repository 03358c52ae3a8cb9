"""The check view's photo on a phone (390 x 844), as a new user meets it, end to end: a real ``handfoot serve``
(127.0.0.1, a temporary ledger, the shipped models) and headless Chromium (selenium), the bundled example photo.

- At first view the round's total and the photo's whole height lie between the header and the sticky Save bar, in
  normal and in large type (A+): nothing of the photo is hidden under the bar, and no one has to scroll to find it;
  the photo keeps its height while the bar grows for a while (the note over Save of what a move moved).
- A note's pin covers no card's box: it sits inside its pile's outline where that has room, else beside it, never
  inside another pile's; a tap on the card beside a pin opens the card, not the note (every pile of the photo given
  a note, so that pins crowd the photo).
- The card editor's title follows the card picked: "3♥ → J♥ (red threes)" while a jack of hearts is picked, the
  card's own name again once it is picked back.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import sys
import time

import pytest

# test_page_e2e skips without selenium, uvicorn or cv2, and keeps Selenium Manager offline
from test_page_e2e import browser, console_errors, running, shots_dir, text_of  # noqa: F401  (fixture)
from test_page_landscape_e2e import open_new_check
from test_page_two_phones import server, until  # noqa: F401  (fixture)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

#: the header's, the totals', the photo frame's, its legend's and the Save bar's top and bottom (CSS px)
FIRST_SCREEN = """const r = (css) => { const b = document.querySelector(css).getBoundingClientRect(); return [b.top, b.bottom]; };
  return {scrolled: scrollY, header: r('header.bar'), totals: r('#round-totals'), frame: r('.glance-frame'),
          legend: r('.glance .legend'), bar: r('.sticky-actions'), height: innerHeight};"""

#: each pin on the photo: its number, its pile, the codes of the card boxes its circle covers, its gap to its own
#: pile's outline (0 inside it, else how far its ring is from it, CSS px), the other piles whose outline holds its
#: centre, and the point of the card box nearest to it (2 px inside the box), with that card's id
PINS = """
  const f = document.querySelector('.glance-frame');
  const ov = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const gap = (x, y, o) => Math.hypot(Math.max(o.left - x, 0, x - o.right), Math.max(o.top - y, 0, y - o.bottom));
  const hits = [...f.querySelectorAll('rect.hit')].map(h => [h, h.getBoundingClientRect()]);
  return [...f.querySelectorAll('.pin')].map(p => {
    const c = p.querySelector('circle').getBoundingClientRect(), x = (c.left + c.right) / 2, y = (c.top + c.bottom) / 2;
    const own = f.querySelector(`.outline[data-pile="${p.dataset.pile}"]`).getBoundingClientRect();
    const near = hits.map(([h, b]) => [h, b, gap(x, y, b)]).sort((a, b) => a[2] - b[2])[0];
    const nb = near[1], at = [Math.min(Math.max(x, nb.left + 2), nb.right - 2), Math.min(Math.max(y, nb.top + 2), nb.bottom - 2)];
    return {pin: p.dataset.pin, pile: p.dataset.pile, covers: hits.filter(([, b]) => ov(c, b)).map(([h]) => h.dataset.code),
            gap: Math.max(0, gap(x, y, own) - c.width / 2),
            inside: [...f.querySelectorAll('.outline[data-pile]')].filter(o => o.dataset.pile !== p.dataset.pile)
              .filter(o => gap(x, y, o.getBoundingClientRect()) === 0).map(o => o.dataset.pile),
            near: {card: near[0].dataset.card, at}};
  });"""


def _photo_shown(d) -> None:
    """Wait for the photo loaded and its frame sized (the pins and labels laid out)."""
    until(d, lambda d: d.execute_script("return document.querySelector('.glance img').complete"
                                        " && document.querySelector('.glance-frame[data-labelled]')"))
    time.sleep(0.5)


def _whole_above_save(d) -> dict:
    """At the top of the page: the total under the header, the photo and its legend whole above the Save bar."""
    m = d.execute_script(FIRST_SCREEN)
    assert m["scrolled"] == 0, m
    assert m["header"][1] <= m["totals"][0] and m["totals"][1] <= m["frame"][0], m
    assert m["frame"][1] <= m["legend"][0] and m["legend"][1] <= m["bar"][0], m
    return m


def test_the_total_and_the_whole_photo_are_on_the_first_screen(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 390, 844)
    _photo_shown(d)
    d.save_screenshot(str(shots / "check_first_screen_390.png"))
    m = _whole_above_save(d)
    assert m["frame"][1] - m["frame"][0] >= 360, m  # still a large photo: most of the screen's width high

    # a move makes the Save bar taller for a while (the note of what moved): the photo keeps its height
    threes = d.find_element(By.CSS_SELECTOR, ".glance svg .hit[data-code='3H']")
    d.execute_script("arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}))", threes)
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    Select(d.find_element(By.ID, "move-to")).select_by_value("new:loose")
    d.find_element(By.CSS_SELECTOR, "#sheet button.primary").click()
    until(d, lambda d: text_of(d, "#moved-note"))
    time.sleep(0.5)
    assert d.execute_script("return document.querySelector('.glance-frame').offsetHeight") == round(m["frame"][1] - m["frame"][0])
    assert console_errors(d) == []


def test_the_total_and_the_whole_photo_are_on_the_first_screen_in_large_type(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 390, 844)
    _photo_shown(d)
    # large type, switched on here: the total and the photo still both on the first screen
    d.find_element(By.ID, "large-type").click()
    d.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.5)
    d.save_screenshot(str(shots / "check_first_screen_large_390.png"))
    m = _whole_above_save(d)
    assert m["frame"][1] - m["frame"][0] >= 240, m
    d.refresh()  # and so when the view opens in large type
    until(d, lambda d: text_of(d, "[data-round-total='Us']") not in (None, ""))
    _photo_shown(d)
    again = _whole_above_save(d)
    assert all(abs(a - b) < 1 for k in ("totals", "frame") for a, b in zip(again[k], m[k])), (again, m)
    d.find_element(By.ID, "large-type").click()
    assert console_errors(d) == []


NOTED = """
import sys
import handfoot.results as results
real = results.pile_dict
def noted(pile_id, side, pile):
    out = real(pile_id, side, pile)
    out["notes"] = [*out["notes"], "looked at twice"]
    return out
results.pile_dict = noted
from handfoot.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


@pytest.fixture()
def noted(tmp_path):
    """``handfoot serve`` whose readings give every pile a note (a pin each on the photo)."""
    with running(tmp_path, command=[sys.executable, "-c", NOTED]) as url:
        yield url


def test_pins_leave_the_cards_boxes_free_to_tap(noted, browser, tmp_path):
    d = browser
    open_new_check(d, noted, 390, 844)
    _photo_shown(d)
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'start'})")
    time.sleep(0.3)
    d.save_screenshot(str(shots_dir(tmp_path) / "check_pins_beside_390.png"))
    pins = d.execute_script(PINS)
    assert len(pins) == 5, pins  # the red threes, the queens, the eights, the kings, the squared book
    for p in pins:
        assert p["covers"] == [], p  # no card's box under a pin
        assert p["gap"] <= 4 and p["inside"] == [], p  # in its own pile's outline or touching it; in no other's

    # a tap on the card right beside each pin opens that card's editor, not the note
    for p in pins:
        x, y = p["near"]["at"]
        for kind in ("mousePressed", "mouseReleased"):
            d.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
        title = text_of(d, "#sheet-title")
        assert not title.startswith("Note") and d.find_elements(By.CSS_SELECTOR, "#sheet button[data-rank]"), (p, title)
        d.execute_script("document.getElementById('sheet').close()")
    assert console_errors(d) == []


def test_the_card_editors_title_follows_the_card_picked(server, browser, tmp_path):
    d = browser
    open_new_check(d, server, 390, 844)
    _photo_shown(d)
    threes = d.find_element(By.CSS_SELECTOR, ".glance svg .hit[data-code='3H']")
    d.execute_script("arguments[0].dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}))", threes)
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert text_of(d, "#sheet-title") == "3 of hearts (red threes)"
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-rank='J']").click()
    assert text_of(d, "#sheet-title") == "3♥ → J♥ (red threes)"
    d.save_screenshot(str(shots_dir(tmp_path) / "check_editor_title_390.png"))
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-suit='S']").click()
    assert text_of(d, "#sheet-title") == "3♥ → J♠ (red threes)"
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-rank='JK']").click()
    assert text_of(d, "#sheet-title") == "3♥ → Jkr (red threes)"
    for css in ("button[data-rank='3']", "button[data-suit='H']"):  # the card's own again
        d.find_element(By.CSS_SELECTOR, f"#sheet {css}").click()
    assert text_of(d, "#sheet-title") == "3 of hearts (red threes)"
    assert console_errors(d) == []
