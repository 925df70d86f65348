"""A stream lives no longer than the right to read it: revoking the token it was
opened with, or suspending the account, closes it - in every web process, at
once (a notice, not the slow re-check, which these servers set to ten minutes)."""

from __future__ import annotations

import threading
import time

import pytest

from games import services
from players import services as player_services
from tests.integration.web import SseClient, WebServer, request
from tests.integration.workers import wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

NO_RECHECK = {"LIVE_CREDENTIALS_RECHECK_SECONDS": "600", "LIVE_KEEPALIVE_SECONDS": "1"}


class Follower:
    """Reads a stream in a thread until it ends; remembers when."""

    def __init__(self, port: int, path: str, token: str) -> None:
        self.stream = SseClient(port, path, token=token, timeout=30)
        assert self.stream.status == 200
        self.ended_at: float | None = None
        self.listening = threading.Event()  # the snapshot came: the server is subscribed to notices
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.listening.wait(20), "no snapshot"

    def _read(self) -> None:
        for message in self.stream.messages():
            if message.event == "snapshot":
                self.listening.set()
        self.ended_at = time.monotonic()


def duel(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, ruleset={"set_max": 6, "players": 2})
    services.game_join(game_id=game.pk, player=bob)
    services.game_start(game_id=game.pk, by=alice)
    return game, alice


@pytest.mark.redis
def test_suspension_closes_the_accounts_streams_in_every_web_process(make_player, tmp_path, redis_url, settings):
    servers = [WebServer(tmp_path / f"web{n}.log", redis_url=redis_url, env=NO_RECHECK) for n in range(2)]
    try:
        game, alice = duel(make_player)
        token = player_services.token_create(user=alice, name="streams").secret
        followers = [
            Follower(servers[0].port, f"/api/v1/games/{game.pk}/stream/", token),
            Follower(servers[1].port, "/api/v1/me/stream/", token),
        ]
        settings.REDIS_URL = redis_url  # this process tells the web processes through Redis, as a moderator's would
        suspended = time.monotonic()
        player_services.user_set_active(user=alice, is_active=False)
        wait_for(lambda: all(f.ended_at for f in followers), 10, what="both streams to close")
        took = max(f.ended_at or 0.0 for f in followers) - suspended
        print(f"suspension closed 2 streams on 2 web processes in {took:.2f} s")
        status, problem = request(servers[0].port, "GET", "/api/v1/me/", token=token)
        assert (status, problem["code"]) == (401, "authentication_failed")
    finally:
        for server in servers:
            server.stop()


def test_revoking_a_token_closes_its_streams_and_only_its(make_player, tmp_path):
    server = WebServer(tmp_path / "web.log", redis_url=None, env=NO_RECHECK)  # no Redis: the same process tells itself
    try:
        game, alice = duel(make_player)
        doomed = player_services.token_create(user=alice, name="doomed")
        kept = player_services.token_create(user=alice, name="kept").secret
        closing = Follower(server.port, f"/api/v1/games/{game.pk}/stream/", doomed.secret)
        staying = Follower(server.port, f"/api/v1/games/{game.pk}/stream/", kept)
        revoked = time.monotonic()
        status, _ = request(server.port, "DELETE", f"/api/v1/tokens/{doomed.token.pk}/", token=kept)
        assert status == 204
        ended_at = wait_for(lambda: closing.ended_at, 10, what="the revoked token's stream to close")
        print(f"revocation closed its stream in {ended_at - revoked:.2f} s")
        assert staying.ended_at is None and staying.thread.is_alive()
        again = SseClient(server.port, f"/api/v1/games/{game.pk}/stream/", token=doomed.secret)
        assert again.status == 401
    finally:
        server.stop()
