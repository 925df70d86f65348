"""Warnings on the account stream (``GET /me/stream/``, ``live.account_feeds``): the
snapshot holds the account's unread warnings; a new one is a ``warning_issued``
frame, and one read (``POST /me/warnings/{id}/acknowledge/``, from any client of
the account) a ``warning_acknowledged`` frame."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db.models import Q

from live.account_feeds import AccountFeed, FeedItem
from moderation.models import PlayerWarning
from moderation.serializers import WarningOutput

EVENTS = {
    "warning_issued": "a moderator warned you (`text`); acknowledge it when read",
    "warning_acknowledged": "you acknowledged the warning (on this or another client)",
}


def warning_items(user: Any, keys: Sequence[str], since: datetime | None) -> list[FeedItem]:
    """Unread warnings, those the stream knows, and those issued or read since ``since``."""
    shown = Q(acknowledged_at__isnull=True) | Q(pk__in=[int(k) for k in keys])
    if since is not None:
        shown |= Q(created_at__gte=since) | Q(acknowledged_at__gte=since)
    rows = PlayerWarning.objects.filter(shown, player_id=user.pk).order_by("created_at", "id")
    return [
        FeedItem(
            key=str(w.pk),
            version="read" if w.acknowledged_at else "new",
            event="warning_acknowledged" if w.acknowledged_at else "warning_issued",
            data=WarningOutput(w).data,
            done=w.acknowledged_at is not None,
        )
        for w in rows
    ]


WARNING_FEED = AccountFeed(
    name="warnings",
    items=warning_items,
    serializer=WarningOutput,
    component="Warning",
    events=EVENTS,
    description="Your warnings from the moderators that you have not acknowledged yet.",
    order=30,
)
