"""Beat's upkeep of challenges."""

from __future__ import annotations

from celery import shared_task

from challenges import services


@shared_task(name="challenges.expire", ignore_result=True)
def expire_challenges() -> int:
    """Expire the pending challenges whose time is up; how many did."""
    return services.challenges_expire()
