"""Card art: fetch (aisleriot only), render one deck, check cards, index boxes and the render cache.

Skips cleanly when the art cannot be fetched (no apt-get, no network) or OpenCV / resvg-py are missing.
Uses the normal download cache ($HANDFOOT_CACHE or ~/.cache/handfoot) for the packages, but renders into a
fresh temporary cache so that the first load_deck really renders.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

from datasets import art_render, cardart  # noqa: E402

DESIGN = "anglo"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CODES = [r + s for s in "CDHS" for r in RANKS]


def test_design_lists():
    train, held = set(cardart.TRAIN_DESIGNS), set(cardart.HELDOUT_DESIGNS)
    assert len(train) == len(cardart.TRAIN_DESIGNS) >= 12
    assert len(held) == len(cardart.HELDOUT_DESIGNS) >= 3
    assert not train & held
    assert (train | held) <= set(cardart._SPECS)
    assert any(cardart._SPECS[d].source != "aisleriot" for d in held)


def test_design_names_expand_groups_in_order_once():
    assert cardart.design_names("train") == list(cardart.TRAIN_DESIGNS)
    assert cardart.design_names("heldout, orell,kennard,") == ["orell", "tigullio", "aguilar", "kennard"]
    assert cardart.design_names("all") == list(cardart.TRAIN_DESIGNS + cardart.HELDOUT_DESIGNS)
    assert "kennard_4color" in cardart.design_names("every") and cardart.design_names("") == []


def test_unknown_design_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match="no_such_deck"):
        cardart.load_deck("no_such_deck", cache_dir=tmp_path)


def test_unknown_source_rejected(tmp_path):
    with pytest.raises(ValueError):
        cardart.fetch_cardart(sources=("nowhere",), cache_dir=tmp_path)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A fresh cache root whose raw/ is the shared download cache (fetched once, aisleriot only)."""
    try:
        raw = cardart.fetch_cardart(sources=("aisleriot",), quiet=True)
    except (RuntimeError, OSError) as e:
        pytest.skip(f"card art not available: {e}")
    root = tmp_path_factory.mktemp("handfoot_cache")
    (root / "cardart").mkdir()
    (root / "cardart" / "raw").symlink_to(raw, target_is_directory=True)
    return root


@pytest.fixture(scope="module")
def deck(cache):
    return cardart.load_deck(DESIGN, width=240, cache_dir=cache)


def test_fetch_is_idempotent(cache):
    raw = cardart.fetch_cardart(sources=("aisleriot",), cache_dir=cache, quiet=True)
    assert raw == cache / "cardart" / "raw"
    names = cardart.available_designs(cache)
    assert DESIGN in names and "bonded" in names
    assert set(d for d in names if cardart._SPECS[d].source == "aisleriot") >= {
        d for d in cardart.TRAIN_DESIGNS + cardart.HELDOUT_DESIGNS if cardart._SPECS[d].source == "aisleriot"}


def test_all_cards_jokers_and_back(deck):
    assert deck.design == DESIGN
    assert set(CODES) <= set(deck.cards)
    assert set(deck.cards) == set(CODES) | {"JK"}
    assert all(len(deck.cards[c]) == 1 for c in CODES)
    jokers = deck.cards["JK"]
    assert [j.joker_color for j in jokers] == ["red", "black"]
    assert all(j.code == "JK" for j in jokers)
    images = [ci.image for cis in deck.cards.values() for ci in cis] + [deck.back]
    h, w = images[0].shape[:2]
    assert w == 240 and 300 < h < 420
    assert deck.size == (w, h)
    for im in images:
        assert im.shape == (h, w, 4) and im.dtype == np.uint8
        assert im[0, 0, 3] == 0 and im[-1, -1, 3] == 0  # rounded corners are transparent
        assert im[h // 2, w // 2, 3] == 255


def test_index_boxes(deck):
    h, w = deck.cards["AS"][0].image.shape[:2]
    heights = []
    for code in CODES:
        ci = deck.cards[code][0]
        assert ci.code == code and ci.joker_color is None
        boxes = ci.index_boxes
        assert len(boxes) >= 2
        for x1, y1, x2, y2 in boxes:
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        (x1, y1, x2, y2), (bx1, by1, bx2, by2) = boxes[0], boxes[1]
        # top-left box sits in the corner; the second is the same box rotated by 180 degrees
        assert x1 < 0.1 * w and y1 < 0.1 * h and x2 <= 0.3 * w and y2 <= 0.3 * h
        assert np.allclose((bx1, by1, bx2, by2), (w - x2, h - y2, w - x1, h - y1), atol=0.05)
        assert (x2 - x1) < (y2 - y1)  # rank above pip: a tall box
        heights.append(y2 - y1)
        # there is ink inside the box: dark or saturated pixels on the card
        crop = ci.image[int(y1):int(np.ceil(y2)), int(x1):int(np.ceil(x2))]
        ink = (crop[:, :, 3] > 200) & (crop[:, :, :3].min(-1) < 128)
        assert ink.mean() > 0.1, code
    assert max(heights) < 1.3 * min(heights)  # one index size across the deck


def test_joker_boxes(deck):
    for j in deck.cards["JK"]:
        assert len(j.index_boxes) in (0, 2, 4)
        for x1, y1, x2, y2 in j.index_boxes[:1]:
            assert x2 <= 0.5 * j.image.shape[1]


def test_cache_gives_identical_deck_without_rendering(cache, deck, monkeypatch):
    def no_render(*a, **k):
        raise AssertionError("cached deck was rendered again")

    monkeypatch.setattr(art_render, "render_svg", no_render)
    again = cardart.load_deck(DESIGN, width=240, cache_dir=cache)
    for code in CODES + ["JK"]:
        for a, b in zip(deck.cards[code], again.cards[code]):
            assert a.index_boxes == b.index_boxes
            assert np.array_equal(a.image, b.image)
    assert np.array_equal(deck.back, again.back)
    meta = cache / "cardart" / "rendered" / DESIGN / "240" / "boxes.json"
    assert meta.exists() and (meta.parent / "AS.png").exists()


def test_four_index_deck(cache):
    deck = cardart.load_deck("bonded", width=200, cache_dir=cache)
    ci = deck.cards["7H"][0]
    h, w = ci.image.shape[:2]
    assert w == 200 and len(ci.index_boxes) == 4
    (x1, y1, x2, y2), _, (tx1, ty1, tx2, ty2), _ = ci.index_boxes
    assert x2 <= 0.3 * w and tx1 >= 0.7 * w and ty2 <= 0.3 * h


def test_contact_sheet(deck):
    sheet = cardart.contact_sheet(deck)
    assert sheet.ndim == 3 and sheet.shape[2] == 3 and sheet.dtype == np.uint8
