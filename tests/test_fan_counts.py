"""A fan's count. Stage 3a's first steps (``vision.fans``): a card beside a fan, off its step, is not counted
in it; a fan's top card whose far corner stage 2 left unpaired becomes one card seen whole (hand-made detections).
The second count from the fan's edges (``vision.photo_checks``, on a drawn fan)."""

import numpy as np
from sides import S, dets, fan, read_side  # noqa: E402

from vision.config import DEFAULT
from vision.fans import pair_far_corners
from vision.instances import pair_corners
from vision.piles import group_piles
from vision.types import CardInstance, Detections, Pile, PileKind


def kinds(piles):
    return sorted((p.kind.value, len(p.cards)) for p in piles)


def test_a_card_beside_a_fan_off_its_step_is_not_counted_in_it():
    # a book of seven tens, and a squared book's marker (10D seen whole) whose top index lies beside the fan,
    # between its third and fourth cards, a step off the fan's line
    items = fan(["10H", "10S", "10C", "10H", "10S", "10C", "10H"], 100, 100)
    marker = [("10D", 100 + 1.2 * S, 100 + 3.1 * S), ("10D", 100 + 1.2 * S + 2.6 * S, 100 + 3.1 * S + 3.3 * S)]
    cards = pair_corners(dets(items + marker))
    assert kinds(group_piles(cards)) == [("meld", 8)]  # stage 3 alone counts the marker in the fan
    piles = read_side(dets(items + marker)).piles
    assert kinds(piles) == [("meld", 7), ("squared_book", 1)]
    meld = next(p for p in piles if p.kind is PileKind.MELD)
    assert any(n.startswith("10D lies beside this fan") for n in meld.notes)  # the user is told


def test_every_card_of_a_regular_fan_stays_even_a_joker_off_its_line():
    # a joker's mark drawn off the naturals' line (half an index size) is still needed for the fan's step
    items = fan(["7H", "7S", "JK", "7C", "7H", "7D"], 100, 100)
    items[2] = ("JK", 100 + 0.5 * S, items[2][2])
    assert kinds(read_side(dets(items)).piles) == [("meld", 6)]


def one(code, x, y, det, height=90.0):
    """A card seen by one index centred at (x, y), detection number ``det``."""
    return CardInstance(code, (det,), np.array([[x, y]], np.float64), S, 0.9, height)


def test_a_fans_top_card_with_its_far_corner_left_unpaired_is_one_card():
    # stage 2 left the top card's far corner unpaired (photographed at an angle, its two indices lie 0.7 of the
    # diagonal the card's size gives apart): a loose 9C a little short of one diagonal from the fan's last 9C
    diagonal = 90.0 * DEFAULT.pairing.diagonal_per_height
    codes = ["9C", "9S", "9H", "9C", "9D", "9S", "9C"]
    fan_cards = tuple(one(c, 100 + 24 * k, 100, k) for k, c in enumerate(codes))
    far = 0.7 * diagonal * np.array([0.62, 0.79])  # the diagonal's direction, down and right
    meld = Pile(PileKind.MELD, fan_cards)
    loose = Pile(PileKind.LOOSE, (one("9C", *(fan_cards[-1].centers[0] + far), 7),))
    piles = pair_far_corners([meld, loose])
    assert [(p.kind, len(p.cards)) for p in piles] == [(PileKind.MELD, 7)]
    top = piles[0].cards[-1]
    assert top.code == "9C" and top.fully_visible and top.detections == (6, 7)
    # a nine of another suit there is another card; so is a 9C a whole diagonal and a half away: both stay
    other = Pile(PileKind.LOOSE, (one("9H", *(fan_cards[-1].centers[0] + far), 7),))
    assert len(pair_far_corners([meld, other])) == 2
    distant = Pile(PileKind.LOOSE, (one("9C", *(fan_cards[-1].centers[0] + far / 0.7 * 1.5), 7),))
    assert len(pair_far_corners([meld, distant])) == 2


def drawn_fan(n_cards, hidden_first, step=24, size=20.0, table=(60, 60, 60)):
    """A table of colour ``table`` (BGR; grey by default) with a fan of white cards cascading downwards (each card's
    top edge ``step`` px below the last's, a dark border line), and the index centres of the cards after the first
    ``hidden_first``."""
    import cv2

    image = np.full((600, 400, 3), table, np.uint8)
    height, width = 4.2 * size / 0.925, 0.69 * 4.2 * size / 0.925
    x0, y0 = 120, 80
    for k in range(n_cards):
        top = y0 + k * step
        cv2.rectangle(image, (x0, top), (int(x0 + width), int(top + height)), (235, 235, 235), -1)
        cv2.rectangle(image, (x0, top), (int(x0 + width), int(top + height)), (90, 90, 90), 1)
    centres = [(x0 + 0.094 * width, y0 + k * step + 0.6 * size) for k in range(n_cards)]
    far = (x0 + width - 0.094 * width, y0 + (n_cards - 1) * step + height - 0.6 * size)
    return image, [c for c in centres[hidden_first:]], far


