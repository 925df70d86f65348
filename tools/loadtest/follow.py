"""``--follow stream``: every client holds the event stream (``GET .../stream/``)
of each game it plays, as a browser would, and hears the opponent's moves there.

All the streams are read by one asyncio loop in a background thread (raw
sockets, the chunked encoding undone here), so hundreds of them cost the load
generator little. Each stream tells its client's inbox what it heard: the
snapshot's seq when it opens, then each event's seq, as ``("heard", game id,
seq, when)``. A stream the server closes is reopened with ``Last-Event-ID``; one
that ends (``event: end``, or 204 once the game is over) is not."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from tools.loadtest.options import API


class GameStreams:
    """The game streams of the playing clients, held from one asyncio loop in a
    background thread. ``watch`` and ``unwatch`` may be called from any thread."""

    def __init__(self, host: str, port: int, counted: Callable[[float], bool] = lambda _: True) -> None:
        self.host, self.port = host, port
        self.opened = 0  # streams answered 200 (first opens and reopens)
        self.reopened = 0
        self.events = 0  # events received at a time ``counted`` accepts (snapshots not counted)
        self.counted = counted
        self.refused: Counter[str] = Counter()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._main, name="loadtest-game-streams", daemon=True)
        self._tasks: dict[tuple[int, str], asyncio.Task[None]] = {}
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None

    def start(self) -> None:
        self.thread.start()
        self._ready.wait(10)

    def watch(self, game_id: int, token: str, inbox: queue.SimpleQueue[tuple[Any, ...]]) -> None:
        self.loop.call_soon_threadsafe(self._watch, game_id, token, inbox)

    def unwatch(self, game_id: int, token: str) -> None:
        self.loop.call_soon_threadsafe(self._unwatch, game_id, token)

    def stop(self) -> None:
        if self._stopping is not None and self.thread.is_alive():
            self.loop.call_soon_threadsafe(self._stopping.set)
        self.thread.join(15)

    # -- the loop's side -------------------------------------------------------
    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._all())
        self.loop.close()

    async def _all(self) -> None:
        self._stopping = asyncio.Event()
        self._ready.set()
        await self._stopping.wait()
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _watch(self, game_id: int, token: str, inbox: queue.SimpleQueue[tuple[Any, ...]]) -> None:
        key = (game_id, token)
        if key not in self._tasks:
            task = self.loop.create_task(self._follow(game_id, token, inbox))
            self._tasks[key] = task
            task.add_done_callback(lambda _: self._tasks.pop(key, None))

    def _unwatch(self, game_id: int, token: str) -> None:
        task = self._tasks.get((game_id, token))
        if task is not None:
            task.cancel()

    async def _follow(self, game_id: int, token: str, inbox: queue.SimpleQueue[tuple[Any, ...]]) -> None:
        last_id = ""
        first = True
        while True:
            writer = None
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port, limit=1 << 20)
                resume = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
                writer.write(
                    (
                        f"GET {API}/games/{game_id}/stream/ HTTP/1.1\r\nHost: {self.host}\r\n"
                        f"Accept: text/event-stream\r\nAuthorization: Bearer {token}\r\n{resume}\r\n"
                    ).encode()
                )
                status, headers = await _head(reader)
                if status == 204:  # the game is over: nothing more will come
                    return
                if status != 200:
                    self.refused[str(status)] += 1
                    await asyncio.sleep(1)
                    continue
                self.opened += 1
                if not first:
                    self.reopened += 1
                first = False
                event = data = None
                async for line in _lines(reader, chunked="chunked" in headers.get("transfer-encoding", "")):
                    if line:
                        name, _, value = line.partition(":")
                        value = value.removeprefix(" ")
                        if name == "event":
                            event = value
                        elif name == "id":
                            last_id = value
                        elif name == "data":
                            data = value
                        continue
                    if event == "snapshot" and data is not None:
                        seq = _snapshot_seq(data)
                        if seq is not None:
                            inbox.put(("heard", game_id, seq, time.perf_counter()))
                    elif event == "end":
                        return
                    elif event is not None and last_id:
                        now = time.perf_counter()
                        self.events += self.counted(now)
                        inbox.put(("heard", game_id, int(last_id), now))
                    event = data = None
            except (OSError, ConnectionError, ValueError, asyncio.IncompleteReadError):
                await asyncio.sleep(0.5)
            finally:
                if writer is not None:
                    writer.close()


def _snapshot_seq(data: str) -> int | None:
    """The game's seq in a snapshot (``{"game": {"seq": N, ...}, ...}``), if it says."""
    try:
        seq = orjson.loads(data)["game"]["seq"]
    except (ValueError, KeyError, TypeError):
        return None
    return seq if isinstance(seq, int) else None


async def _head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """The status and the headers (names in lower case) of an HTTP/1.1 answer."""
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
        headers[name.strip().lower()] = value.strip().lower()


async def _lines(reader: asyncio.StreamReader, *, chunked: bool) -> AsyncIterator[str]:
    """The body's lines, without their line ends, until the server ends it."""
    if not chunked:
        while line := await reader.readline():
            yield line.decode().rstrip("\r\n")
        return
    pending = b""
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        if size == 0:
            return
        pending += (await reader.readexactly(size + 2))[:-2]
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield line.decode().rstrip("\r")
