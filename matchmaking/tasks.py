"""Celery tasks of quick play: the matcher."""

from __future__ import annotations

from celery import shared_task

from matchmaking import services


@shared_task(name="matchmaking.match", ignore_result=True)
def match() -> int:
    """Match waiting seeks, and fill or expire those whose wait ran out (sent after
    each new seek and at its deadline, and by beat every few seconds: everything it
    needs is in the database). Returns how many games it opened."""
    return len(services.seeks_match().games)
