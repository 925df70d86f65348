"""The challenges layer's refusals: ``ChallengeError`` with a ``ChallengeCode``.

Generic refusals reuse the core codes where the meaning is the same: an unknown
account or a challenge the caller may not see is ``not_found``, a malformed
request ``validation_error``; a ruleset the engine cannot play keeps the engine's
``invalid_ruleset``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import ApiError, CoreCode, StrOrPromise, register_enum


class ChallengeCode(StrEnum):
    ACCOUNT_SUSPENDED = "account_suspended"
    CHALLENGE_YOURSELF = "challenge_yourself"
    DUPLICATE_INVITEE = "duplicate_invitee"
    PLAYERS_MISMATCH = "players_mismatch"
    NOT_INVITED = "not_invited"
    NOT_CHALLENGE_CREATOR = "not_challenge_creator"
    ALREADY_ANSWERED = "already_answered"
    CHALLENGE_EXPIRED = "challenge_expired"
    CHALLENGE_STARTED = "challenge_started"
    CHALLENGE_CLOSED = "challenge_closed"
    NOT_A_BOT = "not_a_bot"


CHALLENGE_CODES: dict[str, tuple[int, StrOrPromise]] = {
    ChallengeCode.ACCOUNT_SUSPENDED: (409, _("That account is suspended: it cannot be challenged.")),
    ChallengeCode.CHALLENGE_YOURSELF: (422, _("You cannot invite yourself: you take seat 0 of the table anyway.")),
    ChallengeCode.DUPLICATE_INVITEE: (422, _("The same account is invited more than once (usernames in any case).")),
    ChallengeCode.PLAYERS_MISMATCH: (
        422,
        _("ruleset.players must be 1 + the number of invitees (or left out: it is then set so)."),
    ),
    ChallengeCode.NOT_INVITED: (403, _("You are not invited to this challenge: only its invitees answer it.")),
    ChallengeCode.NOT_CHALLENGE_CREATOR: (403, _("Only the challenge's creator may cancel it.")),
    ChallengeCode.ALREADY_ANSWERED: (409, _("You have already answered this challenge.")),
    ChallengeCode.CHALLENGE_EXPIRED: (409, _("The challenge expired before everyone had accepted.")),
    ChallengeCode.CHALLENGE_STARTED: (409, _("Everyone accepted: the challenge's table has started (see `game`).")),
    ChallengeCode.CHALLENGE_CLOSED: (409, _("The challenge was declined or cancelled: it is over.")),
    ChallengeCode.NOT_A_BOT: (403, _("Only a bot account has a challenge policy.")),
}

register_enum(ChallengeCode, CHALLENGE_CODES)


class ChallengeError(ApiError):
    """A refusal about a challenge: a ``ChallengeCode`` (or a ``CoreCode`` such as
    ``not_found``); keyword arguments become members of the problem body."""

    def __init__(self, code: ChallengeCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
