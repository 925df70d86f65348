"""ASGI entry point (``config.asgi:application``).

Two ways into one Django project, chosen by path:

* Long-polls (``.../events/?wait=``) go to Django's ASGI handler: they are
  coroutines that hold no thread while they wait.
* Event streams (``.../stream/``) go through the bridge below: the thread runs
  Django up to the stream's first byte (authentication, the snapshot), the loop
  then drives the stream's iterator alone (``core.wsgi_bridge``). An open stream
  so holds far fewer objects than Django's ASGI request with its tasks and a
  thread of its own (for every full collection to walk). A
  stream request that comes with a body (it needs none) goes to the ASGI
  handler as before.
* Everything else (the REST API, the admin, the docs) goes to Django's WSGI
  handler on a fixed pool of ``WSGI_THREADS`` threads (default 2) per process,
  as a threaded WSGI server would serve it: no thread is started per request,
  and a request crosses to its thread and back once (``core.wsgi_bridge``;
  a body over ``API_MAX_BODY_BYTES`` or without a length goes through a2wsgi,
  which reads it as the application asks).
  The ASGI handler, which runs every sync view in a thread of its own, served
  fewer moves at more CPU each. Two threads rather than more: with the CPU busy,
  more threads per process only queue on the GIL.

Web processes run under gunicorn (``config/gunicorn.conf.py``).

Once loaded, the process freezes what it has so far (``gc.freeze``): the
garbage collector no longer walks the objects of Django, DRF and this project
on every full collection, whose pauses were the longest stalls behind the p99.
And it collects the young generation every 20,000 new objects rather than
Python's 700 (``WEB_GC_THRESHOLDS``, default ``20000,10,10``): a request's
objects then rarely live through a collection, so few are promoted to the old
generation, and the full collections that walk every open stream's objects
come far more rarely. The figures behind each of these choices are in
docs/performance.md, "Measurements behind the code".
"""

import gc
import os
from typing import Any

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

from config.routing import bridged
from core.wsgi_bridge import WsgiBridge

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: The collector's thresholds in the web processes (``WEB_GC_THRESHOLDS``): see above.
DEFAULT_GC_THRESHOLDS = (20_000, 10, 10)


def gc_thresholds(text: str) -> tuple[int, int, int]:
    """``WEB_GC_THRESHOLDS`` ("young,middle,old", as ``gc.set_threshold`` takes them;
    empty: the default). A value that is not one refuses to start the process."""
    if not text.strip():
        return DEFAULT_GC_THRESHOLDS
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or any(v < 0 for v in values):
        raise ImproperlyConfigured(
            f"WEB_GC_THRESHOLDS={text!r}: give three whole numbers, e.g. "
            f"{','.join(map(str, DEFAULT_GC_THRESHOLDS))} (young, middle, old; see Python's gc.set_threshold)"
        )
    return values[0], values[1], values[2]


gc_threshold = gc_thresholds(os.environ.get("WEB_GC_THRESHOLDS", ""))  # a wrong value stops the start here
asgi_app = get_asgi_application()

from core.async_views import share_threads  # noqa: E402 - needs the app registry, which the line above loads

share_threads()  # the streams' database work on a few shared threads, not a thread per stream
django_wsgi = get_wsgi_application()
threads = int(os.environ.get("WSGI_THREADS", "2"))
wsgi_app = WsgiBridge(
    django_wsgi,
    threads=threads,
    max_body=settings.API_MAX_BODY_BYTES,
    # Large or chunked bodies, read as the application asks (on threads of its own).
    fallback=WSGIMiddleware(django_wsgi, workers=threads),  # type: ignore[arg-type]
)

get_resolver().url_patterns  # noqa: B018 - import every view (and its serializers) now, before the freeze
gc.collect()
gc.freeze()
gc.set_threshold(*gc_threshold)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http" and bridged(scope):
        await wsgi_app(scope, receive, send)
    else:
        await asgi_app(scope, receive, send)
