"""What the background processes last said: the record the health endpoint reads."""

from __future__ import annotations

from django.db import models


class HeartbeatKind(models.TextChoices):
    WORKER = "worker", "Celery worker"
    SWEEP = "sweep", "periodic sweep (beat)"
    CLOCK = "clock", "turn clock (beat)"
    SUPERVISOR = "supervisor", "manage.py serve"


class Heartbeat(models.Model):
    """The last sign of life of one background process. Kept in the database (not
    Redis) so that every web process can tell, with Redis up or down, whether bots
    and turn clocks are being looked after."""

    name = models.CharField(max_length=200, primary_key=True, help_text="e.g. worker:celery@host, sweep")
    kind = models.CharField(max_length=16, choices=HeartbeatKind.choices)
    seen_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["kind", "name"]

    def __str__(self) -> str:
        return f"{self.name} (seen {self.seen_at:%Y-%m-%d %H:%M:%S})"


class BeatLease(models.Model):
    """Which beat process may send the periodic tasks (``ops.beat``): one beat runs
    on each worker host, and only the holder of an unexpired lease sends. The
    holder renews it every few seconds; when its host dies the lease runs out and
    another beat takes it over."""

    name = models.CharField(max_length=64, primary_key=True)
    holder = models.CharField(max_length=200, help_text="host:pid:token of the beat that holds it")
    expires_at = models.FloatField(help_text="Seconds since 1970 by the database's clock.")

    def __str__(self) -> str:
        return f"{self.name}: {self.holder}"