def test_a_fans_edges_show_a_card_whose_index_is_covered():
    import cv2

    from vision.config import DEFAULT
    from vision.photo_checks import check_strips, strip_count

    config = DEFAULT.replace(**{"fan_gaps.strip_notes": True})
    image, centres, far = drawn_fan(6, hidden_first=1)  # six cards, the bottom card's index covered
    cards = tuple(one("8H", x, y, k, height=4.2 * S / 0.925) for k, (x, y) in enumerate(centres[:-1]))
    top = CardInstance("8H", (len(centres) - 1, len(centres)), np.array([centres[-1], far]), S, 0.9, 4.2 * S / 0.925)
    meld = Pile(PileKind.MELD, cards + (top,))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    assert strip_count(gray, meld, config=config)[0] == 6  # the edges show six cards, the indices five
    # the top card's two indices listed the other way round (stage 2 lists a pair in either order): the same side
    flipped = CardInstance("8H", top.detections, top.centers[::-1].copy(), S, 0.9, top.card_height)
    assert strip_count(gray, Pile(PileKind.MELD, cards + (flipped,)), config=config)[0] == 6
    noted = check_strips([meld], image, config=config)[0]
    assert len(noted.cards) == 5 and any("fan's cards show 6 cards but only 5 were read" in n for n in noted.notes)
    # every card's index read: the two counts agree and nothing is noted
    image, centres, far = drawn_fan(6, hidden_first=0)
    cards = tuple(one("8H", x, y, k, height=4.2 * S / 0.925) for k, (x, y) in enumerate(centres[:-1]))
    top = CardInstance("8H", (len(centres) - 1, len(centres)), np.array([centres[-1], far]), S, 0.9, 4.2 * S / 0.925)
    meld = Pile(PileKind.MELD, cards + (top,))
    assert check_strips([meld], image, config=config)[0].notes == ()


def test_a_fans_top_card_seen_by_two_unread_corners_is_counted():
    from vision.classes import RANKS
    from vision.fans import read_top_cards

    # a fan of five sevens, none seen whole: its top card's two corners were boxed but not read
    height = 4.2 * S / 0.925
    fan_cards = tuple(one(c, 100 + 24 * k, 100, k, height=height) for k, c in enumerate(["7H", "7S", "7D", "7H", "7C"]))
    meld = Pile(PileKind.MELD, fan_cards)
    top = np.array([100 + 24 * 5, 100.0])
    far = top + 0.925 * height * np.array([0.62, 0.79])

    def unread(points, rank):
        boxes = np.array([[x - S / 2, y - S / 2, x + S / 2, y + S / 2] for x, y in points], np.float32)
        rank_p = np.full((len(points), len(RANKS)), 0.01, np.float32)
        rank_p[:, RANKS.index(rank)] = 0.8
        suit_p = np.tile(np.array([[0.1, 0.6, 0.2, 0.1]], np.float32), (len(points), 1))
        return Detections(boxes, np.full(len(points), 0.3, np.float32), np.zeros(len(points), np.int64),
                          {"rank_p": rank_p, "suit_p": suit_p})

    piles = read_top_cards([meld], unread([top, far], "JK"))
    assert [len(p.cards) for p in piles] == [6]
    assert piles[0].cards[-1].code == "JK" and any("top card" in n for n in piles[0].notes)
    # read as the fan's rank when the reader favours it, in the fan's commonest suit
    assert read_top_cards([meld], unread([top, far], "7"))[0].cards[-1].code == "7H"
    # one corner alone, or two boxes that are not a card's diagonal apart, add nothing
    assert len(read_top_cards([meld], unread([top], "JK"))[0].cards) == 5
    assert len(read_top_cards([meld], unread([top, top + 2 * (far - top)], "JK"))[0].cards) == 5
    # a fan whose top card was read whole has no card to add
    whole = CardInstance("7C", (4, 9), np.array([[196.0, 100.0], [196.0 + 50, 160.0]]), S, 0.9, height)
    seen = Pile(PileKind.MELD, fan_cards[:-1] + (whole,))
    assert len(read_top_cards([seen], unread([top, far], "JK"))[0].cards) == 5


