"""Words shared by messages and reports: counts (``counted(1, "card")`` is "1 card", ``counted(3, "card")`` "3 cards"),
lists (``listed(["QS", "QC"])`` is "QS and QC"), the name of each kind of pile (:func:`pile_word`: a layout file's
report, a photo's and its annotated picture say "clean book" alike), why JSON text was refused
(:func:`json_refused`) and what a JSON value is (:func:`json_kind`)."""

from __future__ import annotations

import re
import sys


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun plural unless ``n`` is 1 (``plural``, default ``noun + "s"``); ``n`` with
    thousands separators (``"1,001 cards"``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def listed(items: list[str]) -> str:
    """``items`` in words, the last two joined by "and": ``"QS"``, ``"QS and QC"``, ``"QS, QC and JK"`` ("" for
    none)."""
    return " and ".join(filter(None, (", ".join(items[:-1]), *items[-1:])))


#: each pile kind of a layout (``docs/layout.md``) and of a photo's reading, in words
PILE_WORDS = {"meld": "meld", "squared_book": "squared book", "red_threes": "red threes",
              "left": "cards left in hand", "loose": "loose"}


def pile_word(kind: str, book: str | None = None, squared: int | None = None) -> str:
    """What every report and annotated picture calls a pile of ``kind`` (a key of :data:`PILE_WORDS`): the kind of
    book the rules engine made of it when ``book`` (``clean``, ``dirty``, ``wild``) is given, ``"clean book"``, or
    for a squared book of ``squared`` cards ``"clean book (squared, 7 cards)"``; else the kind's word (``"meld"``,
    ``"squared book"``...).

    Raises:
        KeyError: an unknown ``kind``.
    """
    if book is None:
        return PILE_WORDS[kind]
    return f"{book} book" + (f" (squared, {counted(squared, 'card')})" if squared is not None else "")


def json_refused(exc: Exception) -> str:
    """Why Python's JSON parser refused text that its grammar allows, in words: ``"a number of 5,001 digits (at most
    4,300)"`` for an integer longer than ``sys.get_int_max_str_digits()`` (a ValueError), ``"nested too deep"`` for
    a RecursionError; else the error's own message."""
    if isinstance(exc, RecursionError):
        return "nested too deep"
    digits = re.search(r"value has (\d+) digits", str(exc))
    if digits:
        return f"a number of {int(digits[1]):,} digits (at most {sys.get_int_max_str_digits():,})"
    return str(exc)


def json_kind(value: object) -> str:
    """What a parsed JSON value is, in JSON's words: ``"null"``, ``"true or false"``, ``"a number"``, ``"text"``,
    ``"a list"``, ``"an object"`` (else the Python type's name)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "text", list: "a list", tuple: "a list", dict: "an object"}.get(type(value), type(value).__name__)
