"""Periodic moderation upkeep, run by beat through the workers (also in ``manage.py serve``)."""

from __future__ import annotations

from celery import shared_task

from moderation import services


@shared_task(name="moderation.sanctions_expire", ignore_result=True)
def sanctions_expire() -> int:
    """Lift the suspensions and mutes whose end has come; how many."""
    return len(services.sanctions_expire())
