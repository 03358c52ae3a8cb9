"""Piles checked against the photo's pixels: the fans' edges and strips (stage 3a, a second count: :func:`check_strips`)
and what lies under a single card (stage 3b: :func:`check_stacks`, :func:`check_one_corner_cards`,
:func:`join_one_corner_pairs`).

A fan's second count, from the image: every card of a fan shows an edge and a strip.

The indices give a fan's first count (stages 1-3a). Each card laid on a fan covers the one before but for a strip,
and its edge crosses the fan as a line, one step after the last (seed 000 "Melding"). :func:`strip_edges` reads
the photo along the fan: a band beside the fan's line of indices, on the side of the cards' faces (the top card's
far corner says which; else the side whose edges line up better with the indices read), across which each card's
edge is a step in brightness that spans the band, unlike the pips and art printed on a face, which span part of it.
The edge profile is the median over the band's rows of the brightness gradient along the fan. Each card read lies
a fixed offset after its edge (the offset that lines the read cards up best with the profile's peaks); a card's
edge is *seen* where the profile there reaches ``strip_seen`` of the read cards' median edge strength.

:func:`check_strips` reconciles the two counts of each meld of ``strip_min_cards`` or more read cards (measured
from its bottom card: the end away from the card seen whole; with none, the way whose edges are stronger):

* a gap of one step between two cards needs no card; two read cards two steps apart with an edge seen between
  them hold a card whose index was not read (stage 3a, :mod:`vision.fans`, counts such a card only in a
  regular fan);
* one step before the bottom card, an edge seen before a strip about as bright as the fan's own strips
  (``strip_bright``) is a card whose index is covered or missed;
* where the edges show more cards than the indices, the pile says so; where the band before the bottom card
  shows neither the table's colours (:func:`table_colours`, sampled at the photo's border) nor a card's (white
  paper as bright as the fan's strips), the fan's end lies under something (:func:`end_covered`) and the pile says
  cards may be hidden there.

The notes point at the pile; the count is not changed (the rules' book size is never forced). Thresholds:
:class:`vision.config.FanGaps` (``strip_*``).

Stage 3b of the camera pipeline: is a single whole card the marker of a squared book, or a loose card?

Corner indices alone cannot tell them apart: a squared book (seed 000 "Books"; seed 002 §3: a completed book is squared
into one pile with a marker card on top) shows exactly one card face with both indices, and so does a single card lying
loose. What differs is under the card: a stack of seven shows the edges of the cards below it (never squared perfectly)
and its thickness. :class:`vision.models.stacks.StackChecker` looks at the card and its surroundings, turned
upright from the card's own two index centres (:func:`vision.models.crops.card_crop`), and gives the probability
that a stack lies under it. :func:`check_stacks` uses it to turn ``squared_book`` piles it does not believe into
``loose`` cards, and adds a note wherever it is unsure, so a wrong call is one edit away for the user. Where it is
unsure of a loose card, the card's outline lying off its own centre (the cards under a marker stick out:
:mod:`vision.stack_edges`) can keep it a marker (off by default: ``config.stacks.edge_p_min``).

The model (``models/stacks.onnx``) is trained by ``scripts/train_stacks.py`` on generated tables of the
training designs; its figures are in ``models/README.md``.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import cv2
import numpy as np

from scorer.wording import counted

from .classes import RANKS, rank_of
from .config import DEFAULT, VisionConfig
from .geometry import anchor_points, diagonal_apart, segment_blocked, similar_size
from .piles import BOOK_ACTION, BOOK_TOP, LOOSE_ACTION, MARKER_NOTE
from .stack_edges import stack_offset
from .types import CardInstance, Pile, PileKind, index_centres, index_sizes

if TYPE_CHECKING:
    from .models.stacks import StackChecker


def _band(gray: np.ndarray, origin: np.ndarray, u: np.ndarray, v: np.ndarray, t: tuple[float, float],
          s: tuple[float, float]) -> np.ndarray:
    """(len s, len t) float32 samples of ``gray`` at ``origin + t u + s v`` on a 1 px grid (``t`` along the fan,
    ``s`` across it; ranges in px)."""
    tt, ss = np.meshgrid(np.arange(t[0], t[1], 1.0), np.arange(s[0], s[1], 1.0))
    mx = (origin[0] + tt * u[0] + ss * v[0]).astype(np.float32)
    my = (origin[1] + tt * u[1] + ss * v[1]).astype(np.float32)
    return cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def strip_edges(gray: np.ndarray, cards: list[CardInstance], *, config: VisionConfig = DEFAULT) -> dict | None:
    """The edge profile along a fan in a (H, W) float32 grey image, its ``cards`` ordered from the bottom card
    (laid first) to the top one; None for a fan too short.

    Each card's edge lies before its index, from the bottom card towards the top one. Returns a dict:
    ``positions`` (n,) each card's place along the fan (px from the first card's anchor index), ``step`` the fan's
    median step (px), ``offset`` the card edge's place relative to its index (px along the fan, negative),
    ``strength`` the read cards' median edge strength, ``edge(p)`` the profile's peak within a quarter step of the
    edge of a card placed at ``p``, ``bright(p0, p1)`` the band's median brightness between two places less that of
    the fan's own strips (a strip of a card looks like them; the table does not).
    """
    fg = config.fan_gaps
    read = [k for k, c in enumerate(cards) if c.detections]
    if len(read) < fg.strip_min_cards:
        return None
    pts = anchor_points(list(cards))
    d = pts[-1] - pts[0]
    length = float(np.linalg.norm(d))
    if length <= 0:
        return None
    u = d / length
    pos = (pts - pts[0]) @ u
    steps = np.diff(pos[read])
    step = float(np.median(steps[steps > 0])) if (steps > 0).any() else 0.0
    if step <= 0:
        return None
    size = float(np.median([c.size for c in cards]))
    height = float(np.median([c.card_height for c in cards]))
    sides = (1.0, -1.0)
    if cards[-1].fully_visible:  # the top card's far corner (its index away from its place): the faces' side
        top = cards[-1].centers
        diagonal = top[int(np.argmax(np.linalg.norm(top - pts[-1], axis=1)))] - pts[-1]
        sides = (1.0 if float(diagonal @ np.array([-u[1], u[0]])) >= 0 else -1.0,)
    lo, hi = -(fg.strip_before + 1) * step, length + step
    best = None
    for side in sides:
        v = side * np.array([-u[1], u[0]])
        band = _band(gray, pts[0], u, v, (lo, hi), (0.5 * size, fg.strip_across * height))
        if band.shape[0] < 3 or band.shape[1] < 5:
            return None
        smooth = cv2.GaussianBlur(band, (0, 0), 1.0)
        profile = np.median(np.abs(np.gradient(smooth, axis=1)), axis=0)  # (len t,)
        brightness = np.median(band, axis=0)

        def peak(p, profile=profile):
            a, b = int(round(p - lo - step / 4)), int(round(p - lo + step / 4)) + 1
            a, b = max(a, 0), min(b, len(profile))
            return float(profile[a:b].max()) if b > a else 0.0

        # the edge's offset before its index: the one whose peaks, over the read cards, are strongest
        offsets = np.arange(-1.5 * size, 0.0, 1.0)
        at = np.clip(np.round(pos[read][None, :] + offsets[:, None] - lo).astype(int), 0, len(profile) - 1)
        o = float(offsets[int(np.argmax(np.median(profile[at], axis=1)))])
        strength = float(np.median([peak(pos[k] + o) for k in read]))
        if best is None or strength > best[0]:
            best = (strength, o, brightness, peak, v)
    strength, o, brightness, peak, v = best

    def median_between(p0: float, p1: float) -> float:
        a, b = int(round(p0 - lo)), int(round(p1 - lo))
        a, b = max(a, 0), min(max(b, a + 1), len(brightness))
        return float(np.median(brightness[a:b]))

    strips = median_between(pos[0] + o, pos[-1] + o)  # the fan's own strips, edge of the first to the last's

    return {"positions": pos, "step": step, "offset": o, "strength": strength, "origin": pts[0], "u": u, "v": v,
            "across": (0.5 * size, fg.strip_across * height),
            "edge": lambda p: peak(p + o), "bright": lambda p0, p1: median_between(p0, p1) - strips,
            "strips": strips}


def _bottom_first(pile: Pile, gray: np.ndarray, config: VisionConfig) -> dict | None:
    """:func:`strip_edges` of ``pile`` read from its bottom card: the end away from its card seen whole; with
    none, the way whose read cards' edges are stronger."""
    cards = list(pile.cards)
    whole = [k for k, c in enumerate(cards) if c.fully_visible]
    ways = [cards[::-1]] if whole and whole[-1] < len(cards) / 2 else [cards] if whole else [cards, cards[::-1]]
    found = [f for f in (strip_edges(gray, w, config=config) for w in ways) if f is not None]
    return max(found, key=lambda f: f["strength"]) if found else None


