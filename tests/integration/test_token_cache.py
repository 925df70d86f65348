"""The token cache across processes and through a Redis outage: a revocation made
in one process is refused by every web process that had the token cached; while
Redis is away nothing is cached (every request reads the database, so nothing
said meanwhile is missed), and the cache starts empty when Redis is back."""

from __future__ import annotations

import pytest

from players import services as player_services
from players.models import ApiToken
from players.token_cache import CACHE
from players.tokens import token_digest
from tests.api.test_token_cache import bearer, revoke_behind_its_back, token_reads
from tests.integration.redis_server import RedisServer
from tests.integration.web import WebServer, request, sign_up
from tests.integration.workers import wait_for


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_token_revoked_here_is_refused_by_every_web_process(tmp_path, redis_url, settings):
    server = WebServer(tmp_path / "web.log", redis_url=redis_url, workers=2)
    try:
        token = sign_up(server.port, "alice")
        for _ in range(20):  # new connections, spread over both processes: each caches the token
            assert request(server.port, "GET", "/api/v1/me/", token=token)[0] == 200
        settings.REDIS_URL = redis_url  # this process tells the web processes through Redis, as a moderator's would
        player_services.token_revoke(token=ApiToken.objects.get(digest=token_digest(token)))
        wait_for(
            lambda: all(request(server.port, "GET", "/api/v1/me/", token=token)[0] == 401 for _ in range(20)),
            10,
            what="every web process to refuse the revoked token",
        )
    finally:
        server.stop()


@pytest.mark.slow
@pytest.mark.django_db
def test_while_redis_is_away_nothing_is_cached_and_the_cache_starts_empty_when_it_is_back(
    tmp_path, settings, make_player, caplog
):
    redis_server = RedisServer(tmp_path / "redis")
    try:
        settings.REDIS_URL = redis_server.url
        alice = make_player("alice")
        before, during = (player_services.token_create(user=alice, name=n) for n in ("before", "during"))
        assert CACHE.enabled()
        wait_for(lambda: CACHE.live, 10, what="the token cache's subscription")
        early = bearer(before.secret)
        assert token_reads(early) == (200, 1)
        assert token_reads(early) == (200, 0)

        redis_server.stop()
        wait_for(lambda: not CACHE.live, 15, what="the token cache to see Redis go")
        lost = [r for r in caplog.records if r.name == "players.token_cache" and "subscription lost" in r.getMessage()]
        assert lost and lost[0].levelname == "WARNING"  # said once, with its reason
        revoke_behind_its_back(before.token.pk)  # its notice could reach nobody now
        assert early.get("/api/v1/me/").status_code == 401
        late = bearer(during.secret)
        assert token_reads(late) == (200, 1)
        assert token_reads(late) == (200, 1)  # read every time while Redis is away

        redis_server.start()
        wait_for(lambda: CACHE.live, 15, what="the token cache to subscribe again")
        assert early.get("/api/v1/me/").status_code == 401
        assert token_reads(late) == (200, 1)
        assert token_reads(late) == (200, 0)
    finally:
        redis_server.stop()
