"""Videos of a round watched from above, for ``handfoot watch``'s tests, benchmark and demonstrations.

A round (:class:`Round`) is every pile that will be on the table (:class:`datasets.scene_piles.Pile`), laid out once,
and its *stages*: how many of each pile's cards are down at one moment. Each stage is a scene of
:func:`datasets.scenes.make_scene` (the same seed, decks and layout, no clutter, the whole table in view) shown
still, and between two stages a hand and arm cross the table. Every frame is shifted by a little camera shake and
its brightness flickers, as a webcam's picture does.

    python -m datasets.round_video OUT.avi [--deck anglo] [--size 1280x720] [--fps 10]

writes :data:`ROUND` (four changes) with the aisleriot ``anglo`` deck.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .scene_piles import Pile
from .scenes import make_scene

@dataclass(frozen=True)
class Round:
    """A round as the camera sees it: every pile that will be on the table (laid out once, each where it will be)
    and, for each stage, how many of each pile's first cards are down."""

    piles: tuple[Pile, ...]
    stages: tuple[tuple[int, ...], ...]


#: a round in five stages: a meld of 8s grows, the kings reach seven (a clean book) and are squared (the fan
#: taken up, the squared book put down beside it), a red three is laid
ROUND = Round(
    (Pile("meld", ["8H", "8S", "8D", "8C"]), Pile("meld", ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]),
     Pile("squared", ["KH", "KS", "KD", "KC", "KH", "KS", "KD"], "KD"), Pile("red_threes", ["3H"])),
    ((3, 6, 0, 0), (4, 6, 0, 0), (4, 7, 0, 0), (4, 0, 7, 0), (4, 0, 7, 1)))


@dataclass(frozen=True)
class Timeline:
    """When things happen in a written video (seconds from its start): each stage's first still frame, and each
    hand's (start, end)."""

    stages: list[float]
    hands: list[tuple[float, float]]
    frames: int


def round_video(path: str | Path, decks: Sequence, plan: Round = ROUND, *, seed: int = 1,
                size: tuple[int, int] = (1280, 720), fps: float = 10.0, still: float = 2.5, hand: float = 2.0,
                shake: float = 1.5, flicker: float = 0.04) -> Timeline:
    """Write a video of the round ``plan`` to ``path`` (Motion JPEG in ``.avi``, MPEG-4 in ``.mp4``).

    Args:
        decks: loaded card designs (``datasets.cardart.load_deck``).
        size: (width, height) in pixels; fps: frames per second.
        still: seconds each stage is shown still; hand: seconds a hand takes to cross the table between stages.
        shake: the camera's shake, the largest shift of a frame in pixels; flicker: the light's flicker, the
            largest relative change of brightness.

    Raises:
        OSError: the video cannot be written.
    """
    import cv2

    path = Path(path)
    w, h = size
    fourcc = cv2.VideoWriter_fourcc(*("mp4v" if path.suffix.lower() == ".mp4" else "MJPG"))
    out = cv2.VideoWriter(str(path), fourcc, fps, (w, h))
    if not out.isOpened():
        raise OSError(f"{path}: cannot write a video there")
    rng = np.random.default_rng(seed)
    scenes = [make_scene(seed, decks, size=size, full_view=True, clutter=False, piles=list(plan.piles),
                         shown=stage).image for stage in plan.stages]
    n = 0
    starts, hands = [], []

    def write(frame: np.ndarray) -> None:
        nonlocal n
        dx, dy = rng.uniform(-shake, shake, 2)
        moved = cv2.warpAffine(frame, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REFLECT)
        gain = 1.0 + rng.uniform(-flicker, flicker)
        out.write(cv2.convertScaleAbs(moved, alpha=gain))
        n += 1

    for k, image in enumerate(scenes):
        if k:
            hands.append((n / fps, None))
            steps = max(1, round(hand * fps))
            for j in range(steps):  # the hand crosses over the old table, and the new one is under it after
                base = scenes[k - 1] if j < steps // 2 else image
                write(_hand(base, (j + 0.5) / steps))
            hands[-1] = (hands[-1][0], n / fps)
        starts.append(n / fps)
        for _ in range(max(1, round(still * fps))):
            write(image)
    out.release()
    return Timeline(starts, hands, n)


def _hand(image: np.ndarray, x: float) -> np.ndarray:
    """``image`` with an arm reaching in from the bottom edge and a hand at ``x`` (0-1) across the picture."""
    import cv2

    h, w = image.shape[:2]
    frame = image.copy()
    cx, cy = int(w * (0.1 + 0.8 * x)), int(h * 0.45)
    skin = (120, 160, 215)
    cv2.line(frame, (cx + w // 8, h + 20), (cx, cy), skin, max(20, w // 14))
    cv2.ellipse(frame, (cx, cy), (w // 16, h // 7), 15, 0, 360, skin, -1)
    for f in range(4):  # fingers
        cv2.line(frame, (cx - w // 40 + f * w // 60, cy - h // 10), (cx - w // 30 + f * w // 45, cy - h // 4),
                 skin, max(6, w // 90))
    return frame


def main(argv: list[str] | None = None) -> int:
    from .cardart import load_deck

    ap = argparse.ArgumentParser(description="Write a video of a round watched from above (datasets.round_video).")
    ap.add_argument("out", type=Path, help="the video to write (.avi or .mp4)")
    ap.add_argument("--deck", default="anglo", help="card design (default anglo)")
    ap.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT (default 1280x720)")
    ap.add_argument("--fps", type=float, default=10.0)
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    t = round_video(args.out, [load_deck(args.deck)], size=(w, h), fps=args.fps)
    print(f"{args.out}: {t.frames} frames; stages at {', '.join(f'{s:.1f}' for s in t.stages)} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
