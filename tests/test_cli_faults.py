"""Command-line faults found when handfoot was tried as a new user would: each is one line and the right exit
status, reported before any slow work."""

from __future__ import annotations

import json
import subprocess
import sys
import struct
import time
import zlib
from pathlib import Path

import pytest

from handfoot.cli import main
from scorer import HandFootError

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "table.jpg"


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.fixture()
def no_photo_work(monkeypatch):
    """Fail the test if models are loaded or a photo is read: the mistake must be found before that."""
    from handfoot import core

    def refuse(*args, **kwargs):
        raise AssertionError("photo work started before the request was checked")
    monkeypatch.setattr(core, "load_models", refuse)
    monkeypatch.setattr(core, "read_and_score_photos", refuse)


def test_a_huge_image_is_refused_from_its_header(tmp_path, capsys):
    pytest.importorskip("cv2")

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    huge = tmp_path / "huge.png"
    huge.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 40000, 40000, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(b"\0" * 200_000)) + chunk(b"IEND", b""))
    started = time.perf_counter()
    assert main(["score", str(huge)]) == 1
    assert time.perf_counter() - started < 30  # it was a 1 GB decode; the limit is loose on purpose
    assert "40,000 x 40,000 pixels" in one_line(capsys)
    assert main(["detect", str(huge)]) == 1
    assert "image too large" in one_line(capsys)


def test_a_tiny_image_is_said_too_small_to_read_not_empty_of_cards(tmp_path, capsys):
    """A 1 x 1 photo (or a thumbnail) is refused from its header, naming its size and the least handfoot reads (a
    photo of that least size is read)."""
    cv2 = pytest.importorskip("cv2")
    import numpy as np
    from handfoot.core import check_photo_file
    from handfoot.limits import DEFAULT_LIMITS

    cv2.imwrite(str(tmp_path / "tiny.png"), np.full((1, 1, 3), 90, np.uint8))
    assert main(["score", str(tmp_path / "tiny.png")]) == 1
    said = one_line(capsys)
    assert said == (f"handfoot: error: {tmp_path / 'tiny.png'}: image too small to read (1 x 1 pixels): a photo "
                    f"needs at least {DEFAULT_LIMITS.min_side} pixels on its short side (a card's corner index must "
                    "measure about 12 pixels to be read)\n")
    assert "no cards found" not in said
    cv2.imwrite(str(tmp_path / "strip.png"), np.full((DEFAULT_LIMITS.min_side - 1, 2000, 3), 90, np.uint8))
    assert main(["score", str(tmp_path / "strip.png"), "--hand", f"A:{tmp_path / 'tiny.png'}"]) == 1
    said = one_line(capsys)  # each photo named, the short side whichever it is
    assert "strip.png: image too small to read (2,000 x 99 pixels)" in said and "tiny.png: image too small" in said
    cv2.imwrite(str(tmp_path / "least.png"), np.full((DEFAULT_LIMITS.min_side, 2000, 3), 90, np.uint8))
    check_photo_file(tmp_path / "least.png")  # the least size is read
    assert main(["detect", str(tmp_path / "tiny.png")]) == 1  # detect (teaching a deck) says so too
    assert "tiny.png: image too small to read (1 x 1 pixels)" in one_line(capsys)


@pytest.mark.parametrize("args, words", [
    (["--annotate", "out.txt"], "--annotate out.txt: give an image name"),
    (["--teams", "A,B"], "2 team names (A, B) for 1 table photo"),
    (["--went-out", "Z"], "team 'Z' is not one of the teams read (A)"),
    (["--round", "99"], "round 99: 'pagat' has rounds 1 to 4"),
    (["--rules", "carousel", "--round", "5"], "round 5: 'carousel' has rounds 1 to 4"),
    (["--left", "KH 7C"], 'cards left need TEAM:"CARDS"'),
    (["--left", "A:KH 7Q"], "--left: team A, cards left: unknown card code '7Q'"),
    (["--left", "A:"], "--left: team A, cards left: 'A:' gives no cards (e.g. A:\"KH 7C 4S\")"),
    (["--left", "B:KH", "--left", "A: , "], "--left: team A, cards left: 'A: , ' gives no cards"),
    (["--conf", "2"], "conf must be in (0, 1]"),
])
def test_photo_mistakes_are_found_before_reading(tmp_path, monkeypatch, capsys, no_photo_work, args, words):
    monkeypatch.chdir(tmp_path)
    assert main(["score", str(PHOTO), *args]) == 1
    assert words in one_line(capsys)
    assert not (tmp_path / "out.txt").exists()  # --annotate out.txt made a folder


def test_a_split_photo_takes_two_team_names(capsys, no_photo_work):
    assert main(["score", str(PHOTO), "--split", "horizontal", "--teams", "Us"]) == 1
    assert "1 team name (Us) for a photo split in two: give 2" in one_line(capsys)


