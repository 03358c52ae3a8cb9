#!/usr/bin/env python3
"""The learning curve of deck profiles (``vision.decks``) on real photos of decks the shipped models never saw.

    python scripts/evaluate_learning.py                         # both decks_dev decks, k = 5 10 20 (30 black)
    python scripts/evaluate_learning.py --decks webcam_white --k 5 20 --json fig.json
    python scripts/evaluate_learning.py --compare --seeds 0 1 2   # each row without and with the frame correction

For each deck of ``../shared/realdata/decks_dev`` (photos sorted by file name) and each k, a profile is learned
from the first k photos' true index boxes and codes (what a family's corrected photos give) and the other photos
are read, as the issue's protocol says. Printed per deck and k: the time to learn, the profile's check figures,
and on the photos not learned from, with the stock models and with the profile: per-photo card-set precision and
recall at the reading floor (``--conf``, default the pipeline's 0.35) against ``cardsets.csv``, and the share of the
true index boxes read right by rank and colour (what the score needs; read without the profile's frame correction,
which frames the detector's boxes as the labels do, and without its test-time copies of each box). The detector's passes are cached across
profiles (a profile reading its photos as negatives looks at other pixels, so it is cached apart).
``--variant LABEL:NAME=VALUE[;NAME=VALUE]`` reads the photos again with each row's profile changed so (a field of
``vision.deck_profiles.DeckProfile``: ``jitter="both"``, test-time copies, ``vision.models.reader.Jitter.of``) or the pipeline's
configuration changed so (a dotted ``vision.config`` field, stock and learned alike), and prints that line too.
``--compare`` learns each row twice, without the deck's frame correction (``frame=False``) and with it (the
default, ``vision.deck_frames``), and prints both, with the F1 of the card sets at the first floor; ``--seeds``
learns each row with each seed of ``vision.decks.learn`` (its jittered copies).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from datasets import realdata  # noqa: E402
from vision.classes import rank_colour  # noqa: E402
from vision.classes import reading  # noqa: E402
from vision.config import DEFAULT  # noqa: E402
from vision.decks import Example, ExamplesError, ProfileRefusedError, learn  # noqa: E402
from vision.images import load_photo  # noqa: E402
from vision.instances import agree_suits  # noqa: E402
from vision.models.reader import IndexReader  # noqa: E402
from vision.models.detector import CardDetector  # noqa: E402
from vision.pipeline import detect as detect_boxes, read_indices  # noqa: E402
from vision.types import Detections  # noqa: E402

DECKS = {"webcam_white": (5, 10, 20), "blackgold": (5, 10, 20, 30)}


class CachedDetector:
    """``detector`` remembering its answers by (pixels, size, floor): the pyramid's passes of one photo are the
    same whatever heads read the boxes."""

    def __init__(self, detector: CardDetector):
        self.detector, self.memo = detector, {}

    def __call__(self, image: np.ndarray, imgsz: int | None = None, conf: float | None = None) -> Detections:
        key = (hashlib.md5(np.ascontiguousarray(image).data).hexdigest(), image.shape, imgsz, conf)
        if key not in self.memo:
            self.memo[key] = self.detector(image, imgsz, conf)
        return self.memo[key]

    def __getattr__(self, name: str):
        return getattr(self.detector, name)


def truth(photo: realdata.Photo) -> Detections:
    """The photo's true corner-index boxes (``BACK`` dropped)."""
    import cv2

    rows = realdata.phone_corners_labels(photo, realdata.phone_corners_classes())
    h, w = cv2.imread(str(photo.path)).shape[:2]
    return Detections.from_yolo(rows, w, h)


#: read card sets as the app does: a card's two corners' suits agreed (``vision.instances.agree_suits``, stage 2)
#: after the indices are read; False (``--indices-only``): the indices as read, the figures of sessions before 27
AGREE = True


