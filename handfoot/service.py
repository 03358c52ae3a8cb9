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
import re
import shutil
import threading
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
from .errors import BusyError, StaleError, http_status
from . import safety
from .limits import Limits, json_depth

log = logging.getLogger("handfoot.service")
#: tracebacks of unexpected errors: to ``handfoot.log`` beside the ledger under ``handfoot serve``, never to
#: the console or a client
trace = logging.getLogger("handfoot.trace")
trace.propagate = False

LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: seconds between two log lines of one kind of fault (a flood of one fault is one line a minute)
LOG_EVERY = 60.0
_logged: dict[str, tuple[float, int]] = {}


def log_once(kind: str, message: str, *args: Any) -> bool:
    """Log ``message`` as an error at most once per :data:`LOG_EVERY` seconds for each ``kind`` of fault; the next
    line says how many more there were meanwhile. Returns whether it was logged."""
    import time

    now = time.monotonic()
    last, missed = _logged.get(kind, (-LOG_EVERY, 0))
    if now - last < LOG_EVERY:
        _logged[kind] = (last, missed + 1)
        return False
    _logged[kind] = (now, 0)
    log.error(message + (f" (and {missed} more like it in the last minute)" if missed else ""), *args)
    return True


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
        from fastapi.concurrency import run_in_threadpool

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


