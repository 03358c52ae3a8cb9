"""Two phones at one table, through a real uvicorn server on 127.0.0.1 (a thread, a temporary SQLite ledger, the
shipped models): game versions and If-Match (412 with the game as it is now), a photo reading saved once (409
naming the round), Idempotency-Key on POST of games, rounds and photos and on an undo (which needs If-Match or a
key: 428), and the game's event stream."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
pytest.importorskip("cv2")

from conftest import once, served  # noqa: E402
from handfoot.service import Settings, create_app  # noqa: E402

PHOTO = Path(__file__).resolve().parents[1] / "examples" / "table.jpg"
LAYOUT = {"teams": {"A": {"melds": [["KH", "KS", "KD"]]}, "B": {"melds": [["9S", "9H", "9D"]]}}}
OTHER = {"teams": {"A": {"melds": [["QH", "QS", "QD"]]}, "B": {"melds": [["9S", "9H", "9D"]]}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from handfoot.core import load_models

    db = tmp_path_factory.mktemp("sync") / "h.db"
    with served(create_app(Settings(db=db), models=load_models())) as url:
        yield url, db


def _game(url: str) -> str:
    r = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["A", "B"]}, headers=once())
    assert r.status_code == 201 and r.headers["etag"] == '"0"' and r.json()["version"] == 0
    return r.json()["id"]


def test_a_stale_write_is_refused_412_with_the_game_as_it_is(server):
    url, _ = server
    gid = _game(url)
    r = httpx.post(f"{url}/v1/games/{gid}/rounds", json=LAYOUT, headers={"If-Match": '"0"'})
    assert r.status_code == 201 and r.headers["etag"] == '"1"' and r.json()["version"] == 1
    got = httpx.get(f"{url}/v1/games/{gid}")
    assert got.headers["etag"] == '"1"' and got.json()["version"] == 1

    # ten phones correct round 1 from the same version at once: one wins, nine are told
    def put(k: int):
        body = LAYOUT if k % 2 else OTHER
        return httpx.put(f"{url}/v1/games/{gid}/rounds/1", json=body, headers={"If-Match": '"1"'}, timeout=30)
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(put, range(10)))
    assert sorted(a.status_code for a in answers) == [200] + [412] * 9, [a.text for a in answers]
    winner = next(a for a in answers if a.status_code == 200).json()
    for a in answers:
        if a.status_code == 412:
            body = a.json()
            assert "changed on another phone" in body["error"] and body["game"]["version"] == 2
            assert body["game"]["rounds"][0]["layout"] == winner["rounds"][0]["layout"]
            assert a.headers["etag"] == '"2"'
    # a stale add and undo are refused too; nothing changed
    assert httpx.post(f"{url}/v1/games/{gid}/rounds", json=OTHER, headers={"If-Match": '"1"'}).status_code == 412
    assert httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers={"If-Match": '"0"'}).status_code == 412
    assert httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers={"If-Match": "garbage"}).status_code == 422
    assert len(httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]) == 1
    # the current version (or *, with the layout's round) goes through
    assert httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers={"If-Match": '"2"'}).json()["version"] == 3
    assert httpx.post(f"{url}/v1/games/{gid}/rounds", json={**LAYOUT, "round": 1},
                      headers={"If-Match": "*"}).status_code == 201


def test_a_reading_is_one_round_and_a_repeated_post_stores_nothing_new(server):
    url, db = server
    # the same photo POST twice with one key: one reading, the first answer twice
    with open(PHOTO, "rb") as f:
        photo = f.read()
    readings = []
    for _ in range(2):
        readings.append(httpx.post(f"{url}/v1/photos", files=[("photos", ("t.jpg", photo, "image/jpeg"))],
                                   data={"rules": "pagat"}, headers={"Idempotency-Key": "photo-1"}, timeout=120))
    assert [r.status_code for r in readings] == [201, 201]
    assert readings[0].json() == readings[1].json() and readings[1].headers["idempotent-replayed"] == "true"
    assert [p.name for p in (db.parent / "photos").iterdir()] == [readings[0].json()["id"]]
    rid = readings[0].json()["id"]

    # a round posted twice with one key (an answer dropped, the phone sent it again): one round
    gid = _game(url)
    posts = [httpx.post(f"{url}/v1/games/{gid}/rounds?lenient=true", json={"photo_reading": rid},
                        headers={"Idempotency-Key": "round-1"}) for _ in range(2)]
    assert [p.status_code for p in posts] == [201, 201] and posts[0].json() == posts[1].json()
    assert len(httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]) == 1

    # the same reading saved again (another phone, no key): 409 naming the round; in another game too
    again = httpx.post(f"{url}/v1/games/{gid}/rounds?lenient=true", json={"photo_reading": rid})
    assert again.status_code == 409 and again.json()["round"] == 1 and again.json()["game"] == gid
    assert "already round 1" in again.json()["error"]
    other = _game(url)
    assert httpx.post(f"{url}/v1/games/{other}/rounds?lenient=true", json={"photo_reading": rid}).status_code == 409
    assert httpx.get(f"{url}/v1/games/{other}").json()["rounds"] == []
    # correcting the round it became is fine
    assert httpx.put(f"{url}/v1/games/{gid}/rounds/1?lenient=true", json={"photo_reading": rid},
                     headers={"If-Match": httpx.get(f"{url}/v1/games/{gid}").headers["etag"]}).status_code == 200
    # the same photo sent again (another reading of its very bytes, from the other phone): 409 naming the round
    twin = httpx.post(f"{url}/v1/photos", files=[("photos", ("again.jpg", photo, "image/jpeg"))],
                      data={"rules": "pagat"}, timeout=120, headers=once()).json()["id"]
    assert twin != rid
    again = httpx.post(f"{url}/v1/games/{gid}/rounds?lenient=true", json={"photo_reading": twin})
    assert again.status_code == 409 and again.json()["round"] == 1, again.text
    assert "again.jpg is already scored in round 1" in again.json()["error"]
    assert len(httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]) == 1
    # in another game the same photo may be a round of its own
    assert httpx.post(f"{url}/v1/games/{other}/rounds?lenient=true", json={"photo_reading": twin}).status_code == 201

    # games: one key, one game; a key reused on another request or malformed: 422
    before = len(httpx.get(f"{url}/v1/games").json())
    made = [httpx.post(f"{url}/v1/games", json={"rules": "pagat"}, headers={"Idempotency-Key": "game-1"})
            for _ in range(3)]
    assert len({m.json()["id"] for m in made}) == 1 and len(httpx.get(f"{url}/v1/games").json()) == before + 1
    # a key names one action on one address: the same key on another address is another action
    fresh = _game(url)
    other_round = httpx.post(f"{url}/v1/games/{fresh}/rounds", json=LAYOUT, headers={"Idempotency-Key": "game-1"})
    assert other_round.status_code == 201 and "idempotent-replayed" not in other_round.headers
    assert httpx.post(f"{url}/v1/games", json={}, headers={"Idempotency-Key": "a b"}).status_code == 422
    other_body = httpx.post(f"{url}/v1/games", json={"rules": "six-deck"}, headers={"Idempotency-Key": "game-1"})
    assert other_body.status_code == 422 and "another request body" in other_body.json()["error"]
    # a deleted game's creation, sent again, makes it anew
    httpx.delete(f"{url}/v1/games/{made[0].json()['id']}")
    again = httpx.post(f"{url}/v1/games", json={"rules": "pagat"}, headers={"Idempotency-Key": "game-1"})
    assert again.status_code == 201 and again.json()["id"] != made[0].json()["id"]
    # an error is not kept: the same key may be sent again once the request is right
    bad = httpx.post(f"{url}/v1/games", json={"rules": "nope"}, headers={"Idempotency-Key": "game-2"})
    assert bad.status_code == 422
    assert httpx.post(f"{url}/v1/games", json={"rules": "pagat"}, headers={"Idempotency-Key": "game-2"}).status_code == 201


def _listen(url: str, gid: str, last: str) -> tuple[threading.Thread, list[dict], threading.Event]:
    """Game ``gid``'s event stream read in a thread until an event named ``last``: (the thread, the events seen
    as ``{"event": name, **data}``, set once the first is seen)."""
    seen: list[dict] = []
    ready = threading.Event()

    def listen():
        with httpx.stream("GET", f"{url}/v1/games/{gid}/events", timeout=30) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            event = "message"
            for line in r.iter_lines():
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    seen.append({"event": event, **json.loads(line[5:])})
                    ready.set()
                    if event == last:
                        return
                    event = "message"

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert ready.wait(10)
    return thread, seen, ready



def _three_rounds(url: str) -> str:
    gid = _game(url)
    for n in (1, 2, 3):
        assert httpx.post(f"{url}/v1/games/{gid}/rounds", json={**LAYOUT, "round": n}).status_code == 201
    return gid


def test_an_undo_sent_with_nothing_that_tells_a_repeat_is_refused_428(server):
    url, _ = server
    gid = _three_rounds(url)
    for headers in ({}, {"If-Match": "*"}):
        r = httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers=headers)
        assert r.status_code == 428 and r.headers["content-type"] == "application/json", r.text
        said = r.json()["error"]
        assert said.startswith("undoing a round needs If-Match: the game's version, quoted as its ETag sends it "
                               '("3" now), or an Idempotency-Key'), said
        assert "would undo the round after it too" in said
    assert len(httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]) == 3  # nothing undone
    assert httpx.delete(f"{url}/v1/games/0123456789abcdef/rounds/1").status_code == 404


def test_an_undo_sent_again_after_a_lost_answer_undoes_one_round_only(server):
    url, _ = server
    gid = _three_rounds(url)
    etag = httpx.get(f"{url}/v1/games/{gid}").headers["etag"]
    first = httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers={"If-Match": etag})
    assert first.status_code == 200 and len(first.json()["rounds"]) == 2
    again = httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers={"If-Match": etag})  # the retry: told, not done
    assert again.status_code == 412 and len(again.json()["game"]["rounds"]) == 2, again.text
    # with a key: the retry gets the first answer, nothing more undone
    key = {"Idempotency-Key": "undo-1"}
    first = httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers=key)
    again = httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers=key)
    assert first.status_code == again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json() and len(httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]) == 1
    # an If-Match that is no version is refused in words, even with a key already answered
    bad = httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers={**key, "If-Match": "AAA"})
    assert bad.status_code == 422 and bad.json()["error"].startswith("If-Match 'AAA': expected the version"), bad.text



def test_a_round_added_with_nothing_that_tells_a_repeat_is_refused_428(server):
    url, _ = server
    gid = _game(url)
    r = httpx.post(f"{url}/v1/games/{gid}/rounds", json=LAYOUT)  # sent twice, it would be rounds 1 and 2
    assert r.status_code == 428, r.text
    said = r.json()["error"]
    assert said.startswith("adding a round needs If-Match: the game's version, quoted as its ETag sends it "
                           '("0" now), an Idempotency-Key (a random id per save), or the layout\'s "round"'), said
    assert httpx.post(f"{url}/v1/games/{gid}/rounds", json={**LAYOUT, "round": True}).status_code == 428
    assert httpx.get(f"{url}/v1/games/{gid}").json()["rounds"] == []
    # a layout naming its round: sent again, it is refused, not stored twice
    first = httpx.post(f"{url}/v1/games/{gid}/rounds", json={**LAYOUT, "round": 1})
    again = httpx.post(f"{url}/v1/games/{gid}/rounds", json={**LAYOUT, "round": 1})
    assert first.status_code == 201 and again.status_code == 422 and "this is round 2" in again.json()["error"]
    assert len(httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]) == 1


def test_a_game_or_photos_sent_without_a_key_are_refused_428_before_anything_is_read(server):
    url, db = server
    before = httpx.get(f"{url}/v1/games").json()
    r = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["A", "B"]})  # sent twice, it was two games
    assert r.status_code == 428 and r.headers["content-type"] == "application/json", r.text
    said = r.json()["error"]
    assert said.startswith("starting a game needs an Idempotency-Key (a random id per game started: a request header "
                           "of 1 to 200 visible ASCII characters, the same one when the request is sent again): "), said
    assert said.endswith("a game without one would be stored twice"), said
    assert httpx.get(f"{url}/v1/games").json() == before

    photos = db.parent / "photos"
    kept = sorted(photos.iterdir()) if photos.exists() else []
    r = httpx.post(f"{url}/v1/photos", files=[("photos", ("t.jpg", PHOTO.read_bytes(), "image/jpeg"))],
                   data={"rules": "pagat"}, timeout=120)  # sent twice, it was read and kept twice
    assert r.status_code == 428, r.text
    said = r.json()["error"]
    assert said.startswith("reading photos needs an Idempotency-Key (a random id per reading: "), said
    assert "would be read and kept twice" in said
    assert (sorted(photos.iterdir()) if photos.exists() else []) == kept  # nothing read, nothing kept


def _rounds_of(url: str, gid: str) -> list[str]:
    """Each round's first meld of team A, in order: which rounds a game holds."""
    return ["".join(r["layout"]["teams"]["A"]["melds"][0]) for r in httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]]