def read_sets(photos, detector, reader, conf: float, settings: dict | None = None) -> list[dict[str, float]]:
    """Each photo's cards read at the floor ``conf`` (the runtime path: pyramid, reader, fans, and with ``AGREE``
    the suits of a card's two corners agreed; the configuration changed by ``settings``, dotted names), with the
    highest confidence each was read at."""
    config = DEFAULT.replace(**{"reading.min_conf": conf, **(settings or {})})
    out = []
    for photo in photos:
        found = detect_boxes(load_photo(photo.path), detector, reader, config)
        read, _ = read_indices(found, not getattr(detector, "names_cards", False), config)
        if AGREE and len(read) and "suit_p" in read.data:
            read = agree_suits(read, read.data["suit_p"], config=config)
        best: dict[str, float] = {}
        for code, c in zip(read.codes, read.confidence):
            best[code] = max(best.get(code, 0.0), float(c))
        out.append(best)
    return out


def set_pr(read: list[dict[str, float]], photos, conf: float) -> tuple[float, float]:
    """Micro precision and recall of the card sets read at ``conf`` or more against the photos' true sets."""
    got = [{c for c, p in r.items() if p >= conf} for r in read]
    tp = sum(len(g & p.cards) for g, p in zip(got, photos))
    return tp / max(1, sum(len(g) for g in got)), tp / max(1, sum(len(p.cards) for p in photos))


def true_box_recall(photos, boxes, reader, negative: bool) -> float:
    """Share of the photos' true index boxes read right by rank and colour (each photo's negative when
    ``negative``)."""
    right = total = 0
    for photo, dets in zip(photos, boxes):
        if not len(dets):
            continue
        image = load_photo(photo.path)
        codes, _ = reading(*reader.probabilities(255 - image if negative else image, dets.xyxy))
        for got, true in zip(codes, dets.codes):
            total += 1
            right += got is not None and rank_colour(got) == rank_colour(true)
    return right / max(1, total)


def glyph_note(profile) -> str:
    """The glyph reader's weight and the check's figure per weight (``vision.deck_glyphs.weigh``), when learned."""
    got = profile.check.get("glyphs")
    return f"  glyphs weight {got['weight']} (check {got['scores']})" if got else ""


def parse_variant(text: str) -> tuple[str, dict, dict]:
    """``LABEL:NAME=VALUE[;NAME=VALUE]`` -> (label, profile fields, configuration fields); values are JSON."""
    label, _, rest = text.partition(":")
    fields, settings = {}, {}
    for item in filter(None, rest.split(";")):
        name, _, value = item.partition("=")
        (settings if "." in name else fields)[name] = json.loads(value)
    return label, fields, settings


def variant_profile(profile, fields: dict):
    """``profile`` with its ``fields`` replaced (``jitter`` by name or copies: ``vision.models.reader.Jitter.of``)."""
    import dataclasses

    from vision.models.reader import Jitter

    return dataclasses.replace(profile, **{k: Jitter.of(v) if k == "jitter" else v for k, v in fields.items()})


