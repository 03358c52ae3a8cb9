"""The values that flow between the stages of the camera pipeline, in one place: the detector's boxes with their
data columns (:class:`Detections`, a columnar type in the style of roboflow/supervision's, and the box measures
every stage shares: :func:`box_iou`, :func:`index_centres`, :func:`index_sizes`), a card seen in a photo
(:class:`CardInstance`, stage 2), a pile of cards and its kind (:class:`Pile`, :class:`PileKind`, stage 3), one
side's and the whole table's reading (:class:`SideReading`, :class:`TableReading`, stage 4) and a photo with the
sides read from it (:class:`PhotoReading`). Stages import these; these import no stage."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .classes import CLASS_NAMES, cluster_key
from .config import DEFAULT, VisionConfig
from .geometry import anchor_points, fan_order


def box_intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise intersection areas (px²) of (n, 4) and (m, 4) xyxy boxes -> (n, m)."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4), np.asarray(b, np.float64).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    return np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of (n, 4) and (m, 4) xyxy boxes -> (n, m)."""
    a, b = np.asarray(a, np.float64).reshape(-1, 4), np.asarray(b, np.float64).reshape(-1, 4)
    inter = box_intersection(a, b)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)


@dataclass(frozen=True)
class Detections:
    """Corner-index detections of one image.

    Attributes:
        xyxy: (n, 4) float32 boxes ``x1, y1, x2, y2`` in pixels of the original image.
        confidence: (n,) float32 scores in [0, 1].
        class_id: (n,) int64 indices into :data:`vision.classes.CLASS_NAMES` (always 0 from a detector that
            finds indices without naming them, see ``CardDetector.names_cards``, until the reader names them).
        data: extra columns, each (n, ...): after stage 1b ``"rank_p"`` (n, 15) and ``"suit_p"`` (n, 4), the
            index reader's probabilities (:data:`vision.classes.RANKS`, :data:`vision.classes.SUIT_CODES`), and
            ``"box_conf"`` (n,), the detector's confidence in the box.
    """

    xyxy: np.ndarray
    confidence: np.ndarray
    class_id: np.ndarray
    data: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.xyxy.shape != (n, 4) or self.confidence.shape != (n,) or self.class_id.shape != (n,):
            raise ValueError(f"inconsistent detection shapes {self.xyxy.shape}, {self.confidence.shape}, "
                             f"{self.class_id.shape}")
        for key, column in self.data.items():
            if len(column) != n:
                raise ValueError(f"data column {key!r} has {len(column)} rows for {n} detections")

    @classmethod
    def from_yolo(cls, rows, width: int, height: int) -> "Detections":
        """Adapter from YOLO label rows ``(m, 5)``: ``class cx cy w h`` normalised to the image, confidence 1.

        ``width`` and ``height`` are the image's size in pixels; boxes come back in pixels.
        """
        r = np.asarray(rows, np.float64).reshape(-1, 5)
        cx, cy, w, h = r[:, 1] * width, r[:, 2] * height, r[:, 3] * width, r[:, 4] * height
        xyxy = np.column_stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]).astype(np.float32)
        return cls(xyxy, np.ones(len(r), np.float32), r[:, 0].astype(np.int64))

    @classmethod
    def empty(cls) -> "Detections":
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: Any) -> "Detections":
        """Select detections with a boolean mask, an index array or a slice."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(self.xyxy[index].reshape(-1, 4), self.confidence[index].reshape(-1),
                          self.class_id[index].reshape(-1),
                          {k: v[index].reshape(-1, *v.shape[1:]) for k, v in self.data.items()})

    def with_classes(self, class_id: np.ndarray, confidence: np.ndarray | None = None) -> "Detections":
        """The same boxes and data columns read as other classes (``class_id`` (n,)) and confidences."""
        return Detections(self.xyxy, self.confidence if confidence is None else np.asarray(confidence, np.float32),
                          np.asarray(class_id, np.int64), self.data)

    def with_data(self, **columns: np.ndarray) -> "Detections":
        """The same detections with data columns added or replaced (each (n, ...))."""
        return Detections(self.xyxy, self.confidence, self.class_id, {**self.data, **columns})

    def shifted(self, dx: float, dy: float) -> "Detections":
        """The same detections with every box moved by ``dx``, ``dy`` pixels: boxes found in a crop whose top-left
        corner is (dx, dy), in the pixels of the image it was cut from."""
        return Detections(self.xyxy + np.float32([dx, dy, dx, dy]), self.confidence, self.class_id, self.data)

    def with_nms(self, iou: float = 0.5, class_agnostic: bool = False, min_conf: float = 0.0) -> "Detections":
        """Non-maximum suppression (OpenCV's ``NMSBoxesBatched``): where boxes of one class (of any class, with
        ``class_agnostic``) overlap with IoU over ``iou``, the most confident alone is kept; boxes of confidence
        ``min_conf`` or less are dropped. Most confident first."""
        import cv2  # here, not at the top: the types stay importable without OpenCV

        if not len(self):
            return self
        boxes, conf = self.xyxy, self.confidence
        xywh = np.column_stack([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]])
        groups = np.zeros_like(self.class_id) if class_agnostic else self.class_id
        keep = np.array(cv2.dnn.NMSBoxesBatched(xywh.tolist(), conf.tolist(), groups.tolist(), min_conf, iou),
                        np.int64).reshape(-1)
        return self[keep[np.argsort(-conf[keep])]]

    @classmethod
    def merge(cls, parts: list["Detections"]) -> "Detections":
        """All detections of ``parts`` in order (supervision's ``Detections.merge``); a data column is kept when
        every non-empty part has it."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        keys = set.intersection(*(set(p.data) for p in parts))
        return cls(np.concatenate([p.xyxy for p in parts]).astype(np.float32),
                   np.concatenate([p.confidence for p in parts]).astype(np.float32),
                   np.concatenate([p.class_id for p in parts]).astype(np.int64),
                   {k: np.concatenate([p.data[k] for p in parts]) for k in sorted(keys)})

    def save(self, path) -> None:
        """Write these detections and their data columns to ``path`` (.npz), for :meth:`load`."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, xyxy=self.xyxy, confidence=self.confidence, class_id=self.class_id,
                            **{f"data_{k}": v for k, v in self.data.items()})

    @classmethod
    def load(cls, path) -> "Detections":
        """Detections written by :meth:`save` (files of older evaluation caches name the reader's columns
        ``rank_p``, ``suit_p`` without the ``data_`` prefix)."""
        z = np.load(path)
        data = {k[5:]: z[k] for k in z.files if k.startswith("data_")}
        data.update({k: z[k] for k in ("rank_p", "suit_p") if k in z.files})
        return cls(z["xyxy"], z["confidence"], z["class_id"], data)

    @cached_property
    def centres(self) -> np.ndarray:
        """(n, 2) float64 index centres in pixels (:func:`index_centres` of ``xyxy``), computed once (read-only)."""
        return _read_only(index_centres(self.xyxy))

    @cached_property
    def sizes(self) -> np.ndarray:
        """(n,) float64 index sizes in pixels (:func:`index_sizes` of ``xyxy``), computed once (read-only)."""
        return _read_only(index_sizes(self.xyxy))

    @property
    def codes(self) -> list[str]:
        """Card codes (``"KH"``, ``"10S"``, ``"JK"``) of each detection."""
        return [CLASS_NAMES[int(c)] for c in self.class_id]

    def __iter__(self) -> Iterator[tuple[np.ndarray, float, str]]:
        for box, conf, code in zip(self.xyxy, self.confidence, self.codes):
            yield box, float(conf), code

    def to_list(self) -> list[dict[str, Any]]:
        """``[{"card": "KH", "box": [x1, y1, x2, y2], "confidence": c}, ...]`` with pixel boxes (2 decimals)."""
        return [{"card": code, "box": [round(float(v), 2) for v in box], "confidence": round(conf, 4)}
                for box, conf, code in self]


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def index_sizes(xyxy: np.ndarray) -> np.ndarray:
    """(n,) index sizes in pixels of (n, 4) xyxy boxes: the square root of each box's area (sides of at least
    0.001 px, so a degenerate box has a small size, not 0)."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return np.sqrt(np.clip(xyxy[:, 2] - xyxy[:, 0], 1e-3, None) * np.clip(xyxy[:, 3] - xyxy[:, 1], 1e-3, None))


