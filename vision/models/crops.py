"""The crops the two patch models read, cut from a photo (OpenCV, no torch): the index reader's turned squares
around each corner index (:func:`crops_of`: ``(n, 3, 32, 32)`` float32 in [0, 1], :data:`INPUT` px a side, each
:data:`WINDOW` x its box's longer side, one for each angle of :data:`VIEWS`) and the stack checker's card turned
upright with its surroundings (:func:`card_crop`, :func:`corners_crop`: :data:`STACK_INPUT` px a side,
:data:`STACK_CONTEXT` card heights). Each takes a (H, W, 3) BGR image and boxes or points in its pixels and
returns arrays; pixels outside the image are replicated from its border.

The readers are :class:`vision.models.reader.IndexReader` and :class:`vision.models.stacks.StackChecker`; the glyph
reader of a deck profile (``vision.deck_glyphs``) cuts its boxes with :func:`box_crop`.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..config import DEFAULT, VisionConfig
from ..types import CardInstance

INPUT = 32  #: reader input size in pixels
WINDOW = 1.25  #: crop side / the box's longer side
#: each index is read from crops turned by these angles (radians) and the probabilities averaged
VIEWS = (-0.15, 0.0, 0.15)

STACK_INPUT = 96  #: crop side in pixels
#: crop side / the card's height
STACK_CONTEXT = 1.4
#: angle of the line from the top-left to the bottom-right index centre in the card's own frame, radians
#: (index centres at 9.4 % of the width and 13.2 % of the height from the corners, aspect 0.69)
DIAGONAL_ANGLE = float(np.arctan2(1 - 2 * 0.132, 0.69 * (1 - 2 * 0.094)))


def turned_patch(image: np.ndarray, center, side: float, size: int, angle: float = 0.0,
                 aspect: float = 1.0) -> np.ndarray:
    """A (size, size, 3) patch of a (H, W, 3) image: the square of ``side`` px (at least 2) centred on ``center``
    (x, y px), turned by ``angle`` radians about it (positive turns the image content clockwise on screen, y
    pointing down), in the photo stretched ``aspect`` times along x (``side / aspect`` photo px wide). Pixels outside
    the image are replicated from its border."""
    cx, cy = (float(v) for v in center)
    s = size / max(float(side), 2.0)
    c, n = s * np.cos(angle), s * np.sin(angle)
    M = np.array([[c * aspect, -n, size / 2 - (c * aspect * cx - n * cy)],
                  [n * aspect, c, size / 2 - (n * aspect * cx + c * cy)]], np.float32)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(image, M, (size, size), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def square_crop(image: np.ndarray, box, context: float, size: int, angle: float = 0.0,
                aspect: float = 1.0) -> np.ndarray:
    """A (size, size, 3) patch centred on ``box`` (x1, y1, x2, y2 px) with side ``context`` x its longer side,
    turned by ``angle`` radians about the box centre, both in the photo stretched ``aspect`` times along x.
    Pixels outside the image are replicated from its border."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max((x2 - x1) * aspect, y2 - y1, 2.0) * context
    return turned_patch(image, ((x1 + x2) / 2, (y1 + y2) / 2), side, size, angle, aspect)


