"""The check view's card editor and its unsaved corrections, end to end: a real ``handfoot serve`` (127.0.0.1, a
temporary ledger, the shipped models) and headless Chromium (selenium) at 390 x 844.

- A rank tapped in the card editor and "Move it to…" a meld wait for the editor's Save ("Save and move"), which
  does both: the card lands with its new code; the list names its new piles as new ("Us: a new pile of cards left
  in hand").
- The card editor opens on the card's own rank; after its Save the focus is on the card where it is now (after
  Delete on its pile, after Undo on the card again), and the round's new total is said to a screen reader.
- Unsaved corrections survive a reload of the check view (kept in localStorage by game and reading), said on the
  page; they are dropped when discarded or when the round is saved; a corrupt or stale draft is ignored unsaid, and
  drafts of check views not touched for two weeks are removed.
- The undo question says "the round after it moves up one" when one round follows.
- A card more times than the decks hold is a note naming, pinning and showing every pile holding it; a two-card
  meld is one note and its pile says why once; "Save anyway" names the piles in the same words, and so does the
  saved round's breakdown (its row in the grid named with each team's points and total); it is not asked again on
  a later correction of the round for the problems it was said to, only for a new one.

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import json
import os
import time

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
pytest.importorskip("selenium")
pytest.importorskip("uvicorn")
pytest.importorskip("cv2")
httpx = pytest.importorskip("httpx")
from conftest import once  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

from test_page_e2e import browser, console_errors, focused, open_pile, shots_dir, text_of, viewport  # noqa: E402,F401  (fixture)
from test_page_two_phones import _open_check, _reading, press_save, server, until  # noqa: E402,F401  (fixture)


def _game(url: str) -> str:
    return httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]


def _melds(url: str, reading: str) -> list[dict]:
    return [p for im in httpx.get(f"{url}/v1/photos/{reading}").json()["images"] for p in im["piles"]
            if p["kind"] == "meld" and p["team"] == "Us"]


def _tap_card(d, card_id: str) -> None:
    """Tap the chip of the card ``card_id`` (its pile, the id before the dot, opened first when it shows folded)."""
    open_pile(d, card_id.split(".")[0])
    chip = d.find_element(By.CSS_SELECTOR, f"#piles button[data-card='{card_id}']")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", chip)
    chip.click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))


def _draft(d, game: str, reading: str):
    return d.execute_script("return localStorage.getItem(arguments[0])", f"handfoot.draft.{game}.{reading}")


def test_a_rank_tapped_before_moving_a_card_is_kept(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    game, rid = _game(server), _reading(server)
    melds = _melds(server, rid)
    card, target = melds[0]["cards"][0], melds[1]
    suit = card["code"][-1]
    new = ("5" if not card["code"].startswith("5") else "6") + suit
    _open_check(d, server, f"/game/{game}/check/{rid}")
    _tap_card(d, card["id"])
    assert focused(d)["rank"] == card["code"][:-1]  # the picker opens on the card's own rank
    # the piles it can move to: the team's others by their cards, then the new piles said as new
    places = {o.get_attribute("value"): o.text for o in Select(d.find_element(By.ID, "move-to")).options}
    team = melds[0]["team"]
    assert places["new:left"] == f"{team}: a new pile of cards left in hand"
    assert places["new:loose"] == f"{team}: a new pile of loose cards (not scored)"
    d.find_element(By.CSS_SELECTOR, f"#sheet button[data-rank='{new[:-1]}']").click()  # the new rank, then the move
    Select(d.find_element(By.ID, "move-to")).select_by_value(target["id"])
    time.sleep(0.5)
    assert d.execute_script("return document.getElementById('sheet').open")  # nothing done until Save
    assert _draft(d, game, rid) is None
    save = d.find_element(By.CSS_SELECTOR, "#sheet button.primary")
    assert save.text == "Save and move"  # Save does both: the rank shown and the move
    d.save_screenshot(str(shots_dir(tmp_path) / "check_move_waits_for_save_390.png"))
    save.click()
    until(d, lambda d: not d.execute_script("return document.getElementById('sheet').open"))
    until(d, lambda d: new[:-1] in (text_of(d, f"#pile-{target['id']} .chips") or ""))
    # the focus on the card where it went (not the top of the page), the round's new total said
    assert (focused(d)["card"], focused(d)["pile"]) == (card["id"], f"pile-{target['id']}")
    until(d, lambda d: (text_of(d, "#said") or "").startswith("Round 1 now: Us "))
    d.save_screenshot(str(shots_dir(tmp_path) / "check_moved_with_new_rank_390.png"))
    press_save(d)
    until(d, lambda d: "/check/" not in d.current_url)
    ops = httpx.get(f"{server}/v1/games/{game}").json()["rounds"][0]["corrections"]
    assert ops == [{"op": "set_card", "card": card["id"], "code": new},
                   {"op": "move_card", "card": card["id"], "to": target["id"]}], ops

    # a joker given a rank but no suit yet: Save (and move) waits for the suit, nothing added
    _open_check(d, server, f"/game/{game}/check/{rid}/1")
    other = melds[1]["cards"][1]
    _tap_card(d, other["id"])
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-rank='JK']").click()
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Save").click()
    until(d, lambda d: (text_of(d, f"button[data-card='{other['id']}']") or "") == "Jkr")
    assert (focused(d)["card"], focused(d)["pile"]) == (other["id"], f"pile-{melds[1]['id']}")  # in its pile
    # a card deleted: the focus on its pile; undone: on the card again
    gone = melds[1]["cards"][-1]
    _tap_card(d, gone["id"])
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Delete").click()
    until(d, lambda d: not d.find_elements(By.CSS_SELECTOR, f"button[data-card='{gone['id']}']"))
    assert focused(d)["pile"] == f"pile-{melds[1]['id']}"
    d.find_element(By.ID, "undo-change").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, f"#piles button[data-card='{gone['id']}']"))
    assert focused(d)["card"] == gone["id"]
    _tap_card(d, other["id"])
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-rank='7']").click()
    Select(d.find_element(By.ID, "move-to")).select_by_value(melds[0]["id"])
    save = d.find_element(By.CSS_SELECTOR, "#sheet button.primary")
    assert save.text == "Save and move" and not save.is_enabled()
    assert d.execute_script("return document.getElementById('sheet').open")
    d.save_screenshot(str(shots_dir(tmp_path) / "check_move_needs_suit_390.png"))
    assert len(json.loads(_draft(d, game, rid))["corrections"]) == 3  # the two saved, the joker: no move
    assert console_errors(d) == []


def test_unsaved_corrections_are_kept_over_a_reload(server, browser, tmp_path):
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    game, rid = _game(server), _reading(server)
    card = _melds(server, rid)[0]["cards"][0]
    new = ("5" if not card["code"].startswith("5") else "6") + card["code"][-1]
    path = f"/game/{game}/check/{rid}"

    def correct() -> None:
        _tap_card(d, card["id"])
        d.find_element(By.CSS_SELECTOR, f"#sheet button[data-rank='{new[:-1]}']").click()
        next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Save").click()
        until(d, lambda d: (text_of(d, f"button[data-card='{card['id']}']") or "").startswith(new[:-1]))

    _open_check(d, server, path)
    assert not text_of(d, "#draft-notice")
    correct()
    Select(d.find_element(By.ID, "check-went-out")).select_by_value("Us")
    until(d, lambda d: _draft(d, game, rid) is not None and '"went":"Us"' in _draft(d, game, rid))
    d.refresh()  # the phone reloads the tab
    _open_check(d, server, path)
    until(d, lambda d: "Your unsaved corrections were kept (2 changes)" in (text_of(d, "#draft-notice") or ""))
    assert (text_of(d, f"button[data-card='{card['id']}']") or "").startswith(new[:-1])
    assert d.find_element(By.ID, "check-went-out").get_attribute("value") == "Us"
    assert d.find_element(By.ID, "undo-change").is_enabled()
    d.execute_script("window.scrollTo(0, 0)")
    d.save_screenshot(str(shots / "check_draft_kept_390.png"))

    # discarded: the reading as read, nothing kept
    d.find_element(By.ID, "discard-draft").click()
    pile = card["id"].split(".")[0]
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, f"#pile-{pile}.folded"))  # a legal meld again: one line
    open_pile(d, pile)
    assert (text_of(d, f"button[data-card='{card['id']}']") or "").startswith(card["code"][:-1])
    assert not text_of(d, "#draft-notice") and _draft(d, game, rid) is None
    assert d.find_element(By.ID, "check-went-out").get_attribute("value") == ""
    d.refresh()
    _open_check(d, server, path)
    assert not text_of(d, "#draft-notice")

    # a corrupt draft, and one made on corrections the round no longer has: ignored, no error, removed
    now = int(time.time() * 1000)
    for bad in ("{not json", json.dumps({"round": None, "base": [], "corrections": "x", "went": "", "at": now}),
                json.dumps({"round": None, "base": [], "went": "", "at": now,
                            "corrections": [{"op": "set_card", "card": "i9p9.9", "code": "KH"}]})):
        d.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"handfoot.draft.{game}.{rid}", bad)
        d.refresh()
        _open_check(d, server, path)
        assert not text_of(d, "#draft-notice") and _draft(d, game, rid) is None, bad
        assert d.find_element(By.ID, "undo-change").get_attribute("disabled") is not None

    # drafts of other check views: one untouched for over two weeks (or with no time) is removed when a check view
    # opens, a recent one is kept
    fresh = json.dumps({"round": None, "base": [], "corrections": [], "went": "Us", "at": now})
    old = json.dumps({"round": None, "base": [], "corrections": [], "went": "Us", "at": now - 15 * 24 * 3600 * 1000})
    for k, v in (("fresh", fresh), ("old", old), ("untimed", json.dumps({"went": "Us"}))):
        d.execute_script("localStorage.setItem(arguments[0], arguments[1])", f"handfoot.draft.{game}.{k}", v)
    d.refresh()
    _open_check(d, server, path)
    assert _draft(d, game, "fresh") == fresh
    assert _draft(d, game, "old") is None and _draft(d, game, "untimed") is None

    # saved: the draft goes with it
    correct()
    assert _draft(d, game, rid) is not None
    press_save(d)
    until(d, lambda d: "/check/" not in d.current_url)
    assert _draft(d, game, rid) is None
    assert httpx.get(f"{server}/v1/games/{game}").json()["rounds"][0]["corrections"][0]["code"] == new
    # the refused stale draft's check is the only error the browser logs (422)
    assert [e for e in console_errors(d) if "422" not in e] == []


def test_the_undo_question_says_one_round_moves_up(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    game = _game(server)
    for rank in "98":
        layout = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [[rank + s for s in "SHD"]]}}}
        assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json=layout,
                          headers=once()).status_code == 201
    d.get(f"{server}/#/game/{game}")
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "tr.round")) == 2)
    d.find_elements(By.CSS_SELECTOR, "tr.round")[0].click()
    until(d, lambda d: d.find_element(By.ID, "undo-1").is_displayed())
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", d.find_element(By.ID, "undo-1"))
    d.find_element(By.ID, "undo-1").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    sheet = text_of(d, "#sheet")
    assert "Then the round after it moves up one, scored from then on under its new round's opening minimum:" in sheet
    assert "move up one" not in sheet
    d.save_screenshot(str(shots_dir(tmp_path) / "undo_one_round_moves_390.png"))


def _add_pile(d, team: str, cards: str) -> None:
    """Add a meld the camera missed to ``team`` (``cards``: typed codes) and wait for its panel."""
    before = len(d.find_elements(By.CSS_SELECTOR, "#piles section.pile"))
    add = next(b for b in d.find_elements(By.CSS_SELECTOR, "button") if b.text == f"+ a pile of {team} the camera missed")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", add)
    add.click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    Select(d.find_element(By.ID, "new-kind")).select_by_value("meld")
    d.find_element(By.ID, "new-cards").send_keys(cards)
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Add").click()
    until(d, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#piles section.pile")) == before + 1)


def _pile_with(d, chips: str):
    """The pile panel whose cards read ``chips`` (``9♦ 9♦``)."""
    return next(p for p in d.find_elements(By.CSS_SELECTOR, "#piles section.pile")
                if " ".join(c.text for c in p.find_elements(By.CSS_SELECTOR, ".chips button")) == chips)


def _save_asked(d) -> str | None:
    """Press Save: the question's text when one is asked (answered "Save anyway"), else None; waits for the save."""
    d.find_element(By.ID, "save-round").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open") or "/check/" not in d.current_url)
    asked = None
    if "/check/" in d.current_url and d.execute_script("return document.getElementById('sheet').open"):
        asked = text_of(d, "#sheet")
        d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: "/check/" not in d.current_url)
    return asked


