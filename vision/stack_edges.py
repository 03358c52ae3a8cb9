"""Stage 3b's second look under a single card: how far its outline is off its own centre (a stack's offset).

A card lying alone is centred on the midpoint of its two corner indices (they sit at the same insets from opposite
corners), so its paper ends as far from that midpoint on one side as on the opposite one. A squared book is never
squared perfectly (seed 000 "Books"): the cards under its marker stick out past it, on one side more than on the
other, and the paper seen there ends farther out. :func:`stack_offset` measures that: the card turned upright from its
two index centres (:func:`vision.models.crops.corners_crop`), a brightness profile outwards from the middle of
each side (the mean across a band of the side's middle), where each profile leaves the background it ends in, and the
larger of the two differences between opposite sides, in card heights; two sides are compared only where both
profiles end inside the photo.

:func:`vision.photo_checks.check_stacks` asks it where the stack checker is unsure: a card the checker would read as
loose, but not surely so, stays a squared book's marker (with a note) when its outline is that far off centre. Off
by default (``edge_p_min`` 1). Thresholds: :class:`vision.config.Stacks` (``edge_*``).
"""

from __future__ import annotations

import cv2
import numpy as np

from .config import DEFAULT, VisionConfig
from .models.crops import corners_frame, turned_patch

#: the upright crop's side (pixels) and its side in card heights: the profiles reach 0.65 card heights from the centre
CROP_SIDE = 240
CROP_CONTEXT = 1.4
#: a card's width over its height, for where its long sides lie in the crop (the decks measured: 0.63-0.72)
CARD_ASPECT = 0.69


def _profiles(gray: np.ndarray, config: VisionConfig) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The (bottom, top) and (right, left) brightness profiles of an upright (S, S) float grey crop of a card,
    each from ``edge_start`` of the half-extent outwards to ``edge_reach_long`` / ``edge_reach_short`` card heights
    from the centre: one value a pixel, the mean across a band of ``edge_band`` of the side's length."""
    stacks = config.stacks
    size = gray.shape[0]
    h = size / CROP_CONTEXT  # card height, crop pixels
    w = CARD_ASPECT * h
    c = size / 2
    cols = slice(int(c - stacks.edge_band * w), int(c + stacks.edge_band * w))
    rows = slice(int(c - stacks.edge_band * h), int(c + stacks.edge_band * h))
    out = np.arange(int(stacks.edge_start * h / 2), int(stacks.edge_reach_long * h))  # pixels from the centre
    side = np.arange(int(stacks.edge_start * w / 2), int(stacks.edge_reach_short * h))
    out, side = out[c + out < size], side[c + side < size]
    bottom = gray[(c + out).astype(int)][:, cols].mean(1)
    top = gray[(c - out).astype(int)][:, cols].mean(1)
    right = gray[rows][:, (c + side).astype(int)].mean(0)
    left = gray[rows][:, (c - side).astype(int)].mean(0)
    return (bottom, top), (right, left)


def _paper_end(profile: np.ndarray, background: float, config: VisionConfig) -> float:
    """The last position (pixels along ``profile``) still farther than half the card's contrast from ``background``
    (grey level); the card's contrast is that of its value farthest from the background in the profile's first
    third. NaN when that contrast is under ``config.stacks.edge_contrast`` grey levels (a card as bright as the
    table)."""
    inside = profile[: max(3, len(profile) // 3)]
    card = inside[np.argmax(np.abs(inside - background))]
    if abs(card - background) < config.stacks.edge_contrast:
        return np.nan
    far = np.flatnonzero(np.abs(profile - background) > 0.5 * abs(card - background))
    return float(far.max()) if len(far) else np.nan


def _off_centre(a: np.ndarray, b: np.ndarray, config: VisionConfig) -> float:
    """How much farther the paper reaches along profile ``a`` than along the opposite ``b`` (absolute, pixels); NaN
    when their backgrounds (the median of each profile's last ``edge_background_px`` values) differ by more than
    ``config.stacks.edge_background_tol`` grey levels (another card or clutter on one side) or a card's contrast is
    too low."""
    n = config.stacks.edge_background_px
    bg_a, bg_b = float(np.median(a[-n:])), float(np.median(b[-n:]))
    if abs(bg_a - bg_b) > config.stacks.edge_background_tol:
        return np.nan
    return abs(_paper_end(a, bg_a, config) - _paper_end(b, bg_b, config))


def _in_photo(shape: tuple, centre: np.ndarray, side: float, rot: float, ends: np.ndarray) -> np.ndarray:
    """(k,) True where each of ``ends`` ((k, 2) crop pixels from the crop's centre) lies inside a photo of ``shape``
    (H, W, ...), for the crop of ``side`` photo pixels turned by ``rot`` about ``centre`` (:func:`corners_frame`)."""
    c, n = np.cos(rot), np.sin(rot)
    points = centre + ends @ np.array([[c, -n], [n, c]]) * (side / CROP_SIDE)  # (k, 2) photo pixels
    return (points >= 0).all(1) & (points[:, 0] < shape[1]) & (points[:, 1] < shape[0])


def stack_offset(image: np.ndarray, a: np.ndarray, b: np.ndarray, *, config: VisionConfig = DEFAULT) -> float:
    """How far off its own centre a single card's outline reaches, in card heights (module docstring): the larger of
    its two axes' differences between opposite sides, for the card whose two corner-index centres are ``a`` and
    ``b`` ((2,) pixels each) in the (H, W, 3) BGR ``image``. NaN when neither axis can be measured (a neighbour or
    clutter beside the card, a card as bright as the table, or a profile running off the photo)."""
    centre, side, rot = corners_frame(a, b, CROP_CONTEXT, config=config)
    gray = cv2.cvtColor(turned_patch(image, centre, side, CROP_SIDE, rot), cv2.COLOR_BGR2GRAY).astype(np.float32)
    height = CROP_SIDE / CROP_CONTEXT
    long, short = config.stacks.edge_reach_long * height, config.stacks.edge_reach_short * height
    shown = _in_photo(image.shape, centre, side, rot, np.array([[0, long], [0, -long], [short, 0], [-short, 0]]))
    offsets = [_off_centre(*pair, config) if shown[2 * k: 2 * k + 2].all() else np.nan
               for k, pair in enumerate(_profiles(gray, config))]
    if all(np.isnan(offsets)):
        return np.nan
    return float(np.nanmax(offsets)) / height
