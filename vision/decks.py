"""Deck profiles: the index reader adapted to one family's deck from photos whose cards are known.

An *example* is a photo with the right card code of each corner-index box, in the form ``handfoot detect --json``
prints (one JSON object a line)::

    {"image": "photos/round3.jpg", "detections": [{"card": "KH", "box": [x1, y1, x2, y2]}, ...]}

boxes in the pixels of the photo as handfoot reads it (``vision.detector.load_photo``: a photo over 2560 px is
shrunk to that; ``detect --json`` prints its ``width`` and ``height``); other keys are ignored; a relative ``image``
path is relative to the JSON file.
:func:`learn` fits the reader's linear heads (:class:`vision.reader.Heads`) on the features of the examples'
index crops, seen turned and shifted (:data:`AUGMENT`), starting from the model's own heads and held near them
(:data:`ANCHOR`), so ranks the examples do not show are not forgotten. The features come from the shipped
reader and stay fixed: learning is a few hundred steps of gradient descent on a (n, 448) matrix, seconds on a CPU,
no PyTorch. The result, a :class:`DeckProfile`, is checked on photos it did not learn from (every
:data:`CHECK_EVERY`-th example photo, every 2nd or 3rd for close-ups: :func:`check_photos`) and refused
(:class:`ProfileRefusedError`) when it reads them worse than the stock reader, or when they hold too few indices
to tell (:data:`MIN_CHECK`); the profile kept is then fitted on every example.

A deck printed light on dark paper (a black deck with gold print) is read as its *negative*, which the models
learned: :func:`reads_negative` tells from the examples (the stock reader names their ranks better so), the heads
are fitted on the negative crops, and the profile reads every photo as its negative (``DeckProfile.negative``).

A profile is kept in a folder the caller names (``handfoot`` keeps them in its data folder), one ``NAME.npz`` each.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from scorer.errors import HandFootError

from .classes import RANKS, SUIT_CODES
from .detector import load_photo
from .reader import VIEWS, Heads, IndexReader, crops_of

#: each example index is seen this many times more, each crop shifted by up to 8 % of its box, scaled by 0.9-1.12
#: and turned by up to 0.12 rad beyond the reader's own views
AUGMENT = 4
#: weight of the squared distance from the model's own heads (per weight)
ANCHOR = 0.1
#: gradient steps (Adam, full batch)
STEPS = 300
#: Adam's step size
RATE = 0.01
#: every this-many-th example photo checks the profile before it is kept (not learned from in the check)
CHECK_EVERY = 4
#: the check photos must hold at least this many indices to tell a better profile from a worse one
MIN_CHECK = 30
#: a deck is read as its negative when the stock reader names this much more of its example ranks that way
NEGATIVE_MARGIN = 0.1
#: a deck name: letters, digits, ``-`` and ``_``, at most 40
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
#: at most this many example photos, and boxes in all, are learned from (memory and time stay bounded)
MAX_PHOTOS, MAX_BOXES = 200, 20_000


class ExamplesError(HandFootError, ValueError):
    """An examples file that cannot be used: not JSON, a missing image, a box or card code that is wrong."""


class ProfileRefusedError(HandFootError):
    """A profile that reads its own deck's check photos worse than the stock reader."""


class DeckNotFoundError(HandFootError, LookupError):
    """No deck profile of that name."""

    http_status = 404


@dataclass(frozen=True)
class Example:
    """One photo and its known corner indices: ``boxes`` (n, 4) xyxy pixels, ``codes`` their n card codes."""

    image: Path
    boxes: np.ndarray
    codes: tuple[str, ...]


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


