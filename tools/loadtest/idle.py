"""Idle streams (``--idle-streams``): that many Server-Sent-Events streams
(``GET .../stream/``) or long-polls (``GET .../events/?after=&wait=``) held open on
games nobody plays in (tables opened for the purpose), from one asyncio loop in a
background thread with raw sockets; a stream that closes is reopened (with
``Last-Event-ID``). They carry the clients' tokens (anonymous requests would meet
the per-address throttle). What hundreds of open streams cost the server is
measured this way, apart from the moves."""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter

import orjson

from tools.loadtest.options import API


class IdleStreams:
    """``count`` SSE streams or long-polls held open from one asyncio loop in a
    background thread. ``open`` is how many are open right now."""

    def __init__(
        self, host: str, port: int, targets: list[tuple[int, int, str]], count: int, mode: str, wait: int
    ) -> None:
        self.host, self.port = host, port
        self.targets = targets  # (game id, its seq, token), used round-robin
        self.count, self.mode, self.wait = count, mode, wait
        self.open = 0
        self.reconnects = 0
        self.requests = 0  # streams opened or long-polls sent
        self.refused: Counter[str] = Counter()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._main, name="loadtest-idle-streams", daemon=True)
        self._stopping: asyncio.Event | None = None

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        if self._stopping is not None:
            self.loop.call_soon_threadsafe(self._stopping.set)
        self.thread.join(15)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._all())
        self.loop.close()

    async def _all(self) -> None:
        self._stopping = asyncio.Event()
        tasks = []
        for i in range(self.count):
            game_id, seq, token = self.targets[i % len(self.targets)]
            one = self._sse if self.mode == "sse" else self._long_poll
            tasks.append(asyncio.create_task(one(game_id, seq, token)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)  # open them in batches, not in one burst
        await self._stopping.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self.host, self.port, limit=1 << 20)

    @staticmethod
    async def _status(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
        line = await reader.readline()
        if not line:
            raise ConnectionError("closed")
        status = int(line.split()[1])
        headers: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                return status, headers
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()

    async def _sse(self, game_id: int, seq: int, token: str) -> None:
        last_id = ""
        first = True
        while True:
            writer = None
            try:
                reader, writer = await self._connect()
                extra = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
                writer.write(
                    (
                        f"GET {API}/games/{game_id}/stream/ HTTP/1.1\r\nHost: {self.host}\r\n"
                        f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n{extra}\r\n"
                    ).encode()
                )
                status, _ = await self._status(reader)
                if status != 200:
                    self.refused[str(status)] += 1
                    await asyncio.sleep(1)
                    continue
                if not first:
                    self.reconnects += 1
                first = False
                self.open += 1
                self.requests += 1
                try:
                    while line := await reader.readline():
                        if line.startswith(b"id:"):
                            last_id = line[3:].strip().decode()
                finally:
                    self.open -= 1
            except (OSError, ConnectionError, ValueError, IndexError) as error:
                self.refused[type(error).__name__ + (f" {error.errno}" if isinstance(error, OSError) else "")] += 1
                await asyncio.sleep(0.5)
            finally:
                if writer is not None:
                    writer.close()

    async def _long_poll(self, game_id: int, seq: int, token: str) -> None:
        after = seq  # a client that has the game: wait for what comes next
        writer = None
        first = True
        # Clients arrive at random moments, so their waits run out at random
        # moments: a first wait of random length keeps 500 long-polls from
        # expiring, and coming back, all at once.
        wait = round(random.uniform(1, self.wait), 1)
        while True:
            try:
                if writer is None:
                    reader, writer = await self._connect()
                    if not first:
                        self.reconnects += 1
                    first = False
                writer.write(
                    (
                        f"GET {API}/games/{game_id}/events/?after={after}&wait={wait} HTTP/1.1\r\n"
                        f"Host: {self.host}\r\nAccept: application/json\r\nAuthorization: Bearer {token}\r\n\r\n"
                    ).encode()
                )
                self.open += 1
                self.requests += 1
                try:
                    status, headers = await self._status(reader)
                    body = await reader.readexactly(int(headers.get("content-length", "0")))
                finally:
                    self.open -= 1
                if status != 200:
                    self.refused[str(status)] += 1
                    await asyncio.sleep(1)
                    continue
                after = max(after, orjson.loads(body).get("seq", after))
                wait = self.wait
                if headers.get("connection", "").lower() == "close":
                    writer.close()
                    writer = None
            except (OSError, ConnectionError, ValueError, asyncio.IncompleteReadError):
                if writer is not None:
                    writer.close()
                writer = None
                await asyncio.sleep(0.5)
