"""The chat that cleans itself (issue 43): the moderators' word and link rules
(block: a refusal the author reads; hold: 202, nobody else reads it until a
moderator approves it), the new-account link limit, and the shadow-mute (the
author reads their messages, nobody else does). Every way a reader reaches a
message is checked for the held and shadow-muted ones: the chat list, a report on
the message, the game stream's chat feed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from rest_framework.test import APIClient

from chat import feed
from chat.models import ChatFilterRule, ChatMessage, MessageState
from moderation import chat_cleanup
from moderation import services as moderation
from moderation.models import AuditAction, AuditEntry
from tests.api.games_helpers import ok, refused

pytestmark = pytest.mark.django_db


def chat_url(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/chat/"


def say(client: APIClient, game_id: int, channel: str, text: str, **headers: Any) -> Any:
    return client.post(chat_url(game_id), {"channel": channel, "text": text}, format="json", **headers)


def texts(client: APIClient, game_id: int, channel: str) -> list[str]:
    return [m["text"] for m in ok(client.get(chat_url(game_id), {"channel": channel}))["messages"]]


def frames(items: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    return [(event, data["text"]) for event, data in items]


@pytest.fixture
def chat_moderator(make_player: Any) -> Any:
    user = make_player("filtermod")
    moderation.moderator_add(user=user)
    return type(user).objects.get(pk=user.pk)


def test_a_blocked_word_is_refused_with_its_code_in_the_readers_language_and_kept_for_the_moderators_only(
    make_table: Any,
) -> None:
    ChatFilterRule.objects.create(pattern="Scam Coin", kind="word", action="block")
    table = make_table()
    game = table.game_id
    body = refused(say(table.clients[0], game, "players", "buy SCAM   coin now"), 422, "chat_blocked")
    assert "not posted" in body["detail"]
    estonian = refused(
        say(table.clients[0], game, "players", "scam coin!", HTTP_ACCEPT_LANGUAGE="et"), 422, "chat_blocked"
    )
    assert estonian["detail"] != body["detail"]  # translated
    # What the filter stopped is kept for the moderators, rejected, naming its rule;
    # no reader (the other player, the author) reads it.
    stopped = ChatMessage.objects.filter(game_id=game)
    assert [(m.state, m.held_reason) for m in stopped] == [(MessageState.REJECTED, "blocked: word 'Scam Coin'")] * 2
    assert texts(table.clients[1], game, "players") == []
    assert texts(table.clients[0], game, "players") == []
    # whole words only: "scam coins" is not the phrase, "scamcoin" not the words
    ok(say(table.clients[0], game, "players", "scam coins and scamcoin"), 201)
    assert texts(table.clients[1], game, "players") == ["scam coins and scamcoin"]


def test_a_held_message_awaits_review_and_nobody_reads_it_until_a_moderator_approves_it(
    people: Any, make_table: Any, chat_moderator: Any
) -> None:
    ChatFilterRule.objects.create(pattern="rigged", kind="word", action="hold")
    table = make_table()
    game = table.game_id
    reader_state = feed.chat_start(game, table.users[1])
    author_state = feed.chat_start(game, table.users[0])

    answer = ok(say(table.clients[0], game, "players", "this deal is rigged"), 202)
    assert answer["held"] is True and "review" in answer["detail"]
    ok(say(table.clients[0], game, "players", "sorry"), 201)
    held = ChatMessage.objects.get(state=MessageState.HELD)
    assert held.held_reason == "word 'rigged'"
    for client in table.clients:  # nobody reads it, the author neither (they were told it awaits review)
        assert texts(client, game, "players") == ["sorry"]
    assert frames(feed.chat_items(game, table.users[1], reader_state)) == [("chat_message", "sorry")]
    assert frames(feed.chat_items(game, table.users[0], author_state)) == [("chat_message", "sorry")]
    # nobody can reach it by its id (a report on it from the other seated player)
    refused(
        table.clients[1].post("/api/v1/reports/", {"message": held.pk, "reason": "abuse"}, format="json"),
        404,
        "not_found",
    )

    chat_cleanup.chat_review(message_id=held.pk, by=chat_moderator, approve=True, reason="fair enough")
    assert texts(table.clients[1], game, "players") == ["this deal is rigged", "sorry"]  # in its place
    # the stream brings the approved message at once, with its own (older) id, once
    items = feed.chat_items(game, table.users[1], reader_state)
    assert [(event, data["id"]) for event, data in items] == [("chat_message", held.pk)]
    assert feed.chat_items(game, table.users[1], reader_state) == []
    entry = AuditEntry.objects.get(action=AuditAction.CHAT_APPROVE)
    assert (entry.moderator, entry.player, entry.game_id) == (chat_moderator, table.users[0], game)

    ok(say(table.clients[0], game, "players", "rigged again"), 202)
    rejected = ChatMessage.objects.get(state=MessageState.HELD)
    chat_cleanup.chat_review(message_id=rejected.pk, by=chat_moderator, approve=False)
    assert ChatMessage.objects.get(pk=rejected.pk).state == MessageState.REJECTED
    assert texts(table.clients[1], game, "players") == ["this deal is rigged", "sorry"]
    assert feed.chat_items(game, table.users[1], reader_state) == []
    assert AuditEntry.objects.filter(action=AuditAction.CHAT_REJECT, player=table.users[0]).count() == 1


def test_link_rules_match_the_domain_and_its_subdomains(make_table: Any, settings: Any) -> None:
    settings.CHAT_NEW_ACCOUNT_LINKS = 100  # the new-account limit is another test's
    ChatFilterRule.objects.create(pattern="https://www.Casino.example/x", kind="link", action="block")
    ChatFilterRule.objects.create(pattern="shop.test.com", kind="link", action="hold")
    table = make_table()
    game, client = table.game_id, table.clients[0]
    refused(say(client, game, "players", "see https://win.casino.example/?ref=1"), 422, "chat_blocked")
    refused(say(client, game, "players", "go to www.casino.example now"), 422, "chat_blocked")
    ok(say(client, game, "players", "visit shop.test.com/deal"), 202)
    ok(say(client, game, "players", "casino.examples is not it, nor notcasino.example"), 201)
    ok(say(client, game, "players", "test.com is fine"), 201)


def test_a_new_account_may_post_only_so_many_links(make_table: Any, settings: Any) -> None:
    settings.CHAT_NEW_ACCOUNT_HOURS, settings.CHAT_NEW_ACCOUNT_LINKS = 24, 0
    table = make_table()
    game = table.game_id
    body = refused(say(table.clients[0], game, "players", "free chips at chips4u.xyz"), 403, "chat_links_limited")
    assert (body["allowed"], body["hours"]) == (0, 24)
    ok(say(table.clients[0], game, "players", "gg, well played. e.g. that was close"), 201)  # no link
    refused_row = ChatMessage.objects.get(game_id=game, state=MessageState.REJECTED)
    assert refused_row.text == "free chips at chips4u.xyz" and refused_row.held_reason.startswith("refused: ")
    assert texts(table.clients[1], game, "players") == ["gg, well played. e.g. that was close"]

    settings.CHAT_NEW_ACCOUNT_LINKS = 1  # the refused link did not use the allowance up
    ok(say(table.clients[0], game, "players", "rules: https://en.wikipedia.org/wiki/Dominoes"), 201)
    refused(say(table.clients[0], game, "players", "and www.example.org"), 403, "chat_links_limited")

    old = table.users[1]  # an account older than the limit's hours posts links freely
    type(old).objects.filter(pk=old.pk).update(date_joined=timezone.now() - timedelta(hours=25))
    ok(say(table.clients[1], game, "players", "see http://a.example.com and www.b.example.net"), 201)


def test_a_shadow_muted_account_reads_its_messages_and_nobody_else_does(
    people: Any, make_table: Any, chat_moderator: Any
) -> None:
    table = make_table()
    game = table.game_id
    spectator, spectator_client = people.player()
    _, other_spectator_client = people.player()
    muted_state = feed.chat_start(game, spectator)
    anonymous_state = feed.chat_start(game, AnonymousUser())
    other_state = feed.chat_start(game, None)
    seated_state = feed.chat_start(game, table.users[0])

    chat_cleanup.chat_shadow_mute(player=spectator, by=chat_moderator, reason="adverts")
    sent = ok(say(spectator_client, game, "spectators", "cheap chips, message me"), 201)  # as if posted
    assert sent["text"] == "cheap chips, message me" and sent["removed"] is False
    ok(say(other_spectator_client, game, "spectators", "hello all"), 201)

    assert texts(spectator_client, game, "spectators") == ["cheap chips, message me", "hello all"]
    assert texts(other_spectator_client, game, "spectators") == ["hello all"]
    assert texts(APIClient(), game, "spectators") == ["hello all"]
    assert frames(feed.chat_items(game, spectator, muted_state)) == [
        ("chat_message", "cheap chips, message me"),
        ("chat_message", "hello all"),
    ]
    assert frames(feed.chat_items(game, AnonymousUser(), anonymous_state)) == [("chat_message", "hello all")]
    assert frames(feed.chat_items(game, None, other_state)) == [("chat_message", "hello all")]
    assert feed.chat_items(game, table.users[0], seated_state) == []
    refused(
        other_spectator_client.post("/api/v1/reports/", {"message": sent["id"], "reason": "spam"}, format="json"),
        404,
        "not_found",
    )
    assert AuditEntry.objects.get(action=AuditAction.CHAT_SHADOW_MUTE).player == spectator

    # lifted: new messages are read by everyone again; those written meanwhile stay unread
    assert chat_cleanup.chat_shadow_unmute(player=spectator, by=chat_moderator, reason="ok")
    ok(say(spectator_client, game, "spectators", "sorry"), 201)
    assert texts(other_spectator_client, game, "spectators") == ["hello all", "sorry"]
    assert AuditEntry.objects.filter(action=AuditAction.CHAT_SHADOW_UNMUTE, player=spectator).count() == 1


def test_a_shadow_mute_that_ended_no_longer_hides(people: Any, make_table: Any, chat_moderator: Any) -> None:
    table = make_table()
    mute = chat_cleanup.chat_shadow_mute(
        player=table.users[0], by=chat_moderator, reason="x", until=timezone.now() + timedelta(hours=1)
    )
    ok(say(table.clients[0], table.game_id, "players", "hidden"), 201)
    type(mute).objects.filter(pk=mute.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    ok(say(table.clients[0], table.game_id, "players", "seen"), 201)
    assert texts(table.clients[1], table.game_id, "players") == ["seen"]


def test_a_rule_change_applies_at_the_next_message(make_table: Any, chat_moderator: Any) -> None:
    table = make_table()
    game = table.game_id
    ok(say(table.clients[0], game, "players", "noob"), 201)
    rule = ChatFilterRule.objects.create(pattern="noob", kind="word", action="hold")
    ok(say(table.clients[0], game, "players", "noob"), 202)
    rule.action = "block"
    rule.save()
    refused(say(table.clients[0], game, "players", "NOOB"), 422, "chat_blocked")
    rule.active = False
    rule.save()
    ok(say(table.clients[0], game, "players", "noob"), 201)
    rule.active = True
    rule.save()
    rule.delete()
    ok(say(table.clients[0], game, "players", "noob"), 201)
