"""Opening odds: a vectorised NumPy Monte-Carlo of seed 000's "Hand and Foot Odds" table.

Seed 000 ("Hand and Foot Odds", five decks + 10 jokers, pagat rules, 100,000 simulated deals) reports how
often a player's own cards are enough for the opening meld, from the 13 cards dealt and after the first draw
(15 cards), plus three facts about the deal: how many wilds a 13-card hand holds, how often a 13-card packet
holds a red three, and how often the card turned up after the deal is a red three or a wild.

What is simulated (the interpretation that reproduces the seed's figures; see ``tests/test_odds.py``):

* **The packet as dealt** — the first ``hand_size`` cards of a shuffled shoe. The wild-card and red-three
  statistics are of this packet, *before* red threes are replaced (13 x 30 / 270 = 1.44 wilds on average;
  a red three in 39% of packets).
* **The hand you open from** — red threes in the packet are laid down and replaced from the stock, and a
  replacement red three is replaced again (seed 000 "How to Play a Turn"), so the opening is computed on
  ``hand_size`` non-red-three cards. **After the first draw** adds ``draw_count`` more cards, drawn red
  threes again replaced: ``hand_size + draw_count`` non-red-three cards.
* **The up-card** — one more card of the shoe, not in the player's packet; it is "bad" when it is a red
  three or a wild (seed 000 "Setting Up and Dealing").
* **Opening value** — the most card points (:meth:`Rules.card_value`) of any set of legal melds made from
  the hand's own cards: melds of one natural rank within the wild limit, and all-wild melds where
  ``wild_books``, never picking up the pile (seed 000: "count every legal meld you could make from your
  cards, including an all-wild meld, and leave out picking up the pile"). Legality is exactly
  :func:`scorer.melds.check_meld` (sizes, wild limit, ``book_growth``), plus ``one_open_meld_per_rank``: at
  most one unfinished meld of each rank (and of wilds) besides any number of complete books. A hand opens in
  round *r* when its opening value reaches ``opening_minimums[r - 1]``.

Not modelled (reported in :attr:`OddsReport.notes` when the rules use them): ``opening_needs_clean_or_wild``
and ``opening_book_rounds``. Those rounds' figures are then upper bounds.

How the optimiser works (:func:`opening_values`): which wild sits in which meld never changes legality, so a
plan is "place *t* wilds, the *t* most valuable ones" (jokers before twos under the usual values). For each
natural rank a small exact table, built once per rules from ``check_meld``, gives the most points that rank's
naturals can make while absorbing exactly *w* wilds; a knapsack over the 11 ranks (vectorised across all
hands) gives the best natural points for every total *k* of wilds in rank melds, and the wilds left over go
to wild melds in any total that ``check_meld`` allows. The result is exact for every preset's wild limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from .cards import NATURAL_RANKS, Card, Rank, Suit
from .melds import check_meld
from .rules import Rules

__all__ = ["OpeningOdds", "OddsReport", "simulate_odds", "opening_values"]

# Card kinds used in the simulated shoe: 0..10 are the naturals in NATURAL_RANKS order (4 .. A).
_TWO, _JOKER, _BLACK3, _RED3 = 11, 12, 13, 14
_KINDS = 15
_NEG = -(10 ** 9)          # "impossible" in the value tables (int64 arithmetic, clipped after each step)
_CHUNK = 25_000            # deals per vectorised chunk; fixed so that a seed always gives the same report


# ---------------------------------------------------------------------------------------------------------
# report types
def _r(x: float, digits: int) -> float:
    return round(float(x), digits)


@dataclass(frozen=True)
class OpeningOdds:
    """How often one round's opening minimum can be met from the player's own cards.

    Attributes:
        round: round number, 1-based.
        minimum: that round's opening minimum, in points.
        dealt: percent (0..100) of hands that can open from the ``hand_size`` cards dealt (red threes replaced).
        after_draw: percent (0..100) that can open after the first draw (``hand_size + draw_count`` cards).
    """

    round: int
    minimum: int
    dealt: float
    after_draw: float


@dataclass(frozen=True)
class OddsReport:
    """The result of :func:`simulate_odds`: seed 000's "Hand and Foot Odds" table for one rule set.

    Attributes:
        rules: the rules' name (e.g. ``"pagat"``).
        deals: number of simulated deals; seed: the random seed used.
        opening: one :class:`OpeningOdds` per round.
        wild_at_least_one, wild_at_least_two: percent of dealt packets holding >= 1 / >= 2 wilds.
        wild_mean: mean number of wild cards (twos and jokers) in a dealt packet, in cards.
        red_three_at_least_one: percent of dealt packets holding at least one red three.
        bad_up_card: percent of deals whose up-card is a red three or a wild.
        notes: one sentence per rule the simulation does not model (its figures are then upper bounds).
        hand_size, draw_count: the packet size and the first draw, in cards (for the table's headings).
    """

    rules: str
    deals: int
    seed: int
    opening: tuple[OpeningOdds, ...]
    wild_at_least_one: float
    wild_at_least_two: float
    wild_mean: float
    red_three_at_least_one: float
    bad_up_card: float
    notes: tuple[str, ...] = ()
    hand_size: int = 13
    draw_count: int = 2

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; percentages rounded to 0.1, the mean to 0.01.

        Keys: ``rules``, ``deals``, ``seed``, ``opening`` (a list of ``{"round", "minimum", "dealt",
        "after_draw"}``), ``wild_at_least_one``, ``wild_at_least_two``, ``wild_mean``,
        ``red_three_at_least_one``, ``bad_up_card``, ``notes`` (a list of strings).
        """
        return {
            "rules": self.rules,
            "deals": self.deals,
            "seed": self.seed,
            "opening": [{"round": int(o.round), "minimum": int(o.minimum), "dealt": _r(o.dealt, 1),
                         "after_draw": _r(o.after_draw, 1)} for o in self.opening],
            "wild_at_least_one": _r(self.wild_at_least_one, 1),
            "wild_at_least_two": _r(self.wild_at_least_two, 1),
            "wild_mean": _r(self.wild_mean, 2),
            "red_three_at_least_one": _r(self.red_three_at_least_one, 1),
            "bad_up_card": _r(self.bad_up_card, 1),
            "notes": list(self.notes),
        }

    def format_table(self) -> str:
        """A plain-text table laid out like seed 000's "Hand and Foot Odds", notes at the end."""
        n, d = self.hand_size, self.draw_count
        head = ["Round (minimum)", f"From the {n} cards dealt", f"After your first draw ({n + d} cards)"]
        rows = [[f"{o.round} ({o.minimum})", f"{o.dealt:.1f}%", f"{o.after_draw:.1f}%"] for o in self.opening]
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(3)]

        def line(cells: list[str]) -> str:
            return "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(cells))

        out = [f"Hand and Foot odds: rules '{self.rules}', {self.deals:,} simulated deals, seed {self.seed}",
               "Opening meld from your own cards (every legal meld, all-wild melds included; "
               "picking up the pile left out):",
               line(head), line(["-" * w for w in widths])]
        out += [line(r) for r in rows]
        out += [
            f"Wild cards: a {n}-card hand holds at least one {self.wild_at_least_one:.1f}% of the time and at "
            f"least two {self.wild_at_least_two:.1f}%; the average is {self.wild_mean:.2f}.",
            f"Red threes: a {n}-card packet contains at least one {self.red_three_at_least_one:.1f}% of the time.",
            f"The up-card: {self.bad_up_card:.1f}% of deals start with a red three or wild card turned up"
            + (f" (1 deal in {100 / self.bad_up_card:.1f})." if self.bad_up_card > 0 else "."),
        ]
        if self.notes:
            out.append("Notes:")
            out += [f"- {note}" for note in self.notes]
        return "\n".join(out)


