"""Celery tasks of quick play: the matcher."""

from __future__ import annotations

from celery import shared_task

from matchmaking import services

#: A run starts no decision after this long: well within the task's soft time limit
#: (CELERY_TASK_SOFT_TIME_LIMIT, 20 s), which would cut a decision short (it rolls
#: back); the next run - sent with every seek, and by beat - goes on.
BUDGET_SECONDS = 8.0


@shared_task(name="matchmaking.match", ignore_result=True)
def match() -> int:
    """Match waiting seeks, and fill or expire those whose wait ran out (sent after
    new seeks - coalesced, ``services.match_soon`` - and at their deadlines, and by beat
    every few seconds: everything it needs is in the database). Returns how many
    games it opened."""
    services.match_due_clear()  # before reading: a seek committed from now on sends a task again
    return len(services.seeks_match(budget_seconds=BUDGET_SECONDS).games)
