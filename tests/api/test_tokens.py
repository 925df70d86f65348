"""API tokens: obtaining, listing, revoking, authenticating with them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from players import services
from players.models import ApiToken
from players.tokens import token_digest
from tests.api.problems import assert_problem
from tests.conftest import PASSWORD
from tests.openapi_check import assert_matches_schema

pytestmark = pytest.mark.django_db

TOKENS = "/api/v1/tokens/"
ME = "/api/v1/me/"


def bearer(secret: str, keyword: str = "Bearer") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{keyword} {secret}")
    return client


def test_token_with_credentials(api_client, make_player):
    alice = make_player("alice")
    response = api_client.post(TOKENS, {"username": "alice", "password": PASSWORD, "name": "laptop"})
    assert response.status_code == 201
    assert_matches_schema(response)
    body = response.json()
    assert body["name"] == "laptop"
    assert re.fullmatch(r"cf_[0-9a-f]{8}_[A-Za-z0-9_-]{43}", body["token"])
    assert body["token"].startswith(f"cf_{body['prefix']}_")
    stored = ApiToken.objects.get(pk=body["id"])
    assert stored.user == alice and stored.digest == token_digest(body["token"])
    assert body["token"] not in str(ApiToken.objects.filter(pk=body["id"]).values().get())
    assert bearer(body["token"]).get(ME).json()["username"] == "alice"


def test_token_keyword_is_accepted_too(api_client, make_player):
    make_player("alice")
    secret = api_client.post(TOKENS, {"username": "alice", "password": PASSWORD, "name": "x"}).json()["token"]
    assert bearer(secret, "Token").get(ME).status_code == 200


def test_token_login_ignores_username_case(api_client, make_player):
    make_player("alice")
    response = api_client.post(TOKENS, {"username": "ALICE", "password": PASSWORD, "name": "x"})
    assert response.status_code == 201


@pytest.mark.parametrize(
    ("username", "password"), [("alice", "wrong password"), ("nobody", PASSWORD)], ids=["bad-password", "no-user"]
)
def test_token_with_bad_credentials(api_client, make_player, username, password):
    make_player("alice")
    response = api_client.post(TOKENS, {"username": username, "password": password, "name": "x"})
    assert_problem(response, 401, "invalid_credentials")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert_matches_schema(response)
    assert not ApiToken.objects.exists()


def test_token_for_a_suspended_account_is_refused(api_client, make_player):
    make_player("alice", is_active=False)
    response = api_client.post(TOKENS, {"username": "alice", "password": PASSWORD, "name": "x"})
    assert_problem(response, 403, "suspended")  # the right password only: a guesser gets invalid_credentials
    response = api_client.post(TOKENS, {"username": "alice", "password": "a guess", "name": "x"})
    assert_problem(response, 401, "invalid_credentials")
    assert not ApiToken.objects.exists()


def test_token_needs_username_and_password_together(api_client, make_player):
    make_player("alice")
    response = api_client.post(TOKENS, {"username": "alice", "name": "x"})
    body = assert_problem(response, 400, "validation_error")
    assert_matches_schema(response)
    assert set(body["errors"]) == {"password"}


def test_token_needs_a_name(api_client, make_player):
    make_player("alice")
    response = api_client.post(TOKENS, {"username": "alice", "password": PASSWORD})
    body = assert_problem(response, 400, "validation_error")
    assert set(body["errors"]) == {"name"}


def test_token_when_already_authenticated(make_player, token_client):
    alice = make_player("alice")
    response = token_client(alice).post(TOKENS, {"name": "bot"})
    assert response.status_code == 201
    assert_matches_schema(response)
    assert ApiToken.objects.get(pk=response.json()["id"]).user == alice


def test_token_without_credentials_or_authentication(api_client):
    response = api_client.post(TOKENS, {"name": "x"})
    assert_problem(response, 401, "not_authenticated")
    assert_matches_schema(response)


def test_list_shows_my_active_tokens_and_never_a_secret(make_player, token_client):
    alice, bob = make_player("alice"), make_player("bob")
    client = token_client(alice)  # token "test"
    issued = services.token_create(user=alice, name="phone")
    revoked = services.token_create(user=alice, name="old")
    services.token_revoke(token=revoked.token)
    services.token_create(user=bob, name="bob's")

    response = client.get(TOKENS)
    assert response.status_code == 200
    assert_matches_schema(response)
    body = response.json()
    assert body["count"] == 2
    assert [token["name"] for token in body["results"]] == ["phone", "test"]
    assert set(body["results"][0]) == {"id", "name", "prefix", "created_at", "last_used_at", "current"}
    assert issued.secret not in response.content.decode()
    assert issued.token.digest not in response.content.decode()


def test_list_is_paginated(make_player, token_client):
    alice = make_player("alice")
    client = token_client(alice)
    for number in range(3):
        services.token_create(user=alice, name=f"t{number}")
    body = client.get(TOKENS, {"limit": 2, "offset": 1}).json()
    assert body["count"] == 4 and len(body["results"]) == 2
    assert body["next"] and body["previous"]


def test_list_needs_authentication(api_client):
    response = api_client.get(TOKENS)
    assert_problem(response, 401, "not_authenticated")
    assert_matches_schema(response)


def test_revoke_my_token_then_it_is_refused(make_player):
    alice = make_player("alice")
    keep, drop = services.token_create(user=alice, name="keep"), services.token_create(user=alice, name="drop")
    response = bearer(keep.secret).delete(f"{TOKENS}{drop.token.pk}/")
    assert response.status_code == 204
    assert_matches_schema(response)

    refused = bearer(drop.secret).get(ME)
    body = assert_problem(refused, 401, "authentication_failed")
    assert "revoked" in body["detail"]
    assert_matches_schema(refused)
    again = bearer(keep.secret).delete(f"{TOKENS}{drop.token.pk}/")
    assert_problem(again, 404, "not_found")


def test_revoke_someone_elses_token_is_not_found(make_player, token_client):
    alice, bob = make_player("alice"), make_player("bob")
    bobs = services.token_create(user=bob, name="bob's")
    response = token_client(alice).delete(f"{TOKENS}{bobs.token.pk}/")
    assert_problem(response, 404, "not_found")
    assert_matches_schema(response)
    assert bearer(bobs.secret).get(ME).status_code == 200


def test_revoke_needs_authentication(api_client):
    response = api_client.delete(f"{TOKENS}1/")
    assert_problem(response, 401, "not_authenticated")
    assert_matches_schema(response)


@pytest.mark.parametrize(
    "header",
    ["Bearer cf_00000000_nonsense", "Bearer", "Bearer two parts", "Token "],
    ids=["unknown", "missing", "too-many-parts", "empty"],
)
def test_bad_tokens_are_refused(api_client, header):
    api_client.credentials(HTTP_AUTHORIZATION=header)
    response = api_client.get(ME)
    assert_problem(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


@pytest.mark.parametrize("header", ["Bearer cf_\u20ac", "Bearer \u5bc6\u94a5", "Token \U0001f511"])
def test_a_credential_beyond_latin_1_is_refused_not_a_server_error(api_client, header):
    """A header text no HTTP request could carry (an in-process caller's): 401, not a 500."""
    api_client.credentials(HTTP_AUTHORIZATION=header)
    response = api_client.get(ME)
    problem = assert_problem(response, 401, "authentication_failed")
    assert "Authorization" in problem["detail"]
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_other_authorization_schemes_are_left_alone(api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Basic YWxpY2U6cHc=")
    assert_problem(api_client.get(ME), 401, "not_authenticated")


def test_a_suspended_accounts_token_is_refused(make_player):
    alice = make_player("alice")
    issued = services.token_create(user=alice, name="x")
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    body = assert_problem(bearer(issued.secret).get(ME), 401, "authentication_failed")
    assert "suspended" in body["detail"]


def test_last_used_is_written_at_most_once_a_minute(make_player):
    alice = make_player("alice")
    token = services.token_create(user=alice, name="x").token
    start = timezone.now()
    services.token_mark_used(token=token, now=start)
    services.token_mark_used(token=token, now=start + timedelta(seconds=59))
    token.refresh_from_db()
    assert token.last_used_at == start
    services.token_mark_used(token=token, now=start + timedelta(seconds=61))
    token.refresh_from_db()
    assert token.last_used_at == start + timedelta(seconds=61)


def test_authenticating_records_the_use(make_player):
    alice = make_player("alice")
    issued = services.token_create(user=alice, name="x")
    bearer(issued.secret).get(ME)
    issued.token.refresh_from_db()
    assert issued.token.last_used_at is not None
