"""The command line's text reports: what ``handfoot score``, ``rules``, ``check-meld`` and ``deck`` print for a
person (their ``--json`` is the results' own JSON)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tqdm import tqdm

from scorer.layout import SquaredBook, TableLayout
from scorer.rules import Rules
from scorer.wording import counted

from .readings import book_count, layout_piles, rules_of
from .results import LayoutPileOut, PhotoScore, PileOut, RoundScoreOut


def layout_report(layout: TableLayout, score: RoundScoreOut, rules: Rules) -> str:
    """Each team's piles as the layout file gives them, one a line (so an edit shows), then a blank line; each
    named as a photo's report names it (:func:`handfoot.readings.layout_piles`: ``clean book`` for a meld that is a
    complete book), from its ``score`` under ``rules``."""
    def cards(codes) -> str:
        return " ".join(str(c) for c in codes)

    def text(pile: LayoutPileOut, item) -> str:
        if isinstance(item, SquaredBook):
            return (f"{item.top} on top" + (f", {item.count} cards" if item.count else "")
                    + (f" ({cards(item.cards)})" if item.cards else ""))
        return cards(item) + (" (not scored)" if pile.where.endswith(".loose") else "")

    piles = layout_piles(layout, score, rules)
    lines = []
    for team in layout.teams:
        rows = [(pile.label, text(pile, item)) for pile, item in piles if pile.team == team]
        lines.append(f"team {team} (layout)")
        width = max([22] + [len(label) + 1 for label, _ in rows])
        lines += [f"  {label:<{width}} {text}" for label, text in rows]
    return "\n".join([*lines, ""])


def photo_report(result: PhotoScore, saved_layout: str | None = None) -> str:
    """Photos read and scored, for a person: each image's piles by team, the cards left typed in, the round's
    score, what the camera is not sure of and how to correct it (``saved_layout``: where ``--save-layout`` wrote
    the layout)."""
    lines = []
    rules = rules_of(result.layout.get("rules"), result.layout.get("house_rules"))
    for image in result.images:
        width = max([22] + [len(p.label) + 1 for p in image.piles])
        for team in image.teams:
            piles = [p for p in image.piles if p.team == team and not p.id.startswith("t")]  # typed: below
            n = sum(len(p.cards) for p in piles)
            if image.kind == "hand":
                lines.append(f"team {team}, cards left in hand ({image.image}): {n} card{'s' * (n != 1)} seen")
            else:
                k = len(piles)
                lines.append(f"team {team} ({image.image}): {n} card{'s' * (n != 1)} seen, in {k} pile"
                             f"{'s' * (k != 1)}" + _books_counted([p for p in piles if p.kind == "squared_book"], n,
                                                                  rules))
            lines += [f"  {pile.label:<{width}} {' '.join(c.code for c in pile.cards)}" for pile in piles]
    lines += [f"team {team} left (entered): {' '.join(packet)}" for team, packets in result.left.items()
              for packet in packets]
    lines += ["", result.text_report()]
    if result.notes:
        lines += ["\nCheck these (the camera is not sure):", *(f"  - {note}" for note in result.notes)]
    if result.notes or result.score.problems:
        how = (f"fix {saved_layout}, then run: handfoot score {saved_layout}" if saved_layout else
               "add --save-layout LAYOUT.json, fix that file, then run: handfoot score LAYOUT.json")
        lines.append(f"\nTo correct the reading: {how} (add --lenient while it still breaks the rules)")
    return "\n".join(lines)


def _books_counted(books: list[PileOut], seen: int, rules: Rules) -> str:
    """What a photo's squared books add to its ``seen`` cards, so that the count agrees with the score's (a
    squared book shows its top card and is scored as its whole stack): ``"; 22 in all, as the squared book under
    9H counts as its 7 cards (only its top card shows)"``; "" without a squared book."""
    if not books:
        return ""
    sizes = [book_count(p.model_dump(), rules) for p in books]
    total = seen + sum(size - len(p.cards) for size, p in zip(sizes, books))
    tops = " and ".join(p.cards[0].code for p in books)
    if len(books) == 1:
        return (f"; {total} in all, as the squared book under {tops} counts as its {sizes[0]} cards (only its top "
                "card shows)")
    return (f"; {total} in all, as the squared books under {tops} count as their {' and '.join(map(str, sizes))} "
            "cards (only their top cards show)")


def rules_report(rules: Rules) -> str:
    """A preset's values, one field a line with what it means."""
    lines = [f"{rules.name}: {rules.title}\nsource: {rules.source}\n"]
    for field_name, info in Rules.model_fields.items():
        if field_name in ("name", "title", "source"):
            continue
        value = getattr(rules, field_name)
        value = getattr(value, "value", value)
        lines.append(f"  {field_name:<30}{json.dumps(value):<22}{info.description or ''}")
    return "\n".join(lines)


