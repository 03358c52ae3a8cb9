#!/usr/bin/env python3
"""Benchmark the handfoot web service over HTTP (``handfoot serve``).

Measures, with ``--clients`` concurrent clients (default 4), each a thread with its own keep-alive connection:

1. layout scores per second: every client posts ``examples/score_sheet_round.json`` to ``POST /v1/score`` as fast
   as it can for ``--seconds`` seconds (every answer must be 200), with the p50/p95 latency of one request;
2. photo latency: ``--photos`` uploads in all of ``--photo`` (default ``examples/table.jpg``) to ``POST /v1/photos``
   shared among the clients; an upload answered 503 is retried after its ``Retry-After`` seconds. Prints the p50
   and p95 latency of the successful requests (the attempt answered 201, not counting earlier 503s or waits), the
   wall time and how many 503s were seen;
3. the server's peak memory (``VmHWM`` from ``/proc/<pid>/status``), when this script started the server;
4. the peak memory of one photo read of 12 MP and one of 46 MP (``--photo`` scaled up to 4000 x 3000 and
   7840 x 5880, JPEG quality 90), each in a server of its own after one read of ``--photo`` (so models and buffers
   are in place): how much its ``VmHWM`` grew during the read (skipped with ``--url`` or ``--no-big-photos``).

Usage::

    python scripts/bench_service.py [--seconds 10] [--clients 4] [--photos 8] [--photo examples/table.jpg]
    python scripts/bench_service.py --url http://127.0.0.1:8000 [--token TOKEN] ...

Without ``--url`` it starts its own ``python -m handfoot serve`` on a free port of 127.0.0.1 with a ledger in a
temporary folder (``--max-jobs`` is passed on; default 1, the server's default) and stops it at the end. With
``--url`` it measures a server already running (its memory is not shown). Prints figures only; nothing is
asserted. Needs httpx (the test extra).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "examples" / "score_sheet_round.json"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data: Path, max_jobs: int, timeout: float = 60.0) -> tuple[subprocess.Popen, str]:
    """``python -m handfoot serve`` on 127.0.0.1 at a free port with its ledger in ``data``, once
    ``GET /v1/health`` answers (at most ``timeout`` s). Raises SystemExit with its output when it does not."""
    log = data / "server.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1", HANDFOOT_DATA=str(data))
    env.pop("HANDFOOT_TOKEN", None)
    deadline = time.monotonic() + timeout
    for _attempt in range(3):  # a port taken between choosing and binding it: try another
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        with open(log, "ab") as out:
            proc = subprocess.Popen([sys.executable, "-m", "handfoot", "serve", "--host", "127.0.0.1", "--port",
                                     str(port), "--db", str(data / "bench.db"), "--max-jobs", str(max_jobs)],
                                    cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(url + "/v1/health", timeout=2.0).status_code == 200:
                    return proc, url
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        if proc.poll() is None:
            stop_server(proc)
            break
        if b"cannot serve" not in log.read_bytes():
            break
    raise SystemExit(f"handfoot serve did not start within {timeout:.0f} s:\n"
                     + log.read_text(errors="replace")[-3000:])


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM (uvicorn shuts down cleanly), SIGKILL after 10 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)


def memory_kib(pid: int) -> dict[str, int]:
    """``VmHWM`` (peak resident set) and ``VmRSS`` of process ``pid``, in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":", 1)[0]
        if key in ("VmHWM", "VmRSS"):
            out[key] = int(line.split()[1])
    return out


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation between the closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def client(url: str, token: str | None, timeout: float) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(timeout, connect=10.0))


