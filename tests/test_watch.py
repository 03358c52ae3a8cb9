"""handfoot watch: events from layout changes, reading only settled changes, a generated video end to end."""

import json

import numpy as np
import pytest

from handfoot.watch import Seen, Watcher, layout_events

pytest.importorskip("cv2")

import cv2  # noqa: E402

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def team(melds=(), squared=(), threes=()):
    return {"melds": [list(m) for m in melds], "squared_books": [{"top": t} for t in squared],
            "red_threes": list(threes), "left": []}


def test_layout_changes_are_events_in_words():
    before = {"teams": {"A": team([["8H", "8S", "8D"]])}}
    after = {"teams": {"A": team([["8H", "8S", "8D", "8C", "8H", "8S", "8D"], ["KH", "KS", "JK"]], ["QH"], ["3H"])}}
    assert layout_events(before, after) == [
        "team A: meld of 8s grew to 7", "team A: book of 8s complete (clean)", "team A: new meld of Ks (3 cards)",
        "team A: book of Qs squared", "team A: a red three laid"]
    assert layout_events(after, after) == []
    assert layout_events(after, before) == ["team A: meld of 8s now 3 cards", "team A: meld of Ks no longer seen"]
    squared = {"teams": {"A": team([["8H", "8S", "8D", "8C", "8H", "8S", "8D"]], ["QH", "KH"], ["3H"])}}
    assert layout_events(after, squared) == ["team A: book of Ks squared"]  # not "no longer seen"


def _frame(shade: int, hand_x: int | None = None) -> np.ndarray:
    f = np.full((240, 320, 3), shade, np.uint8)
    cv2.rectangle(f, (40, 40), (120, 160), (255, 255, 255), -1)
    if hand_x is not None:
        cv2.circle(f, (hand_x, 120), 50, (90, 140, 200), -1)
    return f


def test_a_table_is_read_once_it_changed_and_settled_never_while_a_hand_moves():
    reads = []

    def read(frame, before, regions):
        reads.append(int(frame[5, 5, 0]))
        n = 3 if frame[5, 5, 0] < 100 else 4
        return Seen({"teams": {"A": team([["8H"] * n])}})

    w = Watcher(read, lambda layout: {"A": 10 * len(layout["teams"]["A"]["melds"][0])})
    events = []
    clip = [_frame(50)] * 5 + [_frame(50, x) for x in range(40, 300, 40)] + [_frame(50)] * 5 + [_frame(150)] * 8
    for k, f in enumerate(clip):
        events += w.step(k * 0.2, f)
    # read once when still at the start, not during the hand, not again when it left the same table, once after
    assert reads == [50, 150]
    assert [(e.text, e.totals) for e in events] == [("team A: new meld of 8s (3 cards)", {"A": 30}),
                                                    ("team A: meld of 8s grew to 4", {"A": 40})]


@pytest.mark.skipif(not __import__("vision.models.reader", fromlist=["DEFAULT_READER"]).DEFAULT_READER.is_file(),
                    reason="no shipped reader")
def test_watch_a_generated_round_on_the_command_line(anglo_deck, tmp_path, capsys):
    """A rendered round (``datasets.round_video.ROUND``: an 8 added to a meld, the kings reaching seven and squared,
    a red three laid), a hand crossing the table for two seconds before each change, camera shake and a flickering
    light: the events in order, none while a hand is over the table, the exact final total, and the annotated
    recording."""
    from contextlib import closing

    from datasets.round_video import round_video
    from handfoot import games
    from handfoot.cli import main
    from handfoot.ledger import Ledger

    video, recording, db = tmp_path / "round.avi", tmp_path / "seen.avi", tmp_path / "h.db"
    timeline = round_video(video, [anglo_deck], size=(1280, 720), fps=8)
    with closing(Ledger.open(db)) as ledger:
        game = games.create_game(ledger, games.GameCreate(rules="pagat", teams=["A", "B"])).id
    assert main(["watch", "--video", str(video), "--json", "--record", str(recording), "--game", game,
                 "--db", str(db)]) == 0
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    events, end = lines[:-1], lines[-1]
    assert "team B was not in the camera's view: its round counts 0 until corrected" in captured.err
    by_stage = [sorted(e["event"] for e in events if a <= e["t"] < b)
                for a, b in zip(timeline.stages, timeline.stages[1:] + [1e9])]
    assert by_stage == [["team A: new meld of 8s (3 cards)", "team A: new meld of Ks (6 cards)"],
                        ["team A: meld of 8s grew to 4"],
                        ["team A: book of Ks complete (clean)", "team A: meld of Ks grew to 7"],
                        ["team A: book of Ks squared"],
                        ["team A: a red three laid"]]
    assert not [e for e in events for a, b in timeline.hands if a <= e["t"] < b]  # nothing while a hand moves
    assert [e["totals"]["A"] for e in events][-1] == 710 and end["totals"] == {"A": 710}
    assert end["end"] and end["reads"] == 5
    with closing(Ledger.open(db)) as ledger:  # --game: the round added to the game at the end
        assert games.game_view(ledger, game).totals == {"A": 710, "B": 0}
    cap = cv2.VideoCapture(str(recording))
    assert int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) == timeline.frames
    cap.release()


