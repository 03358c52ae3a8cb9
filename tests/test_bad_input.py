"""Bad input found when handfoot was fed it on purpose, as a careless or mischievous user would: text that is not
Unicode. Each is refused as one line (exit 1 or 2) or a 4xx JSON message, and nothing is stored."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import once

from handfoot.cli import main
from test_cli_faults import one_line

PHOTO = Path(__file__).resolve().parents[1] / "examples" / "table.jpg"

#: a JSON document whose team name is a lone UTF-16 surrogate: valid JSON, not valid text (it cannot be written as
#: UTF-8, so a game stored with it could not be listed again)
LONE_SURROGATE = '{"teams": {"\\ud800": {"melds": [["KH", "KS", "KD"]]}}}'


@pytest.fixture()
def client(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from handfoot.service import Settings, create_app

    app = create_app(Settings(db=tmp_path / "h.db"), load_models=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def test_a_lone_surrogate_in_a_json_body_is_refused_and_the_games_still_list(client):
    r = client.post("/v1/games", content='{"teams": ["\\ud800", "B"]}',
                    headers={"content-type": "application/json", **once()})
    assert r.status_code == 422, r.text
    assert "not valid text" in r.json()["error"] and "teams[0]" in r.json()["error"]
    r = client.post("/v1/games", content='{"teams": ["A", "B"], "names": {"A": ["Ann \\udc00"]}}',
                    headers={"content-type": "application/json", **once()})
    assert r.status_code == 422 and "names.A[0]" in r.json()["error"], r.text
    listed = client.get("/v1/games")
    assert listed.status_code == 200 and listed.json() == []  # nothing stored, and the list still answers
    r = client.post("/v1/score", content=LONE_SURROGATE, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "teams.\\ud800" in r.json()["error"], r.text
    # a character outside the basic plane, written as its two escapes, is one character: taken
    r = client.post("/v1/games", content='{"teams": ["\\ud83c\\udccf Us", "B"]}',
                    headers={"content-type": "application/json", **once()})
    assert r.status_code == 201 and r.json()["teams"][0] == "\U0001F0CF Us", r.text
    assert client.get("/v1/games").status_code == 200


def test_a_lone_surrogate_in_a_layout_file_is_one_line(tmp_path, capsys):
    layout = tmp_path / "round.json"
    layout.write_text(LONE_SURROGATE)
    assert main(["score", str(layout)]) == 1
    assert "not valid text at teams.\\ud800" in one_line(capsys)


def test_game_checks_its_layout_files_as_score_does(tmp_path, capsys):
    """``handfoot game`` reads each round's file under the same limits as ``handfoot score``: its size before it is
    read, its nesting before it is parsed, its text as UTF-8 and Unicode; each fault is one line naming the file."""
    files = {"deep.json": b"[" * 100_000 + b"]" * 100_000, "latin1.json": b'{"teams": {"\xe9": {}}}',
             "big.json": json.dumps({"teams": {"A": {"melds": [["KH", "KS", "KD"]]}}, "pad": "x" * 2_000_000}).encode(),
             "lone.json": LONE_SURROGATE.encode(), "photo.jpg": PHOTO.read_bytes()}
    words = {"deep.json": "nested too deep: 100000 levels (at most 32)", "latin1.json": "not valid JSON: not UTF-8 text",
             "big.json": "layout file too large", "lone.json": "not valid text at teams.\\ud800",
             "photo.jpg": "layout file is not valid JSON: a JPEG image"}  # not "nested too deep: 149 levels"
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        assert main(["game", str(tmp_path / name)]) == 1
        line = one_line(capsys)
        assert str(tmp_path / name) in line and words[name] in line, line


def test_a_number_too_long_or_json_too_deep_is_one_line_not_an_internal_error(tmp_path, capsys, monkeypatch):
    """Python's parser refuses an integer of over 4,300 digits (ValueError) and overflows on deep nesting
    (RecursionError): a layout file and a deck's examples file each say so in one line, exit 1."""
    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path / "data"))
    long_number = '{"teams": {"A": {"squared_books": [{"top": "QH", "count": 1' + "0" * 5000 + "}]}}}"
    (tmp_path / "round.json").write_text(long_number)
    for command in (["score", str(tmp_path / "round.json")], ["game", str(tmp_path / "round.json")]):
        assert main(command) == 1
        assert "a number of 5,001 digits" in one_line(capsys)
    examples = {"deep.jsonl": "[" * 100_000 + "]" * 100_000,
                "long.jsonl": '{"image": "x.jpg", "detections": [], "n": 1' + "0" * 5000 + "}"}
    words = {"deep.jsonl": "nested too deep", "long.jsonl": "a number of 5,001 digits"}
    for name, text in examples.items():
        (tmp_path / name).write_text(text + "\n")
        assert main(["deck", "learn", str(tmp_path / name), "--name", "kitchen"]) == 1
        line = one_line(capsys)
        assert f"{tmp_path / name}:1" in line and words[name] in line, line
    assert main(["deck", "learn", str(tmp_path), "--name", "kitchen"]) == 1
    assert f"{tmp_path}: a folder, not an examples file" in one_line(capsys)


