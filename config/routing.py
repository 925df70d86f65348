"""Which handler a request takes in ``config.asgi`` (no Django here: importing
``config.asgi`` builds the application and changes the process - shared
database threads, a frozen heap - which a test must not do to itself)."""

from __future__ import annotations

from typing import Any

from core.wsgi_bridge import content_length


def bridged(scope: dict[str, Any]) -> bool:
    """Does this HTTP request go through the bridge to Django's WSGI handler
    (``core.wsgi_bridge``)? Every request but a long-poll (a coroutine that waits
    in Django's ASGI handler) and a stream request that comes with a body (the
    bridge would hand it to a2wsgi, which buffers a stream whole)."""
    return not long_polls(scope) and (not streams(scope) or content_length(scope) == 0)


def streams(scope: dict[str, Any]) -> bool:
    """Is this a request for an event stream (``.../stream/``)?"""
    return bool(scope.get("path", "").endswith("/stream/"))


def long_polls(scope: dict[str, Any]) -> bool:
    """Is this a long-poll (``.../events/?wait=``)?"""
    return bool(scope.get("path", "").endswith("/events/") and b"wait=" in scope.get("query_string", b""))
