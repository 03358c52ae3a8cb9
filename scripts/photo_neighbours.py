"""Measure whether a photo's surely-read index boxes could name its unsure ones (issue 35, a photo's own readings).

Every card of a photo comes from one deck design, so an index box the reader is unsure of may look like a box of the
same photo it is sure of. For each found box (stage 1, cached) matched to a true index (IoU >= ``--match``), its
nearest *sure* box of the same photo (reading P >= ``--sure`` and detector confidence >= 0.5; boxes overlapping it by
IoU >= 0.3 left out) by the similarity of their upright box crops (``vision.deck_glyphs.index_crops``: 32 x 64 px at
the photo's resolution), cosine of HOG (``--how hog``) or normalised cross-correlation of the grey crops (``ncc``),
the larger of the box turned either way up; or (``match``) the box's own crop slid over the other's grown crop
(:func:`matched`), which tolerates their framing. Prints, at similarity thresholds, how many nearest neighbours are
of the box's true code / true rank / of another code, by kind of box (jokers not read as jokers, other indices misread,
right but unsure, false boxes, and the sure boxes themselves: the false rate). Then the jokers' own table: every box
the reader gives P(joker) >= 0.9 is a teacher, and each other box of the photo is counted, by what it truly is,
when a teacher is within the similarity threshold.

    python scripts/photo_neighbours.py --scenes data/tables_hdev/scenes/val --cache data/cache_hdev --how hog
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from datasets.evaluation import cached_found  # noqa: E402
from datasets.scene_labels import true_detections  # noqa: E402
from vision.classes import CLASS_NAMES, RANKS, reading  # noqa: E402
from vision.deck_glyphs import hog, index_crops  # noqa: E402
from vision.images import load_image  # noqa: E402
from vision.types import box_iou  # noqa: E402

THRESHOLDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9)
JOKER = RANKS.index("JK")


def descriptors(image: np.ndarray, boxes: np.ndarray, how: str) -> np.ndarray:
    """(2, n, d) unit vectors of the (n, 4) xyxy boxes' crops of a BGR image, upright and turned a half turn: the
    grey crop's HOG (``how="hog"``) or its pixels (``"ncc"``), less their mean."""
    crops = index_crops(image, boxes)
    out = []
    for t in (0, 1):
        grey = np.ascontiguousarray(np.rot90(crops, 2 * t, axes=(1, 2))).astype(np.float32).mean(3)
        f = hog(grey) if how == "hog" else grey.reshape(len(grey), -1)
        f = f - f.mean(1, keepdims=True)
        out.append(f / (np.linalg.norm(f, axis=1, keepdims=True) + 1e-6))
    return np.stack(out)


def matched(image: np.ndarray, boxes: np.ndarray, scales: tuple[float, ...] = (0.9, 1.0, 1.1),
            reach: float = 1.4) -> np.ndarray:
    """(n, n) similarity of the (n, 4) xyxy boxes' crops of a BGR image that tolerates their framing: box i's grey crop
    (the box itself, cut at the glyph reader's scale, either way up, resized by each of ``scales``) slid over box j's
    crop grown ``reach`` times; the highest normalised cross-correlation
    (``cv2.matchTemplate`` ``TM_CCOEFF_NORMED``)."""
    import cv2

    from vision.deck_glyphs import HEIGHT, MARGIN, WIDTH
    from vision.models.crops import box_crop

    w, h = round(WIDTH * reach / MARGIN), round(HEIGHT * reach / MARGIN)
    tw, th = round(WIDTH / MARGIN), round(HEIGHT / MARGIN)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grey = np.ascontiguousarray(grey)[..., None].repeat(3, 2)
    wide = [box_crop(grey, b, w, h, reach)[..., 0].astype(np.float32) for b in boxes]
    temps = []
    for b in boxes:
        t = box_crop(grey, b, tw, th, 1.0)[..., 0].astype(np.float32)
        temps.append([cv2.resize(u, (max(4, round(tw * s)), max(8, round(th * s))), interpolation=cv2.INTER_AREA)
                      for u in (t, t[::-1, ::-1].copy()) for s in scales])
    sim = np.full((len(boxes), len(boxes)), -1.0, np.float32)
    for i in range(len(boxes)):
        for j in range(len(boxes)):
            sim[i, j] = max(float(cv2.matchTemplate(wide[j], u, cv2.TM_CCOEFF_NORMED).max()) for u in temps[i])
    return sim


