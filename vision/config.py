"""Every threshold of the camera pipeline, in one frozen configuration object.

:class:`VisionConfig` holds one section per stage (:class:`Pyramid`, :class:`Reading`, :class:`FanGeometry`,
:class:`Completion`, :class:`Pairing`, :class:`Piles`, :class:`FanGaps`, :class:`Stacks`), and one for learning a
deck profile (:class:`Decks`). Each field says its unit
and what it does, once; the stages take the configuration as an argument (default :data:`DEFAULT`) and never
change it. Scripts and tests override fields with :meth:`VisionConfig.replace`::

    config = DEFAULT.replace(**{"pyramid.max_side": 1600, "reading.min_conf": 0.5})

Units: *index sizes* are multiples of a corner index's size (the square root of its box's area, pixels);
*card heights* multiples of a card's height in the photo (``vision.types.CardInstance.card_height``); *steps*
multiples of a fan's step (the distance between neighbouring cards' indices); confidences and probabilities are
0-1; angles are degrees. How each value was chosen is in ``models/HISTORY.md``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Pyramid:
    """Stage 1: the detector over the photo at the scales its indices need (``vision.scales``)."""

    #: the first pass's long side (pixels, a multiple of 32; the photo's own long side when that is smaller)
    probe_side: int = 1280
    #: no pass is smaller than this (pixels, long side)
    min_side: int = 320
    #: no pass is larger than this (pixels, long side)
    max_side: int = 2560
    #: a photo file larger than this (pixels, long side) is read at this size (``vision.images.load_photo``): no
    #: pass uses more, and the same table at 12 or 48 megapixels is then the same photo to every stage (the index
    #: reader's crops too, which a far larger photo would alias)
    photo_side: int = 2560
    #: a pass whose surest indices measure under this (pixels, median) is followed by a larger one, sized so that
    #: they measure this much ...
    target_index: float = 40.0
    #: ... and at least this many times the last pass's size (the detector also learned whole tables enlarged 2x)
    min_step: float = 2.0
    #: a first pass whose surest indices measure this or more (pixels, median) is followed by passes at half its
    #: size, while they do
    large_index: float = 40.0
    #: how many of a pass's most confident boxes measure its index size
    size_sample: int = 20
    #: with the index reader, a pass's sure box it takes for "no index" with at least this probability is not
    #: measured, nor grown into a card region: a table's wood grain or a card's art boxed with confidence is not
    #: the size of its indices
    size_none_max: float = 0.5
    #: fewer sure boxes than this in a pass cannot measure the index size (no larger pass follows)
    min_sample: int = 3
    #: no pass enlarges the photo more than this factor
    max_enlarge: float = 2.0
    #: a larger pass covers only where the previous one found cards: its sure indices grown by this many index
    #: sizes (about a card's height around each), overlapping rectangles joined (``vision.scales.card_regions``)
    enlarge_context: float = 4.0
    #: ... and the whole photo when those regions cover more than this share of it (0-1; 1 = regions always)
    enlarge_whole_share: float = 0.6
    #: boxes found across codes overlapping more than this (IoU) are one index (one index seen at two scales
    #: can come back as two boxes that overlap less than the usual 0.5; neighbouring indices do not overlap)
    agnostic_iou: float = 0.3
    #: per-code non-maximum suppression (IoU) of a detector that names card codes
    iou: float = 0.5
    #: a changed region read again alone (:func:`vision.pipeline.detect_again`) is grown by this much on each side
    #: (index sizes: a card laid over another changes little where white meets white)
    region_grow: float = 2.0
    #: ... and cut out with this much more of the photo around it (index sizes: whole cards, so that its boxes are
    #: found and read as in the whole photo)
    region_context: float = 4.0
    #: ... and at least this much (pixels)
    region_min_context: int = 96
    #: an index found again (:func:`vision.pipeline.detect_again`) is read by the mean of the reader's
    #: probabilities over the readings that saw it, at most this many earlier ones (a misread in one frame does
    #: not flip it; a card really changed there wins within a few)
    vote_max: int = 5
    #: an index no longer found in a changed region has visibly left when at least this share of the pixels
    #: around it look like the table (the colours of the earlier frame away from every card); else it is covered
    #: (a hand resting over it) and kept
    covered_table_share: float = 0.5
    #: ... unless a new index appeared within this many index sizes of it (a card laid over it)
    covered_reach: float = 6.0


@dataclass(frozen=True)
class Reading:
    """Stage 1-1b: which boxes are read, and how sure a reading must be (``vision.scales``, ``vision.completion``)."""

    #: the reading floor: a read index whose confidence is under this is dropped (0-1; ``--conf``)
    min_conf: float = 0.35
    #: with the index reader, a detector naming card codes keeps boxes down to this confidence for reading
    reader_box_conf: float = 0.05
    #: the same for a one-class detector (an index finder), whose confidence is that of "an index" and runs
    #: higher: a box needs this to be read alone
    finder_box_conf: float = 0.5
    #: boxes down to this detector confidence are candidates the fans may take back
    candidate_conf: float = 0.1
    #: a box the detector found is "unread" when no read index covers it by this IoU or more
    unread_iou: float = 0.3
    #: a photo in which the pyramid finds fewer sure boxes than this (a single card shows two) is looked at again
    #: as its negative (255 - each pixel: a deck printed light on dark paper shows the dark-on-light indices the
    #: models learned; 0: never) ...
    negative_below: int = 2
    #: ... and read so when the negative shows at least this many sure boxes (a table's cards; fewer may be a
    #: card's art: the stars of a real joker's hat show five)
    negative_shows: int = 8
    #: a photo's jokers are read only beside at least this many indices read as another rank: a joker's corner mark
    #: differs from deck to deck, so text, a chart or a mug is read as jokers; nothing but jokers is no table (0: any)
    jokers_beside: int = 1
    #: a photo whose indices measure under this (median, pixels) gets a note: too far away to read reliably
    readable_index: float = 16.0


@dataclass(frozen=True)
class FanGeometry:
    """What makes indices one fan, used by every stage that asks (``vision.geometry``)."""

    #: indices of one fan differ in size by at most this factor
    size_ratio: float = 1.4
    #: inside a fan: two neighbours on opposite sides within this many index sizes (fan steps: 1.1-1.8) ...
    inside_reach: float = 2.0
    #: ... at distances within this factor of each other ...
    inside_even: float = 1.25
    #: ... in directions within this many degrees of opposite
    inside_angle: float = 15.0
    #: a point continues a fan when it lies within this many steps of one step beyond its end
    step_tolerance: float = 0.3
    #: a second box this close (index sizes) to a read index is a box on the same index
    separation: float = 0.55


@dataclass(frozen=True)
class Completion:
    """Stage 1b: boxes read with the fans' help (``vision.completion``, ``vision.fan_chains``)."""

    #: read neighbours within this many index sizes say which fan a candidate continues
    near: float = 4.0
    #: the reader's probability of the fan's rank, a two or a joker a candidate needs to be taken back
    candidate_p: float = 0.2
    #: candidates taken back may support more: this many passes
    rounds: int = 2
    #: a box the detector was unsure of is taken back as a joker when the reader gives a joker at least this ...
    joker_p: float = 0.95
    #: ... and the nearest read index that is not a joker lies within this many of its index sizes
    joker_near: float = 2.0
    #: settling a rank by its fan: the fan's rank (or a wild) needs this fraction of the reader's best rank's
    #: probability
    settle_min_ratio: float = 0.1
    #: settling ranks: a settled index may settle another, this many passes
    settle_rounds: int = 2
    #: settling ranks: boxes nearer than this (index sizes) to the index are itself or a second box on it, not
    #: neighbours
    settle_min_distance: float = 0.3
    #: a chain of unread boxes holds at least this many boxes
    chain_min_length: int = 3
    #: a chain's next box within this many steps of where it continues
    chain_tolerance: float = 0.4
    #: boxes the reader takes for "no index" with at least this probability are never in chains
    chain_none_max: float = 0.5
    #: boxes down to this detector confidence can be in a chain
    chain_conf: float = 0.3
    #: a read index this close (index sizes) to a chain's box, not where the chain continues, leaves it unread
    chain_beside: float = 1.2
    #: chain boxes measure at least this fraction of the median size of the photo's read indices
    chain_min_size_ratio: float = 0.5
    #: ... and at most this multiple of it (a wooden table's stripes boxed as indices four times their size)
    chain_max_size_ratio: float = 2.5
    #: a photo with more unread boxes than this is read without chains (a pattern, not fans)
    chain_max_candidates: int = 600
    #: a natural rank read this many times elsewhere in the photo is not a chain's rank
    chain_melded: int = 3
    #: a chain's box is read as a wild when the reader gives that wild more than the chain's rank and this much
    chain_wild_p: float = 0.5
    #: a chain's step lies in this range of index sizes
    chain_step: tuple[float, float] = (0.55, 3.0)


