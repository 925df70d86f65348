"""Challenges: a table with given settings offered to named accounts, started
when all of them have accepted (persistence only: behaviour is in services)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ChallengeStatus(models.TextChoices):
    PENDING = "pending", "waiting for answers"
    STARTED = "started", "everyone accepted: the table started"
    DECLINED = "declined", "an invitee declined"
    EXPIRED = "expired", "not everyone accepted in time"
    CANCELLED = "cancelled", "cancelled by its creator or a moderator"


#: The statuses a challenge never leaves.
FINAL_STATUSES = (ChallengeStatus.STARTED, ChallengeStatus.DECLINED, ChallengeStatus.EXPIRED, ChallengeStatus.CANCELLED)


class InviteStatus(models.TextChoices):
    PENDING = "pending", "not answered yet"
    ACCEPTED = "accepted", "accepted"
    DECLINED = "declined", "declined"


class Challenge(models.Model):
    """The creator takes seat 0; the invitees take seats 1.. in the order invited."""

    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent")
    players = models.PositiveSmallIntegerField(help_text="1 + the number of invitees.")
    ruleset = models.JSONField(help_text="The table's ruleset, complete (the engine's Ruleset.to_dict()).")
    rated = models.BooleanField(default=False)
    turn_time_limit = models.PositiveIntegerField(null=True, blank=True)
    bot_delay_ms = models.PositiveIntegerField(default=0)
    bot_strategy = models.CharField(max_length=32, default="greedy", help_text="The table's bot level.")
    status = models.CharField(max_length=16, choices=ChallengeStatus.choices, default=ChallengeStatus.PENDING)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="Once started."
    )
    cancel_reason = models.CharField(max_length=500, blank=True, default="")
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now, help_text="Changed with every answer and status change.")

    class Meta:
        ordering = ("-id",)
        indexes = [
            # the beat task's sweep: pending ones by deadline
            models.Index(fields=("expires_at",), condition=Q(status="pending"), name="challenges_pending_expiry"),
            models.Index(fields=("creator", "updated_at"), name="challenges_creator_updated"),
            models.Index(fields=("status", "updated_at"), name="challenges_status_updated"),
        ]

    def __str__(self) -> str:
        return f"challenge {self.pk} ({self.status})"


class ChallengeInvite(models.Model):
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="invites")
    invitee = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenge_invites")
    seat = models.PositiveSmallIntegerField(help_text="The seat the invitee takes (1..players-1).")
    status = models.CharField(max_length=16, choices=InviteStatus.choices, default=InviteStatus.PENDING)
    answered_at = models.DateTimeField(null=True, blank=True)
    auto = models.BooleanField(default=False, help_text="Answered by the bot account's policy, not by its program.")

    class Meta:
        ordering = ("challenge", "seat")
        constraints = [
            models.UniqueConstraint(fields=("challenge", "invitee"), name="challenges_invite_once"),
        ]
        indexes = [models.Index(fields=("invitee", "challenge"), name="challenges_invite_invitee")]

    def __str__(self) -> str:
        return f"invite of {self.invitee_id} to challenge {self.challenge_id} ({self.status})"


class ChallengePolicy(models.Model):
    """How a bot account answers challenges by itself. ``server_strategy``: the
    server plays the account's seat with that strategy (a server bot's account,
    e.g. a ladder level); such an account declines at once what it may not accept."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="challenge_policy",
        limit_choices_to={"is_bot": True},
    )
    auto_accept = models.BooleanField(default=False)
    rated = models.BooleanField(default=True, help_text="Rated challenges may be accepted.")
    casual = models.BooleanField(default=True, help_text="Casual (unrated) challenges may be accepted.")
    min_players = models.PositiveSmallIntegerField(default=2)
    max_players = models.PositiveSmallIntegerField(default=14)
    max_games = models.PositiveSmallIntegerField(
        default=4, help_text="Games at once: open or running tables plus accepted challenges not started yet."
    )
    server_strategy = models.CharField(
        max_length=32, blank=True, default="", help_text="Set: the server plays the account's seats (a strategy name)."
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "challenge policies"

    def __str__(self) -> str:
        return f"challenge policy of {self.user_id}"
