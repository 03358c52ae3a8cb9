"""Where a held-out table's fans are lost, stage by stage: stage-1 caches with one stage made true, for
``scripts/evaluate_layout.py --cache`` to read.

    python scripts/stage_caches.py --scenes data/tables_hdev/scenes/val --cache data/cache/hdev --out data/cache/hdev
    python scripts/evaluate_layout.py --scenes data/tables_hdev/scenes/val --cache data/cache/hdev_boxes
    python scripts/evaluate_layout.py --scenes data/tables_hdev/scenes/val --cache data/cache/hdev_jokers

Writes, from a scene folder (``images/``, ``layouts/``) and the models' cache of it (``--cache``, as
``evaluate_layout.py --cache`` keeps it):

* ``OUT_boxes``: every true index box (confidence 0.9) read by the shipped index reader: the detector's part
  removed, the reader's kept;
* ``OUT_jokers``: the models' boxes, with every true joker index boxed (0.9) and read as a joker (P 1) in place of
  any box over it: what the jokers cost;
* ``OUT_sure``: the models' boxes, each box that best covers a true index (IoU 0.3) and whose likeliest rank the
  reader gets right made sure (confidence 0.9, its rank and suit at P 1): what the reading floor costs;
* ``OUT_codes``: the models' boxes, each box that best covers a true index read as its true code (P 1), the
  detector's confidence kept: a perfect reader behind the shipped detector.

and prints the reader's rank read right on the true boxes by the box's longer side (pixels) and by deck design.
Models unchanged; nothing is tuned here.
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

from datasets.scene_labels import true_detections  # noqa: E402
from vision.classes import RANK_JOKER, RANKS  # noqa: E402
from vision.images import load_image  # noqa: E402
from vision.pipeline import load_models  # noqa: E402
from vision.types import Detections, box_iou  # noqa: E402

#: the edges of the size bins the reader's figures are printed by (pixels, a box's longer side)
SIZES = (0, 12, 16, 20, 25, 32, 45, 10_000)


def _cards(doc: dict) -> tuple[np.ndarray, list[str]]:
    """(n, 4) xyxy true index boxes of a layout document and the rank of each (``JK`` for a joker)."""
    boxes, ranks = [], []
    for card in doc["cards"]:
        for b in card["index_boxes_px"]:
            boxes.append(b)
            ranks.append("JK" if card["code"] == "JK" else card["code"][:-1])
    return np.array(boxes, np.float32).reshape(-1, 4), ranks


def true_boxes_read(image: np.ndarray, boxes: np.ndarray, reader) -> Detections:
    """The true ``boxes`` at confidence 0.9, with the reader's probabilities of each."""
    rank_p, suit_p = reader.probabilities(image, boxes)
    n = len(boxes)
    return Detections(boxes, np.full(n, 0.9, np.float32), np.zeros(n, np.int64),
                      {"rank_p": rank_p.astype(np.float32), "suit_p": suit_p.astype(np.float32)})


def true_jokers(found: Detections, jokers: np.ndarray) -> Detections:
    """``found`` with every box over a true joker index (IoU 0.3) replaced by that index, read as a joker."""
    keep = np.ones(len(found), bool)
    if len(jokers) and len(found):
        keep = box_iou(np.asarray(found.xyxy, np.float32), jokers).max(1) < 0.3
    n = len(jokers)
    rank_p = np.zeros((n, len(RANKS)), np.float32)
    rank_p[:, RANK_JOKER] = 1
    joker = Detections(jokers, np.full(n, 0.9, np.float32), np.zeros(n, np.int64),
                       {"rank_p": rank_p, "suit_p": np.full((n, 4), 0.25, np.float32)})
    kept = found[keep]
    kept = Detections(kept.xyxy, kept.confidence, kept.class_id, {k: kept.data[k] for k in ("rank_p", "suit_p")})
    return Detections.merge([kept, joker])


def true_codes(found: Detections, doc: dict, *, sure_only: bool) -> Detections:
    """``found`` with the box that best covers each true index (IoU 0.3 or more; one box an index) read as its
    card's code at P 1; ``sure_only``: only the boxes whose likeliest rank the reader already gets right, made
    sure (detector confidence 0.9) as well."""
    conf = found.confidence.copy()
    rank_p, suit_p = found.data["rank_p"].copy(), found.data["suit_p"].copy()
    truth, owner = true_detections(doc)
    if len(found) and len(truth):
        iou = box_iou(np.asarray(found.xyxy, np.float32), truth.xyxy)
        best, taken = iou.argmax(1), set()
        for i in np.argsort(-iou.max(1)):
            if iou[i, best[i]] < 0.3 or best[i] in taken:
                continue
            taken.add(best[i])
            code = doc["cards"][owner[best[i]]]["code"]
            rank = RANKS.index("JK" if code == "JK" else code[:-1])
            if sure_only and int(rank_p[i].argmax()) != rank:
                continue
            if sure_only:
                conf[i] = max(conf[i], 0.9)
            rank_p[i] = 0
            rank_p[i, rank] = 1
            if code != "JK":
                suit_p[i] = 0
                suit_p[i, "CDHS".index(code[-1])] = 1
    return Detections(found.xyxy, conf, found.class_id, {"rank_p": rank_p, "suit_p": suit_p})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=Path, required=True, help="folder with images/ and layouts/")
    ap.add_argument("--cache", type=Path, required=True, help="the models' stage-1 cache of these scenes")
    ap.add_argument("--out", type=Path, required=True, help="prefix of the caches written (OUT_boxes, OUT_jokers, OUT_sure, OUT_codes)")
    args = ap.parse_args(argv)
    _, reader = load_models()
    boxes_dir, jokers_dir, sure_dir, codes_dir = (Path(f"{args.out}_{k}") for k in ("boxes", "jokers", "sure", "codes"))
    for folder in (boxes_dir, jokers_dir, sure_dir, codes_dir):
        folder.mkdir(parents=True, exist_ok=True)
    right, total = Counter(), Counter()
    for layout in sorted((args.scenes / "layouts").glob("*.json")):
        doc = json.loads(layout.read_text())
        found = Detections.load(args.cache / f"{layout.stem}.npz")
        boxes, ranks = _cards(doc)
        read = true_boxes_read(load_image(args.scenes / "images" / doc["image"]), boxes, reader)
        read.save(boxes_dir / f"{layout.stem}.npz")
        true_jokers(found, boxes[[r == "JK" for r in ranks]]).save(jokers_dir / f"{layout.stem}.npz")
        true_codes(found, doc, sure_only=True).save(sure_dir / f"{layout.stem}.npz")
        true_codes(found, doc, sure_only=False).save(codes_dir / f"{layout.stem}.npz")
        design = "mixed" if "+" in doc.get("design", "?") else doc.get("design", "?")
        for box, rank, p in zip(boxes, ranks, read.data["rank_p"]):
            size = int(np.searchsorted(SIZES, max(box[2] - box[0], box[3] - box[1]), side="right")) - 1
            ok = RANKS[int(p.argmax())] == rank
            for key in (("size", size), ("design", design)):
                right[key] += ok
                total[key] += 1
    print(f"the reader on the true boxes of {args.scenes} (rank read right):")
    for key in sorted(total):
        what = f"{SIZES[key[1]]}-{SIZES[key[1] + 1]} px" if key[0] == "size" else key[1]
        print(f"  {what:>14}: {right[key]:5d} of {total[key]:5d} ({right[key] / total[key]:.3f})")
    print(f"caches: {boxes_dir}, {jokers_dir}, {sure_dir}, {codes_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
