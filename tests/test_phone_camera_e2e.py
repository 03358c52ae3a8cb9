"""The phone as the table camera, end to end: a real ``handfoot serve`` (127.0.0.1, a temporary ledger, the shipped
models) and headless Chromium whose camera is a fake one playing a generated round (``datasets.round_video``,
turned into the Motion JPEG file Chromium's fake camera plays at 30 frames a second, the last stage held so the
video does not start over before the round is ended). The live view is started from the page with this phone's
camera; its frames go over the WebSocket; the round's true total is reached; End of round, check, save.

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os
import re
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
pytest.importorskip("selenium")
pytest.importorskip("cv2")
from conftest import once  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_page_e2e import CHROMEDRIVER, CHROMIUM, console_errors, save_round, shots_dir, start_server, text_of, \
    viewport, wait_for_server  # noqa: E402

#: the round's true total for the team in view (datasets.round_video.ROUND; tests/test_page_e2e.py reads it too)
TRUE_TOTAL = "710"


def fake_camera_file(video: Path, out: Path, hold_seconds: float = 25.0) -> Path:
    """``video``'s frames as the ``.mjpeg`` Chromium's fake camera plays (JPEGs one after another, 30 a second):
    each frame repeated to keep the video's own speed, the last one held ``hold_seconds``."""
    import cv2

    cap = cv2.VideoCapture(str(video))
    fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
    repeat = max(1, round(30 / fps))
    last = b""
    with open(out, "wb") as f:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            last = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
            f.write(last * repeat)
        f.write(last * round(30 * hold_seconds))
    cap.release()
    return out


@pytest.fixture()
def camera_file(tmp_path, anglo_deck):
    from datasets.round_video import round_video

    video = tmp_path / "round.avi"
    round_video(video, [anglo_deck], size=(1280, 720), fps=10)
    return fake_camera_file(video, tmp_path / "round.mjpeg")


