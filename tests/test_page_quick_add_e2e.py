"""A fan read one card short, fixed with one tap on the check view, end to end: a real ``handfoot serve``
(127.0.0.1, a temporary ledger, the shipped models) and headless Chromium (selenium) at 390 x 844.

The bundled photo's book of seven kings is read as six (its last card, KD, dropped by wrapping the application
layer's pile builder in the server's process, as ``test_page_e2e`` misreads a queen): its one line (a legal meld
shows folded), "+ card" on that pile, then "another K♥" (the suit most common among its kings, the first read on a tie) makes it a clean book again and the
round's total the true score. A red threes pile's "+ card" shows the picker alone. Each button under a pile's
cards names that pile to a screen reader ("Split the meld of kings (Us)"). A red three among the cards still held
counts in their pile's points (its one line and its verdict).

Screenshots go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import once

# test_page_e2e skips this module where selenium, uvicorn or cv2 is missing (and keeps Selenium Manager offline)
from test_page_e2e import browser, console_errors, open_pile, running, shots_dir, text_of, viewport  # noqa: F401  (fixture)
from test_page_two_phones import _open_check, _reading, until

httpx = pytest.importorskip("httpx")
from selenium.webdriver.common.by import By  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KINGS = ["KH", "KS", "KD", "KH", "KC", "KS", "KD"]  # the book of kings in examples/table_truth.json, as read


@pytest.fixture()
def server(tmp_path):
    """``handfoot serve`` whose reading of the book of kings lacks its last card (six kings read where seven lie)."""
    script = f"""
import sys
import handfoot.results as results
real = results.pile_dict
def short(pile_id, side, pile):
    out = real(pile_id, side, pile)
    if [c["code"] for c in out["cards"]] == {KINGS!r}:
        out["cards"].pop()
    return out
results.pile_dict = short
from handfoot.cli import main
raise SystemExit(main(sys.argv[1:]))
"""
    with running(tmp_path, command=[sys.executable, "-c", script]) as url:
        yield url


def _pile(url: str, reading: str, kind: str) -> dict:
    piles = [p for im in httpx.get(f"{url}/v1/photos/{reading}").json()["images"] for p in im["piles"]
             if p["kind"] == kind and p["team"] == "Us"]
    return piles[0] if kind != "meld" else next(p for p in piles if p["cards"][0]["code"] == "KH")


def _open_add(d, pile_id: str) -> None:
    """Tap "+ card" on the pile ``pile_id`` (opened first when it shows folded to one line); wait for its sheet."""
    open_pile(d, pile_id)
    add = next(b for b in d.find_elements(By.CSS_SELECTOR, f"#pile-{pile_id} button") if b.text == "+ card")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", add)
    add.click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))


def _names(d, pile_id: str) -> list[str]:
    """The accessible names of the pile's kind choice and buttons under its cards (aria-label, else the text)."""
    return d.execute_script("""return [...document.querySelectorAll(`#pile-${arguments[0]} .row > :is(select, button)`)]
      .map(e => e.getAttribute('aria-label') || e.textContent)""", pile_id)


def test_a_fan_read_one_card_short_is_fixed_in_three_taps(server, browser, tmp_path):
    from scorer.layout import TableLayout
    from scorer.scoring import score_round

    d = browser
    shots = shots_dir(tmp_path)
    viewport(d, 390, 844)
    truth = score_round(TableLayout.from_file(ROOT / "examples" / "table_truth.json"), lenient=True)
    true_total = f"{truth.teams['A'].total:,}"
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    rid = _reading(server)
    kings = _pile(server, rid, "meld")
    assert [c["code"] for c in kings["cards"]] == KINGS[:-1]
    _open_check(d, server, f"/game/{game}/check/{rid}")
    short = text_of(d, "[data-round-total='Us']")
    assert short != true_total
    open_pile(d, kings["id"])  # a legal meld: one line until tapped
    assert "book" not in text_of(d, f"#pile-{kings['id']} .verdict")
    # its buttons' short words name the pile they act on to a screen reader
    assert _names(d, kings["id"]) == ["kind of the meld of kings (Us)", "Add a card to the meld of kings (Us)",
                                      "Split the meld of kings (Us)", "Join the meld of kings (Us) to another",
                                      "Remove the meld of kings (Us)"]

    # "+ card", then the quick button above the picker: the kings' rank, the suit most read among them (hearts and
    # spades twice each: hearts, read first), a two of clubs (no twos in it), a joker
    _open_add(d, kings["id"])
    quick = d.find_elements(By.CSS_SELECTOR, "#sheet .quick-add button")
    said = [(b.text.replace("\n", " "), b.get_attribute("aria-label"), b.get_attribute("data-quick")) for b in quick]
    assert said == [("another K♥", "add another king of hearts", "KH"),
                    ("a two 2♣", "add a two: the 2 of clubs", "2C"), ("a joker", "add a joker", "JK")], said
    assert d.execute_script("return document.activeElement.dataset.quick") == "KH"  # Enter adds it too
    assert d.find_elements(By.CSS_SELECTOR, "#sheet .picker button[data-rank='7']")  # the full picker below
    d.save_screenshot(str(shots / "check_quick_add_390.png"))
    quick[0].click()
    until(d, lambda d: not d.execute_script("return document.getElementById('sheet').open"))
    until(d, lambda d: text_of(d, "[data-round-total='Us']") == true_total)
    chips = [b.text for b in d.find_elements(By.CSS_SELECTOR, f"#pile-{kings['id']} .chips button")]
    assert chips == ["K♥", "K♠", "K♦", "K♥", "K♣", "K♠", "K♥"], chips
    assert "clean book of kings" in text_of(d, f"#pile-{kings['id']} .verdict")
    assert _names(d, kings["id"])[1] == "Add a card to the clean book of kings (Us)"
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", d.find_element(By.ID, f"pile-{kings['id']}"))
    d.save_screenshot(str(shots / "check_quick_added_390.png"))
    assert console_errors(d) == []

    # saved, the card added is the correction kept
    d.find_element(By.ID, "save-round").click()
    until(d, lambda d: d.execute_script("return document.getElementById('sheet').open"))
    d.find_element(By.ID, "confirm-yes").click()  # nothing read for Them
    until(d, lambda d: "/check/" not in d.current_url)
    assert httpx.get(f"{server}/v1/games/{game}").json()["rounds"][0]["corrections"] == [
        {"op": "add_card", "pile": kings["id"], "code": "KH"}]


