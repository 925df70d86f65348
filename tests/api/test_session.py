"""The browser's session log-in (``/api/v1/session/``): an HttpOnly cookie scripts
cannot read, CSRF on its unsafe requests, "remember me" as its lifetime, sign-out
ending it on the server; refusals are problem documents of the contract."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from players.models import User
from tests.api.games_helpers import ok, refused
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

SESSION = "/api/v1/session/"
ME = "/api/v1/me/"


def browser() -> APIClient:
    return APIClient(enforce_csrf_checks=True)


def sign_in(client: APIClient, username: str = "alice", remember: bool = False) -> dict[str, Any]:
    return ok(client.post(SESSION, {"username": username, "password": PASSWORD, "remember": remember}))


def test_a_browser_signs_in_with_an_httponly_cookie_and_a_csrf_token(make_player: Any) -> None:
    make_player("alice")
    client = browser()
    body = sign_in(client, remember=True)
    assert body["account"]["username"] == "alice" and body["csrf_token"]
    cookie = client.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"
    assert int(cookie["max-age"]) == 14 * 24 * 3600  # remembered: two weeks
    assert ok(client.get(ME))["username"] == "alice"
    assert ok(client.get(SESSION))["account"]["username"] == "alice"


def test_without_remember_me_the_cookie_ends_with_the_browser(make_player: Any) -> None:
    make_player("alice")
    client = browser()
    sign_in(client, remember=False)
    cookie = client.cookies["sessionid"]
    assert cookie["max-age"] == "" and cookie["expires"] == ""  # a browser-session cookie


def test_unsafe_requests_of_a_session_need_its_csrf_token(make_player: Any) -> None:
    make_player("alice")
    client = browser()
    token = sign_in(client)["csrf_token"]
    refused(client.post("/api/v1/games/", {"set_max": 6, "players": 2}, format="json"), 403, "csrf_failed")
    created = client.post("/api/v1/games/", {"set_max": 6, "players": 2}, format="json", HTTP_X_CSRFTOKEN=token)
    assert created.status_code == 201, created.content


def test_signing_out_ends_the_session_on_the_server(make_player: Any) -> None:
    make_player("alice")
    client = browser()
    token = sign_in(client)["csrf_token"]
    stolen = client.cookies["sessionid"].value
    refused(client.delete(SESSION), 403, "csrf_failed")  # no CSRF token: not even sign-out
    assert client.delete(SESSION, HTTP_X_CSRFTOKEN=token).status_code == 204
    replay = browser()
    replay.cookies["sessionid"] = stolen  # the old cookie, kept by someone
    refused(replay.get(ME), 401, "not_authenticated")


def test_a_new_sign_in_gets_a_new_session_key(make_player: Any) -> None:
    make_player("alice")
    client = browser()
    client.cookies["sessionid"] = "planted-by-someone-else"
    sign_in(client)
    assert client.cookies["sessionid"].value != "planted-by-someone-else"


def test_refusals_are_the_token_endpoints(make_player: Any) -> None:
    make_player("alice")
    refused(browser().post(SESSION, {"username": "alice"}), 400, "validation_error")
    refused(browser().post(SESSION, {"username": "alice", "password": "wrong"}), 401, "invalid_credentials")
    refused(browser().get(SESSION), 401, "not_authenticated")
    for _ in range(4):
        browser().post(SESSION, {"username": "alice", "password": "wrong"})
    refused(browser().post(SESSION, {"username": "alice", "password": PASSWORD}), 429, "login_locked")


def test_a_suspended_account_cannot_sign_in_and_its_session_stops_working(make_player: Any) -> None:
    alice = make_player("alice")
    client = browser()
    sign_in(client)
    User.objects.filter(pk=alice.pk).update(is_active=False)
    refused(client.get(ME), 401, "not_authenticated")
    # The right password learns why (no sanction recorded here: no reason, no end); a wrong one learns nothing.
    body = refused(browser().post(SESSION, {"username": "alice", "password": PASSWORD}), 403, "suspended")
    assert (body["reason"], body["until"]) == ("", None)
    refused(browser().post(SESSION, {"username": "alice", "password": "not it"}), 401, "invalid_credentials")


def test_a_browser_is_a_device_that_another_device_can_sign_out(make_player: Any) -> None:
    """Each sign-in is one of the account's devices (GET /tokens/, ``current`` for
    itself); revoking it from another device ends that browser's session, and its
    own sign-out revokes it."""
    make_player("alice")
    laptop, phone = browser(), browser()
    csrf = sign_in(laptop, remember=True)["csrf_token"]
    sign_in(phone, remember=True)
    (phone_device,) = [d for d in ok(phone.get("/api/v1/tokens/"))["results"] if d["current"]]
    (laptop_device,) = [d for d in ok(laptop.get("/api/v1/tokens/"))["results"] if d["current"]]
    assert phone_device["id"] != laptop_device["id"]
    assert phone_device["name"].startswith("Web client")

    revoked = laptop.delete(f"/api/v1/tokens/{phone_device['id']}/", HTTP_X_CSRFTOKEN=csrf)
    assert revoked.status_code == 204, revoked.content
    refused(phone.get(ME), 401, "not_authenticated")
    assert ok(laptop.get(ME))["username"] == "alice"

    signed_out = laptop.delete(SESSION, HTTP_X_CSRFTOKEN=csrf)
    assert signed_out.status_code == 204, signed_out.content
    assert not User.objects.get(username="alice").api_tokens.filter(revoked_at__isnull=True).exists()


CHROME_PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Mobile Safari/537.36"
)


@pytest.mark.parametrize(
    ("language", "agent", "name"),
    [
        ("en", CHROME_PHONE, "Web client - Chrome, phone"),
        ("et", CHROME_PHONE, "Veebiklient - Chrome, telefon"),
        ("et", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Veebiklient - Firefox"),
        ("et", "curl/8.5.0", "Veebiklient - tundmatu brauser"),
    ],
)
def test_a_browser_device_is_named_in_the_language_it_signed_in_with(
    make_player: Any, language: str, agent: str, name: str
) -> None:
    """The account page lists the device by its name: the server names a browser from its
    User-Agent in the words of the sign-in's language (the page's cookie or
    Accept-Language), and keeps that name - in every later answer, in any language."""
    make_player("alice")
    client = browser()
    ok(
        client.post(
            SESSION,
            {"username": "alice", "password": PASSWORD},
            HTTP_ACCEPT_LANGUAGE=language,
            HTTP_USER_AGENT=agent,
        )
    )
    for reading in ("en", "et"):
        (device,) = [
            d for d in ok(client.get("/api/v1/tokens/", HTTP_ACCEPT_LANGUAGE=reading))["results"] if d["current"]
        ]
        assert device["name"] == name
