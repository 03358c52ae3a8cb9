"""A photo larger than the server takes, end to end: the page makes it smaller before sending it (``round.js``'s
``fitted``, the limit from ``/v1/health``), and the round is read. A real ``handfoot serve`` on 127.0.0.1 whose photo
limit is lowered to 2 MB, driven by headless Chromium at 390 x 844 (the fixtures of ``test_page_e2e``)."""

from __future__ import annotations

import sys

import pytest

from test_page_e2e import PHOTO, browser, running, shots_dir, text_of, viewport  # noqa: F401 (fixture)

cv2 = pytest.importorskip("cv2")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

LIMIT = 2_000_000

SERVE = f"""
import sys
import handfoot.limits as limits
import handfoot.service as service
service.Settings.model_fields["limits"].default_factory = lambda: limits.Limits(file_bytes={LIMIT})
service.Settings.model_rebuild(force=True)
from handfoot.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_photo_too_large_to_send_is_made_smaller_and_read(tmp_path, browser):  # noqa: F811
    big = tmp_path / "phone photo.png"  # the bundled table at twice its size, as a PNG: far over the limit
    image = cv2.imread(str(PHOTO))
    cv2.imwrite(str(big), cv2.resize(image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC))
    assert big.stat().st_size > LIMIT
    d, wait = browser, WebDriverWait(browser, 90)
    viewport(d, 390, 844)
    with running(tmp_path, command=[sys.executable, "-c", SERVE]) as url:
        d.get(url + "/")
        health = d.execute_script("return fetch('/v1/health').then(r => r.json())")
        assert health["photo_bytes"] == LIMIT
        game = d.execute_script("""return fetch('/v1/games', {method: 'POST', headers: {'content-type':
            'application/json', 'Idempotency-Key': hfSync.newKey()},
            body: JSON.stringify({teams: ['Us', 'Them'], rules: 'pagat'})}).then(r => r.json())""")
        d.get(f"{url}/#/game/{game['id']}/round")
        wait.until(lambda d: d.find_elements(By.ID, "table-0")).pop().send_keys(str(big))
        d.find_element(By.ID, "read-cards").click()
        wait.until(lambda d: "/check/" in d.current_url or d.find_elements(By.CSS_SELECTOR, ".error-box"))
        d.save_screenshot(str(shots_dir(tmp_path) / "page_big_photo_390.png"))
        assert "/check/" in d.current_url, text_of(d, ".error-box")
        reading = d.execute_script("return fetch('/v1/photos/' + arguments[0]).then(r => r.json())",
                                   d.current_url.rsplit("/", 1)[1])
        assert reading["images"][0]["image"] == "phone photo.jpg"  # sent as a JPEG, its name kept
        sent = d.execute_script("""return fetch('/v1/photos/' + arguments[0] + '/images/0').then(r => r.arrayBuffer())
            .then(b => [b.byteLength, ...new Uint8Array(b.slice(0, 2))])""", reading["id"])
        assert sent[0] <= LIMIT and sent[1:] == [0xFF, 0xD8]  # the photo kept is the JPEG sent, within the limit
