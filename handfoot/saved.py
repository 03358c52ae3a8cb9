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
    naming the first of them); ``photos``: the names of this reading's photos that round holds (the photos of the
    same bytes as one of its reading's; all of them when made from this reading), in this reading's order;
    ``same_cards``: that reading has the same piles and cards (ids and codes) as this one, so a correction made on
    one applies to the other; ``message``: what saving it again would be refused with (409)."""

    round: int | None = None
    game: str | None = None
    reading: str | None = None
    photo: str | None = None
    photos: list[str] = []
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
    theirs = mine if found.reading == reading_id else ledger.reading(found.reading)
    held = {f.get("sha256") for f in theirs.files} - {"", None}
    photos = [f["name"] for f in mine.files if theirs is mine or f.get("sha256") in held]
    same = theirs is mine or _cards_of(mine.result) == _cards_of(theirs.result)
    return SavedAsOut(round=found.round, game=found.game, reading=found.reading, photo=found.photo, photos=photos,
                      same_cards=same, message=found.message)


def _cards_of(result: str) -> list[Any]:
    """A stored reading's piles as corrections see them: per photo, each pile's id, team, kind and book, and its
    cards' ids and codes."""
    reading = load_reading(result)
    return [[(p.id, p.team, p.kind, p.book, [(c.id, c.code) for c in p.cards]) for p in im.piles]
            for im in reading.images]
