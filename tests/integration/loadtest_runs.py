"""What the ``manage.py loadtest`` tests share (``test_loadtest.py``,
``test_loadtest_versus.py``): a brief run on servers the tool spawns itself, and a
made-up report for the arithmetic of comparisons."""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

import pytest
from django.core.management import call_command

from core.processes import free_port
from tests.integration.workers import session_database_url
from tools.loadtest.options import Options
from tools.loadtest.report import CpuFigures, Report


def spawned_run(
    monkeypatch: pytest.MonkeyPatch, redis_url: str, *, queue: str | None = None, **options: Any
) -> list[str]:
    """``manage.py loadtest --spawn`` (gunicorn and a Celery worker on the test
    database, Redis at ``redis_url``), briefly: two clients, 1.5 s after 0.5 s of
    warm-up, once; ``options`` add to or replace those. The lines it printed."""
    monkeypatch.setenv("DATABASE_URL", session_database_url())
    monkeypatch.setenv("REDIS_URL", redis_url)
    if queue is not None:
        monkeypatch.setenv("CELERY_QUEUE", queue)
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)  # the tests' memory://: the worker would hear nothing
    out = io.StringIO()
    brief = {"web_workers": 1, "clients": 2, "duration": 1.5, "warmup": 0.5, "repeat": 1, "seed": 1}
    call_command(
        "loadtest",
        spawn=True,
        url=f"http://127.0.0.1:{free_port()}",
        **{**brief, **options},
        stdout=out,
        stderr=io.StringIO(),
    )
    return out.getvalue().strip().splitlines()


def made_up_report(moves_per_second: float, latencies: list[float], web_ms: float) -> Report:
    """A 10 s run's report with these figures (``web_ms`` of web CPU per move)."""
    report = Report(Options(), 10.0, latencies, round(moves_per_second * 10), 0, 0, Counter(), 0, 0)
    moves = report.moves
    split = {"web": web_ms * moves / 1000, "worker": 0.0, "pg": moves / 1000, "pg-bg": 0.0, "redis": 0.0}
    report.cpu_figures = CpuFigures(10.0, 1.9, 0.1, moves, None, split)
    return report
