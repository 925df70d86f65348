"""The account stream of a seeker, from a real web server (gunicorn + uvicorn on the
test PostgreSQL, notices through Redis): the snapshot holds the waiting seek, then
the seek's outcome arrives as a frame - seek_waiting, then seek_matched with the game."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from matchmaking import services
from players import services as player_services
from tests.integration.web import SseClient, SseMessage, WebServer

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def web_server(tmp_path: Path, redis_url: str, settings: Any) -> Iterator[WebServer]:
    settings.REDIS_URL = redis_url  # the matcher runs in this process: its notices go through Redis
    server = WebServer(tmp_path / "web.log", redis_url=redis_url, env={"LIVE_KEEPALIVE_SECONDS": "1"})
    yield server
    server.stop()


def within(seconds: float, messages: Iterator[SseMessage]) -> Iterator[SseMessage]:
    deadline = time.monotonic() + seconds
    for message in messages:
        yield message
        if time.monotonic() > deadline:
            pytest.fail(f"the stream did not send what the test waits for within {seconds} s")


def test_a_seekers_stream_shows_the_seek_waiting_then_matched(make_player, web_server):
    alice, bob = make_player("alice"), make_player("bob")
    token = player_services.token_create(user=alice, name="stream").secret
    stream = SseClient(web_server.port, "/api/v1/me/stream/", token=token)
    messages = stream.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.data["seeks"] == []

    status, seek = web_server.request(
        "POST", "/api/v1/seeks/", {"players": 2, "preset": "double-6-quick", "wait_seconds": 600}, token=token
    )
    assert status == 201, seek
    waiting = next(m for m in within(30, messages) if m.event and m.event.startswith("seek_"))
    assert waiting.event == "seek_waiting" and waiting.data["id"] == seek["id"]
    assert waiting.id is not None and waiting.id.startswith(f"seeks.{seek['id']}.")

    # Alice's seek came over the API without a clock: it has the default one, and only
    # seeks with the same clock meet.
    services.seek_create(
        user=bob, players=2, preset="double-6-quick", wait_seconds=600, turn_time_limit=settings.DEFAULT_TURN_SECONDS
    )
    report = services.seeks_match()  # as the worker would
    # the seek's outcome, and the game itself on the games part of the stream (in either order)
    seen: dict[str, SseMessage] = {}
    for message in within(30, messages):
        if message.event in ("seek_matched", "game_started", "your_turn"):
            seen[message.event] = message
        if "seek_matched" in seen and {"game_started", "your_turn"} & set(seen):
            break
    matched = seen["seek_matched"]
    assert matched.data["id"] == seek["id"] and matched.data["status"] == "matched"
    assert matched.data["game"] == report.games[0]
    game_frame = seen.get("game_started") or seen["your_turn"]
    assert game_frame.data["game"] == report.games[0]
    stream.close()

    # a new stream's snapshot no longer holds it; the outcome follows it once, as a change
    again = SseClient(web_server.port, "/api/v1/me/stream/", token=token)
    replay = again.messages()
    first = next(replay)
    assert first.event == "snapshot" and first.data["seeks"] == []
    told = next(m for m in within(30, replay) if m.event and m.event.startswith("seek_"))
    assert (told.event, told.data["id"]) == ("seek_matched", seek["id"])
    again.close()
