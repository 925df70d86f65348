"""``core.wsgi_bridge``: a request that does not wait crosses to a worker thread
once, with its whole body, and comes back with its whole answer; what does not
fit (a large or chunked body) goes to the fallback untouched. An event stream
ends Django's request on the thread and is then driven on the loop until it
ends or its client leaves.

The application here is a plain WSGI callable and the server is played by the
test (``receive`` hands out the messages given, ``send`` records): what the
bridge promises is the WSGI and ASGI contracts, which need no Django. Django
behind it, under uvicorn and gunicorn, is exercised by every integration test
(``tests/integration/test_hostile_requests.py`` sends the oversized bodies).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import pytest
from django.http import StreamingHttpResponse

from core.wsgi_bridge import WsgiBridge

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="")


def scope(*, body_headers: list[tuple[bytes, bytes]] | None = None, method: str = "POST") -> dict[str, Any]:
    return {
        "type": "http",
        "method": method,
        "path": "/api/v1/games/7/moves/",
        "root_path": "",
        "query_string": b"x=1",
        "http_version": "1.1",
        "scheme": "http",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), *(body_headers or [])],
    }


def length(n: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-length", str(n).encode())]


class Server:
    """The ASGI server's side of one request: the messages it hands out, what it was sent."""

    def __init__(self, *messages: dict[str, Any]) -> None:
        self.messages = list(messages)
        self.received = 0
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        self.received += 1
        if self.messages:
            return self.messages.pop(0)
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def chunk(body: bytes, more: bool = False) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


class Fallback:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.calls.append(scope)
        first = await receive()
        await send({"type": "http.response.start", "status": 299, "headers": []})
        await send({"type": "http.response.body", "body": first["body"]})


class Response:
    """A WSGI response iterable that records being closed (Django's close() ends the
    request: its request_finished signal gives the database connection back)."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.chunks = chunks
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.chunks)

    def close(self) -> None:
        self.closed = True


def serve(app: Callable[..., Any], server: Server, the_scope: dict[str, Any], *, max_body: int = 1000) -> Fallback:
    fallback = Fallback()
    bridge = WsgiBridge(app, threads=2, max_body=max_body, fallback=fallback)
    try:
        asyncio.run(bridge(the_scope, server.receive, server.send))
    finally:
        bridge.executor.shutdown()
    return fallback


def test_the_body_reaches_the_application_and_the_whole_answer_comes_back_in_two_messages():
    seen: dict[str, Any] = {}
    response = Response([b'{"seq": ', b"8}"])

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Response:
        seen["body"] = environ["wsgi.input"].read(int(environ["CONTENT_LENGTH"]))
        seen["environ"] = {k: environ[k] for k in ("REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE")}
        seen["thread"] = threading.current_thread().name
        start_response("201 Created", [("Content-Type", "application/json"), ("X-Seq", " 8 ")])
        return response

    body = b'{"expected_seq": 7, "tile": "9-4"}'
    server = Server(chunk(body[:10], more=True), chunk(body[10:]))
    fallback = serve(app, server, scope(body_headers=length(len(body))))

    assert seen["body"] == body
    assert seen["environ"] == {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/v1/games/7/moves/",
        "QUERY_STRING": "x=1",
        "CONTENT_TYPE": "application/json",
    }
    assert seen["thread"].startswith("WSGI")  # not the event loop's
    assert server.sent == [
        {
            "type": "http.response.start",
            "status": 201,
            "headers": [(b"content-type", b"application/json"), (b"x-seq", b"8")],
        },
        {"type": "http.response.body", "body": b'{"seq": 8}'},
    ]
    assert response.closed
    assert not fallback.calls


def test_a_request_without_a_body_is_not_read():
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        assert environ["wsgi.input"].read() == b""
        start_response("200 OK", [])
        return [b"ok"]

    server = Server(chunk(b""))
    serve(app, server, scope(method="GET"))
    assert server.received == 0
    assert server.sent[1]["body"] == b"ok"


def test_what_the_application_writes_comes_before_what_it_returns():
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        write = start_response("200 OK", [])
        write(b"written, ")
        return [b"returned"]

    server = Server()
    serve(app, server, scope(method="GET"))
    assert server.sent[1]["body"] == b"written, returned"


def test_an_error_answer_set_with_exc_info_replaces_the_first():
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("200 OK", [("X-First", "1")])
        try:
            raise ValueError("late")
        except ValueError as error:
            start_response("500 Internal Server Error", [("X-Second", "1")], (type(error), error, None))
        return [b"sorry"]

    server = Server()
    serve(app, server, scope(method="GET"))
    assert server.sent[0]["status"] == 500
    assert server.sent[0]["headers"] == [(b"x-second", b"1")]


def test_an_application_that_raises_sends_nothing_and_its_response_is_closed():
    response = Response(iter([]))

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Response:
        def failing() -> Iterator[bytes]:
            raise RuntimeError("broken view")
            yield b""  # pragma: no cover

        response.chunks = failing()
        start_response("200 OK", [])
        return response

    server = Server()
    with pytest.raises(RuntimeError, match="broken view"):  # the ASGI server answers 500 and logs it
        serve(app, server, scope(method="GET"))
    assert server.sent == []
    assert response.closed


def test_the_callers_context_reaches_the_application():
    seen: list[str] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        seen.append(REQUEST_ID.get())
        start_response("204 No Content", [])
        return []

    async def call() -> None:
        REQUEST_ID.set("r-1")
        bridge = WsgiBridge(app, threads=1, max_body=10, fallback=Fallback())
        await bridge(scope(method="GET"), Server().receive, Server().send)
        bridge.executor.shutdown()

    asyncio.run(call())
    assert seen == ["r-1"]


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param(length(1001), id="declared over max_body"),
        pytest.param([(b"transfer-encoding", b"chunked")], id="chunked"),
        pytest.param([(b"content-length", b"12x")], id="a length that is not a number"),
    ],
)
def test_a_body_that_does_not_fit_goes_to_the_fallback_unread(headers):
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        raise AssertionError("the bridge must not run the application itself")

    server = Server(chunk(b"first part", more=True), chunk(b"rest"))
    fallback = serve(app, server, scope(body_headers=headers))
    assert len(fallback.calls) == 1
    assert server.sent[1]["body"] == b"first part"  # the fallback read the body from its start


def test_a_client_that_leaves_mid_body_gives_the_application_what_came():
    got: list[bytes] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        got.append(environ["wsgi.input"].read(100))
        start_response("400 Bad Request", [])
        return []

    server = Server(chunk(b"abc", more=True))  # then http.disconnect
    serve(app, server, scope(body_headers=length(100)))
    assert got == [b"abc"]


def test_no_more_than_the_declared_length_is_kept():
    got: list[bytes] = []

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        got.append(environ["wsgi.input"].read())
        start_response("200 OK", [])
        return []

    server = Server(chunk(b"abcdef"))
    serve(app, server, scope(body_headers=length(4)))
    assert got == [b"abcd"]


# -- event streams: Django's part on the thread, the stream's on the loop ------------


class StreamServer(Server):
    """A client that stays until ``leave()``: then ``receive`` says it has gone."""

    def __init__(self) -> None:
        super().__init__()
        self.gone = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        self.received += 1
        if self.received == 1:
            return chunk(b"")  # the GET's (empty) body
        await self.gone.wait()
        return {"type": "http.disconnect"}

    def leave(self) -> None:
        self.gone.set()


def stream_app(events: Callable[[], AsyncIterator[str]], seen: dict[str, Any]) -> Callable[..., Any]:
    """A WSGI application answering with Django's StreamingHttpResponse over ``events()``."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> StreamingHttpResponse:
        response = StreamingHttpResponse(events(), content_type="text/event-stream")
        original_close = response.close

        def close() -> None:  # Django's end of the request (request_finished)
            seen["closed_on"] = threading.current_thread().name
            original_close()

        response.close = close  # type: ignore[method-assign]
        start_response("200 OK", list(response.items()))
        return response

    return app


