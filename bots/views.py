"""GET /api/v1/bots/: the server-bot strategies a seat can be filled with."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.serializers import BotStrategyOutput
from games.strategies import STRATEGIES


class BotStrategyListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="bots_list", summary="Server-bot strategies", responses={200: BotStrategyOutput(many=True)}
    )
    def get(self, request: Request) -> Response:
        strategies = sorted(STRATEGIES.values(), key=lambda s: s.name)
        return Response(BotStrategyOutput(strategies, many=True).data)
