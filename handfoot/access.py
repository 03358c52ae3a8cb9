"""The access token every phone on the network needs (``?token=`` in the address ``handfoot serve`` prints, then a
cookie): made once and kept in the data folder beside the games (``token``, readable by this user only), so the
address a phone saved, its bookmark and the page installed as an app still open after the server or the computer
restarts. ``HANDFOOT_TOKEN`` sets it instead; ``--new-token`` (``serve``, ``watch --serve``) makes and keeps a new one,
shutting out every phone that had the old address (a phone lost, a guest gone)."""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

from scorer import HandFootError

#: the file in the data folder that keeps the token
TOKEN_FILE = "token"
#: what a kept token looks like (``secrets.token_urlsafe``'s alphabet); anything else is made anew
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,200}$")


def add_token_option(parser) -> None:
    """``--new-token`` on ``serve`` and ``watch`` (for ``--serve``)."""
    parser.add_argument("--new-token", action="store_true",
                        help="make a new access token for the printed address (kept for later runs): phones that "
                             "had the old address must open the new one")


def access_token(data: Path, new: bool = False) -> tuple[str, bool]:
    """The access token and whether it was made now: ``HANDFOOT_TOKEN`` when set, else the one kept in
    ``data``/token, else (or with ``new``) a new one, kept there.

    Raises:
        HandFootError: the token cannot be written to ``data``.
    """
    given = os.environ.get("HANDFOOT_TOKEN")
    if given:
        return given, False
    path = Path(data) / TOKEN_FILE
    if not new:
        try:
            kept = path.read_text(encoding="ascii").strip()
        except (FileNotFoundError, UnicodeDecodeError):
            kept = ""
        except OSError as exc:
            raise HandFootError(f"{path}: the access token cannot be read ({exc.strerror})") from None
        if TOKEN.match(kept):
            return kept, False
    token = secrets.token_urlsafe(18)
    try:
        Path(data).mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token + "\n")
    except OSError as exc:
        raise HandFootError(f"{path}: the access token cannot be kept ({exc.strerror})") from None
    return token, True
