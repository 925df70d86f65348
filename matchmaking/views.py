"""Thin HTTP views of quick play: validate -> one service or selector -> output."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.inputs import validated
from core.schema import PAGE_PARAMETERS, problem_responses
from matchmaking import selectors, services
from matchmaking.presets import PRESETS
from matchmaking.serializers import (
    PresetOutput,
    SeekCreateInput,
    SeekListQueryInput,
    SeekOutput,
    preset_output,
    seek_output,
)
from players.authentication import request_account

# Named here: drf-spectacular does not infer them when error responses are declared too.


class SeekListCreateApi(GenericAPIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="seeks_list",
        summary="Your quick-play seeks",
        description="Your seeks, newest first.",
        parameters=[SeekListQueryInput, *PAGE_PARAMETERS],
        responses={200: SeekOutput(many=True), **problem_responses("validation_error")},
    )
    def get(self, request: Request) -> Response:
        query = validated(SeekListQueryInput, request.query_params)
        seeks = selectors.seek_list(user=request_account(request), status=query.get("status"))
        page = self.paginate_queryset(seeks) or []
        return self.get_paginated_response([seek_output(seek) for seek in page])

    @extend_schema(
        operation_id="seeks_create",
        summary="Seek a game (quick play)",
        description="Ask to be matched with other players who want the same table: the same number of "
        "players, preset, rated or casual, and clock (rated seeks also within a rating window that widens "
        "while they wait). A worker matches seeks first come, first served; the outcome arrives on the "
        "account stream (`GET /me/stream/`: `seek_matched` with the `game`) and in `GET /seeks/{id}/`. "
        "When `wait_seconds` run out: server bots take the empty seats, or the seek expires (`on_timeout`). "
        "One waiting seek per account, and none while you hold a seat at an open or running table.",
        request=SeekCreateInput,
        responses={201: SeekOutput, **problem_responses("validation_error", "seek_exists", "seated_elsewhere")},
    )
    def post(self, request: Request) -> Response:
        data = validated(SeekCreateInput, request.data)
        seek = services.seek_create(
            user=request_account(request),
            players=data["players"],
            preset=data["preset"],
            rated=data["rated"],
            turn_time_limit=data.get(
                "turn_time_limit", settings.DEFAULT_TURN_SECONDS
            ),  # omitted: the default; null: none
            wait_seconds=data["wait_seconds"],
            on_timeout=data["on_timeout"],
            bot_level=data.get("bot_level"),
        )
        return Response(seek_output(seek), status=status.HTTP_201_CREATED)


class SeekDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="seeks_retrieve",
        summary="One of your seeks",
        responses={200: SeekOutput, **problem_responses("not_found")},
    )
    def get(self, request: Request, seek_id: int) -> Response:
        return Response(seek_output(selectors.seek_get(seek_id=seek_id, user=request_account(request))))

    @extend_schema(
        operation_id="seeks_cancel",
        summary="Cancel your waiting seek",
        description="Answers the seek, now `cancelled`. A seek that was already matched, expired or cancelled "
        "cannot be (`seek_closed`).",
        responses={200: SeekOutput, **problem_responses("not_found", "seek_closed")},
    )
    def delete(self, request: Request, seek_id: int) -> Response:
        return Response(seek_output(services.seek_cancel(seek_id=seek_id, by=request_account(request))))


class PresetListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="presets_list",
        summary="Quick play's rulesets",
        description="The presets a seek chooses from (`preset` of POST /seeks/). `description` is in the "
        "request's language (Accept-Language, as every text for people); `name` is the machine name.",
        responses={200: PresetOutput(many=True)},
    )
    def get(self, request: Request) -> Response:
        return Response([preset_output(preset) for preset in PRESETS.values()])
