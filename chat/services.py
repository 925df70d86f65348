"""Writing the chat: a message, and its removal (by moderation, which checks
and audits it). Each change wakes the game's streams after it commits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from chat import filters, guards, selectors
from chat.errors import ChatCode, ChatError
from chat.models import MAX_LENGTH, ChatMessage, MessageState
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
    state, why, refusal = _filtered(author=author, text=text)
    with transaction.atomic():
        # A refused message is kept as rejected, with the rule that refused it: the
        # moderators see what the filter stopped (Chat messages, state "rejected");
        # nobody else ever reads it, and it counts towards no limit.
        message = ChatMessage.objects.create(
            game_id=game_id, channel=channel, author=author, text=text, state=state, held_reason=why
        )
        if refusal is None:
            _wake(game_id)
    if refusal is not None:
        raise refusal
    return message


def _filtered(*, author: Any, text: str) -> tuple[str, str, ChatError | None]:
    """The state a new message starts in (chat.filters), its reason, and the
    refusal its author gets (None: posted, held or shadow-muted)."""
    verdict = filters.verdict(author=author, text=text)
    if verdict is None:
        return MessageState.SHOWN, "", None
    if verdict.action == "block":
        refusal = ChatError(
            ChatCode.CHAT_BLOCKED,
            gettext("Your message has a word or a link this chat does not allow; it was not posted."),
        )
        return MessageState.REJECTED, f"blocked: {verdict.why}"[:200], refusal
    if verdict.action == "links":
        allowed, hours = settings.CHAT_NEW_ACCOUNT_LINKS, settings.CHAT_NEW_ACCOUNT_HOURS
        detail = (
            gettext("New accounts may not post links in the chat during their first %(hours)s hours.")
            if not allowed
            else gettext("New accounts may post only %(allowed)s links in the chat during their first %(hours)s hours.")
        )
        refusal = ChatError(
            ChatCode.CHAT_LINKS_LIMITED, detail % {"allowed": allowed, "hours": hours}, allowed=allowed, hours=hours
        )
        return MessageState.REJECTED, f"refused: {verdict.why}"[:200], refusal
    state = MessageState.SHADOW if verdict.action == "shadow" else MessageState.HELD
    return state, verdict.why[:200], None


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


def _locked(message_id: int) -> ChatMessage:
    message = ChatMessage.objects.select_for_update().filter(pk=message_id).first()
    if message is None:
        raise ChatError(
            CoreCode.NOT_FOUND, gettext("There is no chat message %(message_id)s.") % {"message_id": message_id}
        )
    return message


def chat_message_restore(*, message_id: int) -> tuple[ChatMessage, bool]:
    """Undo a removal (callers check the right to): readers of its channel read the
    text again, the streams at once. Answers the message and whether it changed."""
    with transaction.atomic():
        message = _locked(message_id)
        if message.removed_at is None:
            return message, False
        message.removed_at, message.removed_by, message.shown_at = None, None, timezone.now()
        message.save(update_fields=["removed_at", "removed_by", "shown_at"])
        _wake(message.game_id)
    return message, True


def chat_message_review(*, message_id: int, approve: bool) -> tuple[ChatMessage, bool]:
    """A moderator's decision on a held message (callers check the right to):
    approved, its channel reads it (the streams at once); rejected, nobody but the
    moderators ever does. Answers the message and whether it changed (a message no
    longer held is left as it is)."""
    with transaction.atomic():
        message = _locked(message_id)
        if message.state != MessageState.HELD:
            return message, False
        message.state = MessageState.SHOWN if approve else MessageState.REJECTED
        message.shown_at = timezone.now() if approve else None
        message.save(update_fields=["state", "shown_at"])
        if approve:
            _wake(message.game_id)
    return message, True
