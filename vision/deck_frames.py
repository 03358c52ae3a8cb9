"""A deck's frame correction: the detector's index boxes moved and resized to frame an index as its examples do.

The hand-labelled corner-index boxes of a deck's examples frame each index their own way, and the detector frames it
its own (on the ``decks_dev`` webcam photos the two overlap by IoU 0.52 at the median). A :class:`Frame` learned from
the pairs of a deck's example photos (:func:`pairs`: each detector box on a labelled index, at IoU
``config.decks.frame_iou`` or more) maps a detector box to the box the examples would have drawn: its width and height
times the median ratio labelled / detected, its centre moved by the median offset of the labelled centre from the
detected one, as a share of the detected box's width and height (:func:`learn_frame`). Tall boxes (height >= width)
and wide ones (a card turned a quarter) are learned apart; when either has fewer than ``config.decks.frame_min_pairs``
pairs, both take the medians of every pair pooled, measured along each box's long and short sides (a wide box is a
tall one turned a quarter); with fewer pairs in all, the frame is the identity.

A deck profile (``vision.decks``) keeps its frame, and its reader crops every box from the corrected one
(``vision.models.reader.IndexReader.frame``): the reader's window and the glyph reader's box crop alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .config import DEFAULT, VisionConfig
from .types import box_iou

#: the columns of :attr:`Frame.table`: width ratio, height ratio (labelled / detected), centre offset along the
#: width and along the height (share of the detected box's width and height)
COLUMNS = ("width", "height", "dx", "dy")
#: how a frame was learned: each orientation from its own pairs, both from the pooled pairs, or too few pairs
HOW = ("own", "pooled", "identity")


@dataclass(frozen=True)
class Frame:
    """A deck's frame correction (see the module docstring).

    Attributes:
        table: (2, 4) float: row 0 tall boxes (height >= width), row 1 wide ones; columns :data:`COLUMNS`.
        pairs: (tall, wide) how many box pairs it was learned from.
        how: one of :data:`HOW`.
    """

    table: np.ndarray
    pairs: tuple[int, int] = (0, 0)
    how: str = "identity"

    @property
    def is_identity(self) -> bool:
        """Whether it changes no box."""
        return bool(np.array_equal(self.table, _IDENTITY))

    def apply(self, boxes: np.ndarray) -> np.ndarray:
        """(n, 4) float32 xyxy pixels: ``boxes`` (n, 4) xyxy pixels corrected, each by its orientation's row."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        size = boxes[:, 2:] - boxes[:, :2]
        row = self.table[(size[:, 0] > size[:, 1]).astype(int)]  # 0 tall (or square), 1 wide
        centre = (boxes[:, :2] + boxes[:, 2:]) / 2 + row[:, 2:] * size
        half = row[:, :2] * size / 2
        return np.hstack([centre - half, centre + half]).astype(np.float32)

    def arrays(self) -> dict[str, np.ndarray]:
        """Its arrays by name, as a profile stores them (``f_table`` (2, 4), ``f_pairs`` (2,), ``f_how`` 0-d)."""
        return {"f_table": np.asarray(self.table, np.float64), "f_pairs": np.asarray(self.pairs, np.int64),
                "f_how": np.asarray(self.how)}

    @classmethod
    def from_arrays(cls, arrays) -> Frame:
        """The frame stored by :meth:`arrays` in a mapping (an ``np.load`` result); :data:`IDENTITY` when it holds
        none (a profile learned before frames were)."""
        if "f_table" not in arrays:
            return IDENTITY
        return cls(np.asarray(arrays["f_table"], np.float64).reshape(2, 4),
                   tuple(int(v) for v in np.asarray(arrays["f_pairs"]).reshape(2)), str(arrays["f_how"]))


_IDENTITY = np.array([[1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
#: the frame that changes no box
IDENTITY = Frame(_IDENTITY.copy())


def pairs(labelled: list[np.ndarray], detected: list[np.ndarray],
          config: VisionConfig = DEFAULT) -> tuple[np.ndarray, np.ndarray]:
    """The (labelled, detected) box pairs of photos: per photo ``labelled[i]`` (n_i, 4) and ``detected[i]`` (m_i, 4)
    xyxy pixels, each detected box paired with the labelled one it overlaps most, when by IoU
    ``config.decks.frame_iou`` or more. Returns two (p, 4) float32 arrays, row for row."""
    got_l, got_d = [], []
    for lab, det in zip(labelled, detected):
        lab, det = np.asarray(lab, np.float32).reshape(-1, 4), np.asarray(det, np.float32).reshape(-1, 4)
        if not len(lab) or not len(det):
            continue
        iou = box_iou(det, lab)
        best = iou.argmax(1)
        keep = iou[np.arange(len(det)), best] >= config.decks.frame_iou
        got_l.append(lab[best[keep]])
        got_d.append(det[keep])
    if not got_l:
        return np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32)
    return np.concatenate(got_l), np.concatenate(got_d)


def _measures(labelled: np.ndarray, detected: np.ndarray) -> np.ndarray:
    """(p, 4) each pair's :data:`COLUMNS` measures."""
    ls, ds = labelled[:, 2:] - labelled[:, :2], detected[:, 2:] - detected[:, :2]
    lc, dc = (labelled[:, :2] + labelled[:, 2:]) / 2, (detected[:, :2] + detected[:, 2:]) / 2
    return np.hstack([ls / ds, (lc - dc) / ds]).astype(np.float64)


def learn_frame(labelled: np.ndarray, detected: np.ndarray, config: VisionConfig = DEFAULT) -> Frame:
    """The :class:`Frame` of box pairs (:func:`pairs`: labelled (p, 4) and detected (p, 4) xyxy pixels, row for
    row): each orientation's (the detected box's) median :data:`COLUMNS` measures; both orientations the pooled
    medians (a wide pair's measures swapped to the tall box's axes and back) when one has fewer than
    ``config.decks.frame_min_pairs`` pairs; :data:`IDENTITY` when all of them are fewer."""
    detected = np.asarray(detected, np.float64).reshape(-1, 4)
    labelled = np.asarray(labelled, np.float64).reshape(-1, 4)
    size = detected[:, 2:] - detected[:, :2]
    ok = (size > 0).all(1) & (labelled[:, 2:] > labelled[:, :2]).all(1)
    m, wide = _measures(labelled[ok], detected[ok]), size[ok, 0] > size[ok, 1]
    counts = (int((~wide).sum()), int(wide.sum()))
    least = config.decks.frame_min_pairs
    if min(counts) >= least:
        return Frame(np.stack([np.median(m[~wide], 0), np.median(m[wide], 0)]), counts, "own")
    if sum(counts) < least:
        return Frame(_IDENTITY.copy(), counts, "identity")
    turn = [1, 0, 3, 2]  # a wide box's width is a tall one's height, and its dx a tall one's dy
    tall = np.median(np.where(wide[:, None], m[:, turn], m), 0)
    return Frame(np.stack([tall, tall[turn]]), counts, "pooled")
