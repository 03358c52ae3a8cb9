"""The synthetic scene generator on a tiny run: labels match what is visible, determinism, ground truth."""

import json

import numpy as np
import pytest

pytest.importorskip("cv2")
pytest.importorskip("resvg_py")

from datasets.generate import enlarged_for_tiles, generate, tiles_from_scene  # noqa: E402
from datasets.scene_labels import MIN_VISIBLE, visible_fraction  # noqa: E402
from datasets.scene_piles import Pile  # noqa: E402
from datasets.scenes import make_scene  # noqa: E402
from scorer import get_rules, parse_cards  # noqa: E402
from scorer.layout import TableLayout  # noqa: E402
from scorer.melds import check_meld  # noqa: E402
from scorer.scoring import score_round  # noqa: E402
from vision.classes import CLASS_NAMES  # noqa: E402

DESIGN = "anglo"


@pytest.fixture(scope="module")
def deck(anglo_deck):
    assert DESIGN == "anglo"
    return anglo_deck


def test_scene_is_deterministic(deck):
    a = make_scene(11, [deck])
    b = make_scene(11, [deck])
    assert np.array_equal(a.image, b.image) and np.array_equal(a.boxes, b.boxes)
    assert a.layout == b.layout
    c = make_scene(12, [deck])
    assert not np.array_equal(a.image.shape, c.image.shape) or not np.array_equal(a.image, c.image)


def test_cascaded_meld_labels_follow_visibility(deck):
    # One meld of five kings cascaded: each covered card shows only its top-left index; the last shows both.
    piles = [Pile("meld", ["KH", "KS", "KD", "KC", "KH"])]
    for seed in range(4):
        scene = make_scene(seed, [deck], size=(1280, 960), full_view=True, piles=piles, clutter=False)
        per_card = [len(c["index_boxes_px"]) for c in scene.cards]
        assert per_card == [1, 1, 1, 1, 2], (seed, per_card)
        assert all(CLASS_NAMES[c] in ("KH", "KS", "KD", "KC") for c in scene.classes)
        assert len(scene.boxes) == 6


def test_squared_book_shows_only_its_marker(deck):
    codes = ["QS", "QH", "QD", "QC", "QS", "QH", "QD"]
    scene = make_scene(3, [deck], size=(1280, 960), full_view=True,
                       piles=[Pile("squared", codes, marker="QD")], clutter=False)
    labelled = [c for c in scene.cards if c["index_boxes_px"]]
    assert len(labelled) == 1 and labelled[0]["code"] == "QD"
    assert scene.layout["teams"]["A"]["squared_books"] == [{"top": "QD", "cards": codes}]


def test_boxes_lie_in_the_image_and_on_their_cards(deck):
    for seed in range(6):
        scene = make_scene(100 + seed, [deck])
        H, W = scene.image.shape[:2]
        assert ((scene.boxes[:, 0] >= 0) & (scene.boxes[:, 2] <= W) & (scene.boxes[:, 1] >= 0)
                & (scene.boxes[:, 3] <= H)).all()
        assert (scene.boxes[:, 2] > scene.boxes[:, 0]).all() and (scene.boxes[:, 3] > scene.boxes[:, 1]).all()
        assert sum(len(c["index_boxes_px"]) for c in scene.cards) == len(scene.boxes)


def test_visible_fraction():
    ids = np.full((20, 20), -1, np.int32)
    ids[:, :10] = 3
    square = np.array([[0, 0], [20, 0], [20, 20], [0, 20]], np.float64)
    assert abs(visible_fraction(ids, square, 3) - 0.5) < 0.06
    assert visible_fraction(ids, square, 4) == 0.0
    assert MIN_VISIBLE == 0.5


def test_ground_truth_layout_is_legal(deck):
    pagat = get_rules("pagat")
    for seed in range(10):
        scene = make_scene(200 + seed, [deck])
        layout = TableLayout.from_dict(scene.layout)
        for meld in scene.layout["teams"]["A"]["melds"]:
            assert check_meld(parse_cards(meld), pagat).legal, meld
        result = score_round(layout, lenient=True)
        assert all("decks hold" in p.message for p in result.problems if p.severity == "illegal")


def test_tiles_keep_boxes_inside(deck):
    scene = make_scene(5, [deck], full_view=False)
    rng = np.random.default_rng(0)
    for crop, boxes, classes in tiles_from_scene(scene.image, scene.boxes, scene.classes, rng, 320, 5):
        assert crop.shape == (320, 320, 3)
        assert len(boxes) == len(classes)
        assert ((boxes >= 0) & (boxes <= 320)).all()


