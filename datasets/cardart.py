"""Card art for synthetic training scenes: free deck designs, rendered cards and their corner-index boxes.

Where the art comes from (see ``../shared/cardart.md``): Debian packages ``gnome-cards-data`` and
``aisleriot`` (aisleriot sheets, GPL/LGPL), ``kdegames-card-data-kf5`` (KDE decks, GPL) and the npm
packages ``@heruka_urgyen/react-playing-cards`` (Adrian Kennard's CC0 cards) and
``@younestouati/playing-cards-standard-deck`` (Chris Aguilar's LGPL cards). Everything is fetched with the
ordinary clients (``apt-get download``, ``npm pack``) into a cache outside git (``$HANDFOOT_CACHE`` or
``~/.cache/handfoot``); ship weights and code, never the renders.

``load_deck(design)`` renders one design once (resvg), finds the corner index of every card from the ink
in the card's top-left corner, mirrors it by 180 degrees for the opposite corner (and finds the top-right
one too for 4-index decks), and caches PNGs plus a JSON of boxes. Later loads read the cache.

Box convention (matches the real-photo labels in ``../shared/realdata/phone_corners``): an axis-aligned
box around rank glyph + the small suit pip under it, padded on every side by ``INDEX_MARGIN`` times the
deck's typical index ink height (in pixels, the same pad horizontally and vertically). Jokers get a box
around their corner mark (the word JOKER, a star) where they have one, and no box otherwise.

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

from .art_render import render_design, render_svg
from .art_sources import (CACHE_DIR, CARD_CODES, HELDOUT_DESIGNS, RANKS, SUITS, TRAIN_DESIGNS, _SPECS, _design_path,
                          _root, _Spec, available_designs, design_names, fetch_cardart)

#: The public names: the entry points and types here, and what the art modules give every caller.
__all__ = ["CACHE_DIR", "CARD_CODES", "HELDOUT_DESIGNS", "INDEX_MARGIN", "RANKS", "RENDER_VERSION", "SUITS",
           "TRAIN_DESIGNS", "CardImage", "Deck", "available_designs", "contact_sheet", "design_names",
           "fetch_cardart", "load_deck", "main", "render_svg"]


#: Pad around the index ink on every side, as a fraction of the deck's median index ink height (rank +
#: pip, in px). Measured on 184 cleanly visible labelled corners of the real phone photos: the labels sit
#: a median 0.14-0.17 ink heights outside the ink horizontally and 0.12-0.14 vertically (about 11 % of the
#: box height, 17 % of its width), i.e. a roughly constant pixel pad.
INDEX_MARGIN = 0.14

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


# --------------------------------------------------------------------------------------------- index boxes

def _background(imgs: list[np.ndarray]) -> np.ndarray:
    px = np.concatenate([im[:, :, :3][im[:, :, 3] > 250] for im in imgs])
    return np.median(px, 0)


def _ink_mask(img: np.ndarray, bg: np.ndarray, ring: np.ndarray, thr: int = 70) -> np.ndarray:
    d = np.abs(img[:, :, :3].astype(np.int16) - bg.astype(np.int16)).max(-1)
    return (img[:, :, 3] > 160) & (d > thr) & ~ring


def _border_ring(img: np.ndarray, bg: np.ndarray) -> tuple[np.ndarray, int]:
    """Pixels of the card's outline stroke (a band along the alpha edge), and its width."""
    a = (img[:, :, 3] > 128).astype(np.uint8)
    d = np.abs(img[:, :, :3].astype(np.int16) - bg.astype(np.int16)).max(-1) > 70
    h, w = a.shape
    runs = []
    for line, dl in ((a[h // 2], d[h // 2]), (a[:, w // 2], d[:, w // 2]),
                     (a[h // 2, ::-1], d[h // 2, ::-1]), (a[::-1, w // 2], d[::-1, w // 2])):
        idx = np.nonzero(line)[0]
        if len(idx) == 0:
            continue
        i = idx[0]
        n = 0
        while i + n < len(dl) and dl[i + n] and n < 0.05 * w:
            n += 1
        runs.append(n)
    bw = int(max(runs)) if runs else 0
    if bw == 0:
        return np.zeros_like(a, bool), 0
    dist = cv2.distanceTransform(np.pad(a, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
    return dist <= bw + 1.0, bw


def _components(mask: np.ndarray):
    """Connected components of ``mask`` as [x1, y1, x2, y2, area, cut]; ``cut``: touches the right or
    bottom edge of the mask (a frame, art or pip reaching beyond the search region)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    out = []
    H, W = mask.shape
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        out.append([x, y, x + w, y + h, area, x + w >= W or y + h >= H])
    return out


def _grow_index(comps, min_h: float, gap_v: float = 0.6, gap_h: float = 0.15):
    """Seed at the component nearest the corner, then add stacked / side-by-side neighbours.

    comps: from ``_components``. Components at least ``min_h`` tall or wide are glyph parts: one below or
    above the box (overlapping it horizontally) joins within ``gap_v`` seed heights, one beside it
    (overlapping vertically) within ``gap_h``. Smaller specks join only when touching the box. Cut
    components never join. Returns (box [x1, y1, x2, y2] or None, whether a cut component would have
    joined, seed height).
    """
    big = [c for c in comps if (c[3] - c[1]) >= min_h or (c[2] - c[0]) >= min_h]
    seeds = [c for c in big if not c[5]]
    if not seeds:
        return None, any(c[5] for c in big), 0
    seed = min(seeds, key=lambda c: np.hypot(c[0], c[1]))
    hs = max(seed[3] - seed[1], seed[2] - seed[0])
    box = list(seed[:4])
    used = {id(seed)}
    cut_near = False
    changed = True
    while changed:
        changed = False
        for c in comps:
            if id(c) in used:
                continue
            xo = min(box[2], c[2]) - max(box[0], c[0])
            yo = min(box[3], c[3]) - max(box[1], c[1])
            vgap = max(c[1] - box[3], box[1] - c[3])
            hgap = max(c[0] - box[2], box[0] - c[2])
            if any(c is b for b in big):
                join = ((xo >= 0.3 * min(c[2] - c[0], box[2] - box[0]) and vgap <= gap_v * hs)
                        or (yo >= 0.5 * min(c[3] - c[1], box[3] - box[1]) and hgap <= gap_h * hs))
            else:
                join = vgap <= 0.15 * hs and hgap <= 0.15 * hs
            if join and c[5]:
                cut_near = True
                used.add(id(c))
            elif join:
                box = [min(box[0], c[0]), min(box[1], c[1]), max(box[2], c[2]), max(box[3], c[3])]
                used.add(id(c))
                changed = True
    return box, cut_near, hs


def _corner_ink_box(img: np.ndarray, bg: np.ndarray, ring: np.ndarray, zone: tuple[int, int],
                    flip: bool = False):
    """Index ink box in the top-left (or, with ``flip``, top-right) corner, searched in a zone of
    ``zone`` = (width, height) px. Returns (box or None, cut_near, seed height)."""
    h, w = img.shape[:2]
    if flip:
        img, ring = img[:, ::-1], ring[:, ::-1]
    zw, zh = zone
    ink = _ink_mask(img[:zh, :zw], bg, ring[:zh, :zw])
    box, cut_near, hs = _grow_index(_components(ink), min_h=0.02 * h)
    if box is not None and flip:
        box = [w - box[2], box[1], w - box[0], box[3]]
    return box, cut_near, hs


def _index_zone(cards: dict[str, np.ndarray], bg, ring, region, flip=False) -> tuple[int, int]:
    """Search zone (w, h px) for a deck's index, from its four aces (the cleanest corners): start at
    ``region`` (fractions of the card) and widen while an ace index reaches the zone's edge; then fit the
    zone to the aces' indices, with room to the right for the wider "10"."""
    h, w = cards["AC"].shape[:2]
    refs = [cards["A" + s] for s in SUITS]
    fx, fy = region
    for _ in range(6):
        zone = (round(fx * w), round(fy * h))
        res = [_corner_ink_box(im, bg, ring, zone, flip) for im in refs]
        if not any(r[1] for r in res) and all(r[0] is not None for r in res):
            break
        fx, fy = min(0.6, fx * 1.2), min(0.6, fy * 1.2)
    boxes = [r[0] for r in res if r[0] is not None]
    if not boxes:
        return (round(region[0] * w), round(region[1] * h))
    if flip:
        boxes = [[w - b[2], b[1], w - b[0], b[3]] for b in boxes]
    hs = float(np.median([r[2] for r in res if r[0] is not None]))
    x2 = max(b[2] for b in boxes) + 0.6 * hs
    y2 = max(b[3] for b in boxes) + 0.8 * hs
    return (min(w, round(x2)), min(h, round(y2)))


def _joker_box(img, bg, ring, region, corner):
    """Joker corner mark (word JOKER, star): like an index, but the zone widens (up to 70 % of the card)
    while the mark runs into its edge, since vertical JOKER words are long."""
    h, w = img.shape[:2]
    fx, fy = region
    for _ in range(8):
        b, cut_near, _ = _corner_ink_box(img, bg, ring, (round(fx * w), round(fy * h)), flip=(corner == "tr"))
        if b is None or not cut_near or (fx >= 0.7 and fy >= 0.7):
            return b
        fx, fy = min(0.7, fx * 1.15), min(0.7, fy * 1.15)
    return b


def _find_boxes(cards: dict[str, np.ndarray], spec: _Spec):
    """Index boxes for every face of a deck. Returns ({key: [boxes]}, margin_px, report lines).

    Each corner's ink box is found per card (``_corner_ink_box`` within the deck's index zone); a box
    whose height is off the deck's typical index (pip merged into court art and lost, or art grown in) is
    replaced by the deck's template index box (the median over A-9), widened by what was found. Boxes
    are then padded by ``INDEX_MARGIN`` x median ink height and mirrored by 180 degrees.
    """
    some = [cards[r + s] for r in ("2", "3") for s in SUITS]
    bg = _background(some)
    ring, bw = _border_ring(cards["2C"], bg)
    h, w = cards["2C"].shape[:2]
    zones = {"tl": _index_zone(cards, bg, ring, spec.region)}
    if spec.four_index:
        zones["tr"] = _index_zone(cards, bg, ring, spec.region, flip=True)
    report = [f"zones {zones} border {bw}px"]
    ink: dict[tuple[str, str], list | None] = {}
    for key, img in cards.items():
        if key == "BACK":
            continue
        if key.startswith("JK"):
            for corner in spec.joker_corners:
                ink[key, corner] = _joker_box(img, bg, ring, spec.joker_region, corner)
            continue
        for corner, zone in zones.items():
            b, cut_near, _ = _corner_ink_box(img, bg, ring, zone, flip=(corner == "tr"))
            ink[key, corner] = b
    # template per corner from the plain number cards (A-9; the tens have their own, wider one)
    for corner in zones:
        ref = np.array([ink[r + s, corner] for r in RANKS[:9] for s in SUITS if ink[r + s, corner] is not None])
        if len(ref) < 8:
            raise RuntimeError(f"index not found on most number cards ({corner} corner)")
        tpl = np.median(ref, 0)
        th, tw = tpl[3] - tpl[1], tpl[2] - tpl[0]
        tens = [ink["10" + s, corner] for s in SUITS if ink["10" + s, corner] is not None]
        tpl10 = tpl.copy()
        if tens:
            tpl10[2] = max(tpl[2], min(float(np.median([b[2] for b in tens])), tpl[0] + 2.2 * tw))
        for key in CARD_CODES:
            b = ink[key, corner]
            t = tpl10 if key.startswith("10") else tpl
            if b is None:
                ink[key, corner] = [float(v) for v in t]
                report.append(f"{key}: {corner} index not found; deck template used")
                continue
            too_wide = b[2] - b[0] > (2.2 if key.startswith("10") else 1.5) * tw
            too_tall = b[3] - b[1] > 1.2 * th
            misplaced = b[1] > tpl[1] + 0.25 * th or b[0] > tpl[0] + 0.5 * tw
            too_short = b[3] - b[1] < 0.85 * th
            if too_wide or too_tall or misplaced:  # grown into art/pips or found something else
                # retry in a zone fitted to the template (what reaches beyond it is cut off), else template
                zone = (round(t[2] + 0.3 * tw), round(t[3] + 0.15 * th))
                if corner == "tr":
                    zone = (round(w - t[0] + 0.3 * tw), zone[1])
                rb, _, _ = _corner_ink_box(cards[key], bg, ring, zone, flip=(corner == "tr"))
                ok = (rb is not None and 0.85 * th <= rb[3] - rb[1] <= 1.2 * th and rb[1] <= tpl[1] + 0.25 * th
                      and rb[2] - rb[0] <= (2.2 if key.startswith("10") else 1.5) * tw)
                nb = [float(v) for v in rb] if ok else [float(v) for v in t]
            elif too_short:  # part found (rank only, pip merged into art): extend to the template
                nb = [min(b[0], t[0]), min(b[1], t[1]), max(b[2], t[2]), max(b[3], t[3])]
            else:
                continue
            report.append(f"{key}: {corner} ink box {b} replaced by {[round(v) for v in nb]} (template)")
            ink[key, corner] = nb
    heights = [b[3] - b[1] for (k, c), b in ink.items() if not k.startswith("JK") and b is not None]
    hmed = float(np.median(heights))
    margin = INDEX_MARGIN * hmed
    out: dict[str, list] = {k: [] for k in cards if k != "BACK"}
    for (key, corner), b in ink.items():
        boxes = out[key]
        if b is None:
            continue
        x1, y1 = max(0.0, b[0] - margin), max(0.0, b[1] - margin)
        x2, y2 = min(float(w), b[2] + margin), min(float(h), b[3] + margin)
        boxes.append((x1, y1, x2, y2))
        boxes.append((w - x2, h - y2, w - x1, h - y1))  # the same index rotated by 180 degrees
    return out, margin, report


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
    boxes, margin, report = _find_boxes(imgs, spec)
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
