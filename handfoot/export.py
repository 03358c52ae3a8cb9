"""A game as a spreadsheet: its round grid as CSV, as ``GET /v1/games/{id}/export.csv`` sends it."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from .games import GameOut, game_view
from .ledger import Ledger

#: the UTF-8 byte-order mark a CSV starts with, so that Excel reads it as UTF-8 (emoji, accented team names)
BOM = "\ufeff"


def export_csv(ledger: Ledger, game_id: str) -> str:
    """The round grid as CSV text, starting with :data:`BOM`: ``round, minimum``, then each team's round score and
    running total (``lo..hi`` while a squared book is uncounted); once the game is over, a last row ``winner``
    naming the winning team (and its players, if the game has them), or why there is none. Raises NotFoundError."""
    view = game_view(ledger, game_id)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([_cell(c) for c in ["round", "minimum"] + [f"{t} points" for t in view.teams]
                + [f"{t} total" for t in view.teams]])
    running = {t: [0, 0] for t in view.teams}
    for r in view.rounds:
        points = []
        for t in view.teams:
            ts = r.score.teams.get(t)
            lo, hi = (ts.total_min, ts.total_max) if ts else (0, 0)
            running[t][0] += lo
            running[t][1] += hi
            points.append(str(lo) if lo == hi else f"{lo}..{hi}")
        totals = [str(lo) if lo == hi else f"{lo}..{hi}" for lo, hi in (running[t] for t in view.teams)]
        w.writerow([_cell(c) for c in [r.n, r.minimum] + points + totals])
    if view.over:
        w.writerow([_cell(c) for c in ["winner", winner_text(view)]])
    return BOM + buf.getvalue()


def winner_text(view: GameOut) -> str:
    """Who won the game ``view`` (over), in words: ``Mom & Dad (Ann, Bob)``, the players once the game names them;
    ``undecided: the wilds under a squared book are still to count (round 4: Them)``; ``none: a tie``."""
    if view.winner:
        players = view.names.get(view.winner) or []
        return view.winner + (f" ({', '.join(players)})" if players else "")
    open_ = [f"round {r.n}: {', '.join(t for t, ts in r.score.teams.items() if not ts.exact)}"
             for r in view.rounds if not all(ts.exact for ts in r.score.teams.values())]
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
