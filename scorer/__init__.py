"""handfoot's rules engine: cards, melds, books, rule presets, round and game scoring.

Pure Python: it never imports the camera pipeline (``vision``) or the web service.
"""

from .cards import Card, Rank, Suit, format_cards, parse_cards
from .errors import (HandFootError, IllegalLayoutError, IllegalMeldError, InvalidCardError, InvalidLayoutError,
                     RulesError, UnknownRulesError)
from .presets import PRESET_NAMES, all_presets, get_rules
from .rules import BookGrowth, Rules

__all__ = [
    "Card", "Rank", "Suit", "format_cards", "parse_cards",
    "HandFootError", "IllegalLayoutError", "IllegalMeldError", "InvalidCardError", "InvalidLayoutError",
    "RulesError", "UnknownRulesError",
    "PRESET_NAMES", "all_presets", "get_rules", "BookGrowth", "Rules",
]
