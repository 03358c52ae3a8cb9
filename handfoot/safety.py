"""Who may talk to the service: the ``Host`` a request names (against DNS rebinding: a page of another site whose
name is made to point at 127.0.0.1) and the ``Origin`` of a request that changes something (against a page of
another site posting to this server: CSRF).

A request must name this server in ``Host``: an IP address (a browser only sends one when the address itself was
opened, which a rebinding page cannot do), ``localhost``, the host the server was bound to, this computer's name
(and ``NAME.local``), or a name allowed with ``handfoot serve --allow-host``. A ``POST``, ``PUT``, ``PATCH`` or
``DELETE`` whose ``Origin`` is not this server's own address (or whose ``Sec-Fetch-Site`` says ``cross-site``) is
refused. Both answers are 403 with a one-line JSON error.
"""

from __future__ import annotations

import ipaddress
import socket
from functools import lru_cache
from urllib.parse import urlsplit

CHANGING = ("POST", "PUT", "PATCH", "DELETE")


def host_name(host: str) -> str:
    """The name of a ``Host`` header without its port, lower case (``[::1]:8000`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


@lru_cache(maxsize=1)
def _this_computer() -> frozenset[str]:
    try:
        name = socket.gethostname().lower()
    except OSError:
        return frozenset()
    short = name.split(".")[0]
    return frozenset({name, short, short + ".local"})


def host_allowed(host: str | None, bound: str | None = None, extra: tuple[str, ...] = ()) -> bool:
    """Whether a request's ``Host`` header names this server (see the module's description); ``bound`` is the
    address the server listens on, ``extra`` names allowed besides."""
    if not host:
        return False
    name = host_name(host)
    if _is_ip(name) or name == "localhost" or name.endswith(".localhost"):
        return True
    allowed = {n.lower() for n in extra} | ({bound.lower()} if bound else set())
    return name in allowed or name in _this_computer()


def origin_allowed(method: str, origin: str | None, fetch_site: str | None, host: str | None) -> bool:
    """Whether a request may change something: not a change (``GET``...), or its ``Origin`` is this server's
    address as the request's ``Host`` names it (no ``Origin``: allowed unless ``Sec-Fetch-Site`` says
    ``cross-site``, as a command-line client sends neither)."""
    if method not in CHANGING:
        return True
    if origin is None:
        return (fetch_site or "").lower() != "cross-site"
    if origin == "null" or not host:
        return False
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()
