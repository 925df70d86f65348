"""Refusals about accounts and tokens."""

from core.errors import ApiError, Conflict, Unauthorized


class UsernameTaken(Conflict):
    code = "username_taken"
    title = "Username taken"
    description = "Another account already uses this username (usernames ignore case)."


class InvalidCredentials(Unauthorized):
    code = "invalid_credentials"
    title = "Invalid credentials"
    description = "The username or password is wrong, or the account is suspended."


class LoginLocked(ApiError):
    code = "login_locked"
    status = 429
    title = "Password log-in locked"
    description = (
        "Too many wrong passwords for this account: password log-in is locked for `retry_after` "
        "seconds (the lock grows with each further failure). API tokens keep working."
    )


class TooManyTokens(Conflict):
    code = "too_many_tokens"
    title = "Too many tokens"
    description = "The account holds the most active API tokens it may (MAX_TOKENS_PER_ACCOUNT): revoke one first."
