"""The ladder's refusals: ``LadderError`` with a ``LadderCode``."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import ApiError, CoreCode, register_enum


class LadderCode(StrEnum):
    LADDER_BOTS_ONLY = "ladder_bots_only"
    LADDER_LEVEL_ACCOUNT = "ladder_level_account"
    NOT_ON_LADDER = "not_on_ladder"


register_enum(
    LadderCode,
    {
        LadderCode.LADDER_BOTS_ONLY: (
            403,
            _(
                "Only a bot account may enter the bot ladder: a moderator marks an account as a bot "
                "(`is_bot` of GET /me/)."
            ),
            _("Bot accounts only"),
        ),
        LadderCode.LADDER_LEVEL_ACCOUNT: (
            403,
            _("This account is one of the server's own ladder levels: the server plays it, it cannot opt in or out."),
            _("A server level's account"),
        ),
        LadderCode.NOT_ON_LADDER: (404, _("This account has not entered the bot ladder."), _("Not on the ladder")),
    },
)


class LadderError(ApiError):
    """A refusal about the ladder: a ``LadderCode`` (or a ``CoreCode``); keyword
    arguments become members of the problem body."""

    def __init__(self, code: LadderCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
