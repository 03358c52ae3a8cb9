"""Round scoring: a table layout in, a per-team breakdown out (never only a number).

Order and items follow seed 002 §6 and seed 000 "How to Score Hand and Foot": book bonuses by kind, going
out, red threes on the table and caught in hands and feet, exact-deal bonuses (seed 001, seed 004, Simpson),
card values of everything melded (books included), minus card values left in hands and feet.

A squared book whose composition is unknown makes its side's total a range (``total_min`` .. ``total_max``)
and the breakdown says which book needs its wilds counted. Problems the rules see are collected as
:class:`Problem` records; :func:`score_round` raises :class:`IllegalLayoutError` for illegal ones unless
``lenient=True``, which still scores and reports them (the camera pipeline shows them to the user).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from .cards import Card, Rank, format_cards
from .errors import IllegalLayoutError
from .going_out import GoingOutCheck, check_going_out
from .layout import SquaredBook, TableLayout, TeamLayout
from .melds import BookKind, book_value_range, check_meld, marker_kind
from .rules import BookGrowth, Rules
from .wording import counted

Severity = Literal["illegal", "uncertain", "warning"]


@dataclass(frozen=True)
class Problem:
    """Something the rules engine saw. ``severity``: ``illegal`` (cannot happen under the rules),
    ``uncertain`` (the score depends on something not visible) or ``warning`` (legal but suspicious, e.g. a
    marker card that disagrees with the book's cards). ``where`` is a layout path like ``teams.A.melds[2]``;
    ``cards``: the card codes a problem of the whole layout is about, wherever they lie (``("4S",)`` for more
    4♠ than the decks hold), else empty."""

    severity: Severity
    where: str
    message: str
    cards: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass(frozen=True)
class ScoreLine:
    """One line of a breakdown: ``count`` items worth ``points_min``..``points_max`` points together."""

    key: str
    label: str
    count: int
    points_min: int
    points_max: int
    detail: str = ""

    @property
    def exact(self) -> bool:
        return self.points_min == self.points_max

    def points_text(self) -> str:
        return f"{self.points_min:+,}" if self.exact else f"{self.points_min:+,} to {self.points_max:+,}"


@dataclass(frozen=True)
class BookReport:
    """A complete book on the table: where it is, its kind, rank, its cards' points (a range when squared) and
    its kind's bonus under the rules it was scored by (counted in the breakdown's book lines, not in
    ``points_min``/``points_max``)."""

    where: str
    kind: BookKind
    rank: Rank | None
    squared: bool
    points_min: int
    points_max: int
    bonus: int


@dataclass(frozen=True)
class TeamScore:
    """One side's round score.

    Attributes:
        team: the side's name.
        lines: the breakdown; ``total_min == sum(points_min)`` and ``total_max == sum(points_max)``.
        books: every complete book with its kind.
        needs_counting: books whose wilds must be counted to make the total exact.
    """

    team: str
    lines: tuple[ScoreLine, ...]
    books: tuple[BookReport, ...]
    needs_counting: tuple[str, ...] = ()

    @property
    def total_min(self) -> int:
        return sum(line.points_min for line in self.lines)

    @property
    def total_max(self) -> int:
        return sum(line.points_max for line in self.lines)

    @property
    def exact(self) -> bool:
        return self.total_min == self.total_max

    @property
    def total(self) -> int | None:
        """The total in points, or None while a squared book's wilds are uncounted (see ``total_min/max``)."""
        return self.total_min if self.exact else None

    def line(self, key: str) -> ScoreLine:
        return next(line for line in self.lines if line.key == key)

    def book_counts(self) -> Counter:
        return Counter(b.kind for b in self.books)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total, "total_min": self.total_min, "total_max": self.total_max, "exact": self.exact,
            "breakdown": [{"item": ln.key, "label": ln.label, "count": ln.count, "points": ln.points_min
                           if ln.exact else None, "points_min": ln.points_min, "points_max": ln.points_max,
                           "detail": ln.detail} for ln in self.lines],
            "books": [{"where": b.where, "kind": b.kind.value, "rank": b.rank.value if b.rank else None,
                       "squared": b.squared, "points_min": b.points_min, "points_max": b.points_max,
                       "bonus": b.bonus}
                      for b in self.books],
            "needs_counting": list(self.needs_counting),
        }


