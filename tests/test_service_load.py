"""A real ``handfoot serve`` (default ``--max-jobs 1``) under a burst of load answers every request.

20 uploads of ``examples/table.jpg`` and 200 ``POST /v1/score`` of ``examples/score_sheet_round.json`` are sent at
once from one asyncio client. Every request must get an answer; no 5xx but 503, and every 503 names a
``Retry-After``; at least one photo is read (201) and every layout is scored (200). The server's peak memory
(``VmHWM`` of its process) is read at the end and printed with the counts.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import once

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
pytest.importorskip("cv2")
pytest.importorskip("onnxruntime")

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "examples" / "table.jpg"
LAYOUT = ROOT / "examples" / "score_sheet_round.json"
PHOTOS, SCORES = 20, 200
BURST_TIMEOUT = 100.0  # the whole burst; one photo takes ~2-4 s and at most 4 are admitted with --max-jobs 1


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """``python -m handfoot serve`` on 127.0.0.1 (default --max-jobs 1), answering /v1/health (waited for at most
    60 s); SIGKILLed when the test ends, whatever happened. Yields (process, base URL, log path)."""
    db, log = tmp_path / "data" / "h.db", tmp_path / "server.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1", HANDFOOT_DATA=str(db.parent))
    env.pop("HANDFOOT_TOKEN", None)
    procs: list[subprocess.Popen] = []
    try:
        deadline = time.monotonic() + 60
        for _attempt in range(3):  # a port taken between choosing and binding it: try another
            url = f"http://127.0.0.1:{_free_port()}"
            with open(log, "ab") as out:
                proc = subprocess.Popen([sys.executable, "-m", "handfoot", "serve", "--host", "127.0.0.1", "--port",
                                         url.rsplit(":", 1)[1], "--db", str(db)], cwd=ROOT, env=env, stdout=out,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            procs.append(proc)
            up = False
            while not up and time.monotonic() < deadline and proc.poll() is None:
                try:
                    up = httpx.get(url + "/v1/health", timeout=2.0).status_code == 200
                except httpx.HTTPError:
                    pass
                if not up:
                    time.sleep(0.2)
            if up:
                yield proc, url, log
                return
            if proc.poll() is None or b"cannot serve" not in log.read_bytes():
                break
        raise AssertionError("handfoot serve did not answer /v1/health within 60 s; its output:\n"
                             + log.read_text(errors="replace")[-4000:])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=15)


def peak_memory_kib(pid: int) -> int:
    """``VmHWM`` (peak resident set) of process ``pid`` in KiB, from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmHWM in /proc/{pid}/status")


async def _burst(url: str) -> tuple[list, list]:
    photo = PHOTO.read_bytes()
    layout = json.loads(LAYOUT.read_text())
    limits = httpx.Limits(max_connections=PHOTOS + SCORES + 10, max_keepalive_connections=PHOTOS + SCORES + 10)
    timeout = httpx.Timeout(90.0, connect=30.0, pool=30.0)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as client:
        async def upload():
            return await client.post("/v1/photos", files={"photos": ("table.jpg", photo, "image/jpeg")},
                                     data={"rules": "pagat", "round": "1"}, headers=once())

        async def score():
            return await client.post("/v1/score", json=layout)

        photos = [asyncio.ensure_future(upload()) for _ in range(PHOTOS)]
        scores = [asyncio.ensure_future(score()) for _ in range(SCORES)]
        done = await asyncio.wait_for(asyncio.gather(*photos, *scores, return_exceptions=True), BURST_TIMEOUT)
    return done[:PHOTOS], done[PHOTOS:]


def test_burst_of_photos_and_scores(server):
    proc, url, log = server
    if not PHOTO.is_file():
        pytest.skip("examples/table.jpg is missing")
    health = httpx.get(url + "/v1/health", timeout=10).json()
    if not health["photo_reading"]:
        pytest.skip(f"photo reading is off on this server: {health['models']}")

    t0 = time.monotonic()
    photos, scores = asyncio.run(_burst(url))
    elapsed = time.monotonic() - t0
    assert proc.poll() is None, "the server died under load:\n" + log.read_text(errors="replace")[-4000:]
    peak = peak_memory_kib(proc.pid)

    failed = [f"{type(r).__name__}: {r}" for r in [*photos, *scores] if isinstance(r, BaseException)]
    assert not failed, f"{len(failed)} requests got no answer, e.g. {failed[:3]}"
    photo_codes = Counter(r.status_code for r in photos)
    score_codes = Counter(r.status_code for r in scores)
    print(f"\n{PHOTOS} photos + {SCORES} scores in {elapsed:.1f} s: photos {dict(sorted(photo_codes.items()))}, "
          f"scores {dict(sorted(score_codes.items()))}; 201: {photo_codes[201]}, 503: {photo_codes[503]}; "
          f"server peak memory (VmHWM) {peak / 1024:.0f} MiB")

    for r in [*photos, *scores]:
        assert r.status_code < 500 or r.status_code == 503, f"{r.request.url.path}: {r.status_code} {r.text[:300]}"
        if r.status_code == 503:
            assert r.headers.get("retry-after", "").isdigit(), f"503 without Retry-After: {dict(r.headers)}"
            assert "error" in r.json()
    assert set(photo_codes) <= {201, 503}, {c: n for c, n in photo_codes.items()}
    assert photo_codes[201] >= 1
    assert score_codes == Counter({200: SCORES}), [r.text[:300] for r in scores if r.status_code != 200][:3]
    first = next(r for r in photos if r.status_code == 201).json()
    assert first["id"] and first["photos"]
    assert peak > 0
