"""Seeks on the account stream (``GET /me/stream/``, ``live.account_feeds``): the
snapshot holds the account's waiting seek; each change of a seek is a frame -
``seek_waiting``, then ``seek_matched`` (with its ``game``), ``seek_expired`` or
``seek_cancelled``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from live.account_feeds import AccountFeed, FeedItem
from matchmaking import selectors
from matchmaking.models import SeekStatus
from matchmaking.serializers import SeekOutput, seek_output

EVENTS = {
    "seek_waiting": "your seek is waiting for players",
    "seek_matched": "your seek found a table (`game`), and the game has started",
    "seek_expired": "your seek's wait ran out without a table (you chose `on_timeout: expire`)",
    "seek_cancelled": "your seek was cancelled (`reason` says by whom or why)",
}


def seek_items(user: Any, keys: Sequence[str], since: datetime | None) -> list[FeedItem]:
    return [
        FeedItem(
            key=str(seek.pk),
            version=f"{seek.status}@{seek.updated_at.isoformat()}",
            event=f"seek_{seek.status}",
            data=seek_output(seek),
            done=seek.status != SeekStatus.WAITING,
        )
        for seek in selectors.seek_feed(user=user, keys=keys, since=since)
    ]


SEEK_FEED = AccountFeed(
    name="seeks",
    items=seek_items,
    serializer=SeekOutput,
    component="Seek",
    events=EVENTS,
    description="Your quick-play seeks that are still waiting.",
    order=10,
)
