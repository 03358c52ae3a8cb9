"""The camera pipeline end to end: photos -> corner detections -> cards -> piles -> table layout.

Each stage is a plain function from the previous stage's value to the next, and :func:`read_image` calls them in
order on one photo:

1. :func:`detect` — the detector over the pyramid (:func:`vision.scales.find_boxes`) and the index reader's
   probabilities of every box: :class:`~vision.types.Detections` with ``rank_p``/``suit_p`` data columns;
1b. :func:`read_indices` — every box read, with the fans' help (:func:`vision.completion.read_with_fans`): the
    read corner indices, and the boxes left unread; a photo read as nothing but jokers shows no table
    (:func:`jokers_alone`: none is read);
2. :func:`vision.instances.pair_and_agree` — card instances (a card's two indices read as two suits of one colour
   take one suit; :func:`vision.instances.pair_corners` on boxes named without the reader's probabilities);
3. :func:`vision.piles.group_piles`, then :func:`vision.fans.fill_fan_gaps` (3a) and the stack checks of
   ``vision.photo_checks`` (3b: squared book or loose card) — piles;
4. :class:`vision.types.SideReading` / :class:`vision.types.TableReading` — sides and the layout JSON;
5. :func:`scorer.scoring.score_round` — the score and every problem the rules see (done by the caller).

Stage 1 is the costly one (the models); ``read_image(..., found=...)`` re-runs stages 1b-4 on boxes found before (a
webcam's unchanged frame, an evaluation's cache), and :func:`detect_again` re-runs stage 1 in a frame's changed regions
only. :func:`read_photos` and :func:`read_hand_photos` run it on files, :func:`annotate` draws the result. Every
threshold comes from one :class:`vision.config.VisionConfig`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from scorer.errors import HandFootError
from scorer.wording import counted

from .annotate import CornerAnnotator, PileAnnotator, TotalsAnnotator, banner_height
from .classes import CLASS_ID
from .completion import read_fan_boxes, read_with_fans, relabelled
from .config import DEFAULT, VisionConfig
from .fans import fill_fan_gaps, read_top_cards
from .images import load_photo
from .instances import CUT_NOTE, crossing_piles, pair_and_agree, pair_corners, pile_boxes, split_boxes, split_sides
from .models.reader import DEFAULT_READER, IndexReader
from .models.stacks import DEFAULT_STACKS, StackChecker
from .models.detector import CardDetector, ModelError, NegativeDetector
from .photo_checks import check_one_corner_cards, check_stacks, check_strips, join_one_corner_pairs
from .piles import group_piles, hand_pile
from .scales import ReadOnce, box_conf, find_boxes
from .types import Detections, PhotoReading, SideReading, TableReading, box_iou, index_centres, index_sizes, unread_mask


class NoCardsError(HandFootError, ValueError):
    """A photo in which no card corner index was found (not a table photo, too dark, too blurred or too far)."""



def detect(image: np.ndarray, detector: CardDetector, reader: IndexReader | None = None,
           config: VisionConfig = DEFAULT) -> Detections:
    """Stage 1: the boxes the detector finds in a (H, W, 3) BGR image over the pyramid (xyxy photo pixels),
    with the index reader's probabilities of each as data columns ``rank_p`` (n, 15) and ``suit_p`` (n, 4).

    Without the reader the boxes are the detector's named indices down to the reading floor. With it, boxes
    are found across codes down to :attr:`~vision.config.Reading.candidate_conf` (a one-class detector, whose
    unsure boxes the fans may take back) or to :func:`vision.scales.box_conf`.

    The photo's negative (255 - each pixel: a deck printed light on dark paper, seen as the dark-on-light indices
    the models learned) is read instead when ``detector`` is a :class:`vision.models.detector.NegativeDetector` (a deck
    profile's), or when the photo shows fewer sure boxes than :attr:`~vision.config.Reading.negative_below` and its
    negative :attr:`~vision.config.Reading.negative_shows` or more; a ``negative`` data column (n,) bool then says
    so (:func:`seen_negative`), and the later stages (the stack checks, :func:`detect_again`) read the negative too.
    """
    sure = box_conf(detector, reader, config)
    one_class = not getattr(detector, "names_cards", True)
    floor = min(sure, config.reading.candidate_conf) if reader is not None and one_class else sure
    negative = isinstance(detector, NegativeDetector)
    if negative:
        image, detector = 255 - image, detector.detector
    once = ReadOnce(reader) if reader is not None else None  # the pyramid reads its sure boxes; not twice
    found = find_boxes(detector, image, sure, floor, agnostic=reader is not None, config=config, reader=once)
    if not negative and int((found.confidence >= sure).sum()) < config.reading.negative_below:  # light on dark?
        flipped = 255 - image  # one array: the boxes its pyramid read are not read again below
        other = find_boxes(detector, flipped, sure, floor, agnostic=reader is not None, config=config, reader=once)
        if int((other.confidence >= sure).sum()) >= config.reading.negative_shows:
            found, image, negative = other, flipped, True
    data = {"negative": np.full(len(found), negative)} if negative else {}
    if reader is None:
        return found.with_data(**data)
    rank_p, suit_p = once.probabilities(image, found.xyxy)
    return Detections(found.xyxy, found.confidence, found.class_id, {"rank_p": rank_p, "suit_p": suit_p, **data})


def seen_negative(found: Detections) -> bool:
    """Whether :func:`detect` found and read these boxes in the photo's negative (light print on dark paper)."""
    return bool(len(found) and "negative" in found.data and found.data["negative"].any())


def detect_again(image: np.ndarray, before: Detections, regions: np.ndarray, detector: CardDetector,
                 reader: IndexReader | None = None, config: VisionConfig = DEFAULT,
                 before_image: np.ndarray | None = None) -> Detections:
    """Stage 1 again in changed ``regions`` only ((k, 4) xyxy pixels of ``image``, not overlapping): the boxes of
    ``before`` (:func:`detect` of an earlier frame of the same view) whose centre lies outside every region (each
    grown by :attr:`~vision.config.Pyramid.region_grow` index sizes), and :func:`detect`'s boxes of each region,
    found in the region cut out with :attr:`~vision.config.Pyramid.region_context` index sizes around it, whose
    centre lies inside it. A new box overlapping an old one (IoU over :attr:`~vision.config.Pyramid.agnostic_iou`,
    the pyramid's own "one index per place") is that index found again: it replaces the old box and votes
    (:func:`_voted`; the ``votes`` data column counts the readings that saw each box). With ``before_image`` (the
    frame ``before`` was found in), an old box found no more is kept when it is covered rather than gone
    (:func:`_covered`). A region's enlarged pass covers the whole cut-out (it is already where cards changed).
    When ``before`` was seen in the photo's negative (:func:`seen_negative`), the regions are read in the negative
    too. Most confident first, as :func:`detect`'s."""
    p = config.pyramid
    whole = config.replace(**{"pyramid.enlarge_whole_share": 0.0})  # a region is already where cards changed
    negative = seen_negative(before)
    if negative:  # a deck read as its negative: its regions too (a card laid alone shows too few to switch)
        image = 255 - image
        before_image = None if before_image is None else 255 - before_image
        detector = detector.detector if isinstance(detector, NegativeDetector) else detector  # turned once
    h, w = image.shape[:2]
    sizes = index_sizes(before.xyxy) if len(before) else np.zeros(0)
    size = float(np.median(sizes)) if len(sizes) else 0.0
    pad = max(p.region_min_context, p.region_context * size)
    centres = index_centres(before.xyxy)
    inside = np.zeros(len(before), bool)
    parts = []
    grown = np.asarray(regions, np.float64).reshape(-1, 4) + p.region_grow * size * np.array([-1, -1, 1, 1])
    for x1, y1, x2, y2 in grown:
        inside |= (centres[:, 0] >= x1) & (centres[:, 0] < x2) & (centres[:, 1] >= y1) & (centres[:, 1] < y2)
        cx1, cy1 = max(0, int(x1 - pad)), max(0, int(y1 - pad))
        cx2, cy2 = min(w, int(np.ceil(x2 + pad))), min(h, int(np.ceil(y2 + pad)))
        found = detect(np.ascontiguousarray(image[cy1:cy2, cx1:cx2]), detector, reader, whole)
        if not len(found):
            continue
        found = found.shifted(cx1, cy1)
        c = index_centres(found.xyxy)
        parts.append(found[(c[:, 0] >= x1) & (c[:, 0] < x2) & (c[:, 1] >= y1) & (c[:, 1] < y2)])
    new = Detections.merge(parts)
    iou = box_iou(before.xyxy, new.xyxy)
    same = iou > p.agnostic_iou  # (old, new): one index, found again
    new = _voted(before, new, iou, config)
    again = same.any(axis=1)
    keep = ~inside & ~again
    if before_image is not None and (inside & ~again).any():
        fresh = new[~same.any(axis=0) & (new.confidence >= config.reading.finder_box_conf)]
        keep |= _covered(before, inside & ~again, fresh, image, before_image, size, config)
    old = before[keep]
    if len(old) and "votes" not in old.data:
        old = old.with_data(votes=np.ones(len(old), np.int64))
    merged = Detections.merge([old, new])
    if negative and len(merged):
        merged = merged.with_data(negative=np.ones(len(merged), bool))
    return merged[np.argsort(-merged.confidence, kind="stable")] if len(merged) else merged


def _covered(before: Detections, gone: np.ndarray, fresh: Detections, image: np.ndarray, before_image: np.ndarray,
             size: float, config: VisionConfig) -> np.ndarray:
    """(n,) bool: which boxes of ``before`` marked ``gone`` are covered rather than gone. The table's colours are
    those of ``before_image`` away from every card (each index grown by
    :attr:`~vision.config.Pyramid.region_context` index sizes), per channel from the 2nd to the 98th percentile; a
    box is covered when under :attr:`~vision.config.Pyramid.covered_table_share` of the pixels around it (one
    index size) in ``image`` have them, and no ``fresh`` index (a sure box where none was before) lies within
    :attr:`~vision.config.Pyramid.covered_reach` index sizes. Without enough table to see, nothing is covered."""
    p = config.pyramid
    out = np.zeros(len(before), bool)
    h, w = before_image.shape[:2]
    step = max(1, w // 320)  # colours measured on every step-th pixel
    table = np.ones((h, w), bool)
    reach = p.region_context * size
    for x1, y1, x2, y2 in before.xyxy:
        table[max(0, int(y1 - reach)):int(y2 + reach), max(0, int(x1 - reach)):int(x2 + reach)] = False
    pixels = before_image[::step, ::step][table[::step, ::step]]
    if len(pixels) < 200:
        return out
    lo, hi = np.percentile(pixels, 2, axis=0), np.percentile(pixels, 98, axis=0)
    fresh_c, centres = index_centres(fresh.xyxy), index_centres(before.xyxy)
    for i in np.flatnonzero(gone):
        x1, y1, x2, y2 = before.xyxy[i]
        if len(fresh_c) and (np.hypot(*(fresh_c - centres[i]).T) < p.covered_reach * size).any():
            continue  # a card laid over it
        patch = image[max(0, int(y1 - size)):int(y2 + size), max(0, int(x1 - size)):int(x2 + size)].reshape(-1, 3)
        like_table = ((patch >= lo) & (patch <= hi)).all(axis=1).mean() if len(patch) else 1.0
        out[i] = like_table < p.covered_table_share
    return out


def _voted(before: Detections, new: Detections, iou: np.ndarray, config: VisionConfig) -> Detections:
    """``new`` with a ``votes`` data column (n,): the readings that saw each box. A new box that is an old one
    found again (``iou`` (len(before), len(new)) over :attr:`~vision.config.Pyramid.agnostic_iou`; the most
    overlapping one when several) takes the mean of the reader's probabilities over the earlier readings (at most
    :attr:`~vision.config.Pyramid.vote_max`) and this one."""
    if not len(new) or "rank_p" not in new.data:
        return new
    data = {**new.data, "votes": np.ones(len(new), np.int64)}
    same = iou > config.pyramid.agnostic_iou
    if same.any() and "rank_p" in before.data:
        old_votes = before.data.get("votes", np.ones(len(before), np.int64))
        rank_p, suit_p = data["rank_p"].copy(), data["suit_p"].copy()
        for k in np.flatnonzero(same.any(axis=0)):
            i = int(iou[:, k].argmax())
            w = min(int(old_votes[i]), config.pyramid.vote_max)
            rank_p[k] = (before.data["rank_p"][i] * w + rank_p[k]) / (w + 1)
            suit_p[k] = (before.data["suit_p"][i] * w + suit_p[k]) / (w + 1)
            data["votes"][k] = w + 1
        data.update(rank_p=rank_p, suit_p=suit_p)
    return new.with_data(**data)


def read_indices(found: Detections, one_class: bool = True,
                 config: VisionConfig = DEFAULT) -> tuple[Detections, Detections]:
    """Stage 1b: the corner indices read from the boxes of :func:`detect`.

    Boxes with the reader's probabilities are read by them: with the fans' help for a one-class detector
    (:func:`vision.completion.read_with_fans`), else each alone (:func:`vision.completion.relabelled`).
    Boxes without them are named already (a detector naming card codes, or true boxes) and kept from the reading
    floor up.

    Returns:
        (the read indices, most confident first; the found boxes that no read index covers, with their data
        columns (:func:`vision.types.unread_mask`): where an index may be that could not be read; empty unless
        the boxes were read with the fans' help).
    """
    if "rank_p" not in found.data:
        return found[found.confidence >= config.reading.min_conf], Detections.empty()
    rank_p, suit_p = found.data["rank_p"], found.data["suit_p"]
    if not one_class:
        return relabelled(found, rank_p, suit_p, config.reading.min_conf), Detections.empty()
    read = read_with_fans(found, rank_p, suit_p, config=config)
    return read, found[unread_mask(found.xyxy, read.xyxy, config)]


def jokers_alone(read: Detections, config: VisionConfig = DEFAULT) -> bool:
    """Whether the indices read in a photo (:func:`read_indices`) are jokers with fewer than
    :attr:`~vision.config.Reading.jokers_beside` indices of another rank beside them. A joker's corner mark differs
    from deck to deck (a star, a jester, the word), and the reader names a joker what is no rank it knows: a chart's
    labels, a page's text, a mug on a table. A table shows cards of natural ranks; a photo of nothing but jokers is
    read as no cards (:func:`read_image`)."""
    jokers = int((read.class_id == CLASS_ID["JK"]).sum())
    return jokers > 0 and len(read) - jokers < config.reading.jokers_beside


def read_image(image: np.ndarray, detector: CardDetector | None = None, reader: IndexReader | None = None,
               stacks=None, *, team: str = "A", source: str = "", split: str | None = None,
               teams: tuple[str, str] | None = None, hand: bool = False, found: Detections | None = None,
               config: VisionConfig = DEFAULT) -> list[SideReading]:
    """The camera pipeline on one (H, W, 3) BGR photo, stages 1 to 4 in order (see the module docstring).

    ``found`` (the value of :func:`detect`) skips stage 1, so ``detector`` may then be None. The photo is one ``team``'s
    side; with ``split`` (``horizontal`` or ``vertical``) the whole table, split between ``teams``
    (:func:`vision.instances.split_sides`); with ``hand`` a photo of a player's hand or foot, every card in it a card
    left (:func:`vision.piles.hand_pile`). With a :class:`vision.models.stacks.StackChecker` every single whole
    card read as a squared book's marker is checked for a stack under it, and a loose card seen by one corner whose
    other corner has an unread box too. A photo read as nothing but jokers (:func:`jokers_alone`) is read as one
    without cards (every side's detections empty), a hand photo too.

    Raises:
        ValueError: an unknown ``split``.
    """
    if found is None:
        found = detect(image, detector, reader, config)  # 1
    if seen_negative(found):  # light print on dark paper: the stack checks see the negative too
        image = 255 - image
    one_class = detector is None or not getattr(detector, "names_cards", True)
    read, unread_found = read_indices(found, one_class, config)  # 1b
    if jokers_alone(read, config):  # text, a chart, a mug: no table
        read, unread_found = read[:0], unread_found[:0]
    unread = np.asarray(unread_found.xyxy, np.float32)  # where an index may be that could not be read (stages 3a, 3b)
    unread_ranks = unread_found.data.get("rank_p")  # the reader's rank probabilities of each, rows as unread's
    cards = None
    if "suit_p" in read.data:  # 2: read with the fans' help, so one card's two indices take one suit
        read, cards = pair_and_agree(read, read.data["suit_p"], config=config)
    if hand:
        cards = pair_corners(read, one_fan=True, config=config)  # 2: one fan, its top card whole
        return [SideReading(team, read, cards, hand_pile(cards, config=config), source, hand=True)]  # 3
    if split:
        h, w = image.shape[:2]
        names = dict(zip(("A", "B"), teams or ("A", "B")))
        cards = pair_corners(read, config=config) if cards is None else cards
        parts = split_sides(read, w, h, split, cards=cards, config=config)
        boxes = split_boxes(unread, w, h, split)
        ranks = split_boxes(unread, w, h, split, unread_ranks) if unread_ranks is not None else dict.fromkeys("AB")
        over = crossing_piles(group_piles(cards, config=config), w, h, split)
        crossing = set().union(*(pile_boxes(p, read.xyxy) for p in over))
        note = split_note(len(over), split)
        sides = [(names[t], d, boxes[t], ranks[t], None) for t, d in parts.items() if len(d)]  # each half alone
    else:
        sides, crossing, note = [(team, read, unread, unread_ranks, cards)], set(), None
    out = []
    for name, dets, left_unread, left_ranks, paired in sides:
        cards = pair_corners(dets, config=config) if paired is None else paired  # 2
        piles = fill_fan_gaps(group_piles(cards, config=config), config=config)  # 3, 3a
        if len(unread_found):
            piles = read_top_cards(piles, unread_found, config=config)  # 3a: a top card by its unread corners
            piles = read_fan_boxes(piles, unread_found, config=config)  # 3a: a card at its fan's next place (off)
        if config.fan_gaps.strip_notes:
            piles = check_strips(piles, image, config=config)  # 3a: the fans' edges, a second count
        if crossing:
            piles = [replace(p, notes=p.notes + (CUT_NOTE,)) if pile_boxes(p, dets.xyxy) & crossing else p
                     for p in piles]
        if stacks is not None:  # 3b
            piles = check_stacks(piles, image, stacks, config=config)
            piles = check_one_corner_cards(piles, left_unread, image, stacks, rank_p=left_ranks, config=config)
            piles = join_one_corner_pairs(piles, image, stacks, config=config)
        out.append(SideReading(name, dets, cards, piles, source, split_note=None if out else note))
    return out


def split_note(crossing: int, split: str) -> str | None:
    """The note on a split photo when ``crossing`` of its piles (:func:`vision.instances.crossing_piles`, counted on
    the whole photo) lie over the ``split`` line: each team's cards lie on its own side of a whole-table photo, so a
    pile over the middle more often means a photo of one side read as two (or the teams sit the other way), or None
    when none crosses."""
    if not crossing:
        return None
    other, sides = ("vertical", "left and right") if split == "horizontal" else ("horizontal", "top and bottom")
    piles = "1 pile lies" if crossing == 1 else f"{crossing} piles lie"
    return (f"{piles} across the middle line between the teams, where cards do not usually lie: if this photo shows "
            f"only one team's side, read it without a split; if the teams sit {sides} in it, split it {other}ly")


def read_photos(paths: list[Path], detector: CardDetector, teams: list[str] | None = None,
                split: str | None = None, reader: IndexReader | None = None, stacks=None,
                config: VisionConfig = DEFAULT) -> list[PhotoReading]:
    """Read every photo file with :func:`read_image`: photo *k* is team ``teams[k]`` (default ``A``, ``B``, ...);
    with ``split`` exactly one photo of the whole table, split between the first two ``teams``.

    Raises:
        vision.images.ImageError: a file that is missing, corrupt, truncated, not an image or too large.
        NoCardsError: a photo with no card found.
        ValueError: ``split`` with more than one photo, or fewer team names than sides to name.
    """
    teams = teams or [chr(ord("A") + i) for i in range(max(len(paths), 2 if split else 1))]
    if split and len(paths) != 1:
        raise ValueError("--split reads one photo of the whole table; give exactly one photo")
    if len(teams) < (2 if split else len(paths)):
        raise ValueError(f"{counted(2 if split else len(paths), 'team')} to name but only "
                         f"{counted(len(teams), 'team name')} given")
    out = []
    for path, team in zip(paths, teams):
        image = load_photo(path, config.pyramid.photo_side)
        sides = read_image(image, detector, reader, stacks, team=team, source=str(path), split=split,
                           teams=tuple(teams[:2]) if split else None, config=config)
        if not any(len(s.detections) for s in sides):
            raise NoCardsError(f"{path}: no cards found (is the whole table in the photo, in focus and lit?)")
        out.append(PhotoReading(Path(path), image, sides))
    return out


def read_hand_photos(hands: list[tuple[str, Path]], detector: CardDetector, reader: IndexReader | None = None,
                     config: VisionConfig = DEFAULT) -> list[PhotoReading]:
    """Read photos of players' hands or feet fanned face up: ``hands`` holds (team, path) pairs, and every card
    found in a photo is a card left for that team (``read_image(..., hand=True)``; no stack check).

    Raises:
        vision.images.ImageError: a file that is missing, corrupt, truncated, not an image or too large.
        NoCardsError: a photo with no card found.
    """
    out = []
    for team, path in hands:
        image = load_photo(path, config.pyramid.photo_side)
        sides = read_image(image, detector, reader, team=team, source=str(path), hand=True, config=config)
        if not len(sides[0].detections):
            raise NoCardsError(f"{path}: no cards found (in this photo of a hand; are the cards fanned face up, "
                               "in focus and lit?)")
        out.append(PhotoReading(Path(path), image, sides))
    return out


def load_models(model: str | Path | None = None,
                reader: str | Path | None = None) -> tuple[CardDetector, IndexReader | None]:
    """The detector and, when its model file exists (default ``models/reader.onnx``), the index reader. The
    reading thresholds are not the models' but the configuration's (:class:`vision.config.Reading`).

    Raises:
        FileNotFoundError: a model file that was asked for by name is missing.
        vision.models.detector.ModelError: a model file that cannot be loaded, or a one-class detector
            (:attr:`CardDetector.names_cards` False) without the reader.
    """
    reader_path = Path(reader) if reader else DEFAULT_READER
    use_reader = reader_path.is_file() or reader is not None
    detector = CardDetector(model) if model else CardDetector()
    if not use_reader and not detector.names_cards:
        raise ModelError(f"the detector {detector.model} finds corner indices without naming them; it needs the "
                         f"index reader ({reader_path} is missing)")
    return detector, (IndexReader(reader_path) if use_reader else None)


def load_stack_checker(model: str | Path | None = None):
    """The stack checker (default ``models/stacks.onnx``), or ``None`` when the default file is absent.

    Raises:
        FileNotFoundError: a model file that was asked for by name is missing.
        vision.models.detector.ModelError: a model file that cannot be loaded.
    """
    if model is None and not DEFAULT_STACKS.is_file():
        return None
    return StackChecker(model or DEFAULT_STACKS)


def table_of(photos: list[PhotoReading], rules: str, round_no: int, went_out: str | None,
             left: dict[str, list[list[str]]] | None = None) -> TableReading:
    """Stage 4: the table reading of all photos, with the round facts given on the command line."""
    return TableReading([s for p in photos for s in p.sides], rules, round_no, went_out, dict(left or {}))


def annotate(photo: PhotoReading, totals: list[str], labels: dict | None = None, text: bool = True,
             over: bool = False) -> np.ndarray:
    """The photo with corner boxes, pile outlines (kind and count) and the team totals drawn on it: (H + b, W, 3)
    uint8 BGR, the totals in a banner b px high added above the photo (:func:`vision.annotate.banner_height`).

    ``labels`` maps a pile to the text drawn for it (e.g. ``"clean book"``); default: the pile's kind. ``text``
    False: the boxes and outlines only, no card code, pile name or totals (the live view's page writes them,
    larger than a picture shrunk to a phone's width could), and the photo's size. ``over``: the banner drawn over
    the photo's top instead (the photo's size, as a video's frames need; no pile label goes under it).
    """
    img = photo.image
    top = banner_height(img, totals) if text and over else 0
    for side in photo.sides:  # outlines first, so that no outline crosses a card code drawn over it
        # without text the picture is shown shrunk to a phone's width: outlines about 2 px there (a 1280 px frame: 5)
        thickness = 2 if text else max(2, img.shape[1] // 240)
        img = PileAnnotator(names=text, thickness=thickness, top=top).annotate(img, side.piles, side.detections,
                                                                               labels)
        img = CornerAnnotator(codes=text).annotate(img, side.detections)
    return TotalsAnnotator(over=over).annotate(img, totals) if text else img
