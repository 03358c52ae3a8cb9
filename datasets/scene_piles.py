"""What lies on one side of a synthetic round-end table: piles of card codes, before any geometry.

A :class:`Pile` is a kind (meld, fanned book, squared book, red threes, a player's leftover cards, a loose card,
face-down cards) and its card codes (:data:`vision.classes.CLASS_NAMES`, ``"BACK"`` for a face-down card).
:func:`sample_piles` draws a plausible table under pagat-style limits (two naturals per wild; five or six decks
mixed, so identical cards repeat); :func:`layout_of` turns piles into the ground-truth table layout that
``scorer`` scores. Every draw comes from the caller's ``numpy`` generator, so a seed gives the same table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

NATURALS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")


@dataclass
class Pile:
    """A pile before placement: ``kind`` is meld, book (fanned 7), squared, red_threes, left, loose, backs."""

    kind: str
    codes: list[str]
    marker: str | None = None  # squared books: the top card


def _natural(rng: np.random.Generator, rank: str, red: bool | None = None) -> str:
    suits = SUITS if red is None else (("H", "D") if red else ("S", "C"))
    return rank + suits[int(rng.integers(len(suits)))]


#: share of wild cards that are jokers, and of other cards (hands, loose cards), at ``joker_boost`` 1
JOKER_SHARE_OF_WILDS = 0.35
JOKER_SHARE_OF_ANY = 0.04


def _wild_card(rng: np.random.Generator, jokers: bool = True, boost: float = 1.0) -> str:
    return "JK" if jokers and rng.random() < JOKER_SHARE_OF_WILDS * boost else "2" + SUITS[int(rng.integers(4))]


def _any_card(rng: np.random.Generator, jokers: bool = True, boost: float = 1.0) -> str:
    if jokers and rng.random() < JOKER_SHARE_OF_ANY * boost:
        return "JK"
    return ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")[int(rng.integers(13))] + \
        SUITS[int(rng.integers(4))]


def hand_cards(rng: np.random.Generator, n: int, jokers: bool = True) -> list[str]:
    """``n`` card codes of a hand or foot still held at the end of a round: any cards, a joker as often as in the
    cards left of :func:`sample_piles` (``jokers=False`` for decks without joker art)."""
    return [_any_card(rng, jokers) for _ in range(n)]


def sample_piles(rng: np.random.Generator, max_piles: int = 12, jokers: bool = True,
                 joker_boost: float = 1.0) -> list[Pile]:
    """A plausible round-end table for one side under pagat-style limits (two naturals per wild).

    ``jokers=False`` for decks without joker art (wilds are then twos only). ``joker_boost`` multiplies the
    chance that a card is a joker (:data:`JOKER_SHARE_OF_WILDS` of wilds, :data:`JOKER_SHARE_OF_ANY` of other
    cards; at most every wild): training variety for the rarest index; at 1 the shares are the ones above.
    """
    piles: list[Pile] = []

    n_melds = int(rng.integers(1, max(2, max_piles - 3)))
    ranks = list(rng.permutation(NATURALS))
    for i in range(n_melds):
        if rng.random() < 0.08:
            size = int(rng.integers(3, 8))
            wilds = [_wild_card(rng, jokers, joker_boost) for _ in range(size)]
            piles.append(Pile("book" if size == 7 else "meld", wilds))
            continue
        rank = ranks[i % len(ranks)]
        size = int(rng.choice([3, 4, 5, 6, 7, 7, 7]))
        max_w = 2 if size >= 6 else 1
        w = int(rng.integers(0, max_w + 1)) if rng.random() < 0.55 else 0
        codes = [_natural(rng, rank) for _ in range(size - w)] + \
            [_wild_card(rng, jokers, joker_boost) for _ in range(w)]
        order = rng.permutation(len(codes))
        piles.append(Pile("book" if size == 7 else "meld", [codes[j] for j in order]))
    for _ in range(int(rng.integers(0, 4)) if rng.random() < 0.6 else 0):
        kind = rng.choice(["clean", "dirty", "wild"], p=[0.5, 0.35, 0.15])
        rank = str(rng.choice(NATURALS))
        if kind == "clean":
            codes = [_natural(rng, rank) for _ in range(6)]
            marker = _natural(rng, rank, red=True)
        elif kind == "dirty":
            codes = [_natural(rng, rank) for _ in range(4)] + [_wild_card(rng, jokers, joker_boost) for _ in range(2)]
            marker = _natural(rng, rank, red=False)
        else:
            codes = [_wild_card(rng, jokers, joker_boost) for _ in range(6)]
            marker = _wild_card(rng, jokers, joker_boost)
        piles.append(Pile("squared", codes + [marker], marker=marker))
    n_red = int(rng.integers(0, 5)) if rng.random() < 0.6 else 0
    if n_red:
        piles.append(Pile("red_threes", ["3" + ("H" if rng.random() < 0.5 else "D") for _ in range(n_red)]))
    if rng.random() < 0.45:
        piles.append(Pile("left", [_any_card(rng, jokers, joker_boost) for _ in range(int(rng.integers(1, 9)))]))
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.4 else 0):
        piles.append(Pile("loose", [_any_card(rng, jokers, joker_boost)]))
    if rng.random() < 0.35:
        piles.append(Pile("backs", ["BACK"] * int(rng.integers(1, 4))))
    order = rng.permutation(len(piles))
    return [piles[i] for i in order]


def layout_of(piles: Sequence[Pile]) -> dict[str, Any]:
    """The ground-truth table layout (``scorer.layout`` JSON) for one side's piles."""
    team: dict[str, Any] = {"melds": [], "squared_books": [], "red_threes": [], "left": []}
    for p in piles:
        if p.kind in ("meld", "book"):
            team["melds"].append(list(p.codes))
        elif p.kind == "squared":
            team["squared_books"].append({"top": p.marker, "cards": list(p.codes)})
        elif p.kind == "red_threes":
            team["red_threes"].extend(p.codes)
        elif p.kind == "left":
            team["left"].append(list(p.codes))
    return {"rules": "pagat", "round": 1, "went_out": None, "teams": {"A": team}}
