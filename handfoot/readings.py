"""A photo reading as piles with ids: made into a layout, scored, each pile labelled and its verdict given in
words, and corrected (:mod:`handfoot.corrections`) then scored again.

A reading's images hold piles as plain dicts while they are built or corrected (the fields of
:class:`handfoot.results.PileOut` without ``label``, ``where``, ``verdict`` and ``problems``, which
:func:`rescore` fills in from the rules engine).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Sequence

from scorer import Card, get_rules
from scorer.errors import InvalidLayoutError
from scorer.layout import SquaredBook, TableLayout
from scorer.melds import MeldCheck, check_meld, marker_kind
from scorer.rules import Rules
from scorer.scoring import score_round
from scorer.wording import pile_word

from .corrections import apply_corrections
from .results import ImageOut, LayoutPileOut, PhotoScore, PileOut, RoundScoreOut, image_dict


def rules_of(name: str | None, house_rules: dict[str, Any] | None = None, default: str = "pagat") -> Rules:
    """The preset ``name`` (default ``default``) with ``house_rules`` applied.

    Raises:
        UnknownRulesError, RulesError: an unknown preset, field or value.
    """
    return get_rules(name or default, **dict(house_rules or {}))


def layout_of_piles(images: Sequence[dict[str, Any]], left: dict[str, list[list[str]]], rules: str,
                    house_rules: dict[str, Any], round_no: int, went_out: str | None) -> tuple[dict[str, Any], dict]:
    """The layout document (``docs/layout.md``) of every pile of ``images`` (in order) and the typed-in cards
    left, and each pile id's place in it (``teams.A.melds[0]``)."""
    teams: dict[str, dict[str, list]] = {}
    where: dict[str, str] = {}

    def team_of(name: str) -> dict[str, list]:
        return teams.setdefault(name, {"melds": [], "squared_books": [], "red_threes": [], "left": [], "loose": []})

    for image in images:
        for pile in image["piles"]:
            t = team_of(pile["team"])
            codes = [c["code"] for c in pile["cards"]]
            kind, base = pile["kind"], f"teams.{pile['team']}"
            if kind == "meld":
                where[pile["id"]] = f"{base}.melds[{len(t['melds'])}]"
                t["melds"].append(codes)
            elif kind == "squared_book":
                where[pile["id"]] = f"{base}.squared_books[{len(t['squared_books'])}]"
                t["squared_books"].append({"top": codes[0], **pile.get("book", {})} if codes else {})
            elif kind == "left":
                where[pile["id"]] = f"{base}.left[{len(t['left'])}]"
                t["left"].append(codes)
            else:  # red_threes, loose: one list a team
                where[pile["id"]] = f"{base}.{kind}"
                t[kind].extend(codes)
    for team, packets in left.items():
        team_of(team)["left"].extend(packets)
    doc: dict[str, Any] = {"rules": rules, "round": round_no, "went_out": went_out, "teams": teams}
    if house_rules:
        doc["house_rules"] = dict(house_rules)
    return doc, where


def pile_labels(photo: Any, rules: str, house_rules: dict[str, Any], round_no: int) -> dict[Any, str]:
    """What the rules engine makes of each pile of one photo reading (a ``vision.types.PhotoReading``): pile ->
    its label (``"clean book"``, ``"meld"``, ``"red threes"``...), as an annotated picture draws it. A reading that
    makes no layout labels each pile by its kind."""
    image = image_dict(0, photo, "live")
    piles = [p for side in photo.sides for p in side.piles]
    try:
        result = rescore([image], {}, rules, house_rules, round_no, None, [])
    except InvalidLayoutError:
        return {pile: pile_word(pile.kind.value) for pile in piles}
    return {pile: out.label for pile, out in zip(piles, result.images[0].piles)}


def layout_piles(layout: TableLayout, score: RoundScoreOut,
                 rules: Rules) -> list[tuple[LayoutPileOut, list[Card] | SquaredBook]]:
    """Each pile of ``layout`` named as a photo's reading names it (:func:`scorer.wording.pile_word`: ``clean
    book`` for a meld that is a complete book in its ``score`` under ``rules``), with the layout's own item (its
    cards, or the :class:`~scorer.layout.SquaredBook`); each team's melds, squared books, red threes, cards left
    and loose cards in that order, a list left empty no pile."""
    books = {b.where: b for t in score.teams.values() for b in t.books}
    out: list[tuple[LayoutPileOut, list[Card] | SquaredBook]] = []

    def add(team: str, kind: str, where: str, item, codes: list[str], size: int | None = None) -> None:
        book = books.get(where)
        label = pile_word(kind, book and book.kind, size if book and book.squared else None)
        out.append((LayoutPileOut(team=team, where=where, label=label, cards=codes), item))

    for team, t in layout.teams.items():
        base = f"teams.{team}"
        for k, meld in enumerate(t.melds):
            add(team, "meld", f"{base}.melds[{k}]", meld, [c.code for c in meld])
        for k, b in enumerate(t.squared_books):
            add(team, "squared_book", f"{base}.squared_books[{k}]", b, [b.top.code],
                book_count({"book": b.model_dump()}, rules))
        if t.red_threes:
            add(team, "red_threes", f"{base}.red_threes", t.red_threes, [c.code for c in t.red_threes])
        for k, packet in enumerate(t.left):
            if packet:
                add(team, "left", f"{base}.left[{k}]", packet, [c.code for c in packet])
        if t.loose:
            add(team, "loose", f"{base}.loose", t.loose, [c.code for c in t.loose])
    return out


