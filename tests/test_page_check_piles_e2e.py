"""The check view of a table of many piles at a phone's size, end to end: a real ``handfoot serve`` (127.0.0.1, a
temporary ledger, the shipped models) and headless Chromium (selenium) at 390 x 844.

The table: three photos of the bundled example (two of team Us, one of Them) and a few cards typed in as still held,
17 piles in all. The application layer's pile builder is wrapped in the server's process so that the photos are three
tables, not one read thrice: the second photo's ranks are others (kings read as aces, queens as jacks, eights as sixes,
nines as tens) with one jack read unsure, and on the third the book of kings is a mixed fan of sevens and fours read
as cards left in hand.

- The piles that need nothing (no problem, no note, no unsure card) are one line each (name, number of cards, cards,
  points), a tap opens one whole and folds it back; those that need a look show whole in place; "Open all" shows every pile.
  A real webcam photo (the shared data, when present) whose every pile needs a look shows no summary line and
  nothing stray before the piles.
- A card moved to another pile (on the card editor's Save, the page kept where it was) is said over Save (what
  moved, from where, to where; a red three held moved to a new pile of red threes) and its pile shown; Undo takes
  the whole move back, also a move that is two corrections (a new code, a new pile). The focus follows: on the
  card where it went, on the card Undo put back, on the team of a pile removed, on a pile made.
- A pin stays whole inside the photo's frame when its pile is at the frame's edge (zoomed in and panned there).
- A mixed fan read as cards left in hand (open: it counts against the team) becomes two melds in four taps: its
  kind (two taps), Split, the
  first card of the second meld; the focus stays on the kind, goes to the pile the split made, and to the pile
  joined into.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import json
import sys

import pytest
from conftest import once, SHARED

# test_page_e2e skips this module where selenium, uvicorn or cv2 is missing (and keeps Selenium Manager offline)
from test_page_e2e import PHOTO, browser, console_errors, focused, open_pile, running, shots_dir, text_of, viewport  # noqa: F401
from test_page_two_phones import _open_check, until

httpx = pytest.importorskip("httpx")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

FAN = ["7H", "7S", "7D", "7C", "4H", "4S", "4D"]  # the third photo's book of kings, read as cards left in hand
#: the piles that need a look: the three squared books (a note each: their stacks are not counted) and the jacks
#: (one read unsure)
LOOK = {"i0p4", "i1p4", "i2p4", "i1p1", "i2p3"}  # i2p3: cards the camera read as left in a hand


@pytest.fixture()
def server(tmp_path):
    """``handfoot serve`` reading the example photo as three tables, by its image index in the reading."""
    script = f"""
import sys
import handfoot.results as results
real = results.pile_dict
RANKS = {{1: {{"K": "A", "Q": "J", "8": "6", "9": "10"}}}}
def table(pile_id, side, pile):
    out = real(pile_id, side, pile)
    image = int(pile_id[1:pile_id.index("p")])
    codes = [c["code"] for c in out["cards"]]
    for c in out["cards"]:
        rank = c["code"][:-1]
        c["code"] = RANKS.get(image, {{}}).get(rank, rank) + c["code"][-1]
    if image == 1:
        out["notes"] = [n.replace("9H", "10H") for n in out["notes"]]
        if codes == ["QH", "QS", "QC"]:
            out["cards"][1]["confidence"] = 0.31
    if image == 2 and len(codes) == 7 and codes[0] == "KH":
        for c, code in zip(out["cards"], {FAN!r}):
            c["code"] = code
        out["kind"] = "left"
    return out
results.pile_dict = table
from handfoot.cli import main
raise SystemExit(main(sys.argv[1:]))
"""
    with running(tmp_path, command=[sys.executable, "-c", script]) as url:
        yield url


def _table(url: str) -> tuple[str, str, dict[str, dict]]:
    """A game and the reading of the many-pile table: (game id, reading id, its piles by id)."""
    game = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    photo = PHOTO.read_bytes()
    r = httpx.post(f"{url}/v1/photos", files=[("photos", (f"table{k}.jpg", photo + b"\0" * k, "image/jpeg")) for k in range(3)],
                   data={"rules": "pagat", "teams": "Us,Us,Them", "left": ["Us:KH 7C 4S", "Them:QD 9S"]}, timeout=300, headers=once())
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    piles = {p["id"]: p for im in httpx.get(f"{url}/v1/photos/{rid}").json()["images"] for p in im["piles"]}
    return game, rid, piles


def _piles(d) -> dict[str, dict]:
    """Each pile panel on the page by pile id: folded or whole, its height (CSS px), its one line's text."""
    return d.execute_script("""return Object.fromEntries([...document.querySelectorAll('#piles section.pile')].map(e =>
      [e.id.slice(5), {folded: e.classList.contains('folded'), height: e.getBoundingClientRect().height,
                       line: e.querySelector('.pile-line') ? e.querySelector('.pile-line').innerText.replace(/\\s+/g, ' ').trim() : null,
                       chips: [...e.querySelectorAll('.chips button')].map(b => b.textContent)}]))""")


