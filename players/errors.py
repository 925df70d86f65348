"""The players layer's refusals: ``PlayerError`` with a ``PlayerCode``."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.utils.translation import gettext_lazy as _

from core.errors import ApiError, CoreCode, register_enum


class PlayerCode(StrEnum):
    USERNAME_TAKEN = "username_taken"
    INVALID_CREDENTIALS = "invalid_credentials"
    LOGIN_LOCKED = "login_locked"
    TOO_MANY_TOKENS = "too_many_tokens"
    WEAK_PASSWORD = "weak_password"
    WRONG_PASSWORD = "wrong_password"
    SUSPENDED = "suspended"
    OTP_REQUIRED = "otp_required"
    OTP_INVALID = "otp_invalid"
    SECOND_FACTOR_ENABLED = "second_factor_enabled"
    SECOND_FACTOR_NOT_PENDING = "second_factor_not_pending"
    SECOND_FACTOR_NOT_ENABLED = "second_factor_not_enabled"


register_enum(
    PlayerCode,
    {
        PlayerCode.USERNAME_TAKEN: (
            409,
            _("Another account already uses this username (usernames ignore case)."),
            _("Username taken"),
        ),
        PlayerCode.INVALID_CREDENTIALS: (
            401,
            _("The username or password is wrong (a suspended account with the right password: `suspended`)."),
            _("Invalid credentials"),
        ),
        PlayerCode.LOGIN_LOCKED: (
            429,
            _(
                "Too many wrong passwords for this account: password log-in is locked for `retry_after` "
                "seconds (the lock grows with each further failure). API tokens keep working."
            ),
            _("Password log-in locked"),
        ),
        PlayerCode.WEAK_PASSWORD: (
            422,
            _(
                "The password keeps to the stated rule but is refused all the same: a commonly used "
                "password, or one too like the username (`errors.password` says which)."
            ),
            _("Weak password"),
        ),
        PlayerCode.TOO_MANY_TOKENS: (
            409,
            _("The account holds the most active API tokens it may (MAX_TOKENS_PER_ACCOUNT): revoke one first."),
            _("Too many tokens"),
        ),
        PlayerCode.SUSPENDED: (
            403,
            _(
                "The password is right but a moderator has suspended the account: `reason` (the moderator's "
                "words) and `until` (an ISO time; null: until a moderator lifts it). Only the right password "
                "gets this answer. `appeal_token` lets the player appeal (POST /api/v1/appeals/) without "
                "logging in."
            ),
            _("Suspended"),
        ),
        PlayerCode.WRONG_PASSWORD: (
            403,
            _(
                "The current password sent to confirm a change to the account is wrong (it counts towards the "
                "log-in lock, `login_locked`)."
            ),
            _("Wrong password"),
        ),
        PlayerCode.OTP_REQUIRED: (
            401,
            _(
                "The password is right but the account has a second factor: send the code from the "
                "authenticator app (or an unused recovery code) as `otp`."
            ),
            _("Second factor required"),
        ),
        PlayerCode.OTP_INVALID: (
            401,
            _(
                "The second factor's code is wrong, expired or used already (it counts towards the log-in "
                "lock, `login_locked`)."
            ),
            _("Wrong second-factor code"),
        ),
        PlayerCode.SECOND_FACTOR_ENABLED: (
            409,
            _("The account's second factor is on already: turn it off before setting up another."),
            _("Second factor on already"),
        ),
        PlayerCode.SECOND_FACTOR_NOT_PENDING: (
            409,
            _("No second factor waits for confirmation: set one up first (`POST /api/v1/me/second-factor/`)."),
            _("No second factor to confirm"),
        ),
        PlayerCode.SECOND_FACTOR_NOT_ENABLED: (
            409,
            _("The account has no second factor to turn off."),
            _("No second factor"),
        ),
    },
)


class PlayerError(ApiError):
    """A refusal about an account or a token: a ``PlayerCode`` (or a ``CoreCode``
    such as ``not_found``); keyword arguments become members of the problem body."""

    def __init__(self, code: PlayerCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
