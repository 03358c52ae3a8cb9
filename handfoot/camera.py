"""A browser's camera as the live view's frame source: a phone's page sends one JPEG a frame over the WebSocket
``/v1/live/camera`` (:mod:`handfoot.routes.live`), and the :class:`handfoot.live.LiveSession` takes them as it takes
a webcam's frames (the latest only; a reading under way drops the frames that come meanwhile, never queues them).

A frame is checked before it is decoded: at most :data:`MAX_FRAME_BYTES`, a JPEG by its header, at most
:data:`MAX_SIDE` pixels a side (:func:`check_frame`). A camera that sends nothing for :data:`SILENT_SECONDS` (the
phone's page closed, its screen locked, the Wi-Fi gone) ends its frames with a HandFootError: the session keeps
its layout, says so and waits for the phone to come back (``RECONNECT_SECONDS`` apart).
"""

from __future__ import annotations

import threading
import time
from typing import Iterator

import numpy as np

from scorer import HandFootError

from .errors import TooLargeError

#: the largest frame message, bytes (a 1920 x 1080 JPEG of a table at quality 0.85 is about 250 KB)
MAX_FRAME_BYTES = 4 * 1024 * 1024
#: the largest frame side, pixels (the page sends at most :data:`FRAME_WIDTH` wide)
MAX_SIDE = 4096
#: no frame for this many seconds: the camera is taken as stopped
SILENT_SECONDS = 5.0
#: the width the page scales its frames to (pixels), told to it in ``POST /v1/live``'s answer: a phone camera's
#: 1080p picture as it is, since the reader needs the corner indices' pixels (measured in models/HISTORY.md)
FRAME_WIDTH = 1920


class FrameError(HandFootError):
    """A frame message that is not a JPEG of a sensible size."""


class CameraStoppedError(HandFootError):
    """The phone stopped sending its camera's picture on purpose (its page's Stop this camera: the socket closed
    with 1000): the live view says so at once, and waits for a phone's camera without trying anything again."""


def check_frame(data: bytes) -> tuple[int, int]:
    """The (width, height) of a frame message, read from its JPEG header before anything is decoded.

    Raises:
        TooLargeError: over :data:`MAX_FRAME_BYTES` bytes or :data:`MAX_SIDE` pixels a side.
        FrameError: not a JPEG, or one whose header gives no size.
    """
    from vision.images import image_size  # the optional vision extra (OpenCV, ONNX Runtime)

    if len(data) > MAX_FRAME_BYTES:
        raise TooLargeError(f"camera frame too large: {len(data):,} bytes (at most {MAX_FRAME_BYTES:,})")
    found = image_size(data[:65536])
    if found is None or found[0].lower() != "jpeg":
        raise FrameError("a camera frame must be one JPEG image a message")
    _, width, height = found
    if width > MAX_SIDE or height > MAX_SIDE:
        raise TooLargeError(f"camera frame too large: {width} x {height} pixels (at most {MAX_SIDE} a side)")
    return width, height


def decode_frame(data: bytes) -> np.ndarray:
    """A frame message as a BGR image (h, w, 3) uint8, checked first (:func:`check_frame`).

    Raises:
        TooLargeError, FrameError: as :func:`check_frame`; FrameError also when the JPEG cannot be decoded.
    """
    import cv2  # OpenCV: the optional vision extra

    check_frame(data)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise FrameError("a camera frame could not be decoded as a JPEG")
    return image


class BrowserCamera:
    """The frames a browser sends (see the module docstring). :meth:`put` is called for each decoded frame (by
    the WebSocket route), :meth:`frames` gives them to the live session; ``connections`` counts the sockets that
    have sent to it, and the newest one is the camera (:meth:`connect`)."""

    name = "browser"

    def __init__(self, silent_seconds: float = SILENT_SECONDS) -> None:
        self.silent_seconds = silent_seconds
        self.connections = 0
        self.received = 0  #: frames taken so far
        self._cond = threading.Condition()
        self._latest: tuple[int, float, np.ndarray] | None = None  # sequence number, seconds, frame
        self._start = time.monotonic()
        self._hung_up = False  # the camera's socket closed on purpose; until the next one connects
        self._closed = False  # the live session stopped: no frames any more

    def connect(self) -> int:
        """A new socket sends from now on: its number (an older socket with another number stops being read)."""
        with self._cond:
            self.connections += 1
            self._hung_up = False
            return self.connections

    def hang_up(self, connection: int) -> None:
        """Socket ``connection`` was closed by its page on purpose (Stop this camera): while it is the camera,
        :meth:`frames` ends at once with :class:`CameraStoppedError` instead of after ``silent_seconds``."""
        with self._cond:
            if connection == self.connections:
                self._hung_up = True
                self._cond.notify_all()

    def close(self) -> None:
        """The live session stopped: :meth:`frames` ends at once, without an error."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def current(self, connection: int) -> bool:
        """Whether socket ``connection`` is still the camera (no newer one connected)."""
        with self._cond:
            return connection == self.connections

    def put(self, frame: np.ndarray) -> None:
        """Take a frame (BGR); the one before it, if not yet given out, is dropped."""
        with self._cond:
            self.received += 1
            self._latest = (self.received, time.monotonic() - self._start, frame)
            self._cond.notify_all()

    def open(self, source: object = None) -> Iterator[tuple[float, np.ndarray]]:
        """The live session's ``open_frames``: :meth:`frames` (``source`` is this camera)."""
        return self.frames()

    def frames(self) -> Iterator[tuple[float, np.ndarray]]:
        """(seconds since this call, BGR frame) as they come, the latest only (as a webcam opened again starts
        its times again: the live session adds the times before).

        Ends at once when the camera is closed (:meth:`close`).

        Raises:
            CameraStoppedError: the phone stopped its camera (:meth:`hang_up`), at once.
            HandFootError: no frame for ``silent_seconds`` (after the frames it gave).
        """
        seen = self._latest[0] if self._latest is not None else 0
        opened = time.monotonic() - self._start
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closed or self._hung_up or (self._latest is not None
                                                                                and self._latest[0] != seen),
                                    timeout=self.silent_seconds)
                if self._closed:
                    return
                if self._latest is None or self._latest[0] == seen:
                    if self._hung_up:
                        raise CameraStoppedError("the phone's camera was stopped: the table is not watched until a "
                                                 "phone's camera is used again")
                    raise HandFootError(f"no picture from the phone's camera for {self.silent_seconds:.0f} s (is "
                                        "the live view open on the phone, its screen on?)")
                seen, t, frame = self._latest
            yield max(0.0, t - opened), frame
