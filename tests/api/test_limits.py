"""Limits that hold against a hostile client: no header resets them, bursts do
not overshoot them, and password guessing is slow however it is spread.

Figures the limits give with the default settings (see the README): a single
address gets 30 password attempts an hour (THROTTLE_LOGIN), over any accounts,
and takes 10 wrong passwords to one account in the first hour - 5, then one after
each lock of 1, 2, 4, 8, 16 minutes - and one an hour after that; guesses spread
over many addresses meet the account-wide ceiling: 30, then one after each lock of
5, 10, 20, 40 minutes, while the account's owner goes on logging in from the
addresses they logged in from before (players.login, docs/security-limits.md).
"""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import authenticate
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from core.limits import Limit, parse_rate
from players import login
from players.address_hash import address_hash
from players.models import ApiToken, LoginAddress, User
from tests.api.games_helpers import ok, refused
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

TOKENS = "/api/v1/tokens/"
PLAYERS = "/api/v1/players/"


@pytest.fixture
def rates(settings: Any) -> Any:
    """``rates(anon="3/minute", ...)``: throttle rates for this test (by scope)."""

    def set_rates(**scopes: str) -> None:
        rest = dict(settings.REST_FRAMEWORK)
        rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], **scopes}
        settings.REST_FRAMEWORK = rest

    return set_rates


def assert_rate_limited(response: Any, code: str = "rate_limited") -> int:
    body = refused(response, 429, code)
    assert int(response["Retry-After"]) == body["retry_after"] >= 1
    return body["retry_after"]


def login_attempt(client: APIClient, username: str, password: str, **headers: Any) -> Any:
    return client.post(TOKENS, {"username": username, "password": password, "name": "x"}, format="json", **headers)


# -- the client's address ------------------------------------------------------------------


def test_a_forwarded_for_header_resets_no_limit(rates, api_client):
    rates(anon="3/minute")
    for n in range(3):
        ok(api_client.get("/api/v1/bots/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}"))
    assert_rate_limited(api_client.get("/api/v1/bots/", HTTP_X_FORWARDED_FOR="10.0.0.99"))


def test_behind_a_proxy_the_address_it_saw_counts_not_what_the_client_wrote(rates, settings, api_client):
    settings.NUM_PROXIES = 1  # our proxy appends the address it got the request from
    rates(anon="2/minute")
    for spoofed in ("1.1.1.1", "2.2.2.2"):
        ok(api_client.get("/api/v1/bots/", HTTP_X_FORWARDED_FOR=f"{spoofed}, 203.0.113.7"))
    assert_rate_limited(api_client.get("/api/v1/bots/", HTTP_X_FORWARDED_FOR="3.3.3.3, 203.0.113.7"))
    ok(api_client.get("/api/v1/bots/", HTTP_X_FORWARDED_FOR="203.0.113.8"))  # another client behind the proxy


# -- password log-in -------------------------------------------------------------------------


def test_wrong_passwords_lock_password_log_in_but_not_the_accounts_tokens(make_player, token_client, api_client):
    alice = make_player("alice")
    her_bot = token_client(alice)  # a token she already holds
    for _ in range(5):
        refused(login_attempt(api_client, "alice", "guess"), 401, "invalid_credentials")
    wait = assert_rate_limited(login_attempt(api_client, "alice", PASSWORD), "login_locked")  # even the right one
    assert 55 <= wait <= 60
    assert_rate_limited(login_attempt(api_client, "ALICE", PASSWORD), "login_locked")  # usernames ignore case
    assert ok(her_bot.get("/api/v1/me/"))["username"] == "alice"
    # A session's or the admin's log-in from the same address is locked too (another address is not).
    assert authenticate(None, username="alice", password=PASSWORD, address="127.0.0.1") is None

    here = LoginAddress.objects.filter(account=alice, address=address_hash("127.0.0.1"))
    here.update(locked_until=timezone.now() - timedelta(seconds=1))  # time passes
    refused(login_attempt(api_client, "alice", "still a guess"), 401, "invalid_credentials")
    row = here.get()
    assert row.failures == 6 and row.locked_until is not None
    assert 115 <= (row.locked_until - timezone.now()).total_seconds() <= 120

    here.update(locked_until=None)
    ok(login_attempt(api_client, "alice", PASSWORD), 201)
    row = here.get()
    assert (row.failures, row.locked_until, row.known) == (0, None, True)
    alice.refresh_from_db()
    assert (alice.failed_logins, alice.login_locked_until) == (0, None)


