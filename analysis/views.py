"""Thin HTTP views: validate the shape -> one service or selector -> serialize."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis import selectors, services
from analysis.serializers import AnalysisOutput, AnalysisQueryInput, AnalysisSeatInput, HintOutput
from core.inputs import validated
from core.schema import problem_responses
from core.throttling import ScopedRateThrottle
from players.authentication import request_account

SEAT_CODES = ("not_found", "seat_required", "no_such_seat", "not_seated")


class GameAnalysisApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_analysis_request",
        summary="Ask for the analysis of a seat of a finished game",
        description="Every decision of the seat with two or more choices is judged from that seat's view at "
        "that moment (never the hidden hands): the expected points of every choice, the best one, the loss of "
        "the move played and its class. Your own seat by default; any seat of a finished game that is not a "
        "practice game. An analysis is made once per game and seat and shared: asking for one that exists "
        "answers 200 with it and costs nothing; a new one answers 202, queued, and counts against your budget "
        "(`analysis_budget_exhausted`). Its progress comes on your account stream (`analysis_progress`). The "
        "body takes `seat` alone: any other member is refused (`validation_error`), as a misspelt `seat` would "
        "otherwise ask for your own seat.",
        request=AnalysisSeatInput,
        responses={
            200: AnalysisOutput,
            202: AnalysisOutput,
            **problem_responses(
                "validation_error",
                "not_authenticated",
                *SEAT_CODES,
                "game_not_finished",
                "analysis_budget_exhausted",
            ),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = validated(AnalysisSeatInput, request.data)
        user = request_account(request)
        analysis, created = services.analysis_request(game_id=game_id, user=user, seat=data.get("seat"))
        return Response(
            AnalysisOutput(selectors.analysis_output(analysis)).data,
            status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK,
        )

    @extend_schema(
        operation_id="games_analysis_retrieve",
        summary="The analysis of a seat: its progress, then its result",
        parameters=[AnalysisQueryInput],
        responses={
            200: AnalysisOutput,
            **problem_responses("validation_error", "not_authenticated", *SEAT_CODES, "analysis_not_requested"),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = validated(AnalysisQueryInput, request.query_params)
        user = request_account(request)
        analysis = selectors.analysis_get(game_id=game_id, user=user, seat=query.get("seat"))
        return Response(AnalysisOutput(selectors.analysis_output(analysis)).data)


class GameHintApi(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "hints"

    @extend_schema(
        operation_id="games_hint",
        summary="A hint for your turn in a practice game",
        description="The best move from your view alone (your hand, the layout, every draw and pass), with the "
        "expected points of every choice. Practice games only, on your own turn.",
        responses={
            200: HintOutput,
            **problem_responses(
                "not_authenticated",
                "not_found",
                "not_seated",
                "hints_practice_only",
                "game_not_started",
                "game_finished",
                "hint_not_your_turn",
                "rate_limited",
            ),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        user = request_account(request)
        return Response(HintOutput(services.hint(game_id=game_id, user=user)).data)
