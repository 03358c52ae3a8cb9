"""Cards: small immutable values that parse and print their own codes.

A card code is a rank followed by a suit: ranks ``A 2 3 4 5 6 7 8 9 10 J Q K`` (``T`` is accepted for
10) and suits ``S H D C`` (the symbols ``♠ ♥ ♦ ♣`` are accepted too). A joker is ``JK``; ``RJ`` and ``BJ``
name a red or a black joker when the colour matters. Codes are case-insensitive on input and always print
in upper case (``Card.parse("th")`` prints as ``10H``).

Terms (seed 000, "Melds: Clean, Dirty and Wild"; seed 002 §3):

* **wild** — twos and jokers;
* **red three** / **black three** — threes are never melded; red threes are laid down for a bonus;
* **natural** — a card that can be melded under its own rank: 4 to 10, J, Q, K, A.

Point values are not a property of the card: they come from the rules (:meth:`scorer.rules.Rules.card_value`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable

from .errors import InvalidCardError
from .wording import json_kind


class Suit(enum.Enum):
    """The four French suits. The value is the one-letter code."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def symbol(self) -> str:
        return {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[self.value]


class Rank(enum.Enum):
    """Card ranks, jokers included. The value is the code used in card codes (``"10"``, ``"JK"``)."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    JOKER = "JK"

    @property
    def is_wild(self) -> bool:
        """Twos and jokers are wild (seed 000 "Rules at a Glance")."""
        return self in (Rank.TWO, Rank.JOKER)

    @property
    def is_natural(self) -> bool:
        """Ranks that can be melded as themselves: 4 to ace. Threes and wilds are not naturals here."""
        return not self.is_wild and self is not Rank.THREE

    @property
    def plural(self) -> str:
        """English plural used in messages: ``"queens"``, ``"8s"``."""
        names = {Rank.ACE: "aces", Rank.JACK: "jacks", Rank.QUEEN: "queens", Rank.KING: "kings",
                 Rank.JOKER: "jokers", Rank.TWO: "twos", Rank.THREE: "threes"}
        return names.get(self, f"{self.value}s")


#: Naturals in the order used for tables and arrays (4 … A).
NATURAL_RANKS: tuple[Rank, ...] = (
    Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN,
    Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE,
)

_RANK_CODES = {r.value: r for r in Rank if r is not Rank.JOKER}
_RANK_CODES["T"] = Rank.TEN
_SUIT_CODES = {s.value: s for s in Suit}
_SUIT_CODES.update({"♠": Suit.SPADES, "♥": Suit.HEARTS, "♦": Suit.DIAMONDS, "♣": Suit.CLUBS})
_JOKER_CODES = {"JK": None, "RJ": "red", "BJ": "black", "JOKER": None}


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card.

    Attributes:
        rank: the :class:`Rank` (``Rank.JOKER`` for jokers).
        suit: the :class:`Suit`, or ``None`` for a joker.
        joker_color: ``"red"``, ``"black"`` or ``None`` (unknown / not a joker).

    Two cards compare equal when their codes are equal; five decks hold five ``KH`` that are all equal, so
    count cards with lists or :class:`collections.Counter`, never sets.

    Raises:
        InvalidCardError: from :meth:`parse` for an unreadable code, and from the constructor for a
            suitless non-joker or a suited joker.
    """

    rank: Rank
    suit: Suit | None = None
    joker_color: str | None = None

    def __post_init__(self) -> None:
        if self.rank is Rank.JOKER:
            if self.suit is not None:
                raise InvalidCardError("a joker has no suit")
            if self.joker_color not in (None, "red", "black"):
                raise InvalidCardError(f"joker colour must be 'red' or 'black', not {self.joker_color!r}")
        else:
            if self.suit is None:
                raise InvalidCardError(f"a {self.rank.value} needs a suit")
            if self.joker_color is not None:
                raise InvalidCardError("only jokers have a joker colour")

    # -- parsing and printing -------------------------------------------------------------------------
    @classmethod
    def parse(cls, code: str) -> "Card":
        """Parse a card code such as ``"KH"``, ``"10s"``, ``"TS"``, ``"Q♦"``, ``"JK"``, ``"RJ"``.

        Raises:
            InvalidCardError: naming the code, when it is not a card.
        """
        if not isinstance(code, str):
            raise InvalidCardError(f"card code must be text ('QH'), not {json_kind(code)}")
        text = code.strip().upper()
        if text in _JOKER_CODES:
            return cls(Rank.JOKER, None, _JOKER_CODES[text])
        if len(text) >= 2 and text[-1] in _SUIT_CODES and text[:-1] in _RANK_CODES:
            return cls(_RANK_CODES[text[:-1]], _SUIT_CODES[text[-1]])
        raise InvalidCardError(
            f"unknown card code {code!r}: expected a rank (A, 2-10, J, Q, K; T for 10) and a suit "
            "(S, H, D, C), or JK / RJ / BJ for a joker")

    @property
    def code(self) -> str:
        """The canonical code: ``"KH"``, ``"10S"``, ``"JK"``, ``"RJ"``, ``"BJ"``."""
        if self.rank is Rank.JOKER:
            return {"red": "RJ", "black": "BJ"}.get(self.joker_color or "", "JK")
        return self.rank.value + self.suit.value  # type: ignore[union-attr]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    # -- kinds ---------------------------------------------------------------------------------------
    @property
    def is_joker(self) -> bool:
        return self.rank is Rank.JOKER

    @property
    def is_wild(self) -> bool:
        """Twos and jokers."""
        return self.rank.is_wild

    @property
    def is_natural(self) -> bool:
        """4 to ace: meldable under its own rank."""
        return self.rank.is_natural

    @property
    def is_three(self) -> bool:
        return self.rank is Rank.THREE

    @property
    def is_red(self) -> bool:
        """Red suits, or a joker known to be red."""
        if self.rank is Rank.JOKER:
            return self.joker_color == "red"
        return self.suit.is_red  # type: ignore[union-attr]

    @property
    def is_black(self) -> bool:
        """Black suits, or a joker known to be black."""
        if self.rank is Rank.JOKER:
            return self.joker_color == "black"
        return not self.suit.is_red  # type: ignore[union-attr]

    @property
    def is_red_three(self) -> bool:
        return self.is_three and self.is_red

    @property
    def is_black_three(self) -> bool:
        return self.is_three and self.is_black


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse several cards from ``"QH QS QD JK"`` (spaces or commas) or from a list of codes.

    Raises:
        InvalidCardError: for the first code that is not a card.
    """
    if isinstance(text, str):
        codes = text.replace(",", " ").split()
    else:
        codes = list(text)
    return [Card.parse(c) for c in codes]


def format_cards(cards: Iterable[Card]) -> str:
    """Print cards as space-separated codes: ``"QH QS QD JK"``."""
    return " ".join(c.code for c in cards)


def full_deck(decks: int = 1, jokers_per_deck: int = 2) -> list[Card]:
    """All cards of ``decks`` standard decks: 52 each plus ``jokers_per_deck`` jokers (half red, half black).

    Returns a list of ``decks * (52 + jokers_per_deck)`` cards in a fixed order.
    """
    one: list[Card] = [Card(rank, suit) for suit in Suit for rank in Rank if rank is not Rank.JOKER]
    colors = ["red", "black"]
    one += [Card(Rank.JOKER, None, colors[i % 2]) for i in range(jokers_per_deck)]
    return one * decks
