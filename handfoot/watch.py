"""Live scoring from a camera above the table (``handfoot watch``): read the table when it has changed and settled.

Each frame is compared, small and grey (:data:`SMALL` px wide, blurred; :func:`changed_mask` forgives a camera's
shake), with the frame :data:`MOTION_SECONDS` before it and with the last frame read. While something moves (a
hand over the table: more than :data:`MOVING` of the pixels changed) nothing is read and the last stable reading
stands. When the picture has been still for :data:`STILL_SECONDS` and differs from the last frame read (more than
:data:`CHANGED` of the pixels), it is read: only the changed regions and the piles they touch are found again
(``vision.pipeline.detect_again``; the whole frame when they cover more than :data:`REGION_SHARE` of it), and the
later stages run on all the boxes (``vision.pipeline.read_image``). The new layout is compared with the last
stable one: each difference is an :class:`Event` ("team A: meld of 8s grew to 5"), with the round's new score. A
still table costs one small frame comparison a frame.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from scorer import HandFootError
from scorer.layout import TableLayout
from scorer.scoring import score_round
from scorer.wording import counted
from vision.config import DEFAULT
from vision.types import PhotoReading, TableReading, boxes_overlap, join_overlapping

from .readings import pile_labels, rules_of

#: frames are compared at this width (pixels)
SMALL = 160
#: a pixel changed when its grey level moved by more than this (0-255)
PIXEL_CHANGE = 18
#: a pixel is compared with the levels this many pixels around it in the other frame (at :data:`SMALL` px wide, one
#: pixel is 8 of a 1280 px frame: a camera's shake)
SHIFT = 1
#: a change covering more than this share of the frame is read on the whole frame, else in its regions only
REGION_SHARE = 0.5
#: something moves when more than this share of the pixels changed since the previous frame
MOVING = 0.004
#: the table changed when more than this share of the pixels differ from the last frame read
CHANGED = 0.002
#: motion is measured against the frame this many seconds before (at any frame rate, a slow hand moves enough)
MOTION_SECONDS = 0.25
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
    import cv2  # OpenCV: the optional vision extra

    if isinstance(source, str) and not Path(source).is_file():
        raise HandFootError(f"{source}: no such video file")
    if isinstance(source, str):
        from vision.images import image_format  # the optional vision extra (OpenCV, ONNX Runtime)

        with open(source, "rb") as f:
            if image_format(f.read(64)):
                raise HandFootError(f"{source} is a photo, not a video: score it with handfoot score {source}")
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # its own warnings: ours say it in one line
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # and FFmpeg's ("No JPEG data found"), read at each open
    cap = cv2.VideoCapture(source)
    ok, frame = cap.read() if cap.isOpened() else (False, None)
    if not ok:
        cap.release()
        raise HandFootError(f"camera {source}: not available (is it plugged in, or in use by another program? "
                            "try another number; no camera at hand? the phone's own camera can watch, or a video of "
                            "the round: handfoot watch --video FILE)"
                            if isinstance(source, int) else
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
    import cv2  # OpenCV: the optional vision extra

    h, w = frame.shape[:2]
    grey = cv2.resize(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (SMALL, max(1, round(h * SMALL / w))),
                      interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(grey, (5, 5), 0)


def changed_mask(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The pixels where two :func:`small` frames differ: one frame's grey level is more than :data:`PIXEL_CHANGE`
    outside the range of the other's levels within :data:`SHIFT` pixels around it (either way). A camera's shake
    and an edge's blur are not a change; a card laid, taken or covered is. (h, w) bool."""
    import cv2  # OpenCV: the optional vision extra

    kernel = np.ones((2 * SHIFT + 1, 2 * SHIFT + 1), np.uint8)

    def outside(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x = x.astype(np.int16)
        return (x > cv2.dilate(y, kernel).astype(np.int16) + PIXEL_CHANGE) | \
            (x < cv2.erode(y, kernel).astype(np.int16) - PIXEL_CHANGE)

    return outside(a, b) | outside(b, a)


def changed_share(a: np.ndarray, b: np.ndarray) -> float:
    """Share of the pixels of :func:`changed_mask`."""
    return float(changed_mask(a, b).mean())


def changed_regions(a: np.ndarray, b: np.ndarray, width: int, height: int) -> np.ndarray | None:
    """Where :func:`small` frame ``a`` differs from ``b`` (:func:`changed_mask`), as (k, 4) xyxy boxes in the pixels
    of a ``width`` x ``height`` frame, boxes that overlap joined; None when they cover more than
    :data:`REGION_SHARE` of the frame (a camera moved: read it whole)."""
    import cv2  # OpenCV: the optional vision extra

    mask = cv2.dilate(changed_mask(a, b).astype(np.uint8), np.ones((3, 3), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    sx, sy = width / a.shape[1], height / a.shape[0]
    boxes = [[x * sx, y * sy, (x + w) * sx, (y + h) * sy] for x, y, w, h, _ in stats[1:n]]
    return _bounded(join_overlapping(boxes), width, height)


def _bounded(boxes: np.ndarray, width: int, height: int) -> np.ndarray | None:
    """``boxes``, or None when they cover more than :data:`REGION_SHARE` of the frame."""
    area = float(((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).sum())
    return None if area > REGION_SHARE * width * height else boxes


def with_piles(regions: np.ndarray, photo: Any) -> np.ndarray | None:
    """``regions`` ((k, 4) xyxy pixels) grown to take in every pile of ``photo`` (``vision.pipeline.PhotoReading``)
    that one touches, each pile's box reaching half a card beyond its indices: a change anywhere in a pile re-reads
    the whole pile (a fan taken up from a pale table changes little where white meets pale). None when the result
    covers more than :data:`REGION_SHARE` of the frame."""
    piles = []
    for side in photo.sides:
        for pile in side.piles:
            if any(c.detections for c in pile.cards):
                reach = 0.5 * max(c.card_height for c in pile.cards)
                piles.append(pile.box(side.detections.xyxy) + reach * np.array([-1, -1, 1, 1]))
    out = [list(r) for r in regions]
    for box in piles:
        if any(boxes_overlap(r, box) for r in out):
            out.append(list(box))
    h, w = photo.image.shape[:2]
    return _bounded(join_overlapping(out), w, h)


def _natural(meld: list[str]) -> str:
    ranks = [c[:-1] for c in meld if c != "JK" and c[:-1] not in _WILD]
    return Counter(ranks).most_common(1)[0][0] if ranks else "wild"


def _melds(team: dict[str, Any]) -> dict[str, list[str]]:
    return {_natural(m): m for m in team.get("melds", [])}


@dataclass(frozen=True)
class Change:
    """One difference between two layouts: ``team``, ``kind`` (``meld_new``, ``meld_grew``, ``meld_shrank``,
    ``meld_gone`` (not when a book was squared in the same reading), ``book_complete``, ``squared``,
    ``red_threes``), the meld's natural ``rank`` (``"wild"`` for a meld of wilds; a squared book's, from its top
    card, when known; None for the others), ``count`` (the meld's cards, the books squared, the red threes now on
    the table) and the sentence a person reads (``text``)."""

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
                out.append(Change(team, "meld_new", rank, n,
                                  f"team {team}: new meld of {plural} ({counted(n, 'card')})"))
            elif n > was:
                out.append(Change(team, "meld_grew", rank, n, f"team {team}: meld of {plural} grew to {n}"))
            elif n < was:
                out.append(Change(team, "meld_shrank", rank, n,
                                  f"team {team}: meld of {plural} now {counted(n, 'card')}"))
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
            tops = [book.get("top") for book in b["squared_books"][-squared:]]
            ranks = {t[:-1] for t in tops if t and t != "JK"}
            rank = ranks.pop() if len(ranks) == 1 else None
            what = f"book of {rank}s" if rank and squared == 1 else f"{squared} book{'s' * (squared > 1)}"
            out.append(Change(team, "squared", rank, len(b["squared_books"]), f"team {team}: {what} squared"))
        threes = len(b.get("red_threes", [])) - len(a.get("red_threes", []))
        if threes > 0:
            total = len(b["red_threes"])
            out.append(Change(team, "red_threes", None, total,
                              f"team {team}: {'a' if threes == 1 else threes} red three{'s' * (threes > 1)} laid"
                              + (f" ({total} on the table)" if total != threes else "")))
    return out


def layout_events(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The sentences of :func:`layout_changes`."""
    return [c.text for c in layout_changes(before, after)]


@dataclass(frozen=True)
class Seen:
    """One reading of a frame: its ``layout`` (``docs/layout.md``), the camera pipeline's
    ``vision.pipeline.PhotoReading`` (boxes and piles in the frame's pixels, for drawing and for the end-of-round
    check view) and its stage-1 boxes (``vision.types.Detections``, to read only a changed region of a later
    frame); None when the reading came from elsewhere. ``labels``: what the rules engine made of each pile of
    ``photo`` (pile -> ``"clean book"``, ``"meld"``...), as the live picture outlines them."""

    layout: dict[str, Any]
    photo: Any = None
    found: Any = None
    labels: dict[Any, str] | None = None


@dataclass
class Watcher:
    """Reads a table when it changes and settles (see the module docstring).

    ``read(frame, before, regions)`` maps a BGR frame to a :class:`Seen` (the camera pipeline and the round's
    facts; raises HandFootError when no card is in view), given the last stable reading and the regions changed
    since its frame (:func:`changed_regions`; both None for a whole reading); ``score`` a layout to each team's
    total. ``seen`` is the last stable reading, ``moving`` whether the last frame moved (a hand over the table).
    """

    read: Callable[[np.ndarray, Seen | None, np.ndarray | None], Seen]
    score: Callable[[dict[str, Any]], dict[str, int]]
    seen: Seen | None = None
    reads: int = 0
    moving: bool = False
    _prev: np.ndarray | None = None
    _recent: list = field(default_factory=list)  # (t, small frame) of the last MOTION_SECONDS
    _seen_small: np.ndarray | None = None  # the small frame of the stable reading
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
        while len(self._recent) > 1 and self._recent[1][0] <= t - MOTION_SECONDS:
            self._recent.pop(0)
        before = self._recent[0][1] if self._recent else None
        self.moving = before is not None and (before.shape != s.shape or changed_share(s, before) > MOVING)
        self._recent.append((t, s))
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
        s = self._last_read = self._prev if self._prev is not None else small(frame)  # due() made it
        regions = None
        if self.seen is not None and self._seen_small is not None and self._seen_small.shape == s.shape:
            regions = changed_regions(s, self._seen_small, frame.shape[1], frame.shape[0])
        try:
            seen = self.read(frame, self.seen, regions)
        except HandFootError:  # no card seen (an empty table, the camera covered): nothing to say yet
            return []
        self._seen_small = s
        self.reads += 1
        changes = layout_changes(self.layout, seen.layout)
        self.seen = seen
        totals = self.score(seen.layout) if changes else {}
        return [Event(t, change, totals) for change in changes]


def table_reader(models, rules: str = "pagat", round_no: int = 1, split: str | None = None,
                 teams: tuple[str, ...] | None = None, conf: float | None = None,
                 house_rules: dict[str, Any] | None = None
                 ) -> tuple[Callable[..., Seen], Callable[[dict[str, Any]], dict[str, int]]]:
    """The ``read`` and ``score`` of a :class:`Watcher` over the loaded models (``handfoot.core.Models``): a frame
    is one team's side (``teams[0]``, default ``A``) or, with ``split``, the whole table split between two teams;
    scored by the preset ``rules`` with ``house_rules`` fields.

    Raises:
        HandFootError: unknown rules or house-rule fields.
    """
    # the optional vision extra (OpenCV, ONNX Runtime)
    from vision.pipeline import NoCardsError, detect, detect_again, read_image


    rule_set = rules_of(rules, house_rules)
    names = tuple(teams or ("A", "B"))
    config = DEFAULT if conf is None else DEFAULT.replace(**{"reading.min_conf": conf})

    def read(frame: np.ndarray, before: Seen | None = None, regions: np.ndarray | None = None) -> Seen:
        again = regions is not None and before is not None and before.found is not None \
            and before.photo.image.shape == frame.shape
        regions = with_piles(regions, before.photo) if again else None
        if regions is not None:  # only the changed piles' regions are found again
            found = detect_again(frame, before.found, regions, models.detector, models.reader, config,
                                 before_image=before.photo.image)
        else:
            found = detect(frame, models.detector, models.reader, config)
        sides = read_image(frame, models.detector, models.reader, models.stacks, team=names[0], split=split,
                           teams=names[:2] if split else None, found=found, config=config)
        if not any(len(s.detections) for s in sides):
            raise NoCardsError("no cards in view")
        photo = PhotoReading(Path("live"), frame, sides)
        return Seen(TableReading(sides, rules, round_no, None).layout(), photo, found,
                    pile_labels(photo, rules, house_rules or {}, round_no))

    def score(layout: dict[str, Any]) -> dict[str, int]:
        result = score_round(TableLayout.from_dict(layout), rule_set, lenient=True)
        return {name: team.total for name, team in result.teams.items()}

    return read, score