def _sheet_open(d) -> bool:
    return d.execute_script("return document.getElementById('sheet').open")


def _draft_ops(d, game: str, rid: str) -> list:
    kept = d.execute_script("return localStorage.getItem(arguments[0])", f"handfoot.draft.{game}.{rid}")
    return json.loads(kept)["corrections"] if kept else []


def test_the_piles_that_look_right_are_one_line_each(server, browser, tmp_path):
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    game, rid, piles = _table(server)
    assert len(piles) == 17
    _open_check(d, server, f"/game/{game}/check/{rid}")
    shown = _piles(d)
    assert set(shown) == set(piles)
    assert {k for k, p in shown.items() if not p["folded"]} == LOOK, shown
    for k, p in shown.items():  # whole: every card a chip; folded: one line of name, count, cards and points, two at most
        if p["folded"]:
            assert p["line"].startswith(piles[k]["label"]) and p["height"] <= 80, (k, p)
        else:
            assert len(p["chips"]) == len(piles[k]["cards"]), (k, p)
    assert shown["i0p1"]["line"] == "meld 3 cards Q♥ Q♠ Q♣ 30 pts"
    assert shown["i0p0"]["line"] == "red threes 1 card 3♥ +100 pts"
    # a book's worth is its cards' points and its bonus, as the round's total counts it (the score's books say it)
    assert shown["i0p3"]["line"] == "clean book 7 cards K♥ K♠ K♦ K♥ K♣ K♠ K♦ 570 pts"
    assert text_of(d, "#pile-i0p4 .verdict") == ("squared clean book of 7 cards, as its red marker card 9♥ says: "
                                                 "70 points + 500 for the clean book under pagat")
    assert shown["i2p3"]["chips"] == ["7♥", "7♠", "7♦", "7♣", "4♥", "4♠", "4♦"]  # read as held: open
    assert text_of(d, "#piles-summary p") == "12 of 17 piles look right: one line each, tap one to open it."
    m = d.execute_script("return {page: document.documentElement.scrollHeight, piles: document.getElementById('piles').offsetHeight}")
    print("page height", m["page"], "px; the piles", m["piles"], "px")
    folded = sum(p["height"] for p in shown.values() if p["folded"])
    assert folded <= 844, folded  # the 12 piles that look right within one screen (whole: 3,500 px)
    d.execute_script("document.getElementById('piles').scrollIntoView({block: 'start'})")
    d.save_screenshot(str(shots / "check_many_piles_folded_390.png"))

    # a tap opens a folded pile whole, in place; a tap on a card then corrects it; its name folds it back
    line = d.find_element(By.CSS_SELECTOR, "#pile-i0p1 .pile-line")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", line)
    top = d.find_element(By.ID, "pile-i0p1").rect["y"]
    line.click()
    until(d, lambda d: not _piles(d)["i0p1"]["folded"])
    assert abs(d.find_element(By.ID, "pile-i0p1").rect["y"] - top) < 8  # opened where it was
    assert _piles(d)["i0p1"]["chips"] == ["Q♥", "Q♠", "Q♣"]
    assert d.execute_script("return document.activeElement.getAttribute('aria-expanded')") == "true"
    d.save_screenshot(str(shots / "check_many_piles_one_opened_390.png"))
    d.find_element(By.CSS_SELECTOR, f"#pile-i0p1 button[data-card='{piles['i0p1']['cards'][0]['id']}']").click()
    until(d, _sheet_open)
    assert d.find_elements(By.CSS_SELECTOR, "#sheet button[data-rank]")
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Cancel").click()
    d.find_element(By.CSS_SELECTOR, "#pile-i0p1 h3 .pile-toggle").click()
    until(d, lambda d: _piles(d)["i0p1"]["folded"])

    # "Open all": every pile whole, then folded again
    d.find_element(By.ID, "open-all-piles").click()
    until(d, lambda d: not any(p["folded"] for p in _piles(d).values()))
    assert text_of(d, "#piles-summary p") == "All 17 piles shown whole."
    d.find_element(By.ID, "open-all-piles").click()
    until(d, lambda d: sum(p["folded"] for p in _piles(d).values()) == 12)
    assert d.execute_script("return document.activeElement.id") == "open-all-piles"  # drawn again, still focused

    # a real webcam photo whose every pile needs a look (each has a note): no summary line, nothing else before
    # the piles (no stray "null" text)
    real = sorted((SHARED / "realdata" / "decks_dev" / "webcam_white" / "images").glob("*_11_38_29_*.jpg"))
    if real:
        r = httpx.post(f"{server}/v1/photos", files=[("photos", (real[0].name, real[0].read_bytes(), "image/jpeg"))],
                       data={"rules": "pagat", "teams": "Us"}, timeout=120, headers=once())
        _open_check(d, server, f"/game/{game}/check/{r.json()['id']}")
        assert not d.find_elements(By.ID, "piles-summary") and not any(p["folded"] for p in _piles(d).values())
        assert d.execute_script("return [...document.getElementById('piles').childNodes].every(n => n.nodeType === 1)")
        assert "null" not in text_of(d, "#piles")
        d.execute_script("document.getElementById('piles').scrollIntoView({block: 'start'})")
        d.save_screenshot(str(shots / "check_every_pile_needs_a_look_390.png"))
    assert console_errors(d) == []


