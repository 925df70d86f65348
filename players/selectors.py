"""Read queries about accounts and tokens."""

from __future__ import annotations

from django.db.models import QuerySet

from players.models import ApiToken, User
from players.tokens import token_digest


def token_get_active(*, secret: str) -> ApiToken | None:
    """The unrevoked token with this secret, with its user (one query: runs on
    every request, so ``get`` on the unique digest, without ``first``'s ordering)."""
    try:
        return ApiToken.objects.select_related("user").get(digest=token_digest(secret), revoked_at__isnull=True)
    except ApiToken.DoesNotExist:
        return None


def token_list_active(*, user: User) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).order_by("-created_at", "-id")


def token_get_active_for_user(*, user: User, token_id: int) -> ApiToken | None:
    return token_list_active(user=user).filter(pk=token_id).first()


def player_get(*, username: str) -> User | None:
    return User.objects.filter(username__iexact=username).first()


def credentials_valid(*, user_id: int, token_id: int | None) -> bool:
    """Are the credentials a request came with still good: the account active and,
    for a request with an API token, the token not revoked? (A long-lived stream
    asks this again when the account's tokens or standing change.)"""
    if token_id is not None:
        return ApiToken.objects.filter(
            pk=token_id, user_id=user_id, revoked_at__isnull=True, user__is_active=True
        ).exists()
    return User.objects.filter(pk=user_id, is_active=True).exists()
