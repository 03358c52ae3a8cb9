"""The web service through FastAPI's TestClient: every /v1 endpoint, and every error a client can cause."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest

from conftest import once

pytest.importorskip("fastapi")
pytest.importorskip("cv2")
from fastapi.testclient import TestClient  # noqa: E402

from handfoot.routes.deps import get_ledger  # noqa: E402
from handfoot.ledger import Ledger, LedgerError, new_id  # noqa: E402
from handfoot.limits import Limits  # noqa: E402
from handfoot.service import Settings, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "table.jpg"
LAYOUT = json.loads((ROOT / "examples" / "score_sheet_round.json").read_text())
SIMPLE = {"teams": {"A": {"melds": [["KH", "KS", "KD"]]}, "B": {"melds": [["9S", "9H", "9D"], ["4C", "4S", "4H"]]}}}


def png_header(width: int, height: int) -> bytes:
    """A PNG that says it is width x height pixels (a small file; decoding it would need a huge buffer)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 4096)) + chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def models():
    from handfoot.core import load_models

    return load_models()


@pytest.fixture()
def client(tmp_path, models):
    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture(scope="module")
def reading(tmp_path_factory, models):
    """One real reading of the example photo, on a server of its own: (client, reading JSON)."""
    app = create_app(Settings(db=tmp_path_factory.mktemp("reading") / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        with open(PHOTO, "rb") as f:
            r = c.post("/v1/photos", files=[("photos", ("table.jpg", f, "image/jpeg"))],
                       data={"rules": "pagat", "round": "2", "went_out": "A"}, headers=once())
        assert r.status_code == 201, r.text
        yield c, r.json()


def copy_of(c, reading_id: str) -> str:
    """A copy of a kept reading (its row and photos) under a new id, as another photo of the same table: a reading
    and a photo's bytes are saved as one round only, and the tests that save the module's reading to several games
    or rounds each save a copy (its photos end with a few bytes more, so they are other files)."""
    import shutil

    from handfoot.ledger import new_id

    ledger = c.app.state.ledger
    record, copy = ledger.reading(reading_id), new_id()
    shutil.copytree(ledger.reading_dir(reading_id), ledger.reading_dir(copy))
    for entry in record.files:
        with open(ledger.reading_dir(copy) / entry["file"], "ab") as f:
            f.write(copy.encode())  # after the JPEG's end: the same picture, other bytes
    ledger.add_reading(copy, record.result, [{k: v for k, v in e.items() if k != "sha256"} for e in record.files])
    return copy


def error_of(r, status: int) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert isinstance(body["error"], str) and body["error"] and "Traceback" not in body["error"]
    return body["error"]


# -- health, rules, score ------------------------------------------------------------------------------------------
def test_health_names_the_loaded_models(client):
    body = client.get("/v1/health").json()
    assert body["status"] == "ok" and body["photo_reading"] is True
    assert body["models"] == {"detector": "cards.onnx", "reader": "reader.onnx", "stacks": "stacks.onnx"}


def test_rules_are_the_presets(client):
    from scorer import PRESET_NAMES, get_rules

    every = client.get("/v1/rules").json()
    assert list(every) == list(PRESET_NAMES)
    carousel = get_rules("carousel")
    assert client.get("/v1/rules/carousel").json() == {**carousel.model_dump(mode="json"),
                                                         "going_out": carousel.going_out_text()}
    assert every["bicycle"]["going_out"] == "one clean and one dirty book to go out"
    assert "no rules preset 'uno'" in error_of(client.get("/v1/rules/uno"), 404)


def test_score_is_the_cli_json(client, capsys):
    from handfoot.cli import main

    assert main(["score", str(ROOT / "examples" / "score_sheet_round.json"), "--json"]) == 0
    assert client.post("/v1/score", json=LAYOUT).json() == json.loads(capsys.readouterr().out)


def test_score_refuses_what_breaks_the_rules_unless_lenient(client):
    bad = {"teams": {"A": {"melds": [["3C", "3S", "3H"]]}}}
    r = client.post("/v1/score", json=bad)
    assert "illegal layout" in error_of(r, 422) and r.json()["problems"][0]["where"] == "teams.A.melds[0]"
    r = client.post("/v1/score?lenient=true", json=bad)
    assert r.status_code == 200 and r.json()["problems"]


@pytest.mark.parametrize("body, status, words", [
    ({"teams": {"A": {"melds": [["KH", "ZZ", "KD"]]}}}, 422, "teams.A.melds[0][1]"),
    ({"teams": {"A": {"meld": []}}}, 422, "unknown key"),
    ({"rules": "uno", "teams": {"A": {}}}, 422, "uno"),
    ([1, 2], 422, "body: Input should be a valid dictionary"),
    ({"teams": {"A": {"left": [["KH"] * 2000]}}}, 413,
     "teams.A.left: 2,000 cards: a round's layout may hold at most 1,000 cards"),
    ({"teams": {"A": {"left": [["KH"] * 2000]}, "B": {"melds": [["4S"] * 10]}}}, 413,
     "teams.A.left: 2,000 cards (2,010 in all): a round's layout may hold at most 1,000"),  # the fullest field
    ({"teams": [["KH"] * 2000]}, 413, "layout has 2,000 cards: a round's layout may hold at most 1,000 cards"),
])
def test_score_errors(client, body, status, words):
    assert words in error_of(client.post("/v1/score", json=body), status)


def test_score_refuses_deep_big_and_broken_json_before_parsing(client):
    deep = "[" * 10000 + "]" * 10000
    assert "nested too deep" in error_of(client.post("/v1/score", content=deep,
                                                     headers={"content-type": "application/json"}), 413)
    big = json.dumps({"teams": {"A": {"left": [["KH"] * 300_000]}}})
    assert "too large" in error_of(client.post("/v1/score", content=big,
                                               headers={"content-type": "application/json"}), 413)
    error_of(client.post("/v1/score", content="{not json", headers={"content-type": "application/json"}), 422)


def test_the_docs_need_no_internet(client):
    page = client.get("/docs")
    assert page.status_code == 200 and "/docs-static/swagger-ui-bundle.js" in page.text and "cdn" not in page.text
    bundle = client.get("/docs-static/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and '"5.' in bundle.text  # Swagger UI 5 reads OpenAPI 3.1
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")


def test_a_body_that_is_not_json_says_so(client):
    r = client.post("/v1/score", content=b'{"teams": ', headers={"content-type": "application/json"})
    assert error_of(r, 422) == "the request body is not valid JSON (at character 10)"


def test_unknown_address_and_method_are_json(client):
    assert "no such address" in error_of(client.get("/v1/nothing"), 404)
    refused = client.delete("/v1/score")
    assert error_of(refused, 405) == "DELETE is not allowed on /v1/score (allowed: POST)"
    assert refused.headers["allow"] == "POST"
    assert "(allowed: GET, POST)" in error_of(client.patch("/v1/games"), 405)
    said = error_of(client.delete("/v1/games/0123456789abcdef/rounds/1", headers={"If-Match": "garbage"}), 422)
    assert said.startswith("If-Match 'garbage': expected the version this change was made from, quoted"), said


# -- photos -------------------------------------------------------------------------------------------------------
def test_photo_reading_gives_piles_with_ids_and_card_boxes(reading):
    c, body = reading
    assert body["images"][0]["image"] == "table.jpg" and body["images"][0]["kind"] == "table"
    piles = body["images"][0]["piles"]
    assert [p["id"] for p in piles] == [f"i0p{k}" for k in range(len(piles))]
    w, h = body["images"][0]["width"], body["images"][0]["height"]
    for pile in piles:
        for card in pile["cards"]:
            assert card["id"].startswith(pile["id"] + ".")
            for x1, y1, x2, y2 in card["boxes"]:
                assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
    assert {p["label"] for p in piles} >= {"clean book", "meld", "red threes"}
    assert body["layout"]["round"] == 2 and body["layout"]["went_out"] == "A"
    # the example has 2 clean books and no dirty: going out under pagat needs more, so the bonus is refused
    going_out = next(ln for ln in body["score"]["teams"]["A"]["breakdown"] if ln["item"] == "going_out")
    assert going_out["points_max"] == 0 and "refused" in going_out["detail"]
    assert c.get(f"/v1/photos/{body['id']}").json()["images"] == body["images"]


def test_photo_files_are_kept(reading):
    c, body = reading
    original = c.get(body["photos"][0])
    assert original.status_code == 200 and original.content == PHOTO.read_bytes()
    annotated = c.get(body["annotated"][0])
    assert annotated.status_code == 200 and annotated.headers["content-type"] == "image/jpeg"
    assert c.get(f"/v1/photos/{body['id']}/annotated.jpg").content == annotated.content
    assert "has 1 photo, no 3" in error_of(c.get(f"/v1/photos/{body['id']}/images/3"), 404)
    for bad in ("0123456789abcdef", "..", "..%2F..%2Fetc", "x" * 16):
        assert c.get(f"/v1/photos/{bad}/images/0").status_code == 404


def test_a_heic_photo_is_shown_as_a_jpeg_of_the_pixels_its_boxes_are_in(client, tmp_path):
    """Chrome does not show HEIC: the check view gets a JPEG of the photo as read (same size as the reading)."""
    pillow_heif = pytest.importorskip("pillow_heif")
    import cv2
    import numpy as np

    rgb = cv2.cvtColor(cv2.imread(str(PHOTO)), cv2.COLOR_BGR2RGB)
    heic = tmp_path / "IMG_0001.HEIC"
    pillow_heif.from_bytes("RGB", (rgb.shape[1], rgb.shape[0]), rgb.tobytes()).save(str(heic), quality=90)
    with open(heic, "rb") as f:
        r = client.post("/v1/photos", files=[("photos", ("IMG_0001.HEIC", f, "image/heic"))], data={"rules": "pagat"}, headers=once())
    assert r.status_code == 201, r.text
    body = r.json()
    for _ in range(2):  # made once, then served again
        shown = client.get(body["photos"][0])
        assert shown.status_code == 200 and shown.headers["content-type"] == "image/jpeg"
        image = cv2.imdecode(np.frombuffer(shown.content, np.uint8), cv2.IMREAD_COLOR)
        assert image.shape[1] == body["images"][0]["width"] and image.shape[0] == body["images"][0]["height"]


def test_the_cli_reads_the_same(reading, capsys):
    from handfoot.cli import main

    _, body = reading
    assert main(["score", str(PHOTO), "--round", "2", "--went-out", "A", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["score"] == body["score"] and cli["layout"] == body["layout"]


def test_corrections_are_tried_without_storing(reading):
    c, body = reading
    squared = next(p for p in body["images"][0]["piles"] if p["kind"] == "squared_book")
    meld = next(p for p in body["images"][0]["piles"] if p["label"] == "meld")
    ops = [{"op": "set_kind", "pile": squared["id"], "kind": "loose"},
           {"op": "set_card", "card": meld["cards"][0]["id"], "code": meld["cards"][0]["code"]},
           {"op": "add_pile", "team": "B", "kind": "meld", "cards": ["9S", "9H", "2C"]}]
    r = c.post(f"/v1/photos/{body['id']}/corrections", json={"corrections": ops, "went_out": None})
    assert r.status_code == 200, r.text
    fixed = r.json()
    before, after = body["score"]["teams"]["A"], fixed["score"]["teams"]["A"]
    assert after["total"] == before["total"] - 500 - 7 * 10  # the squared clean book of nines (500 + 7 x 10) gone
    assert fixed["layout"]["teams"]["B"]["melds"] == [["9S", "9H", "2C"]] and fixed["layout"]["went_out"] is None
    assert c.get(f"/v1/photos/{body['id']}").json()["score"] == body["score"]  # nothing stored
    for op, words in (({"op": "set_card", "card": "i9p9.9", "code": "KH"}, "no card 'i9p9.9'"),
                      ({"op": "set_card", "card": meld["cards"][0]["id"], "code": "ZZ"}, "ZZ"),
                      ({"op": "set_book", "pile": meld["id"], "count": 8}, "not a squared book"),
                      ({"op": "fly"}, "op")):
        assert words in error_of(c.post(f"/v1/photos/{body['id']}/corrections", json={"corrections": [op]}), 422)


def test_cards_typed_in_are_a_pile_that_can_be_corrected(client):
    with open(PHOTO, "rb") as f:
        r = client.post("/v1/photos", files=[("photos", ("t.jpg", f, "image/jpeg"))], data={"left": ["B:KH 7C"]}, headers=once())
    assert r.status_code == 201, r.text
    body = r.json()
    typed = next(p for p in body["images"][0]["piles"] if p["id"] == "t0")
    assert typed["team"] == "B" and typed["label"] == "cards left (typed in)" and typed["cards"][0]["boxes"] == []
    assert body["layout"]["teams"]["B"]["left"] == [["KH", "7C"]] and body["left"] == {"B": [["KH", "7C"]]}
    fixed = client.post(f"/v1/photos/{body['id']}/corrections",
                        json={"corrections": [{"op": "set_card", "card": "t0.1", "code": "QC"}]}).json()
    assert fixed["layout"]["teams"]["B"]["left"] == [["KH", "QC"]] and fixed["score"]["teams"]["B"]["total"] == -20


def post_photo(c, files, **data):
    return c.post("/v1/photos", files=[("photos", f) for f in files], data=data, headers=once())


def test_photo_errors_are_named_before_any_work(client, tmp_path):
    jpg = PHOTO.read_bytes()
    one = [("t.jpg", jpg, "image/jpeg")]
    assert "not an image file" in error_of(post_photo(client, [("notes.jpg", b"hello there", "image/jpeg")]), 422)
    huge = post_photo(client, [("huge.png", png_header(40000, 40000), "image/png")])
    assert "40,000 x 40,000 pixels" in error_of(huge, 413)
    tiny = post_photo(client, [("tiny.png", png_header(1, 1), "image/png")])  # the command line's words, 422
    assert error_of(tiny, 422) == (f"tiny.png: image too small to read (1 x 1 pixels): a photo needs at least "
                                   f"{Limits().min_side} pixels on its short side (a card's corner index must "
                                   "measure about 12 pixels to be read)")
    assert "9 photos: a round is read from at most 8 at once" in error_of(post_photo(client, one * 9), 413)
    assert "2 team names (A, B) for 1 table photo" in error_of(post_photo(client, one, teams="A,B"), 422)
    assert "team 'Z'" in error_of(post_photo(client, one, went_out="Z"), 422)
    assert "'pagat' has rounds 1 to 4" in error_of(post_photo(client, one, round="5", rules="pagat"), 422)
    assert "uno" in error_of(post_photo(client, one, rules="uno"), 422)
    assert "house_rules" in error_of(post_photo(client, one, house_rules="[1"), 422)
    assert "book_size" in error_of(post_photo(client, one, house_rules='{"book_size": "banana"}'), 422)
    assert "TEAM" in error_of(post_photo(client, one, left="KH 7C"), 422)
    hands = client.post("/v1/photos", files=[("photos", one[0]), ("hands", one[0])], data={"hand_teams": ""}, headers=once())
    assert "1 hand photo but 0 teams" in error_of(hands, 422)
    assert "photos" in error_of(client.post("/v1/photos", data={"rules": "pagat"}, headers=once()), 422)
    assert "split" in error_of(post_photo(client, one * 2, split="horizontal"), 422)
    assert "t.jpg was chosen twice" in error_of(post_photo(client, one * 2, teams="A,B"), 422)
    two = [one[0], ("u.jpg", jpg, "image/jpeg")]
    assert "u.jpg is the same photo as t.jpg" in error_of(post_photo(client, two, teams="A,B"), 422)
    import cv2
    import numpy as np

    ok, blank = cv2.imencode(".png", np.full((240, 320, 3), 90, np.uint8))
    assert error_of(post_photo(client, [("blank.png", blank.tobytes(), "image/png")]), 422).endswith(
        "no cards found (is the whole table in the photo, in focus and lit?); cards printed light on dark (a black "
        "deck)? tick \"Our cards are light print on dark\" above Read the cards; a deck of its own design can be "
        "taught: the game's \"Teach handfoot your deck\"")  # the page's way, not the CLI's
    assert not any((tmp_path / "photos").iterdir())  # nothing kept of a refused reading


def test_every_bad_photo_of_a_reading_is_named_at_once(client, tmp_path):
    """Two photos that cannot be read, each for its own reason (not an image; no cards): one answer names both,
    each with its file and team, in the order given (``errors`` lists them); a good photo beside a bad one is not
    named; nothing is kept."""
    import cv2
    import numpy as np

    ok, blank = cv2.imencode(".png", np.full((240, 320, 3), 90, np.uint8))
    bad = [("notes.jpg", b"hello there", "image/jpeg"), ("blank.png", blank.tobytes(), "image/png")]
    body = post_photo(client, bad, teams="Us,Them").json()
    assert [e.split(":")[0] for e in body["errors"]] == ["notes.jpg", "blank.png (team Them)"], body
    assert "not an image file" in body["errors"][0] and "no cards found" in body["errors"][1]
    assert body["errors"][1].endswith('can be taught: the game\'s "Teach handfoot your deck"')
    assert body["error"] == "; ".join(body["errors"])
    both = post_photo(client, [bad[0], ("other.jpg", b"not one either", "image/jpeg")], teams="Us,Them")
    assert [e.split(":")[0] for e in both.json()["errors"]] == ["notes.jpg", "other.jpg"]
    one = post_photo(client, [("t.jpg", PHOTO.read_bytes(), "image/jpeg"), bad[1]], teams="Us,Them")
    assert error_of(one, 422).startswith("blank.png (team Them): no cards found") and "errors" not in one.json()
    assert not any((tmp_path / "photos").iterdir())


def test_upload_limits(tmp_path, models):
    app = create_app(Settings(db=tmp_path / "h.db", limits=Limits(file_bytes=100_000, files=2)), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert "file too large" in error_of(post_photo(c, [("t.jpg", PHOTO.read_bytes(), "image/jpeg")]), 413)
        two = post_photo(c, [("t.jpg", b"x" * 150_000, "image/jpeg"), ("u.jpg", b"y" * 150_000, "image/jpeg")])
        assert [e.split(":")[0] for e in error_of(two, 413) and two.json()["errors"]] == ["t.jpg", "u.jpg"]
        # a photo too large beside other bad ones: each named at once with its own reason, the large one by its
        # whole size (cut short as it streamed in past the limit), nothing kept
        import cv2
        import numpy as np

        ok, blank = cv2.imencode(".png", np.full((240, 320, 3), 90, np.uint8))
        for big in (b"\xff\xd8\xff" + b"z" * 120_000, b"\xff\xd8\xff" + b"z" * 400_000):  # under, over the cut
            bad = post_photo(c, [("big.jpg", big, "image/jpeg"), ("blank.png", blank.tobytes(), "image/png")],
                             teams="Us,Them")
            assert bad.status_code == 422 and [e.split(":")[0] for e in bad.json()["errors"]] == [
                "big.jpg", "blank.png (team Them)"], bad.text
            assert f"file too large ({len(big) / 1e6:.1f} MB;" in bad.json()["errors"][0], bad.text
            assert "no cards found" in bad.json()["errors"][1]
        assert not any((tmp_path / "photos").iterdir())
        r = c.post("/v1/photos", files=[("photos", ("t.jpg", b"x" * 150_000, "image/jpeg"))] * 2,
                   headers={"content-length": "99999999"})
        assert r.status_code == 413


def test_busy_server_answers_503_with_retry_after(tmp_path, models):
    app = create_app(Settings(db=tmp_path / "h.db", max_jobs=1, max_waiting=0, retry_after=7), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        app.state.jobs.admit()  # the one slot is taken
        r = post_photo(c, [("t.jpg", PHOTO.read_bytes(), "image/jpeg")])
        assert "busy" in error_of(r, 503) and r.headers["retry-after"] == "7"


def test_without_models_photos_are_503_and_the_rest_works(tmp_path):
    app = create_app(Settings(db=tmp_path / "h.db"), load_models=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get("/v1/health").json()["photo_reading"] is False
        assert "photo reading is off" in error_of(post_photo(c, [("t.jpg", PHOTO.read_bytes(), "image/jpeg")]), 503)
        assert c.post("/v1/score", json=LAYOUT).status_code == 200


# -- games -------------------------------------------------------------------------------------------------------
def new_game(c, **body):
    r = c.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B"], **body}, headers=once())
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_a_whole_game(client):
    gid = new_game(client, names={"A": ["Ann", "Bob"], "B": ["Cy", "Di"]}, house_rules={"go_out_wild_books": 0})
    game = client.get(f"/v1/games/{gid}").json()
    assert game["next_round"] == 1 and game["next_minimum"] == 50 and game["totals"] == {"A": 0, "B": 0}
    for n in range(1, 5):
        r = client.post(f"/v1/games/{gid}/rounds", json=SIMPLE, headers=once())
        assert r.status_code == 201, r.text
    game = r.json()
    assert [rd["n"] for rd in game["rounds"]] == [1, 2, 3, 4] and [rd["minimum"] for rd in game["rounds"]] == \
        [50, 90, 120, 150]
    a, b = game["rounds"][0]["score"]["teams"]["A"]["total"], game["rounds"][0]["score"]["teams"]["B"]["total"]
    assert game["totals"] == {"A": 4 * a, "B": 4 * b} and game["over"] and game["winner"] == "B"
    assert game["names"]["A"] == ["Ann", "Bob"] and game["house_rules"] == {"go_out_wild_books": 0}
    assert "the game is over" in error_of(client.post(f"/v1/games/{gid}/rounds", json=SIMPLE, headers=once()), 409)
    export = client.get(f"/v1/games/{gid}/export.csv")
    assert 'filename="handfoot-A-vs-B-20' in export.headers["content-disposition"]
    assert export.content.startswith(b"\xef\xbb\xbf")  # a byte-order mark: Excel reads the file as UTF-8
    csv_text = export.content.decode("utf-8-sig").splitlines()
    assert csv_text[0] == "round,minimum,A points,B points,A total,B total"
    assert csv_text[4] == f"4,150,{a},{b},{4 * a},{4 * b}"
    assert csv_text[5:] == ['winner,"B (Cy, Di)"']  # the game is over: its winner, with the team's players
    summary = client.get("/v1/games").json()
    assert summary[0]["id"] == gid and summary[0]["rounds"] == 4 and summary[0]["winner"] == "B"


def test_a_team_no_round_has_scored_counts_in_who_leads(client):
    """A round of one side's photo (team B's piles in none of them): B's 0 counts, so A at 0 does not lead, and
    A under 0 trails."""
    gid = new_game(client)
    nothing = {"rules": "pagat", "teams": {"A": {"melds": [["4H", "4S", "4D"]], "left": [["4C", "5S", "6H"]]}}}
    game = client.post(f"/v1/games/{gid}/rounds?lenient=true", json=nothing, headers=once()).json()
    assert game["totals"] == {"A": 0, "B": 0} and game["leader"] is None
    held = {"rules": "pagat", "teams": {"A": {"left": [["KH", "9S"]]}}}
    game = client.post(f"/v1/games/{gid}/rounds?lenient=true", json=held, headers=once()).json()
    assert game["totals"] == {"A": -20, "B": 0} and game["leader"] == "B"


def test_the_csv_of_a_game_of_emoji_names_ended_on_uncounted_wilds(client):
    """The CSV is UTF-8 with a byte-order mark (Excel shows 🐱 and é); a game ended while a squared book's wilds are
    uncounted and the winner depends on them says so in its last row, naming the round and the team."""
    gid = new_game(client, teams=["Chats 🐱", "Émile"], house_rules={"opening_minimums": [50]})
    book = {"squared_books": [{"top": "5S", "kind": "dirty"}]}
    game = client.post(f"/v1/games/{gid}/rounds", json={"teams": {"Chats 🐱": book, "Émile": book}},
                       headers=once()).json()
    assert game["over"] and game["winner"] is None
    lines = client.get(f"/v1/games/{gid}/export.csv").content.decode("utf-8-sig").splitlines()
    assert lines[0] == "round,minimum,Chats 🐱 points,Émile points,Chats 🐱 total,Émile total"
    assert lines[-1] == ('winner,"undecided: the wilds under a squared book are still to count '
                         '(round 1: Chats 🐱, Émile)"'), lines


def test_correct_and_undo_rounds(client):
    gid = new_game(client)
    client.post(f"/v1/games/{gid}/rounds", json=SIMPLE, headers=once())
    client.post(f"/v1/games/{gid}/rounds", json=SIMPLE, headers=once())
    fixed = {"teams": {"A": {"melds": [["KH", "KS", "KD", "KC"]]}}}
    r = client.put(f"/v1/games/{gid}/rounds/1", json=fixed, headers={"If-Match": client.get(f"/v1/games/{gid}").headers["etag"]})
    assert r.status_code == 200 and r.json()["rounds"][0]["score"]["teams"]["A"]["total"] == 40
    r = client.delete(f"/v1/games/{gid}/rounds/1", headers={"If-Match": r.headers["etag"]})  # round 2 is round 1
    assert r.status_code == 200 and [rd["n"] for rd in r.json()["rounds"]] == [1]
    assert r.json()["rounds"][0]["layout"]["round"] == 1 and r.json()["rounds"][0]["score"]["teams"]["A"]["total"] == 30
    r = client.delete(f"/v1/games/{gid}/rounds/1", headers={"If-Match": r.headers["etag"]})
    assert r.status_code == 200 and r.json()["rounds"] == [] and r.json()["next_round"] == 1
    assert "no round 5" in error_of(client.put(f"/v1/games/{gid}/rounds/5", json=SIMPLE, headers={"If-Match": r.headers["etag"]}), 404)
    assert "no round 7" in error_of(client.delete(f"/v1/games/{gid}/rounds/7", headers={"If-Match": '"5"'}), 404)


def test_a_round_from_a_corrected_photo_reading(reading):
    c, body = reading
    gid = new_game(c)
    squared = next(p for p in body["images"][0]["piles"] if p["kind"] == "squared_book")
    rid = copy_of(c, body["id"])
    r = c.post(f"/v1/games/{gid}/rounds?lenient=true", json={
        "photo_reading": rid, "went_out": None,
        "corrections": [{"op": "set_book", "pile": squared["id"], "count": 7, "kind": "clean"}]})
    assert r.status_code == 201, r.text
    rd = r.json()["rounds"][0]
    assert rd["photo_reading"] == rid and rd["photos"] == [f"/v1/photos/{rid}/images/0"]
    assert rd["layout"]["round"] == 1 and rd["corrections"][0]["op"] == "set_book"
    assert r.json()["totals"]["A"] == body["score"]["teams"]["A"]["total"]
    assert "no photo reading" in error_of(c.post(f"/v1/games/{gid}/rounds", json={"photo_reading": "nope"}), 404)


def test_a_rounds_piles_are_named_as_the_check_view_names_them(reading):
    """A saved round's ``piles``: its layout's piles, each with its team, place, the label its photo reading gives it
    (``clean book`` for a meld that is a complete book) and its cards, so a problem's ``where`` or ``cards`` finds
    the piles it is about; a typed round's likewise."""
    c, body = reading
    gid = new_game(c)
    rid = copy_of(c, body["id"])
    r = c.post(f"/v1/games/{gid}/rounds?lenient=true", json={"photo_reading": rid, "went_out": None})
    assert r.status_code == 201, r.text
    checked = c.post(f"/v1/photos/{rid}/corrections", json={"corrections": [], "round": 1, "went_out": None}).json()
    read = {(p["team"], p["where"], p["label"], tuple(x["code"] for x in p["cards"][:1 if p["kind"] == "squared_book" else None]))
            for im in checked["images"] for p in im["piles"] if p["kind"] != "left"}
    saved = {(p["team"], p["where"], p["label"], tuple(p["cards"])) for p in r.json()["rounds"][0]["piles"]}
    assert "clean book" in {label for _, _, label, _ in read} and read == saved
    kings = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]
    typed = {"teams": {"A": {"melds": [kings, ["KH", "KH", "KH", "KH"]], "squared_books": [{"top": "QH"}],
                             "left": [["5C"]]}}}
    rd = c.post(f"/v1/games/{gid}/rounds?lenient=true", json=typed, headers=once()).json()["rounds"][1]
    assert [(p["where"], p["label"], p["cards"]) for p in rd["piles"]] == [
        ("teams.A.melds[0]", "clean book", kings), ("teams.A.melds[1]", "meld", ["KH", "KH", "KH", "KH"]),
        ("teams.A.squared_books[0]", "clean book (squared, 7 cards)", ["QH"]),
        ("teams.A.left[0]", "cards left in hand", ["5C"])]
    [count] = [p for p in rd["score"]["problems"] if p["cards"]]
    assert count["cards"] == ["KH"] and {p["where"] for p in rd["piles"] if "KH" in p["cards"]} == {
        "teams.A.melds[0]", "teams.A.melds[1]"}


def test_a_photo_already_scored_is_known_before_it_is_saved(reading):
    """GET /v1/games/{id}/saved/{reading}: right after the photos are read, whether saving the reading would be
    refused (409) and as which round: the reading itself a round (of any game), or a photo of the same bytes a round
    of this game; ``same_cards`` says whether corrections made on one reading apply to the other."""
    c, body = reading
    gid, other = new_game(c), new_game(c)

    def read() -> str:
        r = post_photo(c, [("table.jpg", PHOTO.read_bytes(), "image/jpeg")], rules="pagat")
        assert r.status_code == 201, r.text
        return r.json()["id"]

    first, again, another = read(), read(), copy_of(c, body["id"])
    assert c.get(f"/v1/games/{gid}/saved/{first}").json() == {"round": None, "game": None, "reading": None,
                                                              "photo": None, "photos": [], "same_cards": False,
                                                              "message": None}
    assert c.post(f"/v1/games/{gid}/rounds?lenient=true", json={"photo_reading": first}).status_code == 201
    saved = c.get(f"/v1/games/{gid}/saved/{first}").json()
    assert saved["round"] == 1 and saved["game"] == gid and saved["reading"] == first and saved["same_cards"]
    assert saved["photos"] == ["table.jpg"]
    assert "this photo reading is already round 1" in saved["message"]
    assert c.get(f"/v1/games/{other}/saved/{first}").json()["game"] == gid  # a reading is one round of any game
    twin = c.get(f"/v1/games/{gid}/saved/{again}").json()  # the same photo's bytes, read again
    assert (twin["round"], twin["reading"], twin["photo"], twin["same_cards"]) == (1, first, "table.jpg", True)
    assert twin["photos"] == ["table.jpg"]
    refused = c.post(f"/v1/games/{gid}/rounds?lenient=true", json={"photo_reading": again})
    assert error_of(refused, 409) == twin["message"] and refused.json()["round"] == 1
    assert c.get(f"/v1/games/{gid}/saved/{another}").json()["round"] is None  # another photo: a round of its own
    # two photos, one of them a file of round 1: that one named as held, the other not
    pair = post_photo(c, [("table.jpg", PHOTO.read_bytes(), "image/jpeg"),
                          ("kids.jpg", PHOTO.read_bytes() + b"\0\0", "image/jpeg")], rules="pagat")
    assert pair.status_code == 201, pair.text
    half = c.get(f"/v1/games/{gid}/saved/{pair.json()['id']}").json()
    assert (half["round"], half["photo"], half["photos"], half["same_cards"]) == (1, "table.jpg", ["table.jpg"], False)
    assert c.get(f"/v1/games/{other}/saved/{again}").json()["round"] is None  # in another game it may be a round

    # the same bytes read into other piles (another deck, say): a correction made on one does not fit the other
    ledger = c.app.state.ledger
    record, odd = ledger.reading(again), new_id()
    result = json.loads(record.result)
    result["images"][0]["piles"][0]["cards"][0]["code"] = "JK"
    ledger.add_reading(odd, json.dumps(result), record.files)
    assert c.get(f"/v1/games/{gid}/saved/{odd}").json()["same_cards"] is False
    assert "no photo reading" in error_of(c.get(f"/v1/games/{gid}/saved/0123456789abcdef"), 404)
    assert "no game" in error_of(c.get(f"/v1/games/0123456789abcdef/saved/{first}"), 404)


def test_a_games_corrected_photos_export_as_deck_examples(reading, tmp_path):
    """The codes a player corrected come back in the examples, in the form handfoot deck learn reads."""
    from vision.decks import read_examples

    c, body = reading
    gid = new_game(c)
    pile = next(p for p in body["images"][0]["piles"] if p["kind"] == "meld" and p["cards"][0]["boxes"])
    card = pile["cards"][0]
    fixed = "4C" if card["code"] != "4C" else "5C"
    r = c.post(f"/v1/games/{gid}/rounds?lenient=true", json={
        "photo_reading": copy_of(c, body["id"]), "corrections": [{"op": "set_card", "card": card["id"], "code": fixed}]})
    assert r.status_code == 201, r.text
    c.post(f"/v1/games/{gid}/rounds", json=SIMPLE, headers=once())  # a typed-in round has no photo: no example
    out = c.get(f"/v1/games/{gid}/examples.jsonl")
    assert out.status_code == 200 and out.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in out.text.splitlines()]
    assert len(lines) == 1 and Path(lines[0]["image"]).is_file()
    boxes = {tuple(d["box"]): d["card"] for d in lines[0]["detections"]}
    assert boxes[tuple(round(v, 2) for v in card["boxes"][0])] == fixed
    assert len(boxes) == sum(len(k["boxes"]) for p in body["images"][0]["piles"] for k in p["cards"])
    (tmp_path / "ex.jsonl").write_text(out.text)
    examples = read_examples([tmp_path / "ex.jsonl"])
    assert examples[0].codes.count(fixed) >= 1 and len(examples[0].codes) == len(boxes)
    assert "no game" in error_of(c.get("/v1/games/nope/examples.jsonl"), 404)


def test_three_teams_of_two_are_six_players(client):
    r = client.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B", "C"]}, headers=once())
    assert r.status_code == 201 and r.json()["house_rules"] == {"players": 6}


def test_a_team_name_is_at_most_its_limit_and_the_page_says_the_same(client):
    """A team name of TEAM_NAME_MAX characters is a team; one longer is refused (422) naming the field, the name's
    length and the limit, never cut; the page's team-name field checks the same limit, and its Add a team stops at
    the same most teams."""
    from handfoot.games import TEAMS_MAX
    from handfoot.limits import TEAM_NAME_MAX

    assert client.post("/v1/games", json={"teams": ["x" * TEAM_NAME_MAX, "B"]}, headers=once()).status_code == 201
    long = "The Grandparents " + "y" * 40
    words = error_of(client.post("/v1/games", json={"teams": [long, "B"]}, headers=once()), 422)
    assert words.startswith("teams: Team 1's name 'The Grandparents yyy…' has 57 characters: at most 40"), words
    page = (ROOT / "handfoot" / "web" / "newgame.js").read_text()
    assert f"export const TEAM_NAME_MAX = {TEAM_NAME_MAX};" in page
    assert f"export const TEAMS_MAX = {TEAMS_MAX};" in page
    assert 'maxlength: "40", required' not in page  # the field never cuts a pasted name


def test_a_team_name_is_one_line_of_text_that_prints_as_typed(client):
    """A line break, NUL or a mark that turns the text's direction in a team name is refused (422) naming it: each
    breaks or reverses the lines the name is printed in (the command line, the CSV); an emoji family joined by
    zero-width joiners is a name."""
    for name, said in (("Mom\nDad", "can't contain a line break (U+000A): type it on one line"),
                       ("A\x00", "can't contain an invisible control character (U+0000)"),
                       ("Us\u202eeht", "can't contain an invisible control character (U+202E)")):
        words = error_of(client.post("/v1/games", json={"teams": [name, "B"]}, headers=once()), 422)
        assert said in words, words
    assert client.post("/v1/games", json={"teams": ["\U0001f468\u200d\U0001f469\u200d\U0001f467", "B"]}, headers=once()).status_code == 201


@pytest.mark.parametrize("body, status, words", [
    ({"rules": "uno"}, 422, "uno"),
    ({"teams": []}, 422, "teams"),
    ({"teams": ["A", "A"]}, 422, "teams: a team is named twice"),  # in words, no "Value error"
    ({"teams": ["Kids", "kids"]}, 422, "named twice"),
    ({"teams": ["A"]}, 422, "teams"),
    ({"teams": ["A", "B", "C", "D", "E"]}, 422, "5 teams under 'pagat'"),
    ({"teams": ["A", "B", "C"], "house_rules": {"players": 4}}, 422, "3 teams but 'pagat' with 4 players has 2"),
    ({"teams": ["A,B", "C"]}, 422, "comma"),
    # a family's words: which team, what is wrong, what to write instead
    ({"teams": ["Us", "Mom, Dad"]}, 422, "teams: Team 2's name can't contain a comma or colon (use 'Mom & Dad')"),
    ({"teams": ["Us", "Kids: 2"]}, 422, "Team 2's name can't contain a comma or colon (use 'Kids & 2')"),
    ({"teams": ["   ", "Them"]}, 422, "teams: Team 1's name is empty: type a name (spaces alone are not one)"),
    ({"teams": ["Us", " Them"]}, 422, "Team 2's name ' Them' can't start with a space"),
    ({"names": {"Z": ["Zed"]}}, 422, "team Z"),
    ({"house_rules": {"book_size": "banana"}}, 422, "book_size"),
    ({"colour": "red"}, 422, "colour"),
])
def test_game_errors(client, body, status, words):
    assert words in error_of(client.post("/v1/games", json={"rules": "pagat", "teams": ["A", "B"], **body}, headers=once()), status)


def test_round_errors(client):
    gid = new_game(client)
    url = f"/v1/games/{gid}/rounds"
    assert "no game" in error_of(client.post("/v1/games/0123456789abcdef/rounds", json=SIMPLE, headers=once()), 404)
    assert "no game" in error_of(client.get("/v1/games/nope"), 404)
    assert "team 'C'" in error_of(client.post(url, json={"teams": {"C": {}}}, headers=once()), 422)
    assert "plays 'pagat'" in error_of(client.post(url, json={**SIMPLE, "rules": "carousel"}, headers=once()), 422)
    assert "this is round 1" in error_of(client.post(url, json={**SIMPLE, "round": 3}, headers=once()), 422)
    assert "house rules" in error_of(client.post(url, json={**SIMPLE, "house_rules": {"book_size": 8}},
                                                 headers=once()), 422)
    r = client.post(url, json={"teams": {"A": {"melds": [["3C", "3S", "3H"]]}}}, headers=once())
    assert "illegal layout" in error_of(r, 422) and r.json()["problems"]
    assert client.get(f"/v1/games/{gid}").json()["rounds"] == []  # nothing stored


def test_a_restart_loses_nothing(tmp_path, models):
    db = tmp_path / "h.db"
    with TestClient(create_app(Settings(db=db), models=models), base_url="http://127.0.0.1") as c:
        gid = new_game(c)
        c.post(f"/v1/games/{gid}/rounds", json=SIMPLE, headers=once())
        before = c.get(f"/v1/games/{gid}").json()
    with TestClient(create_app(Settings(db=db), models=models), base_url="http://127.0.0.1") as c:
        assert c.get(f"/v1/games/{gid}").json() == before
    ledger = Ledger.open(db)
    assert ledger.integrity() == "ok"
    assert ledger._conn().execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_database_it_cannot_use_is_one_line(tmp_path):
    import sqlite3

    newer = tmp_path / "newer.db"
    sqlite3.connect(newer).execute("PRAGMA user_version = 99").connection.close()
    with pytest.raises(LedgerError, match="newer handfoot"):
        Ledger.open(newer)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(LedgerError, match="not a handfoot database"):
        Ledger.open(junk)


def test_an_unexpected_error_never_reaches_the_client(tmp_path, models):
    app = create_app(Settings(db=tmp_path / "h.db"), models=models)

    class Broken:
        def game(self, game_id):
            raise RuntimeError("secret internals")

    app.dependency_overrides[get_ledger] = lambda: Broken()
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        r = c.get("/v1/games/0123456789abcdef")
        assert r.status_code == 500 and r.json() == {"error": "internal error (logged by the server)"}


# -- access token --------------------------------------------------------------------------------------------------
def test_beyond_loopback_every_request_needs_the_token(tmp_path, models):
    app = create_app(Settings(db=tmp_path / "h.db", token="s3cret"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for path in ("/", "/v1/health", "/docs", "/openapi.json", "/v1/games"):
            assert "access token" in error_of(c.get(path), 401)
        page = c.get("/", headers={"accept": "text/html"})
        assert page.status_code == 401 and "?token=" in page.text and page.headers["content-type"].startswith("text/html")
        assert "needs its access code" in page.text and "out of date" not in page.text
        old = c.get("/?token=old", headers={"accept": "text/html"})  # an address from before --new-token
        assert old.status_code == 401 and "This address is out of date" in old.text
        assert c.post("/v1/score", json=LAYOUT).status_code == 401
        assert c.get("/v1/health", headers={"authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/v1/health", headers={"authorization": "Bearer s3cret"}).status_code == 200
        r = c.get("/?token=s3cret")
        assert r.status_code == 200 and "handfoot_token=s3cret" in r.headers["set-cookie"]
        assert c.get("/v1/health").status_code == 200  # the cookie the page got


def _finished(c, job_id: str, seconds: float = 60) -> dict:
    """The deck-learning job ``job_id`` once it is no longer learning (polled)."""
    import time

    for _ in range(int(seconds / 0.2)):
        job = c.get(f"/v1/decks/jobs/{job_id}").json()
        if job["state"] != "learning":
            return job
        time.sleep(0.2)
    return job


def test_a_deck_learned_from_a_games_corrected_photos(reading, monkeypatch):
    """POST /v1/decks/{name}/learn runs in the background; the profile is listed, read with, and deleted."""

    from vision import decks

    c, body = reading
    monkeypatch.setattr(decks, "MIN_CHECK", 1)  # one game of one photo: the check photo is that photo
    monkeypatch.setattr(decks, "STEPS", 20)
    gid = new_game(c)
    for _ in range(2):
        assert c.post(f"/v1/games/{gid}/rounds?lenient=true",
                      json={"photo_reading": copy_of(c, body["id"])}).status_code == 201
    assert "deck name" in error_of(c.post("/v1/decks/my deck/learn", json={"games": [gid]}), 422)
    assert "no game" in error_of(c.post("/v1/decks/family/learn", json={"games": ["nope"]}), 404)
    empty = new_game(c)
    assert "0 example photos: at least 2 are needed" in error_of(c.post("/v1/decks/family/learn", json={"games": [empty]}), 422)
    r = c.post("/v1/decks/family/learn", json={"games": [gid]})
    assert r.status_code == 202 and r.json()["state"] == "learning" and r.json()["photos"] == 2
    job = _finished(c, r.json()["id"])
    # the same photo twice: learned from one, checked on the other
    assert job["state"] == "done", job
    assert job["deck"]["name"] == "family" and job["deck"]["photos"] == 2 and job["replaced"] is None
    again = _finished(c, c.post("/v1/decks/family/learn", json={"games": [gid]}).json()["id"])
    assert again["state"] == "done" and again["replaced"]["created"] == job["deck"]["created"]  # learned again: told
    assert [d["name"] for d in c.get("/v1/decks").json()] == ["family"]
    with open(PHOTO, "rb") as f:
        read = c.post("/v1/photos", files=[("photos", ("table.jpg", f, "image/jpeg"))], data={"deck": "family"}, headers=once())
    assert read.status_code == 201, read.text
    kept = c.get(f"/v1/photos/{read.json()['id']}").json()  # the reading says what read it, corrected too
    assert read.json()["deck"] == kept["deck"] == "family"
    corrected = c.post(f"/v1/photos/{read.json()['id']}/corrections", json={"corrections": [], "went_out": None})
    assert corrected.json()["deck"] == "family", corrected.text
    with open(PHOTO, "rb") as f:
        missing = c.post("/v1/photos", files=[("photos", ("table.jpg", f, "image/jpeg"))], data={"deck": "nobody"}, headers=once())
    assert "no deck profile 'nobody'" in error_of(missing, 404)
    # a game names its deck: kept in the ledger, listed with the game; an unknown one is taught, or refused when
    # the game is not to teach it
    assert "no deck profile 'nobody'" in error_of(c.put(f"/v1/games/{gid}/deck", json={"deck": "nobody", "teach": False}),
                                                  404)
    taught = c.put(f"/v1/games/{gid}/deck", json={"deck": "nobody"}).json()
    assert taught["teach"] == "nobody" and taught["deck"] is None
    named = c.put(f"/v1/games/{gid}/deck", json={"deck": "family"}).json()
    assert named["deck"] == "family" and named["teach"] == "family"
    # what the learning did stays with the game (the page shows it after the game view is drawn again)
    assert named["lesson"]["state"] == "learned" and "(right: the rank and the colour" in named["lesson"]["message"]
    assert c.get(f"/v1/games/{gid}").json()["deck"] == "family"
    assert next(g for g in c.get("/v1/games").json() if g["id"] == gid)["deck"] == "family"
    assert c.put(f"/v1/games/{gid}/deck", json={"deck": None}).json()["deck"] is None
    assert "no game" in error_of(c.put("/v1/games/0123456789abcdef/deck", json={"deck": None}), 404)
    assert c.delete("/v1/decks/family").status_code == 204 and c.get("/v1/decks").json() == []
    assert "no deck-learning job" in error_of(c.get("/v1/decks/jobs/nope"), 404)


def test_a_deck_learned_from_an_uploaded_examples_file_and_its_photos(reading, monkeypatch, tmp_path):
    """POST /v1/decks/{name}/learn/upload: the examples name their photos by file name; bad lines and photos are
    4xx before any work; the uploads are gone when the job ends."""

    from vision import decks

    c, body = reading
    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    monkeypatch.setattr(decks, "STEPS", 20)
    gid = new_game(c)
    assert c.post(f"/v1/games/{gid}/rounds?lenient=true",
                  json={"photo_reading": copy_of(c, body["id"])}).status_code == 201
    line = json.loads(c.get(f"/v1/games/{gid}/examples.jsonl").text.splitlines()[0])
    lines = [json.dumps({**line, "image": f"/home/us/photos/{n}"}) for n in ("a.jpg", "b.jpg")]
    photo = PHOTO.read_bytes()

    def upload(text, names=("a.jpg", "b.jpg"), data=photo):
        return c.post("/v1/decks/family2/learn/upload",
                      files=[("examples", ("ours.jsonl", text.encode(), "application/x-ndjson"))]
                      + [("photos", (n, data, "image/jpeg")) for n in names])
    assert "ours.jsonl:2: photo b.jpg was not uploaded" in error_of(upload("\n".join(lines), ("a.jpg",)), 422)
    bad = json.dumps({"image": "a.jpg", "detections": [{"card": "1X", "box": [1, 2, 30, 40]}]})
    assert "ours.jsonl:1: unknown card code '1X'" in error_of(upload(bad + "\n" + lines[1]), 422)
    assert "a.jpg: not an image file" in error_of(upload("\n".join(lines), data=b"hello"), 422)
    assert "two photos are called a.jpg" in error_of(upload("\n".join(lines), ("a.jpg", "a.jpg")), 422)
    as_photo = c.post("/v1/decks/family2/learn/upload", files=[("examples", ("ours.jpg", photo, "image/jpeg")),
                                                               ("photos", ("a.jpg", photo, "image/jpeg"))])
    assert "ours.jpg is a JPEG image, not an examples file: examples are a .jsonl file" in error_of(as_photo, 422)
    monkeypatch.setattr(decks, "MAX_PHOTOS", 1)
    assert "at most 1 to learn a deck from" in error_of(upload("\n".join(lines)), 413)
    monkeypatch.setattr(decks, "MAX_PHOTOS", 200)
    uploads = Path(c.app.state.settings.db).parent / "decks" / ".uploads"
    assert not any(uploads.glob("*")) if uploads.is_dir() else True  # nothing kept from the refused uploads
    r = upload("\n".join(lines))
    assert r.status_code == 202 and r.json()["photos"] == 2, r.text
    job = _finished(c, r.json()["id"])
    assert job["state"] == "done" and job["done_photos"] == job["photos"] == 2, job
    assert "family2" in [d["name"] for d in c.get("/v1/decks").json()]
    assert uploads.is_dir() and not any(uploads.glob("*"))  # the job's folder was there, and is gone
    assert c.delete("/v1/decks/family2").status_code == 204


def test_a_ledger_of_the_first_schema_is_migrated_with_its_games(tmp_path):
    """A ledger written before games named their deck (schema 1) opens with its games, each read with the stock
    reader, and can name a deck from then on."""
    import json
    import sqlite3

    from handfoot import ledger as ledger_module

    old = tmp_path / "old.db"
    conn = sqlite3.connect(old)
    conn.executescript(ledger_module._SCHEMA)
    conn.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?)", ("0123456789abcdef", "2026-11-30T20:00:00+00:00",
                                                                 "pagat", "{}", json.dumps(["A", "B"]), "{}"))
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    ledger = Ledger.open(old)
    try:
        game = ledger.game("0123456789abcdef")
        assert game.teams == ["A", "B"] and game.deck is None
        ledger.set_deck(game.id, "family")
        assert ledger.game(game.id).deck == "family"
        assert ledger._conn().execute("PRAGMA user_version").fetchone()[0] == ledger_module.SCHEMA_VERSION
    finally:
        ledger.close()


def test_the_access_token_is_kept_for_the_next_start(tmp_path, monkeypatch):
    """``handfoot.access``: made once and kept (this user only), the same at the next start; ``new`` makes and keeps
    another; a kept file that is no token is made anew; ``HANDFOOT_TOKEN`` wins and nothing is written."""
    from handfoot.access import TOKEN_FILE, access_token

    monkeypatch.delenv("HANDFOOT_TOKEN", raising=False)
    first, made = access_token(tmp_path / "data")
    assert made and access_token(tmp_path / "data") == (first, False)
    assert (tmp_path / "data" / TOKEN_FILE).stat().st_mode & 0o777 == 0o600
    second, made = access_token(tmp_path / "data", new=True)
    assert made and second != first and access_token(tmp_path / "data") == (second, False)
    (tmp_path / "data" / TOKEN_FILE).write_text("short\n")
    assert access_token(tmp_path / "data")[0] not in ("short", second)
    monkeypatch.setenv("HANDFOOT_TOKEN", "from-the-environment")
    assert access_token(tmp_path / "other") == ("from-the-environment", False)
    assert not (tmp_path / "other").exists()