def index_centres(xyxy: np.ndarray) -> np.ndarray:
    """(n, 2) centres in pixels of (n, 4) xyxy boxes."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return (xyxy[:, :2] + xyxy[:, 2:]) / 2


def unread_mask(found: np.ndarray, read: np.ndarray, config: VisionConfig = DEFAULT) -> np.ndarray:
    """(n,) bool: the boxes of ``found`` ((n, 4) xyxy px) that no box of ``read`` ((m, 4) xyxy px) covers (IoU
    under :attr:`~vision.config.Reading.unread_iou`): where an index may be that could not be read."""
    found = np.asarray(found, np.float32).reshape(-1, 4)
    if not len(read) or not len(found):
        return np.ones(len(found), bool)
    return box_iou(found, np.asarray(read, np.float32).reshape(-1, 4)).max(1) < config.reading.unread_iou


def median_index_size(xyxy: np.ndarray) -> float:
    """Median index size (:func:`index_sizes`, pixels) of (n, 4) xyxy boxes; infinite when n is 0.
    Used to tell a whole-table photo (small indices) from a close-up (``vision.scales``)."""
    if not len(xyxy):
        return float("inf")
    return float(np.median(index_sizes(xyxy)))


def boxes_overlap(p, q) -> bool:
    """Whether two xyxy boxes overlap (share more than an edge)."""
    return p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]


def join_overlapping(boxes) -> np.ndarray:
    """(k, 4) float64 xyxy: ``boxes`` ((n, 4) xyxy), those that overlap replaced by the box around both, until
    none do."""
    out = [list(b) for b in np.asarray(boxes, np.float64).reshape(-1, 4)]
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if boxes_overlap(a, b):
                    out[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return np.array(out, np.float64).reshape(-1, 4)


@dataclass(frozen=True, eq=False)
class CardInstance:
    """One physical card seen in a photo.

    Attributes:
        code: card code (``"KH"``, ``"10S"``, ``"JK"``).
        detections: indices into the :class:`~vision.types.Detections` it came from (1 or 2, or 4 for a
            card of a four-index deck seen whole: :func:`_four_corners`; none for a card counted in a gap of a
            fan, whose index was not read: :mod:`vision.fans`).
        centers: (k, 2) float index-box centres in pixels, k = len(detections) (for an unread card, k = 1: where
            its index would be).
        size: mean index size in pixels (square root of the index box area; for a joker, that of the
            natural indices nearest it: its corner mark is drawn at another size).
        confidence: highest detection confidence.
        card_height: estimated height of the card in pixels: the photo's typical index-to-index diagonal
            (in index sizes) times ``size``, divided by the index diagonal's share of a card's height
            (:attr:`vision.config.Pairing.diagonal_per_height`).
    """

    code: str
    detections: tuple[int, ...]
    centers: np.ndarray = field(repr=False)
    size: float
    confidence: float
    card_height: float

    @property
    def fully_visible(self) -> bool:
        """True when both corner indices were seen (all four, for a deck printed with four: then ``centers[0]``
        and ``centers[1]`` are one diagonal)."""
        return len(self.detections) >= 2

    @property
    def key(self) -> str | None:
        """What the card is grouped by (:func:`vision.classes.cluster_key`): its natural rank, ``"3R"`` for a red
        three, None for a wild."""
        return cluster_key(self.code)

    @property
    def center(self) -> np.ndarray:
        """(2,) pixels: the card centre when both indices were seen, else the one index centre."""
        return self.centers.mean(0)


class PileKind(str, Enum):
    """What a pile of cards on the table is."""

    MELD = "meld"  #: a fan of one rank plus wilds (a complete book when it has seven cards)
    SQUARED_BOOK = "squared_book"  #: a squared stack showing its marker card
    RED_THREES = "red_threes"  #: red threes laid on the table
    LEFT = "left"  #: cards still held (a fanned hand or foot, mixed ranks)
    #: a single card that belongs to no pile (not scored): partly seen, or seen whole with no stack under it
    LOOSE = "loose"


@dataclass(frozen=True, eq=False)
class Pile:
    """A group of card instances and what it was read as.

    Attributes:
        kind: the pile's kind.
        cards: the card instances, in reading order (along the fan).
        notes: human-readable doubts about this pile (empty when the reading is unambiguous).
    """

    kind: PileKind
    cards: tuple[CardInstance, ...]
    notes: tuple[str, ...] = ()

    @property
    def codes(self) -> list[str]:
        """Card codes of the pile, in order."""
        return [c.code for c in self.cards]

    @cached_property
    def fan(self) -> tuple[CardInstance, ...]:
        """The cards along the fan's main direction (:func:`vision.geometry.fan_order`), computed once."""
        return tuple(fan_order(list(self.cards)))

    @cached_property
    def anchors(self) -> np.ndarray:
        """(n, 2) pixels: where each card of :attr:`fan` is placed (:func:`vision.geometry.anchor_points`),
        computed once (read-only)."""
        return _read_only(anchor_points(list(self.fan)))

    def box(self, dets_xyxy: np.ndarray) -> np.ndarray:
        """(4,) xyxy pixels around all the pile's corner indices."""
        idx = [d for c in self.cards for d in c.detections]
        b = dets_xyxy[idx]
        return np.array([b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max()])


