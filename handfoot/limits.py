"""Size limits on everything a user sends, checked before any work is done on it.

One :class:`Limits` object holds every threshold; the command line and the web service check the same ones.
Each check raises :class:`handfoot.errors.TooLargeError` naming what was too large and the limit (a photo too small
to read, under ``min_side``: ``vision.images.ImageTooSmallError``, naming its size and the least). What a team
name may be (:func:`team_name_problem`, :func:`team_names_problem`) is here too: a game's teams, the teams typed
for photos on the command line and on the photo form are checked by the same rule.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Sequence

from scorer.errors import InvalidLayoutError
from scorer.wording import json_refused
from vision.images import MAX_PIXELS, MIN_SIDE, image_format

from .errors import TooLargeError


@dataclass(frozen=True)
class Limits:
    """Thresholds on input, in the units named.

    Attributes:
        file_bytes: largest photo file, bytes (25 MB: a phone's full-resolution JPEG is 3-12 MB).
        files: most photos in one reading, table and hand photos together.
        pixels: largest image, width x height pixels, read from the file header before decoding (60 MP,
            about 8000 x 7500; the camera pipeline scales every photo to at most 2560 px anyway).
        min_side: smallest photo to read, its short side in pixels, read from the file header before decoding
            (100: a card's corner index must measure about 12 pixels to be read; ``vision.images.MIN_SIDE``).
        json_bytes: largest JSON body or layout file, bytes (a real layout is under 10 KB).
        json_depth: deepest nesting of arrays and objects in JSON (a layout nests 5 deep).
        layout_cards: most card codes in one layout: far over any real round (six decks with jokers hold 324 cards).
        upload_bytes: most bytes of photos in one upload of deck-learning examples (200 MB: forty phone photos).
    """

    file_bytes: int = 25 * 1024 * 1024
    files: int = 8
    pixels: int = MAX_PIXELS
    min_side: int = MIN_SIDE
    json_bytes: int = 1024 * 1024
    json_depth: int = 32
    layout_cards: int = 1000
    upload_bytes: int = 200 * 1024 * 1024


DEFAULT_LIMITS = Limits()


def json_depth(text: str | bytes) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text (brackets inside strings ignored), without parsing
    it: a linear scan, safe on any input (a 10,000-deep document would overflow Python's parser)."""
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    depth = deepest = 0
    in_string = escaped = False
    for byte in text:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def check_json_text(text: str | bytes, limits: Limits = DEFAULT_LIMITS, what: str = "JSON body") -> None:
    """Refuse JSON text over ``limits.json_bytes`` or nested deeper than ``limits.json_depth``.

    Raises:
        TooLargeError: naming ``what`` and the limit.
    """
    size = len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)
    if size > limits.json_bytes:
        raise TooLargeError(f"{what} too large: {size:,} bytes (at most {limits.json_bytes:,})")
    depth = json_depth(text)
    if depth > limits.json_depth:
        raise TooLargeError(f"{what} nested too deep: {depth} levels (at most {limits.json_depth})")


def parse_json(text: str | bytes, limits: Limits = DEFAULT_LIMITS, what: str = "JSON body") -> Any:
    """JSON text checked by :func:`check_json_text`, then parsed.

    Raises:
        TooLargeError: from :func:`check_json_text`.
        InvalidLayoutError: for text that is not JSON (message names line and column; bytes that are not text, an
            image's file named so), or holds a lone surrogate (:func:`text_problem`).
    """
    if isinstance(text, bytes) and len(text) <= limits.json_bytes:  # text before its nesting is counted
        try:
            text.decode(json.detect_encoding(text))
        except UnicodeDecodeError:
            kind = image_format(text)
            raise InvalidLayoutError(f"{what} is not valid JSON: "
                                     + (f"a {kind} image" if kind else "not UTF-8 text")) from None
    check_json_text(text, limits, what)
    if not (text.strip() if isinstance(text, str) else text.strip(b" \t\r\n")):
        raise InvalidLayoutError(f"{what} is empty (expected a JSON document)")
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        reason = exc.msg.removesuffix(" at") if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"
        raise InvalidLayoutError(f"{what} is not valid JSON: {reason}{where}") from None
    except (ValueError, RecursionError) as exc:  # JSON by its grammar, but not for Python's parser
        raise InvalidLayoutError(f"{what} is not valid JSON: {json_refused(exc)}") from None
    problem = text_problem(text, doc)
    if problem:
        raise InvalidLayoutError(f"{what} {problem}")
    return doc


#: a JSON escape of a UTF-16 surrogate (``\ud800``-``\udfff``): only such an escape puts one in parsed JSON
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def text_problem(text: str | bytes, doc: Any) -> str | None:
    """Why the JSON value ``doc``, parsed from ``text``, holds text that is not Unicode, in words that follow "JSON
    body" (``"is not valid text at teams[0]: a lone UTF-16 surrogate \\ud800 ..."``), or None. A lone surrogate
    (an escape ``\\ud800`` not paired with its other half) parses, but cannot be written as UTF-8: a name holding
    one, once stored, would break every answer that holds it."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if not _SURROGATE_ESCAPE.search(raw):
        return None
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, dict):
            stack += [(f"{path}.{_printable(k)}" if path else _printable(k), k) for k in item]
            stack += [(f"{path}.{_printable(k)}" if path else _printable(k), v) for k, v in item.items()]
        elif isinstance(item, list):
            stack += [(f"{path}[{k}]", v) for k, v in enumerate(item)]
        elif isinstance(item, str):
            bad = next((c for c in item if 0xD800 <= ord(c) <= 0xDFFF), None)
            if bad is not None:
                return (f"is not valid text at {path or 'its top'}: a lone UTF-16 surrogate \\u{ord(bad):04x} (half of "
                        "a character such as an emoji)")
    return None


def _printable(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\ud800``), so that a message naming it prints."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def count_layout_cards(doc: Any) -> int:
    """How many strings (card codes) lie in a layout document's ``teams`` (any nesting), without validating
    it: a bound to check before the layout is parsed card by card."""
    return _strings(doc.get("teams") if isinstance(doc, dict) else None)


def _strings(item: Any) -> int:
    """How many strings lie in ``item`` (a JSON value, any nesting)."""
    stack, n = [item], 0
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            n += 1
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return n


def _fullest_field(doc: Any) -> tuple[str, int] | None:
    """The path (``teams.TEAM.FIELD``) and card count of the field of a layout document holding the most card
    codes, or None where ``teams`` is not an object of objects."""
    teams = doc.get("teams") if isinstance(doc, dict) else None
    if not isinstance(teams, dict):
        return None
    counts = [(f"teams.{team}.{field}", _strings(value)) for team, side in teams.items() if isinstance(side, dict)
              for field, value in side.items()]
    return max(counts, key=lambda c: c[1], default=None)


def check_layout_cards(doc: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a layout document with more than ``limits.layout_cards`` card codes.

    Raises:
        TooLargeError: ``teams.TEAM.FIELD: N cards (M in all): ...`` naming the field holding the most cards (a
        page marks that box), the count in all and the limit; without the path where ``teams`` is not an object
        of objects.
    """
    n = count_layout_cards(doc)
    if n <= limits.layout_cards:
        return
    fullest = _fullest_field(doc)
    if fullest is None:
        raise too_many_cards(f"layout has {n:,} cards", limits)
    path, k = fullest
    raise too_many_cards(f"{path}: {k:,} cards{'' if k == n else f' ({n:,} in all)'}", limits)


def too_many_cards(what: str, limits: Limits = DEFAULT_LIMITS) -> TooLargeError:
    """The error for a round of more cards than ``limits.layout_cards``; ``what`` says how many, and where
    ("layout has 1,001 cards")."""
    return TooLargeError(f"{what}: a round's layout may hold at most {limits.layout_cards:,} cards")


def check_file_size(size: int, name: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a photo file of ``size`` bytes over ``limits.file_bytes``.

    Raises:
        TooLargeError: naming the file.
    """
    if size > limits.file_bytes:
        raise TooLargeError(f"{name}: file too large ({size / 1e6:.1f} MB; at most "
                            f"{limits.file_bytes / 1e6:.0f} MB a photo)")


#: the longest team name, in characters; the page's team-name fields say the same (``TEAM_NAME_MAX`` in web/newgame.js)
TEAM_NAME_MAX = 40
#: a team name: 1 to :data:`TEAM_NAME_MAX` characters, no comma or colon (they separate teams and cards in the
#: photo form's fields), not starting with a space
TEAM_NAME = rf"^[^\s,:][^,:]{{0,{TEAM_NAME_MAX - 1}}}$"


#: the characters that turn the direction of the text after them (embeddings, overrides, isolates): a team name
#: holding one prints every line it is in backwards from there
_DIRECTION_MARKS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def team_name_problem(name: str) -> str | None:
    """What is wrong with the team name ``name``, in words that follow "Team 2's name" (``"can't contain a comma
    or colon (use 'Mom & Dad')"``), or None when it is a name (:data:`TEAM_NAME`)."""
    if not name.strip():
        return "is empty: type a name (spaces alone are not one)"
    if len(name) > TEAM_NAME_MAX:
        return f"{name[:20] + '…'!r} has {len(name)} characters: at most {TEAM_NAME_MAX}"
    odd = next((c for c in name if unicodedata.category(c) == "Cc" or c in _DIRECTION_MARKS), None)
    if odd is not None:  # a line break or NUL breaks the lines it is printed in; a direction mark turns them
        what = "a line break" if odd in "\n\r" else "a tab" if odd == "\t" else "an invisible control character"
        return f"can't contain {what} (U+{ord(odd):04X}): " + ("type it on one line" if odd in "\n\r" else "type it again")
    if "," in name or ":" in name:  # they separate teams and cards in the photo form's fields
        return f"can't contain a comma or colon (use {re.sub(r'[ ]*[,:][ ]*', ' & ', name).strip(' &')!r})"
    if not re.match(TEAM_NAME, name):
        return f"{name!r} can't start with a space"
    return None


def team_names_problem(names: Sequence[str], repeats: bool = False) -> str | None:
    """What is wrong with the team names ``names`` (in order), in words that start a sentence (``"Team 2's name is
    empty: type a name (spaces alone are not one)"``, ``"a team is named twice (Us and us)"``), or None. Each is
    checked by :func:`team_name_problem`; two that differ only in case are one team named twice (to a family "Kids"
    and "kids" are one team); so is a name given twice, unless ``repeats`` (``--teams Us,Us,Them``: two photos of
    Us's side)."""
    for k, name in enumerate(names, 1):
        problem = team_name_problem(name)
        if problem:
            return f"Team {k}'s name {problem}"
    first: dict[str, str] = {}
    for name in names:
        seen = first.get(name.casefold())
        if seen is not None and (seen != name or not repeats):
            return "a team is named twice: " + (f"{seen!r} and {name!r}" if seen != name else repr(name))
        first.setdefault(name.casefold(), name)
    return None
