"""Registration, public profiles and /me."""

from __future__ import annotations

import pytest

from players.models import User
from tests.api.problems import assert_problem
from tests.conftest import PASSWORD
from tests.openapi_check import assert_matches_schema

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/players/"


def test_register_creates_a_player(api_client):
    response = api_client.post(REGISTER, {"username": "alice", "password": PASSWORD})
    assert response.status_code == 201
    assert_matches_schema(response)
    body = response.json()
    assert body["username"] == "alice"
    assert body["is_bot"] is False and body["is_staff"] is False
    assert "password" not in body
    assert User.objects.get(username="alice").check_password(PASSWORD)


def test_register_refuses_a_taken_username_whatever_its_case(api_client, make_player):
    make_player("alice")
    response = api_client.post(REGISTER, {"username": "Alice", "password": PASSWORD})
    assert_problem(response, 409, "username_taken")
    assert_matches_schema(response)


@pytest.mark.parametrize(
    ("password", "status", "code"),
    [
        ("123", 400, "validation_error"),  # too short: the contract's minLength
        ("12345678901", 400, "validation_error"),  # all digits: the contract's pattern
        ("password123", 422, "weak_password"),  # a common password: said in the contract's description
        ("bob-the-builder-bob", 422, "weak_password"),  # too like the username: likewise
    ],
)
def test_register_refuses_a_weak_password(api_client, password, status, code):
    response = api_client.post(REGISTER, {"username": "bob-the-builder", "password": password})
    body = assert_problem(response, status, code)
    assert_matches_schema(response)
    assert set(body["errors"]) == {"password"}
    assert not User.objects.filter(username="bob-the-builder").exists()


def test_register_requires_username_and_password(api_client):
    response = api_client.post(REGISTER, {})
    body = assert_problem(response, 400, "validation_error")
    assert_matches_schema(response)
    assert set(body["errors"]) == {"username", "password"}


def test_register_refuses_odd_characters_in_usernames(api_client):
    response = api_client.post(REGISTER, {"username": "no spaces/please", "password": PASSWORD})
    body = assert_problem(response, 400, "validation_error")
    assert set(body["errors"]) == {"username"}


def test_profile_is_public_and_shows_bots_as_bots(api_client, make_player):
    bot = make_player("robo", is_bot=True)
    response = api_client.get("/api/v1/players/ROBO/")
    assert response.status_code == 200
    assert_matches_schema(response)
    assert response.json() == {"id": bot.pk, "username": "robo", "is_bot": True}


def test_profile_of_nobody_is_not_found(api_client):
    response = api_client.get("/api/v1/players/nobody/")
    assert_problem(response, 404, "not_found")
    assert_matches_schema(response)


def test_me_needs_authentication(api_client):
    response = api_client.get("/api/v1/me/")
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert_matches_schema(response)


def test_me_with_a_token(make_player, token_client):
    alice = make_player("alice")
    response = token_client(alice).get("/api/v1/me/")
    assert response.status_code == 200
    assert_matches_schema(response)
    body = response.json()
    assert body["id"] == alice.pk and body["username"] == "alice"
    assert body["is_bot"] is False and body["is_staff"] is False
    assert body["date_joined"]


def test_me_with_a_session(api_client, make_player):
    make_player("alice")
    signed_in = api_client.post("/api/v1/session/", {"username": "alice", "password": PASSWORD}, format="json")
    assert signed_in.status_code == 200, signed_in.content
    response = api_client.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json()["username"] == "alice"


def test_a_session_that_is_no_browser_device_is_no_api_credential(api_client, make_player):
    """Django's own log-in (the admin's) makes no device: the API does not take it, and
    does not end it either (the moderator stays signed in to the admin)."""
    make_player("alice")
    assert api_client.login(username="alice", password=PASSWORD)
    assert api_client.get("/api/v1/me/").status_code == 401
    assert api_client.session.get("_auth_user_id") is not None


def test_session_login_page_is_served(api_client):
    response = api_client.get("/api-auth/login/")
    assert response.status_code == 200