def rescore(images: list[dict[str, Any]], left: dict[str, list[list[str]]], rules: str, house_rules: dict[str, Any],
            round_no: int, went_out: str | None, notes: list[str], resolved: Rules | None = None) -> PhotoScore:
    """The layout of ``images``' piles scored (leniently: a photo is always scored) and each pile labelled with
    what the rules engine made of it. ``notes`` are the notes on the photos themselves; each pile's own notes
    follow them in the result's ``notes``.

    Raises:
        InvalidLayoutError: a pile that makes no layout (e.g. a squared book with no card).
    """
    resolved = resolved or rules_of(rules, house_rules)
    doc, where = layout_of_piles(images, left, rules, house_rules, round_no, went_out)
    layout = TableLayout.from_dict(doc)
    result = score_round(layout, resolved, lenient=True)
    books = {b.where: b for t in result.teams.values() for b in t.books}
    out_images = []
    for image in images:
        piles = []
        for pile in image["piles"]:
            place = where[pile["id"]]
            book = books.get(place)
            if pile["kind"] == "left" and (pile["id"].startswith("t") or image["kind"] == "hand"):
                label = "cards left (typed in)" if pile["id"].startswith("t") else "left in hand"
            else:
                label = pile_word(pile["kind"], book and book.kind.value,
                                  book_count(pile, resolved) if book and book.squared else None)
            problems = [p.message for p in result.problems if p.where == place or p.where.startswith(place + "[")
                        or p.where.startswith(place + ".")]
            piles.append(PileOut(**{**pile, "label": label, "where": place,
                                    "verdict": _verdict(pile, image["kind"], book, resolved), "problems": problems}))
        out_images.append(ImageOut(**{**image, "piles": piles}))
    pile_notes = [f"team {p.team}: {p.label} {' '.join(c.code for c in p.cards)}: "
                  f"{'; '.join(p.notes)}"
                  for im in out_images for p in im.piles if p.notes]
    out = PhotoScore(images=out_images, layout=doc, left=left, notes=[*notes, *pile_notes], photo_notes=notes,
                     score=RoundScoreOut.model_validate(result.to_dict()))
    return out.with_round(result)


def _verdict(pile: dict[str, Any], image_kind: str, book, rules: Rules) -> str:
    """What the rules make of a pile, in words: ``legal dirty book of kings under pagat: 5 naturals + 2 wilds,
    150 points + 300 for the dirty book``; a squared book's marker card and what it says; red threes, cards left
    (a red three held among them with what it costs, so that the piles add up to the round's total: ``11 cards
    still held: -170 points (-70 for the cards, -100 for the red three held)``) and loose cards. A complete book
    (``book``: the score's :class:`~scorer.scoring.BookReport` at the pile, else None) is said with its bonus, as
    the round's total counts it."""
    codes = [c["code"] for c in pile["cards"]]
    cards = [Card.parse(c) for c in codes]
    kind = pile["kind"]
    if kind == "meld":
        return _meld_verdict(check_meld(cards, rules), rules) + (_bonus_words(book) if book else "")
    if kind == "squared_book":
        top = cards[0]
        marker = marker_kind(top) if rules.book_markers else None
        colour = "wild" if top.is_wild else ("red" if top.is_red else "black")
        if book is None:
            return f"squared book under the {colour} marker card {top}: not a book the rules accept"
        exact = book.points_min == book.points_max
        points = f"{book.points_min} points" if exact else f"{book.points_min} to {book.points_max} points"
        agrees = ("" if marker is None else f", as its {colour} marker card {top} says" if marker is book.kind else
                  f"; its {colour} marker card {top} says {marker.value}")
        return (f"squared {book.kind.value} book of {book_count(pile, rules)} cards{agrees}: {points}"
                f"{_bonus_words(book)} under {rules.name}" + ("" if exact else ", until its wilds are counted"))
    if kind == "red_threes":
        return f"{len(cards)} red three{'s' * (len(cards) != 1)} on the table, {rules.red_three_on_table:+} each"
    if kind == "left":
        points = sum(rules.card_value(c) for c in cards if not c.is_red_three)
        where = "in this hand or foot" if image_kind == "hand" else "still held"
        head = f"{len(cards)} card{'s' * (len(cards) != 1)} {where}"
        threes = sum(c.is_red_three for c in cards)
        if not threes:
            return f"{head}: -{points} points"
        held = "the red three held" if threes == 1 else f"the {threes} red threes held"
        penalty = threes * rules.red_three_in_hand
        if threes == len(cards):
            return f"{head}: {penalty:,} points for {held}"
        return f"{head}: {penalty - points:,} points ({-points:,} for the cards, {penalty:+,} for {held})"
    return "loose: not scored (a discard, or a card of no pile); move it to a pile if it belongs to one"


