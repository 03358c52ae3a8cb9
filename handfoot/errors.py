"""Errors of the application layer, each one a kind of :class:`scorer.HandFootError`.

``HandFootError`` is the one base type of everything a user can cause: the rules engine's errors (a bad card
code, layout or rule name), the camera pipeline's (``vision.images.ImageError``, ``ModelError``,
``vision.pipeline.NoCardsError``) and these. The command line prints any of them as one line and exits 1; the
web service answers with a 4xx JSON body whose status is :func:`http_status` of the error.
"""

from __future__ import annotations

from scorer import HandFootError
from scorer.game import GameError


class TooLargeError(HandFootError, ValueError):
    """An input over one of the limits of :class:`handfoot.core.Limits` (file bytes, image pixels, number of
    files, JSON size or depth, a layout's card count). HTTP 413."""

    http_status = 413


class NotFoundError(HandFootError, LookupError):
    """A game, round or photo reading that does not exist. HTTP 404."""

    http_status = 404

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0]) if self.args else "not found"


class ConflictError(HandFootError, ValueError):
    """A request that does not fit the state of a game (a round after the last one, a photo reading already
    saved as a round: ``extra`` names it). HTTP 409."""

    http_status = 409

    def __init__(self, message: str, **extra) -> None:
        super().__init__(message)
        self.extra = extra


class StaleError(HandFootError, RuntimeError):
    """A change made from a version of a game that is not its version any more (``If-Match``): another phone
    changed it first. ``game_id`` and ``version`` say which game and where it is now. HTTP 412."""

    http_status = 412

    def __init__(self, message: str, game_id: str, version: int) -> None:
        super().__init__(message)
        self.game_id = game_id
        self.version = version


class PreconditionRequiredError(HandFootError, RuntimeError):
    """A write that would change something else when sent again (an undo: the rounds after it move up) sent with
    nothing that tells a repeat apart: neither ``If-Match`` with the game's version nor an ``Idempotency-Key``.
    The message says what to send. HTTP 428."""

    http_status = 428


class DeckChangedError(HandFootError, RuntimeError):
    """A deck profile that is not the one a learning job was allowed to replace (``If-Match``: gone or taught again;
    ``If-None-Match: *``: one taught meanwhile), at the job's start or as it saves: nothing was replaced.
    ``extra["deck"]``: the profile as it is now (``handfoot.deck_sync.DeckOut`` as JSON; None: there is none).
    HTTP 412."""

    http_status = 412

    def __init__(self, message: str, deck: dict | None) -> None:
        super().__init__(message)
        self.extra = {"deck": deck}


class BusyError(HandFootError, RuntimeError):
    """Every slot for photo work is taken; ``retry_after`` is a suggested wait in seconds. HTTP 503."""

    http_status = 503

    def __init__(self, message: str, retry_after: int = 5) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UnavailableError(HandFootError, RuntimeError):
    """Something the service was started without (the camera models, when the vision extra is missing).
    HTTP 503."""

    http_status = 503


class PhotosError(HandFootError, ValueError):
    """Several photos of one request that cannot be read, each for its own reason (``errors``: one error each,
    its message naming its file, in the order the photos were given), all told at once so one is not found only
    after the other is fixed. The message is theirs joined by "; "; ``extra`` lists them (``errors``: their
    messages). HTTP: their status when they share it, else 422."""

    def __init__(self, errors: list[HandFootError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = list(errors)
        self.extra = {"errors": [str(e) for e in errors]}
        statuses = {http_status(e) for e in errors}
        self.http_status = statuses.pop() if len(statuses) == 1 else 422

    @classmethod
    def of(cls, errors: list[HandFootError]) -> HandFootError:
        """One error for ``errors`` (one at least): the error itself for one, else a :class:`PhotosError`."""
        return errors[0] if len(errors) == 1 else cls(errors)


def http_status(exc: HandFootError) -> int:
    """The HTTP status the web service answers ``exc`` with: the error class's ``http_status`` (413, 404, 409,
    503 above; 413 for ``vision.images.ImageTooLargeError``), 409 for a round that does not fit its game
    (``scorer.game.GameError``), 422 for everything else a user can send wrong (bad layout, card, rules, image,
    no cards found)."""
    return getattr(exc, "http_status", 409 if isinstance(exc, GameError) else 422)
