"""Two phones at one table: game versions (``ETag`` / ``If-Match``), requests sent once only (``Idempotency-Key``)
and the live feed of a game's changes (``GET /v1/games/{id}/events``, server-sent events).

Every change of a game counts up its ``version`` (:class:`handfoot.ledger.Ledger`). A round written (or a game
deleted) with an ``If-Match`` naming another version is refused 412 with the game as it is now. A ``POST`` of a
game, a round or photos, or an undo (``DELETE`` of a round), that carries an ``Idempotency-Key`` seen before gets
the first answer again, and nothing new is stored (:class:`Idempotency`); a ``POST`` of a game or of photos without
one is refused 428 before its body is read (:data:`KEY_NEEDED`), and so is a round write with nothing that tells a
repeat or a stale copy (:func:`precondition_required`, in the routes). :class:`Changes` hands each committed
change, from whatever thread made it, to the event streams of that game on the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import threading
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from . import games, live
from .errors import NotFoundError, PreconditionRequiredError
from .guard import replay
from .ledger import Answer, Ledger

router = APIRouter(prefix="/v1")
#: seconds between keep-alive comments on an idle event stream (the version is read again then too, so a change
#: made by another process on the same ledger is seen)
PING_SECONDS = 15.0
#: seconds an event stream stays open; then it ends and the browser's EventSource opens it again
STREAM_SECONDS = 600.0
#: the requests whose first answer an ``Idempotency-Key`` keeps: ``METHOD PATH``
IDEMPOTENT = re.compile(r"^(POST /v1/(games|photos|games/[^/]+/rounds)|DELETE /v1/games/[^/]+/rounds/[^/]+|"
                        r"PUT /v1/games/[^/]+/teams)$")
KEY = re.compile(r"^[\x21-\x7e]{1,200}$")
#: an ``If-Match`` a game's routes take: a version quoted as its ETag sends it (``"7"``, ``W/"7"``) or ``*``
VERSION_TAG = r'^(\*|(W/)?"[0-9]{1,11}")$'
#: the requests that need an ``Idempotency-Key`` whatever else they say (``METHOD PATH``: what one does, the action
#: a key stands for, and what a repeat without one would do): 428 without one, before the body is read
KEY_NEEDED = {"POST /v1/games": ("starting a game", "game started",
                                 "sent again after a lost answer, a game without one would be stored twice"),
              "POST /v1/photos": ("reading photos", "reading",
                                  "sent again after a lost answer, photos without one would be read and kept twice")}
#: how an ``Idempotency-Key`` is sent, in words (the 428 of a request that needs one)
KEY_SAID = ": a request header of 1 to 200 visible ASCII characters, the same one when the request is sent again"
#: largest answer kept for a key (a game's JSON is a few tens of KB)
ANSWER_BYTES = 4 * 1024 * 1024


# -- versions ------------------------------------------------------------------------------------------------------
def etag(version: int) -> str:
    """The ``ETag`` of a game at ``version``: ``"7"``."""
    return f'"{version}"'


def expected_version(request: Request) -> int | None:
    """The version a change was made from, from its ``If-Match`` header: None without one (or ``*``); -1 for one
    that names no version (it matches none, so the change is refused 412)."""
    value = request.headers.get("if-match")
    if value is None or value.strip() == "*":
        return None
    tags = [t.strip().removeprefix("W/").strip('"') for t in value.split(",")]
    numbers = [int(t) for t in tags if t.isdigit() and len(t) < 12]
    return numbers[0] if len(numbers) == 1 else -1


def version_wanted(version: int) -> str:
    """``If-Match`` with a game's version, in the words of a 428: the version it is at now (``version``)."""
    return f"If-Match: the game's version, quoted as its ETag sends it (\"{version}\" now)"


