"""The real services the integration tests rely on are the ones configured."""

from __future__ import annotations

import time
from pathlib import Path

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
    assert connection.connection.prepare_threshold is not None  # prepared statements (DB_PREPARED_STATEMENTS)


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_engine_state_is_text_postgresql_does_not_parse():
    """``DocumentField``: the state rewritten on every move is not jsonb."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT data_type FROM information_schema.columns WHERE table_name = 'games_game' AND column_name = 'state'"
        )
        assert cursor.fetchone()[0] == "text"


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


def listening_sockets(port: int) -> int:
    """How many sockets listen on 127.0.0.1:``port`` (from Linux's /proc/net/tcp)."""
    rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    return sum(1 for row in rows if row[1] == f"0100007F:{port:04X}" and row[3] == "0A")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="counts listening sockets in Linux's /proc/net/tcp")
def test_each_web_worker_listens_on_a_socket_of_its_own(tmp_path):
    """The deployment's web server (the Procfile's gunicorn command): each worker
    binds its own socket, so the kernel spreads connections over the workers
    instead of the busiest one winning every accept."""
    from tests.integration.web import WebServer

    server = WebServer(tmp_path / "web.log", redis_url=None, workers=3)
    try:
        deadline = time.monotonic() + 20  # the first worker answers before the others have bound
        while listening_sockets(server.port) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert listening_sockets(server.port) == 3
        statuses = [server.request("GET", "/api/v1/bots/")[0] for _ in range(12)]  # a new connection each
        assert statuses == [200] * 12
    finally:
        server.stop()
