"""The chat's part of a game's stream (``chat.feed``), read directly: each read
is one statement whatever the viewer, and brings the viewer's own channel's new
messages and the removals of what it was sent, each once."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from chat import feed, selectors
from chat import services as chat_services
from chat.models import REMOVED_TEXT, ChatMessage
from chat.serializers import ChatMessageOutput
from moderation import services as moderation

pytestmark = pytest.mark.django_db


def texts(items: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str]]:
    return [(event, data["text"]) for event, data in items]


@pytest.mark.parametrize("viewer", ["seated", "spectator", "anonymous", "none"])
def test_a_read_is_one_statement_with_the_viewers_channel_and_its_removals(
    viewer: str, people: Any, make_table: Any, django_assert_num_queries: Any
) -> None:
    table = make_table()
    game = table.game_id
    spectator, _ = people.player()
    moderator, _ = people.player()
    moderation.moderator_add(user=moderator)
    reader = {"seated": table.users[1], "spectator": spectator, "anonymous": AnonymousUser(), "none": None}[viewer]
    channel, author = ("players", table.users[0]) if viewer == "seated" else ("spectators", spectator)
    other, other_author = ("spectators", spectator) if channel == "players" else ("players", table.users[0])
    state = feed.chat_start(game, reader)

    first = chat_services.chat_message_create(game_id=game, author=author, channel=channel, text="one")
    chat_services.chat_message_create(game_id=game, author=other_author, channel=other, text="not yours")
    with django_assert_num_queries(1):
        assert texts(feed.chat_items(game, reader, state)) == [("chat_message", "one")]

    moderation.moderation_chat_remove(message_id=first.pk, by=moderator, reason="test")
    chat_services.chat_message_create(game_id=game, author=author, channel=channel, text="two")
    with django_assert_num_queries(1):
        assert texts(feed.chat_items(game, reader, state)) == [
            ("chat_message_removed", REMOVED_TEXT),
            ("chat_message", "two"),
        ]
    with django_assert_num_queries(1):
        assert feed.chat_items(game, reader, state) == []  # the removal is not sent twice


def test_a_feed_frame_is_the_message_as_the_api_gives_it(people: Any, make_table: Any) -> None:
    """The feed's statement is written out (not built by the ORM): what it reads -
    the author's name, the times, the channel - is what the chat's API answers."""
    table = make_table()
    game, author = table.game_id, table.users[0]
    state = feed.chat_start(game, author)
    message = chat_services.chat_message_create(game_id=game, author=author, channel="players", text="hello")
    [(event, data)] = feed.chat_items(game, author, state)
    stored = ChatMessage.objects.select_related("author").get(pk=message.pk)
    assert event == "chat_message"
    assert data == dict(ChatMessageOutput(selectors.message_output(stored)).data)
    assert data["author"] == author.username and data["removed"] is False