# ---------------------------------------------------------------------------------------------------------
# exact per-rank tables, built from check_meld
@dataclass(frozen=True)
class _Tables:
    feasible: np.ndarray      # (c_max+1, w_max+1) bool: m naturals of one rank + exactly w wilds form legal melds
    wild_totals: np.ndarray   # (w_max+1,) bool: x wilds can form legal all-wild melds (x = 0 always)
    c_max: int
    w_max: int


def _closure(rep: np.ndarray, once: np.ndarray) -> np.ndarray:
    """Which (m, w) totals are sums of any number of ``rep`` melds and at most one ``once`` meld.

    ``rep`` and ``once`` are boolean (C+1, W+1) grids indexed by (naturals, wilds); every meld in them has
    at least one natural (row 0 is empty), so the unbounded knapsack proceeds row by row.
    """
    C, W = rep.shape[0] - 1, rep.shape[1] - 1
    reach = np.zeros_like(rep)
    reach[0, 0] = True
    for m in range(1, C + 1):
        for n in range(1, m + 1):
            prev = reach[m - n]
            if not prev.any():
                continue
            for x in np.flatnonzero(rep[n]):
                reach[m, x:] |= prev[:W + 1 - x]
    full = reach.copy()
    for n, x in zip(*np.nonzero(once)):
        full[n:, x:] |= reach[:C + 1 - n, :W + 1 - x]
    return full


