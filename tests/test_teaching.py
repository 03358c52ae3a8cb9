"""A game teaches its deck as the family plays (handfoot.teaching): saved photo rounds re-learn the deck profile in
the background, the game reads with it once learned, and the lesson's measured effect is reported with the game."""

from __future__ import annotations

import re

from pathlib import Path

import pytest

from conftest import once

pytest.importorskip("onnxruntime")
from fastapi.testclient import TestClient  # noqa: E402

from handfoot import teaching  # noqa: E402
from handfoot.service import Settings, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "table.jpg"


@pytest.fixture(scope="module")
def models():
    from handfoot.core import load_models

    return load_models()


def _confirm(reading: dict) -> dict:
    """A correction that changes nothing: the first card set to what it was read as (the family looked)."""
    card = reading["images"][0]["piles"][0]["cards"][0]
    return {"op": "set_card", "card": card["id"], "code": card["code"]}


def _read(c, n: int = 1) -> dict:
    """Read the example photo as photo ``n`` of the table (a few bytes after its end make each ``n`` another file:
    a photo's bytes are saved as one round only)."""
    data = PHOTO.read_bytes() + b"\0" * (n - 1)
    r = c.post("/v1/photos", files=[("photos", ("table.jpg", data, "image/jpeg"))],
               data={"rules": "pagat", "round": "1", "went_out": "A"}, headers=once())
    assert r.status_code == 201, r.text
    return r.json()


def test_three_rounds_teach_the_games_deck_without_a_button(tmp_path, models, monkeypatch):
    from vision import decks

    monkeypatch.setattr(decks, "MIN_CHECK", 1)  # one rendered photo kept aside is enough to check here
    monkeypatch.setattr(decks, "STEPS", 20)
    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        gid = c.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B"], "teach": "family"}, headers=once()).json()["id"]
        game = c.get(f"/v1/games/{gid}").json()
        assert game["teach"] == "family" and game["deck"] is None and game["lesson"] is None
        lessons = []
        for n in range(1, 4):
            reading = _read(c, n)
            body = {"photo_reading": reading["id"], "went_out": "A"}
            if n == 1:  # the family corrected the first round: all its cards teach
                body["corrections"] = [_confirm(reading)]
            r = c.post(f"/v1/games/{gid}/rounds?lenient=true", json=body, headers=once())
            assert r.status_code == 201, r.text
            lessons.append(c.get(f"/v1/games/{gid}").json()["lesson"])  # the lesson ran after the answer
        assert lessons[0]["state"] == "waiting" and "1 photo so far" in lessons[0]["message"]
        assert lessons[1]["state"] == "learned" and lessons[1]["photos"] == 2
        assert lessons[2]["state"] == "learned" and lessons[2]["photos"] == 3  # learned again
        assert 0 <= lessons[2]["stock"] <= 1 and 0 <= lessons[2]["profile"] <= 1
        kept = lessons[2]
        assert (f"card corners in photos it did not learn from: handfoot reads {kept['stock_right']} right without "
                f"it, {kept['profile_right']} with it (right: the rank and the colour") in kept["message"]
        game = c.get(f"/v1/games/{gid}").json()
        assert game["deck"] == "family"  # read with it from now on
        assert [d["name"] for d in c.get("/v1/decks").json()] == ["family"]
        assert c.get("/v1/decks").json()[0]["photos"] == 3
        # opting out: the deck stays, the game's rounds teach no more
        out = c.put(f"/v1/games/{gid}/deck", json={"deck": "family", "teach": False}).json()
        assert out["deck"] == "family" and out["teach"] is None
        # a new deck name is taught, not refused; with teach false an unknown deck is 404
        assert c.put(f"/v1/games/{gid}/deck", json={"deck": "grandmas"}).json()["teach"] == "grandmas"
        assert c.put(f"/v1/games/{gid}/deck", json={"deck": "nobody", "teach": False}).status_code == 404


