"""The parts of the account stream (``GET /me/stream/``) that other apps bring:
quick play's seeks, challenges ... - the apps built on games, which games may not
import. Such an app registers a feed when it starts (``AppConfig.ready``)::

    account_feeds.register(AccountFeed(
        name="seeks",                    # its key in the snapshot
        items=seek_items,                # (user, keys, since) -> list[FeedItem]; reads the database
        serializer=SeekOutput,           # what an item's data is (an output serializer) ...
        component="Seek",                # ... and its component's name in openapi.yaml
        events={"seek_matched": "Your seek found a table: `game` is set.", ...},
        description="Your seeks that are still waiting.",
    ))

and, after each commit that changes an item, wakes the accounts concerned with
``notify(user_ids)``. The stream then asks every feed for the account's items - its
current ones and those with the ``keys`` it already knows, whatever their state -
and those changed since ``since`` (a little before its last read: a seek made and
matched between two reads is still told) - and sends, as an ``event:
<FeedItem.event>`` frame, each item whose ``version`` it has not sent; a ``done``
item is sent once and then only remembered as sent. The snapshot holds every
feed's current items (``items(user, (), None)``, those not done) under its
``name``; what finished within ``OVERLAP`` before the stream opened follows it as
changes (a client that reconnects learns an outcome it may have missed). Like the
games part, a feed is a view of the database: a lost notice is
made good by the stream's poll, and a reconnecting client gets a new snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from rest_framework import serializers

from core import notify
from core.notify import user_channel


@dataclass(frozen=True)
class FeedItem:
    """One thing a feed shows an account: ``key`` names it within the feed,
    ``version`` changes whenever it does (e.g. its status and update time), ``event``
    is the frame's event name for this version, ``data`` its payload (the feed's
    serializer's output); ``done``: it will not change again (sent once, then dropped)."""

    key: str
    version: str
    event: str
    data: dict[str, Any]
    done: bool = False


@dataclass(frozen=True)
class AccountFeed:
    name: str
    items: Callable[[Any, Sequence[str], datetime | None], list[FeedItem]]
    serializer: type[serializers.Serializer]
    component: str
    events: dict[str, str]  # event name -> what it means
    description: str
    order: int = field(default=0)
    # A feed every account shares (the lobby's open tables) is read when a notice
    # carrying ``notice_key`` woke the stream, at the first read, and else at most
    # every ``min_interval`` seconds - not at every read of every stream.
    notice_key: str | None = None
    min_interval: float = 0.0
    # Read once more when the stream's credentials fail (a suspension): its changes
    # are the stream's last frames, so an open client learns why it was closed.
    farewell: bool = False


_FEEDS: dict[str, AccountFeed] = {}
# The names the games part of the stream uses: a feed may not take them.
RESERVED = frozenset({"games", "snapshot", "your_turn", "game_started", "game_over"})


def register(feed: AccountFeed) -> None:
    """Add ``feed`` to every account stream (once per name; registering the same
    name again replaces it, so a reloaded app does not add it twice)."""
    clash = ({feed.name} | set(feed.events)) & RESERVED
    if clash:
        raise ValueError(f"account feed {feed.name!r} uses names the stream keeps: {sorted(clash)}")
    for other in _FEEDS.values():
        if other.name != feed.name and set(other.events) & set(feed.events):
            raise ValueError(f"account feeds {other.name!r} and {feed.name!r} share event names")
    _FEEDS[feed.name] = feed


def feeds() -> list[AccountFeed]:
    return sorted(_FEEDS.values(), key=lambda f: (f.order, f.name))


def notify_accounts(user_ids: Iterable[int]) -> None:
    """Wake the account streams of ``user_ids`` when the current transaction commits
    (at once outside one): something in a feed changed for them."""
    channels = [user_channel(u) for u in sorted(set(user_ids))]
    if channels:
        transaction.on_commit(lambda: notify.publish(channels, {"feed": True}))


# -- what the stream does with them (live.streams) ---------------------------------

#: How far before its last read a stream asks for changed items: more than the
#: clocks of two servers (or a commit's delay) may disagree by. Versions already
#: sent are not sent again, so the overlap costs a few rows, not frames.
OVERLAP = timedelta(seconds=60)


@dataclass
class FeedState:
    """What one account stream has sent of the feeds."""

    known: dict[str, dict[str, str]] = field(default_factory=dict)  # feed -> key -> version (not done)
    finished: set[tuple[str, str]] = field(default_factory=set)  # (feed, key) sent as done
    read_at: datetime | None = None
    feed_read_at: dict[str, datetime] = field(default_factory=dict)  # feeds with a min_interval


def snapshot(user: Any) -> tuple[dict[str, list[dict[str, Any]]], FeedState]:
    """Every feed's current items for the snapshot, and what the stream then knows."""
    state = FeedState(read_at=timezone.now())
    shown: dict[str, list[dict[str, Any]]] = {}
    for feed in feeds():
        items = [item for item in feed.items(user, (), None) if not item.done]
        shown[feed.name] = [item.data for item in items]
        state.known[feed.name] = {item.key: item.version for item in items}
    return shown, state


def changes(
    user: Any, state: FeedState, woken_by: frozenset[str] = frozenset(), *, farewell: bool = False
) -> list[tuple[str, dict[str, Any], str]]:
    """What changed since the last read (``state`` is updated): (event, data, event
    id) per changed item, in feed order. ``woken_by``: the ``notice_key`` of the
    notices that woke the stream (a feed with a ``min_interval`` reads then).
    ``farewell``: only the feeds marked so (the stream's credentials just failed)."""
    now = timezone.now()
    since = None if state.read_at is None else state.read_at - OVERLAP
    out = []
    for feed in feeds():
        if farewell and not feed.farewell:
            continue
        if feed.min_interval:
            last = state.feed_read_at.get(feed.name)
            due = last is None or (now - last).total_seconds() >= feed.min_interval
            if not due and feed.notice_key not in woken_by:
                continue
            state.feed_read_at[feed.name] = now
        seen = state.known.setdefault(feed.name, {})
        for item in feed.items(user, list(seen), since):
            if seen.get(item.key) == item.version or (feed.name, item.key) in state.finished:
                continue
            out.append((item.event, item.data, f"{feed.name}.{item.key}.{item.version}"))
            if item.done:
                seen.pop(item.key, None)
                state.finished.add((feed.name, item.key))
            else:
                seen[item.key] = item.version
    state.read_at = now
    return out
