"""A player learns of their mutes and suspensions live, on the account stream of a
real web server: ``sanction_imposed`` (reason, end), ``sanction_appealed`` (the
appeal, then its answer), ``sanction_lifted``; and a suspension's
``sanction_imposed`` is the stream's last frame before the suspension closes it."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from live import account_feeds
from live.streams import END, _AccountReader
from moderation import services
from players import services as player_services
from tests.integration.web import SseClient, WebServer, request
from tests.integration.workers import wait_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NO_RECHECK = {"LIVE_CREDENTIALS_RECHECK_SECONDS": "600", "LIVE_KEEPALIVE_SECONDS": "1"}


class Follower:
    """Reads the account stream in a thread, keeping its frames, until it ends."""

    def __init__(self, port: int, token: str) -> None:
        self.stream = SseClient(port, "/api/v1/me/stream/", token=token, timeout=30)
        assert self.stream.status == 200
        self.frames: list[Any] = []
        self.ended = threading.Event()
        self.listening = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.listening.wait(20), "no snapshot"

    def _read(self) -> None:
        for message in self.stream.messages():
            self.frames.append(message)
            if message.event == "snapshot":
                self.listening.set()
        self.ended.set()

    def sanction_frames(self) -> list[tuple[str, Any]]:
        return [(m.event, m.data) for m in self.frames if m.event and m.event.startswith("sanction_")]

    def wait_for(self, count: int) -> list[tuple[str, Any]]:
        wait_for(lambda: len(self.sanction_frames()) >= count, 15, what=f"{count} sanction frames")
        return self.sanction_frames()


@pytest.mark.redis
@pytest.mark.slow
def test_a_mute_its_appeal_and_its_lifting_reach_the_players_stream(
    make_player, make_staff, moderator, tmp_path, redis_url, settings
):
    server = WebServer(tmp_path / "web.log", redis_url=redis_url, env=NO_RECHECK)
    try:
        settings.REDIS_URL = redis_url  # this process tells the web process through Redis, as the admin's would
        player, other = make_player("loud"), make_player("other")
        second = make_staff("second")  # another moderator answers the appeal
        token = player_services.token_create(user=player, name="stream").secret
        follower = Follower(server.port, token)
        others = Follower(server.port, player_services.token_create(user=other, name="stream").secret)

        until = timezone.now() + timedelta(hours=24)
        mute = services.moderation_player_mute(player=player, by=moderator, reason="Shouting in chat.", until=until)
        ((event, data),) = follower.wait_for(1)
        assert event == "sanction_imposed"
        assert (data["id"], data["kind"], data["reason"]) == (mute.pk, "mute", "Shouting in chat.")
        assert data["ends_at"].startswith(until.strftime("%Y-%m-%dT%H:%M")) and data["appeal"] is None

        status, _ = request(
            server.port, "POST", f"/api/v1/me/sanctions/{mute.pk}/appeal/", {"text": "It was a joke."}, token=token
        )
        assert status == 201
        event, data = follower.wait_for(2)[1]
        assert event == "sanction_appealed" and data["appeal"]["status"] == "open"

        appeal_id = data["appeal"]["id"]
        services.appeal_answer(appeal_id=appeal_id, by=second, lift=False, answer="No.")
        event, data = follower.wait_for(3)[2]
        assert event == "sanction_appealed" and (data["appeal"]["status"], data["appeal"]["answer"]) == (
            "upheld",
            "No.",
        )

        services.moderation_player_unmute(player=player, by=moderator, reason="served")
        event, data = follower.wait_for(4)[3]
        assert event == "sanction_lifted" and data["lifted_at"] is not None
        time.sleep(0.5)
        assert len(follower.sanction_frames()) == 4  # each once
        assert others.sanction_frames() == []  # nobody else's stream
        assert not follower.ended.is_set()
    finally:
        server.stop()


@pytest.mark.redis
@pytest.mark.slow
def test_a_suspension_is_the_last_frame_before_the_stream_closes(make_player, moderator, tmp_path, redis_url, settings):
    server = WebServer(tmp_path / "web.log", redis_url=redis_url, env=NO_RECHECK)
    try:
        settings.REDIS_URL = redis_url
        player = make_player("cheat")
        follower = Follower(server.port, player_services.token_create(user=player, name="stream").secret)
        services.moderation_player_suspend(player=player, by=moderator, reason="Bots at the table.")
        assert follower.ended.wait(15), "the stream stays open"
        frames = follower.sanction_frames()
        assert [(e, d["kind"], d["reason"], d["ends_at"]) for e, d in frames] == [
            ("sanction_imposed", "suspension", "Bots at the table.", None)
        ]
        assert follower.frames[-1].event == "sanction_imposed"
    finally:
        server.stop()


def test_when_the_check_fails_first_the_reader_still_says_why(make_player, moderator):
    """The interleaving the live test may not hit: the stream's credentials check
    fails (the suspension) in the same read that would have told of it. Only the
    sanctions feed's change comes then - no game, no other feed."""
    player = make_player("cheat")
    games: list[Any] = []
    _, feeds = account_feeds.snapshot(player)
    reader = _AccountReader(player, games, feeds)
    services.moderation_player_warn(player=player, by=moderator, text="A warning first.")
    services.moderation_player_suspend(player=player, by=moderator, reason="Bots at the table.")

    messages, state, valid = asyncio.run(reader.read([], check=lambda: False))
    assert (state, valid) == (END, False)
    assert len(messages) == 1 and "event: sanction_imposed\n" in messages[0], messages
    assert "Bots at the table." in messages[0] and "A warning first." not in messages[0]
