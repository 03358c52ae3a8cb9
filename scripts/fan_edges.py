"""How good is a fan's second count, from its edges, against its true count: one record per meld read.

    python scripts/fan_edges.py --scenes data/tables_hdev/scenes/val --cache data/cache_hdev
    python scripts/fan_edges.py --scenes data/tables_hdev/scenes/val --oracle   # from the true boxes
    python scripts/fan_edges.py --examples ../shared/tables_examples --cache data/cache_ex

Reads each table as ``scripts/fan_failures.py`` does (stage 1 from ``--cache``, or the true index boxes read as
their true codes with ``--oracle``) and, for each meld of the reading, measures three counts: the true one (the true
fan holding most of its read indices), the indices' (its cards), and the edges'
(:func:`vision.photo_checks.strip_count` on the meld as read; none when its edges are too faint or it has too few
read cards). The indices' count is ``right`` (as many cards as the true fan), ``over``, or ``under`` by the first
reason of its missing cards (those of the true fan it does not hold): ``hidden`` (the card shows no index),
``missed`` (an index shows but no pile holds it: not boxed, under the floor, read wrong, dropped), ``split``
(another pile holds it). Prints, by that class, how often the edges' count is equal, more and right, more and still
short, more and too many; and, where the edges show more, where their extra cards lie (in a gap, before the bottom
card) with the indices' class, the edges' count right or wrong, and the fan's end covered or open. Each record also
says whether the edges were read from the meld's true bottom (``dir_ok``), how many true cards lie below and above
the ones it holds, and, for the first three places before its bottom card, the edge there as a share of the read
cards' median edge strength, the strip's brightness less the fan's strips' (grey levels) and its share of card-paper
pixels (``places``). No figure is tuned here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from vision.types import PileKind  # noqa: E402


def meld_records(doc: dict, reading, owners: np.ndarray, image: np.ndarray, config) -> list[dict]:
    """One record per meld of ``reading`` (a :class:`vision.pipeline.SideReading` of ``doc``'s (H, W, 3) BGR
    ``image``; ``owners`` the true card of each read index or -1) that holds a read index of a true fan."""
    from vision.photo_checks import _bottom_first, end_covered, strip_count, table_colours

    cards = doc["cards"]
    pile_of = np.array([c["pile"] for c in cards])
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    colours = table_colours(image, config=config)
    held_by: dict[int, int] = {}  # true card -> reading pile
    for k, p in enumerate(reading.piles):
        for c in p.cards:
            for d in c.detections:
                if owners[d] >= 0:
                    held_by.setdefault(int(owners[d]), k)
    out = []
    for k, p in enumerate(reading.piles):
        if p.kind is not PileKind.MELD:
            continue
        own = [int(owners[d]) for c in p.cards for d in c.detections if owners[d] >= 0]
        if not own:
            continue
        pid = Counter(pile_of[own].tolist()).most_common(1)[0][0]
        if cards[int(np.flatnonzero(pile_of == pid)[0])]["pile_kind"] not in ("meld", "book"):
            continue  # a meld read where the table has no fan
        members = [i for i, c in enumerate(cards) if c["pile"] == pid]
        n_true, n_idx = len(members), len(p.cards)
        missing = [i for i in members if held_by.get(i) != k]
        mine = [j for j, i in enumerate(members) if held_by.get(i) == k]
        if n_idx == n_true:  # gap cards hold no index: the count is what is judged
            why = "right"
        elif n_idx > n_true:
            why = "over"
        elif any(not cards[i]["index_boxes_px"] for i in missing):
            why = "hidden"
        elif any(i not in held_by for i in missing):
            why = "missed"
        else:
            why = "split"
        where = sorted({"below" if j < min(mine, default=0) else "above" if j > max(mine, default=0) else "inside"
                        for j, i in enumerate(members) if i in missing}) if mine else []
        found = _bottom_first(p, gray, config)
        got = strip_count(gray, p, config=config, found=found) if found is not None else None
        covered = bool(found is not None and colours is not None and end_covered(image, found, colours, config=config))
        # the direction the edges were read in: is the meld's first card (the anchor at ``origin``) its lowest?
        first = None
        if found is not None:
            at = [c for c in p.cards if np.isclose(c.centers, found["origin"][None], atol=0.5).all(axis=1).any()]
            first = next((int(owners[d]) for c in at for d in c.detections if owners[d] >= 0), None)
        lows = [members.index(i) for i in members if held_by.get(i) == k]
        dir_ok = None if first is None or first not in members or not lows else members.index(first) == min(lows)
        places = []
        if found is not None:
            for j in range(1, 4):
                q = found["positions"][0] - j * found["step"]
                a = q + found["offset"]
                places.append([round(found["edge"](q) / max(found["strength"], 1e-6), 2),
                               round(found["bright"](a, a + found["step"]), 1),
                               round(_paper_share(image, found, a, a + found["step"], config), 2)])
        out.append({"pile": int(pid), "dir_ok": dir_ok, "n_below": min(lows) if lows else None,
                    "n_above": len(members) - 1 - max(lows) if lows else None, "places": places, "true": n_true,
                    "indices": n_idx, "edges": None if got is None else got[0],
                    "edges_where": [] if got is None else got[1], "why": why, "missing_where": where,
                    "covered": covered, "strength": None if found is None else round(found["strength"], 1),
                    "step": None if found is None else round(found["step"], 1),
                    "size": round(float(np.median([c.size for c in p.cards])), 1),
                    "offset": None if found is None else round(found["offset"], 1)})
    return out


def _paper_share(image: np.ndarray, found: dict, a: float, b: float, config) -> float:
    """The share of the band's pixels between places ``a`` and ``b`` (px along the fan) that look like a card's
    white paper as bright as the fan's strips (:func:`vision.photo_checks.end_covered`'s test); 0 off the photo."""
    from vision.photo_checks import _shares

    tt, ss = np.meshgrid(np.arange(a, b, 1.0), np.arange(*found["across"], 1.0))
    x = found["origin"][0] + tt * found["u"][0] + ss * found["v"][0]
    y = found["origin"][1] + tt * found["u"][1] + ss * found["v"][1]
    h, w = image.shape[:2]
    if not x.size or x.min() < 0 or y.min() < 0 or x.max() >= w or y.max() >= h:
        return 0.0
    pixels = image[y.astype(int), x.astype(int)].reshape(-1, 3)
    grey = pixels.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32)
    paper = np.linalg.norm(_shares(pixels) - 1 / 3, axis=1) <= config.fan_gaps.strip_card_chroma
    return float((paper & (np.abs(grey - found["strips"]) <= config.fan_gaps.strip_bright)).mean())


def summarise(records: list[dict]) -> str:
    """The measurement table of ``records`` (module docstring), as text."""
    rows: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        row = rows[r["why"]]
        row["melds"] += 1
        if r["edges"] is None:
            row["no edges"] += 1
        elif r["edges"] == r["indices"]:
            row["equal"] += 1
            row["equal, right"] += r["indices"] == r["true"]
        elif r["edges"] > r["indices"]:
            row["more"] += 1
            key = "more, right" if r["edges"] == r["true"] else "more, short" if r["edges"] < r["true"] else \
                "more, too many"
            row[key] += 1
        else:
            row["fewer"] += 1
            row["fewer, right" if r["edges"] == r["true"] else "fewer, wrong"] += 1
    cols = ["melds", "no edges", "equal", "more", "more, right", "more, short", "more, too many", "fewer"]
    lines = ["| indices' count | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for why in ("right", "hidden", "missed", "split", "over"):
        lines.append(f"| {why} | " + " | ".join(str(rows[why][c]) for c in cols) + " |")
    total = sum(rows.values(), Counter())
    lines.append("| all | " + " | ".join(str(total[c]) for c in cols) + " |")
    more = [r for r in records if r["edges"] is not None and r["edges"] > r["indices"]]
    right = sum(r["edges"] == r["true"] for r in more)
    on_right = sum(r["why"] == "right" for r in more)
    lines.append(f"edges more: {right} right, {len(more) - right} wrong (of which {on_right} on melds the indices "
                 "count right)")
    where = Counter()
    for r in records:
        if r["edges"] is not None and r["edges"] > r["indices"]:
            where[("; ".join(sorted(set(r["edges_where"]))), r["why"], "right" if r["edges"] == r["true"] else
                   "wrong", "covered" if r["covered"] else "open")] += 1
    lines.append("edges more, by where the edges' cards lie / indices' count / edges' count / covered end:")
    lines += [f"  {v:3d}  {k}" for k, v in where.most_common()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from fan_failures import read_tables, table_arguments

    from vision.config import DEFAULT

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    table_arguments(ap)
    ap.add_argument("--json", type=Path, help="also write every meld's record here")
    args = ap.parse_args(argv)
    records = []
    for doc, path, image, _, reading, owners in read_tables(ap, args):
        for rec in meld_records(doc, reading, owners, image, DEFAULT):
            rec["table"] = Path(path).stem
            records.append(rec)
    print(summarise(records))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