def test_a_fans_top_card_seen_by_its_far_corner_alone_is_counted_when_the_reader_is_sure():
    from vision.classes import RANKS
    from vision.fans import read_top_cards

    # a fan of six sevens, none seen whole; its top card's top index was not boxed, its far corner was
    height = 4.2 * S / 0.925
    codes = ["7H", "7S", "7D", "7H", "7C", "7C"]
    fan_cards = tuple(one(c, 100 + 24 * k, 100, k, height=height) for k, c in enumerate(codes))
    meld = Pile(PileKind.MELD, fan_cards)
    top = np.array([100 + 24 * 6, 100.0])
    diagonal = 0.925 * height * np.array([0.62, 0.79])

    def unread(point, rank, p):
        x, y = point
        rank_p = np.full((1, len(RANKS)), (1 - p) / (len(RANKS) - 1), np.float32)
        rank_p[0, RANKS.index(rank)] = p
        return Detections(np.array([[x - S / 2, y - S / 2, x + S / 2, y + S / 2]], np.float32),
                          np.full(1, 0.26, np.float32), np.zeros(1, np.int64),
                          {"rank_p": rank_p, "suit_p": np.full((1, 4), 0.25, np.float32)})

    piles = read_top_cards([meld], unread(top + diagonal, "JK", 0.99))
    assert [len(p.cards) for p in piles] == [7] and piles[0].cards[-1].code == "JK"
    assert np.allclose(piles[0].cards[-1].centers[0], top) and any("top card" in n for n in piles[0].notes)
    # the reader not sure enough (0.8 < top_far_p 0.9): nothing added
    assert len(read_top_cards([meld], unread(top + diagonal, "JK", 0.8))[0].cards) == 6
    # the box is the end card's own far corner (a diagonal from the last card, not from the next place): nothing
    end = np.array([100 + 24 * 5, 100.0])
    assert len(read_top_cards([meld], unread(end + diagonal, "JK", 0.99))[0].cards) == 6
    # a meld of wilds alone (a joker's face beside it shows marks anywhere): nothing
    wilds = Pile(PileKind.MELD, tuple(one(c, 100 + 24 * k, 100, k, height=height)
                                      for k, c in enumerate(["2H", "2S", "JK", "2C", "2D", "JK"])))
    assert len(read_top_cards([wilds], unread(top + diagonal, "JK", 0.99))[0].cards) == 6


def test_a_meld_takes_a_card_from_an_unread_box_at_its_next_place_only_when_switched_on():
    from vision.classes import RANKS
    from vision.completion import read_fan_boxes

    height = 4.2 * S / 0.925
    meld = Pile(PileKind.MELD, tuple(one(c, 100 + 24 * k, 100, k, height=height)
                                     for k, c in enumerate(["9H", "9S", "9D", "9C"])))

    def unread(x, rank, p):
        rank_p = np.full((1, len(RANKS)), (1 - p) / (len(RANKS) - 1), np.float32)
        rank_p[0, RANKS.index(rank)] = p
        suit_p = np.array([[0.1, 0.7, 0.1, 0.1]], np.float32)
        return Detections(np.array([[x - S / 2, 100 - S / 2, x + S / 2, 100 + S / 2]], np.float32),
                          np.full(1, 0.3, np.float32), np.zeros(1, np.int64), {"rank_p": rank_p, "suit_p": suit_p})

    on = DEFAULT.replace(**{"fan_gaps.box_p": 0.2})
    box = unread(100 + 24 * 4, "9", 0.3)  # one step beyond the last card
    assert read_fan_boxes([meld], box) == [meld]  # off by default
    got = read_fan_boxes([meld], box, config=on)[0]
    assert len(got.cards) == 5 and got.cards[-1].code.startswith("9") and "too faint to read for sure" in got.notes[-1]
    # another rank, a joker the reader is not sure of, or a box half a step off: nothing
    assert read_fan_boxes([meld], unread(100 + 24 * 4, "5", 0.6), config=on) == [meld]
    assert read_fan_boxes([meld], unread(100 + 24 * 4, "JK", 0.6), config=on) == [meld]
    assert read_fan_boxes([meld], unread(100 + 24 * 4.5, "9", 0.6), config=on) == [meld]