def test_rule_problems_point_at_their_piles_are_said_once_and_asked_once(server, browser, tmp_path):
    """A card more times than the decks hold names (and pins, and shows) every pile holding it; a two-card meld is
    one note, and its pile says why once; "Save anyway" said to some problems is not asked again on later
    corrections of the round, only when a new problem appears."""
    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    game, rid = _game(server), _reading(server)
    kings = next(p for p in _melds(server, rid) if p["cards"][0]["code"][0] == "K")
    queens = next(p for p in _melds(server, rid) if p["cards"][0]["code"][0] == "Q")
    _open_check(d, server, f"/game/{game}/check/{rid}")
    _add_pile(d, "Them", "KH KH KH KH")  # the photo holds two K♥: six in all, five decks hold five
    _add_pile(d, "Them", "9D 9D")

    notes = [" ".join(t.split()) for t in d.execute_script("return [...document.querySelectorAll('.notes li')].map(e => e.innerText)")]
    count = next(n for n in notes if n.startswith("6 x K♥"))
    assert ("6 x K♥ in the layout (table, hands and feet) but 5 decks hold only 5 — 2 in Us: clean book "
            "K♥ K♠ K♦ K♥ K♣ K♠ K♦; 4 in Them: meld K♥ K♥ K♥ K♥") in count and count.endswith("Show 1")
    # the two-card meld: one note (the rules'), and its pile says why once, in red, not again in its verdict
    assert [n for n in notes if "9♦ 9♦" in n] == ["Them: 9♦ 9♦: a meld needs at least 3 cards, this has 2 Show 2"]
    nines = _pile_with(d, "9♦ 9♦")
    assert "needs" not in nines.find_element(By.CSS_SELECTOR, ".verdict").text
    assert [e.text for e in nines.find_elements(By.CSS_SELECTOR, ".problem")] == [
        "9♦ 9♦: a meld needs at least 3 cards, this has 2"]
    assert d.find_elements(By.CSS_SELECTOR, "g.pin[data-pin='1']")  # pinned on the kings on the photo
    d.execute_script("document.querySelector('.notes').scrollIntoView({block: 'start'})")
    d.save_screenshot(str(shots / "check_card_count_note_390.png"))
    show = d.find_element(By.CSS_SELECTOR, ".notes li[data-note='1'] .pin-button")
    show.click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    assert [e.get_attribute("data-note-pile") for e in d.find_elements(By.CSS_SELECTOR, "#sheet [data-note-pile]")][0] == kings["id"]
    assert len(d.find_elements(By.CSS_SELECTOR, "#sheet [data-note-pile]")) == 2
    assert "Them: meld" in text_of(d, "#sheet")
    d.save_screenshot(str(shots / "check_card_count_sheet_390.png"))
    d.find_element(By.CSS_SELECTOR, "#sheet .row button").click()

    # saved anyway once: asked about both problems, each with its piles named as Check these names them
    d.find_element(By.ID, "save-round").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    asked = [" ".join(p.text.split()) for p in d.find_elements(By.CSS_SELECTOR, "#sheet-body p")]
    assert text_of(d, "#sheet-title") == "The rules see 2 problems"
    assert [a for a in asked if a.startswith("6 x K♥")] == [" ".join(count.split()).removesuffix(" Show 1")]
    assert "Them: 9♦ 9♦: a meld needs at least 3 cards, this has 2" in asked
    d.save_screenshot(str(shots / "check_save_anyway_piles_named_390.png"))
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: "/check/" not in d.current_url)
    # the saved round's breakdown names the same piles in the same words; its row in the grid is marked
    row = until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "tr.round")).pop()
    # its name says what the row shows: each team's points and total
    us, them = (text_of(d, f"tr.round td[data-team={t}] .round-points") for t in ("Us", "Them"))
    assert row.accessible_name == (f"round 1 (2 rule problems): Us {us} (total {us}), Them {them} (total {them}); "
                                   "show the breakdown")
    assert text_of(d, "tr.round .round-flag") == " ⚠"
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    d.save_screenshot(str(shots / "game_round_flagged_390.png"))
    row.click()
    problems = [" ".join(e.text.split()) for e in d.find_elements(By.CSS_SELECTOR, "tr.details .problem li")]
    assert problems == [a for a in asked if a.startswith("6 x K♥") or a.startswith("Them: 9♦")], problems
    assert text_of(d, "tr.details .problem p") == "2 rule problems:"
    # the breakdown's labels take the room, its points line up on the right, no grid lines between its cells (the
    # grid's cell rules reached into it: borders, padding and a detail column as wide as the label's)
    cells = d.execute_script("return [...document.querySelectorAll('tr.details table.breakdown tr')]"
                             ".filter(r => r.cells.length === 3).map(r => [...r.cells].map(c => [c.textContent,"
                             " c.getBoundingClientRect().width, getComputedStyle(c).textAlign,"
                             " getComputedStyle(c).borderBottomWidth]))")
    assert cells and all(label[1] > detail[1] and points[2] == "right" and label[3] == detail[3] == "0px"
                         for label, detail, points in cells), cells
    d.execute_script("document.querySelector('tr.details .problem').scrollIntoView({block: 'center'})")
    d.save_screenshot(str(shots / "game_round_problems_piles_named_390.png"))
    # a later correction with the same problems: not asked again
    _open_check(d, server, f"/game/{game}/check/{rid}/1")
    _tap_card(d, queens["cards"][0]["id"])
    d.find_element(By.CSS_SELECTOR, "#sheet button[data-suit='D']").click()
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Save").click()
    until(d, lambda d: text_of(d, f"button[data-card='{queens['cards'][0]['id']}']") == "Q♦")
    assert _save_asked(d) is None
    assert httpx.get(f"{server}/v1/games/{game}").json()["rounds"][0]["corrections"][-1]["code"] == "QD"
    # one more K♥: a new problem (7 of them): asked about it alone, the one answered before said in a word
    _open_check(d, server, f"/game/{game}/check/{rid}/1")
    more = next(b for b in _pile_with(d, "K♥ K♥ K♥ K♥").find_elements(By.CSS_SELECTOR, "button") if b.text == "+ card")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", more)
    more.click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    for pick in ("button[data-rank='K']", "button[data-suit='H']"):
        d.find_element(By.CSS_SELECTOR, f"#sheet .picker {pick}").click()
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Save").click()
    until(d, lambda d: "7 x K♥" in (text_of(d, ".notes") or ""))
    d.find_element(By.ID, "save-round").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    asked = text_of(d, "#sheet")
    assert "The rules see 1 new problem" in asked and "7 x K♥" in asked and "9♦" not in asked
    assert "1 more was saved anyway before: not asked again." in asked
    d.save_screenshot(str(shots / "check_save_anyway_new_problem_390.png"))
    d.find_element(By.ID, "confirm-yes").click()
    until(d, lambda d: "/check/" not in d.current_url)
    assert console_errors(d) == []
