"""The optional second factor for players (TOTP, ``/api/v1/me/second-factor/``):
set-up, confirmation with recovery codes, log-in with a code (tokens and browser
sessions), the log-in lock counting wrong codes, and turning it off."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from players import services as player_services
from players.models import RecoveryCode, SecondFactor
from tests.api.games_helpers import ok, refused
from tests.conftest import PASSWORD
from tests.totp import code, fresh_step

pytestmark = pytest.mark.django_db

FACTOR = "/api/v1/me/second-factor/"
CONFIRM = "/api/v1/me/second-factor/confirm/"
DISABLE = "/api/v1/me/second-factor/disable/"
TOKENS = "/api/v1/tokens/"
SESSION = "/api/v1/session/"


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {player_services.token_create(user=user, name='laptop').secret}")
    return client


def turned_on(client: APIClient) -> tuple[str, list[str], int]:
    """Set up and confirm (with the code of the step before now): the secret, the
    recovery codes, and the current step (its code and the next one's still work)."""
    secret = ok(client.post(FACTOR, {"password": PASSWORD}), 201)["secret"]
    step = fresh_step()
    codes = ok(client.post(CONFIRM, {"code": code(secret, step - 1)}))["recovery_codes"]
    return secret, codes, step


def test_set_up_gives_a_secret_and_an_otpauth_uri_and_changes_no_log_in_until_confirmed(make_player):
    alice = make_player("alice")
    client = client_for(alice)
    assert ok(client.get(FACTOR)) == {
        "enabled": False,
        "pending": False,
        "required_by_admin": False,
        "confirmed_at": None,
        "recovery_codes_left": 0,
    }
    setup = ok(client.post(FACTOR, {"password": PASSWORD}), 201)
    assert len(setup["secret"]) == 32  # 20 bytes, base32
    assert setup["otpauth_uri"].startswith("otpauth://totp/Chicken%20Foot%3Aalice?")
    assert f"secret={setup['secret']}" in setup["otpauth_uri"]
    assert ok(client.get(FACTOR))["pending"] is True
    # Not confirmed: a password alone still logs in.
    ok(APIClient().post(TOKENS, {"username": "alice", "password": PASSWORD, "name": "x"}), 201)


def test_set_up_needs_the_password(make_player):
    alice = make_player("alice")
    refused(client_for(alice).post(FACTOR, {"password": "not my password"}), 403, "wrong_password")
    assert not SecondFactor.objects.filter(user=alice).exists()


def test_confirm_with_a_code_turns_it_on_and_gives_ten_recovery_codes_once(make_player):
    alice = make_player("alice")
    client = client_for(alice)
    _, codes, _ = turned_on(client)
    assert len(codes) == 10 and len(set(codes)) == 10
    status = ok(client.get(FACTOR))
    assert status["enabled"] is True and status["pending"] is False and status["recovery_codes_left"] == 10
    stored = list(RecoveryCode.objects.filter(user=alice).values_list("digest", flat=True))
    assert not any(c.replace("-", "") in d or c in d for c in codes for d in stored)  # hashed at rest
    refused(client.post(CONFIRM, {"code": "123456"}), 409, "second_factor_not_pending")
    refused(client.post(FACTOR, {"password": PASSWORD}), 409, "second_factor_enabled")


def test_confirm_refuses_a_wrong_code(make_player):
    alice = make_player("alice")
    client = client_for(alice)
    refused(client.post(CONFIRM, {"code": "123456"}), 409, "second_factor_not_pending")
    secret = ok(client.post(FACTOR, {"password": PASSWORD}), 201)["secret"]
    step = fresh_step()
    refused(client.post(CONFIRM, {"code": code(secret, step + 5)}), 401, "otp_invalid")
    assert ok(client.get(FACTOR))["enabled"] is False


def test_token_creation_asks_for_the_code(make_player):
    alice = make_player("alice")
    secret, _, step = turned_on(client_for(alice))
    anonymous = APIClient()
    body = {"username": "alice", "password": PASSWORD, "name": "phone"}
    problem = refused(anonymous.post(TOKENS, body), 401, "otp_required")
    assert "authenticator" in problem["detail"]
    refused(anonymous.post(TOKENS, {**body, "otp": code(secret, step + 7)}), 401, "otp_invalid")
    refused(anonymous.post(TOKENS, {**body, "otp": code(secret, step - 1)}), 401, "otp_invalid")  # used to confirm
    ok(anonymous.post(TOKENS, {**body, "otp": code(secret, step)}), 201)
    refused(anonymous.post(TOKENS, {**body, "otp": code(secret, step)}), 401, "otp_invalid")  # never twice
    # A wrong password is still invalid_credentials, code or not.
    refused(
        anonymous.post(TOKENS, {**body, "password": "wrong", "otp": code(secret, step + 1)}), 401, "invalid_credentials"
    )


def test_the_code_is_refused_without_username_and_password(make_player):
    alice = make_player("alice")
    refused(client_for(alice).post(TOKENS, {"name": "x", "otp": "123456"}), 400, "validation_error")


def test_a_recovery_code_logs_in_once(make_player):
    alice = make_player("alice")
    client = client_for(alice)
    _, codes, _ = turned_on(client)
    body = {"username": "alice", "password": PASSWORD, "name": "phone"}
    ok(APIClient().post(TOKENS, {**body, "otp": codes[0].upper()}), 201)  # case and dashes do not matter
    refused(APIClient().post(TOKENS, {**body, "otp": codes[0]}), 401, "otp_invalid")
    assert ok(client.get(FACTOR))["recovery_codes_left"] == 9


def test_wrong_codes_count_towards_the_log_in_lock(make_player, settings):
    alice = make_player("alice")
    secret, _, step = turned_on(client_for(alice))
    body = {"username": "alice", "password": PASSWORD, "name": "phone"}
    for _ in range(settings.LOGIN_FREE_FAILURES):
        refused(
            APIClient().post(TOKENS, {**body, "otp": "000000" if code(secret, step) != "000000" else "111111"}),
            401,
            "otp_invalid",
        )
    # The right password and code: locked all the same.
    refused(APIClient().post(TOKENS, {**body, "otp": code(secret, step)}), 429, "login_locked")


def test_a_browser_session_asks_for_the_code(make_player):
    alice = make_player("alice")
    secret, _, step = turned_on(client_for(alice))
    browser = APIClient(enforce_csrf_checks=True)
    body = {"username": "alice", "password": PASSWORD}
    refused(browser.post(SESSION, body), 401, "otp_required")
    refused(browser.post(SESSION, {**body, "otp": "12345"}), 401, "otp_invalid")
    assert ok(browser.post(SESSION, {**body, "otp": code(secret, step)}))["account"]["username"] == "alice"
    assert ok(browser.get("/api/v1/me/"))["username"] == "alice"


def test_messages_are_translated(make_player):
    alice = make_player("alice")
    turned_on(client_for(alice))
    response = APIClient().post(
        TOKENS, {"username": "alice", "password": PASSWORD, "name": "x"}, HTTP_ACCEPT_LANGUAGE="et"
    )
    problem = refused(response, 401, "otp_required")
    english = refused(
        APIClient().post(TOKENS, {"username": "alice", "password": PASSWORD, "name": "x"}), 401, "otp_required"
    )
    assert problem["detail"] != english["detail"] and problem["title"] != english["title"]


def test_disable_needs_the_password_and_a_code(make_player):
    alice = make_player("alice")
    client = client_for(alice)
    refused(client.post(DISABLE, {"password": PASSWORD, "code": "123456"}), 409, "second_factor_not_enabled")
    secret, codes, step = turned_on(client)
    refused(client.post(DISABLE, {"password": "wrong", "code": code(secret, step)}), 403, "wrong_password")
    refused(client.post(DISABLE, {"password": PASSWORD, "code": code(secret, step + 9)}), 401, "otp_invalid")
    assert ok(client.get(FACTOR))["enabled"] is True
    assert client.post(DISABLE, {"password": PASSWORD, "code": codes[3]}).status_code == 204  # a recovery code will do
    assert ok(client.get(FACTOR))["enabled"] is False
    assert not RecoveryCode.objects.filter(user=alice).exists()
    ok(APIClient().post(TOKENS, {"username": "alice", "password": PASSWORD, "name": "x"}), 201)


def test_disable_with_a_code_from_the_app(make_player):
    alice = make_player("alice")
    client = client_for(alice)
    secret, _, step = turned_on(client)
    assert client.post(DISABLE, {"password": PASSWORD, "code": code(secret, step)}).status_code == 204
    assert not SecondFactor.objects.filter(user=alice).exists()


def test_staff_see_that_it_is_required(make_player):
    alice = make_player("alice")
    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    assert ok(client_for(alice).get(FACTOR))["required_by_admin"] is True