def strip_count(gray: np.ndarray, pile: Pile, *, config: VisionConfig = DEFAULT,
                found: dict | None = None) -> tuple[int, list[str]] | None:
    """A meld's second count from its edges (module docstring): (cards the edges show, where each card they show
    and the indices do not lies, in words: "in a wide gap", "under its bottom card"); None when the fan is too
    short or its edges too faint to count by. ``found``: its :func:`strip_edges` read from its bottom card, when
    already measured."""
    fg = config.fan_gaps
    found = _bottom_first(pile, gray, config) if found is None else found
    if found is None or found["strength"] < fg.strip_min_strength:
        return None
    pos, step, edge, seen = found["positions"], found["step"], found["edge"], fg.strip_seen * found["strength"]
    count, where = len(pile.cards), []
    # read cards a gap of two steps apart (and no gap card between): an unread card's edge
    for k in range(len(pos) - 1):
        gap = pos[k + 1] - pos[k]
        if 1.7 * step <= gap <= 2.35 * step and edge(pos[k] + gap / 2) >= seen:
            count += 1
            where.append("in a wide gap")
    # before the bottom card: a strip of a card whose index is covered
    for k in range(1, fg.strip_before + 1):
        q = pos[0] - k * step
        a, b = q + found["offset"], q + step + found["offset"]  # the strip beyond, edge to edge
        if edge(q) < seen or abs(found["bright"](a, b)) > fg.strip_bright:
            break
        count += 1
        where.append("under its bottom card")
    return count, where


