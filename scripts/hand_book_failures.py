#!/usr/bin/env python3
"""Why a table's cards left in hand, or a squared book, are read wrong: one line per failure and a table of causes.

    python scripts/hand_book_failures.py --scenes data/tables_hdev/scenes/val --oracle
    python scripts/hand_book_failures.py --scenes data/tables_hdev/scenes/val --cache data/cache_hdev

Reads each table as ``scripts/fan_failures.py`` does (stage 1 cached, or the true boxes with ``--oracle``) and, on a
table whose cards left in hand differ from the truth (``datasets.evaluation``'s "cards left in hand wrong"), names
the first cause in this order:

* ``one-card hand``: a true hand of one card (drawn as a loose card is: it is read as loose or as a marker);
* ``hand card hidden``: a hand's card shows no index;
* ``hand card not read``: a hand's card shows an index that no pile holds;
* ``hand read as a meld``: a true hand's cards (all of them) make a meld pile of their own (one rank and wilds);
* ``hand card in a meld``: a hand's card is held by a meld of another true pile;
* ``hand card loose / marker``: a hand's card is read as a loose card or a squared book's marker;
* ``other card in the hand``: a pile read as cards left holds a card of another true pile (its kind named);
* ``code misread``: every card where it belongs, a code read wrong.

On a table with a true squared book not found (no pile read as a squared book holds one of its indices) each such
book gets one cause: ``marker hidden`` (no index of its top card shows), ``marker not read``, ``read as loose``
(the stack checker's or the one-corner rule's verdict: one or two corners seen), or the kind of pile that took
the marker in (``in a meld``, ``in cards left``). Nothing is tuned here.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fan_failures import read_tables, table_arguments  # noqa: E402

from datasets.evaluation import norm_team  # noqa: E402
from vision.types import PileKind  # noqa: E402


def _holders(reading, owners: np.ndarray) -> dict[int, tuple[int, object]]:
    """{true card id: (pile index, pile)} for each true card a pile of ``reading`` holds by a read index."""
    out = {}
    for k, p in enumerate(reading.piles):
        for c in p.cards:
            for d in c.detections:
                if owners[d] >= 0:
                    out.setdefault(int(owners[d]), (k, p))
    return out


def _majority(p, owners: np.ndarray, pile_of: np.ndarray) -> int:
    """The true pile most of pile ``p``'s read indices belong to (-1: none of them has an owner)."""
    own = [int(owners[d]) for c in p.cards for d in c.detections if owners[d] >= 0]
    return Counter(pile_of[own].tolist()).most_common(1)[0][0] if own else -1


def hand_cause(doc: dict, reading, owners: np.ndarray) -> tuple[str, str]:
    """The first cause (module docstring) of a table's cards left read wrong, and a line of detail."""
    cards = doc["cards"]
    pile_of = np.array([c["pile"] for c in cards])
    held = _holders(reading, owners)
    hands = sorted({c["pile"] for c in cards if c["pile_kind"] == "left"})
    detail = []
    for h in hands:
        members = [i for i, c in enumerate(cards) if c["pile"] == h]
        detail.append(f"hand {h}: " + " ".join(
            cards[i]["code"] + ":" + (held[i][1].kind.value[:5] + str(held[i][0]) if i in held else
                                      ("hid" if not cards[i]["index_boxes_px"] else "unread")) for i in members))
    lefts = [(k, p) for k, p in enumerate(reading.piles) if p.kind is PileKind.LEFT]
    for k, p in lefts:
        own = sorted({int(owners[d]) for c in p.cards for d in c.detections if owners[d] >= 0})
        detail.append(f"left{k}: {len(p.cards)} cards, true " + ",".join(
            f"{cards[o]['code']}/{cards[o]['pile_kind']}" for o in own))
    line = "; ".join(detail)
    for h in hands:
        members = [i for i, c in enumerate(cards) if c["pile"] == h]
        if len(members) == 1:
            return "one-card hand", line
    causes = []
    for h in hands:
        members = [i for i, c in enumerate(cards) if c["pile"] == h]
        if any(not cards[i]["index_boxes_px"] for i in members):
            causes.append("hand card hidden")
        if any(cards[i]["index_boxes_px"] and i not in held for i in members):
            causes.append("hand card not read")
        piles = {held[i][0] for i in members if i in held}
        kinds = {held[i][1].kind for i in members if i in held}
        if len(piles) == 1 and kinds == {PileKind.MELD}:
            k = piles.pop()
            if _majority(reading.piles[k], owners, pile_of) == h:
                causes.append("hand read as a meld")
        for i in members:
            if i in held and held[i][1].kind is PileKind.MELD:
                causes.append("hand card in a meld")
            if i in held and held[i][1].kind in (PileKind.LOOSE, PileKind.SQUARED_BOOK):
                causes.append("hand card loose / marker")
    for _, p in lefts:
        for c in p.cards:
            for d in c.detections:
                o = int(owners[d])
                if o >= 0 and cards[o]["pile_kind"] != "left":
                    causes.append(f"other card in the hand ({cards[o]['pile_kind']})")
    order = ["hand card hidden", "hand card not read", "hand read as a meld", "hand card in a meld",
             "hand card loose / marker"]
    for c in order:
        if c in causes:
            return c, line
    if causes:
        return causes[0], line
    return "code misread", line