def without_root_powers() -> list[str]:
    """A command prefix that runs a command as this user without the power to write where the file's mode forbids
    (root's: dropped with setpriv), or None where that cannot be done here."""
    import os
    import shutil

    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"] if setpriv else None


def test_an_output_in_a_folder_that_cannot_be_written_is_refused_before_the_photo_is_read(tmp_path):
    """``--annotate``, ``--save-layout`` (and ``game --csv``) in a read-only folder: one line naming the folder, exit
    1, before the photo is read (the reading was done, then lost, with OpenCV's own warning line above the error)."""
    import os
    import subprocess
    import sys

    prefix = without_root_powers()
    if prefix is None:
        pytest.skip("running as root without setpriv: a read-only folder is written anyway")
    folder = tmp_path / "read-only"
    folder.mkdir()
    (folder / "old.jpg").write_bytes(b"")
    folder.chmod(0o555)
    try:
        for option, target in (("--annotate", folder / "out.jpg"), ("--annotate", folder),
                               ("--save-layout", folder / "layout.json")):
            run = subprocess.run([*prefix, sys.executable, "-m", "handfoot", "score", str(PHOTO), option, str(target)],
                                 capture_output=True, text=True, timeout=120, cwd=PHOTO.parents[1],
                                 env={**os.environ, "HANDFOOT_DATA": str(tmp_path / "data")})
            assert run.returncode == 1, run
            assert run.stderr.strip() == f"handfoot: error: {option} {target}: cannot write in {folder} (a read-only " \
                                         "folder?): choose another place", run.stderr
            assert run.stdout == ""
        kept = tmp_path / "kept.json"
        kept.write_text("{}")
        kept.chmod(0o444)
        run = subprocess.run([*prefix, sys.executable, "-m", "handfoot", "score", str(PHOTO), "--save-layout",
                              str(kept)], capture_output=True, text=True, timeout=120, cwd=PHOTO.parents[1])
        assert run.returncode == 1 and run.stderr.strip().endswith(f"{kept}: a read-only file: choose another name")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("argv, said", [
    (["serve", "--max-jobs", "0"], "argument --max-jobs: 0 is under 1"),
    (["serve", "--idle-timeout", "-5"], "argument --idle-timeout: -5 is under 0.1"),
    (["serve", "--idle-timeout", "nan"], "argument --idle-timeout: not a number: 'nan'"),
    (["serve", "--max-connections", "many"], "argument --max-connections: not a whole number: 'many'"),
])
def test_a_number_out_of_range_on_the_command_line_is_one_line(capsys, argv, said):
    """A count or a time a server cannot run with (no worker, a negative wait) is a usage mistake, said in one line
    before anything starts (a pydantic error dump and exit 3 for --max-jobs 0; --idle-timeout -5 was taken)."""
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2 and said in one_line(capsys)


def test_round_0_of_a_meld_check_is_bad_input_as_elsewhere(capsys):
    """check-meld --round 0 was taken as no round (no opening checked, exit 0); it is refused as --round -1 is."""
    assert main(["check-meld", "--round", "0", "KH", "KS", "KD"]) == 1
    assert "round 0 is outside 1..4 for rules 'pagat'" in one_line(capsys)


def test_a_ledger_in_a_folder_that_cannot_be_written_says_so(tmp_path):
    """The ledger's folder exists but cannot be written in: said so ("cannot write in"), not "cannot create" a folder
    that is there."""
    import socket
    import subprocess
    import sys

    prefix = without_root_powers()
    if prefix is None:
        pytest.skip("running as root without setpriv: a read-only folder is written anyway")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with socket.socket() as free:  # a port no server holds, should the ledger open
            free.bind(("127.0.0.1", 0))
            port = str(free.getsockname()[1])
        run = subprocess.run([*prefix, sys.executable, "-m", "handfoot", "serve", "--db", str(folder / "h.db"),
                              "--port", port], capture_output=True, text=True, timeout=60, cwd=PHOTO.parents[1])
        assert run.returncode == 1 and run.stderr.strip() == f"handfoot: error: cannot write in the data folder " \
                                                             f"{folder}: Permission denied (choose another --db)", run
    finally:
        folder.chmod(0o755)