def test_a_guesser_locked_out_does_not_lock_out_the_owner_at_a_known_address(make_player, api_client):
    """The quick lock is the guesser's address's; the account-wide ceiling, met by
    guesses from many addresses, spares the addresses the owner logged in from."""
    make_player("alice")
    owner, guesser = {"REMOTE_ADDR": "198.51.100.7"}, {"REMOTE_ADDR": "203.0.113.9"}
    ok(login_attempt(api_client, "alice", PASSWORD, **owner), 201)  # her laptop: a known address
    for _ in range(5):
        refused(login_attempt(api_client, "alice", "guess", **guesser), 401, "invalid_credentials")
    assert_rate_limited(login_attempt(api_client, "alice", PASSWORD, **guesser), "login_locked")
    ok(login_attempt(api_client, "alice", PASSWORD, **owner), 201)  # the guesser's lock is not hers
    # A guesser with many addresses (an IPv6 /64 counts as one): 30 wrong passwords
    # from addresses alice never used close every such address ...
    for n in range(20):
        refused(login_attempt(api_client, "alice", "guess", REMOTE_ADDR=f"192.0.2.{n}"), 401, "invalid_credentials")
    for n in range(5):
        ipv6 = {"REMOTE_ADDR": f"2001:db8:0:{n}::1"}
        refused(login_attempt(api_client, "alice", "guess", **ipv6), 401, "invalid_credentials")
    assert_rate_limited(login_attempt(api_client, "alice", PASSWORD, REMOTE_ADDR="192.0.2.200"), "login_locked")
    assert_rate_limited(login_attempt(api_client, "alice", PASSWORD, REMOTE_ADDR="2001:db8:0:9::1"), "login_locked")
    # ... but not hers: she logs in from her known address, again and again.
    for _ in range(3):
        ok(login_attempt(api_client, "alice", PASSWORD, **owner), 201)
    assert_rate_limited(login_attempt(api_client, "alice", PASSWORD, REMOTE_ADDR="192.0.2.201"), "login_locked")


def test_one_ipv6_network_is_one_address():
    assert login.address_key("2001:db8:1:2:3:4:5:6") == login.address_key("2001:db8:1:2::ffff") == "2001:db8:1:2::/64"
    assert login.address_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert login.address_key("192.0.2.1") == "192.0.2.1"
    assert login.address_key(None) == login.address_key("not an address") == ""


def test_the_lock_grows_to_an_hour(settings):
    assert [login.lock_seconds(n) for n in range(1, 13)] == [0, 0, 0, 0, 60, 120, 240, 480, 960, 1920, 3600, 3600]
    ceiling = [login.account_lock_seconds(n) for n in range(29, 36)]
    assert ceiling == [0, 300, 600, 1200, 2400, 3600, 3600]
    # An account's first hour: 5 guesses, then one after each lock that still ends inside the hour.
    elapsed, guesses, failures = 0.0, 0, 0
    while elapsed < 3600:
        guesses, failures = guesses + 1, failures + 1
        elapsed += login.lock_seconds(failures)
    assert guesses == 10


def test_a_session_log_in_counts_its_wrong_passwords_too(make_player):
    make_player("bob")
    client = APIClient()
    for _ in range(5):
        assert not client.login(username="bob", password="guess")
    assert LoginAddress.objects.get(account__username="bob").locked_until is not None
    assert not client.login(username="bob", password=PASSWORD)


def test_password_attempts_are_limited_per_address_across_accounts(rates, api_client):
    rates(login="3/hour")
    for n in range(3):
        refused(
            login_attempt(api_client, f"nobody{n}", "guess", HTTP_X_FORWARDED_FOR=f"10.1.0.{n}"),
            401,
            "invalid_credentials",
        )
    assert_rate_limited(login_attempt(api_client, "nobody9", "guess", HTTP_X_FORWARDED_FOR="10.1.0.9"))


