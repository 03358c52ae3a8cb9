#!/usr/bin/env python3
"""How much a deck profile (``vision.decks``) helps: learn from k tables of one design, read other tables of it.

    python -m datasets.generate --out data/deck_orell_learn --scenes 20 --split val --seed 11 --designs orell --full-view
    python -m datasets.generate --out data/deck_orell_test --scenes 100 --split val --seed 12 --designs orell --full-view
    python scripts/evaluate_decks.py --learn data/deck_orell_learn/scenes/val --test data/deck_orell_test/scenes/val --k 5 10 20
    python scripts/evaluate_decks.py --phone --k 10 30      # real photos: phone_corners train -> val

The examples are the learn tables' true index boxes and codes (what a user's corrected photos give). For each k,
a profile is learned from the first k tables and the test tables' true index boxes are read with the stock reader
and with the profile: the share read right by rank and colour (what the score needs) and by code; also the
learning time and the profile's check figures. ``--examples FILE.jsonl`` writes the learn tables as an examples
file too (the form ``handfoot deck learn`` reads).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.scene_labels import true_detections  # noqa: E402
from vision.classes import rank_colour  # noqa: E402
from vision.classes import reading  # noqa: E402
from vision.decks import Example, ProfileRefusedError, learn  # noqa: E402
from vision.images import load_image  # noqa: E402
from vision.models.reader import IndexReader  # noqa: E402


def tables(folder: Path) -> list[tuple[Path, object]]:
    """(image path, true detections) of every generated table in ``folder`` (``images/``, ``layouts/``)."""
    out = []
    for p in sorted((folder / "layouts").glob("*.json")):
        doc = json.loads(p.read_text())
        dets, _ = true_detections(doc)
        if len(dets):
            out.append((folder / "images" / doc["image"], dets))
    return out


def phone_tables(split: str) -> list[tuple[Path, object]]:
    """(image path, true detections) of the ``phone_corners`` photos of one split (``../shared/realdata``)."""
    import cv2

    from datasets.realdata import phone_corners, phone_corners_classes, phone_corners_labels
    from vision.types import Detections

    names = phone_corners_classes()
    out = []
    for photo in phone_corners(split=split):
        rows = phone_corners_labels(photo, names)
        if rows:
            h, w = cv2.imread(str(photo.path)).shape[:2]
            out.append((photo.path, Detections.from_yolo(rows, w, h)))
    return out


def read_right(reader: IndexReader, test: list, negative: bool = False) -> tuple[float, float]:
    """(share of the test tables' true indices read right by rank and colour, by code); each photo's negative
    read when ``negative``."""
    right = exact = total = 0
    for path, dets in test:
        image = load_image(path)
        codes, _ = reading(*reader.probabilities(255 - image if negative else image, dets.xyxy))
        for got, true in zip(codes, dets.codes):
            total += 1
            exact += got == true
            right += got is not None and rank_colour(got) == rank_colour(true)
    return right / max(1, total), exact / max(1, total)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--learn", type=Path, help="generated tables to learn from (scenes/val of datasets.generate)")
    ap.add_argument("--test", type=Path, help="generated tables of the same design to read")
    ap.add_argument("--phone", action="store_true",
                    help="instead: learn from the first k phone_corners train photos, read its val split")
    ap.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])
    ap.add_argument("--limit", type=int, help="read only this many test tables")
    ap.add_argument("--examples", type=Path, help="also write the learn tables as an examples file (JSON lines)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--save", type=Path, metavar="DIR",
                    help="keep each profile there as kK.npz (scripts/evaluate_layout.py --deck DIR/k10.npz reads with it)")
    args = ap.parse_args(argv)
    if not args.phone and not (args.learn and args.test):
        ap.error("give --learn and --test, or --phone")
    reader = IndexReader()
    if args.phone:
        learn_tables, test = phone_tables("train"), phone_tables("val")[: args.limit]
        args.test = Path("phone_corners val")
    else:
        learn_tables, test = tables(args.learn), tables(args.test)[: args.limit]
    if args.examples:
        with args.examples.open("w") as f:
            for path, dets in learn_tables:
                f.write(json.dumps({"image": str(path.resolve()), "detections": dets.to_list()}) + "\n")
    stock = read_right(reader, test)
    n = sum(len(d) for _, d in test)
    print(f"{len(test)} test tables ({n} indices) of {args.test}: stock reader {stock[0]:.3f} by rank and colour, "
          f"{stock[1]:.3f} by code")
    figures = {"test_tables": len(test), "indices": n, "stock": {"rank_colour": stock[0], "code": stock[1]}}
    for k in args.k:
        examples = [Example(p, d.xyxy, tuple(d.codes)) for p, d in learn_tables[:k]]
        start = time.perf_counter()
        try:
            profile = learn(examples, reader, f"k{k}")
        except ProfileRefusedError as exc:
            print(f"  k={k:>2}: refused ({exc})")
            figures[f"k{k}"] = {"refused": str(exc)}
            continue
        seconds = time.perf_counter() - start
        if args.save:
            profile.save(args.save)
        got = read_right(reader.with_heads(profile.heads), test, profile.negative)
        print(f"  k={k:>2} ({profile.indices} example indices{', read as negatives' if profile.negative else ''}, "
              f"learned in {seconds:.0f} s; check photos "
              f"{profile.check['stock']:.3f} -> {profile.check['profile']:.3f}): {got[0]:.3f} by rank and colour, "
              f"{got[1]:.3f} by code")
        figures[f"k{k}"] = {"rank_colour": got[0], "code": got[1], "seconds": seconds, "check": profile.check,
                            "negative": profile.negative}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