def test_a_correction_needs_the_version_it_was_made_from_so_an_undo_elsewhere_is_told(server):
    url, _ = server
    gid = _game(url)
    for n, rank in enumerate("KQJ", 1):  # three rounds told apart by their cards
        layout = {"round": n, "teams": {"A": {"melds": [[rank + "H", rank + "S", rank + "D"]]}, "B": {}}}
        assert httpx.post(f"{url}/v1/games/{gid}/rounds?lenient=true", json=layout).status_code == 201
    seen = httpx.get(f"{url}/v1/games/{gid}").headers["etag"]  # this phone opens round 2, the queens, to correct it
    assert httpx.delete(f"{url}/v1/games/{gid}/rounds/2", headers=once()).status_code == 200  # the other phone undoes it
    assert _rounds_of(url, gid) == ["KHKSKD", "JHJSJD"]  # the jacks are round 2 now
    fixed = {"teams": {"A": {"melds": [["QH", "QS", "QD", "QC"]]}, "B": {}}}
    for headers in ({}, {"If-Match": "*"}):  # it replaced the jacks, lost with nothing said
        r = httpx.put(f"{url}/v1/games/{gid}/rounds/2?lenient=true", json=fixed, headers=headers)
        assert r.status_code == 428 and r.headers["content-type"] == "application/json", r.text
        said = r.json()["error"]
        assert said.startswith("correcting a round needs If-Match: the game's version, quoted as its ETag sends it "
                               '("4" now): '), said
        assert "the round that moved up into round 2" in said
    r = httpx.put(f"{url}/v1/games/{gid}/rounds/2?lenient=true", json=fixed, headers={"If-Match": seen})
    assert r.status_code == 412 and len(r.json()["game"]["rounds"]) == 2, r.text
    assert _rounds_of(url, gid) == ["KHKSKD", "JHJSJD"]  # the jacks kept
    assert httpx.put(f"{url}/v1/games/nope/rounds/2", json=fixed).status_code == 404


