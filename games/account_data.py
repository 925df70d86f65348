"""The games' part of "download my data" and "delete my account"
(``players.account_data``): the games the account sat at; an account seated at
an open or running table cannot be deleted until it leaves or the game ends.
Finished games keep the seat (the account becomes an anonymous placeholder)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from core.errors import ApiError, register_enum
from games.models import GameStatus, Seat
from games.serializers import ResultOutput
from players import account_data


class AccountGamesCode(StrEnum):
    ACCOUNT_IN_PLAY = "account_in_play"


register_enum(
    AccountGamesCode,
    {
        AccountGamesCode.ACCOUNT_IN_PLAY: (
            409,
            gettext_lazy(
                "The account sits at an open or running table (`games`): leave it, resign or let it end, then delete "
                "the account."
            ),
            gettext_lazy("Account in play"),
        ),
    },
)


class MyDataGameOutput(serializers.Serializer):
    game = serializers.IntegerField(source="game_id")
    seat = serializers.IntegerField(source="number")
    status = serializers.ChoiceField(choices=GameStatus.choices, source="game.status")
    rated = serializers.BooleanField(source="game.rated")
    resigned = serializers.BooleanField()
    created_at = serializers.DateTimeField(source="game.created_at")
    finished_at = serializers.DateTimeField(source="game.finished_at", allow_null=True)
    result = ResultOutput(source="game.result", allow_null=True, help_text="The final standings, once over.")


def _seats(user: Any) -> list[Seat]:
    return list(Seat.objects.filter(player_id=user.pk).select_related("game").order_by("-game_id"))


def games_refusal(user: Any) -> ApiError | None:
    playing = Seat.objects.filter(
        Q(game__status=GameStatus.OPEN) | Q(game__status=GameStatus.RUNNING, resigned=False), player_id=user.pk
    )
    games = sorted(playing.values_list("game_id", flat=True))
    if not games:
        return None
    return ApiError(
        _("You are seated at a table that is open or being played: leave it, resign or let it end first."),
        code=AccountGamesCode.ACCOUNT_IN_PLAY,
        extra={"games": games},
    )


account_data.register(
    account_data.AccountSection(
        name="games",
        serializer=MyDataGameOutput,
        export=_seats,
        refuse=games_refusal,
        description="The games you sat at, newest first (their moves: GET /games/{id}/record/).",
        order=10,
    )
)
