"""Redis is help that may vanish: the cache falls back to this process's memory,
the circuit breaker keeps requests from waiting on it again and again, and no
request fails for it."""

from __future__ import annotations

import logging

import pytest
import redis

from core import breaker as breaker_module
from core.breaker import Breaker
from core.cache import REDIS, ResilientRedisCache, incr_existing, send_all

NOBODY_LISTENS = "redis://127.0.0.1:1/0"


@pytest.fixture(autouse=True)
def _redis_as_new():
    REDIS.succeeded()  # each test starts with Redis believed up
    yield
    REDIS.succeeded()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_breaker_opens_on_failure_backs_off_and_says_so_once(monkeypatch, caplog):
    clock = Clock()
    monkeypatch.setattr(breaker_module.time, "monotonic", clock)
    helper = Breaker("the helper", cooldown=1, max_cooldown=4)
    assert not helper.is_open and not helper.down
    with caplog.at_level(logging.WARNING, logger="core.breaker"):
        cooldowns = []
        for _ in range(4):
            helper.failed(ConnectionError("refused"))
            opened_at = clock.now
            while helper.is_open:
                clock.now += 0.25
            cooldowns.append(clock.now - opened_at)
        assert cooldowns == [1, 2, 4, 4]
        assert helper.down and helper.reason == "ConnectionError: refused"
        helper.succeeded()
        helper.succeeded()
    assert not helper.down and not helper.is_open
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "the helper is unavailable (ConnectionError: refused); going on without it",
        f"the helper is back after {sum(cooldowns):.1f} s",
    ]


def test_the_cache_works_from_memory_while_redis_does_not_answer(caplog):
    cache = ResilientRedisCache(NOBODY_LISTENS, {"KEY_PREFIX": "cf-test", "OPTIONS": {"socket_connect_timeout": 0.5}})
    with caplog.at_level(logging.WARNING, logger="core.breaker"):
        cache.set("history", [1, 2], 30)
        assert cache.get("history") == [1, 2]
        assert cache.add("once", 1, 30) and not cache.add("once", 2, 30)
        assert cache.incr("once") == 2
        assert cache.get_many(["history", "once"]) == {"history": [1, 2], "once": 2}
        cache.delete("once")
        assert cache.get("once") is None
    assert REDIS.down
    assert sum("Redis is unavailable" in r.getMessage() for r in caplog.records) == 1  # said once, not per call


@pytest.mark.redis
def test_the_cache_uses_redis_again_once_it_answers(redis_url):
    cache = ResilientRedisCache(redis_url, {"KEY_PREFIX": "cf-test-resilience"})
    cache.fallback.set("stale", "from memory", 30)
    REDIS.failed(ConnectionError("gone a moment ago"))
    REDIS._retry_at = 0.0  # the cooldown is over: the next call tries Redis
    cache.set("fresh", "in redis", 30)
    assert not REDIS.down
    raw = redis.Redis.from_url(redis_url)
    assert raw.exists(cache.make_and_validate_key("fresh"))
    assert cache.get("fresh") == "in redis" and cache.get("stale") is None  # memory was only for the outage
    cache.delete("fresh")


@pytest.mark.redis
def test_incr_existing_adds_to_a_kept_count_and_never_makes_one(redis_url):
    """What a leaderboard's kept count relies on (ratings.cache.board_counts_adjust):
    a count in Redis moves on, keeping its time to live; a count not there stays
    away (the board is counted afresh when next asked, not started from the delta)."""
    cache = ResilientRedisCache(redis_url, {"KEY_PREFIX": "cf-test-incr-existing"})
    cache.delete_many(["kept", "missing"])
    cache.set("kept", 40, 60)
    assert incr_existing(cache, "kept", 3) == 43 and incr_existing(cache, "kept", -1) == 42
    assert cache.get("kept") == 42
    raw = redis.Redis.from_url(redis_url)
    assert 0 < raw.ttl(cache.make_and_validate_key("kept")) <= 60
    assert incr_existing(cache, "missing", 1) is None and cache.get("missing") is None
    assert not raw.exists(cache.make_and_validate_key("missing"))
    cache.delete("kept")


