"""Games kept in the ledger: creating one, adding, correcting and undoing rounds, the running totals.

The application layer over :class:`handfoot.ledger.Ledger` and :class:`scorer.game.Game`: a round comes as a
layout, or as a stored photo reading plus the corrections a player made; it is scored under the game's rules
(preset and house rules) and stored as a layout. Every function raises a :class:`scorer.HandFootError` for what
a user can get wrong.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model, field_validator
from pydantic.fields import FieldInfo

from scorer import HandFootError, get_rules
from scorer.errors import InvalidLayoutError
from scorer.game import Game
from scorer.rules import Rules
from scorer.scoring import score_round
from scorer.wording import counted

from .core import layout_of, read_layout_file
from .corrections import Correction
from .errors import ConflictError, NotFoundError
from .ledger import GameRecord, Ledger, RoundRecord
from .limits import DEFAULT_LIMITS, Limits, team_names_problem
from .readings import correct_reading, layout_piles, load_reading, rules_of
from .results import LayoutPileOut, Lesson, RoundScoreOut

#: the most teams a game has; the page's Add a team stops there (``TEAMS_MAX`` in web/games.js)
TEAMS_MAX = 8


def _house_rules_model() -> type[BaseModel]:
    """House rules as a model: every field of :class:`scorer.rules.Rules` (but its name, title and source),
    optional, with the range, type and meaning the rules give it, so the schema documents each and a value out of
    range is refused before anything is scored."""
    fields = {name: (info.annotation | None, FieldInfo.merge_field_infos(info, default=None))
              for name, info in Rules.model_fields.items() if name not in ("name", "title", "source")}
    return create_model("HouseRules", __config__=ConfigDict(extra="forbid"),
                        __doc__="Rule fields overriding a preset's (GET /v1/rules/{name}/fields), each within its "
                                "range.", **fields)


HouseRules = _house_rules_model()


def house_rules_dict(house: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """The fields given of :data:`HouseRules` as plain JSON values (a field given as null stays, e.g.
    ``pickup_size: null`` takes the whole pile)."""
    if isinstance(house, dict):
        return house
    return house.model_dump(mode="json", exclude_unset=True)


class _Named(BaseModel):
    """Team names in seating order, each a team's name (:func:`handfoot.limits.team_names_problem`), and each
    team's players (team -> at most 6 names of at most 40 characters)."""

    model_config = ConfigDict(extra="forbid")

    teams: list[str] = Field(default_factory=lambda: ["A", "B"], min_length=2, max_length=TEAMS_MAX)
    names: dict[str, list[str]] | None = Field(default_factory=dict, max_length=12)

    @field_validator("teams")
    @classmethod
    def _teams(cls, teams: list[str]) -> list[str]:
        problem = team_names_problem(teams)
        if problem:
            raise ValueError(problem)
        return teams

    @field_validator("names")
    @classmethod
    def _names(cls, names: dict[str, list[str]] | None) -> dict[str, list[str]] | None:
        for team, players in (names or {}).items():
            if len(players) > 6 or any(len(p) > 40 for p in players):
                raise ValueError(f"players of team {team}: at most 6 names of at most 40 characters")
        return names