def test_a_file_named_like_a_photo_that_is_no_video_is_one_line_without_ffmpegs_own(tmp_path):
    import subprocess
    import sys

    (tmp_path / "fake.jpg").write_text("hello")  # no image header: opened as a video, FFmpeg complains on fd 2
    proc = subprocess.run([sys.executable, "-m", "handfoot", "watch", "--video", str(tmp_path / "fake.jpg")],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"handfoot: error: {tmp_path / 'fake.jpg'}: not a video this computer can read"]


def test_watch_errors_are_one_line(tmp_path, capsys):
    from handfoot.cli import main

    (tmp_path / "notes.txt").write_text("not a video")
    for args, words in ((["--video", str(tmp_path / "none.mp4")], "no such video file"),
                        (["--video", str(tmp_path / "notes.txt")], "not a video this computer can read"),
                        (["--video", str(video_of(tmp_path)), "--round", "0"], "rounds are numbered from 1"),
                        (["--video", str(ROOT / "examples" / "table.jpg")], "is a photo, not a video")):
        assert main(["watch", *args]) == 1
        assert words in capsys.readouterr().err
    for args, words in (([], "one of the arguments --video --camera is required"),
                        (["--video", "x.avi", "--camera", "0"], "not allowed with")):
        with pytest.raises(SystemExit) as exit_:  # usage mistakes: status 2, argparse's usage line
            main(["watch", *args])
        assert exit_.value.code == 2 and words in capsys.readouterr().err
    for args, words in ((["--record", str(tmp_path / "none" / "out.mp4")], "no such folder"),
                        (["--game", "0123456789abcdef", "--db", str(tmp_path / "h.db")], "no game")):
        assert main(["watch", "--video", str(video_of(tmp_path)), *args]) == 1
        assert words in capsys.readouterr().err
    from handfoot.picture import check_window
    from scorer import HandFootError

    try:  # a window needs an OpenCV with a GUI and a display; without, one line says so
        check_window()
        cv2.destroyAllWindows()
    except HandFootError:
        assert main(["watch", "--video", str(video_of(tmp_path)), "--window"]) == 1
        assert "cannot open a window" in capsys.readouterr().err


def video_of(folder):
    """A short readable video (grey frames) in ``folder``."""
    path = folder / "grey.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for _ in range(3):
        out.write(np.full((48, 64, 3), 128, np.uint8))
    out.release()
    return path


def test_a_camera_gives_its_latest_frame_and_an_unplugged_one_says_so():
    import time

    from handfoot.watch import _latest_frames
    from scorer import HandFootError

    class Camera:
        def __init__(self):
            self.k, self.released = 0, False

        def read(self):
            time.sleep(0.01)
            self.k += 1
            return (self.k <= 30, np.full((4, 4, 3), self.k, np.uint8))

        def release(self):
            self.released = True

    cam = Camera()
    got = []
    with pytest.raises(HandFootError, match="stopped giving pictures"):
        for t, frame in _latest_frames(cam, np.zeros((4, 4, 3), np.uint8)):
            got.append(int(frame[0, 0, 0]))
            time.sleep(0.05)  # a slow reading: frames in between are dropped, never queued
    assert got[0] == 0 and got == sorted(got) and len(got) < 15 and cam.released


@pytest.mark.skipif(not __import__("vision.models.reader", fromlist=["DEFAULT_READER"]).DEFAULT_READER.is_file(),
                    reason="no shipped reader")
@pytest.mark.parametrize("seed", [1, 8])  # 8: a pale table, where a fan taken up changes little
def test_reading_only_the_changed_piles_reads_as_the_whole_frame(anglo_deck, seed):
    from datasets.round_video import ROUND
    from datasets.scenes import make_scene
    from handfoot import core, watch

    read, score = watch.table_reader(core.load_models())
    before = frame = None
    for stage in ROUND.stages:
        nxt = make_scene(seed, [anglo_deck], size=(1280, 720), full_view=True, clutter=False,
                         piles=list(ROUND.piles), shown=stage).image
        whole = read(nxt)
        if before is not None:
            regions = watch.changed_regions(watch.small(nxt), watch.small(frame), 1280, 720)
            assert regions is not None and len(regions)  # a change of a few cards: read in regions
            again = read(nxt, before, regions)
            assert again.layout == whole.layout
        before, frame = (whole if before is None else again), nxt
    assert score(before.layout) == {"A": 710}


