"""The chat's refusals: ``ChatError`` with a ``ChatCode`` (or a core or games code:
``not_found``, ``validation_error``, ``not_seated``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import ApiError, CoreCode, StrOrPromise, register_enum
from games.errors import GameCode


class ChatCode(StrEnum):
    CHAT_CHANNEL_CLOSED = "chat_channel_closed"
    CHAT_CLOSED = "chat_closed"
    CHAT_BLOCKED = "chat_blocked"
    CHAT_LINKS_LIMITED = "chat_links_limited"


CHAT_CODES: dict[str, tuple[int, StrOrPromise]] = {
    ChatCode.CHAT_CHANNEL_CLOSED: (
        403,
        _("Players seated at the game neither read nor write the spectators' channel (no kibitzing)."),
    ),
    ChatCode.CHAT_CLOSED: (409, _("The game ended a while ago: its chat can still be read, no longer written.")),
    ChatCode.CHAT_BLOCKED: (
        422,
        _("The message has a word or a link the table chat does not allow: it was not posted. Write it otherwise."),
    ),
    ChatCode.CHAT_LINKS_LIMITED: (
        403,
        _(
            "A new account may post only `allowed` links in the chat in its first `hours` hours: "
            "the message was not posted. Write it without the link."
        ),
    ),
}

register_enum(ChatCode, CHAT_CODES)


class ChatError(ApiError):
    def __init__(self, code: ChatCode | CoreCode | GameCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
