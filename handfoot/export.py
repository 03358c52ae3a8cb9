"""A game as a spreadsheet: its round grid as CSV, as ``GET /v1/games/{id}/export.csv`` sends it and ``handfoot game
--csv`` writes it (:func:`grid_csv` writes both)."""

from __future__ import annotations

import csv
import io
import re
from typing import Any, Mapping, Sequence

from scorer.game import Game

from .games import game_view
from .ledger import Ledger

#: the UTF-8 byte-order mark a CSV starts with, so that Excel reads it as UTF-8 (emoji, accented team names)
BOM = "\ufeff"


def export_csv(ledger: Ledger, game_id: str) -> str:
    """The round grid of the game ``game_id`` kept in ``ledger`` as :func:`grid_csv` writes it; once the game is
    over, its last row names the winner's players too (if the game has them). Raises NotFoundError."""
    view = game_view(ledger, game_id)
    rounds = [(r.n, r.minimum, r.score.teams) for r in view.rounds]
    return grid_csv(view.teams, rounds, winner_text(view.winner, view.names.get(view.winner or "") or [], rounds)
                    if view.over else None)


def game_csv(game: Game) -> str:
    """The round grid of ``game`` (a game of layout files, ``handfoot game``) as :func:`grid_csv` writes it."""
    rounds = [(r.round, game.rules.opening_minimum(r.round), r.teams) for r in game.rounds]
    return grid_csv(game.teams, rounds, winner_text(game.winner(), [], rounds) if game.is_over else None)


def grid_csv(teams: Sequence[str], rounds: Sequence[tuple[int, int, Mapping[str, Any]]], winner: str | None) -> str:
    """The round grid as CSV text, starting with :data:`BOM`: ``round, minimum``, then each team's round score and
    running total (``lo..hi`` while a squared book is uncounted); ``winner`` (the game over: :func:`winner_text`),
    a last row ``winner`` saying it.

    Args:
        teams: the teams, in the columns' order.
        rounds: each round's number, opening minimum and team -> its score (``total_min`` and ``total_max``
            points; a team missing scores 0).
        winner: the last row's text, None while the game goes on.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([_cell(c) for c in ["round", "minimum"] + [f"{t} points" for t in teams]
                + [f"{t} total" for t in teams]])
    running = {t: [0, 0] for t in teams}
    for n, minimum, scores in rounds:
        points = []
        for t in teams:
            ts = scores.get(t)
            lo, hi = (ts.total_min, ts.total_max) if ts else (0, 0)
            running[t][0] += lo
            running[t][1] += hi
            points.append(str(lo) if lo == hi else f"{lo}..{hi}")
        totals = [str(lo) if lo == hi else f"{lo}..{hi}" for lo, hi in (running[t] for t in teams)]
        w.writerow([_cell(c) for c in [n, minimum] + points + totals])
    if winner is not None:
        w.writerow([_cell(c) for c in ["winner", winner]])
    return BOM + buf.getvalue()


def winner_text(winner: str | None, players: Sequence[str], rounds: Sequence[tuple[int, int, Mapping[str, Any]]]
                ) -> str:
    """Who won a game that is over, in words: ``Mom & Dad (Ann, Bob)``, ``winner`` with its ``players`` once the
    game names them; with no winner, ``undecided: the wilds under a squared book are still to count (round 4:
    Them)`` where a round of ``rounds`` (as :func:`grid_csv` takes them) has a team's score not exact, else ``none: a
    tie``."""
    if winner:
        return winner + (f" ({', '.join(players)})" if players else "")
    open_ = [f"round {n}: {', '.join(t for t, ts in scores.items() if not ts.exact)}"
             for n, _, scores in rounds if not all(ts.exact for ts in scores.values())]
    if open_:
        return f"undecided: the wilds under a squared book are still to count ({'; '.join(open_)})"
    return "none: a tie"


def _cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not run: text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return (a formula) gets a leading ``'``; numbers and point ranges (``-100``, ``-50..20``) stay."""
    text = str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not re.fullmatch(r"-?\d+(\.\.-?\d+)?", text):
        return "'" + text
    return value
