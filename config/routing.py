"""Which handler a request takes in ``config.asgi`` (no Django here: importing
``config.asgi`` builds the application and changes the process - shared
database threads, a frozen heap - which a test must not do to itself)."""

from __future__ import annotations

from typing import Any


def waits(scope: dict[str, Any]) -> bool:
    """Does this request wait for events (and so need the async handler)?"""
    path = scope.get("path", "")
    return path.endswith("/stream/") or (path.endswith("/events/") and b"wait=" in scope.get("query_string", b""))
