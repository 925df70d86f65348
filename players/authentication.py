"""``Authorization: Bearer <token>`` (or ``Token <token>``) authentication."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from core import request_context
from core.authentication import SessionAuthentication
from core.errors import CoreCode
from core.problems import WWW_AUTHENTICATE
from players import selectors, services
from players.errors import PlayerError
from players.models import ApiToken, User
from players.token_cache import CACHE
from players.tokens import token_digest

KEYWORDS = ("bearer", "token")

#: Where a browser session keeps its device: the token row its sign-in made
#: (``players.views.SessionApi``), listed among the account's devices.
SESSION_DEVICE_KEY = "device_token_id"


def authorization_parts(request: Request) -> list[bytes]:
    """The ``Authorization`` header's words, as bytes.

    HTTP sends a header as bytes, which a server hands over decoded as Latin-1: any
    value comes through. A caller inside the process (Django's test client, a
    middleware) may put text with characters beyond Latin-1 there, which DRF's
    ``get_authorization_header`` cannot encode: that is a malformed credential,
    refused as ``authentication_failed`` (401), never a 500."""
    try:
        return list(get_authorization_header(request).split())
    except UnicodeError:
        raise exceptions.AuthenticationFailed(
            gettext("Malformed Authorization header: expected 'Bearer <token>'.")
        ) from None


class ApiTokenAuthentication(BaseAuthentication):
    """Authenticates API tokens; refuses revoked tokens and suspended accounts.

    A request without such a header is left to the next authenticator (session).
    With Redis, a token that authenticated is remembered by this process
    (``players.token_cache``, revocations pushed), so that most requests do not
    read it from the database; ``cached = False`` reads it every time.
    """

    cached = True

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        parts = authorization_parts(request)
        if not parts or parts[0].decode("latin-1").lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed(gettext("Malformed Authorization header: expected 'Bearer <token>'."))
        secret = parts[1].decode("latin-1")
        if not (self.cached and CACHE.enabled()):
            token = self._check(selectors.token_get_active(secret=secret))
            services.token_mark_used(token=token)
            request_context.bind(account_id=token.user_id)
            return token.user, token
        digest = token_digest(secret)
        cached = CACHE.get(digest)
        if cached is None:
            generation = CACHE.generation()
            token = self._check(selectors.token_get_active(secret=secret))
            CACHE.put(digest, token, generation=generation)
        else:
            token = cached
        used = token.last_used_at
        services.token_mark_used(token=token)
        if token.last_used_at is not used:
            CACHE.touch(digest, token.last_used_at)
        request_context.bind(account_id=token.user_id)
        return token.user, token

    @staticmethod
    def _check(token: ApiToken | None) -> ApiToken:
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("This account is suspended.")
        return token

    def authenticate_header(self, request: Request) -> str:
        return WWW_AUTHENTICATE


class DeviceSessionAuthentication(SessionAuthentication):
    """A browser's session cookie, good while its device is: the sign-in made a token
    row (never shown to the browser) that the account's devices list names, so that
    signing that device out (``DELETE /tokens/{id}/``, a password change that signs the
    others out, a suspension) ends the session, and its open streams close like a
    token's. ``request.auth`` is that token."""

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        result = super().authenticate(request)
        if result is None:
            return None
        user = result[0]
        session = request._request.session
        token_id = session.get(SESSION_DEVICE_KEY)
        if not isinstance(token_id, int):
            return None  # a session not made by POST /session/ (the admin's log-in): no API credential
        token = selectors.token_get_active_for_user(user=user, token_id=token_id)
        if token is None:  # this browser was signed out from another device
            session.flush()
            return None
        services.token_mark_used(token=token)
        request_context.bind(account_id=user.pk)
        return user, token


def request_account(request: HttpRequest) -> User:
    """The caller's account, where authentication is required (``IsAuthenticated``,
    the admin's staff check): ``request.user`` typed as what it then is."""
    user = request.user
    if not isinstance(user, User):
        raise PlayerError(CoreCode.NOT_AUTHENTICATED, gettext("This needs an API token or a session."))
    return user


def request_viewer(request: HttpRequest) -> User | None:
    """The caller's account, or None for an anonymous caller."""
    user = request.user
    return user if isinstance(user, User) else None
