"""What an accessibility trial of the page found, end to end: a real ``handfoot serve`` (127.0.0.1, a temporary ledger,
the shipped models) and headless Chromium (selenium) at 390 x 844 (1280 x 800 for a computer's window), the example
photo ``examples/table.jpg`` read in the check view.

- A screen reader says every card in words ("9 of hearts", "jack of hearts", "joker"), never its symbols ("9
  black heart suit"): the photo's cards and pins, the notes under it, the piles (whole and folded), the note's and
  the card's sheets, the card picker, "Move it to…" and the note over Save after a move; the page still shows 9♥.
  Read from Chromium's accessibility tree, what a screen reader is given.
- The new game's house rules are a group named "House rules (optional)", each of its parts one named by its heading.
- On the photo the arrow keys follow the cards as they lie: left and right in reading order (left to right, the
  rows top to bottom), up and down to the nearest card above or below (they followed the piles' order); each card
  says where it is in that order.
- A photo saved as a round and opened again says so on its held Save button ("Saved as round 1", not "Save round
  2"), and the line under it says when changes made here are not in that round.
- In large type, where cards have no room for their label, a line under the photo counts them and shows each one's
  label in turn.
- In a 1280 x 800 window the photo beside the piles takes the height the window leaves it (it was no larger than on
  a phone).

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import re
import statistics
import time

import pytest

# test_page_e2e skips without selenium, uvicorn or cv2, and keeps Selenium Manager offline
from test_page_e2e import browser, console_errors, shots_dir, text_of, viewport  # noqa: F401  (fixture)
from test_page_access_e2e import _keys, _settings
from test_page_landscape_e2e import open_new_check
from test_page_two_phones import press_save, server, until  # noqa: F401  (fixture)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

SUITS = "♠♥♦♣"
# a role whose name a screen reader says in place of the text inside it (its name given by aria-label)
NAMED_WHOLE = {"button", "option", "image", "img", "menuitem"}


def _tree(d) -> tuple[list[dict], dict]:
    """Chromium's accessibility tree now, what a screen reader is given: its nodes, and them by id."""
    d.execute_cdp_cmd("Accessibility.enable", {})
    nodes = d.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    return nodes, {n["nodeId"]: n for n in nodes}


def _role(n) -> str:
    return (n.get("role") or {}).get("value", "")


def _name(n) -> str:
    """A node's name, each run of spaces one, none at its ends."""
    return " ".join(str((n.get("name") or {}).get("value", "")).split())


def _said(d) -> list[tuple[str, str]]:
    """(role, name) of every node of the accessibility tree that is not ignored, leaving out the text inside a node
    said as a whole by its name (a button named in words)."""
    nodes, by_id = _tree(d)

    def inside_named(n) -> bool:
        p = by_id.get(n.get("parentId"))
        while p:
            if _role(p) in NAMED_WHOLE and _name(p):
                return True
            p = by_id.get(p.get("parentId"))
        return False

    return [(_role(n), _name(n)) for n in nodes if not n.get("ignored") and _name(n)
            and not (_role(n) in ("StaticText", "InlineTextBox") and inside_named(n))]


def _texts(d, role: str) -> list[str]:
    """The text a screen reader reads in each node of role ``role`` (a list item, a status line): its text pieces
    joined, in order, each run of spaces one and none before a punctuation mark."""
    nodes, by_id = _tree(d)

    def text(n) -> str:
        if _role(n) == "StaticText":
            return str(n["name"]["value"])
        return "".join(text(by_id[c]) for c in n.get("childIds", []) if c in by_id)

    return [re.sub(r" ([:;,.)])", r"\1", " ".join(text(n).split())) for n in nodes if _role(n) == role and not n.get("ignored")]


def _symbols(d) -> list[tuple[str, str]]:
    """The nodes a screen reader is given with a card's suit symbol (or "Jkr") in what it says."""
    return [(r, t) for r, t in _said(d) if any(s in t for s in SUITS) or "Jkr" in t]