@dataclass(frozen=True)
class RoundScore:
    """A scored round: per-team scores plus every problem found."""

    rules: str
    round: int
    went_out: str | None
    teams: dict[str, TeamScore]
    problems: tuple[Problem, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules, "round": self.round, "went_out": self.went_out,
            "teams": {name: ts.to_dict() for name, ts in self.teams.items()},
            "problems": [{"severity": p.severity, "where": p.where, "message": p.message, "cards": list(p.cards)}
                         for p in self.problems],
        }

    def format_text(self) -> str:
        """A readable breakdown, one block per team, for the command line."""
        out = [f"Round {self.round} under '{self.rules}'"
               + (f", team {self.went_out} went out" if self.went_out else ", nobody went out")]
        for name, ts in self.teams.items():
            out.append("")
            out.append(f"Team {name}")
            for ln in ts.lines:
                if ln.count == 0 and ln.points_min == 0 and ln.points_max == 0:
                    continue
                count = f"{ln.count:>3} x " if ln.key not in ("melded_cards", "cards_left") else "      "
                out.append(f"  {ln.label:<30}{count}{ln.points_text():>16}  {ln.detail}".rstrip())
            total = f"{ts.total:,}" if ts.exact else f"{ts.total_min:,} to {ts.total_max:,}"
            out.append(f"  {'Total':<36}{total:>16}")
            for need in ts.needs_counting:
                out.append(f"  to make it exact: {need}")
        if self.problems:
            out.append("")
            out.append("Problems:")
            out.extend(f"  [{p.severity}] {p}" for p in self.problems)
        return "\n".join(out)


# ------------------------------------------------------------------------------------------------------------
def score_round(layout: TableLayout, rules: Rules | None = None, *, lenient: bool = False) -> RoundScore:
    """Score every team of a round-end layout.

    Args:
        layout: the table (see :mod:`scorer.layout`).
        rules: the rules to apply; None uses ``layout.resolve_rules()``.
        lenient: score even when the layout breaks the rules, reporting the problems.

    Returns:
        A :class:`RoundScore` with one :class:`TeamScore` per team, in the layout's order.

    Raises:
        IllegalLayoutError: (unless ``lenient``) naming the first illegal problem; ``.problems`` has all.
        UnknownRulesError, RulesError: when ``rules`` is None and the layout's rules are bad.
    """
    rules = rules or layout.resolve_rules()
    problems: list[Problem] = []
    if not 1 <= layout.round <= rules.rounds:
        problems.append(Problem("illegal", "round", f"round {layout.round} is outside 1..{rules.rounds} "
                                                    f"for '{rules.name}'"))
    if len(layout.teams) > rules.teams:
        problems.append(Problem("illegal", "teams", f"{counted(len(layout.teams), 'team')} but '{rules.name}' with "
                                                    f"{rules.players} players has {rules.teams}"))
    if layout.went_out is not None and layout.went_out not in layout.teams:
        problems.append(Problem("illegal", "went_out", f"went_out names team {layout.went_out!r}, which is not "
                                                       f"in teams ({', '.join(layout.teams)})"))
    problems += _deck_problems(layout, rules)

    teams = {}
    for name, team in layout.teams.items():
        teams[name] = _score_team(name, team, rules, went_out=(layout.went_out == name), problems=problems)

    result = RoundScore(rules=rules.name, round=layout.round, went_out=layout.went_out, teams=teams,
                        problems=tuple(problems))
    illegal = [p for p in problems if p.severity == "illegal"]
    if illegal and not lenient:
        more = f" (and {len(illegal) - 1} more)" if len(illegal) > 1 else ""
        raise IllegalLayoutError(f"illegal layout under '{rules.name}': {illegal[0]}{more}", problems)
    return result