@dataclass(frozen=True)
class Pairing:
    """Stage 2: a card's two corner indices paired into one card instance (``vision.instances``)."""

    #: pairing range of centre distance / index size (1st-99th percentile of true pairs, widened)
    pair_range: tuple[float, float] = (1.2, 9.0)
    #: isolated pairs under this ratio mean a deck with big indices (big-index decks' pairs: 1.3-2.4; standard: 2.7-7)
    big_index_ratio: float = 2.6
    #: with standard indices, pairs under this ratio are fan steps, not card diagonals
    standard_min_ratio: float = 2.4
    #: a pair's ratio may differ from the photo's typical ratio by this factor at most
    pair_tolerance: float = 1.45
    #: typical distance / index size of a card's two indices when no isolated pair measures it
    pair_typical: float = 4.2
    #: a third index closer than this (index sizes) to the inner part of a segment vetoes the pair
    segment_clearance: float = 0.8
    #: an index this close (index sizes) to where a fan would continue the segment vetoes the pair
    chain_tolerance: float = 0.8
    #: a joker's size is taken from this many of the nearest natural indices
    joker_size_neighbours: int = 4
    #: candidate pairs of one connected group searched for the best matching (more are paired greedily)
    match_max: int = 14
    #: weight of the spread of a matching's ratios against their distance from typical
    match_spread: float = 2.0
    #: an index with no other index nearer than this many index sizes lies alone
    lone_reach: float = 2.0
    #: four-index cards: the two halves' midpoints within this many index sizes ...
    rect_midpoint: float = 0.5
    #: ... lengths within this fraction of each other ...
    rect_length: float = 0.1
    #: ... of this range of index sizes ...
    rect_diagonal: tuple[float, float] = (2.5, 5.0)
    #: ... and pairs along opposite edges at least this many fan steps apart
    rect_min_steps: float = 1.3
    #: a joker's four corner marks (aguilar's stars, at the card's corners) are one card: diagonals within this
    #: range of the naturals' index sizes ...
    joker_rect_diagonal: tuple[float, float] = (2.5, 7.0)
    #: ... lengths within this fraction of each other (a card at an angle to the camera is a parallelogram) ...
    joker_rect_length: float = 0.3
    #: ... and its shorter side at least this many index sizes long (two jokers side by side in a fan, each
    #: showing its strip's two marks, lie one step apart)
    joker_rect_apart: float = 2.0
    #: ladders of pairs: parallel within this many degrees ...
    ladder_angle: float = 10.0
    #: ... and of lengths within this fraction of each other
    ladder_length: float = 0.15
    #: a photo needs this many pairs, half of them rungs, to be read as a four-index deck's fans
    ladder_min_pairs: int = 3
    #: suits are agreed while a round changes one, at most this many rounds
    agree_rounds: int = 3
    #: index-centre diagonal / card height
    diagonal_per_height: float = 0.925
    #: a card's two indices differ in size by at most this factor (box sizes)
    pair_size_ratio: float = 1.6
    #: the inner part of a segment that ``segment_clearance`` guards (fractions of its length, exclusive): an index
    #: beside the segment's ends is not between the two indices
    segment_inner: tuple[float, float] = (0.1, 0.9)
    #: four-index cards: no other index within this many index sizes outside the rectangle (the indices of the
    #: cards between two cards of a fan lie on its sides)
    rect_margin: float = 0.5
    #: ladders of pairs: rungs side by side, midpoints within this many pair lengths of each other ...
    ladder_reach: float = 1.0
    #: ... and offset along the pairs' direction by at most this fraction of the midpoints' distance
    ladder_offset: float = 0.5


