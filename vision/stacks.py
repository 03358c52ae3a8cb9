"""Stage 3b of the camera pipeline: is a single whole card the marker of a squared book, or a loose card?

Corner indices alone cannot tell them apart: a squared book (seed 000 "Books"; seed 002 §3: a completed book
is squared into one pile with a marker card on top) shows exactly one card face with both indices, and so does
a single card lying loose. What differs is under the card: a stack of seven shows the edges of the cards below
it (never squared perfectly) and its thickness. :class:`vision.models.stack_checker.StackChecker` looks at the card and its
surroundings, turned upright from the card's own two index centres (:func:`vision.crops.card_crop`), and gives the
probability that a stack lies under it. :func:`check_stacks` uses it to turn ``squared_book`` piles it does not believe into
``loose`` cards, and adds a note wherever it is unsure, so a wrong call is one edit away for the user.

The model (``models/stacks.onnx``) is trained by ``scripts/train_stacks.py`` on generated tables of the
training designs; its figures are in ``models/README.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .classes import RANKS, rank_of
from .config import DEFAULT, VisionConfig
from .detections import index_centres, index_sizes
from .geometry import diagonal_apart, segment_blocked, similar_size
from .piles import marker_note
from .types import CardInstance, Pile, PileKind

if TYPE_CHECKING:
    from .models.stack_checker import StackChecker


def _sure(p: float) -> str:
    """A probability in words for a note: "96 % sure"."""
    return f"{min(99, round(100 * float(p)))} % sure"


def check_stacks(piles: list[Pile], image: np.ndarray, checker: StackChecker, *,
                 config: VisionConfig = DEFAULT) -> list[Pile]:
    """Piles with every ``squared_book`` of one card seen whole re-checked for a stack under it, in the
    (H, W, 3) BGR ``image``.

    A single whole card whose probability of a stack is under ``config.stacks.loose_below`` becomes a ``loose``
    card (not scored), one under ``config.stacks.unsure`` stays a squared book with a note that the stack is
    unclear, a surer one stays a squared book whose note gives the probability; each replaces the geometry
    stage's note on that card. A probability of exactly ``loose_below`` keeps a squared book; one of ``unsure``
    counts as sure. Other piles, and a squared book whose single card shows one index, are unchanged.
    """
    singles = [i for i, p in enumerate(piles)
               if p.kind is PileKind.SQUARED_BOOK and len(p.cards) == 1 and p.cards[0].fully_visible]
    if not singles:
        return list(piles)
    probs = checker.p_stack(image, [piles[i].cards[0] for i in singles])
    out = list(piles)
    for i, p in zip(singles, probs):
        pile = piles[i]
        code = pile.cards[0].code
        keep = [n for n in pile.notes if n != marker_note(code)]
        if p < config.stacks.loose_below:
            out[i] = Pile(PileKind.LOOSE, pile.cards, tuple(keep + [
                f"single card {code}: no stack seen under it ({_sure(1 - p)}), so read as a loose card and not scored; "
                "if it is a squared book's marker, add it; if it was left in a hand, move it to left"]))
        elif p < config.stacks.unsure:
            out[i] = Pile(pile.kind, pile.cards, tuple(keep + [
                f"single card {code} read as the marker of a squared book, but the stack under it is unclear "
                f"({_sure(p)} of a stack); if it is a loose card, remove it from the squared books"]))
        else:
            out[i] = Pile(pile.kind, pile.cards, tuple(keep + [
                f"single card {code} read as the marker of a squared book: a stack is seen under it ({_sure(p)}) "
                "but its count cannot be, so it counts as the rules' book size; if it is a loose card, remove it "
                "from the squared books"]))
    return out


def check_one_corner_cards(piles: list[Pile], unread: np.ndarray, image: np.ndarray, checker: StackChecker, *,
                           rank_p: np.ndarray | None = None, config: VisionConfig = DEFAULT) -> list[Pile]:
    """Piles with each loose card seen by one corner re-checked as a squared book's marker.

    A squared book's marker shows both corner indices, but the reader often reads only one of them on a
    whole-table photo (the other unsure, or under the detector's reading threshold), and the card was then read
    as a loose card seen by one corner, not scored. Here the detector's boxes that no read index covers
    (``unread``, (m, 4) xyxy pixels) give it a second chance: the unread box a card's diagonal away from the read
    index (:func:`vision.geometry.diagonal_apart`, from the card's height), of a size within
    ``config.fans.size_ratio`` of the read index's and with no read index within
    ``config.stacks.one_corner_clearance`` index sizes of the segment between them, frames the card for the stack
    checker; at ``config.stacks.one_corner_min`` or more the card becomes a squared book's marker, with a note
    (its other corner was not read, so the frame rests on an unread box: the checker must be sure). With the
    reader's rank probabilities of the unread boxes (``rank_p``, (m, 15), rows as ``unread``'s), a box the reader
    gives the card's own rank as its likeliest (read under the floor) is that card's other corner: the card is seen
    whole, and is judged as :func:`check_stacks` judges one (a marker from ``config.stacks.loose_below``, with a note
    that the stack is unclear under ``config.stacks.unsure``). The card keeps its one detection: the rules need
    only its rank and colour, which the read index gave.
    """
    loose = [i for i, p in enumerate(piles)
             if p.kind is PileKind.LOOSE and len(p.cards) == 1 and len(p.cards[0].detections) == 1]
    unread = np.asarray(unread, np.float64).reshape(-1, 4)
    if not loose or not len(unread):
        return list(piles)
    centres, sizes = index_centres(unread), index_sizes(unread)
    read = np.concatenate([c.centers for p in piles for c in p.cards])  # every read index (and gap card)
    tries: list[tuple[int, np.ndarray, np.ndarray]] = []
    for i in loose:
        card = piles[i].cards[0]
        a = card.centers[0]
        near = diagonal_apart(a, centres, card.card_height, config=config) & \
            similar_size(sizes, card.size, config.fans.size_ratio)
        ok = [j for j in np.flatnonzero(near)
              if not segment_blocked(a, centres[j], read, config.stacks.one_corner_clearance * card.size,
                                     config=config)]
        if ok:  # the box nearest a diagonal's length
            diagonal = card.card_height * config.pairing.diagonal_per_height
            j = min(ok, key=lambda k: abs(np.log(np.linalg.norm(centres[k] - a) / diagonal)))
            tries.append((i, a, centres[j], rank_p is not None and _reads_rank(rank_p[j], card.code)))
    if not tries:
        return list(piles)
    probs = checker.p_stack_between(image, [(a, b) for _, a, b, _ in tries])
    out = list(piles)
    for (i, _, _, same), p in zip(tries, probs):
        code = piles[i].cards[0].code
        if same and config.stacks.loose_below <= p < config.stacks.unsure:
            out[i] = Pile(PileKind.SQUARED_BOOK, piles[i].cards, (
                f"single card {code} (its other corner read under the floor) read as the marker of a squared book, "
                f"but the stack under it is unclear ({_sure(p)} of a stack); if it is a loose card, remove it from "
                "the squared books",))
        elif p >= (config.stacks.unsure if same else config.stacks.one_corner_min):
            out[i] = Pile(PileKind.SQUARED_BOOK, piles[i].cards, (
                f"single card {code} seen by one corner (its other corner was not read) read as the marker of a "
                f"squared book: a stack is seen under it ({_sure(p)}) but its count cannot be, so it counts as the "
                "rules' book size; if it is a loose card, remove it from the squared books",))
    return out


def join_one_corner_pairs(piles: list[Pile], image: np.ndarray, checker: StackChecker, *,
                          config: VisionConfig = DEFAULT) -> list[Pile]:
    """Piles with two loose cards seen by one corner each that are one squared book's marker joined into it.

    The reader may read a marker's two corners as two ranks (a 6 and a Q); stage 2 then pairs neither, and each
    is a loose card seen by one corner. Two such cards a card's diagonal apart (:func:`vision.geometry.diagonal_apart`
    from the first's height), of sizes within ``config.fans.size_ratio``, with no read index within
    ``config.stacks.one_corner_clearance`` index sizes of the segment between them, frame a card for the stack
    checker; at ``config.stacks.one_corner_min`` or more (a sure stack: the two readings disagree) they are one
    squared book's marker, the code of the surer reading, with both corners and a note naming both readings. Two
    readings of one rank are judged as :func:`check_stacks` judges a whole card. Each card joins at most one other,
    the nearest a diagonal's length; the joined pile takes the first's place and the second's is dropped.
    """
    loose = [i for i, p in enumerate(piles)
             if p.kind is PileKind.LOOSE and len(p.cards) == 1 and len(p.cards[0].detections) == 1]
    if len(loose) < 2 or not config.stacks.one_corner_pairs:
        return list(piles)
    read = np.concatenate([c.centers for p in piles for c in p.cards])
    tries, used = [], set()
    for i in loose:
        if i in used:
            continue
        a = piles[i].cards[0]
        diagonal = a.card_height * config.pairing.diagonal_per_height
        ok = [j for j in loose if j != i and j not in used
              and diagonal_apart(a.centers[0], piles[j].cards[0].centers[0], a.card_height, config=config)
              and similar_size(np.array([piles[j].cards[0].size]), a.size, config.fans.size_ratio)[0]
              and not segment_blocked(a.centers[0], piles[j].cards[0].centers[0], read,
                                      config.stacks.one_corner_clearance * a.size, config=config)]
        if ok:
            j = min(ok, key=lambda k: abs(np.log(np.linalg.norm(piles[k].cards[0].centers[0] - a.centers[0])
                                                 / diagonal)))
            used.update((i, j))
            tries.append((i, j))
    if not tries:
        return list(piles)
    probs = checker.p_stack_between(image, [(piles[i].cards[0].centers[0], piles[j].cards[0].centers[0])
                                            for i, j in tries])
    out, drop = list(piles), set()
    for (i, j), p in zip(tries, probs):
        a, b = piles[i].cards[0], piles[j].cards[0]
        same = rank_of(a.code) == rank_of(b.code)
        if p < (config.stacks.loose_below if same else config.stacks.one_corner_min):
            continue
        top = max((a, b), key=lambda c: c.confidence)
        card = CardInstance(top.code, a.detections + b.detections, np.vstack([a.centers, b.centers]),
                            (a.size + b.size) / 2, max(a.confidence, b.confidence), (a.card_height + b.card_height) / 2)
        stack = f"the stack under it is unclear ({_sure(p)} of a stack)" if p < config.stacks.unsure else \
            f"a stack is seen under it ({_sure(p)}) but its count cannot be, so it counts as the rules' book size"
        out[i] = Pile(PileKind.SQUARED_BOOK, (card,), (
            f"single card {top.code} read as the marker of a squared book from its two corners, read as {a.code} and "
            f"{b.code}: {stack}; correct its code if it is neither, remove it if it is a loose card",))
        drop.add(j)
    return [p for k, p in enumerate(out) if k not in drop]


def _reads_rank(rank_p: np.ndarray, code: str) -> bool:
    """True when the reader's likeliest rank for a box (``rank_p`` (15,), :data:`vision.classes.RANKS` order) is
    the rank of card ``code``."""
    return RANKS[int(np.argmax(rank_p))] == rank_of(code)
