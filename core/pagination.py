"""The API's one pagination style: ``?limit=&offset=``.

Answers ``{count, next, previous, results}``.  The default page size is the
``PAGE_SIZE`` setting (env ``PAGE_SIZE``); a client may ask for up to
``max_limit`` items.
"""

from rest_framework.pagination import LimitOffsetPagination as DrfLimitOffsetPagination


class LimitOffsetPagination(DrfLimitOffsetPagination):
    max_limit = 200
