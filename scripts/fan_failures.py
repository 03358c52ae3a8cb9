"""Why each fan the camera pipeline counts wrong is wrong: one line per wrong fan and a table of buckets.

    python scripts/fan_failures.py --scenes data/tables_hdev/scenes/val --cache data/cache_hdev --limit 50
    python scripts/fan_failures.py --examples ../shared/tables_examples --cache data/cache_ex
    python scripts/fan_failures.py --scenes data/tables_hdev/scenes/val --oracle   # from the true boxes

Reads each table with the models (stage 1 from ``--cache`` as ``scripts/evaluate_layout.py`` keeps it; with
``--oracle`` from the true index boxes instead, read as their true codes: what the geometry loses alone) and, for
each true fan (a meld or book) not counted right, looks at each of its cards that no pile of the reading holds by a
read index:

* ``hidden``: the card shows no index (the generator's or the render's truth);
* ``not boxed``: no box of the detector's (any confidence it keeps) covers one of its indices (IoU ``--match-iou``,
  0.3 by default);
* ``under floor``: a box covers it, the reader's likeliest rank for it is the card's (or a wild for a wild), but it
  was not read (its detector confidence and the reader's probability are written);
* ``read wrong``: a box covers it and the reader's likeliest rank is another;
* ``dropped`` (``--oracle`` only): its true box was given, read as its own code, and no pile holds it;

and a fan whose every card is held by a read index is ``grouping`` (split, merged, or paired wrong). A fan's bucket
is its first missing card's in that order (the one a fix would have to reach first). No figures are tuned here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from datasets.examples import load_examples  # noqa: E402
from datasets.scene_labels import true_detections  # noqa: E402
from vision.classes import RANKS, rank_of  # noqa: E402
from vision.types import Detections, box_iou  # noqa: E402

ORDER = ("hidden", "not boxed", "under floor", "read wrong", "dropped")


def fan_buckets(doc: dict, reading, found: Detections, owners: np.ndarray, match_iou: float) -> list[dict]:
    """One record per true fan of ``doc`` counted wrong: its pile id, size, count(s) read, bucket and the missing
    cards' reasons (``reading`` a :class:`vision.pipeline.SideReading`, ``found`` stage 1's boxes with the
    reader's ``rank_p``, ``owners`` the true card of each read index or -1)."""
    cards = doc["cards"]
    pile_of = np.array([c["pile"] for c in cards])
    pred: dict[int, list[int]] = {}
    held: set[int] = set()
    for p in reading.piles:
        own = [int(owners[d]) for c in p.cards for d in c.detections if owners[d] >= 0]
        held.update(own)
        if own:
            pred.setdefault(Counter(pile_of[own].tolist()).most_common(1)[0][0], []).append(len(p.cards))
    out = []
    kinds = {c["pile"]: c["pile_kind"] for c in cards}
    for pid, kind in kinds.items():
        if kind not in ("meld", "book"):
            continue
        members = [i for i, c in enumerate(cards) if c["pile"] == pid]
        got = pred.get(pid, [])
        if len(got) == 1 and got[0] == len(members):
            continue
        reasons = []
        for i in members:
            if i in held:
                continue
            reasons.append(_card_reason(cards[i], found, match_iou))
        bucket = min((r["why"] for r in reasons), key=ORDER.index) if reasons else "grouping"
        out.append({"pile": pid, "cards": len(members), "read": got, "bucket": bucket, "missing": reasons,
                    "over": bool(got) and max(got) > len(members)})
    return out


def _card_reason(card: dict, found: Detections, match_iou: float) -> dict:
    """Why one card of a fan holds no read index (module docstring)."""
    rec = {"code": card["code"]}
    if not card["index_boxes_px"]:
        return {**rec, "why": "hidden"}
    truth = np.array(card["index_boxes_px"], np.float32).reshape(-1, 4)
    if not len(found):
        return {**rec, "why": "not boxed"}
    iou = box_iou(truth, found.xyxy)
    best = np.unravel_index(int(iou.argmax()), iou.shape)[1]
    if iou.max() < match_iou:
        return {**rec, "why": "not boxed", "iou": round(float(iou.max()), 2)}
    if "rank_p" not in found.data:  # the true boxes, read as their true codes (--oracle)
        return {**rec, "why": "dropped"}
    rank_p = found.data["rank_p"][best]
    rank = rank_of(card["code"])
    top = RANKS[int(rank_p.argmax())]
    right = top == rank or (rank in ("2", "JK") and top in ("2", "JK"))
    return {**rec, "why": "under floor" if right else "read wrong", "det": round(float(found.confidence[best]), 2),
            "p_rank": round(float(rank_p[RANKS.index(rank)]), 2), "reader": top}


def table_arguments(ap: argparse.ArgumentParser) -> None:
    """Add the options that say which tables to read and how (``--scenes`` or ``--examples``, ``--cache`` or
    ``--oracle``, ``--limit``, ``--match-iou``) to ``ap``; :func:`read_tables` reads them."""
    ap.add_argument("--scenes", type=Path)
    ap.add_argument("--examples", type=Path)
    ap.add_argument("--cache", type=Path, help="stage 1's boxes and readings kept per photo (with the models)")
    ap.add_argument("--oracle", action="store_true", help="the true index boxes instead of the models")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--match-iou", type=float, default=0.3,
                    help="IoU at which a box is on a true index (0.3: the detector's boxes on generated tables are "
                         "looser than the true ones; a box at 0.3-0.5 is on the index, not on a neighbour's)")


def read_tables(ap: argparse.ArgumentParser, args: argparse.Namespace):
    """Yield (doc, path, image, found, reading, owners) for each table ``args`` names (:func:`table_arguments`):
    its truth, its photo's path, the (H, W, 3) BGR photo, stage 1's boxes (cached, or the true ones), the side
    :func:`vision.pipeline.read_image` reads, and the true card of each of its read indices (-1: none). Exits
    through ``ap.error`` on options that do not fit together."""
    from datasets.evaluation import assign_owners, cached_found
    from vision.images import load_image
    from vision.pipeline import load_models, load_stack_checker, read_image

    if bool(args.scenes) == bool(args.examples):
        ap.error("give one of --scenes or --examples")
    if not args.oracle and args.cache is None:
        ap.error("give --cache (or --oracle)")
    if args.examples:
        docs = [(d, args.examples / d["image"]) for d in load_examples(args.examples)]
    else:
        docs = [json.loads(p.read_text()) for p in sorted((args.scenes / "layouts").glob("*.json"))]
        docs = [(d, args.scenes / "images" / d["image"]) for d in docs]
    detector, reader = (None, None) if args.oracle else load_models()
    stacks = load_stack_checker()
    for doc, path in docs[: args.limit]:
        image = load_image(path)
        if args.oracle:
            found, owners = true_detections(doc)
        else:
            found = cached_found(args.cache / f"{Path(path).stem}.npz", image, detector, reader, None)
        reading = read_image(image, detector, reader, stacks, found=found)[0]
        if not args.oracle:
            owners = assign_owners(reading.detections, doc, args.match_iou)
        yield doc, path, image, found, reading, owners


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    table_arguments(ap)
    ap.add_argument("--json", type=Path, help="also write every wrong fan's record here")
    args = ap.parse_args(argv)
    match = args.match_iou
    buckets: Counter = Counter()
    cards: Counter = Counter()
    records = []
    fans = 0
    for doc, path, _, found, reading, owners in read_tables(ap, args):
        fans += sum(1 for k in {c["pile"]: c["pile_kind"] for c in doc["cards"]}.values() if k in ("meld", "book"))
        for rec in fan_buckets(doc, reading, found, owners, match):
            rec["table"] = Path(path).stem
            records.append(rec)
            buckets[rec["bucket"] + (" (over-counted)" if rec["over"] and rec["bucket"] == "grouping" else "")] += 1
            cards.update(r["why"] for r in rec["missing"])
            print(f"{rec['table']} pile {rec['pile']}: {rec['cards']} cards, read {rec['read']}: {rec['bucket']}; "
                  + "; ".join(f"{r['code']} {r['why']}" + (f" (det {r['det']}, P {r['p_rank']}, reader {r['reader']})"
                                                          if "det" in r else "") for r in rec["missing"]))
    print(f"\n{len(records)} of {fans} fans counted wrong, by bucket (a fan's first missing card's reason):")
    for k, v in buckets.most_common():
        print(f"  {v:4d}  {k}")
    print("missing cards by reason:")
    for k, v in cards.most_common():
        print(f"  {v:4d}  {k}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
