"""A deck profile's photo aspect (``vision.deck_aspect``): photos a camera squeezed are read as stretched back."""

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from vision import deck_aspect, deck_profiles, decks  # noqa: E402
from vision.models.crops import square_crop  # noqa: E402
from vision.models.reader import DEFAULT_READER, IndexReader  # noqa: E402
from vision.types import Detections  # noqa: E402


def test_a_crop_at_an_aspect_is_the_crop_of_the_photo_stretched_so():
    rng = np.random.default_rng(0)
    image = cv2.GaussianBlur(rng.integers(0, 255, (300, 240, 3), np.uint8), (0, 0), 4)
    wide = cv2.resize(image, (320, 300), interpolation=cv2.INTER_CUBIC)  # x stretched 4/3
    box = np.array([100.0, 120.0, 130.0, 170.0])
    for angle in (0.0, 0.5):
        got = square_crop(image, box, 1.25, 32, angle, aspect=4 / 3).astype(float)
        want = square_crop(wide, box * [4 / 3, 1, 4 / 3, 1], 1.25, 32, angle).astype(float)
        other = square_crop(image, box, 1.25, 32, angle).astype(float)
        assert np.abs(got - want).mean() < 2.0 < np.abs(other - want).mean()


@pytest.fixture(scope="module")
def squeezed(anglo_deck, tmp_path_factory):
    """Four rendered tables as taken, and the same squeezed to 3/4 of their width (a 4:3 camera saving squares):
    two lists of ``vision.decks.Example``."""
    folder = tmp_path_factory.mktemp("aspect")
    plain, narrow = [], []
    for k, piles in enumerate(([Pile("meld", ["7H", "7S", "7D"]), Pile("meld", ["KH", "KS", "KD", "KC"])],
                               [Pile("meld", ["9H", "9S", "9D", "2C"]), Pile("meld", ["QC", "QD", "QS"])],
                               [Pile("meld", ["5H", "5S", "5D"]), Pile("meld", ["JH", "JS", "JD", "JC"])],
                               [Pile("meld", ["8H", "8S", "8D", "8C"]), Pile("meld", ["AH", "AS", "AD"])])):
        scene = make_scene(70 + k, [anglo_deck], size=(1024, 768), full_view=True, piles=list(piles), clutter=False)
        dets = Detections(scene.boxes, np.ones(len(scene.boxes), np.float32), np.asarray(scene.classes, np.int64))
        path, small = folder / f"t{k}.jpg", folder / f"n{k}.jpg"
        cv2.imwrite(str(path), scene.image)
        cv2.imwrite(str(small), cv2.resize(scene.image, (768, 768), interpolation=cv2.INTER_AREA))
        plain.append(decks.Example(path, dets.xyxy, tuple(dets.codes)))
        narrow.append(decks.Example(small, dets.xyxy * np.float32([0.75, 1, 0.75, 1]), tuple(dets.codes)))
    return plain, narrow


def test_the_screen_proposes_an_aspect_the_stock_reader_reads_clearly_better(monkeypatch):
    def shares(*values):
        monkeypatch.setattr(deck_aspect, "stock_reads", lambda examples, reader, negative, aspects: np.array(values))
        return deck_aspect.screen([], None, False)[0]

    assert shares(0.83, 0.96, 0.90, 0.51, 0.25) == pytest.approx((16 / 9, 4 / 3))  # the webcam's first photos
    assert shares(0.83, 0.85, 0.84, 0.80, 0.80) == ()  # within the margin
    assert shares(0.44, 0.34, 0.36, 0.63, 0.43) == ()  # a reader naming under MIN_READ of them tells little
    assert shares(0.90, 0.50, 0.60, 0.97, 0.20) == pytest.approx((3 / 4,))


@pytest.mark.skipif(not DEFAULT_READER.is_file(), reason="no shipped reader")
def test_a_profile_keeps_its_aspect_and_its_reader_cuts_crops_at_it(squeezed, tmp_path, monkeypatch):
    plain, narrow = squeezed
    reader = IndexReader()
    assert deck_aspect.screen(plain, reader, negative=False)[0] == ()  # rendered tables: no camera squeezed them
    monkeypatch.setattr(decks, "MIN_CHECK", 1)
    profile = decks.learn(narrow, reader, "narrow", steps=30, aspect=4 / 3)
    assert profile.aspect == pytest.approx(4 / 3) and profile.check["aspect"] == pytest.approx(4 / 3, abs=1e-3)
    profile.save(tmp_path)
    again = deck_profiles.DeckProfile.load("narrow", tmp_path)
    _, read = again.models(None, reader)
    assert again.aspect == pytest.approx(4 / 3) and read.aspect == pytest.approx(4 / 3)
    image, boxes = cv2.imread(str(narrow[0].image)), narrow[0].boxes
    assert not np.allclose(read.probabilities(image, boxes)[0],
                           read.with_heads(again.heads).probabilities(image, boxes)[0])
    decks.learn(plain, reader, "plain", steps=5, aspect=1).save(tmp_path)
    assert deck_profiles.DeckProfile.load("plain", tmp_path).models(None, reader)[1].aspect == 1.0


def test_the_webcam_deck_is_screened_to_be_stretched_along_x(shared_dir):
    from datasets import realdata

    root = shared_dir / "realdata"
    names = realdata.phone_corners_classes(root)
    examples = []
    for photo in realdata.decks_dev("webcam_white", root)[:5]:  # 640 x 640 px
        dets = Detections.from_yolo(realdata.phone_corners_labels(photo, names), 640, 640)
        examples.append(decks.Example(photo.path, dets.xyxy, tuple(dets.codes)))
    aspects, shares = deck_aspect.screen(examples, IndexReader(), negative=False)
    assert aspects and aspects[0] > 1 and shares[f"{aspects[0]:.3g}"] > shares["1"] + 0.05  # 16:9 or 4:3 saved square
