#!/usr/bin/env python3
"""How the live view keeps up, per inference backend: the picture's frames per second, the delay from a change on
the table to its event, and the CPU a still table costs.

    python scripts/bench_watch.py [--fps 30] [--size 1280x720] [--backends onnxruntime,openvino]

Writes a generated round (``datasets.round_video``, the ``anglo`` deck, eight changes, a hand crossing the table
before each) at ``--fps``, then for each backend (a process of its own, ``HANDFOOT_BACKEND``) plays it in real
time through a :class:`handfoot.live.LiveSession`, as ``handfoot watch --serve`` does, and reports:

- the live picture's frames per second (median and lowest of the session's one-second counts; while a reading
  runs, the picture goes on);
- change to event: from the first still frame of each new stage (the hand has left) to its first event in the
  session's state, wall clock, median and p95 over the changes that gave an event (a change misread as no change
  gives none: "n of 8");
- a still table's CPU: the process's CPU time over the last 3 s of each still stretch (its reading done), as a
  share of one core: with the page showing the picture (drawn and encoded), and with nobody looking (the video
  decoded and compared only, as the headless ``watch``).

One run on a shared machine: noisy. Quote figures from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def plan():
    """:data:`datasets.round_video.ROUND` and four more changes: a meld of 5s laid and grown, a second red three,
    a fifth 8 (nine stages; at the end team A has 840)."""
    from datasets.round_video import Round
    from datasets.scene_piles import Pile

    piles = (Pile("meld", ["8H", "8S", "8D", "8C", "8H"]), Pile("meld", ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]),
             Pile("squared", ["KH", "KS", "KD", "KC", "KH", "KS", "KD"], "KD"), Pile("red_threes", ["3H", "3D"]),
             Pile("meld", ["5H", "5S", "5D", "5C"]))
    return Round(piles, ((3, 6, 0, 0, 0), (4, 6, 0, 0, 0), (4, 7, 0, 0, 0), (4, 0, 7, 0, 0), (4, 0, 7, 1, 0),
                         (4, 0, 7, 1, 3), (4, 0, 7, 1, 4), (4, 0, 7, 2, 4), (5, 0, 7, 2, 4)))


def measure(video: Path, timeline: dict, watched: bool) -> dict:
    """One backend, in this process: the live session over ``video`` played in real time, its picture asked for
    every 50 ms when ``watched`` (the page open), else never (nobody looking: no picture is made)."""
    from handfoot import core, live, photo_request

    models = core.load_models()
    stages = timeline["stages"]
    stills = list(zip(stages, stages[1:] + [timeline["end"]]))
    session = live.start(str(video), models, photo_request.PhotoRequest())
    t0 = time.monotonic()
    fps, events_at, cpu_marks = [], [], {}
    seen = 0
    while session.running:
        now = time.monotonic() - t0
        if watched:
            session.jpeg(wait=0)
        state = session.state()
        if state["fps"]:
            fps.append(state["fps"])
        if len(state["events"]) > seen:
            events_at += [now] * (len(state["events"]) - seen)
            seen = len(state["events"])
        for k, (a, b) in enumerate(stills):
            for mark in (b - 3.0, b - 0.2):
                if (k, mark) not in cpu_marks and now >= mark:
                    cpu_marks[(k, mark)] = (now, cpu())
        time.sleep(0.05)
    state = session.state()
    session.stop()
    delays = []  # each change's first event within its own stage (a change read as no change has none)
    for a, b in stills[1:]:
        mine = [e for e in events_at if a <= e < b]
        if mine:
            delays.append(mine[0] - a)
    used = wall = 0.0
    for k, (a, b) in enumerate(stills):
        if (k, b - 3.0) in cpu_marks and (k, b - 0.2) in cpu_marks:
            (w0, c0), (w1, c1) = cpu_marks[(k, b - 3.0)], cpu_marks[(k, b - 0.2)]
            used, wall = used + c1 - c0, wall + w1 - w0
    return {"fps_median": statistics.median(fps[2:]) if len(fps) > 2 else 0.0, "fps_min": min(fps[2:], default=0.0),
            "delays": delays, "still_cpu": used / wall if wall else float("nan"), "reads": state["reads"],
            "events": len(state["events"]), "totals": state["totals"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fps", type=float, default=30.0, help="the video's frames per second (default 30)")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--backends", default="onnxruntime,openvino")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure VIDEO::TIMELINE_JSON::WATCHED here
    args = ap.parse_args(argv)
    if args.one:
        video, timeline, watched = args.one.split("::")
        print(json.dumps(measure(Path(video), json.loads(timeline), watched == "1")))
        return 0
    from datasets.cardart import load_deck
    from datasets.round_video import round_video

    w, h = (int(v) for v in args.size.lower().split("x"))
    folder = Path(tempfile.mkdtemp(prefix="bench_watch_"))
    video = folder / "round.avi"
    t = round_video(video, [load_deck("anglo")], plan(), size=(w, h), fps=args.fps, still=5.0)
    timeline = json.dumps({"stages": t.stages, "end": t.frames / args.fps})
    print(f"{args.size} at {args.fps:.0f} fps, {t.frames} frames ({t.frames / args.fps:.0f} s), "
          f"{len(t.stages) - 1} changes; {os.cpu_count()} CPUs")
    for backend in args.backends.split(","):
        env = {**os.environ, "HANDFOOT_BACKEND": backend}
        out = {}
        for watched in ("1", "0"):
            run = subprocess.run([sys.executable, __file__, "--one", f"{video}::{timeline}::{watched}"], env=env,
                                 capture_output=True, text=True)
            if run.returncode:
                print(f"{backend}: failed: {run.stderr.strip().splitlines()[-1:]}")
                break
            out[watched] = json.loads(run.stdout.strip().splitlines()[-1])
        else:
            r, hl = out["1"], out["0"]
            d = sorted(r["delays"])
            p95 = d[min(len(d) - 1, round(0.95 * (len(d) - 1)))] if d else float("nan")
            print(f"{backend}: live picture {r['fps_median']:.1f} frames/s (lowest {r['fps_min']:.1f}); change to "
                  f"event median {statistics.median(d) if d else float('nan'):.2f} s, p95 {p95:.2f} s "
                  f"({len(d)} of {len(t.stages) - 1} changes, {r['reads']} readings, totals {r['totals']}); "
                  f"still table {100 * r['still_cpu']:.0f} % of one core with the picture, "
                  f"{100 * hl['still_cpu']:.1f} % with nobody looking", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
