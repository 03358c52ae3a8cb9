"""A browser's camera feeding the live view: ``POST /v1/live {"source": "browser"}`` and the WebSocket
``/v1/live/camera`` (one JPEG a message), read as a webcam's frames; frames checked before they are decoded;
the socket refused without the token or from another site's page."""

from __future__ import annotations

import time

import numpy as np
import pytest

from conftest import once

pytest.importorskip("cv2")
pytest.importorskip("fastapi")


def jpeg(image: np.ndarray, quality: int = 85) -> bytes:
    import cv2

    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return data.tobytes()


@pytest.fixture(scope="module")
def stages(anglo_deck):
    from datasets.round_video import ROUND
    from datasets.scenes import make_scene

    return [jpeg(make_scene(1, [anglo_deck], size=(1280, 720), full_view=True, clutter=False,
                            piles=list(ROUND.piles), shown=stage).image) for stage in ROUND.stages[:2]]


@pytest.fixture(scope="module")
def models():
    from handfoot.core import load_models

    return load_models()


def until(check, seconds: float = 30.0, what: str = "", tick=None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if tick is not None:
            tick()
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s: {what}")


def test_frames_are_checked_before_they_are_decoded():
    from handfoot.camera import MAX_FRAME_BYTES, FrameError, check_frame, decode_frame
    from handfoot.errors import TooLargeError

    assert check_frame(jpeg(np.zeros((72, 128, 3), np.uint8))) == (128, 72)
    with pytest.raises(FrameError, match="one JPEG image a message"):
        check_frame(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    with pytest.raises(TooLargeError, match="bytes"):
        check_frame(b"\xff\xd8" + b"\0" * MAX_FRAME_BYTES)
    with pytest.raises(TooLargeError, match="5000 x 8 pixels"):
        check_frame(jpeg(np.zeros((8, 5000, 3), np.uint8)))
    with pytest.raises(FrameError):
        decode_frame(jpeg(np.zeros((72, 128, 3), np.uint8))[:200])  # a header, no picture


def test_a_round_watched_through_a_browsers_camera(tmp_path, stages, models):
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from handfoot.service import Settings, create_app

    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        game = c.post("/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        with c.websocket_connect("ws://127.0.0.1/v1/live/camera") as ws:  # nothing waits for a browser's camera yet
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404
        r = c.post("/v1/live", json={"source": "browser", "game": game})
        assert r.status_code == 201, r.text
        assert r.json()["source"] == "browser" and r.json()["frame_width"] == 1920
        assert r.json()["message"] == "waiting for the phone's camera"
        assert c.post("/v1/live", json={"source": "browser", "game": game}).status_code == 409

        with c.websocket_connect("ws://127.0.0.1/v1/live/camera") as ws:
            def send(k):
                ws.send_bytes(stages[k])
                assert ws.receive_json()["frames"] >= 1
            state = until(lambda: (s := c.get("/v1/live").json())["reads"] >= 1 and s, tick=lambda: send(0),
                          what="a first reading")
            assert state["totals"] == {"Us": 90} and state["status"] in ("watching", "reading", "moving")
            picture = until(lambda: (r := c.get("/v1/live/frame.jpg")).status_code == 200 and r,
                            tick=lambda: send(0), what="a picture")  # made while someone looks
            assert picture.content[:2] == b"\xff\xd8"
            state = until(lambda: (s := c.get("/v1/live").json())["totals"] == {"Us": 100} and s,
                          tick=lambda: send(1), what="the 8 added")
            assert state["events"][-1]["event"] == "team Us: meld of 8s grew to 4"

            # a second socket (the page reloaded) takes over
            with c.websocket_connect("ws://127.0.0.1/v1/live/camera") as newer:
                newer.send_bytes(stages[1])
                assert newer.receive_json()["frames"] >= 1
                ws.send_bytes(stages[1])
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == 4409
                newer.send_text("hello")
                with pytest.raises(WebSocketDisconnect) as closed:
                    newer.receive_json()
                assert closed.value.code == 1003

        # the phone goes quiet: the layout stays, the session says so and waits for it
        state = until(lambda: (s := c.get("/v1/live").json())["status"] == "reconnecting" and s, seconds=15,
                      what="the camera taken as stopped")
        assert state["totals"] == {"Us": 100} and "no picture from the phone's camera" in state["message"]

        for bad, code in ((b"GIF89a" + b"\0" * 20, 1007), (jpeg(np.zeros((8, 5000, 3), np.uint8)), 1009)):
            with c.websocket_connect("ws://127.0.0.1/v1/live/camera") as ws:
                ws.send_bytes(bad)
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == code
        with c.websocket_connect("ws://127.0.0.1/v1/live/camera") as ws:  # it comes back
            until(lambda: c.get("/v1/live").json()["status"] != "reconnecting", seconds=15,
                  tick=lambda: (ws.send_bytes(stages[1]), ws.receive_json()), what="back")

        ended = c.post("/v1/live/end-round", json={}).json()
        reading = c.get(f"/v1/photos/{ended['reading']}").json()
        assert reading["score"]["teams"]["Us"]["total"] == 100
        assert c.delete("/v1/live").status_code == 204


def test_a_phone_that_stops_its_camera_is_said_at_once_and_stop_watching_is_quick(tmp_path, models):
    """The page's Stop this camera (its socket closed with 1000): the live view says so within a moment, not
    "watching the table" until 5 s without a picture, nor "trying again"; Stop watching then answers at once,
    not after a wait for the next frame."""
    from fastapi.testclient import TestClient

    from handfoot import live
    from handfoot.service import Settings, create_app

    app = create_app(Settings(db=tmp_path / "h.db"), models=models)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        game = c.post("/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        assert c.post("/v1/live", json={"source": "browser", "game": game}).status_code == 201
        with c.websocket_connect("ws://127.0.0.1/v1/live/camera") as ws:
            until(lambda: c.get("/v1/live").json()["status"] == "watching", what="watching",
                  tick=lambda: (ws.send_bytes(jpeg(np.zeros((72, 128, 3), np.uint8))), ws.receive_json()))
            assert live.watching_game(app.state.live) == game  # the game's page says a camera watches it
        # the with closes the socket with 1000, as the page's Stop this camera does
        state = until(lambda: (s := c.get("/v1/live").json())["status"] == "reconnecting" and s, seconds=2,
                      what="the stop said")
        assert state["message"] == ("the phone's camera was stopped: the table is not watched until a phone's "
                                    "camera is used again"), state
        time.sleep(2.5)  # past the session's wait before it opens the camera again: the same words
        assert c.get("/v1/live").json()["message"] == state["message"]
        assert live.watching_game(app.state.live) is None  # no camera watches: the game's page no longer says so
        assert c.delete("/v1/live").status_code == 204
        assert live.watching_game(app.state.live) is None

        # a camera gone quiet without a word (Wi-Fi lost): Stop watching does not wait for its next frame either
        assert c.post("/v1/live", json={"source": "browser", "game": game}).status_code == 201
        with c.websocket_connect("ws://127.0.0.1/v1/live/camera") as ws:
            until(lambda: c.get("/v1/live").json()["status"] == "watching", what="watching",
                  tick=lambda: (ws.send_bytes(jpeg(np.zeros((72, 128, 3), np.uint8))), ws.receive_json()))
            started = time.monotonic()
            assert c.delete("/v1/live").status_code == 204
            assert time.monotonic() - started < 1.5
        assert c.get("/v1/live").json()["status"] == "off"


def test_the_camera_socket_needs_the_token_and_this_servers_page(tmp_path):
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from handfoot.service import Settings, create_app

    app = create_app(Settings(db=tmp_path / "h.db", token="s3cret"), load_models=False)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        for path, headers in (("ws://127.0.0.1/v1/live/camera", {}),
                              ("ws://127.0.0.1/v1/live/camera?token=s3cret", {"origin": "https://evil.example"})):
            with pytest.raises(WebSocketDisconnect) as refused:
                with c.websocket_connect(path, headers=headers):
                    pass
            assert refused.value.code == 1008
        with c.websocket_connect("ws://127.0.0.1/v1/live/camera?token=s3cret",
                                 headers={"origin": "http://127.0.0.1"}) as ws:
            with pytest.raises(WebSocketDisconnect) as closed:  # admitted: nothing waits for a camera
                ws.receive_json()
            assert closed.value.code == 4404
        assert c.get("/?token=s3cret").status_code == 200  # the page opened from the printed address: a cookie
        with c.websocket_connect("ws://127.0.0.1/v1/live/camera", headers={"origin": "http://127.0.0.1"}) as ws:
            with pytest.raises(WebSocketDisconnect) as closed:  # the cookie admits the page's socket
                ws.receive_json()
            assert closed.value.code == 4404
        r = c.post("/v1/live?token=s3cret", json={"source": "browser", "game": "0123456789abcdef"})
        assert r.status_code == 503 and "photo reading is off" in r.json()["error"]  # no models loaded here