def test_a_screen_reader_says_every_card_in_words(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 390, 844)
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".glance svg .pin"))
    d.execute_script("document.getElementById('open-all-piles').click()")  # every pile whole: its verdict, notes and cards
    d.execute_script("document.querySelector('.breakdown-box').open = true")
    time.sleep(0.5)
    assert _symbols(d) == []
    said = _said(d)
    # the note about the squared book under 9♥: on its pin, in the list under the photo, on its pile
    pin = next(t for r, t in said if r == "button" and t.startswith("note 1:"))
    assert "9 of hearts" in pin and "9♥" not in pin, pin
    assert any(t.startswith("Us: clean book (squared, 7 cards) 9 of hearts: 9 of hearts is taken as the top card")
               for t in _texts(d, "listitem")), _texts(d, "listitem")
    assert "9♥ is taken as the top card" in text_of(d, ".note-list li")  # shown as before
    assert any(r == "button" and t.startswith("king of hearts") for r, t in said)  # the photo's cards, in words
    d.save_screenshot(str(shots / "page_access_words_piles_390.png"))

    # the note's sheet: its text and its cards
    d.execute_script("document.querySelector('.note-list .pin-button').click()")
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    time.sleep(0.3)
    assert _symbols(d) == []
    assert any(r == "button" and t == "9 of hearts: correct it" for r, t in _said(d))
    d.execute_script("document.getElementById('sheet').close()")

    # the card's sheet from the photo (the first card, a red three), a jack picked: its title, the picker, Move it to…
    d.execute_script("document.querySelector('.glance svg .hit').focus()")
    _keys(d, Keys.ENTER)
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-rank='J']").click()
    time.sleep(0.3)
    assert text_of(d, "#sheet-title") == "3♥ → J♥ (red threes)"  # shown as before
    said = _said(d)
    assert ("dialog", "3 of hearts → jack of hearts (red threes)") in said, [s for s in said if s[0] == "dialog"]
    assert ("button", "rank jack") in said and ("button", "hearts") in said
    assert _symbols(d) == []
    d.save_screenshot(str(shots / "page_access_words_sheet_390.png"))

    # moved to another pile: the note over Save says what moved, in words
    move = d.find_element(By.ID, "move-to")
    target = d.execute_script("return [...arguments[0].options].find(o => o.value && !o.value.startsWith('new:')).value", move)
    d.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change'))", move, target)
    d.find_element(By.CSS_SELECTOR, "#sheet button.primary").click()
    until(d, lambda d: (text_of(d, "#moved-note") or "").startswith("Us: moved J♥"))
    time.sleep(0.3)
    assert _symbols(d) == []
    moved = [t for t in _texts(d, "status") if "moved" in t]
    assert moved and moved[0].startswith("Us: moved jack of hearts to meld queen of hearts queen of spades "), moved
    assert console_errors(d) == []


def test_the_house_rules_are_a_named_group(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    viewport(d, 390, 844)
    d.get(f"{server}/#/new")
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "details.panel input[type=checkbox]"))
    d.execute_script("document.querySelector('details.panel').open = true")
    group = lambda css: d.execute_script("return document.querySelector(arguments[0]).closest('[role=group], fieldset')", css)  # noqa: E731
    box = group("details.panel input[type=checkbox]")
    assert box is not None and box.accessible_name == "House rules (optional)"
    points = group("details.panel input[type=number]")
    assert points is not None and points.accessible_name == "Points"
    rounds = group("details.panel input[data-list]")
    assert rounds is not None and rounds.accessible_name == "Rounds"
    assert rounds.find_element(By.XPATH, "..").accessible_name == "House rules (optional)"
    d.execute_script("arguments[0].scrollIntoView({block: 'start'})", box)
    d.save_screenshot(str(shots / "page_access_house_rules_390.png"))
    assert console_errors(d) == []


# the card focused: its id and the middle of its box, image px
WHERE = """const e = document.activeElement, x = +e.getAttribute('x'), y = +e.getAttribute('y');
  return [e.dataset.card, x + +e.getAttribute('width') / 2, y + +e.getAttribute('height') / 2, +e.getAttribute('height'),
          e.getAttribute('aria-label')];"""