def _wild_closure(rep: np.ndarray, once: np.ndarray) -> np.ndarray:
    """1-D version of :func:`_closure` for all-wild melds (indexed by size; index 0 is no meld)."""
    W = rep.shape[0] - 1
    reach = np.zeros_like(rep)
    reach[0] = True
    for s in range(1, W + 1):
        reach[s] = any(rep[k] and reach[s - k] for k in range(1, s + 1))
    full = reach.copy()
    for k in np.flatnonzero(once):
        full[k:] |= reach[:W + 1 - k]
    return full


@lru_cache(maxsize=64)
def _tables(rules: Rules, c_max: int, w_max: int) -> _Tables:
    natural = Card(Rank.KING, Suit.SPADES)   # legality depends on counts only, never on the rank or the wild
    wild = Card(Rank.TWO, Suit.SPADES)
    legal = np.zeros((c_max + 1, w_max + 1), dtype=bool)
    for n in range(1, c_max + 1):
        for w in range(w_max + 1):
            legal[n, w] = check_meld([natural] * n + [wild] * w, rules).legal
    wild_legal = np.zeros(w_max + 1, dtype=bool)
    for s in range(1, w_max + 1):
        wild_legal[s] = check_meld([wild] * s, rules).legal
    size = np.add.outer(np.arange(c_max + 1), np.arange(w_max + 1))
    sizes = np.arange(w_max + 1)
    if rules.one_open_meld_per_rank:
        # Any number of complete books of a rank, at most one unfinished meld beside them.
        rep, once = legal & (size >= rules.book_size), legal & (size < rules.book_size)
        wrep, wonce = wild_legal & (sizes >= rules.book_size), wild_legal & (sizes < rules.book_size)
    else:
        rep, once = legal, np.zeros_like(legal)
        wrep, wonce = wild_legal, np.zeros_like(wild_legal)
    return _Tables(feasible=_closure(rep, once), wild_totals=_wild_closure(wrep, wonce), c_max=c_max, w_max=w_max)


@lru_cache(maxsize=256)
def _rank_values(rules: Rules, c_max: int, w_max: int, value: int) -> np.ndarray:
    """(c_max+1, w_max+1) int64: best points from c naturals worth ``value`` each absorbing exactly w wilds."""
    feas = _tables(rules, c_max, w_max).feasible
    pts = np.where(feas, value * np.arange(c_max + 1)[:, None], _NEG).astype(np.int64)
    return np.maximum.accumulate(pts, axis=0)     # c naturals may leave some of them unused


