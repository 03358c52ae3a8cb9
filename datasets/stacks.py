"""Crops of single whole cards from generated tables, labelled *stack* or *loose*, for the stack checker
(``vision/stacks.py``).

The geometry stage reads every single card that shows both indices as a squared book's marker. This module
runs that stage on a generated table's true index boxes (:func:`true_detections`), takes each such card and
labels it by what the generator put there: 1 when it tops a squared book (a stack of seven, seed 000
"Books"), 0 for anything else (a loose card, a hand of one card, a fan card the geometry cut off). The crops are
cut as the pipeline cuts them (:func:`vision.models.crops.card_crop`), several views a card: the first plain, the
others with the index centres jittered as a detector's boxes would be, turned upside down or not, and framed
0.8-1.35 times as wide (decks place their indices at different distances from the corners).

Example::

    python -m datasets.generate --out data/tables_stack --scenes 500 --split train --seed 11 --full-view
    python -m datasets.generate --out data/tables_stack2 --scenes 700 --split train --seed 12 --full-view
    python -m datasets.stacks --out data/stacks2.npz data/tables_stack/scenes/train data/tables_stack2/scenes/train
    python -m datasets.stacks --out data/stacks_real.npz --phone-corners-train   # real loose cards (train split)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from vision.images import load_image
from vision.models.crops import STACK_CONTEXT, STACK_INPUT, card_crop
from vision.pipeline import read_image
from vision.types import CardInstance, PileKind

from .scene_labels import true_detections


def single_cards(doc: dict) -> list[tuple[CardInstance, int]]:
    """The whole single cards the geometry reads as squared-book markers, each with its label (1: the top of a
    squared book, 0: anything else)."""
    dets, owner = true_detections(doc)
    out = []
    for pile in read_image(None, found=dets)[0].piles:
        if pile.kind is PileKind.SQUARED_BOOK and pile.cards[0].fully_visible:
            card = pile.cards[0]
            kinds = {doc["cards"][owner[d]]["pile_kind"] for d in card.detections}
            out.append((card, int(kinds == {"squared"})))
    return out


def _jittered(card: CardInstance, rng: np.random.Generator, sigma: float) -> CardInstance:
    centers = card.centers + rng.normal(0, sigma * card.size, card.centers.shape)
    return CardInstance(card.code, card.detections, centers, card.size, card.confidence, card.card_height)


def _views(image: np.ndarray, card: CardInstance, views: int, rng: np.random.Generator):
    """(view number, crop) for ``views`` crops of ``card``: the first plain, the others jittered as a detector's
    boxes would be, turned upside down or not, and framed 0.8-1.35 times as wide."""
    for v in range(views):
        c = card if v == 0 else _jittered(card, rng, 0.08)
        turn = 0.0 if v == 0 else float(rng.choice([0.0, np.pi]) + rng.normal(0, 0.05))
        # decks place their indices at different distances from the corners, so the card fills more or less
        # of the crop: train on a range of framings
        context = STACK_CONTEXT * (1.0 if v == 0 else float(rng.uniform(0.8, 1.35)))
        yield v, card_crop(image, c, context=context, turn=turn)


def build(folders: list[Path], views: int = 6, seed: int = 0) -> dict[str, np.ndarray]:
    """Crops of every single whole card in the scenes under ``folders`` (``images/`` and ``layouts/``).

    Returns:
        ``crops`` (N, STACK_INPUT, STACK_INPUT, 3) uint8 BGR, ``labels`` (N,) int64 (1 = stack),
        ``scene`` (N,) int64 (which scene, to split by scene), ``view`` (N,) int64 (0 = the plain crop).
    """
    rng = np.random.default_rng(seed)
    crops, labels, scenes, view_ids = [], [], [], []
    docs = [p for f in folders for p in sorted((Path(f) / "layouts").glob("*.json"))]
    for k, path in enumerate(docs):
        doc = json.loads(path.read_text())
        found = single_cards(doc)
        if not found:
            continue
        image = load_image(path.parent.parent / "images" / doc["image"])
        for card, label in found:
            for v, crop in _views(image, card, views, rng):
                crops.append(crop)
                labels.append(label)
                scenes.append(k)
                view_ids.append(v)
        if (k + 1) % 100 == 0:
            print(f"{k + 1}/{len(docs)} scenes, {len(labels)} crops, {int(np.sum(labels))} stacks", flush=True)
    return {"crops": np.stack(crops) if crops else np.zeros((0, STACK_INPUT, STACK_INPUT, 3), np.uint8),
            "labels": np.array(labels, np.int64), "scene": np.array(scenes, np.int64),
            "view": np.array(view_ids, np.int64)}


def real_loose(views: int = 6, seed: int = 5, root: Path | None = None, limit: int | None = None
               ) -> dict[str, np.ndarray]:
    """Crops of the single whole cards of the ``phone_corners`` *train* photos, all labelled loose (0).

    Those photos are close-ups of one to three cards on a table: no squared book anywhere, so every card the
    geometry reads as a marker (from the photos' true boxes) is a loose card. Cut as :func:`build` cuts them;
    scene numbers are negative (-1, -2, ...) so ``scripts/train_stacks.py`` always trains on them (its
    validation takes the highest scene numbers). The ``val`` photos are never used. ``limit``: the first that
    many train photos only.

    Raises:
        FileNotFoundError: ``phone_corners`` is absent.
    """
    from vision.types import Detections

    from .realdata import phone_corners, phone_corners_classes, phone_corners_labels

    rng = np.random.default_rng(seed)
    names = phone_corners_classes(root)
    crops, labels, scenes, view_ids = [], [], [], []
    for k, photo in enumerate(phone_corners(root, split="train")[:limit]):
        image = load_image(photo.path)
        rows = phone_corners_labels(photo, names)
        if not rows:
            continue
        dets = Detections.from_yolo(rows, image.shape[1], image.shape[0])
        for pile in read_image(None, found=dets)[0].piles:
            if pile.kind is PileKind.SQUARED_BOOK and pile.cards[0].fully_visible:
                for v, crop in _views(image, pile.cards[0], views, rng):
                    crops.append(crop)
                    labels.append(0)
                    scenes.append(-1 - k)
                    view_ids.append(v)
    return {"crops": np.stack(crops) if crops else np.zeros((0, STACK_INPUT, STACK_INPUT, 3), np.uint8),
            "labels": np.array(labels, np.int64), "scene": np.array(scenes, np.int64),
            "view": np.array(view_ids, np.int64)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Cut stack/loose crops of single whole cards from generated tables.")
    ap.add_argument("folders", nargs="*", type=Path, help="scene folders with images/ and layouts/")
    ap.add_argument("--phone-corners-train", action="store_true",
                    help="instead: the single cards of the phone_corners train photos, as loose crops")
    ap.add_argument("--out", type=Path, required=True, help=".npz to write")
    ap.add_argument("--views", type=int, default=6, help="crops per card (the first plain, the rest jittered)")
    ap.add_argument("--seed", type=int, default=None,
                    help="jitter seed (default 0 for scene folders, 5 for --phone-corners-train: s5's data)")
    args = ap.parse_args(argv)
    if args.phone_corners_train == bool(args.folders):
        ap.error("give scene folders or --phone-corners-train")
    if args.phone_corners_train:
        data = real_loose(args.views, 5 if args.seed is None else args.seed)
    else:
        data = build(args.folders, args.views, 0 if args.seed is None else args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    n, s = len(data["labels"]), int(data["labels"].sum())
    print(f"{args.out}: {n} crops ({s} stack, {n - s} loose) from {len(set(data['scene'].tolist()))} scenes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
