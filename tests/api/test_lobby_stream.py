"""The lobby on the account stream (``live.lobby_feed``), from a real web server
(gunicorn + uvicorn on the test PostgreSQL, notices through Redis): someone else's
new table, a seat taken at it and its start reach a signed-in account's stream as
``table_open`` / ``table_closed`` frames, well before the stream's poll (60 s)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from live import account_feeds, lobby_feed
from players import services as player_services
from tests.integration.web import SseClient, SseMessage, WebServer

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def web_server(tmp_path: Path, redis_url: str) -> Iterator[WebServer]:
    server = WebServer(tmp_path / "web.log", redis_url=redis_url, env={"LIVE_KEEPALIVE_SECONDS": "1"})
    yield server
    server.stop()


def next_table_frame(messages: Iterator[SseMessage], seconds: float = 30) -> SseMessage:
    deadline = time.monotonic() + seconds
    for message in messages:
        if message.event and message.event.startswith("table_"):
            return message
        if time.monotonic() > deadline:
            break
    pytest.fail(f"no table frame within {seconds} s")


def test_an_account_stream_follows_the_lobbys_open_tables(make_player, web_server):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    tokens = {u.username: player_services.token_create(user=u, name="t").secret for u in (alice, bob, carol)}
    stream = SseClient(web_server.port, "/api/v1/me/stream/", token=tokens["alice"])
    messages = stream.messages()
    snapshot = next(messages)
    assert snapshot.event == "snapshot" and snapshot.data["tables"] == []

    status, created = web_server.request(
        "POST", "/api/v1/games/", {"ruleset": {"set_max": 6, "players": 2, "rounds": 1}}, token=tokens["bob"]
    )
    assert status == 201, created
    game_id = created["game"]["id"]
    opened = next_table_frame(messages)
    assert (opened.event, opened.data["id"], opened.data["status"]) == ("table_open", game_id, "open")
    assert [s["player"]["username"] if s["player"] else None for s in opened.data["seats"]] == ["bob", None]

    status, _ = web_server.request("POST", f"/api/v1/games/{game_id}/join/", {}, token=tokens["carol"])
    assert status == 200
    joined = next_table_frame(messages)
    assert joined.event == "table_open" and joined.data["seats"][1]["player"]["username"] == "carol"

    status, _ = web_server.request("POST", f"/api/v1/games/{game_id}/start/", {}, token=tokens["bob"])
    assert status == 200
    closed = next_table_frame(messages)
    assert (closed.event, closed.data["id"], closed.data["status"]) == ("table_closed", game_id, "running")
    stream.close()

    # a new stream's snapshot no longer holds it
    again = SseClient(web_server.port, "/api/v1/me/stream/", token=tokens["alice"])
    assert next(again.messages()).data["tables"] == []
    again.close()


def test_the_feed_holds_the_newest_open_tables(make_table, monkeypatch):
    monkeypatch.setattr(lobby_feed, "LOBBY_FEED_TABLES", 2)
    tables = [make_table(start=False) for _ in range(3)]
    running = make_table()
    items = lobby_feed.table_items(None, (), None)
    assert [i.key for i in items] == [str(t.game_id) for t in reversed(tables[1:])]
    assert all(i.event == "table_open" and not i.done for i in items)
    # a table the stream showed and that started: closed, once
    closed = lobby_feed.table_items(None, [str(running.game_id)], None)
    assert [(i.key, i.event, i.done) for i in closed if i.key == str(running.game_id)] == [
        (str(running.game_id), "table_closed", True)
    ]


def test_the_tables_feed_reads_on_a_lobby_notice_or_when_due(make_table, make_player, monkeypatch):
    monkeypatch.setattr(account_feeds, "_FEEDS", {"tables": lobby_feed.FEED})
    user = make_player("reader")
    shown, state = account_feeds.snapshot(user)
    assert shown == {"tables": []}
    account_feeds.changes(user, state)  # the first read
    table = make_table(start=False)
    assert account_feeds.changes(user, state) == []  # not due, no notice: not read
    told = account_feeds.changes(user, state, frozenset(lobby_feed.LOBBY_NOTICE))
    assert [(event, data["id"]) for event, data, _ in told] == [("table_open", table.game_id)]
    # without a notice, once LOBBY_FEED_POLL_SECONDS have passed
    other = make_table(start=False)
    state.feed_read_at["tables"] -= timedelta(seconds=lobby_feed.LOBBY_FEED_POLL_SECONDS)
    assert [data["id"] for _, data, _ in account_feeds.changes(user, state)] == [other.game_id]
