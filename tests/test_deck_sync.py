"""Two phones teaching one deck (``handfoot.deck_sync``): each profile's ``version`` in ``GET /v1/decks``;
``If-None-Match: *`` and ``If-Match`` on the learn routes, checked at the start (412) and again as the job saves
(the job fails, ``changed``, and the profile kept stays); 409 while a job learns the name already.

Fast: no model is loaded (the route's models are swapped through ``app.dependency_overrides``) and
``vision.decks.learn`` is swapped for one that makes a small profile at once, or waits at a gate the test opens
once another phone has taught the deck meanwhile."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("cv2")
from fastapi.testclient import TestClient  # noqa: E402

from handfoot.deck_sync import save_deck  # noqa: E402
from handfoot.routes.deps import get_models  # noqa: E402
from handfoot.service import Settings, create_app  # noqa: E402

PHOTO = Path(__file__).resolve().parents[1] / "examples" / "table.jpg"
EXAMPLE = {"image": str(PHOTO), "detections": [{"card": "KH", "box": [10, 10, 60, 90]}]}


def profile(name: str, photos: int, created: str):
    """A small deck profile (heads of one member over 4 features) learned from ``photos`` photos at ``created``."""
    from vision.deck_profiles import DeckProfile
    from vision.models.reader import Heads

    heads = Heads(((np.zeros((15, 4), np.float32), np.zeros(15, np.float32), np.zeros((4, 4), np.float32),
                    np.zeros(4, np.float32)),))
    return DeckProfile(name, heads, photos, 2 * photos, {"indices": 2}, created)


@pytest.fixture()
def table(tmp_path, monkeypatch):
    """A server whose decks are learned at once from two made-up examples per game: (client, decks folder, gate).
    Learning waits while ``gate`` is clear."""
    from handfoot import teaching
    from vision import decks

    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    monkeypatch.setattr(teaching, "game_examples", lambda ledger, game_id: [EXAMPLE, EXAMPLE])
    gate = threading.Event()
    gate.set()
    minutes = itertools.count()

    def learn(examples, reader, name, progress=None, detector=None, **kwargs):
        assert gate.wait(30)
        return profile(name, len(examples), f"2026-12-01T10:{next(minutes):02d}:00+00:00")  # each one its own
    monkeypatch.setattr(decks, "learn", learn)
    app = create_app(Settings(db=tmp_path / "h.db"), load_models=False)
    app.dependency_overrides[get_models] = lambda: SimpleNamespace(reader=SimpleNamespace(with_heads=lambda h: None),
                                                                    detector=None)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c, tmp_path / "decks", gate


def learn(c, name: str, **headers) -> dict:
    """``POST /v1/decks/{name}/learn`` with ``headers`` (``if_match`` -> ``If-Match``): the answer's JSON, status
    in ``"status"``."""
    r = c.post(f"/v1/decks/{name}/learn", json={"games": ["g"]},
               headers={k.replace("_", "-").title(): v for k, v in headers.items()})
    return {**r.json(), "status": r.status_code}


def ended(c, job: dict) -> dict:
    for _ in range(300):
        now = c.get(f"/v1/decks/jobs/{job['id']}").json()
        if now["state"] != "learning":
            return now
        time.sleep(0.05)
    raise AssertionError(f"job {job['id']} still learning")


def test_if_none_match_creates_only_and_if_match_replaces_only_that_version(table):
    c, folder, _ = table
    first = ended(c, learn(c, "kitchen", if_none_match="*"))
    assert first["state"] == "done" and first["replaced"] is None, first
    listed = c.get("/v1/decks").json()
    v1 = listed[0]["version"]
    assert re.fullmatch(r"[0-9a-f]{16}", v1) and first["deck"]["version"] == v1
    # a new deck only, but it is there: 412 with the deck as it is, nothing started
    refused = learn(c, "kitchen", if_none_match="*")
    assert refused["status"] == 412 and refused["deck"]["version"] == v1, refused
    assert "deck 'kitchen' is taught already" in refused["error"] and f'If-Match: "{v1}"' in refused["error"]
    # that version only: replaced, and told which
    second = ended(c, learn(c, "kitchen", if_match=f'"{v1}"'))
    assert second["state"] == "done" and second["replaced"]["version"] == v1, second
    v2 = second["deck"]["version"]
    assert v2 != v1 and c.get("/v1/decks").json()[0]["version"] == v2
    # the version the phone showed is stale: 412, the deck as it is now, the profile untouched
    kept = (folder / "kitchen.npz").read_bytes()
    stale = learn(c, "kitchen", if_match=f'W/"{v1}"')
    assert stale["status"] == 412 and stale["deck"]["version"] == v2, stale
    assert f"deck 'kitchen' was taught again since version {v1}" in stale["error"]
    assert (folder / "kitchen.npz").read_bytes() == kept
    assert ended(c, learn(c, "kitchen", if_match="*"))["state"] == "done"  # whichever is kept
    # gone: If-Match is 412 (deck null), If-None-Match creates it again; without either, as before: made or replaced
    assert c.delete("/v1/decks/kitchen").status_code == 204
    gone = learn(c, "kitchen", if_match=f'"{v2}"')
    assert gone["status"] == 412 and gone["deck"] is None and "deck 'kitchen' is gone" in gone["error"], gone
    assert learn(c, "kitchen", if_match="*")["status"] == 412
    assert ended(c, learn(c, "kitchen"))["state"] == "done"
    assert ended(c, learn(c, "kitchen"))["replaced"] is not None
    # both, or If-None-Match other than *: 422
    assert learn(c, "kitchen", if_match=f'"{v2}"', if_none_match="*")["status"] == 422
    assert learn(c, "kitchen", if_none_match=f'"{v2}"')["status"] == 422
    assert learn(c, "kitchen", if_match="7")["status"] == 422  # unquoted


def test_the_upload_route_checks_before_it_keeps_the_photos(table):
    c, folder, _ = table
    assert ended(c, learn(c, "kitchen"))["state"] == "done"
    r = c.post("/v1/decks/kitchen/learn/upload", headers={"If-None-Match": "*"},
               files=[("examples", ("ours.jsonl", json.dumps({**EXAMPLE, "image": "a.jpg"}).encode(),
                                    "application/x-ndjson")), ("photos", ("a.jpg", PHOTO.read_bytes(), "image/jpeg"))])
    assert r.status_code == 412 and "taught already" in r.json()["error"], r.text
    assert not any((folder / ".uploads").glob("*")) if (folder / ".uploads").is_dir() else True


@pytest.mark.parametrize("header", ["if_none_match", "if_match", None])
def test_a_job_that_loses_the_race_as_it_saves_keeps_the_other_phones_deck(table, header):
    """Another phone taught the deck while this job learned: with If-None-Match or If-Match the job fails,
    ``changed``, and the other phone's profile stays byte for byte; without either it is replaced (as before), and
    ``replaced`` names the one it replaced."""
    c, folder, gate = table
    headers = {}
    if header == "if_match":
        headers = {"if_match": f'"{ended(c, learn(c, "kitchen"))["deck"]["version"]}"'}
    elif header == "if_none_match":
        headers = {"if_none_match": "*"}
    gate.clear()
    job = learn(c, "kitchen", **headers)
    assert job["status"] == 202 and job["state"] == "learning", job
    # a second job of the name while this one learns: 409, naming it
    busy = learn(c, "kitchen", **headers)
    assert busy["status"] == 409 and busy["job"] == job["id"], busy
    assert "deck 'kitchen' is being learned already" in busy["error"]
    assert learn(c, "other")["status"] == 202  # another name is free
    theirs, _, _ = save_deck(profile("kitchen", 30, "2026-12-02T09:00:00+00:00"), folder)  # the other phone's
    kept = (folder / "kitchen.npz").read_bytes()
    gate.set()
    done = ended(c, job)
    if header is None:
        assert done["state"] == "done" and done["replaced"]["photos"] == 30, done
        return
    assert done["state"] == "failed" and done["changed"] and done["deck"] is None, done
    assert done["error"] == ("another phone taught deck 'kitchen' while this was learning (learned 2026-12-02 from "
                             f"30 photos, version {theirs.version}); nothing was replaced: that deck is kept")
    assert (folder / "kitchen.npz").read_bytes() == kept
    assert [d["photos"] for d in c.get("/v1/decks").json() if d["name"] == "kitchen"] == [30]
    assert ended(c, learn(c, "kitchen", if_match=f'"{theirs.version}"'))["state"] == "done"  # and then over theirs


def test_a_deck_deleted_while_it_is_learned_again_is_not_made_again(table):
    c, folder, gate = table
    version = ended(c, learn(c, "kitchen"))["deck"]["version"]
    gate.clear()
    job = learn(c, "kitchen", if_match=f'"{version}"')
    assert c.delete("/v1/decks/kitchen").status_code == 204
    gate.set()
    done = ended(c, job)
    assert done["state"] == "failed" and done["changed"], done
    assert done["error"] == "deck 'kitchen' was deleted while this was learning; nothing was saved"
    assert c.get("/v1/decks").json() == [] and not (folder / "kitchen.npz").exists()


def test_a_deck_is_deleted_with_if_match_only_while_it_is_that_version(table):
    c, folder, _ = table
    v1 = ended(c, learn(c, "kitchen"))["deck"]["version"]
    v2 = ended(c, learn(c, "kitchen"))["deck"]["version"]  # another phone taught it again
    kept = (folder / "kitchen.npz").read_bytes()
    stale = c.delete("/v1/decks/kitchen", headers={"If-Match": f'"{v1}"'})
    assert stale.status_code == 412 and stale.json()["deck"]["version"] == v2, stale.json()
    assert stale.json()["error"].startswith(f"deck 'kitchen' was taught again since version {v1}")
    assert stale.json()["error"].endswith("nothing was deleted")
    assert (folder / "kitchen.npz").read_bytes() == kept
    assert c.delete("/v1/decks/kitchen", headers={"If-Match": f'"{v2}"'}).status_code == 204
    assert c.delete("/v1/decks/kitchen", headers={"If-Match": f'"{v2}"'}).status_code == 404  # a retry: told gone
    assert c.delete("/v1/decks/kitchen", headers={"If-Match": "bad"}).status_code == 422
