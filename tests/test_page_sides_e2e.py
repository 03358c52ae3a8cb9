"""Two phones at one table, each photographing (or typing) its own team's side of the same round, end to end: a real
``handfoot serve`` and two headless Chromium sessions (the fixtures of ``test_page_two_phones``).

- Phone 2 reads Jonses' photo while phone 1 types Smiths' side and saves it as round 1: phone 2 is told round 1 was
  typed in, keeps "round 1" in its heading, and is offered adding Jonses to round 1; Open round 1 and Back come
  back to the same notice (never "Check round 2" unsaid); adding and Save correction make one round of both teams,
  made from phone 2's photo, nothing stored twice.
- A phone on a photo saved already (round 1) while the other phone saves the last round is told that round was
  saved and the game is over.
- The next game started on one phone with a team renamed: the finished game's page on the other phone links it, and
  that phone's own Start, refused, links the game the other phone started.

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import pytest
# the fixtures and helpers of the two-phones test (skipped as it is, without Chromium, selenium or the models)
from test_page_two_phones import PHOTO, _open_check, _reading, httpx, phones, press_save, server, until  # noqa: F401

from conftest import once
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from test_page_e2e import console_errors, shots_dir, text_of, viewport
from test_page_typed_e2e import typed

THREE_ROUNDS = [50, 90, 120]


@pytest.fixture()
def table(phones):
    """The two phones, each a 390 x 844 screen."""
    for d in phones:
        viewport(d, 390, 844)
    return phones


def _game(url: str, teams: list[str], minimums: list[int] | None = None) -> str:
    house = {"opening_minimums": minimums} if minimums else {}
    return httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": teams, "house_rules": house},
                      headers=once()).json()["id"]


def _notice(d) -> str:
    return text_of(d, "#sync-notice") or ""


def test_one_phone_s_side_is_added_to_the_round_the_other_phone_typed(server, table, tmp_path):
    a, b = table
    shots = shots_dir(tmp_path)
    game = _game(server, ["Smiths", "Jonses"], THREE_ROUNDS)
    # phone 2 reads Jonses' photo for round 1
    b.get(f"{server}/#/game/{game}/round")
    until(b, lambda d: d.find_elements(By.ID, "table-1")).pop().send_keys(str(PHOTO))
    b.find_element(By.ID, "read-cards").click()
    WebDriverWait(b, 120).until(lambda d: text_of(d, "[data-round-total='Jonses']") not in (None, ""))
    assert text_of(b, "#check-heading") == "Check round 1"
    reading = b.current_url.rsplit("/", 1)[1]
    # meanwhile phone 1 types Smiths' side and saves it as round 1 ("nothing read for Jonses": Save anyway)
    a.get(f"{server}/#/game/{game}/type")
    until(a, lambda d: d.find_elements(By.ID, "melds-0"))
    typed(a, "melds", 0, "AH AS AC AD AH AS AC\nKH KS KD")
    for field, cards in (("squared_books", "QH"), ("red_threes", "3D"), ("left", "7C 4S")):
        typed(a, field, 0, cards)
    until(a, lambda d: text_of(d, "#typed-score [data-points=Smiths]") not in (None, "", "0"))
    press_save(a, "save-typed")
    until(a, lambda d: d.current_url.endswith(f"#/game/{game}"))
    smiths = httpx.get(f"{server}/v1/games/{game}").json()["rounds"][0]["score"]["teams"]["Smiths"]["total"]

    # phone 2 is told how round 1 was made, keeps its number, and is offered adding Jonses to it
    until(b, lambda d: "Another phone saved round 1 typed in" in _notice(d))
    assert "It holds no card of Jonses, whose cards you read" in _notice(b)
    assert "from another photo" not in _notice(b)
    assert text_of(b, "#check-heading") == "Check round 1"
    assert text_of(b, "#add-sides") == "Add Jonses to round 1"
    assert b.execute_script("return document.getElementById('save-round').disabled")
    b.execute_script("document.getElementById('sync-notice').scrollIntoView({block: 'start'})")
    b.save_screenshot(str(shots / "sides_offer_390.png"))

    # Open round 1, then Back: the same notice, still round 1 (not "Check round 2" unsaid)
    b.execute_script("document.getElementById('open-theirs').click()")
    until(b, lambda d: "/type/1" in d.current_url)
    b.back()
    until(b, lambda d: "Another phone saved round 1 typed in" in _notice(d))
    assert text_of(b, "#check-heading") == "Check round 1" and b.find_elements(By.ID, "add-sides")
    assert b.execute_script("return document.getElementById('save-round').disabled")

    # adding Jonses: round 1 of both teams to check, then one correction saved
    b.execute_script("document.getElementById('add-sides').click()")
    until(b, lambda d: text_of(d, "#check-heading") == "Correct round 1")
    until(b, lambda d: text_of(d, "[data-round-total='Smiths']") not in (None, "", "0"))
    assert text_of(b, "[data-round-total='Jonses']") == "1,320"
    b.save_screenshot(str(shots / "sides_added_390.png"))
    assert text_of(b, "[data-round-total='Smiths']") == f"{smiths:,}"  # every typed pile of Smiths', as typed
    # before phone 2 saves, phone 1 corrects its typed round 1 (a card held forgotten): phone 2 is told and adds
    # Jonses again to round 1 as it is now (a Save from the round as it was would be 412, nothing changed)
    now = httpx.get(f"{server}/v1/games/{game}")
    fixed = {"teams": {"Smiths": {**now.json()["rounds"][0]["layout"]["teams"]["Smiths"], "left": [["7C", "4S", "5H"]]}}}
    assert httpx.put(f"{server}/v1/games/{game}/rounds/1", json=fixed, headers={"If-Match": now.headers["etag"]},
                     params={"lenient": "true"}).status_code == 200
    until(b, lambda d: "Round 1 was changed there" in _notice(d))
    assert b.execute_script("return document.getElementById('save-round').disabled")
    b.execute_script("document.getElementById('add-sides').click()")
    until(b, lambda d: not _notice(d) and not d.execute_script("return document.getElementById('save-round').disabled"))
    press_save(b)
    until(b, lambda d: "/check/" not in d.current_url)
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert len(rounds) == 1 and rounds[0]["photo_reading"] == reading
    assert rounds[0]["layout"]["teams"]["Smiths"]["melds"] == [["AH", "AS", "AC", "AD", "AH", "AS", "AC"], ["KH", "KS", "KD"]]
    assert rounds[0]["score"]["teams"]["Jonses"]["total"] == 1320
    side = rounds[0]["layout"]["teams"]["Smiths"]
    assert [b["top"] for b in side["squared_books"]] == ["QH"] and side["red_threes"] == ["3D"]
    assert side["left"] == [["7C", "4S", "5H"]]
    for d in (a, b):
        assert [e for e in console_errors(d) if "409" not in e and "412" not in e] == []


def test_one_phone_s_side_is_added_to_the_round_the_other_phone_read_from_its_photo(server, table, tmp_path):
    """The other phone's round 1 is from its photo of Smiths' side: adding Jonses keeps that photo the round's (its
    reading, Jonses' piles added to it as cards typed in), one round of both teams."""
    a, b = table
    game = _game(server, ["Smiths", "Jonses"])
    r = httpx.post(f"{server}/v1/photos", files=[("photos", ("smiths.jpg", PHOTO.read_bytes() + b"s", "image/jpeg"))],
                   data={"rules": "pagat", "teams": "Smiths", "round": "1"}, headers=once(), timeout=120)
    theirs = r.json()["id"]
    mine = httpx.post(f"{server}/v1/photos", files=[("photos", ("jonses.jpg", PHOTO.read_bytes() + b"j", "image/jpeg"))],
                      data={"rules": "pagat", "teams": "Jonses", "round": "1"}, headers=once(), timeout=120).json()["id"]
    b.get(f"{server}/")
    b.execute_script(f"sessionStorage.setItem('handfoot.round.{mine}', '1')")  # as phone 2's round page keeps it
    _open_check(b, server, f"/game/{game}/check/{mine}", "Jonses")
    _open_check(a, server, f"/game/{game}/check/{theirs}", "Smiths")
    press_save(a)
    until(a, lambda d: "/check/" not in d.current_url)
    until(b, lambda d: "Another phone saved round 1 from another photo" in _notice(d))
    assert "their photo stays the round's" in _notice(b) and text_of(b, "#check-heading") == "Check round 1"
    b.execute_script("document.getElementById('add-sides').click()")
    until(b, lambda d: text_of(d, "#check-heading") == "Correct round 1")
    until(b, lambda d: text_of(d, "[data-round-total='Jonses']") == "1,320")
    assert text_of(b, "[data-round-total='Smiths']") == "1,320"
    press_save(b)
    until(b, lambda d: "/check/" not in d.current_url)
    [one] = httpx.get(f"{server}/v1/games/{game}").json()["rounds"]
    assert one["photo_reading"] == theirs and one["score"]["teams"]["Jonses"]["total"] == 1320
    assert one["score"]["teams"]["Smiths"]["total"] == 1320


