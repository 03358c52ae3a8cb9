"""The camera that photographs a synthetic table: a homography from the flat canvas to the photo.

The canvas (:mod:`datasets.scene_render`) is a plane seen by a pinhole camera: turned by any angle in the
plane, tilted up to about 35 degrees, and framed either whole (end-to-end evaluation) or zoomed to a card width in
pixels with part of the table cut off (the views training tiles are cut from).
"""

from __future__ import annotations

import math

import numpy as np


def camera_homography(canvas_wh: tuple[int, int], out_wh: tuple[int, int], rng: np.random.Generator,
                      fill: float, card_width: float | None = None, card_px: float = 240.0,
                      focus: tuple[float, float] | None = None) -> np.ndarray:
    """3x3 homography canvas px -> photo px: rotation (any angle), tilt up to ~35 degrees, fit into the frame.

    The table is a plane at depth ``f`` (the focal length, pixels) tilted about an axis through its centre. Framed
    whole (``card_width`` None), the canvas is first scaled so that its diagonal spans the photo's long side, as a
    camera framing the whole table stands: the perspective (the nearest card's size over the farthest's, at most
    about 1.7 at 35 degrees) then depends on the tilt and the lens, not on how many piles the canvas holds (unscaled,
    a canvas several times ``f`` across would put the far cards at a few pixels, a photo nobody takes). Zoomed in
    (``card_width`` pixels a card), the canvas keeps its pixels: the views training tiles are cut from.

    Args:
        canvas_wh, out_wh: the canvas' and the photo's (width, height) in px.
        fill: framed whole, the share (0-1) of the photo's width or height the table spans.
        card_width: zoomed in, a card's width in photo px (at the canvas centre); None frames the whole table.
        card_px: a card's width in canvas px.
        focus: zoomed in, the canvas point (px) the photo is centred near; None picks one at random.
    """
    cw, chh = canvas_wh
    W, H = out_wh
    theta = rng.uniform(0, 2 * math.pi)
    c, s = math.cos(theta), math.sin(theta)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)
    s0 = max(W, H) / math.hypot(cw, chh) if card_width is None else 1.0
    T0 = np.array([[s0, 0, -s0 * cw / 2], [0, s0, -s0 * chh / 2], [0, 0, 1]], np.float64)
    tilt = math.radians(rng.uniform(0, 35) if rng.random() < 0.8 else 0)
    f = max(W, H) * rng.uniform(0.8, 1.4)
    az = rng.uniform(0, 2 * math.pi)
    # perspective: rotate the plane about an axis in the image plane (direction az) by `tilt`
    ax, ay = math.cos(az), math.sin(az)
    K = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1]], np.float64)
    cr, sr = math.cos(tilt), math.sin(tilt)
    # Rodrigues for axis (ax, ay, 0)
    Rt = np.array([[cr + ax * ax * (1 - cr), ax * ay * (1 - cr), ay * sr],
                   [ax * ay * (1 - cr), cr + ay * ay * (1 - cr), -ax * sr],
                   [-ay * sr, ax * sr, cr]], np.float64)
    # plane at depth f: x_img = K (Rt [x, y, 0] + [0, 0, f]) -> homography
    Hp = K @ np.column_stack([Rt[:, 0], Rt[:, 1], np.array([0, 0, f])])
    Hp = Hp / Hp[2, 2]
    G = Hp @ R @ T0
    corners = np.array([[0, 0, 1], [cw, 0, 1], [cw, chh, 1], [0, chh, 1]], np.float64).T
    pts = G @ corners
    pts = (pts[:2] / pts[2]).T
    lo, hi = pts.min(0), pts.max(0)
    k = fill * min(W / (hi[0] - lo[0]), H / (hi[1] - lo[1]))
    centre = (lo + hi) / 2
    off = np.array([W / 2, H / 2]) + rng.uniform(-0.5, 0.5, 2) * np.array([W, H]) * (1 - fill) * 0.8
    if card_width is not None:  # zoomed in: cards of about card_width px, part of the table may be cut off
        mid = G @ np.array([cw / 2, chh / 2, 1.0])
        ahead = G @ np.array([cw / 2 + card_px, chh / 2, 1.0])
        px = np.linalg.norm(ahead[:2] / ahead[2] - mid[:2] / mid[2])
        k = card_width / max(px, 1e-6)
        if focus is not None:
            f = G @ np.array([focus[0], focus[1], 1.0])
            centre = f[:2] / f[2]
        else:
            centre = rng.uniform(lo, hi)
        off = np.array([W / 2, H / 2]) + rng.uniform(-0.3, 0.3, 2) * np.array([W, H])
    S = np.array([[k, 0, off[0] - k * centre[0]], [0, k, off[1] - k * centre[1]], [0, 0, 1]], np.float64)
    return S @ G
