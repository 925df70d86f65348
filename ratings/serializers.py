"""Input validation and output shapes of the ratings API (named once each)."""

from __future__ import annotations

from rest_framework import serializers

from core.serializers import FloatField
from ratings.models import RatingPool
from ratings.selectors import BoardKind

LEADERBOARD_KINDS = [(k.value, k.value) for k in BoardKind]


class LeaderboardQueryInput(serializers.Serializer):
    pool = serializers.ChoiceField(
        choices=RatingPool.choices,
        default=RatingPool.SMALL,
        help_text="The table sizes: `2` players, `3-4` or `5-8` (bigger tables count as `5-8`).",
    )
    kind = serializers.ChoiceField(
        choices=LEADERBOARD_KINDS,
        default=BoardKind.ALL.value,
        help_text="Everyone (`all`), human accounts only (`humans`) or bot accounts only (`bots`).",
    )
    cursor = serializers.RegexField(
        r"^[A-Za-z0-9_-]+$",  # base64url, as a page's next link writes it (ratings.selectors.BoardCursor)
        max_length=200,
        required=False,
        help_text="Where the page starts: the value a page's `next` link carries (opaque; not with `offset`). "
        "Every page so reached costs what the first does, however deep.",
    )


class LeaderboardEntryOutput(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 + how many in this board rate better (ties share a rank).")
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    rating = FloatField(help_text="The ordinal, mu - 3 sigma: what the board sorts by.")
    mu = FloatField()
    sigma = FloatField()
    games = serializers.IntegerField(help_text="Rated matches counted.")
    wins = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="Fewer than 10 rated matches in this pool.")


class RatingHistoryPointOutput(serializers.Serializer):
    game_id = serializers.IntegerField()
    at = serializers.DateTimeField()
    rating = FloatField(help_text="The ordinal after this match.")
    mu = FloatField()
    sigma = FloatField()


class RatedMatchOutput(serializers.Serializer):
    game_id = serializers.IntegerField()
    at = serializers.DateTimeField(help_text="When the match finished and was rated.")
    rank = serializers.IntegerField(help_text="The player's place among the rated accounts (1 = won; ties share).")
    players = serializers.IntegerField(help_text="How many rated accounts the match ranked.")
    won = serializers.BooleanField()
    forfeit = serializers.BooleanField(
        help_text="Resigned, handed to a bot or timed out: ranked last whatever the score."
    )
    rating_before = FloatField()
    rating_after = FloatField()
    mu_before = FloatField()
    mu_after = FloatField()
    sigma_before = FloatField()
    sigma_after = FloatField()
    voided = serializers.BooleanField(help_text="A moderator voided this match's rating effect.")


class PoolRatingOutput(serializers.Serializer):
    pool = serializers.ChoiceField(choices=RatingPool.choices)
    rating = FloatField(help_text="The ordinal, mu - 3 sigma.")
    mu = FloatField()
    sigma = FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    rank = serializers.IntegerField(help_text="Rank in the pool's board of everyone.")
    provisional = serializers.BooleanField(help_text="Fewer than 10 rated matches in this pool.")
    updated_at = serializers.DateTimeField()
    history = RatingHistoryPointOutput(many=True, help_text="The rating after each recent counted match, oldest first.")
    recent_matches = RatedMatchOutput(many=True, help_text="The recent rated matches, newest first (voided ones too).")


class PlayerRatingsOutput(serializers.Serializer):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    pools = PoolRatingOutput(many=True, help_text="One entry per pool the player has a rating in.")
