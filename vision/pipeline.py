"""The camera pipeline end to end: photos -> corner detections -> cards -> piles -> table layout.

Each stage is a plain function over data and can be run and tested alone:

1. :func:`vision.scales.find_indices` — corner indices at every scale (``Detections``), and the boxes left
   unread;
1b. :func:`vision.completion.read_with_fans` — every box read with the fans' help (sure jokers beside a card,
    ranks settled by their fan, boxes the detector or reader was unsure of where a fan continues);
2. :func:`vision.instances.pair_corners` — physical card instances;
3. :func:`vision.piles.group_piles` — melds, squared books, red threes, hands (then
   :func:`vision.fan_gaps.fill_fan_gaps`, and the stack checks of ``vision.stacks``: squared book or loose card);
4. :func:`vision.table.split_sides` / :class:`vision.table.TableReading` — sides and the layout JSON;
5. :func:`scorer.scoring.score_round` — the score and every problem the rules see (done by the caller).

:func:`read_photos` runs stages 1-4 on files (:func:`read_hand_photos` on photos of players' hands: every card a
card left), :func:`annotate` draws the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scorer.errors import HandFootError

from .annotate import CornerAnnotator, PileAnnotator, TotalsAnnotator
from .detector import CardDetector, ModelError, load_image
from .reader import DEFAULT_READER, IndexReader
from .scales import find_indices, reader_box_conf
from .table import SideReading, TableReading, read_hand, read_side, split_boxes, split_sides


class NoCardsError(HandFootError, ValueError):
    """A photo in which no card corner index was found (not a table photo, too dark, too blurred or too far)."""


@dataclass
class PhotoReading:
    """One photo and the side(s) read from it. ``image`` is (H, W, 3) uint8 BGR."""

    path: Path
    image: np.ndarray
    sides: list[SideReading]


def read_photos(paths: list[Path], detector: CardDetector, teams: list[str] | None = None,
                split: str | None = None, max_side: int = 2560, upscale: float | None = None,
                reader=None, conf: float | None = None, stacks=None) -> list[PhotoReading]:
    """Read every photo: photo *k* is team ``teams[k]`` (default ``A``, ``B``, ...).

    With ``split`` (``horizontal`` or ``vertical``) there must be one photo of the whole table; it is split
    between the first two ``teams`` (default ``A`` near the camera or on the left, ``B``; see
    :func:`vision.table.split_sides`). ``max_side`` and ``upscale`` set the detection pyramid
    (:func:`vision.scales.find_indices`); with an :class:`vision.reader.IndexReader` every box is re-read
    and kept when its confidence reaches ``conf``; with a :class:`vision.stacks.StackChecker` every single whole
    card is checked for a stack under it (a squared book) or not (a loose card).

    Raises:
        vision.detector.ImageError: a file that is missing, corrupt, truncated, not an image or too large.
        NoCardsError: a photo with no card found.
        ValueError: ``split`` with more than one photo, or fewer team names than sides to name.
    """
    teams = teams or [chr(ord("A") + i) for i in range(max(len(paths), 2 if split else 1))]
    if split and len(paths) != 1:
        raise ValueError("--split reads one photo of the whole table; give exactly one photo")
    if len(teams) < (2 if split else len(paths)):
        raise ValueError(f"{2 if split else len(paths)} teams to name but only {len(teams)} team names given")
    out = []
    for path, team in zip(paths, teams):
        image, dets, unread = _detect(path, detector, max_side, upscale, reader, conf,
                                      "is the whole table in the photo, in focus and lit?")
        if split:
            parts = split_sides(dets, image.shape[1], image.shape[0], split)
            boxes = split_boxes(unread, image.shape[1], image.shape[0], split)
            names = dict(zip(("A", "B"), teams))
            sides = [read_side(d, names[t], str(path), image, stacks, boxes[t]) for t, d in parts.items() if len(d)]
        else:
            sides = [read_side(dets, team, str(path), image, stacks, unread)]
        out.append(PhotoReading(Path(path), image, sides))
    return out


def read_hand_photos(hands: list[tuple[str, Path]], detector: CardDetector, max_side: int = 2560,
                     upscale: float | None = None, reader=None, conf: float | None = None) -> list[PhotoReading]:
    """Read photos of players' hands or feet fanned face up: ``hands`` holds (team, path) pairs, and every card
    found in a photo is a card left for that team (:func:`vision.table.read_hand`; one side a photo). Detection
    as in :func:`read_photos`; no stack check (a hand holds no squared book).

    Raises:
        vision.detector.ImageError: a file that is missing, corrupt, truncated, not an image or too large.
        NoCardsError: a photo with no card found.
    """
    out = []
    for team, path in hands:
        image, dets, _ = _detect(path, detector, max_side, upscale, reader, conf,
                                 "in this photo of a hand; are the cards fanned face up, in focus and lit?")
        out.append(PhotoReading(Path(path), image, [read_hand(dets, team, str(path))]))
    return out


def _detect(path: Path, detector: CardDetector, max_side: int, upscale: float | None, reader, conf: float | None,
            hint: str):
    """Stage 1 on one file: (image, read detections, unread boxes) of :func:`vision.scales.find_indices`.

    Raises:
        vision.detector.ImageError: from :func:`vision.detector.load_image`.
        NoCardsError: no card found (the message ends with ``hint``).
    """
    image = load_image(path)
    dets, unread = find_indices(detector, image, max_side=max_side, upscale=upscale, reader=reader, conf=conf)
    if not len(dets):
        raise NoCardsError(f"{path}: no cards found ({hint})")
    return image, dets, unread


def load_models(model: str | Path | None = None, reader: str | Path | None = None,
                conf: float = 0.35) -> tuple[CardDetector, IndexReader | None]:
    """The detector and, when its model file exists (default ``models/reader.onnx``), the index reader.

    Raises:
        FileNotFoundError: a model file that was asked for by name is missing.
        vision.detector.ModelError: a model file that cannot be loaded, or a one-class detector
            (:attr:`CardDetector.names_cards` False) without the reader.
    """
    reader_path = Path(reader) if reader else DEFAULT_READER
    use_reader = reader_path.is_file() or reader is not None
    kw = {"model": model} if model else {}
    detector = CardDetector(**kw, conf=conf)
    if use_reader:
        detector.conf = reader_box_conf(detector)
    if not use_reader and not detector.names_cards:
        raise ModelError(f"the detector {detector.model} finds corner indices without naming them; it needs the "
                         f"index reader ({reader_path} is missing)")
    return detector, (IndexReader(reader_path) if use_reader else None)


def load_stack_checker(model: str | Path | None = None):
    """The stack checker (default ``models/stacks.onnx``), or ``None`` when the default file is absent.

    Raises:
        FileNotFoundError: a model file that was asked for by name is missing.
        vision.detector.ModelError: a model file that cannot be loaded.
    """
    from .stacks import DEFAULT_STACKS, StackChecker

    if model is None and not DEFAULT_STACKS.is_file():
        return None
    return StackChecker(model or DEFAULT_STACKS)


def table_of(photos: list[PhotoReading], rules: str, round_no: int, went_out: str | None,
             left: dict[str, list[list[str]]] | None = None) -> TableReading:
    """Stage 4: the table reading of all photos, with the round facts given on the command line."""
    return TableReading([s for p in photos for s in p.sides], rules, round_no, went_out, dict(left or {}))


def annotate(photo: PhotoReading, totals: list[str], labels: dict | None = None) -> np.ndarray:
    """The photo with corner boxes, pile outlines (kind and count) and the team totals drawn on it.

    ``labels`` maps a pile to the text drawn for it (e.g. ``"clean book"``); default: the pile's kind.
    """
    img = photo.image
    for side in photo.sides:  # outlines first, so that no outline crosses a card code drawn over it
        img = PileAnnotator().annotate(img, side.piles, side.detections, labels)
        img = CornerAnnotator().annotate(img, side.detections)
    return TotalsAnnotator().annotate(img, totals)
