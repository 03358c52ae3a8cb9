"""The table layout: the JSON contract between the camera pipeline, the rules engine, the API and tests.

A layout says what lies on the table at the end of a round, per side (team), and is simple enough to write
by hand::

    {"rules": "pagat", "round": 1, "went_out": "A",
     "teams": {"A": {"melds": [["KH", "KS", "KD"]],
                     "squared_books": [{"top": "QH"}],
                     "red_threes": ["3H"],
                     "left": [["QH", "7C", "4D"]],
                     "exact_deal": 0},
               "B": {...}}}

* ``melds`` — fanned piles, each a list of card codes; a meld of ``book_size`` (7) cards is a book.
* ``squared_books`` — completed books stacked so only the top card shows: ``{"top": "QH"}``, optionally
  ``"kind"`` (``clean``/``dirty``/``wild``: when the marker card does not tell), ``"rank"``, ``"count"``
  (cards in the stack, 7 unless the rules let books grow) and ``"cards"`` (the full composition, once
  someone has counted it).
* ``red_threes`` — red threes laid on the table.
* ``left`` — cards still in each hand or foot, one list per packet (an unplayed foot too, red threes
  included: they are charged as red threes).
* ``exact_deal`` — how many exact-cut / exact-grab bonuses the side earned (only where the rules have one).
* ``loose`` — cards on the table that belong to no pile (a discard, a card the camera could not place): not
  scored, but counted against the decks.

Optional top-level keys: ``house_rules`` (rule fields to override, e.g. ``{"go_out_clean_books": 2}``).
Unknown keys are refused so a typo never silently scores zero. See ``docs/layout.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, ValidationError,
                      field_validator)

from .cards import Card, Rank
from .errors import InvalidLayoutError
from .melds import BookKind
from .numbers import Whole, WholeOrNone
from .presets import get_rules
from .rules import Rules, rule_values_problem
from .wording import json_kind


def _to_card(value: Any) -> Card:
    if isinstance(value, Card):
        return value
    return Card.parse(value)  # InvalidCardError is a ValueError: pydantic reports it with its location


CardCode = Annotated[Card, BeforeValidator(_to_card), PlainSerializer(lambda c: c.code, return_type=str)]


def _to_rank(value: Any) -> Rank:
    if isinstance(value, Rank):
        return value
    text = str(value).strip().upper()
    text = {"T": "10", "JOKER": "JK"}.get(text, text)
    for r in Rank:
        if r.value == text:
            return r
    raise ValueError(f"unknown rank {value!r}")


RankCode = Annotated[Rank, BeforeValidator(_to_rank), PlainSerializer(lambda r: r.value, return_type=str)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SquaredBook(_Strict):
    """A complete book squared into a stack: only ``top`` is visible.

    Attributes:
        top: the marker card on top.
        kind: declared kind; None means "read it from the marker card".
        rank: the book's rank, when the top card (a wild) does not show it.
        count: cards in the stack; None means ``book_size``.
        cards: the full composition when counted; makes the book's value exact.
        suits_seen: False when ``cards`` was made from a count of the book's twos and jokers (the suits under its
            top card were not seen, only filled in): its cards then count against the decks' copies of each card
            by its top card alone (its jokers and its number of cards still count).
    """

    top: CardCode
    kind: BookKind | None = None
    rank: RankCode | None = None
    count: WholeOrNone = Field(None, ge=1)
    cards: list[CardCode] | None = None
    suits_seen: bool = True


class TeamLayout(_Strict):
    """One side's part of the table. Lists default to empty."""

    melds: list[list[CardCode]] = Field(default_factory=list)
    squared_books: list[SquaredBook] = Field(default_factory=list)
    red_threes: list[CardCode] = Field(default_factory=list)
    left: list[list[CardCode]] = Field(default_factory=list)
    exact_deal: Whole = Field(0, ge=0)
    #: cards seen on the table that belong to no pile (the camera's "loose" cards): not scored, but counted
    #: against the decks; kept so that correcting a reading is moving them, not retyping them
    loose: list[CardCode] = Field(default_factory=list)


