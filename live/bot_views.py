"""GET /api/v1/bots/: the server-bot strategies a seat can be filled with (the
registry is ``bots.strategies``; what the arena measured, ``live.strength``)."""

from __future__ import annotations

from django.urls import path
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from bots.strategies import STRATEGIES
from games.serializers import BotStrategyOutput
from live.strength import measured


class BotStrategyListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="bots_list",
        summary="Server-bot strategies and levels",
        description="Every strategy a table can seat (POST /games/{id}/bots/) or choose as its level "
        "(`bot_strategy` of POST /games/), with how strong the arena measured it and what a decision costs. `description` is in the request's "
        "language (Accept-Language, as every text for people); `name` is the machine name.",
        responses={200: BotStrategyOutput(many=True)},
    )
    def get(self, request: Request) -> Response:
        strength = measured()
        rows = [
            {"name": s.name, "description": gettext(s.description), "strength": strength.get(s.name)}
            for s in sorted(STRATEGIES.values(), key=lambda s: s.name)
        ]
        return Response(BotStrategyOutput(rows, many=True).data)


urlpatterns = [path("bots/", BotStrategyListApi.as_view(), name="bots")]
