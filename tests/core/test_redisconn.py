"""REDIS_URL's sentinel form (core.redisconn): parsed, and used for real through a
Redis Sentinel of the test's own, by the cache and the clients that connect with it."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from core.cache import ResilientRedisCache
from core.processes import free_port, kill_group, spawn, wait_until
from core.redisconn import (
    SentinelUrl,
    broker_url,
    is_sentinel,
    master_address,
    parse_sentinel_url,
    redis_client,
)
from tests.integration.redis_server import RedisServer
from tests.services import in_ci


def test_a_sentinel_url_names_its_sentinels_master_and_database():
    url = "sentinel://:s%40cret@10.0.0.1:26379,10.0.0.2,10.0.0.3:26380/chickenfoot/2"
    assert is_sentinel(url) and not is_sentinel("redis://10.0.0.1:6379/0")
    assert parse_sentinel_url(url) == SentinelUrl(
        (("10.0.0.1", 26379), ("10.0.0.2", 26379), ("10.0.0.3", 26380)), "chickenfoot", 2, "s@cret"
    )
    assert parse_sentinel_url("sentinel://h:1/m") == SentinelUrl((("h", 1),), "m", 0, None)
    with pytest.raises(ValueError, match="master name"):
        parse_sentinel_url("sentinel://h:26379")


def test_celery_gets_kombus_form_of_it():
    assert broker_url("sentinel://a:26379,b:26379/cf/1") == (
        "sentinel://a:26379/1;sentinel://b:26379/1",
        {"master_name": "cf"},
    )
    assert broker_url("redis://a:6379/0") == ("redis://a:6379/0", {})


@pytest.fixture
def sentinel(tmp_path: Path) -> Iterator[tuple[RedisServer, str]]:
    """A Redis of the test's own and one sentinel watching it as "cf": (server, REDIS_URL)."""
    program = shutil.which("redis-sentinel")
    if program is None:
        reason = "needs the redis-sentinel program (deploy/install.sh installs it)"
        if in_ci():
            pytest.fail(f"CI=true: {reason}")
        pytest.skip(reason)
    server = RedisServer(tmp_path / "redis")
    port = free_port()
    config = tmp_path / "sentinel.conf"
    config.write_text(
        f"port {port}\nbind 127.0.0.1\ndir {tmp_path}\nsentinel monitor cf 127.0.0.1 {server.port} 1\n"
        "sentinel down-after-milliseconds cf 60000\n"
    )
    process: subprocess.Popen[bytes] = spawn([program, str(config)], log=tmp_path / "sentinel.log")
    url = f"sentinel://127.0.0.1:{port}/cf/0"

    def knows_master() -> bool:
        try:
            return master_address(url) == f"127.0.0.1:{server.port}"
        except redis.RedisError:
            return False

    try:
        wait_until(knows_master, process=process, timeout=15, what="the sentinel naming its master")
        yield server, url
    finally:
        kill_group(process)
        server.stop()


def test_clients_and_the_cache_reach_the_master_the_sentinels_name(sentinel):
    server, url = sentinel
    client = redis_client(url, socket_timeout=1, socket_connect_timeout=1)
    client.set("k", "v")
    assert redis.Redis(port=server.port).get("k") == b"v"  # on the master itself
    cache = ResilientRedisCache(url, {"KEY_PREFIX": "t", "OPTIONS": {"socket_timeout": 1}})
    cache.set("answer", 42)
    assert cache.get("answer") == 42
    assert cache.count_window("hits", "before", 60) == (1, 0)
    assert any(key.endswith(b"answer") for key in redis.Redis(port=server.port).scan_iter())
