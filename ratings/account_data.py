"""The ratings' part of "download my data" and "delete my account"
(``players.account_data``): the ratings and their history go with the account."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.serializers import FloatField
from players import account_data
from ratings.models import Rating, RatingChange, RatingPool


class MyDataRatingChangeOutput(serializers.Serializer):
    game = serializers.IntegerField(source="game_id")
    mu_before = FloatField()
    sigma_before = FloatField()
    mu_after = FloatField()
    sigma_after = FloatField()
    rank = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    voided_at = serializers.DateTimeField(allow_null=True)


class MyDataRatingOutput(serializers.Serializer):
    pool = serializers.ChoiceField(choices=RatingPool.choices)
    mu = FloatField()
    sigma = FloatField()
    ordinal = FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    updated_at = serializers.DateTimeField()
    history = MyDataRatingChangeOutput(many=True, help_text="Newest first.")


def ratings_export(user: Any) -> list[Any]:
    changes: dict[str, list[RatingChange]] = {}
    for change in RatingChange.objects.filter(user_id=user.pk).order_by("-created_at", "-id"):
        changes.setdefault(change.pool, []).append(change)
    return [
        {**vars(rating), "history": changes.get(rating.pool, [])}
        for rating in Rating.objects.filter(user_id=user.pk).order_by("pool")
    ]


def ratings_erase(user: Any) -> None:
    RatingChange.objects.filter(user_id=user.pk).delete()
    Rating.objects.filter(user_id=user.pk).delete()


account_data.register(
    account_data.AccountSection(
        name="ratings",
        serializer=MyDataRatingOutput,
        export=ratings_export,
        erase=ratings_erase,
        description="Your rating in each pool, with its history.",
        order=20,
    )
)
