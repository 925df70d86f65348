"""The API token format: ``cf_<prefix>_<secret>``.

``prefix`` is 8 random hex characters, stored in clear so an owner can tell
tokens apart; ``secret`` is ``secrets.token_urlsafe(32)`` (256 bits).  Only the
SHA-256 of the whole token is stored: enough for a random secret of that size,
and cheap to check on every request (no slow password hash).
"""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "cf"


def token_generate() -> tuple[str, str]:
    """A new token and its prefix."""
    prefix = secrets.token_hex(4)
    return f"{TOKEN_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}", prefix


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
