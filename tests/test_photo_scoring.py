"""Rendered round-end tables through the pipeline, and ``handfoot score PHOTO`` (errors, JSON, annotation)."""

import json
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

from sides import read_side  # noqa: E402

from vision.types import Detections  # noqa: E402


# -- the true corner boxes of rendered tables through stages 2-4 ----------------------------------------------
@pytest.fixture(scope="module")
def deck(anglo_deck):
    return anglo_deck


def _oracle(scene):
    """The rendered scene's true corner boxes as detections (confidence 1)."""
    return Detections(scene.boxes, np.ones(len(scene.boxes), np.float32), scene.classes)


def test_true_corners_of_a_rendered_table_give_its_layout(deck):
    from datasets.scene_piles import Pile
    from datasets.scenes import make_scene

    piles = [Pile("book", ["KH", "KH", "KS", "KD", "KC", "KH", "KS"]),  # identical cards in one fan
             Pile("meld", ["8D", "8S", "2C"]), Pile("red_threes", ["3H", "3D"]),
             Pile("squared", ["QH"] * 6 + ["QD"], marker="QD")]
    ok = 0
    for seed in range(5):
        scene = make_scene(100 + seed, [deck], size=(1600, 1200), full_view=True, piles=piles, clutter=False)
        team = read_side(_oracle(scene), "A").team_layout()
        truth = scene.layout["teams"]["A"]
        same = (sorted(map(sorted, team["melds"])) == sorted(map(sorted, truth["melds"]))
                and sorted(team["red_threes"]) == sorted(truth["red_threes"])
                and [b["top"] for b in team["squared_books"]] == ["QD"])
        ok += same
    assert ok >= 4, f"only {ok} of 5 rendered tables read exactly from their true corners"