def test_a_game_deleted_from_a_stale_copy_is_refused_412_and_kept(server):
    url, _ = server
    gid = _game(url)
    seen = httpx.get(f"{url}/v1/games/{gid}").headers["etag"]  # this phone asks "Delete this game?" about no round
    assert httpx.post(f"{url}/v1/games/{gid}/rounds", json=LAYOUT, headers=once()).status_code == 201  # the other saves one
    r = httpx.delete(f"{url}/v1/games/{gid}", headers={"If-Match": seen})
    assert r.status_code == 412 and "changed on another phone" in r.json()["error"], r.text
    assert len(r.json()["game"]["rounds"]) == 1 and r.headers["etag"] == '"1"'
    assert len(httpx.get(f"{url}/v1/games/{gid}").json()["rounds"]) == 1  # kept
    assert httpx.delete(f"{url}/v1/games/{gid}", headers={"If-Match": '"1"'}).status_code == 204
    again = httpx.delete(f"{url}/v1/games/{gid}", headers={"If-Match": '"1"'})  # sent again after a lost answer
    assert again.status_code == 404 and httpx.get(f"{url}/v1/games/{gid}").status_code == 404


def test_the_event_stream_says_each_new_version(server):
    url, _ = server
    gid = _game(url)
    thread, seen, _ = _listen(url, gid, "deleted")
    httpx.post(f"{url}/v1/games/{gid}/rounds", json=LAYOUT, headers=once())
    httpx.put(f"{url}/v1/games/{gid}/rounds/1", json=OTHER, headers={"If-Match": '"1"'})
    httpx.delete(f"{url}/v1/games/{gid}/rounds/1", headers={"If-Match": '"2"'})
    httpx.delete(f"{url}/v1/games/{gid}")
    thread.join(20)
    assert not thread.is_alive()
    assert [s["version"] for s in seen] == [0, 1, 2, 3, None] and seen[-1]["event"] == "deleted"
    assert httpx.get(f"{url}/v1/games/nope/events").status_code == 404


