"""Procedural joker corner marks (datasets/jokers.py) and their use by the scene generator."""

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

from datasets.jokers import FAMILIES, draw_mark, procedural_joker  # noqa: E402
from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from vision.classes import CLASS_NAMES  # noqa: E402


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_draws_ink_inside_its_box(family):
    ink, mask = draw_mark(family, 40, 60, (30, 30, 200), np.random.default_rng(1))
    assert ink.shape == (60, 40, 3) and mask.shape == (60, 40)
    assert 0.03 < mask.mean() < 0.8, family  # a visible mark that does not fill the box


def test_procedural_joker_marks_both_corners(anglo_deck):
    joker = anglo_deck.cards["JK"][0]
    before = joker.image.copy()
    index_box = anglo_deck.cards["AS"][0].index_boxes[0]
    new = procedural_joker(joker, index_box, np.random.default_rng(3))
    H, W = joker.image.shape[:2]
    assert new.code == "JK" and new.image.shape == joker.image.shape and len(new.index_boxes) == 2
    (a1, b1, a2, b2), (c1, d1, c2, d2) = new.index_boxes
    assert 0 <= a1 < a2 <= W / 2 and 0 <= b1 < b2 <= H / 2  # top-left
    assert W / 2 <= c1 < c2 <= W and H / 2 <= d1 < d2 <= H  # bottom-right, the same mark turned
    assert abs((a2 - a1) - (c2 - c1)) <= 1 and abs((b2 - b1) - (d2 - d1)) <= 1
    for x1, y1, x2, y2 in new.index_boxes:  # the mark was drawn there
        region = (slice(int(y1), int(np.ceil(y2))), slice(int(x1), int(np.ceil(x2))), slice(0, 3))
        assert not np.array_equal(new.image[region], joker.image[region])
    again = procedural_joker(joker, index_box, np.random.default_rng(3))
    assert np.array_equal(new.image, again.image) and new.index_boxes == again.index_boxes
    assert np.array_equal(joker.image, before)  # the deck's own card is untouched


def test_scene_with_joker_marks_labels_every_joker(anglo_deck):
    piles = [Pile("meld", ["JK", "2C", "JK"])]
    plain = make_scene(5, [anglo_deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
    marked = make_scene(5, [anglo_deck], size=(1280, 960), full_view=True, piles=piles, clutter=False,
                        joker_marks=1.0)
    for scene in (plain, marked):
        assert [len(c["index_boxes_px"]) for c in scene.cards] == [1, 1, 2]
        assert [CLASS_NAMES[c] for c in scene.classes].count("JK") == 3  # the last joker shows both corners
    assert not np.array_equal(plain.image, marked.image)


def _marks(items, size=20.0):
    """[(code, cx, cy, box side px), ...] -> Detections of square boxes centred there."""
    from vision.classes import class_id
    from vision.types import Detections

    boxes = [[x - s / 2, y - s / 2, x + s / 2, y + s / 2] for _, x, y, s in items]
    return Detections(np.array(boxes, np.float32).reshape(-1, 4), np.full(len(items), 0.9, np.float32),
                      np.array([class_id(c) for c, _, _, _ in items], np.int64))


def _sevens(size=20.0):
    """A fan of three sevens (index size ``size``), its top card seen whole: sets the photo's card size."""
    return [("7H", 100, 100, size), ("7S", 100, 124, size), ("7D", 100, 148, size), ("7D", 152, 214, size)]


def test_a_whole_jokers_four_corner_marks_are_one_card():
    from vision.instances import pair_corners
    from vision.piles import group_piles

    # aguilar's joker: a star in every corner, drawn at the card's corners (a longer rectangle than the naturals'
    # index centres), its marks smaller than the naturals' indices; photographed at an angle (a parallelogram)
    w, h, m = 2.6 * 20, 3.9 * 20, 16.0
    for shear in (0.0, 12.0):
        star = [("JK", 400 + dx + shear * dy / h, 300 + dy, m) for dx in (0, w) for dy in (0, h)]
        cards = pair_corners(_marks(_sevens() + star))
        jokers = [c for c in cards if c.code == "JK"]
        assert [len(c.detections) for c in jokers] == [4]
        assert sorted((p.kind.value, len(p.cards)) for p in group_piles(cards)) == [("meld", 3), ("squared_book", 1)]


def test_two_jokers_side_by_side_in_a_fan_are_not_merged_into_one():
    from vision.instances import pair_corners

    # two jokers fanned one step apart, each showing its strip's two marks (top and bottom corner): a rectangle
    # one fan step wide, not a card
    h, m, step = 3.9 * 20, 16.0, 1.2 * 20
    strips = [("JK", 400 + k * step, 300 + dy, m) for k in range(2) for dy in (0, h)]
    jokers = [c for c in pair_corners(_marks(_sevens() + strips)) if c.code == "JK"]
    assert len(jokers) == 2 and all(len(c.detections) == 2 for c in jokers)
