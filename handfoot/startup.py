"""Starting the web service from the command line: the port probed first, the models loaded once, the addresses a
phone can open printed, then uvicorn run until Ctrl-C (:func:`serve`)."""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from pathlib import Path

from scorer import HandFootError

from . import core
from .access import TOKEN_FILE, access_token
from .https import serve_https
from .invite import terminal_qr
from .ledger import Ledger
from .serving import server


def check_port(host: str, port: int) -> None:
    """Raise a one-line HandFootError when ``host``:``port`` cannot be listened on (in use, or not this computer's
    address), before anything is loaded or printed as started."""
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        why = "already in use (another handfoot serve?); choose another with --port" if exc.errno == 98 else \
            (exc.strerror or str(exc)).lower()
        raise HandFootError(f"cannot serve on {host}:{port}: {why}") from None


def addresses(host: str, port: int, scheme: str = "http") -> list[str]:
    """The URLs a browser can open for a server bound to ``host``: for ``0.0.0.0`` (or ``::``) this computer's
    IPv4 network addresses, loopback left out (psutil lists every interface's addresses on Linux, macOS and
    Windows; the host name's addresses are the fallback without it)."""
    if host not in ("0.0.0.0", "::", ""):
        return [f"{scheme}://{'[' + host + ']' if ':' in host else host}:{port}"]
    found: set[str] = set()
    try:
        import psutil  # guarded: without it, the address from the host name

        found |= {a.address for addrs in psutil.net_if_addrs().values() for a in addrs
                  if a.family == socket.AF_INET and not a.address.startswith("127.")}
    except (ImportError, OSError):
        pass
    if not found:
        try:
            found |= {a for a in socket.gethostbyname_ex(socket.gethostname())[2] if not a.startswith("127.")}
        except OSError:
            pass
    return [f"{scheme}://{a}:{port}" for a in sorted(found)] or [f"{scheme}://<this computer's address>:{port}"]


def serve(args: argparse.Namespace, watching=None) -> int:
    """Run the web service on ``args.host``/``args.port`` with the ledger ``args.db`` (the options of ``handfoot
    serve``: ``max_jobs``, ``allow_host``, ``https``, ``idle_timeout``, ``max_connections``) until Ctrl-C, saying
    on standard error where to open it; ``watching(models, decks)`` starts the table the live view shows
    (``handfoot watch --serve``; ``decks`` is the server's deck folder). Returns 0.

    Raises:
        HandFootError: fastapi or uvicorn missing, a ledger that cannot be used, a port that cannot be listened on.
    """
    try:
        import uvicorn  # noqa: F401  (checked here: one clear line when it is missing)

        from .service import LOOPBACK, Settings, create_app  # the web dependencies, checked with uvicorn
    except ImportError as exc:
        raise HandFootError(f"serve needs fastapi and uvicorn (pip install -e .): {exc}") from None
    settings = Settings(**({"db": Path(args.db)} if args.db else {}), max_jobs=args.max_jobs, host=args.host,
                        hosts=tuple(getattr(args, "allow_host", None) or ()))
    local = args.host in LOOPBACK
    check_port(args.host, args.port)  # first: a port in use leaves no new ledger behind
    Ledger.open(settings.db).close()  # a database that cannot be used is one line, before the server starts
    if not local:
        settings.token, made = access_token(settings.db.parent, getattr(args, "new_token", False))
        if not os.environ.get("HANDFOOT_TOKEN"):
            print(f"handfoot: access token {'made now' if made else 'the one kept'} ({settings.db.parent / TOKEN_FILE}"
                  "): the address below stays the same when handfoot starts again; --new-token makes a new one",
                  file=sys.stderr)
    print("handfoot: loading the camera models...", file=sys.stderr)
    try:
        models = core.load_models()
    except HandFootError as exc:
        models = None
        print(f"handfoot: photo reading is off: {exc}", file=sys.stderr)
    session = None
    if watching is not None:
        if models is None:
            raise HandFootError("watch needs the camera models")
        session = watching(models, core.decks_dir(settings.db.parent))
    app = create_app(settings, models=models, load_models=False, live=session)
    print(f"handfoot: ledger {settings.db}", file=sys.stderr)
    ssl = serve_https(args, settings.db.parent)  # handfoot.https: the certificate made once, kept, its fingerprint
    found = addresses(args.host, args.port, "https" if ssl else "http")
    for url in found:
        print(f"handfoot: open {url}" + ("/live" if session else "/")
              + (f"?token={settings.token}" if settings.token else ""), file=sys.stderr)
        if ssl:
            print(f"handfoot: a phone trusts it for good with {url}/handfoot-ca.crt"
                  + (f"?token={settings.token}" if settings.token else ""), file=sys.stderr)
    urls = [u for u in found if "<" not in u]
    if not local and urls and sys.stderr.isatty():  # a phone's camera opens the first address from its QR code
        page = urls[0] + ("/live" if session else "/") + (f"?token={settings.token}" if settings.token else "")
        print("handfoot: or point a phone's camera at this code:\n" + terminal_qr(page), file=sys.stderr)
    if local:
        print("handfoot: only this computer can connect; for phones on your network: handfoot "
              + ("watch ... --serve" if session else "serve") + " --host "
              "0.0.0.0", file=sys.stderr)
    logging.basicConfig(level=logging.WARNING, format="handfoot: %(message)s")
    trace = logging.FileHandler(settings.db.parent / "handfoot.log")
    trace.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logging.getLogger("handfoot.trace").addHandler(trace)

    try:
        server(app, args.host, args.port, getattr(args, "idle_timeout", None) or 20.0,
               getattr(args, "max_connections", None), **ssl).run()
    except KeyboardInterrupt:  # Ctrl-C: the server stopped cleanly (running readings finished)
        pass
    except (OSError, SystemExit) as exc:
        raise HandFootError(f"cannot serve on {args.host}:{args.port}: {exc}") from None
    print("handfoot: stopped", file=sys.stderr)
    return 0