def test_a_finished_game_names_the_next_game_in_its_view_and_its_stream(server):
    """A phone still on a game that ended is told of the game started after it (from another phone): the game's
    ``newer_game`` and its stream's ``newer`` event, at once when it is made and at once to a stream opened later; a
    game started while it was still played is not its next game, nor is a game of other teams (another table's,
    made before or after it)."""
    url, _ = server
    one_round = {"rules": "pagat", "teams": ["A", "B"], "house_rules": {"opening_minimums": [50]}}
    old = httpx.post(f"{url}/v1/games", json=one_round, headers=once()).json()["id"]
    _game(url)  # another game, started while this one is played
    time.sleep(1.1)  # the times kept are whole seconds
    assert httpx.post(f"{url}/v1/games/{old}/rounds", json=LAYOUT, headers=once()).status_code == 201
    ended = httpx.get(f"{url}/v1/games/{old}").json()
    assert ended["over"] and ended["newer_game"] is None
    thread, seen, _ = _listen(url, old, "newer")
    assert seen == [{"event": "message", "game": old, "version": 1}]
    other = httpx.post(f"{url}/v1/games", json=one_round | {"teams": ["Kids", "Adults"]}, headers=once()).json()["id"]
    nxt = httpx.post(f"{url}/v1/games", json=one_round | {"teams": ["B", "A"]}, headers=once()).json()["id"]  # seated otherwise
    httpx.post(f"{url}/v1/games", json=one_round | {"teams": ["Kids", "Adults"]}, headers=once())  # another table's, made later
    thread.join(10)
    assert not thread.is_alive() and seen[-1] == {"event": "newer", "game": old, "newer": nxt}
    assert httpx.get(f"{url}/v1/games/{old}").json()["newer_game"] == nxt
    assert httpx.get(f"{url}/v1/games/{nxt}").json()["newer_game"] is None  # not over
    assert httpx.get(f"{url}/v1/games/{other}").json()["newer_game"] is None
    thread, seen, _ = _listen(url, old, "newer")  # a phone opening the old game later
    thread.join(10)
    assert not thread.is_alive() and [s["event"] for s in seen] == ["message", "newer"] and seen[1]["newer"] == nxt