def test_a_phone_on_a_saved_photo_is_told_the_last_round_was_saved_and_the_game_is_over(server, table, tmp_path):
    a, b = table
    game = _game(server, ["Us", "Them"], THREE_ROUNDS)
    first = _reading(server)
    assert httpx.post(f"{server}/v1/games/{game}/rounds?lenient=true", json={"photo_reading": first}).status_code == 201
    assert httpx.post(f"{server}/v1/games/{game}/rounds", headers=once(),
                      json={"teams": {"Us": {"melds": [["4S", "4H", "4D"]]}}}).status_code == 201
    # phone 2 reads the same photo again for round 3: told it is round 1 already
    b.get(f"{server}/#/game/{game}/check/{_reading(server)}")
    until(b, lambda d: "Already saved as round 1" in _notice(d), 60)
    assert text_of(b, "#check-heading") == "Check round 3"
    # phone 1 types round 3, the last: phone 2 is told round 3 was saved and the game is over
    a.get(f"{server}/#/game/{game}/type")
    until(a, lambda d: d.find_elements(By.ID, "melds-0"))
    typed(a, "melds", 0, "5S 5H 5D")
    typed(a, "melds", 1, "6S 6H 6D")
    until(a, lambda d: text_of(d, "#typed-score [data-points=Them]") not in (None, "", "0"))
    press_save(a, "save-typed")
    until(a, lambda d: "The game is over" in (text_of(d, "main") or ""))
    until(b, lambda d: "Another phone saved round 3 typed in meanwhile" in _notice(d))
    winner = httpx.get(f"{server}/v1/games/{game}").json()["winner"]
    assert f"the game is over: {winner} won" in _notice(b) and "Already saved as round 1" in _notice(b)
    assert text_of(b, "#check-heading") == "The game is over"
    b.execute_script("document.getElementById('sync-notice').scrollIntoView({block: 'start'})")
    b.save_screenshot(str(shots_dir(tmp_path) / "sides_game_over_390.png"))