def test_no_quick_buttons_on_red_threes_and_just_wilds_without_a_rank(server, browser, tmp_path):
    d = browser
    viewport(d, 390, 844)
    game = httpx.post(f"{server}/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
    # the photo, and a red three among the cards Us still hold, typed in
    r = httpx.post(f"{server}/v1/photos", files=[("photos", ("table.jpg", (ROOT / "examples" / "table.jpg").read_bytes(),
                                                             "image/jpeg"))],
                   data={"rules": "pagat", "teams": "Us", "left": "Us:KH 7C 3H"}, timeout=120, headers=once())
    rid = r.json()["id"]
    threes, held = _pile(server, rid, "red_threes"), _pile(server, rid, "left")
    _open_check(d, server, f"/game/{game}/check/{rid}")
    # the red three held counts in its pile's points (-15 for the king and the seven, -100 for it), as it counts in
    # the round's total
    line = d.find_element(By.CSS_SELECTOR, f"#pile-{held['id']} .pile-line")
    assert line.text.replace("\n", " ").endswith("K♥ 7♣ 3♥ -115 pts"), line.text
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", line)
    d.save_screenshot(str(shots_dir(tmp_path) / "check_red_three_held_390.png"))
    open_pile(d, held["id"])
    assert text_of(d, f"#pile-{held['id']} .verdict") == ("3 cards still held: -115 points (-15 for the cards, -100 for "
                                                          "the red three held)")
    _open_add(d, threes["id"])
    assert d.find_elements(By.CSS_SELECTOR, "#sheet .picker button[data-rank='3']")
    assert not d.find_elements(By.CSS_SELECTOR, "#sheet .quick-add, #sheet [data-quick]")
    next(b for b in d.find_elements(By.CSS_SELECTOR, "#sheet button") if b.text == "Cancel").click()

    # the guess itself (cards.js): no natural rank, just the wilds; a two's suit the one most read among the twos;
    # a 10's code; threes are no meld's rank
    guess = "return import('/static/cards.js').then(m => m.likelyMissing(arguments[0]))"
    assert d.execute_script(guess, ["JK", "2H", "2S", "2H"]) == ["2H", "JK"]
    assert d.execute_script(guess, ["10D", "10S", "2D", "10D"]) == ["10D", "2D", "JK"]
    assert d.execute_script(guess, ["3S", "7C", "7C", "7D"]) == ["7C", "2C", "JK"]
    # a pile as its buttons name it (cards.js): which one, and whose
    name = "return import('/static/cards.js').then(m => m.pileName(arguments[0]))"
    pile = lambda kind, label, *codes: {"team": "Us", "kind": kind, "label": label, "cards": [{"code": c} for c in codes]}  # noqa: E731
    assert d.execute_script(name, pile("meld", "meld", "7H", "2C", "7S")) == "the meld of sevens (Us)"
    assert d.execute_script(name, pile("meld", "wild book", *["2C", "JK"] * 3, "2H")) == "the wild book (Us)"
    assert d.execute_script(name, pile("squared_book", "squared book", "9H")) == "the squared book under the 9 of hearts (Us)"
    assert d.execute_script(name, pile("left", "left in hand", "4S")) == "the cards left in hand (Us)"
    assert d.execute_script(name, pile("red_threes", "red threes", "3H")) == "the red threes (Us)"
    assert console_errors(d) == []
