"""The bare write's tables: one row per load-test client (``BareTable``, ~2 KB of
JSON, like a game's state) and a row inserted per write (``BareMove``).

``app_label`` is explicit so that importing this module under the project's own
settings (which do not install the app) never files the models under ``tools``.
The owner is a foreign key without a database constraint: a test database's
flush truncates the users' table without knowing these tables. The managers are
spelled out for mypy, whose Django plugin reads the project's settings, where
this app is not installed."""

from __future__ import annotations

from django.conf import settings
from django.db import models

TILES_IN_LAYOUT = 240  # about 2 KB of JSON in all (``initial_state``)


def initial_state() -> dict[str, object]:
    """~2 KB of JSON shaped like a game's state (hands, layout, ends, totals)."""
    tiles = [f"{high}-{low}" for high in range(10) for low in range(high + 1)]
    return {
        "round": 1,
        "turn": 0,
        "hands": [tiles[:7], tiles[7:14]],
        "layout": [tiles[i % len(tiles)] for i in range(TILES_IN_LAYOUT)],
        "open_ends": [{"id": f"e{i}", "pip": i % 10, "playable": True} for i in range(4)],
        "boneyard_size": 41,
        "totals": [0, 0],
    }


class BareTable(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    seq = models.PositiveIntegerField(default=0)
    state = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    objects: models.Manager[BareTable] = models.Manager()

    class Meta:
        app_label = "loadtest_bare"

    def __str__(self) -> str:
        return f"bare table {self.pk} at seq {self.seq}"


class BareMove(models.Model):
    table = models.ForeignKey(BareTable, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField()
    tile = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)

    table_id: int
    objects: models.Manager[BareMove] = models.Manager()

    class Meta:
        app_label = "loadtest_bare"

    def __str__(self) -> str:
        return f"bare move {self.seq} of table {self.table_id}"