def _score_team(name: str, team: TeamLayout, rules: Rules, *, went_out: bool,
                problems: list[Problem]) -> TeamScore:
    base = f"teams.{name}"
    books: list[BookReport] = []
    needs: list[str] = []
    meld_min = meld_max = 0
    open_ranks: Counter = Counter()

    for i, cards in enumerate(team.melds):
        where = f"{base}.melds[{i}]"
        check = check_meld(cards, rules)
        for reason in check.reasons:
            problems.append(Problem("illegal", where, f"{format_cards(cards)}: {reason}"))
        meld_min += check.points
        meld_max += check.points
        if check.kind is not None and not check.reasons:
            books.append(BookReport(where, check.kind, check.rank, False, check.points, check.points,
                                    check.kind.bonus(rules)))
        elif check.kind is None and (check.rank is not None or check.is_wild_meld):
            open_ranks[check.rank] += 1
    if rules.one_open_meld_per_rank:
        for rank, n in open_ranks.items():
            if n > 1:
                what = rank.plural if rank else "wilds"
                problems.append(Problem("illegal", f"{base}.melds", f"{n} unfinished melds of {what}: a side may "
                                                                     "have only one unfinished meld of each rank"))

    for i, book in enumerate(team.squared_books):
        report = _squared_book(f"{base}.squared_books[{i}]", book, rules, problems, needs)
        if report is not None:
            books.append(report)
            meld_min += report.points_min
            meld_max += report.points_max

    red_on_table = 0
    for i, card in enumerate(team.red_threes):
        if card.is_red_three:
            red_on_table += 1
        else:
            problems.append(Problem("illegal", f"{base}.red_threes[{i}]", f"{card} is not a red three"))

    left_points = 0
    red_in_hand = 0
    left_count = 0
    for packet in team.left:
        for card in packet:
            if card.is_red_three:
                red_in_hand += 1
            else:
                left_points += rules.card_value(card)
                left_count += 1

    if team.exact_deal > rules.max_exact_deals_per_team:
        msg = (f"'{rules.name}' has no exact-deal bonus" if rules.max_exact_deals_per_team == 0 else
               f"at most {rules.max_exact_deals_per_team} exact-deal bonus(es) per side under '{rules.name}'")
        problems.append(Problem("illegal", f"{base}.exact_deal", msg))

    kinds = Counter(b.kind for b in books)
    going_out = ScoreLine("going_out", "Going out", 0, 0, 0)
    if went_out:
        check = check_going_out((b.kind for b in books), rules)
        for reason in check.reasons:
            problems.append(Problem("illegal", f"{base}", f"went out but {reason}"))
        going_out = _going_out_line(check, rules)

    def bonus_line(kind: BookKind) -> ScoreLine:
        n = kinds[kind]
        return ScoreLine(f"{kind.value}_books", f"{kind.value.capitalize()} books", n, n * kind.bonus(rules),
                         n * kind.bonus(rules), f"{kind.bonus(rules):,} each")

    n_melded = sum(len(m) for m in team.melds) + sum(_book_size(b, rules) for b in team.squared_books)
    lines = (
        bonus_line(BookKind.CLEAN), bonus_line(BookKind.DIRTY), bonus_line(BookKind.WILD),
        going_out,
        ScoreLine("red_threes_on_table", "Red threes on the table", red_on_table,
                  red_on_table * rules.red_three_on_table, red_on_table * rules.red_three_on_table,
                  f"{rules.red_three_on_table:+,} each"),
        ScoreLine("red_threes_in_hand", "Red threes in hands and feet", red_in_hand,
                  red_in_hand * rules.red_three_in_hand, red_in_hand * rules.red_three_in_hand,
                  f"{rules.red_three_in_hand:+,} each"),
        ScoreLine("exact_deal", "Exact deal", team.exact_deal, team.exact_deal * rules.exact_deal_bonus,
                  team.exact_deal * rules.exact_deal_bonus, f"{rules.exact_deal_bonus:+,} each"),
        ScoreLine("melded_cards", "Melded cards", n_melded, meld_min, meld_max, counted(n_melded, "card")),
        ScoreLine("cards_left", "Cards left in hands and feet", left_count, -left_points, -left_points,
                  counted(left_count, "card")),
    )
    return TeamScore(team=name, lines=lines, books=tuple(books), needs_counting=tuple(needs))