class GameCreate(_Named):
    """A new game: its rules preset, house rules (rule fields overriding it), team names in seating order and,
    optionally, each team's players (team -> names)."""

    rules: str = Field("pagat", max_length=40)
    names: dict[str, list[str]] = Field(default_factory=dict, max_length=12)
    house_rules: HouseRules = Field(default_factory=HouseRules)  # type: ignore[valid-type]
    #: the family's deck, taught by the game's saved photo rounds as it goes (``handfoot.teaching``), or None
    teach: str | None = Field(None, max_length=40, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
    #: the family's cards are printed light on dark: every phone reads the game's photos as their negatives
    negative: bool = Field(False, strict=True)
    #: the game this one is started as the next of (the page's "New game, same teams"): that game's
    #: ``newer_game`` is this one once it is over, even with a team renamed
    follows: str | None = Field(None, pattern=r"^[0-9a-f]{16}$")


class TeamsRename(_Named):
    """A game's teams named again: the name of each, in seating order (as many as the game has; the team in each
    seat keeps its rounds under its new name), checked as a new game's are; and, optionally, each team's players
    (team -> names, by the new names; left out: each team keeps its players)."""

    teams: list[str] = Field(min_length=2, max_length=TEAMS_MAX)
    names: dict[str, list[str]] | None = Field(None, max_length=12)


class RoundIn(BaseModel):
    """A round from a photo reading: its id, the corrections a player made (``handfoot.corrections``) and the
    round's facts (who went out: None for nobody; left out, as the reading says)."""

    model_config = ConfigDict(extra="forbid")

    photo_reading: str = Field(max_length=40)
    corrections: list[Any] = Field(default_factory=list, max_length=500)
    went_out: str | None = Field("", max_length=40)


class RoundOut(BaseModel):
    """A stored round, scored: its number, opening minimum, layout, score and where it came from; ``piles``: its
    layout's piles, each named as the check view names it (a problem's ``where`` or ``cards`` finds the piles
    it is about)."""

    n: int
    minimum: int
    layout: dict[str, Any]
    score: RoundScoreOut
    piles: list[LayoutPileOut] = Field(default_factory=list)
    photo_reading: str | None
    photos: list[str]
    corrections: list[Any]
    created: str
    updated: str


class GameOut(BaseModel):
    """A game with every round scored, the running totals (an ``[min, max]`` pair while a squared book is
    uncounted), the next round and its opening minimum (None once over), the team certainly ahead, the
    winner once the last round is in, and the deck profile its photos are read with (None: the stock reader);
    the deck its saved photo rounds teach (``teach``, None: none) and that deck's last lesson; whether its cards are
    printed light on dark (``negative``: its photos are read as their negatives)."""

    id: str
    created: str
    rules: str
    house_rules: dict[str, Any]
    teams: list[str]
    names: dict[str, list[str]]
    rounds: list[RoundOut]
    totals: dict[str, int | list[int]]
    next_round: int | None
    next_minimum: int | None
    rounds_in_game: int = Field(4, description="the rounds the game plays (its rules' opening minimums)")
    leader: str | None
    winner: str | None
    over: bool
    deck: str | None = None
    teach: str | None = None
    lesson: Lesson | None = None
    negative: bool = Field(False, description="the game's cards are printed light on dark (gold on black): every "
                                              "phone reads its photos as their negatives (POST /v1/photos "
                                              "`negative`); PUT /v1/games/{id}/negative sets it")
    version: int = Field(0, description="counts every change of the game (its ETag); send it back in If-Match")
    newer_game: str | None = Field(None, description="the newest game started on this ledger after this one ended "
                                                     "(its last round saved) as its next (POST /games `follows`) or "
                                                     "of the same teams (in any order): its next game; None while it "
                                                     "is not over, or none was")


class GameSummary(BaseModel):
    """A game in the list: id, when it was made, rules, teams, rounds played, totals, winner, deck profile."""

    id: str
    created: str
    rules: str
    teams: list[str]
    rounds: int
    totals: dict[str, int | list[int]]
    winner: str | None
    over: bool
    deck: str | None = None


def create_game(ledger: Ledger, body: GameCreate) -> GameRecord:
    """Check the rules and teams, store the game. Another number of teams than the preset seats sets the
    house rule ``players`` to teams x the preset's team size (three teams of two: six players), unless
    ``players`` is given.

    Raises:
        UnknownRulesError, RulesError: bad rules or house rules (e.g. more players than the rules allow);
        HandFootError: teams that do not match a given ``players``, players of a team that is not in ``teams``.
    """
    house = house_rules_dict(body.house_rules)
    rules = rules_of(body.rules, house)
    if len(body.teams) != rules.teams and "players" not in house:  # three teams of two: six players
        house["players"] = len(body.teams) * rules.team_size
        try:
            rules = rules_of(body.rules, house)
        except HandFootError as exc:
            raise HandFootError(f"{counted(len(body.teams), 'team')} under '{rules.name}': {exc}") from None
    if len(body.teams) != rules.teams:
        raise HandFootError(f"{counted(len(body.teams), 'team')} but '{rules.name}' with {rules.players} players has "
                            f"{rules.teams}")
    _check_players(body)
    return ledger.create_game(rules.name, house, body.teams, body.names, teach=body.teach, negative=body.negative,
                              follows=body.follows)


def _check_players(body: _Named) -> None:
    """Raise HandFootError for players given for a team that is not one of ``body``'s teams."""
    stray = sorted(set(body.names or {}) - set(body.teams))
    if stray:
        raise HandFootError(f"names given for team {', '.join(stray)}, which is not one of the teams "
                            f"({', '.join(body.teams)})")


def rename_teams(ledger: Ledger, game_id: str, body: TeamsRename, expect: int | None = None) -> GameOut:
    """Name the game's teams (and players) as ``body`` says, from version ``expect`` of the game (None: any):
    everything stored of the game takes the new names at once (:meth:`handfoot.ledger.Ledger.rename_teams`); named
    so already, nothing changes. Returns the game.

    Raises:
        NotFoundError: no such game; StaleError: the game is not at version ``expect``; HandFootError: another
        number of teams than the game's, players of a team that is not in ``teams``.
    """
    record = ledger.game(game_id)
    if len(body.teams) != len(record.teams):
        raise HandFootError(f"the game has {counted(len(record.teams), 'team')} ({', '.join(record.teams)}): name "
                            f"each, in seating order, not {counted(len(body.teams), 'team')}")
    _check_players(body)
    with ledger.rounds_lock:
        ledger.rename_teams(game_id, body.teams, body.names, expect)
    return game_view(ledger, game_id)


def _game(record: GameRecord, rounds: Sequence[RoundRecord]) -> tuple[Game, list]:
    rules = rules_of(record.rules, record.house_rules)
    game = Game(rules, named=tuple(record.teams))
    scores = []
    for r in rounds:
        layout = layout_of(r.layout)
        score = score_round(layout, rules, lenient=True)
        game.rounds.append(score)
        scores.append(score)
    return game, scores


def _total(lo_hi: tuple[int, int]) -> int | list[int]:
    lo, hi = lo_hi
    return lo if lo == hi else [lo, hi]


def game_view(ledger: Ledger, game_id: str) -> GameOut:
    """The game with every round scored. Raises NotFoundError."""
    record = ledger.game(game_id)
    rounds = ledger.rounds(game_id)
    game, scores = _game(record, rounds)
    totals = game.totals()
    out_rounds = []
    for r, score in zip(rounds, scores):
        scored = RoundScoreOut.model_validate(score.to_dict())
        piles = [pile for pile, _ in layout_piles(layout_of(r.layout), scored, game.rules)]
        photos = []
        if r.reading:
            try:
                files = ledger.reading(r.reading).files
                photos = [f"/v1/photos/{r.reading}/images/{k}" for k in range(len(files))]
            except HandFootError:
                photos = []
        out_rounds.append(RoundOut(n=r.n, minimum=game.rules.opening_minimum(r.n), layout=r.layout,
                                   score=scored, piles=piles, photo_reading=r.reading,
                                   photos=photos, corrections=r.corrections, created=r.created, updated=r.updated))
    return GameOut(id=record.id, created=record.created, rules=record.rules, house_rules=record.house_rules,
                   teams=record.teams, names=record.names, rounds=out_rounds,
                   totals={t: _total(v) for t, v in totals.items()},
                   next_round=None if game.is_over else game.round_number, next_minimum=game.next_minimum(),
                   rounds_in_game=game.rules.rounds, leader=game.leader(), winner=game.winner(), over=game.is_over, deck=record.deck,
                   teach=record.teach, lesson=_lesson(ledger, record.teach), negative=record.negative,
                   version=record.version,
                   newer_game=newer_game(ledger, game_id) if game.is_over else None)


def newer_game(ledger: Ledger, game_id: str) -> str | None:
    """The id of the newest game started on ``ledger`` after game ``game_id`` ended (made once its last round was
    saved: the table's next game, from whichever phone) as its next (``follows`` it, a team renamed or not) or of
    the same teams (in any seating order), or None while it is not over or when none was; another game of other
    teams is another table's, not its next.
    Raises NotFoundError."""
    record = ledger.game(game_id)
    rounds = ledger.rounds(game_id)
    if not rounds or len(rounds) < rules_of(record.rules, record.house_rules).rounds:
        return None
    return ledger.game_after(game_id, rounds[-1].created)


def _lesson(ledger: Ledger, deck: str | None) -> Lesson | None:
    found = ledger.lesson(deck) if deck else None
    return Lesson.model_validate(found) if found else None


def game_summaries(ledger: Ledger) -> list[GameSummary]:
    out = []
    for record in ledger.games():
        game, _ = _game(record, ledger.rounds(record.id))
        totals = game.totals()
        out.append(GameSummary(id=record.id, created=record.created, rules=record.rules, teams=record.teams,
                               rounds=len(game.rounds), totals={t: _total(v) for t, v in totals.items()},
                               winner=game.winner(), over=game.is_over, deck=record.deck))
    return out


def round_layout(ledger: Ledger, record: GameRecord, n: int, body: dict[str, Any],
                 limits: Limits = DEFAULT_LIMITS, lenient: bool = False) -> tuple[dict[str, Any], str | None, list]:
    """The layout of round ``n`` from a request body, scored under the game's rules: either a layout, or
    ``{"photo_reading": ID, "corrections": [...], "went_out": ...}``. Returns (layout, reading id or None,
    corrections).

    Raises:
        InvalidLayoutError: a bad layout; a layout whose rules, house rules or round disagree with the game's;
        a team that is not the game's. IllegalLayoutError: a round that breaks the rules (unless ``lenient``).
        NotFoundError: no such reading. CorrectionError: a correction that cannot be applied.
    """
    rules = rules_of(record.rules, record.house_rules)
    reading_id, corrections = None, []
    if "photo_reading" in body:
        try:
            req = RoundIn.model_validate(body)
            ops = TypeAdapter(list[Correction]).validate_python(req.corrections)
        except ValidationError as exc:
            raise InvalidLayoutError(first_error(exc)) from None
        reading = load_reading(ledger.reading(req.photo_reading).result)
        corrected = correct_reading(reading, ops, round_no=n, went_out=req.went_out, rules=record.rules,
                                    house_rules=record.house_rules)
        doc = dict(corrected.layout)
        reading_id, corrections = req.photo_reading, [op.model_dump(mode="json") for op in ops]
    else:
        doc = dict(body)
        if doc.get("rules", record.rules) != record.rules:
            raise InvalidLayoutError(f"the layout says rules {doc['rules']!r} but the game plays {record.rules!r}")
        if doc.get("house_rules", record.house_rules) != record.house_rules:
            raise InvalidLayoutError("a round's house rules are the game's; leave 'house_rules' out")
        if isinstance(doc.get("round"), bool) or doc.get("round", n) != n:  # true is not round 1
            raise InvalidLayoutError(f"the layout says round {json.dumps(doc['round'])[:40]} but this is round {n} "
                                     "of the game")
    doc.update(rules=record.rules, round=n)
    if record.house_rules:
        doc["house_rules"] = record.house_rules
    layout = layout_of(doc, limits)
    stray = [t for t in layout.teams if t not in record.teams]
    if stray:
        raise InvalidLayoutError(f"team {stray[0]!r} is not one of the game's teams ({', '.join(record.teams)})")
    score_round(layout, rules, lenient=lenient)  # raises IllegalLayoutError unless lenient
    return layout.to_dict() | {"round": n}, reading_id, corrections


def first_error(exc) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "body"
    return f"{loc}: {err['msg'].removeprefix('Value error, ')}"  # a validator's own words, without pydantic's prefix


def add_round(ledger: Ledger, game_id: str, body: dict[str, Any], lenient: bool = False,
              limits: Limits = DEFAULT_LIMITS, expect: int | None = None) -> GameOut:
    """Score and store the game's next round, made from version ``expect`` of the game (None: any).

    Raises:
        NotFoundError: no such game; ConflictError: the game is over, or the photo reading is already a round;
        StaleError: the game is not at version ``expect``; and what :func:`round_layout` raises.
    """
    record = ledger.game(game_id)
    rules = rules_of(record.rules, record.house_rules)
    with ledger.rounds_lock:
        if isinstance(body.get("photo_reading"), str):
            ledger.check_once(body["photo_reading"], game_id)
        ledger.check_version(game_id, expect)
        n = len(ledger.rounds(game_id)) + 1
        if n > rules.rounds:
            raise ConflictError(f"the game is over: it plays {rules.rounds} round{'s' * (rules.rounds != 1)}")
        layout, reading, corrections = round_layout(ledger, record, n, body, limits, lenient)
        ledger.add_round(game_id, n, layout, reading, corrections, expect)
    return game_view(ledger, game_id)


def replace_round(ledger: Ledger, game_id: str, n: int, body: dict[str, Any], lenient: bool = False,
                  limits: Limits = DEFAULT_LIMITS, expect: int | None = None) -> GameOut:
    """Re-score and store a corrected round ``n``, made from version ``expect`` (None: any). Raises
    NotFoundError, StaleError, ConflictError (as :func:`add_round`) and what :func:`round_layout` raises."""
    record = ledger.game(game_id)
    with ledger.rounds_lock:
        ledger.check_version(game_id, expect)
        if not any(r.n == n for r in ledger.rounds(game_id)):
            raise NotFoundError(f"game {game_id} has no round {n}")
        layout, reading, corrections = round_layout(ledger, record, n, body, limits, lenient)
        ledger.replace_round(game_id, n, layout, reading, corrections, expect)
    return game_view(ledger, game_id)


def undo_round(ledger: Ledger, game_id: str, n: int, expect: int | None = None) -> GameOut:
    """Undo round ``n``, made from version ``expect`` of the game (None: any), as if it had never been played:
    its score leaves the totals, and each round after it moves up one (round k is round k - 1 from then on, scored
    under round k - 1's opening minimum; the page names them before asking). Returns the game.

    Raises:
        NotFoundError: no such game or round; StaleError: the game is not at version ``expect``.
    """
    ledger.game(game_id)
    with ledger.rounds_lock:
        ledger.delete_round(game_id, n, expect)
    return game_view(ledger, game_id)


def corrections_of(stored: list[Any]) -> list[Any]:
    """A round's stored corrections (JSON, as :func:`round_layout` kept them) as correction values
    (``handfoot.corrections.Correction``)."""
    return TypeAdapter(list[Correction]).validate_python(stored)



def score_game(paths: list[str], rules: str | None, house_rules: dict[str, Any], lenient: bool = False) -> Any:
    """A game (``scorer.game.Game``) of the layout files ``paths`` in order, under ``rules`` (default the first
    layout's preset) with the first layout's house rules and then ``house_rules``; each file's size, nesting and card
    count checked as :func:`handfoot.core.read_layout_file` checks them. Raises HandFootError naming the file of a
    round that breaks the rules (unless ``lenient``), cannot be read or is over the limits."""
    layouts = [read_layout_file(p) for p in paths]
    game = Game(get_rules(rules or layouts[0].rules, **{**layouts[0].house_rules, **house_rules}))
    for path, layout in zip(paths, layouts):
        try:
            game.add_round(score_round(layout, game.rules, lenient=lenient))
        except HandFootError as exc:
            raise HandFootError(f"{path}: {exc}") from None
    return game
