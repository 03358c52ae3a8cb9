"""The corner-index boxes of a rendered deck, found from the ink in each card's corners (OpenCV).

Box convention (matches the real-photo labels in ``../shared/realdata/phone_corners``): an axis-aligned
box around rank glyph + the small suit pip under it, padded on every side by ``INDEX_MARGIN`` times the
deck's typical index ink height (in pixels, the same pad horizontally and vertically). Jokers get a box
around their corner mark (the word JOKER, a star) where they have one, and no box otherwise.

:func:`find_index_boxes` finds the top-left index of every card (and the top-right one for 4-index decks) and
mirrors each by 180 degrees for the opposite corner.
"""
from __future__ import annotations

import cv2
import numpy as np

from .art_sources import CARD_CODES, RANKS, SUITS, _Spec

#: Pad around the index ink on every side, as a fraction of the deck's median index ink height (rank +
#: pip, in px). Measured on 184 cleanly visible labelled corners of the real phone photos: the labels sit
#: a median 0.14-0.17 ink heights outside the ink horizontally and 0.12-0.14 vertically (about 11 % of the
#: box height, 17 % of its width), i.e. a roughly constant pixel pad.
INDEX_MARGIN = 0.14


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


def find_index_boxes(cards: dict[str, np.ndarray], spec: _Spec):
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
