"""datasets.artpack: the rendered card-art cache packed as lossless WebP and unpacked again."""

import json

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from datasets.artpack import WIDTH, pack, unpack  # noqa: E402
from datasets.cardart import available_designs  # noqa: E402


def test_pack_then_unpack_gives_the_same_faces(tmp_path):
    src = tmp_path / "cache" / "cardart" / "rendered" / "anglo" / str(WIDTH)
    src.mkdir(parents=True)
    rng = np.random.default_rng(0)
    face = rng.integers(0, 256, (60, 40, 4), dtype=np.uint8)
    face[:5, :5, 3] = 0  # a transparent corner: its colour may change, nothing else may
    cv2.imwrite(str(src / "KH.png"), face)
    (src / "boxes.json").write_text(json.dumps({"version": 1, "cards": []}))
    size = pack(tmp_path / "packed", ["anglo"], cache_dir=tmp_path / "cache", workers=1, render=False)
    assert size > 0 and (tmp_path / "packed" / "anglo" / str(WIDTH) / "KH.webp").is_file()
    assert unpack(tmp_path / "packed", cache_dir=tmp_path / "other", workers=1) == ["anglo"]
    out = tmp_path / "other" / "cardart" / "rendered" / "anglo" / str(WIDTH)
    back = cv2.imread(str(out / "KH.png"), cv2.IMREAD_UNCHANGED)
    seen = face[..., 3] > 0
    assert back.shape == face.shape and (back[..., 3] == face[..., 3]).all() and (back[seen] == face[seen]).all()
    assert json.loads((out / "boxes.json").read_text()) == {"version": 1, "cards": []}
    # a design whose art was never fetched there counts as available once rendered (datasets.generate checks)
    assert "anglo" in available_designs(tmp_path / "other") and "anglo" not in available_designs(tmp_path / "none")


def test_unpack_of_a_folder_without_designs_says_so(tmp_path):
    with pytest.raises(RuntimeError, match="no packed designs"):
        unpack(tmp_path, cache_dir=tmp_path / "cache", workers=1)