@dataclass(frozen=True)
class Piles:
    """Stage 3: cards grouped into melds, squared books, red threes and hands (``vision.piles``)."""

    #: link distance between compatible cards (card heights)
    link_meld: float = 0.55
    #: link distance between clusters of different ranks (card heights)
    link_mixed: float = 0.42
    #: a step this many times a fan's median step is noted as a possible boundary between two piles
    gap_factor: float = 2.0
    #: an index of another rank this close to the segment between two cards of one rank (segment lengths) makes
    #: them a fanned hand
    between_clearance: float = 0.35
    #: a cluster of wilds this large is a meld of its own
    wild_meld: int = 3
    #: a card continues a meld's line within this angle (degrees) of its direction beyond its end card ...
    line_angle: float = 20.0
    #: ... at this range of the meld's median step
    line_step: tuple[float, float] = (0.6, 1.6)
    #: a card seen whole also links through its second index within this factor of the first's distance
    anchor_slack: float = 1.5
    #: a card read under this confidence is noted as low confidence
    low_conf: float = 0.5
    #: the inner part of a segment where an index of another rank lies between two cards (fractions of its length,
    #: exclusive; ``between_clearance``)
    between_span: tuple[float, float] = (0.15, 0.85)
    #: a meld needs this many cards before its median step can note a gap (``gap_factor``)
    gap_min_cards: int = 4
    #: red threes none of which shows both corners are noted: the row's top card is not seen (False: never)
    threes_unseen_note: bool = True


