"""The photo of a synthetic table: the canvas seen through the camera on a table texture, then light and sensor.

:func:`photograph` warps the BGRA canvas (:mod:`datasets.scene_render`) by the camera homography
(:mod:`datasets.scene_camera`) onto a table texture (felt, wood, cloth, plastic; :mod:`datasets.textures`), then
degrades it as a real photo is: a lighting gradient and vignette, cast shadows, glare, white balance, Gaussian or
motion blur, sensor noise, now and then greyscale.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from . import textures


def photograph(canvas: np.ndarray, homography: np.ndarray, size: tuple[int, int],
               rng: np.random.Generator) -> np.ndarray:
    """The (H, W, 3) uint8 BGR photo of the (h, w, 4) BGRA ``canvas`` through the 3x3 canvas px -> photo px
    ``homography``, ``size`` = (W, H) px."""
    W, H = size
    table = textures.table_texture(rng, W, H)
    warped = cv2.warpPerspective(canvas, homography, (W, H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(0, 0, 0, 0))
    alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
    # the canvas' shadow pixels are black with partial alpha: darken the table there
    image = (warped[:, :, :3].astype(np.float32) * alpha + table.astype(np.float32) * (1 - alpha)).astype(np.uint8)
    return _photometric(image, rng)


def _photometric(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``img``, a (H, W, 3) uint8 BGR photo, under light, cast shadows and glare, then white balance, blur, noise
    and now and then greyscale."""
    H, W = img.shape[:2]
    out = img.astype(np.float32)
    # lighting gradient
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    grad = (np.cos(a) * (xx / W - 0.5) + np.sin(a) * (yy / H - 0.5))
    light = 1.0 + grad * rng.uniform(0, 0.7)
    if rng.random() < 0.5:  # radial vignette / spot
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / max(W, H)
        light *= 1.15 - rng.uniform(0, 0.6) * d
    out *= light[:, :, None] * rng.uniform(0.6, 1.2)
    # cast shadows
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.4 else 0):
        m = np.zeros((H, W), np.uint8)
        pts = (rng.uniform(0, 1, (int(rng.integers(3, 7)), 2)) * (W, H)).astype(np.int32)
        cv2.fillPoly(m, [cv2.convexHull(pts)], 255)
        m = cv2.GaussianBlur(m, (0, 0), max(W, H) * rng.uniform(0.01, 0.05)).astype(np.float32) / 255
        out *= (1 - m * rng.uniform(0.2, 0.55))[:, :, None]
    # glare
    if rng.random() < 0.3:
        m = np.zeros((H, W), np.uint8)
        cv2.ellipse(m, (int(rng.uniform(0, W)), int(rng.uniform(0, H))),
                    (int(W * rng.uniform(0.03, 0.15)), int(H * rng.uniform(0.02, 0.1))), rng.uniform(0, 180), 0, 360,
                    255, -1)
        m = cv2.GaussianBlur(m, (0, 0), max(W, H) * 0.02).astype(np.float32) / 255
        out += m[:, :, None] * rng.uniform(60, 160)
    # white balance
    out *= rng.uniform(0.85, 1.15, 3)[None, None, :]
    out = np.clip(out, 0, 255).astype(np.uint8)
    # blur
    r = rng.random()
    if r < 0.35:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.6))
    elif r < 0.45:
        k = int(rng.integers(3, 9))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, rot, (k, k))
        out = cv2.filter2D(out, -1, kern / max(kern.sum(), 1e-6))
    # noise
    if rng.random() < 0.6:
        out = np.clip(out.astype(np.float32) + rng.normal(0, rng.uniform(1, 9), out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.08:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return out