def key_wanted(per: str, more: str = "") -> str:
    """An ``Idempotency-Key`` in the words of a 428: a random id per ``per`` (``save``, ``undo``), ``more`` said
    after it."""
    return f"an Idempotency-Key (a random id per {per}{more})"


def precondition_required(doing: str, ways: list[str], why: str) -> PreconditionRequiredError:
    """The 428 of a write with nothing that tells a repeat (or a stale copy) apart, in words: ``doing`` ("undoing a
    round") needs one of ``ways`` (:func:`version_wanted`, :func:`key_wanted`, ...): ``why``."""
    said = ways[0] if len(ways) == 1 else ", ".join(ways[:-1]) + ", or " + ways[-1]
    return PreconditionRequiredError(f"{doing} needs {said}: {why}")


# -- live changes -------------------------------------------------------------------------------------------------
#: what a stream is handed when another game was made: it looks whether that is the next game of its own
MADE = "made"


class Changes:
    """The event streams open on each game; :meth:`tell` (a :attr:`Ledger.listeners` callback, any thread) hands
    a game's new version (None: the game was deleted) to every stream of it on the event loop, and a game just made
    (version 0) as :data:`MADE` to the streams of every other game."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.streams: dict[str, set[asyncio.Queue]] = {}
        #: set when the server is stopping: open streams end
        self.stopping = threading.Event()

    def tell(self, game_id: str, version: int | None) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._deliver, game_id, version)

    def _deliver(self, game_id: str, version: int | None) -> None:
        if version == 0:  # a game made: perhaps the next game of one followed
            targets = [(q, MADE) for g, queues in self.streams.items() if g != game_id for q in queues]
        else:
            targets = [(q, version) for q in self.streams.get(game_id, ())]
        for queue, item in targets:
            if queue.full():  # a slow reader needs only the newest version
                queue.get_nowait()
            queue.put_nowait(item)

    def open(self, game_id: str) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue(maxsize=8)
        self.streams.setdefault(game_id, set()).add(queue)
        return queue

    def close(self, game_id: str, queue: asyncio.Queue) -> None:
        streams = self.streams.get(game_id, set())
        streams.discard(queue)
        if not streams:
            self.streams.pop(game_id, None)


def get_changes(request: Request) -> Changes:
    return request.app.state.changes


def _ledger(request: Request) -> Ledger:
    return request.app.state.ledger


def _newer_event(game_id: str, newer: str) -> str:
    return f"event: newer\ndata: {json.dumps({'game': game_id, 'newer': newer})}\n\n"


def _live_event(game_id: str, watched: bool) -> str:
    return f"event: live\ndata: {json.dumps({'game': game_id, 'live': watched})}\n\n"


def _watched(request: Request, game_id: str) -> bool:
    """Whether a camera watches game ``game_id``'s table now (``app.state.live``, :func:`handfoot.live.watching_game`)."""
    return live.watching_game(getattr(request.app.state, "live", None)) == game_id


def _event(game_id: str, version: int | None) -> str:
    if version is None:
        return f"event: deleted\ndata: {json.dumps({'game': game_id, 'version': None})}\n\n"
    return f"id: {version}\ndata: {json.dumps({'game': game_id, 'version': version})}\n\n"


@router.get("/games/{game_id}/events", response_class=StreamingResponse,
            responses={200: {"description": "server-sent events: `data: {\"game\": ID, \"version\": N}` now and "
                                            "after every change; `event: deleted` when the game is deleted; "
                                            "`event: newer` with `{\"game\": ID, \"newer\": ID}` when the next "
                                            "game of its teams is started after it ended; "
                                            "`event: live` with `{\"game\": ID, \"live\": BOOL}` when a camera "
                                            "starts or stops watching its table (at once when one does)",
                             "content": {"text/event-stream": {"schema": {
                                 "type": "object", "required": ["data"],
                                 "description": "one event: `data` is JSON `{\"game\": ID, \"version\": N}`",
                                 "properties": {"data": {"type": "string"}, "event": {"type": "string"},
                                                "id": {"type": "string"}}}}}},
                       404: {"description": "no such game",
                             "content": {"application/json": {"example": {"error": "no game 'x'"}}}}})
