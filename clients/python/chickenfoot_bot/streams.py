"""Typed stream readers: the frames of a Server-Sent Events stream of the server
(``GET /games/{game_id}/stream/``, ``GET /me/stream/``) as the contract's frame union,
followed across reconnections with ``Last-Event-ID``.

The contract (``openapi.yaml``) declares each stream's frames as
``x-itemSchema`` (the frame as sent: ``data`` is JSON text) and
``x-itemMessageSchema`` (``GameStreamMessage``, ``AccountStreamMessage``: the frame
with its ``data`` parsed). A reader yields the second, as one of four classes,
which a ``match`` or ``isinstance`` tells apart:

* ``Snapshot`` - the first frame of every (re)connection (``event: snapshot``, no id);
* ``Update`` - a frame with an ``id:``: an event of the game's log (``id`` its seq,
  ``event`` its type) or a change of one of your games (``id`` ``<game>.<seq>``);
* ``Notice`` - a frame without id that is not a snapshot (the table chat): it does not
  move ``Last-Event-ID``;
* ``End`` - the game is over (``id`` its last seq); the reader stops after it.

Any transport does: ``connect_kit(client, path)`` uses the kit's ``Client`` (the
standard library), ``connect_httpx(http, **request)`` an ``httpx.Client`` - a
generated client's (openapi-python-client: ``client.get_httpx_client()``, with the
request its stream operation builds, ``games_stream._get_kwargs(game_id)``)::

    reader = StreamReader(connect_httpx(client.get_httpx_client(), **games_stream._get_kwargs(game_id)))
    for frame in reader:
        match frame:
            case Snapshot(data=game): ...
            case Update(event="tile_played", data=event): ...
            case End(): ...

``data`` is the parsed JSON; ``decode`` (``(event, data) -> anything``) turns it into
your models (a generated client's ``GameView.from_dict``, ...) as it is read.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from chickenfoot_bot.api import Client, retry_after_seconds
from chickenfoot_bot.sse import SseEvent, SseParser

#: ``(event, parsed JSON) -> the frame's data``: the identity unless told otherwise.
Decode = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Snapshot:
    """The first frame of every (re)connection: the game (``GameView``) or your games (``AccountSnapshot``)."""

    data: Any
    event: str = "snapshot"


@dataclass(frozen=True)
class Update:
    """A frame with an id: one event of the game's log (``Event``, ``id`` its seq), or a change of one
    of your games, challenges, seeks, tables, warnings or sanctions on the account stream (a
    ``Sanction`` for ``sanction_imposed``, ``sanction_appealed``, ``sanction_lifted``: its reason,
    its end, the appeal)."""

    event: str
    id: str
    data: Any


@dataclass(frozen=True)
class Notice:
    """A frame without id beside the snapshot (the table chat: ``chat_message``, ``chat_message_removed``)."""

    event: str
    data: Any


@dataclass(frozen=True)
class End:
    """The game is over (``GameStreamEndData``: its last seq and status): the stream's last frame."""

    id: str
    data: Any
    event: str = "end"


Frame = Snapshot | Update | Notice | End


class StreamError(Exception):
    """The stream answered neither 200 nor 204: ``status`` and the problem ``body``."""

    def __init__(self, status: int, body: Any, retry_after: float | None = None) -> None:
        self.status = status
        self.body: dict[str, Any] = body if isinstance(body, dict) else {}
        self.code: str = self.body.get("code", "http_error")
        self.retry_after = retry_after
        super().__init__(f"{status} {self.code}: {self.body.get('detail', body)}")


class Connection(Protocol):
    """One open stream: its status, its lines (without their ends), and the body of an error."""

    status: int

    def lines(self) -> Iterable[str]: ...

    def body(self) -> bytes: ...


#: ``(extra headers) -> an open stream`` as a context manager (it closes the connection).
Connect = Callable[[dict[str, str]], contextlib.AbstractContextManager[Connection]]


class _Answer:
    def __init__(self, status: int, lines: Callable[[], Iterable[str]], body: Callable[[], bytes]) -> None:
        self.status = status
        self._lines, self._body = lines, body

    def lines(self) -> Iterable[str]:
        return self._lines()

    def body(self) -> bytes:
        return self._body()


def connect_kit(client: Client, path: str, *, read_timeout: float = 45) -> Connect:
    """A stream of the server at ``path`` (under ``/api/v1``, e.g. ``/games/12/stream/``) through the
    kit's ``Client``; a stream silent past ``read_timeout`` seconds raises ``TimeoutError``."""

    @contextlib.contextmanager
    def connect(extra: dict[str, str]) -> Iterator[Connection]:
        connection = client.connect(timeout=read_timeout)
        try:
            connection.request("GET", client.prefix + path, headers=client.headers(extra))
            response = connection.getresponse()

            def lines() -> Iterator[str]:
                while raw := response.readline():
                    yield raw.decode("utf-8", errors="replace").rstrip("\r\n")

            yield _Answer(response.status, lines, response.read)
        finally:
            connection.close()

    return connect