@dataclass(frozen=True)
class FanGaps:
    """Stage 3a: cards of a fan whose index was not read, counted from the fan's steps (``vision.fans``)."""

    #: a meld needs this many cards before its median step can tell a gap from its usual step
    min_cards: int = 4
    #: a step of these multiples of the fan's median step holds one, two unread cards (inclusive ranges)
    gap_steps: tuple[tuple[float, float], ...] = ((1.7, 2.35), (2.6, 3.4))
    #: ... only in a fan whose other steps all lie in this range of its median step
    regular: tuple[float, float] = (0.7, 1.4)
    #: a fan's first or last step is a gap too when the end card beside it is seen whole (both corners paired)
    fill_whole_ends: bool = True
    #: two melds of one rank are one fan when one continues the other's line at these multiples of its step ...
    join_steps: tuple[float, float] = (1.7, 3.4)
    #: ... within this angle (degrees) of its direction beyond its end card
    join_angle: float = 15.0
    #: a pile of a meld's rank whose end card lies on its line at these multiples of its step joins it
    near_steps: tuple[float, float] = (0.7, 1.4)
    #: a loose card this close (card diagonals) to one diagonal from the meld's next card is that card's far corner
    far_corner_tolerance: float = 0.25
    #: an inner card of a meld whose two neighbours lie at most this many median steps apart is not the fan's
    #: (``vision.fans``)
    stray_bridge: float = 1.4
    #: ... and whose own two steps add up to at least this many times that distance (it lies off the fan's path)
    stray_detour: float = 1.5
    #: a loose card of a meld's end card's code this close (card diagonals) to one diagonal from it is its far corner
    end_corner_tolerance: float = 0.35
    #: a meld showing no card whole takes its top card from two unread boxes a card's diagonal apart, one of them
    #: at these multiples of the step beyond an end card (``vision.fans``) ...
    top_steps: tuple[float, float] = (0.7, 2.0)
    #: ... within this angle (degrees) of the fan's direction there ...
    top_angle: float = 25.0
    #: ... of a size within this factor of the fan's indices (a joker's corner mark is drawn smaller)
    top_size_ratio: float = 1.7
    #: ... within this angle instead when the reader gives the box a joker's mark with this probability or more
    top_joker_angle: float = 35.0
    top_joker_p: float = 0.9
    #: ... or, with no such pair, from one unread box a card's diagonal (``far_corner_tolerance``) from the fan's next
    #: place, which the reader gives the fan's rank, a two or a joker with this probability or more (over 1: never)
    top_far_p: float = 0.9
    #: a meld's card is counted from a box no read index covers (``vision.completion``) where the fan places one:
    #: its centre within this many of the fan's steps of one step beyond an end card, or of the middle of a step
    #: ``box_gap`` times the fan's median step ...
    box_reach: float = 0.35
    #: ... (False: in gaps only, never beyond an end card)
    box_ends: bool = True
    box_gap: tuple[float, float] = (1.7, 2.35)
    #: ... its size within this factor of the fan's indices' (the detector's box on an unsure index is often loose) ...
    box_size_ratio: float = 1.7
    #: ... and the reader's probability of the fan's rank, a two or a joker (the likeliest of them) at least this
    #: (over 1: never, the default)
    box_p: float = 2.0
    #: ... a joker at least this (a joker's face beside a fan shows marks the detector boxes)
    box_joker_p: float = 0.9
    #: read each fan's edges as a second count and note a fan whose edges show more cards (``vision.photo_checks``)
    strip_notes: bool = True
    #: a fan's edges are read when it has this many read cards
    strip_min_cards: int = 3
    #: ... up to this many steps beyond its bottom card
    strip_before: int = 2
    #: ... in a band from half an index size to this many card heights beside its line of indices
    strip_across: float = 0.45
    #: ... when the read cards' median edge strength (grey levels per px, median over the band) is at least this
    strip_min_strength: float = 5.0
    #: a card's edge is seen where the profile reaches this share of the read cards' median edge strength
    strip_seen: float = 1.0
    #: ... and a strip beyond the bottom card is a card's when its median brightness is within this of the fan's own
    #: strips' (grey levels)
    strip_bright: float = 60.0
    #: the band beside a fan this many steps before its bottom card's edge is looked at for what covers it ...
    strip_covered_steps: float = 1.5
    #: ... and covered when under this share of its pixels have the table's colours (0 steps: never looked at)
    strip_table_share: float = 0.5
    #: ... the table's colours sampled in a strip of this share of each side along the photo's border
    strip_table_border: float = 0.05
    #: ... and a pixel there is a card's (white paper) when its B, G, R shares of their sum lie within this distance
    #: of grey's (1/3 each) and its grey within ``strip_bright`` of the fan's strips'
    strip_card_chroma: float = 0.15


