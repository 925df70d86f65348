"""Serves a WSGI application (Django's) to an ASGI server (uvicorn) for the
requests that do not wait: one hop to a worker thread and back per request.

a2wsgi, which did this before, crosses between the event loop and the worker
thread once per message: the thread asks the loop for the request body, then
hands it the response's start, each body chunk and the end, each time through
``run_coroutine_threadsafe``, a task, a queue and a future the thread blocks on
(about four round trips a request, each waking the loop). Under the load test
that was a large share of the web processes' CPU (docs/performance.md). Here the loop
reads the whole body first, the thread runs the application from start to
finish on an in-memory body and returns the whole answer, and the loop sends it:
one ``run_in_executor`` per request.

That fits requests whose body and answer are small, which is every request this
server takes outside the streams: the API reads at most ``API_MAX_BODY_BYTES``,
and its answers are JSON. What does not fit goes to ``fallback`` (a2wsgi), which
reads and writes lazily: a body declared larger than ``max_body``, and a body
sent without a Content-Length (chunked).

An event stream (a ``StreamingHttpResponse`` over an async iterator, which only
the stream views return) is answered in two parts: the thread runs Django as for
any request - middleware, authentication, throttles, the view's snapshot - and
ends Django's request there (``close()``: its database connection goes back to
the pool); the loop then sends the head and drives the stream's iterator,
chunk by chunk, until it ends or the client leaves (a second task waits for the
disconnect and cancels the first). An open stream so holds its iterator, not a
Django request, an ASGI handler's tasks and a thread of its own, as it did under
Django's ASGI handler (about 250 objects a stream for every full collection of
the heap to walk, and a thread). A stream request with a body (none is needed)
is never sent here (``config.asgi``): a2wsgi would buffer a stream whole.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import io
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from a2wsgi.wsgi import build_environ

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[dict[str, Any], Receive, Send], Awaitable[None]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
#: Status, headers and the body: whole, or (a stream) the iterator of its chunks.
Answer = tuple[int, list[tuple[bytes, bytes]], bytes | AsyncIterator[bytes]]


class WsgiBridge:
    def __init__(self, app: WSGIApp, *, threads: int, max_body: int, fallback: ASGIApp) -> None:
        self.app = app
        self.max_body = max_body
        self.fallback = fallback
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="WSGI")

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        declared = content_length(scope)
        if declared is None or declared > self.max_body:
            await self.fallback(scope, receive, send)
            return
        body = await _read_body(receive, declared)
        environ: dict[str, Any] = build_environ(scope, io.BytesIO(body))  # type: ignore[arg-type,assignment]
        answer = functools.partial(contextvars.copy_context().run, self._answer, environ)
        status, headers, content = await asyncio.get_running_loop().run_in_executor(self.executor, answer)
        # What a stream must not keep while it is open: the request's context (the
        # cache and database handles Django made in it) and its environ.
        del answer, environ
        await send({"type": "http.response.start", "status": status, "headers": headers})
        if isinstance(content, bytes):
            await send({"type": "http.response.body", "body": content})
        else:
            await _stream(content, receive, send)

    def _answer(self, environ: dict[str, Any]) -> Answer:
        """The application's whole answer to ``environ`` (on a worker thread)."""
        started: list[tuple[str, list[tuple[str, str]]]] = []
        chunks: list[bytes] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
            # Nothing has been sent yet, so a later call (with exc_info) simply replaces the first.
            started[:] = [(status, headers)]
            return chunks.append  # PEP 3333's write()

        iterable = self.app(environ, start_response)
        stream = getattr(iterable, "streaming_content", None) if getattr(iterable, "is_async", False) else None
        if stream is not None:
            # Django's request ends here (request_finished: the connection back to
            # the pool); the stream's iterator, on its own, goes on on the loop.
            getattr(iterable, "close", lambda: None)()
            status, headers = started[0]
            return int(status.split(" ", 1)[0]), _encoded(headers), stream
        try:
            chunks.extend(iterable)
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()
        if not started:
            raise RuntimeError("the WSGI application returned without calling start_response")
        status, headers = started[0]
        return int(status.split(" ", 1)[0]), _encoded(headers), b"".join(chunks)


def _encoded(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(name.strip().lower().encode("latin1"), value.strip().encode("latin1")) for name, value in headers]


async def _stream(chunks: AsyncIterator[bytes], receive: Receive, send: Send) -> None:
    """Send ``chunks`` as they come, then the end; stop (closing the iterator) as
    soon as the client has gone: ``send`` does not say so, ``receive`` does."""
    task = asyncio.current_task()
    assert task is not None
    gone: list[bool] = []
    watcher = asyncio.get_running_loop().create_task(_cancel_when_gone(receive, task, gone))
    try:
        async for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    except asyncio.CancelledError:
        if not gone:  # not the client leaving (the server shutting down): pass it on
            raise
        task.uncancel()
    finally:
        watcher.cancel()
        aclose = getattr(chunks, "aclose", None)
        if aclose is not None:  # left early: the iterator's own clean-up (its subscriptions) runs now
            await aclose()


async def _cancel_when_gone(receive: Receive, task: asyncio.Task[Any], gone: list[bool]) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass  # the (empty) body of the request
    gone.append(True)
    task.cancel()


def content_length(scope: dict[str, Any]) -> int | None:
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
