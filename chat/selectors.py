"""Reading the chat: who may read which channel, and the messages."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils.translation import gettext

from chat.errors import ChatCode, ChatError
from chat.models import REMOVED_TEXT, ChatChannel, ChatMessage, MessageState
from core.errors import CoreCode
from games.errors import GameCode
from games.models import Game, Seat
from players.models import User

#: The most messages one read returns.
PAGE_MAX = 200


def game_chat_state(*, game_id: int) -> dict[str, Any]:
    """The game's status and end time; ``not_found`` if there is no such game."""
    game = Game.objects.filter(pk=game_id).values("status", "finished_at").first()
    if game is None:
        raise ChatError(CoreCode.NOT_FOUND, gettext("There is no game %(game_id)s.") % {"game_id": game_id})
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
        raise ChatError(GameCode.NOT_SEATED, gettext("Only the players seated at the game use its players' channel."))
    raise ChatError(
        ChatCode.CHAT_CHANNEL_CLOSED, gettext("You are seated at this game: its spectators' channel is not for you.")
    )


def readable_by(user: Any) -> Q:
    """The messages ``user`` (None: anonymous) may read besides their channel's rule:
    the shown ones, and their own shadow-muted ones (which they believe posted).
    Held and rejected messages reach no reader but the moderators (the admin)."""
    mine = Q()
    if user is not None and user.is_authenticated:
        mine = Q(state=MessageState.SHADOW, author_id=user.pk)
    return Q(state=MessageState.SHOWN) | mine if mine else Q(state=MessageState.SHOWN)


def message_list(*, game_id: int, user: Any, channel: str, after: int | None, limit: int) -> dict[str, Any]:
    """The messages of the game's ``channel`` that ``user`` may read, oldest first:
    the first ``limit`` after id ``after``, or (no ``after``) the last ``limit``."""
    game_chat_state(game_id=game_id)
    channel_check(game_id=game_id, user=user, channel=channel)
    rows = ChatMessage.objects.filter(readable_by(user), game_id=game_id, channel=channel).select_related("author")
    if after is not None:
        page = list(rows.filter(id__gt=after).order_by("id")[: limit + 1])
        has_more = len(page) > limit
        return {"messages": page[:limit], "has_more": has_more}
    page = list(rows.order_by("-id")[:limit])
    page.reverse()
    return {"messages": page, "has_more": False}


def message_get(*, message_id: int, user: Any) -> ChatMessage:
    """A message ``user`` may read (its channel is theirs); else ``not_found``."""
    message = ChatMessage.objects.select_related("author").filter(readable_by(user), pk=message_id).first()
    if message is None or channel_of(game_id=message.game_id, user=user) != message.channel:
        raise ChatError(
            CoreCode.NOT_FOUND,
            gettext("There is no chat message %(message_id)s you can read.") % {"message_id": message_id},
        )
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
    that is theirs (``channel_of``) and the messages they may read (``readable_by``),
    in one statement: the messages up to id ``after`` removed, restored or approved
    at ``removed_since`` or later, then the messages after
    ``after`` (at most ``PAGE_MAX`` rows in all, oldest first), each with its
    author's username loaded.

    Every open game stream asks this at each read, its once-a-minute safety net
    included, so the statement is written out: the ORM built it anew each time,
    at several times the CPU (docs/performance.md)."""
    viewer = user.pk if user is not None and user.is_authenticated else None
    since = connection.ops.adapt_datetimefield_value(removed_since)
    params = [
        game_id,
        game_id,
        viewer,
        ChatChannel.PLAYERS,
        ChatChannel.SPECTATORS,
        MessageState.SHOWN,
        MessageState.SHADOW,
        viewer,
        after,
        after,
        since,
        since,
        PAGE_MAX,
    ]
    messages = list(ChatMessage.objects.raw(_feed_sql(), params))  # raw(): the backend's converters still apply
    for message in messages:
        username = message.username  # type: ignore[attr-defined] # the statement's extra column
        message.author = User.from_db(connection.alias, ["id", "username"], [message.author_id, username])
    return messages


@cache
def _feed_sql() -> str:
    quote = connection.ops.quote_name
    message, seat, user = ChatMessage._meta.db_table, Seat._meta.db_table, User._meta.db_table
    # The viewer's channel: players' when seated (an anonymous viewer, NULL, never is).
    # Not correlated with the row: PostgreSQL decides it once and looks the channel
    # up in the (game, channel, id) index.
    seated = f"EXISTS (SELECT 1 FROM {quote(seat)} s WHERE s.game_id = %s AND s.player_id = %s)"
    return (
        "SELECT m.id, m.game_id, m.channel, m.author_id, m.text, m.created_at, m.removed_at, m.removed_by_id, "
        f"m.state, m.shown_at, u.username FROM {quote(message)} m JOIN {quote(user)} u ON u.id = m.author_id "
        f"WHERE m.game_id = %s AND m.channel = CASE WHEN {seated} THEN %s ELSE %s END "
        # Shown messages, and the viewer's own shadow-muted ones (an anonymous viewer, NULL, has none).
        "AND (m.state = %s OR (m.state = %s AND m.author_id = %s)) "
        "AND (m.id > %s OR (m.id <= %s AND (m.removed_at >= %s OR m.shown_at >= %s))) ORDER BY m.id LIMIT %s"
    )


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
