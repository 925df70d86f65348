"""Django's Redis cache, with one connection pool per process.

Django keeps a cache object per request context; under ASGI every request is a
new context, so the stock backend opened a new Redis connection (pool) for
every request's rate-limit check. This backend shares the pools process-wide,
and one client per pool: the stock backend makes a new ``redis.Redis`` (a few
hundred dict writes) for every cache call, two per rate-limited request.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_clients: dict[tuple[str, ...], Any] = {}  # (server, pool options) -> redis.Redis on its own pool
_lock = threading.Lock()


class SharedPoolRedisCacheClient(RedisCacheClient):
    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        shared = (self._servers[index], repr(sorted(self._pool_options.items())))
        client = _clients.get(shared)
        if client is None:
            with _lock:
                client = _clients.get(shared)
                if client is None:
                    pool = self._pool_class.from_url(self._servers[index], **self._pool_options)
                    client = _clients[shared] = self._client(connection_pool=pool)
        return client


class SharedPoolRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolRedisCacheClient
