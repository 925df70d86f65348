"""The players layer's refusals: ``PlayerError`` with a ``PlayerCode``."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from core.errors import ApiError, CoreCode, register_enum


class PlayerCode(StrEnum):
    USERNAME_TAKEN = "username_taken"
    INVALID_CREDENTIALS = "invalid_credentials"
    LOGIN_LOCKED = "login_locked"
    TOO_MANY_TOKENS = "too_many_tokens"
    WRONG_PASSWORD = "wrong_password"


register_enum(
    PlayerCode,
    {
        PlayerCode.USERNAME_TAKEN: (
            409,
            "Another account already uses this username (usernames ignore case).",
            "Username taken",
        ),
        PlayerCode.INVALID_CREDENTIALS: (
            401,
            "The username or password is wrong, or the account is suspended.",
            "Invalid credentials",
        ),
        PlayerCode.LOGIN_LOCKED: (
            429,
            "Too many wrong passwords for this account: password log-in is locked for `retry_after` "
            "seconds (the lock grows with each further failure). API tokens keep working.",
            "Password log-in locked",
        ),
        PlayerCode.TOO_MANY_TOKENS: (
            409,
            "The account holds the most active API tokens it may (MAX_TOKENS_PER_ACCOUNT): revoke one first.",
            "Too many tokens",
        ),
        PlayerCode.WRONG_PASSWORD: (
            403,
            "The current password sent to confirm a change to the account is wrong (it counts towards the "
            "log-in lock, `login_locked`).",
            "Wrong password",
        ),
    },
)


class PlayerError(ApiError):
    """A refusal about an account or a token: a ``PlayerCode`` (or a ``CoreCode``
    such as ``not_found``); keyword arguments become members of the problem body."""

    def __init__(self, code: PlayerCode | CoreCode, detail: str, **extra: Any) -> None:
        super().__init__(detail, code=code, extra=extra)
