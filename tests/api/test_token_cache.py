"""The per-process token cache (``players.token_cache``): with Redis, a token that
authenticated is not read from the database again, and every way its rights can
end reaches the cache - at once in the process that made the change, through
Redis in the others; without a live subscription nothing is cached."""

from __future__ import annotations

import pytest
import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from core import notify
from moderation import services as moderation_services
from players import services
from players.models import ApiToken
from players.services import IssuedToken
from players.token_cache import CACHE
from players.tokens import token_digest
from tests.conftest import PASSWORD
from tests.integration.workers import wait_for

pytestmark = pytest.mark.django_db

ME = "/api/v1/me/"
NOBODY_LISTENS = "redis://127.0.0.1:1/0"


@pytest.fixture
def live_cache(settings, redis_url):
    """The cache, subscribed on the test Redis."""
    settings.REDIS_URL = redis_url
    assert CACHE.enabled()
    wait_for(lambda: CACHE.live, 10, what="the token cache's subscription")
    return CACHE


def bearer(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def token_of(user) -> tuple[IssuedToken, APIClient]:
    """A new token of ``user``, and a client that sends it."""
    issued = services.token_create(user=user, name="bot")
    return issued, bearer(issued.secret)


def token_reads(client: APIClient) -> tuple[int, int]:
    """(status of GET /me/, statements that read the token table)."""
    with CaptureQueriesContext(connection) as queries:
        status = client.get(ME).status_code
    return status, sum('"players_apitoken"' in q["sql"] and q["sql"].startswith("SELECT") for q in queries)


def revoke_behind_its_back(token_id: int) -> None:
    """Revoke with a bulk update: no signal, no notice - as if another process had
    written the row and its notice were still on the way."""
    ApiToken.objects.filter(pk=token_id).update(revoked_at=timezone.now())


@pytest.mark.redis
def test_a_token_is_read_once_then_remembered(live_cache, make_player):
    _, client = token_of(make_player("alice"))
    assert token_reads(client) == (200, 1)
    assert token_reads(client) == (200, 0)
    assert token_reads(client) == (200, 0)


def _revoke_by_api(user, issued):
    other = services.token_create(user=user, name="other").secret
    assert bearer(other).delete(f"/api/v1/tokens/{issued.token.pk}/").status_code == 204


def _revoke_all(user, issued):
    services.tokens_revoke_all(user=user)


def _suspend(user, issued):
    moderator = services.user_register(username="mod", password=PASSWORD, is_bot=False)
    moderation_services.moderator_add(user=moderator)
    moderation_services.moderation_player_suspend(player=user, by=moderator, reason="cheating")


def _save_in_admin(user, issued):
    user.is_active = False
    user.save()  # the admin's change form saves the whole row


def _delete_the_token(user, issued):
    ApiToken.objects.get(pk=issued.token.pk).delete()


@pytest.mark.redis
@pytest.mark.parametrize(
    "end", [_revoke_by_api, _revoke_all, _suspend, _save_in_admin, _delete_the_token], ids=lambda f: f.__name__[1:]
)
def test_whatever_ends_a_tokens_rights_is_refused_at_once(live_cache, make_player, end):
    alice = make_player("alice")
    issued, client = token_of(alice)
    assert token_reads(client) == (200, 1)
    assert token_reads(client) == (200, 0)  # cached
    end(alice, issued)
    assert client.get(ME).status_code == 401


@pytest.mark.redis
@pytest.mark.parametrize("channel", ["auth", "resync"])
def test_a_notice_from_another_process_makes_it_forget(live_cache, make_player, redis_url, channel):
    alice = make_player("alice")
    issued, client = token_of(alice)
    assert token_reads(client) == (200, 1)
    revoke_behind_its_back(issued.token.pk)
    assert client.get(ME).status_code == 200  # remembered: this process was not told
    # Another process's notice, as it publishes it (its mark, then the message).
    other = redis.Redis.from_url(redis_url)
    if channel == "auth":
        other.publish(notify.AUTH, b"@1.00000000;" + str(alice.pk).encode())
    else:
        other.publish(notify.RESYNC, b"")
    wait_for(lambda: token_digest(issued.secret) not in CACHE._entries, 10, what="the notice to arrive")
    assert client.get(ME).status_code == 401


@pytest.mark.redis
def test_another_accounts_notice_leaves_this_one_cached(live_cache, make_player, redis_url):
    alice, bob = make_player("alice"), make_player("bob")
    _, client = token_of(alice)
    assert token_reads(client) == (200, 1)
    services.credentials_changed(bob.pk)
    assert token_reads(client) == (200, 0)


def test_without_a_live_subscription_every_request_reads_the_database(settings, make_player):
    settings.REDIS_URL = NOBODY_LISTENS
    issued, client = token_of(make_player("alice"))
    assert token_reads(client) == (200, 1)
    assert token_reads(client) == (200, 1)
    assert not CACHE.live and "subscri" in CACHE.reason
    revoke_behind_its_back(issued.token.pk)
    assert client.get(ME).status_code == 401


@pytest.mark.redis
def test_without_a_lifetime_nothing_is_cached(live_cache, settings, make_player):
    settings.TOKEN_CACHE_SECONDS = 0
    _, client = token_of(make_player("alice"))
    assert token_reads(client) == (200, 1)
    assert token_reads(client) == (200, 1)


@pytest.mark.redis
def test_an_entry_lapses_after_its_lifetime(live_cache, settings, make_player):
    settings.TOKEN_CACHE_SECONDS = 0.5
    issued, client = token_of(make_player("alice"))
    assert token_reads(client) == (200, 1)
    revoke_behind_its_back(issued.token.pk)  # a notice lost on the way
    wait_for(lambda: client.get(ME).status_code == 401, 10, what="the entry to lapse")


@pytest.mark.redis
def test_a_lookup_that_spans_a_forget_is_not_kept(live_cache, make_player):
    from players import selectors

    alice = make_player("alice")
    issued = services.token_create(user=alice, name="bot")
    digest = token_digest(issued.secret)
    generation = CACHE.generation()
    token = selectors.token_get_active(secret=issued.secret)  # read before the revocation committed ...
    assert token is not None
    CACHE.forget(alice.pk)  # ... whose notice came before the read was kept
    CACHE.put(digest, token, generation=generation)
    assert CACHE.get(digest) is None
    CACHE.put(digest, token, generation=CACHE.generation())
    assert CACHE.get(digest) is not None


@pytest.mark.redis
def test_each_request_gets_its_own_token_and_account(live_cache, make_player):
    from players import selectors

    issued = services.token_create(user=make_player("alice"), name="bot")
    digest = token_digest(issued.secret)
    token = selectors.token_get_active(secret=issued.secret)
    assert token is not None
    CACHE.put(digest, token, generation=CACHE.generation())
    first, second, third = CACHE.get(digest), CACHE.get(digest), CACHE.get(digest)
    assert first is not None and second is not None and third is not None
    assert first is not second and first.user is not second.user
    first.user.username = "mallory"
    assert second.user.username == "alice" and third.user.username == "alice"


@pytest.mark.redis
def test_a_use_is_still_recorded_once_a_minute(live_cache, make_player):
    issued, client = token_of(make_player("alice"))
    assert client.get(ME).status_code == 200
    first = ApiToken.objects.get(pk=issued.token.pk).last_used_at
    assert first is not None
    with CaptureQueriesContext(connection) as queries:
        assert client.get(ME).status_code == 200
    assert not any(q["sql"].startswith("UPDATE") and "players_apitoken" in q["sql"] for q in queries)
