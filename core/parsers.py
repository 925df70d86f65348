"""The request body parser: DRF's JSON parser, with too-deep nesting a parse error.

``json`` raises ``RecursionError`` (not ``ValueError``) on arrays or objects
nested a few thousand deep, which DRF would let through as a 500.
"""

from __future__ import annotations

from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
