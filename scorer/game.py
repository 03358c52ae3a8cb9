"""A game: the rounds of one evening, with running totals and the winner.

Seed 000 and seed 002 §6: four rounds (one per opening minimum), each round's score added to a running
total, the higher total after the last round wins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import HandFootError
from .rules import Rules
from .scoring import RoundScore


class GameError(HandFootError, ValueError):
    """A round that does not fit the game (wrong rules, too many rounds, unknown team)."""


@dataclass
class Game:
    """Rounds played so far under one rule set.

    Attributes:
        rules: the rules of every round.
        rounds: scored rounds in play order.
        named: the game's teams as named when it began, in order (empty: the teams the rounds score); a team no
            round has scored yet counts 0 points, so a side whose piles no round held is not left out of who leads.

    Totals are ranges (``(min, max)`` in points) because a round may hold an uncounted squared book.
    """

    rules: Rules
    rounds: list[RoundScore] = field(default_factory=list)
    named: tuple[str, ...] = ()

    @property
    def teams(self) -> list[str]:
        """Team names: those ``named``, then the others in order of first appearance in the rounds."""
        names: list[str] = list(self.named)
        for r in self.rounds:
            names += [t for t in r.teams if t not in names]
        return names

    @property
    def round_number(self) -> int:
        """The number of the next round to play (1-based)."""
        return len(self.rounds) + 1

    @property
    def is_over(self) -> bool:
        return len(self.rounds) >= self.rules.rounds

    def next_minimum(self) -> int | None:
        """The opening minimum of the next round, or None when the game is over."""
        return None if self.is_over else self.rules.opening_minimum(self.round_number)

    def add_round(self, score: RoundScore) -> None:
        """Append a scored round.

        Raises:
            GameError: when the game is over, the round number is not the next one, or the rules differ.
        """
        if self.is_over:
            raise GameError(f"the game is over after {self.rules.rounds} rounds")
        if score.rules != self.rules.name:
            raise GameError(f"round scored under '{score.rules}' but the game plays '{self.rules.name}'")
        if score.round != self.round_number:
            raise GameError(f"expected round {self.round_number}, got round {score.round}")
        self.rounds.append(score)

    def running_totals(self) -> list[dict[str, tuple[int, int]]]:
        """After each round, each team's total so far as ``(min, max)`` points."""
        totals = {t: (0, 0) for t in self.teams}
        out = []
        for r in self.rounds:
            for t in totals:
                ts = r.teams.get(t)
                if ts is not None:
                    lo, hi = totals[t]
                    totals[t] = (lo + ts.total_min, hi + ts.total_max)
            out.append(dict(totals))
        return out

    def totals(self) -> dict[str, tuple[int, int]]:
        """Each team's total after the last round as ``(min, max)`` points; before any round, each team 0."""
        running = self.running_totals()
        return running[-1] if running else {t: (0, 0) for t in self.teams}

    def leader(self) -> str | None:
        """The team certainly ahead (its minimum beats every other maximum), else None (tie or unsure)."""
        totals = self.totals()
        for team, (lo, _) in totals.items():
            if all(lo > hi for other, (_, hi) in totals.items() if other != team):
                return team
        return None

    def winner(self) -> str | None:
        """The winner once every round is played (None while playing, on a tie, or when uncounted books
        leave it open)."""
        return self.leader() if self.is_over else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.name,
            "rounds": [{"round": r.round, "scores": {t: ts.total for t, ts in r.teams.items()},
                        "running": {t: (lo if lo == hi else [lo, hi]) for t, (lo, hi) in run.items()}}
                       for r, run in zip(self.rounds, self.running_totals())],
            "next_minimum": self.next_minimum(),
            "winner": self.winner(),
            "leader": self.leader(),
        }

    def format_text(self) -> str:
        """The game as a table: a row per round, its opening minimum, then each team's points in that round and
        its total after it (``lo..hi`` while a squared book is uncounted), and the next round or the winner."""
        teams = self.teams
        heads = ["Round", "Minimum"] + [f"{t} {what}" for t in teams for what in ("points", "total")]
        rows = []
        for r, run in zip(self.rounds, self.running_totals()):
            cells = [str(r.round), str(self.rules.opening_minimum(r.round))]
            for t in teams:
                ts = r.teams.get(t)
                cells += [_points(ts.total_min, ts.total_max) if ts else "0", _points(*run[t])]
            rows.append(cells)
        widths = [max(len(row[k]) for row in [heads, *rows]) + (0 if k == 0 else 2) for k in range(len(heads))]
        lines = [f"Game under '{self.rules.name}' (points: the round's score; total: the running total after it)"]
        lines += ["".join(f"{c:<{w}}" if k == 0 else f"{c:>{w}}" for k, (c, w) in enumerate(zip(row, widths)))
                  for row in [heads, *rows]]
        if self.is_over:
            w = self.winner()
            lines.append(f"Winner: team {w}" if w else "Winner: undecided (a tie, or uncounted books)")
        else:
            lines.append(f"Next: round {self.round_number}, opening minimum {self.next_minimum()}"
                         + (f"; leading: team {self.leader()}" if self.leader() else ""))
        return "\n".join(lines)


def _points(lo: int, hi: int) -> str:
    """Points as a table shows them: ``1,250``, or ``1,200..1,500`` while a squared book is uncounted."""
    return f"{lo:,}" if lo == hi else f"{lo:,}..{hi:,}"
