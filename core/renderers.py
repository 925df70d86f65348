"""The API's JSON renderer: DRF's, with the encoding done by orjson.

Every answer of the API goes through it (a move's answer carries the whole game
view). orjson writes the same JSON as DRF's encoder for what the API returns:
datetimes go through DRF's encoder (``+00:00`` written as ``Z``), as does
anything else orjson does not know (lazy strings, decimals); dict keys that are
not strings become strings, as with ``json``. What orjson cannot write (an
integer beyond 64 bits) and an indented answer (``Accept:
application/json; indent=2``) are left to DRF's own renderer.

NaN and infinities, which orjson would write as ``null``, are refused where
floats enter an answer (``core.serializers.FloatField``), not looked for here:
walking every answer for them cost a move's answer (about 1,200 values) more
than encoding it.

Once it has written the answer, it cuts the reference cycles DRF makes on every
request (DRF #5826, #7250): the view holds the response (``view.response``), and
the response's ``renderer_context`` holds the view, the request and the response
itself, so an answer's data - for a move, a few hundred lists and dicts of the
game's view - could only be freed by Python's cyclic garbage collector, which
then ran about once a request. Cut, they are freed as soon as the server drops
the response. Only as the response's own renderer: the browsable API renders
its content through this class with the same context, and goes on using it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer

OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


class JSONRenderer(DrfJSONRenderer):
    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        content = b"" if data is None else None
        if content is None and self.get_indent(accepted_media_type or "", renderer_context or {}) is None:
            default = self.encoder_class().default
            # What orjson cannot write goes to DRF's renderer (which also says what is wrong).
            with contextlib.suppress(orjson.JSONEncodeError, TypeError):
                content = orjson.dumps(data, default=default, option=OPTIONS)
        if content is None:
            content = super().render(data, accepted_media_type, renderer_context)
        if isinstance(renderer_context, dict):
            self._release(renderer_context)
        return content

    def _release(self, context: dict[str, Any]) -> None:
        """Cut the view <-> response <-> context cycles, if this renderer is the response's."""
        response, view = context.get("response"), context.get("view")
        if response is None or getattr(response, "accepted_renderer", None) is not self:
            return
        if getattr(view, "response", None) is response:
            view.response = None  # type: ignore[union-attr]
        context.clear()  # the response's renderer_context: no view, request or response any more
