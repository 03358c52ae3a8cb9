"""The service's guard: the ASGI middleware before every route (the access token, the Host and Origin this server
answers, JSON depth and upload sizes checked as the body streams in, the busy check before an upload's body is
read), its one-line JSON and HTML answers, and fault logging at most once a minute per kind of fault."""

from __future__ import annotations

import hmac
import json
import logging
import re
import time
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from . import safety
from .limits import json_depth, text_problem

if TYPE_CHECKING:
    from .service import Settings

log = logging.getLogger("handfoot.service")
#: tracebacks of unexpected errors (the same logger as ``handfoot.service.trace``)
trace = logging.getLogger("handfoot.trace")

#: how many bytes of a form part's start are kept to find its file name (its headers)
HEAD_BYTES = 1024
#: how many bytes of a form's text field are kept to check that it is UTF-8 (a route takes at most 4,000 characters)
TEXT_BYTES = 64 * 1024
#: seconds between two log lines of one kind of fault (a flood of one fault is one line a minute)
LOG_EVERY = 60.0
_logged: dict[str, tuple[float, int]] = {}


def log_once(kind: str, message: str, *args: Any) -> bool:
    """Log ``message`` as an error at most once per :data:`LOG_EVERY` seconds for each ``kind`` of fault; the next
    line says how many more there were meanwhile. Returns whether it was logged."""
    now = time.monotonic()
    last, missed = _logged.get(kind, (-LOG_EVERY, 0))
    if now - last < LOG_EVERY:
        _logged[kind] = (last, missed + 1)
        return False
    _logged[kind] = (now, 0)
    log.error(message + (f" (and {missed} more like it in the last minute)" if missed else ""), *args)
    return True


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


def token_page(offered: bool) -> str:
    """The page a browser gets without the access token (401), in a family's words: ``offered``, the address (or
    the page installed as an app) carried a token that is not this server's: one from before ``--new-token``."""
    if offered:
        said = ("This address is out of date: handfoot was given a new access code (<code>--new-token</code>) since "
                "this phone opened it. Scan the code <code>handfoot</code> shows on the computer again, or open the "
                "full address it printed: it ends with <code>?token=...</code>. If handfoot was added to this "
                "phone's home screen, add it again from the new address.")
    else:
        said = ("This handfoot server needs its access code. Scan the code <code>handfoot</code> shows on the "
                "computer, or open the full address it printed when it started: it ends with "
                "<code>?token=...</code>.")
    return ("<!doctype html><html lang=en><meta charset=utf-8><meta name=viewport content='width=device-width'>"
            "<meta name=color-scheme content='light dark'><link rel=icon href='data:,'><title>handfoot</title>"
            "<style>body{font:17px/1.5 system-ui,sans-serif;max-width:34em;margin:2em auto;padding:0 1em}"
            "code{font-size:.95em}</style><h1>handfoot</h1><p>" + said + "</p></html>")


class _Refused(Exception):
    """Raised into the app as it reads a body the guard answers itself (413, 422)."""