@pytest.mark.parametrize("teams, words", [
    ("", "teams '': Team 1's name is empty: type a name (spaces alone are not one)"),
    ("   ", "teams '   ': Team 1's name is empty"),
    ("Us, ,Them", "Team 2's name is empty"),
    ("Us,us", "teams 'Us,us': a team is named twice: 'Us' and 'us'"),
    ("Us:Them", "Team 1's name can't contain a comma or colon (use 'Us & Them')"),
    ("x" * 41, "Team 1's name 'xxxxxxxxxxxxxxxxxxxx…' has 41 characters: at most 40"),
])
def test_a_team_name_typed_for_photos_is_a_name_as_a_games_are(capsys, no_photo_work, teams, words):
    """``--teams ""`` was taken as no names given (A, B, ...): an empty name, one of spaces, one a game's page
    refuses, or two differing only in case are one line, exit 1, by the rule a game's teams are checked by; ``watch``
    refuses a name given twice too (its camera sees each team once), before it opens the video."""
    assert main(["score", str(PHOTO), "--teams", teams]) == 1
    assert words in one_line(capsys)
    assert main(["watch", "--video", "none.avi", "--teams", teams]) == 1
    assert words in one_line(capsys)
    assert main(["watch", "--video", "none.avi", "--split", "vertical", "--teams", "Us,Us"]) == 1
    assert "teams 'Us,Us': a team is named twice: 'Us'" in one_line(capsys)


def test_a_model_file_that_is_not_a_model_is_the_error_alone(tmp_path):
    """``--model notes.txt`` said it was timing the two inference backends on notes.txt (a line that reads as if
    the file were a model being measured) before the error: the error alone, one line, exit 1."""
    import os

    pytest.importorskip("openvino")  # without it there is nothing to time
    notes = tmp_path / "notes.txt"
    notes.write_text("a shopping list\n")
    env = {**os.environ, "HANDFOOT_BACKEND": "auto", "HANDFOOT_CACHE": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, "-m", "handfoot", "score", str(PHOTO), "--model", str(notes)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert run.returncode == 1 and run.stdout == "", run
    said = "not an ONNX model the backend can open (InvalidProtobuf)"
    assert run.stderr == f"handfoot: error: cannot load the detector model {notes}: {said}\n", run.stderr
    run = subprocess.run([sys.executable, "-m", "handfoot", "score", str(PHOTO), "--reader", str(notes)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert run.returncode == 1 and "notes.txt on this computer" not in run.stderr  # the shipped detector is timed
    assert run.stderr.endswith(f"handfoot: error: cannot load the index reader model {notes}: {said}\n")


def test_a_bad_set_value_is_a_usage_mistake(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["rules", "pagat", "--set", "book_size=banana"])
    assert exit_.value.code == 2 and "--set: book_size" in one_line(capsys)
    with pytest.raises(SystemExit) as exit_:
        main(["score", str(ROOT / "examples" / "score_sheet_round.json"), "--set", "nosuch=1"])
    err = one_line(capsys)  # the layout's own rules are the ones in use, and the ones to look up
    assert exit_.value.code == 2 and "nosuch" in err and "'handfoot rules score-sheet'" in err
    with pytest.raises(SystemExit) as exit_:
        main(["game", str(ROOT / "examples" / "score_sheet_round.json"), "--rules", "bicycle", "--set", "nosuch=1"])
    assert exit_.value.code == 2 and "'handfoot rules bicycle'" in one_line(capsys)


def test_jokers_in_hand_are_not_said_to_be_on_the_table(tmp_path, capsys):
    layout = {"rules": "pagat", "teams": {"A": {"left": [["JK"] * 11]}}}
    path = tmp_path / "eleven.json"
    path.write_text(json.dumps(layout))
    assert main(["score", str(path)]) == 1
    err = one_line(capsys)
    assert "11 jokers" in err and "hands" in err and "on the table" not in err


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys):
    import handfoot.cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(handfoot.cli, "simulate_odds", interrupted)
    assert main(["odds", "--deals", "1000000"]) == 130
    assert one_line(capsys).strip() == "handfoot: interrupted"


def test_odds_refuses_more_deals_than_it_can_simulate_soon(capsys):
    assert main(["odds", "--deals", "99999999999999"]) == 1
    assert one_line(capsys).strip() == "handfoot: error: --deals must be 1 to 1,000,000 (got 99,999,999,999,999)"


def test_odds_reports_progress_to_a_terminal(monkeypatch, capsys):
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    assert main(["odds", "--deals", "500000", "--seed", "1", "--json"]) == 0
    # a bar drawn (tqdm redraws at most every 0.1 s, so its last count may be cleared before it is drawn)
    assert "deals" in err.getvalue() and "/500k" in err.getvalue().replace(" ", "")
    assert json.loads(capsys.readouterr().out)["deals"] == 500000


def test_detect_reads_a_gif_in_a_folder(tmp_path, capsys):
    cv2 = pytest.importorskip("cv2")
    image = cv2.imread(str(PHOTO))
    ok, data = cv2.imencode(".gif", image)
    assert ok
    (tmp_path / "table.gif").write_bytes(data.tobytes())
    assert main(["detect", str(tmp_path), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["image"].endswith("table.gif") and record["width"] == 1600 and len(record["detections"]) > 5


def test_a_layout_file_too_large_or_too_deep_is_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 10000 + "]" * 10000)
    assert main(["score", str(deep)]) == 1
    assert "nested too deep" in one_line(capsys)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"teams": {"A": {"left": [["KH"] * 400_000]}}}))
    assert main(["score", str(big)]) == 1
    assert "layout file too large" in one_line(capsys)
    many = tmp_path / "many.json"
    many.write_text(json.dumps({"teams": {"A": {"left": [["KH"] * 5000]}}}))
    assert main(["score", str(many)]) == 1
    assert "5,000 cards" in one_line(capsys)
    cut = tmp_path / "cut.json"
    cut.write_text('{"teams": {"A": {"melds": [["KH')
    assert main(["score", str(cut)]) == 1
    assert one_line(capsys).strip().endswith("not valid JSON: Unterminated string starting at line 1 column 29")


