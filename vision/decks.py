"""Deck profiles: the index reader adapted to one family's deck from photos whose cards are known.

An *example* is a photo with the right card code of each corner-index box, in the form ``handfoot detect --json``
prints (one JSON object a line)::

    {"image": "photos/round3.jpg", "detections": [{"card": "KH", "box": [x1, y1, x2, y2]}, ...]}

boxes in the pixels of the photo as handfoot reads it (``vision.images.load_photo``: a photo over 2560 px is
shrunk to that; ``detect --json`` prints its ``width`` and ``height``): a box reaching a little past the photo's
edge is clipped to it, one further out refused (``vision.deck_examples.EDGE_SLACK``); other keys are ignored; a
relative ``image`` path is relative to the JSON file.
:func:`learn` fits the reader's linear heads (:class:`vision.models.reader.Heads`) on the features of the examples'
index crops, seen turned and shifted (:data:`AUGMENT`), starting from the model's own heads and held near them
(:data:`ANCHOR`), so ranks the examples do not show are not forgotten. The features come from the shipped
reader and stay fixed: learning is a few hundred steps of gradient descent on a (n, 448) matrix, seconds on a CPU,
no PyTorch (``vision.deck_samples``). Measured levers, off by default (they did not read ``decks_dev`` better,
models/HISTORY.md): ``layers`` adapts each reader member's last convolution too (``vision.deck_layers``, NumPy
backpropagation), ``detector`` learns on the boxes the detector finds in the example photos (``vision.deck_boxes``).

The result, a :class:`DeckProfile`, is checked on photos it did not learn from and refused
(:class:`ProfileRefusedError`) when it reads them worse than the stock reader (:func:`check_folds`): every
:data:`CHECK_EVERY`-th example photo kept aside (every 2nd or 3rd for close-ups), or, when those hold too few
indices to tell (:data:`MIN_CHECK`; five photos of a table), each photo in turn left out while the others teach;
the profile kept is then fitted on every example. A profile refused so is not needed when the stock reader reads
the examples as their codes say (:data:`ALREADY_READ` of them): :class:`AlreadyReadError` says so.

The detector frames an index its own way, the labelled examples theirs: with the detector, :func:`learn` learns
the deck's frame correction from the example photos (``vision.deck_frames``), the profile's reader crops each box
from its corrected box, and the heads learn on the detector's corrected boxes (:data:`FRAME`). A profile's reader reads
each box from a few test-time copies too (moved by a share of the box) and averages (:data:`JITTER`).

A deck printed light on dark paper (a black deck with gold print) is read as its *negative*, which the models
learned: :func:`reads_negative` tells from the examples (the stock reader names their ranks better so), the heads
are fitted on the negative crops, and the profile reads every photo as its negative (``DeckProfile.negative``). Its
check compares like with like: the stock reader reads the check photos' negatives too (as ``--negative`` and the
page's light-print box read them; ``check["stock_negative"]``), so such a profile is kept only when it reads them
better than the stock reader reading negatives, not merely better than the stock reader reading black cards as
photographed (which reads almost none).

A profile is kept in a folder the caller names (``handfoot`` keeps them in its data folder), one ``NAME.npz`` each
(``vision.deck_profiles``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

import numpy as np

from scorer.errors import HandFootError
from scorer.wording import counted

from .deck_aspect import screen
from .deck_boxes import Example, cards_read, found_boxes, with_found_boxes
from .deck_frames import IDENTITY, learn_frame, pairs
from .deck_examples import (MAX_BOXES, MAX_PHOTOS, NAME, NO_CARD_FOUND, ExamplesError, check_name,  # noqa: F401
                            examples_text, no_card_found, read_examples)
from .deck_glyphs import later_photos, weigh
from .deck_glyphs import fit as fit_glyphs
from .deck_ink import learn_ink
from .deck_layers import fit as fit_conv, fit_affine
from .deck_profiles import DeckProfile
from .deck_samples import Samples, accuracy, fit_heads, indices_right, joined, rank_accuracy, samples_of
from .models.crops import VIEWS
from .models.reader import Heads, IndexReader, Jitter, Layers

#: each example index is seen this many times more, each crop shifted by up to 8 % of its box, scaled by 0.9-1.12
#: and turned by up to 0.12 rad beyond the reader's own views (:data:`AUGMENT_LAYERS` when the last convolution is
#: adapted too)
AUGMENT, AUGMENT_LAYERS = 4, 8
#: the crop windows (crop side / box's longer side) ``learn(window="auto")`` tries beside the reader's own
WINDOWS = (1.0,)
#: the photo aspect :func:`learn` gives a profile's reader by default (``vision.deck_aspect``): ``"auto"`` or a number
ASPECT = "auto"
#: learn a glyph reader of the deck's own (``vision.deck_glyphs``): False, True (on the example boxes), "boxes" (on
#: the boxes the detector finds on the example indices too; needs the detector) or "found" (and "no index")
GLYPHS = "boxes"
#: the boxes a profile's heads learn from, when learning has the detector: ``"found"``, the detector's boxes on the
#: examples' indices corrected by the deck's frame (``vision.deck_frames``: what the profile's reader crops at run
#: time), or ``"labelled"``, the examples' own boxes (the frame still corrects the detector's boxes at run time);
#: False: no frame correction (the heads learn on the examples' boxes, the detector's are read as found)
FRAME = "found"
#: learn the deck's inks, the colours its red and black suits are printed in (``vision.deck_ink``)
INK = True
#: the test-time copies a profile learned by :func:`learn` reads by default (a ``vision.models.reader.JITTERS``
#: name; None: each box once): its reader reads each box five times (models/HISTORY.md, 2026-12-04, twenty-seventh
#: session)
JITTER = "shift"
#: adapt each reader member's last convolution too (``vision.deck_layers``), in this many steps
LAYERS, LAYERS_STEPS = False, 150
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
#: when the photos kept aside hold too few indices, the check leaves out each of this many groups of photos in turn
FOLDS = 5
#: a deck is read as its negative when the stock reader names this much more of its example ranks that way
NEGATIVE_MARGIN = 0.1
#: a profile that reads its check photos worse than the stock reader is not needed when the stock reader reads at
#: least this share of every example index as its code says (:class:`AlreadyReadError`)
ALREADY_READ = 0.95


class ProfileRefusedError(HandFootError):
    """A profile that reads its own deck's check photos worse than the stock reader; ``check``: the check's figures,
    as ``DeckProfile.check`` (empty when not measured)."""

    def __init__(self, message: str, check: dict | None = None) -> None:
        super().__init__(message)
        self.check = dict(check or {})


class AlreadyReadError(ProfileRefusedError):
    """No profile kept because none is needed: the stock reader reads at least :data:`ALREADY_READ` of the example
    indices as their codes say, and a profile read its check photos worse. ``right`` and ``indices``: the example
    indices the stock reader reads right (rank and colour), of how many; ``check``: the check's figures, as
    ``DeckProfile.check``."""

    def __init__(self, message: str, right: int, indices: int, check: dict) -> None:
        super().__init__(message, check)
        self.right, self.indices = right, indices


# -- learning (the crops and the heads' fit: vision.deck_samples) ----------------------------------------------------
def reads_negative(examples: list[Example], reader: IndexReader) -> bool:
    """Whether ``examples``' indices read better as their negative: the stock heads name the rank of more than
    :data:`NEGATIVE_MARGIN` more of them in the negative crops than in the crops as photographed (a deck printed
    light on dark paper; the models learned dark print on light paper)."""
    rng = np.random.default_rng(0)
    stock = reader.stock_heads()
    plain = rank_accuracy(stock, samples_of(examples, reader, 0, rng))
    return rank_accuracy(stock, samples_of(examples, reader, 0, rng, negative=True)) > plain + NEGATIVE_MARGIN


def check_photos(examples: list[Example]) -> np.ndarray | None:
    """(n,) bool: which example photos are kept aside to check a profile: every :data:`CHECK_EVERY`-th (at least the
    last), or every 3rd or every 2nd when those hold fewer than :data:`MIN_CHECK` indices (close-ups of one or two
    cards: 30 of them hold about 14 indices in every 4th); None when even every 2nd photo holds fewer (then
    :func:`check_folds` checks by leaving photos out in turn).

    Raises:
        ExamplesError: fewer than two photos.
    """
    n = len(examples)
    if n < 2:
        raise ExamplesError(f"{counted(n, 'example photo')}: at least 2 are needed (the profile is tested on "
                            "photos it did not learn from): give more photos (five corrected round-end photos is a "
                            "start)")
    for every in range(CHECK_EVERY, 1, -1):
        check = np.zeros(n, bool)
        check[every - 1::every] = True
        check[-1] |= not check.any()
        if sum(len(e.codes) for e, c in zip(examples, check) if c) >= MIN_CHECK:
            return check
    return None


def check_folds(examples: list[Example]) -> list[np.ndarray]:
    """The check photos of each trial fit a profile's check runs, (n,) bool masks: one, the photos
    :func:`check_photos` keeps aside; or, when those hold too few indices (a few photos), every photo in turn:
    each of ``min(n, FOLDS)`` trial fits learns from the others and reads its own (photo *i* in fold
    ``i % FOLDS``: leave-one-out up to :data:`FOLDS` photos), so every example index checks the profile once.

    Raises:
        ExamplesError: fewer than two photos, or all of them holding fewer than :data:`MIN_CHECK` indices.
    """
    aside = check_photos(examples)
    if aside is not None:
        return [aside]
    n, held = len(examples), sum(len(e.codes) for e in examples)
    if held < MIN_CHECK:
        raise ExamplesError(f"{n} example photos hold {counted(held, 'card corner')}, and at least {MIN_CHECK} "
                            "are needed to test what is learned (each photo is tested while the others teach): "
                            f"{MIN_CHECK - held} more, in more photos (a photo of a round's table holds that many; "
                            "a close-up of a card or two, one or two)")
    folds = min(n, FOLDS)
    return [np.arange(n) % folds == f for f in range(folds)]


def check_text(check: dict) -> str:
    """A profile's check figures (``DeckProfile.check``) in words: how many of the check indices the profile and
    the stock reader read right by rank and suit's colour, and the share of the reader's views of them each read
    right (what the profile is kept on), e.g. "31 of 34 indices read right (rank and colour) with the profile, 29
    with the stock reader; of the reader's 3 views of each, 89.2% with the profile, 87.2% with the stock reader";
    of a deck read as its negative (``check["stock_negative"]``), "the stock reader reading their negatives")."""
    views = f"of the reader's {len(VIEWS)} views of each"
    stock = "the stock reader reading their negatives" if check.get("stock_negative") else "the stock reader"
    shares = f"{check.get('profile', 0):.1%} with the profile, {check.get('stock', 0):.1%} with {stock}"
    indices = counted(check.get("indices", 0), "index", "indices")
    if "profile_right" not in check:  # a profile learned before the counts were kept
        return (f"{check.get('profile', 0):.1%} of the reader's {len(VIEWS)} views of each of {indices} read right "
                f"(rank and colour) with the profile, {check.get('stock', 0):.1%} with the stock reader")
    return (f"{check['profile_right']} of {indices} read right (rank and colour) with the profile, "
            f"{check['stock_right']} with {stock}; {views}, {shares}")


def learn(examples: list[Example], reader: IndexReader, name: str, augment: int | None = None, seed: int = 0,
          progress: Callable[[str, int, int], None] | None = None, steps: int | None = None,
          anchor: float | None = None, layers: bool | str | None = None, photometric: bool | None = None,
          detector=None, temperature: float = 1.0, window: float | str | None = None,
          learn_found: bool = False, glyphs: bool | str | None = None,
          check_found: bool | None = None, frame: bool | str | None = None,
          jitter: str | dict | None = JITTER, glyph_weight: float | None = None,
          aspect: float | str = ASPECT, ink: bool = INK) -> DeckProfile:
    """A deck profile learned from ``examples`` (see the module docstring); ``progress(stage, done, total)`` is told
    how far it is (stages "reading the examples", "checking", "learning"; "finding the boxes" with ``detector``).

    Levers measured and off by default (models/HISTORY.md, 2026-12-03): ``layers`` (default :data:`LAYERS`) adapts
    each reader member's last convolution too (``vision.deck_layers``): ``"conv"`` (or True) its weights,
    ``"affine"`` a scale and shift of each channel; ``photometric`` (default: as ``layers``) jitters the copies'
    contrast and colour too; ``learn_found`` (with ``detector``) learns on the detector's boxes too
    (``vision.deck_boxes``, and this deck's false boxes as "no index"); ``temperature`` divides the heads (under 1:
    surer readings). ``augment`` defaults to :data:`AUGMENT` (:data:`AUGMENT_LAYERS` with ``layers``), ``steps`` to
    :data:`STEPS` (:data:`LAYERS_STEPS` with ``layers``), ``anchor`` (heads alone) to :data:`ANCHOR`.

    ``detector`` (the stock one; None: the example boxes): the check reads the boxes it finds in the check photos
    on a known index (``vision.deck_boxes``), as the profile will read them, when ``check_found`` (default: with
    ``window="auto"`` or ``learn_found``). ``window``: read this deck's indices from crops of that many times each
    box's longer side (None: the reader's ``vision.models.crops.WINDOW``; ``"auto"``: that or one of
    :data:`WINDOWS`, whichever reads the check best: with ``detector``, the check photos' card sets
    read whole at the reading floor, F1 against their codes).

    ``frame`` (default :data:`FRAME`; with ``detector``, else False): ``"found"`` or ``"labelled"`` learns the
    deck's frame correction (``vision.deck_frames.learn_frame``) from the detector's boxes on the example indices
    and keeps it in the profile; the glyph reader learns on the corrected boxes, and with ``"found"`` so do the
    heads (on the labelled boxes when the frame is the identity: too few pairs). False: no correction. When the
    check reads the detector's boxes (``check_found``), the profile reads them corrected and the stock reader as
    found.

    ``aspect`` (default :data:`ASPECT`): the photo aspect the profile's reader cuts its crops at
    (``vision.deck_aspect``); ``"auto"``: 1, or one of the aspects :func:`vision.deck_aspect.screen` proposes
    when the profile learned at it reads its check indices better.

    ``ink`` (default :data:`INK`): learn the deck's inks from the examples (``vision.deck_ink``, ``check["ink"]``).

    ``jitter`` (default :data:`JITTER`): the profile reads each box from these test-time copies too and averages
    (:meth:`Jitter.of <vision.models.reader.Jitter.of>`; learning and its check read each box once).

    ``glyphs`` (default :data:`GLYPHS`; off without ``detector`` when it needs one): learn a glyph reader of the
    deck's own (``vision.deck_glyphs``) too, weighed on the examples' last photos (``vision.deck_glyphs.weigh``,
    ``check["glyphs"]``) and kept at a weight over 0: True, on the example boxes; ``"boxes"`` (with ``detector``):
    on the boxes the detector finds on the example indices too; ``"found"``: and "no index" on its sure boxes on
    none (``vision.deck_boxes``). ``glyph_weight`` (a measured lever, off: None) keeps the glyph reader at that
    weight without weighing it.

    The profile is first checked on photos it did not learn from (:func:`check_folds`: the photos kept aside, or
    each photo in turn for a few photos) and refused when it reads them worse than the stock reader; the profile
    kept is then fitted on every example.

    Raises:
        ExamplesError: a bad name, fewer than two example photos, or too few indices to check (before any work).
        ProfileRefusedError: the profile reads the check photos worse than the stock reader;
            :class:`AlreadyReadError` when none is needed (the stock reader reads the examples as their codes say).
        ValueError: ``frame`` or ``glyphs`` that need the detector, without it.
        vision.models.detector.ModelError: a reader model without feature outputs.
    """
    check_name(name)
    folds = check_folds(examples)
    if glyphs is None:  # the default needs the detector's boxes; without it, heads alone
        glyphs = GLYPHS if detector is not None or GLYPHS in (True, False) else False
    layers = LAYERS if layers is None else layers
    photometric = layers if photometric is None else photometric
    augment = (AUGMENT_LAYERS if layers else AUGMENT) if augment is None else augment
    rng = np.random.default_rng(seed)
    stock = reader.stock_heads()
    start = reader.stock_layers() if layers else None
    tell = (lambda stage: (lambda done, total: progress(stage, done, total) if progress else None))
    negative = reads_negative([e for e, c in zip(examples, folds[0]) if not c], reader)
    indices, photos = sum(len(e.codes) for e in examples), len(examples)
    windows = (None, *WINDOWS) if window == "auto" else (window,)
    figures: dict = {}
    if aspect == "auto":
        proposed, figures["aspects"] = screen([e for e, c in zip(examples, folds[0]) if not c], reader, negative)
        aspects = (1.0, *proposed)
    else:
        aspects = (float(aspect),)
    frame = (FRAME if detector is not None else False) if frame is None else frame
    if frame and detector is None:
        raise ValueError(f"frame={frame!r} needs the detector")
    if check_found is None:  # the levers measured with the check on the detector's boxes keep it
        check_found = detector is not None and (window == "auto" or learn_found)
    if glyphs in ("found", "boxes") and detector is None:
        raise ValueError(f"glyphs={glyphs!r} needs the detector")
    found = found_boxes(examples, detector, reader, negative, tell("finding the boxes")) \
        if frame or glyphs in ("found", "boxes") or check_found else None
    own_frame = learn_frame(*pairs([e.boxes for e in examples], [f.xyxy for f in found])) if frame else IDENTITY
    fix = None if own_frame.is_identity else own_frame
    checked = shown = originals = taught = learned = examples  # the boxes checked (stock; profile), and learned
    if glyphs in ("found", "boxes"):
        taught = with_found_boxes(examples, detector, reader, found=found, frame=fix)
    if check_found:
        checked = with_found_boxes(examples, detector, reader, only=True, found=found)
        shown = with_found_boxes(examples, detector, reader, only=True, found=found, frame=fix)
    if learn_found:
        learned = with_found_boxes(examples, detector, reader, found=found, frame=fix)
    elif frame == "found" and fix is not None:
        learned = with_found_boxes(examples, detector, reader, only=True, found=found, frame=fix)

    def fit(samples: Samples) -> tuple[Heads, Layers | None]:
        if layers:
            how = fit_affine if layers == "affine" else fit_conv
            got, heads = how(samples.pre, samples.rank, samples.suit, start, stock, steps or LAYERS_STEPS, rng)
        else:
            heads, got = fit_heads(samples, stock, steps or STEPS, anchor=ANCHOR if anchor is None else anchor), None
        return Heads(tuple(tuple(a / temperature for a in member) for member in heads.members)), got

    def plain(group: list[Example], size: float | None, pre: bool, neg: bool = negative,
              asp: float = 1.0) -> list[Samples]:  # each photo's with an index
        return [samples_of([e], reader, 0, rng, None, neg, pre=pre, window=size, aspect=asp)
                for e in group if e.codes]

    trials = []
    for size, asp in [(w, a) for w in windows for a in aspects]:
        told = tell("reading the examples")
        per = []
        for k, e in enumerate(learned):  # None for a photo with no box to learn from
            per.append(samples_of([e], reader, augment, rng, None, negative, pre=bool(layers),
                                  photometric=photometric, window=size, aspect=asp) if e.codes else None)
            told(k + 1, len(learned))
        before = after = 0.0
        held = 0
        right = np.zeros(2, int)  # indices read right, by the stock reader and the profile
        cards = np.zeros(3)  # cards read right, read, shown
        for f, check in enumerate(folds):
            tell("checking")(f, len(folds))
            tests = plain([e for e, c in zip(shown, check) if c], size, bool(layers), asp=asp)
            taught_here = [p for p, c in zip(per, check) if not c and p is not None]
            if not tests or not taught_here:
                continue
            heads, got = fit(joined(taught_here))
            seens = plain([e for e, c in zip(checked, check) if c], None, False)  # as the stock reader reads them
            test, seen = joined(tests), joined(seens)
            before += accuracy(stock, seen) * len(test.rank)
            after += accuracy(heads, test, got) * len(test.rank)
            held += len(test.rank)
            right += (indices_right(stock, seens), indices_right(heads, tests, got))
            if len(windows) > 1 and detector is not None:
                cards += cards_read([e for e, c in zip(originals, check) if c], detector, reader.with_heads(
                    heads, got, size, frame=fix, aspect=asp), negative)
        f1 = 2 * cards[0] / max(cards[1] + cards[2], 1)  # card sets read at the floor, when known
        trials.append((f1, after / max(held, 1), before / max(held, 1), held, size, asp, per, right))
    _, after, before, held, window, aspect, per, right = max(trials, key=lambda t: t[:2])
    method = "kept aside" if len(folds) == 1 else "leave-one-out" if len(folds) == len(examples) else \
        f"{len(folds)}-fold"
    figures = {"indices": int(held // len(VIEWS)), "photos": int(sum(c.sum() for c in folds)), "folds": len(folds),
               "stock": round(before, 4), "profile": round(after, 4), "stock_right": int(right[0]),
               "profile_right": int(right[1]), "method": method, "stock_negative": bool(negative), **figures,
               "aspect": round(aspect, 4)}
    if held and after < before:
        stock_right = indices_right(stock, plain(examples, None, False))
        if stock_right >= ALREADY_READ * indices:
            raise AlreadyReadError(f"handfoot already reads this deck: the stock reader reads {stock_right} of the "
                                   f"{indices} example indices as their codes say (rank and colour), and a profile "
                                   f"read the photos it was tested on no better ({check_text(figures)}, {method}): "
                                   "no profile needed, none kept", stock_right, indices, figures)
    if held == 0 or after < before:
        raise ProfileRefusedError(f"the profile {name!r} reads the photos it was tested on (not learned from) "
                                  f"worse than the stock reader: {check_text(figures)}, {method}; "
                                  "not kept: check the example codes, or give more photos", figures)
    own = None
    if glyphs:  # weighed on the last photos (a later photo of the same cards flatters a reader that memorises)
        later, none = later_photos(originals), glyphs == "found"
        weight, scores = (0.0, {}) if glyph_weight is None else (glyph_weight, {"given": glyph_weight})
        if glyph_weight is None and later is not None and any(p is not None for p, c in zip(per, later) if not c):
            tell("learning the glyphs")(0, 2)
            heads, got = fit(joined([p for p, c in zip(per, later) if not c and p is not None]))
            shown = taught if taught is not examples else shown
            weight, scores = weigh([e for e, c in zip(taught, later) if not c], [e for e, c in zip(shown, later) if c],
                                   reader.with_heads(heads, got, window, aspect=aspect), negative, rng, none)
        figures["glyphs"] = {"weight": weight, "scores": {str(w): v for w, v in scores.items()}}
        if weight > 0:
            tell("learning the glyphs")(1, 2)
            own = fit_glyphs(taught, negative, rng, weight=weight, none=none)
    tell("learning")(0, 1)
    heads, got = fit(joined([p for p in per if p is not None]))
    if frame:
        figures["frame"] = {"pairs": list(own_frame.pairs), "how": own_frame.how, "learned on": frame if fix else
                            "labelled", "table": np.round(own_frame.table, 4).tolist()}
    inks, figures["ink"] = learn_ink(examples, negative) if ink else (None, {})
    return DeckProfile(name, heads, photos, indices, figures,
                       datetime.now(timezone.utc).isoformat(timespec="seconds"), negative, got, window, own,
                       own_frame, Jitter.of(jitter), aspect, inks)