def bench_scores(url: str, token: str | None, clients: int, seconds: float) -> dict:
    """``clients`` threads posting the layout for ``seconds`` s."""
    layout = json.loads(LAYOUT.read_text())
    lock = threading.Lock()
    latencies: list[float] = []
    bad: list[str] = []
    ready = threading.Barrier(clients + 1)
    go = threading.Event()
    box: dict[str, float] = {}

    def work() -> None:
        mine, wrong = [], []
        with client(url, token, 30.0) as c:
            c.post("/v1/score", json=layout)  # warm the connection
            ready.wait()
            go.wait()
            while time.perf_counter() < box["end"]:
                t = time.perf_counter()
                try:
                    r = c.post("/v1/score", json=layout)
                except httpx.HTTPError as exc:
                    wrong.append(f"{type(exc).__name__}: {exc}")
                    continue
                if r.status_code == 200:
                    mine.append(time.perf_counter() - t)
                else:
                    wrong.append(f"{r.status_code} {r.text[:200]}")
        with lock:
            latencies.extend(mine)
            bad.extend(wrong)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    ready.wait(timeout=60)  # every client connected
    t0 = time.perf_counter()
    box["end"] = t0 + seconds
    go.set()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return {"ok": len(latencies), "bad": bad, "elapsed": elapsed, "latencies": latencies}


def bench_photos(url: str, token: str | None, clients: int, photo: Path, total: int, max_tries: int = 30) -> dict:
    """``total`` uploads shared among ``clients`` threads, each 503 retried after its Retry-After."""
    data = photo.read_bytes()
    lock = threading.Lock()
    state = {"next": 0, "busy": 0}
    latencies: list[float] = []
    bad: list[str] = []

    def work() -> None:
        with client(url, token, 300.0) as c:
            while True:
                with lock:
                    if state["next"] >= total:
                        return
                    state["next"] += 1
                key = once()  # one reading, however many times it is asked for after a 503
                for _try in range(max_tries):
                    t = time.perf_counter()
                    try:
                        r = c.post("/v1/photos", files={"photos": (photo.name, data, "image/jpeg")},
                                   data={"rules": "pagat", "round": "1"}, headers=key)
                    except httpx.HTTPError as exc:
                        with lock:
                            bad.append(f"{type(exc).__name__}: {exc}")
                        break
                    took = time.perf_counter() - t
                    if r.status_code == 503:
                        wait = r.headers.get("retry-after", "")
                        with lock:
                            state["busy"] += 1
                        time.sleep(int(wait) if wait.isdigit() else 1)
                        continue
                    with lock:
                        if r.status_code == 201:
                            latencies.append(took)
                        else:
                            bad.append(f"{r.status_code} {r.text[:200]}")
                    break
                else:
                    with lock:
                        bad.append(f"still 503 after {max_tries} tries")

    threads = [threading.Thread(target=work, daemon=True) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"ok": len(latencies), "bad": bad, "busy": state["busy"], "elapsed": time.perf_counter() - t0,
            "latencies": latencies}


def once() -> dict[str, str]:
    """The headers of one photo reading: an ``Idempotency-Key`` of its own (the service needs one: 428 without)."""
    return {"Idempotency-Key": uuid.uuid4().hex}


BIG_PHOTOS = {"12 MP": (4000, 3000), "46 MP": (7840, 5880)}