def photo_rows(doc: dict, image: np.ndarray, found, args) -> tuple[list[dict], list[tuple]]:
    """One photo's rows for both tables (see the module docstring)."""
    truth, _ = true_detections(doc)
    if not len(found) or not len(truth):
        return [], []
    codes, pr = reading(found.data["rank_p"], found.data["suit_p"])
    iou = box_iou(found.xyxy, truth.xyxy)
    best, top = iou.argmax(1), iou.max(1)
    true_code = [CLASS_NAMES[truth.class_id[b]] if top[k] >= args.match else None for k, b in enumerate(best)]
    if args.how == "match":
        sim = matched(image, found.xyxy)
    else:
        d = descriptors(image, found.xyxy, args.how)
        sim = np.maximum(d[0] @ d[0].T, d[1] @ d[0].T)  # each box's crop either way up against the other's upright
    apart = box_iou(found.xyxy, found.xyxy) < 0.3
    sure = np.array([c is not None and q >= args.sure for c, q in zip(codes, pr)]) & (found.confidence >= 0.5)
    rows, jokers = [], []
    teach = found.data["rank_p"][:, JOKER] >= 0.9
    for k in range(len(found)):
        cand = sure & apart[k]
        cand[k] = False
        if cand.any():
            j = int(np.where(cand)[0][np.argmax(sim[k, cand])])
            rows.append(dict(sure=bool(sure[k]), true=true_code[k], own=codes[k], nn=codes[j], sim=float(sim[k, j])))
        near = teach & apart[k]
        near[k] = False
        if not teach[k] and near.any():
            kind = "none" if top[k] < 0.3 else "JK" if CLASS_NAMES[truth.class_id[best[k]]] == "JK" else "other"
            alone = found.confidence[k] >= 0.5 and pr[k] * np.sqrt(found.confidence[k]) >= 0.35
            jokers.append((kind, float(sim[k, near].max()), bool(alone)))
    return rows, jokers


def report(rows: list[dict], jokers: list[tuple]) -> None:
    """Print both tables."""
    def rank(c):
        return None if c is None else c if c == "JK" else c[:-1]
    print("kind | boxes | nearest sure box at sim >= t: true code / true rank / another code, t = "
          + " ".join(map(str, THRESHOLDS)))
    groups = {
        "joker, not read JK": [r for r in rows if r["true"] == "JK" and r["own"] != "JK"],
        "joker, read JK, unsure": [r for r in rows if r["true"] == "JK" and r["own"] == "JK" and not r["sure"]],
        "other index, misread": [r for r in rows if r["true"] not in (None, "JK") and r["own"] != r["true"]],
        "other index, right, unsure": [r for r in rows if r["true"] not in (None, "JK") and r["own"] == r["true"]
                                       and not r["sure"]],
        "no true index, unsure": [r for r in rows if r["true"] is None and not r["sure"]],
        "sure boxes (false rate)": [r for r in rows if r["sure"] and r["true"]],
    }
    for name, g in groups.items():
        cells = []
        for t in THRESHOLDS:
            a = [r for r in g if r["sim"] >= t]
            right = sum(r["nn"] == r["true"] for r in a)
            cells.append(f"{right}/{sum(rank(r['nn']) == rank(r['true']) for r in a)}/{len(a) - right}")
        print(f"{name} | {len(g)} | " + " | ".join(cells))
    print("jokers: boxes with P(JK) < 0.9 in photos with a box at P(JK) >= 0.9, a teacher within sim >= t: "
          "true jokers (of them not read alone) / other true index / no index")
    for t in THRESHOLDS[1:]:
        a = [x for x in jokers if x[1] >= t]
        print(f"{t} | {sum(x[0] == 'JK' for x in a)} ({sum(x[0] == 'JK' and not x[2] for x in a)}) | "
              f"{sum(x[0] == 'other' for x in a)} | {sum(x[0] == 'none' for x in a)}")
    print(f"all | {sum(x[0] == 'JK' for x in jokers)} ({sum(x[0] == 'JK' and not x[2] for x in jokers)})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=Path, required=True, help="a generated split (images/, layouts/)")
    ap.add_argument("--cache", type=Path, required=True, help="stage-1 cache of evaluate_layout.py --cache")
    ap.add_argument("--sure", type=float, default=0.9, help="a sure box's reading probability")
    ap.add_argument("--how", choices=("hog", "ncc", "match"), default="hog")
    ap.add_argument("--match", type=float, default=0.5, help="IoU of a found box with its true index")
    ap.add_argument("--limit", type=int)
    args = ap.parse_args(argv)
    rows, jokers = [], []
    for p in sorted((args.scenes / "layouts").glob("*.json"))[: args.limit]:
        doc = json.loads(p.read_text())
        image = load_image(args.scenes / "images" / doc["image"])
        found = cached_found(args.cache / f"{Path(doc['image']).stem}.npz", image, None, None, None)
        r, j = photo_rows(doc, image, found, args)
        rows += r
        jokers += j
    report(rows, jokers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
