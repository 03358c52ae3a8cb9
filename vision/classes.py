"""Card codes as class ids: one per card code, 52 cards plus the joker.

The pipeline finds *corner indices* (rank + suit pip, or a joker's corner mark), one box per visible index, so
a fully visible card yields two boxes; each box's class id is a position in :data:`CLASS_NAMES` (given by the
index reader, or by a 53-class detector; the shipped detector has one class, "corner index").
"""

from __future__ import annotations

RANK_CODES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_CODES = ("S", "H", "D", "C")
#: the index reader's rank classes (``vision.reader``): A-K, joker, and "none" (not a corner index)
RANKS = RANK_CODES + ("JK", "none")
#: positions in :data:`RANKS` of the wild ranks and of "no index"
RANK_TWO, RANK_JOKER, RANK_NONE = RANKS.index("2"), RANKS.index("JK"), RANKS.index("none")

#: 53 class names: ``AS 2S ... KS AH ... KC JK``.
CLASS_NAMES: tuple[str, ...] = tuple(f"{r}{s}" for s in SUIT_CODES for r in RANK_CODES) + ("JK",)
CLASS_ID: dict[str, int] = {name: i for i, name in enumerate(CLASS_NAMES)}


def class_id(code: str) -> int:
    """Class id of a card code; red/black jokers (``RJ``, ``BJ``) map to ``JK``.

    Raises:
        KeyError: for a code that is not a card.
    """
    code = code.upper()
    if code in ("RJ", "BJ", "RED JOKER", "BLACK JOKER", "JOKER"):
        code = "JK"
    return CLASS_ID[code]


def rank_of(code: str) -> str:
    """The rank part of a card code: ``"10"`` for ``"10S"``, ``"JK"`` for a joker."""
    return code if code == "JK" else code[:-1]


def rank_colour(code: str) -> str:
    """What the rules need of a card code: its rank and its suit's colour (``"3 red"`` for ``"3H"`` and
    ``"3D"``, ``"K black"``), ``"JK"`` for a joker.

    A red three is a bonus and a black one is not (seed 000 "Rules at a Glance"); a squared book's marker is clean
    when red, dirty when black (seed 000 "Melds: Clean, Dirty and Wild", seed 002 §3); no rule looks at the suit
    itself.
    """
    if code == "JK":
        return code
    return f"{code[:-1]} {'red' if code[-1] in 'HD' else 'black'}"
