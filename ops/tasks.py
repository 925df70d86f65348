"""Periodic upkeep, run by beat through the workers."""

from __future__ import annotations

from celery import shared_task

from core import limits, metrics
from live import clock as turn_clock
from live import dispatch
from ops import heartbeats
from ops.models import HeartbeatKind

SWEEP = "sweep"
CLOCK = "clock"


@shared_task(name="ops.sweep", ignore_result=True)
def sweep() -> int:
    """Re-send the work of every game whose bot is late (a lost task, a restarted
    broker, a killed worker) or whose turn clock is well past due (the clock is not
    running), drop the rate counters of past windows, and say the sweep ran.
    Returns how many tasks it sent."""
    sent = dispatch.resend_overdue()
    limits.forget_expired()
    heartbeats.record(kind=HeartbeatKind.SWEEP, name=SWEEP, sent=sent)
    return sent


@shared_task(name="ops.clock", ignore_result=True)
def clock() -> int:
    """The turn clock (``live.clock``): play every timeout that is due, and say the
    clock ran (the health report's ``clock`` check). Returns how many it played."""
    run = turn_clock.fire_due()
    metrics.TURN_CLOCK_RUNS.inc()
    if not run.busy:
        heartbeats.record(
            kind=HeartbeatKind.CLOCK,
            name=CLOCK,
            due=run.due,
            fired=run.fired,
            failed=run.failed,
            latest_lateness=run.latest_lateness,
        )
    return run.fired
