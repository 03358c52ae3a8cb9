"""The live view's session and its ``/v1/live`` routes: a camera (a fake one giving rendered tables) watched through
a round; the table read when it changes, an unplugged camera reconnected with its layout kept, the end of the round
kept as a photo reading for the check view."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from conftest import once

from scorer import HandFootError

pytest.importorskip("cv2")
pytest.importorskip("fastapi")


def test_a_video_plays_in_real_time_dropping_late_frames():
    from handfoot.live import paced

    stream = ((k * 0.02, np.full((2, 2, 3), k, np.uint8)) for k in range(30))
    start, got = time.monotonic(), []
    for t, frame in paced(stream):
        got.append(t)
        time.sleep(0.05)  # a slow consumer: frames in between are dropped, never queued
    assert got == sorted(got) and 5 <= len(got) < 20
    assert time.monotonic() - start == pytest.approx(0.6, abs=0.25)


class Camera:
    """A fake camera: the frames of ``stage`` at 20 per second; while ``unplugged`` it stops, as a camera pulled
    out does, and it cannot be opened again until plugged back."""

    def __init__(self, stages: list[np.ndarray]):
        self.stages, self.stage, self.unplugged, self.opened = stages, 0, False, 0

    def open(self, source):
        if source != 0:
            raise HandFootError(f"camera {source}: not available")
        if self.unplugged:
            raise HandFootError("camera 0: not available")
        self.opened += 1
        return self._frames()

    def _frames(self):
        start = time.monotonic()
        while not self.unplugged:
            time.sleep(0.05)
            yield time.monotonic() - start, self.stages[self.stage]
        raise HandFootError("the camera stopped giving pictures (unplugged?); the last reading stands")


@pytest.fixture(scope="module")
def stages(anglo_deck):
    from datasets.round_video import ROUND
    from datasets.scenes import make_scene

    return [make_scene(1, [anglo_deck], size=(1280, 720), full_view=True, clutter=False, piles=list(ROUND.piles),
                       shown=stage).image for stage in ROUND.stages[:2]]


@pytest.fixture(scope="module")
def models():
    from handfoot.core import load_models

    return load_models()


def until(check, seconds: float = 30.0, what: str = ""):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s: {what}")


def test_a_round_watched_from_the_page_api(tmp_path, stages, models):
    from fastapi.testclient import TestClient

    from handfoot.service import Settings, create_app

    camera = Camera(stages)
    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        app.state.open_frames = camera.open
        assert c.get("/v1/live").json()["status"] == "off"
        assert c.get("/v1/live/frame.jpg").status_code == 404
        game = c.post("/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        r = c.post("/v1/live", json={"camera": 3, "game": game})
        assert r.status_code == 422 and r.json()["error"] == "camera 3: not available"
        assert c.post("/v1/live", json={"camera": 0, "game": "0123456789abcdef"}).status_code == 404
        r = c.post("/v1/live", json={"camera": 0, "game": game, "spilt": "horizontal"})
        assert r.status_code == 422 and "spilt" in r.json()["error"]
        r = c.post("/v1/live", json={"camera": 0, "game": game})
        assert r.status_code == 201, r.text
        assert c.post("/v1/live", json={"camera": 0, "game": game}).status_code == 409
        assert c.post("/v1/live/replay").json()["error"] == "a camera cannot be played again; only a video"
        before = c.post("/v1/live/end-round", json={})
        assert before.status_code == 409 and "nothing has been read yet" in before.json()["error"]

        state = until(lambda: (s := c.get("/v1/live").json())["reads"] >= 1 and s, what="a first reading")
        assert state["totals"] == {"Us": 90} and state["game"] == game
        assert sorted(e["event"] for e in state["events"]) == ["team Us: new meld of 8s (3 cards)",
                                                               "team Us: new meld of Ks (6 cards)"]
        picture = c.get("/v1/live/frame.jpg")
        assert picture.headers["content-type"] == "image/jpeg" and picture.content[:2] == b"\xff\xd8"

        camera.stage = 1  # a card added to the meld of 8s
        state = until(lambda: (s := c.get("/v1/live").json())["totals"] == {"Us": 100} and s, what="the 8 added")
        assert state["events"][-1]["event"] == "team Us: meld of 8s grew to 4"

        camera.unplugged = True  # the camera pulled out: the layout stays, the session says so and tries again
        state = until(lambda: (s := c.get("/v1/live").json())["status"] == "reconnecting" and s, what="reconnecting")
        assert state["totals"] == {"Us": 100} and "trying again" in state["message"]
        camera.unplugged = False
        until(lambda: c.get("/v1/live").json()["status"] in ("watching", "moving", "reading"), what="reconnected")
        assert camera.opened == 3 and c.get("/v1/live").json()["totals"] == {"Us": 100}

        r = c.post("/v1/live/end-round", json={})
        assert r.status_code == 201, r.text
        ended = r.json()
        assert ended["game"] == game and ended["check"] == f"/#/game/{game}/check/{ended['reading']}"
        again = c.post("/v1/live/end-round", json={})  # its answer lost, pressed again (or on the other phone too)
        assert again.status_code == 201 and again.json() == ended  # the same reading, not a second
        assert [p.name for p in (tmp_path / "photos").iterdir()] == [ended["reading"]]
        reading = c.get(f"/v1/photos/{ended['reading']}").json()
        assert reading["score"]["teams"]["Us"]["total"] == 100
        assert c.get(f"/v1/photos/{ended['reading']}/annotated/0.jpg").status_code == 200
        assert c.get("/v1/live").json()["totals"] == {"Us": 100}  # not saved yet: the round stands
        saved = c.post(f"/v1/games/{game}/rounds", json={"photo_reading": ended["reading"], "corrections": []})
        assert saved.status_code == 201, saved.text
        assert saved.json()["totals"]["Us"] == 100
        after = c.get("/v1/live").json()
        assert after["events"] == [] and after["totals"] == {} and after["reads"] == 0  # saved: the next round

        camera.stage = 0  # round 2 on the table, read; then typed and saved on another phone
        state = until(lambda: (s := c.get("/v1/live").json())["reads"] >= 1 and s, what="round 2 read")
        assert state["round"] == 2 and state["totals"] == {"Us": 90}
        typed = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["9S", "9H", "9D"]]}}}
        assert c.post(f"/v1/games/{game}/rounds?lenient=true", json=typed, headers=once()).status_code == 201
        r = c.post("/v1/live/end-round", json={})  # round 2 is saved: it is not ended again
        assert r.status_code == 409 and "nothing has been read yet" in r.json()["error"]
        after = c.get("/v1/live").json()
        assert after["round"] == 3 and after["events"] == [] and after["totals"] == {} and after["reads"] == 0
        assert c.get(f"/v1/games/{game}").json()["totals"] == {"Us": 130, "Them": 30}  # as typed

        assert c.delete("/v1/live").status_code == 204
        assert c.get("/v1/live").json()["status"] == "off"
        assert c.delete("/v1/live").status_code == 404
    assert not any(t.name.startswith("handfoot-live") for t in threading.enumerate())


def test_the_round_watched_moves_on_once_it_is_saved_on_another_phone(tmp_path):
    """A camera watching round 1 of a game, round 1 typed on another phone: the camera watches round 2, what it read
    of round 1 forgotten, the typed round kept as typed. A round undone there and typed again leaves the round
    watched, and what the camera read of it, as they are."""
    from types import SimpleNamespace

    from handfoot import games, live, live_rounds
    from handfoot.ledger import Ledger
    from handfoot.watch import Watcher

    ledger = Ledger.open(tmp_path / "h.db")
    try:
        game = games.create_game(ledger, games.GameCreate(rules="pagat", teams=["Us", "Them"])).id
        req = live_rounds.request_for_game(games.game_view(ledger, game))
        session = live.LiveSession(0, Watcher(None, None), req, game)
        read = SimpleNamespace(layout={"teams": {"Us": {"melds": [["8H", "8S", "8C"]]}}}, photo=None)
        session.watcher.seen, session.watcher.reads = read, 2
        assert not live_rounds.follow_game(session, ledger) and session.settings.round == 1
        typed = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["9S", "9H", "9D"]]}}}
        games.add_round(ledger, game, typed, lenient=True)
        assert live_rounds.follow_game(session, ledger)
        assert session.settings.round == 2 and session.stable() is None and session.watcher.reads == 0
        assert not live_rounds.follow_game(session, ledger) and session.settings.round == 2
        assert [r.layout["teams"]["Us"]["melds"] for r in ledger.rounds(game)] == [[["KH", "KS", "KD"]]]

        session.watcher.seen = read  # round 2 read; round 1 undone and typed again: round 2 is still watched
        games.undo_round(ledger, game, 1)
        assert not live_rounds.follow_game(session, ledger)
        games.add_round(ledger, game, typed, lenient=True)
        assert not live_rounds.follow_game(session, ledger)
        assert session.settings.round == 2 and session.stable() is read
    finally:
        ledger.close()


def test_end_round_without_a_reading_and_the_live_page_address(tmp_path):
    from fastapi.testclient import TestClient

    from handfoot.service import Settings, create_app

    with TestClient(create_app(Settings(db=tmp_path / "h.db"), load_models=False), base_url="http://127.0.0.1") as c:
        r = c.post("/v1/live/end-round", json={})
        assert r.status_code == 404 and "nothing is being watched" in r.json()["error"]
        r = c.get("/live", follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"] == "/#/live"
        game = c.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B"]}, headers=once()).json()["id"]
        r = c.post("/v1/live", json={"camera": 0, "game": game})
        assert r.status_code == 503 and "photo reading is off" in r.json()["error"]


def test_a_round_ended_for_another_game_takes_its_teams(tmp_path, stages, models):
    """A table watched without a game (teams A, B) and ended for a game of Ann's and Bob's: the reading is that
    game's next round, the camera's team A named Ann."""
    import json
    from types import SimpleNamespace

    from handfoot import games, live_rounds, photo_request, watch
    from handfoot.ledger import Ledger

    read, score = watch.table_reader(models)
    seen = read(stages[1])
    ledger = Ledger.open(tmp_path / "h.db")
    try:
        game = games.create_game(ledger, games.GameCreate(rules="pagat", teams=["Ann", "Bob"]))
        session = SimpleNamespace(stable=lambda: seen, settings=photo_request.PhotoRequest(), game=None, ended=None,
                                  ended_from=None)
        reading = live_rounds.end_round(session, ledger, games.game_view(ledger, game.id))
        result = json.loads(ledger.reading(reading).result)
        assert result["score"]["teams"]["Ann"]["total"] == 100 and "A" not in result["score"]["teams"]
        assert result["layout"]["rules"] == "pagat"
        done = games.add_round(ledger, game.id, {"photo_reading": reading, "corrections": []})
        assert done.totals == {"Ann": 100, "Bob": 0}
    finally:
        ledger.close()


def test_a_team_renamed_while_its_table_is_watched_takes_its_new_name(tmp_path, stages, models):
    """The camera started watching a game's table (team Smiths in view); the team is renamed Smith on a phone (``PUT
    /v1/games/{id}/teams``): the live view names it Smith, and the round ended is Smith's, saved to the game."""
    import json
    from types import SimpleNamespace

    from handfoot import games, live_rounds, watch
    from handfoot.ledger import Ledger

    read, score = watch.table_reader(models, teams=("Smiths",))  # as the session read it: the game's first team
    seen = read(stages[1])
    ledger = Ledger.open(tmp_path / "h.db")
    try:
        game = games.create_game(ledger, games.GameCreate(rules="pagat", teams=["Smiths", "Jonses"]))
        req = live_rounds.request_for_game(games.game_view(ledger, game.id))
        session = SimpleNamespace(stable=lambda: seen, settings=req, game=game.id, ended=None, ended_from=None)
        games.rename_teams(ledger, game.id, games.TeamsRename(teams=["Smith", "Joneses"]), 0)
        state = {"teams": ["Smiths"], "totals": {"Smiths": 100}, "layout": {"went_out": None, "teams": {"Smiths": {}}},
                 "events": [{"event": "team Smiths: new meld of Ks", "team": "Smiths", "totals": {"Smiths": 90}}]}
        assert live_rounds.named_as_game(state, session, ledger) == {
            "teams": ["Smith"], "totals": {"Smith": 100}, "layout": {"went_out": None, "teams": {"Smith": {}}},
            "events": [{"event": "team Smiths: new meld of Ks", "team": "Smith", "totals": {"Smith": 90}}]}
        reading = live_rounds.end_round(session, ledger, games.game_view(ledger, game.id))
        assert json.loads(ledger.reading(reading).result)["score"]["teams"]["Smith"]["total"] == 100
        done = games.add_round(ledger, game.id, {"photo_reading": reading, "corrections": []})
        assert done.totals == {"Smith": 100, "Joneses": 0}
    finally:
        ledger.close()
