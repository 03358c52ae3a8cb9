"""The ``/v1/games`` routes: games and their rounds (the ledger, :mod:`handfoot.games`), the deck a game reads
with and teaches, and its exports."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Body, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from .. import core, export, games, saved, teaching
from ..errors import NotFoundError
from ..invite import invite
from ..ledger import Ledger
from ..sync import etag, expected_version, key_wanted, precondition_required, version_wanted
from .deps import (DECK_NAME, ERRORS, IDEMPOTENCY_KEY, IF_MATCH, LAYOUT_EXAMPLE, decks_dir, get_ledger,
                   get_models_if_any, get_settings, get_teacher)

router = APIRouter(prefix="/v1")


@router.post("/games", response_model=games.GameOut, status_code=201,
             responses={k: ERRORS[k] for k in (401, 409, 413, 422, 428)})
def create_game(body: games.GameCreate, response: Response, ledger: Ledger = Depends(get_ledger),
                idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None) -> games.GameOut:
    """Start a game: rules preset, teams, players, house rules. It needs an ``Idempotency-Key`` (428 without, said
    by :class:`handfoot.sync.Idempotency` before the body is read): sent again after a lost answer, the same key
    gets the first game."""
    record = games.create_game(ledger, body)
    return _tagged(response, games.game_view(ledger, record.id))


@router.get("/games", response_model=list[games.GameSummary], responses={401: ERRORS[401]})
def list_games(ledger: Ledger = Depends(get_ledger)) -> list[games.GameSummary]:
    """Every game kept, newest first."""
    return games.game_summaries(ledger)


@router.get("/games/{game_id}", response_model=games.GameOut, responses={404: ERRORS[404], 401: ERRORS[401]})
def get_game(game_id: str, response: Response, ledger: Ledger = Depends(get_ledger)) -> games.GameOut:
    """The game: its rounds scored, running totals, next round's opening minimum, leader and winner, and its
    ``version`` (also its ``ETag``: send it back as ``If-Match`` when changing a round)."""
    return _tagged(response, games.game_view(ledger, game_id))


def _tagged(response: Response, game: games.GameOut) -> games.GameOut:
    response.headers["ETag"] = etag(game.version)
    response.headers["Cache-Control"] = "no-cache"
    return game


@router.delete("/games/{game_id}", status_code=204, responses={k: ERRORS[k] for k in (401, 404, 412, 422)})
def delete_game(game_id: str, request: Request, ledger: Ledger = Depends(get_ledger),
                if_match: Annotated[str | None, IF_MATCH] = None) -> Response:
    """Forget a game and its rounds (its photo readings stay). With ``If-Match``, only while the game is at that
    version: a game changed since on another phone (a round saved there) is 412 with the game as it is now, nothing
    deleted. Sent again after a lost answer, it is 404 (deleted already)."""
    ledger.delete_game(game_id, expected_version(request))
    return Response(status_code=204)


ROUND_BODY = Body(openapi_examples={
    "layout": {"summary": "a layout (docs/layout.md)", "value": LAYOUT_EXAMPLE},
    "photo": {"summary": "a photo reading with corrections",
              "value": {"photo_reading": "0123456789abcdef", "went_out": "A",
                        "corrections": [{"op": "set_card", "card": "i0p1.0", "code": "QH"}]}}})


@router.post("/games/{game_id}/rounds", response_model=games.GameOut, status_code=201,
             responses={k: ERRORS[k] for k in (401, 404, 409, 412, 413, 422, 428)})
def add_round(game_id: str, body: Annotated[dict[str, Any], ROUND_BODY], background: BackgroundTasks,
              request: Request, response: Response, lenient: bool = False,
              if_match: Annotated[str | None, IF_MATCH] = None,
              idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
              settings=Depends(get_settings), ledger: Ledger = Depends(get_ledger),
              teacher: teaching.Teacher = Depends(get_teacher),
              models: core.Models | None = Depends(get_models_if_any)) -> games.GameOut:
    """Score and keep the next round: a layout, or ``{"photo_reading": ID, "corrections": [...], "went_out":
    TEAM}``. A round that breaks the rules is refused (422 with ``problems``) unless ``lenient``; a photo reading
    already saved as a round is 409 naming it; a stale ``If-Match`` is 412 with the game as it is now. A photo
    round of a game that teaches its deck has the deck learned again after the answer (``handfoot.teaching``).
    It needs what tells a repeat (428 without): ``If-Match`` with the game's version, an ``Idempotency-Key``, a
    photo reading (saved once: 409) or a layout naming its ``round`` (refused once that round is in)."""
    if expected_version(request) is None and idempotency_key is None and not _names_its_round(body):
        raise precondition_required("adding a round", [
            version_wanted(ledger.version(game_id)), key_wanted("save"), 'the layout\'s "round" (the round it is)'],
            "sent again after a lost answer, a round with none of them would be stored twice")
    out = games.add_round(ledger, game_id, body, lenient, settings.limits, expected_version(request))
    _teach(background, teacher, ledger, game_id, body, models)
    return _tagged(response, out)


def _names_its_round(body: Any) -> bool:
    """Whether a round's body says which round it is, so that sent twice it is refused once stored: a photo reading
    (a reading is one round), or a layout with a ``round`` number."""
    if not isinstance(body, dict):
        return False
    n = body.get("round")
    return isinstance(body.get("photo_reading"), str) or (isinstance(n, int) and not isinstance(n, bool))


def _teach(background: BackgroundTasks, teacher: teaching.Teacher, ledger: Ledger, game_id: str,
           body: dict[str, Any], models: core.Models | None) -> None:
    if isinstance(body, dict) and body.get("photo_reading") and models is not None:
        background.add_task(teacher.lesson_after_round, ledger, game_id, models.reader, models.detector)


@router.put("/games/{game_id}/rounds/{n}", response_model=games.GameOut,
            responses={k: ERRORS[k] for k in (401, 404, 409, 412, 413, 422, 428)})
def replace_round(game_id: str, n: int, body: Annotated[dict[str, Any], ROUND_BODY], background: BackgroundTasks,
                  request: Request, response: Response, lenient: bool = False,
                  if_match: Annotated[str | None, IF_MATCH] = None,
                  settings=Depends(get_settings), ledger: Ledger = Depends(get_ledger),
                  teacher: teaching.Teacher = Depends(get_teacher),
                  models: core.Models | None = Depends(get_models_if_any)) -> games.GameOut:
    """Correct round ``n``: the same body as adding one; it is scored again, and it teaches as adding one does. It
    needs ``If-Match`` with the game's version (``*`` is not one), else 428: a correction made before another phone
    undid a round would replace the round that moved up into ``n``. A stale ``If-Match`` is 412 with the game as it
    is now (so is the same correction sent again after a lost answer: the game holds it)."""
    if expected_version(request) is None:
        raise precondition_required("correcting a round", [version_wanted(ledger.version(game_id))],
                                    "without it, a correction made before another phone undid a round would replace "
                                    f"the round that moved up into round {n}, lost with nothing said")
    out = games.replace_round(ledger, game_id, n, body, lenient, settings.limits, expected_version(request))
    _teach(background, teacher, ledger, game_id, body, models)
    return _tagged(response, out)


@router.delete("/games/{game_id}/rounds/{n}", response_model=games.GameOut,
               responses={k: ERRORS[k] for k in (401, 404, 409, 412, 428)})
def undo_round(game_id: str, n: int, request: Request, response: Response,
               if_match: Annotated[str | None, IF_MATCH] = None,
               idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
               ledger: Ledger = Depends(get_ledger)) -> games.GameOut:
    """Undo round ``n``: its score leaves the totals and the rounds after it move up one, each then scored under
    its new round's opening minimum. It needs ``If-Match`` with the game's version (``*`` is not one) or an
    ``Idempotency-Key``, else 428: sent again after a lost answer, an undo with neither would undo the round that
    moved up into ``n``. A stale ``If-Match`` is 412 with the game as it is now; the same key again gets the first
    answer."""
    if expected_version(request) is None and idempotency_key is None:
        raise precondition_required("undoing a round", [version_wanted(ledger.version(game_id)), key_wanted("undo")],
                                    "sent again after a lost answer, an undo without either would undo the round "
                                    f"after it too (it moves up to round {n})")
    return _tagged(response, games.undo_round(ledger, game_id, n, expected_version(request)))


@router.get("/games/{game_id}/saved/{reading_id}", response_model=saved.SavedAsOut,
            responses={k: ERRORS[k] for k in (401, 404)})
def saved_as(game_id: str, reading_id: str, ledger: Ledger = Depends(get_ledger)) -> saved.SavedAsOut:
    """Whether a photo reading is already scored: a round of any game made from it, or a round of this game with
    a photo of the same bytes (``round`` null when neither). Asked right after the photos are read, so the page
    warns before anyone corrects a photo that saving would refuse (409, naming the round)."""
    return saved.saved_as(ledger, game_id, reading_id)


class GameDeckIn(BaseModel):
    """The deck profile a game's photos are read with (``GET /v1/decks``), or null for the stock reader; and
    whether the game's saved photo rounds go on teaching that deck (``teach``, default true; false opts out)."""

    model_config = ConfigDict(extra="forbid")

    deck: str | None = Field(max_length=40, pattern=DECK_NAME)
    teach: bool = True