def small_index_note(xyxy: np.ndarray, config: VisionConfig = DEFAULT) -> str | None:
    """A note for the user when the (n, 4) xyxy corner boxes of a photo are mostly under
    :attr:`vision.config.Reading.readable_index` pixels, else ``None``."""
    if median_index_size(xyxy) >= config.reading.readable_index:
        return None
    return ("the cards' corners look small in this photo: many cards may be missed or misread, so photograph the "
            "table closer, or one half at a time")


@dataclass(frozen=True)
class SideReading:
    """What the pipeline read for one side.

    Attributes:
        team: team name (``"A"``, ``"B"``...).
        detections: the corner-index detections used (pixels of the source photo).
        cards: card instances built from them.
        piles: the piles, each with its kind and notes.
        source: where the detections came from (the photo's path), for messages.
        hand: a photo of a player's hand or foot (``read_image(..., hand=True)``): every card in it is a card left.
        split_note: a doubt about the photo's split between the teams (:func:`vision.pipeline.split_note`), or
            None.
    """

    team: str
    detections: Detections
    cards: list[CardInstance]
    piles: list[Pile]
    source: str = ""
    hand: bool = False
    split_note: str | None = None

    @property
    def photo_note(self) -> str | None:
        """The photo's own doubts, one sentence each joined by "; " (indices too small to read well,
        :func:`small_index_note`; the split, :attr:`split_note`), or None."""
        notes = [n for n in (self.split_note, small_index_note(self.detections.xyxy)) if n]
        return "; ".join(notes) or None

    @property
    def notes(self) -> list[str]:
        """Every doubt about this side's reading, one line each: the photo's (:attr:`photo_note`) first, then each
        pile's."""
        photo = self.photo_note
        return ([photo] if photo else []) + [f"{p.kind.value.replace('_', ' ')} {' '.join(p.codes)}: "
                                             f"{'; '.join(p.notes)}" for p in self.piles if p.notes]

    def team_layout(self) -> dict[str, Any]:
        """This side as a ``teams`` entry of the layout JSON (``docs/layout.md``)."""
        team = empty_team()
        for p in self.piles:
            if p.kind is PileKind.MELD:
                team["melds"].append(p.codes)
            elif p.kind is PileKind.SQUARED_BOOK:
                team["squared_books"].append({"top": p.codes[0]})
            elif p.kind is PileKind.RED_THREES:
                team["red_threes"].extend(p.codes)
            elif p.kind is PileKind.LEFT:
                team["left"].append(p.codes)
            elif p.kind is PileKind.LOOSE:
                team["loose"].extend(p.codes)
        return team


