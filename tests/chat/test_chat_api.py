"""The table chat over the API: who reads and writes which channel, every
refusal with its code as openapi.yaml documents it, mutes, removal by a
moderator (audited, original text kept for the admin)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from chat import services as chat_services
from chat.models import REMOVED_TEXT, ChatMessage
from moderation import services as moderation
from moderation.models import AuditAction, AuditEntry
from tests.api.games_helpers import ok, refused

pytestmark = pytest.mark.django_db


def chat_url(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/chat/"


def say(client: APIClient, game_id: int, channel: str, text: str) -> Any:
    return client.post(chat_url(game_id), {"channel": channel, "text": text}, format="json")


def read(client: APIClient, game_id: int, channel: str, **query: Any) -> Any:
    return client.get(chat_url(game_id), {"channel": channel, **query})


@pytest.fixture
def chat_moderator(make_player: Any) -> Any:
    user = make_player("chatmod")
    moderation.moderator_add(user=user)
    return type(user).objects.get(pk=user.pk)


def test_players_talk_in_their_channel_and_spectators_in_theirs(people: Any, make_table: Any) -> None:
    table = make_table()
    game = table.game_id
    first = ok(say(table.clients[0], game, "players", "  good luck  "), 201)
    assert (first["text"], first["author"], first["channel"]) == ("good luck", table.users[0].username, "players")
    assert (first["removed"], first["game"]) == (False, game)
    ok(say(table.clients[1], game, "players", "you too"), 201)
    _, watcher_client = people.player()
    ok(say(watcher_client, game, "spectators", "nice opening"), 201)

    for client in table.clients:
        page = ok(read(client, game, "players"))
        assert [m["text"] for m in page["messages"]] == ["good luck", "you too"]  # oldest first
    assert [m["text"] for m in ok(read(APIClient(), game, "spectators"))["messages"]] == ["nice opening"]
    assert [m["text"] for m in ok(read(watcher_client, game, "spectators"))["messages"]] == ["nice opening"]

    # after / limit: a page after an id, oldest first, with has_more; no after: the last ones
    page = ok(read(table.clients[0], game, "players", after=0, limit=1))
    assert [m["text"] for m in page["messages"]] == ["good luck"] and page["has_more"] is True
    page = ok(read(table.clients[0], game, "players", after=first["id"]))
    assert [m["text"] for m in page["messages"]] == ["you too"] and page["has_more"] is False
    assert [m["text"] for m in ok(read(table.clients[0], game, "players", limit=1))["messages"]] == ["you too"]


def test_the_refusals_of_the_chat(people: Any, make_table: Any, settings: Any) -> None:
    table = make_table()
    game = table.game_id
    _, watcher_client = people.player()
    # seated players neither read nor write the spectators' channel; others not the players'
    refused(say(table.clients[0], game, "spectators", "psst"), 403, "chat_channel_closed")
    refused(read(table.clients[0], game, "spectators"), 403, "chat_channel_closed")
    refused(say(watcher_client, game, "players", "hi"), 403, "not_seated")
    refused(read(watcher_client, game, "players"), 403, "not_seated")
    refused(read(APIClient(), game, "players"), 403, "not_seated")
    refused(say(APIClient(), game, "spectators", "hi"), 401, "not_authenticated")
    # the game and the input
    refused(say(table.clients[0], 999999, "players", "hi"), 404, "not_found")
    refused(read(watcher_client, 999999, "spectators"), 404, "not_found")
    refused(say(table.clients[0], game, "players", "   "), 400, "validation_error")
    refused(say(table.clients[0], game, "players", "x" * 501), 400, "validation_error")
    refused(say(table.clients[0], game, "lobby", "hi"), 400, "validation_error")
    refused(read(table.clients[0], game, "players", limit=0), 400, "validation_error")
    ok(say(table.clients[0], game, "players", "x" * 500), 201)
    assert ChatMessage.objects.count() == 1
    # the rate limit, per account
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "chat": "2/minute"}
    settings.REST_FRAMEWORK = rest
    ok(say(table.clients[1], game, "players", "one"), 201)
    ok(say(table.clients[1], game, "players", "two"), 201)
    refused(say(table.clients[1], game, "players", "three"), 429, "rate_limited")
    ok(say(watcher_client, game, "spectators", "another account is not limited by it"), 201)


def test_the_chat_of_a_game_that_is_over(make_table: Any, chat_moderator: Any, monkeypatch: Any) -> None:
    table = make_table()
    game = table.game_id
    ok(say(table.clients[0], game, "players", "before"), 201)
    moderation.moderation_game_abort(game_id=game, by=chat_moderator, reason="test")
    ok(say(table.clients[1], game, "players", "gg anyway"), 201)  # a while after the end: still open
    monkeypatch.setattr(chat_services, "WRITE_AFTER_END", timedelta(0))  # the window has passed
    refused(say(table.clients[1], game, "players", "too late"), 409, "chat_closed")
    assert [m["text"] for m in ok(read(table.clients[0], game, "players"))["messages"]] == ["before", "gg anyway"]


def test_a_muted_account_is_refused(people: Any, make_table: Any, chat_moderator: Any) -> None:
    table = make_table()
    watcher, watcher_client = people.player()
    until = timezone.now() + timedelta(hours=1)
    moderation.moderation_player_mute(player=table.users[0], by=chat_moderator, reason="insults", until=until)
    moderation.moderation_player_mute(player=watcher, by=chat_moderator, reason="spam")
    body = refused(say(table.clients[0], table.game_id, "players", "hi"), 403, "muted")
    assert body["until"] is not None
    assert refused(say(watcher_client, table.game_id, "spectators", "hi"), 403, "muted")["until"] is None
    ok(read(table.clients[0], table.game_id, "players"))  # reading stays open
    ok(say(table.clients[1], table.game_id, "players", "the other player is not muted"), 201)
    moderation.moderation_player_unmute(player=table.users[0], by=chat_moderator)
    ok(say(table.clients[0], table.game_id, "players", "back"), 201)


def test_a_moderator_removes_a_message(make_table: Any, chat_moderator: Any, make_player: Any) -> None:
    table = make_table()
    game = table.game_id
    bad = ok(say(table.clients[0], game, "players", "something abusive"), 201)
    ok(say(table.clients[1], game, "players", "calm down"), 201)
    moderation.moderation_chat_remove(message_id=bad["id"], by=chat_moderator, reason="abuse")
    moderation.moderation_chat_remove(message_id=bad["id"], by=chat_moderator, reason="again")  # no change
    for client in table.clients:
        shown = ok(read(client, game, "players"))["messages"]
        assert [(m["text"], m["removed"]) for m in shown] == [(REMOVED_TEXT, True), ("calm down", False)]
    entry = AuditEntry.objects.get(action=AuditAction.CHAT_REMOVE)
    assert (entry.moderator, entry.game_id, entry.player, entry.reason) == (
        chat_moderator,
        game,
        table.users[0],
        "abuse",
    )
    assert entry.details["message"] == bad["id"] and entry.details["text"] == "something abusive"
    assert AuditEntry.objects.filter(action=AuditAction.CHAT_REMOVE).count() == 1
    # only a moderator may remove
    with pytest.raises(Exception) as refusal:
        moderation.moderation_chat_remove(message_id=bad["id"], by=table.users[1], reason="x")
    assert getattr(refusal.value, "code", None) == "permission_denied"

    # the admin: the original text, on the game's page and in the message list
    admin = Client()
    admin.force_login(chat_moderator)
    page = admin.get(f"/admin/games/game/{game}/change/")
    assert page.status_code == 200 and b"Table chat (original text" in page.content
    assert b"something abusive" in page.content and b"calm down" in page.content  # the inline, both messages
    listing = admin.get("/admin/chat/chatmessage/?removed_at__isempty=0")
    assert listing.status_code == 200 and b"something abusive" in listing.content
    assert b"calm down" not in listing.content
    # a player who is no moderator does not see the admin
    nobody = Client()
    nobody.force_login(make_player("curious"))
    assert nobody.get("/admin/chat/chatmessage/").status_code == 302


def test_the_admin_action_removes_messages(make_table: Any, chat_moderator: Any) -> None:
    table = make_table()
    message = ok(say(table.clients[0], table.game_id, "players", "spam spam"), 201)
    admin = Client()
    admin.force_login(chat_moderator)
    answer = admin.post(
        "/admin/chat/chatmessage/",
        {"action": "remove_selected", "_selected_action": [message["id"]], "apply": "1", "reason": "spam"},
    )
    assert answer.status_code == 302, answer.content[:500]
    removed = ChatMessage.objects.get(pk=message["id"])
    assert removed.removed_by == chat_moderator and removed.text == "spam spam"
    assert AuditEntry.objects.get(action=AuditAction.CHAT_REMOVE).reason == "spam"