@dataclass(frozen=True)
class DeckProfile:
    """A deck's reader heads and what they were learned from.

    Attributes:
        name: the deck's name (:data:`NAME`).
        heads: the reader heads to read this deck with.
        photos, indices: how many example photos and index boxes they were learned from.
        check: figures on the check photos, ``{"indices": n, "stock": share read right, "profile": share}``.
        created: when (ISO 8601, UTC).
        negative: the deck is read as its negative (light print on dark paper: :func:`reads_negative`): its
            detector is a ``vision.detector.NegativeDetector``, and ``vision.pipeline.detect`` takes each photo's
            negative for every model.
    """

    name: str
    heads: Heads
    photos: int
    indices: int
    check: dict = field(default_factory=dict)
    created: str = ""
    negative: bool = False

    def models(self, detector, reader: IndexReader) -> tuple:
        """(detector, reader) reading this deck: ``reader`` (the same loaded model) with the profile's heads, and
        ``detector`` wrapped in :class:`vision.detector.NegativeDetector` when :attr:`negative`."""
        from .detector import NegativeDetector

        return NegativeDetector(detector) if self.negative else detector, reader.with_heads(self.heads)

    def save(self, folder: Path) -> Path:
        """Write the profile to ``folder`` as ``NAME.npz``; returns the path."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {f"m{k}_{w}": a for k, member in enumerate(self.heads.members)
                  for w, a in zip(("rank_w", "rank_b", "suit_w", "suit_b"), member)}
        meta = {"name": self.name, "photos": self.photos, "indices": self.indices, "check": self.check,
                "created": self.created, "negative": self.negative}
        path = folder / f"{self.name}.npz"
        tmp = folder / f".{self.name}.tmp.npz"
        np.savez(tmp, meta=np.array(json.dumps(meta)), **arrays)
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, name: str, folder: Path) -> DeckProfile:
        """The profile ``name`` from ``folder``.

        Raises:
            DeckNotFoundError: no such profile (the message lists the ones there are).
        """
        folder = Path(folder)
        path = folder / f"{check_name(name)}.npz"
        if not path.is_file():
            known = ", ".join(p.name for p in list_profiles(folder)) or "none yet (handfoot deck learn)"
            raise DeckNotFoundError(f"no deck profile {name!r} in {folder}; profiles there: {known}")
        z = np.load(path)
        meta = json.loads(str(z["meta"]))
        members = tuple(tuple(z[f"m{k}_{w}"] for w in ("rank_w", "rank_b", "suit_w", "suit_b"))
                        for k in range(sum(1 for f in z.files if f.endswith("_rank_w"))))
        return cls(meta["name"], Heads(members), meta["photos"], meta["indices"], meta.get("check", {}),
                   meta.get("created", ""), bool(meta.get("negative", False)))


def list_profiles(folder: Path) -> list[DeckProfile]:
    """Every profile in ``folder``, by name."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return [DeckProfile.load(p.stem, folder) for p in sorted(folder.glob("*.npz")) if NAME.match(p.stem)]


def remove_profile(name: str, folder: Path) -> None:
    """Delete the profile ``name``.

    Raises:
        DeckNotFoundError: no such profile.
    """
    DeckProfile.load(name, folder)  # raises when there is none
    Path(folder).joinpath(f"{name}.npz").unlink()


# -- learning --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Samples:
    """Features of index crops: per member (n, d_k) float32, rank (n,) and suit (n,) indices (-1: no suit)."""

    features: list[np.ndarray]
    rank: np.ndarray
    suit: np.ndarray


def _labels(code: str) -> tuple[int, int]:
    if code == "JK":
        return RANKS.index("JK"), -1
    return RANKS.index(code[:-1]), SUIT_CODES.index(code[-1])


