"""Refusals about accounts and tokens."""

from core.errors import Conflict, Unauthorized


class UsernameTaken(Conflict):
    code = "username_taken"
    title = "Username taken"
    description = "Another account already uses this username (usernames ignore case)."


class InvalidCredentials(Unauthorized):
    code = "invalid_credentials"
    title = "Invalid credentials"
    description = "The username or password is wrong, or the account is suspended."
