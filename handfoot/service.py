"""The web service's plumbing: typed settings, the guard in front of every request (access token, body size and
JSON depth), bounded photo jobs, error bodies, and :func:`create_app`.

Routes live in :mod:`handfoot.api` and stay thin over the application layer (:mod:`handfoot.app`,
:mod:`handfoot.games`). Every error a client can cause is a 4xx JSON body ``{"error": "one line", ...}``; an
unexpected exception is answered ``500 {"error": "internal error ..."}``, never with its text, and logged in
one line (its traceback goes to the ``handfoot.trace`` logger: a file beside the ledger under ``handfoot serve``).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import shutil
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from scorer import HandFootError

from .app import data_dir
from .errors import BusyError, http_status
from .limits import Limits, json_depth

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
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    db: Path = Field(default_factory=lambda: data_dir() / "handfoot.db")
    token: str | None = None
    max_jobs: int = Field(1, ge=1, le=16)
    max_waiting: int = Field(3, ge=0, le=64)
    retry_after: int = Field(10, ge=1)
    limits: Limits = Field(default_factory=Limits)


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

    def admit(self) -> None:
        """Take a place in line. Raises BusyError when every place is taken."""
        if self.admitted >= self.capacity:
            raise BusyError(f"busy reading other photos ({self.running} at a time); try again in "
                            f"{self.retry_after} s", self.retry_after)
        self.admitted += 1

    async def run(self, fn, *args):
        """Run ``fn(*args)`` in a worker thread once a slot is free, then give back the place taken by
        :meth:`admit` (also when the request is cancelled)."""
        from fastapi.concurrency import run_in_threadpool

        try:
            if self._slots is None:
                self._slots = asyncio.Semaphore(self.running)
            async with self._slots:
                self.active += 1
                try:
                    return await run_in_threadpool(fn, *args)  # not abandoned on cancel: the slot is held to the end
                finally:
                    self.active -= 1
        finally:
            self.admitted -= 1


def error_body(message: str, **extra: Any) -> dict[str, Any]:
    return {"error": message, **extra}


async def _send_json(send, status: int, body: dict[str, Any], headers: list | None = None) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
                + (headers or [])})
    await send({"type": "http.response.body", "body": data})


async def _send_html(send, status: int, page: str) -> None:
    data = page.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


class _BodyTooLarge(Exception):
    pass


class Guard:
    """Pure ASGI middleware in front of every HTTP request: the access token (401 without it), then the body's
    size (413 past the limit: ``files x file_bytes`` plus 1 MB for the photo upload, ``json_bytes`` for the
    rest; a ``Content-Length`` over it is refused before any byte is read) and a JSON body's nesting depth
    (413), checked before the body is parsed."""

    COOKIE = "handfoot_token"

    def __init__(self, app, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    def _authorised(self, scope) -> tuple[bool, bool]:
        """(allowed, token came in the query string)."""
        token = self.settings.token
        if not token:
            return True, False
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        offered = []
        auth = headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            offered.append(auth[7:].strip())
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        in_query = query.get("token", [])
        offered += in_query
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == self.COOKIE:
                offered.append(value)
        ok = any(hmac.compare_digest(o.encode(), token.encode()) for o in offered)
        return ok, ok and any(hmac.compare_digest(o.encode(), token.encode()) for o in in_query)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)
        try:
            await self._guarded(scope, receive, tracking)
        except Exception as exc:  # never a traceback for the client, one line on the console
            log.error("internal error on %s %s: %s: %s", scope.get("method"), scope.get("path"),
                      exc.__class__.__name__, exc)
            trace.error("internal error on %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
            if not started:
                await _send_json(send, 500, error_body("internal error (logged by the server)"))

    #: what a browser fetches without its cookie to install the page as an app: public, and nothing else is
    PUBLIC = ("/manifest.webmanifest", "/offline.html", "/static/icons/icon-192.png", "/static/icons/icon-512.png")

    async def _guarded(self, scope, receive, send) -> None:
        if scope["method"] == "GET" and scope.get("path") in self.PUBLIC:
            await self.app(scope, receive, send)
            return
        ok, via_query = self._authorised(scope)
        if not ok:
            message = "an access token is needed: open the address handfoot serve printed, with its ?token=..."
            accept = dict(scope.get("headers", [])).get(b"accept", b"")
            if scope["method"] == "GET" and b"text/html" in accept:  # a person with a browser: a page, not JSON
                await _send_html(send, 401, "<!doctype html><meta charset=utf-8><meta name=viewport content="
                                 "'width=device-width'><link rel=icon href='data:,'><title>handfoot</title>"
                                 "<h1>handfoot</h1><p>This handfoot server needs its access token. Open the full "
                                 "address that <code>handfoot</code> printed when it started: it ends with "
                                 "<code>?token=...</code>.</p>")
            else:
                await _send_json(send, 401, error_body(message), [(b"www-authenticate", b"Bearer")])
            return
        if via_query:  # the page opened from the printed address keeps the token in a cookie
            send = self._with_cookie(send)
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        limits = self.settings.limits
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        multipart = headers.get("content-type", "").startswith("multipart/")
        limit = limits.files * limits.file_bytes + 1024 * 1024 if multipart else limits.json_bytes
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            await _send_json(send, 413, error_body(f"request body too large: {int(length):,} bytes (at most "
                                                   f"{limit:,})"))
            return
        if multipart:
            await self._streamed(scope, receive, send, limit)
        else:
            await self._buffered(scope, receive, send, limit)

    async def _websocket(self, scope, receive, send) -> None:
        """A WebSocket (the live view's browser camera): refused (HTTP 403) without the access token, or when a
        browser opened it from another site's page (its ``Origin`` is not this server's ``Host``)."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        origin = headers.get("origin")
        same_site = origin is None or origin.partition("://")[2].rstrip("/").lower() == headers.get("host", "").lower()
        if not (self._authorised(scope)[0] and same_site):
            log.warning("WebSocket %s refused: %s", scope.get("path"),
                        "another site's page" if not same_site else "no access token")
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)

    def _with_cookie(self, send):
        cookie = f"{self.COOKIE}={self.settings.token}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def wrapped(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": list(message.get("headers", [])) + [(b"set-cookie", cookie)]}
            await send(message)
        return wrapped

    async def _buffered(self, scope, receive, send, limit: int) -> None:
        """Read the whole (JSON) body, check its size and depth, then hand it on."""
        chunks, total = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > limit:
                await _send_json(send, 413, error_body(f"request body too large: over {limit:,} bytes"))
                return
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        depth = json_depth(body)
        if depth > self.settings.limits.json_depth:
            await _send_json(send, 413, error_body(f"JSON body nested too deep: {depth} levels (at most "
                                                   f"{self.settings.limits.json_depth})"))
            return
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await self.app(scope, replay, send)

    async def _streamed(self, scope, receive, send, limit: int) -> None:
        """Hand the body on as it comes, counting it; past ``limit`` answer 413 instead of the app."""
        total = 0
        exceeded = started = False

        async def counting():
            nonlocal total, exceeded
            message = await receive()
            total += len(message.get("body", b""))
            if total > limit:
                exceeded = True
                raise _BodyTooLarge()
            return message

        async def guarded_send(message):
            nonlocal started
            if exceeded:
                return
            started = True
            await send(message)

        try:
            await self.app(scope, counting, guarded_send)
        except _BodyTooLarge:
            pass
        if exceeded and not started:
            await _send_json(send, 413, error_body(f"request body too large: over {limit:,} bytes"))


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(HandFootError)
    async def _handfoot(request: Request, exc: HandFootError):
        status = http_status(exc)
        extra: dict[str, Any] = {}
        problems = getattr(exc, "problems", None)
        if problems:
            extra["problems"] = [{"severity": p.severity, "where": p.where, "message": p.message}
                                 for p in problems if hasattr(p, "severity")]
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, BusyError) else None
        return JSONResponse(error_body(str(exc), **extra), status_code=status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        loc = ".".join(str(p) for p in first.get("loc", ())[1:]) or str((first.get("loc") or ["request"])[0])
        detail = [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", ""))} for e in errors[:20]]
        if first.get("type") == "json_invalid":  # the body is not JSON: say so, and where (loc is its offset)
            message = f"the request body is not valid JSON (at character {first.get('loc', ('', '?'))[-1]})"
        else:
            message = f"{loc}: {first.get('msg', 'invalid')}"
        return JSONResponse(error_body(message, detail=detail), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such address: {request.url.path}"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
        return JSONResponse(error_body(message), status_code=exc.status_code, headers=getattr(exc, "headers", None))



def create_app(settings: Settings | None = None, models: Any = None, load_models: bool = True,
               live: Any = None) -> FastAPI:
    """The handfoot web service.

    Args:
        settings: how it runs (default :class:`Settings`()).
        models: the camera models to use (:class:`handfoot.app.Models`); None loads the shipped ones once at
            start-up when ``load_models`` (tests swap them through ``app.dependency_overrides``).
        live: a table already watched (:class:`handfoot.live.LiveSession`, ``handfoot watch --serve``), shown by
            the live view and stopped when the service stops.

    Raises (at start-up):
        LedgerError: a database file that cannot be used; HandFootError: models that cannot be loaded.
    """
    from . import api, api_live, pwa, teaching
    from .ledger import Ledger
    from .watch import frames

    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.ledger = Ledger.open(settings.db)
        shutil.rmtree(api.decks_dir(settings) / ".uploads", ignore_errors=True)  # a stopped server's learning uploads
        app.state.models = models
        app.state.models_error = None
        if models is None and load_models:
            from . import app as application

            try:
                app.state.models = application.load_models()
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
        from fastapi_offline import FastAPIOffline as Api
        docs = {"redoc_url": None, "static_url": "/docs-static"}
    except ImportError:
        Api, docs = FastAPI, {"docs_url": None, "redoc_url": None}  # /openapi.json still describes the API
    app = Api(title="handfoot", version=_version(), lifespan=lifespan, **docs,
                  description="Score Hand and Foot rounds from photos or layouts, and keep a game's ledger. "
                              "Errors are JSON: `{\"error\": \"one line naming what was wrong\"}`.")
    app.state.settings = settings
    app.state.jobs = PhotoJobs(settings.max_jobs, settings.max_waiting, settings.retry_after)
    app.state.deck_jobs = {}  #: deck-learning jobs by id (``/v1/decks``), the last 50
    app.state.deck_tasks = set()  #: their running tasks (kept referenced until they end)
    app.state.teacher = teaching.Teacher(api.decks_dir(settings), app.state.jobs)  #: games teaching their decks
    app.state.live = live  #: the table being watched (``/v1/live``), or None
    app.state.open_frames = frames  #: opens a camera's frames (``handfoot.watch.frames``; tests swap it)
    _install_errors(app)
    app.include_router(api.router)
    app.include_router(api_live.router)
    app.include_router(api.root)
    app.include_router(api_live.page)
    app.include_router(pwa.router)
    app.mount("/static", StaticFiles(directory=api.WEB), name="static")
    app.add_middleware(Guard, settings=settings)
    return app


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("handfoot")
    except Exception:  # not installed as a package
        return "0"
