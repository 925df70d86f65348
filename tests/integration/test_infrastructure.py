"""The real services the integration tests rely on are the ones configured."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection


@pytest.mark.postgres
@pytest.mark.django_db
def test_runs_on_postgresql_with_persistent_connections():
    assert connection.vendor == "postgresql"
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] == 60
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database()")
        assert cursor.fetchone()[0].startswith("test_")


@pytest.mark.redis
def test_redis_answers_and_serves_as_a_cache(redis_url):
    from django.core.cache.backends.redis import RedisCache

    cache = RedisCache(redis_url, {"KEY_PREFIX": "cf-test"})
    cache.set("probe", {"ok": 1}, timeout=5)
    assert cache.get("probe") == {"ok": 1}
    cache.delete("probe")


@pytest.mark.redis
def test_cache_objects_share_one_redis_pool_per_process(redis_url):
    """Under ASGI each request gets its own cache object; they must not each open
    a Redis connection pool of their own (nor make a client per call)."""
    from core.cache import SharedPoolRedisCache

    first = SharedPoolRedisCache(redis_url, {"KEY_PREFIX": "cf-test"})
    second = SharedPoolRedisCache(redis_url, {"KEY_PREFIX": "cf-test"})
    first.set("shared", 1, timeout=5)
    assert second.get("shared") == 1
    client = first._cache.get_client(write=True)
    assert client is second._cache.get_client(write=True) is second._cache.get_client(write=False)
    first.delete("shared")
