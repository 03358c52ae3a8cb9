"""Renaming a game's teams (``PUT /v1/games/{id}/teams``): a name mistyped at New game put right after Start, in
everything kept of the game at once (rounds, corrections, photo readings, totals, the CSV, the live view), with
If-Match (412, 428), names checked as New game checks them, a rename sent again changing nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import once

pytest.importorskip("fastapi")
pytest.importorskip("cv2")
from fastapi.testclient import TestClient  # noqa: E402

from handfoot.ledger import Ledger  # noqa: E402
from handfoot.renaming import renamed  # noqa: E402
from handfoot.service import Settings, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "table.jpg"
TEAMS = ["Smiths", "Jonses"]
ROUND = {"went_out": "Jonses", "teams": {"Smiths": {"melds": [["KH", "KS", "KD"]]},
                                        "Jonses": {"melds": [["9S", "9H", "9D"], ["4C", "4S", "4H"]]}}}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from handfoot.core import load_models

    app = create_app(Settings(db=tmp_path_factory.mktemp("rename") / "h.db"), models=load_models())
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def _game(client, teams=TEAMS, names=None) -> dict:
    r = client.post("/v1/games", json={"rules": "pagat", "teams": teams, "names": names or {}}, headers=once())
    assert r.status_code == 201, r.text
    return r.json()


def _rename(client, game: dict, teams: list[str], **extra):
    headers = {"If-Match": f'"{game["version"]}"'} | extra.pop("headers", {})
    return client.put(f"/v1/games/{game['id']}/teams", json={"teams": teams, **extra}, headers=headers)


def test_a_rename_reaches_every_round_correction_reading_and_the_csv(client):
    game = _game(client, names={"Jonses": ["Ann", "Bob"]})
    gid = game["id"]
    r = client.post(f"/v1/games/{gid}/rounds", json=ROUND, headers={"If-Match": '"0"'}, params={"lenient": True})
    assert r.status_code == 201, r.text
    with open(PHOTO, "rb") as f:
        reading = client.post("/v1/photos", files=[("photos", ("table.jpg", f, "image/jpeg"))],
                              data={"rules": "pagat", "round": "2", "teams": "Jonses"}, headers=once()).json()
    assert {p["team"] for p in reading["images"][0]["piles"]} == {"Jonses"}
    photo_round = {"photo_reading": reading["id"], "went_out": "Jonses",
                   "corrections": [{"op": "add_pile", "team": "Jonses", "kind": "meld", "cards": ["7S", "7H", "7D"]}]}
    r = client.post(f"/v1/games/{gid}/rounds", json=photo_round, headers={"If-Match": '"1"'}, params={"lenient": True})
    assert r.status_code == 201, r.text
    before = r.json()

    r = _rename(client, before, ["Smiths", "Joneses"])
    assert r.status_code == 200, r.text
    game = r.json()
    assert game["teams"] == ["Smiths", "Joneses"] and game["version"] == before["version"] + 1
    assert r.headers["etag"] == f'"{game["version"]}"'
    assert game["names"] == {"Joneses": ["Ann", "Bob"]}  # the players went with their team
    assert game["totals"] == {"Smiths": before["totals"]["Smiths"], "Joneses": before["totals"]["Jonses"]}
    for new, old in zip(game["rounds"], before["rounds"]):
        assert set(new["layout"]["teams"]) <= {"Smiths", "Joneses"} and new["layout"]["went_out"] == "Joneses"
        assert new["score"]["teams"]["Joneses"] == renamed(old["score"]["teams"]["Jonses"], {"Jonses": "Joneses"})
        assert {p["team"] for p in new["piles"]} <= {"Smiths", "Joneses"}
    assert game["rounds"][1]["corrections"][0]["team"] == "Joneses"
    assert "Jonses" not in r.text
    shown = client.get(f"/v1/photos/{reading['id']}").json()  # the reading the round was made from
    assert {p["team"] for p in shown["images"][0]["piles"]} == {"Joneses"}
    assert shown["images"][0]["teams"] == ["Joneses"]
    assert "Jonses" not in str(shown["layout"]) and "Jonses" not in str(shown["score"]["teams"])

    csv = client.get(f"/v1/games/{gid}/export.csv").text
    assert "Joneses points" in csv and "Jonses" not in csv
    # the photo round corrected again by its new name: its reading and corrections agree with the game
    photo_round |= {"went_out": "Joneses", "corrections": [{**photo_round["corrections"][0], "team": "Joneses"}]}
    r = client.put(f"/v1/games/{gid}/rounds/2", json=photo_round, params={"lenient": True},
                   headers={"If-Match": f'"{game["version"]}"'})
    assert r.status_code == 200, r.text
    assert r.json()["totals"] == game["totals"]


def test_a_stale_rename_is_412_with_the_game_as_it_is_and_changes_nothing(client):
    game = _game(client)
    assert client.post(f"/v1/games/{game['id']}/rounds", json=ROUND | {"round": 1},
                       params={"lenient": True}).status_code == 201  # another phone: version 1
    r = _rename(client, game, ["Smiths", "Joneses"])
    assert r.status_code == 412, r.text
    assert r.json()["game"]["teams"] == TEAMS and r.json()["game"]["version"] == 1
    assert "changed on another phone" in r.json()["error"]
    assert client.get(f"/v1/games/{game['id']}").json()["teams"] == TEAMS

    r = client.put(f"/v1/games/{game['id']}/teams", json={"teams": ["Smiths", "Joneses"]})
    assert r.status_code == 428 and "If-Match" in r.json()["error"], r.text


def test_the_same_rename_again_changes_nothing(client):
    game = _game(client)
    first = _rename(client, game, ["Smiths", "Joneses"])
    assert first.status_code == 200, first.text
    again = _rename(client, game, ["Smiths", "Joneses"])  # its answer was lost: sent again as it was
    assert again.status_code == 200 and again.json() == first.json()
    assert client.get(f"/v1/games/{game['id']}").json()["version"] == game["version"] + 1

    key = {"Idempotency-Key": "rename-1"}
    game = first.json()
    keyed = _rename(client, game, ["Smith", "Joneses"], headers=key)
    replayed = _rename(client, game, ["Smith", "Joneses"], headers=key)
    assert keyed.status_code == replayed.status_code == 200 and replayed.json() == keyed.json()
    assert replayed.headers.get("idempotent-replayed") == "true"


@pytest.mark.parametrize("teams, said", [
    (["Smiths", "smiths"], "a team is named twice: 'Smiths' and 'smiths'"),
    (["Smiths", "Jones, Bob"], "Team 2's name can't contain a comma or colon (use 'Jones & Bob')"),
    (["Smiths", "J" * 41], "at most 40"),
    (["Smiths", ""], "Team 2's name is empty"),
    (["Smiths", "Joneses", "Browns"], "the game has 2 teams (Smiths, Jonses): name each, in seating order"),
])
def test_a_refused_name_is_422_said_in_words(client, teams, said):
    game = _game(client)
    r = _rename(client, game, teams)
    assert r.status_code == 422, r.text
    assert said in r.json()["error"], r.json()["error"]
    assert client.get(f"/v1/games/{game['id']}").json()["teams"] == TEAMS


def test_players_named_again_and_teams_swapped(client):
    game = _game(client, names={"Smiths": ["Al"]})
    client.post(f"/v1/games/{game['id']}/rounds", json=ROUND | {"round": 1}, params={"lenient": True})
    game = client.get(f"/v1/games/{game['id']}").json()
    r = _rename(client, game, ["Jonses", "Smiths"], names={"Jonses": ["Al", "Bea"]})
    assert r.status_code == 200, r.text
    swapped = r.json()
    assert swapped["names"] == {"Jonses": ["Al", "Bea"]}
    assert swapped["totals"] == {"Jonses": game["totals"]["Smiths"], "Smiths": game["totals"]["Jonses"]}
    assert swapped["rounds"][0]["layout"]["went_out"] == "Smiths"
    r = _rename(client, swapped, ["Jonses", "Smiths"], names={"Browns": ["Cy"]})
    assert r.status_code == 422 and "names given for team Browns" in r.json()["error"], r.text


def test_renamed_names_places_and_keys_but_not_words():
    doc = {"teams": {"A": {"melds": [["KH"]]}, "A.B": {"melds": []}}, "went_out": "A",
           "books": [{"where": "teams.A.melds[0]"}, {"where": "teams.A.B.melds[0]"}], "images": [{"teams": ["A"]}],
           "notes": ["team A: a guess"], "left": {"A": [["QH"]]}}
    out = renamed(doc, {"A": "Us", "A.B": "Them"})
    assert out == {"teams": {"Us": {"melds": [["KH"]]}, "Them": {"melds": []}}, "went_out": "Us",
                   "books": [{"where": "teams.Us.melds[0]"}, {"where": "teams.Them.melds[0]"}],
                   "images": [{"teams": ["Us"]}], "notes": ["team A: a guess"], "left": {"Us": [["QH"]]}}
    assert doc["went_out"] == "A"  # not changed


def test_the_ledger_tells_every_phone_once(tmp_path):
    ledger = Ledger.open(tmp_path / "h.db")
    game = ledger.create_game("pagat", {}, TEAMS, {})
    told = []
    ledger.listeners.append(lambda gid, version: told.append((gid, version)))
    assert ledger.rename_teams(game.id, ["Smiths", "Joneses"], None, 0) == 1
    assert ledger.rename_teams(game.id, ["Smiths", "Joneses"], None, 0) == 1  # named so already
    assert told == [(game.id, 1)]