def learn_row(tag: str, deck: str, k: int, examples: list, rest: list, rest_boxes: list, detector, reader,
              conf: list[float], found: bool, options: dict, row: dict, variants: list | None = None) -> dict:
    """Learn one profile from ``examples`` (``vision.decks.learn`` with ``options``; the check on the detector's
    boxes when ``found``), read ``rest`` with it (and with each of ``variants``, :func:`parse_variant`), print its
    lines (``tag`` first) and return ``row`` with its figures."""
    lo, hi = conf
    s0 = row["stock"]
    p0, r0, q0, t0 = s0["precision"], s0["recall"], s0["precision_hi"], s0["true_boxes"]
    start = time.perf_counter()
    try:
        profile = learn(examples, reader, f"{deck}_k{k}", detector=detector,  # as the app learns
                        **({"check_found": True} if found else {}), **options)
    except (ProfileRefusedError, ExamplesError) as exc:
        print(f"  {tag} refused: {exc}; stock sets {p0:.3f} / {r0:.3f}, {q0:.3f} / {s0['recall_hi']:.3f}, true "
              f"boxes {t0:.3f}")
        return {**row, "refused": str(exc)}
    seconds = time.perf_counter() - start
    det, rdr = profile.models(detector, reader)
    started = time.perf_counter()
    got = read_sets(rest, det, rdr, min(conf))
    read_s = time.perf_counter() - started
    (p1, r1), (q1, s1) = set_pr(got, rest, lo), set_pr(got, rest, hi)
    unframed = rdr.with_heads(rdr.heads, rdr.layers, rdr.window, rdr.glyphs,  # true boxes frame as the labels do
                              aspect=rdr.aspect, ink=rdr.ink)
    t1 = true_box_recall(rest, rest_boxes, unframed, profile.negative)
    f1 = 2 * p1 * r1 / max(p1 + r1, 1e-9)
    check = f"{profile.check.get('stock', 0):.2f}->{profile.check.get('profile', 0):.2f}"
    frame = profile.check.get("frame")
    print(f"  {tag} {seconds:>7.1f} {check:>11}  {p0:.3f} / {r0:.3f} -> {p1:.3f} / {r1:.3f} (F1 {f1:.3f});  "
          f"{q0:.3f} / {s0['recall_hi']:.3f} -> {q1:.3f} / {s1:.3f};  {t0:.3f} -> {t1:.3f}"
          f"{'  (negative)' if profile.negative else ''}"
          f"{f'  window {profile.window}' if profile.window else ''}"
          f"  aspect {profile.aspect:.3g} (stock on the examples {profile.check.get('aspects', {})})"
          f"{glyph_note(profile)}"
          f"{f'  frame {frame}' if frame else ''}  read {read_s:.1f} s", flush=True)
    out = {**row, "seconds": seconds, "read_seconds": read_s, "check": profile.check, "negative": profile.negative,
           "window": profile.window, "aspect": profile.aspect,
           "learned": {"precision": p1, "recall": r1, "f1": f1, "precision_hi": q1, "recall_hi": s1,
                       "true_boxes": t1}}
    for text in variants or []:
        label, fields, settings = parse_variant(text)
        det, rdr = variant_profile(profile, fields).models(detector, reader)
        started = time.perf_counter()
        got = read_sets(rest, det, rdr, min(conf), settings)
        vs = time.perf_counter() - started
        (pv, rv), (qv, sv) = set_pr(got, rest, lo), set_pr(got, rest, hi)
        fv = 2 * pv * rv / max(pv + rv, 1e-9)
        stock = ""
        if settings:  # the configuration changes the stock reading too
            sp, sr = set_pr(read_sets(rest, detector, reader, min(conf), settings), rest, lo)
            stock = f"  (stock so {sp:.3f} / {sr:.3f}, F1 {2 * sp * sr / max(sp + sr, 1e-9):.3f})"
        print(f"  {tag} +{label}: {pv:.3f} / {rv:.3f} (F1 {fv:.3f}, {100 * (fv - f1):+.1f});  {qv:.3f} / {sv:.3f};"
              f"  read {vs:.1f} s{stock}", flush=True)
        out[f"variant {label}"] = {"precision": pv, "recall": rv, "f1": fv, "precision_hi": qv, "recall_hi": sv,
                                   "read_seconds": vs}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decks", nargs="+", default=list(DECKS), choices=list(DECKS))
    ap.add_argument("--k", type=int, nargs="+", help="photos to learn from (default: 5 10 20, and 30 for blackgold)")
    ap.add_argument("--conf", type=float, nargs=2, default=[DEFAULT.reading.min_conf, 0.5],
                    help="card sets at these two floors (default the pipeline's 0.35, and 0.50)")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a keyword of vision.decks.learn (e.g. layers=0), to measure one lever alone; found=true: "
                         "check on the boxes the detector finds in the example photos (learn_found=true: learn on "
                         "them too); glyphs=true, glyphs=\"found\" or \"boxes\": the deck's own glyph reader "
                         "(vision.deck_glyphs), learned on the example boxes, or on the detector's boxes in the "
                         "example photos too (found: with \"no index\" on its sure boxes on none)")
    ap.add_argument("--window", type=float, help="an experiment: crop each index this many times its box's longer side "
                    "(vision.models.crops.WINDOW, 1.25), stock and learned alike")
    ap.add_argument("--compare", action="store_true", help="learn each row without the frame correction "
                    "(frame=false) and with it (the default), and print both")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="learn each row with each of these seeds "
                    "(default 0)")
    ap.add_argument("--variant", action="append", default=[], metavar="LABEL:NAME=VALUE[;NAME=VALUE]",
                    help="read again with each row's profile so changed (jitter=\"both\") or the configuration so "
                         "changed (a dotted vision.config field), and print that line too")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--indices-only", action="store_true",
                    help="card sets from the indices as read, without stage 2's suit agreement (figures before 2026-12-04)")
    args = ap.parse_args(argv)
    global AGREE
    AGREE = not args.indices_only
    options = {}
    for text in args.option:
        name, _, value = text.partition("=")
        options[name] = json.loads(value)
    try:
        realdata.decks_dev(args.decks[0])
    except FileNotFoundError:
        print(f"error: no decks_dev under {realdata.REALDATA} (set HANDFOOT_REALDATA)")
        return 1
    if args.window:
        import vision.models.crops

        vision.models.crops.WINDOW = args.window
    detector, reader = CachedDetector(CardDetector()), IndexReader()
    figures: dict = {"conf": args.conf, "options": options, "threads": os.environ.get("OMP_NUM_THREADS")}
    for deck in args.decks:
        photos = realdata.decks_dev(deck)
        boxes = [truth(p) for p in photos]
        stock_sets = read_sets(photos, detector, reader, min(args.conf))
        lo, hi = args.conf
        figures[deck] = {}
        print(f"{deck}: {len(photos)} photos, {sum(len(b) for b in boxes)} true indices, "
              f"{sum(len(p.cards) for p in photos)} cards")
        print(f"  {'k':>3} {'learn s':>7} {'check':>11}  card sets P / R at {lo:.2f}: stock -> learned;  at "
              f"{hi:.2f}: stock -> learned;  rank+colour R on true boxes: stock -> learned")
        for k in args.k or DECKS[deck]:
            rest, rest_boxes = photos[k:], boxes[k:]
            (p0, r0), (q0, s0) = set_pr(stock_sets[k:], rest, lo), set_pr(stock_sets[k:], rest, hi)
            t0 = true_box_recall(rest, rest_boxes, reader, False)
            row = {"photos_read": len(rest), "stock": {"precision": p0, "recall": r0, "precision_hi": q0,
                                                       "recall_hi": s0, "true_boxes": t0}}
            examples = [Example(p.path, b.xyxy, tuple(b.codes)) for p, b in zip(photos[:k], boxes[:k]) if len(b)]
            for seed in args.seeds:
                for label, extra in ((("off", {"frame": False}), ("on", {})) if args.compare else (("", {}),)):
                    tag = f"{k:>3}" + (f" s{seed}" if len(args.seeds) > 1 else "") + (f" {label:>3}" if label else "")
                    key = f"k{k}" + (f"_s{seed}" if len(args.seeds) > 1 else "") + (f"_{label}" if label else "")
                    learn_options = {**extra, **{o: v for o, v in options.items() if o != "found"}, "seed": seed}
                    figures[deck][key] = learn_row(tag, deck, k, examples, rest, rest_boxes, detector, reader,
                                                   args.conf, options.get("found", False), learn_options,
                                                   {**row, "stock": dict(row["stock"])}, args.variant)
        if args.json:  # after each deck: a long run's figures so far
            args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
