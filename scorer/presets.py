"""Named rule presets, one per rule system in ``../shared/seeds/``.

=================  ===========================================================================================
name               rule system
=================  ===========================================================================================
``pagat``          seed 000's main partnership rules (5 decks + 10 jokers, 13 + 13, 2 naturals per wild).
``bicycle``        seed 000 variations table, "Bicycle's rules" (11 + 11, one clean + one dirty to go out).
``saskatchewan``   seed 000 variations table, "Saskatchewan" (11 + 13, canastas past seven, <= 3 wilds).
``simpson``        seed 000 variations table, "Without partners", Steve Simpson's version.
``six-deck``       seed 001 (6 decks, teams of 2 or 3, canastas closed at 7 that still take naturals).
``score-sheet``    seed 002 (more naturals than wilds, 1 clean + 1 dirty to go out, worked examples).
``carousel``       seed 004 (round-1 minimum 60, one more natural than wilds, draw 3, exact-grab bonus).
=================  ===========================================================================================

Each preset lists only what differs from :class:`scorer.rules.Rules`' defaults, which are seed 000's main
rules. Where a seed is silent, the docstring comment beside the value says what we chose. A title does not say
the books a side needs to go out: :meth:`scorer.rules.Rules.going_out_text` says it from the preset's own fields.
"""

from __future__ import annotations

from typing import Any

from .errors import UnknownRulesError
from .rules import BookGrowth, Rules

_PRESETS: dict[str, dict[str, Any]] = {
    "pagat": dict(
        title="Hand and Foot, partnership rules (pagat-style guide)",
        source="seed 000: Rules at a Glance, Card Values, Melds, Opening Meld, Going Out, How to Score",
    ),
    "bicycle": dict(
        title="Bicycle's rules: 11-card hand and foot",
        source="seed 000 Variations 'Bicycle's rules'; seed 002 §4 (last card must be discarded)",
        hand_size=11, foot_size=11,
        # seed 000: "five or six decks": five for four players, one more than the players as elsewhere.
        go_out_clean_books=1, go_out_dirty_books=1, go_out_wild_books=0,
        # Chosen: Bicycle's sheet as quoted names only red and black books, so no wild books.
        wild_books=False,
        go_out_with_discard=True,
    ),
    "saskatchewan": dict(
        title="Saskatchewan: 11 + 13 cards, canastas that grow past seven with up to three wilds",
        source="seed 000 Variations 'Saskatchewan'",
        hand_size=11, foot_size=13,
        book_growth=BookGrowth.ANY,
        # Seed 000 gives only "up to three wild cards"; chosen from Canasta: at least two naturals.
        max_wilds=3, naturals_per_wild=0, natural_surplus=0, min_naturals=2,
        pickup_size=None,
        opening_book_rounds=(4,),
        go_out_clean_books=1, go_out_dirty_books=1, go_out_wild_books=1,
    ),
    "simpson": dict(
        title="Steve Simpson's without-partners version",
        source="seed 000 Variations 'Without partners'",
        team_size=1,
        # "Each player grabs about 22 cards": chosen as 11 + 11.
        hand_size=11, foot_size=11,
        exact_deal_bonus=100, max_exact_deals_per_team=1,
        clean_book_bonus=300, dirty_book_bonus=100,
        red_three_on_table=-500, red_three_in_hand=-500,
        go_out_partner_in_foot=False, go_out_ask_partner=False,
    ),
    "six-deck": dict(
        title="Six-deck canasta rules: teams of 2 or 3, dealer's exact-cut bonus",
        source="seed 001",
        decks=6, decks_follow_players=False,
        book_growth=BookGrowth.NATURALS,
        opening_needs_clean_or_wild=True,
        exact_deal_bonus=100, max_exact_deals_per_team=2,
        red_three_from_foot_replaced=False,
        # Chosen: seed 001's going-out list and wild limit are missing from its text; seed 000's contract
        # (2 clean, 2 dirty, 1 wild) and two naturals per wild (a canasta starts as 2 naturals + a joker).
        go_out_with_discard=True, go_out_partner_in_foot=False,
    ),
    "score-sheet": dict(
        title="Score-sheet rules with worked examples: more naturals than wilds",
        source="seed 002 §1-§8",
        naturals_per_wild=1, natural_surplus=1,
        go_out_clean_books=1, go_out_dirty_books=1, go_out_wild_books=0,
        # §7 lists "two clean and two dirty" as a common option: with_overrides(go_out_clean_books=2, ...).
        # Wild books are the §2 house rule; allowed here (bonus 1,500), never required.
        wild_books=True,
        go_out_partner_in_foot=False,
    ),
    "carousel": dict(
        title="Hand and Foot Carousel rules: draw three, round-1 minimum 60, exact 22/26 grab bonus",
        source="seed 004",
        draw_count=3,
        naturals_per_wild=1, natural_surplus=1,
        opening_minimums=(60, 90, 120, 150),
        exact_deal_bonus=100, max_exact_deals_per_team=2,
        go_out_with_discard=True, go_out_partner_in_foot=False,
        pickup_top_card_option=True, pickup_wild_with_wilds=False,
        # Each player grabs 22 or 26 cards and splits them: chosen 13 + 13 for the 26-card grab.
    ),
}

PRESET_NAMES: tuple[str, ...] = tuple(_PRESETS)


def get_rules(name: str, **overrides: Any) -> Rules:
    """The preset called ``name`` (case-insensitive; ``_`` and ``-`` are the same), optionally with house-rule
    overrides applied through :meth:`Rules.with_overrides`.

    Raises:
        UnknownRulesError: naming the unknown preset and listing the known ones.
        RulesError: for overrides that are unknown or inconsistent.
    """
    key = str(name).strip().lower().replace("_", "-")
    if key not in _PRESETS:
        raise UnknownRulesError(f"unknown rules {name!r}: choose one of {', '.join(PRESET_NAMES)}")
    rules = Rules(name=key, **_PRESETS[key])
    return rules.with_overrides(**overrides) if overrides else rules


def all_presets() -> list[Rules]:
    """Every preset, in the order of :data:`PRESET_NAMES`."""
    return [get_rules(n) for n in PRESET_NAMES]