def table_colours(image: np.ndarray, *, config: VisionConfig = DEFAULT) -> tuple[np.ndarray, np.ndarray] | None:
    """The table's colours in a (H, W, 3) BGR photo: the 2nd and 98th percentiles of the blue and green shares
    (:func:`_chroma`) of the pixels of the photo's border, a strip ``config.fan_gaps.strip_table_border`` of each
    side wide, ((2,) each); None when the border is too thin to sample. A photo of a table shows the table at its
    edges: what lies among the piles (a cup, a pile of card backs) is no sample of it."""
    h, w = image.shape[:2]
    every = max(1, w // 320)  # measured on every every-th pixel
    sub = image[::every, ::every]
    bh = int(round(config.fan_gaps.strip_table_border * sub.shape[0]))
    bw = int(round(config.fan_gaps.strip_table_border * sub.shape[1]))
    if bh < 1 or bw < 1:
        return None
    pixels = np.concatenate([sub[:bh].reshape(-1, 3), sub[-bh:].reshape(-1, 3),
                             sub[bh:-bh, :bw].reshape(-1, 3), sub[bh:-bh, -bw:].reshape(-1, 3)])
    if len(pixels) < 200:
        return None
    chroma = _chroma(pixels)
    return np.percentile(chroma, 2, axis=0), np.percentile(chroma, 98, axis=0)


def _shares(pixels: np.ndarray) -> np.ndarray:
    """(n, 3) each of (n, 3) BGR pixels' channels as shares of their sum: its colour whatever the light (a shadow
    on the table keeps the table's); (1/3, 1/3, 1/3) for white, grey or black."""
    pixels = pixels.astype(np.float32)
    return pixels / (pixels.sum(axis=1, keepdims=True) + 1.0)


def _chroma(pixels: np.ndarray) -> np.ndarray:
    """(n, 2) the blue and green shares (:func:`_shares`) of (n, 3) BGR pixels."""
    return _shares(pixels)[:, :2]


def end_covered(image: np.ndarray, found: dict, colours: tuple[np.ndarray, np.ndarray], *,
                config: VisionConfig = DEFAULT) -> bool:
    """True when, in the (H, W, 3) BGR photo, the band beside a fan (:func:`strip_edges`' ``found``) before its
    bottom card's edge (from ``strip_covered_steps`` steps to a quarter step before it) shows under
    ``strip_table_share`` of pixels that have the table's ``colours`` (:func:`table_colours`) or a card's (white
    paper: its colour shares (:func:`_shares`) within ``strip_card_chroma`` of grey's, and as bright as the fan's
    own strips, within ``strip_bright`` grey levels; another pile lying there): the fan's end lies under something
    (a cup, a pile of card backs, however bright), cards may be hidden there. A band that leaves the photo is not
    covered."""
    fg = config.fan_gaps
    step, o = found["step"], found["offset"]
    edge = found["positions"][0] + o
    tt, ss = np.meshgrid(np.arange(edge - fg.strip_covered_steps * step, edge - step / 4, 1.0),
                         np.arange(*found["across"], 1.0))
    x = found["origin"][0] + tt * found["u"][0] + ss * found["v"][0]
    y = found["origin"][1] + tt * found["u"][1] + ss * found["v"][1]
    h, w = image.shape[:2]
    if not x.size or x.min() < 0 or y.min() < 0 or x.max() >= w or y.max() >= h:
        return False
    pixels = image[y.astype(int), x.astype(int)].reshape(-1, 3)
    lo, hi = colours
    chroma = _chroma(pixels)
    table = ((chroma >= lo) & (chroma <= hi)).all(axis=1)
    grey = pixels.astype(np.float32) @ np.array([0.114, 0.587, 0.299], np.float32)  # BGR to grey, as cv2 does
    paper = np.linalg.norm(_shares(pixels) - 1 / 3, axis=1) <= fg.strip_card_chroma
    card = paper & (np.abs(grey - found["strips"]) <= fg.strip_bright)  # white paper as bright as the fan's strips
    return float((table | card).mean()) < fg.strip_table_share


def check_strips(piles: list[Pile], image: np.ndarray | None, *, config: VisionConfig = DEFAULT) -> list[Pile]:
    """``piles`` with a note on each meld whose edges show more cards than its indices (:func:`strip_count`), or
    whose bottom end lies under something that is neither table nor a card's strip (:func:`end_covered`);
    unchanged without an image."""
    if image is None:
        return list(piles)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32) if image.ndim == 3 else image.astype(np.float32)
    colours = table_colours(image, config=config) if image.ndim == 3 and config.fan_gaps.strip_covered_steps > 0 \
        else None
    out = []
    for pile in piles:
        found = _bottom_first(pile, gray, config) if pile.kind is PileKind.MELD else None
        got = strip_count(gray, pile, config=config, found=found) if found is not None else None
        if got and got[0] != len(pile.cards):
            out.append(Pile(pile.kind, pile.cards, pile.notes + (
                f"{STRIP_NOTE} {counted(got[0], 'card')} but only {len(pile.cards)} were read ({_places(got[1])}): "
                "count its cards and add any missing",)))
            continue
        if found is not None and colours is not None and end_covered(image, found, colours, config=config):
            out.append(Pile(pile.kind, pile.cards, pile.notes + (
                f"{COVERED_NOTE}: cards may be hidden under it; count the fan's cards",)))
        else:
            out.append(pile)
    return out