def test_cards_given_to_check_meld_and_opening_are_within_a_rounds_limit(capsys):
    """More cards than a round's layout may hold (1,000) given to check-meld or opening: one line, exit 1, before
    they are explained (5,000 queens were)."""
    assert main(["check-meld", " ".join(["QH"] * 1200)]) == 1
    assert "melds: 1,200 cards: a round's layout may hold at most 1,000 cards" in one_line(capsys)
    assert main(["opening", *["QH"] * 1001]) == 1
    assert "hand: 1,001 cards: a round's layout may hold at most 1,000 cards" in one_line(capsys)
    assert main(["check-meld", "QH QS QD"]) == 0


ROUND = {"teams": {"A": {"melds": [["KH", "KS", "KD"]]}, "B": {}}}


def test_true_or_false_is_not_a_number_anywhere_one_is_expected(client, capsys):
    """``"round": true`` was taken as round 1 (pydantic takes a boolean for an integer): a round, a count, a house
    rule or a camera given true or false is refused (422) naming the field, as the command line's ``--set`` is."""
    from pydantic import TypeAdapter, ValidationError

    from handfoot.corrections import Correction
    from handfoot.routes.live import LiveStart

    for layout, said in (({**ROUND, "round": True}, "round: a whole number, not true"),
                         ({"teams": {"A": {"exact_deal": False}}}, "teams.A.exact_deal: a whole number, not false"),
                         ({"teams": {"A": {"squared_books": [{"top": "QH", "count": True}]}}},
                          "teams.A.squared_books[0].count: a whole number, not true"),
                         ({**ROUND, "house_rules": {"go_out_clean_books": True}},
                          "house_rules: go_out_clean_books: a whole number, not true"),
                         ({**ROUND, "house_rules": {"opening_minimums": [50, True]}},
                          "opening_minimums.1: a whole number, not true")):
        r = client.post("/v1/score", json=layout)
        assert r.status_code == 422 and said in r.json()["error"], (layout, r.text)
    for house, said in (({"decks": True}, "house_rules.decks: a whole number, not true"),
                        ({"pickup_size": False}, "house_rules.pickup_size: a whole number, not false")):
        r = client.post("/v1/games", json={"teams": ["A", "B"], "house_rules": house}, headers=once())
        assert r.status_code == 422 and r.json()["error"] == said, r.text
    game = client.post("/v1/games", json={"teams": ["A", "B"], "house_rules": {"pickup_size": None}}, headers=once())
    assert game.status_code == 201, game.text  # null is still a value of a field that takes it
    r = client.post(f"/v1/games/{game.json()['id']}/rounds", json={**ROUND, "round": True}, headers=once())
    assert r.status_code == 422 and r.json()["error"] == "the layout says round true but this is round 1 of the game"
    assert client.get(f"/v1/games/{game.json()['id']}").json()["rounds"] == []
    r = client.post("/v1/photos/0123456789abcdef/corrections", json={"round": True})
    assert r.status_code == 422 and r.json()["error"] == "round: a whole number, not true", r.text
    with pytest.raises(ValidationError, match="a whole number, not true"):
        TypeAdapter(Correction).validate_python({"op": "set_book", "pile": "i0p1", "count": True})
    with pytest.raises(ValidationError, match="a whole number, not true"):
        LiveStart.model_validate({"game": "0123456789abcdef", "camera": True})
    with pytest.raises(SystemExit) as done:
        main(["rules", "pagat", "--set", "decks=true"])
    assert done.value.code == 2 and "decks: a whole number, not true" in one_line(capsys)


def test_a_house_rule_of_the_wrong_type_in_a_layout_file_names_the_file_and_the_rule(tmp_path, capsys):
    """A layout file's house rule of the wrong type (a number where a list is expected) was said without the file:
    one line names the file and the rule, for ``score`` and ``game`` alike."""
    for name, house, said in (("minimums.json", {"opening_minimums": 5},
                               "house_rules: opening_minimums: a list of whole numbers (e.g. 50,90), not 5"),
                              ("decks.json", {"decks": "five"}, "house_rules: decks: a whole number, not 'five'"),
                              ("unknown.json", {"clean_book": 600},
                               "house_rules: clean_book: unknown rule field (did you mean clean_book_bonus?)")):
        path = tmp_path / name
        path.write_text(json.dumps({**ROUND, "house_rules": house}))
        for command in ("score", "game"):
            assert main([command, str(path)]) == 1
            assert one_line(capsys) == f"handfoot: error: {path}: {said}\n"


