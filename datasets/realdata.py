"""Access to the real labelled photos in ``../shared/realdata`` (read in place, never copied into the repo).

* ``phone_corners`` — corner-index boxes, 52 cards + jokers (+ ``BACK``, ignored). A fixed split by file name
  hash puts one photo in five into ``val``; only ``train`` photos may ever be used for fine-tuning.
* ``pinochle_wholecard`` — whole-card boxes, ranks 9, 10, J, Q, K, A only: used for per-photo rank sets.
* ``decks_dev`` — two decks the shipped models never saw (``webcam_white``, ``blackgold``), for deck learning only.
"""

from __future__ import annotations

import csv
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from vision.classes import CLASS_ID, class_id

REALDATA = Path(os.environ.get("HANDFOOT_REALDATA", Path(__file__).resolve().parents[2] / "shared" / "realdata"))


def split_of(name: str) -> str:
    """``"val"`` for one photo in five (md5 of the file name), else ``"train"``. Fixed forever."""
    return "val" if int(hashlib.md5(Path(name).name.encode()).hexdigest(), 16) % 5 == 0 else "train"


@dataclass(frozen=True)
class Photo:
    """A real photo: path, split, the distinct cards visible (codes; jokers as ``JK``), and its label file."""

    path: Path
    split: str
    cards: frozenset[str]
    label: Path | None


def _norm(code: str) -> str | None:
    code = code.strip().upper()
    if code == "BACK" or not code:
        return None
    if "JOKER" in code:
        return "JK"
    return code


def _codes(listed: str) -> list[str]:
    """The card names of a ``cardsets.csv`` row, which joins them with spaces: ``"AD BLACK JOKER"`` -> ``["AD",
    "BLACK JOKER"]`` (two class names hold a space)."""
    words, out = listed.split(), []
    for word in words:
        if word.upper() == "JOKER" and out and out[-1].upper() in ("BLACK", "RED"):
            out[-1] = f"{out[-1]} {word}"
        else:
            out.append(word)
    return out


def phone_corners(root: Path | None = None, split: str | None = None) -> list[Photo]:
    """Photos of ``phone_corners`` (optionally one split). Raises FileNotFoundError when absent."""
    base = (root or REALDATA) / "phone_corners"
    rows = list(csv.DictReader(open(base / "cardsets.csv", newline="")))
    out = []
    for row in rows:
        path = base / row["image"]
        if not path.is_file():  # the CSV also lists subsets whose photos are not shipped
            continue
        rel = Path(row["image"]).relative_to("images")
        label = base / "labels" / rel.with_suffix(".txt")
        if not label.exists():
            label = base / "labels" / (rel.stem + ".txt")
        cards = frozenset(c for c in (_norm(x) for x in _codes(row["distinct_cards"])) if c)
        photo = Photo(path, split_of(path.name), cards, label if label.exists() else None)
        if split is None or photo.split == split:
            out.append(photo)
    return out


def decks_dev(subset: str, root: Path | None = None) -> list[Photo]:
    """The photos of one ``decks_dev`` deck (``"webcam_white"`` or ``"blackgold"``), sorted by file name (the deck
    learning protocol learns from the first *k*; never train the shipped models on them). Their ``split`` is the
    subset's name; labels use ``phone_corners``' classes. Raises FileNotFoundError when absent."""
    base = (root or REALDATA) / "decks_dev"
    out = []
    for row in csv.DictReader(open(base / "cardsets.csv", newline="")):
        if row["subset"] != subset or not (base / row["image"]).is_file():
            continue
        path = base / row["image"]
        label = base / subset / "labels" / (path.stem + ".txt")
        cards = frozenset(c for c in (_norm(x) for x in _codes(row["distinct_cards"])) if c)
        out.append(Photo(path, subset, cards, label if label.exists() else None))
    return sorted(out, key=lambda p: p.path.name)


def phone_corners_classes(root: Path | None = None) -> list[str]:
    return [ln.strip() for ln in open((root or REALDATA) / "phone_corners" / "classes.txt") if ln.strip()]


def phone_corners_labels(photo: Photo, names: list[str]) -> list[tuple[int, float, float, float, float]]:
    """YOLO rows of a photo remapped to :data:`vision.classes.CLASS_NAMES` ids (``BACK`` dropped)."""
    rows = []
    if photo.label is None:
        return rows
    for line in open(photo.label):
        parts = line.split()
        if len(parts) != 5:
            continue
        code = _norm(names[int(parts[0])])
        if code is None or (code not in CLASS_ID and code != "JK"):
            continue
        rows.append((class_id(code), *map(float, parts[1:])))
    return rows


def pinochle(root: Path | None = None) -> list[tuple[Path, frozenset[str]]]:
    """``(path, ranks)`` per pinochle photo; ranks as codes ``9 10 J Q K A``."""
    base = (root or REALDATA) / "pinochle_wholecard"
    rank_names = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A",
                  "9": "9", "10": "10", "j": "J", "q": "Q", "k": "K", "a": "A"}
    out = []
    for row in csv.DictReader(open(base / "cardsets.csv", newline="")):
        ranks = frozenset(rank_names.get(r.strip().lower(), r.strip().upper()) for r in row["ranks"].split()
                          if r.strip())
        if (base / row["image"]).is_file():
            out.append((base / row["image"], ranks))
    return out


def export_train_split(out: Path, size: int = 320, repeat: int = 1, root: Path | None = None) -> int:
    """Write the ``train`` split of ``phone_corners`` as a YOLO image folder for fine-tuning.

    Photos are resized so the long side is ``size`` pixels (the close-up photos have corner indices about
    100 px tall at 640 px; at 320 px they are about 50 px, inside what the synthetic tiles teach). Labels are
    remapped to :data:`vision.classes.CLASS_NAMES` (``BACK`` dropped). ``repeat`` writes each photo that many
    times (names ``_r0``, ``_r1``...) to weight the real photos against a larger synthetic set. Validation
    photos are never written. Returns the number of images written into ``out/images`` and ``out/labels``.

    Raises:
        FileNotFoundError: when ``phone_corners`` is absent.
    """
    import cv2

    names = phone_corners_classes(root)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    n = 0
    for photo in phone_corners(root, split="train"):
        img = cv2.imread(str(photo.path))
        if img is None:
            continue
        r = size / max(img.shape[:2])
        img = cv2.resize(img, (round(img.shape[1] * r), round(img.shape[0] * r)), interpolation=cv2.INTER_AREA)
        rows = phone_corners_labels(photo, names)
        text = "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in rows)
        for k in range(repeat):
            stem = f"{photo.path.stem}_r{k}"
            cv2.imwrite(str(out / "images" / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (out / "labels" / f"{stem}.txt").write_text(text)
            n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Export the phone_corners training split for fine-tuning.")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--size", type=int, default=320, help="long side in pixels")
    ap.add_argument("--repeat", type=int, default=1, help="copies of each photo (weights real vs synthetic)")
    args = ap.parse_args(argv)
    try:
        n = export_train_split(args.out, args.size, args.repeat)
    except FileNotFoundError as exc:
        print(f"error: phone_corners not found: {exc}")
        return 1
    print(f"wrote {n} images to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