def _places(where: list[str]) -> str:
    """Where a fan's edges show cards its indices do not, one entry a card, in words: "one in a wide gap, two
    under its bottom card"."""
    words = {1: "one", 2: "two", 3: "three"}
    return ", ".join(f"{words.get(n, n)} {place}" for place, n in Counter(where).items())


#: how the note of a fan whose edges show more cards than its indices begins
STRIP_NOTE = "the edges of this fan's cards show"
#: how the note of a fan whose bottom end lies under something begins
COVERED_NOTE = "something that is not a card covers this fan's bottom end"

#: how a note on a single card read as a squared book's top card says a stack is seen under it
FULL_BOOK = "counted as a full book (a stack shows under it, but its cards can't be counted)"
#: how a note on a single card read as a squared book's top card says the stack under it is unclear
UNCLEAR_BOOK = "the stack under it is unclear"


def check_stacks(piles: list[Pile], image: np.ndarray, checker: StackChecker, *,
                 config: VisionConfig = DEFAULT) -> list[Pile]:
    """Piles with every ``squared_book`` of one card seen whole re-checked for a stack under it, in the
    (H, W, 3) BGR ``image``.

    A single whole card whose probability of a stack is under ``config.stacks.loose_below`` becomes a ``loose``
    card (not scored), unless it is at least ``config.stacks.edge_p_min`` and the card's outline lies
    ``config.stacks.edge_offset`` card heights or more off its centre (:func:`vision.stack_edges.stack_offset`); one
    under ``config.stacks.unsure`` (or kept by its outline) stays a squared book with a note that the stack is
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
        keep = [n for n in pile.notes if n != MARKER_NOTE.format(code=code)]
        if config.stacks.edge_p_min <= p < config.stacks.loose_below and \
                stack_offset(image, *pile.cards[0].centers[:2], config=config) >= config.stacks.edge_offset:
            out[i] = Pile(pile.kind, pile.cards, tuple(keep + [
                f"{BOOK_TOP.format(code=code)}: cards seem to stick out from under it, but {UNCLEAR_BOOK}; "
                f"{BOOK_ACTION}"]))
        elif p < config.stacks.loose_below:
            out[i] = Pile(PileKind.LOOSE, pile.cards, tuple(keep + [
                f"{code} looks like one loose card (no stack seen under it), so it is not scored; {LOOSE_ACTION}"]))
        elif p < config.stacks.unsure:
            out[i] = Pile(pile.kind, pile.cards, tuple(keep + [
                f"{BOOK_TOP.format(code=code)}, but {UNCLEAR_BOOK}; {BOOK_ACTION}"]))
        else:
            out[i] = Pile(pile.kind, pile.cards, tuple(keep + [
                f"{BOOK_TOP.format(code=code)} and {FULL_BOOK}; {BOOK_ACTION}"]))
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
    tries: list[tuple[int, np.ndarray, np.ndarray, bool]] = []
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
                f"{BOOK_TOP.format(code=code)} (its other corner is faint), but {UNCLEAR_BOOK}; {BOOK_ACTION}",))
        elif p >= (config.stacks.unsure if same else config.stacks.one_corner_min):
            out[i] = Pile(PileKind.SQUARED_BOOK, piles[i].cards, (
                f"{BOOK_TOP.format(code=code)} though only one corner was read, and {FULL_BOOK}; {BOOK_ACTION}",))
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
        out[i] = Pile(PileKind.SQUARED_BOOK, (card,), (
            f"{BOOK_TOP.format(code=top.code)}, its two corners read as {a.code} and {b.code}: "
            f"{UNCLEAR_BOOK if p < config.stacks.unsure else FULL_BOOK}; correct it if it is neither; {BOOK_ACTION}",))
        drop.add(j)
    return [p for k, p in enumerate(out) if k not in drop]


def _reads_rank(rank_p: np.ndarray, code: str) -> bool:
    """True when the reader's likeliest rank for a box (``rank_p`` (15,), :data:`vision.classes.RANKS` order) is
    the rank of card ``code``."""
    return RANKS[int(np.argmax(rank_p))] == rank_of(code)
