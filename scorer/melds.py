"""Melds and books: is a pile of cards legal under the rules, and what kind of book is it?

A **meld** is 3 (``min_meld_size``) or more cards of one natural rank, wilds allowed within the preset's
wild limit, or (where ``wild_books``) a meld of wilds only. A meld that reaches ``book_size`` (7) cards is
a complete **book**: **clean** without wilds, **dirty** with some, **wild** when every card is wild
(seed 000 "Melds: Clean, Dirty and Wild"; seed 002 §2; seed 004 "Clean or Dirty Piles or Books").

:func:`check_meld` never raises for an illegal meld: it returns a :class:`MeldCheck` whose ``reasons``
say what is wrong, so callers can show every problem. :func:`validate_meld` raises instead.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from typing import Sequence

from .cards import Card, Rank, format_cards
from .errors import IllegalMeldError
from .rules import BookGrowth, Rules


class BookKind(str, Enum):
    """The kind of a complete book, which sets its bonus (seed 000 'How to Score')."""

    CLEAN = "clean"  #: no wild cards: ``clean_book_bonus`` (500)
    DIRTY = "dirty"  #: naturals and at least one wild: ``dirty_book_bonus`` (300)
    WILD = "wild"  #: wilds only: ``wild_book_bonus`` (1,500)

    def bonus(self, rules: Rules) -> int:
        """This kind's bonus under ``rules``, in points."""
        return {BookKind.CLEAN: rules.clean_book_bonus, BookKind.DIRTY: rules.dirty_book_bonus,
                BookKind.WILD: rules.wild_book_bonus}[self]


@dataclass(frozen=True)
class MeldCheck:
    """The verdict on one meld.

    Attributes:
        cards: the cards as given.
        legal: True when no rule is broken.
        reasons: one sentence per broken rule (empty when legal).
        rank: the meld's natural rank, or None for a wild meld or a meld with no single rank.
        naturals: count of natural cards; wilds: count of twos and jokers.
        points: sum of card values, in points (threes counted at their card value, red threes at 0).
        kind: the book kind when the meld is complete (``len >= book_size``), else None.
    """

    cards: tuple[Card, ...]
    legal: bool
    reasons: tuple[str, ...]
    rank: Rank | None
    naturals: int
    wilds: int
    points: int
    kind: BookKind | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def is_book(self) -> bool:
        return self.kind is not None

    @property
    def is_wild_meld(self) -> bool:
        return self.naturals == 0 and self.wilds > 0

    def describe(self) -> str:
        """One line: ``"legal meld of queens: 3 naturals + 1 wild, 80 points"``."""
        what = (f"{self.kind.value} book" if self.kind else "meld")
        of = " of wilds" if self.is_wild_meld else (f" of {self.rank.plural}" if self.rank else "")
        head = f"{'legal' if self.legal else 'illegal'} {what}{of}"
        body = f"{self.naturals} natural{'s' * (self.naturals != 1)} + {self.wilds} wild{'s' * (self.wilds != 1)}"
        # no natural and no wild (threes only): counts and points would describe a meld that cannot exist
        text = f"{head}: {body}, {self.points} points" if self.naturals + self.wilds else head
        if self.reasons:
            text += " — " + "; ".join(self.reasons)
        return text


def _points(cards: Sequence[Card], rules: Rules) -> int:
    return sum(0 if c.is_red_three else rules.card_value(c) for c in cards)


def wild_limit(rules: Rules, naturals: int, size: int) -> int:
    """Most wilds a meld of ``size`` cards with ``naturals`` naturals of one rank may hold (-1: none at all).

    Under ``BookGrowth.NATURALS`` (seed 001) only naturals are added to a closed canasta, so all its wilds sat
    in the first ``book_size`` cards; elsewhere the wild limit applies to the whole meld.
    """
    if rules.book_growth is BookGrowth.NATURALS and size > rules.book_size:
        w = size - naturals
        return rules.max_wild_in(rules.book_size - w, rules.book_size) if w < rules.book_size else -1
    return rules.max_wild_in(naturals, None)


def meld_shape_ok(rules: Rules, naturals: int, wilds: int) -> bool:
    """True when ``naturals`` cards of one natural rank plus ``wilds`` wilds make a legal meld or book.

    ``naturals == 0`` asks about a meld of wilds only. Mirrors :func:`check_meld` on counts alone, for search.
    """
    size = naturals + wilds
    if size < rules.min_meld_size:
        return False
    if naturals == 0:
        return rules.wild_books and (size <= rules.book_size or rules.book_growth is BookGrowth.ANY)
    if rules.book_growth is BookGrowth.CLOSED and size > rules.book_size:
        return False
    return naturals >= rules.min_naturals and wilds <= wild_limit(rules, naturals, size)


