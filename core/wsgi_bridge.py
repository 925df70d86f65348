"""Serves a WSGI application (Django's) to an ASGI server (uvicorn) for the
requests that do not wait: one hop to a worker thread and back per request.

a2wsgi, which did this before, crosses between the event loop and the worker
thread once per message: the thread asks the loop for the request body, then
hands it the response's start, each body chunk and the end, each time through
``run_coroutine_threadsafe``, a task, a queue and a future the thread blocks on
(about four round trips a request, each waking the loop). Under the load test
that was 12.7% of the web processes' CPU (docs/performance.md). Here the loop
reads the whole body first, the thread runs the application from start to
finish on an in-memory body and returns the whole answer, and the loop sends it:
one ``run_in_executor`` per request.

That fits requests whose body and answer are small, which is every request this
server takes outside the streams: the API reads at most ``API_MAX_BODY_BYTES``,
and its answers are JSON. What does not fit goes to ``fallback`` (a2wsgi), which
reads and writes lazily: a body declared larger than ``max_body``, and a body
sent without a Content-Length (chunked). The answer is held whole, so a
streaming response on a path served here would be buffered: the responses that
stream (event streams, long-polls) are served by Django's ASGI handler
(``config.routing.waits``), never here.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import io
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from a2wsgi.wsgi import build_environ

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Answer = tuple[int, list[tuple[bytes, bytes]], bytes]


class WsgiBridge:
    def __init__(self, app: WSGIApp, *, threads: int, max_body: int, fallback: ASGIApp) -> None:
        self.app = app
        self.max_body = max_body
        self.fallback = fallback
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="WSGI")

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        declared = _content_length(scope)
        if declared is None or declared > self.max_body:
            await self.fallback(scope, receive, send)
            return
        body = await _read_body(receive, declared)
        environ: dict[str, Any] = build_environ(scope, io.BytesIO(body))  # type: ignore[arg-type,assignment]
        answer = functools.partial(contextvars.copy_context().run, self._answer, environ)
        status, headers, content = await asyncio.get_running_loop().run_in_executor(self.executor, answer)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    def _answer(self, environ: dict[str, Any]) -> Answer:
        """The application's whole answer to ``environ`` (on a worker thread)."""
        started: list[tuple[str, list[tuple[str, str]]]] = []
        chunks: list[bytes] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
            # Nothing has been sent yet, so a later call (with exc_info) simply replaces the first.
            started[:] = [(status, headers)]
            return chunks.append  # PEP 3333's write()

        iterable = self.app(environ, start_response)
        try:
            chunks.extend(iterable)
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()
        if not started:
            raise RuntimeError("the WSGI application returned without calling start_response")
        status, headers = started[0]
        encoded = [(name.strip().lower().encode("latin1"), value.strip().encode("latin1")) for name, value in headers]
        return int(status.split(" ", 1)[0]), encoded, b"".join(chunks)


def _content_length(scope: dict[str, Any]) -> int | None:
    """The body's declared length: 0 for a request without a body, None where none
    is declared for one (chunked) or the header is not a plain number."""
    length: int | None = 0
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            length = int(value) if value.isdigit() else None
        elif name == b"transfer-encoding":
            return None
    return length


async def _read_body(receive: Receive, declared: int) -> bytes:
    """The request body, read to its end (at most ``declared`` bytes are kept: what
    a WSGI application may read of it)."""
    if declared == 0:
        return b""
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: the application sees what came
            break
        part = message.get("body", b"")
        if part and size < declared:
            parts.append(part)
            size += len(part)
        if not message.get("more_body", False):
            break
    return b"".join(parts)[:declared]