#: the uploads of photos, refused before their body is read when every photo-job place is taken
UPLOADS = re.compile(r"^/v1/(photos|decks/[^/]+/learn/upload)$")


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
        except Exception as exc:  # never a traceback for the client, one line on the console (a minute per kind)
            if log_once(f"internal {exc.__class__.__name__}", "internal error on %s %s: %s: %s", scope.get("method"),
                        scope.get("path"), exc.__class__.__name__, exc):
                trace.error("internal error on %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
            if not started:
                await _send_json(send, 500, error_body("internal error (logged by the server)"))

    #: what a browser fetches without its cookie to install the page as an app: public, and nothing else is
    PUBLIC = ("/manifest.webmanifest", "/offline.html", "/static/icons/icon-192.png", "/static/icons/icon-512.png")

    async def _guarded(self, scope, receive, send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host")
        if not safety.host_allowed(host, self.settings.host, self.settings.hosts):
            await _send_json(send, 403, error_body(f"this server does not answer to the name {(host or '')[:80]!r}: "
                                                   "open it by its address (127.0.0.1, localhost, or the address "
                                                   "handfoot serve printed; --allow-host NAME adds a name)"))
            return
        if not safety.origin_allowed(scope["method"], headers.get("origin"), headers.get("sec-fetch-site"), host):
            await _send_json(send, 403, error_body("a page of another site cannot change anything here (Origin "
                                                   f"{headers.get('origin', '')[:80]!r}): use the handfoot page"))
            return
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
        state = getattr(scope.get("app"), "state", None)
        if scope["method"] == "POST" and UPLOADS.match(scope["path"]) and state is not None and state.jobs.full():
            jobs = state.jobs  # busy: refused before the body is read (nothing of it is written)
            message = ("the server is stopping" if jobs.stopping.is_set() else
                       f"busy reading other photos ({jobs.running} at a time)")
            await _send_json(send, 503, error_body(f"{message}; try again in {jobs.retry_after} s"),
                             [(b"retry-after", str(jobs.retry_after).encode()), (b"connection", b"close")])
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
        named = safety.host_allowed(headers.get("host"), self.settings.host, self.settings.hosts)
        if not (self._authorised(scope)[0] and same_site and named):
            log.warning("WebSocket %s refused: %s", scope.get("path"),
                        "another site's page" if not (same_site and named) else "no access token")
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
        """Hand the body on as it comes, counting it; past ``limit`` answer 413 instead of the app, and past
        ``file_bytes`` in one part of the form (one photo; :class:`PartSizes`) too: nothing past a limit is
        read, so nothing past it is written."""
        total = 0
        exceeded = started = False
        why = f"request body too large: over {limit:,} bytes"
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        file_bytes = self.settings.limits.file_bytes
        parts = PartSizes.of(headers.get("content-type", ""), file_bytes + 64 * 1024)

        async def counting():
            nonlocal total, exceeded, why
            message = await receive()
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > limit:
                exceeded = True
                raise _BodyTooLarge()
            if parts is not None and not parts.feed(chunk):
                exceeded = True
                most = f"{file_bytes / 1e6:.0f} MB" if file_bytes >= 1e6 else f"{file_bytes:,} bytes"
                why = f"a photo in the upload: file too large (over {most}; at most {most} a photo)"
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
            await _send_json(send, 413, error_body(why), [(b"connection", b"close")])


class PartSizes:
    """Counts the bytes of each part of a ``multipart/form-data`` body as it streams by (the parts lie between
    ``CRLF--boundary`` lines, which may be cut between two chunks); :meth:`feed` is False once a part is longer than
    ``most`` bytes."""

    def __init__(self, boundary: bytes, most: int) -> None:
        self.delimiter = b"\r\n--" + boundary
        self.most = most
        self.carry = b"\r\n"  # the first boundary line has no CRLF before it
        self.since = 0

    @classmethod
    def of(cls, content_type: str, most: int) -> "PartSizes | None":
        """For a ``Content-Type`` naming a boundary; None for another."""
        for param in content_type.split(";")[1:]:
            name, _, value = param.strip().partition("=")
            if name.lower() == "boundary" and value.strip('"'):
                return cls(value.strip('"').encode("latin-1"), most)
        return None

    def feed(self, chunk: bytes) -> bool:
        data, step = self.carry + chunk, len(self.delimiter)
        at = data.find(self.delimiter)
        if at < 0:
            self.since += len(chunk)
        else:  # the part that ends here (its bytes kept in carry were counted already), then each whole one
            if self.since + at - len(self.carry) > self.most:
                return False
            while (after := data.find(self.delimiter, at + step)) >= 0:
                if after - at - step > self.most:
                    return False
                at = after
            self.since = len(data) - at - step
        self.carry = data[-(step - 1):]
        return self.since <= self.most + step  # (a delimiter may be arriving: its bytes are not the part's)


def scrub(message: str, settings: Settings) -> str:
    """``message`` without this server's paths: its data folder, where handfoot is installed, the home folder
    (a client is told what was wrong, not where the server keeps its files)."""
    import os

    from .app import data_dir

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
    from . import api

    settings: Settings = app.state.settings

    @app.exception_handler(OSError)
    async def _os(request: Request, exc: OSError):
        from .ledger import cannot_write

        if not cannot_write(exc):
            raise exc
        log_once("disk", "the data folder cannot be written: %s", exc.strerror or exc)
        return JSONResponse(error_body("the server cannot write its data folder (a read-only or full disk): "
                                       "nothing was changed; free space or fix the disk, then try again"),
                            status_code=503, headers={"Retry-After": "60"})

    @app.exception_handler(HandFootError)
    async def _handfoot(request: Request, exc: HandFootError):
        from .ledger import DiskError

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
            from . import games
            from .sync import etag

            from starlette.concurrency import run_in_threadpool

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
        elif first.get("type") == "string_pattern_mismatch" and pattern == api.DECK_NAME:
            message = (f"deck name {str(first.get('input'))[:60]!r}: use letters, digits, - and _ (at most 40, "
                       "starting with a letter or digit)")
        else:
            message = f"{loc}: {first.get('msg', 'invalid')}"
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
    """Every method some route of ``app`` answers at the path of ``scope`` (a 405's ``Allow``)."""
    from starlette.routing import Match

    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches(scope)
        route_methods = getattr(route, "methods", None)
        if match != Match.NONE and route_methods:
            methods |= set(route_methods)
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
        models: the camera models to use (:class:`handfoot.app.Models`); None loads the shipped ones once at
            start-up when ``load_models`` (tests swap them through ``app.dependency_overrides``).
        live: a table already watched (:class:`handfoot.live.LiveSession`, ``handfoot watch --serve``), shown by
            the live view and stopped when the service stops.

    Raises (at start-up):
        LedgerError: a database file that cannot be used; HandFootError: models that cannot be loaded.
    """
    from . import api, api_live, pwa, sync, teaching
    from .ledger import Ledger
    from .watch import frames

    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        app.state.ledger = Ledger.open(settings.db)
        app.state.changes.loop = asyncio.get_running_loop()
        app.state.ledger.listeners.append(app.state.changes.tell)
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
    app.state.changes = sync.Changes()  #: each game's event streams (``/v1/games/{id}/events``)
    app.state.jobs.stopping = app.state.changes.stopping  #: one flag: the server is stopping
    _install_errors(app)
    _error_schemas(app)
    app.include_router(api.router)
    app.include_router(sync.router)
    app.include_router(api_live.router)
    app.include_router(api.root)
    app.include_router(api_live.page)
    app.include_router(pwa.router)
    app.mount("/static", StaticFiles(directory=api.WEB), name="static")
    app.add_middleware(sync.Idempotency)
    app.add_middleware(Guard, settings=settings)
    return app


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("handfoot")
    except Exception:  # not installed as a package
        return "0"
