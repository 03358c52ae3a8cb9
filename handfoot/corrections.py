"""Corrections to a photo reading: what a player changes with a tap, applied to the reading's piles.

A correction names a card or pile by its id in the reading (:class:`handfoot.results.CardOut`,
:class:`handfoot.results.PileOut`); the corrected piles are made into a layout again and re-scored
(:func:`handfoot.app.rescore`), so a correction never means editing JSON by hand::

    [{"op": "set_card", "card": "i0p2.1", "code": "QH"},      # misread: it is the queen of hearts
     {"op": "remove_card", "card": "i0p4.0"},                 # not a card of this round
     {"op": "move_card", "card": "i0p1.3", "to": "i0p2"},     # belongs to the meld beside it
     {"op": "set_kind", "pile": "i0p5", "kind": "loose"},     # a discard, not a squared book
     {"op": "set_book", "pile": "i0p3", "count": 8, "kind": "dirty"},   # counted under the marker
     {"op": "add_pile", "team": "B", "kind": "meld", "cards": ["9S", "9H", "2C"]},   # a pile the camera missed
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
    of ``squared_books``, docs/layout.md). A field left out is left as it was."""

    op: Literal["set_book"]
    pile: str = Field(max_length=40)
    count: int | None = Field(None, ge=1, le=60)
    kind: BookKind | None = None
    rank: RankCode | None = None
    cards: list[str] | None = Field(None, max_length=60)


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


Correction = Annotated[Union[SetCard, RemoveCard, MoveCard, SetKind, SetBook, AddPile, RemovePile],
                       Field(discriminator="op")]


class CorrectionError(HandFootError, ValueError):
    """A correction that names a card or pile the reading does not have, or cannot be applied."""


def apply_corrections(images: list[dict[str, Any]], corrections: list[Any]) -> list[dict[str, Any]]:
    """The images' piles (``ImageOut`` dicts) with ``corrections`` applied in order; the input is not changed.

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

    for op in corrections:
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
    return images
