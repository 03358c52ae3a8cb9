"""Whether a photo reading is already a round: what saving it as one would be refused with (409), known right
after the photos are read, before the family corrects the reading (``GET /v1/games/{id}/saved/{reading}``).

Over :meth:`handfoot.ledger.Ledger.saved_as`, which finds the round; this adds whether that round's reading has
the same piles and cards as the one asked about, so a correction made on one applies to the other.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from .ledger import Ledger
from .readings import load_reading


class SavedAsOut(BaseModel):
    """Where a photo reading is already scored: ``round`` of ``game`` (None, and the rest None or false, when it
    is not), made from ``reading`` (this reading, or another reading of a photo of the same bytes, ``photo``
    naming it); ``same_cards``: that reading has the same piles and cards (ids and codes) as this one, so a
    correction made on one applies to the other; ``message``: what saving it again would be refused with (409)."""

    round: int | None = None
    game: str | None = None
    reading: str | None = None
    photo: str | None = None
    same_cards: bool = False
    message: str | None = None


def saved_as(ledger: Ledger, game_id: str, reading_id: str) -> SavedAsOut:
    """Whether the photo reading ``reading_id`` is already a round (of any game), or has a photo of the same bytes
    as a round of game ``game_id``: what ``POST /v1/games/{id}/rounds`` would refuse with 409, known before the
    family corrects the reading. Raises NotFoundError (no such game or reading)."""
    ledger.game(game_id)
    mine = ledger.reading(ledger.reading_dir(reading_id).name)
    found = ledger.saved_as(reading_id, game_id)
    if found is None:
        return SavedAsOut()
    same = found.reading == reading_id or _cards_of(mine.result) == _cards_of(ledger.reading(found.reading).result)
    return SavedAsOut(round=found.round, game=found.game, reading=found.reading, photo=found.photo, same_cards=same,
                      message=found.message)


def _cards_of(result: str) -> list[Any]:
    """A stored reading's piles as corrections see them: per photo, each pile's id, team, kind and book, and its
    cards' ids and codes."""
    reading = load_reading(result)
    return [[(p.id, p.team, p.kind, p.book, [(c.id, c.code) for c in p.cards]) for p in im.piles]
            for im in reading.images]