def test_light_print_on_dark_is_the_games_setting_changed_with_if_match(server):
    """Whether a game's cards are printed light on dark is kept with the game (it was the round page's box on each
    phone): made with it or set by ``PUT /v1/games/{id}/negative``, every phone's ``GET`` says it, the event stream
    tells the new version; a stale ``If-Match`` is 412 with the game as it is now, nothing changed; set again as it
    is, nothing changes."""
    url, _ = server
    gid = _game(url)
    assert httpx.get(f"{url}/v1/games/{gid}").json()["negative"] is False
    thread, seen, _ = _listen(url, gid, "deleted")
    r = httpx.put(f"{url}/v1/games/{gid}/negative", json={"negative": True}, headers={"If-Match": '"0"'})
    assert r.status_code == 200, r.text
    assert r.json()["negative"] is True and r.headers["etag"] == '"1"'
    got = httpx.get(f"{url}/v1/games/{gid}")  # the other phone
    assert got.json()["negative"] is True and got.headers["etag"] == '"1"'
    stale = httpx.put(f"{url}/v1/games/{gid}/negative", json={"negative": False}, headers={"If-Match": '"0"'})
    assert stale.status_code == 412, stale.text
    assert "changed on another phone" in stale.json()["error"] and stale.json()["game"]["negative"] is True
    same = httpx.put(f"{url}/v1/games/{gid}/negative", json={"negative": True}, headers={"If-Match": '"1"'})
    assert same.status_code == 200 and same.headers["etag"] == '"1"'  # as it is: nothing changed
    assert httpx.put(f"{url}/v1/games/{gid}/negative", json={"negative": "yes"}).status_code == 422
    assert httpx.put(f"{url}/v1/games/nope/negative", json={"negative": True}).status_code == 404
    off = httpx.put(f"{url}/v1/games/{gid}/negative", json={"negative": False}, headers={"If-Match": '"1"'})
    assert off.json()["negative"] is False and off.headers["etag"] == '"2"'
    httpx.delete(f"{url}/v1/games/{gid}")
    thread.join(20)
    assert [s["version"] for s in seen] == [0, 1, 2, None]
    made = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["A", "B"], "negative": True}, headers=once())
    assert made.status_code == 201 and made.json()["negative"] is True  # the next game of a family's dark deck


