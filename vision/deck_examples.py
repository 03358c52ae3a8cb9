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
from scorer.wording import counted, json_refused

from .classes import RANKS, SUIT_CODES
from .config import DEFAULT
from .deck_boxes import Example
from .images import ImageError, image_format, load_photo

#: a deck name: letters, digits, ``-`` and ``_``, at most 40
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
#: what :data:`NAME` allows, in words (the command line and the service say it so)
NAME_RULE = "use letters a-z without accents, digits, - and _ (at most 40, starting with a letter or digit)"
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
        raise ExamplesError(f"deck name {name!r}: {NAME_RULE}")
    return name


#: a labelled box may reach past its photo's edge by this share of its width (height) and is clipped to the photo, as
#: the detector's boxes are; a box further out is refused (its coordinates are not the photo's pixels)
EDGE_SLACK = 0.25
#: what to do about example photos in which ``handfoot detect`` found no card as photographed
NO_CARD_FOUND = ("where detect found no card in a photo of a deck printed light on dark paper, detect it again with "
                 "--negative")
#: what to do about example photos in which ``handfoot detect --negative`` found no card either
NO_CARD_IN_NEGATIVE = ("where detect --negative found no card either, take the photo again closer and sharper, or "
                       'add each index\'s {"card": ..., "box": [x1, y1, x2, y2]} by hand')


def no_card_found(empty: int, negatives: int) -> str:
    """What to do about ``empty`` example photos with no card labelled, ``negatives`` of them detected as their
    negatives already (their line's ``"negative": true``, as ``handfoot detect --json --negative`` writes it):
    --negative for the others, a closer photo or boxes by hand for those."""
    if not negatives:
        return NO_CARD_FOUND
    if negatives == empty:
        return NO_CARD_IN_NEGATIVE
    return f"{NO_CARD_FOUND}; {NO_CARD_IN_NEGATIVE}"
#: what an examples file is, for messages about a file that is not one
FORM = ('examples are a .jsonl file, JSON lines: one JSON object per line, {"image": PATH, "detections": [{"card": '
        '"KH", "box": [x1, y1, x2, y2]}, ...]}, as `handfoot detect --json PHOTOS > examples.jsonl` writes them')


def examples_text(name: str, data: bytes) -> str:
    """The text of the examples file ``name`` (its bytes ``data``), checked whole before its lines are.

    Raises:
        ExamplesError: a photo (or another image) given instead, an empty file, or one JSON document written over
            several lines (pretty-printed), each naming the form (:data:`FORM`).
    """
    kind = image_format(data)
    if kind is not None:
        raise ExamplesError(f"{name} is a {kind} image, not an examples file: {FORM}")
    text = data.decode("utf-8", "replace")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ExamplesError(f"{name} is empty: {FORM}")
    if len(lines) > 1:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError:
            doc = None
        if isinstance(doc, (dict, list)):  # one document over several lines: JSON lines hold one object a line
            how = "jq -c '.[]'" if isinstance(doc, list) else "jq -c ."
            raise ExamplesError(f"{name} holds one JSON {'array' if isinstance(doc, list) else 'object'} written "
                                f"over {len(lines)} lines, and examples are JSON lines: one object per line (e.g. "
                                f"{how} {name} > examples.jsonl)")
    return text


def not_json(where: str, line: str, exc: json.JSONDecodeError) -> ExamplesError:
    """The error of the examples line ``line`` (at ``where``, ``file:line``) that is not JSON: one object that goes
    on over the next lines is told so."""
    if line.lstrip().startswith(("{", "[")) and exc.pos >= len(line.rstrip()):
        return ExamplesError(f"{where}: the JSON object goes on past the end of the line ({exc.msg}): examples are "
                             "JSON lines, one whole object per line")
    return ExamplesError(f"{where}: not JSON ({exc.msg}): {FORM}")