# -- handfoot score PHOTO: errors ------------------------------------------------------------------------------
def test_score_photo_errors(tmp_path, capsys):
    from handfoot.cli import main

    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    assert main(["score", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "bad.jpg" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    text = tmp_path / "notes.png"
    text.write_text("hello")
    assert main(["score", str(text)]) == 1
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    assert main(["score", str(blank)]) == 1
    assert "no cards found" in capsys.readouterr().err
    assert main(["score", str(blank), str(tmp_path / "x.json")]) == 1
    assert main(["score", str(tmp_path / "missing.jpg")]) == 1
    assert main(["score", str(blank), "--conf", "0"]) == 1
    assert "conf must be in (0, 1]" in capsys.readouterr().err
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    assert main(["score", str(blank), "--model", str(broken)]) == 1
    assert "cannot load the detector model" in capsys.readouterr().err
    layout = tmp_path / "round.json"
    layout.write_text(json.dumps({"rules": "pagat", "round": 1, "teams": {"A": {"melds": [["KH", "KS", "KD"]]}}}))
    assert main(["score", str(layout), "--annotate", str(tmp_path / "a.jpg")]) == 1
    assert "--annotate applies only to photos" in capsys.readouterr().err
    assert main(["score", str(layout), "--negative"]) == 1
    assert "--negative applies only to photos" in capsys.readouterr().err


def test_score_photo_end_to_end_with_true_corners(deck, tmp_path, capsys, monkeypatch):
    """The photo path of ``handfoot score`` (stages 2-5, JSON, annotation) with the detector swapped for the
    rendered table's true corner boxes: the score must equal the score of the true layout."""
    import vision.pipeline as pipeline
    from datasets.scene_piles import Pile
    from datasets.scenes import make_scene
    from handfoot.cli import main
    from scorer import get_rules
    from scorer.layout import TableLayout
    from scorer.scoring import score_round
    from vision.annotate import banner_height

    piles = [Pile("book", ["KH", "KH", "KS", "KD", "KC", "KH", "KS"]), Pile("meld", ["8D", "8S", "2C"]),
             Pile("red_threes", ["3H", "3D"])]
    scene = make_scene(101, [deck], size=(1600, 1200), full_view=True, piles=piles, clutter=False)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), scene.image)
    monkeypatch.setattr(pipeline, "detect", lambda image, detector, reader=None, config=None: _oracle(scene))
    out = tmp_path / "annotated.jpg"
    assert main(["score", str(photo), "--json", "--annotate", str(out), "--rules", "pagat"]) == 0
    got = capsys.readouterr()
    doc = json.loads(got.out)  # --json: stdout is the JSON alone, what was written is told on stderr
    assert got.err.strip().endswith(f"annotated: {out}")
    truth = score_round(TableLayout.from_dict(scene.layout), get_rules("pagat"), lenient=True).teams["A"]
    assert doc["score"]["teams"]["A"]["total"] == truth.total
    assert doc["images"][0]["width"] == 1600 and len(doc["images"][0]["detections"]) == len(_oracle(scene))
    img = cv2.imread(str(out))
    band = banner_height(scene.image, ["team A"])  # the totals in a strip above the photo
    assert img is not None and img.shape == (1200 + band, 1600, 3) and not np.array_equal(img[band:], scene.image)
    # text output names every pile and the total; the saved layout scores the same
    saved = tmp_path / "read.json"
    assert main(["score", str(photo), "--save-layout", str(saved)]) == 0
    text = capsys.readouterr().out
    assert text.rstrip().endswith(f"layout saved: {saved}")  # told after the report, in the same stream
    assert "clean book" in text and "meld" in text and "red threes" in text and f"{truth.total:,}" in text
    assert main(["score", str(saved), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["teams"]["A"]["total"] == truth.total
    # the saved layout's report names each pile as the photo's does (the book of kings: "clean book", not "meld")
    assert main(["score", str(saved)]) == 0
    report = capsys.readouterr().out.splitlines()
    rows = report[report.index("team A (layout)") + 1:report.index("")]
    labels = [p["label"] for p in doc["images"][0]["piles"]]
    assert "clean book" in labels
    assert sorted(max((w for w in labels if row.startswith(f"  {w} ")), key=len) for row in rows) == sorted(labels)
    melds = json.loads(saved.read_text())["teams"]["A"]["melds"]  # a person edits it: one pile a line
    lines = [line.strip().rstrip(",") for line in saved.read_text().splitlines()]
    assert melds and all(json.dumps(m) in lines for m in melds)
    # round 0 is refused like any round under 1, not scored as round 1
    assert main(["score", str(photo), "--round", "0"]) == 1
    assert "round 0: 'pagat' has rounds 1 to 4" in capsys.readouterr().err


def test_a_photo_of_a_hand_counts_every_card_in_it_as_left(deck, tmp_path, capsys, monkeypatch):
    """``--hand TEAM:PHOTO``: three aces fanned in a hand, and a foot of one queen, are cards held (against the
    side), where a photo of the table reads them as a meld and a squared book; the detector is swapped for the
    rendered photos' true boxes."""
    import vision.pipeline as pipeline
    from datasets.scene_piles import Pile
    from datasets.scenes import make_scene
    from handfoot.cli import main
    from scorer import get_rules
    from scorer.layout import TableLayout
    from scorer.scoring import score_round

    table = make_scene(101, [deck], size=(1600, 1200), full_view=True, clutter=False,
                       piles=[Pile("meld", ["8D", "8S", "2C"])])
    held, foot = ["AS", "AH", "AD"], ["QC"]
    hand = make_scene(7, [deck], size=(1280, 960), full_view=True, clutter=False, piles=[Pile("left", held)])
    one = make_scene(8, [deck], size=(1024, 768), full_view=True, clutter=False, piles=[Pile("left", foot)])
    scenes = {s.image.shape: s for s in (table, hand, one)}
    monkeypatch.setattr(pipeline, "detect",
                        lambda image, detector, reader=None, config=None: _oracle(scenes[image.shape]))
    for name, s in (("table", table), ("hand", hand), ("foot", one)):
        cv2.imwrite(str(tmp_path / f"{name}.jpg"), s.image)
    assert read_side(_oracle(hand)).team_layout()["melds"] and read_side(_oracle(one)).team_layout()["squared_books"]
    args = ["score", str(tmp_path / "table.jpg"), "--hand", f"A:{tmp_path / 'hand.jpg'}",
            "--hand", f"B:{tmp_path / 'foot.jpg'}"]
    assert main(args + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    teams = doc["layout"]["teams"]
    assert [sorted(m) for m in teams["A"]["melds"]] == [["2C", "8D", "8S"]]
    assert [sorted(p) for p in teams["A"]["left"]] == [sorted(held)] and teams["B"]["left"] == [foot]
    assert not teams["B"]["melds"] and not teams["B"]["squared_books"]
    truth = dict(table.layout, teams={"A": dict(table.layout["teams"]["A"], left=[held]), "B": {"left": [foot]}})
    expected = score_round(TableLayout.from_dict(truth), get_rules("pagat"), lenient=True)
    assert doc["score"]["teams"]["A"]["total"] == expected.teams["A"].total
    assert doc["score"]["teams"]["B"]["total"] == expected.teams["B"].total == -10
    assert [(i["kind"], i["teams"]) for i in doc["images"]] == [("table", ["A"]), ("hand", ["A"]), ("hand", ["B"])]
    # a hand's pile is labelled without its team (the pile's team says it: the page writes "B: left in hand"), and
    # no note says the team twice
    assert {p["label"] for i in doc["images"] if i["kind"] == "hand" for p in i["piles"]} == {"left in hand"}
    assert not [n for n in doc["notes"] if n.count("team A") > 1 or n.count("team B") > 1]
    # team B has no table photo: scored, with a note in case the name was mistyped
    assert [n for n in doc["notes"] if "no photo of its table" in n] == [
        "team B: no photo of its table was given, only its cards left in hand are scored "
        "(table photos: A)"]
    # the text report says which photos are hands and whose cards they are
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.count("cards left in hand (") == 2 and f"team B, cards left in hand ({tmp_path / 'foot.jpg'})" in out
    assert "team B: left in hand" not in out  # the heading names the team, each pile's label does not again
    # bad --hand values, a photo given twice, a folder, one --annotate image for several photos and a hand photo
    # with no card are one-line errors
    for bad, says in ((["--hand", "hand.jpg"], "--hand needs TEAM:PHOTO"),
                      (["--hand", f"A:{tmp_path / 'table.jpg'}"], "given twice"),
                      (["--hand", f"A:{tmp_path}"], "a folder; --hand takes one photo"),
                      (["--hand", f"A:{tmp_path / 'hand.jpg'}", "--annotate", str(tmp_path / "a.jpg")],
                       "names one image, but 2 photos are read")):
        assert main(["score", str(tmp_path / "table.jpg")] + bad) == 1
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    monkeypatch.undo()
    assert main(["score", str(tmp_path / "table.jpg"), "--hand", f"B:{blank}"]) == 1
    assert "no cards found (in this photo of a hand" in capsys.readouterr().err


def test_a_hand_of_a_deck_whose_diagonal_is_not_the_usual_one_counts_its_top_card_once(deck):
    """A hand photo shows one card seen whole (the fan's top card); its two corners give the photo's card
    diagonal. The ornamental deck's corners lie 1.6 index sizes apart, not the usual 4.2, and its top card had
    been counted twice."""
    from sides import read_hand

    from datasets.cardart import load_deck
    from datasets.scene_piles import Pile
    from datasets.scenes import make_scene

    ornamental = load_deck("ornamental")
    for seed, held in ((1, ["AC", "7H", "7S", "QD", "10H", "2C"]), (2, ["KS", "5D", "9C", "9C", "JH"])):
        scene = make_scene(seed, [ornamental], size=(1280, 960), full_view=True, clutter=False,
                           piles=[Pile("left", held)])
        assert sorted(read_hand(_oracle(scene)).team_layout()["left"][0]) == sorted(held)


def test_the_app_layout_is_the_pipeline_layout():
    """handfoot.readings builds the layout from the reading's piles (so corrections can rebuild it); on a real
    photo it must be the layout vision.types.TableReading builds from the same piles."""
    pytest.importorskip("onnxruntime")
    from handfoot import core, photo_request
    from vision.pipeline import table_of

    root = Path(__file__).resolve().parents[1]
    result = core.read_and_score_photos([root / "examples" / "table.jpg"], photo_request.PhotoRequest(went_out="A", round=2),
                                       core.load_models())
    assert result._readings and result.images[0].piles
    assert result.layout == table_of(result._readings, "pagat", 2, "A").layout()


def test_a_team_named_past_the_photos_is_scored_from_its_cards_left(capsys):
    """``--teams Us,Them`` with one photo, and Them's cards left typed (its name in another case): Us is read from
    the photo, Them scored from its cards alone, with the note that it had no table photo; ``--went-out us`` is Us."""
    from handfoot.cli import main

    root = Path(__file__).resolve().parents[1]
    assert main(["score", str(root / "examples" / "table.jpg"), "--teams", "Us,Them", "--left", "them:KH 7C",
                 "--went-out", "us", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["images"][0]["teams"] == ["Us"] and result["layout"]["went_out"] == "Us"
    assert result["layout"]["teams"]["Them"]["left"] == [["KH", "7C"]]
    assert result["score"]["teams"]["Them"]["total"] == -15
    assert result["score"]["teams"]["Us"]["total"] > 0
    assert any(n.startswith("team Them: no photo of its table was given") for n in result["notes"])


def test_a_photo_and_the_same_photo_at_more_pixels_give_the_same_layout(tmp_path):
    """A reading does not depend on the photo's pixel count beyond what the pixels show: the example table and the
    same table at 4x and 25x the pixels (6.4 x 4.8 k, a phone's 48-megapixel class) give one layout; a large JPEG is
    decoded reduced, never whole."""
    pytest.importorskip("onnxruntime")
    cv2 = pytest.importorskip("cv2")
    from handfoot import core, photo_request
    from vision.config import DEFAULT
    from vision.images import load_photo

    root = Path(__file__).resolve().parents[1]
    image = cv2.imread(str(root / "examples" / "table.jpg"))
    h, w = image.shape[:2]
    models = core.load_models()
    layouts = []
    for k, factor in enumerate((1, 2, 5)):
        path = tmp_path / f"table_{factor}.jpg"
        cv2.imwrite(str(path), cv2.resize(image, (w * factor, h * factor), interpolation=cv2.INTER_CUBIC),
                    [cv2.IMWRITE_JPEG_QUALITY, 92])
        assert max(load_photo(path).shape[:2]) == min(max(h, w) * factor, DEFAULT.pyramid.photo_side)
        result = core.read_and_score_photos([path], photo_request.PhotoRequest(went_out="A", round=2), models)
        layouts.append(result.layout)
    assert layouts[0]["teams"]["A"]["melds"] and layouts[1] == layouts[0] and layouts[2] == layouts[0]


def test_a_large_jpeg_is_decoded_reduced(tmp_path, monkeypatch):
    """A JPEG far over the photo size the pipeline uses is decoded at a fraction of its size (OpenCV's reduced
    decode), then shrunk to that size: the full-size pixels are never asked for."""
    cv2 = pytest.importorskip("cv2")
    from vision import images

    path = tmp_path / "big.jpg"
    cv2.imwrite(str(path), np.full((6000, 8000, 3), 200, np.uint8))
    flags = []
    real = cv2.imdecode
    monkeypatch.setattr(images.cv2, "imdecode", lambda data, flag: flags.append(flag) or real(data, flag))
    assert images.load_photo(path, 2560).shape == (1920, 2560, 3)
    assert flags == [cv2.IMREAD_REDUCED_COLOR_2]
    assert images.load_image(path).shape == (6000, 8000, 3)  # every pixel, for a caller that asks


def test_an_iphone_heic_photo_is_read_as_its_jpeg(tmp_path, capsys):
    """handfoot score photo.heic: the example table saved as HEIC (libheif, as an iPhone writes it) scores as the
    JPEG does; a HEIC file cut short is one line, exit 1."""
    pytest.importorskip("onnxruntime")
    pillow_heif = pytest.importorskip("pillow_heif")
    cv2 = pytest.importorskip("cv2")
    from handfoot.cli import main

    root = Path(__file__).resolve().parents[1]
    rgb = cv2.cvtColor(cv2.imread(str(root / "examples" / "table.jpg")), cv2.COLOR_BGR2RGB)
    heic = tmp_path / "IMG_0001.HEIC"
    pillow_heif.from_bytes("RGB", (rgb.shape[1], rgb.shape[0]), rgb.tobytes()).save(str(heic), quality=95)
    assert heic.read_bytes()[4:12] == b"ftypheic"
    totals = []
    for photo in (root / "examples" / "table.jpg", heic):
        assert main(["score", str(photo), "--went-out", "A", "--json"]) == 0
        totals.append(json.loads(capsys.readouterr().out)["score"]["teams"]["A"]["total"])
    assert totals[0] == totals[1] == 1320
    cut = tmp_path / "cut.heic"
    cut.write_bytes(heic.read_bytes()[:200])
    assert main(["score", str(cut)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("handfoot: error:") and "cut.heic" in err and len(err.splitlines()) == 1