def empty_team() -> dict[str, Any]:
    """A ``teams`` entry of the layout JSON with nothing in it (``docs/layout.md``)."""
    return {"melds": [], "squared_books": [], "red_threes": [], "left": [], "loose": []}


@dataclass
class TableReading:
    """The whole table: every side's reading plus round facts, convertible to a layout."""

    sides: list[SideReading]
    rules: str = "pagat"
    round: int = 1
    went_out: str | None = None
    left: dict[str, list[list[str]]] = field(default_factory=dict)

    def layout(self) -> dict[str, Any]:
        """The layout JSON (a dict) for :func:`scorer.layout.TableLayout.from_dict`."""
        teams: dict[str, Any] = {}
        for side in self.sides:
            t = side.team_layout()
            if side.team in teams:  # a second photo of the same side (e.g. its hands): merge
                for k, v in t.items():
                    teams[side.team][k].extend(v)
            else:
                teams[side.team] = t
        for team, packets in self.left.items():
            teams.setdefault(team, empty_team())
            teams[team]["left"].extend(packets)
        return {"rules": self.rules, "round": self.round, "went_out": self.went_out, "teams": teams}

    @property
    def notes(self) -> list[str]:
        return [f"team {s.team}: {n}" for s in self.sides for n in s.notes]


@dataclass
class PhotoReading:
    """One photo and the side(s) read from it. ``image`` is (H, W, 3) uint8 BGR."""

    path: Path
    image: np.ndarray
    sides: list[SideReading]
