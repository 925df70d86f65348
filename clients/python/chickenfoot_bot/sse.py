"""Server-Sent Events: the parser (the WHATWG rules, as browsers' ``EventSource``
reads a stream) and one connection to a stream of the server.

The server sends ``retry: 2000`` first, then events as ``id:`` / ``event:`` /
``data:`` lines ended by a blank line, and ``: keep-alive`` comments at least
every 15 s. A stream that says nothing for longer than ``read_timeout`` is taken
for dead (``TimeoutError``), so a half-open connection never hangs a bot.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from chickenfoot_bot.api import ApiError, Client, retry_after_seconds


@dataclass(frozen=True)
class SseEvent:
    """One event: its type (``message`` if unnamed), its data, the last event id seen so
    far on the stream (what to send as ``Last-Event-ID`` on reconnect), and the id the
    event itself had (None: it had no ``id:`` line)."""

    event: str
    data: str
    id: str | None = None
    frame_id: str | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class SseParser:
    """Feed it lines; it yields complete events. ``retry`` holds the server's reconnect
    hint in seconds, ``last_id`` the id to resume from, ``comments`` counts keep-alives."""

    def __init__(self, last_id: str | None = None) -> None:
        self.last_id = last_id
        self.retry: float | None = None
        self.comments = 0
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, lines: Iterable[str]) -> Iterator[SseEvent]:
        for raw in lines:
            event = self.line(raw.rstrip("\r\n"))
            if event is not None:
                yield event

    def line(self, line: str) -> SseEvent | None:
        """One line without its end; an event when a blank line completes one."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self.last_id = self._id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value) / 1000
        return None  # unknown fields are ignored

    def _dispatch(self) -> SseEvent | None:
        data, event, frame_id = self._data, self._event or "message", self._id
        self._data, self._event, self._id = [], "", None
        if not data:
            return None  # a block with no data is no event (e.g. the lone retry: line)
        return SseEvent(event=event, data="\n".join(data), id=self.last_id, frame_id=frame_id)


def open_stream(client: Client, path: str, parser: SseParser, *, read_timeout: float = 45) -> Iterator[SseEvent]:
    """Connect to the stream at ``path`` (under ``/api/v1``), resuming after
    ``parser.last_id``, and yield its events until the server closes it. An error
    answer raises ``ApiError``; a silent or broken connection raises ``OSError``."""
    extra = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if parser.last_id:
        extra["Last-Event-ID"] = parser.last_id
    connection = client.connect(timeout=read_timeout)
    try:
        connection.request("GET", client.prefix + path, headers=client.headers(extra))
        response = connection.getresponse()
        if response.status != 200:
            raw = response.read()
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"detail": raw[:200].decode(errors="replace")}
            wait = retry_after_seconds(response.headers, body) if response.status == 429 else None
            raise ApiError(response.status, body, retry_after=wait)
        while raw_line := response.readline():
            event = parser.line(raw_line.decode("utf-8", errors="replace").rstrip("\r\n"))
            if event is not None:
                yield event
    finally:
        connection.close()
