"""Draw the page's app icons (handfoot/web/icons/icon-192.png, icon-512.png): two cards fanned on green felt,
the front one an ace of hearts. Drawn with OpenCV at four times the size and shrunk (smooth edges); the whole
square is the picture, so it serves as a maskable icon too (the cards stay inside the middle 80 %).

    python scripts/make_icons.py
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

OUT = Path(__file__).resolve().parents[1] / "handfoot" / "web" / "icons"
FELT = (58, 107, 31)  # BGR of #1f6b3a
RED = (31, 18, 179)  # #b3121f
INK = (29, 24, 22)


def card(img: np.ndarray, centre: tuple[float, float], size: tuple[float, float], angle: float, front: bool) -> None:
    s = img.shape[0]
    box = cv2.boxPoints(((centre[0] * s, centre[1] * s), (size[0] * s, size[1] * s), angle)).astype(np.int32)
    cv2.fillConvexPoly(img, box, (40, 40, 40), cv2.LINE_AA)  # edge
    inner = cv2.boxPoints(((centre[0] * s, centre[1] * s), (size[0] * s - 0.012 * s, size[1] * s - 0.012 * s),
                           angle)).astype(np.int32)
    cv2.fillConvexPoly(img, inner, (250, 250, 250) if front else (160, 60, 25), cv2.LINE_AA)
    if not front:
        return
    m = cv2.getRotationMatrix2D((centre[0] * s, centre[1] * s), -angle, 1.0)

    def at(x: float, y: float) -> tuple[int, int]:  # a point on the card, in the card's own units (0-1 from its centre)
        p = m @ np.array([(centre[0] + x * size[0]) * s, (centre[1] + y * size[1]) * s, 1.0])
        return int(p[0]), int(p[1])

    r = int(0.09 * s)  # a heart: two circles and a triangle
    cv2.circle(img, at(-0.17, -0.05), r, RED, -1, cv2.LINE_AA)
    cv2.circle(img, at(0.17, -0.05), r, RED, -1, cv2.LINE_AA)
    cv2.fillConvexPoly(img, np.array([at(-0.43, 0.0), at(0.43, 0.0), at(0.0, 0.3)], np.int32), RED, cv2.LINE_AA)
    cv2.putText(img, "A", at(-0.42, -0.27), cv2.FONT_HERSHEY_DUPLEX, 0.0042 * s, RED, max(2, int(0.012 * s)),
                cv2.LINE_AA)


def icon(size: int) -> np.ndarray:
    big = size * 4
    img = np.zeros((big, big, 3), np.uint8)
    img[:] = FELT
    card(img, (0.42, 0.52), (0.36, 0.5), -14, False)
    card(img, (0.56, 0.5), (0.36, 0.5), 10, True)
    return cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        cv2.imwrite(str(OUT / f"icon-{size}.png"), icon(size), [cv2.IMWRITE_PNG_COMPRESSION, 9])
        print(OUT / f"icon-{size}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
