"""Card art for synthetic training scenes: free deck designs, rendered cards and their corner-index boxes.

The parts, one module each: where the art comes from and fetching it (:mod:`datasets.art_sources`: the design
lists, ``fetch_cardart``), rendering it (:mod:`datasets.art_render`) and finding the corner-index boxes
(:mod:`datasets.art_indices`, with the box convention). This module holds the entry points and the types:
:func:`load_deck`, :class:`Deck`, :class:`CardImage`, :func:`contact_sheet` and the command line; it also gives
the parts' public names (``__all__``).

``load_deck(design)`` renders one design once (resvg), finds the corner index of every card from the ink
in the card's top-left corner, mirrors it by 180 degrees for the opposite corner (and finds the top-right
one too for 4-index decks), and caches PNGs plus a JSON of boxes. Later loads read the cache.

Command line: ``python -m datasets.cardart --fetch`` downloads everything; ``--check DIR`` renders all
designs and writes contact sheets (every card with its boxes drawn) into DIR for a visual check.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .art_indices import INDEX_MARGIN, find_index_boxes
from .art_render import render_design, render_svg
from .art_sources import (CACHE_DIR, CARD_CODES, HELDOUT_DESIGNS, RANKS, SUITS, TRAIN_DESIGNS, _SPECS, _design_path,
                          _root, available_designs, design_names, fetch_cardart)

#: The public names: the entry points and types here, and what the art modules give every caller.
__all__ = ["CACHE_DIR", "CARD_CODES", "HELDOUT_DESIGNS", "INDEX_MARGIN", "RANKS", "RENDER_VERSION", "SUITS",
           "TRAIN_DESIGNS", "CardImage", "Deck", "available_designs", "contact_sheet", "design_names",
           "fetch_cardart", "load_deck", "main", "render_svg"]


#: Bump when rendering or box finding changes: cached renders with another version are redone.
RENDER_VERSION = 5

# --------------------------------------------------------------------------------------------- data types

@dataclass
class CardImage:
    """One rendered card face.

    code: ``"KH"``, ``"10S"``, ``"2C"`` ...; jokers are ``"JK"`` with their colour in ``joker_color``.
    image: (H, W, 4) uint8 BGRA (OpenCV channel order), cropped to the card outline; alpha 0 outside the
        rounded corners.
    index_boxes: (x1, y1, x2, y2) in pixels of ``image`` (x2, y2 exclusive edges): the top-left corner
        index and the 180-degree-rotated bottom-right one (plus top-right and bottom-left for 4-index
        decks). Empty for a joker without a corner mark.
    joker_color: ``"red"``, ``"black"`` or None (not a joker, or a deck whose only joker has no colour).
    """

    code: str
    image: np.ndarray
    index_boxes: list[tuple[float, float, float, float]]
    joker_color: str | None = None


@dataclass
class Deck:
    """All cards of one design, every image the same (H, W).

    cards: code -> list of CardImage (one per code, ``"JK"`` holds [red, black] or the deck's single joker;
        decks without jokers have no ``"JK"`` key). back: (H, W, 4) BGRA card back.
    """

    design: str
    cards: dict[str, list[CardImage]]
    back: np.ndarray | None
    size: tuple[int, int] = field(default=(0, 0))  # (W, H) px

    @property
    def has_jokers(self) -> bool:
        return bool(self.cards.get("JK"))


# --------------------------------------------------------------------------------------------- load_deck

def _joker_color(key: str) -> str | None:
    return {"JK_red": "red", "JK_black": "black"}.get(key)


def load_deck(design: str, width: int = 240, cache_dir=None) -> Deck:
    """Load one deck design as BGRA card images of ``width`` px (height per the design's aspect).

    The first call for a (design, width) renders the design (about 1-2 s for an aisleriot sheet, longer
    for KDE decks the first time), finds the index boxes and caches PNGs plus ``boxes.json`` under
    ``<cache>/cardart/rendered/<design>/<width>/``; later calls read that cache. Art not yet in the cache
    is fetched first (only that design's source).

    Returns a Deck whose ``cards`` maps the 52 codes (``"AS"``, ``"10H"``...) and ``"JK"`` (jokers red
    then black, or the deck's single joker; absent when the design has none) to lists of CardImage.
    Raises RuntimeError for an unknown design or when its art cannot be fetched or rendered.
    """
    if design not in _SPECS:
        raise RuntimeError(f"unknown card design {design!r}; known: {', '.join(sorted(_SPECS))}")
    spec = _SPECS[design]
    width = int(width)
    out_dir = _root(cache_dir) / "rendered" / design / str(width)
    meta_path = out_dir / "boxes.json"
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("version") == RENDER_VERSION:
                return _deck_from_cache(out_dir, meta)
        except (OSError, ValueError, KeyError):
            pass
    if not _design_path(spec, cache_dir).exists():
        try:
            fetch_cardart(sources=(spec.source,), cache_dir=cache_dir, quiet=True)
        except Exception as e:
            raise RuntimeError(f"card design {design!r}: fetching its art ({spec.package}) failed: {e}") from e
        if not _design_path(spec, cache_dir).exists():
            raise RuntimeError(f"card design {design!r}: {spec.path} missing from package {spec.package}")
    try:
        imgs = render_design(spec, width, cache_dir)
    except RuntimeError as e:
        raise RuntimeError(f"card design {design!r}: rendering failed: {e}") from e
    boxes, margin, report = find_index_boxes(imgs, spec)
    h, w = imgs["2C"].shape[:2]
    meta = {"version": RENDER_VERSION, "design": design, "width": w, "height": h, "margin_px": round(margin, 2),
            "report": report, "cards": []}
    tmp = Path(tempfile.mkdtemp(prefix=".render-", dir=_ensure(out_dir.parent)))
    try:
        for key, img in imgs.items():
            if img.shape[:2] != (h, w):
                raise RuntimeError(f"card design {design!r}: {key} is {img.shape[:2]}, not {(h, w)}")
            fname = f"{key}.png"
            cv2.imwrite(str(tmp / fname), img)
            if key == "BACK":
                meta["back"] = fname
                continue
            meta["cards"].append({"key": key, "code": "JK" if key.startswith("JK") else key, "file": fname,
                                  "joker_color": _joker_color(key),
                                  "index_boxes": [[round(v, 2) for v in b] for b in boxes[key]]})
        (tmp / "boxes.json").write_text(json.dumps(meta, indent=1))
        if out_dir.exists():
            shutil.rmtree(out_dir, ignore_errors=True)
        try:
            os.replace(tmp, out_dir)
        except OSError:  # another process got there first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return _deck_from_cache(out_dir, json.loads((out_dir / "boxes.json").read_text()))


def _ensure(p: Path) -> Path:
    p.mkdir(parents=True, exist_ok=True)
    return p


def _deck_from_cache(out_dir: Path, meta: dict) -> Deck:
    cards: dict[str, list[CardImage]] = {}
    order = {"JK_red": 0, "JK_black": 1, "JK": 2}
    for c in sorted(meta["cards"], key=lambda c: order.get(c["key"], -1)):
        img = cv2.imread(str(out_dir / c["file"]), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise RuntimeError(f"cached card {out_dir / c['file']} is unreadable")
        cards.setdefault(c["code"], []).append(
            CardImage(c["code"], img, [tuple(b) for b in c["index_boxes"]], c.get("joker_color")))
    back = None
    if meta.get("back"):
        back = cv2.imread(str(out_dir / meta["back"]), cv2.IMREAD_UNCHANGED)
    return Deck(meta["design"], cards, back, (int(meta["width"]), int(meta["height"])))


# --------------------------------------------------------------------------------------------- checking

def _composite(img: np.ndarray) -> np.ndarray:
    a = img[:, :, 3:4].astype(np.float32) / 255
    return (img[:, :, :3] * a + np.array([40, 110, 40], np.float32) * (1 - a)).astype(np.uint8)


def contact_sheet(deck: Deck, cols: int = 14, corners: bool = False) -> np.ndarray:
    """(H, W, 3) BGR image of every card of ``deck`` on green, index boxes drawn in red.

    With ``corners`` each tile is the card's top-left and bottom-right corners (enough to show the boxes)
    side by side, magnified 2x, for checking boxes closely; otherwise whole cards plus the back.
    """
    items = [ci for code in CARD_CODES if code in deck.cards for ci in deck.cards[code]]
    items += deck.cards.get("JK", [])
    tiles = []
    w0, h0 = items[0].image.shape[1], items[0].image.shape[0]
    tl = [b for ci in items for b in ci.index_boxes if b[0] < w0 / 2 and b[1] < h0 / 2]
    cw = min(w0 // 2, round(max([0.3 * w0] + [b[2] + 0.05 * w0 for b in tl])))
    chh = min(h0 // 2, round(max([0.2 * h0] + [b[3] + 0.03 * h0 for b in tl])))
    for ci in items:
        t = _composite(ci.image)
        for (x1, y1, x2, y2) in ci.index_boxes:
            cv2.rectangle(t, (int(round(x1)), int(round(y1))), (int(round(x2)) - 1, int(round(y2)) - 1),
                          (0, 0, 255), 1)
        label = ci.code + {"red": "r", "black": "b"}.get(ci.joker_color or "", "")
        h, w = t.shape[:2]
        if corners:
            t = np.hstack([t[:chh, :cw], np.full((chh, 3, 3), 255, np.uint8), t[h - chh:, w - cw:]])
            t = cv2.resize(t, None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
            cv2.putText(t, label, (t.shape[1] // 2 - 30, t.shape[0] - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                        (255, 0, 255), 2)
        else:
            cv2.putText(t, label, (w // 3, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 0, 255), 2)
        tiles.append(t)
    if deck.back is not None and not corners:
        tiles.append(_composite(deck.back))
    h, w = tiles[0].shape[:2]
    rows = []
    for i in range(0, len(tiles), cols):
        row = tiles[i:i + cols] + [np.zeros((h, w, 3), np.uint8)] * (cols - len(tiles[i:i + cols]))
        rows.append(np.hstack([np.pad(t, ((2, 2), (2, 2), (0, 0))) for t in row]))
    return np.vstack(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Fetch, render and check card art for synthetic scenes.")
    ap.add_argument("--fetch", action="store_true", help="download and unpack all sources")
    ap.add_argument("--sources", default="aisleriot,kde,npm")
    ap.add_argument("--check", type=Path, help="write contact sheets of the designs into this folder")
    ap.add_argument("--designs", default="all", help="'all', 'train', 'heldout' or a comma-separated list")
    ap.add_argument("--width", type=int, default=240)
    args = ap.parse_args(argv)
    if args.fetch:
        t0 = time.time()
        raw = fetch_cardart(tuple(s for s in args.sources.split(",") if s))
        print(f"fetched into {raw} in {time.time() - t0:.1f} s")
    if args.check:
        names = design_names(args.designs)
        args.check.mkdir(parents=True, exist_ok=True)
        for name in names:
            t0 = time.time()
            deck = load_deck(name, args.width)
            dt = time.time() - t0
            meta = json.loads((_root(None) / "rendered" / name / str(args.width) / "boxes.json").read_text())
            cv2.imwrite(str(args.check / f"deck_{name}.png"), contact_sheet(deck))
            cv2.imwrite(str(args.check / f"corners_{name}.png"), contact_sheet(deck, cols=7, corners=True))
            print(f"{name:28s} {deck.size[0]}x{deck.size[1]} {len(deck.cards)} codes "
                  f"jokers={len(deck.cards.get('JK', []))} margin={meta['margin_px']}px {dt:.1f} s"
                  + ("".join("\n    " + r for r in meta["report"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
