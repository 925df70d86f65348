"""The API's one pagination style: ``?limit=&offset=``.

Answers ``{count, next, previous, results}``.  The default page size is the
``PAGE_SIZE`` setting (env ``PAGE_SIZE``); a client may ask for up to
``max_limit`` items.
"""

from typing import Any

from rest_framework.pagination import LimitOffsetPagination as DrfLimitOffsetPagination


class LimitOffsetPagination(DrfLimitOffsetPagination):
    max_limit = 200

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """As DRF describes the page, with every member required: a page always has
        ``next`` and ``previous`` (null at either end)."""
        page = super().get_paginated_response_schema(schema)
        for link in ("next", "previous"):  # DRF writes OpenAPI 3.0's `nullable`; this is 3.1
            page["properties"][link] = {"type": ["string", "null"], "format": "uri"}
        page["required"] = ["count", "next", "previous", "results"]
        return page

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """``limit`` and ``offset`` with the bounds the server enforces."""
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"].update({"minimum": 1, "maximum": self.max_limit})
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"]["minimum"] = 0
        return parameters
