"""Every change to accounts and tokens.  Keyword-only, typed, one job each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from players.errors import InvalidCredentials, UsernameTaken
from players.models import ApiToken, User
from players.tokens import token_digest, token_generate

#: ``last_used_at`` is written at most this often, not on every request.
TOKEN_USE_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True)
class IssuedToken:
    """A token just created: the row and the secret, which is never stored."""

    token: ApiToken
    secret: str


def user_register(*, username: str, password: str, is_bot: bool = False) -> User:
    """Create an account.  The password must pass Django's validators."""
    user = User(username=username, is_bot=is_bot)
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        raise ValidationError({"password": error.messages}) from error
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken(f"The username {username!r} is taken.")
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:  # registered by someone else since the check above
        raise UsernameTaken(f"The username {username!r} is taken.") from None
    return user


def user_authenticate(*, username: str, password: str) -> User:
    """The active user with these credentials, or ``InvalidCredentials``."""
    user = authenticate(username=username, password=password)
    if user is None:
        raise InvalidCredentials("Wrong username or password.")
    return user


def token_create(*, user: User, name: str, now: datetime | None = None) -> IssuedToken:
    secret, prefix = token_generate()
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=prefix,
        digest=token_digest(secret),
        created_at=now or timezone.now(),
    )
    return IssuedToken(token=token, secret=secret)


def token_revoke(*, token: ApiToken, now: datetime | None = None) -> None:
    token.revoked_at = now or timezone.now()
    token.save(update_fields=["revoked_at"])


def token_mark_used(*, token: ApiToken, now: datetime | None = None) -> None:
    """Record a use, at most once per ``TOKEN_USE_RESOLUTION`` (no write per request)."""
    now = now or timezone.now()
    if token.last_used_at is not None and now - token.last_used_at < TOKEN_USE_RESOLUTION:
        return
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    token.last_used_at = now


# -- moderation (called by moderation.services, which records the audit trail) --

def user_set_active(*, user: User, is_active: bool) -> None:
    """Suspend (``False``) or reinstate an account. A suspended account cannot
    log in, and its sessions and tokens are refused (``ApiTokenAuthentication``)."""
    user.is_active = is_active
    user.save(update_fields=["is_active"])


def tokens_revoke_all(*, user: User, now: datetime | None = None) -> int:
    """Revoke every active token of ``user``; returns how many there were."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=now or timezone.now())


def user_set_bot(*, user: User, is_bot: bool) -> None:
    """Mark (or unmark) an account as a bot: it is shown as a bot everywhere."""
    user.is_bot = is_bot
    user.save(update_fields=["is_bot"])
