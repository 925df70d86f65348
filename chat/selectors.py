"""Reading the chat: who may read which channel, and the messages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Case, Exists, Q, Value, When

from chat.errors import ChatCode, ChatError
from chat.models import REMOVED_TEXT, ChatChannel, ChatMessage
from core.errors import CoreCode
from games.errors import GameCode
from games.models import Game, Seat

#: The most messages one read returns.
PAGE_MAX = 200


def game_chat_state(*, game_id: int) -> dict[str, Any]:
    """The game's status and end time; ``not_found`` if there is no such game."""
    game = Game.objects.filter(pk=game_id).values("status", "finished_at").first()
    if game is None:
        raise ChatError(CoreCode.NOT_FOUND, f"There is no game {game_id}.")
    return dict(game)


def is_seated(*, game_id: int, user: Any) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return Seat.objects.filter(game_id=game_id, player_id=user.pk).exists()


def channel_of(*, game_id: int, user: Any) -> str:
    """The channel ``user`` (None: anonymous) reads: players' when seated, else spectators'."""
    return ChatChannel.PLAYERS if is_seated(game_id=game_id, user=user) else ChatChannel.SPECTATORS


def channel_check(*, game_id: int, user: Any, channel: str) -> None:
    """Refuse ``user`` the ``channel`` of the game unless it is theirs."""
    if channel_of(game_id=game_id, user=user) == channel:
        return
    if channel == ChatChannel.PLAYERS:
        raise ChatError(GameCode.NOT_SEATED, "Only the players seated at the game use its players' channel.")
    raise ChatError(
        ChatCode.CHAT_CHANNEL_CLOSED, "You are seated at this game: its spectators' channel is not for you."
    )


def message_list(*, game_id: int, user: Any, channel: str, after: int | None, limit: int) -> dict[str, Any]:
    """The messages of the game's ``channel`` that ``user`` may read, oldest first:
    the first ``limit`` after id ``after``, or (no ``after``) the last ``limit``."""
    game_chat_state(game_id=game_id)
    channel_check(game_id=game_id, user=user, channel=channel)
    rows = ChatMessage.objects.filter(game_id=game_id, channel=channel).select_related("author")
    if after is not None:
        page = list(rows.filter(id__gt=after).order_by("id")[: limit + 1])
        has_more = len(page) > limit
        return {"messages": page[:limit], "has_more": has_more}
    page = list(rows.order_by("-id")[:limit])
    page.reverse()
    return {"messages": page, "has_more": False}


def message_get(*, message_id: int, user: Any) -> ChatMessage:
    """A message ``user`` may read (its channel is theirs); else ``not_found``."""
    message = ChatMessage.objects.select_related("author").filter(pk=message_id).first()
    if message is None or channel_of(game_id=message.game_id, user=user) != message.channel:
        raise ChatError(CoreCode.NOT_FOUND, f"There is no chat message {message_id} you can read.")
    return message


def messages_around(*, message: ChatMessage, each_side: int = 10) -> list[ChatMessage]:
    """The message with up to ``each_side`` messages of its channel before and after it."""
    rows = ChatMessage.objects.filter(game_id=message.game_id, channel=message.channel).select_related(
        "author", "removed_by"
    )
    before = list(rows.filter(id__lt=message.pk).order_by("-id")[:each_side])
    after = list(rows.filter(id__gt=message.pk).order_by("id")[:each_side])
    return [*reversed(before), message, *after]


def feed_page(*, game_id: int, user: Any, after: int, removed_since: datetime) -> list[ChatMessage]:
    """What a stream's chat feed sends ``user`` (None: anonymous) of the channel
    that is theirs (``channel_of``), in one statement: the messages up to id
    ``after`` removed at ``removed_since`` or later, then the messages after
    ``after`` (at most ``PAGE_MAX`` rows in all, oldest first)."""
    channel: Any = Value(ChatChannel.SPECTATORS)
    if user is not None and user.is_authenticated:
        seated = Seat.objects.filter(game_id=game_id, player_id=user.pk)
        channel = Case(When(Exists(seated), then=Value(ChatChannel.PLAYERS)), default=Value(ChatChannel.SPECTATORS))
    rows = ChatMessage.objects.filter(game_id=game_id, channel=channel).filter(
        Q(id__gt=after) | Q(id__lte=after, removed_at__gte=removed_since)
    )
    return list(rows.select_related("author").order_by("id")[:PAGE_MAX])


def last_message_id(*, game_id: int) -> int:
    last = ChatMessage.objects.filter(game_id=game_id).order_by("-id").values_list("id", flat=True).first()
    return int(last or 0)


def message_output(message: ChatMessage) -> dict[str, Any]:
    """A message as everyone sees it over the API and the stream (a removed one's
    text is ``REMOVED_TEXT``)."""
    return {
        "id": message.pk,
        "game": message.game_id,
        "channel": message.channel,
        "author": message.author.username,
        "text": REMOVED_TEXT if message.removed else message.text,
        "created_at": message.created_at,
        "removed": message.removed,
    }
