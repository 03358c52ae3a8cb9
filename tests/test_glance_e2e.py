"""The check view at a glance on a phone (390 x 844), measured in headless Chromium on the bundled example photo
(a held-out card design) read by a real ``handfoot serve``:

- the photo comes first, opened on its cards; every card's box is labelled with its code (10♥) in type at least
  12 CSS px where the label fits beside it, and most do; the others show theirs once zoomed in;
- the piles are outlined in their kind's colour; each note is a numbered pin; tapping a box or a pin opens the
  picker; the cards (the photo) and the notes are reviewable within three screen heights;
- one card notation: no card code such as 10H in the notes;
- a toast (a refused change) covers nothing: it sits in the sticky header, above the page.

Screenshots (the check view zoomed and not) go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import re

import pytest

from conftest import once

pytest.importorskip("selenium")
pytest.importorskip("cv2")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_page_e2e import PHOTO, browser, console_errors, server, shots_dir, text_of, viewport  # noqa: E402,F401


def test_the_check_view_at_a_glance(server, browser, tmp_path):
    import httpx

    game = httpx.post(server + "/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    with open(PHOTO, "rb") as f:
        r = httpx.post(server + "/v1/photos", files={"photos": ("table.jpg", f, "image/jpeg")},
                       data={"teams": "Us", "rules": "pagat", "round": "1"}, timeout=120, headers=once())
    assert r.status_code == 201, r.text
    reading = r.json()["id"]
    shots = shots_dir(tmp_path)
    d = browser
    wait = WebDriverWait(d, 60)
    viewport(d, 390, 844)
    d.get(f"{server}/#/game/{game}/check/{reading}")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".glance-frame[data-labelled]"))
    wait.until(lambda d: d.execute_script("return document.querySelector('.glance img').complete"))

    m = d.execute_script("""
      const frame = document.querySelector('.glance-frame');
      const z = +frame.dataset.zoom;
      const texts = [...document.querySelectorAll('.glance .label text')];
      const sizes = texts.map(t => t.getBoundingClientRect().height);
      const fonts = texts.map(t => +t.getAttribute('font-size') * z);
      const [shown, all] = frame.dataset.labelled.split('/').map(Number);
      const notes = document.querySelector('.notes');
      return {zoom: z, shown, all, fonts, sizes, labels: texts.map(t => t.textContent),
              photoTop: frame.getBoundingClientRect().top + scrollY,
              reviewed: Math.max(frame.getBoundingClientRect().bottom, notes ? notes.getBoundingClientRect().bottom : 0) + scrollY,
              outlines: [...document.querySelectorAll('.glance svg .outline')].map(o => [o.dataset.pile, o.getAttribute('class'), getComputedStyle(o).stroke]),
              pins: [...document.querySelectorAll('.glance .pin')].map(p => p.dataset.pin),
              notes: [...document.querySelectorAll('.note-list li')].map(li => li.textContent),
              boxes: document.querySelectorAll('.glance rect.hit').length};
    """)
    print({k: v for k, v in m.items() if k not in ("fonts", "sizes")}, "label font px", min(m["fonts"]))
    assert m["all"] == m["boxes"] > 20
    assert m["shown"] >= 0.5 * m["all"], m  # most cards named at the default zoom
    assert min(m["fonts"]) >= 12 and min(m["sizes"]) >= 10  # 12 CSS px type (a glyph's box a little less)
    assert all(re.fullmatch(r"(10|[2-9AJQK])[♠♥♦♣]|Jkr", t) for t in m["labels"]), m["labels"]
    assert m["photoTop"] < 844 / 2  # the photo is the first thing under the totals
    assert m["reviewed"] <= 3 * 844, m["reviewed"]  # the cards and the notes within three screen heights
    kinds = {c.split()[1] for _, c, _ in m["outlines"]}
    assert {"meld", "squared"} <= kinds and len({s for *_, s in m["outlines"]}) >= 2  # coloured by kind
    assert m["pins"] and m["pins"] == [str(k) for k in range(1, len(m["pins"]) + 1)]
    assert not any(re.search(r"\b(10|[2-9AJQK])[SHDC]\b", n) for n in m["notes"]), m["notes"]  # 10♥, never 10H
    d.save_screenshot(str(shots / "page_check_glance_390.png"))

    # a pin opens its note with the pile's cards; a card opens the picker
    d.execute_script("document.querySelector('.glance .pin').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    wait.until(lambda d: d.find_element(By.ID, "sheet").is_displayed())
    assert (text_of(d, "#sheet-title") or "").startswith("Note 1")
    d.find_element(By.CSS_SELECTOR, "#sheet .chip").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet button[data-rank]"))
    d.execute_script("document.getElementById('sheet').close()")

    # zoomed in: more labels fit, still 12 CSS px
    d.execute_script("window.scrollTo(0, document.querySelector('.glance-frame').getBoundingClientRect().top"
                     " + scrollY - document.querySelector('header').offsetHeight - 8)")

    # two fingers spread on the photo zoom it about their middle (touch events, as a phone sends them)
    d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    r = d.execute_script("const b = document.querySelector('.glance-frame').getBoundingClientRect();"
                         "return [b.left + b.width / 2, b.top + b.height / 2]")
    cx, cy = r

    def touch(kind, spread):
        points = [] if kind == "touchEnd" else [{"x": cx - spread, "y": cy, "id": 1}, {"x": cx + spread, "y": cy, "id": 2}]
        d.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
    touch("touchStart", 30)
    for spread in range(40, 130, 10):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    pinched = float(d.execute_script("return document.querySelector('.glance-frame').dataset.zoom"))
    assert pinched > 2 * m["zoom"], (pinched, m["zoom"])  # the fingers moved 30 -> 120 px apart: about 4x
    d.execute_script("document.querySelector('.zoom-fit').click()")
    for _ in range(2):  # the buttons under the photo (a pinch does the same)
        d.execute_script("document.querySelector('.zoom-in').click()")
    z = d.execute_script("""
      const frame = document.querySelector('.glance-frame'), f = frame.getBoundingClientRect();
      const texts = [...document.querySelectorAll('.glance .label text')];
      const inView = [...document.querySelectorAll('.glance rect.hit')].filter(r => { const b = r.getBoundingClientRect();
        return b.left >= f.left && b.right <= f.right && b.top >= f.top && b.bottom <= f.bottom; });
      return {zoom: +frame.dataset.zoom, inView: inView.length, labelled: inView.filter(r => !r.classList.contains('unlabelled')).length,
              font: Math.min(...texts.map(t => +t.getAttribute('font-size') * +frame.dataset.zoom))};
    """)
    print("zoomed in:", z, "the whole view:", m["shown"], "of", m["all"], "labelled")
    # of the cards in the frame zoomed in (labels lie in the frame), a larger share is labelled than of all at first
    assert z["zoom"] > 2 * m["zoom"] and z["inView"] >= 3 and z["labelled"] / z["inView"] >= m["shown"] / m["all"]
    assert z["font"] >= 12
    # every label shown names a card at least partly in the part of the photo shown (none piled at its edge for
    # cards out of view, looking like cards that are not there)
    astray = d.execute_script("""
      const f = document.querySelector('.glance-frame').getBoundingClientRect();
      const out = (b) => b.right < f.left || b.left > f.right || b.bottom < f.top || b.top > f.bottom;
      return [...document.querySelectorAll('.glance .label:not(.tapped)')].filter(l =>
        [...document.querySelectorAll(`.glance rect.hit[data-card="${CSS.escape(l.dataset.label)}"]`)]
          .every(hit => out(hit.getBoundingClientRect()))).map(l => l.textContent)""")
    assert astray == [], astray
    d.save_screenshot(str(shots / "page_check_zoomed_390.png"))
    box = d.find_elements(By.CSS_SELECTOR, ".glance rect.hit")
    tapped = next(b for b in box if b.is_displayed() and b.rect["x"] > 0 and b.rect["y"] > 0)
    d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", tapped)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet button[data-rank]"))
    d.execute_script("document.getElementById('sheet').close()")

    # zoomed out to the whole photo, some labels have no room: a tap on such a box shows its label (and the picker)
    for _ in range(6):
        d.execute_script("document.querySelector('.zoom-out').click()")
    shown, total = map(int, d.execute_script("return document.querySelector('.glance-frame').dataset.labelled").split("/"))
    hidden = d.find_elements(By.CSS_SELECTOR, ".glance rect.hit.unlabelled")
    assert shown < total and len(hidden) == total - shown
    counts = len(d.find_elements(By.CSS_SELECTOR, ".glance g.count"))
    assert counts, "the fans' card counts are tagged on the photo"
    d.execute_script("for (const t of ['pointerdown', 'pointerup', 'click']) arguments[0].dispatchEvent("
                     "new MouseEvent(t, {bubbles: true}))", hidden[0])
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet button[data-rank]"))
    d.execute_script("document.getElementById('sheet').close()")
    tapped = d.execute_script("const l = document.querySelector('.glance .label.tapped');"
                              "return l && [l.dataset.label, l.textContent]")
    assert tapped and tapped[0] == hidden[0].get_attribute("data-card"), tapped
    # the label shown for the tap leaves the fans' counts and the pins on the photo (they were cleared with it)
    assert len(d.find_elements(By.CSS_SELECTOR, ".glance g.count")) == counts
    d.execute_script("document.querySelector('.zoom-fit').click()")

    # a toast sits in the sticky header and moves the page down: what was under the header stays in view
    notes = d.find_element(By.CSS_SELECTOR, ".notes")
    d.execute_script("window.scrollTo(0, arguments[0].getBoundingClientRect().top + scrollY"
                     " - document.querySelector('header').offsetHeight)", notes)
    d.execute_script("return import('/static/ui.js').then(m => m.toast('a refused change, in words', true))")
    gap = d.execute_script("return document.querySelector('.notes').getBoundingClientRect().top"
                           " - document.getElementById('toast').getBoundingClientRect().bottom")
    assert gap >= 0, gap
    d.save_screenshot(str(shots / "page_check_toast_390.png"))
    assert console_errors(d) == []


#: On the page, in the photo's frame ``arguments[0]``: each pin (its note's number and pile) with the piles whose
#: outline holds its centre, the piles whose outline its ring touches or comes within 4 CSS px of, and the card
#: boxes its circle covers (their codes); and the labels not whole in the frame
#: (CSS px; the frame's width is a whole number of pixels to the page's layout, so half a pixel either way is inside).
MARKS = """
  const f = arguments[0], fr = f.getBoundingClientRect();
  const gap = (x, y, o) => Math.hypot(Math.max(o.left - x, 0, x - o.right), Math.max(o.top - y, 0, y - o.bottom));
  const ov = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const outlines = [...f.querySelectorAll('.outline[data-pile]')].map(o => [o.dataset.pile, o.getBoundingClientRect()]);
  return {pins: [...f.querySelectorAll('.pin')].map(p => {
            const r = p.querySelector('circle').getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
            return [p.dataset.pin, p.dataset.pile, outlines.filter(([, o]) => gap(x, y, o) === 0).map(([id]) => id),
                    outlines.filter(([, o]) => gap(x, y, o) <= r.width / 2 + 4).map(([id]) => id),
                    [...f.querySelectorAll('rect.hit')].filter(h => ov(r, h.getBoundingClientRect())).map(h => h.dataset.code)]; }),
          cut: [...f.querySelectorAll('.label')].map(l => [l.textContent, l.getBoundingClientRect()])
            .filter(([, r]) => r.left < fr.left - 1 || r.right > fr.right + 1 || r.top < fr.top - 1 || r.bottom > fr.bottom + 1)
            .map(([t]) => t)};
