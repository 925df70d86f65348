"""Real Celery worker processes for integration tests.

A worker runs as a child process with the test database (``DATABASE_URL`` of the
database pytest-django created) and a dedicated Redis database as its broker; the
test process sends its tasks to the same Redis (``use_broker``). Nothing is
eager: tasks cross a real broker into a real worker.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from core.processes import ChildExited, NotReady, celery_command, kill_group, spawn, stop_group, wait_until

#: The marks of a test module whose tests run real worker processes on the real
#: PostgreSQL test database and Redis (``pytestmark = WITH_WORKERS``).
WITH_WORKERS = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_SECONDS = 30


def session_database_url(application_name: str = "") -> str:
    """The URL of the database this test session runs on (the ``test_`` one);
    ``application_name`` names the process's sessions in ``pg_stat_activity``."""
    s = connection.settings_dict
    host = s.get("HOST") or "127.0.0.1"
    port = s.get("PORT") or 5432
    user = s.get("USER") or "postgres"
    auth = f"{user}:{s['PASSWORD']}@" if s.get("PASSWORD") else f"{user}@"
    query = f"?application_name={application_name}" if application_name else ""
    return f"postgres://{auth}{host}:{port}/{s['NAME']}{query}"


class Worker:
    """One ``celery worker`` child process (optionally with the beat schedule).

    Its database sessions are named ``name`` (``pg_stat_activity.application_name``),
    so a test can see what it is waiting for."""

    def __init__(self, broker_url: str, log_path: Path, *, queue: str, beat: bool = False, name: str = "w1") -> None:
        self.log_path = log_path
        self.name = name
        self.queue = queue
        env = {
            **os.environ,
            "DATABASE_URL": session_database_url(application_name=name),
            "REDIS_URL": broker_url,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SWEEP_INTERVAL_SECONDS": "1",
            "WORKER_HEARTBEAT_SECONDS": "0.5",
            "CELERY_QUEUE": queue,
        }
        env.pop("CELERY_BROKER_URL", None)
        args = celery_command("worker", "-n", f"{name}@%h", log_level="info")
        if beat:
            args += ["-B", "-s", str(log_path.with_suffix(".beat"))]
        self.process = spawn(args, cwd=ROOT, env=env, log=log_path)
        self._wait_ready()

    def _wait_ready(self) -> None:
        try:
            wait_until(
                lambda: " ready." in self.log(), process=self.process, timeout=READY_TIMEOUT_SECONDS, interval=0.05
            )
        except ChildExited:
            raise RuntimeError(f"the worker exited at start-up:\n{self.log()}") from None
        except NotReady:
            raise RuntimeError(f"the worker was not ready within {READY_TIMEOUT_SECONDS} s:\n{self.log()}") from None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the whole process group, as a crash would: nothing acknowledged."""
        kill_group(self.process)

    def stop(self) -> None:
        stop_group(self.process, timeout=15)


def _reset_connections(app: Any) -> None:
    """Forget pooled connections so the next send opens one to the new broker."""
    app._pool = None
    app.amqp._producer_pool = None


@contextmanager
def use_broker(url: str, queue: str | None = None) -> Iterator[None]:
    """Send this process's tasks to ``url`` (a real Redis), on ``queue``, for the duration."""
    from config.celery import app

    previous = (app.conf.broker_write_url, app.conf.broker_read_url, app.conf.task_default_queue)
    app.conf.update(broker_write_url=url, broker_read_url=url, task_default_queue=queue or previous[2])
    _reset_connections(app)
    try:
        yield
    finally:
        app.conf.update(broker_write_url=previous[0], broker_read_url=previous[1], task_default_queue=previous[2])
        _reset_connections(app)


def wait_for(
    condition: Callable[[], Any],
    timeout: float,
    interval: float = 0.05,
    what: str = "condition",
    explain: Callable[[], str] | None = None,
) -> Any:
    """Poll ``condition`` until it is truthy (and return it) or ``timeout`` passes;
    ``explain`` adds what the failure message should show (logs, state)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}" + (f"\n{explain()}" if explain else ""))
