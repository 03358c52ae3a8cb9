"""The geometry of fanned cards, written once for every stage that asks.

A meld is laid as a fan: its cards' corner indices step evenly along a line (seed 000 "Melding"). Three questions
recur in the pipeline, and each has one answer here:

* *one step beyond*: where the next index of a fan would be, after ``a`` coming from ``b`` (:func:`beyond`), and
  how far, in steps, a point lies from there (:func:`step_miss`);
* *inside a fan*: an index with two neighbours on opposite sides at about the same distance (:func:`opposite`,
  :func:`inside_fan`);
* *continues a line*: a point beyond a fan's end card, in its direction, at about its step
  (:func:`continues_line`);

and *one fan's size*: indices of one fan measure about the same (:func:`similar_size`).

Points are (2,) or (n, 2) arrays of pixels; sizes are index sizes in pixels (``vision.detections.index_sizes``);
the thresholds come from :class:`vision.config.FanGeometry` and the stages' own sections.
"""

from __future__ import annotations

import numpy as np


def beyond(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The point one fan step beyond ``a`` coming from ``b``: ``a + (a - b)`` (pixels)."""
    return 2 * np.asarray(a, np.float64) - np.asarray(b, np.float64)


def step_miss(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of each of ``points`` ((n, 2) or (2,) px) from :func:`beyond` (a, b), in steps ``|a - b|``;
    ``inf`` when ``a`` and ``b`` coincide."""
    step = float(np.linalg.norm(np.asarray(a, np.float64) - np.asarray(b, np.float64)))
    miss = np.linalg.norm(np.asarray(points, np.float64) - beyond(a, b), axis=-1)
    return miss / step if step > 0 else np.full_like(miss, np.inf)


def similar_size(sizes: np.ndarray, size: float, ratio: float) -> np.ndarray:
    """(n,) bool: ``sizes`` (px) within the factor ``ratio`` of ``size`` (strictly), as indices of one fan are."""
    sizes = np.asarray(sizes, np.float64)
    return (sizes < ratio * size) & (sizes > size / ratio)


def opposite(u: np.ndarray, v: np.ndarray, even: float, angle: float) -> bool:
    """True when the offsets ``u`` and ``v`` (px, from one point to two neighbours) have lengths within the
    factor ``even`` of each other and directions within ``angle`` degrees of opposite: the point lies between
    them as a card inside a fan lies between its neighbours."""
    du, dv = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    if du == 0 or dv == 0 or max(du, dv) > even * min(du, dv):
        return False
    return float(np.dot(u, v)) < -np.cos(np.radians(angle)) * du * dv


def inside_fan(centres: np.ndarray, i: int, neighbours: np.ndarray, even: float, angle: float) -> bool:
    """True when index ``i`` of ``centres`` ((n, 2) px) lies between two of ``neighbours`` (indices into
    ``centres``, the ones near enough to count) as in :func:`opposite`."""
    v = centres[neighbours] - centres[i]
    for a in range(len(neighbours)):
        for b in range(a + 1, len(neighbours)):
            if opposite(v[a], v[b], even, angle):
                return True
    return False


def continues_line(end: np.ndarray, prev: np.ndarray, point: np.ndarray, step: float,
                   steps: tuple[float, float], angle: float) -> bool:
    """True when ``point`` lies beyond a fan's end card ``end`` (coming from ``prev``; px) within ``angle`` degrees
    of the direction ``end - prev``, at ``steps`` (low, high; inclusive) times ``step`` (px)."""
    u = np.asarray(end, np.float64) - np.asarray(prev, np.float64)
    v = np.asarray(point, np.float64) - np.asarray(end, np.float64)
    length = float(np.linalg.norm(v))
    if step <= 0 or not steps[0] * step <= length <= steps[1] * step:
        return False
    cos = float(u @ v) / max(float(np.linalg.norm(u)) * length, 1e-9)
    return cos >= np.cos(np.radians(angle))
