"""The web service's plumbing: typed settings, the guard in front of every request (access token, body size and
JSON depth), bounded photo jobs, error bodies, and :func:`create_app`.

Routes live in :mod:`handfoot.routes` and stay thin over the application layer (:mod:`handfoot.core`,
:mod:`handfoot.games`). Every error a client can cause is a 4xx JSON body ``{"error": "one line", ...}``; an
unexpected exception is answered ``500 {"error": "internal error ..."}``, never with its text, and logged in
one line (its traceback goes to the ``handfoot.trace`` logger: a file beside the ledger under ``handfoot serve``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import threading
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from scorer import HandFootError

from . import core, games, pwa, sync, teaching
from .core import data_dir
from .errors import BusyError, StaleError, http_status
from .guard import Guard, error_body, log_once
from .learning import DeckLearning
from .ledger import DiskError, Ledger, cannot_write
from .limits import Limits
from .routes import decks as deck_routes, games as game_routes, live as live_routes, page, photos, rules
from .routes.deps import DECK_NAME, DECK_NAME_RULE, decks_dir
from .sync import etag
from .watch import frames

log = logging.getLogger("handfoot.service")
#: tracebacks of unexpected errors: to ``handfoot.log`` beside the ledger under ``handfoot serve``, never to
#: the console or a client
trace = logging.getLogger("handfoot.trace")
trace.propagate = False

LOOPBACK = ("127.0.0.1", "localhost", "::1")

class Settings(BaseModel):
    """How the service runs.

    Attributes:
        db: the SQLite ledger file; photos are kept in ``photos/`` beside it.
        token: the access token every request must carry (``?token=``, a ``Bearer`` header or the cookie the
            page gets), or None on loopback only.
        max_jobs: photo readings worked on at once (each uses the CPU fully for a few seconds).
        max_waiting: photo readings that may wait for a slot; past that a request is answered 503.
        retry_after: seconds suggested to a client answered 503.
        limits: size limits on every input (:class:`handfoot.limits.Limits`).
        host: the address the server listens on; hosts: other names it answers to (:mod:`handfoot.safety`:
            any other ``Host`` is refused 403).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    db: Path = Field(default_factory=lambda: data_dir() / "handfoot.db")
    token: str | None = None
    max_jobs: int = Field(1, ge=1, le=16)
    max_waiting: int = Field(3, ge=0, le=64)
    retry_after: int = Field(10, ge=1)
    limits: Limits = Field(default_factory=Limits)
    host: str | None = None
    hosts: tuple[str, ...] = ()


class PhotoJobs:
    """At most ``running`` photo readings at once and ``waiting`` more in line; :meth:`admit` refuses the rest
    at once (:class:`BusyError`) rather than queueing without bound. Readings wait on the event loop, not in a
    worker thread, so waiting ones never starve the other endpoints of threads. Used from the event loop only.
    """

    def __init__(self, running: int, waiting: int, retry_after: int) -> None:
        self.running = running
        self.capacity = running + waiting
        self.retry_after = retry_after
        self.admitted = 0  #: readings running or waiting
        self.active = 0  #: readings running
        self._slots: asyncio.Semaphore | None = None
        #: set when the server is stopping: readings still waiting are answered 503 (running ones finish)
        self.stopping = threading.Event()

    def full(self) -> bool:
        """Whether every place is taken (checked before an upload's body is read, and again by :meth:`admit`)."""
        return self.admitted >= self.capacity or self.stopping.is_set()

    def _stopping(self) -> BusyError:
        return BusyError(f"the server is stopping: send the photos again in {self.retry_after} s, once it is "
                         "started again", self.retry_after)

    def admit(self) -> None:
        """Take a place in line. Raises BusyError when every place is taken."""
        if self.stopping.is_set():
            raise self._stopping()
        if self.admitted >= self.capacity:
            raise BusyError(f"busy reading other photos ({self.running} at a time); try again in "
                            f"{self.retry_after} s", self.retry_after)
        self.admitted += 1

    async def run(self, fn, *args):
        """Run ``fn(*args)`` in a worker thread once a slot is free, then give back the place taken by
        :meth:`admit` (also when the request is cancelled)."""
        try:
            if self._slots is None:
                self._slots = asyncio.Semaphore(self.running)
            while True:  # wait for a slot, unless the server stops meanwhile
                try:
                    await asyncio.wait_for(self._slots.acquire(), 0.5)
                    break
                except asyncio.TimeoutError:
                    if self.stopping.is_set():
                        raise self._stopping() from None
            try:
                self.active += 1
                try:
                    return await run_in_threadpool(fn, *args)  # not abandoned on cancel: the slot is held to the end
                finally:
                    self.active -= 1
            finally:
                self._slots.release()
        finally:
            self.admitted -= 1


