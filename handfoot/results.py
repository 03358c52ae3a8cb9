"""Typed results of the application layer (Pydantic): what the command line prints with ``--json`` and what
the web service answers.

Shapes mirror :meth:`scorer.scoring.RoundScore.to_dict` (a round's score) and add, for photos, every image
with its piles and every card with its box(es) in image pixels, so that a page can draw a card and let a player
tap it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class BreakdownLine(_Out):
    """One line of a team's breakdown: ``count`` items worth ``points_min``..``points_max`` points (``points``
    when exact). ``item`` is a stable key (``clean_books``, ``going_out``, ``melded_cards``, ...)."""

    item: str
    label: str
    count: int
    points: int | None
    points_min: int
    points_max: int
    detail: str = ""


class BookOut(_Out):
    """A complete book: where it is in the layout (``teams.A.melds[0]``), kind, rank, its cards' points
    (``points_min``..``points_max``: a range while a squared book's wilds are uncounted) and ``bonus``, its kind's
    bonus under the round's rules (counted in the breakdown's book lines); a book is worth its cards' points
    plus its bonus. ``bonus`` is None in a score kept without it."""

    where: str
    kind: Literal["clean", "dirty", "wild"]
    rank: str | None
    squared: bool
    points_min: int
    points_max: int
    bonus: int | None = None


class TeamScoreOut(_Out):
    """One team's round score; ``total`` is None while a squared book's wilds are uncounted (then the total
    lies in ``total_min``..``total_max``)."""

    total: int | None
    total_min: int
    total_max: int
    exact: bool
    breakdown: list[BreakdownLine]
    books: list[BookOut]
    needs_counting: list[str]


class ProblemOut(_Out):
    """Something the rules see: ``illegal`` (cannot happen under the rules), ``uncertain`` (depends on what
    cannot be seen) or ``warning``. ``where`` is a layout path; ``cards``: the card codes a problem of the whole
    layout is about, wherever they lie (more 4♠ than the decks hold: ``["4S"]``), else empty."""

    severity: Literal["illegal", "uncertain", "warning"]
    where: str
    message: str
    cards: list[str] = Field(default_factory=list)


class RoundScoreOut(_Out):
    """A scored round: the JSON of ``handfoot score LAYOUT --json``."""

    rules: str
    round: int
    went_out: str | None
    teams: dict[str, TeamScoreOut]
    problems: list[ProblemOut]


class LayoutPileOut(_Out):
    """A pile of a layout as a photo's reading names it: its ``team``, its place (``where``: ``teams.A.melds[1]``;
    for red threes and loose cards the list), what the rules engine makes of it (``label``: ``clean book``,
    ``meld``, ``red threes``...; :func:`scorer.wording.pile_word`) and its card codes (a squared book: its top
    card)."""

    team: str
    where: str
    label: str
    cards: list[str]


class CardOut(_Out):
    """One physical card read in a photo.

    Attributes:
        id: stable within the reading: ``<pile id>.<k>``.
        code: card code (``KH``, ``10S``, ``JK``).
        confidence: the reading's confidence, 0..1.
        boxes: the corner-index boxes it was read from, ``[x1, y1, x2, y2]`` pixels of the photo (two for a card
            seen whole, one for a card seen by one corner, none for a card counted in a fan's gap).
        center: ``[x, y]`` pixels: the card's centre when seen whole, else its one index (or, for a card counted
            in a gap, where its index would be).
        size: index size in pixels (square root of the index box area).
    """

    id: str
    code: str
    confidence: float
    boxes: list[list[float]]
    center: list[float]
    size: float


class PileOut(_Out):
    """A pile read in a photo.

    Attributes:
        id: stable within the reading: ``i<image>p<k>`` (``i0p2``: image 0, its third pile); ``t<k>`` for a packet
            of cards left that was typed in (its cards have no box), ``x<k>`` for a pile a correction added.
        team: the team it belongs to.
        kind: ``meld``, ``squared_book``, ``red_threes``, ``left`` (cards still in hand) or ``loose``.
        label: what the rules engine makes of it, in words (``clean book``, ``dirty book (squared, 7 cards)``,
            ``meld``, ``red threes``, ``left in hand``, ``loose``; the team is
            ``team``'s, never said in it).
        where: its place in the layout (``teams.A.melds[1]``; for red threes and loose cards the list).
        cards: its cards in reading order (along the fan; a squared book's top card first).
        box: ``[x1, y1, x2, y2]`` pixels around its index boxes, or None when none was read.
        notes: the camera's doubts about it, one sentence each.
        book: for a squared book, what was said of it beyond its top card (``count``, ``kind``, ``rank``,
            ``cards``; layout keys of ``squared_books``), from corrections.
        verdict: what the rules make of it, in words (``legal dirty book of kings: 5 naturals + 2 wilds, 175
            points under pagat``; a squared book's marker card and what it says).
        problems: what breaks the rules in it (the score's problems at its place), one sentence each.
    """

    id: str
    team: str
    kind: Literal["meld", "squared_book", "red_threes", "left", "loose"]
    label: str
    where: str
    cards: list[CardOut]
    box: list[float] | None
    notes: list[str]
    book: dict[str, Any] = Field(default_factory=dict)
    verdict: str = ""
    problems: list[str] = Field(default_factory=list)


def pile_dict(pile_id: str, side, pile) -> dict[str, Any]:
    """A pipeline pile as the fields of :class:`PileOut` (label and place filled in by :func:`rescore`)."""
    xyxy = side.detections.xyxy
    conf = side.detections.confidence
    cards = []
    for k, card in enumerate(pile.cards):
        idx = list(card.detections)
        cards.append({"id": f"{pile_id}.{k}", "code": card.code,
                      "confidence": round(float(card.confidence if not idx else max(conf[idx])), 4),
                      "boxes": [[round(float(v), 1) for v in xyxy[d]] for d in idx],
                      "center": [round(float(v), 1) for v in card.center], "size": round(float(card.size), 1)})
    seen = [d for c in pile.cards for d in c.detections]
    box = [round(float(v), 1) for v in pile.box(xyxy)] if seen else None
    return {"id": pile_id, "team": side.team, "kind": "left" if side.hand else pile.kind.value, "cards": cards,
            "box": box, "notes": list(pile.notes)}


def image_dict(i: int, photo: Any, name: str) -> dict[str, Any]:
    """Photo ``i`` of a reading (a ``vision.types.PhotoReading``, shown as ``name``) as the fields of
    :class:`ImageOut`, its piles with the ids ``i{i}p{n}`` (label and place filled in by ``readings.rescore``)."""
    piles: list[dict[str, Any]] = []
    for side in photo.sides:
        for pile in side.piles:
            piles.append(pile_dict(f"i{i}p{len(piles)}", side, pile))
    return {"image": name, "kind": "hand" if any(s.hand for s in photo.sides) else "table",
            "teams": [s.team for s in photo.sides], "width": int(photo.image.shape[1]),
            "height": int(photo.image.shape[0]), "detections": [d for s in photo.sides for d in s.detections.to_list()],
            "piles": piles}


class ImageOut(_Out):
    """One photo read: ``kind`` ``table`` or ``hand`` (a hand or foot: every card a card left); ``teams`` read
    from it; its size in pixels; every corner-index detection kept; its piles."""

    image: str
    kind: Literal["table", "hand"]
    teams: list[str]
    width: int
    height: int
    detections: list[dict[str, Any]]
    piles: list[PileOut]


class _Reported(_Out):
    """A scored result that may keep the scorer's ``RoundScore`` it was made from, for the command line's text
    report."""

    _round: Any = PrivateAttr(default=None)  #: the scorer's RoundScore

    def with_round(self, round_score: Any):
        """This result keeping the scorer's ``RoundScore`` it was made from (for :meth:`text_report`); returns it."""
        self._round = round_score
        return self

    def text_report(self) -> str:
        """The round's score as the scorer's text report (``RoundScore.format_text``), for a result scored in this
        process (else ValueError)."""
        if self._round is None:
            raise ValueError("this result was not scored in this process: it has no text report")
        return self._round.format_text()


class LayoutScore(_Reported):
    """A layout scored: the layout (JSON of ``docs/layout.md``) and its score."""

    layout: dict[str, Any]
    score: RoundScoreOut


class PhotoScore(_Reported):
    """Photos read and scored: the JSON of ``handfoot score PHOTO --json``.

    Attributes:
        images: each photo read, with its piles and cards.
        layout: the layout read (``docs/layout.md``), typed-in cards left included.
        left: the cards left that were typed in (team -> packets), not read from a photo.
        notes: every guess the camera made, for a person to check: the photos' own (``photo_notes``), then each
            pile's.
        score: the round's score; a photo is always scored, and what breaks the rules is in its problems.
        deck: the deck profile the photos were read with (``vision.decks``); None: the stock reader.
    """

    images: list[ImageOut]
    layout: dict[str, Any]
    left: dict[str, list[list[str]]] = Field(default_factory=dict)
    notes: list[str]
    photo_notes: list[str] = Field(default_factory=list)
    score: RoundScoreOut
    deck: str | None = None
    _readings: Any = PrivateAttr(default=None)  #: the pipeline's PhotoReadings, for annotating the photos


    def with_readings(self, readings: Any):
        """This result keeping the pipeline's ``PhotoReading`` of each image (for :meth:`reading`); returns it."""
        self._readings = readings
        return self

    def reading(self, k: int) -> Any:
        """The pipeline's ``PhotoReading`` of image ``k``, for a result read in this process (else ValueError)."""
        if self._readings is None:
            raise ValueError("this result was not read in this process: it has no photo readings")
        return self._readings[k]


class Lesson(BaseModel):
    """A deck's last lesson: ``state`` ``waiting`` (too few photos yet), ``learning``, ``learned`` (a profile
    kept), ``refused`` (it read the photos kept aside worse than the stock reader: nothing kept, the profile learned
    before, if any, reads on) or ``failed``; ``photos`` the example photos it had, ``games`` how many games gave them; ``stock`` and ``profile``
    the share of the reader's views of the kept-aside indices read right by rank and colour without and with the
    profile (0-1, once learned or refused; what the profile is kept on), ``stock_right`` and ``profile_right`` how
    many of those indices are read right so (once learned); ``message`` all of it in a sentence for the page."""

    deck: str
    state: Literal["waiting", "learning", "learned", "refused", "failed"]
    photos: int = 0
    games: int = 0
    stock: float | None = None
    profile: float | None = None
    stock_right: int | None = None
    profile_right: int | None = None
    message: str = ""
