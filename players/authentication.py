"""``Authorization: Bearer <token>`` (or ``Token <token>``) authentication."""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from core.errors import CoreCode
from core.problems import WWW_AUTHENTICATE
from players import selectors, services
from players.errors import PlayerError
from players.models import ApiToken, User

KEYWORDS = ("bearer", "token")


class ApiTokenAuthentication(BaseAuthentication):
    """Authenticates API tokens; refuses revoked tokens and suspended accounts.

    A request without such a header is left to the next authenticator (session).
    """

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].decode("latin-1").lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header: expected 'Bearer <token>'.")
        token = selectors.token_get_active(secret=parts[1].decode("latin-1"))
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is suspended.")
        services.token_mark_used(token=token)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return WWW_AUTHENTICATE


def request_account(request: HttpRequest) -> User:
    """The caller's account, where authentication is required (``IsAuthenticated``,
    the admin's staff check): ``request.user`` typed as what it then is."""
    user = request.user
    if not isinstance(user, User):
        raise PlayerError(CoreCode.NOT_AUTHENTICATED, "This needs an API token or a session.")
    return user


def request_viewer(request: HttpRequest) -> User | None:
    """The caller's account, or None for an anonymous caller."""
    user = request.user
    return user if isinstance(user, User) else None
