"""A flaky Wi-Fi between a phone's browser and ``handfoot serve``, for the page tests: a proxy on 127.0.0.1 that
forwards each request to the server on a fresh connection, and loses the answer of the next request matching a rule
(:meth:`FlakyWifi.lose`): ``"answer"``, once the server answered in full (it did the work; the phone never hears of
it); ``"early"``, as soon as the request is sent on (the server goes on working on it). The phone sees a network
error either way, as when the Wi-Fi drops on the way back."""

from __future__ import annotations

import asyncio
import re
import threading


class FlakyWifi:
    """The proxy to ``upstream`` (``http://127.0.0.1:PORT``), serving in a thread of its own: ``url`` is its address;
    :meth:`lose` arms a rule, ``lost`` lists the request lines whose answers were lost; :meth:`close` stops it."""

    def __init__(self, upstream: str) -> None:
        self.port_up = int(upstream.rsplit(":", 1)[1])
        self.rules: list[tuple[re.Pattern, str]] = []
        self.lost: list[str] = []
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        started.wait(10)
        self.url = f"http://127.0.0.1:{self.port}"

    def lose(self, request: str, when: str = "answer") -> None:
        """Lose the answer to the next request whose line (``POST /v1/games/ID/rounds?lenient=true HTTP/1.1``)
        matches the regular expression ``request``; ``when``: ``"answer"`` or ``"early"`` (above)."""
        self.rules.append((re.compile(request), when))

    def close(self) -> None:
        """Stop serving: every connection still open (the game's events) is cut."""
        async def stop() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.loop.stop()
        asyncio.run_coroutine_threadsafe(stop(), self.loop)
        self.thread.join(10)

    def _rule(self, line: str) -> str | None:
        for k, (pattern, when) in enumerate(self.rules):
            if pattern.search(line):
                del self.rules[k]
                self.lost.append(line)
                return when
        return None

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            size = next((int(h.split(":", 1)[1]) for h in head if h.lower().startswith("content-length:")), 0)
            body = await reader.readexactly(size) if size else b""
            kept = [h for h in head if h and not h.lower().startswith("connection:")]
            when = self._rule(head[0])
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port_up)
            up_writer.write("\r\n".join([*kept, "Connection: close", "", ""]).encode("latin-1") + body)
            await up_writer.drain()
            if when == "early":
                writer.close()  # the phone's connection drops; the server is still at work
            while chunk := await up_reader.read(65536):
                if when is None:
                    writer.write(chunk)
                    await writer.drain()
            up_writer.close()
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
