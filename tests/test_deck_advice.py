"""What the command line and the service advise for photos where no card was found, in a deck's examples or read with
a deck profile: only what can work (a photo with no card found teaches a deck nothing; one detected with
``--negative`` already is not helped by ``--negative``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

cv2 = pytest.importorskip("cv2")
import numpy as np  # noqa: E402

from handfoot import core  # noqa: E402
from handfoot.cli import main  # noqa: E402
from vision.models.reader import DEFAULT_READER, IndexReader  # noqa: E402

pytestmark = pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="no shipped reader")

PHOTO = Path(__file__).resolve().parents[1] / "examples" / "table.jpg"


@pytest.fixture
def blank(tmp_path):
    """A photo with no card in it, as dark as a black deck's table."""
    path = tmp_path / "dark.png"
    cv2.imwrite(str(path), np.full((480, 640, 3), 20, np.uint8))
    return path


def test_detect_says_it_read_the_negatives_and_deck_learn_does_not_propose_negative_again(blank, tmp_path, capsys):
    """``detect --json --negative`` writes ``"negative": true`` on each photo's line; ``deck learn`` of such lines
    with no card found no longer says to detect them again with --negative (they were), but what can work: a closer,
    sharper photo, or each index's box added by hand. Lines read as photographed still get --negative."""
    assert main(["detect", str(blank), "--json", "--negative"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert line["negative"] is True and line["detections"] == []
    assert main(["detect", str(blank), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["negative"] is False
    (tmp_path / "neg.jsonl").write_text(json.dumps(line) + "\n")
    assert main(["deck", "learn", str(tmp_path / "neg.jsonl"), "--name", "black"]) == 1
    err = capsys.readouterr().err
    assert "detect it again with --negative" not in err, err
    assert err.rstrip().endswith("where detect --negative found no card either, take the photo again closer and "
                                 'sharper, or add each index\'s {"card": ..., "box": [x1, y1, x2, y2]} by hand)'), err
    one = {"image": str(PHOTO), "detections": [{"card": "KH", "box": [10, 10, 40, 50]}]}
    plain = {**line, "negative": False, "image": str(tmp_path / "dark2.png")}
    cv2.imwrite(plain["image"], np.full((480, 640, 3), 20, np.uint8))
    (tmp_path / "some.jsonl").write_text("".join(json.dumps(d) + "\n" for d in (one, line)))
    assert main(["deck", "learn", str(tmp_path / "some.jsonl"), "--name", "black"]) == 1
    err = capsys.readouterr().err
    assert err.startswith('handfoot: error: 2 photos given, 1 of them with no card labelled (their "detections" are '
                          "empty: where detect --negative found no card either, take the photo again closer and "
                          "sharper, or add each index's"), err
    (tmp_path / "both.jsonl").write_text("".join(json.dumps(d) + "\n" for d in (one, line, plain)))
    assert main(["deck", "learn", str(tmp_path / "both.jsonl"), "--name", "black"]) == 1
    err = capsys.readouterr().err
    assert ("where detect found no card in a photo of a deck printed light on dark paper, detect it again with "
            "--negative; where detect --negative found no card either, take the photo again closer") in err, err


@pytest.mark.parametrize("negative", [False, True])
def test_a_photo_read_with_a_deck_and_no_card_found_says_what_can_work(blank, tmp_path, monkeypatch, capsys, negative):
    """A photo read with a learned deck where no card is found teaches the deck nothing: the advice is a closer,
    sharper photo, the light-print way without the deck (when its profile reads no negatives) or the cards typed,
    never that the deck "learns from more of its photos"."""
    from vision.deck_profiles import DeckProfile

    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path))
    DeckProfile("ours", IndexReader().stock_heads(), 20, 261, {}, "2026-12-01T10:00:00+00:00", negative).save(
        tmp_path / "decks")
    assert main(["score", str(blank), "--deck", "ours"]) == 1
    err = capsys.readouterr().err
    assert "learns from more" not in err, err
    light = "" if negative else "; cards printed light on dark? read it without --deck and add --negative"
    assert err.rstrip().endswith(
        "no cards found (is the whole table in the photo, in focus and lit?); a photo with no card found teaches the "
        f"deck ours nothing: take it again closer and sharper, each card's corner in view and lit{light}; or type "
        "the round's cards in a layout file and score that (handfoot score LAYOUT.json; docs/layout.md)"), err
    models = core.Models(None, None, None, deck="ours")
    said = core.no_cards_advice(core.WEB_WAY, models)
    assert said == ("; a photo with no card found teaches the deck ours nothing: take it again closer and sharper, "
                    "each card's corner in view and lit; cards printed light on dark? read it with no deck chosen "
                    'under "Read this game\'s photos with" and tick "Our cards are light print on dark" above Read '
                    'the cards; or "Type the cards instead" on the Score round page')
