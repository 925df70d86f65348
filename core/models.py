"""Rate counters kept in the database, for the limits that guard accounts."""

from __future__ import annotations

from django.db import models


class RateCounter(models.Model):
    """How many times ``key`` was counted in one window of a limit (``core.limits``).
    Incremented atomically (an upsert); rows of past windows are deleted by the sweep."""

    key = models.CharField(max_length=200)
    period = models.BigIntegerField(help_text="Which window: its start in seconds divided by its length.")
    count = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "period"], name="core_ratecounter_key_period")]

    def __str__(self) -> str:
        return f"{self.key} #{self.period}: {self.count}"
