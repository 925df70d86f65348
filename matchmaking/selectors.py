"""Read queries about seeks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from core.errors import CoreCode
from core.metrics import PREFIX
from matchmaking.errors import SeekError
from matchmaking.models import Seek, SeekStatus
from players.models import User


def seek_list(*, user: User, status: str | None = None) -> QuerySet[Seek]:
    """``user``'s seeks, newest first."""
    seeks = Seek.objects.filter(user=user).order_by("-created_at", "-id")
    return seeks.filter(status=status) if status else seeks


def seek_get(*, seek_id: int, user: User) -> Seek:
    """One of ``user``'s seeks (another's is ``not_found``: nobody learns it exists)."""
    seek = Seek.objects.filter(pk=seek_id, user=user).first()
    if seek is None:
        raise SeekError(CoreCode.NOT_FOUND, gettext("You have no seek %(seek_id)s.") % {"seek_id": seek_id})
    return seek


def seek_feed(*, user: User, keys: Sequence[str], since: datetime | None) -> list[Seek]:
    """For the account stream: ``user``'s waiting seeks, those named by ``keys`` and
    those changed since ``since`` - one query, on the waiting seek's unique index,
    the (user, updated_at) index and the primary key."""
    wanted = Q(status=SeekStatus.WAITING) | Q(pk__in=[int(k) for k in keys if k.isdigit()])
    if since is not None:
        wanted |= Q(updated_at__gte=since)
    return list(Seek.objects.filter(wanted, user=user).order_by("created_at", "id"))


def seeks_waiting_gauge() -> Iterator[Any]:
    """``chickenfoot_seeks_waiting``: quick play's seeks waiting now (read when /metrics is scraped)."""
    from prometheus_client.core import GaugeMetricFamily

    waiting = Seek.objects.filter(status=SeekStatus.WAITING).count()
    yield GaugeMetricFamily(f"{PREFIX}seeks_waiting", "Quick play's seeks waiting for a table.", value=float(waiting))