@pytest.mark.redis
def test_clear_deletes_this_caches_keys_and_nothing_else(redis_url):
    """A shared Redis database may hold the Celery broker's queues and other caches
    (another deployment's, another test process's): clearing one cache leaves them."""
    raw = redis.Redis.from_url(redis_url)
    mine = ResilientRedisCache(redis_url, {"KEY_PREFIX": "cf-test-clear[1]"})
    other = ResilientRedisCache(redis_url, {"KEY_PREFIX": "cf-test-clear11"})  # [1] as a glob would match it
    longer = ResilientRedisCache(redis_url, {"KEY_PREFIX": "cf-test-clear[1]-gw1"})
    queue = "cf-test-clear-celery-queue"
    try:
        mine.set_many({f"count:{n}": n for n in range(1200)}, 60)  # more than one batch
        mine.fallback.set("outage", 1, 60)
        other.set("count:1", "theirs", 60)
        longer.set("count:1", "another process's", 60)
        raw.rpush(queue, "a task")
        mine.clear()
        assert not list(raw.scan_iter(match="cf-test-clear\\[1\\]:*"))
        assert mine.get("count:1") is None and mine.fallback.get("outage") is None
        assert other.get("count:1") == "theirs" and longer.get("count:1") == "another process's"
        assert raw.lrange(queue, 0, -1) == [b"a task"]
    finally:
        other.delete("count:1")
        longer.delete("count:1")
        raw.delete(queue)


def test_clear_in_memory_while_redis_does_not_answer():
    cache = ResilientRedisCache(NOBODY_LISTENS, {"KEY_PREFIX": "cf-test", "OPTIONS": {"socket_connect_timeout": 0.5}})
    cache.set("kept", 5, 30)
    cache.clear()
    assert cache.get("kept") is None and REDIS.down


def test_incr_existing_in_memory_while_redis_does_not_answer():
    cache = ResilientRedisCache(NOBODY_LISTENS, {"KEY_PREFIX": "cf-test", "OPTIONS": {"socket_connect_timeout": 0.5}})
    cache.set("kept", 5, 30)
    assert incr_existing(cache, "kept", 2) == 7 and incr_existing(cache, "gone", 2) is None
    assert cache.get("gone") is None


@pytest.mark.redis
def test_a_failed_send_leaves_no_reply_behind_for_the_next(redis_url):
    """``send_all`` reads its replies one by one: when one raises, the rest are still
    on the socket, and a connection handed back with them would answer the next
    caller's commands with this caller's replies."""
    client = redis.Redis.from_url(redis_url)
    client.set("cf-test:send:word", "not a number")
    client.set("cf-test:send:other", "the other's value")
    with pytest.raises(redis.exceptions.ResponseError):
        send_all(client, [("INCR", "cf-test:send:word"), ("GET", "cf-test:send:other")])
    assert send_all(client, [("ECHO", "mine"), ("ECHO", "mine too")]) == [b"mine", b"mine too"]
    assert client.connection_pool._in_use_connections == set()
    client.delete("cf-test:send:word", "cf-test:send:other")


@pytest.mark.redis
def test_a_send_after_redis_dropped_the_connection_reconnects(redis_url):
    """A restarted Redis closes every connection in the pool; the next send goes out
    on a new one rather than failing (and opening the breaker) once per connection."""
    client = redis.Redis.from_url(redis_url)
    [first] = send_all(client, [("CLIENT", "ID")])
    assert redis.Redis.from_url(redis_url).client_kill_filter(_id=first) == 1
    [second] = send_all(client, [("CLIENT", "ID")])
    assert second != first


@pytest.mark.django_db
def test_requests_and_moves_succeed_while_the_cache_redis_is_down(settings, make_player, token_client):
    from games import services
    from games.engine import Match
    from games.models import Game

    settings.CACHES = {
        "default": {
            "BACKEND": "core.cache.ResilientRedisCache",
            "LOCATION": NOBODY_LISTENS,
            "KEY_PREFIX": "cf",
            "OPTIONS": {"socket_connect_timeout": 0.5},
        }
    }
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, ruleset={"set_max": 6, "players": 2})
    services.game_join(game_id=game.pk, player=bob)
    services.game_start(game_id=game.pk, by=alice)
    game = Game.objects.get(pk=game.pk)
    match = Match.from_dict(game.state)
    mover = token_client(alice if match.turn == 0 else bob)

    assert mover.get("/api/v1/me/").status_code == 200  # throttled views read and write the cache
    response = mover.post(
        f"/api/v1/games/{game.pk}/moves/", {**match.legal_moves()[0].to_dict(), "expected_seq": game.seq}, format="json"
    )
    assert response.status_code == 201, response.content
    assert REDIS.down
