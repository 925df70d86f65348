"""The account stream's feeds (``live.account_feeds``): what a stream sends of
another app's items (quick play's seeks, challenges) and what the contract says of
them. The apps' own tests follow their items over a real stream."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework import serializers

from live import account_feeds
from live.account_feeds import AccountFeed, FeedItem
from live.schema import _stream_components


class TicketOutput(serializers.Serializer):
    id = serializers.CharField()
    status = serializers.CharField()


class Tickets:
    """A feed's items in memory: key -> (status, changed at)."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[str, datetime]] = {}
        self.calls: list[datetime | None] = []

    def set(self, key: str, status: str) -> None:
        self.rows[key] = (status, timezone.now())

    def items(self, user: Any, keys: Sequence[str], since: datetime | None) -> list[FeedItem]:
        self.calls.append(since)
        out = []
        for key, (status, at) in sorted(self.rows.items()):
            done = status in ("used", "expired")
            if done and key not in keys and (since is None or at < since):
                continue
            out.append(
                FeedItem(
                    key=key,
                    version=f"{status}@{at.isoformat()}",
                    event=f"ticket_{status}",
                    data={"id": key, "status": status},
                    done=done,
                )
            )
        return out


@pytest.fixture
def tickets(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tickets]:
    # Alone: the feeds the apps register (challenges, seeks) are put back afterwards.
    monkeypatch.setattr(account_feeds, "_FEEDS", {})
    store = Tickets()
    feed = AccountFeed(
        name="tickets",
        items=store.items,
        serializer=TicketOutput,
        component="Ticket",
        events={"ticket_new": "a new ticket", "ticket_used": "it was used", "ticket_expired": "it expired"},
        description="Your tickets.",
    )
    account_feeds.register(feed)
    yield store


def test_the_snapshot_holds_current_items_and_each_change_is_sent_once(tickets):
    tickets.set("a", "new")
    tickets.set("old", "used")  # done before the stream opened: not in the snapshot
    shown, state = account_feeds.snapshot(None)
    assert shown == {"tickets": [{"id": "a", "status": "new"}]}
    # what finished just before the stream opened follows the snapshot (a client that
    # reconnects learns an outcome it may have missed), once
    assert [(e, d["id"]) for e, d, _ in account_feeds.changes(None, state)] == [("ticket_used", "old")]
    assert account_feeds.changes(None, state) == []  # nothing changed

    tickets.set("b", "new")
    tickets.set("a", "used")
    sent = account_feeds.changes(None, state)
    assert [(event, data["id"]) for event, data, _ in sent] == [("ticket_used", "a"), ("ticket_new", "b")]
    assert all(event_id.startswith("tickets.") for *_, event_id in sent)
    assert account_feeds.changes(None, state) == []  # the overlap of "since" sends nothing twice

    # made and finished between two reads: still told, once
    tickets.set("c", "new")
    tickets.set("c", "expired")
    assert [(e, d["id"]) for e, d, _ in account_feeds.changes(None, state)] == [("ticket_expired", "c")]
    assert account_feeds.changes(None, state) == []
    # each read after the first asks for what changed since a little before the last one
    assert tickets.calls[0] is None
    assert all(
        since is not None and timezone.now() - since < account_feeds.OVERLAP + timedelta(seconds=30)
        for since in tickets.calls[1:]
    )


def test_a_feed_may_not_take_the_games_names(tickets):
    feed = account_feeds._FEEDS["tickets"]
    for clash in ({"name": "games"}, {"events": {"your_turn": "x"}}, {"name": "other"}):
        bad = AccountFeed(**{**feed.__dict__, **clash})
        with pytest.raises(ValueError):
            account_feeds.register(bad)


def test_the_contract_types_a_feeds_frames_and_its_snapshot_key(tickets):
    components = _stream_components()
    frame = components["AccountStreamTicketUpdate"]
    assert frame["properties"]["event"] == {"$ref": "#/components/schemas/AccountStreamTicketEventType"}
    assert frame["properties"]["data"]["contentSchema"] == {"$ref": "#/components/schemas/Ticket"}
    assert components["AccountStreamTicketEventType"]["enum"] == ["ticket_new", "ticket_used", "ticket_expired"]
    mapping = components["AccountStreamFrame"]["discriminator"]["mapping"]
    assert mapping["ticket_used"] == "#/components/schemas/AccountStreamTicketUpdate"
    assert mapping["your_turn"] == "#/components/schemas/AccountStreamUpdate"
    snapshot = components["AccountSnapshot"]
    assert snapshot["properties"]["tickets"]["items"] == {"$ref": "#/components/schemas/Ticket"}
    assert snapshot["required"] == ["games", "tickets"]