def book_causes(doc: dict, reading, owners: np.ndarray) -> list[tuple[str, str]]:
    """One (cause, detail) per true squared book no pile read as a squared book holds (module docstring)."""
    cards = doc["cards"]
    held = _holders(reading, owners)
    found = {int(owners[d]) for p in reading.piles if p.kind is PileKind.SQUARED_BOOK for c in p.cards
             for d in c.detections if owners[d] >= 0}
    pile_of = np.array([c["pile"] for c in cards])
    out = []
    for pid in sorted({c["pile"] for c in cards if c["pile_kind"] == "squared"}):
        members = [i for i, c in enumerate(cards) if c["pile"] == pid]
        if any(i in found for i in members):
            continue
        top = max(members, key=lambda i: len(cards[i]["index_boxes_px"]) * 10 + cards[i]["visible_frac"])
        shown = len(cards[top]["index_boxes_px"])
        det = f"pile {pid} top {cards[top]['code']} shows {shown} indices, visible {cards[top]['visible_frac']:.2f}"
        if not shown:
            out.append(("marker hidden", det))
        elif top not in held:
            out.append(("marker not read", det))
        else:
            k, p = held[top]
            seen = len(p.cards[0].detections) if len(p.cards) == 1 else 0
            others = Counter(cards[int(owners[d])]["pile_kind"] for c in p.cards for d in c.detections
                             if owners[d] >= 0 and pile_of[owners[d]] != pid)
            if p.kind is PileKind.LOOSE:
                cause = f"read as loose ({seen} corner{'s' if seen != 1 else ''} paired)"
            elif p.kind is PileKind.MELD:
                cause = "in a meld"
            elif p.kind is PileKind.LEFT:
                cause = "in cards left"
            else:
                cause = f"in {p.kind.value}"
            out.append((cause, det + f"; pile {k} {p.kind.value} of {len(p.cards)} "
                        + " ".join(f"{kk}x{v}" for kk, v in others.items()) + " | " + "; ".join(p.notes)[:160]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    table_arguments(ap)
    args = ap.parse_args(argv)
    hand: Counter = Counter()
    hand_only: Counter = Counter()
    book: Counter = Counter()
    for doc, path, _, _, reading, owners in read_tables(ap, args):
        name = Path(path).stem
        true, pred = norm_team(doc["teams"]["A"]), norm_team(reading.team_layout())
        wrong = [k for k in range(4) if true[k] != pred[k]]
        fans_wrong = true[0] != pred[0]
        if true[3] != pred[3]:
            cause, line = hand_cause(doc, reading, owners)
            hand[cause] += 1
            hand_only[cause] += wrong == [3]
            print(f"HAND {name} {cause}{' (only)' if wrong == [3] else ''}: {line}")
        for cause, line in book_causes(doc, reading, owners):
            book[cause] += 1
            print(f"BOOK {name} {cause}{' (melds wrong too)' if fans_wrong else ''}: {line}")
    print("\ncards left in hand wrong, by first cause (tables; where the only layout part wrong):")
    for k, v in hand.most_common():
        print(f"  {v:4d} ({hand_only[k]:3d})  {k}")
    print("squared books not found, by cause (books):")
    for k, v in book.most_common():
        print(f"  {v:4d}  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