def read_examples(paths: list[Path], notes: list[str] | None = None, empty: list[str] | None = None,
                  negatives: list[str] | None = None) -> list[Example]:
    """The examples of JSON-lines files (see the module docstring); lines without detections are skipped, and
    ``empty`` (when given) is told where each is (``file:line``), ``negatives`` where each of those that says it was
    detected as its negative (``"negative": true``) is. Each example photo is read
    (``vision.images.load_photo``) and its boxes checked against it: a box reaching past the photo's edge by at
    most :data:`EDGE_SLACK` of its size is clipped to the photo, and ``notes`` (when given) is told in one line how
    many were.

    Raises:
        ExamplesError: a missing or unreadable file, a photo given instead (or an empty file, or one pretty-printed
            JSON document: :func:`examples_text`), a line that is not a JSON object with ``image`` and
            ``detections``, an image that does not exist or is not an image, a box that is not four numbers with
            x1 < x2 and y1 < y2 or that lies outside its photo, an unknown card code, a file with no box labelled
            at all, or more than :data:`MAX_PHOTOS` photos / :data:`MAX_BOXES` boxes in all. Each names the file,
            and the line where there is one.
    """
    out: list[Example] = []
    seen: dict[Path, str] = {}
    clipped: list[str] = []
    total = 0
    for path in paths:
        path = Path(path)
        if path.is_dir():
            raise ExamplesError(f"{path}: a folder, not an examples file (give the .jsonl file in it)")
        if not path.is_file():
            raise ExamplesError(f"{path}: no such examples file")
        try:
            text = examples_text(str(path), path.read_bytes())
        except OSError as exc:
            raise ExamplesError(f"{path}: cannot read the file ({exc.strerror or exc.__class__.__name__})") from None
        labelled = lines = unread = 0  # lines, and those with no box detected as negatives
        for k, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path}:{k}"
            lines += 1
            try:
                doc = json.loads(line)
            except json.JSONDecodeError as exc:
                raise not_json(where, line, exc) from None
            except (ValueError, RecursionError) as exc:  # JSON by its grammar, but not for Python's parser
                raise ExamplesError(f"{where}: not JSON ({json_refused(exc)}): {FORM}") from None
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
                try:
                    height, width = load_photo(image).shape[:2]
                except ImageError as exc:
                    raise ExamplesError(f"{where}: {exc}") from None
                boxes = _inside(boxes, codes, width, height, where, clipped)
                out.append(Example(image, np.array(boxes, np.float32), tuple(codes)))
                total += len(codes)
                labelled += len(codes)
            else:
                unread += doc.get("negative") is True
                if empty is not None:
                    empty.append(where)
                if negatives is not None and doc.get("negative") is True:
                    negatives.append(where)
            if len(out) > MAX_PHOTOS or total > MAX_BOXES:
                raise ExamplesError(f"too many examples (at most {MAX_PHOTOS} photos and {MAX_BOXES:,} boxes)")
        if not labelled:
            raise ExamplesError(f'no corner indices labelled in {path}: the "detections" of '
                                f'{"its line" if lines == 1 else "each of its " + counted(lines, "line")} '
                                f'{"is" if lines == 1 else "are"} empty (give each index its "card" and "box", as '
                                f"`handfoot detect --json` prints them; {no_card_found(lines, unread)})")
    if clipped and notes is not None:
        notes.append(f"{counted(len(clipped), 'box', 'boxes')} reaching a little past the photo's edge "
                     f"{'was' if len(clipped) == 1 else 'were'} clipped to it ({clipped[0]}"
                     f"{' and more' if len(clipped) > 1 else ''})")
    return out


def _inside(boxes: list[list[float]], codes: list[str], width: int, height: int, where: str,
            clipped: list[str]) -> list[list[float]]:
    """``boxes`` (xyxy pixels) of one example photo read as ``width`` x ``height`` pixels, each clipped to the photo
    when it reaches past the edge by at most :data:`EDGE_SLACK` of its size (``clipped`` is told ``where``, the box
    and its code).

    Raises:
        ExamplesError: a box further out, naming ``where``, the box, its code and the photo's size as read.
    """
    out = []
    for box, code in zip(boxes, codes):
        x1, y1, x2, y2 = box
        over_x = max(0.0, -x1) + max(0.0, x2 - width)
        over_y = max(0.0, -y1) + max(0.0, y2 - height)
        if over_x > EDGE_SLACK * (x2 - x1) or over_y > EDGE_SLACK * (y2 - y1):
            shrunk = (f"; a photo over {DEFAULT.pyramid.photo_side} px is read shrunk to that"
                      if max(width, height) == DEFAULT.pyramid.photo_side else "")
            raise ExamplesError(f"{where}: box {box} of {code} lies outside the photo, which handfoot reads as "
                                f"{width} x {height} pixels (boxes are in those pixels, as `handfoot detect --json` "
                                f"prints them{shrunk})")
        if over_x or over_y:
            clipped.append(f"{where}, box {box} of {code}")
            box = [min(max(x1, 0), width), min(max(y1, 0), height), min(max(x2, 0), width), min(max(y2, 0), height)]
        out.append(box)
    return out


_CODES = {f"{r}{s}" for r in RANKS[:13] for s in SUIT_CODES} | {"JK"}
