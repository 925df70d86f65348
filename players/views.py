"""Thin views: validate the shape -> one service or selector -> serialize."""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import login, logout, update_session_auth_hash
from django.middleware.csrf import get_token
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from core.errors import CoreCode
from core.inputs import validated
from core.schema import problem_responses
from core.throttling import AddressRateThrottle
from players import account_data, address_hash, second_factor, selectors, services
from players.authentication import SESSION_DEVICE_KEY, DeviceSessionAuthentication
from players.errors import PlayerCode, PlayerError
from players.models import ApiToken, User
from players.serializers import (
    AccountDeleteInput,
    AccountOutput,
    PasswordChangedOutput,
    PasswordChangeInput,
    PlayerOutput,
    PlayerRegisterInput,
    SecondFactorConfirmedOutput,
    SecondFactorConfirmInput,
    SecondFactorDisableInput,
    SecondFactorOutput,
    SecondFactorSetupInput,
    SecondFactorSetupOutput,
    SessionCreateInput,
    SessionOutput,
    TokenCreatedOutput,
    TokenCreateInput,
    TokenOutput,
)

TAG = ["players"]


def _account(request: Request) -> User:
    """The caller's account, in views that require ``IsAuthenticated``."""
    return cast(User, request.user)


def _token_id(request: Request) -> int | None:
    """The id of the API token (or, for a browser session, its device) the request came with."""
    return request.auth.pk if isinstance(request.auth, ApiToken) else None


class PasswordLoginThrottle(AddressRateThrottle):
    """Password attempts at the token endpoint, per address (``THROTTLE_LOGIN``);
    the account's own lock is ``players.login``."""

    def get_key(self, request: Request, view: Any) -> str | None:
        data = request.data
        return super().get_key(request, view) if isinstance(data, dict) and "username" in data else None


class PlayerCollectionApi(APIView):
    # Registration takes no credentials and reads none (its contract: security [{}] alone).
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_scope = "register"

    def get_throttles(self) -> list[BaseThrottle]:
        throttles = super().get_throttles()
        return [*throttles, AddressRateThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        operation_id="players_register",
        summary="Register a player",
        description="New accounts are limited per address (`THROTTLE_REGISTER`, 10 an hour by default).",
        tags=TAG,
        request=PlayerRegisterInput,
        responses={201: AccountOutput, **problem_responses("validation_error", "username_taken", "weak_password")},
    )
    def post(self, request: Request) -> Response:
        user = services.user_register(**validated(PlayerRegisterInput, request.data))
        address_hash.remember(user, request.META.get("REMOTE_ADDR"))
        return Response(AccountOutput(user).data, status=status.HTTP_201_CREATED)


class PlayerDetailApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_retrieve",
        summary="A player's public profile",
        tags=TAG,
        responses={200: PlayerOutput, **problem_responses("not_found")},
    )
    def get(self, request: Request, username: str) -> Response:
        player = selectors.player_get(username=username)
        if player is None:
            raise PlayerError(
                CoreCode.NOT_FOUND, gettext("There is no player '%(username)s'.") % {"username": username}
            )
        return Response(PlayerOutput(player).data)


class MeApi(APIView):
    @extend_schema(operation_id="me_retrieve", summary="The caller's account", tags=TAG, responses={200: AccountOutput})
    def get(self, request: Request) -> Response:
        return Response(AccountOutput(request.user).data)


