"""The photoreal round-end tables of ``../shared/tables_examples`` as generator layout documents.

Those eight 1600x1200 renders come from a 3D renderer (perspective camera, soft shadows, glare), not from
``datasets.scenes``; their ground truth (``NNN.json``) lists every card with its pile, its pile type
(``meld``, ``squared_book``, ``red_threes``) and its corner-index boxes in image pixels, in the same convention
as our generator (boxes of indices at least half visible). :func:`example_doc` renames the few fields that
differ so that ``scripts/evaluate_layout.py`` measures those tables exactly as it measures generated ones.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

#: pile type in tables_examples -> pile kind in a generated scene's document (``datasets.scenes``)
PILE_KINDS = {"meld": "meld", "squared_book": "squared", "red_threes": "red_threes", "left": "left",
              "loose": "loose"}


def example_doc(raw: dict) -> dict:
    """Convert one tables_examples ground-truth document to the generator's layout-document form.

    Args:
        raw: the parsed ``NNN.json`` (keys ``image``, ``rules``, ``round``, ``went_out``, ``teams``, ``cards``;
            each card with ``code``, ``pile``, ``pile_type``, ``index_boxes_px`` (k, 4) xyxy pixels).

    Returns:
        a document with ``image``, ``design``, ``rules``, ``round``, ``went_out``, ``teams`` and ``cards`` (each
        with ``code``, ``pile``, ``pile_kind``, ``index_boxes_px``), as ``datasets.scenes`` writes: a fanned
        pile of seven is a ``book``, a shorter one a ``meld``.

    Raises:
        ValueError: a card of a pile type this module does not know (the message names it).
    """
    sizes = Counter(c["pile"] for c in raw["cards"] if c["pile_type"] == "meld")
    cards = []
    for c in raw["cards"]:
        kind = PILE_KINDS.get(c["pile_type"])
        if kind is None:
            raise ValueError(f"{raw.get('image', '?')}: card {c['code']} has an unknown pile type {c['pile_type']!r}")
        if kind == "meld" and sizes[c["pile"]] >= 7:
            kind = "book"
        cards.append({"code": c["code"], "pile": c["pile"], "pile_kind": kind,
                      "index_boxes_px": c["index_boxes_px"]})
    return {"image": raw["image"], "design": raw.get("deck", "?"),
            **{k: raw[k] for k in ("rules", "round", "went_out", "teams")}, "cards": cards}


def load_examples(folder: Path) -> list[dict]:
    """Every ``*.json`` of a tables_examples folder as :func:`example_doc` documents, sorted by file name.

    Raises:
        FileNotFoundError: the folder holds no ``*.json``.
    """
    files = sorted(Path(folder).glob("*.json"))
    if not files:
        raise FileNotFoundError(f"no *.json ground-truth files in {folder}")
    return [example_doc(json.loads(f.read_text())) for f in files]
