"""The turn clock: due deadlines read from the database and played, a few times a second.

A move that sets a turn deadline sends nothing: ``games.Game.turn_deadline``
(indexed) is the clock. Beat sends ``ops.clock`` every ``CLOCK_INTERVAL_SECONDS``
(one beat at a time, ``ops.beat``); the worker that takes it runs ``fire_due``,
one indexed query for the running games whose deadline has passed (almost always
none), and plays each one's timeout (``games.services.turn_timeout``: it re-locks
the game and checks the seq, so a clock fired twice moves once). On PostgreSQL a
session advisory lock lets one run at a time fire: a run that finds another still
busy (a long batch, a second worker) returns at once and leaves the games to it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.utils import timezone

from core import metrics
from games import services
from games.models import Game, GameStatus

log = logging.getLogger(__name__)

#: The most timeouts one run plays (the oldest first); the next run takes the rest.
BATCH = 200
#: The key of the advisory lock one clock run holds while it fires (PostgreSQL).
LOCK_KEY = 0x43_46_43_4C  # "CFCL"


@dataclass(frozen=True)
class ClockRun:
    """What one run of the clock did: ``due`` deadlines found, ``fired`` timeouts
    played, ``failed`` that raised (logged), ``busy`` another run held the lock,
    ``latest_lateness``: seconds past its deadline of the last timeout played."""

    due: int = 0
    fired: int = 0
    failed: int = 0
    busy: bool = False
    latest_lateness: float | None = None


def due_clocks(*, now: datetime | None = None, limit: int = BATCH) -> list[tuple[int, int, datetime]]:
    """(game id, seq, deadline) of the running games whose turn deadline has passed,
    the oldest first: one query on the deadline's index."""
    now = now or timezone.now()
    rows = (
        Game.objects.filter(status=GameStatus.RUNNING, turn_deadline__lte=now)
        .order_by("turn_deadline")
        .values_list("id", "seq", "turn_deadline")[:limit]
    )
    return [(game_id, seq, deadline) for game_id, seq, deadline in rows if deadline is not None]


def fire_due(*, limit: int = BATCH) -> ClockRun:
    """Play the timeout of every running game whose turn deadline has passed (at
    most ``limit``). A game whose timeout raises is logged with the reason and
    counted; the others are still played, and it is tried again next run."""
    locked = _lock()
    if locked is False:
        return ClockRun(busy=True)
    try:
        due = due_clocks(limit=limit)
        fired = failed = 0
        lateness: float | None = None
        for game_id, seq, deadline in due:
            try:
                result = services.turn_timeout(game_id=game_id, expected_seq=seq)
            except Exception:
                failed += 1
                metrics.TURN_CLOCK_FAILURES.inc()
                log.exception("turn clock: the timeout of game %s at seq %s failed", game_id, seq)
                continue
            if result is not None:
                fired += 1
                lateness = (timezone.now() - deadline).total_seconds()
        return ClockRun(due=len(due), fired=fired, failed=failed, latest_lateness=lateness)
    finally:
        _unlock(locked)


def _lock() -> bool | None:
    """Take the clock's advisory lock (PostgreSQL): False if another run holds it;
    None where there is none to take (SQLite: one worker)."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY])
        row = cursor.fetchone()
    return bool(row and row[0])


def _unlock(locked: bool | None) -> None:
    if locked:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [LOCK_KEY])
