"""datasets.fontdecks: procedural font designs render every card with index boxes over the index ink."""

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

from datasets.fontdecks import (HEIGHT, WIDTH, any_designs, any_style, font_deck, font_designs,  # noqa: E402
                                is_font_design)


@pytest.fixture(scope="module", params=["font_3", "any_5", "any_3"])  # any_5: metallic on dark; any_3: jumbo, four
def deck(request):
    try:
        return font_deck(request.param)
    except RuntimeError as exc:  # no DejaVu fonts on this machine
        pytest.skip(str(exc))


def test_names():
    assert font_designs(3) == ["font_0", "font_1", "font_2"]
    assert is_font_design("font_12") and not is_font_design("font_x") and not is_font_design("anglo")
    assert any_designs(2) == ["any_0", "any_1"] and is_font_design("any_7") and not is_font_design("any_")
    with pytest.raises(ValueError, match="font_<n>"):
        font_deck("anglo")


def test_any_decks_cover_the_kinds_a_family_may_own():
    styles = [any_style(i) for i in range(12)]
    assert {s["paper_kind"] for s in styles} == {"light", "tinted", "dark"}
    assert {s["scheme"] for s in styles} >= {"two", "four", "metallic", "light"}
    assert any(s["big"] for s in styles) and not all(s["big"] for s in styles)
    assert styles[5] == any_style(5)  # deterministic from the number
    metallic = next(s for s in styles if s["scheme"] == "metallic")
    assert "linearGradient" in metallic["defs"] and metallic["inks"]["S"].startswith("url(#")
    four = next(s for s in styles if s["scheme"] == "four")
    assert len({four["inks"][suit] for suit in "SHDC"}) == 4


def test_dark_deck_prints_light_on_dark():
    card = font_deck("any_5").cards["QH"][0].image[:, :, :3].astype(int)
    (x1, y1, x2, y2) = font_deck("any_5").cards["QH"][0].index_boxes[0]
    paper = card[HEIGHT // 2 - 5:HEIGHT // 2 + 5, 3:8].mean()
    ink = card[int(y1):int(y2), int(x1):int(x2)].sum(2).max() / 3
    assert paper < 80 and ink > paper + 100


def test_every_card_with_two_index_boxes_on_its_ink(deck):
    assert len(deck.cards) == 53 and len(deck.cards["JK"]) == 2
    assert {c.joker_color for c in deck.cards["JK"]} == {"red", "black"}
    for code, faces in deck.cards.items():
        for face in faces:
            assert face.image.shape == (HEIGHT, WIDTH, 4)
            assert len(face.index_boxes) == 2, code
            (x1, y1, x2, y2), (u1, v1, u2, v2) = face.index_boxes
            assert 0 <= x1 < x2 <= WIDTH / 2 and 0 <= y1 < y2 <= HEIGHT / 2, code
            # the opposite corner's box is the first one turned 180 degrees
            assert np.allclose([u1, v1, u2, v2], [WIDTH - x2, HEIGHT - y2, WIDTH - x1, HEIGHT - y1], atol=1.5)
            patch = face.image[int(y1):int(y2), int(x1):int(x2), :3].astype(int)
            paper = face.image[HEIGHT // 2 - 5:HEIGHT // 2 + 5, 3:8, :3].reshape(-1, 3).mean(0)
            assert np.abs(patch - paper).sum(2).max() > 150, f"{code}: no ink in its index box"


def test_decks_differ_and_repeat():
    a, b = font_deck("font_0"), font_deck("font_1")
    assert not np.array_equal(a.cards["KS"][0].image, b.cards["KS"][0].image)
    assert np.array_equal(a.cards["KS"][0].image, font_deck("font_0").cards["KS"][0].image)
