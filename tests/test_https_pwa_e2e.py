"""HTTPS and the installable page, end to end with a real ``handfoot serve`` and headless Chromium.

- ``serve --https`` answers plain HTTP on its port with a redirect to ``https://``, and makes its certificate once (kept in the data folder, the same after a restart, its SHA-256
  fingerprint printed); a client trusting the kept authority verifies it; Chromium told to accept the project's
  certificate (its public key's hash) loads the page over https and starts the phone's camera.
- On ``http://127.0.0.1`` Chromium registers the service worker; the manifest validates (Chromium's own parser:
  no errors; name, start_url, display, icons of 192 and 512 px that are those sizes); with the server stopped,
  the kept shell shows the "cannot be reached" page.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

pytest.importorskip("selenium")
pytest.importorskip("cv2")
pytest.importorskip("cryptography")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from test_page_e2e import console_errors, shots_dir, start_server, text_of, viewport  # noqa: E402
from test_phone_camera_e2e import chromium, fake_camera_file, new_game  # noqa: E402


def wait_up(proc, url: str, log: Path, verify, seconds: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"the server did not answer in {seconds} s"
        try:
            if httpx.get(url + "/v1/health", timeout=2, verify=verify).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)


def stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except Exception:
        proc.kill()
        proc.wait(10)


@pytest.fixture()
def still_camera(tmp_path, anglo_deck):
    """A fake camera file showing one still table (a few seconds, played over and over)."""
    import cv2

    from datasets.round_video import ROUND
    from datasets.scenes import make_scene

    image = make_scene(1, [anglo_deck], size=(1280, 720), full_view=True, clutter=False, piles=list(ROUND.piles),
                       shown=ROUND.stages[0]).image
    video = tmp_path / "still.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for _ in range(20):
        out.write(image)
    out.release()
    return fake_camera_file(video, tmp_path / "still.mjpeg", hold_seconds=0)


def test_https_certificate_kept_and_the_camera_started_over_it(tmp_path, still_camera):
    import ssl

    import httpx
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    from handfoot.https import _spki

    proc, port, log = start_server(tmp_path, ["--https"])
    url = f"https://127.0.0.1:{port}"
    ca = tmp_path / "data" / "https" / "handfoot-ca.pem"
    server_pem = tmp_path / "data" / "https" / "server.pem"
    try:
        deadline = time.monotonic() + 60
        while not ca.is_file():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        wait_up(proc, url, log, verify=ssl.create_default_context(cafile=str(ca)))  # a valid chain for 127.0.0.1
        printed = log.read_text()
        fingerprint = re.search(r"SHA-256 fingerprint ([0-9A-F:]{95})", printed).group(1)
        assert f"open {url}/" in printed and "made now" in printed
        cert = x509.load_pem_x509_certificate(server_pem.read_bytes())
        assert fingerprint == ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))
        with pytest.raises(httpx.ConnectError):  # not trusted by anyone who did not accept it
            httpx.get(url + "/v1/health", timeout=5)
        r = httpx.get(url + "/handfoot-ca.crt", verify=ssl.create_default_context(cafile=str(ca)))
        assert r.status_code == 200 and r.content == ca.read_bytes()

        game = new_game(url)
        d = chromium(tmp_path, still_camera, (f"--ignore-certificate-errors-spki-list={_spki(cert)}",))
        try:
            wait = WebDriverWait(d, 90)
            viewport(d, 390, 844)
            d.get(f"http://127.0.0.1:{port}/#/live/{game}")  # typed without https: told where to go
            wait.until(lambda d: d.find_elements(By.ID, "live-source"))
            assert d.current_url == f"{url}/#/live/{game}"
            assert d.execute_script("return window.isSecureContext") is True
            assert d.find_element(By.ID, "live-source-browser").is_selected()
            one_side = d.find_element(By.ID, "live-split-one-side")  # what the camera sees: a radio a choice
            d.execute_script("arguments[0].scrollIntoView({block: 'center'})", one_side)
            one_side.click()
            d.find_element(By.ID, "start-live").click()
            wait.until(lambda d: "This phone is the camera" in (text_of(d, "#camera-note") or ""))
            wait.until(lambda d: d.execute_script("return document.getElementById('live-picture').naturalWidth") > 0)
            wait.until(lambda d: text_of(d, "[data-total='Us']") == "90")  # the still table: melds of 8s and Ks
            d.save_screenshot(str(shots_dir(tmp_path) / "page_live_https_390.png"))
            assert console_errors(d) == []
        finally:
            d.quit()
    finally:
        stop(proc)

    kept = server_pem.read_bytes()
    proc, port2, log2 = start_server(tmp_path, ["--https"])
    try:
        wait_up(proc, f"https://127.0.0.1:{port2}", log2, verify=ssl.create_default_context(cafile=str(ca)))
        again = log2.read_text()
        assert "the one kept" in again and fingerprint in again
        r = httpx.get(f"http://127.0.0.1:{port2}/v1/games?x=1", timeout=5)  # plain HTTP on the HTTPS port
        assert r.status_code == 308 and r.headers["location"] == f"https://127.0.0.1:{port2}/v1/games?x=1"
        assert "speaks HTTPS" in r.json()["error"]
        assert server_pem.read_bytes() == kept
    finally:
        stop(proc)


def test_installable_with_an_offline_page(tmp_path, still_camera):
    import cv2
    import httpx
    import numpy as np

    proc, port, log = start_server(tmp_path)
    url = f"http://127.0.0.1:{port}"
    d = chromium(tmp_path, still_camera)
    try:
        wait_up(proc, url, log, verify=True)
        for path in ("/static/camera.js", "/static/pwa.js", "/sw.js"):
            assert "javascript" in httpx.get(url + path).headers["content-type"], path
        manifest = httpx.get(url + "/manifest.webmanifest")
        assert manifest.headers["content-type"].startswith("application/manifest+json")
        data = manifest.json()
        assert data["name"] and data["start_url"] == "/" and data["display"] == "standalone" and data["theme_color"]
        sizes = set()
        for icon in data["icons"]:
            png = cv2.imdecode(np.frombuffer(httpx.get(url + icon["src"]).content, np.uint8), cv2.IMREAD_COLOR)
            assert f"{png.shape[1]}x{png.shape[0]}" == icon["sizes"], icon
            sizes.add(png.shape[1])
        assert {192, 512} <= sizes

        viewport(d, 390, 844)
        d.get(url + "/")
        wait = WebDriverWait(d, 30)
        wait.until(lambda d: d.find_elements(By.LINK_TEXT, "New game"))
        scope = d.execute_script("return navigator.serviceWorker.ready.then(r => r.scope)")
        assert scope == url + "/"
        parsed = d.execute_cdp_cmd("Page.getAppManifest", {})
        assert parsed["url"] == url + "/manifest.webmanifest" and parsed["errors"] == [], parsed["errors"]
        # Chromium's own verdict: installable ("Add to Home screen" / "Install app" opens it standalone)
        assert d.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"] == []
        d.get(url + "/")  # now under the worker
        wait.until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        wait.until(lambda d: d.execute_script("return caches.open('handfoot-shell-v1').then(c => c.keys())"
                                              ".then(k => k.length)") >= 11)
        assert console_errors(d) == []
    finally:
        stop(proc)
    try:
        d.get(url + "/")  # the server is away
        WebDriverWait(d, 20).until(lambda d: d.find_elements(By.ID, "offline-title"))
        assert text_of(d, "h1") == "The handfoot server cannot be reached"
        d.save_screenshot(str(shots_dir(tmp_path) / "page_offline_390.png"))
    finally:
        d.quit()
