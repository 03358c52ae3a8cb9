#!/usr/bin/env python3
"""Compare pyramid settings (``vision.config.Pyramid``) without running the detector once per setting.

    python scripts/pyramid_study.py passes data/tables_hdev/scenes/val/images data/study/hdev
    python scripts/pyramid_study.py replay data/tables_hdev/scenes/val/images data/study/hdev data/study/hdev_t32 \\
        pyramid.target_index=32 pyramid.min_step=1.25
    python scripts/evaluate_layout.py --scenes data/tables_hdev/scenes/val --cache data/study/hdev_t32

``passes`` runs the detector on every photo of a folder at the long sides a setting may ask for (its own size,
a half, a quarter, 640, 960, 1280, 1920 and 2560 px, up to twice the photo) down to
:attr:`vision.config.Reading.candidate_conf` and keeps each pass (one ``.npz`` a photo). ``replay`` runs
``vision.scales.find_boxes`` with the given settings on those kept passes (a pass not kept is run then and kept
too), reads the boxes with the index reader and writes the stage-1 cache ``evaluate_layout.py --cache`` reads: the
figures of a setting in minutes, and exactly what a live run would give. It prints how many photos got which
passes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.config import DEFAULT  # noqa: E402
from vision.images import load_image  # noqa: E402
from vision.pipeline import load_models  # noqa: E402
from vision.scales import box_conf, find_boxes  # noqa: E402
from vision.types import Detections  # noqa: E402


def pass_sides(long: int) -> list[int]:
    """The long sides (px) kept for a photo whose long side is ``long``."""
    own = [long // 32 * 32, (long // 2 + 31) // 32 * 32, (long // 4 + 31) // 32 * 32]
    return sorted(s for s in set(own + [640, 960, 1280, 1920, 2560]) if s <= 2 * long)


class KeptPasses:
    """A detector answering from kept passes (``passes``), running and keeping a pass it does not have."""

    names_cards, fixed_size = False, None

    def __init__(self, detector, path: Path):
        self.detector, self.path, self.calls = detector, path, []
        self.kept = dict(np.load(path)) if path.is_file() else {}

    def __call__(self, image: np.ndarray, side: int, floor: float) -> Detections:
        self.calls.append(side)
        if f"xyxy_{side}" not in self.kept:
            det = self.detector(image, side, DEFAULT.reading.candidate_conf)
            self.kept |= {f"xyxy_{side}": det.xyxy, f"conf_{side}": det.confidence}
            np.savez_compressed(self.path, **self.kept)
        xyxy, conf = self.kept[f"xyxy_{side}"], self.kept[f"conf_{side}"]
        keep = conf >= floor
        return Detections(xyxy[keep], conf[keep], np.zeros(int(keep.sum()), np.int64))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("passes")
    p.add_argument("images", type=Path)
    p.add_argument("kept", type=Path)
    r = sub.add_parser("replay")
    r.add_argument("images", type=Path)
    r.add_argument("kept", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("settings", nargs="*", metavar="SECTION.FIELD=VALUE")
    args = ap.parse_args(argv)
    detector, reader = load_models()
    photos = sorted(q for q in args.images.iterdir() if q.suffix.lower() in (".jpg", ".jpeg", ".png"))
    args.kept.mkdir(parents=True, exist_ok=True)
    if args.command == "passes":
        for photo in photos:
            image = load_image(photo)
            kept = KeptPasses(detector, args.kept / f"{photo.stem}.npz")
            for side in pass_sides(max(image.shape[:2])):
                kept(image, side, 1.0)
        print(f"{len(photos)} photos' passes kept in {args.kept}")
        return 0
    config = DEFAULT.replace(**{k: json.loads(v) for k, _, v in (s.partition("=") for s in args.settings)})
    args.out.mkdir(parents=True, exist_ok=True)
    sure, used = box_conf(detector, reader, config), Counter()
    for photo in photos:
        image = load_image(photo)
        kept = KeptPasses(detector, args.kept / f"{photo.stem}.npz")
        found = find_boxes(kept, image, sure, min(sure, config.reading.candidate_conf), True, config)
        rank_p, suit_p = reader.probabilities(image, found.xyxy)
        Detections(found.xyxy, found.confidence, found.class_id, {"rank_p": rank_p, "suit_p": suit_p}).save(
            args.out / f"{photo.stem}.npz")
        used[tuple(kept.calls)] += 1
    print(f"{len(photos)} photos -> {args.out}; passes (long sides): "
          + ", ".join(f"{list(k)} x {v}" for k, v in used.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
