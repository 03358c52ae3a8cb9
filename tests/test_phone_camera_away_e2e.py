"""The phone as the table camera when the phone looks away, end to end: a real ``handfoot serve`` (127.0.0.1, a
temporary ledger) and headless Chromium whose camera plays a generated round (tests/test_phone_camera_e2e.py), the
live view started from the page. Its screen turns off (the page hidden, the phone ends the camera) and is woken; its
Wi-Fi drops for a few seconds.

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os
import time

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
pytest.importorskip("selenium")
pytest.importorskip("cv2")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_page_e2e import console_errors, shots_dir, text_of, viewport  # noqa: E402
from test_phone_camera_e2e import camera_file, phone_served  # noqa: E402,F401 (camera_file: a fixture)

SENDING = "return import('/static/camera.js').then(m => m.sending())"


@pytest.fixture()
def watching(tmp_path, camera_file):  # noqa: F811 (the fixture imported above)
    """A phone watching a game's table through its own camera, started from the live view's page: (driver, url)."""
    with phone_served(tmp_path, camera_file) as (d, url, game):
        viewport(d, 390, 844)
        d.get(f"{url}/#/live/{game}")
        WebDriverWait(d, 60).until(lambda d: d.find_elements(By.ID, "start-live"))
        one_side = d.find_element(By.ID, "live-split-one-side")
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", one_side)
        one_side.click()
        d.find_element(By.ID, "start-live").click()
        WebDriverWait(d, 60).until(lambda d: "This phone is the camera" in (text_of(d, "#camera-note") or ""))
        WebDriverWait(d, 60).until(lambda d: "watching the table" in (text_of(d, "#live-status") or "")
                                   or "moves over the table" in (text_of(d, "#live-status") or ""))
        yield d, url


def page_shown(d, visible: bool) -> None:
    """The page put out of sight (the phone's screen off, another app in front) or back, as the browser says it."""
    d.execute_script("""Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => arguments[0]});
        Object.defineProperty(document, 'hidden', {configurable: true, get: () => arguments[0] !== 'visible'});
        document.dispatchEvent(new Event('visibilitychange'))""", "visible" if visible else "hidden")


def test_the_camera_the_phone_turned_off_is_said_and_starts_again_when_woken(watching, tmp_path):
    import httpx

    d, url = watching
    shots = shots_dir(tmp_path)
    # the screen turns off: the page is hidden, and the phone ends its camera
    page_shown(d, False)
    d.execute_script("document.querySelector('video.camera-source').srcObject.getVideoTracks()[0].dispatchEvent(new Event('ended'))")
    went_off = "This phone's camera went off (its screen turned off, or another app took the camera)"
    WebDriverWait(d, 5).until(lambda d: went_off in (text_of(d, "#camera-note") or ""))
    assert "No phone sends" not in text_of(d, "#camera-note") and d.find_elements(By.ID, "camera-use")
    WebDriverWait(d, 10).until(lambda d: httpx.get(url + "/v1/live").json()["status"] == "reconnecting")
    time.sleep(1.5)  # the server's state says no camera sends: still this phone's words
    assert went_off in text_of(d, "#camera-note") and d.execute_script(SENDING) is False
    d.save_screenshot(str(shots / "page_live_phone_camera_went_off_390.png"))
    # woken: the camera starts again by itself, and the table is watched again
    page_shown(d, True)
    WebDriverWait(d, 10).until(lambda d: d.execute_script(SENDING) is True)
    WebDriverWait(d, 10).until(lambda d: "This phone is the camera" in (text_of(d, "#camera-note") or ""))
    WebDriverWait(d, 20).until(lambda d: httpx.get(url + "/v1/live").json()["status"] != "reconnecting")
    d.save_screenshot(str(shots / "page_live_phone_camera_woken_390.png"))
    assert console_errors(d) == []


def test_the_wifi_dropping_is_said_under_the_picture_and_goes_when_it_is_back(watching, tmp_path):
    d, url = watching
    shots = shots_dir(tmp_path)
    d.execute_cdp_cmd("Network.enable", {})
    conditions = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, **conditions})
    unreached = "this phone cannot reach the handfoot server: the picture and scores shown are from before"
    WebDriverWait(d, 10).until(lambda d: unreached in (text_of(d, "#live-status") or ""))
    assert "Not done" not in text_of(d, "main")  # nothing was asked of the family: nothing is said undone
    assert d.find_elements(By.CSS_SELECTOR, "#live-status .dot.reconnecting")
    d.save_screenshot(str(shots / "page_live_phone_offline_390.png"))
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, **conditions})
    WebDriverWait(d, 15).until(lambda d: unreached not in (text_of(d, "#live-status") or ""))
    assert "This phone is the camera" in text_of(d, "#camera-note")