def _samples(examples: list[Example], reader: IndexReader, augment: int, rng: np.random.Generator,
             progress: Callable[[int, int], None] | None = None, negative: bool = False) -> _Samples:
    """Features of every example index: the reader's own views, and ``augment`` jittered copies of each; of each
    photo's negative when ``negative``."""
    feats: list[list[np.ndarray]] = [[] for _ in range(reader.members)]
    rank, suit = [], []
    for k, ex in enumerate(examples):
        image = load_photo(ex.image)
        image = 255 - image if negative else image
        boxes = [ex.boxes]
        for _ in range(augment):
            b = ex.boxes.copy()
            side = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])[:, None]
            centre = (b[:, :2] + b[:, 2:]) / 2 + rng.uniform(-0.08, 0.08, (len(b), 2)) * side
            half = (b[:, 2:] - b[:, :2]) / 2 * rng.uniform(0.9, 1.12, (len(b), 1))
            boxes.append(np.hstack([centre - half, centre + half]).astype(np.float32))
        for j, bx in enumerate(boxes):
            views = VIEWS if j == 0 else tuple(float(a) for a in rng.uniform(-0.27, 0.27, 1))
            for m, f in enumerate(reader.features(crops_of(image, bx, views))):
                feats[m].append(f)
            for _ in views:
                for code in ex.codes:
                    r, s = _labels(code)
                    rank.append(r)
                    suit.append(s)
        if progress:
            progress(k + 1, len(examples))
    return _Samples([np.concatenate(f) for f in feats], np.array(rank), np.array(suit))


def fit_heads(samples: _Samples, start: Heads, steps: int = STEPS, rate: float = RATE,
              anchor: float = ANCHOR) -> Heads:
    """Heads fitted to ``samples`` from ``start``: the mean cross-entropy of the averaged members' rank and suit
    probabilities (a joker has no suit term), plus ``anchor`` times the squared distance from ``start``; Adam,
    full batch."""
    params = [np.array(a, np.float64) for member in start.members for a in member]
    origin = [p.copy() for p in params]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    n = len(samples.rank)
    feats = [f.astype(np.float64) for f in samples.features]
    has_suit = samples.suit >= 0
    for t in range(1, steps + 1):
        grads = [anchor * 2 * (p - o) for p, o in zip(params, origin)]
        for head, labels, mask in ((0, samples.rank, np.ones(n, bool)), (2, samples.suit, has_suit)):
            if not mask.any():
                continue
            probs = [_softmax(f[mask] @ params[4 * k + head].T + params[4 * k + head + 1])
                     for k, f in enumerate(feats)]
            mean = np.mean(probs, axis=0)
            y = labels[mask]
            py = mean[np.arange(len(y)), y]
            for k, (f, s) in enumerate(zip(feats, probs)):
                # d(-log mean_y)/dz_k = -(1 / members) s_k[y] (onehot(y) - s_k) / mean_y
                coef = (s[np.arange(len(y)), y] / py / len(feats))[:, None]
                onehot = np.zeros_like(s)
                onehot[np.arange(len(y)), y] = 1
                dz = -coef * (onehot - s) / mask.sum()
                grads[4 * k + head] += dz.T @ f[mask]
                grads[4 * k + head + 1] += dz.sum(0)
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            params[i] -= rate * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)
    members = tuple(tuple(params[4 * k + j].astype(np.float32) for j in range(4)) for k in range(len(start.members)))
    return Heads(members)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def accuracy(heads: Heads, samples: _Samples) -> float:
    """Share of the crops of ``samples`` (each of the reader's views of each index counted) whose rank and suit's
    colour ``heads`` read right."""
    rank_p, suit_p = heads.probabilities(samples.features)
    right = rank_p.argmax(1) == samples.rank
    red = np.array([c in "HD" for c in SUIT_CODES])
    colour = np.where(samples.suit >= 0, red[suit_p.argmax(1)] == red[np.maximum(samples.suit, 0)], True)
    return float((right & colour).mean()) if len(right) else 0.0


def rank_accuracy(heads: Heads, samples: _Samples) -> float:
    """Share of the crops of ``samples`` whose rank ``heads`` read right (colour aside: a negative turns red ink
    cyan)."""
    rank_p, _ = heads.probabilities(samples.features)
    return float((rank_p.argmax(1) == samples.rank).mean()) if len(samples.rank) else 0.0


def reads_negative(examples: list[Example], reader: IndexReader) -> bool:
    """Whether ``examples``' indices read better as their negative: the stock heads name the rank of more than
    :data:`NEGATIVE_MARGIN` more of them in the negative crops than in the crops as photographed (a deck printed
    light on dark paper; the models learned dark print on light paper)."""
    rng = np.random.default_rng(0)
    stock = reader.stock_heads()
    plain = rank_accuracy(stock, _samples(examples, reader, 0, rng))
    return rank_accuracy(stock, _samples(examples, reader, 0, rng, negative=True)) > plain + NEGATIVE_MARGIN


