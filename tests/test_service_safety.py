"""A real ``handfoot serve`` on 127.0.0.1 (a process of its own, a temporary ledger) against what a careless or
hostile client sends: other sites' names and pages (Host, Origin), rule values and typed-in cards out of range,
formulas in team names, idle connections past the cap, Ctrl-C while photos are read, and a disk that cannot be
written."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import once

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from test_service_durability import ServerProcess  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "table.jpg"


@pytest.fixture
def serve(tmp_path):
    started: list[ServerProcess] = []

    def start(*extra: str, name: str = "h") -> ServerProcess:
        server = ServerProcess(tmp_path / name / "h.db", tmp_path / f"{name}.log", extra)
        (tmp_path / name).mkdir(exist_ok=True)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.kill()


def test_other_sites_cannot_use_the_loopback_server(serve, tmp_path):
    url = serve().url
    port = url.rsplit(":", 1)[1]
    rebound = httpx.get(f"{url}/v1/games", headers={"Host": f"attacker.example:{port}"})
    assert rebound.status_code == 403 and "attacker.example" in rebound.json()["error"]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert httpx.get(f"{url}/v1/health", headers={"Host": host}).status_code == 200
    # a cross-site form post of a photo (CSRF) is refused before anything is read or kept
    with open(PHOTO, "rb") as f:
        csrf = httpx.post(f"{url}/v1/photos", files=[("photos", ("t.jpg", f, "image/jpeg"))],
                          headers={"Origin": "http://attacker.example"})
    assert csrf.status_code == 403 and "another site" in csrf.json()["error"]
    assert list((tmp_path / "h" / "photos").iterdir()) == []
    for headers in ({"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
        assert httpx.post(f"{url}/v1/games", json={}, headers=headers).status_code == 403
    assert httpx.post(f"{url}/v1/games", json={}, headers={"Origin": url, **once()}).status_code == 201
    assert httpx.get(f"{url}/v1/games").json()[0]["rounds"] == 0  # one game: the one from this server's page


def test_values_out_of_range_are_refused_before_any_work(serve):
    url = serve().url
    for size in (3_000_000, 10**20):
        t = time.monotonic()
        r = httpx.post(f"{url}/v1/games", json={"rules": "pagat", "house_rules": {"book_size": size}}, headers=once())
        assert r.status_code == 422 and "book_size" in r.json()["error"], r.text
        layout = {"rules": "pagat", "house_rules": {"book_size": size}, "teams": {"A": {"squared_books": [
            {"top": "KH"}]}}}
        r = httpx.post(f"{url}/v1/score", json=layout)
        assert r.status_code == 422 and "book_size" in r.json()["error"], r.text
        assert time.monotonic() - t < 10  # was 2.3 s of CPU for 3,000,000, and never ended for 10^20
    fields = httpx.get(f"{url}/openapi.json").json()["components"]["schemas"]["HouseRules"]["properties"]
    assert fields["book_size"]["anyOf"][0]["maximum"] == 14 and fields["joker_value"]["anyOf"][0]["minimum"] < 0
    # typed-in cards count against the 1,000-card limit
    with open(PHOTO, "rb") as f:
        r = httpx.post(f"{url}/v1/photos", files=[("photos", ("t.jpg", f, "image/jpeg"))],
                       data={"left": ["A:" + "KH " * 600, "B:" + "7C " * 600]}, headers=once())
    assert r.status_code == 413 and "1,200 cards" in r.json()["error"], r.text
    # a photo over 25 MB is cut short as it streams in (nothing past the limit is kept), and named with its size
    big = b"\xff\xd8\xff" + b"\0" * (27 * 1024 * 1024)
    r = httpx.post(f"{url}/v1/photos", files=[("photos", ("big.jpg", big, "image/jpeg"))], timeout=60, headers=once())
    assert r.status_code == 413 and r.json()["error"] == "big.jpg: file too large (28.3 MB; at most 26 MB a photo)", r.text
    # ... and every other photo that cannot be read is named with it, at once, each with its own reason
    r = httpx.post(f"{url}/v1/photos", files=[("photos", ("notes.jpg", b"hello there", "image/jpeg")),
                                              ("photos", ("big.jpg", big, "image/jpeg"))],
                   data={"teams": "A,B"}, timeout=60, headers=once())
    assert r.status_code == 422 and [e.split(":")[0] for e in r.json()["errors"]] == ["notes.jpg", "big.jpg"], r.text
    assert "not an image file" in r.json()["errors"][0] and "file too large (28.3 MB" in r.json()["errors"][1]
    assert httpx.get(f"{url}/v1/health", timeout=5).status_code == 200


def test_csv_cells_are_never_formulas_and_messages_name_no_server_path(serve, tmp_path):
    url = serve().url
    game = httpx.post(f"{url}/v1/games", json={"teams": ["=1+2", "@SUM(A1)"]}, headers=once()).json()["id"]
    httpx.post(f"{url}/v1/games/{game}/rounds?lenient=true", json={"teams": {
        "=1+2": {"melds": [["KH", "KS", "KD"]], "left": [["JK"]]}}}, headers=once())
    lines = httpx.get(f"{url}/v1/games/{game}/export.csv").content.decode("utf-8-sig").splitlines()
    assert lines[0] == "round,minimum,'=1+2 points,'@SUM(A1) points,'=1+2 total,'@SUM(A1) total"
    assert lines[1] == "1,50,-20,0,-20,0"  # a negative score stays a number
    for r in (httpx.delete(f"{url}/v1/decks/nope"),
              httpx.put(f"{url}/v1/games/{game}/deck", json={"deck": "x", "teach": False})):
        assert r.status_code == 404 and str(tmp_path) not in r.text and "/tmp" not in r.text, r.text


def test_idle_connections_are_capped_and_closed(serve):
    url = serve("--max-connections", "40", "--idle-timeout", "2").url
    host, port = "127.0.0.1", int(url.rsplit(":", 1)[1])
    idle = [socket.create_connection((host, port), timeout=5) for _ in range(60)]
    try:
        time.sleep(0.3)
        r = httpx.get(f"{url}/v1/health", timeout=5)
        assert r.status_code == 503 and "too many connections" in r.json()["error"] and r.headers["retry-after"]
        # within two idle periods the server closes every idle connection; then it answers again
        deadline = time.monotonic() + 15
        for s in idle:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            assert s.recv(1) == b""  # closed by the server
        assert httpx.get(f"{url}/v1/health", timeout=5).status_code == 200
    finally:
        for s in idle:
            s.close()


def test_ctrl_c_while_photos_are_read_finishes_or_says_503_and_exits_0(serve, tmp_path):
    import io

    from PIL import Image

    server = serve()
    answers: list = []
    photos = []  # three photos a reading (the example saved at three qualities): long enough for the others to come in
    for quality in (90, 91, 92):
        buf = io.BytesIO()
        Image.open(PHOTO).save(buf, "JPEG", quality=quality)
        photos.append(buf.getvalue())

    def post():
        try:
            r = httpx.post(f"{server.url}/v1/photos", files=[("photos", (f"t{k}.jpg", p, "image/jpeg"))
                                                             for k, p in enumerate(photos)], timeout=60, headers=once())
            answers.append((r.status_code, r.headers.get("retry-after"), r.json()))
        except httpx.HTTPError as exc:
            answers.append(("no answer", None, repr(exc)))
    threads = [threading.Thread(target=post) for _ in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # one reading running, three waiting for its place
        jobs = httpx.get(f"{server.url}/v1/health").json()["jobs"]
        if (jobs["running"], jobs["waiting"]) == (1, 3):
            break
        time.sleep(0.01)
    else:
        pytest.skip("the four readings were never in at once (too slow a machine to catch it)")
    server.proc.send_signal(signal.SIGINT)
    for t in threads:
        t.join(60)
    assert server.proc.wait(60) == 0
    assert sorted(a[0] for a in answers) == [201, 503, 503, 503], answers  # the running one finished
    for status, retry, body in answers:
        if status == 503:
            assert retry and "stopping" in body["error"]
    out = server.log.read_text()
    assert "Traceback" not in out and "CancelledError" not in out and "handfoot: stopped" in out, out
    trace = tmp_path / "h" / "handfoot.log"
    assert not trace.exists() or "Traceback" not in trace.read_text()


READ_ONLY = """
import os, sqlite3, sys, types
import handfoot.ledger as ledger
flag = sys.argv.pop(1)
class Connection(sqlite3.Connection):  # a disk that cannot be written while the flag file is there
    def execute(self, sql, *args):
        sqlite3.Connection.execute(self, "PRAGMA query_only = " + ("ON" if os.path.exists(flag) else "OFF"))
        return sqlite3.Connection.execute(self, sql, *args)
