"""The audit trail of moderation: who did what, when, to which game or player, and
why. Rows are only ever added, by ``moderation.services``; nothing changes or
deletes them (the admin refuses both).

Beside it, what moderation remembers about accounts: players' reports (about an
account or a game; a chat message later, see ``ReportTarget``), warnings the
player sees, timed sanctions (suspensions and mutes, lifted by beat when they
end) and moderators' notes. All of them are written by ``moderation.services``.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
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
    PLAYER_WARN = "player_warn", "player warned"
    PLAYER_MUTE = "player_mute", "player muted"
    PLAYER_UNMUTE = "player_unmute", "mute lifted"
    NOTE_ADD = "note_add", "note added"
    REPORT_ASSIGN = "report_assign", "report assigned"
    REPORT_DISMISS = "report_dismiss", "report dismissed"
    REPORT_UNASSIGN = "report_unassign", "report unassigned"
    REPORT_RESOLVE = "report_resolve", "report resolved with its group"
    REPORT_COMMENT = "report_comment", "report discussed"
    RATING_VOID = "rating_void", "rating effect voided"
    CHAT_REMOVE = "chat_remove", "chat message removed"
    APPEAL_ANSWER = "appeal_answer", "appeal answered"
    ADMIN_ADD = "admin_add", "added in the admin"
    ADMIN_CHANGE = "admin_change", "changed in the admin"
    ADMIN_DELETE = "admin_delete", "deleted in the admin"
    ADMIN_ACTION = "admin_action", "admin action"
    SECOND_FACTOR_RESET = "second_factor_reset", "second factor reset"
    # The chat's clean-up and filters (moderation.chat_cleanup).
    CHAT_RESTORE = "chat_restore", "chat message restored"
    CHAT_APPROVE = "chat_approve", "held chat message approved"
    CHAT_REJECT = "chat_reject", "held chat message rejected"
    CHAT_SHADOW_MUTE = "chat_shadow_mute", "player shadow-muted in the chat"
    CHAT_SHADOW_UNMUTE = "chat_shadow_unmute", "chat shadow-mute lifted"


class AuditEntry(models.Model):
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_entries_made",
        help_text="Empty for what the server did by itself (a sanction that ended).",
    )
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
        by = self.moderator or "the server"
        return f"{self.get_action_display()} by {by} at {self.created_at:%Y-%m-%d %H:%M:%S}"


# -- reports ------------------------------------------------------------------------


class ReportReason(models.TextChoices):
    CHEATING = "cheating", "cheating (help, collusion, a bot passed off as a person)"
    ABUSE = "abuse", "abuse or harassment"
    SPAM = "spam", "spam or advertising"
    STALLING = "stalling", "stalling or leaving games"
    OFFENSIVE_NAME = "offensive_name", "offensive username"
    OTHER = "other", "other"


class ReportStatus(models.TextChoices):
    OPEN = "open", "open"
    ASSIGNED = "assigned", "assigned"
    RESOLVED = "resolved", "resolved"


class ReportTarget(models.TextChoices):
    """What a report is about. Each kind has a column of its own on ``Report``
    (``account``, ``game``, ``message``) and a ``target_key`` ("account:12"). A
    chat message's report also sets ``game`` (its game) and ``account`` (its author),
    so it shows with the game and in the author's history."""

    ACCOUNT = "account", "account"
    GAME = "game", "game"
    MESSAGE = "message", "chat message"


class ReportOutcome(models.TextChoices):
    DISMISSED = "dismissed", "dismissed"
    WARNED = "warned", "player warned"
    MUTED = "muted", "player muted"
    SUSPENDED = "suspended", "player suspended"
    GAME_ABORTED = "game_aborted", "game aborted"
    MESSAGE_REMOVED = "message_removed", "chat message removed"