class TokenCollectionApi(GenericAPIView):
    throttle_scope = "login"
    # POST needs no credentials (username and password in the body do); declared as
    # anonymous so that generated clients can call it without a token (core.schema).
    schema_anonymous_methods = ("post",)

    def get_permissions(self) -> list[BasePermission]:
        # Obtaining a token with a username and password needs no prior log-in.
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_throttles(self) -> list[BaseThrottle]:
        throttles = super().get_throttles()
        return [*throttles, PasswordLoginThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        operation_id="tokens_list",
        summary="List my API tokens (never their secrets)",
        tags=TAG,
        responses={200: TokenOutput(many=True)},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.token_list_active(user=_account(request)))
        return self.get_paginated_response(TokenOutput(page, many=True, context={"token_id": _token_id(request)}).data)

    @extend_schema(
        operation_id="tokens_create",
        summary="Create an API token",
        description=(
            "Send `username` and `password` (no authentication needed), or only a "
            "`name` when authenticated already (an API token or a session: this operation takes "
            "them although it declares none, so that generated clients may call it without one). "
            "The token is in this response only.\n\n"
            "Limits: password attempts per address (`THROTTLE_LOGIN`, 30 an hour); after 5 wrong passwords "
            "in a row from one address, password log-in to that account from that address is locked for a "
            "minute, doubling with each further wrong one up to an hour; after 30 wrong passwords from "
            "addresses the account never logged in from, all such addresses are locked out for 5 minutes, "
            "doubling up to an hour, while addresses it logged in from go on working (`login_locked`; its "
            "tokens keep working either way); new tokens per account "
            "(`THROTTLE_TOKENS`, 60 an hour) and at most `MAX_TOKENS_PER_ACCOUNT` (50) active ones "
            "(`too_many_tokens`).\n\n"
            "An account with a second factor (`/api/v1/me/second-factor/`) needs its code too, as `otp`: "
            "without it `otp_required`, a wrong one `otp_invalid` (counted like a wrong password)."
        ),
        tags=TAG,
        request=TokenCreateInput,
        responses={
            201: TokenCreatedOutput,
            **problem_responses(
                "validation_error",
                "not_authenticated",
                "authentication_failed",
                "invalid_credentials",
                "otp_required",
                "otp_invalid",
                "suspended",
                "too_many_tokens",
                "login_locked",
                "rate_limited",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        credentials = validated(TokenCreateInput, request.data)
        if "username" in credentials:
            user = services.user_authenticate(
                username=credentials["username"],
                password=credentials["password"],
                address=request.META.get("REMOTE_ADDR"),
                otp=credentials.get("otp"),
            )
            address_hash.remember(user, request.META.get("REMOTE_ADDR"))
        elif request.user.is_authenticated:
            user = request.user
        else:
            raise PlayerError(CoreCode.NOT_AUTHENTICATED, gettext("Send username and password, or authenticate."))
        issued = services.token_issue(user=user, name=credentials["name"])
        return Response(TokenCreatedOutput(issued).data, status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    @extend_schema(
        operation_id="tokens_revoke",
        summary="Revoke one of my API tokens",
        tags=TAG,
        responses={204: None, **problem_responses("not_found")},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        token = selectors.token_get_active_for_user(user=_account(request), token_id=token_id)
        if token is None:
            raise PlayerError(
                CoreCode.NOT_FOUND, gettext("You have no active token %(token_id)s.") % {"token_id": token_id}
            )
        services.token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _device_name(request: Request) -> str:
    """A browser's device, named from its User-Agent in the language of its sign-in:
    "Web client - Firefox, phone", in Estonian "Veebiklient - Firefox, telefon". The
    name is stored as the token's ``name`` (what GET /tokens/ lists, the same in every
    answer, as a name the owner gave a token is): a person reads it on the account page,
    so it is written in the words the person signing in reads."""
    agent = request.META.get("HTTP_USER_AGENT", "")
    browsers = (("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"))
    browser = next((name for mark, name in browsers if mark in agent), None) or gettext("unknown browser")
    if "Mobile" in agent:
        return gettext("Web client - %(browser)s, phone") % {"browser": browser}
    return gettext("Web client - %(browser)s") % {"browser": browser}


def _session(request: Request) -> dict[str, Any]:
    return {"account": request.user, "csrf_token": get_token(request._request)}


class SessionApi(APIView):
    """The browser's credential: a session cookie (``HttpOnly``; ``Secure`` and
    ``SameSite`` per docs/security.md) that scripts cannot read, with CSRF protection
    on its unsafe requests. Bots and other programs use API tokens instead."""

    throttle_scope = "login"

    def get_permissions(self) -> list[BasePermission]:
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_throttles(self) -> list[BaseThrottle]:
        throttles = super().get_throttles()
        return [*throttles, PasswordLoginThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        operation_id="session_retrieve",
        summary="This browser's session",
        description="The signed-in account and the session's CSRF token (e.g. after a reload).",
        tags=TAG,
        responses={200: SessionOutput, **problem_responses("not_authenticated")},
    )
    def get(self, request: Request) -> Response:
        return Response(SessionOutput(_session(request)).data)

    @extend_schema(
        operation_id="session_create",
        summary="Sign a browser in (a session cookie)",
        description=(
            "For browsers: checks `username` and `password` and answers with a session cookie "
            "(`HttpOnly`, `SameSite`, `Secure` over HTTPS) and the CSRF token to send as `X-CSRFToken` "
            "on the session's unsafe requests. With `remember` the session lasts two weeks, else until "
            "the browser closes. Any earlier session of this browser ends. Programs use "
            "`POST /api/v1/tokens/` instead.\n\n"
            "Limits as for tokens: password attempts per address (`THROTTLE_LOGIN`) and the account's "
            "log-in lock (`login_locked`). An account with a second factor needs its code as `otp` "
            "(`otp_required`, `otp_invalid`)."
        ),
        tags=TAG,
        request=SessionCreateInput,
        responses={
            200: SessionOutput,
            **problem_responses(
                "validation_error",
                "invalid_credentials",
                "otp_required",
                "otp_invalid",
                "suspended",
                "login_locked",
                "rate_limited",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        credentials = validated(SessionCreateInput, request.data)
        user = services.user_authenticate(
            username=credentials["username"],
            password=credentials["password"],
            address=request.META.get("REMOTE_ADDR"),
            otp=credentials.get("otp"),
        )
        login(request._request, user)  # a new session key (and CSRF token): nothing carries over
        if second_factor.is_enabled(user):  # the code was given: the admin will not ask again
            request._request.session[second_factor.SESSION_KEY] = user.pk
        request._request.session.set_expiry(None if credentials["remember"] else 0)
        # The browser is one of the account's devices: a token row it never sees, listed
        # and revocable like any other (players.authentication.DeviceSessionAuthentication).
        device = services.token_create(user=user, name=_device_name(request)).token
        request._request.session[SESSION_DEVICE_KEY] = device.pk
        request.user = user
        return Response(SessionOutput(_session(request)).data)

    @extend_schema(
        operation_id="session_destroy",
        summary="Sign this browser out",
        description="Ends the session on the server: its cookie no longer authenticates anything.",
        tags=TAG,
        responses={204: None, **problem_responses("csrf_failed")},
    )
    def delete(self, request: Request) -> Response:
        if isinstance(request.auth, ApiToken):
            services.token_revoke(token=request.auth)  # this browser's device
        logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordApi(APIView):
    throttle_scope = "login"

    @extend_schema(
        operation_id="me_password_change",
        summary="Change my password",
        description=(
            "Send the current password and the new one. With `revoke_other_tokens`, every other active "
            "token of the account is revoked (those devices are signed out: their streams close and their "
            "next request is refused); the token of this request keeps working. Other browser sessions "
            "end in any case. A wrong current password is `wrong_password` and counts towards the log-in "
            "lock (`login_locked`)."
        ),
        tags=TAG,
        request=PasswordChangeInput,
        responses={
            200: PasswordChangedOutput,
            **problem_responses("validation_error", "wrong_password", "login_locked", "rate_limited"),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(PasswordChangeInput, request.data)
        user = _account(request)
        revoked = services.password_change(
            user=user,
            current_password=data["current_password"],
            new_password=data["new_password"],
            keep_token_id=_token_id(request),
            revoke_others=data["revoke_other_tokens"],
        )
        if isinstance(request.successful_authenticator, DeviceSessionAuthentication):
            update_session_auth_hash(request._request, user)  # this browser session stays signed in
        return Response(PasswordChangedOutput({"revoked_tokens": revoked}).data)


class AccountDeleteApi(APIView):
    throttle_scope = "login"

    @extend_schema(
        operation_id="me_delete",
        summary="Delete my account",
        description=(
            "Confirmed with the current password. Refused while the account sits at an open or running "
            "table (`account_in_play`: leave or finish it first). What goes and what stays (docs/account.md): "
            "the ratings and their history, the chat messages written, the reports made and the warnings "
            "received are deleted; the finished games keep their seat under an anonymous name "
            "(`deleted-<id>`), so they still replay; every token is revoked and the name is free again. "
            "It cannot be undone."
        ),
        tags=TAG,
        request=AccountDeleteInput,
        responses={
            204: None,
            **problem_responses(
                "validation_error", "wrong_password", "login_locked", "account_in_play", "rate_limited"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(AccountDeleteInput, request.data)
        services.account_delete(user=_account(request), password=data["password"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class AccountDataApi(APIView):
    @extend_schema(
        operation_id="me_data",
        summary="Download my data",
        description=(
            "Everything the server holds about the account, as one JSON document: the profile, the signed-in "
            "devices (tokens, never their secrets), the games played, the ratings, the chat messages written, "
            "the reports made, the warnings and sanctions received."
        ),
        tags=TAG,
        responses={200: account_data.export_output()},
    )
    def get(self, request: Request) -> Response:
        user = _account(request)
        document = {
            "exported_at": timezone.now(),
            "profile": user,
            "devices": list(selectors.token_list_active(user=user)),
            **account_data.export(user),
        }
        output = account_data.export_output()(document, context={"token_id": _token_id(request)})
        response = Response(output.data)
        response["Content-Disposition"] = f'attachment; filename="chicken-foot-{user.username}.json"'
        return response


class SecondFactorApi(APIView):
    throttle_scope = "login"

    @extend_schema(
        operation_id="me_second_factor_retrieve",
        summary="My second factor",
        description="Whether the account has a second factor (TOTP), and how many recovery codes are left.",
        tags=TAG,
        responses={200: SecondFactorOutput},
    )
    def get(self, request: Request) -> Response:
        user = _account(request)
        factor = second_factor.device(user)
        status_ = {
            "enabled": factor is not None and factor.confirmed_at is not None,
            "pending": factor is not None and factor.confirmed_at is None,
            "required_by_admin": second_factor.is_required(user),
            "confirmed_at": factor.confirmed_at if factor is not None else None,
            "recovery_codes_left": second_factor.recovery_codes_left(user),
        }
        return Response(SecondFactorOutput(status_).data)

    @extend_schema(
        operation_id="me_second_factor_set_up",
        summary="Set up a second factor",
        description=(
            "Confirmed with the current password. Answers a new secret for an authenticator app (TOTP: "
            "SHA-1, 6 digits, 30 seconds), also as an `otpauth://` URI; it is not asked for at log-in until "
            "confirmed with a code (`POST /api/v1/me/second-factor/confirm/`). A set-up not confirmed yet "
            "is replaced; a confirmed one must be turned off first (`second_factor_enabled`)."
        ),
        tags=TAG,
        request=SecondFactorSetupInput,
        responses={
            201: SecondFactorSetupOutput,
            **problem_responses(
                "validation_error", "wrong_password", "login_locked", "second_factor_enabled", "rate_limited"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(SecondFactorSetupInput, request.data)
        user = _account(request)
        services.password_confirm(user=user, password=data["password"])
        setup = second_factor.set_up(user=user)
        return Response(SecondFactorSetupOutput(setup).data, status=status.HTTP_201_CREATED)


class SecondFactorConfirmApi(APIView):
    throttle_scope = "login"

    @extend_schema(
        operation_id="me_second_factor_confirm",
        summary="Confirm my second factor",
        description=(
            "Send a code the app shows: the second factor is on from now on (every password log-in asks for "
            "a code). Answers 10 one-time recovery codes, shown this once (only their digests are kept)."
        ),
        tags=TAG,
        request=SecondFactorConfirmInput,
        responses={
            200: SecondFactorConfirmedOutput,
            **problem_responses("validation_error", "otp_invalid", "second_factor_not_pending", "rate_limited"),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(SecondFactorConfirmInput, request.data)
        codes = second_factor.confirm(user=_account(request), code=data["code"])
        return Response(SecondFactorConfirmedOutput({"recovery_codes": codes}).data)


class SecondFactorDisableApi(APIView):
    throttle_scope = "login"

    @extend_schema(
        operation_id="me_second_factor_disable",
        summary="Turn my second factor off",
        description=(
            "Needs the current password and a code from the app or an unused recovery code; both count "
            "towards the log-in lock when wrong (`wrong_password`, `otp_invalid`, `login_locked`). Staff and "
            "moderators may turn it off, but the admin then asks them to set one up again."
        ),
        tags=TAG,
        request=SecondFactorDisableInput,
        responses={
            204: None,
            **problem_responses(
                "validation_error",
                "wrong_password",
                "otp_invalid",
                "login_locked",
                "second_factor_not_enabled",
                "rate_limited",
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = validated(SecondFactorDisableInput, request.data)
        user = _account(request)
        if not second_factor.is_enabled(user):
            raise PlayerError(PlayerCode.SECOND_FACTOR_NOT_ENABLED, gettext("Your account has no second factor."))
        services.password_confirm(user=user, password=data["password"])
        second_factor.verify(user=user, code=data["code"], address=request.META.get("REMOTE_ADDR"))
        second_factor.disable(user=user)
        return Response(status=status.HTTP_204_NO_CONTENT)
