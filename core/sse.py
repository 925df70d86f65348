"""Server-Sent Events on the wire: the text of a stream, its HTTP response, and its contract.

Nothing here knows what a stream is about: ``live.streams`` decides what to send
and when; this module only says how an event, a keep-alive and the reconnect hint
are written and how a resuming client's Last-Event-ID is read. The frames' schemas
are the OpenAPI document's (``live.schema``).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import orjson
from django.core.serializers.json import DjangoJSONEncoder
from django.http import StreamingHttpResponse
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

from core.errors import ApiError, CoreCode

RETRY_MS = 2000  # how long a client waits before it reconnects (the `retry:` line)
KEEP_ALIVE = ": keep-alive\n\n"  # a comment: keeps proxies from closing an idle stream


def sse(data: Any, *, event: str | None = None, event_id: str | int | None = None) -> str:
    """One Server-Sent Event: ``data`` as compact JSON on one ``data:`` line."""
    head = "" if event_id is None else f"id: {event_id}\n"
    if event:
        head += f"event: {event}\n"
    return f"{head}data: {_json(data)}\n\n"


_DEFAULT = DjangoJSONEncoder().default
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


def _json(data: Any) -> str:
    """Compact JSON, encoded by orjson (every event of every stream: a move's frames
    are made once, in its notice, but snapshots and feeds per stream). Datetimes and
    what else orjson does not know go through Django's encoder, as before; non-ASCII
    text is written as UTF-8, as the API's answers are (``core.renderers``). What
    orjson cannot write (an integer beyond 64 bits) is left to ``json``."""
    try:
        return orjson.dumps(data, default=_DEFAULT, option=_OPTIONS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(data, separators=(",", ":"), cls=DjangoJSONEncoder)


def retry_hint() -> str:
    """The reconnect delay, sent first on every stream."""
    return f"retry: {RETRY_MS}\n\n"


def last_event_id(request: Request, *, maximum: int) -> int | None:
    """The id a reconnecting client last received (the ``Last-Event-ID`` header, or the
    ``last_event_id`` query parameter for clients that cannot set headers); None on a
    first connect. Ids are whole numbers up to ``maximum``: anything else is refused."""
    header, query = request.headers.get("Last-Event-ID"), request.query_params.get("last_event_id")
    for name, value in (("Last-Event-ID", header), ("last_event_id", query)):
        # Each one sent is checked (the header wins), empty included (EventSource sends
        # none rather than an empty one), ASCII digits only: str.isdigit() also accepts
        # "²" or "١٢", which int() refuses.
        if value is not None and (not re.fullmatch(r"[0-9]{1,10}", str(value)) or int(value) > maximum):
            raise ApiError(
                "Last-Event-ID must be an event seq (a whole number).",
                code=CoreCode.VALIDATION_ERROR,
                extra={"errors": {name: ["not an event seq"]}},
            )
    raw = header if header is not None else query
    return None if raw is None else int(raw)


def stream_response(events: AsyncIterator[str]) -> StreamingHttpResponse:
    """The HTTP answer that carries a stream: never cached, never buffered on the way."""
    response = StreamingHttpResponse(events, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # proxies: do not buffer the stream
    return response


class EventStreamRenderer(BaseRenderer):
    """``text/event-stream``: the stream itself is written by the view; only error
    bodies (problem documents) are ever rendered through this."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        return json.dumps(data, cls=DjangoJSONEncoder).encode()
