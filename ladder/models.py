"""The bot ladder's records (persistence only: behaviour is in ``ladder.services``).

``LadderEntry``: a bot account on the ladder - one of the server's own levels
(``level`` set: the server plays it) or an outside bot that opted in (``level``
empty: its owner's program plays it over the API). ``LadderRound``: one scheduled
(or ``manage.py ladder_play``) round; ``LadderGame``: a match a round opened. The
games themselves are ordinary rated games of the ``games`` app.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

#: The table sizes a ladder round plays, in turn (round 1: 4 players, round 2: 2 ...).
TABLE_SIZES = (4, 2)
#: A built-in level's account: ``ladder-<strategy>``.
LEVEL_ACCOUNT_PREFIX = "ladder-"


def all_table_sizes() -> list[int]:
    return list(TABLE_SIZES)


class LadderEntry(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ladder_entry")
    level = models.CharField(
        max_length=32,
        blank=True,
        help_text="The server strategy that plays this account (a built-in level); empty: an outside bot.",
    )
    active = models.BooleanField(default=True, help_text="Rounds seat it (an outside bot opts out with DELETE).")
    table_sizes = models.JSONField(
        default=all_table_sizes, help_text="The table sizes (players) it accepts: 2, 4 or both."
    )
    max_games = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The most ladder games it plays at once; empty: no limit (built-in levels)."
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["joined_at", "id"]
        verbose_name_plural = "ladder entries"
        constraints = [
            models.UniqueConstraint(fields=["level"], condition=~models.Q(level=""), name="ladder_entry_one_per_level"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.level or 'outside bot'})"


class LadderRound(models.Model):
    slot = models.BigIntegerField(
        null=True,
        blank=True,
        unique=True,
        help_text="The scheduled time slot (seconds since the epoch // LADDER_INTERVAL_SECONDS); "
        "empty: a round played by manage.py ladder_play. Unique: one round per slot.",
    )
    table_size = models.PositiveSmallIntegerField()
    seed = models.CharField(max_length=64, help_text="Seeds the order of ties among the participants.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"ladder round {self.pk} ({self.table_size} players)"


class LadderGame(models.Model):
    round = models.ForeignKey(LadderRound, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="ladder_game")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.game} of {self.round}"
