"""Mutes and suspensions on the account stream (``GET /me/stream/``,
``live.account_feeds``): the snapshot holds the account's sanctions in force; a new
one is a ``sanction_imposed`` frame, an appeal filed or answered while it holds a
``sanction_appealed`` frame, and its end (lifted by a moderator, by an appeal, or
ended by itself) a ``sanction_lifted`` frame. Each carries the sanction as
``GET /me/sanctions/`` shows it: its reason, its end, the appeal and its answer.

A suspension closes the account's streams (its credentials are no good any more):
the stream's last frame before it closes is the ``sanction_imposed`` of the
suspension (``live.streams``: a feed marked ``farewell`` is still read then), so
an open page learns why. Warnings are ``moderation.feeds``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db.models import Q

from live.account_feeds import AccountFeed, FeedItem
from moderation.models import Sanction
from moderation.serializers import SanctionOutput

EVENTS = {
    "sanction_imposed": "a moderator muted or suspended you (`kind`, `reason`, `ends_at`: null until lifted)",
    "sanction_appealed": "your appeal against a sanction in force was received or answered (`appeal`)",
    "sanction_lifted": "a sanction ended: lifted by a moderator or an appeal, or its time was up (`lifted_at`)",
}


def _event(sanction: Sanction) -> tuple[str, str]:
    """(event, version) of a sanction as it is now."""
    if sanction.lifted_at is not None:
        return "sanction_lifted", "lifted"
    appeal = sanction.appeal_or_none
    if appeal is None:
        return "sanction_imposed", "new"
    return "sanction_appealed", f"appeal-{appeal.status}"


def sanction_items(user: Any, keys: Sequence[str], since: datetime | None) -> list[FeedItem]:
    """Sanctions in force, those the stream knows, and those imposed, appealed,
    answered or lifted since ``since``."""
    shown = Q(lifted_at__isnull=True) | Q(pk__in=[int(k) for k in keys])
    if since is not None:
        shown |= (
            Q(starts_at__gte=since)
            | Q(lifted_at__gte=since)
            | Q(appeal__created_at__gte=since)
            | Q(appeal__answered_at__gte=since)
        )
    rows = (
        Sanction.objects.filter(shown, player_id=user.pk)
        .select_related("appeal")
        .order_by("starts_at", "id")
        .distinct()
    )
    items = []
    for sanction in rows:
        event, version = _event(sanction)
        items.append(
            FeedItem(
                key=str(sanction.pk),
                version=version,
                event=event,
                data=SanctionOutput(sanction).data,
                done=sanction.lifted_at is not None,
            )
        )
    return items


SANCTION_FEED = AccountFeed(
    name="sanctions",
    items=sanction_items,
    serializer=SanctionOutput,
    component="Sanction",
    events=EVENTS,
    description="Your mutes and suspensions in force, with their reason, end and appeal.",
    order=31,
    farewell=True,
)
