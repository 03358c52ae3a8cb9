"""handfoot watch: events from layout changes, reading only settled changes, a generated video end to end."""

import json

import numpy as np
import pytest

from handfoot.watch import Watcher, layout_events

pytest.importorskip("cv2")

import cv2  # noqa: E402


def team(melds=(), squared=(), threes=()):
    return {"melds": [list(m) for m in melds], "squared_books": [{"top": t} for t in squared],
            "red_threes": list(threes), "left": []}


def test_layout_changes_are_events_in_words():
    before = {"teams": {"A": team([["8H", "8S", "8D"]])}}
    after = {"teams": {"A": team([["8H", "8S", "8D", "8C", "8H", "8S", "8D"], ["KH", "KS", "JK"]], ["QH"], ["3H"])}}
    assert layout_events(before, after) == [
        "team A: meld of 8s grew to 7", "team A: book of 8s complete (clean)", "team A: new meld of Ks (3 cards)",
        "team A: 1 book squared", "team A: 1 red three laid (1 on the table)"]
    assert layout_events(after, after) == []
    assert layout_events(after, before) == ["team A: meld of 8s now 3 cards"]


def _frame(shade: int, hand_x: int | None = None) -> np.ndarray:
    f = np.full((240, 320, 3), shade, np.uint8)
    cv2.rectangle(f, (40, 40), (120, 160), (255, 255, 255), -1)
    if hand_x is not None:
        cv2.circle(f, (hand_x, 120), 50, (90, 140, 200), -1)
    return f


def test_a_table_is_read_once_it_changed_and_settled_never_while_a_hand_moves():
    reads = []

    def read(frame):
        reads.append(int(frame[5, 5, 0]))
        n = 3 if frame[5, 5, 0] < 100 else 4
        return {"teams": {"A": team([["8H"] * n])}}

    w = Watcher(read, lambda layout: {"A": 10 * len(layout["teams"]["A"]["melds"][0])})
    events = []
    clip = [_frame(50)] * 5 + [_frame(50, x) for x in range(40, 300, 40)] + [_frame(50)] * 5 + [_frame(150)] * 8
    for k, f in enumerate(clip):
        events += w.step(k * 0.2, f)
    # read once when still at the start, not during the hand, not again when it left the same table, once after
    assert reads == [50, 150]
    assert [(e.text, e.totals) for e in events] == [("team A: new meld of 8s (3 cards)", {"A": 30}),
                                                    ("team A: meld of 8s grew to 4", {"A": 40})]


@pytest.mark.skipif(not __import__("vision.reader", fromlist=["DEFAULT_READER"]).DEFAULT_READER.is_file(),
                    reason="no shipped reader")
def test_watch_a_generated_round_on_the_command_line(anglo_deck, tmp_path, capsys):
    """A rendered table, a hand passing over it, a card added: the events, in order, and the final total."""
    from datasets.scenes import Pile, make_scene
    from handfoot.cli import main

    s1 = make_scene(7, [anglo_deck], size=(1024, 768), full_view=True, clutter=False,
                    piles=[Pile("meld", ["8H", "8S", "8D"]), Pile("meld", ["KH", "KS", "KD"])])
    s2 = make_scene(7, [anglo_deck], size=(1024, 768), full_view=True, clutter=False,
                    piles=[Pile("meld", ["8H", "8S", "8D", "8C"]), Pile("meld", ["KH", "KS", "KD"])])
    video = tmp_path / "round.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1024, 768))
    for _ in range(8):
        out.write(s1.image)
    for k in range(8):  # a hand over the table for 1.6 s
        f = s1.image.copy()
        cv2.ellipse(f, (100 + k * 110, 400), (120, 200), 20, 0, 360, (120, 160, 210), -1)
        out.write(f)
    for _ in range(8):
        out.write(s2.image)
    out.release()
    assert main(["watch", "--video", str(video), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    events = [(e["event"], e["t"]) for e in lines[:-1]]
    assert [e for e, _ in events] == ["team A: new meld of 8s (3 cards)", "team A: new meld of Ks (3 cards)",
                                      "team A: meld of 8s grew to 4"]
    assert all(t < 1.6 or t >= 3.2 for _, t in events)  # nothing while the hand moved
    assert {k: lines[2][k] for k in ("team", "kind", "rank", "count")} == \
        {"team": "A", "kind": "meld_grew", "rank": "8", "count": 4}
    assert lines[-1]["end"] and lines[-1]["reads"] == 2 and lines[-1]["totals"] == {"A": 70}


def test_watch_errors_are_one_line(tmp_path, capsys):
    from handfoot.cli import main

    (tmp_path / "notes.txt").write_text("not a video")
    for args, words in ((["--video", str(tmp_path / "none.mp4")], "no such video file"),
                        (["--video", str(tmp_path / "notes.txt")], "not a video this computer can read"),
                        ([], "give --video FILE or --camera INDEX"),
                        (["--video", "x.avi", "--camera", "0"], "give only one of --video FILE or --camera")):
        assert main(["watch", *args]) == 1
        assert words in capsys.readouterr().err


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