def chromium(tmp_path: Path, camera: Path, extra: tuple[str, ...] = ()):
    """Headless Chromium at 390 x 844 whose camera plays ``camera`` (asked for it, it is given at once)."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("Chromium and ChromeDriver are not installed (Debian: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=390,844", "--force-device-scale-factor=1",
                "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                f"--use-file-for-fake-video-capture={camera}", "--autoplay-policy=no-user-gesture-required", *extra):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))


def new_game(url: str) -> str:
    import httpx

    r = httpx.post(url + "/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, verify=False, headers=once())
    assert r.status_code == 201, r.text
    return r.json()["id"]


@contextmanager
def phone_served(tmp_path: Path, camera: Path):
    """A real ``handfoot serve`` (:func:`start_server`) with a game of Us and Them, and a phone whose camera plays
    ``camera`` (:func:`chromium`): (driver, the server's address, the game's id); both stopped at the end."""
    proc, port, log = start_server(tmp_path)
    url = f"http://127.0.0.1:{port}"
    d = chromium(tmp_path, camera)
    try:
        wait_for_server(proc, url, log)
        yield d, url, new_game(url)
    finally:
        d.quit()
        proc.kill()
        proc.wait(10)


def test_a_round_watched_through_the_phones_camera(tmp_path, camera_file):
    import httpx

    with phone_served(tmp_path, camera_file) as (d, url, game):
        shots = shots_dir(tmp_path)
        wait = WebDriverWait(d, 120)
        viewport(d, 390, 844)
        d.get(f"{url}/#/live/{game}")
        wait.until(lambda d: d.find_elements(By.ID, "live-source"))
        assert d.find_element(By.ID, "live-source-browser").is_selected()  # a secure page: the phone first
        one_side = d.find_element(By.ID, "live-split-one-side")  # what the camera sees: a radio a choice
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", one_side)
        one_side.click()  # the camera sees the side of Us only
        d.save_screenshot(str(shots / "page_live_start_390.png"))
        d.find_element(By.ID, "start-live").click()

        wait.until(lambda d: d.find_elements(By.ID, "live-picture"))
        assert "This phone is the camera" in (text_of(d, "#camera-note") or "")
        assert d.execute_script("return import('/static/camera.js').then(m => m.awake())") is True  # screen kept on
        wait.until(lambda d: d.execute_script("return document.getElementById('live-picture').naturalWidth") > 0)
        wait.until(lambda d: "book of Ks complete" in (text_of(d, "#live-events") or ""))
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, ".live-label"))
        labels = d.execute_script("""return [...document.querySelectorAll('.live-label')].map(e =>
            [e.textContent, parseFloat(getComputedStyle(e).fontSize), e.getBoundingClientRect().height])""")
        assert len(labels) >= 5 and all(px >= 14 for _, px, _ in labels), labels  # readable at phone width
        assert all(re.fullmatch(r"(10|[2-9AJQK])[♠♥♦♣]|Jkr", t) for t, _, _ in labels), labels
        d.save_screenshot(str(shots / "page_live_phone_390.png"))
        # the names can be taken off to see the cards under them, and put back
        layer_shown = "return !document.querySelector('.live-labels').hidden && document.querySelector('.live-label').offsetWidth > 0"
        d.find_element(By.ID, "live-names").click()
        assert d.find_element(By.ID, "live-names").text == "Show card names"
        assert d.execute_script(layer_shown) is False
        d.save_screenshot(str(shots / "page_live_phone_names_off_390.png"))
        d.find_element(By.ID, "live-names").click()
        wait.until(lambda d: d.execute_script(layer_shown))
        wait.until(lambda d: "red three laid" in (text_of(d, "#live-events") or ""))
        wait.until(lambda d: text_of(d, "[data-total='Us']") == TRUE_TOTAL)
        state = d.execute_script("return fetch('/v1/live').then(r => r.json())")
        assert state["source"] == "browser" and state["reads"] >= 4

        # another phone follows the score (a second page: it does not send, it may take over)
        camera_tab = d.current_window_handle
        d.switch_to.new_window("tab")
        viewport(d, 390, 844)
        d.get(f"{url}/#/live")
        wait.until(lambda d: "Another phone is the camera" in (text_of(d, "#camera-note") or ""))
        wait.until(lambda d: text_of(d, "[data-total='Us']") == TRUE_TOTAL)
        assert d.find_elements(By.ID, "camera-use")
        follower_tab = d.current_window_handle
        d.switch_to.window(camera_tab)

        d.find_element(By.ID, "end-round").click()
        wait.until(lambda d: "/check/" in d.current_url)
        wait.until(lambda d: text_of(d, "[data-round-total='Us']") == TRUE_TOTAL)
        save_round(d, "Them: nothing was read")  # the camera saw the side of Us only
        wait.until(lambda d: d.current_url.endswith(f"#/game/{game}"))
        wait.until(lambda d: text_of(d, "[data-total='Us']") == TRUE_TOTAL)
        # away from the live view the bar says this phone's camera is still on, and the game says it is watched, for
        # the next round, with the last round's cards still on the table
        assert d.find_element(By.ID, "camera-on").is_displayed()
        wait.until(lambda d: "Round 1 saved. A camera is watching for round 2: clear the table" in (text_of(d, "#live-line") or ""))
        d.save_screenshot(str(shots / "page_game_camera_on_390.png"))
        d.find_element(By.ID, "watch-live").click()
        wait.until(lambda d: text_of(d, "#live-title") == "Live: Us vs Them, round 2")  # the next round is watched
        saved = f"Round 1 saved: Us {TRUE_TOTAL}, Them 0 in all."
        wait.until(lambda d: saved in (text_of(d, "#live-saved") or ""))
        assert "Watching for round 2 now: clear the table" in text_of(d, "#live-saved") and "Stop this camera." in text_of(d, "#live-saved")
        d.save_screenshot(str(shots / "page_live_phone_round2_390.png"))
        # the phone that followed the scores is told too, with the game's page
        d.switch_to.window(follower_tab)
        wait.until(lambda d: saved in (text_of(d, "#live-saved") or ""))
        assert "Stop watching." in text_of(d, "#live-saved")
        assert d.find_element(By.CSS_SELECTOR, f"#live-saved a[href='#/game/{game}']")
        d.save_screenshot(str(shots / "page_live_follower_round_saved_390.png"))
        # its game page says a camera watches, and stops saying it when the camera stops, without a reload
        d.execute_script(f"location.hash = '#/game/{game}'")
        wait.until(lambda d: "A camera is watching" in (text_of(d, "#live-line") or ""))
        # while it watches, the live view is the primary way on, not a photo of the round (scored twice)
        assert d.execute_script("return document.getElementById('watch-live').classList.contains('primary') && "
                                "!document.getElementById('score-round').classList.contains('primary')")
        d.switch_to.window(camera_tab)
        d.execute_script(f"location.hash = '#/game/{game}'")  # not a reload: the camera goes on sending
        wait.until(lambda d: d.find_elements(By.ID, "watch-live"))

        # Stop this camera on the live view: the line about the camera and the status under the picture agree, at once
        d.find_element(By.ID, "watch-live").click()
        wait.until(lambda d: d.find_elements(By.ID, "camera-off")).pop().click()
        assert "You stopped this phone's camera" in text_of(d, "#camera-note")  # at once
        stopped = "the phone's camera was stopped: the table is not watched until a phone's camera is used again"
        assert stopped in text_of(d, "#live-status") and d.find_elements(By.CSS_SELECTOR, "#live-status .dot.reconnecting")
        assert "watching the table" not in text_of(d, "#live-status")
        d.save_screenshot(str(shots / "page_live_phone_camera_stopped_now_390.png"))
        d.switch_to.window(follower_tab)  # the other phone's game page: the camera is no longer said to watch
        wait.until(lambda d: not d.find_element(By.ID, "live-line").is_displayed())
        assert d.execute_script("return document.getElementById('score-round').classList.contains('primary')")
        d.save_screenshot(str(shots / "page_game_camera_stopped_390.png"))
        d.switch_to.window(camera_tab)
        assert "You stopped this phone's camera" in text_of(d, "#camera-note") and d.find_elements(By.ID, "camera-use")
        d.save_screenshot(str(shots / "page_live_phone_camera_stopped_390.png"))
        time.sleep(6)  # past the 5 s a silent camera is given: still the same words, no "trying again"
        assert stopped in text_of(d, "#live-status") and "trying again" not in text_of(d, "main")
        d.find_element(By.ID, "camera-use").click()  # and used again
        wait.until(lambda d: "This phone is the camera" in (text_of(d, "#camera-note") or ""))
        wait.until(lambda d: "watching the table" in (text_of(d, "#live-status") or ""))
        d.switch_to.window(follower_tab)
        wait.until(lambda d: d.find_element(By.ID, "live-line").is_displayed())  # and again once it watches
        d.switch_to.window(camera_tab)

        # stop watching from the live view: it is left at once, the start view follows in a moment
        d.find_element(By.ID, "stop-live").click()
        wait.until(lambda d: d.find_element(By.ID, "sheet").is_displayed())
        d.find_element(By.ID, "confirm-yes").click()
        assert not d.find_elements(By.ID, "live-picture")  # at once
        WebDriverWait(d, 2).until(lambda d: d.find_elements(By.ID, "live-source"))
        d.save_screenshot(str(shots / "page_live_stopped_390.png"))
        wait.until(lambda d: d.execute_script("return import('/static/camera.js').then(m => m.sending())") is False)
        assert not d.find_element(By.ID, "camera-on").is_displayed()
        assert d.execute_script("return import('/static/camera.js').then(m => m.awake())") is False  # let go

        # watching again, stopped on another phone (Stop watching there): this phone says so and stops its camera
        d.find_element(By.ID, "start-live").click()
        wait.until(lambda d: "This phone is the camera" in (text_of(d, "#camera-note") or ""))
        assert httpx.delete(url + "/v1/live").status_code == 204
        wait.until(lambda d: "Watching was stopped on another phone" in (text_of(d, "#live-why") or ""))
        wait.until(lambda d: d.execute_script("return import('/static/camera.js').then(m => m.sending())") is False)
        d.save_screenshot(str(shots / "page_live_stopped_elsewhere_390.png"))
        # the game's last round saved on another phone: the game is no longer offered, and is said to be over
        layout = {"teams": {"Us": {"melds": [["KH", "KS", "KD"]]}, "Them": {"melds": [["9S", "9H", "9D"]]}}}
        while not httpx.get(f"{url}/v1/games/{game}").json()["over"]:
            assert httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json=layout,
                              headers=once()).status_code == 201
        wait.until(lambda d: "Us vs Them: the game is over" in (text_of(d, "#live-game-over") or ""))
        assert d.find_element(By.CSS_SELECTOR, f"#live-game-over a[href='#/game/{game}']")
        assert not d.find_elements(By.ID, "start-live") and "Start a game first" in text_of(d, "main")
        d.save_screenshot(str(shots / "page_live_game_over_390.png"))
        assert console_errors(d) == []