def test_an_index_read_again_votes_with_its_earlier_readings():
    """A box found again at its place takes the mean of the reader's probabilities over the readings that saw it:
    one frame's misread does not flip a card read right three times; boxes outside the changed region are kept."""
    from vision.pipeline import detect_again
    from vision.types import Detections

    class Finder:  # a one-class detector finding the white rectangles of the frame
        fixed_size, names_cards = True, False

        def __call__(self, image, size, floor):
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
            contours, _ = cv2.findContours((grey > 200).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            boxes = [[x, y, x + w, y + h] for x, y, w, h in map(cv2.boundingRect, contours)]
            return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(boxes), 0.9, np.float32),
                              np.zeros(len(boxes), np.int64))

    class Reader:  # reads every box as rank 11 (a misread of this frame)
        def probabilities(self, image, xyxy):
            rank_p = np.full((len(xyxy), 15), 0.01, np.float32)
            rank_p[:, 11] = 0.7
            return rank_p, np.full((len(xyxy), 4), 0.25, np.float32)

    frame = np.zeros((400, 600, 3), np.uint8)
    frame[100:130, 100:120] = frame[100:130, 400:420] = 255
    was = np.full((2, 15), 0.005, np.float32)
    was[:, 12] = 0.9
    before = Detections(np.float32([[100, 100, 120, 130], [400, 100, 420, 130]]), np.float32([0.9, 0.9]),
                        np.zeros(2, np.int64), {"rank_p": was, "suit_p": np.full((2, 4), 0.25, np.float32),
                                                "votes": np.int64([3, 3])})
    found = detect_again(frame, before, np.float64([[90, 90, 130, 140]]), Finder(), Reader())
    assert len(found) == 2 and sorted(found.data["votes"].tolist()) == [3, 4]
    again = int(np.flatnonzero(found.data["votes"] == 4)[0])
    assert found.xyxy[again].tolist() == [100, 100, 120, 130]
    assert found.data["rank_p"][again].argmax() == 12  # 0.9 x 3 and 0.01 against 0.005 x 3 and 0.7
    assert found.data["rank_p"][again][12] == pytest.approx((0.9 * 3 + 0.01) / 4)


@pytest.mark.skipif(not __import__("vision.models.reader", fromlist=["DEFAULT_READER"]).DEFAULT_READER.is_file(),
                    reason="no shipped reader")
def test_a_hand_resting_over_a_meld_hides_no_card(anglo_deck):
    """A hand comes in, rests still over the kings' fan for two seconds (long enough to be read) and leaves: the
    cards under it are covered, not gone, so nothing changes; the whole frame read alone would lose the book."""
    from datasets.round_video import ROUND, _hand
    from datasets.scenes import make_scene
    from handfoot import core, watch

    table = make_scene(1, [anglo_deck], size=(1280, 720), full_view=True, clutter=False, piles=list(ROUND.piles),
                       shown=ROUND.stages[2]).image
    read, score = watch.table_reader(core.load_models())
    resting = _hand(table, 0.3)
    assert score(read(resting).layout)["A"] < 610  # read whole, the hand hides cards
    w = watch.Watcher(read, score)
    clip = [table] * 8 + [_hand(table, x) for x in (0.9, 0.7, 0.5)] + [resting] * 10 + [table] * 8
    events = [e for k, f in enumerate(clip) for e in w.step(k * 0.2, f)]
    assert w.reads >= 2  # the resting hand was read
    assert [e.text for e in events] == ["team A: new meld of Ks (7 cards)", "team A: book of Ks complete (clean)",
                                        "team A: new meld of 8s (4 cards)"]
    assert score(w.layout) == {"A": 610}


def test_the_live_picture_outlines_a_complete_book_as_a_book():
    """The live picture (``handfoot.picture.draw``) labels piles as the rules engine made them (a fanned meld of
    seven is a clean book, outlined in the book colour as the page's legend says), not by kind only."""
    from pathlib import Path

    from handfoot.picture import draw
    from handfoot.readings import pile_labels
    from handfoot.watch import Seen
    from sides import read_side
    from vision.annotate import BOOK_COLOR, KIND_COLORS
    from vision.classes import class_id
    from vision.types import Detections, PhotoReading, PileKind

    items = [("8H", 60, 40 + 24 * k) for k in range(3)] + [("KS", 200, 40 + 24 * k) for k in range(7)]
    dets = Detections(np.array([[x - 10, y - 10, x + 10, y + 10] for _, x, y in items], np.float32),
                      np.full(len(items), 0.9, np.float32), np.array([class_id(c) for c, _, _ in items], np.int64))
    frame = np.zeros((300, 300, 3), np.uint8)
    photo = PhotoReading(Path("live"), frame, [read_side(dets)])
    labels = pile_labels(photo, "pagat", {}, 1)
    assert sorted(labels.values()) == ["clean book", "meld"]
    drawn = draw(frame, Seen({}, photo, None, labels), {"A": 0}, text=False)
    colours = {tuple(int(v) for v in px) for px in drawn.reshape(-1, 3)}
    assert BOOK_COLOR in colours and KIND_COLORS[PileKind.MELD] in colours