def test_annotate_under_a_file_and_a_bad_conf_are_one_plain_line(tmp_path, capsys):
    (tmp_path / "notes").write_text("a file, not a folder")
    assert main(["score", str(PHOTO), "--annotate", str(tmp_path / "notes" / "out.jpg")]) == 1
    err = capsys.readouterr().err
    assert "notes is a file, not a folder" in err and "Errno" not in err and len(err.strip().splitlines()) == 1
    assert main(["score", str(PHOTO), "--annotate", str(tmp_path / "notes" / "x" / "out.jpg")]) == 1
    assert f"{tmp_path / 'notes'} is a file, not a folder" in capsys.readouterr().err  # the file in the way, named
    assert main(["score", str(PHOTO), "--conf", "2"]) == 1
    assert capsys.readouterr().err.strip() == "handfoot: error: --conf must be in (0, 1], got 2.0"


def test_a_port_out_of_range_is_a_usage_error(capsys):
    for command in (["serve"], ["watch", "--video", "x.avi", "--serve"]):
        with pytest.raises(SystemExit) as exit_:
            main([*command, "--port", "99999"])
        assert exit_.value.code == 2 and "a port is 1-65535, not 99999" in capsys.readouterr().err


def test_a_mistyped_option_is_one_line_with_the_near_miss(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["score", "layout.json", "--ruls", "pagat"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and err.startswith("handfoot score: error:")
    assert "unrecognized arguments: --ruls pagat (did you mean --rules?) (see handfoot score --help)" in err
    with pytest.raises(SystemExit) as exit_:
        main(["watch"])  # argparse's own check (a required choice): one line too
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "one of the arguments --video --camera is required" in err
    with pytest.raises(SystemExit) as exit_:
        main(["deck", "list", "--verbose"])
    assert exit_.value.code == 2 and "handfoot deck list: error: unrecognized arguments: --verbose" in capsys.readouterr().err


def test_the_command_leaves_when_threads_outlive_it():
    """``handfoot`` (``handfoot.__main__.run``) exits with the command's status even when a thread outlives the
    command (as the web server's idle worker threads outlive ``serve``, keeping Ctrl-C waiting seconds); without it
    this process would never end."""
    code = ("import sys, threading\n"
            "threading.Thread(target=threading.Event().wait).start()  # a thread that never ends\n"
            "sys.argv = ['handfoot', 'rules', 'nosuchrules']\n"
            "from handfoot.__main__ import run\n"
            "run()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "nosuchrules" in done.stderr


def test_a_ledger_given_as_a_folder_is_kept_in_it(tmp_path, capsys):
    """``--db FOLDER`` (a family names a folder) keeps the ledger as FOLDER/handfoot.db; a file name stays one."""
    from handfoot.cli_parser import ledger_file

    assert ledger_file(str(tmp_path)) == str(tmp_path / "handfoot.db")
    assert ledger_file(str(tmp_path / "new") + "/") == str(tmp_path / "new" / "handfoot.db")
    assert ledger_file(str(tmp_path / "cards.db")) == str(tmp_path / "cards.db")
    assert ledger_file(str(tmp_path / "family")) == str(tmp_path / "family" / "handfoot.db")  # a new folder
    assert main(["deck", "list", "--db", str(tmp_path)]) == 0
    assert str(tmp_path / "decks") in capsys.readouterr().out


def test_typed_cards_are_counted_without_their_team():
    """``A: KH ...`` (the page sends the team, a colon, then what was typed) counts the cards only: 1,001 typed
    cards are 1,001 (they were 1,002), 1,000 are allowed."""
    from handfoot.photo_request import parse_left
    from handfoot.errors import TooLargeError

    assert len(parse_left(["A: " + "KH " * 1000])["A"][0]) == 1000
    with pytest.raises(TooLargeError, match="^left: 1,001 cards typed in: a round's layout may hold at most 1,000 "
                                            "cards$"):
        parse_left(["A: " + "KH " * 1001])


def test_handfoot_alone_lists_its_commands(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "score" in err and "serve" in err and "watch" in err and "required" not in err


def test_a_refused_start_leaves_no_ledger_behind(tmp_path, capsys, no_photo_work):
    """``serve`` on a port in use and ``watch --game`` of a game no ledger holds are one line each, and neither
    makes a ledger (the data folder stays as it was)."""
    import socket

    import cv2
    import numpy as np

    video = tmp_path / "clip.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for _ in range(3):
        out.write(np.zeros((48, 64, 3), np.uint8))
    out.release()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--db", str(tmp_path / "a")]) == 1
        assert "already in use" in one_line(capsys)
    assert main(["watch", "--video", str(video), "--game", "nosuchgame", "--db", str(tmp_path / "b")]) == 1
    assert "no game 'nosuchgame'" in one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip.avi"]


@pytest.fixture()
def asked(monkeypatch):
    """The photo request ``score`` asks for (``asked["req"]``, ``asked["hands"]``), read no further."""
    from handfoot import core

    seen = {}

    def read(photos, req, models, hands=(), **_):
        seen.update(req=req, hands=list(hands))
        raise HandFootError("read no further")
    monkeypatch.setattr(core, "load_models", lambda *args, **kwargs: None)
    monkeypatch.setattr(core, "read_and_score_photos", read)
    return seen


def test_team_names_typed_in_another_case_are_the_teams_read(tmp_path, capsys, asked):
    """``--went-out us`` beside ``--teams Us`` was refused (team 'us' is not one of the teams read (Us)), and
    ``--left a:...`` beside the table's team A too: names typed on the command line match the teams regardless of
    case, and cards left of one team typed twice in two cases add up; a name no team has is still refused."""
    hand = tmp_path / "foot.jpg"
    hand.write_bytes(PHOTO.read_bytes())
    assert main(["score", str(PHOTO), "--teams", "Us", "--went-out", "us", "--left", "US:KH 7C", "--left", "us:4S",
                 "--hand", f"uS:{hand}"]) == 1
    assert "read no further" in one_line(capsys)
    req = asked["req"]
    assert req.went_out == "Us" and req.left == (("Us", (("KH", "7C"), ("4S",))),)
    assert [team for team, _ in asked["hands"]] == ["Us"]
    assert main(["score", str(PHOTO), "--left", "a:KH 7C", "--went-out", "a"]) == 1  # the default names A, B, ...
    assert "read no further" in one_line(capsys)
    assert asked["req"].left == (("A", (("KH", "7C"),)),) and asked["req"].went_out == "A"
    # a team with no table photo, typed first in --left, is matched by its own spelling
    assert main(["score", str(PHOTO), "--left", "Them:KH", "--went-out", "THEM"]) == 1
    assert "read no further" in one_line(capsys)
    assert asked["req"].went_out == "Them"
    assert main(["score", str(PHOTO), "--teams", "Us", "--went-out", "usa"]) == 1
    assert "went out: team 'usa' is not one of the teams read (Us)" in one_line(capsys)


def test_a_team_named_beyond_the_photos_is_scored_from_its_cards_left(capsys, asked):
    """``--teams Us,Them`` with one photo was refused, while the docs say a team with no table photo is scored from
    its cards left: a name past the photos is such a team, refused only when nothing is given for it."""
    assert main(["score", str(PHOTO), "--teams", "Us,Them", "--left", "them:KH 7C", "--went-out", "us"]) == 1
    assert "read no further" in one_line(capsys)
    assert asked["req"].teams == ("Us", "Them") and asked["req"].left == (("Them", (("KH", "7C"),)),)
    assert asked["req"].table_teams(1) == ["Us"]
    assert main(["score", str(PHOTO), "--teams", "Us,Them,Kids", "--left", "Them:KH"]) == 1
    assert ("3 team names (Us, Them, Kids) for 1 table photo: team Kids has no table photo and no cards left; a team "
            "with no table photo is scored from its cards left alone (typed, or a photo of a hand): give them, or its "
            "table photo") in one_line(capsys)
    assert main(["score", str(PHOTO), "--split", "horizontal", "--teams", "Us,Them,X"]) == 1
    assert "team X has no table photo" in one_line(capsys)


def test_cards_left_of_a_team_not_in_teams_name_the_slip(capsys, asked):
    """``--teams Us,Them --left Thme:...`` scored a third team "Thme" and left Them uncharged (two photos), or
    blamed Them for having no cards (one photo): a team given cards must be one ``--teams`` names, and the
    message offers the name it is likely a slip of."""
    for photos in ([str(PHOTO)], [str(PHOTO), str(PHOTO)]):
        assert main(["score", *photos, "--teams", "Us,Them", "--left", "Thme:KH 7C"]) == 1
        line = one_line(capsys)
        assert "cards of team 'Thme': not one of the teams given (Us, Them); did you mean 'Them'?" in line
        assert "req" not in asked
    assert main(["score", str(PHOTO), "--teams", "Us,Them", "--left", "Kids:KH"]) == 1
    assert "did you mean" not in one_line(capsys)


def test_counts_say_one_thing_in_the_singular(tmp_path, capsys):
    """A count of one is "1 card", not "1 cards": ``scorer.wording.counted``, and the score of a layout with one
    card left (its breakdown line)."""
    from scorer.wording import counted

    assert [counted(1, "card"), counted(0, "card"), counted(2, "box", "boxes"), counted(1001, "photo")] == \
        ["1 card", "0 cards", "2 boxes", "1,001 photos"]
    layout = {"rules": "pagat", "teams": {"A": {"melds": [["KH", "KS", "KD"]], "left": [["7C"]]}}}
    (tmp_path / "one.json").write_text(json.dumps(layout))
    assert main(["score", str(tmp_path / "one.json"), "--lenient"]) == 0
    out = capsys.readouterr().out
    assert "1 card" in out and "1 cards" not in out


def test_detect_given_a_folder_without_photos_names_what_it_reads(tmp_path, capsys):
    pytest.importorskip("cv2")
    (tmp_path / "notes.txt").write_text("no photo here")
    assert main(["detect", str(tmp_path)]) == 1
    err = one_line(capsys)
    assert f"no photos in {tmp_path}: a folder is read for its .jpg, .jpeg, .png, .bmp, .webp, .tif, .tiff, .gif, " \
           ".heic, .heif files" in err


def test_detect_annotates_the_boxes_it_found_on_the_photo_as_read(tmp_path, capsys):
    """``detect --annotate``: each index box found drawn with its code on the photo (a WebP in a folder is read),
    one picture per photo in a folder, or the file named for one photo; a file named for several photos is refused
    before the models load."""
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    from vision.annotate import CornerAnnotator
    from vision.classes import class_id
    from vision.images import load_photo
    from vision.types import Detections

    photos = tmp_path / "photos"
    photos.mkdir()
    ok, data = cv2.imencode(".webp", cv2.imread(str(PHOTO)), [cv2.IMWRITE_WEBP_QUALITY, 101])  # lossless
    assert ok
    (photos / "table.webp").write_bytes(data.tobytes())
    assert main(["detect", str(photos), "--json", "--annotate", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    record = json.loads(out)
    dest = tmp_path / "out" / "table_annotated.jpg"
    assert record["image"].endswith("table.webp") and len(record["detections"]) > 5
    assert err.strip() == f"annotated: {dest}"
    photo = load_photo(photos / "table.webp")
    drawn = cv2.imread(str(dest))
    assert drawn.shape == photo.shape
    found = record["detections"]
    dets = Detections(np.array([d["box"] for d in found], np.float32), np.array([d["confidence"] for d in found],
                                                                                np.float32),
                      np.array([class_id(d["card"]) for d in found], np.int64))
    expected = CornerAnnotator().annotate(photo, dets)
    marks = np.abs(expected.astype(int) - photo).max(2) > 60  # where the boxes and codes are drawn
    assert marks.sum() > 1000
    assert np.median(np.abs(drawn.astype(int) - expected)[marks]) < 25  # drawn there (a JPEG's loss aside)
    assert np.median(np.abs(drawn.astype(int) - photo)[marks]) > 60

    assert main(["detect", str(photos / "table.webp"), "--annotate", str(tmp_path / "one.jpg")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{photos / 'table.webp'}: {len(found)} corner indices: ")
    assert out[1:] == [f"annotated: {tmp_path / 'one.jpg'}"] and (tmp_path / "one.jpg").is_file()

    (photos / "again.png").write_bytes(cv2.imencode(".png", photo)[1].tobytes())
    assert main(["detect", str(photos), "--annotate", str(tmp_path / "two.jpg")]) == 1
    assert "--annotate " + str(tmp_path / "two.jpg") + " names one image, but 2 photos are read" in one_line(capsys)


@pytest.fixture()
def two_photos(tmp_path, monkeypatch):
    """Two example photos (copies of the example table, 1600 x 1200) and a line maker; the learning itself is
    refused (nothing here should get that far, or a note must come before it)."""
    pytest.importorskip("cv2")
    import vision.pipeline

    def refuse():
        raise AssertionError("learning started")
    monkeypatch.setattr(vision.pipeline, "load_models", refuse)
    for name in ("t1.jpg", "t2.jpg"):
        (tmp_path / name).write_bytes(PHOTO.read_bytes())
    boxes = [{"card": "KH", "box": [100 + 40 * k, 100, 130 + 40 * k, 140]} for k in range(3)]
    return lambda image, detections=boxes: json.dumps({"image": image, "detections": detections})


def test_deck_learn_names_the_example_that_is_wrong(tmp_path, capsys, two_photos):
    """A box far outside its photo, a file whose examples label no index, a photo or a pretty-printed JSON file
    given as the examples, a file that is not an image named as a photo: one line each, naming the file (and its
    line), before any learning."""
    def learn(name: str, text: str | bytes) -> str:
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        assert main(["deck", "learn", str(path), "--name", "ours"]) == 1
        return one_line(capsys)

    far = [{"card": "KH", "box": [5000, 5000, 5040, 5040]}]
    err = learn("far.jsonl", two_photos("t1.jpg") + "\n" + two_photos("t2.jpg", far) + "\n")
    assert f"{tmp_path / 'far.jsonl'}:2: box [5000, 5000, 5040, 5040] of KH lies outside the photo, which handfoot " \
           "reads as 1600 x 1200 pixels" in err
    err = learn("empty.jsonl", two_photos("t1.jpg", []) + "\n" + two_photos("t2.jpg", []) + "\n")
    assert f"no corner indices labelled in {tmp_path / 'empty.jsonl'}" in err and "0 example photos" not in err
    err = learn("photo.jpg", PHOTO.read_bytes())
    assert f"{tmp_path / 'photo.jpg'} is a JPEG image, not an examples file: examples are a .jsonl file, JSON " \
           "lines: one JSON object per line" in err
    pretty = json.dumps(json.loads(two_photos("t1.jpg")), indent=2)
    err = learn("pretty.json", pretty + "\n")
    assert f"{tmp_path / 'pretty.json'} holds one JSON object written over" in err and "one object per line" in err
    err = learn("two.jsonl", pretty + "\n" + pretty + "\n")
    assert f"{tmp_path / 'two.jsonl'}:1: the JSON object goes on past the end of the line" in err
    err = learn("plain.jsonl", "image: t1.jpg\n")
    assert "plain.jsonl:1: not JSON (Expecting value): examples are a .jsonl file" in err
    (tmp_path / "notes.txt").write_text("not a photo")
    err = learn("text.jsonl", two_photos("t1.jpg") + "\n" + two_photos("notes.txt") + "\n")
    assert f"{tmp_path / 'text.jsonl'}:2: {tmp_path / 'notes.txt'}: not an image file" in err


def test_deck_learn_clips_a_box_a_little_past_the_edge_and_says_so(tmp_path, capsys, two_photos, monkeypatch):
    import vision.pipeline

    def stop():
        raise HandFootError("stopped before learning")
    monkeypatch.setattr(vision.pipeline, "load_models", stop)
    edge = [{"card": "KH", "box": [-5, 100, 30, 140]}, {"card": "QS", "box": [1570, 1180, 1610, 1205]}]
    (tmp_path / "edge.jsonl").write_text(two_photos("t1.jpg", edge) + "\n" + two_photos("t2.jpg") + "\n")
    assert main(["deck", "learn", str(tmp_path / "edge.jsonl"), "--name", "ours"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"handfoot: 2 boxes reaching a little past the photo's edge were clipped to it "
                   f"({tmp_path / 'edge.jsonl'}:1, box [-5, 100, 30, 140] of KH and more)",
                   "handfoot: error: stopped before learning"]
    from vision.decks import read_examples

    assert read_examples([tmp_path / "edge.jsonl"])[0].boxes.tolist() == [[0, 100, 30, 140], [1570, 1180, 1600, 1200]]


def test_deck_learn_under_a_name_in_use_needs_replace(tmp_path, capsys, two_photos, monkeypatch):
    """A deck name already learned is refused in one line naming that profile and what it learned from, before the
    examples are read (the learning itself is refused here), and kept as it was; --replace goes on to learn."""
    pytest.importorskip("onnxruntime")
    import vision.pipeline
    from vision.deck_profiles import DeckProfile
    from vision.models.reader import IndexReader

    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path))
    DeckProfile("ours", IndexReader().stock_heads(), 20, 261, {"indices": 65, "stock_right": 54, "profile_right": 60},
                "2026-12-01T10:00:00+00:00").save(tmp_path / "decks")
    kept = (tmp_path / "decks" / "ours.npz").read_bytes()
    assert main(["deck", "learn", str(tmp_path / "missing.jsonl"), "--name", "ours"]) == 1
    assert one_line(capsys) == ("handfoot: error: a deck profile ours exists already, learned from 20 photos, 261 "
                                "indices, tested on 65 of them: 54 -> 60 read right (rank and colour), learned "
                                "2026-12-01T10:00:00+00:00; add --replace to replace it, or choose another --name\n")
    assert (tmp_path / "decks" / "ours.npz").read_bytes() == kept

    def stop():
        raise HandFootError("stopped before learning")
    monkeypatch.setattr(vision.pipeline, "load_models", stop)
    (tmp_path / "ours.jsonl").write_text(two_photos("t1.jpg") + "\n" + two_photos("t2.jpg") + "\n")
    assert main(["deck", "learn", str(tmp_path / "ours.jsonl"), "--name", "ours", "--replace"]) == 1
    assert one_line(capsys) == "handfoot: error: stopped before learning\n"  # it went on to learn
    assert main(["deck", "learn", str(tmp_path / "ours.jsonl"), "--name", "theirs"]) == 1  # a new name needs none
    assert one_line(capsys) == "handfoot: error: stopped before learning\n"
    assert (tmp_path / "decks" / "ours.npz").read_bytes() == kept


def test_no_cards_found_points_at_the_negative_and_teaching_the_deck(tmp_path, capsys):
    """A photo of a deck the stock models cannot read (here a blank one): score's line proposes --negative (a deck
    printed light on dark) and says where teaching a deck is told, with --negative only the teaching; detect's
    photo line says no card was found and one line after the photos' says what to do (the blank's negative shows
    no index either), with --negative the teaching."""
    cv2 = pytest.importorskip("cv2")
    import numpy as np

    blank = tmp_path / "dark.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 20, np.uint8))
    assert main(["score", str(blank)]) == 1
    err = one_line(capsys)
    assert "no cards found (is the whole table in the photo, in focus and lit?); cards printed light on dark (a " \
           "black deck)? add --negative; a deck of its own design can be taught: docs/usage.md, \"Teach it your " \
           "deck\"" in err
    assert main(["score", str(blank), "--negative"]) == 1
    assert one_line(capsys).endswith("no cards found (is the whole table in the photo, in focus and lit?); this deck "
                                     "can be taught: docs/usage.md, \"Teach it your deck\"\n")
    assert main(["detect", str(blank)]) == 0
    said = capsys.readouterr()
    assert said.out.strip().endswith("0 corner indices: no cards found") and len(said.out.strip().splitlines()) == 1
    assert said.err.startswith("handfoot: 1 of 1 photo: no card found (is each card's corner in view, in focus and "
                               "lit?); a deck of its own design can be taught from photos whose cards are found")
    assert main(["detect", str(blank), "--negative"]) == 0
    assert capsys.readouterr().err == ("handfoot: 1 of 1 photo: no card found (is each card's corner in view, in "
                                       "focus and lit?); this deck can be taught: docs/usage.md, \"Teach it your "
                                       "deck\"\n")


def test_teams_given_as_words_is_told_its_format(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["score", str(PHOTO), "--teams", "A", "B"])
    assert exit_.value.code == 2
    err = one_line(capsys)
    assert ("unrecognized arguments: B (--teams takes the names separated by commas: --teams A,B; quote a name with "
            "spaces)") in err
    with pytest.raises(SystemExit):
        main(["score", str(PHOTO), "--teams", "A,B", "C"])
    assert "separated by commas: --teams A,B,C;" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["score", str(PHOTO), "--json", "extra", "--teams", "A,B"])
    assert "--teams takes" not in capsys.readouterr().err
    help_ = subprocess.run([sys.executable, "-m", "handfoot", "score", "--help"], capture_output=True, text=True,
                           cwd=ROOT).stdout
    assert "--teams A,B" in help_ and "Us,Them" in help_
    start = help_.index("--teams A,B ")
    said = " ".join(help_[start:help_.index("--split", start)].split())  # its help as one line, however wrapped
    assert 'names separated by commas, e.g. --teams Us,Them (quote a name with spaces: --teams "Our side,Them")' in said
    assert "a name given twice makes both photos that team's (--teams Us,Us,Them: two photos of Us's side)" in said
    assert "one word" not in said


def test_annotate_into_a_missing_folder_is_refused_before_reading(tmp_path, capsys, no_photo_work):
    missing = tmp_path / "nowhere" / "deeper"
    assert main(["score", str(PHOTO), "--annotate", str(missing / "out.jpg")]) == 1
    assert f"--annotate {missing / 'out.jpg'}: no such folder {missing} (make it first)" in one_line(capsys)
    assert main(["detect", str(PHOTO), "--annotate", str(missing / "out")]) == 1
    assert f"no such folder {missing} (make it first)" in one_line(capsys)
    assert not (tmp_path / "nowhere").exists()


def test_save_layout_into_a_missing_folder_is_refused_before_reading(tmp_path, capsys, no_photo_work):
    """--save-layout's folder is checked as --annotate's is: a missing one, a file in the way, a folder given."""
    missing = tmp_path / "nowhere" / "deeper"
    assert main(["score", str(PHOTO), "--save-layout", str(missing / "l.json")]) == 1
    assert one_line(capsys) == f"handfoot: error: --save-layout {missing / 'l.json'}: no such folder {missing} " \
                               "(make it first)\n"
    (tmp_path / "notes.txt").write_text("a file")
    assert main(["score", str(PHOTO), "--save-layout", str(tmp_path / "notes.txt" / "l.json")]) == 1
    assert f"{tmp_path / 'notes.txt'} is a file, not a folder" in one_line(capsys)
    assert main(["score", str(PHOTO), "--save-layout", str(tmp_path)]) == 1
    assert f"--save-layout {tmp_path}: a folder; give the layout file's name, e.g. {tmp_path / 'layout.json'}" \
        in one_line(capsys)
    assert not (tmp_path / "nowhere").exists()


def test_deck_learn_says_which_photos_taught_and_which_tested(tmp_path):
    """The report says the profile kept learned from every photo, which photos tested it first (set aside, or each
    left out in turn), of how many indices each percentage is, and that read right is by rank and colour."""
    from types import SimpleNamespace

    from handfoot.reports import deck_figures, deck_learned

    def said(**check) -> str:
        profile = SimpleNamespace(name="gold", photos=20, indices=261, negative=False, ink=None, created="today",
                                  check={"indices": 65, "stock": 0.8, "profile": 0.923, **check})
        return deck_learned(profile, tmp_path / "gold.npz", profile)

    aside = said(method="kept aside", photos=5, folds=1, stock_right=54, profile_right=60)
    assert aside.startswith("deck gold: learned from all 20 photos (261 indices)\n")
    assert ("\ntested on 5 of the 20 photos (65 indices), set aside while the other 15 taught a trial profile: "
            "60 of 65 indices read right (rank and colour) with the profile, 54 with the stock reader; of the "
            "reader's 3 views of each, 92.3% with the profile, 80.0% with the stock reader\n"
            "read right = rank and colour: a suit within its colour never changes a Hand and Foot score, so a club "
            "read as a spade counts as read right\n") in aside  # a 10♣ read 10S is read right: said once, there
    assert ("(20 photos, 261 indices, tested on 65 of them: 54 -> 60 read right (rank and colour), learned today)"
            in aside)
    older = said(method="kept aside", photos=5, folds=1)  # learned before the indices read right were counted
    assert ("trial profile: 92.3% of the reader's 3 views of each of 65 indices read right (rank and colour) with "
            "the profile, 80.0% with the stock reader\nread right = rank and colour") in older
    assert aside.count("a suit within its colour") == 1  # not beside the figures of the profile replaced
    assert "as many of them right" not in aside
    tie = said(method="kept aside", photos=5, folds=1, stock_right=63, profile_right=63)  # kept: why, said
    assert ("\nit reads as many of them right as the stock reader, and is kept because it reads the turned views of "
            "them more surely (92.3% against 80.0%)") in tie
    assert "tested on 65 of them: 80.0% -> 92.3% of the reader's views read right, learned today)" in older
    assert "\ntested on photos set aside (65 indices) while the others taught" in said()  # an older profile
    assert "\ntested on each of the 20 photos (65 indices in all) left out in turn" in said(method="leave-one-out")
    assert "\ntested on the 20 photos (65 indices in all) in 5 groups, each group left out in turn" in said(
        method="5-fold", folds=5, photos=20)
    old = SimpleNamespace(name="x", photos=3, indices=40, negative=False, created="then", check={})
    assert deck_figures(old) == ("3 photos, 40 indices, tested: 0.0% -> 0.0% of the reader's views read right, "
                                 "learned then")


def test_detect_help_says_imgsz_in_a_users_words(capsys):
    with pytest.raises(SystemExit):
        main(["detect", "--help"])
    help_ = " ".join(capsys.readouterr().out.split())
    assert "--imgsz IMGSZ the largest size the photo is searched at, its long side in pixels" in help_
    assert "vision.config" not in help_ and "Pyramid" not in help_


def test_usage_says_what_the_reader_and_the_negative_do():
    """docs/usage.md's figures are the code's: the reader's views of each index and a profile's shifted copies, and
    when a photo is read as its negative without being asked."""
    pytest.importorskip("onnxruntime")
    from vision.config import DEFAULT
    from vision.decks import JITTER
    from vision.models.crops import VIEWS
    from vision.models.reader import JITTERS

    usage = " ".join((ROOT / "docs" / "usage.md").read_text().split())
    shifted = JITTERS[JITTER]
    assert (f"the stock reader reads each index from {len(VIEWS)} crops turned slightly each way (the reader's "
            f"{len(VIEWS)} views, which `deck learn`'s figures count)") in usage
    assert (f"five places too (the index's box and four moved by {max(abs(v) for c in shifted for v in c[:2]):.0%} "
            f"of its size), {len(shifted) * len(VIEWS)} crops in all").replace("%", " %") in usage
    assert len(shifted) == 5
    assert (f"only when a photo shows fewer than {DEFAULT.reading.negative_below} sure indices as it is and "
            f"{DEFAULT.reading.negative_shows} or more in its negative") in usage


def test_docs_say_a_fixed_layout_teaches_the_deck_nothing_and_what_does():
    """A layout corrected by hand (--save-layout) has no index boxes: where both are described, README and
    docs/usage.md say it fixes the score, not the deck, and what teaches it (detect --json's boxes and codes); the
    teaching section says why a club read as a spade counts as read right."""
    usage = " ".join((ROOT / "docs" / "usage.md").read_text().split())
    teach = usage[usage.index("### Teach it your deck"):usage.index("### Rule presets")]
    assert ("A layout fixed by hand (`score --save-layout`, the file edited) corrects that round's score but teaches "
            "the deck nothing: it holds the cards' codes, not where each index is in the photo. Teaching needs each "
            "index's box with its code: `detect --json` lines as above") in teach
    assert "`--save-layout LAYOUT.json`, fix that file" in usage and \
        "this corrects the score, not the camera: to teach it your deck, see [Teach it your deck]" in usage
    assert "a suit within its colour never changes a Hand and Foot score, so handfoot counts rank and colour" in teach
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "A layout fixed with `--save-layout` corrects the score only" in readme
    assert readme.index("`--save-layout LAYOUT.json`, fix that file") < readme.index("teaches the deck nothing") \
        < readme.index("**Watch a video**")
