"""Deck profiles: examples files, learning on a few rendered photos, refusal, storage and the command line."""

import json

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

import cv2  # noqa: E402

from datasets.scenes import Pile, make_scene  # noqa: E402
from handfoot.cli import main  # noqa: E402
from vision import decks  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.reader import DEFAULT_READER, IndexReader  # noqa: E402

pytestmark = pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="no shipped reader")


@pytest.fixture(scope="module")
def photos(anglo_deck, tmp_path_factory):
    """Four rendered tables of one deck: (image path, true detections)."""
    folder = tmp_path_factory.mktemp("deck")
    out = []
    for k, piles in enumerate(([Pile("meld", ["7H", "7S", "7D"]), Pile("meld", ["KH", "KS", "KD", "KC"])],
                               [Pile("meld", ["9H", "9S", "9D", "2C"]), Pile("red_threes", ["3H"])],
                               [Pile("meld", ["QH", "QS", "QD"]), Pile("meld", ["5H", "5S", "5D", "JK"])],
                               [Pile("meld", ["8H", "8S", "8D", "8C"]), Pile("meld", ["AH", "AS", "AD"])])):
        scene = make_scene(40 + k, [anglo_deck], size=(1024, 768), full_view=True, piles=list(piles), clutter=False)
        path = folder / f"t{k}.jpg"
        cv2.imwrite(str(path), scene.image)
        out.append((path, Detections(scene.boxes, np.ones(len(scene.boxes), np.float32),
                                     np.asarray(scene.classes, np.int64))))
    return out


def _examples(photos, wrong: str | None = None):
    return [decks.Example(p, d.xyxy, tuple(wrong if wrong and k < 3 else c for c in d.codes))
            for k, (p, d) in enumerate(photos)]


def test_a_profile_learns_from_a_few_photos_and_reads_with_the_same_model(photos, tmp_path, monkeypatch):
    monkeypatch.setattr(decks, "MIN_CHECK", 1)  # four small photos: the check photo holds a few indices
    reader = IndexReader()
    profile = decks.learn(_examples(photos), reader, "anglo", steps=60)
    assert profile.photos == 4 and profile.indices == sum(len(d) for _, d in photos)
    assert profile.check["indices"] == len(photos[3][1])  # the fourth photo checked it
    path = profile.save(tmp_path)
    again = decks.DeckProfile.load("anglo", tmp_path)
    assert path.is_file() and again.photos == 4 and again.check == profile.check
    for a, b in zip(again.heads.members, profile.heads.members):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    image = cv2.imread(str(photos[0][0]))
    rank_p, suit_p = reader.with_heads(again.heads).probabilities(image, photos[0][1].xyxy)
    assert rank_p.shape == (len(photos[0][1]), 15) and np.allclose(rank_p.sum(1), 1, atol=1e-4)
    assert [p.name for p in decks.list_profiles(tmp_path)] == ["anglo"]
    decks.remove_profile("anglo", tmp_path)
    with pytest.raises(decks.DeckNotFoundError, match="no deck profile 'anglo'"):
        decks.DeckProfile.load("anglo", tmp_path)


def test_a_profile_taught_wrong_codes_is_refused(photos, monkeypatch):
    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    # every index of the three photos learned from called 5C; the check photo keeps its true codes
    with pytest.raises(decks.ProfileRefusedError, match="worse than the stock reader"):
        decks.learn(_examples(photos, wrong="5C"), IndexReader(), "wrong", steps=150, anchor=0.0)


def test_examples_files_are_checked_line_by_line(tmp_path, photos):
    image = str(photos[0][0])
    cases = {"not json\n": "x.jsonl:1: not JSON",
             '{"image": "%s"}\n' % image: 'x.jsonl:1: expected {"image"',
             '{"image": "nowhere.jpg", "detections": []}\n': "image nowhere.jpg not found",
             '{"image": "%s", "detections": [{"card": "1X", "box": [0, 0, 9, 9]}]}\n' % image: "unknown card code '1X'",
             '{"image": "%s", "detections": [{"card": "KH", "box": [9, 0, 1, 9]}]}\n' % image: "is not [x1, y1, x2, y2]"}
    for text, message in cases.items():
        (tmp_path / "x.jsonl").write_text(text)
        with pytest.raises(decks.ExamplesError, match=message.replace("[", r"\[").replace("{", r"\{")):
            decks.read_examples([tmp_path / "x.jsonl"])
    with pytest.raises(decks.ExamplesError, match="at least 2 photos"):
        decks.learn(_examples(photos)[:1], IndexReader(), "one")
    with pytest.raises(decks.ExamplesError, match="30 check indices are needed"):
        decks.learn(_examples(photos), IndexReader(), "few", steps=5)
    line = json.dumps({"image": image, "detections": [{"card": "KH", "box": [0, 0, 9, 9]}]}) + "\n"
    (tmp_path / "x.jsonl").write_text(line * 2)
    with pytest.raises(decks.ExamplesError, match="given twice"):
        decks.read_examples([tmp_path / "x.jsonl"])


def test_deck_learn_list_and_score_with_a_deck_on_the_command_line(photos, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path))
    monkeypatch.setattr(decks, "STEPS", 40)
    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    examples = tmp_path / "examples.jsonl"
    examples.write_text("".join(json.dumps({"image": str(p), "detections": d.to_list()}) + "\n" for p, d in photos))
    assert main(["deck", "learn", str(examples), "--name", "anglo"]) == 0
    assert "deck anglo: learned from 4 photos" in capsys.readouterr().out
    assert main(["deck", "list"]) == 0 and capsys.readouterr().out.startswith("anglo")
    assert main(["detect", str(photos[0][0]), "--deck", "anglo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["detections"]
    assert main(["score", str(photos[0][0]), "--deck", "nobody"]) == 1
    assert "no deck profile 'nobody'" in capsys.readouterr().err
    assert main(["deck", "remove", "anglo"]) == 0 and (tmp_path / "decks").is_dir()