def connect_httpx(http: Any, method: str, url: str, **request: Any) -> Connect:
    """A stream through an ``httpx.Client`` (``http``), e.g. a generated client's
    ``get_httpx_client()``; ``method``, ``url`` and the rest (``params``, ``headers``) as
    ``httpx.Client.stream`` takes them - what a generated operation's ``_get_kwargs`` gives.
    httpx's network errors come out as ``ConnectionError`` (the reader resumes after them)."""

    @contextlib.contextmanager
    def connect(extra: dict[str, str]) -> Iterator[Connection]:
        headers = {**(request.get("headers") or {}), **extra}
        try:
            with http.stream(method, url, **{**request, "headers": headers}) as response:

                def lines() -> Iterator[str]:
                    try:
                        yield from response.iter_lines()
                    except Exception as error:
                        raise _network_error(error) from error

                yield _Answer(response.status_code, lines, response.read)
        except Exception as error:
            raise _network_error(error) from error

    return connect


def _network_error(error: Exception) -> Exception:
    """httpx's transport errors (not ``OSError``s) as ``ConnectionError``; anything else as it is."""
    if type(error).__module__.startswith("httpx") and not isinstance(error, OSError):
        return ConnectionError(f"{type(error).__name__}: {error}")
    return error


class StreamReader:
    """The frames of one stream, typed (``Frame``), across reconnections.

    Iterating connects (sending ``Last-Event-ID`` once an id came), yields every frame,
    and when the connection drops (``OSError``) or the server closes it, waits the
    server's ``retry:`` delay (doubled after each failure in a row, up to
    ``max_delay``) and connects again with the last id: nothing missed, nothing
    repeated, a fresh ``Snapshot`` first. It stops after an ``End`` frame or a
    ``204`` (the game is over and was read to its end), and raises ``StreamError`` on
    any other answer than 200 (a 429 is waited out as ``Retry-After`` says).
    ``reconnect()`` closes the connection after the current frame (the next frame
    comes from a resumed one); ``max_connections`` bounds the connections made;
    ``on_comment`` is called at each comment (the server's ``: keep-alive``, at least
    every 15 s): a loop can check its own deadline there while no frame comes."""

    def __init__(
        self,
        connect: Connect,
        *,
        last_id: str | None = None,
        decode: Decode | None = None,
        max_delay: float = 30,
        max_connections: int | None = None,
        on_comment: Callable[[], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.connect = connect
        self.parser = SseParser(last_id)
        self.decode = decode
        self.max_delay = max_delay
        self.max_connections = max_connections
        self.on_comment = on_comment
        self.sleep = sleep
        self.connections = 0
        self.ended = False  # an End frame or a 204 came: nothing more will
        self._reconnect = False

    @property
    def last_id(self) -> str | None:
        """The id to resume after (``Last-Event-ID``)."""
        return self.parser.last_id

    @property
    def retry(self) -> float | None:
        """The server's reconnection delay (its ``retry:``), in seconds."""
        return self.parser.retry

    def reconnect(self) -> None:
        self._reconnect = True

    def __iter__(self) -> Iterator[Frame]:
        failures = 0
        while not self.ended:
            if self.max_connections is not None and self.connections >= self.max_connections:
                return
            if self.connections:
                self.sleep(min(self.max_delay, (self.retry or 1.0) * 2 ** max(failures - 1, 0)))
            extra = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
            if self.last_id:
                extra["Last-Event-ID"] = self.last_id
            self.connections += 1
            self._reconnect = False
            try:
                with self.connect(extra) as connection:
                    if connection.status == 204:
                        self.ended = True
                        return
                    if connection.status != 200:
                        raise self._error(connection)
                    for raw in connection.lines():
                        event = self.parser.line(raw)
                        if event is None:
                            if raw.startswith(":") and self.on_comment is not None:
                                self.on_comment()
                            continue
                        failures = 0
                        frame = self.frame(event)
                        yield frame
                        if isinstance(frame, End):
                            self.ended = True
                            return
                        if self._reconnect:
                            break
            except StreamError as error:
                if error.status != 429:
                    raise
                self.sleep(error.retry_after or 1.0)
            except OSError:
                failures += 1

    def frame(self, event: SseEvent) -> Frame:
        """One parsed event as its frame class, its data decoded."""
        data = json.loads(event.data)
        if self.decode is not None:
            data = self.decode(event.event, data)
        if event.event == "snapshot":
            return Snapshot(data)
        if event.frame_id is None:
            return Notice(event.event, data)
        if event.event == "end":
            return End(event.frame_id, data)
        return Update(event.event, event.frame_id, data)

    def _error(self, connection: Connection) -> StreamError:
        raw = connection.body()
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"detail": raw[:200].decode(errors="replace")}
        status = connection.status
        return StreamError(status, body, retry_after_seconds({}, body) if status == 429 else None)
