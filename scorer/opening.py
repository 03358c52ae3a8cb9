"""The opening meld: a side's first meld of a round must reach the round's minimum in card points.

Seed 000 "The Opening Meld": minimums 50/90/120/150 by round; only card values count (red threes and book
bonuses do not), several melds laid together count together, and when opening by picking up the discard
pile only the top discard and the player's own cards count. Seed 002 §5 and §8 give the round-3 check
(Q Q Q + joker and 8 8 8 is 110, 10 short of 120; a two added to the eights makes 130). Seed 001 adds that
the opening must start a clean or a joker canasta; Saskatchewan (seed 000) needs a complete canasta built
in the hand in round four.

:func:`check_opening` checks a planned opening; :func:`best_opening` finds the most valuable legal opening a
hand can make (exact search over ranks and wild counts).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from .cards import Card, Rank, format_cards
from .melds import MeldCheck, check_meld, meld_shape_ok
from .rules import BookGrowth, Rules


@dataclass(frozen=True)
class OpeningCheck:
    """The verdict on a planned opening.

    Attributes:
        melds: one :class:`MeldCheck` per planned meld.
        points: card points of all melds together (the pickup card included, the rest of the pile not).
        minimum: the round's minimum; ``meets`` is ``points >= minimum`` and every rule kept.
        reasons: why it is not a legal opening (empty when ``meets``).
    """

    melds: tuple[MeldCheck, ...]
    points: int
    minimum: int
    round: int
    reasons: tuple[str, ...]

    @property
    def meets(self) -> bool:
        return not self.reasons

    @property
    def shortfall(self) -> int:
        """Points missing to reach the minimum (0 when reached)."""
        return max(self.minimum - self.points, 0)

    def describe(self) -> str:
        head = (f"opening of {self.points} points in round {self.round} (minimum {self.minimum}): "
                + ("meets the minimum" if self.meets else "not enough"))
        return head + ("" if self.meets else " — " + "; ".join(self.reasons))


def check_opening(melds: Sequence[Sequence[Card]], round_number: int, rules: Rules, *,
                  pickup: Card | None = None) -> OpeningCheck:
    """Check a planned opening meld for ``round_number`` (1-based).

    Args:
        melds: the melds laid together, as card lists. With ``pickup`` they hold only the player's own cards
            and the top discard, never the other cards taken with the pile.
        pickup: the top discard when the side opens by picking up the pile (seed 000 'Picking up the pile').

    Raises:
        RulesError: when the round is outside the rules' rounds.
    """
    minimum = rules.opening_minimum(round_number)
    checks = tuple(check_meld(m, rules) for m in melds)
    reasons: list[str] = []
    if not checks:
        reasons.append("no meld given")
    for i, check in enumerate(checks):
        for reason in check.reasons:
            reasons.append(f"meld {i + 1} ({format_cards(check.cards)}): {reason}")
    points = sum(c.points for c in checks)
    if points < minimum:
        reasons.append(f"{points} points is {minimum - points} short of the round-{round_number} minimum {minimum}")
    if rules.opening_needs_clean_or_wild and checks and not any(
            c.legal and (c.wilds == 0 or c.is_wild_meld) for c in checks):
        reasons.append(f"under '{rules.name}' the opening must start a clean or a wild meld")
    if round_number in rules.opening_book_rounds and not any(c.legal and c.is_book for c in checks):
        reasons.append(f"under '{rules.name}' round {round_number} opens only with a complete book from the hand")
    if pickup is not None:
        reasons += _pickup_reasons(pickup, melds, rules)
    return OpeningCheck(melds=checks, points=points, minimum=minimum, round=round_number, reasons=tuple(reasons))


def _pickup_reasons(pickup: Card, melds: Sequence[Sequence[Card]], rules: Rules) -> list[str]:
    if pickup.is_three:
        return [f"the pile cannot be taken with a three ({pickup}) on top"]
    home = [m for m in melds if pickup in m]
    if not home:
        return [f"the top discard {pickup} must be melded at once"]
    need = rules.pickup_naturals_needed
    for meld in home:
        if pickup.is_wild:
            if rules.pickup_wild_with_wilds and sum(c.is_wild for c in meld) - 1 >= need:
                return []
        elif sum(c.rank is pickup.rank for c in meld) - 1 >= need:
            return []
    if pickup.is_wild:
        if not rules.pickup_wild_with_wilds:
            return [f"a wild top discard ({pickup}) cannot be taken under '{rules.name}'"]
        return [f"a wild top discard needs {need} wilds from the hand melded with it"]
    return [f"taking the pile needs {need} natural {pickup.rank.plural} from the hand melded with {pickup}"]


# ------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OpeningPlan:
    """The best opening found: ``melds`` (card tuples) worth ``points``; ``minimum``/``meets`` when a round
    was given. ``points`` is 0 with no melds when the hand cannot meld at all."""

    melds: tuple[tuple[Card, ...], ...]
    points: int
    minimum: int | None = None

    @property
    def meets(self) -> bool | None:
        return None if self.minimum is None else (bool(self.melds) and self.points >= self.minimum)

    def describe(self) -> str:
        if not self.melds:
            return "no legal meld in this hand"
        text = " / ".join(format_cards(m) for m in self.melds) + f": {self.points} points"
        if self.minimum is not None:
            text += f" ({'meets' if self.meets else 'short of'} the minimum {self.minimum})"
        return text


def _rank_options(rules: Rules, count: int) -> list[tuple[tuple[int, int], ...]]:
    """Ways to meld ``count`` naturals of one rank: tuples of (naturals, wilds) per meld, best-first not needed.

    At most one unfinished meld per rank; extra melds must be complete books (closed books only).
    """
    single = [(a, b) for a in range(1, count + 1) for b in range(0, 16) if meld_shape_ok(rules, a, b)]
    options: list[tuple[tuple[int, int], ...]] = [()]
    options += [(m,) for m in single]
    if rules.book_growth is BookGrowth.CLOSED:
        books = [m for m in single if sum(m) == rules.book_size]
        for b1 in books:
            for m2 in single:
                if b1[0] + m2[0] <= count:
                    options.append((b1, m2))
    return options


def _wild_meld_sizes(rules: Rules, wilds: int) -> list[tuple[int, ...]]:
    """Ways to lay ``x`` of the wilds as wild melds: tuples of meld sizes (one unfinished at most)."""
    if not rules.wild_books:
        return [()]
    out: list[tuple[int, ...]] = [()]
    for s in range(rules.min_meld_size, wilds + 1):
        if meld_shape_ok(rules, 0, s):
            out.append((s,))
            if rules.book_growth is not BookGrowth.ANY and s == rules.book_size:
                for s2 in range(rules.min_meld_size, wilds - s + 1):
                    if meld_shape_ok(rules, 0, s2):
                        out.append((s, s2))
    return out


def best_opening(hand: Sequence[Card], rules: Rules, round_number: int | None = None) -> OpeningPlan:
    """The most valuable set of legal melds the cards in ``hand`` can make (card points, seed 000 values).

    Exact: a dynamic programme over natural ranks whose state is the number of wilds used (plus whether a
    clean/wild meld and a complete book are present, for seed 001's and Saskatchewan's opening rules), then
    the remaining wilds as wild melds. Which wild goes where does not change legality, so the most valuable
    wilds (jokers) are the ones placed. With ``round_number`` the plan honours that round's extra opening
    rules and reports the minimum.

    Args:
        hand: the player's cards (red threes and black threes are ignored: they never meld).
        round_number: optional 1-based round.

    Raises:
        RulesError: for a round outside the rules' rounds.
    """
    minimum = rules.opening_minimum(round_number) if round_number is not None else None
    need_clean = bool(round_number and rules.opening_needs_clean_or_wild)
    need_book = bool(round_number and round_number in rules.opening_book_rounds)

    naturals: dict[Rank, list[Card]] = defaultdict(list)
    for c in hand:
        if c.is_natural:
            naturals[c.rank].append(c)
    wild_cards = sorted((c for c in hand if c.is_wild), key=lambda c: -rules.card_value(c))
    n_wild = len(wild_cards)

    # state: (wilds used, has clean meld, has book) -> (natural points, chosen melds per rank)
    State = tuple[int, bool, bool]
    best: dict[State, tuple[int, tuple]] = {(0, False, False): (0, ())}
    for rank, cards in naturals.items():
        value = rules.rank_value(rank)
        nxt: dict[State, tuple[int, tuple]] = {}
        for (used, clean, book), (pts, plan) in best.items():
            for option in _rank_options(rules, len(cards)):
                w = used + sum(b for _, b in option)
                if w > n_wild:
                    continue
                key = (w, clean or any(b == 0 for _, b in option),
                       book or any(a + b >= rules.book_size for a, b in option))
                cand = (pts + value * sum(a for a, _ in option), plan + ((rank, option),) if option else plan)
                if key not in nxt or cand[0] > nxt[key][0]:
                    nxt[key] = cand
        best = nxt

    wild_values = [rules.card_value(c) for c in wild_cards]
    top = [0]
    for v in wild_values:
        top.append(top[-1] + v)
    choice = None
    for (used, clean, book), (pts, plan) in best.items():
        for sizes in _wild_meld_sizes(rules, n_wild - used):
            x = sum(sizes)
            has_clean = clean or x > 0
            has_book = book or any(s >= rules.book_size for s in sizes)
            if (need_clean and not has_clean) or (need_book and not has_book):
                continue
            if not plan and not sizes:
                continue
            total = pts + top[used + x]
            if choice is None or total > choice[0]:
                choice = (total, plan, sizes)
    if choice is None:
        return OpeningPlan(melds=(), points=0, minimum=minimum)

    total, plan, sizes = choice
    pool = list(wild_cards)
    melds: list[tuple[Card, ...]] = []
    for rank, option in plan:
        cards = list(naturals[rank])
        for a, b in option:
            melds.append(tuple(cards[:a]) + tuple(pool[:b]))
            cards, pool = cards[a:], pool[b:]
    for s in sizes:
        melds.append(tuple(pool[:s]))
        pool = pool[s:]
    return OpeningPlan(melds=tuple(melds), points=total, minimum=minimum)


def opening_points(hand: Sequence[Card], rules: Rules) -> int:
    """Card points of :func:`best_opening` for ``hand`` (0 when it cannot meld)."""
    return best_opening(hand, rules).points


__all__ = ["OpeningCheck", "OpeningPlan", "check_opening", "best_opening", "opening_points"]
