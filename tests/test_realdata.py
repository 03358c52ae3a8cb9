"""The real photos' card lists (``datasets.realdata``): every listed name is a card the models can name."""

from __future__ import annotations

from datasets.realdata import _codes, phone_corners
from vision.classes import CLASS_ID


def test_a_joker_name_with_a_space_is_one_card():
    assert _codes("AD BLACK JOKER") == ["AD", "BLACK JOKER"]
    assert _codes("RED JOKER 10H") == ["RED JOKER", "10H"]
    assert _codes("5C") == ["5C"]


def test_every_photo_lists_only_cards(shared_dir):
    photos = phone_corners(shared_dir / "realdata")
    listed = {code for photo in photos for code in photo.cards}
    assert listed <= set(CLASS_ID) | {"JK"}, listed - set(CLASS_ID)
    assert "JK" in listed