def box_crop(image: np.ndarray, box, width: int, height: int, margin: float = 1.0, turn: float = 0.0) -> np.ndarray:
    """A (height, width, 3) patch of a (H, W, 3) image holding ``box`` (x1, y1, x2, y2 px) grown ``margin`` times about
    its centre, stretched to fill it, and turned a quarter turn clockwise first when the box is wider than tall (so
    an index's rank and suit lie along the patch's height either way up); ``turn`` radians more turn the content
    about the box's centre (as :func:`turned_patch`). Pixels outside are replicated."""
    x1, y1, x2, y2 = (float(v) for v in box)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    w, h = max(x2 - x1, 1.0) * margin / 2, max(y2 - y1, 1.0) * margin / 2
    if w > h:  # the patch's top-left, top-right and bottom-left corners taken from the box turned a quarter
        src = [[cx - w, cy + h], [cx - w, cy - h], [cx + w, cy + h]]
    else:
        src = [[cx - w, cy - h], [cx + w, cy - h], [cx - w, cy + h]]
    if turn:
        c, s = np.cos(turn), np.sin(turn)
        src = [[cx + c * (x - cx) + s * (y - cy), cy - s * (x - cx) + c * (y - cy)] for x, y in src]
    M = cv2.getAffineTransform(np.float32(src), np.float32([[0, 0], [width, 0], [0, height]]))
    return cv2.warpAffine(image, M, (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def crops_of(image: np.ndarray, boxes: np.ndarray, views: tuple[float, ...] = VIEWS,
             window: float | None = None, aspect: float = 1.0) -> np.ndarray:
    """The reader's input for the indices in ``boxes`` ((n, 4) xyxy px) of a (H, W, 3) BGR image: ``(len(views) * n,
    3, 32, 32)`` float32 in [0, 1], view-major (the crops of view 0 first), each a square of ``window`` (None:
    :data:`WINDOW`) times the box's longer side, turned by that view's angle (radians), in the photo stretched
    ``aspect`` times along x (:func:`turned_patch`)."""
    crops = np.stack([square_crop(image, b, window or WINDOW, INPUT, a, aspect) for a in views for b in boxes])
    return crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def card_crop(image: np.ndarray, card: CardInstance, size: int = STACK_INPUT,
              context: float = STACK_CONTEXT, turn: float = 0.0, *, config: VisionConfig = DEFAULT) -> np.ndarray:
    """A (size, size, 3) patch of a (H, W, 3) image, centred on a whole card and turned so the card stands
    upright (or upside down: the two are the same to a stack), side ``context`` x the card's height.

    The card's frame comes from its two index centres (pixels): their midpoint is the card's centre, their
    distance is ``config.pairing.diagonal_per_height`` of its height, and their direction is the card's
    diagonal (:data:`DIAGONAL_ANGLE`). ``turn`` adds a rotation in radians (augmentation).

    Raises:
        ValueError: for a card that does not show both indices.
    """
    if not card.fully_visible:
        raise ValueError(f"card {card.code} shows one index; its frame needs both")
    return corners_crop(image, card.centers[0], card.centers[1], size, context, turn, config=config)


def corners_frame(a: np.ndarray, b: np.ndarray, context: float = STACK_CONTEXT, turn: float = 0.0, *,
                  config: VisionConfig = DEFAULT) -> tuple[np.ndarray, float, float]:
    """The square :func:`corners_crop` cuts for the card whose two corner-index centres are ``a`` and ``b`` ((2,)
    pixels each): its centre ((2,) pixels: the midpoint of the two), its side (pixels: ``context`` card heights) and
    the turn (radians, as :func:`turned_patch` takes it) that takes the index diagonal to :data:`DIAGONAL_ANGLE`."""
    d = np.asarray(b, np.float64) - np.asarray(a, np.float64)
    height = float(np.hypot(*d)) / config.pairing.diagonal_per_height
    rot = DIAGONAL_ANGLE - float(np.arctan2(d[1], d[0])) + turn
    return (np.asarray(a, np.float64) + np.asarray(b, np.float64)) / 2, height * context, rot


def corners_crop(image: np.ndarray, a: np.ndarray, b: np.ndarray, size: int = STACK_INPUT,
                 context: float = STACK_CONTEXT, turn: float = 0.0, *, config: VisionConfig = DEFAULT) -> np.ndarray:
    """:func:`card_crop` of the card whose two corner-index centres are ``a`` and ``b`` ((2,) pixels each)."""
    centre, side, rot = corners_frame(a, b, context, turn, config=config)
    return turned_patch(image, centre, side, size, rot)
