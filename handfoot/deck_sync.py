"""Two phones teaching one deck: a deck profile as a client sees it (:class:`DeckOut`, with its ``version``), what a
learning job may replace (:class:`DeckExpect`, from ``If-None-Match: *`` or ``If-Match``), checked when the job
starts and again as it saves its profile (:func:`save_deck`); a profile deleted only while it is the one a client
saw (:func:`remove_deck`).

A profile's ``version`` is its file's (``vision.deck_profiles.file_version``: the first 16 hex digits of the sha256
of its bytes): every save changes it (a profile records when it was learned), whoever saved it (a learning job, a
game's lesson, ``handfoot deck learn``, a file copied in), and only a save of the very same bytes keeps it (nothing
is lost replacing such a profile). Its ``ETag`` form is quoted: ``"3fa9c0d1e2b4a5f6"``.

Every save of a profile in this process (learning jobs, games' lessons, the command line's ``deck learn``) takes one
lock, within which the check and the save are one step: two jobs of this server can never both pass the check and
then both save. A save by another process on the same folder is not under that lock.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from scorer import HandFootError
from scorer.wording import counted

from .errors import DeckChangedError

#: held while a profile is checked and saved (:func:`save_deck`)
SAVING = threading.Lock()


class DeckCheck(BaseModel):
    """A profile's check: how many ``indices`` its check photos hold, the share of the reader's views of them (each
    index turned three ways) read right by rank and colour by the ``stock`` reader and with the ``profile`` (0-1:
    what the profile is kept on), and how many of the indices each reads right so (``stock_right``,
    ``profile_right``; None for a profile learned before they were counted); ``stock_negative``: the stock reader
    read the check photos' negatives (a deck printed light on dark, read as the light-print box reads it)."""

    indices: int = 0
    stock: float = 0.0
    profile: float = 0.0
    stock_right: int | None = None
    profile_right: int | None = None
    stock_negative: bool = False


class DeckOut(BaseModel):
    """A deck profile: its name, the example photos and indices it learned from, its check figures
    (:class:`DeckCheck`), when it was made, whether the deck is read as its negative (``negative``: light print on
    dark paper), and its ``version`` (16 hex digits, its file's: any save changes it; sent back quoted as
    ``If-Match`` on ``POST /v1/decks/{name}/learn``, the profile is replaced only while it is that one)."""

    name: str
    photos: int
    indices: int
    check: DeckCheck
    created: str
    negative: bool = False
    version: str = ""

    @classmethod
    def of(cls, profile: Any) -> "DeckOut":
        """The summary of a ``vision.deck_profiles.DeckProfile``."""
        return cls(name=profile.name, photos=profile.photos, indices=profile.indices, check=profile.check,
                   created=profile.created, negative=profile.negative, version=profile.version)


def _told(profile: Any) -> str:
    """A profile in a few words: "learned 2026-12-02 from 30 photos, version 3fa9c0d1e2b4a5f6"."""
    when = f"learned {profile.created[:10]} " if profile.created else "learned "
    return f"{when}from {counted(profile.photos, 'photo')}, version {profile.version}"


@dataclass(frozen=True)
class DeckExpect:
    """What a learning job may replace: nothing (``new``: ``If-None-Match: *``, a deck not taught yet), the profile
    at ``version`` only (``If-Match: "<version>"``; ``"*"``: whichever is kept, but one must be), or, with neither
    (the default), whatever is kept under its name (a profile made or replaced)."""

    new: bool = False
    version: str | None = None

    @classmethod
    def of(cls, if_match: str | None, if_none_match: str | None) -> "DeckExpect":
        """The condition of a request's ``If-Match`` and ``If-None-Match`` headers (their values; None: not sent).
        Raises HandFootError (422): both sent, or an ``If-None-Match`` other than ``*``."""
        if if_match is not None and if_none_match is not None:
            raise HandFootError("send If-Match (replace that deck profile only) or If-None-Match: * (a new deck "
                                "only), not both")
        if if_none_match is not None:
            if if_none_match.strip() != "*":
                raise HandFootError('If-None-Match: only "*" (a new deck only) is understood here')
            return cls(new=True)
        if if_match is not None:
            value = if_match.strip()
            return cls(version="*" if value == "*" else value.removeprefix("W/").strip('"'))
        return cls()

    @property
    def any(self) -> bool:
        """Whether whatever is kept may be replaced (no condition)."""
        return not self.new and self.version is None

    def check(self, name: str, folder: Path, meanwhile: bool = False) -> Any | None:
        """The profile ``name`` kept in ``folder`` now (``vision.deck_profiles.DeckProfile``; None: none), when it
        is one this condition lets be replaced. ``meanwhile``: checked as the job saves, having learned (the
        message says so). Raises DeckChangedError (412) naming what happened, with the profile as it is now."""
        from vision.deck_profiles import saved_profile  # the optional vision extra (OpenCV, ONNX Runtime)

        now = saved_profile(name, folder)
        if self.any or (self.new and now is None) or (now is not None and self.version in ("*", now.version)):
            return now
        kept = None if now is None else DeckOut.of(now).model_dump(mode="json")
        if now is None and meanwhile:
            message = f"deck {name!r} was deleted while this was learning; nothing was saved"
        elif now is None:
            message = (f"deck {name!r} is gone (deleted on another phone?): nothing was started; to teach it as a new "
                       "deck, send If-None-Match: *")
        elif meanwhile:
            message = (f"another phone taught deck {name!r} while this was learning ({_told(now)}); nothing was "
                       "replaced: that deck is kept")
        elif self.new:
            message = (f"deck {name!r} is taught already ({_told(now)}; on another phone?): nothing was started; to "
                       f'replace it, send If-Match: "{now.version}"')
        else:
            message = (f"deck {name!r} was taught again since version {self.version} (on another phone?; {_told(now)})"
                       ": nothing was started")
        raise DeckChangedError(message, kept)


def save_deck(profile: Any, folder: Path, expect: DeckExpect = DeckExpect()) -> tuple[Any, Path, Any | None]:
    """Save ``profile`` (``vision.deck_profiles.DeckProfile``) in ``folder`` in place of the profile of its name,
    when ``expect`` lets that one be replaced (:meth:`DeckExpect.check`, the check and the save one step under
    :data:`SAVING`). Returns the profile as saved (its ``version`` set), its file, and the profile it replaced (None:
    none). Raises DeckChangedError (412): not saved, the one kept stays."""
    from vision.deck_profiles import file_version  # the optional vision extra (OpenCV, ONNX Runtime)

    with SAVING:
        before = expect.check(profile.name, folder, meanwhile=True)
        path = profile.save(folder)
        version = file_version(profile.name, folder)
    return dataclasses.replace(profile, version=version or ""), path, before


def remove_deck(name: str, folder: Path, version: str | None = None) -> None:
    """Delete the profile ``name`` kept in ``folder``; with ``version`` (from ``If-Match``, unquoted; ``"*"``: any)
    only while it is that one (the check and the delete one step under :data:`SAVING`).

    Raises:
        DeckNotFoundError (404): no such profile.
        DeckChangedError (412): it was taught again since that version: nothing was deleted.
    """
    from vision.deck_profiles import remove_profile, saved_profile  # the optional vision extra

    with SAVING:
        now = saved_profile(name, folder)
        if now is not None and version not in (None, "*", now.version):
            raise DeckChangedError(f"deck {name!r} was taught again since version {version} (on another phone?; "
                                   f"{_told(now)}): nothing was deleted", DeckOut.of(now).model_dump(mode="json"))
        remove_profile(name, folder)
