"""A photo reading's request: what a family asks of the photos of one round (rules, round, teams, cards left,
who went out), parsed from what was typed and checked before any photo is read.

The command line (``handfoot.cli``), the web service (``handfoot.routes.photos``) and the live view build a
:class:`PhotoRequest`; :func:`check_photo_request` raises a one-line :class:`scorer.HandFootError` for anything a
user can cause, before the slow work of :mod:`handfoot.core`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from scorer import HandFootError, parse_cards
from scorer.errors import InvalidCardError
from scorer.rules import Rules
from scorer.wording import counted
from vision.config import DEFAULT as VISION_DEFAULT, SPLITS

from .limits import DEFAULT_LIMITS, Limits, team_names_problem, too_many_cards
from .readings import rules_of

#: default minimum confidence of a card's reading in photos: P(rank) x P(colour) x sqrt(detector confidence)
DEFAULT_CONF = VISION_DEFAULT.reading.min_conf


@dataclass(frozen=True)
class PhotoRequest:
    """What a photo reading is asked for, besides the photos.

    Attributes:
        rules: preset name; house_rules: fields overriding it.
        round: round number (1-based; None means 1).
        went_out: the team that went out, or None.
        split: ``horizontal`` or ``vertical`` to split one whole-table photo between two teams, or None.
        teams: team of each table photo in order (default ``A``, ``B``, ...); names past those are teams with no
            table photo, scored from their cards left alone.
        left: cards still held, typed in: team -> packets of card codes.
        conf: minimum confidence of a card's reading, in (0, 1].
        deck: read with this deck profile (``vision.decks``), or None for the stock reader.
        negative: read each photo as its negative (a deck printed light on dark, e.g. gold on black); a deck
            profile of such a deck does so by itself, one of a deck read as photographed refuses it.
    """

    rules: str = "pagat"
    house_rules: tuple[tuple[str, Any], ...] = ()
    round: int | None = None
    went_out: str | None = None
    split: str | None = None
    teams: tuple[str, ...] | None = None
    left: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    conf: float = DEFAULT_CONF
    deck: str | None = None
    negative: bool = False

    @property
    def left_packets(self) -> dict[str, list[list[str]]]:
        return {team: [list(p) for p in packets] for team, packets in self.left}

    def table_teams(self, n_photos: int) -> list[str]:
        """The team of each side read from ``n_photos`` table photos (two for a split photo)."""
        sides = 2 if self.split else n_photos
        return list(self.teams[:sides]) if self.teams else [chr(ord("A") + i) for i in range(sides)]


def parse_left(values: Iterable[str], limits: Limits = DEFAULT_LIMITS) -> dict[str, list[list[str]]]:
    """``A:"KH 7C 4S"`` items -> ``{"A": [["KH", "7C", "4S"]]}``, codes checked; the cards counted first.

    Raises:
        TooLargeError: more than ``limits.layout_cards`` cards in all; HandFootError: an item without ``TEAM:``
        or without cards after it; InvalidCardError: a bad code.
    """
    values = list(values)
    count = sum(len(v.partition(":")[2].replace(",", " ").split()) for v in values)  # the cards, not the team
    if count > limits.layout_cards:
        raise too_many_cards(f"left: {count:,} cards typed in", limits)
    out: dict[str, list[list[str]]] = {}
    for v in values:
        team, sep, cards = v.partition(":")
        if not sep or not team.strip():
            raise HandFootError(f'cards left need TEAM:"CARDS", got {v!r}')
        try:
            packet = [str(c) for c in parse_cards(cards)]
        except InvalidCardError as e:
            raise InvalidCardError(f"team {team.strip()}, cards left: {e}") from None
        if not packet:
            raise HandFootError(f"team {team.strip()}, cards left: {v!r} gives no cards (e.g. "
                                f'{team.strip()}:"KH 7C 4S")')
        out.setdefault(team.strip(), []).append(packet)
    return out


def parse_teams(text: str | None, repeats: bool = True) -> tuple[str, ...] | None:
    """``"A,B"`` -> ``("A", "B")``, each name stripped; None -> None. A name may repeat where ``repeats``
    (``"A,A,B"``: two photos of team A's side, one of B's).

    Raises:
        HandFootError: ``text`` empty or blank, or a name that is not a team's name
            (:func:`handfoot.limits.team_names_problem`: empty, too long, two names differing only in case...),
            quoting ``text``.
    """
    if text is None:
        return None
    names = tuple(t.strip() for t in text.split(","))
    problem = team_names_problem(names, repeats)
    if problem:
        raise HandFootError(f"teams {text!r}: {problem}")
    return names


def matched_team_names(req: PhotoRequest, n_photos: int,
                       hand_teams: Sequence[str] = ()) -> tuple[PhotoRequest, list[str]]:
    """``req`` and ``hand_teams`` (the team of each hand photo) with each team name typed for a hand photo, cards
    left or the team that went out spelled as the team it names but for case (``us`` for the team ``Us`` of
    ``--teams``): the teams of the table photos first, then those of the hand photos and cards left in order, each
    new name kept as first typed. A name two teams share but for case is matched exactly only; a name no team
    has is kept (:func:`check_photo_request` names it)."""
    known = req.table_teams(n_photos) + list(req.teams or ())

    def spelled(name: str, add: bool = True) -> str:
        near = {t for t in known if t.casefold() == name.casefold()}
        if name not in near and len(near) == 1:
            return near.pop()
        if add and name not in known:
            known.append(name)
        return name

    hands = [spelled(t) for t in hand_teams]
    left: dict[str, list[tuple[str, ...]]] = {}
    for team, packets in req.left:
        left.setdefault(spelled(team), []).extend(packets)
    went_out = None if req.went_out is None else spelled(req.went_out, add=False)
    return replace(req, went_out=went_out, left=tuple((t, tuple(p)) for t, p in left.items())), hands


def unnamed_team(team: str, teams: Sequence[str]) -> str:
    """The one-line message for cards left or a hand photo of ``team`` when ``teams`` (``--teams``) does not name
    it, with the likeliest slip (``difflib``'s closest name) offered."""
    near = difflib.get_close_matches(team, teams, n=1, cutoff=0.6) or [
        t for t in teams if t.casefold() == team.casefold()]
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return (f"cards of team {team!r}: not one of the teams given ({', '.join(teams)}){hint} "
            "(a team with cards left and no table photo is named in --teams too)")


def check_photo_request(req: PhotoRequest, n_photos: int, hand_teams: Sequence[str] = ()) -> Rules:
    """Every check on a photo reading that needs no photo, so a mistake is reported before the slow work.

    Returns:
        The rules (preset and house rules) to score with.

    Raises:
        HandFootError: no photo, a bad confidence, split, team list, round or went-out team; bad rules.
    """
    if n_photos < 1 and not hand_teams:
        raise HandFootError("no photo given")
    if not 0 < req.conf <= 1:
        raise HandFootError(f"conf must be in (0, 1], got {req.conf}")
    rules = rules_of(req.rules, dict(req.house_rules))
    if req.split is not None:
        if req.split not in SPLITS:
            raise HandFootError(f"unknown split {req.split!r}; use one of {', '.join(SPLITS)}")
        if n_photos != 1:
            raise HandFootError(f"split reads one photo of the whole table; {n_photos} table photos given")
    if req.teams is not None:
        need = 2 if req.split else n_photos
        what = "a photo split in two" if req.split else counted(n_photos, "table photo")
        given = f"{counted(len(req.teams), 'team name')} ({', '.join(req.teams)}) for {what}"
        if len(req.teams) < need:
            raise HandFootError(f"{given}: give {need}, one per side read")
        for team in [*hand_teams, *(team for team, _ in req.left)]:
            if team not in req.teams:
                raise HandFootError(unnamed_team(team, req.teams))
        with_cards = {*req.teams[:need], *hand_teams, *(team for team, _ in req.left)}
        bare = [t for t in dict.fromkeys(req.teams[need:]) if t not in with_cards]
        if bare:
            who = f"team {bare[0]} has" if len(bare) == 1 else f"teams {', '.join(bare)} have"
            raise HandFootError(f"{given}: {who} no table photo and no cards left; a team with no table photo is "
                                "scored from its cards left alone (typed, or a photo of a hand): give them, or its "
                                "table photo")
    if req.round is not None and not 1 <= req.round <= rules.rounds:
        raise HandFootError(f"round {req.round}: '{rules.name}' has rounds 1 to {rules.rounds}")
    read = set(req.table_teams(n_photos)) | set(req.teams or ()) | set(hand_teams)
    for team, _ in req.left:  # a team's name with another case is a slip, not a team of its own
        near = [t for t in read if t != team and t.casefold() == team.casefold()]
        if team not in read and near:
            raise HandFootError(f"cards left of team {team!r}: no team is called that; did you mean {near[0]!r}? "
                                "(team names are matched exactly)")
    if req.went_out is not None:
        known = read | {t for t, _ in req.left}
        if req.went_out not in known:
            raise HandFootError(f"went out: team {req.went_out!r} is not one of the teams read "
                                f"({', '.join(sorted(known))})")
    return rules