real = sqlite3.connect
ledger.sqlite3 = types.SimpleNamespace(**vars(sqlite3))
ledger.sqlite3.connect = lambda *a, **k: real(*a, factory=Connection, **k)
from handfoot.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_a_disk_that_cannot_be_written_is_503_and_start_up_says_so(tmp_path):
    """SQLite's ``query_only`` stands for a read-only or full disk: its writes fail as theirs do ("attempt to
    write a readonly database"), the file itself is sound."""
    db, flag = tmp_path / "data" / "h.db", tmp_path / "read-only"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    log = open(tmp_path / "serve.log", "wb")
    proc = subprocess.Popen([sys.executable, "-c", READ_ONLY, str(flag), "serve", "--port", str(free), "--db", str(db)],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env={**os.environ, "HANDFOOT_BACKEND": "onnxruntime"})
    url = f"http://127.0.0.1:{free}"
    try:
        from test_page_e2e import wait_for_server

        wait_for_server(proc, url, tmp_path / "serve.log")
        game = httpx.post(f"{url}/v1/games", json={}, headers=once()).json()["id"]
        flag.touch()
        r = httpx.post(f"{url}/v1/games/{game}/rounds", json={"teams": {"A": {"melds": [["KH", "KS", "KD"]]}}},
                       headers=once())
        assert r.status_code == 503 and "cannot be written" in r.json()["error"] and r.headers["retry-after"], r.text
        assert str(tmp_path) not in r.text
        assert httpx.get(f"{url}/v1/games/{game}").json()["rounds"] == []  # reading still works
        flag.unlink()
        assert httpx.post(f"{url}/v1/games/{game}/rounds",
                          json={"teams": {"A": {"melds": [["KH", "KS", "KD"]]}}}, headers=once()).status_code == 201
    finally:
        proc.kill()
        proc.wait(10)
        log.close()
    flag.touch()
    start = subprocess.run([sys.executable, "-c", READ_ONLY, str(flag), "serve", "--port", str(free), "--db", str(db)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert start.returncode == 1 and "cannot be written" in start.stderr, start.stderr
    assert "not a handfoot database" not in start.stderr and "Traceback" not in start.stderr
    assert start.stderr.count("\n") == 1  # one line


def test_a_too_long_form_part_is_cut_short_and_named_by_its_file_name_whatever_the_chunks():
    """A form part longer than the limit is cut short to it as the body streams by, the boundaries and the other
    parts handed on whole, and listed with its file name and whole length, also when the headers and the
    boundaries are cut between chunks, and when the long part is not the first."""
    from handfoot.guard import PartSizes

    boundary = b"xYz123"
    body = (b"--xYz123\r\nContent-Disposition: form-data; name=\"photos\"; filename=\"small.jpg\"\r\n\r\n" + b"a" * 50 +
            b"\r\n--xYz123\r\nContent-Disposition: form-data; name=\"photos\"; filename=\"dir/large.jpg\"\r\n\r\n" +
            b"b" * 500 + b"\r\n--xYz123--\r\n")
    start = body.index(b"--xYz123", 10) + len(b"--xYz123")  # the long part's first byte (its headers')
    stop = body.index(b"\r\n--xYz123--")
    for size in (1, 7, 64, len(body)):
        parts = PartSizes.of(f"multipart/form-data; boundary={boundary.decode()}", 200)
        chunks = [body[i:i + size] for i in range(0, len(body), size)]
        out = b"".join(parts.cut(c, last=k == len(chunks) - 1) for k, c in enumerate(chunks))
        assert out == body[:start + 200] + body[stop:], size
        assert parts.over == [["dir/large.jpg", 500]] and parts.filename == "large.jpg", (size, parts.over)
        fits = PartSizes.of(f"multipart/form-data; boundary={boundary.decode()}", 600)
        assert b"".join(fits.cut(c, last=k == len(chunks) - 1) for k, c in enumerate(chunks)) == body
        assert fits.over == []