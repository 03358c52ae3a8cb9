"""Stage 4 of the camera pipeline: piles of each side -> the table layout the rules engine scores.

One photo per side (team) is the simple case: photo 1 is team ``A``, photo 2 team ``B`` ... A whole-table
photo is split by :func:`split_sides`: ``horizontal`` puts the bottom half (nearer the camera) in team ``A`` and
the top half in ``B``; ``vertical`` puts the left half in ``A`` and the right half in ``B``. A card belongs to the
half that holds its corner index centre (a paired card: the mean of its two). Corners are paired once on the
whole photo to decide the halves, then again within each half (a pair never crosses the line); a pile the whole
photo shows over the line is cut in two, each part with a note (:data:`CUT_NOTE`).

Cards still held (hands and feet) come from an extra photo of a player's cards fanned face up
(``vision.pipeline.read_image(..., hand=True)``: every card in it is a card left, ``handfoot score --hand TEAM:PHOTO``), from ``--left`` on the
command line, or are entered later by editing the layout JSON.
"""

from __future__ import annotations

import numpy as np

from .config import DEFAULT, SPLITS, VisionConfig
from .detections import Detections
from .instances import pair_corners
from .types import CardInstance, Pile






def split_sides(dets: Detections, width: int, height: int, split: str, *, cards: list[CardInstance] | None = None,
                config: VisionConfig = DEFAULT) -> dict[str, Detections]:
    """Split a whole-table photo's detections between two sides (see the module docstring) by the ``cards``
    they pair into on the whole photo (``pair_corners(dets, config=config)`` when not given).

    Raises:
        ValueError: for an unknown ``split`` (one of :data:`SPLITS`).
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    cards = pair_corners(dets, config=config) if cards is None else cards
    side_a = np.zeros(len(dets), bool)
    for c in cards:
        side_a[list(c.detections)] = _in_a(c.center, width, height, split)
    return {"A": dets[side_a], "B": dets[~side_a]}


def split_boxes(xyxy: np.ndarray, width: int, height: int, split: str, rows: np.ndarray | None = None
                ) -> dict[str, np.ndarray]:
    """Boxes ((m, 4) xyxy px, e.g. the unread ones of :func:`vision.pipeline.read_indices`) split between the
    sides as :func:`split_sides` splits cards, by each box's centre; with ``rows`` ((m, ...), one a box, e.g. the
    reader's probabilities of each) those rows split the same way instead."""
    xyxy = np.asarray(xyxy, np.float32).reshape(-1, 4)
    side_a = np.array([_in_a(((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), width, height, split) for b in xyxy], bool)
    if rows is not None:
        return {"A": rows[side_a], "B": rows[~side_a]}
    return {"A": xyxy[side_a], "B": xyxy[~side_a]}


#: the note on a pile of a split photo that the whole photo shows as one pile over the split line
CUT_NOTE = ("this pile crosses the line between the teams and was cut there: if it is one meld, move all its cards "
            "to one team")


def pile_boxes(pile: Pile, xyxy: np.ndarray) -> set[tuple[float, ...]]:
    """The corner boxes of ``pile``'s cards, as tuples of their xyxy pixels (``xyxy``: the (n, 4) boxes its cards'
    ``detections`` index), to find the same index in another pairing of the photo."""
    return {tuple(float(v) for v in xyxy[d]) for c in pile.cards for d in c.detections}


def crossing_piles(piles: list[Pile], width: int, height: int, split: str, xyxy: np.ndarray
                   ) -> set[tuple[float, ...]]:
    """The corner boxes (:func:`pile_boxes`) of the ``piles`` of a whole photo (grouped before the split) whose
    cards lie on both sides of the ``split`` line: a fan over the line, which :func:`split_sides` cuts in two."""
    out: set[tuple[float, ...]] = set()
    for pile in piles:
        sides = {_in_a(c.center, width, height, split) for c in pile.cards}
        if len(sides) == 2:
            out |= pile_boxes(pile, xyxy)
    return out


def _in_a(center, width: int, height: int, split: str) -> bool:
    x, y = center
    return bool(y >= height / 2 if split == "horizontal" else x < width / 2)