def test_a_form_field_of_bytes_that_are_not_utf8_is_refused_naming_it(client):
    """A form field's bytes that are not UTF-8 were read as Latin-1 (``\\xe9quipe`` a team "équipe" of odd letters):
    refused (422) naming the field, whatever the chunks the body streams in; UTF-8 text, a photo's bytes and a field
    past the photos go on to the route."""
    from handfoot.guard import PartSizes

    for field, value in (("teams", b"\xe9quipe,B"), ("house_rules", b'{"decks": 5}\xff'), ("left", b"A:KH \x80")):
        r = client.post("/v1/photos", files=[("photos", ("table.jpg", PHOTO.read_bytes(), "image/jpeg"))],
                        data={field: value}, headers=once())
        assert r.status_code == 422, r.text
        assert r.json()["error"] == f"form field {field!r} is not UTF-8 text (a form's fields are read as UTF-8)"
    r = client.post("/v1/photos", files=[("photos", ("table.jpg", PHOTO.read_bytes(), "image/jpeg"))],
                    data={"teams": "équipe,B"}, headers=once())
    assert r.status_code == 503, r.text  # past the guard: this server reads no photos
    body = (b'--b0\r\nContent-Disposition: form-data; name="photos"; filename="t.jpg"\r\n\r\n\xff\xd8\xe9' + b"x" * 50 +
            b'\r\n--b0\r\nContent-Disposition: form-data; name="teams"\r\n\r\nUs,\xc3\xa9quipe'
            b'\r\n--b0\r\nContent-Disposition: form-data; name="went_out"\r\n\r\n\xc3' + b'\r\n--b0--\r\n')
    for size in (1, 5, 64, len(body)):
        parts = PartSizes.of("multipart/form-data; boundary=b0", 1000)
        chunks = [body[i:i + size] for i in range(0, len(body), size)]
        assert b"".join(parts.cut(c, last=k == len(chunks) - 1) for k, c in enumerate(chunks)) == body
        assert parts.not_text == ["went_out"], size  # "équipe" split between chunks is UTF-8; a lone \xc3 is not


def test_a_ledger_holding_a_lone_surrogate_from_an_older_handfoot_lists_its_games(tmp_path):
    """An older handfoot stored a team name holding a lone surrogate (``"\\ud800 Us"``): the games could not be
    listed (500, the answer cannot be written as UTF-8). Opened now, the ledger writes each such surrogate as its
    escape, in plain characters, wherever the name is kept (the game, its rounds): the games list, the game shows
    its totals and its CSV exports, and two names differing only in their surrogates stay two teams."""
    pytest.importorskip("fastapi")
    import sqlite3

    from fastapi.testclient import TestClient

    from handfoot.ledger import Ledger
    from handfoot.ledger_schema import MIGRATIONS
    from handfoot.service import Settings, create_app

    db = tmp_path / "old.db"
    ledger = Ledger.open(db)
    game = ledger.create_game("pagat", {}, ["\ud800 Us", "\udc00 Us", "Them"], {"\ud800 Us": ["Ann"]})
    ledger.add_round(game.id, 1, {"rules": "pagat", "round": 1, "went_out": "\ud800 Us",
                                  "teams": {"\ud800 Us": {"melds": [["KH", "KS", "KD"]]}, "\udc00 Us": {}, "Them": {}}},
                     None, [])
    ledger.close()
    with sqlite3.connect(db) as conn:  # as the older handfoot left it: its schema, the names as JSON escapes
        assert '"\\ud800 Us"' in conn.execute("SELECT teams FROM games").fetchone()[0]
        conn.execute("PRAGMA user_version = 4")
        for later in MIGRATIONS[5:]:  # the columns a later handfoot adds: not there in the older one's ledger
            added = re.fullmatch(r"ALTER TABLE (\w+) ADD COLUMN (\w+) .*", later) if isinstance(later, str) else None
            assert added, f"a later migration this test does not undo: {later!r}"
            conn.execute(f"ALTER TABLE {added[1]} DROP COLUMN {added[2]}")
    app = create_app(Settings(db=db), load_models=False)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        listed = client.get("/v1/games")
        assert listed.status_code == 200, listed.text
        assert listed.json()[0]["teams"] == ["\\ud800 Us", "\\udc00 Us", "Them"]
        shown = client.get(f"/v1/games/{game.id}").json()
        assert shown["totals"] == {"\\ud800 Us": 30, "\\udc00 Us": 0, "Them": 0}, shown["totals"]
        assert shown["names"] == {"\\ud800 Us": ["Ann"]}
        assert client.get(f"/v1/games/{game.id}/export.csv").status_code == 200
