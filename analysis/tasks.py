"""The analysis task: on the analysis queue (``settings.ANALYSIS_QUEUE``), never the
bots' and clocks' default queue."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from analysis import services


@shared_task(
    name=services.ANALYSE_TASK,
    ignore_result=True,
    time_limit=settings.ANALYSIS_TIME_LIMIT,
    soft_time_limit=settings.ANALYSIS_TIME_LIMIT - 10,
)
def analyse(analysis_id: int) -> None:
    """Judge every decision of the analysis's seat (``analysis.services.analysis_run``)."""
    services.analysis_run(analysis_id=analysis_id)