@router.put("/games/{game_id}/deck", response_model=games.GameOut, responses={k: ERRORS[k] for k in (401, 404, 422)})
def set_game_deck(game_id: str, body: GameDeckIn, response: Response, ledger: Ledger = Depends(get_ledger),
                  settings=Depends(get_settings)) -> games.GameOut:
    """Read this game's photos (the round page, the live view) with a deck profile, and let its saved photo rounds
    teach that deck (``teach``, default true: ``handfoot.teaching``). A deck not learned yet is taught (the game
    reads with the stock reader until it is learned); with ``teach`` false it must exist (404)."""
    from vision.deck_profiles import list_profiles  # the optional vision extra (OpenCV, ONNX Runtime)
    from vision.decks import check_name

    known = [p.name for p in list_profiles(decks_dir(settings))]
    if body.deck is not None:
        check_name(body.deck)
        if body.deck not in known and not body.teach:
            raise NotFoundError(f"no deck profile {body.deck!r} (known: {', '.join(known) or 'none yet'}; this "
                                "server keeps its decks beside its ledger: `handfoot deck learn ... --db` that file)")
    ledger.set_deck(game_id, body.deck if body.deck in known else None)
    ledger.set_teach(game_id, body.deck if body.teach else None)
    return _tagged(response, games.game_view(ledger, game_id))