class Report(models.Model):
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made")
    target_kind = models.CharField(max_length=16, choices=ReportTarget.choices)
    target_key = models.CharField(max_length=64, help_text='The target as "<kind>:<id>": one open report each.')
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="reports_received"
    )
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="reports")
    message = models.ForeignKey(
        "chat.ChatMessage", null=True, blank=True, on_delete=models.CASCADE, related_name="reports"
    )
    reason = models.CharField(max_length=16, choices=ReportReason.choices)
    text = models.TextField(blank=True)
    status = models.CharField(max_length=16, choices=ReportStatus.choices, default=ReportStatus.OPEN, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="reports_assigned"
    )
    assigned_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=ReportOutcome.choices, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="reports_resolved"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.TextField(blank=True, help_text="The moderator's reason for the outcome.")

    class Meta:
        ordering = ["created_at", "id"]  # the queue: oldest first
        default_permissions = ("view",)
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "target_key"],
                condition=~models.Q(status="resolved"),
                name="report_one_open_per_reporter_and_target",
            )
        ]

    def __str__(self) -> str:
        return f"report {self.pk}: {self.get_reason_display()} about {self.target_text}"

    @property
    def outcome_or_none(self) -> str | None:
        return self.outcome or None

    @property
    def target_text(self) -> str:
        if self.target_kind == ReportTarget.ACCOUNT and self.account is not None:
            return f"account {self.account.username}"
        if self.target_kind == ReportTarget.GAME:
            return f"game {self.game_id}"
        if self.target_kind == ReportTarget.MESSAGE:
            return f"chat message {self.message_id} in game {self.game_id}"
        return self.target_key


class ReportComment(models.Model):
    """Moderators' internal discussion of a report (players never see it)."""

    report = models.ForeignKey(Report, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"comment {self.pk} on report {self.report_id}"


# -- what moderation remembers about an account -------------------------------------


class PlayerWarning(models.Model):
    """A warning the player sees on their account (``GET /me/warnings/``)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="warnings")
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    report = models.ForeignKey(Report, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        default_permissions = ("view",)
        verbose_name = "warning"

    def __str__(self) -> str:
        return f"warning {self.pk} to {self.player}"


class SanctionKind(models.TextChoices):
    SUSPENSION = "suspension", "suspension"
    MUTE = "mute", "mute"


class Sanction(models.Model):
    """A suspension or a mute, from ``starts_at`` until ``ends_at`` (none: until a
    moderator lifts it); beat's ``moderation.sanctions_expire`` lifts ended ones."""

    kind = models.CharField(max_length=16, choices=SanctionKind.choices)
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sanctions")
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    report = models.ForeignKey(Report, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(null=True, blank=True, db_index=True)
    lifted_at = models.DateTimeField(null=True, blank=True, db_index=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Empty when it ended by itself.",
    )

    class Meta:
        ordering = ["-starts_at", "-id"]
        default_permissions = ("view",)

    def __str__(self) -> str:
        until = f"until {self.ends_at:%Y-%m-%d %H:%M}" if self.ends_at else "indefinite"
        return f"{self.get_kind_display()} of {self.player} ({until})"

    @property
    def appeal_or_none(self) -> Appeal | None:
        """Its appeal, or None: the reverse one-to-one raises when there is none (and
        Django remembers either answer on the instance)."""
        try:
            return self.appeal
        except ObjectDoesNotExist:
            return None


class ModeratorNote(models.Model):
    """What moderators tell each other about an account (players never see it)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="moderator_notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"note {self.pk} about {self.player}"


class AppealStatus(models.TextChoices):
    OPEN = "open", "open"
    UPHELD = "upheld", "sanction upheld"
    LIFTED = "lifted", "sanction lifted"


class Appeal(models.Model):
    """A player's appeal against one of their sanctions (one per sanction), in the
    queue beside the reports; answered by another moderator than the one who
    imposed the sanction."""

    sanction = models.OneToOneField(Sanction, on_delete=models.CASCADE, related_name="appeal")
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    status = models.CharField(max_length=16, choices=AppealStatus.choices, default=AppealStatus.OPEN, db_index=True)
    answer = models.TextField(blank=True)
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]  # the queue: oldest first
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"appeal {self.pk} against {self.sanction}"