def test_a_token_asked_for_with_a_token_is_no_password_attempt(rates, people):
    rates(login="1/hour")
    _, client = people.player()
    for _ in range(3):
        ok(client.post(TOKENS, {"name": "another"}, format="json"), 201)


# -- registration and tokens -----------------------------------------------------------------


def test_registration_is_limited_per_address(rates, api_client):
    rates(register="2/hour")
    for n in range(2):
        ok(api_client.post(PLAYERS, {"username": f"new{n}", "password": PASSWORD}, format="json"), 201)
    assert_rate_limited(api_client.post(PLAYERS, {"username": "new9", "password": PASSWORD}, format="json"))
    assert not User.objects.filter(username="new9").exists()


def test_an_account_holds_a_bounded_number_of_tokens(settings, people):
    settings.MAX_TOKENS_PER_ACCOUNT = 3
    user, client = people.player()  # holds one already
    for _ in range(2):
        ok(client.post(TOKENS, {"name": "more"}, format="json"), 201)
    body = refused(client.post(TOKENS, {"name": "one too many"}, format="json"), 409, "too_many_tokens")
    assert "revoke one" in body["detail"]
    ok_token = ApiToken.objects.filter(user=user, name="more").first()
    assert ok_token is not None
    assert client.delete(f"{TOKENS}{ok_token.pk}/").status_code == 204
    ok(client.post(TOKENS, {"name": "room again"}, format="json"), 201)


def test_new_tokens_are_limited_per_account(settings, people):
    settings.THROTTLE_TOKENS = "2/hour"
    user, client = people.player()
    for _ in range(2):
        ok(client.post(TOKENS, {"name": "more"}, format="json"), 201)
    assert_rate_limited(client.post(TOKENS, {"name": "too fast"}, format="json"))
    assert_rate_limited(login_attempt(APIClient(), user.username, PASSWORD))  # by password: the same account


# -- counting -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "expected"),
    [("30/hour", (30, 3600)), ("5/10min", (5, 600)), ("120/minute", (120, 60)), ("1/s", (1, 1)), ("2/day", (2, 86400))],
)
def test_rates_read_like_drfs(rate, expected):
    assert parse_rate(rate) == expected


def test_the_window_slides_and_says_how_long_to_wait():
    limit = Limit("slide", "10/minute")
    start = 6_000_000.0  # the start of a window (a multiple of 60)
    assert all(limit.hit("k", now=start + i) is None for i in range(10))
    # The 11th, half-way through: refused until the window is over and enough of its
    # 11 hits have faded from the sliding estimate: 11 * (1 - x/60) + 1 <= 10 at x = 11 s.
    wait = limit.hit("k", now=start + 30)
    assert wait == 41
    assert limit.hit("k", now=start + 65) is not None  # the last window still weighs 11 * 55/60
    assert limit.hit("k", now=start + 60 + 59) is None  # almost all of it has faded


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_a_burst_of_registrations_gets_no_more_than_the_limit(rates):
    """Eight registrations at once from one address against a limit of three:
    counted atomically, exactly three get through."""
    rates(register="3/hour")
    start = threading.Barrier(8)
    statuses: list[int] = []

    def register(n: int) -> None:
        try:
            start.wait()
            statuses.append(
                APIClient().post(PLAYERS, {"username": f"burst{n}", "password": PASSWORD}, format="json").status_code
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=register, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert Counter(statuses) == {201: 3, 429: 5}


@pytest.mark.redis
def test_a_burst_on_a_redis_counter_gets_no_more_than_the_limit(settings, redis_url):
    settings.CACHES = {
        "default": {"BACKEND": "core.cache.ResilientRedisCache", "LOCATION": redis_url, "KEY_PREFIX": "cf-test-burst"}
    }
    limit, key = Limit("burst", "5/minute"), f"k{threading.get_ident()}-{timezone.now().timestamp()}"
    start = threading.Barrier(16)
    allowed: list[bool] = []

    def hit() -> None:
        start.wait()
        allowed.append(limit.hit(key) is None)

    threads = [threading.Thread(target=hit) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert allowed.count(True) == 5