def test_generate_is_deterministic_across_worker_counts(deck, tmp_path):
    a = generate(tmp_path / "a", 3, "train", 5, [DESIGN], workers=1, tile=160, tiles_per_scene=2,
                 keep_scenes=True, progress=False)
    b = generate(tmp_path / "b", 3, "train", 5, [DESIGN], workers=2, tile=160, tiles_per_scene=2,
                 keep_scenes=True, progress=False)
    assert a["boxes"] == b["boxes"]
    for name in ("train_000000", "train_000002"):
        la = (tmp_path / "a" / "scenes" / "train" / "labels" / f"{name}.txt").read_text()
        lb = (tmp_path / "b" / "scenes" / "train" / "labels" / f"{name}.txt").read_text()
        assert la == lb
    doc = json.loads((tmp_path / "a" / "scenes" / "train" / "layouts" / "train_000001.json").read_text())
    assert set(doc) >= {"rules", "teams", "cards", "image", "design"}
    assert (tmp_path / "a" / "data.yaml").read_text().count("'JK'") == 1
    assert len(list((tmp_path / "a" / "tiles" / "train" / "images").glob("*.jpg"))) == 6


def test_tiles_of_small_indices_are_cut_enlarged():
    image = np.zeros((100, 200, 3), np.uint8)
    small = np.array([[10, 10, 30, 30], [50, 50, 60, 60]], np.float32)  # median size 15 px
    big_image, big_boxes = enlarged_for_tiles(image, small, 2.0)
    assert big_image.shape == (200, 400, 3)
    assert np.allclose(big_boxes, small * 2)
    large = np.array([[0, 0, 50, 50]], np.float32)  # 50 px: the enlarged pass would not run
    same_image, same_boxes = enlarged_for_tiles(image, large, 2.0)
    assert same_image is image and same_boxes is large
    assert enlarged_for_tiles(image, small, 1.0)[0] is image


def test_generate_enlarges_whole_table_tiles(deck, tmp_path):
    sizes = {}
    for enlarge in (1.0, 2.0):
        out = tmp_path / str(enlarge)
        info = generate(out, 2, "train", 7, [DESIGN], workers=1, tile=160, tiles_per_scene=3, full_view=True,
                        progress=False, enlarge=enlarge)
        assert info["enlarge"] == enlarge
        rows = [line.split() for f in sorted((out / "tiles" / "train" / "labels").glob("*.txt"))
                for line in f.read_text().splitlines() if line]
        sizes[enlarge] = np.median([float(r[3]) * float(r[4]) for r in rows]) ** 0.5 * 160
    assert sizes[2.0] > 1.6 * sizes[1.0]  # whole tables of this deck have indices under 40 px


def test_joker_boost_gives_more_jokers_and_one_leaves_tables_unchanged():
    from datasets.scene_piles import sample_piles

    def jokers(seed, boost=None):
        rng = np.random.default_rng(seed)
        piles = sample_piles(rng) if boost is None else sample_piles(rng, joker_boost=boost)
        return [p.codes for p in piles], sum(c == "JK" for p in piles for c in p.codes)

    plain = [jokers(s) for s in range(200)]
    assert plain == [jokers(s, 1.0) for s in range(200)]
    n_plain = sum(n for _, n in plain)
    n_boost = sum(jokers(s, 2.5)[1] for s in range(200))
    assert n_plain > 0 and n_boost > 1.8 * n_plain


def test_tight_fans_step_less_and_keep_their_indices(deck):
    """A tight fan steps at most 0.24 of a card's height (0.2 of its width sideways); its cards still get boxes."""
    meld = ["9H", "9S", "9D", "9C", "9H", "9S", "9D"]

    def steps(tight):
        scene = make_scene(5, [deck], size=(1280, 960), full_view=True, clutter=False,
                           piles=[Pile("meld", meld)], tight_fans=tight)
        cards = [c for c in scene.cards if c["pile_kind"] in ("meld", "book")]
        corners = [np.array(c["corners_px"], float) for c in cards]
        height = np.linalg.norm(corners[0][3] - corners[0][0])
        centres = [c.mean(0) for c in corners]
        return [np.linalg.norm(b - a) / height for a, b in zip(centres, centres[1:])], cards

    loose, _ = steps(0.0)
    tight, cards = steps(1.0)
    assert min(loose) > 0.7 * 0.22 and max(tight) < 0.25
    assert sum(bool(c["index_boxes_px"]) for c in cards) >= 6  # ranks still show: labelled