def _bonus_words(book) -> str:
    """A complete book's bonus (``book``: a :class:`~scorer.scoring.BookReport`) as the words after its cards'
    points: `` + 500 for the clean book`` (`` - 100 for ...`` for a bonus a house rule made negative)."""
    sign = "-" if book.bonus < 0 else "+"
    return f" {sign} {abs(book.bonus):,} for the {book.kind.value} book"


def _meld_verdict(check: MeldCheck, rules: Rules) -> str:
    """A meld in words, the rules named after what they make of it: ``legal meld of queens under pagat: 2 naturals
    + 1 wild, 40 points``; an illegal one says its points count in the round's total (the scorer counts them, as
    melded cards, until the meld is corrected). Why it breaks the rules is not repeated here: the rules' problems
    at the pile (``PileOut.problems``) say it."""
    head, _, body = replace(check, reasons=()).describe().partition(": ")
    text = f"{head} under {rules.name}" + (f": {body}" if body else f": {check.points} points" if check.points else "")
    if check.reasons and check.points:
        text += ", counted in the round's total until it is corrected"
    return text


def book_count(pile: dict[str, Any], rules: Rules) -> int:
    """The cards of the squared book ``pile`` (a pile dict) as it is scored: its counted cards, else its count,
    else the rules' book size (the stack under its top card is not seen)."""
    book = pile.get("book") or {}
    return len(book["cards"]) if book.get("cards") else book.get("count") or rules.book_size


def correct_reading(reading: PhotoScore, corrections: Sequence[Any], round_no: int | None = None,
                    went_out: str | None = "", rules: str | None = None,
                    house_rules: dict[str, Any] | None = None) -> PhotoScore:
    """``reading`` with ``corrections`` (:mod:`handfoot.corrections`) applied and scored again; ``round_no``,
    ``went_out`` (None: nobody; ``""``: as read), ``rules`` and ``house_rules`` replace the reading's when given.

    Raises:
        CorrectionError, InvalidCardError: a correction that cannot be applied; UnknownRulesError, RulesError.
    """
    images = apply_corrections([im.model_dump() for im in reading.images], list(corrections))
    layout = reading.layout
    name = rules or layout.get("rules", "pagat")
    house = dict(layout.get("house_rules", {}) if house_rules is None else house_rules)
    out = went_out if went_out != "" else layout.get("went_out")
    corrected = rescore(images, {}, name, house, round_no or layout.get("round", 1), out, list(reading.photo_notes))
    return corrected.model_copy(update={"left": reading.left, "deck": reading.deck})


def totals_lines(score: RoundScoreOut) -> list[str]:
    """``team A: 1,320`` per team (``team A: 900..1,100`` while a squared book is uncounted)."""
    return [f"team {name}: {f'{t.total:,}' if t.exact else f'{t.total_min:,}..{t.total_max:,}'}"
            for name, t in score.teams.items()]


def reading_json(result: PhotoScore) -> str:
    """``result`` as JSON text (the stored form of a reading)."""
    return result.model_dump_json()


def load_reading(text: str) -> PhotoScore:
    """A reading stored by :func:`reading_json`."""
    return PhotoScore.model_validate(json.loads(text))


def examples_of(result: PhotoScore, images: Sequence[str]) -> list[dict[str, Any]]:
    """A reading (corrections applied) as deck-learning examples (``vision.decks``, the form ``handfoot detect
    --json`` prints): per photo ``{"image": images[k], "detections": [{"card": code, "box": [x1, y1, x2, y2]}]}``,
    one detection per corner-index box of each card (a card typed in or counted in a gap has none); photos with
    no box are left out."""
    out = []
    for image, read in zip(images, result.images):
        boxes = [{"card": c.code, "box": [round(float(v), 2) for v in b]}
                 for pile in read.piles for c in pile.cards for b in c.boxes]
        if boxes:
            out.append({"image": image, "detections": boxes})
    return out

