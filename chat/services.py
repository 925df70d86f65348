"""Writing the chat: a message, and its removal (by moderation, which checks
and audits it). Each change wakes the game's streams after it commits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from chat import guards, selectors
from chat.errors import ChatCode, ChatError
from chat.models import MAX_LENGTH, ChatMessage
from core import notify
from core.errors import CoreCode
from games.models import GameStatus
from live.hub import game_channel

#: How long after a game's end its chat may still be written ("gg").
WRITE_AFTER_END = timedelta(minutes=10)


def _wake(game_id: int) -> None:
    transaction.on_commit(lambda: notify.publish([game_channel(game_id)], {"chat": game_id}))


def chat_message_create(*, game_id: int, author: Any, channel: str, text: str) -> ChatMessage:
    """Post ``text`` in the game's ``channel``: the players' for seated accounts,
    the spectators' for the others; open and running games, and for
    ``WRITE_AFTER_END`` after the game finished or was aborted."""
    text = text.strip()
    if not text or len(text) > MAX_LENGTH:
        raise ChatError(
            CoreCode.VALIDATION_ERROR,
            gettext("A message has 1 to %(max_length)s characters.") % {"max_length": MAX_LENGTH},
            errors={
                "text": [gettext("1 to %(max_length)s characters (after stripping).") % {"max_length": MAX_LENGTH}]
            },
        )
    game = selectors.game_chat_state(game_id=game_id)
    selectors.channel_check(game_id=game_id, user=author, channel=channel)
    if game["status"] in (GameStatus.FINISHED, GameStatus.ABORTED):
        ended = game["finished_at"]
        if ended is None or timezone.now() > ended + WRITE_AFTER_END:
            raise ChatError(ChatCode.CHAT_CLOSED, gettext("This game's chat is closed for writing."))
    guards.check(author)
    with transaction.atomic():
        message = ChatMessage.objects.create(game_id=game_id, channel=channel, author=author, text=text)
        _wake(game_id)
    return message


def chat_message_remove(*, message_id: int, by: Any) -> tuple[ChatMessage, bool]:
    """Mark the message removed by ``by`` (callers check the right to); answers the
    message and whether it changed (removing twice changes nothing)."""
    with transaction.atomic():
        message = ChatMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise ChatError(
                CoreCode.NOT_FOUND, gettext("There is no chat message %(message_id)s.") % {"message_id": message_id}
            )
        if message.removed_at is not None:
            return message, False
        message.removed_at = timezone.now()
        message.removed_by = by
        message.save(update_fields=["removed_at", "removed_by"])
        _wake(message.game_id)
    return message, True
