#!/usr/bin/env python3
"""How ``handfoot watch`` keeps up: frames per second on a still table, the delay from a change to its event, and
the CPU a still table costs.

    python scripts/bench_watch.py [--photo examples/table.jpg] [--fps 15] [--seconds 6]

Builds a 1280x720 round from the photo (still; a hand passes; a card's corner covered with table colour and
uncovered again, two changes), then (1) runs the watcher over every frame as fast as it goes: frames per second of
the frame comparison on a still table, and the readings' time; (2) replays it in real time at ``--fps`` and
measures the wall-clock delay from each change's first frame to its event, and the process's CPU use over the
still stretches (the share of one core). One run, on a shared machine: noisy.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    from handfoot import app, watch
    from scripts.bench_vision import _fit

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photo", type=Path, default=ROOT / "examples" / "table.jpg")
    ap.add_argument("--fps", type=float, default=15.0)
    ap.add_argument("--seconds", type=float, default=6.0, help="length of each still stretch")
    args = ap.parse_args(argv)
    table = _fit(cv2.imread(str(args.photo)), 1280, 720)
    models = app.load_models()
    read, score = watch.table_reader(models)
    covered = table.copy()  # a pile taken away: its indices covered with the table's colour
    first = read(table).layout["teams"]["A"]
    from vision.pipeline import detect, read_indices

    dets, _ = read_indices(detect(table, models.detector, models.reader))
    x1, y1, x2, y2 = dets.xyxy[0]
    size = max(x2 - x1, y2 - y1)
    cv2.rectangle(covered, (int(x1 - 3 * size), int(y1 - 3 * size)), (int(x2 + 3 * size), int(y2 + 3 * size)),
                  tuple(int(v) for v in table[5, 5]), -1)
    print(f"table: {sum(len(m) for m in first['melds'])} melded cards read; a pile around {dets.codes[0]} covered")
    n = int(args.seconds * args.fps)
    hand = [cv2.circle(table.copy(), (100 + 60 * k, 360), 120, (90, 140, 200), -1) for k in range(int(args.fps))]
    clip = [table] * n + hand + [table] * n + [covered] * n + [table] * n
    changes = {n + len(hand) + n, n + len(hand) + 2 * n}  # first frames of the two changes

    read_s = []

    def timed_read(frame):
        start = time.perf_counter()
        try:
            return read(frame)
        finally:
            read_s.append(time.perf_counter() - start)

    w = watch.Watcher(timed_read, score)
    compare = []  # the steps that read nothing: the frame comparison alone
    for k, frame in enumerate(clip):
        start, reads = time.perf_counter(), len(read_s)
        w.step(k / args.fps, frame)
        if len(read_s) == reads:
            compare.append(time.perf_counter() - start)
    print(f"1280x720, {len(clip)} frames: frame comparison {1 / statistics.median(compare):.0f} frames/s "
          f"(median {1000 * statistics.median(compare):.1f} ms); {len(read_s)} readings, median "
          f"{statistics.median(read_s):.2f} s")

    w = watch.Watcher(read, score)
    delays, still_cpu, still_wall = [], 0.0, 0.0
    start, pending = time.monotonic(), None
    for k, frame in enumerate(clip):
        due = start + k / args.fps
        time.sleep(max(0.0, due - time.monotonic()))
        if k in changes:
            pending = time.monotonic()
        c0 = cpu()
        events = w.step(k / args.fps, frame)
        if events and pending is not None:
            delays.append(time.monotonic() - pending)
            pending = None
        if args.fps * 2 < k < n:  # the first still stretch, after its reading: one frame period each
            still_cpu += cpu() - c0
            still_wall += 1 / args.fps
    print(f"real time at {args.fps:.0f} fps: change to event {', '.join(f'{d:.2f}' for d in delays)} s "
          f"(median {statistics.median(delays) if delays else float('nan'):.2f} s); a still table uses "
          f"{100 * still_cpu / max(still_wall, 1e-9):.1f} % of one core")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
