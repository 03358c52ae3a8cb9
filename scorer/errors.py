"""Errors raised by the rules engine.

Modelled on python-chess: input that cannot be *read* (a bad card code, a JSON key we do not know) is
*invalid*; input that reads fine but cannot happen at a Hand and Foot table under the chosen rules (eleven
jokers in a five-deck game, a meld of threes) is *illegal*. Every message is one line that names what was
wrong, so the command line can print it as it is.
"""

from __future__ import annotations


class HandFootError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidCardError(HandFootError, ValueError):
    """A card code could not be parsed (e.g. ``"ZZ"``, ``"1H"``, ``""``)."""


class InvalidLayoutError(HandFootError, ValueError):
    """A table layout document is malformed: not JSON, a missing or unknown key, a wrong type."""


class UnknownRulesError(HandFootError, LookupError):
    """A rule preset name that does not exist."""

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0]) if self.args else "unknown rules"


class RulesError(HandFootError, ValueError):
    """A rules object whose values are unknown or inconsistent (e.g. more cards dealt than the decks hold)."""


class IllegalMeldError(HandFootError, ValueError):
    """A meld that is well formed but breaks the rules (wrong size, too many wilds, threes, mixed ranks)."""


class IllegalLayoutError(HandFootError, ValueError):
    """A layout that cannot happen under the rules. ``problems`` lists every problem found, not only the first."""

    def __init__(self, message: str, problems: list | None = None) -> None:
        super().__init__(message)
        self.problems = list(problems or [])
