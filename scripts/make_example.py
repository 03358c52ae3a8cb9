#!/usr/bin/env python3
"""Render the bundled example photo ``examples/table.jpg`` (and its true layout) with the scene generator.

Deck design ``orell``, 1600 x 1200 px.

The deck design is a held-out one (never seen in training), so the example shows what the shipped model does
on cards it has not learned. Deterministic::

    python scripts/make_example.py            # needs the datasets extra and the card art (datasets.cardart --fetch)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from datasets.cardart import load_deck  # noqa: E402
from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402

DESIGN = "orell"  # in datasets.cardart.HELDOUT_DESIGNS
PILES = [
    Pile("book", ["KH", "KS", "KD", "KH", "KC", "KS", "KD"]),  # a clean book, still fanned
    Pile("meld", ["8D", "8S", "2C", "8H"]),
    Pile("meld", ["QH", "QS", "QC"]),
    Pile("red_threes", ["3H"]),
    Pile("squared", ["9S", "9C", "9D", "9H", "9S", "9C", "9H"], marker="9H"),  # a squared clean book
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render examples/table.jpg and examples/table_truth.json (deck "
                                     f"design {DESIGN}, 1600 x 1200 px, deterministic).")
    parser.add_argument("--out", type=Path, default=ROOT / "examples", help="folder to write to (default examples/)")
    out = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    scene = make_scene(2026, [load_deck(DESIGN)], size=(1600, 1200), full_view=True, piles=PILES, clutter=False)
    cv2.imwrite(str(out / "table.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    # the true layout, scorable as it is: handfoot score examples/table_truth.json
    (out / "table_truth.json").write_text(json.dumps(scene.layout, indent=1) + "\n")
    print(f"wrote {out / 'table.jpg'} ({(out / 'table.jpg').stat().st_size // 1024} KB) and table_truth.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
