"""A side's going-out contract: the books it needs and the conditions of going out a table photo cannot show
(seed 000 'Going Out'; seed 002 §4; seed 004 'Going Out'). :func:`scorer.scoring.score_round` gives a side that
went out its bonus only when :func:`check_going_out` finds it eligible."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from .melds import BookKind
from .rules import Rules

__all__ = ["GoingOutCheck", "check_going_out"]


@dataclass(frozen=True)
class GoingOutCheck:
    """Whether a side may go out: ``eligible`` with the ``reasons`` it may not, and conditions the table
    cannot show (``unchecked``), e.g. whether every partner reached their foot."""

    eligible: bool
    reasons: tuple[str, ...]
    unchecked: tuple[str, ...]
    books: dict[str, int]


def check_going_out(books: Iterable[BookKind], rules: Rules, *, partner_in_foot: bool | None = None,
                    discarded_last: bool | None = None) -> GoingOutCheck:
    """Check a side's going-out contract (seed 000 'Going Out'; seed 002 §4; seed 004 'Going Out').

    Args:
        books: the kinds of the side's complete books.
        partner_in_foot: every partner has played from their foot (None: unknown).
        discarded_last: the last card was discarded (None: unknown).
    """
    counts = Counter(books)
    reasons = []
    for kind, need in ((BookKind.CLEAN, rules.go_out_clean_books), (BookKind.DIRTY, rules.go_out_dirty_books),
                       (BookKind.WILD, rules.go_out_wild_books)):
        if counts[kind] < need:
            reasons.append(f"needs {need} {kind.value} book{'s' * (need > 1)}, has {counts[kind]}")
    unchecked = []
    if rules.go_out_partner_in_foot:
        if partner_in_foot is False:
            reasons.append("a partner has not played from their foot")
        elif partner_in_foot is None:
            unchecked.append("every partner has played from their foot")
    if rules.go_out_with_discard:
        if discarded_last is False:
            reasons.append("the last card must be discarded")
        elif discarded_last is None:
            unchecked.append("the last card was discarded")
    if rules.go_out_ask_partner:
        unchecked.append("the partner was asked 'May I go out?'")
    return GoingOutCheck(eligible=not reasons, reasons=tuple(reasons), unchecked=tuple(unchecked),
                         books={k.value: counts[k] for k in BookKind})
