"""What the ledger (:mod:`handfoot.ledger`) stores and gives back: a game, a round, a photo reading, an
idempotent request's first answer; and its errors (a file that is not a ledger, a disk that cannot be written)."""

from __future__ import annotations

import errno
import sqlite3
from dataclasses import dataclass
from typing import Any

from scorer import HandFootError


class LedgerError(HandFootError, RuntimeError):
    """A database file that cannot be used: not SQLite, made by a newer handfoot, or unwritable."""


class DiskError(LedgerError):
    """The data folder cannot be written now: a read-only or full disk, or no permission. HTTP 503 (the ledger
    is whole; the change was not made)."""

    http_status = 503


#: what SQLite says when it cannot write (the file is fine: the disk or its permissions are not)
_CANNOT_WRITE = ("readonly", "read-only", "disk is full", "unable to open database file", "disk i/o error",
                 "unable to write", "permission denied")


def cannot_write(exc: BaseException) -> bool:
    """Whether ``exc`` (sqlite3 or OSError) says the disk cannot be written (read-only, full, no permission)."""
    if isinstance(exc, OSError):
        return exc.errno in (errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EPERM)
    return isinstance(exc, sqlite3.OperationalError) and any(w in str(exc).lower() for w in _CANNOT_WRITE)



@dataclass(frozen=True)
class GameRecord:
    """A stored game: its id, creation time (ISO 8601, UTC), rules preset, house rules, teams, players, the
    deck profile its photos are read with (None: the stock reader) and whether its cards are printed light on dark
    (``negative``: its photos are read as their negatives)."""

    id: str
    created: str
    rules: str
    house_rules: dict[str, Any]
    teams: list[str]
    names: dict[str, list[str]]
    deck: str | None = None
    #: the deck this game's saved rounds teach (``handfoot.teaching``), None when it teaches none
    teach: str | None = None
    version: int = 0
    negative: bool = False


@dataclass(frozen=True)
class Answer:
    """The first answer given to a request with an ``Idempotency-Key``: which request it was (``POST /v1/games``),
    its status, media type and body."""

    request: str
    status: int
    media_type: str
    body: bytes
    game: str | None = None


@dataclass(frozen=True)
class RoundRecord:
    """A stored round: its number, layout, the photo reading it came from and the corrections applied."""

    n: int
    layout: dict[str, Any]
    reading: str | None
    corrections: list[Any]
    created: str
    updated: str


@dataclass(frozen=True)
class ReadingRecord:
    """A stored photo reading: its id, creation time, result JSON and files (under ``photos/<id>/``)."""

    id: str
    created: str
    result: str
    files: list[dict[str, str]]


@dataclass(frozen=True)
class SavedAs:
    """Where a photo reading is already scored (:meth:`handfoot.ledger.Ledger.saved_as`): round ``round`` of game
    ``game``, made from the reading ``reading`` (the same one, or another reading of a photo of the same bytes,
    ``photo`` naming that photo), and the one line a refused save says (``message``)."""

    game: str
    round: int
    reading: str
    photo: str | None
    message: str
