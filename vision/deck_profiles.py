"""A deck profile (:class:`DeckProfile`: the index reader's heads and the rest of what ``vision.decks.learn``
learned for one family's deck) and where profiles are kept: in a folder the caller names (``handfoot`` keeps them in
its data folder), one ``NAME.npz`` each (the profile's arrays, and its other fields as JSON under ``meta``).

A profile's *version* (:func:`file_version`) is the first 16 hex digits of the sha256 of its file's bytes: every save
changes it (a profile records when it was learned), whoever saved it, and a file put back as it was has its version
again.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from scorer.errors import HandFootError

from .deck_examples import NAME, check_name
from .deck_frames import IDENTITY, Frame
from .deck_glyphs import GlyphReader
from .deck_ink import Ink
from .models.detector import NegativeDetector
from .models.reader import Heads, IndexReader, Jitter, Layers


class DeckNotFoundError(HandFootError, LookupError):
    """No deck profile of that name."""

    http_status = 404


@dataclass(frozen=True)
class DeckProfile:
    """A deck's reader heads and what they were learned from.

    Attributes:
        name: the deck's name (:data:`NAME`).
        heads: the reader heads to read this deck with.
        photos, indices: how many example photos and index boxes they were learned from.
        check: figures on the check photos, ``{"indices": n, "photos": check photos (all, each in turn, unless
            kept aside), "folds": trial fits, "stock": share of the reader's views of those indices (each index
            turned each way of ``vision.models.crops.VIEWS``) read right by rank and suit's colour, the figure the
            profile is kept on, "profile": share, "stock_right", "profile_right": how many of the indices are read
            right so, each by its views averaged as a photo is read, "method": "kept aside" | "leave-one-out" |
            "5-fold"}`` (:func:`vision.decks.check_folds`; older profiles: no method, photos, folds or counts).
        created: when (ISO 8601, UTC).
        negative: the deck is read as its negative (light print on dark paper:
            :func:`vision.decks.reads_negative`): its detector is a ``vision.models.detector.NegativeDetector``, and
            ``vision.pipeline.detect`` takes each photo's negative for every model.
        layers, window, glyphs: the reader's last convolutions, crop window and glyph reader of this deck (None:
            the model's, its own, none).
        frame: the deck's frame correction of the detector's boxes (``vision.deck_frames``; profiles learned before
            frames, or without the detector: the identity).
        jitter: the test-time copies of each box its reader reads and averages (None: each box once).
        aspect: the photo aspect its reader cuts crops at (``vision.deck_aspect``; 1: as photographed).
        ink: the deck's inks, blended into every suit read (``vision.deck_ink``; None: none).
        version: the version of the file it was loaded from (:func:`file_version`; "": not loaded from a file).
    """

    name: str
    heads: Heads
    photos: int
    indices: int
    check: dict = field(default_factory=dict)
    created: str = ""
    negative: bool = False
    layers: Layers | None = None
    window: float | None = None
    glyphs: GlyphReader | None = None
    frame: Frame = IDENTITY
    jitter: Jitter | None = None
    aspect: float = 1.0
    ink: Ink | None = None
    version: str = field(default="", compare=False)

    def models(self, detector, reader: IndexReader) -> tuple:
        """(detector, reader) reading this deck: ``reader`` (the same loaded model) with the profile's heads, layers,
        window, glyph reader, frame correction, aspect and inks, and ``detector`` wrapped in
        :class:`vision.models.detector.NegativeDetector` when :attr:`negative`."""
        return (NegativeDetector(detector) if self.negative else detector,
                reader.with_heads(self.heads, self.layers, self.window, self.glyphs,
                                  None if self.frame.is_identity else self.frame, self.jitter, self.aspect, self.ink))

    def save(self, folder: Path) -> Path:
        """Write the profile to ``folder`` as ``NAME.npz``; returns the path."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        arrays = {f"m{k}_{w}": a for k, member in enumerate(self.heads.members)
                  for w, a in zip(("rank_w", "rank_b", "suit_w", "suit_b"), member)}
        if self.layers is not None:
            arrays.update({f"m{k}_{w}": a for k, member in enumerate(self.layers.members)
                           for w, a in zip(("conv_w", "conv_b"), member)})
        if self.glyphs is not None:
            arrays.update(self.glyphs.arrays())
        arrays.update(self.frame.arrays())
        if self.ink is not None:
            arrays.update(self.ink.arrays())
        meta = {"name": self.name, "photos": self.photos, "indices": self.indices, "check": self.check,
                "created": self.created, "negative": self.negative, "window": self.window,
                "jitter": None if self.jitter is None else {"copies": self.jitter.copies, "log": self.jitter.log},
                "aspect": self.aspect}
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
        data = path.read_bytes()  # one read: the version is of the very bytes loaded
        z = np.load(io.BytesIO(data))
        meta = json.loads(str(z["meta"]))
        members = tuple(tuple(z[f"m{k}_{w}"] for w in ("rank_w", "rank_b", "suit_w", "suit_b"))
                        for k in range(sum(1 for f in z.files if re.fullmatch(r"m\d+_rank_w", f))))
        layers = Layers(tuple((z[f"m{k}_conv_w"], z[f"m{k}_conv_b"]) for k in range(len(members)))) \
            if "m0_conv_w" in z.files else None  # profiles of heads alone have none
        return cls(meta["name"], Heads(members), meta["photos"], meta["indices"], meta.get("check", {}),
                   meta.get("created", ""), bool(meta.get("negative", False)), layers, meta.get("window"),
                   GlyphReader.from_arrays(z), Frame.from_arrays(z),  # None / identity for profiles without them
                   Jitter.of(meta.get("jitter")), float(meta.get("aspect", 1.0)), Ink.from_arrays(z),
                   version_of(data))


def version_of(data: bytes) -> str:
    """The version of a profile file of bytes ``data``: the first 16 hex digits of their sha256."""
    return hashlib.sha256(data).hexdigest()[:16]


def file_version(name: str, folder: Path) -> str | None:
    """The version of the profile ``name`` kept in ``folder`` (:func:`version_of` its file), or None when there is
    none."""
    try:
        return version_of((Path(folder) / f"{check_name(name)}.npz").read_bytes())
    except FileNotFoundError:
        return None


def list_profiles(folder: Path) -> list[DeckProfile]:
    """Every profile in ``folder``, by name."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return [DeckProfile.load(p.stem, folder) for p in sorted(folder.glob("*.npz")) if NAME.match(p.stem)]


def saved_profile(name: str, folder: Path) -> DeckProfile | None:
    """The profile ``name`` kept in ``folder``, or None when there is none."""
    try:
        return DeckProfile.load(name, folder)
    except DeckNotFoundError:
        return None


def remove_profile(name: str, folder: Path) -> None:
    """Delete the profile ``name``.

    Raises:
        DeckNotFoundError: no such profile.
    """
    DeckProfile.load(name, folder)  # raises when there is none
    Path(folder).joinpath(f"{name}.npz").unlink()
