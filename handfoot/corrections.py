"""Corrections to a photo reading: what a player changes with a tap, applied to the reading's piles.

A correction names a card or pile by its id in the reading (:class:`handfoot.results.CardOut`,
:class:`handfoot.results.PileOut`); the corrected piles are made into a layout again and re-scored
(:func:`handfoot.core.rescore`), so a correction never means editing JSON by hand::

    [{"op": "set_card", "card": "i0p2.1", "code": "QH"},      # misread: it is the queen of hearts
     {"op": "remove_card", "card": "i0p4.0"},                 # not a card of this round
     {"op": "move_card", "card": "i0p1.3", "to": "i0p2"},     # belongs to the meld beside it
     {"op": "set_kind", "pile": "i0p5", "kind": "loose"},     # a discard, not a squared book
     {"op": "set_book", "pile": "i0p3", "count": 8, "kind": "dirty"},   # counted under the marker
     {"op": "add_pile", "team": "B", "kind": "meld", "cards": ["9S", "9H", "2C"]},   # a pile the camera missed
     {"op": "add_card", "pile": "i0p2", "code": "QS"},         # a card of a pile the camera missed
     {"op": "split_pile", "pile": "i0p1", "at": "i0p1.3"},    # two melds read as one: a new pile from i0p1.3 on
     {"op": "join_piles", "pile": "i0p7", "into": "i0p1"},    # one meld read as two
     {"op": "remove_pile", "pile": "i0p6"}]

Round facts (``round``, ``went_out``) are given beside the corrections, not as corrections.
"""

from __future__ import annotations

import copy
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from scorer import Card, HandFootError
from scorer.layout import RankCode
from scorer.melds import BookKind
from scorer.numbers import WholeOrNone
from scorer.wording import counted

PileKindName = Literal["meld", "squared_book", "red_threes", "left", "loose"]


