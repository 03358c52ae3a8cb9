"""Corner-index crops for the index reader (``vision/models/reader.py``): rank and suit from a small image patch.

The detector localises corner indices well but confuses their 53 classes (on held-out designs, 80 % of indices
get a box at confidence 0.05, 15 % with the right class). Reading an index is a small-image classification
problem: a crop around the box, rank (A-K or joker) and suit, at any rotation. This module cuts those crops
from YOLO-format folders (generated tiles, the ``phone_corners`` training export) plus *negatives*: patches
the size of an index that overlap no index (pips, court figures, table, clutter), labelled "no index".

Crops are square, centred on the box, side :data:`CONTEXT` x the box's longer side, resized to
:data:`STORE` px; training jitters a sub-window of them (``vision.models.crops.square_crop`` takes the final window).

*Hard negatives* (:func:`hard_negatives`, ``--hard-negatives``): the boxes the shipped detector finds on whole
generated tables (down to the confidence stage 1b reads, ``vision.config.Reading.candidate_conf``) that lie on no
card's index corner: pips, court and joker figures, clutter. Random negatives rarely land on those, and the reader
had learnt to call many of them jokers (on the held-out-design dev tables, boxes on no index given P(joker) of
0.3 or more outnumbered the true joker indices).

Example::

    python -m datasets.crops --out data/crops_train.npz data/synth/tiles/train data/synth2/tiles/train data/real320
    python -m datasets.crops --out data/crops_val.npz data/synth/tiles/val --negatives 0
    python -m datasets.crops --out data/crops_hard.npz --hard-negatives data/tables_hn/scenes/train
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_NAMES
from vision.models.crops import square_crop
from vision.types import Detections

CONTEXT = 1.6  #: stored crop side / box's longer side
STORE = 48  #: stored crop size in pixels
NEGATIVE = len(CLASS_NAMES)  #: label of a patch that is not an index (53)


def _folder_pairs(folder: Path):
    images = folder / "images" if (folder / "images").is_dir() else folder
    labels = images.parent / "labels"
    for img in sorted(images.iterdir()):
        if img.suffix.lower() in (".jpg", ".jpeg", ".png"):
            yield img, labels / (img.stem + ".txt")


def build(folders: list[Path], negatives_per_image: float = 2.0, seed: int = 0,
          limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops of every labelled index in ``folders`` plus negatives.

    Returns:
        (crops (N, STORE, STORE, 3) uint8 BGR, labels (N,) int64 class ids; :data:`NEGATIVE` = no index).
    """
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    n_img = 0
    for folder in folders:
        for img_path, lab_path in _folder_pairs(Path(folder)):
            if limit and n_img >= limit:
                break
            img = cv2.imread(str(img_path))
            if img is None or not lab_path.exists():
                continue
            n_img += 1
            H, W = img.shape[:2]
            rows = [[float(v) for v in ln.split()] for ln in lab_path.read_text().splitlines() if len(ln.split()) == 5]
            truth = Detections.from_yolo(rows, W, H)
            boxes = [tuple(b) for b in truth.xyxy]
            for box, c in zip(boxes, truth.class_id):
                crops.append(square_crop(img, box, CONTEXT, STORE))
                labels.append(int(c))
            k = int(negatives_per_image) + (rng.random() < negatives_per_image % 1)
            sizes = [max(b[2] - b[0], b[3] - b[1]) for b in boxes] or [min(H, W) * 0.08]
            for _ in range(k):
                side = min(float(rng.choice(sizes)) * rng.uniform(0.7, 1.4), 0.9 * min(H, W))
                cx, cy = rng.uniform(side / 2, W - side / 2), rng.uniform(side / 2, H - side / 2)
                neg = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
                if boxes and _max_overlap(neg, boxes) > 0.1:
                    continue
                crops.append(square_crop(img, neg, CONTEXT, STORE))
                labels.append(NEGATIVE)
    return np.stack(crops) if crops else np.zeros((0, STORE, STORE, 3), np.uint8), np.array(labels, np.int64)