def _going_out_line(check: GoingOutCheck, rules: Rules) -> ScoreLine:
    """The going-out line of a side that went out: the bonus when ``check`` finds it eligible, else no points
    and the detail ``"refused: "`` with the reasons (e.g. ``"refused: needs 2 clean books, has 1"``)."""
    if not check.eligible:
        return ScoreLine("going_out", "Going out", 1, 0, 0, "refused: " + "; ".join(check.reasons))
    return ScoreLine("going_out", "Going out", 1, rules.go_out_bonus, rules.go_out_bonus)


def _book_size(book: SquaredBook, rules: Rules) -> int:
    if book.cards is not None:
        return len(book.cards)
    return book.count or rules.book_size


def _stack_text(top: Card, cards: list[Card]) -> str:
    """A counted squared book in words, by what its players know of it: its top card, its rank (when its naturals
    share one), how many cards and how many wilds (``squared book of 7s under 7H: 7 cards, 2 wild``). The suits
    under the top card are never named: nobody sees them in a stack, and a book counted by its wilds alone has
    its naturals' suits filled in only to make a list of cards."""
    ranks = {c.rank for c in cards if c.is_natural}
    of = f" of {next(iter(ranks)).plural}" if len(ranks) == 1 else ""
    wilds = sum(c.is_wild for c in cards)
    return f"squared book{of} under {top}: {len(cards)} card{'s' * (len(cards) != 1)}, {wilds} wild"


def _squared_book(where: str, book: SquaredBook, rules: Rules, problems: list[Problem],
                  needs: list[str]) -> BookReport | None:
    top = book.top
    size = _book_size(book, rules)
    if top.is_three:
        problems.append(Problem("illegal", where, f"a book cannot have {top} on top: threes are never melded"))
        return None
    if size < rules.book_size or (size > rules.book_size and rules.book_growth is BookGrowth.CLOSED):
        problems.append(Problem("illegal", where, f"a squared book has {rules.book_size} cards under "
                                                  f"'{rules.name}', this one has {size}"))
        return None
    marker = marker_kind(top) if rules.book_markers else None

    if book.cards is not None:  # counted: exact
        check = check_meld(book.cards, rules)
        for reason in check.reasons:
            problems.append(Problem("illegal", where, f"{_stack_text(top, book.cards)}: {reason}"))
        if top not in book.cards:
            problems.append(Problem("illegal", where, f"the top card {top} is not among the book's cards"))
        if check.reasons or check.kind is None:
            return None
        if book.kind is not None and book.kind is not check.kind:
            problems.append(Problem("illegal", where, f"declared {book.kind.value} but the cards make a "
                                                      f"{check.kind.value} book"))
        if marker is not None and marker is not check.kind:
            problems.append(Problem("warning", where, f"marker card {top} says {marker.value} but the cards make a "
                                                      f"{check.kind.value} book"))
        return BookReport(where, check.kind, check.rank, True, check.points, check.points, check.kind.bonus(rules))

    kind = book.kind or marker
    if kind is None:
        problems.append(Problem("illegal", where, f"the kind of the book under {top} is unknown: give 'kind'"))
        return None
    if book.kind is not None and marker is not None and book.kind is not marker:
        problems.append(Problem("warning", where, f"marker card {top} says {marker.value} but the book is "
                                                  f"declared {book.kind.value}"))
    rank = book.rank or (top.rank if top.is_natural else None)
    if book.rank is not None and top.is_natural and book.rank is not top.rank:
        problems.append(Problem("illegal", where, f"declared rank {book.rank.value} but the top card is {top}"))
        return None
    if kind is BookKind.WILD:
        if not rules.wild_books:
            problems.append(Problem("illegal", where, f"wild books are not allowed under '{rules.name}'"))
            return None
        if top.is_natural:
            problems.append(Problem("illegal", where, f"a wild book cannot have the natural {top} on top"))
            return None
        rank = None
    elif kind is BookKind.CLEAN and top.is_wild:
        problems.append(Problem("illegal", where, f"a clean book cannot have the wild {top} on top"))
        return None
    elif rank is None:
        problems.append(Problem("illegal", where, f"a {kind.value} book with {top} on top: give its 'rank'"))
        return None
    lo, hi = book_value_range(kind, rank, rules, size)
    if lo != hi:
        what = f"{kind.value} book" + (f" of {rank.plural}" if rank else "")
        needs.append(f"count the wilds in the squared {what} under {top} ({where}): {lo} to {hi} points")
        problems.append(Problem("uncertain", where, f"squared {what}: its cards are worth {lo} to {hi} points "
                                                    "until its wilds are counted"))
    return BookReport(where, kind, rank, True, lo, hi, kind.bonus(rules))


