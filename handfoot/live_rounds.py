"""The rounds of a table watched for the live view (:class:`handfoot.live.LiveSession`): the round a game's camera
watches (its next), the end of a round kept as a photo reading for the check view, and the session moved on to the
game's next round once the round it watches is saved, here or on another phone."""

from __future__ import annotations

import dataclasses
import shutil
import threading
from typing import Any, Sequence

from scorer import HandFootError

from . import core, photo_request
from .errors import ConflictError, NotFoundError
from .games import GameOut
from .ledger import Ledger, new_id
from .live import LiveSession
from .photo_request import PhotoRequest
from .renaming import renamed

#: one End of round kept at a time (pressed on two phones at once, it is kept once)
_ENDING = threading.Lock()


def request_for_game(game: GameOut, split: str | None = None, deck: str | None = None) -> PhotoRequest:
    """The live round of a game (``handfoot.games.GameOut``): its rules and house rules, its next round, its
    teams (the first two split between the halves of the picture with ``split``; else the camera sees the first
    team's side), read with ``deck`` or else the game's deck profile.

    Raises:
        HandFootError: the game is over.
    """
    if game.over:
        raise HandFootError(f"game {game.id} is over: start a new game to watch a round")
    teams = tuple(game.teams[:2]) if split else tuple(game.teams[:1])
    return PhotoRequest(rules=game.rules, house_rules=tuple(game.house_rules.items()), round=game.next_round,
                        split=split, teams=teams, deck=deck or game.deck)


def end_round(session: LiveSession, ledger: Ledger, game: GameOut | None = None) -> str:
    """Keep the session's stable reading as a photo reading of ``ledger`` (``handfoot.ledger.Ledger``): the frame
    it was read from as the photo, its piles and score, ready for the check-and-correct view; ``session.ended`` says
    so until it is saved. Returns its id. Ended again for the same game before it is saved, with the table not read
    anew since (the answer lost on the way, or pressed on another phone too), it is the same reading, not a second.

    With ``game`` (``handfoot.games.GameOut``) other than the session's, the reading is for that game: its rules
    and next round, the teams in view named as the game's, in order.

    Raises:
        NothingReadError: no stable reading yet.
    """
    import cv2  # OpenCV: the optional vision extra

    with _ENDING:
        seen = session.stable()
        if seen is None or seen.photo is None:
            raise NothingReadError("nothing has been read yet: wait until the table has been still for a moment")
        target = game.id if game is not None else session.game
        if session.ended is not None and session.ended[0] == target and session.ended_from is seen:
            return session.ended[1]
        req, photo = session.settings, seen.photo
        if game is not None and game.id != session.game:
            names = dict(zip(req.table_teams(1), game.teams))
            req = request_for_game(game, req.split, req.deck)
        else:  # the game watched: a team renamed on a phone since the camera started takes its new name
            names = game_names(session, game.teams) if game is not None else {}
            req = dataclasses.replace(req, teams=tuple(names.get(t, t) for t in req.teams)) if names else req
        if names:
            photo = dataclasses.replace(photo, sides=[dataclasses.replace(s, team=names.get(s.team, s.team))
                                                      for s in photo.sides])
        rules = photo_request.check_photo_request(req, 1)
        result = core.photo_score([photo], ["live table"], req, rules)
        reading_id = new_id()
        folder = ledger.reading_dir(reading_id)
        folder.mkdir(parents=True)
        try:
            cv2.imwrite(str(folder / "photo-0.jpg"), seen.photo.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            core.keep_reading(ledger, reading_id, result, [{"name": "live table", "file": "photo-0.jpg",
                                                            "annotated": "annotated-0.jpg", "kind": "table"}])
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        session.ended, session.ended_from = (target, reading_id), seen
        return reading_id


def game_names(session: LiveSession, teams: Sequence[str]) -> dict[str, str]:
    """The names the session gives the teams in view -> the names ``teams`` (its game's, in seating order) give them
    now, where they differ: a team renamed on a phone since the camera started watching (``PUT
    /v1/games/{id}/teams``); the session's teams are its game's first, seat by seat. Empty: none renamed."""
    seen = session.settings.table_teams(1) if session.settings is not None else []
    return {old: new for old, new in zip(seen, teams) if old != new}


def named_as_game(state: dict[str, Any], session: LiveSession, ledger: Ledger) -> dict[str, Any]:
    """The live view's ``state`` (:meth:`handfoot.live.LiveSession.state`) with each team named as its game names
    it now (:func:`game_names`; the camera's reading keeps the names it started with, the view says the game's);
    ``state`` itself for a session watching no game, or a game deleted."""
    try:
        teams = ledger.game(session.game).teams if session.game is not None else []
    except NotFoundError:
        return state
    return renamed(state, game_names(session, teams))


def follow_game(session: LiveSession, ledger: Ledger) -> bool:
    """Move ``session`` on to its game's next round once the round it watches is saved to the game in ``ledger``
    (``handfoot.ledger.Ledger``): ended here (``session.ended``, its reading saved), or typed or read from a photo
    on another phone (the game has that round now). What the camera read of the round saved is forgotten: the
    table is read again at its next change, for the next round. A round ended here but not saved, or a round
    undone on another phone, leaves the session as it is. Returns whether the session moved on.
    """
    saved_here = session.ended is not None and any(r.reading == session.ended[1]
                                                   for r in ledger.rounds(session.ended[0]))
    watched = session.settings.round if session.settings is not None else None
    played = len(ledger.rounds(session.game)) if session.game is not None and watched else 0
    if watched and played >= watched:  # the round watched is the game's now, saved here or on another phone
        session.new_round(played + 1)
    elif saved_here:  # ended here for another game (a table watched without one): the round after
        session.new_round()
    else:
        return False
    session.ended = None
    return True


class NothingReadError(ConflictError):
    """The end of a round was asked before the table was read once."""
