"""A deck's inks (``vision.deck_ink``): red suits told from black ones by the colour they are printed in."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision import deck_ink  # noqa: E402
from vision.deck_boxes import Example  # noqa: E402

GOLD, SILVER, BLACK_PAPER = (40, 165, 215), (205, 205, 200), (30, 28, 28)  # BGR


def _photo(path, inks, rng):
    """A black-paper photo with one index-like glyph (a "7" and a blob) per ink, 40 px apart: its boxes."""
    image = np.full((120, 40 * len(inks) + 20, 3), BLACK_PAPER, np.uint8)
    boxes = []
    for k, ink in enumerate(inks):
        x = 10 + 40 * k
        cv2.putText(image, "7", (x + 4, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.0, ink, 3)
        cv2.circle(image, (x + 14, 72), 7, ink, -1)
        boxes.append([x, 20, x + 30, 84])
    image = np.clip(image + rng.normal(0, 4, image.shape), 0, 255).astype(np.uint8)
    cv2.imwrite(str(path), image)
    return np.array(boxes, np.float32)


def test_the_inks_tell_a_gold_red_suit_from_a_silver_black_one(tmp_path):
    rng = np.random.default_rng(0)
    examples = []
    for k in range(3):
        path = tmp_path / f"p{k}.png"
        boxes = _photo(path, [GOLD, SILVER, GOLD, SILVER], rng)
        examples.append(Example(path, boxes, ("7H", "7S", "3D", "none" if k == 2 else "3C")))
    ink, figures = deck_ink.learn_ink(examples)
    assert figures["red"] == 6 and figures["black"] == 5 and figures["told"] == 1.0  # "none" left out
    test = tmp_path / "t.png"
    boxes = _photo(test, [SILVER, GOLD], rng)
    image = cv2.imread(str(test))
    red = ink.p_red(image, boxes)
    assert red[0] < 0.1 < 0.9 < red[1]
    even = np.full((2, 4), 0.25, np.float32)
    suits = ink.blend(image, boxes, even)  # S H D C
    assert np.allclose(suits.sum(1), 1) and suits[0, 0] > 0.4 > suits[0, 1] and suits[1, 1] > 0.4 > suits[1, 3]
    sure = np.array([[0.0, 0.0, 0.0, 1.0], [0.9, 0.1, 0.0, 0.0]], np.float32)  # the ink never names a suit alone
    assert np.allclose(ink.blend(image, boxes, sure)[0], sure[0])
    same = deck_ink.Ink.from_arrays(ink.arrays())
    assert np.allclose(same.p_red(image, boxes), red)
    assert deck_ink.Ink.from_arrays({}) is None


def test_too_few_indices_of_a_colour_teach_no_inks(tmp_path):
    path = tmp_path / "p.png"
    boxes = _photo(path, [GOLD, SILVER, GOLD, GOLD, GOLD, GOLD], np.random.default_rng(1))
    ink, figures = deck_ink.learn_ink([Example(path, boxes, ("7H", "7S", "3D", "3H", "JK", "KD"))])
    assert ink is None and figures == {"red": 4, "black": 1}


def test_inks_the_examples_do_not_tell_apart_are_not_kept(tmp_path):
    rng = np.random.default_rng(2)
    examples = []
    for k in range(3):  # one ink for both colours
        path = tmp_path / f"p{k}.png"
        examples.append(Example(path, _photo(path, [GOLD] * 4, rng), ("7H", "7S", "3D", "3C")))
    ink, figures = deck_ink.learn_ink(examples)
    assert ink is None and figures["red"] == figures["black"] == 6 and figures["told"] < deck_ink.MIN_TOLD


def test_a_box_outside_the_photo_has_no_ink():
    image = np.full((50, 50, 3), 200, np.uint8)
    assert deck_ink.ink_chroma(image, np.array([[60, 60, 80, 80], [10, 10, 30, 30]], np.float32)).shape == (2, 2)
    assert np.allclose(deck_ink.ink_chroma(image, np.array([[60, 60, 80, 80]]))[0], 0)


def test_deck_learn_says_when_it_learned_the_inks(tmp_path):
    from types import SimpleNamespace

    from handfoot.reports import deck_learned

    check = {"indices": 34, "stock": 0.0, "profile": 0.9, "method": "kept aside", "ink": {"red": 79, "black": 24,
                                                                                         "told": 0.8641}}
    profile = SimpleNamespace(name="gold", photos=30, indices=155, negative=True, check=check,
                              ink=deck_ink.Ink(np.array([0.1, 0.2]), 1.0))
    said = deck_learned(profile, tmp_path / "gold.npz")
    assert ("; the inks of its two suit colours learned (they tell hearts and diamonds from clubs and spades in 86% "
            "of its 103 indices with a suit, each photo's by the inks of the others)") in said
    assert not {"red", "black"} & set(said.replace(",", " ").split())  # a gold-on-black deck's suits are both gold
    assert "inks" not in deck_learned(SimpleNamespace(**{**vars(profile), "ink": None}), tmp_path / "gold.npz")
