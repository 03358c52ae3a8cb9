"""A round ended on the phone that is the camera, followed on another phone, end to end: a real ``handfoot serve``
and headless Chromium whose camera plays a generated round (tests/test_phone_camera_away_e2e.py's ``watching``).
Until the round is checked and saved, every live view says it waits and offers its check.

Screenshots at 390 x 844 go to ``$HANDFOOT_SCREENSHOTS`` (default: the test's temporary folder).
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
pytest.importorskip("selenium")
pytest.importorskip("cv2")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_page_e2e import console_errors, save_round, shots_dir, text_of, viewport  # noqa: E402
from test_phone_camera_away_e2e import watching  # noqa: E402,F401 (a fixture)
from test_phone_camera_e2e import camera_file  # noqa: E402,F401 (a fixture)


def test_a_round_ended_on_one_phone_is_offered_to_check_on_the_other_until_saved(watching, tmp_path):  # noqa: F811
    d, url = watching
    shots = shots_dir(tmp_path)
    wait = WebDriverWait(d, 60)
    wait.until(lambda d: d.find_element(By.ID, "end-round").is_enabled())  # the table was read
    camera_tab = d.current_window_handle
    d.switch_to.new_window("tab")  # the other phone follows the live view
    viewport(d, 390, 844)
    d.get(f"{url}/#/live")
    wait.until(lambda d: "Another phone is the camera" in (text_of(d, "#camera-note") or ""))
    assert not d.find_element(By.ID, "live-ended").is_displayed()
    follower_tab = d.current_window_handle

    d.switch_to.window(camera_tab)
    d.find_element(By.ID, "end-round").click()
    wait.until(lambda d: "/check/" in d.current_url)
    check = d.current_url.split("#", 1)[1]

    d.switch_to.window(follower_tab)
    wait.until(lambda d: d.find_element(By.ID, "live-ended").is_displayed())
    assert "End of round was pressed: round 1 waits to be checked and saved" in text_of(d, "#live-ended")
    link = d.find_element(By.ID, "live-ended-check")
    assert link.get_attribute("href").endswith("#" + check)  # the same round, not a second reading of it
    d.save_screenshot(str(shots / "page_live_follower_round_ended_390.png"))

    d.switch_to.window(camera_tab)
    save_round(d, "Them: nothing was read")  # the camera saw the side of Us only
    wait.until(lambda d: "/check/" not in d.current_url)
    d.switch_to.window(follower_tab)
    wait.until(lambda d: not d.find_element(By.ID, "live-ended").is_displayed())  # saved: the next round is watched
    wait.until(lambda d: "Round 1 saved" in (text_of(d, "#live-saved") or ""))
    assert console_errors(d) == []