def test_the_next_game_started_with_a_team_renamed_is_named_and_a_key_sent_again_names_its_game(server):
    """``POST /games`` with ``follows``: the finished game's ``newer_game`` is that game even with a team renamed
    (a typo on the phone that started it); the same Idempotency-Key with another body (the other phone's Start) is
    422 naming the game the first request made."""
    url, _ = server
    one_round = {"rules": "pagat", "teams": ["Smiths", "Joneses"], "house_rules": {"opening_minimums": [50]}}
    old = httpx.post(f"{url}/v1/games", json=one_round, headers=once()).json()["id"]
    time.sleep(1.1)  # the times kept are whole seconds
    assert httpx.post(f"{url}/v1/games/{old}/rounds", json={"teams": {"Smiths": {"melds": [["KH", "KS", "KD"]]}}},
                      headers=once()).status_code == 201
    key = {"Idempotency-Key": f"next-{old}"}
    renamed = httpx.post(f"{url}/v1/games", json=one_round | {"teams": ["Smiths", "Jonses"], "follows": old}, headers=key)
    assert renamed.status_code == 201
    assert httpx.get(f"{url}/v1/games/{old}").json()["newer_game"] == renamed.json()["id"]
    again = httpx.post(f"{url}/v1/games", json=one_round | {"follows": old}, headers=key)
    assert again.status_code == 422 and again.json()["game"] == renamed.json()["id"], again.text
    assert "sent before with another request body" in again.json()["error"]
    assert httpx.post(f"{url}/v1/games", json=one_round | {"follows": "nope"}, headers=once()).status_code == 422


def test_one_phone_s_side_added_to_the_round_the_other_typed_is_one_write_checked_by_if_match(server):
    """Two phones, each its own team's side of round 1: one typed Smiths' side and saved it; the other read Jonses'
    photo and adds its side to that round as one PUT of its reading with Smiths' piles added (``add_pile``): made from
    a stale version it is 412 and nothing changes; from the version it saw, round 1 holds both teams, made from its
    photo, and sent again it changes nothing more (412, the game holding it)."""
    url, _ = server
    gid = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "teams": ["Smiths", "Jonses"]},
                     headers=once()).json()["id"]
    typed = {"teams": {"Smiths": {"melds": [["AH", "AS", "AC"]], "red_threes": ["3D"]}}}
    assert httpx.post(f"{url}/v1/games/{gid}/rounds", json=typed, headers=once()).status_code == 201
    r = httpx.post(f"{url}/v1/photos", files=[("photos", ("table.jpg", PHOTO.read_bytes() + b"sides", "image/jpeg"))],
                   data={"rules": "pagat", "teams": "Jonses", "round": "1"}, headers=once(), timeout=120)
    assert r.status_code == 201, r.text
    reading = r.json()["id"]
    body = {"photo_reading": reading, "went_out": None,
            "corrections": [{"op": "add_pile", "team": "Smiths", "kind": "meld", "cards": ["AH", "AS", "AC"]},
                            {"op": "add_pile", "team": "Smiths", "kind": "red_threes", "cards": ["3D"]}]}
    stale = httpx.put(f"{url}/v1/games/{gid}/rounds/1?lenient=true", json=body, headers={"If-Match": '"0"'})
    assert stale.status_code == 412 and stale.json()["game"]["rounds"][0]["photo_reading"] is None
    fresh = httpx.put(f"{url}/v1/games/{gid}/rounds/1?lenient=true", json=body, headers={"If-Match": '"1"'})
    assert fresh.status_code == 200, fresh.text
    [one] = fresh.json()["rounds"]
    assert one["photo_reading"] == reading and one["layout"]["teams"]["Smiths"]["melds"] == [["AH", "AS", "AC"]]
    assert one["layout"]["teams"]["Jonses"]["melds"] and one["score"]["teams"]["Jonses"]["total"] == 1320
    again = httpx.put(f"{url}/v1/games/{gid}/rounds/1?lenient=true", json=body, headers={"If-Match": '"1"'})
    assert again.status_code == 412 and again.json()["game"]["rounds"] == fresh.json()["rounds"]
    # the photo is round 1 now: saving it again as round 2 is refused
    assert httpx.post(f"{url}/v1/games/{gid}/rounds", json={"photo_reading": reading}).status_code == 409