def test_the_arrow_keys_follow_the_cards_as_they_lie_on_the_photo(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 390, 844)
    _settings(d, large=False, dark=False)
    ids = d.execute_script("return [...document.querySelectorAll('.glance svg .hit')].map(r => r.dataset.card)")
    n = len(ids)
    assert n > 20
    d.execute_script("document.querySelector('.glance svg .hit[tabindex=\"0\"]').focus()")
    _keys(d, Keys.HOME)
    seen = [d.execute_script(WHERE)]
    for _ in range(n - 1):
        _keys(d, Keys.ARROW_RIGHT)
        seen.append(d.execute_script(WHERE))
    assert sorted(s[0] for s in seen) == sorted(ids)  # every card once
    assert _keys(d, Keys.ARROW_RIGHT)["card"] == seen[-1][0]  # the last card: Right stays
    tall = statistics.median(s[3] for s in seen)
    # Right reads the photo: no card comes after one it lies a card's height or more above, and a step back to the
    # left starts a line lower down
    for i, a in enumerate(seen):
        assert all(b[2] >= a[2] - tall for b in seen[i + 1:]), (a, [b for b in seen[i + 1:] if b[2] < a[2] - tall])
    for a, b in zip(seen, seen[1:]):
        assert b[1] > a[1] or b[2] >= a[2], (a, b)
    # each card says where it is in that order
    assert re.search(rf"\(card 1 of {n}, row 1 of \d+\)$", seen[0][4]), seen[0][4]
    rows = int(re.search(r"row 1 of (\d+)", seen[0][4])[1])
    assert seen[-1][4].endswith(f"(card {n} of {n}, row {rows} of {rows})"), seen[-1][4]

    # Down and Up: the nearest card lower or higher on the photo, nothing nearer among those a card's height away
    for k in range(0, n, 2):
        start = seen[k]
        for key, sign in ((Keys.ARROW_DOWN, 1), (Keys.ARROW_UP, -1)):
            d.execute_script("document.querySelectorAll('.glance svg .hit')[arguments[0]].focus()", k)
            _keys(d, key)
            got = d.execute_script(WHERE)
            far = [c for c in seen if sign * (c[2] - start[2]) > tall + 1]
            dist = lambda c: ((c[1] - start[1]) ** 2 + (c[2] - start[2]) ** 2) ** 0.5  # noqa: E731
            if got[1:3] == start[1:3]:
                assert not far, (key, start, far)  # the edge: none lower (higher)
                continue
            assert sign * (got[2] - start[2]) >= 0, (key, start, got)
            assert all(dist(c) >= dist(got) - 0.01 for c in far), (key, start, got, min(far, key=dist))
    d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots / "page_access_reading_order_390.png"))
    assert console_errors(d) == []


# the contrast ratio (WCAG) of the held Save button's words on it, its opacity applied to both
HELD_CONTRAST = """
const b = document.getElementById('save-round'), st = getComputedStyle(b);
const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
const page = rgb(getComputedStyle(document.body).backgroundColor), op = Number(st.opacity);
const over = (c) => rgb(c).map((v, k) => v * op + page[k] * (1 - op));
const lum = (c) => { const [r, g, bl] = c.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
                     return 0.2126 * r + 0.7152 * g + 0.0722 * bl; };
const x = lum(over(st.backgroundColor)), y = lum(over(st.color));
return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);"""


