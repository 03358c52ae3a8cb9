"""What the camera's picture looks like to a person: the last stable reading drawn on a frame (:func:`draw`), the
part of the frame the live view shows (:func:`framing`), an OpenCV window and a video file to put it in.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from scorer import HandFootError

#: the live picture shows the cards with this many card heights around them (:func:`framing`)
FRAME_MARGIN = 1.0
#: ... and at least this share of the frame's width
FRAME_MIN = 0.4
#: frames per second of a ``record`` video (the picture is repeated or dropped to keep real time)
RECORD_FPS = 15.0


def framing(seen: Any, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """The part of a frame of ``shape`` (H, W, ...) the live picture shows: around every card of the stable
    reading ``seen`` (:data:`FRAME_MARGIN` card heights beyond their indices), of the frame's own aspect, at least
    :data:`FRAME_MIN` of its width; xyxy pixels, or None for the whole frame (no reading, or the cards fill it)."""
    if seen is None or seen.photo is None or seen.photo.image.shape[:2] != tuple(shape[:2]):
        return None
    boxes = [s.detections.xyxy for s in seen.photo.sides if len(s.detections)]
    cards = [c.card_height for s in seen.photo.sides for c in s.cards]
    if not boxes or not cards:
        return None
    h, w = shape[:2]
    xyxy = np.concatenate(boxes)
    margin = FRAME_MARGIN * float(np.median(cards))
    x1, y1 = xyxy[:, 0].min() - margin, xyxy[:, 1].min() - margin
    x2, y2 = xyxy[:, 2].max() + margin, xyxy[:, 3].max() + margin
    cw = max(x2 - x1, (y2 - y1) * w / h, FRAME_MIN * w)
    if cw >= 0.85 * w:
        return None
    ch = cw * h / w
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    left = int(round(min(max(cx - cw / 2, 0), w - cw)))
    top = int(round(min(max(cy - ch / 2, 0), h - ch)))
    return left, top, left + int(round(cw)), top + int(round(ch))


def draw(frame: np.ndarray, seen: Any, totals: dict[str, int], status: str = "watching",
         text: bool = True) -> np.ndarray:
    """A copy of ``frame`` (H, W, 3 uint8 BGR) with ``seen``'s boxes and pile outlines (a
    :class:`handfoot.watch.Seen` read from a frame of the same size, or None), each team's round total and, while
    the table moves, is read or the camera is lost, a banner saying so (:data:`BANNERS`). ``text`` False: the
    boxes and outlines only (the live view's page writes the codes, totals and status beside and over the
    picture itself, in type a phone can read: :func:`shown_cards`)."""
    import cv2  # OpenCV: the optional vision extra

    from vision.pipeline import annotate  # the optional vision extra (OpenCV, ONNX Runtime)

    lines = [f"{team}: {total:,}" for team, total in totals.items()]
    if seen is not None and seen.photo is not None and seen.photo.image.shape == frame.shape:
        picture = annotate(dataclasses.replace(seen.photo, image=frame.copy()), lines, seen.labels, text=text,
                           over=True)  # the frame's size, as the video and the window need
    else:
        picture = frame.copy()
    label = BANNERS.get(status) if text else None
    if label:
        scale = max(0.5, frame.shape[1] / 1600)
        (w, h), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        y = picture.shape[0] - 12
        cv2.rectangle(picture, (8, y - h - 10), (20 + w, y + 6), (30, 30, 30), -1)
        cv2.putText(picture, label, (14, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 2, cv2.LINE_AA)
    return picture


def shown_cards(seen: Any) -> list[dict[str, Any]]:
    """The cards of the stable reading ``seen`` where the live picture shows them: each ``code``, its index box as
    fractions (0-1) of the picture after :func:`framing` (x1, y1, x2, y2) and whether it was read ``sure``
    (confidence at least 0.5). Empty before the first reading."""
    if seen is None or seen.photo is None:
        return []
    h, w = seen.photo.image.shape[:2]
    x0, y0, x1, y1 = framing(seen, seen.photo.image.shape) or (0, 0, w, h)
    cw, ch = float(x1 - x0), float(y1 - y0)
    out = []
    for side in seen.photo.sides:
        for box, conf, code in side.detections:
            out.append({"code": str(code), "sure": bool(conf >= 0.5),
                        "box": [round((float(box[0]) - x0) / cw, 4), round((float(box[1]) - y0) / ch, 4),
                                round((float(box[2]) - x0) / cw, 4), round((float(box[3]) - y0) / ch, 4)]})
    return out


#: the status drawn on the picture (none while simply watching)
BANNERS = {"moving": "waiting for the table to settle", "reading": "reading...",
           "reconnecting": "camera lost: reconnecting"}


WINDOW = "handfoot watch"


def check_window() -> None:
    """Raises HandFootError when this OpenCV cannot open a window (``opencv-python-headless``, or no display: on
    Linux neither ``$DISPLAY`` nor ``$WAYLAND_DISPLAY`` is set, where a GUI build of OpenCV would abort the
    process instead of raising)."""
    import cv2  # OpenCV: the optional vision extra

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise HandFootError("cannot open a window: no display here ($DISPLAY is not set): use --serve and open "
                            "the live view in a browser")
    try:
        cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL)
    except cv2.error:
        raise HandFootError("cannot open a window: this computer's OpenCV has no GUI (or no display): use "
                            "--serve and open the live view in a browser") from None


def show_window(picture: np.ndarray) -> bool:
    """Show ``picture`` in the window of :func:`check_window`; False once q or Esc was pressed there."""
    import cv2  # OpenCV: the optional vision extra

    cv2.imshow(WINDOW, picture)
    return cv2.waitKey(1) & 0xFF not in (ord("q"), 27)


def video_writer(path: Path, width: int, height: int, fps: float = RECORD_FPS):
    """A video writer for ``record`` (MPEG-4 in ``.mp4``, Motion JPEG otherwise), at ``fps`` frames a second.

    Raises:
        HandFootError: the file cannot be written.
    """
    import cv2  # OpenCV: the optional vision extra

    fourcc = cv2.VideoWriter_fourcc(*("mp4v" if path.suffix.lower() == ".mp4" else "MJPG"))
    writer = cv2.VideoWriter(str(path), fourcc, fps, (width, height))
    if not writer.isOpened():
        raise HandFootError(f"{path}: cannot write a video there")
    return writer