class Guard:
    """Pure ASGI middleware in front of every HTTP request: the access token (401 without it), then the body's
    size (413 past the limit: ``files x file_bytes`` plus 1 MB for the photo upload, ``json_bytes`` for the
    rest; a ``Content-Length`` over it is refused before any byte is read) and a JSON body's nesting depth
    (413), checked before the body is parsed."""

    COOKIE = "handfoot_token"

    def __init__(self, app, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    def _offered(self, scope) -> bool:
        """Whether the request carried a token at all (a wrong or old one, when it is not authorised)."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        return (headers.get("authorization", "").lower().startswith("bearer ")
                or "token" in parse_qs(scope.get("query_string", b"").decode("latin-1"))
                or any(part.strip().startswith(self.COOKIE + "=") for part in headers.get("cookie", "").split(";")))

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
                await _send_html(send, 401, token_page(self._offered(scope)))
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
        problem = _body_text_problem(body)
        if problem:
            await _send_json(send, 422, error_body(f"JSON body {problem}"))
            return
        await self.app(scope, replay(body, receive), send)

    async def _streamed(self, scope, receive, send, limit: int) -> None:
        """Hand the body on as it comes, counting it; past ``limit`` answer 413 instead of the app. A part of the
        form past ``file_bytes`` (one photo; :class:`PartSizes`) is cut short: nothing past it is handed on, so
        nothing past it is written. Of the photos to read (``POST /v1/photos``) the rest still goes on, so the
        route names every photo it cannot read at once, each part cut short listed, ``[file name, length]``, in
        ``scope["state"]["cut_uploads"]`` (:func:`handfoot.routes.deps.sent_sizes`); any other upload is answered
        413 at once, naming it. A text field of the form whose bytes are not UTF-8 (which the form parser would
        read as Latin-1: a team name of odd letters) is answered 422, naming it."""
        total, status = 0, 413
        exceeded = started = False
        why = f"request body too large: over {limit:,} bytes"
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        file_bytes = self.settings.limits.file_bytes
        parts = PartSizes.of(headers.get("content-type", ""), file_bytes + 64 * 1024)
        photos = scope["path"] == "/v1/photos"
        if parts is not None:
            scope.setdefault("state", {})["cut_uploads"] = parts.over

        async def counting():
            nonlocal total, exceeded, why, status
            message = await receive()
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > limit:
                exceeded = True
                raise _Refused()
            if parts is not None and message["type"] == "http.request":
                message = {**message, "body": parts.cut(chunk, last=not message.get("more_body", False))}
                if parts.over and not photos:
                    exceeded = True
                    most = f"{file_bytes / 1e6:.0f} MB" if file_bytes >= 1e6 else f"{file_bytes:,} bytes"
                    why = (f"{parts.filename or 'a photo in the upload'}: file too large (over {most}; at most {most} "
                           "a photo)")
                    raise _Refused()
                if parts.not_text:
                    exceeded, status = True, 422
                    why = f"form field {parts.not_text[0]!r} is not UTF-8 text (a form's fields are read as UTF-8)"
                    raise _Refused()
            return message

        async def guarded_send(message):
            nonlocal started
            if exceeded:
                return
            started = True
            await send(message)

        try:
            await self.app(scope, counting, guarded_send)
        except _Refused:
            pass
        if exceeded and not started:
            await _send_json(send, status, error_body(why), [(b"connection", b"close")])


class PartSizes:
    """Cuts each part of a ``multipart/form-data`` body longer than ``most`` bytes short as the body streams by (the
    parts lie between ``CRLF--boundary`` lines, which may be cut between two chunks): :meth:`cut` hands on a chunk
    less the bytes of a part past its first ``most``, the boundaries kept (the body stays a form, each part cut
    short); ``over`` lists each part found longer, ``[its file name as sent or None, its file's length so far]``
    (its whole length once its end has gone by), in the order they came; ``not_text`` the name of each text field
    (a part without a file name, of at most :data:`TEXT_BYTES`) whose bytes are not UTF-8, once its end has gone
    by."""

    def __init__(self, boundary: bytes, most: int) -> None:
        self.delimiter = b"\r\n--" + boundary
        self.most = most
        self.held = b"\r\n"  # bytes not handed on yet (a boundary may be arriving); the first line has no CRLF before it
        self.skip = 2  # ... so the first two bytes are this class's own, never handed on
        self.since = 0  # the bytes of the part going by, its headers with them
        self.head = b""  # the first bytes of the part going by: its headers, to name its file
        self.over: list[list] = []
        self.cutting: list | None = None  # the entry in ``over`` of the part going by, once found longer
        self.text: bytearray | None = bytearray()  # the part going by, while it may be a text field
        self.not_text: list[str] = []

    @classmethod
    def of(cls, content_type: str, most: int) -> "PartSizes | None":
        """For a ``Content-Type`` naming a boundary; None for another."""
        for param in content_type.split(";")[1:]:
            name, _, value = param.strip().partition("=")
            if name.lower() == "boundary" and value.strip('"'):
                return cls(value.strip('"').encode("latin-1"), most)
        return None

    def cut(self, chunk: bytes, last: bool = False) -> bytes:
        """``chunk``, the next bytes of the body, as they are handed on: less the bytes of a part past its first
        ``most``, and less its last few bytes, held until the next chunk shows whether a boundary starts there
        (``last``: the body's last chunk, nothing held)."""
        data, step, out = self.held + chunk, len(self.delimiter), bytearray()
        end = len(data) if last else max(0, len(data) - step + 1)  # a boundary starting past it may be cut short
        pos = 0
        while (at := data.find(self.delimiter, pos)) >= 0 and at < end:
            out += self._part(data[pos:at])
            out += self.delimiter
            self._text_ended()
            self.since, self.head, self.cutting, pos = 0, b"", None, at + step
        end = max(end, pos)  # a boundary found may reach past it
        out += self._part(data[pos:end])
        self.held = data[end:]
        if self.skip:
            taken = min(self.skip, len(out))
            del out[:taken]
            self.skip -= taken
        return bytes(out)

    def _part(self, piece: bytes) -> bytes:
        """The next bytes of the part going by, as they are handed on (none past its first ``most``)."""
        kept = piece[:max(0, self.most - self.since)]
        if self.text is not None:
            self.text += piece
            headers = self.text.find(b"\r\n\r\n")
            if len(self.text) > TEXT_BYTES or (headers >= 0 and b"filename=" in self.text[:headers]):
                self.text = None  # a file, or longer than any text field: not checked
        if len(self.head) < HEAD_BYTES:
            self.head += piece[:HEAD_BYTES - len(self.head)]
        self.since += len(piece)
        if self.since > self.most:
            headers = self.head.find(b"\r\n\r\n")
            size = self.since - (headers + 4 if headers >= 0 else 0)
            if self.cutting is None:  # found longer now: named by its headers
                found = re.search(rb'filename="([^"\r\n]{1,120})"', self.head)
                self.cutting = [found.group(1).decode("utf-8", "replace") if found else None, size]
                self.over.append(self.cutting)
            self.cutting[1] = size
        return kept

    def _text_ended(self) -> None:
        """Note the part that has just gone by in :attr:`not_text` when it is a text field whose bytes are not UTF-8;
        start keeping the next."""
        head, found, value = bytes(self.text or b"").partition(b"\r\n\r\n")
        self.text = bytearray()
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            name = re.search(rb'\bname="([^"\r\n]{1,60})"', head) if found else None
            self.not_text.append(name.group(1).decode("utf-8", "replace") if name else "a form field")

    @property
    def filename(self) -> str | None:
        """The file name (its last path step) of the first part found longer than ``most``, if its headers say one."""
        name = self.over[0][0] if self.over else None
        return PurePosixPath(name).name if name else None


def _body_text_problem(body: bytes) -> str | None:
    """Why a JSON request body holds text that is not Unicode (:func:`handfoot.limits.text_problem`), or None (for
    a body that is not JSON too: the route says what is wrong with it)."""
    if b"\\u" not in body:
        return None
    try:
        return text_problem(body, json.loads(body))
    except ValueError:
        return None


def replay(body: bytes, receive):
    """An ASGI ``receive`` that gives ``body`` (already read whole) as the request's one message, then what
    ``receive`` gives (a disconnect)."""
    sent = False

    async def again():
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}
    return again
