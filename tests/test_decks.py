"""Deck profiles: examples files, learning on a few rendered photos, refusal, storage and the command line."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

import cv2  # noqa: E402

from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from handfoot.cli import main  # noqa: E402
from handfoot.reports import RANK_AND_COLOUR  # noqa: E402
from scorer import HandFootError  # noqa: E402
from vision import deck_profiles, decks  # noqa: E402
from vision.deck_ink import Ink  # noqa: E402
from vision.models.reader import DEFAULT_READER, IndexReader  # noqa: E402
from vision.types import Detections, box_iou  # noqa: E402

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
    assert all(0 <= profile.check[k] <= profile.check["indices"] for k in ("stock_right", "profile_right"))
    path = profile.save(tmp_path)
    again = deck_profiles.DeckProfile.load("anglo", tmp_path)
    assert path.is_file() and again.photos == 4 and again.check == profile.check
    # the rendered tables' lights (a warm tint, a grey photo) hide which ink is red: no inks kept
    assert profile.check["ink"]["told"] < 0.8 and profile.ink is None and again.ink is None
    inked = dataclasses.replace(profile, name="inked", ink=Ink(np.array([0.2, 0.1]), 3.0))
    inked.save(tmp_path)
    inked_again = deck_profiles.DeckProfile.load("inked", tmp_path)
    assert np.allclose(inked_again.ink.w, [0.2, 0.1]) and inked_again.ink.t == 3.0
    assert inked_again.models(None, reader)[1].ink is inked_again.ink
    for a, b in zip(again.heads.members, profile.heads.members):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    image = cv2.imread(str(photos[0][0]))
    rank_p, suit_p = reader.with_heads(again.heads).probabilities(image, photos[0][1].xyxy)
    assert rank_p.shape == (len(photos[0][1]), 15) and np.allclose(rank_p.sum(1), 1, atol=1e-4)
    assert [p.name for p in deck_profiles.list_profiles(tmp_path)] == ["anglo", "inked"]
    deck_profiles.remove_profile("anglo", tmp_path)
    with pytest.raises(deck_profiles.DeckNotFoundError, match="no deck profile 'anglo'"):
        deck_profiles.DeckProfile.load("anglo", tmp_path)


@pytest.fixture(scope="module")
def dark_photos(tmp_path_factory):
    """Four rendered tables of a deck printed in metal on black paper (``any_5``): (image path, true detections)."""
    from datasets.fontdecks import any_style, font_deck

    assert any_style(5)["paper_kind"] == "dark" and any_style(5)["scheme"] == "metallic"
    deck = font_deck("any_5")
    folder = tmp_path_factory.mktemp("dark")
    out = []
    for k in range(4):
        scene = make_scene(60 + k, [deck], size=(1024, 768), full_view=True, clutter=False,
                           piles=[Pile("meld", ["7H", "7S", "7D", "7C"]), Pile("meld", ["KH", "KS", "KD"]),
                                  Pile("meld", ["9H", "9S", "9D", "9C"][k % 2:])])
        path = folder / f"d{k}.jpg"
        cv2.imwrite(str(path), scene.image)
        out.append((path, Detections(scene.boxes, np.ones(len(scene.boxes), np.float32),
                                     np.asarray(scene.classes, np.int64))))
    return out


def test_a_deck_printed_light_on_dark_is_read_as_its_negative(dark_photos, photos, tmp_path, monkeypatch):
    from vision.config import DEFAULT
    from vision.models.detector import CardDetector, NegativeDetector
    from vision.pipeline import detect, seen_negative

    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    reader = IndexReader()
    examples = _examples(dark_photos)
    assert decks.reads_negative(examples, reader) and not decks.reads_negative(_examples(photos), reader)
    profile = decks.learn(examples, reader, "black", steps=60)
    # checked against the stock reader reading the negatives too (read as photographed, it reads almost none)
    assert profile.negative and profile.check["stock_negative"] and profile.check["profile"] > profile.check["stock"]
    profile.save(tmp_path)
    again = deck_profiles.DeckProfile.load("black", tmp_path)
    detector = CardDetector()
    seen, read = again.models(detector, reader)
    assert again.negative and isinstance(seen, NegativeDetector) and read.heads is again.heads
    image = cv2.imread(str(dark_photos[0][0]))
    truth = dark_photos[0][1].xyxy
    never = DEFAULT.replace(**{"reading.negative_below": 0})  # no switching by itself: the profile's negative alone
    found = detect(image, seen, read, never)
    assert seen_negative(found) and (box_iou(truth, found.xyxy).max(1) >= 0.5).mean() > 0.8
    plain = detect(image, detector, read, never)
    assert not seen_negative(plain) and not (plain.confidence >= 0.5).any()
    assert np.allclose(seen(image, 1024, 0.25).xyxy, detector(255 - image, 1024, 0.25).xyxy)


def test_a_dark_decks_profile_is_checked_against_the_stock_reader_reading_negatives(dark_photos, monkeypatch):
    """A deck printed light on dark is read as its negative; the stock reader, the "without it" of the check, reads
    the check photos' negatives too (as --negative and the page's light-print box do), not the photos as
    photographed (which read almost none right, so that any profile would look better). So a profile learned as the
    stock reader (its own heads) reads as many right as "without it", and one that reads every index a 7 (better
    than the black cards as photographed, worse than their negatives) is refused."""
    from vision.models.reader import Heads

    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    reader = IndexReader()
    examples = _examples(dark_photos)
    monkeypatch.setattr(decks, "fit_heads", lambda samples, stock, *args, **kwargs: stock)
    same = decks.learn(examples, reader, "black", glyphs=False)
    c = same.check
    assert same.negative and c["stock_negative"] and c["stock_right"] == c["profile_right"] > 0
    assert c["stock"] == pytest.approx(c["profile"])
    assert "with the stock reader reading their negatives" in decks.check_text(c)

    def sevens(samples, stock, *args, **kwargs):  # every rank read a 7, each suit as the stock reader reads it
        return Heads(tuple((rw, np.where(np.arange(len(rb)) == 6, 50.0, -50.0), sw, sb)
                           for rw, rb, sw, sb in stock.members))
    monkeypatch.setattr(decks, "fit_heads", sevens)
    with pytest.raises(decks.ProfileRefusedError, match="with the stock reader reading their negatives") as refused:
        decks.learn(examples, reader, "black", glyphs=False)
    c = refused.value.check
    assert 0 < c["profile_right"] < c["stock_right"] and c["stock_negative"]


def test_a_table_printed_light_on_dark_is_found_in_its_negative_without_a_profile(dark_photos, photos):
    from vision.pipeline import detect, load_models, read_image, seen_negative

    detector, reader = load_models()
    image = cv2.imread(str(dark_photos[0][0]))
    truth = dark_photos[0][1].xyxy
    assert not len(detector(image, 1024, 0.5))  # the photo as taken: no index the detector is sure of
    found = detect(image, detector, reader)
    assert seen_negative(found) and (box_iou(truth, found.xyxy).max(1) >= 0.5).mean() > 0.8
    assert read_image(image, found=found)[0].detections.xyxy.shape[0] >= 10
    assert not seen_negative(detect(cv2.imread(str(photos[0][0])), detector, reader))


def test_a_profile_taught_wrong_codes_is_refused(photos, monkeypatch):
    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    # every index of the three photos learned from called 5C; the check photo keeps its true codes
    with pytest.raises(decks.ProfileRefusedError, match="worse than the stock reader"):
        decks.learn(_examples(photos, wrong="5C"), IndexReader(), "wrong", steps=150, anchor=0.0)


def test_the_check_counts_each_index_once_by_its_views_averaged():
    """``accuracy`` counts each of the reader's views of an index; ``indices_right`` each index once, read as a
    photo is, its views' probabilities averaged, by rank and suit's colour."""
    from types import SimpleNamespace

    from vision.classes import RANKS, SUIT_CODES
    from vision.deck_samples import Samples, accuracy, indices_right
    from vision.models.crops import VIEWS

    k, queen, ten = RANKS.index("K"), RANKS.index("Q"), RANKS.index("10")
    hearts, diamonds, spades = (SUIT_CODES.index(c) for c in "HDS")

    def view(rank: dict, suit: int) -> tuple[np.ndarray, np.ndarray]:
        r = np.zeros(len(RANKS))
        for i, p in rank.items():
            r[i] = p
        return r, np.eye(len(SUIT_CODES))[suit]

    # a photo of three indices (KH, KH, 10S), view after view: the first KH is read K in one view of three, so
    # surely that the average is K; the second is read K by its views but black; the 10S is right in every view
    views = [[view({k: 0.9, queen: 0.1}, hearts), view({k: 0.1, queen: 0.9}, spades), view({ten: 1.0}, spades)],
             [view({k: 0.4, queen: 0.6}, hearts), view({k: 1.0}, spades), view({ten: 1.0}, spades)],
             [view({k: 0.4, queen: 0.6}, diamonds), view({k: 1.0}, spades), view({ten: 1.0}, spades)]]
    assert len(views) == len(VIEWS)
    rank_p = np.array([r for v in views for r, _ in v])
    suit_p = np.array([s for v in views for _, s in v])
    heads = SimpleNamespace(probabilities=lambda features: (rank_p, suit_p))
    photo = Samples([np.zeros((9, 1), np.float32)], np.array([k, k, ten] * 3), np.array([hearts, hearts, spades] * 3))
    assert accuracy(heads, photo) == pytest.approx(4 / 9)  # the first KH's first view and the 10S's three
    assert indices_right(heads, [photo]) == 2  # the first KH (K and red on average) and the 10S
    assert indices_right(heads, [photo, photo]) == 4


def test_close_ups_are_checked_on_more_of_their_photos():
    def close_ups(n):  # photos of one card: its two corners
        return [decks.Example(Path(f"c{k}.jpg"), np.zeros((2, 4), np.float32), ("KH", "KH")) for k in range(n)]
    tables = [decks.Example(Path(f"t{k}.jpg"), np.zeros((40, 4), np.float32), ("KH",) * 40) for k in range(8)]
    assert np.flatnonzero(decks.check_photos(tables)).tolist() == [3, 7]  # every 4th
    assert np.flatnonzero(decks.check_photos(close_ups(30))).tolist() == list(range(1, 30, 2))  # every 2nd: 30
    assert decks.check_photos(close_ups(20)) is None  # every 2nd holds 20 corners
    assert len(decks.check_folds(tables)) == 1
    folds = decks.check_folds(close_ups(20))  # each photo checked once, while the others teach
    assert len(folds) == decks.FOLDS and np.array_equal(np.sum(folds, axis=0), np.ones(20))
    few = [decks.Example(Path(f"t{k}.jpg"), np.zeros((13, 4), np.float32), ("KH",) * 13) for k in range(5)]
    assert [np.flatnonzero(f).tolist() for f in decks.check_folds(few)] == [[0], [1], [2], [3], [4]]  # leave-one-out
    with pytest.raises(decks.ExamplesError, match="hold 20 card corners, and at least 30 are needed") as said:
        decks.check_folds(close_ups(10))
    # how many more, in a family's words (it said "whether a profile reads this deck better")
    assert ": 10 more, in more photos (a photo of a round's table holds that many" in str(said.value)
    assert "profile" not in str(said.value)


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
    with pytest.raises(decks.ExamplesError, match="1 example photo: at least 2 are needed"):
        decks.learn(_examples(photos)[:1], IndexReader(), "one")
    few = [decks.Example(e.image, e.boxes[:5], e.codes[:5]) for e in _examples(photos)]
    with pytest.raises(decks.ExamplesError, match="photos hold 20 card corners, and at least 30 are needed"):
        decks.learn(few, IndexReader(), "few", steps=5)
    (tmp_path / "x.jsonl").write_text(json.dumps({"image": image, "detections": [{"card": "qc", "box": [0, 0, 9, 9]},
                                                                              {"card": "10s", "box": [20, 0, 29, 9]}]}))
    assert decks.read_examples([tmp_path / "x.jsonl"])[0].codes == ("QC", "10S")  # as a layout takes them
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
    cv2.imwrite(str(tmp_path / "none.png"), np.full((60, 80, 3), 90, np.uint8))  # a photo with no card labelled
    with examples.open("a") as f:
        f.write(json.dumps({"image": str(tmp_path / "none.png"), "detections": []}) + "\n")
    assert main(["deck", "learn", str(examples), "--name", "anglo"]) == 0
    said = capsys.readouterr().out  # the photos given first, then what was learned from them
    assert said.startswith("5 photos given, 1 of them with no card labelled: they teach nothing\n"
                           "deck anglo: learned from all 4 photos") and "replaces" not in said
    assert "\ntested on 1 of the 4 photos (" in said
    assert "set aside while the other 3 taught a trial profile" in said
    assert main(["deck", "list"]) == 0 and capsys.readouterr().out.startswith("anglo")
    # learning again under the name needs --replace; it replaces the profile, and says what the one before read
    before = deck_profiles.DeckProfile.load("anglo", tmp_path / "decks")
    examples.write_text("".join(json.dumps({"image": str(p), "detections": d.to_list()}) + "\n" for p, d in photos[:3]))
    assert main(["deck", "learn", str(examples), "--name", "anglo"]) == 1
    assert "a deck profile anglo exists already, learned from 4 photos" in capsys.readouterr().err
    assert main(["deck", "learn", str(examples), "--name", "anglo", "--replace"]) == 0
    said = capsys.readouterr().out
    assert "deck anglo: learned from all 3 photos" in said
    assert (f"it replaces the deck anglo learned before (4 photos, {before.indices} indices, tested on "
            f"{before.check['indices']} of them: "
            f"{before.check['stock_right']} -> {before.check['profile_right']} read right (rank and colour), learned "
            f"{before.created})") in said
    assert deck_profiles.DeckProfile.load("anglo", tmp_path / "decks").photos == 3
    kept = (tmp_path / "decks" / "anglo.npz").read_bytes()

    def refused(*args, **kwargs):
        raise decks.ProfileRefusedError("the profile 'anglo' reads the photos it was tested on worse")
    with monkeypatch.context() as m:
        m.setattr(decks, "learn", refused)
        assert main(["deck", "learn", str(examples), "--name", "anglo", "--replace"]) == 1
    assert "the deck anglo learned before stays as it was" in capsys.readouterr().err
    assert (tmp_path / "decks" / "anglo.npz").read_bytes() == kept
    assert main(["detect", str(photos[0][0]), "--deck", "anglo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["detections"]
    assert main(["score", str(photos[0][0]), "--deck", "nobody"]) == 1
    assert "no deck profile 'nobody'" in capsys.readouterr().err
    assert main(["deck", "remove", "anglo"]) == 0 and (tmp_path / "decks").is_dir()


def test_deck_commands_with_db_use_the_decks_a_server_on_that_ledger_reads(photos, tmp_path, monkeypatch, capsys):
    from handfoot import core
    from handfoot.routes.deps import decks_dir
    from handfoot.service import Settings

    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(decks, "STEPS", 20)
    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    examples = tmp_path / "examples.jsonl"
    examples.write_text("".join(json.dumps({"image": str(p), "detections": d.to_list()}) + "\n" for p, d in photos))
    ledger = tmp_path / "club" / "games.db"
    assert main(["deck", "learn", str(examples), "--name", "club", "--db", str(ledger)]) == 0
    capsys.readouterr()
    served = decks_dir(Settings(db=ledger))
    assert [p.name for p in deck_profiles.list_profiles(served)] == ["club"]
    assert not deck_profiles.list_profiles(core.decks_dir())  # not in the default data folder
    assert main(["deck", "list"]) == 0 and "no deck profiles yet" in capsys.readouterr().out
    assert main(["deck", "list", "--db", str(ledger)]) == 0 and capsys.readouterr().out.startswith("club")
    assert main(["deck", "remove", "club", "--db", str(ledger)]) == 0 and not deck_profiles.list_profiles(served)


def test_the_last_convolution_in_numpy_gives_the_models_features(photos):
    from vision.models.crops import crops_of
    from vision.models.reader import features_of

    reader = IndexReader()
    x = crops_of(cv2.imread(str(photos[0][0])), photos[0][1].xyxy)
    ours = features_of(reader.pre(x), reader.stock_layers())
    for a, b in zip(ours, reader.features(x)):
        assert a.shape == b.shape and np.allclose(a, b, atol=1e-4)
    same = reader.with_heads(reader.stock_heads(), reader.stock_layers())
    image = cv2.imread(str(photos[0][0]))
    assert np.allclose(same.probabilities(image, photos[0][1].xyxy)[0],
                       reader.probabilities(image, photos[0][1].xyxy)[0], atol=1e-4)


@pytest.mark.parametrize("layers", ["conv", "affine"])
def test_a_profile_adapting_the_last_convolution_is_saved_and_read(photos, tmp_path, monkeypatch, layers):
    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    reader = IndexReader()
    profile = decks.learn(_examples(photos), reader, "conv", layers=layers, steps=8, augment=1)
    stock = reader.stock_layers()
    assert profile.layers is not None and len(profile.layers.members) == len(stock.members)
    assert any(not np.allclose(a[0], b[0]) for a, b in zip(profile.layers.members, stock.members))  # it moved
    profile.save(tmp_path)
    again = deck_profiles.DeckProfile.load("conv", tmp_path)
    assert all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
               for a, b in zip(again.layers.members, profile.layers.members))
    _, read = again.models(None, reader)
    rank_p, _ = read.probabilities(cv2.imread(str(photos[1][0])), photos[1][1].xyxy)
    assert read.layers is again.layers and np.allclose(rank_p.sum(1), 1, atol=1e-4)
    decks.learn(_examples(photos), reader, "heads", steps=5).save(tmp_path)  # heads alone, as older profiles
    assert deck_profiles.DeckProfile.load("heads", tmp_path).layers is None


def test_five_photos_too_few_to_keep_some_aside_are_checked_leaving_each_out(photos, monkeypatch):
    reader = IndexReader()
    held = sum(len(d) for _, d in photos)
    monkeypatch.setattr(decks, "MIN_CHECK", held - 1)  # every 2nd photo holds fewer; all of them enough
    assert decks.check_photos(_examples(photos)) is None
    profile = decks.learn(_examples(photos), reader, "few", steps=30)
    assert profile.check["method"] == "leave-one-out" and profile.check["indices"] == held
    assert profile.check["profile"] >= profile.check["stock"]


def test_examples_gain_the_boxes_the_detector_finds(photos):
    from vision.deck_boxes import NONE, with_found_boxes
    from vision.models.detector import CardDetector

    examples = _examples(photos)[:1]
    more = with_found_boxes(examples, CardDetector(), IndexReader())[0]
    n = len(examples[0].codes)
    assert more.codes[:n] == examples[0].codes and len(more.codes) > n and len(more.boxes) == len(more.codes)
    ious = box_iou(more.boxes[n:], examples[0].boxes)
    for code, row in zip(more.codes[n:], ious):  # a found box takes the code of the known index it overlaps
        assert code == (examples[0].codes[int(row.argmax())] if row.max() >= 0.3 else NONE)


def test_the_decks_dev_photos_are_listed_in_file_name_order(shared_dir):
    from datasets.realdata import decks_dev

    webcam, black = decks_dev("webcam_white", shared_dir / "realdata"), decks_dev("blackgold", shared_dir / "realdata")
    assert len(webcam) == 39 and len(black) == 50
    assert [p.path.name for p in webcam] == sorted(p.path.name for p in webcam)
    assert all(p.label is not None and p.cards for p in webcam)


def test_a_profile_chooses_its_crop_window_on_the_detectors_boxes(photos, tmp_path, monkeypatch):
    from vision.models.detector import CardDetector

    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    reader = IndexReader()
    profile = decks.learn(_examples(photos), reader, "win", steps=30, window="auto", detector=CardDetector())
    assert profile.window in (None, *decks.WINDOWS) and profile.check["indices"] > 0
    fixed = decks.learn(_examples(photos), reader, "wide", steps=30, window=1.0)
    fixed.save(tmp_path)
    again = deck_profiles.DeckProfile.load("wide", tmp_path)
    assert again.window == 1.0
    _, read = again.models(None, reader)
    image, boxes = cv2.imread(str(photos[1][0])), photos[1][1].xyxy
    assert read.window == 1.0 and not np.allclose(read.probabilities(image, boxes)[0],
                                                  read.with_heads(again.heads).probabilities(image, boxes)[0])
    decks.learn(_examples(photos), reader, "plain", steps=5).save(tmp_path)
    assert deck_profiles.DeckProfile.load("plain", tmp_path).window is None  # the reader's own, as older profiles


def test_the_page_checks_a_deck_name_as_the_decks_do():
    """The page's teach panel refuses a bad deck name before asking (a name with "/" is no address): its rule is
    ``vision.decks.NAME``."""
    from vision.decks import NAME

    page = (Path(__file__).resolve().parents[1] / "handfoot" / "web" / "teach.js").read_text()
    assert f"const DECK_NAME = /{NAME.pattern}/;" in page


def test_a_profile_learns_its_frame_on_the_detectors_boxes_and_frame_false_keeps_none(photos, monkeypatch):
    from vision.deck_frames import pairs
    from vision.models.detector import CardDetector

    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    reader, detector = IndexReader(), CardDetector()
    examples = _examples(photos)
    profile = decks.learn(examples, reader, "framed", steps=30, detector=detector, glyphs=False)
    told = profile.check["frame"]
    assert sum(told["pairs"]) >= 10 and told["learned on"] == "found" and not profile.frame.is_identity
    found = decks.found_boxes(examples, detector, reader)
    labelled, detected = pairs([e.boxes for e in examples], [f.xyxy for f in found])
    before = np.median(np.diag(box_iou(detected, labelled)))
    after = np.median(np.diag(box_iou(profile.frame.apply(detected), labelled)))
    assert after > before  # the corrected boxes frame the indices as the labels do
    off = decks.learn(examples, reader, "plain", steps=30, detector=detector, glyphs=False, frame=False)
    assert off.frame.is_identity and "frame" not in off.check


def test_a_dark_deck_is_detected_for_teaching_as_its_negative(shared_dir, tmp_path, monkeypatch, capsys):
    """Close-ups of a real black deck printed in gold (``decks_dev/blackgold``): detect found no card in them and
    deck learn said "1 example photo: at least 2 are needed" of 30 photos given. detect now tells that their
    negatives show indices and ``--negative`` finds them; deck learn counts the photos given and those with none."""
    from datasets.realdata import decks_dev

    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path))
    photos = [str(p.path) for p in decks_dev("blackgold", shared_dir / "realdata")[1:4]]  # one 7H each, close up
    assert main(["detect", *photos, "--json"]) == 0
    said = capsys.readouterr()
    plain = [json.loads(line) for line in said.out.splitlines()]
    assert [len(d["detections"]) for d in plain] == [0, 0, 0]
    assert said.err.startswith("handfoot: 3 of 3 photos: no card found; read as negatives (light print on dark "
                               "paper), 3 of the 3 read so show corner indices: is your deck printed light on dark? "
                               "detect them again with --negative")
    (tmp_path / "plain.jsonl").write_text(said.out)
    assert main(["detect", *photos, "--json", "--negative"]) == 0
    said = capsys.readouterr()
    negative = [json.loads(line) for line in said.out.splitlines()]
    assert all(d["detections"] for d in negative) and not said.err
    assert {b["card"] for d in negative for b in d["detections"]} <= {"7H", "7S"}  # a 7 in the stock reader's eye
    assert main(["deck", "learn", str(tmp_path / "plain.jsonl"), "--name", "blackgold"]) == 1
    assert capsys.readouterr().err.startswith(
        f"handfoot: error: no corner indices labelled in {tmp_path / 'plain.jsonl'}: the \"detections\" of each of its "
        "3 lines are empty")
    (tmp_path / "some.jsonl").write_text(json.dumps(negative[0]) + "\n" + "\n".join(map(json.dumps, plain[1:])) + "\n")
    assert main(["deck", "learn", str(tmp_path / "some.jsonl"), "--name", "blackgold"]) == 1
    assert capsys.readouterr().err == (
        'handfoot: error: 3 photos given, 2 of them with no card labelled (their "detections" are empty: where detect '
        "found no card in a photo of a deck printed light on dark paper, detect it again with --negative); of the "
        "others, 1 example photo: at least 2 are needed (the profile is tested on photos it did not learn from): "
        "give more photos (five corrected round-end photos is a start)\n")


def test_a_deck_the_stock_reader_reads_needs_no_profile(shared_dir, tmp_path, monkeypatch, capsys):
    """Five real webcam photos of a plain deck, their codes as detect printed them: the stock reader reads every
    index as its code says, and a profile that read its check worse was refused with an error (exit 1, "... worse
    than the stock reader ... not kept"); it is good news now: no profile needed, none kept, exit 0. (The profile
    is made worse here, its heads turned upside down, as it came out on one backend and not on another.)"""
    from datasets.realdata import decks_dev
    from vision.models.reader import Heads

    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path))
    photos = [str(p.path) for p in decks_dev("webcam_white", shared_dir / "realdata")[:5]]
    assert main(["detect", *photos, "--json"]) == 0
    (tmp_path / "webcam.jsonl").write_text(capsys.readouterr().out)
    monkeypatch.setattr(decks, "fit_heads", lambda samples, stock, *args, **kwargs: Heads(
        tuple(tuple(-a for a in member) for member in stock.members)))
    assert main(["deck", "learn", str(tmp_path / "webcam.jsonl"), "--name", "webcam"]) == 0
    said = capsys.readouterr().out
    indices = sum(len(json.loads(line)["detections"]) for line in (tmp_path / "webcam.jsonl").open())
    assert said.startswith(f"handfoot already reads this deck: the stock reader reads {indices} of the {indices} "
                           "example indices as their codes say (rank and colour), and a profile read the photos it "
                           "was tested on no better (")
    assert said.splitlines()[0].endswith("): no profile needed, none kept")
    assert said.splitlines()[1:] == [RANK_AND_COLOUR]  # a club read as a spade is read right: said under it
    assert not (tmp_path / "decks" / "webcam.npz").exists()


def test_reading_negatives_wraps_the_detector_once_and_not_for_a_plain_decks_profile():
    from types import SimpleNamespace

    from handfoot import core
    from vision.models.detector import NegativeDetector

    detector = SimpleNamespace(names_cards=False)
    models = core.Models(detector, None, None, 0.35)
    negative = core.reading_negatives(models)
    assert isinstance(negative.detector, NegativeDetector) and negative.detector.detector is detector
    assert core.reading_negatives(negative) is negative  # a negative deck's profile reads the negative already
    with pytest.raises(HandFootError, match="the deck plain is read as photographed"):
        core.reading_negatives(models, deck="plain")


def test_score_and_detect_read_with_a_deck_of_a_servers_ledger(tmp_path, monkeypatch, capsys):
    """A deck learned into a server's folder (``deck learn --db PATH``, or the page's teaching of ``serve --db PATH``)
    is read with by ``score`` and ``detect`` given the same ``--db`` (they had none: "unrecognized arguments: --db",
    and without it "no deck profile ... in ~/.local/share/handfoot/decks")."""
    monkeypatch.setenv("HANDFOOT_DATA", str(tmp_path / "elsewhere"))
    server = tmp_path / "server"
    deck_profiles.DeckProfile("family", IndexReader().stock_heads(), 20, 261, {}, "2026-12-01T10:00:00+00:00").save(
        server / "decks")
    photo = str(Path(__file__).resolve().parents[1] / "examples" / "table.jpg")
    assert main(["detect", photo, "--deck", "family", "--db", str(server), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["detections"]
    assert main(["score", photo, "--deck", "family", "--db", str(server)]) == 0
    assert "reading with the deck profile family" in capsys.readouterr().err
    assert main(["score", photo, "--deck", "family"]) == 1  # the data folder's decks: none there
    assert "no deck profile 'family'" in capsys.readouterr().err
