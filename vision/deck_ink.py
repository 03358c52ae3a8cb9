"""A deck's inks: the colour its red suits' indices are printed in, told from the colour of its black suits'.

The stock reader learned red and black from the decks it trained on, where red is red. A family's deck may print
its red suits in gold and its black suits in silver on black paper, or in an orange red under a warm lamp: the
reader then names the right rank in the wrong colour (a 3 of clubs read as 3D), and a wrong colour is a wrong card
to the rules (a black three is not a red three). A deck profile learns the deck's two inks from its labelled example
indices and blends what the ink says into every reading of the suit (``vision.models.reader.IndexReader``).

The ink of an index is the mean chroma (CIE L*a*b* a* and b*, OpenCV's 8-bit scale less 128) of the
:data:`INK_SHARE` of its box's pixels farthest in colour from the box's median colour (the card's paper).
:func:`learn_ink` fits a linear discriminant between the two colours' inks (Gaussian, one covariance); its posterior
P(red | ink), clipped to :data:`CLIP`, is the ink's word, weighed by :data:`WEIGHT` (a product of experts,
``vision.deck_glyphs.mix``): inks that do not tell the colours apart on the examples say little by themselves,
and inks that name under :data:`MIN_TOLD` of the examples' colours (photos in many lights, or grey) are not kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .classes import SUIT_CODES
from .images import load_photo

#: the share of a box's pixels, farthest in colour from its median, taken as its ink
INK_SHARE = 0.2
#: each colour needs this many labelled example indices for the inks to be learned
MIN_EACH = 5
#: the inks are kept when the discriminant names this share of the examples' colours right
MIN_TOLD = 0.8
#: P(red | ink) is held within [CLIP, 1 - CLIP]
CLIP = 0.01
#: the power of the ink's word on the suit (``decks_dev``, models/HISTORY.md, 2026-12-05: 0.5 of 0.5, 1 and 2)
WEIGHT = 0.5
#: 1 for the red suits (hearts, diamonds) of :data:`vision.classes.SUIT_CODES`
RED = np.array([s in "HD" for s in SUIT_CODES], bool)


def ink_chroma(image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """The ink of each box ((n, 4) xyxy pixels) of a (H, W, 3) BGR image: (n, 2) float a*, b* (see the module
    docstring); (0, 0) for a box under 2 x 2 pixels in the image."""
    h, w = image.shape[:2]
    out = np.zeros((len(boxes), 2))
    for k, (x0, y0, x1, y1) in enumerate(np.asarray(boxes, np.float64).reshape(-1, 4)):
        x0, y0 = max(0, int(np.floor(x0))), max(0, int(np.floor(y0)))
        x1, y1 = min(w, int(np.ceil(x1))), min(h, int(np.ceil(y1)))
        if min(x1 - x0, y1 - y0) < 2:
            continue
        lab = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB).reshape(-1, 3)
        lab = lab.astype(np.float64)
        far = np.linalg.norm(lab - np.median(lab, axis=0), axis=1)
        out[k] = lab[far >= np.quantile(far, 1 - INK_SHARE), 1:].mean(0) - 128
    return out


@dataclass(frozen=True)
class Ink:
    """A deck's two inks: P(red | ink) = sigmoid(ink . ``w`` - ``t``) (``w`` (2,) per a*, b* unit), blended into
    the suit's probabilities at ``weight``."""

    w: np.ndarray
    t: float
    weight: float = WEIGHT

    def p_red(self, image: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """(n,) P(red | ink) of each box ((n, 4) xyxy pixels) of a (H, W, 3) BGR image, within :data:`CLIP`."""
        z = np.clip(ink_chroma(image, boxes) @ self.w - self.t, -50, 50)
        return np.clip(1 / (1 + np.exp(-z)), CLIP, 1 - CLIP)

    def blend(self, image: np.ndarray, boxes: np.ndarray, suit_p: np.ndarray) -> np.ndarray:
        """The reader's suit probabilities ``suit_p`` (n, 4) of ``boxes`` times the ink's P(the suit's colour) to
        the power :attr:`weight`, rescaled to 1."""
        if not len(boxes) or self.weight == 0:
            return suit_p
        red = self.p_red(image, boxes)[:, None]
        got = suit_p * np.where(RED[None, :], red, 1 - red) ** self.weight
        return (got / np.maximum(got.sum(1, keepdims=True), 1e-12)).astype(suit_p.dtype)

    def arrays(self) -> dict[str, np.ndarray]:
        """Its arrays by name, as a profile stores them (``i_`` + attribute)."""
        return {"i_w": np.asarray(self.w, np.float64), "i_t": np.asarray(self.t), "i_weight": np.asarray(self.weight)}

    @classmethod
    def from_arrays(cls, arrays) -> Ink | None:
        """The inks stored by :meth:`arrays` in a mapping (an ``np.load`` result); None when it holds none."""
        if "i_w" not in arrays:
            return None
        return cls(np.asarray(arrays["i_w"], np.float64), float(arrays["i_t"]), float(arrays["i_weight"]))


def learn_ink(examples: list, negative: bool = False) -> tuple[Ink | None, dict]:
    """The inks of the examples' indices (``vision.deck_boxes.Example``: a card code per box; jokers and boxes of
    no index are left out), each photo read as its negative when ``negative`` (as the profile's reader sees it),
    and its figures: how many red and black indices, and the share of them whose colour the discriminant names
    right learned from the other photos (each photo left out in turn: ``"told"``).

    Returns ``(None, figures)`` when either colour has fewer than :data:`MIN_EACH` indices, or the discriminant
    names under :data:`MIN_TOLD` of them right.
    """
    inks, reds = [], []
    for e in examples:
        keep = [k for k, c in enumerate(e.codes) if c[-1] in "SHDC"]  # not JK, not "none"
        if not keep:
            continue
        image = load_photo(e.image)
        inks.append(ink_chroma(255 - image if negative else image, np.asarray(e.boxes)[keep]))
        reds.append(np.array([e.codes[k][-1] in "HD" for k in keep], bool))
    red = np.concatenate(reds) if reds else np.zeros(0, bool)
    figures = {"red": int(red.sum()), "black": int((~red).sum())}
    if figures["red"] < MIN_EACH or figures["black"] < MIN_EACH:
        return None, figures
    right = 0
    for k in range(len(inks)):
        others = _fit(np.concatenate(inks[:k] + inks[k + 1:]), np.concatenate(reds[:k] + reds[k + 1:]))
        right += int(((inks[k] @ others.w > others.t) == reds[k]).sum()) if others else 0
    figures["told"] = round(right / len(red), 4)
    return (_fit(np.concatenate(inks), red) if figures["told"] >= MIN_TOLD else None), figures


def _fit(x: np.ndarray, red: np.ndarray) -> Ink | None:
    """The discriminant of inks ``x`` (n, 2) whose colour is ``red`` (n,) bool; None without two of each."""
    if red.sum() < 2 or (~red).sum() < 2:
        return None
    m1, m0 = x[red].mean(0), x[~red].mean(0)
    cov = np.cov(np.concatenate([x[red] - m1, x[~red] - m0]).T) + 1e-3 * np.eye(2)
    w = np.linalg.solve(cov, m1 - m0)
    return Ink(w, float(w @ (m1 + m0) / 2))