def scrub(message: str, settings: Settings) -> str:
    """``message`` without this server's paths: its data folder, where handfoot is installed, the home folder
    (a client is told what was wrong, not where the server keeps its files)."""
    places = []
    for folder, name in ((settings.db.parent, "the server's data folder"), (data_dir(), "the server's data folder"),
                         (Path(__file__).resolve().parents[1], "the handfoot folder"),
                         (Path.home(), "the server's home folder")):
        for text in {str(folder), str(folder.resolve()) if folder.exists() else str(folder)}:
            if len(text) > 1:
                places.append((text, name))
    for text, name in sorted(places, key=lambda p: -len(p[0])):
        message = message.replace(text + os.sep, name + "/").replace(text, name)
    return message


def _install_errors(app: FastAPI) -> None:
    settings: Settings = app.state.settings

    @app.exception_handler(OSError)
    async def _os(request: Request, exc: OSError):
        if not cannot_write(exc):
            raise exc
        log_once("disk", "the data folder cannot be written: %s", exc.strerror or exc)
        return JSONResponse(error_body("the server cannot write its data folder (a read-only or full disk): "
                                       "nothing was changed; free space or fix the disk, then try again"),
                            status_code=503, headers={"Retry-After": "60"})

    @app.exception_handler(HandFootError)
    async def _handfoot(request: Request, exc: HandFootError):
        status = http_status(exc)
        extra: dict[str, Any] = {}
        problems = getattr(exc, "problems", None)
        if problems:
            extra["problems"] = [{"severity": p.severity, "where": p.where, "message": p.message}
                                 for p in problems if hasattr(p, "severity")]
        extra.update(getattr(exc, "extra", None) or {})
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, BusyError) else None
        if isinstance(exc, DiskError):
            log_once("disk", "%s", exc)
            headers = {"Retry-After": "60"}
        if isinstance(exc, StaleError):  # the game as it is now, for the phone whose copy was stale
            game = await run_in_threadpool(games.game_view, request.app.state.ledger, exc.game_id)
            extra["game"] = game.model_dump(mode="json")
            headers = {"ETag": etag(game.version)}
        return JSONResponse(error_body(scrub(str(exc), settings), **extra), status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        loc = ".".join(str(p) for p in first.get("loc", ())[1:]) or str((first.get("loc") or ["request"])[0])
        detail = [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", ""))} for e in errors[:20]]
        pattern = (first.get("ctx") or {}).get("pattern", "")
        if first.get("type") == "json_invalid":  # the body is not JSON: say so, and where (loc is its offset)
            message = f"the request body is not valid JSON (at character {first.get('loc', ('', '?'))[-1]})"
        elif first.get("type") == "string_pattern_mismatch" and pattern == DECK_NAME:
            message = f"deck name {str(first.get('input'))[:60]!r}: {DECK_NAME_RULE}"
        elif first.get("type") == "string_pattern_mismatch" and loc in ("If-Match", "If-None-Match"):
            message = f"{loc} {str(first.get('input'))[:60]!r}: " + (
                "expected * (a new deck only)" if loc == "If-None-Match" else
                'expected the version this change was made from, quoted as its ETag or `version` sends it ("7"), or *')
        else:
            message = f"{loc}: {str(first.get('msg', 'invalid')).removeprefix('Value error, ')}"
        return JSONResponse(error_body(scrub(message, settings), detail=detail), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        status, headers = exc.status_code, dict(getattr(exc, "headers", None) or {})
        if status == 404 and message == "Not Found":
            message = f"no such address: {request.url.path}"
        elif status == 405:
            allowed = _allowed_methods(request.app, request.scope)
            message = f"{request.method} is not allowed on {request.url.path} (allowed: {', '.join(allowed)})"
            headers["Allow"] = ", ".join(allowed)
        elif status == 400:  # a body that cannot be parsed (not JSON, a broken multipart form): bad input
            status, message = 422, "the request body cannot be read: " + (
                "not valid JSON or form data" if "parsing the body" in message else message)
        return JSONResponse(error_body(message), status_code=status, headers=headers or None)


def _allowed_methods(app: FastAPI, scope) -> list[str]:
    """Every method some route of ``app`` answers at the path of ``scope`` (a 405's ``Allow``): each method tried
    on the routes as they match a request (routers included whole match as one)."""
    methods = set()
    for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"):
        asked = {**scope, "method": method}
        if any(route.matches(asked)[0] == Match.FULL for route in app.router.routes):
            methods.add(method)
    return sorted(methods)


def _error_schemas(app: FastAPI) -> None:
    """Make ``/openapi.json`` describe the error bodies as they are sent: ``{"error": "one line", "detail": [...]}``
    for a 422 of a request that does not fit its schema (FastAPI's default describes ``{"detail": [...]}``)."""
    make = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = make()
        found = schema.get("components", {}).get("schemas", {})
        if "HTTPValidationError" in found:
            found["HTTPValidationError"] = {
                "title": "Error", "type": "object", "required": ["error"],
                "description": "A request that does not fit the schema: the first problem in one line, and each "
                               "problem's place",
                "properties": {"error": {"type": "string"}, "detail": {"type": "array", "items": {
                    "type": "object", "properties": {"loc": {"type": "array", "items": {"type": "string"}},
                                                     "msg": {"type": "string"}}}}}}
            found.pop("ValidationError", None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi



def create_app(settings: Settings | None = None, models: Any = None, load_models: bool = True,
               live: Any = None) -> FastAPI:
    """The handfoot web service.

    Args:
        settings: how it runs (default :class:`Settings`()).
        models: the camera models to use (:class:`handfoot.core.Models`); None loads the shipped ones once at
            start-up when ``load_models`` (tests swap them through ``app.dependency_overrides``).
        live: a table already watched (:class:`handfoot.live.LiveSession`, ``handfoot watch --serve``), shown by
            the live view and stopped when the service stops.

    Raises (at start-up):
        LedgerError: a database file that cannot be used; HandFootError: models that cannot be loaded.
    """
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.ledger = Ledger.open(settings.db)
        app.state.changes.loop = asyncio.get_running_loop()
        app.state.ledger.listeners.append(app.state.changes.tell)
        shutil.rmtree(decks_dir(settings) / ".uploads", ignore_errors=True)  # a stopped server's learning uploads
        app.state.models = models
        app.state.models_error = None
        if models is None and load_models:
            try:
                app.state.models = core.load_models()
            except HandFootError as exc:  # e.g. the vision extra is missing: layouts and games still work
                app.state.models_error = str(exc)
                log.warning("photo reading is off: %s", exc)
        try:
            yield
        finally:
            if app.state.live is not None:
                app.state.live.stop()
            app.state.ledger.close()

    try:  # /docs with Swagger UI served from the package, not a CDN (a home network may have no internet)
        from fastapi_offline import FastAPIOffline as Api  # guarded: without it, no /docs
        docs = {"redoc_url": None, "static_url": "/docs-static"}
    except ImportError:
        Api, docs = FastAPI, {"docs_url": None, "redoc_url": None}  # /openapi.json still describes the API
    app = Api(title="handfoot", version=_version(), lifespan=lifespan, **docs,
                  description="Score Hand and Foot rounds from photos or layouts, and keep a game's ledger. "
                              "Errors are JSON: `{\"error\": \"one line naming what was wrong\"}`.")
    app.state.settings = settings
    app.state.jobs = PhotoJobs(settings.max_jobs, settings.max_waiting, settings.retry_after)
    app.state.learning = DeckLearning(decks_dir(settings), app.state.jobs)  #: deck-learning jobs (``/v1/decks``)
    app.state.teacher = teaching.Teacher(decks_dir(settings), app.state.jobs)  #: games teaching their decks
    app.state.live = live  #: the table being watched (``/v1/live``), or None
    app.state.open_frames = frames  #: opens a camera's frames (``handfoot.watch.frames``; tests swap it)
    app.state.changes = sync.Changes()  #: each game's event streams (``/v1/games/{id}/events``)
    app.state.jobs.stopping = app.state.changes.stopping  #: one flag: the server is stopping
    _install_errors(app)
    _error_schemas(app)
    for routes in (rules, photos, deck_routes, game_routes):
        app.include_router(routes.router)
    app.include_router(sync.router)
    app.include_router(live_routes.router)
    app.include_router(page.router)
    app.include_router(pwa.router)
    app.mount("/static", StaticFiles(directory=page.WEB), name="static")
    app.add_middleware(sync.Idempotency)
    app.add_middleware(Guard, settings=settings)
    return app


def _version() -> str:
    try:
        return version("handfoot")
    except Exception:  # not installed as a package
        return "0"
