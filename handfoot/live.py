"""The live view's session: a camera (or a video played in real time) watched through a round, for ``/live``.

Two threads. The *view* thread takes every frame the source gives and, at most :data:`LIVE_FPS` times a second
while the page shows the picture, draws the last stable reading on it (boxes, pile outlines, the round's totals,
what the watcher is doing), frames the cards (:func:`framing`) and keeps it as a JPEG for the page's MJPEG stream; with ``record`` it writes the
picture to a video. The *reading* thread takes the latest frame whenever it is free
(frames are dropped, never queued) and steps the :class:`handfoot.watch.Watcher`: a still table costs one small
frame comparison, a changed and settled one a reading, whose events are kept. A camera that stops giving pictures
keeps its layout and is reopened every :data:`RECONNECT_SECONDS` until it comes back. The rounds a session
watches for a game (its next, ended, saved) are :mod:`handfoot.live_rounds`.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from scorer import HandFootError

from . import core
from .camera import CameraStoppedError
from .core import Models
from .photo_request import PhotoRequest
from .picture import RECORD_FPS, draw, framing, shown_cards, video_writer
from .watch import Event, Watcher, frames, table_reader

#: seconds between attempts to reopen a camera that stopped
RECONNECT_SECONDS = 2.0
#: events kept for the page (the newest)
EVENTS_KEPT = 200
#: JPEG quality of the live picture (0-100)
JPEG_QUALITY = 70
#: a video's frame this many seconds behind its time is dropped (the machine could not keep up)
LATE = 0.1
#: the live picture's largest width (pixels); larger frames are shrunk for the stream
STREAM_WIDTH = 1280
#: the watcher compares at most this many frames a second (a camera may give 30 or 60)
COMPARE_FPS = 10.0
#: the live picture's frames per second, at most (camera frames in between are still compared)
LIVE_FPS = 15.0
#: pictures are made this long after the page last asked for one
WATCHED_SECONDS = 3.0


def paced(stream: Iterable[tuple[float, np.ndarray]], clock: Callable[[], float] = time.monotonic
          ) -> Iterator[tuple[float, np.ndarray]]:
    """A video's (seconds, frame) played in real time, as a camera gives them: each frame waits for its time, and
    a frame more than :data:`LATE` seconds late is dropped."""
    start = None
    for t, frame in stream:
        now = clock()
        if start is None:
            start = now - t
        wait = start + t - now
        if wait < -LATE:
            continue
        if wait > 0:
            time.sleep(wait)
        yield t, frame


#: the status in words, for the page
MESSAGES = {"starting": "opening the camera", "waiting": "the video starts when the live view is opened",
            "watching": "watching the table",
            "moving": "something moves over the table: waiting for it to settle",
            "reading": "reading the table", "reconnecting": "the camera stopped; trying again",
            "ended": "the video ended", "stopped": "stopped"}
#: the statuses in which a camera is watching the table (the game's page says so, ``watching_game``)
WATCHING = ("watching", "moving", "reading")


class LiveSession:
    """A table watched for the live view (see the module docstring).

    Args:
        source: a camera index, a video file's path (played in real time), or a browser's camera
            (:class:`handfoot.camera.BrowserCamera`, its ``open`` as ``open_frames``).
        watcher: reads the table (:class:`handfoot.watch.Watcher`, from ``watch.table_reader``).
        settings: what the round is (``handfoot.photo_request.PhotoRequest``: rules, round, split, teams, deck), kept for
            the end-of-round reading.
        game: the game the round goes to, or None (the page asks).
        record: write the annotated picture to this video file (``.mp4`` or ``.avi``).
        open_frames: opens a source's frames (:func:`handfoot.watch.frames`; tests swap it).
        wait_for_viewer: a video starts playing only when the live view first asks for the picture.
    """

    def __init__(self, source: int | str, watcher: Watcher, settings: PhotoRequest | None = None, game: str | None = None,
                 record: Path | None = None, open_frames: Callable[[int | str], Iterator] = frames,
                 wait_for_viewer: bool = False) -> None:
        self.source = source
        self.watcher = watcher
        self.settings = settings
        self.game = game
        self.record = record
        self._open = open_frames
        self.wait_for_viewer = wait_for_viewer
        self.ended: tuple[str, str] | None = None  #: (game, reading) of the round last ended, until it is saved
        self.ended_from = None  #: the stable reading (``watch.Seen``) that round was kept from
        self._lock = threading.Condition()
        self._latest: tuple[int, float, np.ndarray] | None = None  # sequence number, t, frame
        self._jpeg: tuple[int, bytes, float] = (0, b"", 0.0)  # sequence number, JPEG, when made
        self._watched_until = 0.0
        self._events: deque[Event] = deque(maxlen=EVENTS_KEPT)
        self._totals: dict[str, int] = {}
        self._status, self._message = "starting", ""
        self._reading = False
        self._fps = 0.0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # -- control ----------------------------------------------------------------------------------------------
    def start(self) -> "LiveSession":
        for target, name in ((self._view, "handfoot-live-view"), (self._read, "handfoot-live-read")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop both threads (a reading under way is finished first); a source that can be closed (a browser's
        camera) is closed first, so no wait for its next frame holds the stop up."""
        self._stop.set()
        close = getattr(self.source, "close", None)
        if callable(close):
            close()
        with self._lock:
            self._lock.notify_all()
        for thread in self._threads:
            thread.join(timeout)

    @property
    def running(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def replay(self) -> "LiveSession":
        """This session stopped, and a new one started on the same source from the start (a video played again),
        reading the same round for the same game."""
        self.stop()
        watcher = Watcher(self.watcher.read, self.watcher.score)
        return LiveSession(self.source, watcher, self.settings, self.game, None, self._open,
                           self.wait_for_viewer).start()

    def new_round(self, round_no: int | None = None) -> None:
        """Start the next round, ``round_no`` (None: the one after the round watched): the stable reading, events
        and totals are forgotten (the table is read again at its next change)."""
        with self._lock:
            self.watcher.reads = 0
            self.watcher.seen = None
            self._events.clear()
            self._totals = {}
            if self.settings is not None and self.settings.round:
                self.settings = dataclasses.replace(self.settings, round=round_no or self.settings.round + 1)

    # -- what the page asks -----------------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """What the live view shows: ``status`` (``starting``, ``waiting`` for a viewer, ``watching``, ``moving``,
        ``reading``, ``reconnecting``, ``ended``, ``stopped``), a ``message`` in words, whether the source is a
        ``video``, the ``game`` and the ``round`` being watched (None without a game), the ``teams`` in view, the
        stable ``layout``, its ``cards`` where the picture shows them (:func:`handfoot.picture.shown_cards`) and
        each team's ``totals``, the
        ``events`` (oldest first), ``reads`` and the picture's frames per second."""
        with self._lock:
            status = self._status_now()
            message = self._message or MESSAGES.get(status, "")
            if status == "starting" and self._source_name() == "browser":
                message = "waiting for the phone's camera"
            return {"status": status, "message": message,
                    "source": self._source_name(),
                    "video": isinstance(self.source, str), "game": self.game,
                    "round": self.settings.round if self.game and self.settings is not None else None,
                    "teams": self.settings.table_teams(1) if self.settings is not None else [],
                    "layout": self.watcher.layout, "cards": shown_cards(self.watcher.seen),
                    "totals": dict(self._totals),
                    "events": [{"t": round(e.t, 1), "event": e.text, "team": e.change.team, "kind": e.change.kind,
                                "totals": e.totals} for e in self._events],
                    "reads": self.watcher.reads, "fps": round(self._fps, 1)}

    def status(self) -> str:
        """The status ``state()`` gives now."""
        with self._lock:
            return self._status_now()

    def _source_name(self) -> int | str:
        """A camera's index, a video's file name, or ``browser`` (a page's camera, :mod:`handfoot.camera`)."""
        if isinstance(self.source, (int, str)):
            return self.source if isinstance(self.source, int) else Path(self.source).name
        return getattr(self.source, "name", "camera")

    def jpeg(self, wait: float = 1.0) -> tuple[int, bytes]:
        """The latest annotated picture: (its sequence number, JPEG bytes); (0, b"") when there is none. Pictures
        are made while someone asks for them (for :data:`WATCHED_SECONDS` after each ask): the first ask waits up to
        ``wait`` seconds for one."""
        with self._lock:
            now = time.monotonic()
            fresh = now < self._watched_until
            self._watched_until = now + WATCHED_SECONDS
            if not fresh and self.running:
                self._lock.wait_for(lambda: self._jpeg[2] >= now or not self.running, timeout=wait)
            return self._jpeg[:2]

    def stable(self):
        """The last stable reading (:class:`handfoot.watch.Seen`), or None before the first."""
        return self.watcher.seen

    # -- threads ----------------------------------------------------------------------------------------------
    def _set(self, status: str, message: str = "") -> None:
        with self._lock:
            self._status, self._message = status, message

    def _frames(self) -> Iterator[tuple[float, np.ndarray]]:
        """The source's frames; a camera that stops is reopened until it comes back (or the session stops)."""
        offset = 0.0
        while not self._stop.is_set():
            try:
                stream = self._open(self.source)
                if isinstance(self.source, str):
                    if self.wait_for_viewer:
                        self._set("waiting")
                        while time.monotonic() >= self._watched_until and not self._stop.wait(0.05):
                            pass
                        self._set("watching")
                    yield from paced(stream)
                    self._set("ended", "the video ended; the last reading stands")
                    return
                last, first = 0.0, True
                for t, frame in stream:
                    if first:  # watching from the first frame (a browser's camera may be slow to send one)
                        self._set("watching")
                        first = False
                    last = t
                    yield offset + t, frame
                offset += last
            except HandFootError as exc:
                if isinstance(self.source, str):
                    self._set("ended", str(exc))
                    return
                again = "" if isinstance(exc, CameraStoppedError) else f"; trying again every {RECONNECT_SECONDS:.0f} s"
                self._set("reconnecting", f"{exc}{again}")
                self._stop.wait(RECONNECT_SECONDS)

    def _view(self) -> None:
        import cv2  # OpenCV: the optional vision extra

        writer = None
        seq, t0, shown, next_picture = 0, time.monotonic(), 0, 0.0
        period = 1.0 / LIVE_FPS
        try:
            for t, frame in self._frames():
                if self._stop.is_set():
                    break
                seq += 1
                now = time.monotonic()
                with self._lock:
                    if self._status == "starting":
                        self._status = "watching"
                    self._latest = (seq, t, frame)
                    self._lock.notify_all()
                    watched = now < self._watched_until
                if now < next_picture - 0.1 * period or not (watched or self.record is not None):
                    continue  # at most LIVE_FPS pictures a second, and none while nobody looks
                next_picture = max(next_picture + period, now - period)
                picture = self.annotate(frame)
                if self.record is not None:
                    if writer is None:
                        writer, rec_start, written = video_writer(self.record, picture.shape[1], picture.shape[0]), \
                            now, 0
                    due = int((now - rec_start) * RECORD_FPS) + 1 - written
                    for _ in range(min(due, 5)):
                        writer.write(picture)
                    written += max(due, 0)
                if not watched:
                    continue
                box = framing(self.watcher.seen, picture.shape)
                if box is not None:  # the piles, larger on a phone
                    picture = picture[box[1]:box[3], box[0]:box[2]]
                if picture.shape[1] > STREAM_WIDTH:
                    picture = cv2.resize(picture, (STREAM_WIDTH, round(picture.shape[0] * STREAM_WIDTH
                                                                       / picture.shape[1])), interpolation=cv2.INTER_LINEAR)
                ok, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
                shown += 1
                with self._lock:
                    self._jpeg = (seq, data.tobytes(), now)
                    self._lock.notify_all()
                    if now - t0 >= 1.0:
                        self._fps, t0, shown = shown / (now - t0), now, 0
        finally:
            if writer is not None:
                writer.release()
            with self._lock:
                if self._status not in ("ended",):
                    self._status = "stopped"
                self._fps = 0.0
                self._lock.notify_all()

    def _read(self) -> None:
        seen, last = 0, 0.0
        while not self._stop.is_set():
            with self._lock:
                self._lock.wait_for(lambda: self._stop.is_set() or (self._latest is not None
                                                                    and self._latest[0] != seen)
                                    or not self._threads[0].is_alive(), timeout=1.0)
                if self._stop.is_set() or self._latest is None or self._latest[0] == seen:
                    if not self._threads[0].is_alive():
                        return
                    continue
                seen, t, frame = self._latest
            wait = last + 1.0 / COMPARE_FPS - time.monotonic()
            if wait > 0:  # at most COMPARE_FPS comparisons a second; the frame after the wait is the latest
                self._stop.wait(wait)
                continue
            last = time.monotonic()
            if not self.watcher.due(t, frame):
                continue
            with self._lock:
                self._reading = True
            try:
                events = self.watcher.read_now(t, frame)
            finally:
                with self._lock:
                    self._reading = False
            with self._lock:
                self._events.extend(events)
                if self.watcher.seen is not None:
                    self._totals = self.watcher.score(self.watcher.layout)

    def annotate(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` with the last stable reading drawn on it (:func:`draw`); the card codes, totals and status
        only in a recorded video (the page writes them beside and over the picture, larger: ``state()``)."""
        with self._lock:
            totals, status = dict(self._totals), self._status_now()
        return draw(frame, self.watcher.seen, totals, status, text=self.record is not None)

    def _status_now(self) -> str:
        """The status, ``watching`` told apart into ``reading`` and ``moving`` (under the lock)."""
        if self._status == "watching" and self._reading:
            return "reading"
        if self._status == "watching" and self.watcher.moving:
            return "moving"
        return self._status


# -- the application layer of the live view ---------------------------------------------------------------------
def start(source: int | str, models: Models, req: PhotoRequest, game: str | None = None, record: Path | None = None,
          decks: Path | None = None, open_frames: Callable[[int | str], Iterator] = frames,
          wait_for_viewer: bool = False) -> LiveSession:
    """Start watching ``source`` with the loaded models (``handfoot.core.Models``) for the round ``req``
    (``handfoot.photo_request.PhotoRequest``: rules and house rules, round, split, teams, conf, deck kept in ``decks``);
    ``wait_for_viewer``: a video plays from when the live view first shows it.

    Raises:
        HandFootError: unknown rules or deck.
    """
    if req.deck:
        models = core.with_deck(models, req.deck, decks)
    read, score = round_reader(models, req)
    return LiveSession(source, Watcher(read, score), req, game, record, open_frames, wait_for_viewer).start()


def round_reader(models: Models, req: PhotoRequest):
    """The ``read`` and ``score`` of a watcher of the round ``req`` (``handfoot.watch.table_reader``)."""
    return table_reader(models, req.rules, req.round or 1, req.split, req.teams, req.conf, dict(req.house_rules))


def watching_game(session: LiveSession | None) -> str | None:
    """The game whose table ``session`` (None: nothing watched) has a camera watching it now (a status in
    :data:`WATCHING`), else None."""
    if session is None or session.game is None or not session.running:
        return None
    return session.game if session.status() in WATCHING else None
