"""Persistence of ratings: one ``Rating`` per account and pool, and the
``RatingChange`` history (one row per account and rated match). Written only by
``ratings.services``."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class RatingPool(models.TextChoices):
    """Ratings are kept apart by table size: a two-player duel, a table of three or
    four, a big table (five and more: the 9- to 14-player tables of the big sets
    count here too)."""

    TWO = "2", "2 players"
    SMALL = "3-4", "3-4 players"
    LARGE = "5-8", "5-8 players"


def pool_for(players: int) -> RatingPool:
    """The pool of a table with ``players`` seats."""
    if players <= 2:
        return RatingPool.TWO
    if players <= 4:
        return RatingPool.SMALL
    return RatingPool.LARGE


class Rating(models.Model):
    """An account's skill in one pool: openskill's ``mu`` and ``sigma``, and the
    ``ordinal`` (mu - 3 sigma) the leaderboards sort by, stored and indexed."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    pool = models.CharField(max_length=3, choices=RatingPool.choices)
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField(help_text="mu - 3 sigma: the leaderboard's sort key.")
    games = models.PositiveIntegerField(default=0, help_text="Rated matches counted (voided ones are not).")
    wins = models.PositiveIntegerField(default=0)
    is_bot = models.BooleanField(default=False, help_text="Copied from the account at each update (for filtering).")
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["pool", "-ordinal", "user_id"]
        constraints = [models.UniqueConstraint(fields=["user", "pool"], name="rating_unique_user_pool")]
        indexes = [
            # A leaderboard page and a rank (a count of better ordinals) read these
            # indexes only: (pool, ordinal desc, user) for everyone ...
            models.Index(fields=["pool", "-ordinal", "user"], name="rating_board"),
            # ... and for the humans' or the bots' board.
            models.Index(fields=["pool", "is_bot", "-ordinal", "user"], name="rating_board_kind"),
        ]

    def __str__(self) -> str:
        return f"rating of user {self.user_id} in pool {self.pool}: {self.ordinal:.2f}"


class RatingChange(models.Model):
    """What one rated match did to one account's rating (exactly once: unique per
    account and game). A moderator's void undoes it and sets ``voided_at``."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="rating_changes")
    pool = models.CharField(max_length=3, choices=RatingPool.choices)
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    rank = models.PositiveSmallIntegerField(help_text="Place in the match's standings (1 = won; ties share).")
    players = models.PositiveSmallIntegerField(help_text="How many rated accounts the match ranked.")
    won = models.BooleanField(default=False)
    forfeit = models.BooleanField(
        default=False, help_text="Resigned, handed to a bot or timed out: ranked last whatever the score."
    )
    created_at = models.DateTimeField()
    voided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="rating_change_unique_user_game")]
        indexes = [models.Index(fields=["user", "pool", "-created_at"], name="rating_change_history")]

    def __str__(self) -> str:
        return f"rating change of user {self.user_id} in game {self.game_id}"

    @property
    def ordinal_before(self) -> float:
        return self.mu_before - 3 * self.sigma_before

    @property
    def ordinal_after(self) -> float:
        return self.mu_after - 3 * self.sigma_after
