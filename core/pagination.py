"""The API's one pagination style: ``?limit=&offset=`` (the leaderboard's ``next``
links carry a ``cursor`` instead: ``cursor_links``).

Answers ``{count, next, previous, results}``.  The default page size is the
``PAGE_SIZE`` setting (env ``PAGE_SIZE``); a client may ask for up to
``max_limit`` items. Paging that breaks the contract (``?offset=-1``,
``?limit=null``, a limit above the maximum) is refused with a
``validation_error``, never silently replaced by the default.
"""

from collections.abc import Callable
from typing import Any

from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination as DrfLimitOffsetPagination
from rest_framework.request import Request
from rest_framework.utils.urls import remove_query_param, replace_query_param

from core.inputs import validated

MAX_LIMIT = 200
MAX_OFFSET = 2**31 - 1
#: The query parameter of a keyset page's start (a list that pages by cursor as well).
CURSOR_PARAM = "cursor"


class PageQueryInput(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1, max_value=MAX_LIMIT, required=False, help_text="Results per page (the default: PAGE_SIZE)."
    )
    offset = serializers.IntegerField(
        min_value=0, max_value=MAX_OFFSET, required=False, help_text="Index of the first result."
    )


class LimitOffsetPagination(DrfLimitOffsetPagination):
    max_limit = MAX_LIMIT
    #: A view may set how the page's ``count`` is found, when a statement of its own
    #: counts faster than ``COUNT(*)`` over the listed query (it must count the same rows).
    counter: Callable[[], int] | None = None
    #: ... and how the page's rows are read, ``(limit, offset) -> rows``, when a statement
    #: of its own reads them faster than a slice of the listed query (the same rows).
    pager: Callable[[int, int], list[Any]] | None = None

    def get_count(self, queryset: Any) -> int:
        return self.counter() if self.counter is not None else int(super().get_count(queryset))

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        if self.pager is None:
            return super().paginate_queryset(queryset, request, view)
        # DRF's steps, the page read by the view's pager instead of a slice of the query.
        self.request, self.limit = request, self.get_limit(request)
        if self.limit is None:
            return None
        self.count, self.offset = self.get_count(queryset), self.get_offset(request)
        if self.offset >= self.count:  # past the end (or nothing listed): no page to read
            return []
        return self.pager(self.limit, self.offset)

    def get_limit(self, request: Request) -> int | None:
        return validated(PageQueryInput, request.query_params).get("limit", self.default_limit)

    def get_offset(self, request: Request) -> int:
        return int(validated(PageQueryInput, request.query_params).get("offset", 0))

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
                parameter["schema"].update({"minimum": 1, "maximum": MAX_LIMIT})
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"].update({"minimum": 0, "maximum": MAX_OFFSET})
        return parameters


def cursor_links(request: Request, *, limit: int, position: int, cursor: str | None) -> tuple[str | None, str | None]:
    """``(next, previous)`` of a page of a list that pages by cursor as well as by
    offset: ``next`` carries ``cursor`` (where the page ended; None: the last page) in
    place of any offset, ``previous`` the offset of the page before ``position`` (the
    entries before this page), without a cursor."""
    url = remove_query_param(request.build_absolute_uri(), CURSOR_PARAM)
    following = replace_query_param(remove_query_param(url, "offset"), CURSOR_PARAM, cursor) if cursor else None
    if position <= 0:
        return following, None
    if position <= limit:
        return following, remove_query_param(url, "offset")
    return following, replace_query_param(url, "offset", position - limit)
