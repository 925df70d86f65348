"""DRF views whose handlers are coroutines (long-polls, event streams).

The DRF machinery (authentication, permissions, throttles, the exception
handler) runs as usual, in the shared thread pool; the handler itself awaits on
the event loop, so a waiting client holds no thread and no database connection.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from inspect import iscoroutinefunction
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.db import close_old_connections, connection
from rest_framework.views import APIView

T = TypeVar("T")


def _call_and_release(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    if connection.in_atomic_block:  # inside an enclosing transaction (a test's): leave it be
        return fn(*args, **kwargs)
    close_old_connections()  # never start on a broken connection
    try:
        return fn(*args, **kwargs)
    finally:
        connection.close()  # back to the pool: a waiting client holds no connection


#: The threads that run the waiting requests' database work in a web process,
#: shared by all of them (``share_threads``, which ``config.asgi`` calls). Not a
#: thread per request: Django's ASGI handler gives every request a thread of its
#: own for ``thread_sensitive`` calls, which for streams that stay open meant a
#: thread per open stream (a thread's memory for each, and a thread started for
#: every stream; docs/performance.md). Each call starts and ends with
#: the connection back in the pool, so any thread can run it.
DB_THREADS = ThreadPoolExecutor(max_workers=int(os.environ.get("LIVE_DB_THREADS", "4")), thread_name_prefix="live-db")
_on_shared_threads = sync_to_async(_call_and_release, thread_sensitive=False, executor=DB_THREADS)
# Without share_threads (Django's test client, whose test holds a transaction on
# its own thread): the calling request's thread, as Django does by default.
_on_request_thread = sync_to_async(_call_and_release, thread_sensitive=True)


class _Threads:
    shared = False


def share_threads() -> None:
    """Run ``db_call`` on ``DB_THREADS`` from now on (a web process serving streams)."""
    _Threads.shared = True


async def db_call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run sync (database) work from a coroutine, and give the connection back to
    the pool at once: a stream that stays open for hours only borrows a thread and
    a connection for each short read."""
    run = _on_shared_threads if _Threads.shared else _on_request_thread
    return await run(fn, *args, **kwargs)


class AsyncAPIView(APIView):
    view_is_async = True  # Django's as_view() then serves dispatch() as a coroutine

    async def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.args = args
        self.kwargs = kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request = request
        self.headers = self.default_response_headers
        try:
            await db_call(self.initial, request, *args, **kwargs)
            handler = (
                getattr(self, request.method.lower(), None)
                if request.method.lower() in self.http_method_names
                else None
            )
            handler = handler or self.http_method_not_allowed
            if iscoroutinefunction(handler):
                response = await handler(request, *args, **kwargs)
            else:
                response = await db_call(handler, request, *args, **kwargs)
        except Exception as exc:
            response = await db_call(self.handle_exception, exc)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        return self.response
