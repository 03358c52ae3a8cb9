"""A camera reading of a generated table held against the table's truth: the figures ``scripts/evaluate_layout.py``
prints (:func:`evaluate_scene`: fans counted, piles, layouts and scores exact, silent errors, failure kinds; per deck
design, :func:`design_figures`), the true card of each read index (:func:`assign_owners`), and stage 1 kept in a
cache so a rerun measures the later stages alone (:func:`cached_found`). The truth is a scene's JSON
(``datasets.scenes``, ``datasets.examples``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from scorer.layout import TableLayout
from scorer.presets import get_rules
from scorer.scoring import score_round
from vision.config import DEFAULT
from vision.photo_checks import COVERED_NOTE, STRIP_NOTE
from vision.pipeline import detect
from vision.types import Detections, PileKind, box_iou

from .scene_labels import true_detections

#: tables_examples draws its index boxes tight around the glyphs; ours (datasets.art_indices, calibrated on the real
#: phone_corners labels) have a margin: on its eight tables our detector's boxes measure a median 1.37 x wider
#: and 1.28 x taller than the true ones (a well-placed box has an IoU of about 0.57), and 77 % of the true
#: indices have a box (detector confidence >= 0.5) at IoU >= 0.5, 90 % at IoU >= 0.3
EXAMPLES_MATCH_IOU = 0.3


def assign_owners(dets: Detections, doc: dict, min_iou: float = 0.5) -> np.ndarray:
    """True card id of each predicted detection (IoU >= ``min_iou`` with a true index box), -1 when none."""
    truth, owner = true_detections(doc)
    if not len(dets) or not len(truth):
        return np.full(len(dets), -1)
    iou = box_iou(dets.xyxy, truth.xyxy)
    best = iou.argmax(1)
    return np.where(iou[np.arange(len(dets)), best] >= min_iou, owner[best], -1)


def norm_team(team: dict) -> tuple:
    """A ``teams`` entry of the layout JSON as (melds, squared books' tops, red threes, cards left), each sorted, so
    two layouts compare part by part; the cards left are every hand's codes together."""
    melds = sorted(tuple(sorted(m)) for m in team.get("melds", []))
    tops = sorted(b["top"] for b in team.get("squared_books", []))
    threes = tuple(sorted(team.get("red_threes", [])))
    left = tuple(sorted(c for packet in team.get("left", []) for c in packet))
    return melds, tops, threes, left


def _multiset_hits(truth: list, pred: list) -> int:
    pool = Counter(pred)
    hits = 0
    for t in truth:
        if pool[t] > 0:
            pool[t] -= 1
            hits += 1
    return hits


def _is_clean_marker(code: str) -> bool:
    """A red natural on top of a squared book marks it clean (seed 000 "Books"): its value is exact."""
    return code[-1] in "HD" and not code.startswith(("2", "3")) and code != "JK"


#: the failure kind of a table whose cards left differ from the truth only by hands of one card, read as loose cards
#: or markers: ``datasets.scenes`` lays a one-card hand on the table as it lays a loose card (one card, face up,
#: alone), so no reading can tell the two; the loose card's note asks the user to move it to the cards left
ONE_CARD_HAND = "a one-card hand read as a loose card or a marker (laid as one: cannot be told)"


def _hand_failure(team: dict, true_left: tuple, read_left: tuple) -> str:
    """The failure kind of a table whose cards left (``true_left``, ``read_left``: sorted codes, every hand
    together) differ: :data:`ONE_CARD_HAND` when the true ones less the true one-card hands (``team["left"]``,
    packets of codes) are those read, else "cards left in hand wrong"."""
    singles = Counter(hand[0] for hand in team.get("left", []) if len(hand) == 1)
    if singles and sorted((Counter(true_left) - singles).elements()) == list(read_left):
        return ONE_CARD_HAND
    return "cards left in hand wrong"


#: an index whose box is at least this many pixels on its longer side can be read from the photo (the photo's note
#: on small indices, :attr:`vision.config.Reading.readable_index`): the shipped reader names 0.42 of the indices
#: under 12 px and 0.65 of those of 12-16 px (true boxes, held-out-design dev tables), crops that are blurs of a few
#: pixels a person cannot read either; 0.88 at 16-20 px, 0.96 and more above
LEGIBLE_PX = DEFAULT.reading.readable_index


def _legible(card: dict) -> bool:
    """Whether a true card shows an index of :data:`LEGIBLE_PX` or more (pixels, the box's longer side)."""
    return any(max(b[2] - b[0], b[3] - b[1]) >= LEGIBLE_PX for b in card["index_boxes_px"])


def evaluate_scene(doc: dict, reading, owners: np.ndarray, stats: Counter, failures: Counter) -> None:
    """Add one table's figures to ``stats`` and its failure kinds to ``failures``: ``reading`` is the side the
    pipeline read (``vision.pipeline.read_image``), ``owners`` the true card of each of its read indices."""
    dets = reading.detections
    cards = doc["cards"]
    pile_of_card = np.array([c["pile"] for c in cards])
    kinds = {c["pile"]: c["pile_kind"] for c in cards}
    # 1. fan counting: each predicted pile -> majority true pile
    pred_for: dict[int, list[int]] = {}
    for p in reading.piles:
        own = [owners[d] for c in p.cards for d in c.detections if owners[d] >= 0]
        if own:
            true_pile = Counter(pile_of_card[own].tolist()).most_common(1)[0][0]
            pred_for.setdefault(true_pile, []).append(len(p.cards))
    noted_for: set[int] = set()  # true fans a pile of which says its edges show another count, or its end is covered
    for p in reading.piles:
        own = [owners[d] for c in p.cards for d in c.detections if owners[d] >= 0]
        if own and any(n.startswith((STRIP_NOTE, COVERED_NOTE)) for n in p.notes):
            noted_for.add(Counter(pile_of_card[own].tolist()).most_common(1)[0][0])
    for pid, kind in kinds.items():
        if kind not in ("meld", "book"):
            continue
        n_true = int((pile_of_card == pid).sum())
        got = pred_for.get(pid, [])
        counted = len(got) == 1 and got[0] == n_true
        stats["fans_noted_edges"] += pid in noted_for
        stats["fans_noted_edges_wrong"] += pid in noted_for and not counted
        stats["fans"] += 1
        visible = all(c["index_boxes_px"] for c in cards if c["pile"] == pid)
        legible = all(_legible(c) for c in cards if c["pile"] == pid)
        stats["fans_visible"] += visible
        stats["fans_legible"] += legible
        if len(got) == 1 and got[0] == n_true:
            stats["fans_counted"] += 1
            stats["fans_visible_counted"] += visible
            stats["fans_legible_counted"] += legible
        elif not visible:
            failures["fan with a card whose indices are all hidden (cannot be counted)"] += 1
        elif not got:
            failures["fan not found"] += 1
        elif len(got) > 1:
            failures["fan split in two or more piles"] += 1
        elif got[0] > n_true:
            failures["fan over-counted (merged with a neighbour or an unpaired corner)"] += 1
        else:
            failures["fan under-counted (hidden or missed index, or false pair)"] += 1
    # 1a. a fan read where the table has none (clutter, card backs, a joker's face)
    for p in reading.piles:
        own = [owners[d] for c in p.cards for d in c.detections if owners[d] >= 0]
        if p.kind is PileKind.MELD and not any(kinds[pile_of_card[o]] in ("meld", "book") for o in own):
            failures["extra meld (read where the table has none)"] += 1
            break
    # 1b. single whole cards: the top of a squared book kept as one, anything else read as loose
    for p in reading.piles:
        if len(p.cards) == 1 and p.cards[0].fully_visible and p.kind in (PileKind.SQUARED_BOOK, PileKind.LOOSE):
            own = {owners[d] for d in p.cards[0].detections}
            stack = all(o >= 0 and cards[o]["pile_kind"] == "squared" for o in own)
            stats["singles_stack" if stack else "singles_other"] += 1
            if stack and p.kind is PileKind.SQUARED_BOOK:
                stats["singles_stack_kept"] += 1
            if not stack and p.kind is PileKind.LOOSE:
                stats["singles_other_loose"] += 1
    # 1c. squared books: a true squared book is found when a pile read as a squared book holds one of its indices
    found_books = {pile_of_card[owners[d]] for p in reading.piles if p.kind is PileKind.SQUARED_BOOK
                   for c in p.cards for d in c.detections if owners[d] >= 0}
    for pid, kind in kinds.items():
        if kind == "squared":
            stats["books_squared"] += 1
            stats["books_squared_found"] += pid in found_books
    # 2. exact piles, layout and score
    true_team = doc["teams"]["A"]
    pred_team = reading.team_layout()
    tm, tt, tr, tl = norm_team(true_team)
    pm, pt, pr, pl = norm_team(pred_team)
    n_true_piles = len(tm) + len(tt) + (1 if tr else 0) + (1 if tl else 0)
    hits = _multiset_hits(tm, pm) + _multiset_hits(tt, pt) + (1 if tr and tr == pr else 0) + \
        (1 if tl and tl == pl else 0)
    stats["piles"] += n_true_piles
    stats["piles_exact"] += hits
    if len(pt) > len(tt):
        failures["extra squared book (a loose card read as a marker)"] += 1
    if len(pt) < len(tt):
        failures["squared book missed"] += 1
    if tr != pr:
        failures["red threes wrong"] += 1
    if tl != pl:
        failures[_hand_failure(true_team, tl, pl)] += 1
    stats["tables"] += 1
    exact_layout = (tm, tt, tr, tl) == (pm, pt, pr, pl)
    stats["layout_exact"] += exact_layout
    rules = get_rules(doc.get("rules", "pagat"))
    truth_score = score_round(TableLayout.from_dict({k: doc[k] for k in ("rules", "round", "went_out", "teams")}),
                              rules, lenient=True).teams["A"]
    pred_round = score_round(TableLayout.from_dict({"rules": doc.get("rules", "pagat"), "round": doc["round"],
                                                    "went_out": doc["went_out"], "teams": {"A": pred_team}}),
                             rules, lenient=True)
    pred = pred_round.teams["A"]
    # a table a perfect reader could score exactly from the photo: every scored card shows an index, no
    # squared book hides wilds (a dirty or wild marker needs someone to count the stack) and no hand holds a
    # single card (datasets.scenes draws a one-card hand as it draws a loose card, which is not scored)
    scored_kinds = ("meld", "book", "red_threes", "left")
    readable = all(c["index_boxes_px"] for c in cards if c["pile_kind"] in scored_kinds) and \
        all(_is_clean_marker(b["top"]) for b in true_team.get("squared_books", [])) and \
        all(len(hand) > 1 for hand in true_team.get("left", []))
    stats["tables_readable"] += readable
    # jokers: their corner marks differ by deck, the hardest index to find on unseen designs
    shows_joker = any(c["code"] == "JK" and c["index_boxes_px"] for c in cards)
    stats["tables_joker"] += shows_joker
    stats["joker_indices"] += sum(len(c["index_boxes_px"]) for c in cards if c["code"] == "JK")
    stats["joker_indices_read"] += sum(1 for k, o in enumerate(owners)
                                       if o >= 0 and cards[o]["code"] == "JK" and dets.codes[k] == "JK")
    # what the user is told: a table read with no note to check and no rule broken ("Check these" and "Problems"
    # empty) should be right; a photo with no card read is refused by `handfoot score` ("no cards found", exit 1),
    # so it is not a silent error
    told = bool(reading.notes) or any(p.severity == "illegal" for p in pred_round.problems)
    unflagged = not told and len(dets) > 0
    stats["tables_no_cards"] += not len(dets)
    stats["tables_unflagged"] += unflagged
    stats["tables_noted"] += told
    exact_score = pred.exact and pred.total == truth_score.total
    stats["wrong_unflagged"] += unflagged and not exact_score
    stats["score_exact_noted"] += told and exact_score
    if exact_score:
        stats["score_exact"] += 1
        stats["score_exact_unflagged"] += unflagged
        stats["score_exact_readable"] += readable
        stats["score_exact_joker"] += shows_joker
    elif not pred.exact and pred.total_min <= truth_score.total <= pred.total_max:
        stats["score_range"] += 1
        if exact_layout:
            failures["layout exact, score a range (an uncounted dirty/wild squared book)"] += 1


def design_figures(c: Counter) -> dict:
    """One deck design's figures from its tables' counts (``evaluate_scene``'s ``stats``)."""
    return {"tables": c["tables"], "fans": c["fans"], "fans_counted": c["fans_counted"],
            "fan_counting_accuracy": c["fans_counted"] / max(1, c["fans"]),
            "squared_books": c["books_squared"], "squared_books_found": c["books_squared_found"],
            "score_exact": c["score_exact"], "exact_score_rate": c["score_exact"] / max(1, c["tables"]),
            "wrong_unflagged": c["wrong_unflagged"]}


def cached_found(path: Path | None, image: np.ndarray, detector, reader, config=None) -> Detections:
    """Stage 1 (``vision.pipeline.detect``: the boxes and the reader's probabilities) of one photo, kept in
    ``path`` (.npz) when given: the first run detects and writes the file, later runs load it. ``config`` None is
    the shipped :data:`vision.config.DEFAULT`."""
    if path is not None and path.is_file():
        return Detections.load(path)
    found = detect(image, detector, reader, config or DEFAULT)
    if path is not None:
        found.save(path)
    return found