def big_photo_memory(photo: Path, folder: Path, max_jobs: int) -> dict[str, dict[str, float]]:
    """For each size of :data:`BIG_PHOTOS`: ``photo`` scaled up to it, read once by a fresh server after one read of
    ``photo`` itself; returns per size the server's ``VmHWM`` before and after that read (MiB), the growth, the file
    size (MB) and the answer's status."""
    from PIL import Image

    out = {}
    small = photo.read_bytes()
    for name, size in BIG_PHOTOS.items():
        big = folder / f"big-{size[0]}x{size[1]}.jpg"
        with Image.open(photo) as im:
            im.convert("RGB").resize(size, Image.BICUBIC).save(big, quality=90)
        data = folder / f"mem-{size[0]}"
        data.mkdir()
        proc, url = start_server(data, max_jobs)
        try:
            with client(url, None, 300.0) as c:
                c.post("/v1/photos", files={"photos": (photo.name, small, "image/jpeg")}, headers=once()).raise_for_status()
                before = memory_kib(proc.pid)["VmHWM"] / 1024
                r = c.post("/v1/photos", files={"photos": (big.name, big.read_bytes(), "image/jpeg")}, headers=once())
                after = memory_kib(proc.pid)["VmHWM"] / 1024
        finally:
            stop_server(proc)
        out[name] = {"before": before, "after": after, "growth": after - before, "status": r.status_code,
                     "mb": big.stat().st_size / 1e6}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="a running server (default: start one on a free port with a temporary ledger)")
    p.add_argument("--token", help="the server's access token, if it has one")
    p.add_argument("--seconds", type=float, default=10.0, help="how long to post layouts (default 10)")
    p.add_argument("--clients", type=int, default=4, help="concurrent clients (default 4)")
    p.add_argument("--photo", type=Path, default=ROOT / "examples" / "table.jpg", help="the photo to upload")
    p.add_argument("--photos", type=int, default=8, help="photo uploads in all (default 8; 0 skips photos)")
    p.add_argument("--max-jobs", type=int, default=1, help="--max-jobs of the server this script starts (default 1)")
    p.add_argument("--no-big-photos", action="store_true", help="skip the memory of one 12 MP and one 46 MP read")
    args = p.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0 or args.photos < 0:
        p.error("--clients must be >= 1, --seconds > 0, --photos >= 0")
    if args.photos and not args.photo.is_file():
        p.error(f"no photo {args.photo}")

    proc = None
    tmp = None
    url = args.url
    try:
        if url is None:
            tmp = tempfile.TemporaryDirectory(prefix="handfoot-bench-")
            proc, url = start_server(Path(tmp.name), args.max_jobs)
        url = url.rstrip("/")
        health = client(url, args.token, 10.0).get("/v1/health").raise_for_status().json()
        print(f"server {url} (handfoot {health['version']}, photo jobs at once: {health['jobs']['at_once']}, "
              f"photo reading {'on' if health['photo_reading'] else 'off'}); client: {platform.python_version()}, "
              f"{os.cpu_count()} CPUs")

        s = bench_scores(url, args.token, args.clients, args.seconds)
        lat = s["latencies"]
        print(f"layout scores: {s['ok']} in {s['elapsed']:.1f} s = {s['ok'] / s['elapsed']:.0f}/s at "
              f"{args.clients} clients (latency p50 {percentile(lat, 50) * 1000:.1f} ms, p95 "
              f"{percentile(lat, 95) * 1000:.1f} ms); not 200: {len(s['bad'])}"
              + (f", e.g. {s['bad'][0]}" if s["bad"] else ""))

        if args.photos and health["photo_reading"]:
            ph = bench_photos(url, args.token, args.clients, args.photo, args.photos)
            lat = ph["latencies"]
            print(f"photos: {ph['ok']} of {args.photos} read in {ph['elapsed']:.1f} s at {args.clients} clients: "
                  f"latency p50 {percentile(lat, 50):.2f} s, p95 {percentile(lat, 95):.2f} s (of the 201s); "
                  f"503s seen: {ph['busy']}; failed: {len(ph['bad'])}" + (f", e.g. {ph['bad'][0]}" if ph["bad"]
                                                                         else ""))
        elif args.photos:
            print("photos: skipped, photo reading is off on this server")

        if proc is not None:
            mem = memory_kib(proc.pid)
            print(f"server peak memory (VmHWM): {mem['VmHWM'] / 1024:.0f} MiB (resident now {mem['VmRSS'] / 1024:.0f} "
                  "MiB)")
        if proc is not None and health["photo_reading"] and not args.no_big_photos:
            stop_server(proc)
            for name, m in big_photo_memory(args.photo, Path(tmp.name), args.max_jobs).items():
                print(f"one {name} photo read ({m['mb']:.1f} MB JPEG, answered {m['status']}): peak memory "
                      f"{m['before']:.0f} -> {m['after']:.0f} MiB (+{m['growth']:.0f} MiB)")
    finally:
        if proc is not None:
            stop_server(proc)
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