def check_photos(examples: list[Example]) -> np.ndarray:
    """(n,) bool: which example photos check a profile: every :data:`CHECK_EVERY`-th (at least the last), or every
    3rd or every 2nd when those hold fewer than :data:`MIN_CHECK` indices (close-ups of one or two cards: 30 of
    them hold about 14 indices in every 4th).

    Raises:
        ExamplesError: fewer than two photos, or every 2nd photo holding fewer than :data:`MIN_CHECK` indices.
    """
    n = len(examples)
    if n < 2:
        raise ExamplesError(f"{n} example photo{'s' * (n != 1)}: at least 2 are needed (some to learn from, every "
                            f"{CHECK_EVERY}th to check the profile): give more photos (a dozen round-end photos is "
                            "a start)")
    for every in range(CHECK_EVERY, 1, -1):
        check = np.zeros(n, bool)
        check[every - 1::every] = True
        check[-1] |= not check.any()
        held = sum(len(e.codes) for e, c in zip(examples, check) if c)
        if held >= MIN_CHECK:
            return check
    raise ExamplesError(f"{n} example photos: the check photos (kept aside to tell whether the profile reads "
                        f"better; even every 2nd photo) hold {held} card corners, and at least {MIN_CHECK} are "
                        "needed: give more photos (a dozen round-end photos is a start)")


def learn(examples: list[Example], reader: IndexReader, name: str, augment: int = AUGMENT, seed: int = 0,
          progress: Callable[[str, int, int], None] | None = None, steps: int | None = None,
          anchor: float | None = None) -> DeckProfile:
    """A deck profile learned from ``examples`` (see the module docstring); ``progress(stage, done, total)`` is told
    how far it is; ``steps`` and ``anchor`` default to :data:`STEPS` and :data:`ANCHOR`.

    Raises:
        ExamplesError: a bad name, fewer than two example photos, or check photos holding fewer than
            :data:`MIN_CHECK` indices (before any work).
        ProfileRefusedError: the profile reads the check photos worse than the stock reader.
        vision.detector.ModelError: a reader model without feature outputs.
    """
    check_name(name)
    check = check_photos(examples)
    rng = np.random.default_rng(seed)
    stock = reader.stock_heads()
    learned = [e for e, c in zip(examples, check) if not c]
    held = [e for e, c in zip(examples, check) if c]
    tell = (lambda stage: (lambda done, total: progress(stage, done, total))) if progress else (lambda stage: None)
    negative = reads_negative(learned, reader)
    train = _samples(learned, reader, augment, rng, tell("reading the examples"), negative)
    test = _samples(held, reader, 0, rng, tell("reading the check photos"), negative)
    steps, anchor = steps or STEPS, ANCHOR if anchor is None else anchor
    trial = fit_heads(train, stock, steps, anchor=anchor)
    before = accuracy(stock, _samples(held, reader, 0, rng) if negative else test)  # the stock reader as it reads
    after = accuracy(trial, test)
    figures = {"indices": int(len(test.rank) // len(VIEWS)), "stock": round(before, 4), "profile": round(after, 4)}
    if after < before:
        raise ProfileRefusedError(f"the profile {name!r} reads its check photos worse than the stock reader "
                                  f"({after:.1%} vs {before:.1%} of {figures['indices']} indices right); not kept: "
                                  "check the example codes, or give more photos")
    every = _samples(held, reader, augment, rng, negative=negative)
    merged = _Samples([np.concatenate([a, b]) for a, b in zip(train.features, every.features)],
                      np.concatenate([train.rank, every.rank]), np.concatenate([train.suit, every.suit]))
    heads = fit_heads(merged, stock, steps, anchor=anchor)
    indices = sum(len(e.codes) for e in examples)
    return DeckProfile(name, heads, len(examples), indices, figures,
                       datetime.now(timezone.utc).isoformat(timespec="seconds"), negative)
