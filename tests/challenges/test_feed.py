"""The account stream's ``challenges`` feed, read in process: what each account is
told (event per state, its own answer), each change once, and one query per read."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from challenges import selectors, services
from challenges.models import Challenge
from live import account_feeds

pytestmark = pytest.mark.django_db

QUICK = {"set_max": 6, "rounds": 1}


def told(user, state) -> list[tuple[str, int, str]]:
    """(event, challenge id, your_invite) of the challenge frames a stream would send now."""
    return [
        (event, data["id"], data["your_invite"])
        for event, data, _ in account_feeds.changes(user, state)
        if event.startswith("challenge_")
    ]


def test_each_account_is_told_each_change_once(make_player):
    alice, bob, carol = make_player("alice"), make_player("bob"), make_player("carol")
    streams = {user: account_feeds.snapshot(user) for user in (alice, bob, carol)}
    assert all(shown["challenges"] == [] for shown, _ in streams.values())

    challenge = services.challenge_create(creator=alice, invitees=["bob", "carol"], ruleset=QUICK)
    pk = challenge.pk
    assert told(alice, streams[alice][1]) == [("challenge_sent", pk, None)]
    assert told(bob, streams[bob][1]) == [("challenge_received", pk, "pending")]
    assert told(carol, streams[carol][1]) == [("challenge_received", pk, "pending")]
    assert told(bob, streams[bob][1]) == []  # nothing changed: nothing sent

    services.challenge_accept(challenge_id=pk, player=bob)
    assert told(alice, streams[alice][1]) == [("challenge_answered", pk, None)]
    assert told(bob, streams[bob][1]) == [("challenge_answered", pk, "accepted")]
    assert told(carol, streams[carol][1]) == [("challenge_received", pk, "pending")]  # still yours to answer

    services.challenge_decline(challenge_id=pk, player=carol)
    for user, answer in ((alice, None), (bob, "accepted"), (carol, "declined")):
        assert told(user, streams[user][1]) == [("challenge_declined", pk, answer)]
        assert told(user, streams[user][1]) == []  # done: sent once
    # a new stream's snapshot no longer holds it
    assert account_feeds.snapshot(bob)[0]["challenges"] == []


def test_started_expired_and_cancelled_are_told(make_player):
    alice, bob = make_player("alice"), make_player("bob")
    _, state = account_feeds.snapshot(bob)
    started = services.challenge_create(creator=alice, invitees=["bob"], ruleset=QUICK)
    cancelled = services.challenge_create(creator=alice, invitees=["bob"], ruleset=QUICK)
    expired = services.challenge_create(creator=alice, invitees=["bob"], ruleset=QUICK)
    told(bob, state)
    services.challenge_accept(challenge_id=started.pk, player=bob)
    services.challenge_cancel(challenge_id=cancelled.pk, by=alice)
    services.challenges_expire(now=timezone.now() + timedelta(hours=1))
    events = dict((pk, event) for event, pk, _ in told(bob, state))
    assert events == {
        started.pk: "challenge_started",
        cancelled.pk: "challenge_cancelled",
        expired.pk: "challenge_expired",
    }
    started.refresh_from_db()
    data = selectors.feed_items(bob, [str(started.pk)], None)
    assert [item.data["game"] for item in data if item.key == str(started.pk)] == [started.game_id]


def test_a_feed_read_is_one_query_however_many_challenges(make_player):
    alice = make_player("alice")
    invitees = [make_player(f"p{n}") for n in range(4)]
    for n in range(12):
        services.challenge_create(creator=alice, invitees=[invitees[n % 4].username, invitees[(n + 1) % 4].username])
    Challenge.objects.filter(pk__in=Challenge.objects.values("pk")[:3]).update(status="declined")
    keys = [str(pk) for pk in Challenge.objects.values_list("pk", flat=True)]
    for user in (alice, invitees[0]):
        with CaptureQueriesContext(connection) as queries:
            items = selectors.feed_items(user, keys, timezone.now() - timedelta(minutes=1))
        assert len(queries) == 1, [q["sql"] for q in queries]
        assert items
    assert len(selectors.feed_items(alice, keys, None)) == 12
    assert len(selectors.feed_items(alice, [], None)) == 9  # pending only
