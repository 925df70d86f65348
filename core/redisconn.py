"""Connections to Redis, alone or behind Redis Sentinel: the one place that reads ``REDIS_URL``'s form.

``REDIS_URL`` is either a plain Redis URL (``redis://host:6379/0``) or, for a Redis
that fails over by itself, its sentinels and the name of the master they watch::

    sentinel://[:password@]host1:26379,host2:26379,host3:26379/<master name>/<db>

With sentinels, every new connection asks them which server is the master now,
and a connection that finds itself on a replica after a failover
(``ReadOnlyError``) or loses its server is dropped, so the next one goes to the new
master. Everything that talks to Redis - the cache (``core.cache``), the live
notices (``core.notify``), the token cache's listener, the health check, Celery's
broker (``config.settings.celery`` through ``broker_transport``) - builds its client here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import redis
import redis.asyncio as aredis
from redis.asyncio.sentinel import Sentinel as AsyncSentinel
from redis.sentinel import Sentinel

SENTINEL_SCHEME = "sentinel://"
SENTINEL_PORT = 26379


@dataclass(frozen=True)
class SentinelUrl:
    sentinels: tuple[tuple[str, int], ...]
    master: str
    db: int
    password: str | None


def is_sentinel(url: str) -> bool:
    return url.startswith(SENTINEL_SCHEME)


def parse_sentinel_url(url: str) -> SentinelUrl:
    """``sentinel://[:password@]h1:26379,h2/master/db`` in parts (ValueError if it is not one)."""
    if not is_sentinel(url):
        raise ValueError(f"not a sentinel:// URL: {url!r}")
    rest = url.removeprefix(SENTINEL_SCHEME)
    netloc, _, path = rest.partition("/")
    password = None
    if "@" in netloc:
        credentials, _, netloc = netloc.rpartition("@")
        password = unquote(credentials.partition(":")[2]) or None
    sentinels = []
    for item in netloc.split(","):
        host, _, port = item.strip().rpartition(":") if ":" in item else (item.strip(), "", "")
        if not host:
            raise ValueError(f"a sentinel without a host in {url!r}")
        sentinels.append((host, int(port) if port else SENTINEL_PORT))
    master, _, db = path.strip("/").partition("/")
    if not master:
        raise ValueError(f"no master name in {url!r} (sentinel://host:26379,.../<master name>/<db>)")
    return SentinelUrl(tuple(sentinels), master, int(db or 0), password)


def _sentinel_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The sentinels answer within the same timeouts as the server."""
    keys = ("socket_timeout", "socket_connect_timeout")
    return {key: kwargs[key] for key in keys if key in kwargs}


def redis_client(url: str, **kwargs: Any) -> redis.Redis:
    """A client of the Redis master at ``url`` (plain or ``sentinel://``); ``kwargs`` go to its connections."""
    if not is_sentinel(url):
        return redis.Redis.from_url(url, **kwargs)
    parts = parse_sentinel_url(url)
    sentinel = Sentinel(list(parts.sentinels), sentinel_kwargs=_sentinel_kwargs(kwargs))
    return sentinel.master_for(parts.master, db=parts.db, password=parts.password, **kwargs)


def async_redis_client(url: str, **kwargs: Any) -> Any:
    """``redis_client`` for asyncio (``redis.asyncio``)."""
    if not is_sentinel(url):
        return aredis.Redis.from_url(url, **kwargs)
    parts = parse_sentinel_url(url)
    sentinel = AsyncSentinel(list(parts.sentinels), sentinel_kwargs=_sentinel_kwargs(kwargs))
    return sentinel.master_for(parts.master, db=parts.db, password=parts.password, **kwargs)


def master_address(url: str, timeout: float = 0.5) -> str:
    """``host:port`` of the server ``url`` leads to now (the sentinels' answer, for sentinel://)."""
    if not is_sentinel(url):
        kwargs = redis.connection.parse_url(url)
        return f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}"
    parts = parse_sentinel_url(url)
    timeouts = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    host, port = Sentinel(list(parts.sentinels), sentinel_kwargs=timeouts).discover_master(parts.master)
    return f"{host}:{port}"


def broker_url(url: str) -> tuple[str, dict[str, Any]]:
    """Celery's broker URL and extra transport options for ``url``: kombu writes
    sentinels as ``sentinel://h1:26379/db;sentinel://h2:26379/db`` and takes the
    master's name as the ``master_name`` transport option."""
    if not is_sentinel(url):
        return url, {}
    parts = parse_sentinel_url(url)
    auth = f":{parts.password}@" if parts.password else ""
    urls = ";".join(f"sentinel://{auth}{host}:{port}/{parts.db}" for host, port in parts.sentinels)
    return urls, {"master_name": parts.master}