#: where :func:`_deck_problems` counts cards, as its messages say it
_IN_LAYOUT = "in the layout (table, hands and feet)"


def _deck_problems(layout: TableLayout, rules: Rules) -> list[Problem]:
    """Cards that cannot all exist: more jokers, copies of a card or cards in all than the decks hold, counted
    over the whole layout (melds, squared books, red threes, cards left in hands and feet, loose cards)."""
    seen: Counter = Counter()
    total = unseen_jokers = 0
    for team in layout.teams.values():
        cards: list[Card] = [c for m in team.melds for c in m] + list(team.red_threes)
        cards += [c for packet in team.left for c in packet] + list(team.loose)
        for book in team.squared_books:
            if book.cards is not None and book.suits_seen:
                cards += book.cards
            elif book.cards is not None:  # counted by its wilds: its jokers and size known, no suit under its top
                cards.append(book.top)
                under = list(book.cards)
                if book.top in under:
                    under.remove(book.top)
                unseen_jokers += sum(c.is_joker for c in under)
                total += len(under)
            else:
                cards.append(book.top)
                total += _book_size(book, rules) - 1
        total += len(cards)
        seen.update(cards)
    problems = []
    jokers = sum(n for c, n in seen.items() if c.is_joker) + unseen_jokers
    joker_limit = rules.decks * rules.jokers_per_deck
    joker_codes = sorted({c.code for c in seen if c.is_joker})
    if jokers > joker_limit:
        problems.append(Problem("illegal", "teams", f"{jokers} jokers {_IN_LAYOUT} but {rules.decks} decks hold "
                                                    f"{joker_limit}", tuple(joker_codes)))
    for color in ("red", "black"):
        n = sum(k for c, k in seen.items() if c.is_joker and c.joker_color == color)
        if n > joker_limit // 2:
            problems.append(Problem("illegal", "teams", f"{n} {color} jokers {_IN_LAYOUT} but {rules.decks} "
                                                        f"decks hold {joker_limit // 2}",
                                    tuple(c.code for c in seen if c.is_joker and c.joker_color == color)))
    for card, n in sorted(seen.items(), key=lambda kv: kv[0].code):
        if not card.is_joker and n > rules.decks:
            problems.append(Problem("illegal", "teams", f"{n} x {card} {_IN_LAYOUT} but {rules.decks} decks hold "
                                                        f"only {rules.decks}", (card.code,)))
    if total > rules.deck_cards:
        problems.append(Problem("illegal", "teams", f"{total} cards {_IN_LAYOUT} but the decks hold "
                                                    f"{rules.deck_cards}"))
    return problems
