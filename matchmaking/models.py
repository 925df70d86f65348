"""Quick play's seeks (persistence only: behaviour is in ``services``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class SeekStatus(models.TextChoices):
    WAITING = "waiting", "waiting"
    MATCHED = "matched", "matched"
    EXPIRED = "expired", "expired"
    CANCELLED = "cancelled", "cancelled"


class OnTimeout(models.TextChoices):
    BOTS = "bots", "fill the empty seats with server bots"
    EXPIRE = "expire", "expire"


class SeekEndReason(models.TextChoices):
    """Why a seek ended the way it did (blank while it waits)."""

    PLAYERS = "players", "matched with other seeks"
    BOTS = "bots", "the wait ran out: server bots took the empty seats"
    TIMEOUT = "timeout", "the wait ran out"
    BY_PLAYER = "by_player", "cancelled by the player"
    BY_MODERATOR = "by_moderator", "cancelled by a moderator"
    SEATED_ELSEWHERE = "seated_elsewhere", "the player took a seat elsewhere"
    SUSPENDED = "suspended", "the account was suspended"
    FAILED = "failed", "the table could not be set up"


class Seek(models.Model):
    """One account asking for a game: who, how many players, which preset, rated or
    not, which clock; how long to wait and what then."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="seeks")
    players = models.PositiveSmallIntegerField(help_text="Seats at the table, the seeker's included.")
    preset = models.CharField(max_length=32, help_text="The ruleset's name (matchmaking.presets).")
    rated = models.BooleanField(default=False)
    turn_time_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Seconds per turn, or none.")
    wait_seconds = models.PositiveIntegerField(help_text="How long to wait for other players.")
    on_timeout = models.CharField(max_length=8, choices=OnTimeout.choices, default=OnTimeout.BOTS)
    bot_level = models.CharField(max_length=32, help_text="The server bots' strategy, for the fill and the table.")
    rating = models.FloatField(default=0.0, help_text="The seeker's rating for this table size when seeking.")
    status = models.CharField(max_length=16, choices=SeekStatus.choices, default=SeekStatus.WAITING)
    reason = models.CharField(max_length=16, choices=SeekEndReason.choices, blank=True)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(db_index=True)
    updated_at = models.DateTimeField()
    matched_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(help_text="created_at + wait_seconds: then bots, or the seek expires.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="waiting"), name="matchmaking_one_waiting_seek_per_user"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"], name="matchmaking_seek_queue"),
            models.Index(fields=["user", "updated_at"], name="matchmaking_seek_user_changes"),
        ]

    def __str__(self) -> str:
        return f"seek {self.pk} of {self.user_id} ({self.status})"


class MatcherLock(models.Model):
    """One row: the matcher locks it (by writing it) for each decision, so one
    matcher decides at a time, on PostgreSQL as on SQLite (where a write takes the
    database's one write lock)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    last_run_at = models.DateTimeField(null=True, blank=True, help_text="When the matcher last decided something.")

    class Meta:
        default_permissions = ()

    def __str__(self) -> str:
        return f"matcher lock (last run {self.last_run_at})"