class GameNegativeIn(BaseModel):
    """Whether the game's cards are printed light on dark (gold on black): every phone then reads its photos as their
    negatives."""

    model_config = ConfigDict(extra="forbid")

    negative: bool = Field(strict=True)


@router.put("/games/{game_id}/negative", response_model=games.GameOut,
            responses={k: ERRORS[k] for k in (401, 404, 412, 422)})
def set_game_negative(game_id: str, body: GameNegativeIn, request: Request, response: Response,
                      if_match: Annotated[str | None, IF_MATCH] = None,
                      ledger: Ledger = Depends(get_ledger)) -> games.GameOut:
    """The game's cards are printed light on dark (``negative`` true: the round page's box "Our cards are light print
    on dark", kept with the game, so every phone reads its photos as their negatives) or not. ``If-Match``: as a
    round's write (a stale one is 412 with the game as it is now); sent again, it sets the same again."""
    ledger.set_negative(game_id, body.negative, expected_version(request))
    return _tagged(response, games.game_view(ledger, game_id))


@router.put("/games/{game_id}/teams", response_model=games.GameOut,
            responses={k: ERRORS[k] for k in (401, 404, 409, 412, 422, 428)})
def rename_teams(game_id: str, body: games.TeamsRename, request: Request, response: Response,
                 if_match: Annotated[str | None, IF_MATCH] = None,
                 idempotency_key: Annotated[str | None, IDEMPOTENCY_KEY] = None,
                 ledger: Ledger = Depends(get_ledger)) -> games.GameOut:
    """Name the game's teams again (a name mistyped at New game): ``teams``, each team's name in seating order, as
    many as the game has, checked as a new game's names are (422 said in words); ``names``, each team's players
    (left out: each keeps its players). Every round, correction and photo reading of the game takes the new names at
    once. It needs ``If-Match`` with the game's version (428 without; a stale one is 412 with the game as it is
    now); a game already named so is answered as it is, nothing changed (a rename sent again); the same
    ``Idempotency-Key`` again gets the first answer."""
    if expected_version(request) is None:
        raise precondition_required("renaming teams", [version_wanted(ledger.version(game_id))],
                                    "a rename made from an old copy of the game is refused")
    return _tagged(response, games.rename_teams(ledger, game_id, body, expected_version(request)))