async def game_events(game_id: str, request: Request, ledger: Ledger = Depends(_ledger),
                      changes: Changes = Depends(get_changes)) -> StreamingResponse:
    """The game's changes as they happen (``text/event-stream``): a ``data:`` line with its version at once and
    after every change (a round added, corrected or undone, its deck set), ``event: deleted`` when it is deleted,
    ``event: newer`` naming the game of its teams started after it ended (:func:`handfoot.games.newer_game`; at once when there
    is one, and when one is made), ``event: live`` saying whether a camera watches its table (at once when one does,
    and within a second of that changing); a comment line every 15 s keeps the connection open. A page follows it with
    ``EventSource``."""
    version = await run_in_threadpool(ledger.version, game_id)  # 404 for an unknown game
    queue = changes.open(game_id)

    async def newer() -> str | None:
        try:
            return await run_in_threadpool(games.newer_game, ledger, game_id)
        except NotFoundError:  # deleted meanwhile: the version says so
            return None

    async def stream():
        last, told, watched = version, await newer(), _watched(request, game_id)
        try:
            yield _event(game_id, version)
            if told:
                yield _newer_event(game_id, told)
            if watched:
                yield _live_event(game_id, watched)
            waited, end = 0.0, asyncio.get_running_loop().time() + STREAM_SECONDS
            while not changes.stopping.is_set() and asyncio.get_running_loop().time() < end:
                try:
                    now = await asyncio.wait_for(queue.get(), 1.0)
                except asyncio.TimeoutError:
                    if _watched(request, game_id) != watched:
                        watched = not watched
                        yield _live_event(game_id, watched)
                    waited += 1.0
                    if waited < PING_SECONDS:
                        continue
                    waited = 0.0
                    try:
                        now = await run_in_threadpool(ledger.version, game_id)
                    except NotFoundError:
                        now = None
                    if now == last:
                        now = MADE  # and another process may have made the next game on the same ledger
                        yield ": still here\n\n"
                if now == MADE:
                    found = await newer()
                    if found and found != told:
                        told = found
                        yield _newer_event(game_id, found)
                    continue
                if now is None:
                    yield _event(game_id, None)
                    return
                if now != last:
                    last = now
                    yield _event(game_id, now)
        finally:
            changes.close(game_id, queue)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


# -- once only --------------------------------------------------------------------------------------------------
async def _send(send, status: int, media_type: str, body: bytes, extra: list | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", media_type.encode("latin-1")),
                            (b"content-length", str(len(body)).encode())] + (extra or [])})
    await send({"type": "http.response.body", "body": body})


async def _error(send, status: int, message: str, extra: list | None = None) -> None:
    await _send(send, status, "application/json", json.dumps({"error": message}).encode(), extra)


