"""Pictures that are not cards (a chart, a page's text, a mug) read as nothing but jokers are refused as photos
with no cards found: by the pipeline, the command line (exit 1, one line) and the web service (422)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import once
from sides import S, dets, read_hand, read_side

from test_cli_faults import one_line
from vision.config import DEFAULT
from vision.pipeline import jokers_alone


def bar_chart() -> np.ndarray:
    """A (900, 1200, 3) uint8 BGR bar chart on white: axes, tick labels ("0%" ... "100%"), five bars and their
    years; the shipped models box its labels and read them as jokers (nothing else)."""
    import cv2

    h, w = 900, 1200
    img = np.full((h, w, 3), 255, np.uint8)
    x0, y0, x1, y1 = 170, 80, w - 40, h - 100
    cv2.line(img, (x0, y1), (x1, y1), (0, 0, 0), 2)
    cv2.line(img, (x0, y0), (x0, y1), (0, 0, 0), 2)
    for v in range(0, 101, 20):
        y = int(y1 - (y1 - y0) * v / 100)
        cv2.line(img, (x0 - 8, y), (x0, y), (0, 0, 0), 2)
        cv2.putText(img, f"{v}%", (x0 - 120, y + 12), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (40, 40, 40), 2, cv2.LINE_AA)
    tops = (0.35, 0.6, 0.45, 0.8, 0.55)
    for i, t in enumerate(tops):
        cx = int(x0 + (i + 0.5) * (x1 - x0) / len(tops))
        cv2.rectangle(img, (cx - 45, int(y1 - t * (y1 - y0))), (cx + 45, y1), (180, 120, 60), -1)
        cv2.putText(img, f"{2020 + i}", (cx - 45, y1 + 45), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2, cv2.LINE_AA)
    return img


@pytest.fixture(scope="module")
def chart_file(tmp_path_factory):
    cv2 = pytest.importorskip("cv2")
    path = tmp_path_factory.mktemp("chart") / "chart.png"
    cv2.imwrite(str(path), bar_chart())
    return path


@pytest.fixture(scope="module")
def models():
    pytest.importorskip("onnxruntime")
    from handfoot.core import load_models

    return load_models()


def test_jokers_alone_are_no_table_but_a_joker_beside_a_natural_is_read():
    only = dets([("JK", 100, 100), ("JK", 100 + 2.6 * S, 100 + 3.3 * S), ("JK", 400, 100)])
    assert jokers_alone(only) and not jokers_alone(dets([("JK", 100, 100), ("7H", 300, 100)]))
    assert not jokers_alone(dets([("7H", 300, 100)])) and not jokers_alone(dets([]))
    assert not jokers_alone(only, DEFAULT.replace(**{"reading.jokers_beside": 0}))
    assert len(read_side(only).detections) == 0 and read_side(only).piles == []
    assert len(read_hand(only).detections) == 0
    beside = read_side(dets([("JK", 100, 100), ("JK", 100 + 2.6 * S, 100 + 3.3 * S), ("7H", 600, 100)]))
    assert sorted(c.code for c in beside.cards) == ["7H", "JK"]


def test_a_chart_read_as_jokers_has_no_cards(models):
    from vision.pipeline import read_image

    chart = bar_chart()
    before = read_image(chart, models.detector, models.reader, config=DEFAULT.replace(**{"reading.jokers_beside": 0}))
    assert len(before[0].detections) >= 3 and {c.code for c in before[0].cards} == {"JK"}  # what was scored
    assert [len(s.detections) for s in read_image(chart, models.detector, models.reader)] == [0]


def test_the_command_line_refuses_a_chart_in_one_line(chart_file, capsys, models):
    from handfoot.cli import main

    assert main(["score", str(chart_file)]) == 1
    assert f"{chart_file}: no cards found (is the whole table in the photo, in focus and lit?)" in one_line(capsys)


def test_the_service_refuses_a_chart_with_words(chart_file, tmp_path, models):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from handfoot.service import Settings, create_app

    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        r = c.post("/v1/photos", files=[("photos", ("chart.png", chart_file.read_bytes(), "image/png"))],
                   data={"rules": "pagat"}, headers=once())
    assert r.status_code == 422, r.text
    said = r.json()["error"]
    assert said.startswith("chart.png (team A): no cards found (is the whole table in the photo, in focus and lit?)")
    assert not any((tmp_path / "photos").iterdir())  # nothing kept of a refused reading
