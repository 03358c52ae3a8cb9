"""Procedural table surfaces: felt, wood, cloth (checks, stripes), plastic and stone.

No texture data set can be downloaded here, so tables are drawn from noise. Each function returns an
(H, W, 3) uint8 BGR image and is deterministic for the generator it is given.
"""

from __future__ import annotations

import math

import cv2
import numpy as np


def _noise(rng: np.random.Generator, W: int, H: int, scale: float) -> np.ndarray:
    """Smooth value noise in [0, 1] with features about ``scale`` pixels wide."""
    gw, gh = max(2, int(W / scale) + 2), max(2, int(H / scale) + 2)
    g = rng.random((gh, gw)).astype(np.float32)
    return cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def felt(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    base = np.array(rng.choice([[40, 110, 30], [110, 60, 20], [30, 30, 120], [60, 60, 60], [90, 40, 90]]),
                    np.float32) * rng.uniform(0.7, 1.3)
    n = 0.75 + 0.5 * _noise(rng, W, H, rng.uniform(80, 400))
    img = base[None, None, :] * n[:, :, None]
    img += rng.normal(0, rng.uniform(3, 10), (H, W, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def wood(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = rng.uniform(0, math.pi)
    u = xx * math.cos(a) + yy * math.sin(a)
    v = -xx * math.sin(a) + yy * math.cos(a)
    warp = _noise(rng, W, H, rng.uniform(150, 500)) * rng.uniform(20, 80)
    freq = rng.uniform(0.03, 0.12)
    grain = 0.5 + 0.5 * np.sin((v + warp) * freq + 3 * _noise(rng, W, H, 60))
    plank = np.floor(u / rng.uniform(120, 400))
    plank_shift = (np.sin(plank * 12.9898) * 43758.5453) % 1.0
    light = np.array([rng.uniform(120, 200), rng.uniform(150, 210), rng.uniform(190, 240)], np.float32)
    dark = light * rng.uniform(0.45, 0.75)
    t = (grain * 0.7 + plank_shift * 0.3)[:, :, None]
    img = dark * t + light * (1 - t)
    img += rng.normal(0, 4, (H, W, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def cloth(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    period = rng.uniform(20, 90)
    c1 = rng.uniform(80, 250, 3).astype(np.float32)
    c2 = rng.uniform(80, 250, 3).astype(np.float32)
    a = rng.uniform(0, math.pi / 2)
    u = xx * math.cos(a) + yy * math.sin(a)
    v = -xx * math.sin(a) + yy * math.cos(a)
    sx = (np.sin(u / period * math.pi) > 0).astype(np.float32)
    sy = (np.sin(v / period * math.pi) > 0).astype(np.float32)
    pattern = (sx + sy) / 2 if rng.random() < 0.6 else sx
    img = c1 * pattern[:, :, None] + c2 * (1 - pattern[:, :, None])
    weave = 0.9 + 0.1 * np.sin(xx * 1.3)[:, :, None] * np.sin(yy * 1.3)[:, :, None]
    img = cv2.GaussianBlur(img * weave, (0, 0), 0.8)
    img += rng.normal(0, 5, (H, W, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def plastic(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    base = rng.uniform(60, 240, 3).astype(np.float32)
    n = 0.9 + 0.2 * _noise(rng, W, H, rng.uniform(200, 800))
    img = base[None, None, :] * n[:, :, None]
    speck = (rng.random((H, W)) < rng.uniform(0, 0.01)).astype(np.float32) * rng.uniform(-60, 60)
    img += speck[:, :, None] + rng.normal(0, 2, (H, W, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def stone(rng: np.random.Generator, W: int, H: int) -> np.ndarray:
    base = rng.uniform(120, 230)
    n = _noise(rng, W, H, 30) * 0.5 + _noise(rng, W, H, 120) * 0.3 + _noise(rng, W, H, 400) * 0.2
    veins = np.abs(np.sin(n * rng.uniform(6, 12)))
    g = base * (0.88 + 0.12 * veins)
    tint = rng.uniform(0.9, 1.1, 3).astype(np.float32)
    img = g[:, :, None] * tint[None, None, :]
    return np.clip(img, 0, 255).astype(np.uint8)


KINDS = {"felt": felt, "wood": wood, "cloth": cloth, "plastic": plastic, "stone": stone}


def table_texture(rng: np.random.Generator, W: int, H: int, kind: str | None = None) -> np.ndarray:
    """A random table surface of (H, W, 3) uint8 BGR."""
    name = kind or str(rng.choice(list(KINDS), p=[0.32, 0.32, 0.16, 0.15, 0.05]))
    return KINDS[name](rng, W, H)
