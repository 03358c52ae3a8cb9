"""Live scoring from a camera above the table (``handfoot watch``): read the table when it has changed and settled.

A frame is compared with the one before it and with the last frame read, small and grey (:data:`SMALL` px wide,
blurred). While something moves (a hand over the table: more than :data:`MOVING` of the pixels changed since the
previous frame) nothing is read and the last stable reading stands. When the picture has been still for
:data:`STILL_SECONDS` and differs from the last frame read (more than :data:`CHANGED` of the pixels), it is read
through the camera pipeline (``vision.pipeline.read_image``) and its layout compared with the last stable one:
each difference is an :class:`Event` ("team A: meld of 8s grew to 5"), with the round's new score. A still table
costs one small frame comparison a frame.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from scorer import HandFootError

#: frames are compared at this width (pixels)
SMALL = 160
#: a pixel changed when its grey level moved by more than this (0-255)
PIXEL_CHANGE = 18
#: a pixel is compared with the levels this many pixels around it in the other frame (at :data:`SMALL` px wide, one
#: pixel is 8 of a 1280 px frame: a camera's shake)
SHIFT = 1
#: something moves when more than this share of the pixels changed since the previous frame
MOVING = 0.004
#: the table changed when more than this share of the pixels differ from the last frame read
CHANGED = 0.002
#: the picture must be still this long (seconds of video) before it is read
STILL_SECONDS = 0.6
#: a book is complete at this many cards (the rules' book size, seed 000 "Books")
BOOK = 7
_WILD = ("2", "JK")


@dataclass(frozen=True)
class Event:
    """A change of the stable layout: ``t`` seconds into the video, what changed (:class:`Change`), and the round's
    totals after the reading that saw it."""

    t: float
    change: Change
    totals: dict[str, int]

    @property
    def text(self) -> str:
        return self.change.text

    def to_json(self) -> str:
        c = self.change
        return json.dumps({"t": round(self.t, 2), "event": c.text, "team": c.team, "kind": c.kind, "rank": c.rank,
                           "count": c.count, "totals": self.totals})


def frames(source: str | int) -> Iterator[tuple[float, np.ndarray]]:
    """(seconds, BGR frame) of a video file (every frame, at its own times), or of a camera (an int index: the
    latest frame each time one is asked for, :func:`_latest_frames`).

    Raises:
        HandFootError: no such file, a file that is not a readable video, or no camera at that index.
    """
    import cv2

    if isinstance(source, str) and not Path(source).is_file():
        raise HandFootError(f"{source}: no such video file")
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # its own warnings: ours say it in one line
    cap = cv2.VideoCapture(source)
    ok, frame = cap.read() if cap.isOpened() else (False, None)
    if not ok:
        cap.release()
        raise HandFootError(f"camera {source}: not available" if isinstance(source, int) else
                            f"{source}: not a video this computer can read")
    if isinstance(source, int):
        yield from _latest_frames(cap, frame)
        return
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    k = 0
    try:
        while ok:
            yield k / fps, frame
            ok, frame = cap.read()
            k += 1
    finally:
        cap.release()


def _latest_frames(cap, first: np.ndarray) -> Iterator[tuple[float, np.ndarray]]:
    """A camera's frames as they come, the latest only: a thread reads the camera all the time and keeps the last
    frame (frames are dropped while a reading runs, never queued). Ends when the camera stops giving frames.

    Raises:
        HandFootError: the camera stopped (unplugged) — after the frames it gave.
    """
    import threading

    start = time.monotonic()
    latest: list = [time.monotonic() - start, first, 0]  # t, frame, sequence number
    cond = threading.Condition()
    stopped = threading.Event()

    def grab() -> None:
        while not stopped.is_set():
            ok, frame = cap.read()
            with cond:
                if not ok:
                    stopped.set()
                else:
                    latest[:] = [time.monotonic() - start, frame, latest[2] + 1]
                cond.notify_all()

    thread = threading.Thread(target=grab, daemon=True)
    thread.start()
    seen = -1
    try:
        while True:
            with cond:
                cond.wait_for(lambda: latest[2] != seen or stopped.is_set(), timeout=5)
                if latest[2] == seen:
                    raise HandFootError("the camera stopped giving pictures (unplugged?); the last reading stands")
                t, frame, seen = latest
            yield t, frame
    finally:
        stopped.set()
        thread.join(timeout=2)
        cap.release()


def small(frame: np.ndarray) -> np.ndarray:
    """The frame grey, :data:`SMALL` px wide, blurred: what frames are compared at."""
    import cv2

    h, w = frame.shape[:2]
    grey = cv2.cvtColor(cv2.resize(frame, (SMALL, max(1, round(h * SMALL / w))), interpolation=cv2.INTER_AREA),
                        cv2.COLOR_BGR2GRAY)
    return cv2.GaussianBlur(grey, (5, 5), 0)


def changed_share(a: np.ndarray, b: np.ndarray) -> float:
    """Share of the pixels of a :func:`small` frame ``a`` whose grey level is more than :data:`PIXEL_CHANGE` outside
    the range of ``b``'s levels within :data:`SHIFT` pixels around it: a camera's shake and an edge's blur are not
    a change; a card laid, taken or covered is."""
    import cv2

    kernel = np.ones((2 * SHIFT + 1, 2 * SHIFT + 1), np.uint8)
    hi = cv2.dilate(b, kernel).astype(np.int16) + PIXEL_CHANGE
    lo = cv2.erode(b, kernel).astype(np.int16) - PIXEL_CHANGE
    a = a.astype(np.int16)
    return float(((a > hi) | (a < lo)).mean())


def _natural(meld: list[str]) -> str:
    ranks = [c[:-1] for c in meld if c != "JK" and c[:-1] not in _WILD]
    return Counter(ranks).most_common(1)[0][0] if ranks else "wild"


def _melds(team: dict[str, Any]) -> dict[str, list[str]]:
    return {_natural(m): m for m in team.get("melds", [])}


@dataclass(frozen=True)
class Change:
    """One difference between two layouts: ``team``, ``kind`` (``meld_new``, ``meld_grew``, ``meld_shrank``,
    ``meld_gone`` (not when a book was squared in the same reading), ``book_complete``, ``squared``,
    ``red_threes``), the meld's natural ``rank`` (``"wild"`` for a meld of wilds;
    None for the others), ``count`` (the meld's cards, the books squared, the red threes now on the table) and the
    sentence a person reads (``text``)."""

    team: str
    kind: str
    rank: str | None
    count: int
    text: str


def layout_changes(before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """What changed between two layouts (``docs/layout.md``): melds new, grown, shrunk, gone or complete as a
    book (clean: no wild), books squared, red threes laid."""
    out = []
    for team in sorted(after.get("teams", {})):
        a, b = before.get("teams", {}).get(team, {}), after["teams"][team]
        old, new = _melds(a), _melds(b)
        for rank, cards in new.items():
            plural = f"{rank}s" if rank != "wild" else "wilds"
            n, was = len(cards), len(old.get(rank, []))
            if rank not in old:
                out.append(Change(team, "meld_new", rank, n, f"team {team}: new meld of {plural} ({n} cards)"))
            elif n > was:
                out.append(Change(team, "meld_grew", rank, n, f"team {team}: meld of {plural} grew to {n}"))
            elif n < was:
                out.append(Change(team, "meld_shrank", rank, n, f"team {team}: meld of {plural} now {n} cards"))
            if n >= BOOK > was:
                kind = "clean" if not any(c == "JK" or c[:-1] in _WILD for c in cards) else "dirty"
                out.append(Change(team, "book_complete", rank, n,
                                  f"team {team}: book of {plural} complete ({kind})"))
        squared = len(b.get("squared_books", [])) - len(a.get("squared_books", []))
        for rank in old.keys() - new.keys():  # a meld no longer seen: squared into a book, or picked up
            if squared <= 0:
                plural = f"{rank}s" if rank != "wild" else "wilds"
                out.append(Change(team, "meld_gone", rank, 0, f"team {team}: meld of {plural} no longer seen"))
        if squared > 0:
            out.append(Change(team, "squared", None, len(b["squared_books"]),
                              f"team {team}: {squared} book{'s' * (squared > 1)} squared"))
        threes = len(b.get("red_threes", [])) - len(a.get("red_threes", []))
        if threes > 0:
            out.append(Change(team, "red_threes", None, len(b["red_threes"]),
                              f"team {team}: {threes} red three{'s' * (threes > 1)} laid "
                              f"({len(b['red_threes'])} on the table)"))
    return out


def layout_events(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The sentences of :func:`layout_changes`."""
    return [c.text for c in layout_changes(before, after)]


@dataclass(frozen=True)
class Seen:
    """One reading of a frame: its ``layout`` (``docs/layout.md``), and the camera pipeline's
    ``vision.pipeline.PhotoReading`` (boxes and piles in the frame's pixels, for drawing and for the end-of-round
    check view; None when the reading came from elsewhere)."""

    layout: dict[str, Any]
    photo: Any = None


@dataclass
class Watcher:
    """Reads a table when it changes and settles (see the module docstring).

    ``read`` maps a BGR frame to a :class:`Seen` (the camera pipeline and the round's facts; raises HandFootError
    when no card is in view); ``score`` a layout to each team's total. ``seen`` is the last stable reading,
    ``moving`` whether the last frame moved (a hand over the table).
    """

    read: Callable[[np.ndarray], Seen]
    score: Callable[[dict[str, Any]], dict[str, int]]
    seen: Seen | None = None
    reads: int = 0
    moving: bool = False
    _prev: np.ndarray | None = None
    _last_read: np.ndarray | None = None
    _still_since: float | None = None

    @property
    def layout(self) -> dict[str, Any]:
        """The last stable layout (no teams before the first reading)."""
        return self.seen.layout if self.seen else {"teams": {}}

    def due(self, t: float, frame: np.ndarray) -> bool:
        """Take one frame at ``t`` seconds: whether it should be read now (the picture settled and differs from
        the last frame read). Cheap: one small frame comparison."""
        s = small(frame)
        self.moving = self._prev is not None and (self._prev.shape != s.shape or changed_share(self._prev, s) > MOVING)
        self._prev = s
        if self.moving or self._still_since is None:
            self._still_since = t
            if self.moving:
                return False
        if t - self._still_since < STILL_SECONDS:
            return False
        return self._last_read is None or changed_share(self._last_read, s) > CHANGED

    def step(self, t: float, frame: np.ndarray) -> list[Event]:
        """Take one frame at ``t`` seconds; the events of a reading it caused (usually none)."""
        return self.read_now(t, frame) if self.due(t, frame) else []

    def read_now(self, t: float, frame: np.ndarray) -> list[Event]:
        """Read ``frame`` (at ``t`` seconds, the last one given to :meth:`due`) and make it the stable reading;
        the events of what changed. A frame with no card in view changes nothing."""
        self._last_read = small(frame)
        try:
            seen = self.read(frame)
        except HandFootError:  # no card seen (an empty table, the camera covered): nothing to say yet
            return []
        self.reads += 1
        changes = layout_changes(self.layout, seen.layout)
        self.seen = seen
        totals = self.score(seen.layout) if changes else {}
        return [Event(t, change, totals) for change in changes]


def table_reader(models, rules: str = "pagat", round_no: int = 1, split: str | None = None,
                 teams: tuple[str, ...] | None = None, conf: float | None = None,
                 house_rules: dict[str, Any] | None = None
                 ) -> tuple[Callable[[np.ndarray], Seen], Callable[[dict[str, Any]], dict[str, int]]]:
    """The ``read`` and ``score`` of a :class:`Watcher` over the loaded models (``handfoot.app.Models``): a frame
    is one team's side (``teams[0]``, default ``A``) or, with ``split``, the whole table split between two teams;
    scored by the preset ``rules`` with ``house_rules`` fields.

    Raises:
        HandFootError: unknown rules or house-rule fields.
    """
    from scorer.layout import TableLayout
    from scorer.scoring import score_round
    from vision.config import DEFAULT
    from vision.pipeline import NoCardsError, PhotoReading, read_image
    from vision.table import TableReading

    from .readings import rules_of

    rule_set = rules_of(rules, house_rules)
    names = tuple(teams or ("A", "B"))
    config = DEFAULT if conf is None else DEFAULT.replace(**{"reading.min_conf": conf})

    def read(frame: np.ndarray) -> Seen:
        sides = read_image(frame, models.detector, models.reader, models.stacks, team=names[0], split=split,
                           teams=names[:2] if split else None, config=config)
        if not any(len(s.detections) for s in sides):
            raise NoCardsError("no cards in view")
        return Seen(TableReading(sides, rules, round_no, None).layout(), PhotoReading(Path("live"), frame, sides))

    def score(layout: dict[str, Any]) -> dict[str, int]:
        result = score_round(TableLayout.from_dict(layout), rule_set, lenient=True)
        return {name: team.total for name, team in result.teams.items()}

    return read, score
