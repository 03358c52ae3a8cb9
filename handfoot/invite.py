"""Another phone at the table: the address that opens this server's page (a game on it) from a phone on the same
network, with the server's access token, and its QR code, which a phone's camera opens (drawn by segno).

A phone reached the server by the name in its request's ``Host``; another phone on the same network reaches it by
that name too. When that name is this computer's own (127.0.0.1, localhost: the page is open on the computer
itself), the computer's network addresses are used instead (:func:`handfoot.startup.addresses`); a server that
listens on this computer only has no address a phone can open, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

import segno

#: what a phone is told when no address of this server can be opened from it: two sentences, the last one's full
#: stop left to the page
LOCAL_ONLY = ("handfoot listens on this computer only. Start it with handfoot serve --host 0.0.0.0 for phones on "
              "your network")


@dataclass(frozen=True)
class Invite:
    """The address another phone opens (``url``, None when there is none, ``reason`` then says why) and its QR code
    as an SVG data URI (``qr``, about 41 modules a side with the quiet zone: read from a phone held 20-40 cm away)."""

    url: str | None
    qr: str | None
    reason: str | None = None


def _split_host(host: str) -> tuple[str, str]:
    """``("192.168.1.20", ":8000")`` from a ``Host`` header (an IPv6 address keeps its brackets)."""
    if host.startswith("["):
        name, _, rest = host.partition("]")
        return name + "]", rest
    name, colon, port = host.partition(":")
    return name, colon + port


def invite(host_header: str | None, scheme: str, bound: str | None, token: str | None, game: str | None = None) -> Invite:
    """The invitation to this server's page (``#/game/GAME`` when ``game``) for a phone on the same network.

    Args:
        host_header: the ``Host`` the asking page reached the server by (``"192.168.1.20:8000"``).
        scheme: ``"http"`` or ``"https"`` as that page was served.
        bound: the address the server listens on (``handfoot serve --host``; None: not known, as in tests).
        token: the server's access token (None: none is needed).
    """
    from .service import LOOPBACK  # this computer's own names (here: the service imports the routes, which import this)
    from .startup import addresses

    name, port = _split_host((host_header or "").strip().lower())
    if not name:
        return Invite(None, None, "the request named no server address")
    if name.strip("[]") in LOOPBACK:
        if bound is None or bound in LOOPBACK:
            return Invite(None, None, LOCAL_ONLY)
        found = [a for a in addresses(bound, int(port[1:] or (443 if scheme == "https" else 80)), scheme) if "<" not in a]
        if not found:
            return Invite(None, None, "this computer's network address could not be found: open the address "
                                      "handfoot serve printed on the other phone")
        base = found[0]
    else:
        base = f"{scheme}://{name}{port}"
    url = base + "/" + (f"?token={quote(token, safe='')}" if token else "") + (f"#/game/{game}" if game else "")
    return Invite(url, segno.make(url, error="m").svg_data_uri(scale=6, border=4), None)


#: ANSI colours of a terminal QR code's modules: foreground (the upper half block) and background (the lower),
#: dark and light, set explicitly so the code reads the same on a dark terminal and a light one
_FG = {True: "\x1b[30m", False: "\x1b[97m"}
_BG = {True: "\x1b[40m", False: "\x1b[107m"}
_RESET = "\x1b[0m"


def terminal_qr(url: str) -> str:
    """The QR code of ``url`` as text for a terminal: two rows of modules a line, each pair of modules one upper
    half block whose foreground is the upper module and background the lower, in black and white ANSI colours
    (dark modules black whatever the terminal's own colours), a light border of two modules around it."""
    rows = [list(map(bool, r)) for r in segno.make(url, error="m").matrix_iter(border=2)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    lines = []
    for top, bottom in zip(rows[::2], rows[1::2]):
        lines.append("".join(_FG[a] + _BG[b] + "\u2580" for a, b in zip(top, bottom)) + _RESET)
    return "\n".join(lines) + "\n"
