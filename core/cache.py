"""Django's Redis cache, with one connection pool per process, that keeps
working while Redis is away (``ResilientRedisCache``, the one the settings use).

Django keeps a cache object per request context; under ASGI every request is a
new context, so the stock backend opened a new Redis connection (pool) for
every request's rate-limit check. This backend shares the pools process-wide,
and one client per pool: the stock backend makes a new ``redis.Redis`` (a few
hundred dict writes) for every cache call, two per rate-limited request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, cast

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis import exceptions as redis_exceptions

from core import tracing
from core.breaker import Breaker
from core.redisconn import is_sentinel, redis_client

_clients: dict[tuple[str, ...], Any] = {}  # (server, pool options) -> redis.Redis on its own pool
_lock = threading.Lock()


class SharedPoolRedisCacheClient(RedisCacheClient):
    # Set by RedisCacheClient.__init__ (Django's internals, which django-stubs leaves out).
    _servers: list[str]
    _pool_options: dict[str, Any]
    _pool_class: Any
    _client: Any
    _get_connection_pool_index: Callable[[bool], int]

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django splits LOCATION at commas into servers; a sentinel:// URL is one
        # server with several sentinels (core.redisconn), put back together here.
        sentinel = is_sentinel(self._servers[0])
        server = ",".join(self._servers) if sentinel else self._servers[self._get_connection_pool_index(write)]
        shared = (server, repr(sorted(self._pool_options.items())))
        client = _clients.get(shared)
        if client is None:
            with _lock:
                client = _clients.get(shared)
                if client is None:
                    if sentinel:
                        client = _clients[shared] = redis_client(server, **self._pool_options)
                    else:
                        pool = self._pool_class.from_url(server, **self._pool_options)
                        client = _clients[shared] = self._client(connection_pool=pool)
        return client


class SharedPoolRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolRedisCacheClient


#: Redis as this process sees it (shared by the cache and live.hub's notices).
REDIS = Breaker("Redis")
REDIS_ERRORS: tuple[type[BaseException], ...] = (
    redis_exceptions.ConnectionError,  # and BusyLoadingError, a restarted Redis loading its data
    redis_exceptions.TimeoutError,
    redis_exceptions.ReadOnlyError,  # a replica after a fail-over
    OSError,
)


def _falls_back(name: str) -> Callable[..., Any]:
    def method(self: ResilientRedisCache, *args: Any, **kwargs: Any) -> Any:
        if not REDIS.is_open:
            try:
                result = getattr(super(ResilientRedisCache, self), name)(*args, **kwargs)
            except REDIS_ERRORS as error:
                REDIS.failed(error)
            else:
                REDIS.succeeded()
                return result
        return getattr(self.fallback, name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``{name}`` on Redis, or on this process's memory while Redis is unavailable."
    return method


def send_all(client: Any, commands: Sequence[tuple[Any, ...]]) -> list[Any]:
    """Run ``commands`` on Redis in one write and one read, and return their replies.

    What ``client.pipeline(transaction=False)`` does, on a connection of the same
    pool, without the pipeline object, its retries and the per-command hooks of
    redis-py's client, which cost a move's two trips (its rate limit, its notices)
    more CPU (``tools/redis_parser_bench.py``; docs/performance.md). The pool still checks the
    connection before handing it out, so a socket that a restarted Redis closed is
    reconnected, not reported. A failure disconnects the connection (some replies
    may be unread) and raises; there is no retry: the caller's breaker decides.
    An error reply raises ``redis.exceptions.ResponseError``."""
    pool = client.connection_pool
    with tracing.redis_span(commands):
        connection = pool.get_connection()
        try:
            connection.send_packed_command(connection.pack_commands(commands), check_health=False)
            return [connection.read_response() for _ in commands]
        except BaseException:
            connection.disconnect()
            raise
        finally:
            pool.release(connection)


def count_in(cache: Any, key: str, previous: str, timeout: int) -> tuple[int, int]:
    """``count_window`` on any Django cache: ``key`` plus one, and ``previous``."""
    for _ in range(3):  # the usual case: the window's counter exists
        try:
            return int(cache.incr(key)), int(cache.get(previous, 0))
        except ValueError:  # its first hit: create it (unless another request just did)
            if cache.add(key, 1, timeout=timeout):
                return 1, int(cache.get(previous, 0))
    raise RuntimeError(f"could not count {key}")  # pragma: no cover - the cache keeps losing the key


#: INCRBY on a key that exists, else nothing (nil): one atomic step, where Django's
#: ``incr`` asks EXISTS first and would create a key that expired in between.
_INCR_EXISTING = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end"


def incr_existing(cache: Any, key: str, delta: int) -> int | None:
    """``key`` plus ``delta`` if ``key`` is in ``cache`` (its time to live kept), else
    nothing: None. Never creates the key."""
    method = getattr(cache, "incr_existing", None)
    if method is not None:
        return cast(int | None, method(key, delta))
    try:
        return int(cache.incr(key, delta))
    except ValueError:
        return None


class ResilientRedisCache(SharedPoolRedisCache):
    """The Redis cache, which keeps working while Redis does not: every call that
    fails to reach Redis (and every call for a moment after, see ``core.breaker``)
    goes to a cache in this process's memory instead. What the cache holds here -
    rate-limit counters - then counts per process rather than per server, which is
    the degradation we accept: no request fails because Redis is away."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self.fallback = LocMemCache(f"fallback:{server}", {"KEY_PREFIX": params.get("KEY_PREFIX", "")})

    def count_window(self, key: str, previous: str, timeout: int) -> tuple[int, int]:
        """``key`` plus one (created with ``timeout`` seconds to live), and ``previous``
        as it is: a rate limit's two counters in one round trip to Redis (INCR, EXPIRE NX
        and GET, through ``send_all``), or in this process's memory while Redis is away."""
        if not REDIS.is_open:
            # The rate limits' keys are ours (no spaces, no control characters): made,
            # not validated character by character for memcached's sake.
            current_key, previous_key = self.make_key(key), self.make_key(previous)
            try:
                client = self._cache.get_client(current_key, write=True)
                count, _, before = send_all(
                    client,
                    [("INCR", current_key), ("EXPIRE", current_key, timeout, "NX"), ("GET", previous_key)],
                )
            except REDIS_ERRORS as error:
                REDIS.failed(error)
            else:
                REDIS.succeeded()
                return int(count), int(before or 0)
        return count_in(self.fallback, key, previous, timeout)

    def incr_existing(self, key: str, delta: int) -> int | None:
        """``incr_existing`` on Redis (one script, atomic), or in this process's memory
        while Redis is away."""
        if not REDIS.is_open:
            made = self.make_key(key)
            try:
                client = self._cache.get_client(made, write=True)
                (found,) = send_all(client, [("EVAL", _INCR_EXISTING, 1, made, delta)])
            except REDIS_ERRORS as error:
                REDIS.failed(error)
            else:
                REDIS.succeeded()
                return None if found is None else int(found)
        return incr_existing(self.fallback, key, delta)

    get = _falls_back("get")
    set = _falls_back("set")
    add = _falls_back("add")
    touch = _falls_back("touch")
    delete = _falls_back("delete")
    incr = _falls_back("incr")
    decr = _falls_back("decr")
    has_key = _falls_back("has_key")
    get_many = _falls_back("get_many")
    set_many = _falls_back("set_many")
    delete_many = _falls_back("delete_many")

    def clear(self) -> None:
        """Delete this cache's keys - those under its ``KEY_PREFIX`` - in Redis and in
        this process's memory, and nothing else. Django's Redis cache flushes the whole
        database, which may hold the Celery broker's queues, another deployment's cache
        or another test process's (each pytest-xdist worker has a prefix of its own)."""
        if not REDIS.is_open:
            pattern = _glob_escape(f"{self.key_prefix}:") + "*"
            try:
                client = self._cache.get_client(None, write=True)
                batch: list[bytes] = []
                for key in client.scan_iter(match=pattern, count=CLEAR_BATCH):
                    batch.append(key)
                    if len(batch) >= CLEAR_BATCH:
                        client.delete(*batch)
                        batch.clear()
                if batch:
                    client.delete(*batch)
            except REDIS_ERRORS as error:
                REDIS.failed(error)
            else:
                REDIS.succeeded()
        self.fallback.clear()


#: Keys deleted per DEL (and asked for per SCAN) by ``ResilientRedisCache.clear``.
CLEAR_BATCH = 500


def _glob_escape(text: str) -> str:
    """``text`` as a Redis glob pattern that matches only itself."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in text)
