"""Another phone at the table (handfoot.invite, GET /v1/games/{id}/invite): the address another phone opens, with
the access token and the game, and a QR code that decodes to it (drawn by segno, rasterised by resvg, read back by
OpenCV's QR detector)."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from conftest import once
import segno

from handfoot.invite import LOCAL_ONLY, invite, terminal_qr


def decoded(data_uri: str) -> str:
    """The text a phone's camera reads from an SVG data URI's QR code."""
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    resvg_py = pytest.importorskip("resvg_py")
    assert data_uri.startswith("data:image/svg+xml")
    svg = unquote(data_uri.partition(",")[2])
    png = resvg_py.svg_to_bytes(svg_string=svg, width=400, height=400)
    image = cv2.imdecode(np.frombuffer(bytes(png), np.uint8), cv2.IMREAD_UNCHANGED)
    if image.shape[2] == 4:  # transparent background: the code's light modules on white
        alpha = image[:, :, 3:4].astype(np.float32) / 255
        image = (image[:, :, :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)
    # OpenCV's decoders each miss a few codes a phone reads (QRCodeDetector 1 of 60 random game addresses at 400 px):
    # the first that reads it, on the picture and with a wider quiet zone
    padded = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    for detector in (cv2.QRCodeDetectorAruco(), cv2.QRCodeDetector()):
        for picture in (image, padded):
            text, _, _ = detector.detectAndDecode(picture)
            if text:
                return text
    return ""


def test_a_phone_on_the_network_gets_the_address_it_reached_with_token_and_game():
    out = invite("192.168.1.20:8000", "https", "0.0.0.0", "s3cret-Token_x", "0123abcd")
    assert out.url == "https://192.168.1.20:8000/?token=s3cret-Token_x#/game/0123abcd"
    assert out.reason is None
    assert decoded(out.qr) == out.url


def test_the_computer_itself_invites_by_its_network_address(monkeypatch):
    import handfoot.startup as startup

    monkeypatch.setattr(startup, "addresses", lambda host, port, scheme: [f"{scheme}://10.0.0.7:{port}"])
    out = invite("127.0.0.1:8123", "http", "0.0.0.0", "tok", None)
    assert out.url == "http://10.0.0.7:8123/?token=tok"
    assert decoded(out.qr) == out.url


def test_a_server_on_this_computer_only_invites_no_phone_and_says_why():
    for bound in ("127.0.0.1", None):
        out = invite("localhost:8000", "http", bound, None, "ab")
        assert (out.url, out.qr, out.reason) == (None, None, LOCAL_ONLY)
    assert invite("[::1]:8000", "http", "::1", None).url is None
    assert invite("", "http", "0.0.0.0", None).reason == "the request named no server address"


def test_the_terminal_code_sets_both_colours_and_holds_the_code():
    url = "http://10.0.0.7:8000/?token=tok"
    text = terminal_qr(url)
    want = [list(map(bool, r)) for r in segno.make(url, error="m").matrix_iter(border=2)]
    got: list[list[bool]] = []
    for line in text.splitlines():
        cells = re.findall(r"\x1b\[(\d+)m\x1b\[(\d+)m\u2580", line)
        assert line.endswith("\x1b[0m") and len(cells) == len(want[0])
        assert all(fg in ("30", "97") and bg in ("40", "107") for fg, bg in cells)
        got += [[fg == "30" for fg, _ in cells], [bg == "40" for _, bg in cells]]
    assert got[:len(want)] == want and not any(any(r) for r in got[len(want):])


def test_the_route_answers_for_a_game_and_404_for_none(tmp_path):
    from fastapi.testclient import TestClient

    from handfoot.service import Settings, create_app

    app = create_app(Settings(db=tmp_path / "h.db", host="0.0.0.0", hosts=("192.168.1.20",)), load_models=False)
    with TestClient(app, base_url="http://192.168.1.20:8000") as c:
        game = c.post("/v1/games", json={"rules": "pagat", "teams": ["Us", "Them"]}, headers=once()).json()["id"]
        out = c.get(f"/v1/games/{game}/invite").json()
        assert out["url"] == f"http://192.168.1.20:8000/#/game/{game}" and out["reason"] is None
        assert decoded(out["qr"]) == out["url"]
        assert c.get("/v1/games/ffff/invite").status_code == 404
        home = c.get("/v1/invite").json()
        assert home["url"] == "http://192.168.1.20:8000/" and decoded(home["qr"]) == home["url"]


def test_a_second_phone_opens_the_game_from_the_invite(tmp_path):
    """End to end: ``handfoot serve --host 0.0.0.0 --no-https`` (a real server, its access token), a phone's page
    on it shows Another phone's QR code and address; a second browser with no cookie (the other phone) opens the
    address and lands on the game."""
    import re
    import time

    pytest.importorskip("selenium")
    httpx = pytest.importorskip("httpx")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from test_page_e2e import CHROMEDRIVER, CHROMIUM, console_errors, shots_dir, start_server, text_of, viewport

    from handfoot.startup import addresses

    if not (CHROMIUM and __import__("os").path.exists(CHROMEDRIVER)):
        pytest.skip("Chromium and ChromeDriver are not installed")
    if not [a for a in addresses("0.0.0.0", 1, "http") if "<" not in a]:
        pytest.skip("this computer has no network address but loopback")
    def started(proc, log) -> tuple[str, str]:
        """The address and token the server printed, once it answers."""
        deadline = time.monotonic() + 60
        while not (m := re.search(r"open (http://[0-9.]+:\d+)/\?token=(\S+)", log.read_text())):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        while True:
            try:
                if httpx.get(f"{m.group(1)}/v1/health?token={m.group(2)}", timeout=2).status_code == 200:
                    return m.group(1), m.group(2)
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)

    proc, port, log = start_server(tmp_path, ["--host", "0.0.0.0", "--no-https"])
    drivers = []
    try:
        base, token = started(proc, log)
        assert "access token made now" in log.read_text()
        game = httpx.post(f"{base}/v1/games?token={token}", json={"rules": "pagat", "teams": ["Us", "Them"]},
                          headers=once()).json()["id"]

        from selenium import webdriver

        def phone(name: str):
            options = webdriver.ChromeOptions()
            options.binary_location = CHROMIUM
            for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        f"--user-data-dir={tmp_path / name}", "--window-size=390,844"):
                options.add_argument(arg)
            options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
            d = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
            drivers.append(d)
            viewport(d, 390, 844)
            return d

        a = phone("a")
        a.get(f"{base}/?token={token}#/game/{game}")
        wait = WebDriverWait(a, 30)
        wait.until(lambda d: d.find_elements(By.ID, "invite")).pop().click()
        wait.until(lambda d: d.execute_script("const i = document.getElementById('invite-qr'); return i && i.naturalWidth"))
        url = text_of(a, "#invite-url")
        assert url == f"{base}/?token={token}#/game/{game}"
        a.save_screenshot(str(shots_dir(tmp_path) / "page_invite_390.png"))
        assert console_errors(a) == []

        b = phone("b")  # the other phone: no cookie, opens what the code says
        b.get(url)
        WebDriverWait(b, 30).until(lambda d: text_of(d, "h1") == "Us vs Them")
        assert b.find_elements(By.ID, "score-round")

        # the computer restarts: the same address, and the phone (its cookie, as an app started at /) opens the game
        for again, words in (([], "access token the one kept"), (["--new-token"], "access token made now")):
            proc.terminate()
            proc.wait(30)
            proc, _, log = start_server(tmp_path, ["--host", "0.0.0.0", "--no-https", *again], port=port)
            assert started(proc, log)[1] == token if not again else started(proc, log)[1] != token
            assert words in log.read_text()
            b.get("about:blank")  # the same address again is a navigation, not a hash change
            b.get(f"{base}/#/game/{game}")
            if not again:
                WebDriverWait(b, 30).until(lambda d: text_of(d, "h1") == "Us vs Them")
        # a new token: the phone's old one is said out of date, in words
        assert "This address is out of date" in text_of(b, "body") and "Scan the code" in text_of(b, "body")
        b.save_screenshot(str(shots_dir(tmp_path) / "page_token_out_of_date_390.png"))
    finally:
        for d in drivers:
            d.quit()
        proc.kill()
        proc.wait(10)