@dataclass(frozen=True)
class Stacks:
    """Stage 3b: a single whole card is a squared book's marker or a loose card (``vision.photo_checks``)."""

    #: under this probability of a stack a single whole card is loose
    loose_below: float = 0.5
    #: up to this probability a marker keeps its reading with a note
    unsure: float = 0.8
    #: a card seen by one corner is a marker only when the checker is at least this sure
    one_corner_min: float = 0.8
    #: no read index within this many index sizes of the segment between the two corners (its inner 10-90 %; the
    #: unread corner's size is within :attr:`FanGeometry.size_ratio` of the read one's)
    one_corner_clearance: float = 0.8
    #: two loose cards seen by one corner each, a diagonal apart over a stack, are one marker read as two ranks
    #: (``vision.photo_checks.join_one_corner_pairs``)
    one_corner_pairs: bool = True
    #: a single whole card the checker reads as loose, with a probability of a stack of at least this, stays a
    #: marker when its outline lies ``edge_offset`` or more off its centre (``vision.stack_edges``); 1: never, the
    #: default (0.2 found more squared books on generated tables, no more exact scores, and took a loose card on a
    #: real photo for a marker: ``models/HISTORY.md``, 2026-12-04)
    edge_p_min: float = 1.0
    #: ... that far: how much farther the card's paper reaches on one side than on the opposite one (card heights)
    edge_offset: float = 0.03
    #: the outline's profiles: each the mean across this share of its side's length either way of the side's middle
    edge_band: float = 0.25
    #: ... from this share of the card's half-height (half-width) from its centre outwards ...
    edge_start: float = 0.6
    #: ... to this many card heights from the centre across the card's short sides (top and bottom) ...
    edge_reach_long: float = 0.65
    #: ... and this many across its long sides (a card is 0.63-0.72 of its height wide)
    edge_reach_short: float = 0.52
    #: a profile's background: the median of its last this many values (pixels of the 240-pixel upright crop)
    edge_background_px: int = 5
    #: two opposite profiles whose backgrounds differ by more than this (grey levels) are not compared (a
    #: neighbour or clutter on one side)
    edge_background_tol: float = 30.0
    #: a profile whose card differs from its background by less than this (grey levels) has no outline to find
    edge_contrast: float = 25.0


