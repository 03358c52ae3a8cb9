"""Generate a synthetic corner-index data set: full scenes and/or training tiles, multiprocess, deterministic.

Usage::

    python -m datasets.generate --out data/synth --scenes 1000 --split train --seed 0 --workers 2 --tile 320
    python -m datasets.generate --out data/synth --scenes 200 --split val --designs heldout --full-view

Writes, under ``OUT/``:

* ``scenes/<split>/{images,labels,layouts}/`` — full-resolution scenes (``--keep-scenes`` or no ``--tile``),
* ``tiles/<split>/{images,labels}/`` — ``--tile`` px crops at native scale or enlarged (``--enlarge``): training input,
* ``data.yaml`` — an Ultralytics data file naming the 53 classes and whatever splits exist.

Scene *i* of a run uses seed ``seed * 1_000_003 + i``, so a run is reproducible whatever the worker count.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_NAMES
from vision.types import median_index_size

from .scene_labels import yolo_lines
from .scenes import make_scene, write_scene

_DECKS: dict[str, object] = {}


#: a table whose true indices measure under this (median, pixels) is cut enlarged with ``--enlarge``: the view the
#: pyramid's doubled pass gives the detector of a whole table (``vision.scales``)
ENLARGE_BELOW = 40.0


def _decks_for(designs: list[str], rng: np.random.Generator):
    from .cardart import load_deck
    from .fontdecks import font_deck, is_font_design

    n = 2 if (len(designs) > 1 and rng.random() < 0.15) else 1
    chosen = list(rng.choice(designs, size=n, replace=False))
    out = []
    for d in chosen:
        if d not in _DECKS:
            _DECKS[d] = font_deck(d) if is_font_design(d) else load_deck(d)
        out.append(_DECKS[d])
    return out


def tiles_from_scene(image: np.ndarray, boxes: np.ndarray, classes: np.ndarray, rng: np.random.Generator,
                     tile: int, count: int, min_keep: float = 0.6):
    """Cut ``count`` square ``tile`` px crops, most centred on a labelled index, with their boxes.

    A box is kept (clipped) when at least ``min_keep`` of it lies inside the crop. An index cut by the crop
    edge below that stays unlabelled in the crop: a sliver of an index is not a readable index either.

    Returns a list of (crop (tile, tile, 3) uint8, boxes (m, 4) float32 xyxy in crop px, classes (m,)).
    """
    H, W = image.shape[:2]
    out = []
    for _ in range(count):
        if len(boxes) and rng.random() < 0.85:
            b = boxes[int(rng.integers(len(boxes)))]
            cx = (b[0] + b[2]) / 2 + rng.uniform(-0.4, 0.4) * tile
            cy = (b[1] + b[3]) / 2 + rng.uniform(-0.4, 0.4) * tile
        else:
            cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        x0 = int(np.clip(cx - tile / 2, 0, max(W - tile, 0)))
        y0 = int(np.clip(cy - tile / 2, 0, max(H - tile, 0)))
        crop = image[y0:y0 + tile, x0:x0 + tile]
        if crop.shape[0] < tile or crop.shape[1] < tile:
            crop = cv2.copyMakeBorder(crop, 0, tile - crop.shape[0], 0, tile - crop.shape[1], cv2.BORDER_REFLECT)
        kept_b, kept_c = [], []
        for (x1, y1, x2, y2), c in zip(boxes, classes):
            a = (x2 - x1) * (y2 - y1)
            ix1, iy1 = max(x1 - x0, 0), max(y1 - y0, 0)
            ix2, iy2 = min(x2 - x0, tile, W - x0), min(y2 - y0, tile, H - y0)
            if ix2 <= ix1 or iy2 <= iy1:
                continue
            if (ix2 - ix1) * (iy2 - iy1) >= min_keep * a:
                kept_b.append((ix1, iy1, ix2, iy2))
                kept_c.append(c)
        out.append((crop, np.array(kept_b, np.float32).reshape(-1, 4), np.array(kept_c, np.int64)))
    return out


def enlarged_for_tiles(image: np.ndarray, boxes: np.ndarray, enlarge: float) -> tuple[np.ndarray, np.ndarray]:
    """The (H, W, 3) photo and its (n, 4) xyxy px boxes as the detector sees them at inference.

    A photo whose indices are small (median size, the square root of the box area, under
    ``ENLARGE_BELOW`` px) is enlarged ``enlarge`` times (bilinear), as the pyramid's doubled
    pass (``vision.scales.find_boxes``) shows it; any other photo, or ``enlarge`` 1, comes back unchanged.
    """
    if enlarge == 1.0 or median_index_size(boxes) >= ENLARGE_BELOW:
        return image, boxes
    big = cv2.resize(image, None, fx=enlarge, fy=enlarge, interpolation=cv2.INTER_LINEAR)
    return big, (boxes * np.float32(enlarge)).astype(np.float32)


def _work(job: tuple) -> int:
    (i, seed, designs, out, split, tile, tiles_per_scene, keep_scenes, full_view, enlarge, joker_marks, boost,
     tight, zoom) = job
    rng = np.random.default_rng(seed)
    decks = _decks_for(designs, rng)
    scene = make_scene(seed, decks, full_view=full_view, joker_marks=joker_marks, joker_boost=boost,
                       tight_fans=tight, zoom=zoom)
    name = f"{split}_{i:06d}"
    if keep_scenes or not tile:
        write_scene(scene, Path(out) / "scenes" / split, name)
    if tile:
        # tiles see the same JPEG artefacts a photo has
        q = int(rng.integers(40, 96))
        ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, q])
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        image, boxes = enlarged_for_tiles(image, scene.boxes, enlarge)
        tdir = Path(out) / "tiles" / split
        (tdir / "images").mkdir(parents=True, exist_ok=True)
        (tdir / "labels").mkdir(parents=True, exist_ok=True)
        for k, (crop, b, c) in enumerate(tiles_from_scene(image, boxes, scene.classes, rng, tile,
                                                          tiles_per_scene)):
            cv2.imwrite(str(tdir / "images" / f"{name}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (tdir / "labels" / f"{name}_{k}.txt").write_text("\n".join(yolo_lines(b, c, tile, tile)) + "\n")
    return len(scene.boxes)


def write_data_yaml(out: Path) -> Path:
    """Write ``OUT/data.yaml`` for Ultralytics naming every split present (tiles preferred for train)."""
    out = Path(out).resolve()
    splits = {}
    for split in ("train", "val", "test"):
        for kind in ("tiles", "scenes"):
            if (out / kind / split / "images").is_dir():
                splits.setdefault(split, f"{kind}/{split}/images")
    if "val" not in splits and "train" in splits:
        splits["val"] = splits["train"]
    if "train" not in splits and "val" in splits:  # an evaluation-only set: Ultralytics still wants the key
        splits = {"train": splits["val"], **splits}
    lines = [f"path: {out}"] + [f"{k}: {v}" for k, v in splits.items()]
    lines.append("names:")
    lines += [f"  {i}: '{n}'" for i, n in enumerate(CLASS_NAMES)]
    path = out / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def generate(out: Path, scenes: int, split: str, seed: int, designs: list[str], workers: int = 2,
             tile: int | None = None, tiles_per_scene: int = 4, keep_scenes: bool = False,
             full_view: bool | None = None, progress: bool = True, enlarge: float = 1.0,
             joker_marks: float = 0.0, joker_boost: float = 1.0, tight_fans: float = 0.0, zoom: float = 1.0) -> dict:
    """Generate ``scenes`` scenes; returns counts and timing. See the module docstring for the layout.

    ``enlarge`` cuts the tiles of a photo whose indices are small (median under ``ENLARGE_BELOW`` px)
    from the photo enlarged that many times (bilinear, after its JPEG compression): that is how the doubled pass
    of ``vision.scales.find_boxes`` shows a whole-table photo to the detector. Other photos are cut as
    they are. ``joker_marks`` is the share of jokers drawn with procedural corner marks (``datasets.jokers``);
    ``joker_boost`` multiplies the chance that a card is a joker (``datasets.scene_piles.sample_piles``);
    ``tight_fans`` is the share of fans stepped so tightly that the next card covers part of each suit pip
    (``datasets.scene_layout.place_piles``). ``zoom`` multiplies each photo's pixels per side
    (``datasets.scenes.make_scene``: the same table at a phone's full resolution).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(i, seed * 1_000_003 + i, designs, str(out), split, tile, tiles_per_scene, keep_scenes, full_view,
             enlarge, joker_marks, joker_boost, tight_fans, zoom) for i in range(scenes)]
    start = time.time()
    boxes = 0
    ctx = get_context("fork")
    with ctx.Pool(max(1, workers)) as pool:
        for k, n in enumerate(pool.imap_unordered(_work, jobs, chunksize=4), 1):
            boxes += n
            if progress and (k % 10 == 0 or k == scenes):
                rate = k / (time.time() - start)
                eta = (scenes - k) / max(rate, 1e-9)
                bar = "#" * int(30 * k / scenes)
                print(f"\r[{bar:<30}] {k}/{scenes} scenes  {rate:.1f}/s  eta {eta:.0f}s", end="", file=sys.stderr,
                      flush=True)
    if progress:
        print(file=sys.stderr)
    write_data_yaml(out)
    info = {"split": split, "scenes": scenes, "boxes": boxes, "designs": designs, "seed": seed, "tile": tile,
            "tiles_per_scene": tiles_per_scene if tile else 0, "enlarge": enlarge, "joker_marks": joker_marks,
            "joker_boost": joker_boost, "tight_fans": tight_fans, "zoom": zoom,
            "seconds": round(time.time() - start, 1)}
    (out / f"generate_{split}.json").write_text(json.dumps(info, indent=2))
    return info


