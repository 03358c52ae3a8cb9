"""Inference backends (vision.backends): ONNX Runtime and OpenVINO give the same detections; the choice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
cv2 = pytest.importorskip("cv2")

from vision import backends  # noqa: E402
from vision.detector import CardDetector, ModelError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_both_backends_find_the_same_indices():
    pytest.importorskip("openvino")
    from vision.pipeline import detect, load_models, read_indices

    image = cv2.imread(str(ROOT / "examples" / "table.jpg"))
    read = {}
    for name in backends.BACKENDS:
        detector, reader = load_models()
        detector._session = backends.open_model(Path(detector.model), 2, name)
        reader._session = backends.open_model(Path(reader.model), 2, name)
        assert detector.backend_name == name and reader.backend_name == name
        read[name] = read_indices(detect(image, detector, reader))[0]
    ort, ov = read["onnxruntime"], read["openvino"]
    assert ort.codes == ov.codes and len(ort) > 10
    assert np.abs(ort.xyxy - ov.xyxy).max() < 1.0  # pixels
    assert np.abs(ort.confidence - ov.confidence).max() < 0.01


def test_a_backend_is_chosen_once_and_kept(tmp_path, monkeypatch):
    pytest.importorskip("openvino")
    monkeypatch.setenv("HANDFOOT_CACHE", str(tmp_path))
    calls = []
    real = backends.compare

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(backends, "compare", counted)
    model = ROOT / "models" / "stacks.onnx"
    probe = lambda: {"crops": np.zeros((2, 3, 96, 96), np.float32)}  # noqa: E731
    first = backends.calibrate(model, 2, probe)
    again = backends.calibrate(model, 2, probe)
    assert first == again and len(calls) == 1 and first["choice"] in backends.BACKENDS
    assert first["max_abs_diff"] <= backends.TOLERANCE and (tmp_path / "backends.json").is_file()


def test_a_backend_can_be_forced_and_a_wrong_name_is_one_line(monkeypatch):
    monkeypatch.setenv(backends.BACKEND_ENV, "onnxruntime")
    assert CardDetector().backend_name == "onnxruntime"
    with pytest.raises(ModelError, match="unknown inference backend 'tensorflow'"):
        CardDetector(backend="tensorflow")
    monkeypatch.setenv(backends.BACKEND_ENV, "warp-drive")
    with pytest.raises(ModelError, match="unknown inference backend 'warp-drive'"):
        CardDetector()