def check_meld(cards: Sequence[Card], rules: Rules) -> MeldCheck:
    """Check one meld (or book) against ``rules``.

    Args:
        cards: the meld's cards, any order; a list of ``book_size`` or more is checked as a book.
        rules: the rule set (wild limit, sizes, ``wild_books``, ``book_growth``).

    Returns:
        A :class:`MeldCheck`; ``reasons`` is empty exactly when ``legal``.
    """
    cards = tuple(cards)
    reasons: list[str] = []
    wilds = [c for c in cards if c.is_wild]
    threes = [c for c in cards if c.is_three]
    naturals = [c for c in cards if c.is_natural]
    ranks = Counter(c.rank for c in naturals)
    n, w, size = len(naturals), len(wilds), len(cards)

    if size < rules.min_meld_size:
        reasons.append(f"a meld needs at least {rules.min_meld_size} cards, this has {size}")
    if threes:
        reasons.append(f"threes cannot be melded ({format_cards(threes)})")
    if len(ranks) > 1:
        names = " and ".join(r.plural for r in ranks)
        reasons.append(f"a meld holds one rank, this mixes {names}")
    rank = next(iter(ranks)) if len(ranks) == 1 else None

    if n == 0 and w and not threes:
        # A wild meld: seed 000 'Wild pile', seed 002 §2 house rule, seed 001 'joker canasta'.
        if not rules.wild_books:
            reasons.append(f"melds of wild cards only are not allowed under '{rules.name}'")
        elif size > rules.book_size and rules.book_growth is not BookGrowth.ANY:
            reasons.append(f"a wild book is exactly {rules.book_size} cards, this has {size}")
    elif n:
        if rules.book_growth is BookGrowth.CLOSED and size > rules.book_size:
            reasons.append(f"a book is exactly {rules.book_size} cards, this has {size}")
        if n < rules.min_naturals:
            reasons.append(f"a meld needs at least {rules.min_naturals} natural cards, this has {n}")
        elif w > wild_limit(rules, n, size):
            reasons.append(f"too many wilds: {n} natural{'s' * (n != 1)} and {w} wilds; "
                           f"'{rules.name}' needs {rules.wild_limit_text()}")

    kind = None
    if size >= rules.book_size and not threes and len(ranks) <= 1:
        kind = BookKind.WILD if n == 0 else (BookKind.CLEAN if w == 0 else BookKind.DIRTY)
    return MeldCheck(cards=cards, legal=not reasons, reasons=tuple(reasons), rank=rank, naturals=n, wilds=w,
                     points=_points(cards, rules), kind=kind)


def validate_meld(cards: Sequence[Card], rules: Rules) -> MeldCheck:
    """Like :func:`check_meld` but raises for an illegal meld.

    Raises:
        IllegalMeldError: with every reason, in one line.
    """
    check = check_meld(cards, rules)
    if not check.legal:
        raise IllegalMeldError(f"illegal meld {format_cards(cards)}: " + "; ".join(check.reasons))
    return check


def classify_book(cards: Sequence[Card], rules: Rules) -> BookKind:
    """The kind of a complete book (clean, dirty or wild).

    Raises:
        IllegalMeldError: when the cards are not a legal complete book under ``rules``.
    """
    check = validate_meld(cards, rules)
    if check.kind is None:
        raise IllegalMeldError(f"{format_cards(cards)} is not a complete book: a book has "
                               f"{rules.book_size} cards, this has {len(check.cards)}")
    return check.kind


def marker_kind(top: Card) -> BookKind | None:
    """The book kind a squared book's marker card shows (seed 000 'Melds'; seed 002 §2; seed 004).

    Red natural on top = clean, black natural = dirty, joker or two = wild. Returns None for a card that
    cannot be a marker (a three) or a joker of unknown colour... which is still wild: jokers are always wild.
    """
    if top.is_wild:
        return BookKind.WILD
    if top.is_three:
        return None
    return BookKind.CLEAN if top.is_red else BookKind.DIRTY


def book_value_range(kind: BookKind, rank: Rank | None, rules: Rules,
                     size: int | None = None) -> tuple[int, int]:
    """The fewest and most card points a squared book of ``kind`` can hold, in points.

    A squared book shows only its top card: a clean book's cards are all of its rank, so its value is exact;
    a dirty or wild book may hold twos (``two_value``) or jokers (``joker_value``) in any legal mix.
    Seed 000: a wild pile's cards are worth 140 (seven twos) to 350 (seven jokers).

    Args:
        kind: the book's kind.
        rank: the book's natural rank (ignored for wild books).
        size: cards in the book, ``book_size`` when None.

    Raises:
        IllegalMeldError: when no legal book of that kind and size exists (e.g. a dirty book of threes).
    """
    size = size or rules.book_size
    lo_wild, hi_wild = sorted((rules.two_value, rules.joker_value))
    if kind is BookKind.WILD:
        return size * lo_wild, size * hi_wild
    if rank is None or not rank.is_natural:
        raise IllegalMeldError(f"a {kind.value} book needs a natural rank, not {rank.value if rank else 'none'}")
    v = rules.rank_value(rank)
    if kind is BookKind.CLEAN:
        return size * v, size * v
    options = [((size - w) * v + w * lo_wild, (size - w) * v + w * hi_wild)
               for w in range(1, size) if meld_shape_ok(rules, size - w, w)]
    if not options:
        raise IllegalMeldError(f"no legal dirty book of {size} {rank.plural} exists under '{rules.name}'")
    return min(o[0] for o in options), max(o[1] for o in options)
