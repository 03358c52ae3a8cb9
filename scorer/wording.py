"""Counts in messages: ``counted(1, "card")`` is "1 card", ``counted(3, "card")`` "3 cards"."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun plural unless ``n`` is 1 (``plural``, default ``noun + "s"``); ``n`` with
    thousands separators (``"1,001 cards"``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
