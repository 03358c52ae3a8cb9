"""Inference backends (vision.models.backends): ONNX Runtime and OpenVINO give the same detections; the choice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
cv2 = pytest.importorskip("cv2")

from vision.models import backends  # noqa: E402
from vision.models.detector import CardDetector, ModelError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _matched(a, b):
    """Each box of ``a`` with the box of ``b`` that overlaps it most: (indices into b, IoU)."""
    from vision.types import box_iou

    iou = box_iou(a.xyxy, b.xyxy)
    return iou.argmax(1), iou.max(1)


def test_both_backends_find_the_same_indices(tmp_path, monkeypatch):
    """On any CPU (bf16 where it has AMX): OpenVINO at the precision its check chose reads the example table as
    ONNX Runtime does: the same boxes with the same codes."""
    pytest.importorskip("openvino")
    from vision.models.reader import IndexReader
    from vision.pipeline import detect, read_indices

    monkeypatch.setenv("HANDFOOT_CACHE", str(tmp_path))
    image = cv2.imread(str(ROOT / "examples" / "table.jpg"))
    read = {}
    for name in backends.BACKENDS:
        detector, reader = CardDetector(backend=name), IndexReader(backend=name)
        assert detector.backend_name == name and reader.backend_name == name
        read[name] = read_indices(detect(image, detector, reader))[0]
    ort, ov = read["onnxruntime"], read["openvino"]
    assert len(ort) == len(ov) > 10
    match, iou = _matched(ort, ov)
    assert sorted(match.tolist()) == list(range(len(ov)))  # one to one
    assert [ov.codes[j] for j in match] == ort.codes
    assert iou.min() > 0.9
    assert np.abs(ort.confidence - ov.confidence[match]).max() < 0.05


def test_a_precision_that_changes_a_reading_is_not_kept(tmp_path, monkeypatch):
    """A check that the native precision fails (here: every reading but f32's is told apart) leaves OpenVINO in
    f32; one it passes keeps the native precision."""
    pytest.importorskip("openvino")
    monkeypatch.setenv("HANDFOOT_CACHE", str(tmp_path))
    model = ROOT / "models" / "stacks.onnx"
    feeds = lambda: {"crops": np.random.default_rng(0).random((4, 3, 96, 96), np.float32)}  # noqa: E731
    ort = backends._onnxruntime(model, 1).run(None, feeds())
    exact = backends.Check(feeds, lambda a, b: backends.max_abs_diff(a, b) == 0.0 or np.array_equal(b[0], ort[0]))
    session = backends.OpenVinoSession(model, 1, "native")
    picky = backends.compare(model, 1, exact, repeat=1)
    if session.precision == "f32":  # no bf16 here: the native precision is f32 already
        assert picky["openvino_precision"] == "native"
    elif not np.array_equal(session.run(None, feeds())[0], ort[0]):
        assert picky["openvino_precision"] == "f32" and picky["precision"] == "f32" and not picky["native_same"]
    easy = backends.compare(model, 1, backends.Check(feeds, lambda a, b: True), repeat=1)
    assert easy["openvino_precision"] == "native" and easy["same"]
    with pytest.raises(ValueError, match="unknown OpenVINO precision"):
        backends.OpenVinoSession(model, 1, "int4")


def test_a_backend_is_chosen_once_and_kept(tmp_path, monkeypatch):
    pytest.importorskip("openvino")
    from vision.models.stacks import StackChecker

    monkeypatch.setenv("HANDFOOT_CACHE", str(tmp_path))
    calls = []
    real = backends.compare

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(backends, "compare", counted)
    model = ROOT / "models" / "stacks.onnx"
    first = backends.calibrate(model, 2, StackChecker.check(model))
    again = backends.calibrate(model, 2, StackChecker.check(model))
    assert first == again and len(calls) == 1 and first["choice"] in backends.BACKENDS
    assert first["openvino_precision"] in backends.PRECISIONS and (tmp_path / "backends.json").is_file()
    assert first["same"] or first["choice"] == "onnxruntime"


def test_a_backend_can_be_forced_and_a_wrong_name_is_one_line(monkeypatch):
    monkeypatch.setenv(backends.BACKEND_ENV, "onnxruntime")
    assert CardDetector().backend_name == "onnxruntime"
    with pytest.raises(ModelError, match="unknown inference backend 'tensorflow'"):
        CardDetector(backend="tensorflow")
    monkeypatch.setenv(backends.BACKEND_ENV, "warp-drive")
    with pytest.raises(ModelError, match="unknown inference backend 'warp-drive'"):
        CardDetector()
