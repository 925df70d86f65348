"""An analysis of one seat of one finished game: made once, shared by everyone who asks."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    DONE = "done", "done"
    FAILED = "failed", "failed"


class Analysis(models.Model):
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="analyses")
    seat = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The account whose budget paid for it (the first to ask).",
    )
    watchers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="+", blank=True, help_text="Told of its progress on the account stream."
    )
    done = models.PositiveIntegerField(default=0, help_text="Decisions judged so far.")
    total = models.PositiveIntegerField(null=True, blank=True, help_text="Decisions to judge (known once it runs).")
    result = models.JSONField(null=True, blank=True)
    cpu_seconds = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="analysis_unique_game_seat")]
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"analysis of seat {self.seat} of game {self.game_id} ({self.status})"