def main(argv: list[str] | None = None) -> int:
    from .cardart import available_designs, design_names
    from .fontdecks import any_designs, font_designs, is_font_design

    ap = argparse.ArgumentParser(description="Generate synthetic Hand and Foot table scenes.")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--scenes", type=int, default=100)
    ap.add_argument("--split", default="train")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--designs", default="train",
                    help="comma-separated deck designs and groups ('train', 'heldout', 'all')")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--tile", type=int, default=None, help="also cut square tiles of this size (px)")
    ap.add_argument("--tiles-per-scene", type=int, default=4)
    ap.add_argument("--keep-scenes", action="store_true", help="write full scenes as well as tiles")
    ap.add_argument("--full-view", action="store_true", help="frame every table fully (evaluation scenes)")
    ap.add_argument("--enlarge", type=float, default=1.0,
                    help="cut the tiles of photos with small indices from the photo enlarged this many times "
                         "(2 mimics the pyramid's doubled pass, vision.scales; use with --full-view)")
    ap.add_argument("--joker-marks", type=float, default=0.0,
                    help="share of jokers drawn with procedural corner marks (training variety; datasets.jokers)")
    ap.add_argument("--font-decks", type=int, default=0,
                    help="add this many procedural font designs (font_0 ...; datasets.fontdecks) to --designs")
    ap.add_argument("--any-decks", type=int, default=0,
                    help="add this many procedural 'any deck' designs (any_0 ...: dark, metallic, four-colour, "
                         "jumbo-index decks; datasets.fontdecks) to --designs")
    ap.add_argument("--joker-boost", type=float, default=1.0,
                    help="multiply the chance that a card is a joker (training variety for the rarest index)")
    ap.add_argument("--tight-fans", type=float, default=0.0,
                    help="share of fans stepped so tightly that the next card covers part of each suit pip")
    ap.add_argument("--zoom", type=float, default=1.0,
                    help="each photo this many times more pixels per side: the same tables, as a phone's "
                         "full-resolution photo shows them (evaluation: how much is the photo's size)")
    args = ap.parse_args(argv)
    if not 0.25 <= args.zoom <= 4:
        ap.error(f"--zoom is a factor in [0.25, 4], got {args.zoom}")
    if not 0 <= args.tight_fans <= 1:
        ap.error(f"--tight-fans is a share in [0, 1], got {args.tight_fans}")
    if args.font_decks < 0 or args.any_decks < 0:
        ap.error(f"--font-decks and --any-decks must be 0 or more, got {args.font_decks} and {args.any_decks}")
    if args.joker_boost <= 0:
        ap.error(f"--joker-boost must be positive, got {args.joker_boost}")
    if args.enlarge != 1.0 and not args.tile:
        ap.error("--enlarge applies to tiles: give --tile")
    designs = design_names(args.designs)
    designs += [d for d in font_designs(args.font_decks) + any_designs(args.any_decks) if d not in designs]
    missing = sorted({d for d in designs if not is_font_design(d)} - set(available_designs()))
    if missing:
        print(f"generate: error: designs not available: {', '.join(missing)} (run python -m datasets.cardart "
              "--fetch first)", file=sys.stderr)
        return 1
    info = generate(args.out, args.scenes, args.split, args.seed, designs, args.workers, args.tile,
                    args.tiles_per_scene, args.keep_scenes, True if args.full_view else None,
                    enlarge=args.enlarge, joker_marks=args.joker_marks, joker_boost=args.joker_boost,
                    tight_fans=args.tight_fans, zoom=args.zoom)
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