async def _read(receive) -> bytes | None:
    """The whole request body (None when the client went away)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


def _game_of(scope, body: bytes) -> str | None:
    """The game an answer kept for a key is about (its answers are forgotten when the game is deleted): the game
    in the address, or the one a ``POST /v1/games`` made."""
    parts = scope["path"].split("/")
    if len(parts) > 3 and parts[2] == "games":
        return parts[3]
    if scope["path"] == "/v1/games":
        try:
            return json.loads(body).get("id")
        except (ValueError, AttributeError):
            return None
    return None


class Idempotency:
    """Pure ASGI middleware: a ``POST`` of ``/v1/games``, ``/v1/games/{id}/rounds`` or ``/v1/photos``, a ``DELETE``
    of ``/v1/games/{id}/rounds/{n}`` (an undo) or a ``PUT`` of ``/v1/games/{id}/teams`` (a rename), with an
    ``Idempotency-Key`` header (1-200 visible ASCII characters) is worked on once; one of :data:`KEY_NEEDED` without
    that header is refused 428 at once (nothing of its body is read, an upload's photos neither kept nor read). Its
    first successful (2xx) answer is kept in the ledger for a day (or until its game is deleted); the same key again
    with the same method on the same address gets that answer (``Idempotent-Replayed: true``) and nothing new is
    stored; with another body (a JSON body's bytes, an upload's size) it is 422, with ``game``: the game the first
    request made or changed (None: none). While the first request with a key is still being worked on, another with
    it is 409 with ``Retry-After``. An answer that is an error is not kept: the request may be sent again with the
    same key. A request with an ``If-Match`` that is no version (:data:`VERSION_TAG`) goes to its route, which
    refuses it."""

    def __init__(self, app) -> None:
        self.app = app
        self.working: set[str] = set()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not IDEMPOTENT.match(f"{scope['method']} {scope['path']}"):
            await self.app(scope, receive, send)
            return
        key = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"idempotency-key"), None)
        needed = KEY_NEEDED.get(f"{scope['method']} {scope['path']}")
        if key is None and needed is not None:
            doing, per, why = needed
            await _error(send, 428, str(precondition_required(doing, [key_wanted(per, KEY_SAID)], why)))
            return
        if_match = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"if-match"), None)
        if key is None or (if_match is not None and not re.match(VERSION_TAG, if_match)):
            await self.app(scope, receive, send)  # an If-Match the route refuses (422) is refused, not answered again
            return
        if not KEY.match(key):
            await _error(send, 422, "Idempotency-Key: 1 to 200 visible ASCII characters (a random id per action)")
            return

        ledger: Ledger = scope["app"].state.ledger
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        if headers.get(b"content-type", b"").startswith(b"multipart/"):  # an upload: its size stands for it
            fingerprint = "upload of " + headers.get(b"content-length", b"?").decode("latin-1") + " bytes"
        else:  # a JSON body (at most 1 MB, the guard saw to that): read now, and handed on as it was
            body = await _read(receive)
            if body is None:
                return
            fingerprint = "sha256 " + hashlib.sha256(body).hexdigest()
            receive = replay(body, receive)
        request = f"{scope['method']} {scope['path']}"
        key = f"{request} {key}"  # a key names one action on one address
        first = await run_in_threadpool(ledger.answer, key)
        if first is not None:
            if first.request != f"{request} {fingerprint}":
                said = {"error": "this Idempotency-Key was sent before with another request body: use a new key "
                                 "for each action", "game": first.game}  # the game that first request made or changed
                await _send(send, 422, "application/json", json.dumps(said).encode())
                return
            await _send(send, first.status, first.media_type, first.body, [(b"idempotent-replayed", b"true")])
            return
        request = f"{request} {fingerprint}"
        if key in self.working:
            await _error(send, 409, "a request with this Idempotency-Key is still being worked on: ask again in a "
                                    "moment", [(b"retry-after", b"2")])
            return
        self.working.add(key)
        answer: dict[str, Any] = {"status": 0, "media_type": "application/json", "body": [], "size": 0}

        async def keeping(message):
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                for k, v in message.get("headers", []):
                    if k.lower() == b"content-type":
                        answer["media_type"] = v.decode("latin-1")
            elif message["type"] == "http.response.body":
                answer["size"] += len(message.get("body", b""))
                if answer["size"] <= ANSWER_BYTES:
                    answer["body"].append(message.get("body", b""))
            await send(message)
        try:
            await self.app(scope, receive, keeping)
            if 200 <= answer["status"] < 300 and answer["size"] <= ANSWER_BYTES:
                body = b"".join(answer["body"])
                await run_in_threadpool(ledger.keep_answer, key, Answer(request, answer["status"],
                                                                        answer["media_type"], body, _game_of(scope, body)))
        finally:
            self.working.discard(key)
