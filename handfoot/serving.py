"""Running the service under uvicorn without letting connections hold it: idle and slow clients closed, a cap on
connections answered with a clear 503, the open-file limit raised, one log line per kind of fault a minute, and a
stop (Ctrl-C) that ends the event streams and lets running photo readings finish.

:func:`server` builds the :class:`uvicorn.Server` that ``handfoot serve`` runs.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

#: seconds a connection may stay open with no request being answered (idle, or sending its request too slowly)
IDLE_SECONDS = 20.0
#: seconds a stopping server waits for the answers in progress (a photo reading takes a few seconds)
STOP_SECONDS = 20
#: the open-file (socket) limit asked for at start-up, as far as the system allows
WANTED_FILES = 8192
#: file descriptors kept for the ledger, photos and models beyond the connections
SPARE_FILES = 128


def raise_file_limit(wanted: int = WANTED_FILES) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (at most the hard limit); returns the
    soft limit now (a system without ``resource`` keeps its own and ``wanted`` is returned)."""
    try:
        import resource  # POSIX only
    except ImportError:  # not Unix
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(files: int) -> int:
    """How many connections (and requests in progress) to take at once with ``files`` open files allowed."""
    return max(32, min(1000, files - SPARE_FILES))


async def _too_many(scope, receive, send) -> None:
    """What uvicorn answers past its connection cap: 503 JSON with ``Retry-After``."""
    body = json.dumps({"error": "too many connections to this server right now: try again in a few seconds"}).encode()
    await send({"type": "http.response.start", "status": 503,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"retry-after", b"5"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def protocol(idle_seconds: float = IDLE_SECONDS) -> type:
    """uvicorn's HTTP protocol class that also closes a connection on which no request was started for
    ``idle_seconds`` while nothing is being answered: an idle client, or one sending its request headers too
    slowly. A response being sent (an event stream) is never cut."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol  # heavy: a running server alone needs it

    class Protocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._seen_cycle = None
            self._idle_timer = self.loop.call_later(idle_seconds, self._check_idle)

        def _check_idle(self) -> None:
            cycle = getattr(self, "cycle", None)
            busy = cycle is not None and not cycle.response_complete
            if not busy and cycle is self._seen_cycle and not self.transport.is_closing():
                self.transport.close()  # no new request in a whole period, nothing in progress
                return
            self._seen_cycle = cycle
            self._idle_timer = self.loop.call_later(idle_seconds, self._check_idle)

        def connection_lost(self, exc) -> None:
            timer = getattr(self, "_idle_timer", None)
            if timer is not None:
                timer.cancel()
            super().connection_lost(exc)

    return Protocol


#: the most bytes of a plain-HTTP request read to answer it with the ``https://`` address
REDIRECT_HEAD = 8192


def https_or_redirect(inner: type, context, idle_seconds: float = IDLE_SECONDS) -> type:
    """A protocol class for one port that serves HTTPS and tells plain HTTP where to go: a connection whose first
    byte opens a TLS handshake (0x16) is wrapped in TLS with ``context`` (an :class:`ssl.SSLContext`) and served by
    ``inner`` (uvicorn's protocol, as :func:`protocol` gives it); any other is answered ``308`` to the same address
    with ``https://`` (a phone's browser given the address without it asks over HTTP and got an empty reply) and
    closed. A connection that sends nothing is closed after ``idle_seconds``."""
    import asyncio
    from asyncio.sslproto import SSLProtocol

    class HttpsOrRedirect(asyncio.Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.inner = inner(*args, **kwargs)
            self.head = b""
            self.transport: Any = None

        def connection_made(self, transport) -> None:
            self.transport = transport
            self.timer = asyncio.get_running_loop().call_later(idle_seconds, transport.close)

        def data_received(self, data: bytes) -> None:
            if not self.head and data[:1] == b"\x16":
                self.timer.cancel()
                tls = SSLProtocol(asyncio.get_running_loop(), self.inner, context, None, server_side=True,
                                  ssl_handshake_timeout=idle_seconds)
                self.transport.set_protocol(tls)
                tls.connection_made(self.transport)
                view = memoryview(data)
                while view:
                    buffer = tls.get_buffer(len(view))
                    n = min(len(buffer), len(view))
                    buffer[:n] = view[:n]
                    tls.buffer_updated(n)
                    view = view[n:]
                return
            self.head += data
            if b"\r\n\r\n" not in self.head and len(self.head) < REDIRECT_HEAD:
                return
            self.timer.cancel()
            self.transport.write(_redirect(self.head, self.transport.get_extra_info("sockname")))
            self.transport.close()

        def connection_lost(self, exc) -> None:
            self.timer.cancel()

    return HttpsOrRedirect


def _redirect(head: bytes, sockname: Any) -> bytes:
    """The ``308`` answer to the plain-HTTP request ``head``: its path at ``https://`` and its Host (this server's
    address where it gave none)."""
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    path = parts[1].decode("latin-1") if len(parts) == 3 and parts[1].startswith(b"/") else "/"
    host = next((line.split(b":", 1)[1].strip().decode("latin-1") for line in lines[1:]
                 if line.lower().startswith(b"host:")), "")
    if not host or any(c in host for c in "/\\@ \t") or not host.isprintable():
        host = f"{sockname[0]}:{sockname[1]}" if isinstance(sockname, tuple) else "localhost"
    body = json.dumps({"error": f"this server speaks HTTPS: open https://{host}{path}"}).encode()
    return (f"HTTP/1.1 308 Permanent Redirect\r\nLocation: https://{host}{path}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            ).encode("latin-1") + body


class OncePerMinute(logging.Filter):
    """A log filter: each kind of message (its format string) passes once a minute, without its traceback; a
    flood of one fault (e.g. ``Too many open files`` on every accept) is one line a minute."""

    def __init__(self, every: float = 60.0) -> None:
        super().__init__()
        self.every = every
        self.last: dict[str, float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        key = f"{record.name}:{record.msg}"
        if now - self.last.get(key, -self.every) < self.every:
            return False
        self.last[key] = now
        if record.exc_info:
            record.msg = f"{record.getMessage()}: {record.exc_info[1]!r}"
            record.args = None
            record.exc_info = record.exc_text = None
        return True


def quiet_logs() -> None:
    """One line a minute per kind of fault from the event loop and uvicorn, never a traceback on the console."""
    once = OncePerMinute()
    for name in ("asyncio", "uvicorn.error", "handfoot.service"):
        logging.getLogger(name).addFilter(once)


def server(app, host: str, port: int, idle_seconds: float = IDLE_SECONDS, connections: int | None = None,
           **extra: Any):
    """The :class:`uvicorn.Server` of ``handfoot serve`` for ``app`` (:func:`handfoot.service.create_app`): the idle
    timeout (``idle_seconds``), the connection cap (``connections``, default from the open-file limit, raised
    first), quiet logs, and a stop that tells the app (``app.state.changes.stopping``: event streams end, waiting
    photo readings are answered 503)."""
    import uvicorn  # heavy: a running server alone needs it
    from uvicorn.protocols.http import h11_impl  # heavy: a running server alone needs it

    files = raise_file_limit()
    h11_impl.service_unavailable = _too_many  # the connection cap's answer
    try:
        from uvicorn.protocols.http import httptools_impl  # heavy: a running server alone needs it

        httptools_impl.service_unavailable = _too_many
    except ImportError:
        pass
    quiet_logs()
    http = protocol(idle_seconds)
    if extra.get("ssl_certfile"):  # HTTPS, and plain HTTP on the same port told the https:// address
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(extra.pop("ssl_certfile"), extra.pop("ssl_keyfile", None))
        http = https_or_redirect(http, context, idle_seconds)
        extra["loop"] = "asyncio"  # the TLS wrapping is asyncio's own
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            http=http, timeout_keep_alive=min(5, max(1, int(idle_seconds))),
                            limit_concurrency=min(connections or files, connection_cap(files)),
                            timeout_graceful_shutdown=STOP_SECONDS, **extra)

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            if not app.state.changes.stopping.is_set():  # said at once: a reading under way is finished first
                print("handfoot: stopping (a reading under way is finished first; Ctrl-C again stops at once)",
                      file=sys.stderr, flush=True)
            app.state.changes.stopping.set()
            super().handle_exit(sig, frame)

    return Server(config)
