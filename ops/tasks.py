"""Periodic upkeep, run by beat through the workers."""

from __future__ import annotations

from celery import shared_task

from core import limits
from live import dispatch
from ops import heartbeats
from ops.models import HeartbeatKind

SWEEP = "sweep"


@shared_task(name="ops.sweep", ignore_result=True)
def sweep() -> int:
    """Re-send the work of every game whose turn clock ran out or whose bot is late
    (a lost task, a restarted broker, a killed worker), drop the rate counters of
    past windows, and say the sweep ran. Returns how many tasks it sent."""
    sent = dispatch.resend_overdue()
    limits.forget_expired()
    heartbeats.record(kind=HeartbeatKind.SWEEP, name=SWEEP, sent=sent)
    return sent
