"""The rules object: every number and switch that differs between Hand and Foot tables.

There is no official Hand and Foot; each family plays its own version. :class:`Rules` holds one version as
a frozen, validated Pydantic model: unknown keys are refused (:class:`~scorer.errors.RulesError`) and
inconsistent values are refused (more cards dealt than the decks hold, a going-out contract that needs wild
books when wild books are not allowed, ...). Named versions live in :mod:`scorer.presets`.

Each field's description names its source: ``seed 000`` is the pagat-style guide with the variations
table, ``seed 001`` the six-deck canasta rules, ``seed 002`` the score-sheet guide with worked examples, and
``seed 004`` the carousel game's rules (all in ``../shared/seeds/``). "Chosen" marks a value a seed leaves
open and we decided.
"""

from __future__ import annotations

import difflib
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator
from pydantic.fields import FieldInfo

from .cards import Card, Rank, Suit
from .errors import RulesError
from .numbers import Whole, WholeOrNone, whole


class BookGrowth(str, Enum):
    """What may be added to a pile once it is a complete book.

    * ``closed`` — nothing: a book is exactly ``book_size`` cards (seed 000, 002, 004).
    * ``naturals`` — natural cards of the book's rank, no wilds; the bonus does not change (seed 001).
    * ``any`` — naturals and wilds within the wild limit: canastas grow past seven (seed 000, Saskatchewan).
    """

    CLOSED = "closed"
    NATURALS = "naturals"
    ANY = "any"


#: the ranges of rule fields (each field's schema states its own): points of a card, a red three or an opening
#: minimum; points of a bonus; cards of a meld or book; rounds of a game
POINTS = 10_000
BONUS = 100_000
BOOK = 14
ROUNDS = 20


def _f(default: Any, description: str, **kw: Any) -> Any:
    return Field(default, description=description, **kw)


class Rules(BaseModel):
    """One complete rule system. Frozen; build variants with :meth:`with_overrides`.

    Units: every value field is in points; sizes are card counts.

    Raises:
        RulesError: from :meth:`from_dict` / :meth:`with_overrides` for unknown keys or inconsistent values.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    # -- identity ---------------------------------------------------------------------------------------
    name: str = _f("custom", "Preset name, e.g. 'pagat'.")
    title: str = _f("Custom rules", "One-line human title.")
    source: str = _f("", "Which seed (and section) the preset encodes.")

    # -- players, cards, deal ------------------------------------------------------------------------------
    players: Whole = _f(4, "Number of players (seed 000 'Other numbers': 2 to 6).", ge=2, le=8)
    team_size: Whole = _f(2, "Players per side: 2 for partnerships, 1 when everyone plays alone "
                           "(seed 000 'Other numbers'; seed 001 allows 2 teams of 3).", ge=1, le=4)
    decks: Whole = _f(5, "Standard 52-card decks shuffled together (seed 000: one more than the players).",
                    ge=1, le=12)
    decks_follow_players: bool = _f(True, "When the player count is overridden, use one more deck than players "
                                          "(seed 000 'Other numbers'). False for fixed-deck rules (seed 001).")
    jokers_per_deck: Whole = _f(2, "Jokers per deck (all seeds use two).", ge=0, le=4)
    hand_size: Whole = _f(13, "Cards dealt to each hand (seed 000: 13).", ge=1, le=30)
    foot_size: Whole = _f(13, "Cards dealt to each foot (seed 000: 13).", ge=1, le=30)
    draw_count: Whole = _f(2, "Cards drawn from the stock each turn (seed 000: 2; seed 004: 3).", ge=1, le=5)
    pickup_size: WholeOrNone = _f(7, "Cards taken when picking up the discard pile; None takes the whole pile "
                                    "(seed 000: top seven; Saskatchewan: whole pile).", ge=1, le=200)
    pickup_naturals_needed: Whole = _f(2, "Matching naturals from the player's own hand needed to take the pile "
                                        "(seed 000 'Picking up the pile').", ge=1, le=10)
    pickup_top_card_option: bool = _f(False, "The top discard alone may be taken instead of drawing "
                                             "(seed 004 'Picking Up and Discarding').")
    pickup_wild_with_wilds: bool = _f(True, "A discarded wild may be taken with two wilds from the hand "
                                            "(seed 000 'Black threes block'). False where wilds never count "
                                            "towards the pair (seed 004).")
    live_up_card: bool = _f(False, "A wild or red three turned up as the first discard stays and goes to whoever "
                                   "first takes the pile, instead of being buried (seed 000 'Live up-card').")
    red_three_from_foot_replaced: bool = _f(True, "Red threes laid from the foot are replaced from the stock "
                                                  "(seed 000: yes; seed 001: not replaced).")

    # -- card values (seed 000 'Card Values', seed 002 §1, seed 004 'Point's for Each Card') ---------------
    joker_value: Whole = _f(50, "Joker.", ge=-POINTS, le=POINTS)
    two_value: Whole = _f(20, "Two (wild).", ge=-POINTS, le=POINTS)
    ace_value: Whole = _f(20, "Ace.", ge=-POINTS, le=POINTS)
    high_value: Whole = _f(10, "King, queen, jack, 10, 9, 8.", ge=-POINTS, le=POINTS)
    low_value: Whole = _f(5, "7, 6, 5, 4.", ge=-POINTS, le=POINTS)
    black_three_value: Whole = _f(5, "Black three (only ever counted in a hand or foot: threes are never melded).",
                                ge=-POINTS, le=POINTS)
    red_three_on_table: Whole = _f(100, "Each red three laid on the table (seed 000: +100; Simpson: -500).",
                                 ge=-POINTS, le=POINTS)
    red_three_in_hand: Whole = _f(-100, "Each red three still in a hand or foot, an unplayed foot included "
                                      "(seed 000: -100; Simpson: -500). Signed: negative is a penalty.",
                                 ge=-POINTS, le=POINTS)

    # -- melds and books -----------------------------------------------------------------------------------
    min_meld_size: Whole = _f(3, "Fewest cards in a meld (seed 000: 3).", ge=2, le=BOOK)
    book_size: Whole = _f(7, "Cards in a complete book / pile / canasta (all seeds: 7).", ge=3, le=BOOK)
    book_growth: BookGrowth = _f(BookGrowth.CLOSED, "What may be added to a complete book: closed, naturals or any (BookGrowth).")
    min_naturals: Whole = _f(2, "Fewest natural cards in any meld that is not a wild meld (seed 000's ratio implies "
                              "2; Saskatchewan's canastas: 2, chosen from Canasta).", ge=1, le=BOOK)
    naturals_per_wild: Whole = _f(2, "Naturals a meld needs for each wild in it (seed 000: 2, naturals >= 2 x wilds; "
                                   "0 disables the ratio).", ge=0, le=BOOK)
    natural_surplus: Whole = _f(0, "How many more naturals than wilds a meld needs (seed 002 'more naturals than wilds' and "
                                 "seed 004 'one more normal card than wild cards': 1).", ge=0, le=BOOK)
    max_wilds: WholeOrNone = _f(None, "Most wilds in one meld or canasta, or None (Saskatchewan: 3).", ge=0, le=BOOK)
    wild_books: bool = _f(True, "All-wild melds and wild books are allowed (seed 000 'Wild pile'; seed 002 marks "
                                "them a house rule; seed 001 'joker canasta').")
    one_open_meld_per_rank: bool = _f(True, "A side may have only one unfinished meld of each rank (seed 000; "
                                            "seed 001). Chosen for the other presets too.")
    book_markers: bool = _f(True, "Squared books carry a marker card on top: red natural = clean, black natural = "
                                  "dirty, joker or two = wild (seed 000 'Melds'; seed 002 §2; seed 004).")

    # -- bonuses -------------------------------------------------------------------------------------------
    clean_book_bonus: Whole = _f(500, "Each complete clean book (seed 000: 500; Simpson: 300).", ge=-BONUS, le=BONUS)
    dirty_book_bonus: Whole = _f(300, "Each complete dirty book (seed 000: 300; Simpson: 100).", ge=-BONUS, le=BONUS)
    wild_book_bonus: Whole = _f(1500, "Each complete wild book (seed 000: 1,500).", ge=-BONUS, le=BONUS)
    go_out_bonus: Whole = _f(100, "The side that goes out (all seeds: 100).", ge=-BONUS, le=BONUS)
    exact_deal_bonus: Whole = _f(0, "Bonus for each exact cut or grab at the deal (seed 001: dealer cuts exactly "
                                  "53/79 or 52/78 cards; seed 004: a player picks up exactly 22 or 26; Simpson: "
                                  "exactly 22). 0 where the rules have none.", ge=-BONUS, le=BONUS)
    max_exact_deals_per_team: Whole = _f(0, "How many exact-deal bonuses one side can earn in a round "
                                          "(seed 001: hand and foot cuts = 2; seed 004: one per player).", ge=0, le=12)

    # -- going out -----------------------------------------------------------------------------------------
    go_out_clean_books: Whole = _f(2, "Clean books a side needs to go out (seed 000: 2).", ge=0, le=20)
    go_out_dirty_books: Whole = _f(2, "Dirty books a side needs to go out (seed 000: 2).", ge=0, le=20)
    go_out_wild_books: Whole = _f(1, "Wild books a side needs to go out (seed 000: 1).", ge=0, le=20)
    go_out_partner_in_foot: bool = _f(True, "Every partner must have reached their foot (seed 000).")
    go_out_ask_partner: bool = _f(True, "The player must ask 'May I go out?' and follow the answer (seed 000).")
    go_out_with_discard: bool = _f(False, "The last card must be discarded, not melded (seed 004; Bicycle per "
                                          "seed 002 §4).")

    # -- opening meld ----------------------------------------------------------------------------------------
    opening_minimums: tuple[whole(ge=0, le=POINTS), ...] = _f(
        (50, 90, 120, 150), "Opening-meld minimum per round; its length is the number of rounds (seed 000: "
        "50/90/120/150; seed 004: 60 first).", max_length=ROUNDS)
    opening_needs_clean_or_wild: bool = _f(False, "The opening must start at least one clean or one wild meld, "
                                                  "not only dirty ones (seed 001).")
    opening_book_rounds: tuple[Whole, ...] = _f((), "Rounds whose opening must include a complete book built from "
                                              "the hand (Saskatchewan: round 4).", max_length=ROUNDS)

    # ----------------------------------------------------------------------------------------------------------
    @model_validator(mode="after")
    def _consistent(self) -> "Rules":
        problems: list[str] = []
        if self.players % self.team_size:
            problems.append(f"players ({self.players}) is not a multiple of team_size ({self.team_size})")
        elif self.players // self.team_size < 2:
            problems.append(f"{self.players} players in teams of {self.team_size} make fewer than two sides")
        dealt = self.players * (self.hand_size + self.foot_size) + 1
        if dealt > self.deck_cards:
            problems.append(f"dealing {self.players} x ({self.hand_size} + {self.foot_size}) cards and an up-card "
                            f"needs {dealt} cards but {self.decks} decks hold {self.deck_cards}")
        if self.min_meld_size > self.book_size:
            problems.append("min_meld_size is larger than book_size")
        if self.min_naturals > self.book_size:
            problems.append("min_naturals is larger than book_size")
        if self.go_out_wild_books and not self.wild_books:
            problems.append("going out needs wild books but wild_books is false")
        if (self.exact_deal_bonus == 0) != (self.max_exact_deals_per_team == 0):
            problems.append("exact_deal_bonus and max_exact_deals_per_team must both be zero or both non-zero")
        if not self.opening_minimums:
            problems.append("opening_minimums needs at least one round")
        if any(m < 0 for m in self.opening_minimums):
            problems.append("opening minimums cannot be negative")
        bad_rounds = [r for r in self.opening_book_rounds if not 1 <= r <= len(self.opening_minimums)]
        if bad_rounds:
            problems.append(f"opening_book_rounds names rounds {bad_rounds} outside 1..{len(self.opening_minimums)}")
        if not any(self.max_wild_in(self.book_size - w, self.book_size) >= w for w in range(1, self.book_size)):
            problems.append("the wild limit leaves no room for a dirty book")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # -- construction -------------------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Rules":
        """Build rules from a plain dict (e.g. parsed JSON).

        Raises:
            RulesError: one line naming the unknown key or the inconsistent values.
        """
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise RulesError(_one_line(exc)) from None

    def going_out_text(self) -> str:
        """The books a side needs to go out, in words, from ``go_out_*_books`` (seed 000 'Going Out'): "two
        clean, two dirty and one wild book to go out", or "no book needed to go out"."""
        words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
        counts = [(kind, n) for kind, n in (("clean", self.go_out_clean_books), ("dirty", self.go_out_dirty_books),
                                            ("wild", self.go_out_wild_books)) if n]
        if not counts:
            return "no book needed to go out"
        need = [f"{words.get(n, str(n))} {kind}" for kind, n in counts]
        said = need[0] if len(need) == 1 else f"{', '.join(need[:-1])} and {need[-1]}"
        return f"{said} book{'' if counts[-1][1] == 1 else 's'} to go out"

    def with_overrides(self, **changes: Any) -> "Rules":
        """A copy with some fields changed (house rules), validated again.

        Changing ``players`` alone also changes ``decks`` to players + 1 when ``decks_follow_players``.

        Raises:
            RulesError: for an unknown field or values that do not fit together.
        """
        if not changes:
            return self
        unknown = sorted(set(changes) - set(type(self).model_fields))
        if unknown:
            raise RulesError(f"unknown rule field(s): {', '.join(u + _guess(u) for u in unknown)} "
                             f"(see 'handfoot rules {self.name}')")
        data = self.model_dump()
        if "players" in changes and "decks" not in changes and self.decks_follow_players:
            data["decks"] = int(changes["players"]) + 1
        data.update(changes)
        return Rules.from_dict(data)

    # -- derived values -----------------------------------------------------------------------------------------
    @property
    def deck_cards(self) -> int:
        """Cards in play: ``decks * (52 + jokers_per_deck)`` (270 for five decks with jokers)."""
        return self.decks * (52 + self.jokers_per_deck)

    @property
    def rounds(self) -> int:
        """Rounds in a game: one per opening minimum (4 in every seed)."""
        return len(self.opening_minimums)

    @property
    def teams(self) -> int:
        """Number of sides at the table."""
        return self.players // self.team_size

    def exact_deal_cards(self, packet: str = "hand") -> int:
        """Cards a dealer must cut (or a player grab) exactly to earn ``exact_deal_bonus``.

        Seed 001 'Deal': the hand dealer cuts every hand plus the up-card (53 for 4 players, 79 for 6), the foot
        dealer every foot (52 / 78). ``packet="both"`` is one player's hand and foot together, seed 004's grab
        (26 for 13 + 13; the 22-card grab is the 11 + 11 deal).
        """
        if packet == "hand":
            return self.players * self.hand_size + 1
        if packet == "foot":
            return self.players * self.foot_size
        if packet == "both":
            return self.hand_size + self.foot_size
        raise RulesError(f"packet must be 'hand', 'foot' or 'both', not {packet!r}")

    def opening_minimum(self, round_number: int) -> int:
        """The opening-meld minimum for ``round_number`` (1-based), in points.

        Raises:
            RulesError: when the round is outside ``1..rounds``.
        """
        if not 1 <= round_number <= self.rounds:
            raise RulesError(f"round {round_number} is outside 1..{self.rounds} for rules '{self.name}'")
        return self.opening_minimums[round_number - 1]

    def card_value(self, card: Card) -> int:
        """The card's point value in points (seed 000 'Card Values').

        Used for melds, for cards left in hands and feet (as a penalty) and for opening minimums.

        Raises:
            ValueError: for a red three, which has no card value: it scores ``red_three_on_table`` or
                ``red_three_in_hand`` instead.
        """
        r = card.rank
        if r is Rank.JOKER:
            return self.joker_value
        if r is Rank.TWO:
            return self.two_value
        if r is Rank.ACE:
            return self.ace_value
        if r is Rank.THREE:
            if card.is_red:
                raise ValueError("a red three has no card value; it scores as a red three")
            return self.black_three_value
        if r in (Rank.FOUR, Rank.FIVE, Rank.SIX, Rank.SEVEN):
            return self.low_value
        return self.high_value

    def rank_value(self, rank: Rank) -> int:
        """Point value of a natural rank (4..A) or a wild rank; see :meth:`card_value`."""
        return self.card_value(Card(rank) if rank is Rank.JOKER else Card(rank, Suit.SPADES))

    def max_wild_in(self, naturals: int, size_limit: int | None = None) -> int:
        """Most wilds a meld with ``naturals`` natural cards may hold under this wild limit.

        ``size_limit`` caps the meld's total size (pass ``book_size`` when books are closed). Returns -1 when
        ``naturals`` is below ``min_naturals`` (no meld at all, wilds or not).
        """
        if naturals < self.min_naturals:
            return -1
        caps = []
        if self.naturals_per_wild:
            caps.append(naturals // self.naturals_per_wild)
        if self.natural_surplus or not self.naturals_per_wild:
            caps.append(max(naturals - self.natural_surplus, 0) if self.natural_surplus else 10 ** 6)
        if self.max_wilds is not None:
            caps.append(self.max_wilds)
        if size_limit is not None:
            caps.append(max(size_limit - naturals, 0))
        return min(caps)

    def wild_limit_text(self) -> str:
        """The wild limit in words, for messages."""
        parts = []
        if self.naturals_per_wild == 1 and self.natural_surplus == 0:
            parts.append("at least as many naturals as wilds")
        elif self.naturals_per_wild > 1 or (self.naturals_per_wild == 1 and not self.natural_surplus):
            parts.append(f"at least {self.naturals_per_wild} naturals per wild")
        if self.natural_surplus:
            parts.append("more naturals than wilds" if self.natural_surplus == 1
                         else f"at least {self.natural_surplus} more naturals than wilds")
        if self.max_wilds is not None:
            parts.append(f"at most {self.max_wilds} wilds")
        parts.append(f"at least {self.min_naturals} naturals")
        return ", ".join(parts)


def _guess(name: str) -> str:
    """`` (did you mean FIELD?)`` naming the rule field ``name`` is probably a misspelling or a shortening of
    (``clean_book``: ``clean_book_bonus``); empty when none is close."""
    fields = list(Rules.model_fields)
    guess = difflib.get_close_matches(name, fields, n=1, cutoff=0.6) or [f for f in fields if name and name in f][:1]
    return f" (did you mean {guess[0]}?)" if guess else ""


#: pydantic's error types said as a rule's value is described to a person (``ctx`` fills the bounds)
_WORDS = {"int_parsing": "a whole number", "int_type": "a whole number", "int_from_float": "a whole number",
          "bool_parsing": "true or false", "bool_type": "true or false", "tuple_type": "a list of whole numbers "
          "(e.g. 50,90)", "list_type": "a list of whole numbers (e.g. 50,90)", "greater_than_equal": "at least {ge}",
          "less_than_equal": "at most {le}", "enum": "one of {expected}"}


def _one_line(exc: ValidationError) -> str:
    msgs = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown rule field" + _guess(str(err["loc"][-1]))
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        elif err["type"] in _WORDS:
            msg = _WORDS[err["type"]].format(**err.get("ctx", {})) + f", not {err.get('input')!r}"
        msgs.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(msgs)


#: every field of :class:`Rules` with its type, range and default, and no check across fields: what a house rule's
#: value may be before the preset it changes is known
_RuleFields = create_model("RuleFields", __config__=ConfigDict(extra="forbid"),
                           **{name: (info.annotation, FieldInfo.merge_field_infos(info))
                              for name, info in Rules.model_fields.items()})


def rule_values_problem(values: dict[str, Any]) -> str | None:
    """What is wrong with the rule fields ``values`` (field -> value: house rules) each on its own, in the words of
    :meth:`Rules.from_dict` (``"opening_minimums: a list of whole numbers (e.g. 50,90), not 5"``): an unknown field,
    or a value of the wrong type or out of its field's range; None when each is a value its field takes (whether
    they fit the preset they change is :meth:`Rules.with_overrides`' to say)."""
    try:
        _RuleFields.model_validate(values)
    except ValidationError as exc:
        return _one_line(exc)
    return None


RuleName = Literal["pagat", "bicycle", "saskatchewan", "simpson", "six-deck", "score-sheet", "carousel"]
