"""The values that flow between the stages of the camera pipeline, in one place: a card seen in a photo
(:class:`CardInstance`, stage 2), a pile of cards and its kind (:class:`Pile`, :class:`PileKind`, stage 3), one
side's and the whole table's reading (:class:`SideReading`, :class:`TableReading`, stage 4) and a photo with the
sides read from it (:class:`PhotoReading`). Stages import these; these import no stage."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import numpy as np

from .config import DEFAULT, VisionConfig
from .detections import Detections, median_index_size


@dataclass(frozen=True, eq=False)
class CardInstance:
    """One physical card seen in a photo.

    Attributes:
        code: card code (``"KH"``, ``"10S"``, ``"JK"``).
        detections: indices into the :class:`~vision.detections.Detections` it came from (1 or 2, or 4 for a
            card of a four-index deck seen whole: :func:`_four_corners`; none for a card counted in a gap of a
            fan, whose index was not read: :mod:`vision.fan_gaps`).
        centers: (k, 2) float index-box centres in pixels, k = len(detections) (for an unread card, k = 1: where
            its index would be).
        size: mean index size in pixels (square root of the index box area; for a joker, that of the
            natural indices nearest it: its corner mark is drawn at another size).
        confidence: highest detection confidence.
        card_height: estimated height of the card in pixels: the photo's typical index-to-index diagonal
            (in index sizes) times ``size``, divided by the index diagonal's share of a card's height
            (:attr:`vision.config.Pairing.diagonal_per_height`).
    """

    code: str
    detections: tuple[int, ...]
    centers: np.ndarray = field(repr=False)
    size: float
    confidence: float
    card_height: float

    @property
    def fully_visible(self) -> bool:
        """True when both corner indices were seen (all four, for a deck printed with four: then ``centers[0]``
        and ``centers[1]`` are one diagonal)."""
        return len(self.detections) >= 2

    @property
    def center(self) -> np.ndarray:
        """(2,) pixels: the card centre when both indices were seen, else the one index centre."""
        return self.centers.mean(0)


class PileKind(str, Enum):
    """What a pile of cards on the table is."""

    MELD = "meld"  #: a fan of one rank plus wilds (a complete book when it has seven cards)
    SQUARED_BOOK = "squared_book"  #: a squared stack showing its marker card
    RED_THREES = "red_threes"  #: red threes laid on the table
    LEFT = "left"  #: cards still held (a fanned hand or foot, mixed ranks)
    #: a single card that belongs to no pile (not scored): partly seen, or seen whole with no stack under it
    LOOSE = "loose"


@dataclass(frozen=True, eq=False)
class Pile:
    """A group of card instances and what it was read as.

    Attributes:
        kind: the pile's kind.
        cards: the card instances, in reading order (along the fan).
        notes: human-readable doubts about this pile (empty when the reading is unambiguous).
    """

    kind: PileKind
    cards: tuple[CardInstance, ...]
    notes: tuple[str, ...] = ()

    @property
    def codes(self) -> list[str]:
        """Card codes of the pile, in order."""
        return [c.code for c in self.cards]

    def box(self, dets_xyxy: np.ndarray) -> np.ndarray:
        """(4,) xyxy pixels around all the pile's corner indices."""
        idx = [d for c in self.cards for d in c.detections]
        b = dets_xyxy[idx]
        return np.array([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()])


def small_index_note(xyxy: np.ndarray, config: VisionConfig = DEFAULT) -> str | None:
    """A note for the user when the (n, 4) xyxy corner boxes of a photo are mostly under
    :attr:`vision.config.Reading.readable_index` pixels, else ``None``."""
    size, readable = median_index_size(xyxy), config.reading.readable_index
    if size >= readable:
        return None
    return (f"the corner indices are small in this photo (median {size:.0f} px; {readable:.0f} px or more "
            "reads well): many may be missed or misread, so photograph the table closer or one half at a time")


@dataclass(frozen=True)
class SideReading:
    """What the pipeline read for one side.

    Attributes:
        team: team name (``"A"``, ``"B"``...).
        detections: the corner-index detections used (pixels of the source photo).
        cards: card instances built from them.
        piles: the piles, each with its kind and notes.
        source: where the detections came from (the photo's path), for messages.
        hand: a photo of a player's hand or foot (``read_image(..., hand=True)``): every card in it is a card left.
    """

    team: str
    detections: Detections
    cards: list[CardInstance]
    piles: list[Pile]
    source: str = ""
    hand: bool = False

    @property
    def notes(self) -> list[str]:
        """Every doubt about this side's reading, one line each: the photo's (indices too small to read well,
        :func:`small_index_note`) first, then each pile's."""
        photo = small_index_note(self.detections.xyxy)
        return ([photo] if photo else []) + [f"{p.kind.value.replace('_', ' ')} {' '.join(p.codes)}: "
                                             f"{'; '.join(p.notes)}" for p in self.piles if p.notes]

    def team_layout(self) -> dict[str, Any]:
        """This side as a ``teams`` entry of the layout JSON (``docs/layout.md``)."""
        team = empty_team()
        for p in self.piles:
            if p.kind is PileKind.MELD:
                team["melds"].append(p.codes)
            elif p.kind is PileKind.SQUARED_BOOK:
                team["squared_books"].append({"top": p.codes[0]})
            elif p.kind is PileKind.RED_THREES:
                team["red_threes"].extend(p.codes)
            elif p.kind is PileKind.LEFT:
                team["left"].append(p.codes)
            elif p.kind is PileKind.LOOSE:
                team["loose"].extend(p.codes)
        return team


def empty_team() -> dict[str, Any]:
    """A ``teams`` entry of the layout JSON with nothing in it (``docs/layout.md``)."""
    return {"melds": [], "squared_books": [], "red_threes": [], "left": [], "loose": []}


@dataclass
class TableReading:
    """The whole table: every side's reading plus round facts, convertible to a layout."""

    sides: list[SideReading]
    rules: str = "pagat"
    round: int = 1
    went_out: str | None = None
    left: dict[str, list[list[str]]] = field(default_factory=dict)

    def layout(self) -> dict[str, Any]:
        """The layout JSON (a dict) for :func:`scorer.layout.TableLayout.from_dict`."""
        teams: dict[str, Any] = {}
        for side in self.sides:
            t = side.team_layout()
            if side.team in teams:  # a second photo of the same side (e.g. its hands): merge
                for k, v in t.items():
                    teams[side.team][k].extend(v)
            else:
                teams[side.team] = t
        for team, packets in self.left.items():
            teams.setdefault(team, empty_team())
            teams[team]["left"].extend(packets)
        return {"rules": self.rules, "round": self.round, "went_out": self.went_out, "teams": teams}

    @property
    def notes(self) -> list[str]:
        return [f"team {s.team}: {n}" for s in self.sides for n in s.notes]


@dataclass
class PhotoReading:
    """One photo and the side(s) read from it. ``image`` is (H, W, 3) uint8 BGR."""

    path: Path
    image: np.ndarray
    sides: list[SideReading]
