"""A deck's example photos (``vision.deck_boxes.Example``: each photo with the card code of each corner-index box)
read from JSON-lines files in the form ``handfoot detect --json`` prints (``vision.decks`` learns a deck profile from
them; its docstring gives the form), and deck names.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from scorer.errors import HandFootError

from .classes import RANKS, SUIT_CODES
from .deck_boxes import Example

#: a deck name: letters, digits, ``-`` and ``_``, at most 40
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
#: at most this many example photos, and boxes in all, are learned from (memory and time stay bounded)
MAX_PHOTOS, MAX_BOXES = 200, 20_000


class ExamplesError(HandFootError, ValueError):
    """An examples file that cannot be used: not JSON, a missing image, a box or card code that is wrong."""


def check_name(name: str) -> str:
    """``name`` when it is a valid deck name (:data:`NAME`).

    Raises:
        ExamplesError: another name.
    """
    if not NAME.match(name or ""):
        raise ExamplesError(f"deck name {name!r}: use letters, digits, - and _ (at most 40, starting with a "
                            "letter or digit)")
    return name


def read_examples(paths: list[Path]) -> list[Example]:
    """The examples of JSON-lines files (see the module docstring); lines without detections are skipped.

    Raises:
        ExamplesError: a missing or unreadable file, a line that is not a JSON object with ``image`` and
            ``detections``, an image that does not exist, a box that is not four numbers with x1 < x2 and y1 < y2,
            an unknown card code, or more than :data:`MAX_PHOTOS` photos / :data:`MAX_BOXES` boxes in all.
    """
    out: list[Example] = []
    seen: dict[Path, str] = {}
    total = 0
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise ExamplesError(f"{path}: no such examples file")
        for k, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path}:{k}"
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ExamplesError(f"{where}: not JSON ({exc.msg})") from None
            if not isinstance(doc, dict) or not isinstance(doc.get("image"), str) or \
                    not isinstance(doc.get("detections"), list):
                raise ExamplesError(f'{where}: expected {{"image": PATH, "detections": [{{"card": ..., "box": '
                                    '[x1, y1, x2, y2]}, ...]}')
            image = Path(doc["image"]) if Path(doc["image"]).is_absolute() else path.parent / doc["image"]
            if not image.is_file():
                image = Path(doc["image"])  # relative to where the command runs, as detect printed it
            if not image.is_file():
                raise ExamplesError(f"{where}: image {doc['image']} not found (a relative path is taken from the "
                                    "examples file's folder, then from the current folder)")
            if image.resolve() in seen:
                raise ExamplesError(f"{where}: image {doc['image']} is given twice (first at {seen[image.resolve()]}); "
                                    "each photo once")
            seen[image.resolve()] = where
            boxes, codes = [], []
            for d in doc["detections"]:
                code, box = (d.get("card"), d.get("box")) if isinstance(d, dict) else (None, None)
                code = code.strip().upper() if isinstance(code, str) else code  # "qc" as layouts take it
                if code not in _CODES:
                    raise ExamplesError(f"{where}: unknown card code {code!r} (e.g. KH, 10S, JK)")
                if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, (int, float)) for v in box)
                        and box[0] < box[2] and box[1] < box[3]):
                    raise ExamplesError(f"{where}: box {box!r} of {code} is not [x1, y1, x2, y2] pixels")
                boxes.append(box)
                codes.append(code)
            if codes:
                out.append(Example(image, np.array(boxes, np.float32), tuple(codes)))
                total += len(codes)
            if len(out) > MAX_PHOTOS or total > MAX_BOXES:
                raise ExamplesError(f"too many examples (at most {MAX_PHOTOS} photos and {MAX_BOXES:,} boxes)")
    return out


_CODES = {f"{r}{s}" for r in RANKS[:13] for s in SUIT_CODES} | {"JK"}
