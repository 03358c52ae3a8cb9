"""Card codes as class ids: one per card code, 52 cards plus the joker.

The pipeline finds *corner indices* (rank + suit pip, or a joker's corner mark), one box per visible index, so
a fully visible card yields two boxes; each box's class id is a position in :data:`CLASS_NAMES` (given by the
index reader, or by a 53-class detector; the shipped detector has one class, "corner index"). The index
reader's probabilities become card codes here too (:func:`reading`), without the model.
"""

from __future__ import annotations

import numpy as np

RANK_CODES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_CODES = ("S", "H", "D", "C")
#: the index reader's rank classes (``vision.models.reader``): A-K, joker, and "none" (not a corner index)
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


def code_of(rank: int, suit: int) -> str | None:
    """Card code of a (rank index, suit index) pair; ``None`` for "no index"."""
    if RANKS[rank] == "none":
        return None
    if RANKS[rank] == "JK":
        return "JK"
    return RANKS[rank] + SUIT_CODES[suit]


#: (len(RANKS), 4) int64: the class id (:data:`CLASS_ID`) of each (rank index, suit index) pair (:func:`code_of`),
#: -1 for "no index"
CLASS_OF = np.array([[CLASS_ID[code_of(r, s)] if RANKS[r] != "none" else -1 for s in range(len(SUIT_CODES))]
                     for r in range(len(RANKS))], np.int64)


def reading(rank_p: np.ndarray, suit_p: np.ndarray) -> tuple[list[str | None], np.ndarray]:
    """Each box read alone from the reader's rank ``(n, 15)`` (:data:`RANKS`) and suit ``(n, 4)`` probabilities:
    (its likeliest card code, ``None`` for "no index"; (n,) float32 :func:`p_rank_colour` of that reading)."""
    r, s = rank_p.argmax(1), suit_p.argmax(1)
    return _codes(r, s), p_rank_colour(rank_p, suit_p, r, s)


def _codes(rank: np.ndarray, suit: np.ndarray) -> list[str | None]:
    return [code_of(int(a), int(b)) for a, b in zip(rank, suit)]


def p_rank_colour(rank_p: np.ndarray, suit_p: np.ndarray, rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """(n,) probability of each reading's rank and of its suit's colour (red or black), from rank ``(n, 15)``
    and suit ``(n, 4)`` probabilities; ``rank`` and ``suit`` (n,) are the reading's indices into :data:`RANKS`
    and ``SUIT_CODES``. A joker has no suit: its probability is its rank's.

    The rules score a card by its rank; of its suit they need only the colour: a red three is a bonus and a
    black one is not (seed 000 "Rules at a Glance"), and a squared book's marker is clean when red, dirty when
    black (seed 000 "Melds: Clean, Dirty and Wild", seed 002 §3). In a tight fan the next card often hides an
    index's suit pip and leaves the rank: the code's own probability (rank x suit) then dropped cards the rules
    can count.
    """
    i = np.arange(len(rank))
    red = np.array([c in "HD" for c in SUIT_CODES])
    p_red = suit_p[:, red].sum(1)
    colour = np.where(red[suit], p_red, 1.0 - p_red)
    return (rank_p[i, rank] * np.where(rank < 13, colour, 1.0)).astype(np.float32)


def softmax(z: np.ndarray) -> np.ndarray:
    """Softmax over the last axis."""
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def cluster_key(code: str) -> str | None:
    """The key a card of code ``code`` (``"KH"``, ``"JK"``) is clustered by: its natural rank (``"K"``), ``"3R"`` for
    a red three, ``None`` for a wild (a two or a joker). Cards of one key may form a meld; wilds join any."""
    if is_red_three(code):
        return "3R"
    rank = rank_of(code)
    return None if rank in ("JK", "2") else rank


def is_red_three(code: str) -> bool:
    """3♥ or 3♦ (seed 000 "Red threes": laid out on the table, never melded)."""
    return code in ("3H", "3D")
