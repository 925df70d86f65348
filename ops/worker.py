"""What every Celery worker does besides running tasks (a consumer bootstep,
added to the app in ``config/celery.py``).

* Each time the worker starts - and each time it reconnects to the broker after
  losing it - it re-sends every pending bot turn and turn clock
  (``live.dispatch.resend_pending``). A task lost with a killed worker or a
  restarted broker therefore costs nothing more than the restart, with or without
  beat running. (A reconnecting worker has also dropped the timed tasks it held:
  Celery clears them with the old connection.)
* While connected, it records a heartbeat every ``WORKER_HEARTBEAT_SECONDS``
  (``ops.models.Heartbeat``), which the health endpoint reads. A worker that is
  dead, stuck, or cut off from its broker stops beating.
* It tries to reconnect to a lost broker every few seconds (``Consumer``):
  Celery's own back-off grows to 30 s between attempts, so bots could sit idle
  for half a minute after Redis was back.
"""

from __future__ import annotations

import functools
import logging
import os
from datetime import datetime
from typing import Any

from celery import bootsteps
from celery.worker.consumer import Consumer as CeleryConsumer

log = logging.getLogger(__name__)


#: Seconds between attempts to reach a lost broker: 1, 2, 3, then every 3.
RECONNECT_INTERVALS = {"interval_start": 1, "interval_step": 1, "interval_max": 3}


class Consumer(CeleryConsumer):
    """Celery's consumer (``worker_consumer`` in the settings), reconnecting sooner."""

    def connection_for_read(self, heartbeat: float | None = None) -> Any:
        connection: Any = self.app.connection_for_read(heartbeat=heartbeat)  # its method is replaced below
        # Celery passes no intervals to kombu's ensure_connection (2, 4, 6 ... 30 s).
        connection.ensure_connection = functools.partial(connection.ensure_connection, **RECONNECT_INTERVALS)
        return self.ensure_connected(connection)


def worker_name(hostname: str) -> str:
    return f"worker:{hostname}"


class Recovery(bootsteps.StartStopStep):
    requires = ("celery.worker.consumer.tasks:Tasks",)
    label = "Recovery"

    def __init__(self, consumer: Any, **kwargs: Any) -> None:
        super().__init__(consumer, **kwargs)
        self._timer: Any = None
        self._started_at: datetime | None = None
        self._connections = 0

    def start(self, consumer: Any) -> None:
        from django.conf import settings
        from django.utils import timezone

        from live import dispatch

        self._connections += 1
        if self._started_at is None:
            self._started_at = timezone.now()
        try:
            sent = dispatch.resend_pending()
        except Exception:  # the database is away: the sweep, or the next reconnection, tries again
            log.exception("worker: could not re-send the pending turns")
        else:
            log.info(
                "worker: %s; re-sent %d pending turn(s)",
                "started" if self._connections == 1 else "reconnected to the broker",
                sent,
            )
        self._beat(consumer)
        self._timer = consumer.timer.call_repeatedly(
            settings.WORKER_HEARTBEAT_SECONDS, self._beat, (consumer,), priority=10
        )

    def stop(self, consumer: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def shutdown(self, consumer: Any) -> None:
        self.stop(consumer)
        try:
            from ops import heartbeats

            heartbeats.forget(worker_name(consumer.hostname))
        except Exception:
            log.warning("worker: could not remove its heartbeat on shutdown", exc_info=True)

    def _beat(self, consumer: Any) -> None:
        from django.db import close_old_connections, connection

        from ops import heartbeats
        from ops.models import HeartbeatKind

        try:
            close_old_connections()
            heartbeats.record(
                kind=HeartbeatKind.WORKER,
                name=worker_name(consumer.hostname),
                started_at=self._started_at,
                pid=os.getpid(),
                connections=self._connections,
            )
        except Exception as error:  # the database is away: say so, keep running
            log.warning("worker: could not record its heartbeat (%s)", error)
            connection.close()
