#!/usr/bin/env python3
"""Where a deck profile loses the cards of the ``decks_dev`` photos it did not learn from.

    HANDFOOT_REALDATA=../shared/realdata python scripts/deck_breakdown.py --deck webcam_white --k 20 5

A profile is learned from the first k photos (as ``scripts/evaluate_learning.py`` does, its defaults) and the
other photos are read the runtime way (pyramid, reader, fans) at the reading floor. Printed:

* per true corner index (the labels): no detector box on it (best IoU under ``--iou``); boxed but the reader's
  likeliest code of that box wrong (rank, or suit of the right colour, or colour); boxed and right but not read
  at the floor (under it, or dropped by the fans' settling); read right;
* per true card of each photo's card set: read (some box reads it at the floor), else the best its corners got
  (a corner read right whose code is still missing: lost after the reading; right under the floor; wrong; no
  box; no labelled corner at all);
* per false card read (a code not in the photo's set): the box it came from lies on a true index read wrong
  (rank wrong / suit wrong, colour right / colour wrong), or on no true index (a false box).

The detector's box of a true index is the one of best IoU (the detector frames an index larger than the labels).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import numpy as np  # noqa: E402

from datasets import realdata  # noqa: E402
from evaluate_learning import CachedDetector, truth  # noqa: E402
from vision.classes import reading  # noqa: E402
from vision.config import DEFAULT  # noqa: E402
from vision.decks import Example, learn  # noqa: E402
from vision.images import load_photo  # noqa: E402
from vision.models.reader import IndexReader  # noqa: E402
from vision.models.detector import CardDetector  # noqa: E402
from vision.pipeline import detect, read_indices  # noqa: E402
from vision.types import box_iou  # noqa: E402


def colour(code: str) -> str:
    return "red" if code[-1] in "HD" else "black"


def wrong_kind(got: str | None, true: str) -> str:
    """How a code read differs from the true one."""
    if got is None:
        return "read as no index"
    if got[:-1] != true[:-1]:
        return "rank wrong"
    return "suit wrong, colour right" if colour(got) == colour(true) else "colour wrong"


def breakdown(photos, boxes, detector, reader, conf: float, iou: float) -> dict[str, Counter]:
    """The three tallies (true indices, true cards, false cards) of ``photos`` read with (detector, reader)."""
    config = DEFAULT.replace(**{"reading.min_conf": conf})
    idx, cards, false = Counter(), Counter(), Counter()
    for photo, true in zip(photos, boxes):
        found = detect(load_photo(photo.path), detector, reader, config)
        read, _ = read_indices(found, True, config)
        kept = read.confidence >= conf
        read_set = set(c for c, k in zip(read.codes, kept) if k and c)
        codes, _ = reading(found.data["rank_p"], found.data["suit_p"]) if len(found) else ([], None)
        ov = box_iou(true.xyxy, found.xyxy) if len(found) and len(true) else np.zeros((len(true), len(found)))
        ov_read = box_iou(true.xyxy, read.xyxy) if len(read) and len(true) else np.zeros((len(true), len(read)))
        state = {}  # true index -> its category
        for i, code in enumerate(true.codes):
            if not ov.shape[1] or ov[i].max() < iou:
                state[i] = "no box"
                continue
            j = int(ov[i].argmax())
            if codes[j] != code:
                state[i] = "boxed, " + wrong_kind(codes[j], code)
                continue
            hit = ov_read.shape[1] and ov_read[i].max() >= iou
            r = int(ov_read[i].argmax()) if hit else -1
            if hit and read.codes[r] == code and read.confidence[r] >= conf:
                state[i] = "read right"
            elif hit and read.codes[r] == code:
                state[i] = "right, under the floor"
            elif hit:
                state[i] = "right, changed by the fans to " + wrong_kind(read.codes[r], code).split(",")[0]
            else:
                state[i] = "right, under the floor"
        idx.update(state.values())
        order = ["read right", "right, under the floor", "right, changed", "boxed, ", "no box"]
        for card in photo.cards:
            if card in read_set:
                cards["read"] += 1
                continue
            got = [state[i] for i, c in enumerate(true.codes) if c == card]
            if not got:
                cards["lost: no labelled corner"] += 1
                continue
            best = min(got, key=lambda s: next(n for n, o in enumerate(order) if s.startswith(o)))
            if best == "read right":
                best = "a corner read right, code missing"
            cards["lost: " + (best.split(" to ")[0] if best.startswith("right, changed") else best)] += 1
        for code, c, box in zip(read.codes, read.confidence, read.xyxy):
            if c < conf or not code or code in photo.cards:
                continue
            o = box_iou(box[None], true.xyxy)[0] if len(true) else np.zeros(0)
            if not len(o) or o.max() < iou:
                false["on no true index"] += 1
            else:
                t = true.codes[int(o.argmax())]
                false["on a true index, " + wrong_kind(code, t) + (" (its code read elsewhere)" if t in read_set else "")] += 1
    return {"true indices": idx, "true cards": cards, "false cards": false}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deck", default="webcam_white")
    ap.add_argument("--k", type=int, nargs="+", default=[20, 5])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--conf", type=float, default=DEFAULT.reading.min_conf)
    ap.add_argument("--iou", type=float, default=0.2, help="a detector box on a true index: IoU at least this")
    args = ap.parse_args(argv)
    photos = realdata.decks_dev(args.deck)
    boxes = [truth(p) for p in photos]
    detector, reader = CachedDetector(CardDetector()), IndexReader()
    for k in args.k:
        examples = [Example(p.path, b.xyxy, tuple(b.codes)) for p, b in zip(photos[:k], boxes[:k]) if len(b)]
        profile = learn(examples, reader, f"breakdown_k{k}", detector=detector, seed=args.seed)
        rows = [("stock", (detector, reader)), ("profile", profile.models(detector, reader))]
        for label, (det, rdr) in rows:
            got = breakdown(photos[k:], boxes[k:], det, rdr, args.conf, args.iou)
            print(f"{args.deck} k={k} {label} ({len(photos) - k} photos read):")
            for what, tally in got.items():
                total = sum(tally.values())
                print(f"  {what} ({total}): " + "; ".join(f"{n} {v} ({v / max(total, 1):.0%})"
                                                          for n, v in tally.most_common()))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