class _Op(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SetCard(_Op):
    """The card ``card`` is ``code`` (it was misread)."""

    op: Literal["set_card"]
    card: str = Field(max_length=40)
    code: str = Field(max_length=8)


class RemoveCard(_Op):
    """The card ``card`` is not there (a false reading, or a card of another round); an emptied pile goes."""

    op: Literal["remove_card"]
    card: str = Field(max_length=40)


class MoveCard(_Op):
    """The card ``card`` belongs to pile ``to`` (appended at its end)."""

    op: Literal["move_card"]
    card: str = Field(max_length=40)
    to: str = Field(max_length=40)


class SetKind(_Op):
    """The pile ``pile`` is of ``kind`` (a squared book keeps its first card as the top card)."""

    op: Literal["set_kind"]
    pile: str = Field(max_length=40)
    kind: PileKindName


class SetBook(_Op):
    """What was counted of the squared book ``pile``: its number of cards, kind, rank or every card (layout keys
    of ``squared_books``, docs/layout.md), or just how many of its cards are twos and jokers (``twos``,
    ``jokers``: the rest are naturals of its rank, which makes its value exact). A field left out is left as
    it was."""

    op: Literal["set_book"]
    pile: str = Field(max_length=40)
    count: WholeOrNone = Field(None, ge=1, le=60)
    kind: BookKind | None = None
    rank: RankCode | None = None
    cards: list[str] | None = Field(None, max_length=60)
    twos: WholeOrNone = Field(None, ge=0, le=60)
    jokers: WholeOrNone = Field(None, ge=0, le=60)


class AddCard(_Op):
    """A card of pile ``pile`` that the camera missed (it has no box), appended at the pile's end."""

    op: Literal["add_card"]
    pile: str = Field(max_length=40)
    code: str = Field(max_length=8)


class SplitPile(_Op):
    """Two piles read as one: the cards of ``pile`` from card ``at`` on make a new pile of the same kind and
    team (id ``<pile>s``)."""

    op: Literal["split_pile"]
    pile: str = Field(max_length=40)
    at: str = Field(max_length=40)


class JoinPiles(_Op):
    """One pile read as two: the cards of ``pile`` are appended to ``into``, and ``pile`` goes."""

    op: Literal["join_piles"]
    pile: str = Field(max_length=40)
    into: str = Field(max_length=40)


class AddPile(_Op):
    """A pile the camera missed: ``cards`` of ``team`` as ``kind`` (cards typed in have no box)."""

    op: Literal["add_pile"]
    team: str = Field(min_length=1, max_length=40)
    kind: PileKindName
    cards: list[str] = Field(min_length=1, max_length=60)


class RemovePile(_Op):
    """The pile ``pile`` is not there."""

    op: Literal["remove_pile"]
    pile: str = Field(max_length=40)


class Checked(_Op):
    """Every card of the round, as corrected so far, was looked at and is right: nothing changes, but a round saved
    with it teaches its deck every card (``handfoot.teaching``), as a corrected round does."""

    op: Literal["checked"]


Correction = Annotated[Union[SetCard, RemoveCard, MoveCard, SetKind, SetBook, AddPile, RemovePile, AddCard,
                             SplitPile, JoinPiles, Checked],
                       Field(discriminator="op")]


class CorrectionError(HandFootError, ValueError):
    """A correction that names a card or pile the reading does not have, or cannot be applied."""


def apply_corrections(images: list[dict[str, Any]], corrections: list[Any]) -> list[dict[str, Any]]:
    """The images' piles (``ImageOut`` dicts) with ``corrections`` applied in order; the input is not changed.
    A pile a correction touches loses its notes (the camera's doubts): a player has looked at it.

    Ids stay stable: a card keeps its id when moved, an added pile gets the id ``x<k>`` (``x<k>.<j>`` for its
    cards) and lives in the last image.

    Raises:
        CorrectionError: an unknown card or pile id, a squared-book correction on another kind of pile.
        InvalidCardError: a bad card code.
    """
    images = copy.deepcopy(images)
    if not images:
        raise CorrectionError("a reading with no photo cannot be corrected")
    added = sum(1 for im in images for p in im["piles"] if p["id"].startswith("x"))

    def find_pile(pile_id: str) -> tuple[list, dict]:
        for im in images:
            for p in im["piles"]:
                if p["id"] == pile_id:
                    return im["piles"], p
        raise CorrectionError(f"no pile {pile_id!r} in this reading")

    def find_card(card_id: str) -> tuple[list, dict, dict]:
        for im in images:
            for p in im["piles"]:
                for c in p["cards"]:
                    if c["id"] == card_id:
                        return im["piles"], p, c
        raise CorrectionError(f"no card {card_id!r} in this reading")

    def drop_if_empty(piles: list, pile: dict) -> None:
        if not pile["cards"]:
            piles.remove(pile)

    def seen(*piles: dict) -> None:
        """A player looked at these piles and changed them: the camera's doubts about them are settled."""
        for p in piles:
            p["notes"] = []

    for op in corrections:
        for field in ("card", "pile", "to", "into"):
            ref = getattr(op, field, None)
            if ref is not None:
                try:
                    seen(find_card(ref)[1] if field == "card" else find_pile(ref)[1])
                except CorrectionError:
                    pass  # reported by the operation itself below
        if isinstance(op, SetCard):
            _, _, card = find_card(op.card)
            card["code"] = Card.parse(op.code).code
            card["confidence"] = 1.0
        elif isinstance(op, RemoveCard):
            piles, pile, card = find_card(op.card)
            pile["cards"].remove(card)
            drop_if_empty(piles, pile)
        elif isinstance(op, MoveCard):
            _, target = find_pile(op.to)
            piles, pile, card = find_card(op.card)
            if pile is not target:
                pile["cards"].remove(card)
                target["cards"].append(card)
                drop_if_empty(piles, pile)
        elif isinstance(op, SetKind):
            _, pile = find_pile(op.pile)
            pile["kind"] = op.kind
            if op.kind != "squared_book":
                pile.pop("book", None)
        elif isinstance(op, SetBook):
            _, pile = find_pile(op.pile)
            if pile["kind"] != "squared_book":
                raise CorrectionError(f"pile {op.pile} is a {pile['kind'].replace('_', ' ')}, not a squared book "
                                      "(set its kind first)")
            book = dict(pile.get("book") or {})
            for key in ("count", "kind", "rank"):
                value = getattr(op, key)
                if value is not None:
                    book[key] = value.value if hasattr(value, "value") else value
            if op.cards is not None:
                book["cards"] = [Card.parse(c).code for c in op.cards]
                book.pop("suits_seen", None)
            if op.twos is not None or op.jokers is not None:
                book["cards"] = _book_cards(pile, book, op.twos or 0, op.jokers or 0)
                book["suits_seen"] = False
            pile["book"] = book
        elif isinstance(op, AddPile):
            pile_id = f"x{added}"
            added += 1
            codes = [Card.parse(c).code for c in op.cards]
            images[-1]["piles"].append({
                "id": pile_id, "team": op.team, "kind": op.kind, "box": None, "notes": [],
                "cards": [{"id": f"{pile_id}.{j}", "code": code, "confidence": 1.0, "boxes": [], "center": [],
                           "size": 0.0} for j, code in enumerate(codes)]})
        elif isinstance(op, RemovePile):
            piles, pile = find_pile(op.pile)
            piles.remove(pile)
        elif isinstance(op, AddCard):
            _, pile = find_pile(op.pile)
            n = sum(1 for im in images for p in im["piles"] for c in p["cards"] if c["id"].startswith("+"))
            pile["cards"].append({"id": f"+{n}", "code": Card.parse(op.code).code, "confidence": 1.0, "boxes": [],
                                  "center": [], "size": 0.0})
        elif isinstance(op, SplitPile):
            piles, pile = find_pile(op.pile)
            at = next((k for k, c in enumerate(pile["cards"]) if c["id"] == op.at), None)
            if at is None:
                raise CorrectionError(f"no card {op.at!r} in pile {op.pile}")
            if at == 0:
                raise CorrectionError(f"pile {op.pile} cannot be split at its first card")
            new_id = pile["id"] + "s"
            while any(p["id"] == new_id for im in images for p in im["piles"]):
                new_id += "s"
            new = {**copy.deepcopy({k: v for k, v in pile.items() if k != "cards"}), "id": new_id,
                   "cards": pile["cards"][at:], "notes": [], "book": {}}
            pile["cards"] = pile["cards"][:at]
            piles.insert(piles.index(pile) + 1, new)
        elif isinstance(op, JoinPiles):
            piles, pile = find_pile(op.pile)
            _, target = find_pile(op.into)
            if pile is target:
                raise CorrectionError(f"pile {op.pile} cannot be joined to itself")
            target["cards"].extend(pile["cards"])
            piles.remove(pile)
    return images


def _book_cards(pile: dict[str, Any], book: dict[str, Any], twos: int, jokers: int) -> list[str]:
    """A squared book's cards when only its wilds were counted: its top card, ``twos`` twos, ``jokers`` jokers,
    and naturals of its rank (suits in turn) up to its count (7 unless ``count`` says). Raises CorrectionError
    for a book whose rank is not known (a wild on top and no ``rank``) or more wilds than cards. The suits under
    the top card are made up, only to list its cards for the rules engine (the book is marked ``suits_seen``
    false: no message names them, and they are not counted as copies of those cards against the decks)."""
    top = Card.parse(pile["cards"][0]["code"])
    count = book.get("count") or 7
    rank = book.get("rank") or (top.rank.value if top.is_natural else None)
    if rank is None:
        raise CorrectionError(f"the rank of the squared book under {top} is not known: give its rank first")
    if top.is_wild and twos + jokers == 0:
        raise CorrectionError(f"the top card {top} is a wild: count it among the book's twos and jokers")
    naturals = count - twos - jokers - (0 if top.is_wild else 1)
    if naturals < 0:
        raise CorrectionError(f"{counted(twos, 'two')} and {counted(jokers, 'joker')} do not fit in a book of "
                              f"{count} cards")
    wild_codes = [("2C", "2S", "2D", "2H")[k % 4] for k in range(twos)] + ["JK"] * jokers
    if top.is_wild:  # the top card is one of the wilds counted
        if top.code in wild_codes:
            wild_codes.remove(top.code)
        else:
            wild_codes.pop(-1 if top.is_joker else 0)
    cards = [top.code] + [f"{rank}{'SHDC'[k % 4]}" for k in range(naturals)] + wild_codes
    return cards