@router.get("/games/{game_id}/examples.jsonl", response_class=Response,
            responses={200: {"content": {"application/x-ndjson": {}}}, 404: ERRORS[404], 401: ERRORS[401]})
def export_examples(game_id: str, ledger: Ledger = Depends(get_ledger)) -> Response:
    """The game's photo rounds as they were saved (every correction applied), as deck-learning examples: one JSON
    object a line, ``{"image": PATH, "detections": [{"card": "KH", "box": [x1, y1, x2, y2]}, ...]}``, the photo's
    path on this server's disk (``handfoot deck learn`` reads the file)."""
    lines = [json.dumps(doc) for doc in teaching.game_examples(ledger, game_id)]
    return Response("".join(line + "\n" for line in lines), media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="handfoot-{game_id}-examples.jsonl"'})


@router.get("/games/{game_id}/export.csv", response_class=Response,
            responses={200: {"content": {"text/csv": {}}}, 404: ERRORS[404], 401: ERRORS[401]})
def export_csv(game_id: str, ledger: Ledger = Depends(get_ledger)) -> Response:
    """The round grid: each round's minimum, each team's points and running total, and once the game is over a
    last row naming the winner; UTF-8 with a byte-order mark (Excel shows emoji and accents)."""
    record = ledger.game(game_id)
    teams = "-vs-".join(re.sub(r"[^A-Za-z0-9]+", "-", t).strip("-") or "team" for t in record.teams)[:80]
    name = f"handfoot-{teams}-{record.created[:10]}.csv"
    return Response(export.export_csv(ledger, game_id), media_type="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})




class InviteOut(BaseModel):
    """The address another phone on the table's network opens this game's page by (with the server's access
    token), and its QR code as an SVG data URI; both None with ``reason`` when no phone can open this server."""

    url: str | None
    qr: str | None
    reason: str | None


@router.get("/games/{game_id}/invite", response_model=InviteOut, responses={404: ERRORS[404], 401: ERRORS[401]})
def game_invite(game_id: str, request: Request, settings=Depends(get_settings),
                ledger: Ledger = Depends(get_ledger)) -> InviteOut:
    """Another phone at the table: the address of this game's page for it, and the QR code its camera opens
    (``handfoot.invite``: by the name this request reached the server, or this computer's network address)."""
    ledger.game(game_id)
    return _invite(request, settings, game_id)


@router.get("/invite", response_model=InviteOut, responses={401: ERRORS[401]})
def page_invite(request: Request, settings=Depends(get_settings)) -> InviteOut:
    """Another phone: the address of the page (the games) for it, and its QR code, as for a game's."""
    return _invite(request, settings, None)


def _invite(request: Request, settings, game_id: str | None) -> InviteOut:
    out = invite(request.headers.get("host"), request.url.scheme, settings.host, settings.token, game_id)
    return InviteOut(url=out.url, qr=out.qr, reason=out.reason)
