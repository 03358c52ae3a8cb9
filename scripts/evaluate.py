#!/usr/bin/env python3
"""Evaluate the shipped corner-index models; prints every figure in one run.

Detector alone (``models/cards.pt``), with Ultralytics val:
1. mAP50 and mAP50-95 on synthetic scenes of the held-out deck designs (full resolution, ``--synthetic``);
2. mAP50 on the held-out (``val``) split of ``../shared/realdata/phone_corners``.
Both as *index localisation* (class-agnostic: is there an index here, whatever its code; Ultralytics
``single_cls``) and, for a detector that names card codes (53 classes), with its own codes. A one-class
detector (``scripts/train.py --single-cls``) only finds indices: the reader names them.

The runtime path, as ``handfoot`` runs it (ONNX Runtime: image pyramid, detector boxes, and each box re-read
by the index reader ``models/reader.onnx`` when present):
3. mAP50 and mAP50-95 on ``phone_corners`` val and on the held-out synthetic scenes (Ultralytics' matching and
   AP code on our predictions);
4. per-photo card-set precision and recall on the ``phone_corners`` val photos and on ``pinochle_wholecard``
   (ranks only), at several confidence thresholds;
5. a confusion summary: which cards are read as which (phone_corners val, IoU >= 0.5).

Usage::

    python scripts/evaluate.py --synthetic data/heldout   # a datasets.generate output with scenes/val
    python scripts/evaluate.py --skip-map                  # no mAP: reader accuracy, card sets, confusions

Held-out synthetic scenes come from designs in ``datasets.cardart.HELDOUT_DESIGNS`` that training never saw.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_CONFIG_DIR", str(ROOT / ".yolo"))

import numpy as np  # noqa: E402

from datasets import realdata  # noqa: E402
from vision.classes import CLASS_NAMES, RANK_CODES  # noqa: E402
from vision.config import DEFAULT  # noqa: E402
from vision.images import load_image  # noqa: E402
from vision.models.reader import IndexReader  # noqa: E402
from vision.models.detector import CardDetector  # noqa: E402
from vision.pipeline import detect as detect_boxes, read_indices  # noqa: E402
from vision.types import Detections, box_iou  # noqa: E402

THRESHOLDS = (0.1, 0.15, 0.25, 0.35, 0.5, 0.65, 0.8)


def ultralytics_map(weights: Path, data_yaml: Path, imgsz: int, single_cls: bool = False) -> tuple[float, float]:
    """Ultralytics val of ``weights``: (mAP50, mAP50-95); ``single_cls``: every class as one (localisation)."""
    from ultralytics import YOLO

    m = YOLO(str(weights)).val(data=str(data_yaml), imgsz=imgsz, batch=4, plots=False, verbose=False,
                               conf=0.001, iou=0.6, device="cpu", rect=True, workers=0, single_cls=single_cls,
                               project=tempfile.mkdtemp(), name="val")
    return float(m.box.map50), float(m.box.map)


def runtime_map(pairs, detect) -> tuple[float, float]:
    """mAP50 and mAP50-95 of the runtime path (what ``handfoot`` runs: pyramid, reader) over images.

    ``pairs``: (image path, (m, 5) YOLO rows ``class cx cy w h`` normalised); ``detect(image)`` -> Detections.
    Matching and AP are Ultralytics' own (``BaseValidator.match_predictions``, ``metrics.ap_per_class``).
    """
    import types

    import torch
    from ultralytics.engine.validator import BaseValidator
    from ultralytics.utils.metrics import ap_per_class

    matcher = types.SimpleNamespace(iouv=torch.linspace(0.5, 0.95, 10))
    tps, confs, pcls, tcls = [], [], [], []
    for path, rows in pairs:
        img = load_image(path)
        truth = Detections.from_yolo(rows, img.shape[1], img.shape[0])
        det = detect(img)
        det = det[np.argsort(-det.confidence)] if len(det) else det
        tcls.append(truth.class_id)
        if not len(det):
            continue
        iou = torch.from_numpy(box_iou(truth.xyxy, det.xyxy))
        correct = BaseValidator.match_predictions(matcher, torch.from_numpy(det.class_id),
                                                  torch.from_numpy(truth.class_id), iou)
        tps.append(correct.numpy())
        confs.append(det.confidence)
        pcls.append(det.class_id)
    if not tps:
        return 0.0, 0.0
    ap = ap_per_class(np.concatenate(tps), np.concatenate(confs), np.concatenate(pcls), np.concatenate(tcls))[5]
    return float(ap[:, 0].mean()), float(ap.mean())


def reader_accuracy(pairs, reader: IndexReader) -> tuple[float, int]:
    """Share of true corner boxes whose card code the reader gets right (the reader alone, perfect boxes)."""
    right = total = 0
    for path, rows in pairs:
        if not len(rows):
            continue
        img = load_image(path)
        truth = Detections.from_yolo(rows, img.shape[1], img.shape[0])
        codes, _, _ = reader.read(img, truth.xyxy)
        right += sum(c == t for c, t in zip(codes, truth.codes))
        total += len(truth)
    return right / max(1, total), total


def with_next_codes(det: Detections, image: np.ndarray, reader: IndexReader, k: int) -> Detections:
    """``det`` plus, for each box, its next ``k - 1`` likeliest codes as extra detections (multi-label scoring,
    as Ultralytics' validator scores every class of a box; a diagnostic, not what the pipeline returns).

    An extra code's confidence is the box's own times P(that code) / P(the box's code), P(code) = P(rank) x
    P(suit) from the reader (a joker: P(joker)), and stays under the box's own.
    """
    if not len(det) or k < 2:
        return det
    rank_p, suit_p = reader.probabilities(image, det.xyxy)
    n_ranks = len(RANK_CODES)
    # (n, 53) in class-id order (vision.classes.CLASS_NAMES: suit-major, A..K within a suit, then JK)
    joint = np.concatenate([(suit_p[:, :, None] * rank_p[:, None, :n_ranks]).reshape(len(det), -1),
                            rank_p[:, n_ranks:n_ranks + 1]], 1)
    own = joint[np.arange(len(det)), det.class_id]
    xyxy, conf, cls = [det.xyxy], [det.confidence], [det.class_id]
    for m in range(len(det)):
        for c in [c for c in np.argsort(-joint[m]) if c != det.class_id[m]][:k - 1]:
            xyxy.append(det.xyxy[m:m + 1])
            conf.append(np.array([min(det.confidence[m] * joint[m, c] / max(own[m], 1e-9),
                                      det.confidence[m] * 0.999)], np.float32))
            cls.append(np.array([c], np.int64))
    return Detections(np.concatenate(xyxy), np.concatenate(conf), np.concatenate(cls))


def phone_corners_yaml(tmp: Path) -> Path:
    """A YOLO data set of the phone_corners val photos with labels remapped to our 53 classes (symlinks)."""
    names = realdata.phone_corners_classes()
    img_dir, lab_dir = tmp / "images" / "val", tmp / "labels" / "val"
    img_dir.mkdir(parents=True)
    lab_dir.mkdir(parents=True)
    for photo in realdata.phone_corners(split="val"):
        (img_dir / photo.path.name).symlink_to(photo.path)
        rows = realdata.phone_corners_labels(photo, names)
        (lab_dir / (photo.path.stem + ".txt")).write_text("".join(f"{c} {x} {y} {w} {h}\n" for c, x, y, w, h in rows))
    yaml = tmp / "data.yaml"
    yaml.write_text(f"path: {tmp}\ntrain: images/val\nval: images/val\nnames:\n"
                    + "".join(f"  {i}: '{n}'\n" for i, n in enumerate(CLASS_NAMES)))
    return yaml


def set_metrics(pairs: list[tuple[set[str], set[str]]]) -> tuple[float, float]:
    """Micro precision and recall of predicted vs true card sets over photos (nan when undefined)."""
    tp = sum(len(p & t) for p, t in pairs)
    npred = sum(len(p) for p, _ in pairs)
    ntrue = sum(len(t) for _, t in pairs)
    return (tp / npred if npred else float("nan")), (tp / ntrue if ntrue else float("nan"))


def card_sets(detect, photos, rank_only: bool = False):
    """For each photo: (predicted card set per threshold, true set, detections); ``detect(image)`` -> Detections."""
    out = []
    for path, truth in photos:
        det = detect(load_image(path))
        per = {}
        for t in THRESHOLDS:
            codes = {c for (_, conf, c) in det if conf >= t}
            if rank_only:
                codes = {c[:-1] for c in codes if c != "JK"}
            per[t] = codes
        out.append((per, set(truth), det))
    return out


def report_sets(title: str, results) -> dict:
    """Print precision/recall per threshold; return them as a dict keyed by threshold."""
    print(f"{title}:")
    out = {}
    for t in THRESHOLDS:
        p, r = set_metrics([(per[t], truth) for per, truth, _ in results])
        out[str(t)] = {"precision": p, "recall": r}
        print(f"  conf >= {t:.2f}: precision {p:.3f}  recall {r:.3f}")
    return out


def confusion(results, photos, names, threshold: float) -> Counter:
    pairs: Counter = Counter()
    for (_, _, det), photo in zip(results, photos):
        rows = realdata.phone_corners_labels(photo, names)
        if not rows or not len(det):
            continue
        img = load_image(photo.path)
        truth = Detections.from_yolo(rows, img.shape[1], img.shape[0])
        det = det[det.confidence >= threshold]
        if not len(det):
            continue
        m = box_iou(truth.xyxy, det.xyxy)
        codes = det.codes
        for g, true_code in enumerate(truth.codes):
            j = int(m[g].argmax())
            if m[g, j] >= 0.5 and codes[j] != true_code:
                pairs[(true_code, codes[j])] += 1
    return pairs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", type=Path, default=ROOT / "models" / "cards.pt")
    ap.add_argument("--onnx", type=Path, default=ROOT / "models" / "cards.onnx")
    ap.add_argument("--synthetic", type=Path, help="generated held-out data (datasets.generate output)")
    ap.add_argument("--synthetic-imgsz", type=int, default=1280)
    ap.add_argument("--real-imgsz", type=int, default=640)
    ap.add_argument("--reader", type=Path, default=ROOT / "models" / "reader.onnx", help="index reader model")
    ap.add_argument("--no-reader", action="store_true",
                    help="use the detector's own card codes (a 53-class detector only)")
    ap.add_argument("--single-scale", action="store_true",
                    help="without the reader: one pass at --real-imgsz instead of the pyramid")
    ap.add_argument("--skip-map", action="store_true", help="skip the Ultralytics mAP figures")
    ap.add_argument("--detector-only", action="store_true", help="only the detector-alone figures (1-2)")
    ap.add_argument("--skip-detector", action="store_true", help="skip the detector-alone figures (1-2)")
    ap.add_argument("--deck", type=Path, metavar="PROFILE.npz",
                    help="read with this deck profile (vision.decks; evaluate_decks.py --phone --save DIR makes one)")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    ap.add_argument("--top-codes", type=int, default=1,
                    help="also score the held-out synthetic scenes multi-label: each read box with its K likeliest "
                         "codes (a diagnostic; the reported mAP gives one code a box)")
    args = ap.parse_args(argv)
    figures: dict = {}

    if not args.skip_map and not args.skip_detector:
        from ultralytics import YOLO

        names_cards = YOLO(str(args.weights)).model.nc == len(CLASS_NAMES)
        for agnostic in (True, False) if names_cards else (True,):
            what = "index localisation (class-agnostic)" if agnostic else "its own card codes"
            key = "_agnostic" if agnostic else ""
            print(f"-- detector alone (Ultralytics val): {what}")
            if args.synthetic:
                yaml = args.synthetic / "data.yaml"
                m50, m5095 = ultralytics_map(args.weights, yaml, args.synthetic_imgsz, agnostic)
                figures[f"synthetic_heldout_map50{key}"], figures[f"synthetic_heldout_map50_95{key}"] = m50, m5095
                print(f"synthetic held-out designs: mAP50 {m50:.3f}  mAP50-95 {m5095:.3f}  "
                      f"(imgsz {args.synthetic_imgsz})")
            with tempfile.TemporaryDirectory() as tmp:
                m50, _ = ultralytics_map(args.weights, phone_corners_yaml(Path(tmp)), args.real_imgsz, agnostic)
            figures[f"phone_corners_val_map50{key}"] = m50
            print(f"phone_corners val split: mAP50 {m50:.3f}")
    if args.detector_only:
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2))
        return 0

    reader = None if args.no_reader or not args.reader.is_file() else IndexReader(args.reader)
    if not reader and not CardDetector(args.onnx).names_cards:
        print(f"error: {args.onnx} finds indices without naming them; the runtime path needs the index reader")
        return 1
    if reader:
        boxes = CardDetector(args.onnx)
        if args.deck:
            from vision.deck_profiles import DeckProfile

            boxes, reader = DeckProfile.load(args.deck.stem, args.deck.parent).models(boxes, reader)
            print(f"-- with the deck profile {args.deck}")

        def detect(img, floor=min(THRESHOLDS)):
            config = DEFAULT.replace(**{"reading.min_conf": floor})
            return read_indices(detect_boxes(img, boxes, reader, config), not boxes.names_cards, config)[0]
        path_name = "runtime path: pyramid, detector boxes, reader codes"
    else:
        single = CardDetector(args.onnx, imgsz=args.real_imgsz, conf=min(THRESHOLDS))

        def detect(img, floor=min(THRESHOLDS)):
            config = DEFAULT.replace(**{"reading.min_conf": floor})
            return single(img, None, floor) if args.single_scale else detect_boxes(img, single, None, config)
        path_name = "runtime path: " + ("one pass" if args.single_scale else "pyramid") + ", detector codes"
    figures["runtime_path"] = path_name
    print(f"-- {path_name}")
    photos = realdata.phone_corners(split="val")
    if not args.skip_map:
        names = realdata.phone_corners_classes()
        m50, m5095 = runtime_map([(p.path, realdata.phone_corners_labels(p, names)) for p in photos],
                                 lambda img: detect(img, 0.001))
        figures["runtime_phone_corners_val_map50"] = m50
        print(f"phone_corners val split: mAP50 {m50:.3f}  mAP50-95 {m5095:.3f}")
        if args.synthetic:
            scenes = sorted((args.synthetic / "scenes" / "val" / "images").glob("*.jpg"))
            pairs = [(im, np.loadtxt(im.parent.parent / "labels" / (im.stem + ".txt"), ndmin=2)) for im in scenes]
            m50, m5095 = runtime_map(pairs, lambda img: detect(img, 0.001))
            figures["runtime_synthetic_heldout_map50"], figures["runtime_synthetic_heldout_map50_95"] = m50, m5095
            print(f"synthetic held-out designs ({len(pairs)} scenes): mAP50 {m50:.3f}  mAP50-95 {m5095:.3f}")
            if reader and args.top_codes > 1:
                m50, m5095 = runtime_map(pairs, lambda img: with_next_codes(detect(img, 0.001), img, reader,
                                                                            args.top_codes))
                figures[f"runtime_synthetic_heldout_map50_top{args.top_codes}"] = m50
                print(f"  scored multi-label (each box's {args.top_codes} likeliest codes): mAP50 {m50:.3f}  "
                      f"mAP50-95 {m5095:.3f}")
    if reader:
        names = realdata.phone_corners_classes()
        acc, n = reader_accuracy([(p.path, realdata.phone_corners_labels(p, names)) for p in photos], reader)
        figures["reader_phone_corners_val_true_boxes"] = acc
        print(f"index reader on the true boxes of phone_corners val: code accuracy {acc:.3f} ({n} indices)")
        if args.synthetic:
            scenes = sorted((args.synthetic / "scenes" / "val" / "images").glob("*.jpg"))
            acc, n = reader_accuracy([(im, np.loadtxt(im.parent.parent / "labels" / (im.stem + ".txt"), ndmin=2))
                                      for im in scenes], reader)
            figures["reader_synthetic_heldout_true_boxes"] = acc
            print(f"index reader on the true boxes of the held-out synthetic scenes: code accuracy {acc:.3f} "
                  f"({n} indices)")
    res = card_sets(detect, [(p.path, p.cards) for p in photos])
    figures["phone_corners_sets"] = report_sets(f"phone_corners val ({len(photos)} photos), per-photo card sets", res)
    pin = realdata.pinochle()
    pres = card_sets(detect, pin, rank_only=True)
    figures["pinochle_rank_sets"] = report_sets(f"pinochle_wholecard ({len(pin)} photos), per-photo rank sets", pres)

    conf = confusion(res, photos, realdata.phone_corners_classes(), 0.25)
    print("most frequent confusions on phone_corners val (true -> read as), conf >= 0.25:")
    for (a, b), n in conf.most_common(15):
        print(f"  {a:>3} -> {b:<3} x{n}")
    if not conf:
        print("  none")
    figures["confusions"] = [[a, b, n] for (a, b), n in conf.most_common(30)]
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