def test_a_move_is_said_and_undone_whole(server, browser, tmp_path):
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    game, rid, piles = _table(server)
    queen, eights = piles["i0p1"]["cards"][0], piles["i0p2"]
    _open_check(d, server, f"/game/{game}/check/{rid}")
    total = text_of(d, "[data-round-total='Us']")

    # Q♥ read for 8♥, moved to the eights: nothing happens until Save ("Save and move"), then two corrections, one
    # move; the page stays where it was (the queen's pile keeps its place on screen)
    open_pile(d, "i0p1")
    d.execute_script("document.getElementById('pile-i0p1').scrollIntoView({block: 'center'})")
    top = d.find_element(By.ID, "pile-i0p1").rect["y"] - d.execute_script("return scrollY")
    d.find_element(By.CSS_SELECTOR, f"button[data-card='{queen['id']}']").click()
    until(d, _sheet_open)
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-rank='8']").click()
    Select(d.find_element(By.ID, "move-to")).select_by_value(eights["id"])
    assert _sheet_open(d) and _draft_ops(d, game, rid) == []  # picked, not yet done
    _save_sheet(d, "Save and move")
    until(d, lambda d: (text_of(d, "#moved-note") or "").startswith("Us: moved"))
    assert text_of(d, "#moved-note") == "Us: moved 8♥ from meld Q♠ Q♣ to meld 8♦ 8♠ 2♣ 8♥ 8♥. Show it"
    assert d.find_element(By.ID, "undo-change").text == "Undo the move"
    assert _piles(d)[eights["id"]]["chips"] == ["8♦", "8♠", "2♣", "8♥", "8♥"]  # the pile it went to, shown whole
    d.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert abs(d.find_element(By.ID, "pile-i0p1").rect["y"] - d.execute_script("return scrollY") - top) < 4
    assert d.find_element(By.ID, "moved-note").is_displayed()  # over Save, wherever the page is scrolled
    assert (focused(d)["card"], focused(d)["pile"]) == (queen["id"], f"pile-{eights['id']}")  # the focus went with it
    d.save_screenshot(str(shots / "check_moved_said_390.png"))
    assert len(_draft_ops(d, game, rid)) == 2

    d.find_element(By.ID, "undo-change").click()  # the whole move back: the queen in her meld
    until(d, lambda d: not text_of(d, "#moved-note"))
    until(d, lambda d: _piles(d)["i0p1"]["chips"] == ["Q♥", "Q♠", "Q♣"])
    assert _draft_ops(d, game, rid) == [] and text_of(d, "[data-round-total='Us']") == total
    assert (focused(d)["card"], focused(d)["pile"]) == (queen["id"], "pile-i0p1")  # on what Undo undid
    assert d.find_element(By.ID, "undo-change").text == "Undo" and not d.find_element(By.ID, "undo-change").is_enabled()

    # to a new pile of cards left in hand, then undone: nothing left of it
    d.find_element(By.CSS_SELECTOR, f"button[data-card='{queen['id']}']").click()
    until(d, _sheet_open)
    Select(d.find_element(By.ID, "move-to")).select_by_value("new:left")
    _save_sheet(d, "Save and move")
    until(d, lambda d: "to cards left in hand Q♥" in (text_of(d, "#moved-note") or ""))
    d.find_element(By.ID, "undo-change").click()
    until(d, lambda d: _piles(d)["i0p1"]["chips"] == ["Q♥", "Q♠", "Q♣"] and len(_piles(d)) == 17)
    assert _draft_ops(d, game, rid) == []

    # to a pile of the other team (a card the photos put on the wrong side): offered after the card's own team's;
    # said with both teams' names, the page kept where it was
    them = next(k for k, p in piles.items() if p["team"] == "Them" and p["kind"] == "meld")
    top = d.find_element(By.ID, "pile-i0p1").rect["y"] - d.execute_script("return scrollY")
    d.find_element(By.CSS_SELECTOR, f"button[data-card='{queen['id']}']").click()
    until(d, _sheet_open)
    teams = [o.text.split(":")[0] for o in Select(d.find_element(By.ID, "move-to")).options[1:]
             if not o.get_attribute("value").startswith("new:")]
    assert "Them" in teams and teams == sorted(teams, key=lambda t: t != "Us")
    Select(d.find_element(By.ID, "move-to")).select_by_value(them)
    _save_sheet(d, "Save and move")
    until(d, lambda d: (text_of(d, "#moved-note") or "").startswith("Moved Q♥ from Us's meld Q♠ Q♣ to Them's "))
    assert _piles(d)[them]["chips"][-1] == "Q♥" and _piles(d)["i0p1"]["chips"] == ["Q♠", "Q♣"]
    d.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert abs(d.find_element(By.ID, "pile-i0p1").rect["y"] - d.execute_script("return scrollY") - top) < 4
    d.save_screenshot(str(shots / "check_moved_across_teams_390.png"))
    d.find_element(By.ID, "undo-change").click()
    until(d, lambda d: _piles(d)["i0p1"]["chips"] == ["Q♥", "Q♠", "Q♣"])

    # a red three read as held (typed in here: cards left in hand 3♥) when Them has no red threes on the table (its
    # pile removed): offered a new pile of red threes; moved there, its old pile then empty and said so
    threes = next(k for k, p in piles.items() if p["team"] == "Them" and p["kind"] == "red_threes")
    open_pile(d, threes)
    next(b for b in d.find_elements(By.CSS_SELECTOR, f"#pile-{threes} button") if b.text == "Remove").click()
    until(d, lambda d: threes not in _piles(d))
    assert d.execute_script("return document.activeElement.matches('h2.team-head[data-team=Them]')")  # its team
    button = next(b for b in d.find_elements(By.CSS_SELECTOR, "#piles button") if b.text == "+ a pile of Them the camera missed")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    until(d, _sheet_open)
    Select(d.find_element(By.ID, "new-kind")).select_by_value("left")
    d.find_element(By.ID, "new-cards").send_keys("3H")
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Add").click()
    until(d, lambda d: not _sheet_open(d) and any(p["chips"] == ["3♥"] for k, p in _piles(d).items() if k not in piles))
    held = next(k for k, p in _piles(d).items() if k not in piles and p["chips"] == ["3♥"])
    assert focused(d)["pile"] == f"pile-{held}"  # the pile made
    d.find_element(By.CSS_SELECTOR, f"#pile-{held} button[data-card]").click()
    until(d, _sheet_open)
    assert "Them: a new pile of red threes" in [o.text for o in Select(d.find_element(By.ID, "move-to")).options]
    Select(d.find_element(By.ID, "move-to")).select_by_value("new:red_threes")
    d.save_screenshot(str(shots / "check_red_three_move_offered_390.png"))
    _save_sheet(d, "Save and move")
    until(d, lambda d: "its old pile is now empty" in (text_of(d, "#moved-note") or ""))
    assert text_of(d, "#moved-note") == "Them: moved 3♥ to red threes 3♥; its old pile is now empty. Show it"
    assert held not in _piles(d)
    d.save_screenshot(str(shots / "check_red_three_moved_390.png"))
    assert console_errors(d) == []


