"""What the ``/v1`` routes share: the dependencies (:func:`get_models`, :func:`get_ledger`, ...: tests swap them
with ``app.dependency_overrides``), the error answers for the OpenAPI schema, and the common parameters."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated

from fastapi import Header, Path as PathParam, Request, UploadFile

from vision.deck_examples import NAME, NAME_RULE

from .. import core
from .. import live, teaching
from ..errors import NotFoundError, UnavailableError
from ..learning import DeckLearning
from ..ledger import Ledger
from ..sync import VERSION_TAG

LAYOUT_EXAMPLE = {"rules": "pagat", "round": 1, "went_out": "A",
                  "teams": {"A": {"melds": [["KH", "KS", "KD", "KC", "KH", "KS", "KD"], ["8H", "8S", "8D"]],
                                  "squared_books": [{"top": "QH"}], "red_threes": ["3H"]},
                            "B": {"melds": [["9S", "9H", "2C"]], "left": [["QD", "7C", "4S"]]}}}
ERRORS = {k: {"description": v, "content": {"application/json": {"example": {"error": "what was wrong"}}}}
          for k, v in ((401, "no access token (when served beyond this computer)"), (404, "no such game, round "
                        "or reading"), (409, "does not fit the game (a photo reading already saved: `game` and "
                                           "`round` name where)"), (413, "too large"),
                       (422, "bad input, named in one line"), (503, "busy: retry after Retry-After seconds"))}
ERRORS[412] = {"description": "the game changed since the version in If-Match (on another phone): `game` is the "
                              "game as it is now", "content": {"application/json": {"example": {
                                  "error": "the game was changed on another phone", "game": {}}}}}
ERRORS[428] = {"description": "nothing that tells a repeat or a stale copy apart: a new game or a photo reading "
                              "needs an Idempotency-Key, a correction If-Match with the game's version, an undo "
                              "either, a new round either or a photo reading or its layout's round; sent again "
                              "after a lost answer (or made before another phone's undo) it would be done twice, "
                              "or land on another round",
               "content": {"application/json": {"example": {
                   "error": "undoing a round needs If-Match: the game's version ..."}}}}
#: the answers of the deck-learning routes that are theirs alone
DECK_ERRORS = {
    409: {"description": "a job of this server is learning a deck of that name already (`job`: its id)",
          "content": {"application/json": {"example": {"error": "deck 'kitchen' is being learned already",
                                                       "job": "0123456789abcdef"}}}},
    412: {"description": "the deck profile of that name is not the one If-Match names (gone, or taught again), or "
                         "there is one and If-None-Match is *: nothing was started; `deck` is the profile as it is "
                         "now (null: none)",
          "content": {"application/json": {"example": {"error": "deck 'kitchen' is taught already", "deck": None}}}}}
#: a deck profile's name (``vision.deck_examples.NAME``) and what it allows, in words
DECK_NAME, DECK_NAME_RULE = NAME.pattern, NAME_RULE
DeckName = Annotated[str, PathParam(pattern=DECK_NAME, description=f"a deck profile's name: {DECK_NAME_RULE}")]
IF_MATCH = Header(alias="If-Match", max_length=200, pattern=VERSION_TAG,
                  description='the game\'s version this change was made from (its ETag, "7"): 412 when it changed '
                              "since")
DECK_IF_MATCH = Header(alias="If-Match", max_length=200, pattern=r'^(\*|(W/)?"[0-9A-Za-z_-]{1,64}")$',
                       description='replace only the deck profile at this version (its `version` in GET /v1/decks, '
                                   'quoted: "3fa9c0d1e2b4a5f6"; * any profile, but one must be kept): 412 when it is '
                                   "gone or was taught again, at the start or as the job saves")
DECK_DELETE_IF_MATCH = Header(alias="If-Match", max_length=200, pattern=r'^(\*|(W/)?"[0-9A-Za-z_-]{1,64}")$',
                              description='delete only the deck profile at this version (its `version` in GET '
                                          '/v1/decks, quoted): 412 when it was taught again since')
IF_NONE_MATCH = Header(alias="If-None-Match", max_length=200, pattern=r"^\*$",
                       description="*: a new deck only: 412 when a profile of that name is kept, at the start or as "
                                   "the job saves")
IDEMPOTENCY_KEY = Header(alias="Idempotency-Key", max_length=200, pattern=r"^[\x21-\x7e]{1,200}$",
                         description="a random id per action: the same key again gets the first answer, nothing new "
                                     "is stored (a new game and a photo reading need one: 428 without)")



def get_settings(request: Request):
    return request.app.state.settings


def get_ledger(request: Request) -> Ledger:
    return request.app.state.ledger


def get_jobs(request: Request):
    return request.app.state.jobs


def get_models_if_any(request: Request) -> core.Models | None:
    """The camera models loaded at start-up, or None when photo reading is off."""
    return request.app.state.models


def get_teacher(request: Request) -> teaching.Teacher:
    return request.app.state.teacher


def get_models(request: Request) -> core.Models:
    """The camera models loaded at start-up. Raises UnavailableError (503) when there are none."""
    models = request.app.state.models
    if models is None:
        raise UnavailableError(f"photo reading is off on this server: {request.app.state.models_error or 'no models'}")
    return models



def get_learning(request: Request) -> DeckLearning:
    """The deck-learning jobs of this server (:class:`handfoot.learning.DeckLearning`)."""
    return request.app.state.learning


def get_live(request: Request) -> live.LiveSession:
    """The running session. Raises NotFoundError (404) when nothing is watched."""
    session = getattr(request.app.state, "live", None)
    if session is None:
        raise NotFoundError("nothing is being watched: start from the live page, or run handfoot watch --serve")
    return session


def decks_dir(settings) -> Path:
    """The service's deck profiles: ``decks/`` beside its ledger."""
    return core.decks_dir(settings.db.parent)


def sent_sizes(request: Request, uploads: list[UploadFile], most: int) -> list[int]:
    """Each upload's length as it was sent, in bytes: as kept, or, for one kept longer than ``most`` (a part the
    guard cut short as it streamed in: :class:`handfoot.guard.PartSizes`), its whole length as the guard counted it
    (matched by file name, in the order they came)."""
    cut: dict[str | None, list[int]] = {}
    for name, size in request.scope.get("state", {}).get("cut_uploads", []):
        cut.setdefault(name, []).append(size)
    sizes = []
    for upload in uploads:
        size = upload.size or 0
        whole = cut.get(upload.filename)
        sizes.append(max(size, whole.pop(0)) if size > most and whole else size)
    return sizes


def save_upload(upload: UploadFile, dest: Path) -> str:
    """Copy an upload to ``dest`` (1 MiB at a time); returns the sha256 of its bytes, taken as they are copied."""
    upload.file.seek(0)
    digest = hashlib.sha256()
    with open(dest, "wb") as f:
        while chunk := upload.file.read(1024 * 1024):
            digest.update(chunk)
            f.write(chunk)
    return digest.hexdigest()


