"""The audit trail of moderation: who did what, when, to which game or player, and
why. Rows are only ever added, by ``moderation.services``; nothing changes or
deletes them (the admin refuses both)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class AuditAction(models.TextChoices):
    GAME_ABORT = "game_abort", "game aborted"
    SEAT_TO_BOT = "seat_to_bot", "seat handed to a bot"
    SEAT_REMOVE = "seat_remove", "player removed from a seat"
    HANDS_VIEWED = "hands_viewed", "hidden hands viewed"
    PLAYER_SUSPEND = "player_suspend", "player suspended"
    PLAYER_UNSUSPEND = "player_unsuspend", "player unsuspended"
    TOKENS_REVOKE = "tokens_revoke", "API tokens revoked"
    BOT_MARK = "bot_mark", "marked as a bot"
    BOT_UNMARK = "bot_unmark", "unmarked as a bot"
    RATING_VOID = "rating_void", "rating effect voided"


class AuditEntry(models.Model):
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="audit_entries_made")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    action = models.CharField(max_length=32, choices=AuditAction.choices, db_index=True)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.PROTECT, related_name="audit_entries"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="audit_entries"
    )
    reason = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True, help_text="What the action changed, e.g. the games touched.")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "audit entry"
        verbose_name_plural = "audit entries"
        # Entries are never added, changed or deleted by hand: only "view" exists,
        # and "moderate" is what separates looking from acting in the admin.
        default_permissions = ("view",)
        permissions = [("moderate", "Can act as moderator")]

    def __str__(self) -> str:
        return f"{self.get_action_display()} by {self.moderator} at {self.created_at:%Y-%m-%d %H:%M:%S}"