def test_a_saved_round_opened_again_says_it_is_saved(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    game, reading = open_new_check(d, server, 390, 844)
    press_save(d)
    until(d, lambda d: "/check/" not in d.current_url)
    d.get(f"{server}/#/game/{game}/check/{reading}")  # Back to the photo saved
    until(d, lambda d: "Saved already as round 1" in (text_of(d, "#save-why") or ""))
    save = d.find_element(By.ID, "save-round")
    assert save.text == "Saved as round 1" and not save.is_enabled(), save.text
    # held, its words read on it in both modes (dark: half the accent under dark text, 2.3:1)
    for dark in ("0", "1"):
        d.execute_script("document.documentElement.classList.toggle('dark', arguments[0] === '1')", dark)
        ratio = d.execute_script(HELD_CONTRAST)
        assert ratio >= 4.5, (dark, ratio)
    d.execute_script("document.documentElement.classList.remove('dark')")
    d.execute_script("document.querySelector('.sticky-actions').scrollIntoView()")
    d.save_screenshot(str(shots / "page_access_saved_again_390.png"))
    # a change made here: the line says it is not in round 1
    d.execute_script("document.querySelector('.glance svg .hit').focus()")
    _keys(d, Keys.ENTER)
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Delete").click()
    until(d, lambda d: "without your changes here" in (text_of(d, "#save-why") or ""))
    assert text_of(d, "#save-round") == "Saved as round 1"
    assert d.find_element(By.ID, "add-mine")  # the notice offers adding them to round 1
    d.save_screenshot(str(shots / "page_access_saved_again_changed_390.png"))
    assert console_errors(d) == []


SHOWN = """const f = document.querySelector('.glance-frame'), b = f.getBoundingClientRect();
  const l = document.querySelector('.glance svg .label.tapped'), r = l && l.getBoundingClientRect();
  return {labelled: f.dataset.labelled, note: (document.querySelector('.unlabelled-note:not([hidden])') || {}).textContent || null,
          tapped: l && l.dataset.label, inside: !!r && r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1,
          unlabelled: [...document.querySelectorAll('.glance svg .hit.unlabelled')].map(h => h.dataset.card)};"""


def test_cards_without_a_label_in_large_type_are_counted_and_shown(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    open_new_check(d, server, 390, 844)
    _settings(d, large=False, dark=False)
    normal = d.execute_script(SHOWN)
    shown, total = map(int, normal["labelled"].split("/"))
    assert normal["note"] is None if shown == total else normal["note"].startswith(f"{total - shown} of {total}")
    _settings(d, large=True, dark=False)
    large = d.execute_script(SHOWN)
    shown, total = map(int, large["labelled"].split("/"))
    print("labelled in large type", large["labelled"])
    missing = large["unlabelled"]
    assert shown < total and len(missing) == total - shown  # the case: some have no room
    assert large["note"].startswith(f"{total - shown} of {total} cards have no room for their labels"), large["note"]
    # "Show them one by one": each unlabelled card's label in turn, inside the frame, the focus kept on the button
    button = d.find_element(By.CSS_SELECTOR, ".unlabelled-note button")
    d.execute_script("arguments[0].scrollIntoView({block: 'end'})", button)
    shown_in_turn = []
    for k in range(len(missing)):
        d.find_element(By.CSS_SELECTOR, ".unlabelled-note button").click()
        time.sleep(0.2)
        now = d.execute_script(SHOWN)
        assert now["inside"], now
        shown_in_turn.append(now["tapped"])
        if k == 0:
            d.execute_script("document.querySelector('.glance-frame').scrollIntoView({block: 'start'})")
            d.save_screenshot(str(shots / "page_access_unlabelled_shown_large_390.png"))
    assert sorted(shown_in_turn) == sorted(missing), (shown_in_turn, missing)
    assert d.execute_script("return document.activeElement.closest('.unlabelled-note') !== null")
    assert "of" in text_of(d, ".unlabelled-note button")
    assert console_errors(d) == []


# the photo's frame: its height, its zoom (CSS px per image px), and whether it, its legend and its zoom buttons lie
# whole between the header and the Save bar
FRAME = """const f = document.querySelector('.glance-frame'), b = f.getBoundingClientRect();
  const top = document.querySelector('header.bar').getBoundingClientRect().bottom;
  const bar = document.querySelector('.sticky-actions').getBoundingClientRect().top;
  const tools = document.querySelector('.glance-tools').getBoundingClientRect();
  return {height: b.height, width: b.width, zoom: +f.dataset.zoom, whole: b.top >= top - 1 && tools.bottom <= bar + 1};"""


def test_a_computers_window_gives_the_photo_its_room(server, browser, tmp_path):
    d, shots = browser, shots_dir(tmp_path)
    game, reading = open_new_check(d, server, 390, 844)
    _settings(d, large=False, dark=False)
    phone = d.execute_script(FRAME)
    viewport(d, 1280, 800)
    d.refresh()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".glance svg .label"))
    time.sleep(0.8)
    # scrolled down to the piles: the photo is held beside them, whole
    d.execute_script("scrollTo(0, document.querySelector('.check-layout').getBoundingClientRect().top + scrollY - 60)")
    time.sleep(0.5)
    wide = d.execute_script(FRAME)
    print("phone", phone, "1280 x 800", wide)
    d.save_screenshot(str(shots / "page_access_photo_1280.png"))
    assert wide["whole"], wide
    assert wide["height"] >= 1.25 * phone["height"], (phone, wide)
    assert wide["zoom"] >= 1.25 * phone["zoom"], (phone, wide)
    assert console_errors(d) == []