def _max_overlap(box, boxes) -> float:
    b = np.array(boxes, np.float64)
    x1 = np.maximum(b[:, 0], box[0])
    y1 = np.maximum(b[:, 1], box[1])
    x2 = np.minimum(b[:, 2], box[2])
    y2 = np.minimum(b[:, 3], box[3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return float((inter / np.maximum(area, 1e-9)).max())


#: a found box whose centre lies within this share of a card's width and height from one of its four corners
#: may be an index (of any deck, four-index decks included, covered or not): never a hard negative
CORNER_ZONE = (0.3, 0.32)


def _near_card_corner(points: np.ndarray, cards: list[dict]) -> np.ndarray:
    """(n,) bool: which of the (n, 2) image points (px) lie in a corner zone (:data:`CORNER_ZONE`) of any card
    (``corners_px``: four corners, top-left first, clockwise; the card taken as the parallelogram of its first,
    second and fourth corners)."""
    near = np.zeros(len(points), bool)
    for card in cards:
        q = np.asarray(card["corners_px"], np.float64)
        basis = np.column_stack([q[1] - q[0], q[3] - q[0]])
        if abs(np.linalg.det(basis)) < 1e-6:
            continue
        uv = np.linalg.solve(basis, (points - q[0]).T).T
        u, v = uv[:, 0], uv[:, 1]
        inside = (u >= -0.05) & (u <= 1.05) & (v >= -0.05) & (v <= 1.05)
        zu, zv = CORNER_ZONE
        near |= inside & ((u < zu) | (u > 1 - zu)) & ((v < zv) | (v > 1 - zv))
    return near


def hard_negatives(scene_dirs: list[Path], detector, per_scene: int = 40, seed: int = 0,
                   limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """"No index" crops of the boxes ``detector`` (a :class:`vision.models.detector.CardDetector`) finds on whole
    generated tables that are not indices: every box down to ``vision.config.Reading.candidate_conf`` (the pyramid and
    merging of ``vision.scales.find_boxes``, as at run time) that overlaps no true index box (IoU 0.05) and whose
    centre lies in no card's corner zone (:func:`_near_card_corner`). At most ``per_scene`` a scene (a random
    sample).

    Args:
        scene_dirs: folders of ``datasets.generate`` scenes (``images/`` and ``layouts/``).

    Returns:
        (crops (N, STORE, STORE, 3) uint8 BGR, labels (N,) all :data:`NEGATIVE`).
    """
    from datasets.scene_labels import true_detections
    from vision.config import DEFAULT
    from vision.scales import box_conf, find_boxes
    from vision.types import box_iou

    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    layouts = sorted(p for d in scene_dirs for p in (Path(d) / "layouts").glob("*.json"))[:limit]
    for k, lay in enumerate(layouts):
        doc = json.loads(lay.read_text())
        img = cv2.imread(str(lay.parent.parent / "images" / doc["image"]))
        if img is None:
            continue
        found = find_boxes(detector, img, box_conf(detector, None), DEFAULT.reading.candidate_conf)
        if not len(found):
            continue
        truth, _ = true_detections(doc)
        ok = np.ones(len(found), bool)
        if len(truth):
            ok &= box_iou(found.xyxy, truth.xyxy).max(1) < 0.05
        centres = (found.xyxy[:, :2] + found.xyxy[:, 2:]) / 2
        ok &= ~_near_card_corner(centres, doc["cards"])
        idx = np.flatnonzero(ok)
        if len(idx) > per_scene:
            idx = rng.choice(idx, per_scene, replace=False)
        crops.extend(square_crop(img, found.xyxy[i], CONTEXT, STORE) for i in idx)
        if (k + 1) % 50 == 0:
            print(f"  {k + 1}/{len(layouts)} scenes, {len(crops)} hard negatives", flush=True)
    out = np.stack(crops) if crops else np.zeros((0, STORE, STORE, 3), np.uint8)
    return out, np.full(len(out), NEGATIVE, np.int64)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", type=Path, nargs="*", help="YOLO folders (with images/ and labels/)")
    ap.add_argument("--out", type=Path, required=True, help=".npz file to write")
    ap.add_argument("--negatives", type=float, default=2.0, help="negative patches per image")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=None, help="at most this many images")
    ap.add_argument("--hard-negatives", type=Path, nargs="+", metavar="SCENES",
                    help="instead: 'no index' crops of the shipped detector's boxes on no index of these whole-table "
                         "scene folders (datasets.generate --full-view: images/ and layouts/)")
    ap.add_argument("--per-scene", type=int, default=40, help="with --hard-negatives: at most this many a scene")
    args = ap.parse_args(argv)
    if args.hard_negatives:
        from vision.pipeline import load_models

        detector, _ = load_models()
        crops, labels = hard_negatives(args.hard_negatives, detector, args.per_scene, args.seed, args.limit)
    elif args.folders:
        crops, labels = build(args.folders, args.negatives, args.seed, args.limit)
    else:
        ap.error("give YOLO folders, or --hard-negatives SCENES")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(args.out, crops=crops, labels=labels)
    print(f"{len(labels)} crops ({int((labels == NEGATIVE).sum())} negatives) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