def _save_sheet(d, label: str = "Save") -> None:
    """Tap the open sheet's Save (its text ``label``: "Save and move" once a pile to move to is chosen)."""
    ok = d.find_element(By.CSS_SELECTOR, "#sheet button.primary")
    assert ok.text == label, ok.text
    ok.click()
    until(d, lambda d: not _sheet_open(d))


def test_a_pin_at_the_frame_edge_stays_whole(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    game, rid, _ = _table(server)
    _open_check(d, server, f"/game/{game}/check/{rid}")
    until(d, lambda d: d.execute_script("return document.querySelector('.glance img').complete"))
    frame = d.find_element(By.CSS_SELECTOR, ".glance-frame")
    d.execute_script("arguments[0].scrollIntoView({block: 'start'})", frame)
    inside = """const f = arguments[0].getBoundingClientRect();
      return [...arguments[0].querySelectorAll('.pin')].map(p => { const r = p.getBoundingClientRect();
        return [p.dataset.pin, r.left >= f.left - 0.5 && r.right <= f.right + 0.5 && r.top >= f.top - 0.5 && r.bottom <= f.bottom + 0.5]; });"""
    assert d.execute_script(inside, frame) == [["1", True]]  # the first photo's squared book

    # zoomed in, the pinned pile panned to the frame's right edge: its pin moves in, whole
    d.find_element(By.CSS_SELECTOR, ".glance .zoom-in").click()  # the first photo's
    d.execute_script("""const f = arguments[0], o = f.querySelector('.outline[data-pile="i0p4"]').getBoundingClientRect();
      const b = f.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
      const dx = b.right - 2 - o.right, dy = b.bottom - 30 - o.bottom;
      const ev = (type, cx, cy) => f.dispatchEvent(new PointerEvent(type, {pointerId: 7, clientX: cx, clientY: cy, bubbles: true}));
      ev('pointerdown', x, y); ev('pointermove', x + dx / 2, y + dy / 2); ev('pointermove', x + dx, y + dy); ev('pointerup', x + dx, y + dy);""", frame)
    edge = d.execute_script("""const f = arguments[0].getBoundingClientRect(), o = arguments[0].querySelector('.outline[data-pile="i0p4"]').getBoundingClientRect();
      return f.right - o.right""", frame)
    assert 0 <= edge < 8, edge  # the pile at the edge
    assert d.execute_script(inside, frame) == [["1", True]]
    d.save_screenshot(str(shots_dir(tmp_path) / "check_pin_at_edge_390.png"))
    assert console_errors(d) == []


def test_a_mixed_fan_read_as_held_becomes_two_melds(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    game, rid, piles = _table(server)
    fan = piles["i2p3"]
    _open_check(d, server, f"/game/{game}/check/{rid}")
    taps = 0
    assert not d.find_elements(By.CSS_SELECTOR, f"#pile-{fan['id']}.folded")  # read as held: open already
    Select(d.find_element(By.CSS_SELECTOR, f"#pile-{fan['id']} select")).select_by_value("meld")  # 1, 2: the kind
    taps += 2
    until(d, lambda d: "meld" in (text_of(d, f"#pile-{fan['id']} h3") or ""))
    assert d.execute_script("return document.activeElement.matches(arguments[0])", f"#pile-{fan['id']} select")  # still there
    split = next(b for b in d.find_elements(By.CSS_SELECTOR, f"#pile-{fan['id']} button") if b.text == "Split")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", split)
    split.click()  # 3
    until(d, _sheet_open)
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet .chip") if b.text == "4♥").click()  # 4
    taps += 2
    until(d, lambda d: _piles(d).get(fan["id"] + "s", {}).get("chips") == ["4♥", "4♠", "4♦"])
    shown = _piles(d)
    assert shown[fan["id"]]["chips"] == ["7♥", "7♠", "7♦", "7♣"]
    assert focused(d)["pile"] == f"pile-{fan['id']}s"  # on the pile the split made
    melds = [p for p in httpx.post(f"{server}/v1/photos/{rid}/corrections", json={"corrections": _draft_ops(d, game, rid)}
                                   ).json()["images"][2]["piles"] if p["kind"] == "meld"]
    assert [[c["code"] for c in p["cards"]] for p in melds if p["cards"][0]["code"][0] in "74"] == [FAN[:4], FAN[4:]]
    assert all(not p["problems"] for p in melds)
    print("a mixed fan read as held made two melds in", taps, "taps")
    assert taps == 4
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", d.find_element(By.ID, f"pile-{fan['id']}"))
    d.save_screenshot(str(shots_dir(tmp_path) / "check_fan_made_melds_390.png"))
    # joined back: the focus on the pile it joined
    join = next(b for b in d.find_elements(By.CSS_SELECTOR, f"#pile-{fan['id']}s button") if b.text == "Join")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", join)
    join.click()
    until(d, _sheet_open)
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text.endswith("7♣")).click()
    until(d, lambda d: fan["id"] + "s" not in _piles(d))
    assert focused(d)["pile"] == f"pile-{fan['id']}"
    assert console_errors(d) == []