# ---------------------------------------------------------------------------------------------------------
# the optimiser
def opening_values(natural_counts: np.ndarray, twos: np.ndarray, jokers: np.ndarray, rules: Rules) -> np.ndarray:
    """The most opening points each hand's own cards can meld (seed 000 "The Opening Meld" / "Hand and Foot Odds").

    Exact: the maximum, over every set of legal melds made from the hand (melds of one natural rank within
    the wild limit and ``book_growth`` as :func:`scorer.melds.check_meld` judges them, all-wild melds where
    ``rules.wild_books``, at most one unfinished meld per rank when ``rules.one_open_meld_per_rank``), of the
    melds' total card value. Threes never meld, so they are not an input.

    Args:
        natural_counts: (n, 11) non-negative ints, counts of ranks 4, 5, 6, 7, 8, 9, 10, J, Q, K, A
            (the order of :data:`scorer.cards.NATURAL_RANKS`).
        twos: (n,) non-negative ints, twos in each hand.
        jokers: (n,) non-negative ints, jokers in each hand.
        rules: the rule set (card values, meld sizes, wild limit).

    Returns:
        (n,) int64 array of opening values, in points (0 when nothing melds).

    Raises:
        ValueError: for arrays of the wrong shape or negative counts.
    """
    nat = np.asarray(natural_counts)
    tw = np.asarray(twos)
    jk = np.asarray(jokers)
    if nat.ndim != 2 or nat.shape[1] != len(NATURAL_RANKS):
        raise ValueError(f"natural_counts must have shape (n, {len(NATURAL_RANKS)}), not {nat.shape}")
    n = nat.shape[0]
    if tw.shape != (n,) or jk.shape != (n,):
        raise ValueError(f"twos and jokers must have shape ({n},), not {tw.shape} and {jk.shape}")
    nat, tw, jk = nat.astype(np.int64), tw.astype(np.int64), jk.astype(np.int64)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if nat.min() < 0 or tw.min() < 0 or jk.min() < 0:
        raise ValueError("card counts cannot be negative")

    wilds = tw + jk
    K = int(wilds.max())
    # Table sizes: at least what one hand of these rules can hold, so that the cache is shared across chunks.
    hand_max = rules.hand_size + rules.draw_count
    c_max = max(int(nat.max()), hand_max)
    w_max = max(K, hand_max)
    tables = _tables(rules, c_max, w_max)

    # Knapsack over the ranks: best[:, k] = most natural points with exactly k wilds in rank melds.
    best = np.full((n, K + 1), _NEG, dtype=np.int64)
    best[:, 0] = 0
    for r, rank in enumerate(NATURAL_RANKS):
        table = _rank_values(rules, c_max, w_max, rules.rank_value(rank))[:, :K + 1]
        useful = np.flatnonzero((table > _NEG // 2).any(axis=0))
        gain = table[nat[:, r]]                            # (n, K+1)
        new = best + gain[:, :1]
        for w in useful[useful > 0]:
            np.maximum(new[:, w:], best[:, :K + 1 - w] + gain[:, w:w + 1], out=new[:, w:])
        best = np.maximum(new, _NEG)

    # Place t wilds in all, the t most valuable ones; t - k of them go to all-wild melds.
    hi, lo = max(rules.joker_value, rules.two_value), min(rules.joker_value, rules.two_value)
    n_hi = jk if rules.joker_value >= rules.two_value else tw
    totals = tables.wild_totals
    result = np.zeros(n, dtype=np.int64)
    for t in range(K + 1):
        ks = [k for k in range(t + 1) if totals[t - k]]
        natural_pts = best[:, ks].max(axis=1)
        wild_pts = hi * np.minimum(t, n_hi) + lo * np.maximum(t - n_hi, 0)
        value = np.where(wilds >= t, natural_pts + wild_pts, _NEG)
        np.maximum(result, value, out=result)
    return result


# ---------------------------------------------------------------------------------------------------------
# the simulation
def _shoe(rules: Rules) -> np.ndarray:
    one = []
    for k in range(len(NATURAL_RANKS)):
        one += [k] * 4
    one += [_TWO] * 4 + [_BLACK3] * 2 + [_RED3] * 2 + [_JOKER] * rules.jokers_per_deck
    return np.array(one * rules.decks, dtype=np.uint8)


def _unmodelled(rules: Rules) -> tuple[str, ...]:
    notes = []
    if rules.opening_needs_clean_or_wild:
        notes.append("Not modelled: the opening must include a clean or a wild meld "
                     "(opening_needs_clean_or_wild); the opening figures are upper bounds.")
    if rules.opening_book_rounds:
        rounds = ", ".join(str(r) for r in rules.opening_book_rounds)
        notes.append(f"Not modelled: round {rounds} must open with a complete book built from the hand "
                     f"(opening_book_rounds); that round's figures are upper bounds.")
    return tuple(notes)


def simulate_odds(rules: Rules, deals: int = 100_000, seed: int = 0,
                  progress: Callable[[int, int], None] | None = None) -> OddsReport:
    """Simulate ``deals`` deals and measure seed 000's "Hand and Foot Odds" under ``rules``.

    Each deal shuffles a fresh shoe of ``rules.decks`` decks (with ``rules.jokers_per_deck`` jokers each) and
    looks at one player's packet of ``rules.hand_size`` cards, its red threes replaced from the stock, then
    ``rules.draw_count`` more cards (red threes again replaced), and at the card turned up after the deal.
    Deterministic for a given ``(rules, deals, seed)``: ``numpy.random.default_rng(seed)``, fixed-size chunks.
    About 1 s per 100,000 pagat deals on two CPU cores.

    Args:
        rules: the rule set.
        deals: number of simulated deals, >= 1.
        seed: a non-negative integer seed.
        progress: called as ``progress(done, deals)`` after each chunk of at most 25,000 deals, ``done`` the
            deals simulated so far (increasing, the last call with ``done == deals``); it does not change the
            result. Whatever it raises propagates and ends the simulation.

    Returns:
        An :class:`OddsReport`; percentages 0..100, ``wild_mean`` in cards.

    Raises:
        ValueError: for ``deals < 1``, a negative or non-integer seed, a ``progress`` that is not callable, or
            rules whose shoe cannot supply the packet, the first draw and the up-card.
    """
    if not isinstance(rules, Rules):
        raise ValueError(f"rules must be a scorer.rules.Rules, not {type(rules).__name__}")
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be a whole number of at least 1, not {deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative whole number, not {seed!r}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable progress(done, total) or None, not {progress!r}")
    deals, seed = int(deals), int(seed)

    shoe = _shoe(rules)
    size = shoe.size
    hand, draw = rules.hand_size, rules.draw_count
    red3 = int((shoe == _RED3).sum())
    # Positions used per deal: the packet, the replacements and the draw (at most every red three in the shoe
    # turns up among them), then one more position for the up-card.
    stream = min(hand + draw + red3, size - 1)
    if size - red3 - 1 < hand + draw:
        raise ValueError(f"rules '{rules.name}': a shoe of {size} cards ({red3} red threes) cannot supply "
                         f"{hand + draw} non-red-three cards and an up-card")
    positions = stream + 1

    rng = np.random.default_rng(seed)
    open_dealt = np.zeros(rules.rounds, dtype=np.int64)
    open_draw = np.zeros(rules.rounds, dtype=np.int64)
    minimums = np.array(rules.opening_minimums, dtype=np.int64)
    wild1 = wild2 = wild_sum = red_any = bad_up = 0

    done = 0
    while done < deals:
        n = min(_CHUNK, deals - done)
        done += n
        deck = np.broadcast_to(shoe, (n, size)).copy()
        rows = np.arange(n)
        for i in range(positions):                       # partial Fisher-Yates: only the positions we look at
            j = rng.integers(i, size, size=n)
            picked = deck[rows, j]
            deck[rows, j] = deck[:, i]
            deck[:, i] = picked
        cards = deck[:, :stream]
        up = deck[:, stream]

        packet = cards[:, :hand]
        w = ((packet == _TWO) | (packet == _JOKER)).sum(axis=1)
        wild1 += int((w >= 1).sum())
        wild2 += int((w >= 2).sum())
        wild_sum += int(w.sum())
        red_any += int((packet == _RED3).any(axis=1).sum())
        bad_up += int(((up == _TWO) | (up == _JOKER) | (up == _RED3)).sum())

        # Red threes are laid and replaced from the stock: the hand is the first `hand` non-red-three cards of
        # the stream, and after the draw the first `hand + draw`.
        keep = cards != _RED3
        order = np.cumsum(keep, axis=1)
        flat = (rows[:, None] * _KINDS + cards).ravel()
        for limit, tally in ((hand, open_dealt), (hand + draw, open_draw)):
            mask = (keep & (order <= limit)).ravel()
            counts = np.bincount(flat[mask], minlength=n * _KINDS).reshape(n, _KINDS)
            values = opening_values(counts[:, :len(NATURAL_RANKS)], counts[:, _TWO], counts[:, _JOKER], rules)
            tally += (values[:, None] >= minimums[None, :]).sum(axis=0)
        if progress is not None:
            progress(done, deals)

    pct = 100.0 / deals
    opening = tuple(OpeningOdds(round=r + 1, minimum=int(minimums[r]), dealt=float(open_dealt[r] * pct),
                                after_draw=float(open_draw[r] * pct)) for r in range(rules.rounds))
    return OddsReport(rules=rules.name, deals=deals, seed=seed, opening=opening,
                      wild_at_least_one=float(wild1 * pct), wild_at_least_two=float(wild2 * pct),
                      wild_mean=float(wild_sum / deals), red_three_at_least_one=float(red_any * pct),
                      bad_up_card=float(bad_up * pct), notes=_unmodelled(rules),
                      hand_size=hand, draw_count=draw)
