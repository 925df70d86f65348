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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer

OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS


class JSONRenderer(DrfJSONRenderer):
    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is None:
            default = self.encoder_class().default
            try:
                return orjson.dumps(data, default=default, option=OPTIONS)
            except (orjson.JSONEncodeError, TypeError):
                pass  # DRF's renderer says what is wrong, or writes what orjson cannot
        return super().render(data, accepted_media_type, renderer_context)
