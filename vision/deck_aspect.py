"""A camera's photo aspect: how many times a deck's photos must be stretched along x to show its indices in their
own proportions (``vision.decks``).

Some cameras and photo apps hand over pictures squeezed along one axis: a webcam's 16:9 or 4:3 frame saved square,
a phone's 3:4 photo resized to a square by a labelling tool. The cards then look narrower (or squatter) than cards
are, and so do their indices, which the reader learned in their own proportions. A deck profile keeps the aspect
its example photos read best at; its reader cuts every crop as from the photo stretched so
(``vision.models.crops.turned_patch``), while the detector and the table's geometry keep the photo's pixels.

:func:`screen` proposes aspects from the stock reader alone (cheap: the labelled example boxes, read once at each
of :data:`ASPECTS`); ``vision.decks.learn`` then learns a profile at 1 and at each proposed aspect and keeps the one
that reads its check indices better.
"""

from __future__ import annotations

import numpy as np

from .classes import rank_colour, reading
from .deck_boxes import Example
from .images import load_photo
from .models.reader import IndexReader

#: the aspects tried: a 16:9 or 4:3 picture saved square (x squeezed), or a 9:16 or 3:4 one (y squeezed)
ASPECTS = (16 / 9, 4 / 3, 3 / 4, 9 / 16)
#: how much more of the example indices (rank and colour, share of all) the stock reader must read at an aspect than
#: as photographed for it to be tried
MARGIN = 0.03
#: the share of the example indices the stock reader must read at that aspect: a reader that names under this many of
#: a deck's indices (a deck printed light on dark, read as its negative) says little about the deck's proportions
MIN_READ = 0.8


def stock_reads(examples: list[Example], reader: IndexReader, negative: bool, aspects: tuple[float, ...]
                ) -> np.ndarray:
    """(len(aspects),) the share of the ``examples``' labelled indices the ``reader`` (its stock heads) names right
    by rank and colour with its crops cut at each aspect (each photo's negative when ``negative``)."""
    right, total = np.zeros(len(aspects)), 0
    for e in examples:
        if not e.codes:
            continue
        image = load_photo(e.image)
        image = 255 - image if negative else image
        for k, aspect in enumerate(aspects):
            codes, _ = reading(*reader.with_heads(None, aspect=aspect).probabilities(image, e.boxes))
            right[k] += sum(got is not None and rank_colour(got) == rank_colour(true)
                            for got, true in zip(codes, e.codes))
        total += len(e.codes)
    return right / max(total, 1)


def screen(examples: list[Example], reader: IndexReader, negative: bool, keep: int = 2
           ) -> tuple[tuple[float, ...], dict[str, float]]:
    """The aspects to try beside 1, at most ``keep`` of :data:`ASPECTS`, best first: those at which the stock reader
    reads :data:`MARGIN` more of the examples' indices than the photos as they are, and :data:`MIN_READ` of them
    (none: an empty tuple); and the share read at each, ``{"1": share, "1.33": share, ...}``."""
    aspects = (1.0, *ASPECTS)
    shares = stock_reads(examples, reader, negative, aspects)
    figures = {f"{a:.3g}": round(float(s), 4) for a, s in zip(aspects, shares)}
    order = sorted(range(1, len(aspects)), key=lambda k: -shares[k])
    return tuple(aspects[k] for k in order if shares[k] >= max(shares[0] + MARGIN, MIN_READ))[:keep], figures
