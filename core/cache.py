"""Django's Redis cache, with one connection pool per process.

Django keeps a cache object per request context; under ASGI every request is a
new context, so the stock backend opened a new Redis connection (pool) for
every request's rate-limit check. This backend shares the pools process-wide.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_pools: dict[tuple[str, ...], Any] = {}
_lock = threading.Lock()


class SharedPoolRedisCacheClient(RedisCacheClient):
    def _get_connection_pool(self, write: bool) -> Any:
        index = self._get_connection_pool_index(write)
        key = (self._servers[index], repr(sorted(self._pool_options.items())))
        with _lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = self._pool_class.from_url(self._servers[index], **self._pool_options)
        return pool


class SharedPoolRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolRedisCacheClient
