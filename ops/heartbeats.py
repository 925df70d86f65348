"""Recording heartbeats (``ops.models.Heartbeat``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from ops.models import Heartbeat, HeartbeatKind


def record(*, kind: HeartbeatKind, name: str, started_at: datetime | None = None, **detail: Any) -> None:
    """``name`` is alive now; ``detail`` replaces what it said before."""
    defaults: dict[str, Any] = {"kind": kind, "seen_at": timezone.now(), "detail": detail}
    if started_at is not None:
        defaults["started_at"] = started_at
    Heartbeat.objects.update_or_create(name=name, defaults=defaults)


def forget(name: str) -> None:
    """``name`` stopped on purpose: it is no longer expected to beat."""
    Heartbeat.objects.filter(name=name).delete()