def test_the_next_game_started_on_the_other_phone_is_linked_a_team_renamed_or_not(server, table, tmp_path):
    a, b = table
    shots = shots_dir(tmp_path)
    game = _game(server, ["Smiths", "Joneses"], [50])
    assert httpx.post(f"{server}/v1/games/{game}/rounds", headers=once(),
                      json={"teams": {"Smiths": {"melds": [["4S", "4H", "4D"]]}}}).status_code == 201
    for d in (a, b):
        d.get(f"{server}/#/game/{game}")
        until(d, lambda d: d.find_elements(By.ID, "play-again"))
    # phone 2 opens "New game, same teams"; phone 1 starts it first, a team renamed (a typo)
    b.find_element(By.ID, "play-again").click()
    until(b, lambda d: d.find_elements(By.ID, "team-2"))
    b.back()  # phone 2 looks at the finished game again before pressing Start
    until(b, lambda d: d.find_elements(By.ID, "play-again"))
    a.find_element(By.ID, "play-again").click()
    until(a, lambda d: d.find_elements(By.ID, "team-2"))
    typed(a, "team", 2, "Jonses")
    a.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    until(a, lambda d: "/new/" not in d.current_url and "/game/" in d.current_url)
    newer = a.current_url.rsplit("/", 1)[1]
    # the finished game's page on phone 2 links it, without a reload
    until(b, lambda d: d.find_elements(By.ID, "newer-game"))
    link = b.find_element(By.CSS_SELECTOR, "#newer-game a")
    assert link.get_attribute("href").endswith(f"#/game/{newer}")
    b.save_screenshot(str(shots / "sides_newer_link_390.png"))
    # phone 2's own Start is refused, linking the game phone 1 started
    b.find_element(By.ID, "play-again").click()
    until(b, lambda d: d.find_elements(By.ID, "team-2"))
    b.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    until(b, lambda d: "Another phone has already started the next game" in (text_of(d, "form .error-box") or ""))
    assert b.find_element(By.ID, "open-started").get_attribute("href").endswith(f"#/game/{newer}")
    assert b.find_element(By.ID, "all-games").get_attribute("href").endswith("#/")
    b.execute_script("document.getElementById('open-started').scrollIntoView({block: 'center'})")
    b.save_screenshot(str(shots / "sides_start_refused_390.png"))
    b.find_element(By.ID, "open-started").click()
    until(b, lambda d: d.current_url.endswith(f"#/game/{newer}"))
    assert len(httpx.get(f"{server}/v1/games").json()) == 2