def test_a_fan_whose_bottom_end_lies_under_something_is_noted():
    import cv2

    from vision.config import DEFAULT
    from vision.photo_checks import COVERED_NOTE, check_strips

    config = DEFAULT.replace(**{"fan_gaps.strip_notes": True})
    height = 4.2 * S / 0.925

    def meld(centres, far):
        cards = tuple(one("8H", x, y, k, height=height) for k, (x, y) in enumerate(centres[:-1]))
        top = CardInstance("8H", (len(centres) - 1, len(centres)), np.array([centres[-1], far]), S, 0.9, height)
        return Pile(PileKind.MELD, cards + (top,))

    # six cards, the first two under a cup (an olive disc): four indices read, the fan's end under the cup
    image, centres, far = drawn_fan(6, hidden_first=2)
    cv2.circle(image, (150, 110), 45, (40, 140, 130), -1)
    noted = check_strips([meld(centres, far)], image, config=config)[0]
    assert any(n.startswith(COVERED_NOTE) for n in noted.notes) and len(noted.cards) == 4
    # the same four cards with the table before them: nothing to note
    image, centres, far = drawn_fan(4, hidden_first=0)
    assert check_strips([meld(centres, far)], image, config=config)[0].notes == ()


def test_a_covered_fan_end_is_told_from_the_table_by_the_colour_at_the_photos_border():
    import cv2

    from vision.photo_checks import COVERED_NOTE, check_strips

    height = 4.2 * S / 0.925
    felt = (40, 110, 30)  # green cloth

    def meld(centres, far):
        cards = tuple(one("8H", x, y, k, height=height) for k, (x, y) in enumerate(centres[:-1]))
        top = CardInstance("8H", (len(centres) - 1, len(centres)), np.array([centres[-1], far]), S, 0.9, height)
        return Pile(PileKind.MELD, cards + (top,))

    def covered(image, centres, far):
        return any(n.startswith(COVERED_NOTE) for n in check_strips([meld(centres, far)], image)[0].notes)

    # the fan's first two cards under a cup, and a placemat of the cup's colour lying on the cloth elsewhere (away
    # from every card, not at the photo's edge): the cloth at the border is the table, the cup is not
    image, centres, far = drawn_fan(6, hidden_first=2, table=felt)
    cv2.circle(image, (150, 110), 45, (40, 140, 130), -1)
    cv2.rectangle(image, (40, 400), (360, 550), (40, 140, 130), -1)
    assert covered(image, centres, far)
    # without the cup, the cloth before the fan is the table's whatever else lies on it
    image, centres, far = drawn_fan(4, hidden_first=0, table=felt)
    cv2.rectangle(image, (40, 400), (360, 550), (40, 140, 130), -1)
    assert not covered(image, centres, far)
    # another card lying before the fan (white paper as bright as its strips) is a card, not a cover
    image, centres, far = drawn_fan(4, hidden_first=0, table=felt)
    cv2.rectangle(image, (100, 35), (260, 76), (235, 235, 235), -1)
    assert not covered(image, centres, far)
    # a cup as bright as the cards but coloured (a lit pale green) is a cover
    cv2.rectangle(image, (100, 35), (260, 76), (110, 235, 125), -1)
    assert covered(image, centres, far)


def test_a_top_jokers_mark_off_the_fans_line_is_taken_when_the_reader_is_sure_of_it():
    from vision.classes import RANKS
    from vision.fans import read_top_cards

    height = 4.2 * S / 0.925
    fan_cards = tuple(one(c, 100 + 24 * k, 100, k, height=height) for k, c in enumerate(["QH", "QS", "QD", "QC"]))
    meld = Pile(PileKind.MELD, fan_cards)
    # the top card's mark one step beyond the last card but 30 degrees off the fan's line
    top = np.array([100 + 24 * 3, 100.0]) + 24 * np.array([np.cos(np.radians(30)), np.sin(np.radians(30))])
    far = top + 0.925 * height * np.array([0.62, 0.79])

    def unread(rank, p):
        boxes = np.array([[x - S / 2, y - S / 2, x + S / 2, y + S / 2] for x, y in (top, far)], np.float32)
        rank_p = np.full((2, len(RANKS)), 0.005, np.float32)
        rank_p[:, RANKS.index(rank)] = p
        return Detections(boxes, np.full(2, 0.3, np.float32), np.zeros(2, np.int64),
                          {"rank_p": rank_p, "suit_p": np.full((2, 4), 0.25, np.float32)})

    assert [c.code for c in read_top_cards([meld], unread("JK", 0.95))[0].cards][-1] == "JK"
    assert len(read_top_cards([meld], unread("Q", 0.95))[0].cards) == 4  # a natural's index lies on the line


def test_the_edges_note_counts_its_places_once_each():
    from vision.photo_checks import _places

    assert _places(["under its bottom card", "under its bottom card"]) == "two under its bottom card"
    assert _places(["in a wide gap", "under its bottom card"]) == "one in a wide gap, one under its bottom card"