"""


def _marks(d) -> dict:
    return d.execute_script(MARKS, d.find_element(By.CSS_SELECTOR, ".glance-frame"))


def _check_view(d, url: str, photo, teams: str = "Us") -> None:
    """The check view of ``photo`` read by the server at ``url`` for a new game, its photo loaded."""
    import httpx

    game = httpx.post(url + "/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    r = httpx.post(url + "/v1/photos", files={"photos": (photo.name, photo.read_bytes(), "image/jpeg")},
                   data={"teams": teams, "rules": "pagat", "round": "1"}, timeout=120, headers=once())
    assert r.status_code == 201, r.text
    d.get(f"{url}/#/game/{game}/check/{r.json()['id']}")
    wait = WebDriverWait(d, 60)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".glance-frame[data-labelled]"))
    wait.until(lambda d: d.execute_script("return document.querySelector('.glance img').complete"))
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'start'})")


def test_each_pin_sits_on_its_pile_and_labels_stay_in_the_frame(server, browser, tmp_path):
    """The bundled photo (the queens' meld misread, a note of the rules'; the squared book, a note of the camera's):
    each pin's centre lies inside its own pile's outline and no other's, or beside its own only, where the outlines
    of the queens, the 8s and the red threes overlap; zoomed in, every card label lies whole inside the photo's
    frame, as the pins do."""
    d = browser
    viewport(d, 390, 844)
    _check_view(d, server, PHOTO)
    m = _marks(d)
    assert len(m["pins"]) == 2 and all(inside == [pile] for _, pile, inside, *_ in m["pins"]), m["pins"]
    assert m["cut"] == []
    for _ in range(2):
        d.execute_script("document.querySelector('.glance .zoom-in').click()")
    m = _marks(d)
    assert m["pins"] and all(inside == [pile] for _, pile, inside, *_ in m["pins"]), m["pins"]
    assert m["cut"] == [], m["cut"]  # the cards at the frame's edges are labelled inside it, or not at all
    d.save_screenshot(str(shots_dir(tmp_path) / "page_check_pins_zoomed_390.png"))
    assert console_errors(d) == []


def test_each_pin_sits_on_its_pile_on_a_photoreal_table(shared_dir, server, browser, tmp_path):
    """A photoreal table of ten piles in two rows (``tables_examples/000.jpg``), six of them with a note: each pin
    inside its own pile's outline and no other's (none between two books, above the row), or, where that would
    cover a card's box (two covered a joker's in fans full of boxes), beside its own, its centre in no outline; none
    over a card's box."""
    d = browser
    viewport(d, 390, 844)
    _check_view(d, server, shared_dir / "tables_examples" / "000.jpg")
    m = _marks(d)
    assert len(m["pins"]) >= 4 and all((inside == [pile] or inside == [] and pile in near) and covers == []
                                       for _, pile, inside, near, covers in m["pins"]), m["pins"]
    assert m["cut"] == []
    d.save_screenshot(str(shots_dir(tmp_path) / "page_check_pins_photoreal_390.png"))
    assert console_errors(d) == []
