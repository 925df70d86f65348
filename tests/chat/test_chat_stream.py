"""The table chat on the game's stream, over a real web server (gunicorn) with
Redis: each viewer gets its own channel's messages (seated players the players',
everyone else the spectators'), without an ``id:`` line, and a moderator's
removal as ``chat_message_removed`` - woken by the chat's notice, not by the
stream's poll (set to a minute here)."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chat.models import REMOVED_TEXT
from games import services as game_services
from moderation import services as moderation
from players import services as player_services
from tests.integration.web import SseClient, SseMessage, WebServer

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

#: Much longer than any wait below: a frame that comes in time was woken by a notice.
POLL = "60"
PROMPT = 20.0


@pytest.fixture
def server(tmp_path: Path, redis_url: str, settings: Any) -> Iterator[WebServer]:
    settings.REDIS_URL = redis_url  # the moderator's removal (in this process) publishes through Redis
    web = WebServer(
        tmp_path / "web.log",
        redis_url=redis_url,
        env={"LIVE_KEEPALIVE_SECONDS": "1", "LIVE_POLL_SECONDS": POLL, "THROTTLE_CHAT": "1000/minute"},
    )
    yield web
    web.stop()


def token_of(user: Any) -> str:
    return player_services.token_create(user=user, name="chat").secret


def post_chat(server: WebServer, game_id: int, token: str, channel: str, text: str) -> dict[str, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    body = json.dumps({"channel": channel, "text": text})
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    connection.request("POST", f"/api/v1/games/{game_id}/chat/", body=body, headers=headers)
    answer = connection.getresponse()
    data = json.loads(answer.read())
    connection.close()
    assert answer.status == 201, data
    return dict(data)


class Watcher:
    """One viewer's stream, read up to the snapshot."""

    def __init__(self, server: WebServer, game_id: int, token: str | None) -> None:
        self.client = SseClient(server.port, f"/api/v1/games/{game_id}/stream/", token=token, timeout=PROMPT)
        assert self.client.status == 200
        self.messages = self.client.messages()
        assert next(self.messages).event == "snapshot"

    def chat_until(self, event: str, message_id: int) -> list[SseMessage]:
        """The chat frames up to the ``event`` about message ``message_id`` (within PROMPT)."""
        deadline = time.monotonic() + PROMPT
        frames = []
        for message in self.messages:
            if time.monotonic() > deadline:
                pytest.fail(f"no {event} of message {message_id} within {PROMPT} s")
            if message.event and message.event.startswith("chat_"):
                frames.append(message)
                if message.event == event and message.data["id"] == message_id:
                    return frames
        pytest.fail("the stream ended")

    def close(self) -> None:
        self.client.close()


def test_each_viewer_gets_its_own_channel_and_the_removals(server: WebServer, make_player: Any) -> None:
    alice, bob, carol, mod = (make_player(name) for name in ("alice", "bob", "carol", "mod"))
    moderation.moderator_add(user=mod)
    game = game_services.game_create(creator=alice, ruleset={"set_max": 6, "players": 2, "rounds": 1})
    game_services.game_join(game_id=game.pk, player=bob)
    game_services.game_start(game_id=game.pk, by=alice)
    tokens = {user.username: token_of(user) for user in (alice, bob, carol)}
    # Said before the streams open: not on them (GET .../chat/ has it).
    before = post_chat(server, game.pk, tokens["alice"], "players", "before the streams")

    seated = [Watcher(server, game.pk, tokens["alice"]), Watcher(server, game.pk, tokens["bob"])]
    others = [Watcher(server, game.pk, tokens["carol"]), Watcher(server, game.pk, None)]
    p1 = post_chat(server, game.pk, tokens["alice"], "players", "good luck")
    s1 = post_chat(server, game.pk, tokens["carol"], "spectators", "alice will win")
    p2 = post_chat(server, game.pk, tokens["bob"], "players", "thanks")
    s2 = post_chat(server, game.pk, tokens["carol"], "spectators", "or not")

    for watcher in seated:
        frames = watcher.chat_until("chat_message", p2["id"])
        assert [(f.event, f.data["text"]) for f in frames] == [
            ("chat_message", "good luck"),
            ("chat_message", "thanks"),
        ]
        assert all(f.id is None for f in frames)  # Last-Event-ID stays the game's seq
        assert frames[0].data == p1
    for watcher in others:
        frames = watcher.chat_until("chat_message", s2["id"])
        assert [f.data["text"] for f in frames] == ["alice will win", "or not"]
        assert all(f.id is None and f.data["channel"] == "spectators" for f in frames)
        assert frames[0].data == s1

    moderation.moderation_chat_remove(message_id=p1["id"], by=mod, reason="test")
    moderation.moderation_chat_remove(message_id=s1["id"], by=mod, reason="test")
    for watcher in seated:
        [frame] = watcher.chat_until("chat_message_removed", p1["id"])
        assert (frame.id, frame.data["text"], frame.data["removed"]) == (None, REMOVED_TEXT, True)
    for watcher in others:
        # The players' removal (first) is not theirs: the first chat frame they get is their own.
        [frame] = watcher.chat_until("chat_message_removed", s1["id"])
        assert (frame.data["text"], frame.data["removed"], frame.data["channel"]) == (REMOVED_TEXT, True, "spectators")
    for watcher in seated + others:
        watcher.close()
    assert before["id"] < p1["id"]