def test_a_stream_ends_djangos_request_on_the_thread_then_sends_each_chunk_as_it_comes():
    seen: dict[str, Any] = {}

    async def events() -> AsyncIterator[str]:
        seen["closed_before_the_first_chunk"] = "closed_on" in seen
        seen["iterated_on"] = threading.current_thread().name
        yield "retry: 2000\n\n"
        yield ": keep-alive\n\n"

    server = StreamServer()
    serve(stream_app(events, seen), server, scope(method="GET"))
    assert seen["closed_on"].startswith("WSGI") and seen["closed_before_the_first_chunk"]
    assert seen["iterated_on"] == "MainThread"  # the event loop's
    assert server.sent[0]["status"] == 200
    assert (b"content-type", b"text/event-stream") in server.sent[0]["headers"]
    assert server.sent[1:] == [
        {"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True},
        {"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True},
        {"type": "http.response.body", "body": b""},  # the stream ended: so does the answer
    ]


def test_a_client_that_leaves_ends_its_stream_and_the_streams_clean_up_runs():
    seen: dict[str, Any] = {}
    server = StreamServer()

    async def events() -> AsyncIterator[str]:
        try:
            yield "retry: 2000\n\n"
            await asyncio.Event().wait()  # an idle stream: nothing more to send, ever
            yield "never"  # pragma: no cover
        finally:
            seen["cleaned_up"] = True

    original_send = server.send

    async def send(message: dict[str, Any]) -> None:
        await original_send(message)
        if message.get("body"):
            server.leave()

    server.send = send  # type: ignore[method-assign]
    serve(stream_app(events, seen), server, scope(method="GET"))  # returns: the client left, no error
    assert seen["cleaned_up"]
    assert [m.get("body") for m in server.sent[1:]] == [b"retry: 2000\n\n"]  # no end sent to nobody


def test_a_stream_cancelled_by_the_server_stops_and_says_so():
    seen: dict[str, Any] = {}
    server = StreamServer()

    async def events() -> AsyncIterator[str]:
        try:
            yield "retry: 2000\n\n"
            await asyncio.Event().wait()
            yield "never"  # pragma: no cover
        finally:
            seen["cleaned_up"] = True

    async def run() -> bool:
        bridge = WsgiBridge(stream_app(events, seen), threads=1, max_body=10, fallback=Fallback())
        task = asyncio.create_task(bridge(scope(method="GET"), server.receive, server.send))
        while len(server.sent) < 2:
            await asyncio.sleep(0)
        task.cancel()  # a server shutting down, not the client leaving
        try:
            await task
        except asyncio.CancelledError:
            return True
        finally:
            bridge.executor.shutdown()
        return False

    assert asyncio.run(run()), "the cancellation must reach the server"
    assert seen["cleaned_up"]