def melds_json(rules: Rules, checks: list[Any], opening: Any) -> dict[str, Any]:
    """``handfoot check-meld --json``: each meld's check (``scorer.melds.MeldCheck``) and the opening's."""
    return {
        "rules": rules.name,
        "melds": [{"cards": [c.code for c in ch.cards], "legal": ch.legal, "reasons": list(ch.reasons),
                   "rank": ch.rank.value if ch.rank else None, "naturals": ch.naturals, "wilds": ch.wilds,
                   "points": ch.points, "book": ch.kind.value if ch.kind else None} for ch in checks],
        "opening": None if opening is None else {
            "round": opening.round, "points": opening.points, "minimum": opening.minimum,
            "meets": opening.meets, "shortfall": opening.shortfall, "reasons": list(opening.reasons)},
    }


#: what "read right (rank and colour)" means, said under deck learn's figures
RANK_AND_COLOUR = ("read right = rank and colour: a suit within its colour never changes a Hand and Foot score, so a "
                   "club read as a spade counts as read right")


def deck_learned(profile: Any, path: Path, replaced: Any = None) -> str:
    """What ``handfoot deck learn`` says of the profile it learned and saved at ``path``, and of the profile of that
    name it replaced (``replaced``; None: there was none): the photos it learned from (all of them), how it was
    tested first (``vision.decks.check_folds``: a trial profile learned without the photos set aside, or without
    each photo or group of photos in turn, read them), each percentage with the count it is of, and what read right
    means (:data:`RANK_AND_COLOUR`)."""
    from vision.decks import check_text  # a profile's reports need the vision extra, as learning it does

    c = profile.check
    ink = c.get("ink", {}) if getattr(profile, "ink", None) is not None else {}
    told = ink.get("told")
    n, tested = profile.photos, counted(c["indices"], "index", "indices")
    method, aside = c.get("method", "kept aside"), c.get("photos")
    if method == "kept aside":
        how = (f"tested on {aside} of the {n} photos ({tested}), set aside while the other {n - aside} taught a "
               "trial profile" if aside else f"tested on photos set aside ({tested}) while the others taught a "
               "trial profile")
    elif method == "leave-one-out":
        how = (f"tested on each of the {n} photos ({tested} in all) left out in turn while the others taught a "
               "trial profile")
    else:
        groups = f"{c['folds']} groups" if c.get("folds") else "groups"
        how = (f"tested on the {n} photos ({tested} in all) in {groups}, each group left out in turn while the "
               "others taught a trial profile")
    inks = ""
    if told:
        suited = counted(ink["red"] + ink["black"], "index", "indices") + " with a suit" \
            if "red" in ink and "black" in ink else "indices with a suit"
        inks = (f"; the inks of its two suit colours learned (they tell hearts and diamonds from clubs and spades in "
                f"{told:.0%} of its {suited}, each photo's by the inks of the others)")
    lines = [f"deck {profile.name}: learned from {'all ' if n > 2 else ''}{counted(n, 'photo')} "
             f"({counted(profile.indices, 'index', 'indices')})"
             f"{'; printed light on dark, so read as its negative' if profile.negative else ''}{inks}",
             f"{how}: {check_text(c)}", RANK_AND_COLOUR]
    if c.get("profile_right") is not None and c.get("profile_right") == c.get("stock_right"):
        lines.append(f"it reads as many of them right as the stock reader"
                     f"{' reading their negatives' if c.get('stock_negative') else ''}, and is kept because it reads the turned "
                     f"views of them more surely ({c.get('profile', 0):.1%} against {c.get('stock', 0):.1%}): cards "
                     "seen at a slant or a little blurred are read better with it")
    if replaced is not None:
        lines.append(f"it replaces the deck {replaced.name} learned before ({deck_figures(replaced)})")
    lines.append(f"saved {path}; use it with --deck {profile.name}")
    return "\n".join(lines)


def deck_figures(p: Any) -> str:
    """A deck profile's figures in a few words: what it learned from, its test (on how many indices), when."""
    c = p.check
    tested = c.get("indices")
    read = (f"{c['stock_right']} -> {c['profile_right']} read right (rank and colour)" if "profile_right" in c else
            f"{c.get('stock', 0):.1%} -> {c.get('profile', 0):.1%} of the reader's views read right")
    return (f"{counted(p.photos, 'photo')}, {counted(p.indices, 'index', 'indices')}, tested"
            f"{f' on {tested} of them' if tested else ''}: {read}"
            f"{', read as its negative' if p.negative else ''}, learned {p.created}")


def deck_line(p: Any) -> str:
    """One deck profile in a line (``handfoot deck list``)."""
    return f"{p.name:<20} {deck_figures(p)}"


def stage_bars() -> Callable[[str, int, int], None] | None:
    """A ``progress(stage, done, total)`` callback drawing a tqdm bar a stage on standard error when it is a
    terminal, else None."""
    if not sys.stderr.isatty():
        return None

    bars: dict[str, tqdm] = {}

    def progress(stage: str, done: int, of: int) -> None:
        bar = bars.get(stage) or bars.setdefault(stage, tqdm(total=of, desc=stage, unit="photo", leave=False))
        bar.n = done
        bar.refresh()
        if done >= of:
            bar.close()

    return progress
