"""Watching a table in this process (``handfoot watch`` without ``--serve``): each frame read and told as events,
optionally drawn into a recorded video and a window, and the round's layout added to a game at the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scorer import HandFootError

from . import core, games, live, live_rounds, photo_request
from . import picture as shown
from .core import Models
from .photo_request import PhotoRequest
from .errors import NotFoundError
from .ledger import Ledger
from .watch import Event, Watcher


@dataclass
class WatchEnd:
    """How watching ended: the readings made, the last stable layout (``docs/layout.md``; ``{}`` when no card was
    seen), its round totals by team, and the camera's error when it stopped (None: the video ended or the window
    was closed)."""

    reads: int
    layout: dict[str, Any]
    totals: dict[str, int] = field(default_factory=dict)
    stopped: HandFootError | None = None


def watch_request(rules: str, round_no: int, split: str | None, teams: str | None, deck: str | None,
                  game: str | None = None, db: str | None = None, serve: bool = False
                  ) -> tuple[PhotoRequest, Ledger | None]:
    """The round ``watch`` reads and, with ``game``, the ledger (``db``, default the data folder's) holding the
    game (None with ``serve``, whose server opens it); a game's rules, round, teams and deck come from it.
    Raises HandFootError: no such game, or one that is over."""
    if not game:
        teams_read = photo_request.parse_teams(teams, repeats=False)  # the camera sees each team once
        return PhotoRequest(rules=rules, round=round_no, split=split, teams=teams_read, deck=deck), None
    path = Path(db) if db else core.data_dir() / "handfoot.db"
    if not path.exists():  # no ledger, no game: said without making one
        raise NotFoundError(f"no game {game!r}: there is no ledger at {path} yet (--db names another)")
    ledger = Ledger.open(path)
    req = live_rounds.request_for_game(games.game_view(ledger, game), split, deck)
    if serve:
        ledger.close()
        ledger = None
    return req, ledger


def fps_of(video: str) -> float:
    """A video file's frames per second (15 when it does not say)."""
    import cv2  # OpenCV: the optional vision extra

    cap = cv2.VideoCapture(video)
    try:
        return cap.get(cv2.CAP_PROP_FPS) or 15.0
    finally:
        cap.release()


def watch_table(frames: Iterator[tuple[float, np.ndarray]], models: Models, req: PhotoRequest,
                on_event: Callable[[Event], Any], record: Path | None = None, record_fps: float = shown.RECORD_FPS,
                window: bool = False) -> WatchEnd:
    """Read each ``(t seconds, BGR frame)`` of ``frames`` for the round ``req`` (:class:`handfoot.watch.Watcher`)
    and call ``on_event`` with each change; draw each frame into the video ``record`` (at ``record_fps``) and the
    window (q or Esc stops). A camera that stops (HandFootError) ends the watch with what was read."""
    read, score = live.round_reader(models, req)
    watcher = Watcher(read, score)
    stopped, writer, totals = None, None, {}
    try:
        for t, frame in frames:
            for event in watcher.step(t, frame):
                totals = event.totals
                on_event(event)
            if record or window:
                picture = shown.draw(frame, watcher.seen, totals, "moving" if watcher.moving else "watching")
                if record:
                    writer = writer or shown.video_writer(record, picture.shape[1], picture.shape[0], record_fps)
                    writer.write(picture)
                if window and not shown.show_window(picture):
                    break  # q or Esc in the window
    except HandFootError as exc:  # the camera stopped: keep what was read
        stopped = exc
    finally:
        if writer is not None:
            writer.release()
    final = score(watcher.layout) if watcher.layout.get("teams") else {}
    return WatchEnd(watcher.reads, watcher.layout, final, stopped)


def keep_round(ledger: Ledger, game: str, layout: dict[str, Any]) -> games.GameOut | None:
    """Add the watched ``layout`` to ``game`` as its next round (leniently: the page corrects it) and close
    ``ledger``. Returns the game, or None when no card was seen."""
    try:
        return games.add_round(ledger, game, layout, lenient=True) if layout.get("teams") else None
    finally:
        ledger.close()