def test_a_round_saved_as_read_teaches_only_its_sure_cards(tmp_path, models):
    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        gid = c.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B"]}, headers=once()).json()["id"]
        reading = _read(c)
        assert c.post(f"/v1/games/{gid}/rounds?lenient=true",
                      json={"photo_reading": reading["id"], "went_out": "A"}).status_code == 201
        ledger = app.state.ledger
        every = teaching.game_examples(ledger, gid)[0]["detections"]
        sure = teaching.game_examples(ledger, gid, sure_only=True)[0]["detections"]
        cards = [card for pile in reading["images"][0]["piles"] for card in pile["cards"]]
        unsure = [c for c in cards if c["confidence"] < teaching.SURE_TO_TEACH or
                  any(c in p["cards"] for p in reading["images"][0]["piles"] if p["notes"])]
        assert unsure, "the example photo has a card to leave out (its squared book has a note)"
        assert len(sure) == len(every) - sum(len(c["boxes"]) for c in unsure)
        # once corrected, the family looked at it: every card teaches
        c.put(f"/v1/games/{gid}/rounds/1?lenient=true",
              json={"photo_reading": reading["id"], "went_out": "A", "corrections": [_confirm(reading)]},
              headers={"If-Match": c.get(f"/v1/games/{gid}").headers["etag"]})
        assert len(teaching.game_examples(ledger, gid, sure_only=True)[0]["detections"]) == len(every)


def test_a_round_saved_as_checked_teaches_every_card(tmp_path, models):
    """The check view's "Every card is right as shown" saves the correction ``checked``: the family looked and found
    nothing to change, so every card teaches (a close-up of a dark deck read right is seldom read 80 % sure: such
    rounds taught nothing), and the round scores as read."""
    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        gid = c.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B"]}, headers=once()).json()["id"]
        reading = _read(c)
        r = c.post(f"/v1/games/{gid}/rounds?lenient=true",
                   json={"photo_reading": reading["id"], "went_out": "A", "corrections": [{"op": "checked"}]})
        assert r.status_code == 201, r.text
        ledger = app.state.ledger
        every = teaching.game_examples(ledger, gid)[0]["detections"]
        assert len(teaching.game_examples(ledger, gid, sure_only=True)[0]["detections"]) == len(every)
        tried = c.post(f"/v1/photos/{reading['id']}/corrections", json={"corrections": [{"op": "checked"}],
                                                                        "went_out": "A"})
        assert tried.status_code == 200 and tried.json()["score"] == c.post(
            f"/v1/photos/{reading['id']}/corrections", json={"corrections": [], "went_out": "A"}).json()["score"]


def test_the_teach_panel_names_the_check_views_box_as_it_reads():
    """The game page's **Keep learning it** names the check view's box by its label, "Every card is right as shown",
    and says when it is there (a game reading with a deck: a new user looked for it above Save before that)."""
    web = ROOT / "handfoot" / "web"
    label = "Every card is right as shown"
    assert f"` {label}:" in (web / "piles.js").read_text()
    teach = re.sub(r'"\s*\+\s*"', "", (web / "teach.js").read_text())  # the strings as joined
    assert f"once the game reads with the deck, the check view shows a box above Save, {label}:" in teach
    assert "unless Every card is right is ticked" not in teach


def test_a_lesson_that_reads_no_better_yet_says_so():
    from types import SimpleNamespace

    from handfoot.teaching import learned

    def lesson(stock_right, profile_right):
        check = {"stock": 0.5, "profile": 0.5, "indices": 40, "stock_right": stock_right,
                 "profile_right": profile_right, "method": "kept aside"}
        return learned(SimpleNamespace(name="family", photos=3, check=check), 3, 1).message

    assert "no better yet" in lesson(38, 38) and "no better yet" in lesson(38, 36)
    assert "no better yet" not in lesson(30, 38)