@dataclass(frozen=True)
class Decks:
    """Learning a deck profile: its frame correction (``vision.deck_frames``), learned when ``vision.decks.learn``
    runs with the detector."""

    #: a detector box on an example photo pairs with the labelled corner-index box it overlaps most, when by this
    #: IoU or more (0-1)
    frame_iou: float = 0.3
    #: an orientation (tall or wide boxes) with fewer pairs than this takes the medians of both pooled; with fewer
    #: pairs in all, the frame is the identity (no box is changed)
    frame_min_pairs: int = 10


@dataclass(frozen=True)
class VisionConfig:
    """The camera pipeline's thresholds, one section a stage (see the module docstring)."""

    pyramid: Pyramid = field(default_factory=Pyramid)
    reading: Reading = field(default_factory=Reading)
    fans: FanGeometry = field(default_factory=FanGeometry)
    completion: Completion = field(default_factory=Completion)
    pairing: Pairing = field(default_factory=Pairing)
    piles: Piles = field(default_factory=Piles)
    fan_gaps: FanGaps = field(default_factory=FanGaps)
    stacks: Stacks = field(default_factory=Stacks)
    decks: Decks = field(default_factory=Decks)

    def replace(self, **changes: Any) -> VisionConfig:
        """A copy with fields changed, named ``section.field`` (``DEFAULT.replace(**{"pyramid.max_side": 1600})``).

        Raises:
            ValueError: an unknown section or field.
        """
        sections: dict[str, dict[str, Any]] = {}
        for name, value in changes.items():
            section, _, key = name.partition(".")
            part = getattr(self, section, None) if section in _SECTIONS else None
            if part is None or key not in {f.name for f in dataclasses.fields(part)}:
                raise ValueError(f"unknown vision setting {name!r} (section.field, e.g. 'pyramid.max_side')")
            sections.setdefault(section, {})[key] = value
        return dataclasses.replace(self, **{s: dataclasses.replace(getattr(self, s), **kv)
                                            for s, kv in sections.items()})


_SECTIONS = {f.name for f in dataclasses.fields(VisionConfig)}

#: the shipped configuration
DEFAULT = VisionConfig()

#: how a photo of both teams' sides is cut in two (``--split``): left | right, or top / bottom
SPLITS = ("horizontal", "vertical")