class TableLayout(_Strict):
    """A whole table at the end of a round.

    Attributes:
        rules: preset name (``scorer.presets.PRESET_NAMES``).
        house_rules: rule fields to override on top of the preset.
        round: 1-based round number.
        went_out: the team that went out, or None.
        teams: team name -> :class:`TeamLayout` (one or more sides).
    """

    rules: str = "pagat"
    house_rules: dict[str, Any] = Field(default_factory=dict)
    round: Whole = Field(1, ge=1)
    went_out: str | None = None
    teams: dict[str, TeamLayout] = Field(min_length=1)

    @field_validator("house_rules")
    @classmethod
    def _house_rule_values(cls, house: dict[str, Any]) -> dict[str, Any]:
        problem = rule_values_problem(house)  # said with the layout's place (its file), not later as the rules'
        if problem:
            raise ValueError(problem)
        return house

    # -- reading and writing ------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any) -> "TableLayout":
        """Validate a parsed JSON document.

        Raises:
            InvalidLayoutError: one line naming the first wrong place, e.g.
                ``teams.A.melds[0][2]: unknown card code 'ZZ' ...``.
        """
        if not isinstance(data, dict):
            raise InvalidLayoutError(f"a layout is a JSON object, not {json_kind(data)}")
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise InvalidLayoutError(_layout_error(exc)) from None

    @classmethod
    def from_json(cls, text: str) -> "TableLayout":
        """Parse layout JSON text. Raises :class:`InvalidLayoutError` for empty text, bad JSON or a bad document."""
        if not text.strip():
            raise InvalidLayoutError("empty (expected a JSON document)")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidLayoutError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        return cls.from_dict(data)

    @classmethod
    def from_file(cls, path: str | Path) -> "TableLayout":
        """Read a layout file. Raises :class:`InvalidLayoutError` (naming the file) when it is unreadable."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InvalidLayoutError(f"{p}: no such file") from None
        except IsADirectoryError:
            raise InvalidLayoutError(f"{p}: is a directory, not a layout file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidLayoutError(f"{p}: cannot read layout: {exc.__class__.__name__}: {exc}") from None
        try:
            return cls.from_json(text)
        except InvalidLayoutError as exc:
            raise InvalidLayoutError(f"{p}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        """The layout as plain JSON-ready data (card codes as strings, defaults omitted)."""
        return self.model_dump(mode="json", exclude_defaults=True)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def resolve_rules(self, name: str | None = None) -> Rules:
        """The rules this layout is scored under: ``name`` (e.g. from ``--rules``) or the layout's own preset,
        with ``house_rules`` applied.

        Raises:
            UnknownRulesError, RulesError.
        """
        return get_rules(name or self.rules, **self.house_rules)


def _layout_error(exc: ValidationError) -> str:
    errors = exc.errors()
    shown = "; ".join(_one_error(e) for e in errors[:3])
    more = len(errors) - 3
    return shown + (f" (and {more} more problem{'s' * (more > 1)})" if more > 0 else "")


def _one_error(err: dict) -> str:
    parts: list[str] = []
    for p in err["loc"]:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        elif p in ("function-before[_to_card(), str]",):
            continue
        else:
            parts.append(("." if parts else "") + str(p))
    loc = "".join(parts) or "layout"
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    elif err["type"] == "missing":
        msg = "required key is missing"
    elif msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    return f"{loc}: {msg}"


def load_layout(source: str | Path | dict) -> TableLayout:
    """A layout from a dict, a JSON string or a file path. Raises :class:`HandFootError` subclasses."""
    if isinstance(source, dict):
        return TableLayout.from_dict(source)
    if isinstance(source, Path) or (isinstance(source, str) and not source.lstrip().startswith("{")):
        return TableLayout.from_file(source)
    return TableLayout.from_json(source)


__all__ = ["SquaredBook", "TeamLayout", "TableLayout", "load_layout"]