def test_a_lesson_is_said_in_a_familys_words():
    """What a lesson did is said without the reader's words (indices, a trial profile, the profile): card corners,
    tested on photos it did not learn from (or each photo left out in turn), read right by rank and colour."""
    from types import SimpleNamespace

    from handfoot.teaching import learned

    def lesson(method):
        check = {"stock": 0.93, "profile": 1.0, "indices": 55, "stock_right": 52, "profile_right": 55, "method": method}
        return learned(SimpleNamespace(name="our-white", photos=5, check=check), 5, 1).message

    aside, folds = lesson("kept aside"), lesson("folds")
    assert aside == ("Deck our-white learned from 5 photos of 1 game. Tested on 55 card corners in photos it did not "
                     "learn from: handfoot reads 52 right without it, 55 with it (right: the rank and the colour, all "
                     "the score needs).")
    assert folds.startswith("Deck our-white learned from 5 photos of 1 game. Tested on the 55 card corners in its "
                            "photos, each photo left out of the learning that tested it: handfoot reads 52 right")
    for said in (aside, folds):
        assert not any(word in said for word in ("indices", "profile", "trial")), said


def test_a_dark_decks_lesson_says_without_it_is_its_negatives_read():
    """A deck printed light on dark is checked against the stock reader reading its photos' negatives (as the
    light-print box does): the lesson's "without it" says so."""
    from types import SimpleNamespace

    from handfoot.teaching import learned

    check = {"stock": 0.64, "profile": 0.92, "indices": 51, "stock_right": 33, "profile_right": 48,
             "method": "5-fold", "stock_negative": True}
    said = learned(SimpleNamespace(name="blackgold", photos=24, check=check), 24, 1).message
    assert ("handfoot reads 33 right without it (reading their negatives, as the light-print box does), 48 with it "
            "(right: the rank and the colour") in said, said


def test_a_lesson_refused_says_what_reads_on_in_a_familys_words(tmp_path, models, monkeypatch):
    """A lesson whose trial reads worse than the stock reader keeps nothing: it said "... the profile 'white' reads
    the photos it was tested on (not learned from) worse than the stock reader: ... 5-fold; not kept: check the
    example codes ...; the stock reader stays" while the deck learned before read on. Now its figures in the
    learned lesson's words, and what reads on: the deck as learned before, or handfoot without it."""
    from vision import decks
    from vision.deck_profiles import DeckProfile
    from vision.models.reader import IndexReader

    figures = {"indices": 57, "stock": 0.848, "profile": 0.836, "stock_right": 51, "profile_right": 48,
               "method": "5-fold"}

    def refuse(*args, **kwargs):
        raise decks.ProfileRefusedError("the profile 'family' reads ... worse than the stock reader", figures)

    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    monkeypatch.setattr(decks, "learn", refuse)
    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        gid = c.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B"], "teach": "family"}, headers=once()).json()["id"]
        for n in (1, 2):
            reading = _read(c, n)
            assert c.post(f"/v1/games/{gid}/rounds?lenient=true", json={
                "photo_reading": reading["id"], "went_out": "A", "corrections": [_confirm(reading)]}).status_code == 201
            if n == 1:  # a deck learned before, from 4 photos
                DeckProfile("family", IndexReader().stock_heads(), 4, 37, {}, "2026-12-01T10:00:00+00:00").save(
                    tmp_path / "decks")
        lesson = c.get(f"/v1/games/{gid}").json()["lesson"]
        assert lesson["state"] == "refused" and (lesson["stock_right"], lesson["profile_right"]) == (51, 48)
        assert lesson["message"] == (
            "Deck family not learned again from 2 photos. Tested on the 57 card corners in its photos, each photo "
            "left out of the learning that tested it: handfoot reads 51 right without it, 48 with what it learned "
            "now (right: the rank and the colour, all the score needs). Nothing was kept: this game reads on with "
            "deck family as learned before from 4 photos; each round saved with photos teaches it more.")
        assert "stock reader" not in lesson["message"] and "profile" not in lesson["message"]
